//! What several commands' arguments share: `--color`, game options (`--option K=V`), the
//! search's budget (`--depth`, `--nodes`, `--time`), the value parsers that turn an
//! argument into its value (dates, `NAME=VALUE` pairs, seconds), and the variant and
//! position a command names.

use std::path::Path;
use std::sync::Arc;

use super::Failure;
use crate::engine::{Position, Variant};
use crate::notation::position_string::parse_position;
use crate::variants;

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ColorChoice {
    /// When standard output is a terminal and NO_COLOR is unset or empty.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// A value parser's refusal of an argument: the whole sentence, printed as it is
/// (`ravenpost: …`, exit code 2) rather than in clap's words
/// ([`super::failure::usage_error`]).
#[derive(Debug)]
pub(crate) struct ArgError(pub(crate) String);

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

/// `--option K=V`: one game option (value parser).
pub(crate) fn game_option(o: &str) -> Result<(String, String), ArgError> {
    o.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .ok_or_else(|| ArgError(format!("game option `{o}`: expected K=V")))
}

/// `--account NAME=ACCOUNT` (value parser).
pub(crate) fn name_account(a: &str) -> Result<(String, String), ArgError> {
    match a.split_once('=') {
        Some((name, account)) => Ok((name.trim().to_string(), account.trim().to_string())),
        None => Err(ArgError(format!(
            "--account `{a}`: expected NAME=ACCOUNT, e.g. --account \"Ann Example=ann\""
        ))),
    }
}

/// `--army NAME=ARMY` (value parser).
pub(crate) fn name_army(s: &str) -> Result<(String, String), ArgError> {
    s.split_once('=')
        .map(|(p, a)| (p.trim().to_string(), a.trim().to_string()))
        .ok_or_else(|| ArgError(format!("--army `{s}`: expected NAME=ARMY")))
}

/// `--from DATE`: a day, `YYYY-MM-DD` (UTC), as the Unix time of its midnight (value
/// parser).
pub(crate) fn day_start(d: &str) -> Result<i64, ArgError> {
    Ok(chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d")
        .map_err(|_| ArgError(format!("--from `{d}`: expected YYYY-MM-DD")))?
        .and_hms_opt(0, 0, 0)
        .expect("midnight exists")
        .and_utc()
        .timestamp())
}

/// The game options, each key once.
pub(crate) fn options(list: &[(String, String)]) -> Result<Vec<(String, String)>, Failure> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (k, v) in list {
        if out.iter().any(|(n, _)| n == k) {
            return Err(Failure::input(format!("game option `{k}` given twice")));
        }
        out.push((k.clone(), v.clone()));
    }
    Ok(out)
}

/// The built-in variant `variant` with the game options (and those a position string
/// names).
pub(crate) fn load(
    variant: &str,
    options: &[(String, String)],
    position: Option<&str>,
) -> Result<Arc<Variant>, Failure> {
    let mut options = self::options(options)?;
    if let Some(p) = position {
        // Fantasy Grand Chess position strings may name the armies.
        options = variants::options_for_position(variant, &options, p);
    }
    variants::by_name(variant, &options).map_err(|e| Failure::input(e.to_string()))
}

/// The position `text` names, else the start position.
pub(crate) fn position(v: &Variant, text: Option<&str>) -> Result<Position, Failure> {
    match text {
        None => Ok(v.start_position()),
        Some(t) => parse_position(v, t).map_err(|e| Failure::input(format!("position string: {e}"))),
    }
}

/// Reads a definition file: unreadable → exit 2; refused → exit 1 with its place
/// (`FILE:LINE:COLUMN: message`, as compilers write it).
pub(crate) fn read_definition(path: &Path) -> Result<variants::Definition, Failure> {
    let text = super::files::read_text(path).map_err(Failure::input)?;
    variants::load_definition(&text).map_err(|e| Failure::refused(e.located(&path.display().to_string())))
}

