//! `ravenpost show`: a game's position as a text diagram, JSON, or a picture.

use std::io::Write;
use std::path::PathBuf;

use crate::cli::args::ColorChoice;
use crate::cli::failure::{Failure, io};
use crate::cli::games::{Break, resolve_game};
use crate::cli::{files, terminal};
use crate::engine::{Move, Position};
use crate::record::game::Game;
use crate::usecases::Session;

/// Show a game's position as a text diagram (all levels for Gygax Chess), with the side
/// to move, the last move and the result.
#[derive(Debug, clap::Args)]
pub(crate) struct ShowArgs {
    /// A game id in the archive, or a game file (the first game in it, or the one
    /// chosen with --game; `-`: standard input).
    #[arg(value_name = "GAME|FILE")]
    file: PathBuf,
    /// Show the position after this many plies (default: the end).
    #[arg(long)]
    ply: Option<usize>,
    /// Which game of the file, counting from 1.
    #[arg(long, default_value_t = 1)]
    game: usize,
    /// Print as JSON (position string, side to move, last move, result).
    #[arg(long)]
    json: bool,
    /// Colour the diagram: `auto` when standard output is a terminal and NO_COLOR is
    /// unset or empty.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Where Gygax Chess's three levels go: `auto` puts them side by side when that
    /// fits the terminal (its width, else $COLUMNS), else in the compact layout (one
    /// character a square, 78 columns; also for a pipe or a file).
    #[arg(long, value_enum, default_value_t = terminal::LayoutArg::Auto)]
    layout: terminal::LayoutArg,
    /// Print the legend under the diagram: each piece's letter, name and how it moves
    /// (also `ravenpost variant legend NAME`).
    #[arg(long)]
    legend: bool,
    /// Write an SVG picture of the position to this file instead of printing it (`-`:
    /// standard output).
    #[arg(long, value_name = "OUT.svg", conflicts_with = "json")]
    svg: Option<PathBuf>,
    /// Write a PNG picture of the position to this file instead of printing it (the
    /// SVG rasterised; text needs a system font, else only the board is drawn; `-`:
    /// standard output).
    #[arg(long, value_name = "OUT.png", conflicts_with = "json")]
    png: Option<PathBuf>,
    /// Turn the board half a turn, in the diagram and the pictures: rank 1 on top,
    /// files from right to left (the second player's view).
    #[arg(long)]
    flip: bool,
    /// Draw the PNG at this many pixels per SVG unit, from 0.25 to 8 (Gygax Chess at 1
    /// is 996 pixels wide; 2 doubles it).
    #[arg(long, default_value_t = 1.0, requires = "png")]
    scale: f32,
}

/// The position shown: the game at ply `n`, the move that led there and the result.
struct Shown {
    game: Game,
    n: usize,
    pos: Position,
    last: Option<Move>,
    last_token: Option<String>,
    result: String,
    broken: Option<Break>,
}

/// `ravenpost show GAME|FILE`.
pub(crate) fn run(s: &Session, a: ShowArgs, out: &mut impl Write) -> Result<(), Failure> {
    let (g, broken) = resolve_game(s, &a.file, a.game)?;
    let n = a.ply.unwrap_or(g.moves.len());
    if let Some(b) = broken.as_ref().filter(|b| n >= b.ply) {
        return Err(b.refuse(n));
    }
    if n > g.moves.len() {
        return Err(Failure::input(format!("ply {n}: the game has {} plies", g.moves.len())));
    }
    let pos = g.position_at(n);
    let before = if n > 0 { Some(g.position_at(n - 1)) } else { None };
    let last = if n > 0 { Some(g.moves[n - 1]) } else { None };
    let last_token = match (&before, &last) {
        (Some(b), Some(m)) => Some(crate::notation::san::write_move(&g.variant, b, m)),
        _ => None,
    };
    let result = if n == g.moves.len() {
        g.text.result.as_ref().map(|r| r.0.clone()).unwrap_or_else(|| "*".into())
    } else {
        "*".into()
    };
    let shown = Shown { game: g, n, pos, last, last_token, result, broken };
    if a.json {
        json(&shown, out)
    } else if a.svg.is_some() || a.png.is_some() {
        pictures(&shown, &a, out)
    } else {
        diagram(&shown, &a, out)
    }
}

/// `show --json`.
fn json(s: &Shown, out: &mut impl Write) -> Result<(), Failure> {
    let g = &s.game;
    let mut v = serde_json::json!({
        "variant": g.variant.def().slug,
        "ply": s.n,
        "position": crate::notation::position_string::write_position(&g.variant, &s.pos),
        "side_to_move": g.variant.def().side_name(s.pos.side_to_move()),
        "last_move": s.last_token,
        "result": s.result,
    });
    if let Some(b) = &s.broken {
        v["broken"] = b.json();
    }
    writeln!(out, "{}", serde_json::to_string_pretty(&v).expect("json")).map_err(io)
}

