//! `ravenpost variant` (check and show definition files), `perft` and `moves` with
//! `--variant-file`, and `ravenpost position` (the position after a list of moves).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, Subcommand};

use super::{Failure, parse_options, position};
use crate::engine::Variant;
use crate::notation::moves::long_form;
use crate::notation::san::{SanError, read_move, write_move};
use crate::variants;

/// `ravenpost variant` actions.
#[derive(Debug, Subcommand)]
pub(super) enum VariantCmd {
    /// Check a variant definition file (Markdown with YAML front matter, the format of
    /// the built-in ones; notation-spec/variant-files.md): exit 0 if it is playable, 1
    /// with each problem's line and column, 2 if the file cannot be read.
    Check {
        /// The definition file.
        file: PathBuf,
    },
    /// Print a built-in variant's definition file (a starting point for your own).
    Show {
        /// The built-in variant: gygax, fidchell, fantasy-grand, grand (or an alias).
        name: String,
    },
}

/// `ravenpost position`.
#[derive(Debug, Args)]
pub(super) struct PositionArgs {
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
    #[arg(long = "option", value_name = "K=V")]
    options: Vec<String>,
    /// Print as JSON (position string, side to move, plies, last move, result).
    #[arg(long)]
    json: bool,
    /// Where Gygax Chess's three levels go: `auto` puts them side by side when that fits
    /// the terminal (its width, else $COLUMNS), else one above the other.
    #[arg(long, value_enum, default_value_t = super::terminal::LayoutArg::Auto)]
    layout: super::terminal::LayoutArg,
}

fn io(e: std::io::Error) -> Failure {
    Failure { message: format!("writing output: {e}"), code: 1 }
}

/// Reads a definition file: unreadable → exit 2; refused → exit 1 with its place.
fn read_file(path: &Path) -> Result<variants::Definition, Failure> {
    let text = super::files::read_text(path).map_err(Failure::input)?;
    variants::load_definition(&text).map_err(|e| Failure { message: located(path, &e), code: 1 })
}

/// `FILE:LINE:COLUMN: message`, as compilers write it.
fn located(path: &Path, e: &variants::DefinitionError) -> String {
    e.located(&path.display().to_string())
}

/// The variant of a command: a built-in by name, or the one defined in `file`.
pub(super) fn load(
    name: Option<&str>,
    file: Option<&Path>,
    options: &[String],
    pos: Option<&str>,
) -> Result<Arc<Variant>, Failure> {
    match (file, name) {
        (Some(f), _) => {
            let d = read_file(f)?;
            let mut options = parse_options(options)?;
            if let Some(p) = pos {
                options = variants::options_for_position(&d.def().slug, &options, p);
            }
            d.variant(&options).map_err(|e| Failure::input(format!("{}: {e}", f.display())))
        }
        (None, Some(n)) => super::load(n, options, pos),
        (None, None) => Err(Failure::input("name a variant, or give --variant-file FILE")),
    }
}

/// `ravenpost variant …`.
pub(super) fn variant(cmd: VariantCmd, out: &mut impl Write) -> Result<(), Failure> {
    match cmd {
        VariantCmd::Check { file } => {
            let d = read_file(&file)?;
            let def = d.def();
            let v = d.variant(&[]).map_err(|e| Failure { message: e.to_string(), code: 1 })?;
            let start = v.start_position();
            writeln!(
                out,
                "{}: ok: {} (`{}`), {} level{} of {}×{}, {} piece kinds, {} legal moves from the start",
                file.display(),
                def.title,
                def.slug,
                def.dims.levels(),
                if def.dims.levels() == 1 { "" } else { "s" },
                def.dims.files(),
                def.dims.ranks(),
                def.kinds.len(),
                v.legal_moves(&start).len()
            )
            .map_err(io)?;
            writeln!(out, "content hash: {}", d.hash()).map_err(io)?;
        }
        VariantCmd::Show { name } => {
            let v = variants::by_name(&name, &[]).map_err(|e| Failure::input(e.to_string()))?;
            let text = variants::BUILT_IN
                .iter()
                .find(|(slug, _)| *slug == v.def().slug)
                .map(|(_, t)| *t)
                .ok_or_else(|| Failure::input(format!("`{name}` has no definition file")))?;
            out.write_all(text.as_bytes()).map_err(io)?;
        }
    }
    Ok(())
}

