//! `ravenpost perft`: count the leaf nodes of the legal move tree.

use std::io::Write;
use std::path::PathBuf;

use crate::cli::args::{self, game_option};
use crate::cli::failure::{Failure, io};
use crate::notation::moves::long_form;
use crate::notation::san::write_move;
use crate::usecases::Session;

/// Count the leaf nodes of the legal move tree (perft), a check of the move generator.
///
/// The last line printed is the node count. The last ply is counted in bulk.
#[derive(Debug, clap::Args)]
pub(crate) struct PerftArgs {
    /// VARIANT DEPTH: the variant (gygax (alias dragonchess), fidchell, fantasy-grand,
    /// grand; omitted with --variant-file) and the depth in plies (0 or more).
    #[arg(value_name = "VARIANT DEPTH", num_args = 1..=2, required = true)]
    args: Vec<String>,
    /// Play the variant defined in this file (notation-spec/variant-files.md).
    #[arg(long, value_name = "FILE")]
    variant_file: Option<PathBuf>,
    /// Start from this position string instead of the start position.
    #[arg(long, value_name = "POS")]
    position: Option<String>,
    /// Print each legal move with the count of its subtree first.
    #[arg(long)]
    divide: bool,
    /// Game option K=V (repeatable), e.g. sylph-return=above, introduction=default,
    /// army-white=elves, army-black=evil-horde, druid=allowed.
    #[arg(long = "option", value_name = "K=V", value_parser = game_option)]
    options: Vec<(String, String)>,
    /// Print JSON: variant, position, depth, node count (and with --divide each move's).
    #[arg(long)]
    json: bool,
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
pub(crate) fn run(s: &Session, a: PerftArgs, out: &mut impl Write) -> Result<(), Failure> {
    let file = a.variant_file.as_deref();
    let pos = a.position.as_deref();
    let (name, depth) = match (&a.args[..], file) {
        ([d], Some(_)) => (None, d),
        ([n, d], None) => (Some(n.as_str()), d),
        ([_, _], Some(_)) => return Err(Failure::input("with --variant-file, give the depth only")),
        _ => return Err(Failure::input("expected VARIANT DEPTH (or --variant-file FILE DEPTH)")),
    };
    let depth: u32 =
        depth.parse().map_err(|_| Failure::input(format!("depth `{depth}`: expected a number")))?;
    let v = args::variant_of(s, name, file, &a.options, pos)?;
    let p = args::position(&v, pos)?;
    if a.json {
        let (nodes, list) = if a.divide {
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
    if a.divide {
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
