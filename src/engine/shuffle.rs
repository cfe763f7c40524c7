//! 960-style starting positions (Fischer random chess, and Fairy-Stockfish's `chess960`
//! for any variant with castling): the pieces of the first side's castling rank in the
//! definition's start are shuffled over the same squares, under two rules:
//!
//! - the castling king stands between two castling rooks (one on a lower file, one on a
//!   higher);
//! - the pieces of a kind that keeps to squares of one colour (every move changes file
//!   plus rank by an even number: a bishop, a ferz, an alfil), when there are two or more
//!   of them, stand on both colours as evenly as they can (two bishops: one on each).
//!
//! The second side's castling rank is the mirror of the first's (the same kinds on the
//! same files); everything else stays where the definition puts it. For chess that is
//! the 960 positions of Chess960; [`arrangements`] lists them all, in one fixed order, and
//! [`draw`] picks one by a seed, so that a seed names one start on every machine.

use super::def::GameDef;
use super::geometry::Square;
use super::piece::{Piece, PieceKind, Side};
use super::position::Position;
use super::variant::Variant;

/// One arrangement of the castling rank: the kind on each of its occupied files, by file.
pub type Arrangement = Vec<(u8, PieceKind)>;

/// Whether every move of `kind` keeps to squares of one colour.
pub fn colour_bound(def: &GameDef, kind: PieceKind) -> bool {
    let atoms = &def.kind(kind).atoms;
    !atoms.is_empty()
        && atoms.iter().all(|a| a.offsets(2).iter().all(|o| (i32::from(o.df) + i32::from(o.dr)) % 2 == 0))
}

/// The first side's pieces on its castling rank in the definition's start, by file, and
/// that rank's index; `None` when the game does not draw its start 960-style, or the
/// second side's rank is not the mirror of the first's.
pub fn castling_rank(def: &GameDef) -> Option<(u8, Arrangement)> {
    let c = def.castling.as_ref().filter(|c| c.chess960)?;
    let rank = c.rank;
    let mirror = def.dims.ranks() - 1 - rank;
    let on = |side: Side, r: u8| -> Arrangement {
        let mut out: Arrangement = def
            .setup
            .iter()
            .filter(|(sq, p)| {
                p.side == side && sq.rank().index() == usize::from(r) && sq.level().index() == 0
            })
            .map(|(sq, p)| (sq.file().index() as u8, p.kind))
            .collect();
        out.sort_unstable();
        out
    };
    let first = on(Side::White, rank);
    (def.dims.levels() == 1 && first == on(Side::Black, mirror)).then_some((rank, first))
}

/// Whether `arrangement` (on rank `rank`) obeys the rules of the module docs.
fn obeys(def: &GameDef, rank: u8, arrangement: &Arrangement) -> bool {
    let Some(c) = &def.castling else { return false };
    let Some(&(king, _)) = arrangement.iter().find(|(_, k)| *k == c.king) else { return false };
    let rook = |f: &u8, k: &PieceKind| c.rooks.contains(k) && *f != king;
    let below = arrangement.iter().any(|(f, k)| rook(f, k) && *f < king);
    let above = arrangement.iter().any(|(f, k)| rook(f, k) && *f > king);
    if !(below && above) {
        return false;
    }
    let mut kinds: Vec<PieceKind> = arrangement.iter().map(|(_, k)| *k).collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds.into_iter().filter(|k| colour_bound(def, *k)).all(|kind| {
        let files: Vec<u8> = arrangement.iter().filter(|(_, k)| *k == kind).map(|(f, _)| *f).collect();
        let light = files.iter().filter(|f| (u32::from(**f) + u32::from(rank)) % 2 == 1).count();
        light.abs_diff(files.len() - light) <= 1
    })
}

/// Every 960-style arrangement of the castling rank, each once, in the order of the kinds
/// read file by file (the lowest kind index on the lowest file first); empty when the
/// game does not draw its start so.
pub fn arrangements(def: &GameDef) -> Vec<Arrangement> {
    let Some((rank, start)) = castling_rank(def) else { return Vec::new() };
    let files: Vec<u8> = start.iter().map(|(f, _)| *f).collect();
    let mut kinds: Vec<PieceKind> = start.iter().map(|(_, k)| *k).collect();
    kinds.sort_unstable();
    let mut out = Vec::new();
    loop {
        let a: Arrangement = files.iter().copied().zip(kinds.iter().copied()).collect();
        if obeys(def, rank, &a) {
            out.push(a);
        }
        if !next_permutation(&mut kinds) {
            return out;
        }
    }
}

