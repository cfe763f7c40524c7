//! Iterative deepening principal variation search.
//!
//! Each iteration searches the root moves one ply deeper than the last, the best line of
//! the previous iteration first; below the root, alpha-beta with a null window for every
//! move after the first (searched again with the full window when it beats alpha), the
//! transposition table's move and bounds, one ply more for a move that gives check,
//! null-move pruning and late-move reductions (below), and at the leaves a quiescence search of the tactical moves (captures, removals,
//! promotions, a Basilisk's freeze; every legal move when in check). An iteration cut by
//! the budget is thrown away, except its best move when it already beat the last
//! iteration's; the first iteration always completes.
//!
//! Null-move pruning: at a node off the principal variation, at least [`NULL_MIN_DEPTH`]
//! plies from the leaves, not in check, whose static evaluation already reaches beta,
//! the side to move passes and the opponent searches `depth - 1 - R` plies (R = 3 +
//! depth / 6); if it still cannot bring the score below beta, the node fails high
//! without searching its moves. Never twice in a row, never for a side with only its
//! royal piece and pawns (zugzwang, where passing would be the best move), never in a
//! variant with a counting rule (a pass would count).
//!
//! Late-move reductions: after the first [`LMR_FIRST_MOVES`] moves of a node at least 3
//! plies from the leaves, a quiet move (no capture or other tactical move, no check
//! given, the side not in check) is searched `r` plies less, `r` growing with the depth
//! and the move's place in the order (`0.75 + ln(depth)·ln(number) / 2.25`, one less at
//! principal-variation nodes); a move that beats alpha at the reduced depth is searched
//! again at the full depth.
//!
//! [`Limits::pruning`] set to false switches both off: the search before them, played
//! against the current one by `benches/selfplay.rs`.

use std::time::Instant;

use crate::engine::{Move, Outcome, Position, Variant};

use super::eval::Evaluator;
use super::order::{Heuristics, freezes, is_tactical, sort};
use super::tt::{Bound, Table};

/// Deepest ply searched (extensions and quiescence included).
pub const MAX_PLY: usize = 96;
/// The budget's deadline (and a stop request) is checked every this many nodes; the node
/// limit at every node.
pub const CHECK_EVERY: u64 = 1024;
/// The score of a mate at the root (a mate `n` plies away scores `MATE - n`).
const MATE: i32 = 30_000;
/// Scores above this are mates.
const MATE_BOUND: i32 = MATE - MAX_PLY as i32 * 2;
const INFINITY: i32 = MATE + 1;
/// Deepest quiescence below the main search's leaves.
const MAX_QUIESCENCE: usize = 12;
/// The least depth at which a null move is tried.
const NULL_MIN_DEPTH: i32 = 3;
/// Moves searched at full depth at every node before reductions start.
const LMR_FIRST_MOVES: usize = 3;
/// The reduction table's size: depths and move numbers beyond it use its last entry.
const LMR_SIZE: usize = 64;

/// How long to search: the first limit reached ends the search (after at least one
/// complete iteration). With no limit at all, depth 4.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The deepest iteration, in plies.
    pub depth: Option<u32>,
    /// Most nodes (positions visited, quiescence included). The first iteration (depth 1)
    /// always completes, so that there is a move to play; after it the search stops at
    /// this many nodes.
    pub nodes: Option<u64>,
    /// When to stop.
    pub deadline: Option<Instant>,
    /// How many best lines (1 when 0).
    pub multipv: usize,
    /// Transposition table entries (a default when 0).
    pub table_entries: usize,
    /// Set from another thread to stop the search (UCI's `stop`); with no other limit,
    /// the search goes on until it is set.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Null-move pruning and late-move reductions (on by default); off, the search is
    /// the previous version's, for self-play against it.
    pub pruning: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            depth: None,
            nodes: None,
            deadline: None,
            multipv: 0,
            table_entries: 0,
            stop: None,
            pruning: true,
        }
    }
}

/// A score from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns: 100 is about a pawn ahead.
    Centipawns(i32),
    /// The side to move mates in this many of its moves (negative: is mated in as many
    /// of the opponent's moves; 0: is mated already).
    Mate(i32),
}