/// `show --svg FILE` and `--png FILE`.
fn pictures(s: &Shown, a: &ShowArgs, out: &mut impl Write) -> Result<(), Failure> {
    let (g, n) = (&s.game, s.n);
    if !(crate::render::MIN_SCALE..=crate::render::MAX_SCALE).contains(&a.scale) {
        let e = crate::render::RenderError::Scale { scale: a.scale };
        return Err(Failure::input(format!("--scale: {e}; nothing was written")));
    }
    let style = crate::notation::svg::PictureStyle { flip: a.flip, caption: crate::record::caption(g, n) };
    if let Some(path) = &a.svg {
        let picture = crate::notation::svg::svg_styled(&g.variant, &s.pos, s.last.as_ref(), &style);
        write_picture(path, picture.as_bytes(), n, out)?;
    }
    if let Some(path) = &a.png {
        let fonts = crate::render::Fonts::System;
        let picture = crate::render::png_styled(&g.variant, &s.pos, s.last.as_ref(), &style, fonts, a.scale)
            .map_err(|e| Failure::refused(e.to_string()))?;
        write_picture(path, &picture, n, out)?;
    }
    Ok(())
}

/// Writes a picture to `path` (`-`: standard output).
fn write_picture(
    path: &std::path::Path,
    picture: &[u8],
    n: usize,
    out: &mut impl Write,
) -> Result<(), Failure> {
    if path.as_os_str() == "-" {
        out.write_all(picture).map_err(io)
    } else {
        files::write_atomically(path, picture)
            .map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
        writeln!(out, "Wrote {} (ply {n})", path.display()).map_err(io)
    }
}

/// `show`'s text: the diagram, the players, the side to move (or the result and how the
/// game ended), the last move, the hand; the legend with `--legend`.
fn diagram(s: &Shown, a: &ShowArgs, out: &mut impl Write) -> Result<(), Failure> {
    let g = &s.game;
    let style = crate::notation::diagram::DiagramStyle {
        flip: a.flip,
        color: a.color.colors(std::io::IsTerminal::is_terminal(&std::io::stdout())),
    };
    if let Some(note) = terminal::too_wide_note(&g.variant, a.layout, terminal::columns()) {
        errln!("{note}");
    }
    let layout = terminal::layout(&g.variant, a.layout);
    let text = crate::notation::diagram::diagram_laid_out(&g.variant, &s.pos, s.last.as_ref(), style, layout);
    write!(out, "{text}").map_err(io)?;
    for l in state_lines(g, s.n, true) {
        writeln!(out, "{l}").map_err(io)?;
    }
    for l in s.broken.iter().flat_map(Break::lines) {
        writeln!(out, "{l}").map_err(io)?;
    }
    if a.legend {
        writeln!(out).map_err(io)?;
        let width = terminal::columns().unwrap_or(terminal::UNKNOWN_WIDTH);
        for l in crate::variants::legend::legend_lines(g.variant.def(), width) {
            writeln!(out, "{l}").map_err(io)?;
        }
    }
    Ok(())
}

/// The lines under a diagram of `g` after `n` plies: the players (when `players`), the
/// side to move named (`Ann (Gold) to move (move 12)`), or at the end of a finished game
/// its result and how it ended; the last move in SAN and long form; the pieces in hand.
pub(crate) fn state_lines(g: &Game, n: usize, players: bool) -> Vec<String> {
    use crate::engine::Side;
    let v = &g.variant;
    let pos = g.position_at(n);
    let mut lines = Vec::new();
    if players {
        lines.push(format!(
            "{} v {}",
            crate::record::named(g, Side::White),
            crate::record::named(g, Side::Black)
        ));
    }
    let result = crate::record::result_of(g);
    if n == g.moves.len() && result != "*" {
        lines.push(format!("Result: {result} ({})", crate::record::ending(g)));
    } else {
        let check = if v.in_check(&pos) { ", check" } else { "" };
        let mover = crate::record::named(g, pos.side_to_move());
        lines.push(format!("{mover} to move (move {}){check}", pos.fullmove_number()));
    }
    if n > 0 {
        let before = g.position_at(n - 1);
        let m = &g.moves[n - 1];
        let number = if before.side_to_move() == Side::White {
            format!("{}.", before.fullmove_number())
        } else {
            format!("{}...", before.fullmove_number())
        };
        lines.push(format!(
            "Last move: {number} {} ({}), ply {n}",
            crate::notation::san::write_move(v, &before, m),
            crate::notation::moves::long_form(v, m)
        ));
    }
    if let Some(hand) = crate::notation::diagram::hand_line(v, &pos) {
        lines.push(hand);
    }
    lines
}
