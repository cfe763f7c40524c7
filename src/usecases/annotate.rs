//! `annotate`: a game's moves judged by the search, the way lichess's computer analysis
//! marks them. Every position of the main line is searched once within a budget; a move
//! is judged by how much it lowers its player's winning chances from the position
//! before it (searched) to the position after it (searched from the opponent's view),
//! with lichess's scale and thresholds:
//!
//! - winning chances `2 / (1 + e^(-0.00368208 × cp)) − 1`, from −1 (lost) to 1 (won), the
//!   score `cp` in centipawns clamped to ±1000 (a mate counts as ±1000);
//! - a drop of 0.3 or more is a blunder (`??`), 0.2 a mistake (`?`), 0.1 an inaccuracy
//!   (`?!`), unless the move played is the one the search found best.
//!
//! A judged move gets its mark, a comment (`Mistake. 3b4 was best.` with the evaluation
//! before and after, in pawns from the first side's view) and the best line as a
//! variation. The record itself is not changed: the caller writes the annotated copy.

use serde::Serialize;

use crate::engine::{Outcome, Position, Side};
use crate::notation::pgn::MoveNode;
use crate::record::game::Game;
use crate::search::Score;

use super::analysis::{Budget, analyse_position};

/// The most moves of the best line given as a variation.
const VARIATION_PLIES: usize = 6;

/// How a move is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Judgement {
    /// Lowered the winning chances by 0.1 or more (`?!`).
    Inaccuracy,
    /// By 0.2 or more (`?`).
    Mistake,
    /// By 0.3 or more (`??`).
    Blunder,
}

impl Judgement {
    /// The numeric annotation glyph: `?!` is 6, `?` 2, `??` 4.
    fn nag(self) -> u8 {
        match self {
            Judgement::Inaccuracy => 6,
            Judgement::Mistake => 2,
            Judgement::Blunder => 4,
        }
    }

    /// The word, capitalised as lichess writes it.
    pub fn word(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "Inaccuracy",
            Judgement::Mistake => "Mistake",
            Judgement::Blunder => "Blunder",
        }
    }
}

/// One ply as the search saw it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnnotatedPly {
    /// The ply (1 = the first move).
    pub ply: usize,
    /// The move played, in SAN.
    pub san: String,
    /// The move the search found best, in SAN.
    pub best: String,
    /// The evaluation before the move and after it, in centipawns from the first side's
    /// view (clamped to ±1000; a mate is ±1000).
    pub before: i32,
    /// After the move.
    pub after: i32,
    /// How much the move lowered its player's winning chances (0 when it raised them).
    pub loss: f64,
    /// The judgement, when the loss reaches a threshold and the move is not the best.
    pub judgement: Option<Judgement>,
}

/// A game annotated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Annotated {
    /// Each ply of the main line.
    pub plies: Vec<AnnotatedPly>,
    /// The annotated record, in canonical form.
    #[serde(skip)]
    pub text: String,
}

/// A score from the side to move's view as clamped centipawns.
fn centipawns(score: Score) -> i32 {
    match score {
        Score::Centipawns(c) => c.clamp(-1000, 1000),
        Score::Mate(n) if n > 0 => 1000,
        Score::Mate(_) => -1000,
    }
}

/// Winning chances from −1 to 1 for a score in centipawns (lichess's curve).
pub fn winning_chances(cp: i32) -> f64 {
    2.0 / (1.0 + (-0.003_682_08 * f64::from(cp)).exp()) - 1.0
}

/// The judgement of a move that lowered its player's winning chances by `loss`.
pub fn judge(loss: f64) -> Option<Judgement> {
    match loss {
        l if l >= 0.3 => Some(Judgement::Blunder),
        l if l >= 0.2 => Some(Judgement::Mistake),
        l if l >= 0.1 => Some(Judgement::Inaccuracy),
        _ => None,
    }
}

/// One searched position: its score from the side to move's view in clamped centipawns,
/// and the best line in SAN (empty when the game is over there).
struct Searched {
    cp: i32,
    line: Vec<String>,
}

