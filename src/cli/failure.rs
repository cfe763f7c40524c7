//! A command's failure: the message printed on standard error and the exit code (1 a
//! refusal or a problem found, 2 bad input, 3 a change saved but not checked out).

use crate::usecases as ops;

/// A failure to report: message and exit code.
pub(crate) struct Failure {
    pub(crate) message: String,
    pub(crate) code: u8,
}

impl Failure {
    /// Bad input: exit code 2.
    pub(crate) fn input(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), code: 2 }
    }

    /// A refusal or a problem found: exit code 1.
    pub(crate) fn refused(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), code: 1 }
    }

    /// Exit code 1 with nothing more to say (the problems were printed).
    pub(crate) fn quiet() -> Failure {
        Failure::refused(String::new())
    }
}

/// A failed write to standard output.
pub(crate) fn io(e: std::io::Error) -> Failure {
    Failure { message: format!("writing output: {e}"), code: 1 }
}

impl From<ops::Error> for Failure {
    fn from(e: ops::Error) -> Failure {
        let code = if e.is_saved() {
            3
        } else if e.is_usage() {
            2
        } else {
            1
        };
        Failure { code, message: crate::archive::redact_url_passwords(&e.to_string()) }
    }
}

impl From<crate::archive::ArchiveError> for Failure {
    fn from(e: crate::archive::ArchiveError) -> Failure {
        ops::Error::from(e).into()
    }
}

impl From<crate::record::Refusal> for Failure {
    fn from(e: crate::record::Refusal) -> Failure {
        Failure { message: e.to_string(), code: 1 }
    }
}

/// `s` when `n` is not one.
pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The text printed for a failure with `message`: `ravenpost: ` before it, unless the
/// message already starts so (a message never says it twice).
pub(crate) fn error_text(message: &str) -> String {
    let message = message.trim_end_matches('\n');
    if message.starts_with(PREFIX) { message.to_string() } else { format!("{PREFIX}{message}") }
}

/// The prefix of every error line.
const PREFIX: &str = "ravenpost: ";

/// clap's message for a usage error (`error: unexpected argument …`, then the usage and
/// a tip) in ravenpost's shape: `ravenpost: unexpected argument …`, the rest as clap
/// wrote it; a value parser's own sentence ([`super::args::ArgError`]) as it is; `None`
/// for what is no error message (help shown for a missing subcommand).
pub(crate) fn usage_error(e: &clap::Error) -> Option<String> {
    let own = std::error::Error::source(e).and_then(|s| s.downcast_ref::<super::args::ArgError>());
    if let Some(a) = own {
        return Some(super::terminal::fit_stderr(&error_text(&a.0)));
    }
    let rendered = e.render().to_string();
    let rest = rendered.trim_end_matches('\n').strip_prefix("error: ")?;
    Some(format!("{PREFIX}{rest}"))
}

/// The board under `move`'s refusal of an illegal move in `game` (an id or a file): the
/// position with the destinations of `legal` (canonical tokens) marked, when they are the
/// moves of one piece and the board fits the terminal's width (80 columns when unknown);
/// else `None`.
pub(crate) fn illegal_board(s: &ops::Session, game: &str, legal: &[String]) -> Option<String> {
    use crate::notation::diagram;
    let (g, _) = super::games::resolve_game(s, std::path::Path::new(game), 1).ok()?;
    let (v, pos) = (&g.variant, g.position());
    let moves: Vec<crate::engine::Move> =
        legal.iter().map(|t| crate::notation::san::read_move(v, &pos, t)).collect::<Result<_, _>>().ok()?;
    let from = moves.first()?.from()?;
    if moves.iter().any(|m| m.from() != Some(from)) {
        return None;
    }
    let columns = super::terminal::columns().unwrap_or(super::terminal::UNKNOWN_WIDTH);
    let layout = diagram::Layout::fitting(v, columns);
    if layout.width(v) > columns {
        return None;
    }
    let marks = diagram::move_marks(&pos, &[from], &moves);
    Some(diagram::diagram_marked(v, &pos, &marks, diagram::DiagramStyle::default(), layout))
}