/// The variant of a command: a built-in by name, or the one defined in `file`.
pub(crate) fn variant_of(
    s: &crate::usecases::Session,
    name: Option<&str>,
    file: Option<&Path>,
    options: &[(String, String)],
    pos: Option<&str>,
) -> Result<Arc<Variant>, Failure> {
    let build = |d: variants::Definition, place: &str| {
        let mut options = self::options(options)?;
        if let Some(p) = pos {
            options = variants::options_for_position(&d.def().slug, &options, p);
        }
        d.variant(&options).map_err(|e| Failure::input(format!("{place}: {e}")))
    };
    match (file, name) {
        (Some(f), _) => build(read_definition(f)?, &f.display().to_string()),
        (None, Some(n)) => match load(n, options, pos) {
            Ok(v) => Ok(v),
            // Not built in: the archive's own definition of that name, as `new NAME` plays it.
            Err(unknown) => match crate::usecases::archive_variant(s, n)? {
                Some(d) => build(d, &format!("variants/{n}.md")),
                None => Err(unknown),
            },
        },
        (None, None) => Err(Failure::input("name a variant, or give --variant-file FILE")),
    }
}

/// The search's budget of `analyse`, `annotate` and `bot`: the first limit reached ends
/// a search.
#[derive(Debug, Clone, Copy, clap::Args)]
pub(crate) struct SearchBudget {
    /// Search this many plies deep (1 to 48).
    #[arg(long, allow_negative_numbers = true, value_name = "PLIES", value_parser = clap::value_parser!(u32).range(1..=48))]
    pub(crate) depth: Option<u32>,
    /// Stop a search after this many nodes (positions visited), 1 to 100000000; the
    /// first iteration (depth 1) always completes.
    #[arg(long, allow_negative_numbers = true, value_name = "N", value_parser = nodes)]
    pub(crate) nodes: Option<u64>,
    /// Stop a search after this many seconds, e.g. 10 or 0.5.
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = seconds)]
    pub(crate) time: Option<std::time::Duration>,
}

impl SearchBudget {
    /// The budget, `nodes` a search when no limit was given (`None`: the use case's
    /// default), with `multipv` lines.
    pub(crate) fn budget(self, nodes: Option<u64>, multipv: usize) -> crate::usecases::Budget {
        let none = self.depth.is_none() && self.nodes.is_none() && self.time.is_none();
        crate::usecases::Budget {
            depth: self.depth,
            nodes: if none { nodes } else { self.nodes },
            time: self.time,
            multipv,
        }
    }
}

/// A positive number of seconds.
pub(crate) fn seconds(s: &str) -> Result<std::time::Duration, String> {
    // clap's message names the value already: these say only what is expected.
    let x: f64 =
        s.trim_end_matches('s').parse().map_err(|_| "expected seconds, e.g. 10 or 0.5".to_string())?;
    if !(x.is_finite() && x > 0.0 && x <= 1e7) {
        return Err("expected seconds above 0 and at most 10000000 (about 16 weeks)".into());
    }
    Ok(std::time::Duration::from_secs_f64(x))
}

/// Whole seconds from 1 to an hour: the time limits of mail and of the servers.
pub(crate) fn whole_seconds(s: &str) -> Result<u64, String> {
    // `-1` and `1.5` get the range too, as `nodes` does.
    let max = crate::usecases::mail::MAX_TIMEOUT_SECONDS;
    match s.parse::<u64>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("expected whole seconds from 1 to {max} (an hour)")),
    }
}

/// The most nodes a search may be given: some minutes of search. A budget beyond it is
/// a typo, and would hold the command (or a referee's whole mailbox) for hours.
pub(crate) const MAX_NODES: u64 = 100_000_000;

/// A search's node budget: 1 to [`MAX_NODES`].
pub(crate) fn nodes(s: &str) -> Result<u64, String> {
    // `1e9` and `-5` get the range too: a number, just not a whole one in it.
    match s.parse::<u64>() {
        Ok(n) if (1..=MAX_NODES).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a whole number of nodes from 1 to {MAX_NODES} (200000 is about a second's search)"
        )),
    }
}
