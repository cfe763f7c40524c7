//! `ravenpost moves`: every legal move of a position, or of a game at its current position.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::args::{self, game_option};
use crate::cli::failure::{Failure, io};
use crate::cli::games::resolve_current_game;
use crate::engine::{Move, Position, Square, Variant};
use crate::notation::moves::long_form;
use crate::notation::san::write_move;
use crate::usecases::Session;
use crate::variants;

/// List the legal moves of a game (a game id in the archive, or a game file) at its
/// current position, grouped by piece and origin, each in SAN with its long form beside
/// it (`Sa3b6  S3a7-3b6`: the Sylph from 3a7 to 3b6); or of a variant's position, one
/// long form a line. `--from` and `--piece` narrow the list, `--board` draws it.
#[derive(Debug, clap::Args)]
pub(crate) struct MovesArgs {
    /// Variant: gygax (alias dragonchess), fidchell, fantasy-grand, grand; or a game
    /// id or game file.
    #[arg(required_unless_present = "variant_file", value_name = "VARIANT|GAME")]
    variant: Option<String>,
    /// Play the variant defined in this file (notation-spec/variant-files.md).
    #[arg(long, value_name = "FILE", conflicts_with = "variant")]
    variant_file: Option<PathBuf>,
    /// The position string (default: the start position).
    #[arg(long, value_name = "POS")]
    position: Option<String>,
    /// Game option K=V (repeatable).
    #[arg(long = "option", value_name = "K=V", value_parser = game_option)]
    options: Vec<(String, String)>,
    /// A game's file: which game of it (from 1).
    #[arg(long, default_value_t = 1)]
    game: usize,
    /// Print JSON: the moves (SAN, long form, piece and origin), and for a game its
    /// ply, side to move, position and result.
    #[arg(long)]
    json: bool,
    /// Only the moves of the piece on this square, e.g. 3a7 (level, file, rank).
    #[arg(long, value_name = "SQUARE")]
    from: Option<String>,
    /// Only the moves of this kind of piece: its letter (`S`, `Mk`) or name (`Sylph`);
    /// `ravenpost variant legend NAME` lists them.
    #[arg(long, value_name = "LETTER")]
    piece: Option<String>,
    /// Draw the moves on the board (the compact layout when the wide one does not fit):
    /// the pieces that move in brackets `[S]`, the empty squares they reach `+`, the
    /// pieces they capture in parentheses `(w)`; under the list, so that a long list
    /// scrolls and the board stays in view.
    #[arg(long, conflicts_with = "json")]
    board: bool,
    /// Colour the board of --board: `auto` when standard output is a terminal and
    /// NO_COLOR is unset or empty.
    #[arg(long, value_enum, default_value_t = crate::cli::args::ColorChoice::Auto)]
    color: crate::cli::args::ColorChoice,
}

/// `ravenpost moves VARIANT|GAME`.
pub(crate) fn run(s: &Session, a: MovesArgs, out: &mut impl Write) -> Result<(), Failure> {
    match a.variant.as_deref() {
        // Not a variant name: a game, at its current position.
        Some(name)
            if a.variant_file.is_none()
                && a.position.is_none()
                && a.options.is_empty()
                && variants::by_name(name, &[]).is_err() =>
        {
            match resolve_current_game(s, Path::new(name), a.game) {
                Ok(g) => game_moves(&g, &a, out),
                // No such game: a variant the archive defines, from its start.
                Err(e) => match crate::usecases::archive_variant(s, name)? {
                    Some(_) => position_moves(s, &a, out),
                    None => Err(e),
                },
            }
        }
        _ => position_moves(s, &a, out),
    }
}

/// `ravenpost moves VARIANT`: the legal moves of a position, in long form.
fn position_moves(s: &Session, a: &MovesArgs, out: &mut impl Write) -> Result<(), Failure> {
    let pos = a.position.as_deref();
    let v = args::variant_of(s, a.variant.as_deref(), a.variant_file.as_deref(), &a.options, pos)?;
    let p = args::position(&v, pos)?;
    let moves = chosen(&v, v.legal_moves(&p), a)?;
    if a.json {
        let list: Vec<serde_json::Value> = moves.iter().map(|m| move_json(&v, &p, m)).collect();
        let value = serde_json::json!({ "moves": list });
        writeln!(out, "{}", serde_json::to_string_pretty(&value).expect("json")).map_err(io)?;
        return Ok(());
    }
    for m in &moves {
        writeln!(out, "{}", long_form(&v, m)).map_err(io)?;
    }
    // The board last: a list taller than the terminal scrolls, the board stays in view.
    if a.board {
        board(&v, &p, &moves, a, out)?;
    }
    Ok(())
}