impl Score {
    fn from_internal(s: i32) -> Score {
        if s >= MATE_BOUND {
            Score::Mate((MATE - s + 1) / 2)
        } else if s <= -MATE_BOUND {
            Score::Mate(-((MATE + s) / 2))
        } else {
            Score::Centipawns(s)
        }
    }
}

/// One line: its score and moves, the first move first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The score after the line's first move, from the root's side to move.
    pub score: Score,
    /// The moves.
    pub moves: Vec<Move>,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The best lines, best first (none when the game is over at the root).
    pub lines: Vec<Line>,
    /// The last complete iteration's depth.
    pub depth: u32,
    /// The deepest ply reached.
    pub seldepth: u32,
    /// Positions visited.
    pub nodes: u64,
    /// The game's end at the root, when it is over.
    pub outcome: Option<Outcome>,
}

/// Searches `pos` of `v`, `history` being the hashes of the game's earlier positions
/// (oldest first; a position met again scores as a draw).
pub fn search(v: &Variant, pos: &Position, history: &[u64], limits: &Limits) -> Report {
    let mut s = Searcher::new(v, history, limits);
    s.run(pos)
}

struct Searcher<'a> {
    v: &'a Variant,
    eval: Evaluator,
    tt: Table,
    heur: Heuristics,
    /// Hashes of the game's positions, then of the search's path.
    path: Vec<u64>,
    nodes: u64,
    seldepth: usize,
    stopped: bool,
    /// Stops are allowed (after the first iteration).
    may_stop: bool,
    limits: &'a Limits,
    /// Checks are extended only above this ply (twice the iteration's depth).
    max_extended_ply: usize,
    pv: Vec<Vec<Move>>,
    scratch: Vec<Move>,
    scores: Vec<Vec<i32>>,
    /// Late-move reductions by depth and move number ([`reductions`]).
    reductions: Vec<[u8; LMR_SIZE]>,
    /// Null moves are tried (the variant has no counting rule).
    null_moves: bool,
}

/// The late-move reduction of the `n`th move (from 1) at `depth` plies, for each pair
/// below [`LMR_SIZE`]: `0.75 + ln(depth) · ln(n) / 2.25`, rounded down.
fn reductions() -> Vec<[u8; LMR_SIZE]> {
    (0..LMR_SIZE)
        .map(|d| {
            let mut row = [0u8; LMR_SIZE];
            for (n, r) in row.iter_mut().enumerate().skip(1) {
                if d > 0 {
                    *r = (0.75 + (d as f64).ln() * (n as f64).ln() / 2.25) as u8;
                }
            }
            row
        })
        .collect()
}