fn search_position(g: &Game, pos: &Position, history: &[u64], budget: Budget) -> Searched {
    let a = analyse_position(&g.variant, pos, history, Budget { multipv: 1, ..budget });
    match a.lines.first() {
        Some(l) => Searched { cp: centipawns(l.score), line: l.san.clone() },
        None => {
            let side = pos.side_to_move();
            let cp = match a.outcome {
                Some(Outcome::Win { winner, .. }) if winner == side => 1000,
                Some(Outcome::Win { .. }) => -1000,
                _ => 0,
            };
            Searched { cp, line: Vec::new() }
        }
    }
}

/// Annotates the main line of `g`, each position searched within `budget`;
/// `progress(done, total)` is called after each position.
pub fn annotate(g: &Game, budget: Budget, progress: &mut dyn FnMut(usize, usize)) -> Annotated {
    let v = &g.variant;
    let total = g.moves.len() + 1;
    let mut positions = Vec::with_capacity(total);
    let mut hashes = Vec::with_capacity(total);
    let mut p = g.start.clone();
    for m in &g.moves {
        hashes.push(p.hash());
        positions.push(p.clone());
        p = v.make(&p, m);
    }
    positions.push(p);
    let mut searched = Vec::with_capacity(total);
    for (i, pos) in positions.iter().enumerate() {
        searched.push(search_position(g, pos, &hashes[..i], budget));
        progress(i + 1, total);
    }
    let mut plies = Vec::with_capacity(g.moves.len());
    let mut text = g.text.clone();
    for (i, m) in g.moves.iter().enumerate() {
        let (now, next) = (&searched[i], &searched[i + 1]);
        let san = crate::notation::san::write_move(v, &positions[i], m);
        let best = now.line.first().cloned().unwrap_or_default();
        let (mover_before, mover_after) = (now.cp, -next.cp);
        let loss = (winning_chances(mover_before) - winning_chances(mover_after)).max(0.0);
        let judgement = if best == san { None } else { judge(loss) };
        let white_view = |cp: i32| if positions[i].side_to_move() == Side::White { cp } else { -cp };
        let ply = AnnotatedPly {
            ply: i + 1,
            san,
            best: best.clone(),
            before: white_view(mover_before),
            after: white_view(mover_after),
            loss,
            judgement,
        };
        if let (Some(j), Some(node)) = (judgement, text.moves.get_mut(i)) {
            mark(node, j, &ply, &now.line);
        }
        plies.push(ply);
    }
    // The PGN standard's tag naming who annotated the game (lichess writes its own name).
    text.set_tag("Annotator", concat!("ravenpost ", env!("CARGO_PKG_VERSION")));
    let mut annotated = g.clone();
    annotated.text = text;
    Annotated { plies, text: annotated.canonical_text() }
}

/// Marks `node` with `j`, a comment and the best line as a variation.
fn mark(node: &mut MoveNode, j: Judgement, ply: &AnnotatedPly, best_line: &[String]) {
    let pawns = |cp: i32| format!("{:+.2}", f64::from(cp) / 100.0);
    node.nags.retain(|n| !(1..=6).contains(n));
    node.nags.push(j.nag());
    node.comments.push(format!(
        "({} → {}) {}. {} was best.",
        pawns(ply.before),
        pawns(ply.after),
        j.word(),
        ply.best
    ));
    let line: Vec<MoveNode> = best_line
        .iter()
        .take(VARIATION_PLIES)
        .map(|token| MoveNode { token: token.clone(), ..MoveNode::default() })
        .collect();
    if !line.is_empty() {
        node.variations.push(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// lichess's curve at a few points: 0 is even, ±1000 centipawns close to ±1, and
    /// the curve is odd.
    #[test]
    fn winning_chances_follow_the_lichess_curve() {
        assert_eq!(winning_chances(0), 0.0);
        // 2 / (1 + e^-0.368208) - 1 = 0.18205 at +100 (a pawn); 0.95089 at +1000.
        assert!((winning_chances(100) - 0.182_05).abs() < 1e-5, "{}", winning_chances(100));
        assert!((winning_chances(1000) - 0.950_89).abs() < 1e-5, "{}", winning_chances(1000));
        assert_eq!(winning_chances(-300), -winning_chances(300));
        assert_eq!(judge(0.05), None);
        assert_eq!(judge(0.1), Some(Judgement::Inaccuracy));
        assert_eq!(judge(0.25), Some(Judgement::Mistake));
        assert_eq!(judge(0.31), Some(Judgement::Blunder));
    }
}
