//! `ravenpost position`: the position after a list of moves.

use std::io::Write;
use std::path::PathBuf;

use crate::cli::args::{self, game_option};
use crate::cli::failure::{Failure, io};
use crate::cli::terminal;
use crate::engine::Variant;
use crate::notation::san::{SanError, read_move, write_move};
use crate::usecases::Session;

/// The position after a list of moves, each checked: position string, diagram, side
/// to move (or JSON).
#[derive(Debug, clap::Args)]
pub(crate) struct PositionArgs {
    /// The variant, then the moves (SAN or long form), each checked against the rules;
    /// with --variant-file, moves only.
    #[arg(value_name = "VARIANT [MOVES]")]
    args: Vec<String>,
    /// Start from this position string instead of the start position.
    #[arg(long, value_name = "POS")]
    from: Option<String>,
    /// Play the variant defined in this file instead of a built-in one.
    #[arg(long, value_name = "FILE")]
    variant_file: Option<PathBuf>,
    /// Game option K=V (repeatable).
    #[arg(long = "option", value_name = "K=V", value_parser = game_option)]
    options: Vec<(String, String)>,
    /// Print as JSON (position string, side to move, plies, last move, result).
    #[arg(long)]
    json: bool,
    /// Where Gygax Chess's three levels go: `auto` puts them side by side when that fits
    /// the terminal (its width, else $COLUMNS), else one above the other.
    #[arg(long, value_enum, default_value_t = terminal::LayoutArg::Auto)]
    layout: terminal::LayoutArg,
}

/// `ravenpost position`: plays the moves, each checked; prints the position string, the
/// diagram and the side to move (or JSON).
pub(crate) fn run(s: &Session, a: PositionArgs, out: &mut impl Write) -> Result<(), Failure> {
    let (name, moves) = match &a.variant_file {
        Some(_) => (None, &a.args[..]),
        None => match a.args.split_first() {
            Some((n, rest)) => (Some(n.as_str()), rest),
            None => return Err(Failure::input("name a variant, or give --variant-file FILE")),
        },
    };
    let v = args::variant_of(s, name, a.variant_file.as_deref(), &a.options, a.from.as_deref())?;
    let mut p = args::position(&v, a.from.as_deref())?;
    let mut last = None;
    let mut tokens = Vec::new();
    for (i, token) in moves.iter().enumerate() {
        if let Some(o) = v.outcome(&p) {
            return Err(Failure {
                message: format!("ply {}: `{token}`: the game is already over ({o:?})", i + 1),
                code: 1,
            });
        }
        let m = read_move(&v, &p, token)
            .map_err(|e| Failure { message: diagnostic(&v, &p, i + 1, token, &e), code: 1 })?;
        tokens.push(write_move(&v, &p, &m));
        p = v.make(&p, &m);
        last = Some(m);
    }
    let text = crate::notation::position_string::write_position(&v, &p);
    let outcome = v.outcome(&p).map(|o| describe(&v, o));
    if a.json {
        let j = serde_json::json!({
            "variant": v.def().slug,
            "plies": moves.len(),
            "moves": tokens,
            "position": text,
            "side_to_move": v.def().side_name(p.side_to_move()),
            "last_move": tokens.last(),
            "result": outcome,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&j).expect("json")).map_err(io)?;
    } else {
        writeln!(out, "{text}").map_err(io)?;
        if let Some(note) = terminal::too_wide_note(&v, a.layout, terminal::columns()) {
            errln!("{note}");
        }
        let layout = terminal::layout(&v, a.layout);
        let style = crate::notation::diagram::DiagramStyle::default();
        let diagram = crate::notation::diagram::diagram_laid_out(&v, &p, last.as_ref(), style, layout);
        write!(out, "{diagram}").map_err(io)?;
        writeln!(out, "{}", crate::notation::diagram::side_line(&v, &p)).map_err(io)?;
        if let Some(o) = outcome {
            writeln!(out, "Game over: {o}").map_err(io)?;
        }
    }
    Ok(())
}

/// "Gold wins by checkmate", "a draw by stalemate".
fn describe(v: &Variant, o: crate::engine::Outcome) -> String {
    match o {
        crate::engine::Outcome::Win { winner, reason } => {
            format!("{} wins by {reason}", v.def().side_name(winner))
        }
        crate::engine::Outcome::Draw { reason } => format!("a draw by {reason}"),
    }
}

/// The message `validate` gives for a move it cannot play, with the ply.
fn diagnostic(v: &Variant, p: &crate::engine::Position, ply: usize, token: &str, e: &SanError) -> String {
    let side = v.def().side_name(p.side_to_move());
    let number = p.fullmove_number();
    let (what, help) = match e {
        SanError::Illegal { reason, legal } => (
            format!("illegal move `{token}` ({side}, move {number}): {reason}"),
            (!legal.is_empty()).then(|| format!("legal: {}", legal.join(" "))),
        ),
        SanError::Ambiguous { candidates } => (
            format!("ambiguous move `{token}` ({side}, move {number})"),
            Some(format!("write one of: {}", candidates.join(", "))),
        ),
        SanError::UnknownCode { code, known } => (
            format!("unknown piece code `{code}` in `{token}` ({side}, move {number})"),
            Some(format!("codes: {}", known.join(" "))),
        ),
        SanError::Syntax { reason } => {
            (format!("`{token}` is not a move ({side}, move {number}): {reason}"), None)
        }
    };
    match help {
        Some(h) => format!("ply {ply}: {what}\n  help: {h}"),
        None => format!("ply {ply}: {what}"),
    }
}
