//! The `ravenpost` command line. Only this module prints or exits.
//!
//! Exit codes: 0 success; 1 the command ran but found problems (e.g. an invalid game);
//! 2 bad input (unknown variant, malformed position string, bad arguments).

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};

use crate::engine::{Position, Variant};
use crate::notation::moves::long_form;
use crate::notation::position_string::parse_position;
use crate::variants;

/// Play, archive, replay and check correspondence games of Gygax Chess (Dragonchess),
/// Gygax's Fidchell and Fantasy Grand Chess.
#[derive(Debug, Parser)]
#[command(name = "ravenpost", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal move tree (perft), a check of the move generator.
    ///
    /// The last line printed is the node count. The last ply is counted in bulk.
    Perft {
        /// Variant name: gygax (alias dragonchess) or fidchell.
        variant: String,
        /// Depth in plies (0 or more).
        depth: u32,
        /// Start from this position string instead of the start position.
        #[arg(long, value_name = "POS")]
        position: Option<String>,
        /// Print each legal move with the count of its subtree first.
        #[arg(long)]
        divide: bool,
        /// Game option K=V (repeatable), e.g. sylph-return=above, introduction=default.
        #[arg(long = "option", value_name = "K=V")]
        options: Vec<String>,
    },
    /// List every legal move of a position, one a line, in long form.
    Moves {
        /// Variant name: gygax (alias dragonchess) or fidchell.
        variant: String,
        /// The position string (default: the start position).
        #[arg(long, value_name = "POS")]
        position: Option<String>,
        /// Game option K=V (repeatable).
        #[arg(long = "option", value_name = "K=V")]
        options: Vec<String>,
    },
}

/// A failure to report: message and exit code.
struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    fn input(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), code: 2 }
    }
}

fn parse_options(raw: &[String]) -> Result<Vec<(String, String)>, Failure> {
    raw.iter()
        .map(|o| {
            o.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| Failure::input(format!("game option `{o}`: expected K=V")))
        })
        .collect()
}

fn load(variant: &str, options: &[String]) -> Result<Arc<Variant>, Failure> {
    let options = parse_options(options)?;
    variants::by_name(variant, &options).map_err(|e| Failure::input(e.to_string()))
}

fn position(v: &Variant, text: Option<&str>) -> Result<Position, Failure> {
    match text {
        None => Ok(v.start_position()),
        Some(t) => parse_position(v, t).map_err(|e| Failure::input(format!("position string: {e}"))),
    }
}

fn run(cli: Cli, out: &mut impl Write) -> Result<(), Failure> {
    let io = |e: std::io::Error| Failure { message: format!("writing output: {e}"), code: 1 };
    match cli.command {
        Command::Perft { variant, depth, position: pos, divide, options } => {
            let v = load(&variant, &options)?;
            let p = position(&v, pos.as_deref())?;
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
        }
        Command::Moves { variant, position: pos, options } => {
            let v = load(&variant, &options)?;
            let p = position(&v, pos.as_deref())?;
            for m in v.legal_moves(&p) {
                writeln!(out, "{}", long_form(&v, &m)).map_err(io)?;
            }
        }
    }
    Ok(())
}

/// Runs the command line; returns the process exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = run(cli, &mut out);
    let _ = out.flush();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("ravenpost: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}
