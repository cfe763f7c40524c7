//! Move tables precomputed from a [`GameDef`]: for every kind, side and square, the rays
//! of squares each atom can reach on an empty board, and for attack tests the squares
//! from which a piece could capture onto a square.

use super::def::GameDef;
use super::geometry::{SQUARE_COUNT, Square, SquareSet};
use super::movement::Mode;
use super::piece::Side;

/// Marker for "no square" in packed tables.
pub(crate) const NO_SQUARE: u16 = u16::MAX;

/// One atom from one square: the squares it passes, in order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ray {
    pub start: u32,
    pub len: u8,
    pub mode: Mode,
    pub hop: bool,
    pub remote: bool,
    /// For lame leaps: the square that must be empty, else [`NO_SQUARE`].
    pub via: u16,
}

#[derive(Debug)]
pub(crate) struct Tables {
    pool: Vec<u16>,
    rays: Vec<Ray>,
    /// `[slot(kind, side, sq)]` → range of `rays`.
    spans: Vec<(u32, u32)>,
    /// `[slot(kind, side, sq)]` → squares its rays could capture on, ignoring blockers.
    pub attack_mask: Vec<SquareSet>,
    /// `[slot(kind, side, sq)]` → every square its moves could end on (or capture on
    /// without moving), ignoring blockers: its rays' squares and its start squares.
    pub reach_mask: Vec<SquareSet>,
    /// `[side * SQUARE_COUNT + target]` → squares from which some kind of `side` could
    /// capture onto `target`, ignoring blockers.
    pub reach_to: Vec<SquareSet>,
    /// `[side * SQUARE_COUNT + target]` → squares from which some kind of `side` could end
    /// a move on `target` (or capture there without moving), ignoring blockers.
    pub arrive_from: Vec<SquareSet>,
    /// `[slot(kind, side, target)]` → squares from which a piece of that kind and side
    /// could end a move on `target` (or capture there without moving), ignoring blockers:
    /// [`Tables::arrive_from`] for one kind, so that reading a move token visits only the
    /// pieces of the kind it names.
    pub arrive_kind: Vec<SquareSet>,
    /// `[slot(kind, side, sq)]` → whether two rays can end on one square (destinations
    /// must then be de-duplicated).
    pub overlapping: Vec<bool>,
    /// `[kind * 2 + side]` → the setup squares of that kind and side.
    pub start_squares: Vec<SquareSet>,
}

/// Whether `sq` is on a rank where `side` has a piece of kind `k` in the setup.
fn setup_rank(def: &GameDef, k: usize, side: Side, sq: Square) -> bool {
    def.setup.iter().any(|(q, p)| {
        p.kind.index() == k && p.side == side && q.rank() == sq.rank() && q.level() == sq.level()
    })
}

#[inline]
pub(crate) fn slot(kind: usize, side: Side, sq: Square) -> usize {
    (kind * 2 + side.index()) * SQUARE_COUNT + sq.index()
}

impl Tables {
    pub fn build(def: &GameDef) -> Tables {
        let dims = def.dims;
        let n = def.kinds.len() * 2 * SQUARE_COUNT;
        let mut t = Tables {
            pool: Vec::new(),
            rays: Vec::new(),
            spans: vec![(0, 0); n],
            attack_mask: vec![SquareSet::EMPTY; n],
            reach_mask: vec![SquareSet::EMPTY; n],
            reach_to: vec![SquareSet::EMPTY; 2 * SQUARE_COUNT],
            arrive_from: vec![SquareSet::EMPTY; 2 * SQUARE_COUNT],
            arrive_kind: vec![SquareSet::EMPTY; n],
            overlapping: vec![false; n],
            start_squares: vec![SquareSet::EMPTY; def.kinds.len() * 2],
        };
        for (sq, p) in &def.setup {
            t.start_squares[p.kind.index() * 2 + p.side.index()].insert(*sq);
        }
        let limit = (dims.files().max(dims.ranks()) as usize) * 2 + 2;
        for (k, kind) in def.kinds.iter().enumerate() {
            // An atom's offsets are the same from every square: made once per kind.
            let offsets: Vec<Vec<super::geometry::Offset>> =
                kind.atoms.iter().map(|a| a.offsets(limit)).collect();
            for side in Side::ALL {
                for from in dims.squares() {
                    let s = slot(k, side, from);
                    let first = t.rays.len() as u32;
                    let mut seen = SquareSet::EMPTY;
                    for (atom, atom_offsets) in kind.atoms.iter().zip(&offsets) {
                        if atom.from_levels & (1 << from.level().index()) == 0 {
                            continue;
                        }
                        let via = match atom.via {
                            None => NO_SQUARE,
                            Some(v) => {
                                let v = if side == Side::White { v } else { v.mirrored() };
                                match dims.offset(from, v) {
                                    Some(q) => q.index() as u16,
                                    None => continue,
                                }
                            }
                        };
                        if atom.initial && !setup_rank(def, k, side, from) {
                            continue;
                        }
                        let start = t.pool.len() as u32;
                        let mut len = 0u8;
                        for &off in atom_offsets {
                            let off = if side == Side::White { off } else { off.mirrored() };
                            match dims.offset(from, off) {
                                Some(next) if next != from => {
                                    t.pool.push(next.index() as u16);
                                    len += 1;
                                }
                                _ => break,
                            }
                        }
                        if len == 0 {
                            continue;
                        }
                        let squares = &t.pool[start as usize..];
                        // A hop captures only beyond its screen: never on the first square.
                        let capture_squares = if atom.hop { &squares[1..] } else { squares };
                        for &q in squares {
                            let q = Square::from_index(q as usize).expect("pooled squares are valid");
                            if seen.contains(q) {
                                t.overlapping[s] = true;
                            }
                            seen.insert(q);
                        }
                        if atom.mode.captures() {
                            for &q in capture_squares {
                                let q = Square::from_index(q as usize).expect("valid");
                                t.attack_mask[s].insert(q);
                                t.reach_to[side.index() * SQUARE_COUNT + q.index()].insert(from);
                            }
                        }
                        t.rays.push(Ray {
                            start,
                            len,
                            mode: atom.mode,
                            hop: atom.hop,
                            remote: atom.remote,
                            via,
                        });
                    }
                    // The return to the start squares may reach a square a ray reaches
                    // too (`sylph-return=above`: the Air square directly above).
                    let returns = kind.return_to_start_from & (1 << from.level().index()) != 0;
                    let starts = t.start_squares[k * 2 + side.index()];
                    if returns && !seen.intersection(&starts).is_empty() {
                        t.overlapping[s] = true;
                    }
                    t.reach_mask[s] = if returns { seen.union(&starts) } else { seen };
                    for q in t.reach_mask[s].iter() {
                        t.arrive_from[side.index() * SQUARE_COUNT + q.index()].insert(from);
                        t.arrive_kind[slot(k, side, q)].insert(from);
                    }
                    t.spans[s] = (first, t.rays.len() as u32);
                }
            }
        }
        t
    }

    /// The rays of `kind` for `side` from `sq`.
    #[inline]
    pub fn rays(&self, kind: usize, side: Side, sq: Square) -> &[Ray] {
        let (a, b) = self.spans[slot(kind, side, sq)];
        &self.rays[a as usize..b as usize]
    }

    /// The squares of `ray`.
    #[inline]
    pub fn squares(&self, ray: &Ray) -> &[u16] {
        &self.pool[ray.start as usize..ray.start as usize + ray.len as usize]
    }
}