/// `ravenpost perft --json`: the count, and each move's with `--divide`
/// (`docs/schemas/perft.schema.json`).
#[derive(Debug, serde::Serialize)]
struct PerftReport {
    variant: String,
    position: String,
    depth: u32,
    nodes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    divide: Option<Vec<PerftMove>>,
}

/// One move of `perft --divide --json`.
#[derive(Debug, serde::Serialize)]
struct PerftMove {
    #[serde(rename = "move")]
    long: String,
    san: String,
    nodes: u64,
}

/// `ravenpost perft [VARIANT] DEPTH`.
pub(super) fn perft(
    args: &[String],
    file: Option<&Path>,
    pos: Option<&str>,
    divide: bool,
    options: &[String],
    json: bool,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let (name, depth) = match (args, file) {
        ([d], Some(_)) => (None, d),
        ([n, d], None) => (Some(n.as_str()), d),
        ([_, _], Some(_)) => return Err(Failure::input("with --variant-file, give the depth only")),
        _ => return Err(Failure::input("expected VARIANT DEPTH (or --variant-file FILE DEPTH)")),
    };
    let depth: u32 =
        depth.parse().map_err(|_| Failure::input(format!("depth `{depth}`: expected a number")))?;
    let v = load(name, file, options, pos)?;
    let p = position(&v, pos)?;
    if json {
        let (nodes, list) = if divide {
            let list: Vec<PerftMove> = v
                .perft_divide(&p, depth)
                .into_iter()
                .map(|(m, nodes)| PerftMove { long: long_form(&v, &m), san: write_move(&v, &p, &m), nodes })
                .collect();
            let total = if depth == 0 { 1 } else { list.iter().map(|m| m.nodes).sum() };
            (total, Some(list))
        } else {
            (v.perft(&p, depth), None)
        };
        let report = PerftReport {
            variant: v.def().slug.to_string(),
            position: crate::notation::position_string::write_position(&v, &p),
            depth,
            nodes,
            divide: list,
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&report).expect("json")).map_err(io)?;
        return Ok(());
    }
    if divide {
        let mut total = 0;
        for (m, n) in v.perft_divide(&p, depth) {
            writeln!(out, "{} {n}", long_form(&v, &m)).map_err(io)?;
            total += n;
        }
        if depth == 0 {
            total = 1;
        }
        writeln!(out, "{total}").map_err(io)?;
    } else {
        writeln!(out, "{}", v.perft(&p, depth)).map_err(io)?;
    }
    Ok(())
}

/// `ravenpost moves [VARIANT]`.
pub(super) fn moves(
    name: Option<&str>,
    file: Option<&Path>,
    pos: Option<&str>,
    options: &[String],
    json: bool,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let v = load(name, file, options, pos)?;
    let p = position(&v, pos)?;
    let moves = v.legal_moves(&p);
    if json {
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

/// `ravenpost position`: plays the moves, each checked; prints the position string, the
/// diagram and the side to move (or JSON).
pub(super) fn position_cmd(a: PositionArgs, out: &mut impl Write) -> Result<(), Failure> {
    let (name, moves) = match &a.variant_file {
        Some(_) => (None, &a.args[..]),
        None => match a.args.split_first() {
            Some((n, rest)) => (Some(n.as_str()), rest),
            None => return Err(Failure::input("name a variant, or give --variant-file FILE")),
        },
    };
    let v = load(name, a.variant_file.as_deref(), &a.options, a.from.as_deref())?;
    let mut p = position(&v, a.from.as_deref())?;
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
        if let Some(note) = super::terminal::too_wide_note(&v, a.layout, super::terminal::columns()) {
            errln!("{note}");
        }
        let layout = super::terminal::layout(&v, a.layout);
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
pub(super) fn diagnostic(
    v: &Variant,
    p: &crate::engine::Position,
    ply: usize,
    token: &str,
    e: &SanError,
) -> String {
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
