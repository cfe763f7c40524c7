//! `ravenpost replay`: step through a game in the terminal (raw-mode keys and an alternate
//! screen through crossterm), or print its screens for scripts (`--ply N`, `--all`,
//! `--json`).
//!
//! A screen is: a title line (variant, players, ply), the diagram (flipped on request),
//! the side to move, the last move with its comments, the result, and a window of the
//! move list around the current ply (`>` marks it). Diagram comments (`;|` lines) are
//! left out of the move list.

use std::io::Write;

use crate::engine::{Position, Side};
use crate::notation::diagram::{DiagramStyle, diagram_laid_out};
use crate::notation::position_string::write_position;
use crate::notation::san::write_move;
use crate::record::game::Game;

use super::Failure;

/// The keys, as `replay --help` and the screen list them.
pub(crate) const KEYS_HELP: &str = "\
Keys (interactive):
  n, Space, Enter, Right, Down, l, j   next ply
  p, Backspace, Left, Up, h, k         previous ply
  <, Home                              first (the start position)
  >, End                               last ply
  NUMBER then Enter or g               jump to that ply (Esc cancels the number)
  f                                    flip the board
  q, Esc, Ctrl-C                       quit";

/// The one-line key summary at the bottom of the interactive screen (within 80 columns).
pub(crate) const KEYS_LINE: &str = "Keys: n next  p previous  < first  > last  NUMBER g jump  f flip  q quit";

/// Rows of the move list when the screen size is not known.
const DEFAULT_LIST_ROWS: usize = 9;

/// A game prepared for replay: every position and every move's canonical token.
pub(crate) struct Replay {
    game: Game,
    positions: Vec<Position>,
    sans: Vec<String>,
    /// Where the record breaks after its last ply, if it does: the lines saying so, and
    /// the same as JSON.
    broken: Option<(Vec<String>, serde_json::Value)>,
    /// Where the levels go (`auto`: fitted to the terminal's width when drawn).
    layout: super::terminal::LayoutArg,
}

impl Replay {
    pub(crate) fn new(game: Game, broken: Option<(Vec<String>, serde_json::Value)>) -> Replay {
        let mut positions = vec![game.start.clone()];
        let mut sans = Vec::with_capacity(game.moves.len());
        for m in &game.moves {
            let before = positions.last().expect("start");
            sans.push(write_move(&game.variant, before, m));
            positions.push(game.variant.make(before, m));
        }
        Replay { game, positions, sans, broken, layout: super::terminal::LayoutArg::Auto }
    }

    /// Sets where the levels go (`--layout`).
    pub(crate) fn set_layout(&mut self, layout: super::terminal::LayoutArg) {
        self.layout = layout;
    }

    /// Number of plies in the main line.
    pub(crate) fn plies(&self) -> usize {
        self.game.moves.len()
    }

    /// Checks that `ply` is within the game.
    pub(crate) fn check(&self, ply: usize) -> Result<(), Failure> {
        if ply > self.plies() {
            return Err(Failure::input(format!("ply {ply}: the game has {} plies", self.plies())));
        }
        Ok(())
    }

    fn result(&self) -> String {
        self.game.text.result.as_ref().map(|r| r.0.clone()).unwrap_or_else(|| "*".into())
    }

    /// `12.` or `12...`: the move number before ply `ply` (1-based).
    fn number(&self, ply: usize) -> String {
        let before = &self.positions[ply - 1];
        if before.side_to_move() == Side::White {
            format!("{}.", before.fullmove_number())
        } else {
            format!("{}...", before.fullmove_number())
        }
    }

    /// The comments after ply `ply` (0: before the first move), without diagram comments
    /// and move times (bookkeeping, not annotation).
    fn comments(&self, ply: usize) -> Vec<String> {
        let list =
            if ply == 0 { &self.game.text.leading_comments } else { &self.game.text.moves[ply - 1].comments };
        list.iter()
            .filter(|c| !c.starts_with('|') && !c.starts_with(crate::record::TIME_PREFIX))
            .cloned()
            .collect()
    }

    fn with_comments(&self, ply: usize, text: String) -> String {
        let mut s = text;
        for c in self.comments(ply) {
            // A comment from a file is shown, never obeyed: no terminal escape reaches the
            // terminal.
            s.push_str(&format!(" {{{}}}", crate::notation::pgn::visible(&c)));
        }
        s
    }

