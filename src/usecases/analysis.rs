//! `analyse`: the search's best lines for a position or a game's current position,
//! written in the project's SAN.

use std::time::{Duration, Instant};

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::engine::{Move, Outcome, Position, Variant};
use crate::notation::san::write_move;
use crate::record::game::Game;
use crate::search::{self, Limits, Score};

/// How long to analyse: the first limit reached ends the search. None at all: depth 4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// The deepest iteration, in plies.
    pub depth: Option<u32>,
    /// Most positions visited.
    pub nodes: Option<u64>,
    /// Most time.
    pub time: Option<Duration>,
    /// How many best lines (at least 1).
    pub multipv: usize,
}

/// One best line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysedLine {
    /// The score after its first move, from the side to move's view.
    pub score: Score,
    /// The moves in SAN, the first move first.
    pub san: Vec<String>,
    /// The same moves.
    pub moves: Vec<Move>,
}

/// What `analyse` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The best lines, best first; none when the game is over.
    pub lines: Vec<AnalysedLine>,
    /// The last complete iteration's depth, in plies.
    pub depth: u32,
    /// The deepest ply reached (check extensions and captures included).
    pub seldepth: u32,
    /// Positions visited.
    pub nodes: u64,
    /// How long the search took.
    pub elapsed: Duration,
    /// The end of the game, when the position has no legal move.
    pub outcome: Option<Outcome>,
}

impl Analysis {
    /// Positions visited per second (0 when no time was measured).
    pub fn nodes_per_second(&self) -> u64 {
        (u128::from(self.nodes) * 1_000_000).checked_div(self.elapsed.as_micros()).unwrap_or(0) as u64
    }
}

/// Analyses `pos` of `v`; `history` holds the hashes of the game's earlier positions
/// (oldest first), so that a line repeating one scores as a draw.
pub fn analyse_position(v: &Variant, pos: &Position, history: &[u64], budget: Budget) -> Analysis {
    analyse_until(v, pos, history, budget, None)
}

/// [`analyse_position`] that also stops when `stop` is set (from another thread, as
/// UCI's `stop` does); with `stop` and no limit in `budget`, it searches until then.
pub fn analyse_until(
    v: &Variant,
    pos: &Position,
    history: &[u64],
    budget: Budget,
    stop: Option<Arc<AtomicBool>>,
) -> Analysis {
    let started = Instant::now();
    let limits = Limits {
        depth: budget.depth,
        nodes: budget.nodes,
        deadline: budget.time.map(|t| started + t),
        multipv: budget.multipv.max(1),
        table_entries: 0,
        stop,
        pruning: true,
    };
    let report = search::search(v, pos, history, &limits);
    let elapsed = started.elapsed();
    let lines = report
        .lines
        .iter()
        .map(|l| {
            let mut p = pos.clone();
            let san = l
                .moves
                .iter()
                .map(|m| {
                    let token = write_move(v, &p, m);
                    p = v.make(&p, m);
                    token
                })
                .collect();
            AnalysedLine { score: l.score, san, moves: l.moves.clone() }
        })
        .collect();
    Analysis {
        lines,
        depth: report.depth,
        seldepth: report.seldepth,
        nodes: report.nodes,
        elapsed,
        outcome: report.outcome,
    }
}

/// Analyses the current position of `g`, its earlier positions counted for repetition.
pub fn analyse_game(g: &Game, budget: Budget) -> Analysis {
    let v = &g.variant;
    let mut p = g.start.clone();
    let mut history = Vec::with_capacity(g.moves.len());
    for m in &g.moves {
        history.push(p.hash());
        p = v.make(&p, m);
    }
    analyse_position(v, &p, &history, budget)
}
