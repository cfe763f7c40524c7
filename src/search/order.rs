//! Move ordering: the hash move first, then captures by value (most valuable victim,
//! least valuable attacker), promotions, the two killer moves of the ply, then quiet
//! moves by their history score.

use crate::engine::geometry::SQUARE_COUNT;
use crate::engine::position::MAX_KINDS;
use crate::engine::{Move, Side, Variant};

use super::eval::Evaluator;

const HASH_MOVE: i32 = 1 << 30;
const CAPTURE: i32 = 1 << 28;
const KILLER: i32 = 1 << 26;

/// What the search learns about quiet moves: killers by ply, history by side, kind and
/// destination.
pub(crate) struct Heuristics {
    killers: Vec<[Option<Move>; 2]>,
    history: Vec<i32>,
}

impl Heuristics {
    pub fn new(max_ply: usize) -> Heuristics {
        Heuristics { killers: vec![[None; 2]; max_ply + 1], history: vec![0; 2 * MAX_KINDS * SQUARE_COUNT] }
    }

    #[inline]
    fn slot(side: Side, mv: &Move) -> usize {
        (side.index() * MAX_KINDS + mv.piece().index()) * SQUARE_COUNT + mv.to().index()
    }

    /// A quiet move `mv` of `side` caused a cut-off at `ply`, `depth` plies from the leaves.
    pub fn reward(&mut self, side: Side, mv: &Move, ply: usize, depth: i32) {
        let k = &mut self.killers[ply];
        if k[0] != Some(*mv) {
            k[1] = k[0];
            k[0] = Some(*mv);
        }
        let h = &mut self.history[Self::slot(side, mv)];
        *h = (*h + depth * depth).min(KILLER / 2);
    }

    /// Halves every history score (between iterations, so old results weigh less).
    pub fn age(&mut self) {
        for h in &mut self.history {
            *h /= 2;
        }
    }

    /// The order score of `mv` (higher first).
    pub fn score(&self, e: &Evaluator, side: Side, mv: &Move, hash: Option<Move>, ply: usize) -> i32 {
        if hash == Some(*mv) {
            return HASH_MOVE;
        }
        if is_tactical(mv) {
            let victim = e.gain(mv);
            return CAPTURE + victim * 16 - e.value(mv.piece()) / 16;
        }
        let k = &self.killers[ply];
        if k[0] == Some(*mv) {
            return KILLER + 1;
        }
        if k[1] == Some(*mv) {
            return KILLER;
        }
        self.history[Self::slot(side, mv)]
    }
}

/// Whether `mv` changes the material at once: a capture (a Dragon's from afar too), a
/// removal (the Fantasy Grand Orc) or a promotion.
#[inline]
pub(crate) fn is_tactical(mv: &Move) -> bool {
    mv.capture().is_some() || mv.promotion().is_some() || matches!(mv, Move::Removal { .. })
}

/// Whether `mv` freezes an enemy piece on arrival (a Gygax Basilisk moving under one).
pub(crate) fn freezes(v: &Variant, pos: &crate::engine::Position, mv: &Move) -> bool {
    let Move::Normal { piece, to, .. } = *mv else {
        return false;
    };
    let Some(off) = v.def().kind(piece).freezes else {
        return false;
    };
    v.def().dims.offset(to, off).and_then(|sq| pos.piece_at(sq)).is_some_and(|p| p.side != pos.side_to_move())
}

/// Sorts `moves` best first by their scores.
pub(crate) fn sort(moves: &mut [Move], scores: &mut Vec<i32>, score: impl Fn(&Move) -> i32) {
    scores.clear();
    scores.extend(moves.iter().map(&score));
    // Insertion sort by score, descending: lists are short and mostly need a few swaps.
    for i in 1..moves.len() {
        let (m, s) = (moves[i], scores[i]);
        let mut j = i;
        while j > 0 && scores[j - 1] < s {
            moves[j] = moves[j - 1];
            scores[j] = scores[j - 1];
            j -= 1;
        }
        moves[j] = m;
        scores[j] = s;
    }
}