/// One move as JSON: SAN, long form, the piece's name and its origin (`null`: a drop).
fn move_json(v: &Variant, pos: &Position, m: &Move) -> serde_json::Value {
    serde_json::json!({
        "san": write_move(v, pos, m),
        "long": long_form(v, m),
        "piece": v.def().kind(m.piece()).name,
        "from": m.from().map(|sq| v.def().dims.name(sq)),
    })
}

/// The moves of `moves` that `--from` and `--piece` keep.
///
/// # Errors
/// Exit 2 for a square not on the board or a piece the variant does not have.
fn chosen(v: &Variant, moves: Vec<Move>, a: &MovesArgs) -> Result<Vec<Move>, Failure> {
    let def = v.def();
    let from = match &a.from {
        None => None,
        Some(text) => Some(def.dims.parse_square(text.trim()).ok_or_else(|| {
            let example =
                def.dims.name(v.start_position().pieces().next().map(|(sq, _)| sq).expect("pieces"));
            Failure::input(format!("--from `{text}`: not a square of {} (e.g. {example})", def.title))
        })?),
    };
    let kinds: Option<Vec<crate::engine::PieceKind>> = match &a.piece {
        None => None,
        Some(text) => {
            let t = text.trim();
            let exact: Vec<_> = (0..def.kinds.len())
                .map(|i| crate::engine::PieceKind::new(i as u8))
                .filter(|k| def.kind(*k).is_read_as(t) || def.kind(*k).name.eq_ignore_ascii_case(t))
                .collect();
            let found = if exact.is_empty() {
                (0..def.kinds.len())
                    .map(|i| crate::engine::PieceKind::new(i as u8))
                    .filter(|k| def.kind(*k).code.eq_ignore_ascii_case(t))
                    .collect()
            } else {
                exact
            };
            if found.is_empty() {
                let codes: Vec<&str> = def.kinds.iter().map(|k| k.code.as_str()).collect();
                return Err(Failure::input(format!(
                    "--piece `{t}`: {} has no such piece; its letters: {} (`ravenpost variant legend {}`)",
                    def.title,
                    codes.join(" "),
                    def.slug
                )));
            }
            Some(found)
        }
    };
    Ok(moves
        .into_iter()
        .filter(|m| from.is_none_or(|sq| m.from() == Some(sq)))
        .filter(|m| kinds.as_ref().is_none_or(|k| k.contains(&m.piece())))
        .collect())
}

/// `--board`: the position with `moves` drawn on it, in the layout that fits.
fn board(
    v: &Variant,
    pos: &Position,
    moves: &[Move],
    a: &MovesArgs,
    out: &mut impl Write,
) -> Result<(), Failure> {
    use crate::notation::diagram;
    let mut origins: Vec<Square> = Vec::new();
    for sq in moves.iter().filter_map(Move::from) {
        if !origins.contains(&sq) {
            origins.push(sq);
        }
    }
    if let Some(sq) = a.from.as_deref().and_then(|t| v.def().dims.parse_square(t.trim()))
        && !origins.contains(&sq)
    {
        origins.push(sq);
    }
    let marks = diagram::move_marks(pos, &origins, moves);
    let style = diagram::DiagramStyle {
        flip: false,
        color: a.color.colors(std::io::IsTerminal::is_terminal(&std::io::stdout())),
    };
    let layout = crate::cli::terminal::layout(v, crate::cli::terminal::LayoutArg::Auto);
    write!(out, "{}", diagram::diagram_marked(v, pos, &marks, style, layout)).map_err(io)?;
    writeln!(out, "[X] moves  + reaches an empty square  (x) is captured").map_err(io)?;
    Ok(())
}

/// A group of moves: the kind that moves and its square (`None`: from the hand).
type Origin = (crate::engine::PieceKind, Option<Square>);