    fn title(&self, ply: usize) -> String {
        let def = self.game.variant.def();
        let name = |tag: &str| self.game.text.tag(tag).filter(|t| !t.is_empty()).unwrap_or("?").to_string();
        format!(
            "{}: {} ({}) v {} ({}), ply {ply} of {}",
            def.title,
            name("White"),
            def.side_name(Side::White),
            name("Black"),
            def.side_name(Side::Black),
            self.plies()
        )
    }

    /// The screen at `ply` (checked by the caller), as lines. `list_rows` rows of the move
    /// list around the current ply (0: no move list).
    pub(crate) fn screen(&self, ply: usize, style: DiagramStyle, list_rows: usize) -> Vec<String> {
        let v = &self.game.variant;
        let pos = &self.positions[ply];
        let last = ply.checked_sub(1).map(|i| self.game.moves[i]);
        let mut lines = vec![self.title(ply)];
        let layout = super::terminal::layout(v, self.layout);
        lines.extend(diagram_laid_out(v, pos, last.as_ref(), style, layout).lines().map(str::to_string));
        let end = ply == self.plies();
        let result = self.result();
        let g = &self.game;
        if end && result != "*" {
            lines.push(format!("Result: {result} ({})", crate::record::ending(g)));
        } else {
            let check = if v.in_check(pos) { ", check" } else { "" };
            let mover = crate::record::named(g, pos.side_to_move());
            lines.push(format!("{mover} to move (move {}){check}", pos.fullmove_number()));
        }
        if ply == 0 {
            lines.push(self.with_comments(0, "Start position".into()));
        } else {
            let long = crate::notation::moves::long_form(v, &self.game.moves[ply - 1]);
            lines.push(self.with_comments(
                ply,
                format!("Last move: {} {} ({long}), ply {ply}", self.number(ply), self.sans[ply - 1]),
            ));
        }
        if let Some(hand) = crate::notation::diagram::hand_line(v, pos) {
            lines.push(hand);
        }
        if result != "*" && !end {
            lines.push(format!("Result: {result} (after ply {})", self.plies()));
        }
        if end && let Some((said, _)) = &self.broken {
            lines.extend(said.iter().cloned());
        }
        if list_rows > 0 {
            lines.push("Moves:".into());
            let total = self.plies() + 1;
            let rows = list_rows.min(total);
            let first = ply.saturating_sub(rows / 2).min(total - rows);
            for i in first..first + rows {
                let mark = if i == ply { ">" } else { " " };
                let entry = if i == 0 {
                    self.with_comments(0, "(start)".into())
                } else {
                    self.with_comments(i, format!("{} {}", self.number(i), self.sans[i - 1]))
                };
                lines.push(format!("{mark} {entry}"));
            }
        }
        lines
    }

    /// One ply as JSON.
    pub(crate) fn json(&self, ply: usize) -> serde_json::Value {
        let v = &self.game.variant;
        let pos = &self.positions[ply];
        let last = ply.checked_sub(1).map(|i| self.game.moves[i]);
        let mut value = serde_json::json!({
            "ply": ply,
            "plies": self.plies(),
            "move": if ply > 0 { Some(format!("{} {}", self.number(ply), self.sans[ply - 1])) } else { None },
            "last_move": if ply > 0 { Some(self.sans[ply - 1].clone()) } else { None },
            "comments": self.comments(ply),
            "side_to_move": v.def().side_name(pos.side_to_move()),
            "position": write_position(v, pos),
            "result": if ply == self.plies() { self.result() } else { "*".to_string() },
            "diagram": crate::notation::diagram::diagram(v, pos, last.as_ref()),
        });
        // Only a broken record has the key, on every ply.
        if let Some((_, broken)) = &self.broken {
            value["broken"] = broken.clone();
        }
        value
    }
}

/// Prints the screens of `plies` (no key line), separated by an empty line.
pub(crate) fn print(
    r: &Replay,
    plies: &[usize],
    style: DiagramStyle,
    list: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    for (i, &p) in plies.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        for l in r.screen(p, style, if list { DEFAULT_LIST_ROWS } else { 0 }) {
            writeln!(out, "{l}")?;
        }
    }
    Ok(())
}