/// The next arrangement of `items` in lexicographic order (each distinct one once);
/// `false` after the last.
fn next_permutation<T: Ord>(items: &mut [T]) -> bool {
    let Some(i) = (1..items.len()).rev().find(|&i| items[i - 1] < items[i]) else { return false };
    let j = (i..items.len()).rev().find(|&j| items[i - 1] < items[j]).expect("items[i] is greater");
    items.swap(i - 1, j);
    items[i..].reverse();
    true
}

/// The start position with `arrangement` on both castling ranks (mirrored for the second
/// side), every other piece where the definition puts it, each outermost castling rook's
/// right given.
///
/// # Panics
/// If `arrangement` is not one of [`arrangements`]'s.
pub fn start_with(v: &Variant, arrangement: &Arrangement) -> Position {
    let def = v.def();
    let (rank, _) = castling_rank(def).expect("a game drawn 960-style");
    let mirror = def.dims.ranks() - 1 - rank;
    let at = |file: u8, r: u8| -> Square {
        def.dims.square_at(0, i32::from(file), i32::from(r)).expect("a square of the board")
    };
    let mut setup: Vec<(Square, Piece)> = def
        .setup
        .iter()
        .copied()
        .filter(|(sq, p)| {
            let r = sq.rank().index() as u8;
            !((p.side == Side::White && r == rank) || (p.side == Side::Black && r == mirror))
        })
        .collect();
    for &(file, kind) in arrangement {
        setup.push((at(file, rank), Piece::new(Side::White, kind)));
        setup.push((at(file, mirror), Piece::new(Side::Black, kind)));
    }
    v.start_from(&setup).expect("a shuffled start is a valid setup")
}

/// Whether `pos` is one of the game's 960-style starts ([`start_with`] of one of the
/// [`arrangements`]): its first side's castling rank obeys the rules, and the whole
/// position is the start with that rank.
pub fn is_drawn_start(v: &Variant, pos: &Position) -> bool {
    let def = v.def();
    let Some((rank, start)) = castling_rank(def) else { return false };
    let mut got: Arrangement = Vec::with_capacity(start.len());
    for &(file, _) in &start {
        let sq = def.dims.square_at(0, i32::from(file), i32::from(rank));
        match sq.and_then(|sq| pos.piece_at(sq)) {
            Some(p) if p.side == Side::White => got.push((file, p.kind)),
            _ => return false,
        }
    }
    let mut want: Vec<PieceKind> = start.iter().map(|(_, k)| *k).collect();
    let mut have: Vec<PieceKind> = got.iter().map(|(_, k)| *k).collect();
    want.sort_unstable();
    have.sort_unstable();
    want == have && obeys(def, rank, &got) && start_with(v, &got) == *pos
}

/// The 960-style start that `seed` names: arrangement number `mix(seed) mod N` of the `N`
/// [`arrangements`] (the seed's bits mixed, so that nearby seeds name unrelated starts).
/// `None` when the game does not draw its start so.
pub fn draw(v: &Variant, seed: u64) -> Option<Position> {
    let all = arrangements(v.def());
    let n = u64::try_from(all.len()).ok().filter(|n| *n > 0)?;
    let k = usize::try_from(mix(seed) % n).expect("an index below the count");
    Some(start_with(v, &all[k]))
}

/// SplitMix64's finaliser: every bit of `x` moves every bit of the result.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::next_permutation;

    #[test]
    fn permutations_of_a_multiset_are_each_listed_once() {
        let mut items = [1, 1, 2, 3];
        let mut seen = vec![items];
        while next_permutation(&mut items) {
            seen.push(items);
        }
        // 4! / 2! = 12, in increasing order.
        assert_eq!(seen.len(), 12);
        assert!(seen.windows(2).all(|w| w[0] < w[1]));
    }
}