impl<'a> Searcher<'a> {
    fn new(v: &'a Variant, history: &[u64], limits: &'a Limits) -> Searcher<'a> {
        let entries = if limits.table_entries == 0 { 1 << 18 } else { limits.table_entries };
        Searcher {
            v,
            eval: Evaluator::new(v),
            tt: Table::new(entries),
            heur: Heuristics::new(MAX_PLY + 1),
            path: history.to_vec(),
            nodes: 0,
            seldepth: 0,
            stopped: false,
            may_stop: false,
            limits,
            max_extended_ply: 0,
            pv: vec![Vec::new(); MAX_PLY + 2],
            scratch: Vec::with_capacity(256),
            scores: vec![Vec::new(); MAX_PLY + 2],
            reductions: reductions(),
            null_moves: limits.pruning && v.def().counting.is_none(),
        }
    }

    fn run(&mut self, pos: &Position) -> Report {
        let mut report = Report { lines: Vec::new(), depth: 0, seldepth: 0, nodes: 0, outcome: None };
        let mut root = self.v.legal_moves(pos);
        if root.is_empty() {
            report.outcome = self.v.outcome(pos);
            return report;
        }
        let endless = self.limits.stop.is_some();
        let max_depth = match (self.limits.depth, self.limits.nodes, self.limits.deadline) {
            (Some(d), _, _) => d.clamp(1, MAX_PLY as u32 / 2),
            (None, None, None) if !endless => 4,
            _ => MAX_PLY as u32 / 2,
        };
        let want = self.limits.multipv.max(1).min(root.len());
        for depth in 1..=max_depth {
            if depth > 1 && self.limits.nodes.is_some_and(|n| self.nodes >= n) {
                break;
            }
            self.tt.new_search();
            self.max_extended_ply = 2 * depth as usize;
            let mut lines: Vec<Line> = Vec::new();
            let mut excluded: Vec<Move> = Vec::new();
            for _ in 0..want {
                let Some((score, pv)) = self.root(pos, &root, &excluded, depth as i32) else {
                    break;
                };
                excluded.push(pv[0]);
                lines.push(Line { score: Score::from_internal(score), moves: pv });
            }
            if self.stopped {
                // A cut iteration's first line stands when its move was searched first
                // (the previous best) or beat it.
                if let Some(first) = lines.into_iter().next()
                    && !report.lines.is_empty()
                {
                    let keep = report.lines[0].moves[0] == first.moves[0]
                        || better(first.score, report.lines[0].score);
                    if keep && report.lines.len() == 1 {
                        report.lines[0] = first;
                    }
                }
                break;
            }
            // Best lines first, the next iteration's root order.
            lines.sort_by_key(|l| std::cmp::Reverse(order_key(l.score)));
            report.lines = lines;
            report.depth = depth;
            self.may_stop = true;
            self.heur.age();
            let firsts: Vec<Move> = report.lines.iter().map(|l| l.moves[0]).collect();
            root.sort_by_key(|m| firsts.iter().position(|f| f == m).unwrap_or(usize::MAX));
            // A forced mate found needs no deeper search.
            if report.lines.iter().all(|l| matches!(l.score, Score::Mate(_))) && want == 1 {
                break;
            }
        }
        report.nodes = self.nodes;
        report.seldepth = self.seldepth as u32;
        report
    }

    /// One root search of the moves of `root` not in `excluded`: the best score and line,
    /// or `None` when the budget ran out before the first move was searched.
    fn root(
        &mut self,
        pos: &Position,
        root: &[Move],
        excluded: &[Move],
        depth: i32,
    ) -> Option<(i32, Vec<Move>)> {
        let (mut alpha, beta) = (-INFINITY, INFINITY);
        let mut best: Option<(i32, Vec<Move>)> = None;
        self.path.push(pos.hash());
        for (i, m) in root.iter().copied().filter(|m| !excluded.contains(m)).enumerate() {
            let next = self.v.make(pos, &m);
            let ext = i32::from(self.v.in_check(&next));
            let score = if i == 0 {
                -self.negamax(&next, depth - 1 + ext, -beta, -alpha, 1, true)
            } else {
                let s = -self.negamax(&next, depth - 1 + ext, -alpha - 1, -alpha, 1, true);
                if s > alpha && !self.stopped {
                    -self.negamax(&next, depth - 1 + ext, -beta, -alpha, 1, true)
                } else {
                    s
                }
            };
            if self.stopped {
                break;
            }
            if best.is_none() || score > alpha {
                alpha = alpha.max(score);
                let mut line = vec![m];
                line.extend_from_slice(&self.pv[1]);
                best = Some((score, line));
            }
        }
        self.path.pop();
        if let Some((score, line)) = &best
            && excluded.is_empty()
        {
            self.tt.store(pos.hash(), Some(line[0]), *score, depth as i16, Bound::Exact);
        }
        best
    }

    /// Whether the budget is spent: the node limit at every node, the deadline and a stop
    /// request every [`CHECK_EVERY`] nodes; never during the first iteration.
    #[inline]
    fn out_of_budget(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if !self.may_stop {
            return false;
        }
        if self.limits.nodes.is_some_and(|n| self.nodes >= n) {
            self.stopped = true;
            return true;
        }
        if !self.nodes.is_multiple_of(CHECK_EVERY) {
            return false;
        }
        let over_time = self.limits.deadline.is_some_and(|d| Instant::now() >= d);
        let told = self.limits.stop.as_ref().is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed));
        self.stopped = over_time || told;
        self.stopped
    }

    /// Whether `pos` repeats a position since the last irreversible move.
    fn repeated(&self, pos: &Position) -> bool {
        let back = usize::from(pos.halfmove_clock()).min(self.path.len());
        self.path[self.path.len() - back..].iter().rev().skip(1).step_by(2).any(|&h| h == pos.hash())
    }

    fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        may_pass: bool,
    ) -> i32 {
        self.pv[ply].clear();
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.out_of_budget() {
            return 0;
        }
        if self.repeated(pos) {
            return 0;
        }
        if ply >= MAX_PLY {
            return self.eval.evaluate(self.v, pos, &mut self.scratch);
        }
        // Mate distance: nothing here can beat a mate found nearer the root.
        let (alpha_md, beta_md) = (alpha.max(-MATE + ply as i32), beta.min(MATE - ply as i32 - 1));
        if alpha_md >= beta_md {
            return alpha_md;
        }
        let hash = pos.hash();
        let entry = self.tt.probe(hash);
        if let Some(e) = entry
            && i32::from(e.depth) >= depth
        {
            let s = from_tt(e.score, ply);
            let cut = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            };
            if cut {
                return s;
            }
        }
        if depth <= 0 {
            if pos.halfmove_clock() >= 100 {
                return 0;
            }
            return self.quiescence(pos, alpha, beta, ply, 0);
        }
        let mut moves = self.v.legal_moves(pos);
        if moves.is_empty() {
            return self.terminal(pos, ply);
        }
        // A draw the side to move may claim (checkmate on the 100th ply stands).
        if pos.halfmove_clock() >= 100 {
            return 0;
        }
        let side = pos.side_to_move();
        let in_check = self.v.in_check(pos);
        let pv_node = beta - alpha > 1;
        if may_pass && !pv_node && !in_check && depth >= NULL_MIN_DEPTH {
            if let Some(s) = self.null_move(pos, depth, beta, ply) {
                return s;
            }
            if self.stopped {
                return 0;
            }
        }
        let hash_move = entry.and_then(|e| e.best);
        let mut scores = std::mem::take(&mut self.scores[ply]);
        sort(&mut moves, &mut scores, |m| self.heur.score(&self.eval, side, m, hash_move, ply));
        self.scores[ply] = scores;
        let alpha0 = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        self.path.push(hash);
        for (i, m) in moves.iter().enumerate() {
            let next = self.v.make(pos, m);
            let gives_check = self.v.in_check(&next);
            let ext = i32::from(ply < self.max_extended_ply && gives_check);
            let d = depth - 1 + ext;
            let mut score = if i == 0 {
                -self.negamax(&next, d, -beta, -alpha, ply + 1, true)
            } else {
                let quiet = !in_check && !gives_check && !is_tactical(m);
                let r = if self.limits.pruning && quiet && i >= LMR_FIRST_MOVES && depth >= 3 {
                    let r = self.reduction(depth, i + 1) - i32::from(pv_node);
                    r.clamp(0, d - 1)
                } else {
                    0
                };
                let mut s = -self.negamax(&next, d - r, -alpha - 1, -alpha, ply + 1, true);
                if r > 0 && s > alpha && !self.stopped {
                    s = -self.negamax(&next, d, -alpha - 1, -alpha, ply + 1, true);
                }
                s
            };
            if i > 0 && score > alpha && score < beta && !self.stopped {
                score = -self.negamax(&next, d, -beta, -alpha, ply + 1, true);
            }
            if self.stopped {
                self.path.pop();
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(*m);
                if score > alpha {
                    alpha = score;
                    self.extend_pv(ply, *m);
                }
            }
            if alpha >= beta {
                if !is_tactical(m) {
                    self.heur.reward(side, m, ply, depth);
                }
                break;
            }
        }
        self.path.pop();
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(hash, best_move, to_tt(best, ply), depth as i16, bound);
        best
    }

    /// The reduction of the `n`th move (from 1) at `depth`.
    fn reduction(&self, depth: i32, n: usize) -> i32 {
        let d = (depth.max(0) as usize).min(LMR_SIZE - 1);
        i32::from(self.reductions[d][n.min(LMR_SIZE - 1)])
    }

    /// Null-move pruning at a node (off the principal variation, not in check): the
    /// score to fail high with when passing still leaves the opponent below `beta`.
    fn null_move(&mut self, pos: &Position, depth: i32, beta: i32, ply: usize) -> Option<i32> {
        if !self.null_moves || beta.abs() >= MATE_BOUND || !self.has_pieces(pos) {
            return None;
        }
        if self.eval.evaluate(self.v, pos, &mut self.scratch) < beta {
            return None;
        }
        let r = 3 + depth / 6;
        let next = self.v.make_null(pos);
        self.path.push(pos.hash());
        let s = -self.negamax(&next, depth - 1 - r, -beta, -beta + 1, ply + 1, false);
        self.path.pop();
        // A mate found after a pass is not proven: fail high with beta.
        (!self.stopped && s >= beta).then_some(if s >= MATE_BOUND { beta } else { s })
    }

    /// Whether the side to move has a piece besides its royal pieces and pawns.
    fn has_pieces(&self, pos: &Position) -> bool {
        let def = self.v.def();
        pos.occupied_by(pos.side_to_move()).iter().any(|sq| {
            pos.piece_at(sq).is_some_and(|p| !def.kind(p.kind).pawn && !self.v.is_royal_kind(p.kind))
        })
    }

    /// The score of `pos`, which has no legal move, `ply` plies from the root.
    fn terminal(&self, pos: &Position, ply: usize) -> i32 {
        match self.v.outcome(pos) {
            Some(Outcome::Win { winner, .. }) if winner == pos.side_to_move() => MATE - ply as i32,
            Some(Outcome::Win { .. }) => -MATE + ply as i32,
            Some(Outcome::Draw { .. }) | None => 0,
        }
    }

    /// The principal variation at `ply`: `m`, then the one found below it.
    fn extend_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(m);
        head[ply].extend_from_slice(&tail[0]);
    }

    /// The quiescence search: the side to move may stand on the evaluation or play a
    /// tactical move; in check, every legal move is tried (so mates are seen).
    fn quiescence(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize, qply: usize) -> i32 {
        self.pv[ply].clear();
        if qply > 0 {
            self.nodes += 1;
            self.seldepth = self.seldepth.max(ply);
            if self.out_of_budget() {
                return 0;
            }
        }
        let in_check = self.v.in_check(pos);
        if ply >= MAX_PLY || qply >= MAX_QUIESCENCE {
            return self.eval.evaluate(self.v, pos, &mut self.scratch);
        }
        let mut moves = if in_check {
            let legal = self.v.legal_moves(pos);
            if legal.is_empty() {
                return self.terminal(pos, ply);
            }
            legal
        } else {
            let stand = self.eval.evaluate(self.v, pos, &mut self.scratch);
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            let mut pseudo = Vec::with_capacity(128);
            self.v.pseudo_legal_moves(pos, &mut pseudo);
            pseudo.retain(|m| is_tactical(m) || freezes(self.v, pos, m));
            pseudo
        };
        let side = pos.side_to_move();
        let mut scores = std::mem::take(&mut self.scores[ply]);
        sort(&mut moves, &mut scores, |m| self.heur.score(&self.eval, side, m, None, ply));
        self.scores[ply] = scores;
        let mut best = if in_check { -INFINITY } else { alpha };
        for m in &moves {
            if !in_check && !self.v.is_legal_pseudo(pos, m) {
                continue;
            }
            let next = self.v.make(pos, m);
            let score = -self.quiescence(&next, -beta, -alpha, ply + 1, qply + 1);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
                self.extend_pv(ply, *m);
                if alpha >= beta {
                    break;
                }
            }
        }
        best
    }
}

