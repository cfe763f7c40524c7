//! `ravenpost conditional add|show|clear`, and the report of prepared replies played
//! after `move`, `mail import` and `sync` ([`answer`]).

use std::io::{Read, Write};

use clap::Subcommand;

use crate::cli::args::ColorChoice;
use crate::cli::diagnostics::{FileProblem, render_line};
use crate::cli::failure::{Failure, io, plural};
use crate::usecases::{self as ops, Session};

/// Conditional moves: prepared replies to the opponent's next moves, as a tree kept
/// in this clone only and played when the opponent's move arrives (by sync, mail
/// import or a move in this archive).
#[derive(Debug, clap::Args)]
pub(crate) struct ConditionalArgs {
    #[command(subcommand)]
    action: ConditionalCmd,
}

/// `ravenpost conditional` actions (README "Conditional moves").
#[derive(Debug, Subcommand)]
enum ConditionalCmd {
    /// Prepare replies: a tree in movetext with variations, starting with the opponent's
    /// next move (`12... Qd7 (12... Qe7 13. Ne5) 13. Nc5 Qc8 14. Nxb7`). Every move is
    /// checked; the tree replaces the one you had and stays in this clone's git directory.
    Add {
        /// The game id.
        game: String,
        /// The tree's movetext (`-`: read it from standard input).
        #[arg(value_name = "MOVETEXT")]
        movetext: String,
        /// Whose replies (default: you, if you play the game).
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
        /// Print the stored tree as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show the prepared replies of a game (in this clone only).
    Show {
        /// The game id.
        game: String,
        /// Whose (default: you, if you play the game, else both players').
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove the prepared replies of a game.
    Clear {
        /// The game id.
        game: String,
        /// Whose (default: you, if you play the game, else both players').
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
    },
}

/// The refusal of a tree as a diagnostic quoting the movetext's line, like `validate`'s.
fn diagnostic(r: &ops::TreeRefused) -> String {
    let refusal = &r.refusal;
    let Some(span) = refusal.span() else { return format!("{}: conditional tree refused: {refusal}", r.id) };
    let p = FileProblem {
        file: format!("{} (conditional tree)", r.id),
        line: span.line,
        column: span.column,
        token: refusal.token().to_string(),
        message: refusal.to_string(),
        help: refusal.help(),
    };
    let line = r.movetext.lines().nth(span.line.saturating_sub(1)).unwrap_or_default();
    render_line(&p, line, ColorChoice::Auto.stderr())
}

/// Runs one `conditional` action.
pub(crate) fn run(s: &Session, args: ConditionalArgs, out: &mut impl Write) -> Result<(), Failure> {
    let a = ops::open(s, false)?;
    match args.action {
        ConditionalCmd::Add { game, movetext, who, json } => {
            let movetext = if movetext == "-" {
                let mut s = String::new();
                std::io::stdin()
                    .read_to_string(&mut s)
                    .map_err(|e| Failure::input(format!("reading the tree from standard input: {e}")))?;
                s
            } else {
                movetext
            };
            let p = match ops::conditional_add(&a, &game, &movetext, who.as_deref(), s) {
                Ok(p) => p,
                Err(ops::Error::Tree(r)) => {
                    return Err(Failure::refused(diagnostic(&r)));
                }
                Err(e) => return Err(e.into()),
            };
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&p).expect("json")).map_err(io)?;
            } else {
                writeln!(
                    out,
                    "{}: {} prepared repl{} for {} ({} line{}, kept in this clone only)",
                    p.game,
                    replies(&p.tree),
                    if replies(&p.tree) == 1 { "y" } else { "ies" },
                    p.owner,
                    p.lines.len(),
                    plural(p.lines.len())
                )
                .map_err(io)?;
                for l in &p.lines {
                    writeln!(out, "  {}", l.join(" ")).map_err(io)?;
                }
            }
        }
        ConditionalCmd::Show { game, who, json } => {
            let trees = ops::conditional_show(&a, &game, who.as_deref(), s)?;
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&trees).expect("json")).map_err(io)?;
            } else if trees.is_empty() {
                writeln!(out, "{game}: no prepared replies in this clone").map_err(io)?;
            } else {
                for p in &trees {
                    writeln!(
                        out,
                        "{}: {}'s prepared replies (after ply {}): {}",
                        p.game, p.owner, p.after_ply, p.movetext
                    )
                    .map_err(io)?;
                    for l in &p.lines {
                        writeln!(out, "  {}", l.join(" ")).map_err(io)?;
                    }
                }
            }
        }
        ConditionalCmd::Clear { game, who } => {
            let owners = ops::conditional_clear(&a, &game, who.as_deref(), s)?;
            if owners.is_empty() {
                writeln!(out, "{game}: no prepared replies to clear").map_err(io)?;
            }
            for o in owners {
                writeln!(out, "{game}: {o}'s prepared replies cleared").map_err(io)?;
            }
        }
    }
    Ok(())
}

/// How many replies a tree prepares.
fn replies(tree: &[crate::referee::conditional::Branch]) -> usize {
    tree.iter().map(|b| usize::from(b.reply.is_some()) + replies(&b.then)).sum()
}

/// After a command that may have brought the opponent's move (`move`, `mail import`, a
/// resignation): plays the prepared replies that are due, one line each.
pub(crate) fn answer(s: &Session, a: &crate::archive::Archive, out: &mut impl Write) -> Result<(), Failure> {
    for answer in ops::answer_prepared(a, s)? {
        writeln!(out, "{answer}").map_err(io)?;
    }
    Ok(())
}
