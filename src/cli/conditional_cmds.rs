//! `ravenpost conditional add|show|clear`, the report of prepared replies played after
//! `move`, `mail import` and `sync`, and `sync --watch`.

use std::io::{Read, Write};
use std::path::Path;

use clap::Subcommand;

use super::{Failure, files};
use crate::archive::Identity;
use crate::usecases as ops;

/// `ravenpost conditional` actions (README "Conditional moves").
#[derive(Debug, Subcommand)]
pub enum ConditionalCmd {
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

fn io(e: std::io::Error) -> Failure {
    Failure { message: format!("writing output: {e}"), code: 1 }
}

/// The refusal of a tree as a diagnostic quoting the movetext's line, like `validate`'s.
fn diagnostic(r: &ops::TreeRefused) -> String {
    let refusal = &r.refusal;
    let Some(span) = refusal.span() else { return format!("{}: conditional tree refused: {refusal}", r.id) };
    let p = files::FileProblem {
        file: format!("{} (conditional tree)", r.id),
        line: span.line,
        column: span.column,
        token: refusal.token().to_string(),
        message: refusal.to_string(),
        help: refusal.help(),
    };
    let line = r.movetext.lines().nth(span.line.saturating_sub(1)).unwrap_or_default();
    files::render_line(&p, line, super::ColorChoice::Auto.stderr())
}

/// Runs one `conditional` action.
pub fn conditional(
    archive: Option<&Path>,
    author: Option<&Identity>,
    action: ConditionalCmd,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let a = ops::open(archive, false)?;
    match action {
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
            let p = match ops::conditional_add(&a, &game, &movetext, who.as_deref(), author) {
                Ok(p) => p,
                Err(ops::Error::Tree(r)) => {
                    return Err(Failure { message: diagnostic(&r), code: 1 });
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
                    super::plural(p.lines.len())
                )
                .map_err(io)?;
                for l in &p.lines {
                    writeln!(out, "  {}", l.join(" ")).map_err(io)?;
                }
            }
        }
        ConditionalCmd::Show { game, who, json } => {
            let trees = ops::conditional_show(&a, &game, who.as_deref(), author)?;
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
            let owners = ops::conditional_clear(&a, &game, who.as_deref(), author)?;
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
pub fn answer(
    a: &crate::archive::Archive,
    author: Option<&Identity>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    for answer in ops::answer_prepared(a, author)? {
        writeln!(out, "{answer}").map_err(io)?;
    }
    Ok(())
}

/// `sync` (in the archive `archive` names, else the one found) with the prepared replies:
/// the sync's report, the replies played, the push; with `json`, standard output is one
/// JSON document whatever happens ([`json_refusal`] for a failure).
pub fn sync(
    archive: Option<&Path>,
    remote: &str,
    author: Option<&Identity>,
    json: bool,
    out: &mut impl Write,
) -> Result<(), Failure> {
    match ops::open_for_sync(archive).and_then(|a| ops::sync_answering(&a, remote, author)) {
        Ok(done) if json => {
            // The plain sync report, with what the trees did when they did anything.
            let mut v = serde_json::to_value(&done.sync).expect("json");
            if !done.prepared.is_empty() {
                v["prepared"] = serde_json::to_value(&done.prepared).expect("json");
                v["pushed_replies"] = serde_json::to_value(&done.pushed).expect("json");
            }
            writeln!(out, "{}", serde_json::to_string_pretty(&v).expect("json")).map_err(io)?;
        }
        Ok(done) => {
            writeln!(out, "{}", done.sync).map_err(io)?;
            for answer in &done.prepared {
                writeln!(out, "{answer}").map_err(io)?;
            }
            if let Some(p) = &done.pushed {
                writeln!(out, "{p}").map_err(io)?;
            }
        }
        Err(e) if json => return Err(json_refusal(e, out)?),
        Err(e) => return Err(e.into()),
    }
    Ok(())
}

/// `sync --json`'s failure as one JSON object on standard output, as `verify --json`
/// reports its problems: a sync refusal's own fields (`refused` names it), or `refused:
/// "error"` for any other failure (no archive, an unknown remote, a failed fetch); then
/// the sentence the text form prints (`message`) and the exit code (`exit_code`). The
/// returned failure has that code and no message, so that nothing else is printed.
fn json_refusal(e: ops::Error, out: &mut impl Write) -> Result<Failure, Failure> {
    let mut v = match &e {
        ops::Error::Sync(r) => serde_json::to_value(r).expect("json"),
        _ => serde_json::json!({ "refused": "error" }),
    };
    let f = Failure::from(e);
    v["message"] = f.message.clone().into();
    v["exit_code"] = f.code.into();
    let text = crate::archive::redact_url_passwords(&serde_json::to_string_pretty(&v).expect("json"));
    writeln!(out, "{text}").map_err(io)?;
    Ok(Failure { message: String::new(), code: f.code })
}

/// Reads an interval: seconds (`90`), or a number with `s`, `m`, `h` or `d`.
fn interval(text: &str) -> Result<std::time::Duration, Failure> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => 0,
    };
    match number.parse::<u64>() {
        Ok(n) if n > 0 && scale > 0 => Ok(std::time::Duration::from_secs(n * scale)),
        _ => Err(Failure::input(format!(
            "--watch `{text}`: expected an interval such as 30s, 5m, 1h or 1d (or seconds)"
        ))),
    }
}

/// `sync --watch [INTERVAL]`: a round every interval, one line each, until Ctrl-C.
pub fn watch(
    a: &crate::archive::Archive,
    remote: &str,
    author: Option<&Identity>,
    every: &str,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let every = interval(every)?;
    let mut failed = None;
    let rounds = ops::sync_watch(a, remote, author, every, None, &mut |r| {
        let at = r.at.to_datetime().map(|d| d.format("%Y-%m-%dT%H:%M:%SZ").to_string()).unwrap_or_default();
        let line = match &r.outcome {
            Ok(done) => {
                let mut parts = vec![done.sync.to_string().lines().next().unwrap_or_default().to_string()];
                parts.extend(done.prepared.iter().map(ToString::to_string));
                if let Some(p) = &done.pushed {
                    parts.push(p.to_string().lines().next().unwrap_or_default().to_string());
                }
                parts.join("; ")
            }
            Err(e) => format!("failed: {e}"),
        };
        if let Err(e) = writeln!(out, "{at} round {}: {line}", r.round).and_then(|_| out.flush()) {
            failed = Some(e);
        }
    })?;
    if let Some(e) = failed {
        return Err(io(e));
    }
    writeln!(out, "Stopped after {rounds} round{}", super::plural(rounds)).map_err(io)?;
    Ok(())
}