/// Whether `a` is better than `b` for the side to move.
fn better(a: Score, b: Score) -> bool {
    order_key(a) > order_key(b)
}

/// A number that orders scores: mates first (sooner better), then centipawns, then being
/// mated (later better).
fn order_key(s: Score) -> i64 {
    match s {
        Score::Mate(n) if n > 0 => 1_000_000 - i64::from(n),
        Score::Mate(n) => -1_000_000 - i64::from(n),
        Score::Centipawns(c) => i64::from(c),
    }
}

/// A score as stored in the table: mates counted from this node rather than the root.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A stored score as seen `ply` plies from the root.
fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_gets_a_legal_best_line_from_its_start() {
        for name in ["gygax", "fidchell", "grand", "fantasy-grand"] {
            let v = crate::variants::by_name(name, &[]).unwrap();
            let p = v.start_position();
            let r = search(&v, &p, &[], &Limits { depth: Some(2), ..Limits::default() });
            assert_eq!(r.depth, 2, "{name}");
            let line = &r.lines[0].moves;
            assert!(!line.is_empty(), "{name}");
            let mut pos = p.clone();
            for m in line {
                assert!(v.is_legal(&pos, m), "{name}: {m:?} illegal");
                pos = v.make(&pos, m);
            }
        }
    }

    /// The trial of the computer player: `--nodes 1` searched 4,096 nodes and
    /// `--bot-nodes 2000` up to 36,864, as the limit was looked at every 1,024 nodes. Past
    /// the first iteration (which always completes) a search now stops at its limit.
    #[test]
    fn a_node_budget_overshot_by_up_to_a_thousand_nodes() {
        for name in ["gygax", "grand"] {
            let v = crate::variants::by_name(name, &[]).unwrap();
            let p = v.start_position();
            let first = search(&v, &p, &[], &Limits { depth: Some(1), ..Limits::default() }).nodes;
            // Two budgets a node apart: at most one of them is a multiple of 1,024.
            for n in [first + 1, first + 2, first + 700] {
                let r = search(&v, &p, &[], &Limits { nodes: Some(n), ..Limits::default() });
                assert_eq!(r.nodes, n, "{name}: {first} nodes at depth 1");
                assert!(r.depth >= 1 && !r.lines.is_empty(), "{name}");
            }
            // A budget below the first iteration's cost still gets its move.
            let r = search(&v, &p, &[], &Limits { nodes: Some(1), ..Limits::default() });
            assert_eq!((r.nodes, r.depth), (first, 1), "{name}");
        }
    }

    /// Null moves are zugzwang's risk: a side with only its king and pawns never passes;
    /// a rook is enough to. A pass changes the side to move and the hash, drops the en
    /// passant right and counts a ply.
    #[test]
    fn only_a_side_with_pieces_besides_king_and_pawns_may_pass() {
        let v = crate::variants::by_name("grand", &[]).unwrap();
        let read = |s: &str| crate::notation::position_string::parse_position(&v, s).unwrap();
        let limits = Limits::default();
        let s = Searcher::new(&v, &[], &limits);
        assert!(!s.has_pieces(&read("10/10/10/10/4k5/10/4P5/10/4K5/10 w - - 0 1")));
        assert!(s.has_pieces(&read("10/10/10/10/4k5/10/4P5/10/4K4R/10 w - - 0 1")));
        // Black has only its king: Black may not pass, White (to move) may.
        assert!(!s.has_pieces(&read("10/10/10/10/4k5/10/4P5/10/4K4R/10 b - - 0 1")));
        let p = v.start_position();
        let e5 = v.legal_moves(&p).into_iter().find(|m| v.def().dims.name(m.to()) == "e5").unwrap();
        let after = v.make(&p, &e5);
        let passed = v.make_null(&after);
        assert_eq!(passed.side_to_move(), after.side_to_move().opponent());
        assert_eq!(passed.en_passant(), None);
        assert_eq!(passed.halfmove_clock(), after.halfmove_clock() + 1);
        assert_ne!(passed.hash(), after.hash());
        assert_eq!(v.make_null(&passed).side_to_move(), after.side_to_move());
    }

    /// The reductions grow with depth and with the move's place in the order, and the
    /// first moves are never reduced.
    #[test]
    fn late_moves_are_reduced_more_the_deeper_and_the_later() {
        let r = reductions();
        assert_eq!(r[3][1], 0);
        assert_eq!(r[1][40], 0, "ln 1 = 0: no reduction one ply from the leaves");
        assert_eq!(r[3][4], (0.75 + 3f64.ln() * 4f64.ln() / 2.25) as u8);
        assert!(r[10][30] > r[4][30] && r[10][30] > r[10][5], "{:?}", (r[10][30], r[4][30], r[10][5]));
    }

    #[test]
    fn mate_scores_count_moves() {
        assert_eq!(Score::from_internal(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_internal(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_internal(-MATE + 2), Score::Mate(-1));
        assert_eq!(Score::from_internal(-MATE + 4), Score::Mate(-2));
        assert_eq!(Score::from_internal(35), Score::Centipawns(35));
    }
}

#[cfg(test)]
mod pruning_tests {
    use super::*;

    /// `Limits::pruning` switches null moves and reductions off: both searches find the
    /// mates in 2 of the tactics file's Fantasy Grand Chess positions, and depth 5 from
    /// the Grand Chess start takes a different number of nodes.
    #[test]
    fn the_pruning_switch_changes_the_search_not_its_mates() {
        let file = include_str!("../../tests/data/tactics/grand.txt");
        let mates: Vec<&str> = file
            .lines()
            .filter_map(|l| l.strip_prefix("fantasy-grand\tmate2\t"))
            .filter_map(|l| l.split('\t').next())
            .take(3)
            .collect();
        assert!(!mates.is_empty());
        for text in mates {
            let options = crate::variants::options_for_position("fantasy-grand", &[], text);
            let v = crate::variants::by_name("fantasy-grand", &options).unwrap();
            let p = crate::notation::position_string::parse_position(&v, text).unwrap();
            let on = search(&v, &p, &[], &Limits { depth: Some(5), ..Limits::default() });
            let off = search(&v, &p, &[], &Limits { depth: Some(5), pruning: false, ..Limits::default() });
            assert_eq!(on.lines[0].score, Score::Mate(2), "{text}");
            assert_eq!(off.lines[0].score, Score::Mate(2), "{text}");
        }
        let v = crate::variants::by_name("grand", &[]).unwrap();
        let p = v.start_position();
        let on = search(&v, &p, &[], &Limits { depth: Some(5), ..Limits::default() });
        let off = search(&v, &p, &[], &Limits { depth: Some(5), pruning: false, ..Limits::default() });
        assert_ne!(on.nodes, off.nodes, "the switch changed nothing");
    }
}

#[cfg(test)]
mod draw_tests {
    use super::*;

    /// A rook and king against a king mates in 2 from here, unless a draw by 100 plies
    /// may be claimed first: then every line is a draw.
    #[test]
    fn a_mate_after_the_hundredth_ply_without_progress_is_a_draw() {
        let v = crate::variants::by_name("grand", &[]).unwrap();
        let fresh = crate::notation::position_string::parse_position(
            &v,
            "10/10/10/10/1r8/10/10/5k4/10/4K5 b - - 0 155",
        )
        .unwrap();
        let r = search(&v, &fresh, &[], &Limits { depth: Some(4), ..Limits::default() });
        assert_eq!(r.lines[0].score, Score::Mate(2));
        let late = crate::notation::position_string::parse_position(
            &v,
            "10/10/10/10/1r8/10/10/5k4/10/4K5 b - - 99 155",
        )
        .unwrap();
        let r = search(&v, &late, &[], &Limits { depth: Some(4), ..Limits::default() });
        assert_eq!(r.lines[0].score, Score::Centipawns(0));
    }

    /// A knight out and back on each side repeats the start: `repeated` sees it through
    /// the game's history, and not without it.
    #[test]
    fn a_position_of_the_game_met_again_is_a_repetition() {
        let v = crate::variants::by_name("grand", &[]).unwrap();
        let knight = v.def().kind_by_code("N").unwrap();
        let p0 = v.start_position();
        let mut line = vec![p0.clone()];
        let mut p = p0.clone();
        let mut outs = Vec::new();
        for _ in 0..2 {
            let m = v.legal_moves(&p).into_iter().find(|m| m.piece() == knight).unwrap();
            outs.push(m);
            p = v.make(&p, &m);
            line.push(p.clone());
        }
        for out in outs {
            let back = v
                .legal_moves(&p)
                .into_iter()
                .find(|m| m.piece() == knight && m.from() == Some(out.to()) && m.to() == out.from().unwrap())
                .unwrap();
            p = v.make(&p, &back);
            line.push(p.clone());
        }
        assert_eq!(p.hash(), p0.hash());
        let history: Vec<u64> = line[..4].iter().map(Position::hash).collect();
        let limits = Limits::default();
        let with = Searcher::new(&v, &history, &limits);
        assert!(with.repeated(&p));
        let without = Searcher::new(&v, &history[1..], &limits);
        assert!(!without.repeated(&p));
    }
}
