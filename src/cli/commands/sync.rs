//! `ravenpost sync`: exchange the archive's branch with a remote, checked by the rules,
//! with the prepared replies played as the opponent's moves arrive; `sync --watch`.

use std::io::Write;
use std::time::Duration;

use crate::cli::args::ArgError;
use crate::cli::failure::{Failure, io, plural};
use crate::usecases::{self as ops, Session};

/// Fetch the remote's branch, check its new commits by the rules, then fast-forward
/// (when behind) or push (when ahead); when both moved in different games, replay
/// this archive's commits on top of the remote's (judged again) and push. Refuses,
/// changing nothing, a remote that rewrote history it had accepted (naming the
/// vanished moves), illegal commits, and a move in a game the remote also moved in.
#[derive(Debug, clap::Args)]
pub(crate) struct SyncArgs {
    /// The remote.
    #[arg(default_value = "origin")]
    remote: String,
    /// Print as JSON: what was fetched, replayed and pushed (or why nothing was).
    #[arg(long)]
    json: bool,
    /// Keep syncing every INTERVAL (30s, 5m, 1h; default 5m), playing prepared
    /// replies as the opponent's moves arrive, one line per round, until Ctrl-C.
    #[arg(long, value_name = "INTERVAL", num_args = 0..=1, default_missing_value = "5m", conflicts_with = "json", value_parser = interval)]
    watch: Option<Duration>,
}

/// `ravenpost sync [REMOTE] [--watch [INTERVAL]]`.
pub(crate) fn run(s: &Session, a: SyncArgs, out: &mut impl Write) -> Result<(), Failure> {
    match a.watch {
        Some(every) => {
            let archive = ops::open_for_sync(s)?;
            watch(s, &archive, &a.remote, every, out)
        }
        None => sync(s, &a.remote, a.json, out),
    }
}

/// `sync` (in the archive `archive` names, else the one found) with the prepared replies:
/// the sync's report, the replies played, the push; with `json`, standard output is one
/// JSON document whatever happens ([`json_refusal`] for a failure).
fn sync(s: &Session, remote: &str, json: bool, out: &mut impl Write) -> Result<(), Failure> {
    match ops::open_for_sync(s).and_then(|a| ops::sync_answering(&a, remote, s)) {
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
            // The server's lines first, as `git push` shows them before its summary.
            for line in &done.sync.server {
                writeln!(out, "{line}").map_err(io)?;
            }
            writeln!(out, "{}", done.sync).map_err(io)?;
            for answer in &done.prepared {
                writeln!(out, "{answer}").map_err(io)?;
            }
            if let Some(p) = &done.pushed {
                for line in &p.server {
                    writeln!(out, "{line}").map_err(io)?;
                }
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

/// Reads an interval: seconds (`90`), or a number with `s`, `m`, `h` or `d` (value
/// parser).
fn interval(text: &str) -> Result<Duration, ArgError> {
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
        Ok(n) if n > 0 && scale > 0 => Ok(Duration::from_secs(n * scale)),
        _ => Err(ArgError(format!(
            "--watch `{text}`: expected an interval such as 30s, 5m, 1h or 1d (or seconds)"
        ))),
    }
}

/// `sync --watch [INTERVAL]`: a round every interval, one line each, until Ctrl-C.
fn watch(
    s: &Session,
    a: &crate::archive::Archive,
    remote: &str,
    every: Duration,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let mut failed = None;
    let rounds = ops::sync_watch(a, remote, s, every, None, &mut |r| {
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
    writeln!(out, "Stopped after {rounds} round{}", plural(rounds)).map_err(io)?;
    Ok(())
}
