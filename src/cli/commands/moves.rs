//! `ravenpost moves`: every legal move of a position, or of a game at its current position.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::args::{self, game_option};
use crate::cli::failure::{Failure, io};
use crate::cli::games::resolve_game;
use crate::notation::moves::long_form;
use crate::notation::san::write_move;
use crate::usecases::Session;
use crate::variants;

/// List every legal move of a position, one a line, in long form; or of a game (a
/// game id in the archive, or a game file) at its current position, in SAN.
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
    /// Print JSON: the moves (SAN and long form), and for a game its ply, side to
    /// move, position and result.
    #[arg(long)]
    json: bool,
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
            let (g, broken) = resolve_game(s, Path::new(name), a.game)?;
            if let Some(b) = broken {
                return Err(Failure::refused(format!(
                    "the record breaks at ply {}: it has no current position\n{}",
                    b.ply,
                    b.lines().join("\n")
                )));
            }
            game_moves(&g, a.json, out)
        }
        _ => position_moves(&a, out),
    }
}

/// `ravenpost moves VARIANT`: the legal moves of a position, in long form.
fn position_moves(a: &MovesArgs, out: &mut impl Write) -> Result<(), Failure> {
    let pos = a.position.as_deref();
    let v = args::variant_of(a.variant.as_deref(), a.variant_file.as_deref(), &a.options, pos)?;
    let p = args::position(&v, pos)?;
    let moves = v.legal_moves(&p);
    if a.json {
        let list: Vec<serde_json::Value> = moves
            .iter()
            .map(|m| serde_json::json!({ "san": write_move(&v, &p, m), "long": long_form(&v, m) }))
            .collect();
        let value = serde_json::json!({ "moves": list });
        writeln!(out, "{}", serde_json::to_string_pretty(&value).expect("json")).map_err(io)?;
        return Ok(());
    }
    for m in moves {
        writeln!(out, "{}", long_form(&v, &m)).map_err(io)?;
    }
    Ok(())
}

/// `ravenpost moves GAME`: the legal moves at the game's current position, in SAN (none
/// once the game is over), one a line or as JSON.
fn game_moves(g: &crate::record::game::Game, json: bool, out: &mut impl Write) -> Result<(), Failure> {
    let pos = g.position();
    let result = crate::record::result_of(g);
    let moves = if result == "*" { g.variant.legal_moves(&pos) } else { Vec::new() };
    if json {
        let list: Vec<serde_json::Value> = moves
            .iter()
            .map(|m| {
                serde_json::json!({
                    "san": write_move(&g.variant, &pos, m),
                    "long": long_form(&g.variant, m),
                })
            })
            .collect();
        let v = serde_json::json!({
            "variant": g.variant.def().slug,
            "ply": g.moves.len(),
            "side_to_move": g.variant.def().side_name(pos.side_to_move()),
            "position": crate::notation::position_string::write_position(&g.variant, &pos),
            "result": result,
            "moves": list,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v).expect("json")).map_err(io)?;
    } else {
        for m in &moves {
            writeln!(out, "{}", write_move(&g.variant, &pos, m)).map_err(io)?;
        }
    }
    Ok(())
}