/// The moves grouped by piece and origin: a heading a group (`Sylph on 3a7:`), then its
/// moves, SAN and long form side by side, as many a line as 80 columns hold.
pub(crate) fn grouped(v: &Variant, pos: &Position, moves: &[Move]) -> Vec<String> {
    let def = v.def();
    let items: Vec<(String, String)> =
        moves.iter().map(|m| (write_move(v, pos, m), long_form(v, m))).collect();
    let san_w = items.iter().map(|i| i.0.chars().count()).max().unwrap_or(0);
    let long_w = items.iter().map(|i| i.1.chars().count()).max().unwrap_or(0);
    let cell = san_w + 2 + long_w + 3;
    let per_line = ((80 - 2) / cell).max(1);
    // Groups in order of first appearance.
    let mut groups: Vec<(Origin, Vec<usize>)> = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        let key = (m.piece(), m.from());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    let mut lines = Vec::new();
    for ((kind, from), list) in groups {
        let name = &def.kind(kind).name;
        lines.push(match from {
            Some(sq) => format!("{name} on {}:", def.dims.name(sq)),
            None => format!("{name} from the hand:"),
        });
        for chunk in list.chunks(per_line) {
            let line: Vec<String> =
                chunk.iter().map(|&i| format!("{:<san_w$}  {:<long_w$}", items[i].0, items[i].1)).collect();
            lines.push(format!("  {}", line.join("   ").trim_end()));
        }
    }
    lines
}

/// `ravenpost moves GAME`: the legal moves at the game's current position (none once the
/// game is over), grouped by piece and origin, or as JSON.
fn game_moves(g: &crate::record::game::Game, a: &MovesArgs, out: &mut impl Write) -> Result<(), Failure> {
    let pos = g.position();
    let result = crate::record::result_of(g);
    let all = if result == "*" { g.variant.legal_moves(&pos) } else { Vec::new() };
    let moves = chosen(&g.variant, all, a)?;
    if a.json {
        let list: Vec<serde_json::Value> = moves.iter().map(|m| move_json(&g.variant, &pos, m)).collect();
        let v = serde_json::json!({
            "variant": g.variant.def().slug,
            "ply": g.moves.len(),
            "side_to_move": g.variant.def().side_name(pos.side_to_move()),
            "position": crate::notation::position_string::write_position(&g.variant, &pos),
            "result": result,
            "moves": list,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v).expect("json")).map_err(io)?;
        return Ok(());
    }
    if moves.is_empty() {
        if result != "*" {
            writeln!(out, "No legal move: the game is over ({result}).").map_err(io)?;
        } else if a.from.is_some() || a.piece.is_some() {
            writeln!(out, "{}", no_move_note(g, &pos, a)).map_err(io)?;
        }
    }
    for l in grouped(&g.variant, &pos, &moves) {
        writeln!(out, "{l}").map_err(io)?;
    }
    // The board last: a list taller than the terminal scrolls (all the moves of a Gygax
    // middle game are 80 lines), the board and whose move it is stay in view.
    if a.board {
        board(&g.variant, &pos, &moves, a, out)?;
        let mover = crate::record::named(g, pos.side_to_move());
        writeln!(out, "{mover} to move (move {})", pos.fullmove_number()).map_err(io)?;
    }
    Ok(())
}

/// Why `--from` or `--piece` found no legal move: no piece of the side to move there, a
/// frozen piece, or none that can move.
fn no_move_note(g: &crate::record::game::Game, pos: &Position, a: &MovesArgs) -> String {
    let def = g.variant.def();
    let mover = crate::record::named(g, pos.side_to_move());
    let Some(sq) = a.from.as_deref().and_then(|t| def.dims.parse_square(t.trim())) else {
        return format!("No legal move of {mover} for that piece.");
    };
    let name = def.dims.name(sq);
    match pos.piece_at(sq) {
        None => format!("No legal move from {name}: the square is empty."),
        Some(p) if p.side != pos.side_to_move() => {
            format!("No legal move from {name}: the {} there is not {mover}'s.", def.kind(p.kind).name)
        }
        Some(p) if a.piece.is_some() && !g.variant.legal_moves(pos).iter().all(|m| m.from() != Some(sq)) => {
            // The piece there moves, but --piece names another kind.
            format!(
                "No legal move from {name} for --piece {}: the piece there is a {}.",
                a.piece.as_deref().unwrap_or_default().trim(),
                def.kind(p.kind).name
            )
        }
        Some(p) if g.variant.is_frozen(pos, sq) => {
            let freezer = def.kinds.iter().find(|k| k.freezes.is_some()).map_or("piece", |k| k.name.as_str());
            format!(
                "No legal move from {name}: the {} there is frozen by an enemy {freezer}.",
                def.kind(p.kind).name
            )
        }
        Some(p) => format!("No legal move from {name}: the {} there cannot move.", def.kind(p.kind).name),
    }
}
