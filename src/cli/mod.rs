//! The `ravenpost` command line. Only this module prints or exits.
//!
//! Exit codes: 0 success; 1 the command ran but found problems (e.g. an invalid game);
//! 2 bad input (unknown variant, malformed position string, bad arguments); 3 the change
//! was committed (it is saved and counts) but the working copy could not be brought up
//! to date (the message says how; the next command tries again).
//!
//! Each command is a file of [`commands`]: its arguments and its `run`. What the
//! commands share: the [`Session`](crate::usecases::Session) this front end builds
//! from the environment ([`session`]), the failure and its exit code ([`failure`]).

/// `eprintln!` that ignores a closed standard error (`ravenpost … 2>&1 | head` must not
/// panic when the reader has gone).
macro_rules! errln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{FromArgMatches, Parser, Subcommand};

use help::GLOBAL_OPTIONS;
pub use help::command;

mod args;
mod commands;
mod diagnostics;
mod failure;
mod files;
mod games;
pub(crate) mod help;
mod progress;
mod replay;
mod session;
mod terminal;

use commands as c;
pub(crate) use failure::Failure;

/// Play, archive, replay and check correspondence games of Gygax Chess (Dragonchess),
/// Gygax's Fidchell and Fantasy Grand Chess.
#[derive(Debug, Parser)]
#[command(name = "ravenpost", version, about, long_about = None)]
pub struct Cli {
    /// The archive to use (default: $RAVENPOST_ARCHIVE, else the repository you are in if
    /// it is an archive, else the `archive` of your settings file ($RAVENPOST_CONFIG, else
    /// config.yaml in your config directory), else your per-user archive, which `new`
    /// makes on first use).
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL_OPTIONS)]
    archive: Option<PathBuf>,
    /// Commit as this identity, "Name <email>" (default: the `identity` of your settings
    /// file, else the archive's ravenpost.yaml author, else git's user.name and
    /// user.email). Moves are authored under the player's name (with their email from the
    /// game's WhiteEmail/BlackEmail tags) and committed by this identity.
    #[arg(long, global = true, value_name = "NAME <EMAIL>", help_heading = GLOBAL_OPTIONS)]
    author: Option<String>,
    /// Sign commits with this SSH key where the game requires signed moves: a private key
    /// file, or a public key file or line whose private half is in ssh-agent (default:
    /// the `signing-key` of your settings file, else git's user.signingKey).
    #[arg(long, global = true, value_name = "KEY", help_heading = GLOBAL_OPTIONS)]
    signing_key: Option<String>,
    /// Remove the archive's lock file left by an older ravenpost (0.1.0) and go on: only
    /// when no ravenpost is running on the archive. (A lock of this version whose owner
    /// has died is taken over without it.)
    #[arg(long, global = true, help_heading = GLOBAL_OPTIONS)]
    break_lock: bool,
    #[command(subcommand)]
    command: Command,
}

// The commands, each with its arguments (`commands::<command>`; a doc comment here
// would be clap's text). One value per run, parsed from the command line: the size of
// its largest variant costs nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    Perft(c::perft::PerftArgs),
    Moves(c::moves::MovesArgs),
    Analyse(c::analyse::AnalyseArgs),
    Annotate(c::annotate::AnnotateArgs),
    Bot(c::bot::BotArgs),
    Uci(c::uci::UciArgs),
    Match(c::r#match::MatchArgs),
    Variant(c::variant::VariantArgs),
    Position(c::position::PositionArgs),
    Import(c::import::ImportArgs),
    Validate(c::validate::ValidateArgs),
    Show(c::show::ShowArgs),
    Replay(c::replay::ReplayArgs),
    Init(c::init::InitArgs),
    New(c::new::NewArgs),
    Army(c::army::ArmyArgs),
    Move(c::r#move::MoveArgs),
    Resign(c::resign::ResignArgs),
    Draw(c::draw::DrawArgs),
    Claim(c::claim::ClaimArgs),
    Leave(c::leave::LeaveArgs),
    Status(c::status::StatusArgs),
    Tournament(c::tournament::TournamentArgs),
    Standings(c::standings::StandingsArgs),
    Ratings(c::ratings::RatingsArgs),
    Log(c::log::LogArgs),
    Verify(c::verify::VerifyArgs),
    Hook(c::hook::HookArgs),
    Notify(c::notify::NotifyArgs),
    Archive(c::archive::ArchiveArgs),
    Sync(c::sync::SyncArgs),
    Conditional(c::conditional::ConditionalArgs),
    Mail(c::mail::MailArgs),
    Serve(c::serve::ServeArgs),
    Site(c::site::SiteArgs),
    Completions(c::completions::CompletionsArgs),
    Man(c::man::ManArgs),
    Fmt(c::fmt::FmtArgs),
}

/// Parses the process's command line with [`command`].
fn parse() -> Result<Cli, clap::Error> {
    // Help wraps at the terminal's width, else at 80 columns (a pipe, a file).
    let width = terminal::columns().unwrap_or(80);
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let mut cmd = help::for_parsing(&args).term_width(width).max_term_width(width);
    let matches = cmd.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))
}

/// Runs one parsed command line, writing its answer to `out`.
fn run(cli: Cli, out: &mut impl Write) -> Result<(), Failure> {
    let s = &session::from_env(cli.archive, cli.author, cli.signing_key, cli.break_lock)?;
    match cli.command {
        Command::Perft(a) => c::perft::run(s, a, out),
        Command::Moves(a) => c::moves::run(s, a, out),
        Command::Analyse(a) => c::analyse::run(s, a, out),
        Command::Annotate(a) => c::annotate::run(s, a, out),
        Command::Bot(a) => c::bot::run(s, a, out),
        Command::Uci(a) => c::uci::run(a, out),
        Command::Match(a) => c::r#match::run(a, out),
        Command::Variant(a) => c::variant::run(s, a, out),
        Command::Position(a) => c::position::run(s, a, out),
        Command::Import(a) => c::import::run(a, out),
        Command::Validate(a) => c::validate::run(a, out),
        Command::Show(a) => c::show::run(s, a, out),
        Command::Replay(a) => c::replay::run(s, a, out),
        Command::Init(a) => c::init::run(s, a, out),
        Command::New(a) => c::new::run(s, a, out),
        Command::Army(a) => c::army::run(s, a, out),
        Command::Move(a) => c::r#move::run(s, a, out),
        Command::Resign(a) => c::resign::run(s, a, out),
        Command::Draw(a) => c::draw::run(s, a, out),
        Command::Claim(a) => c::claim::run(s, a, out),
        Command::Leave(a) => c::leave::run(s, a, out),
        Command::Status(a) => c::status::run(s, a, out),
        Command::Tournament(a) => c::tournament::run(s, a, out),
        Command::Standings(a) => c::standings::run(s, a, out),
        Command::Ratings(a) => c::ratings::run(s, a, out),
        Command::Log(a) => c::log::run(s, a, out),
        Command::Verify(a) => c::verify::run(s, a, out),
        Command::Hook(a) => c::hook::run(s, a, out),
        Command::Notify(a) => c::notify::run(s, a, out),
        Command::Archive(a) => c::archive::run(s, a, out),
        Command::Sync(a) => c::sync::run(s, a, out),
        Command::Conditional(a) => c::conditional::run(s, a, out),
        Command::Mail(a) => c::mail::run(s, a, out),
        Command::Serve(a) => c::serve::run(s, a, out),
        Command::Site(a) => c::site::run(s, a, out),
        Command::Completions(a) => c::completions::run(a, out),
        Command::Man(a) => c::man::run(a, out),
        Command::Fmt(a) => c::fmt::run(a, out),
    }
}

/// Runs the command line; returns the process exit code.
///
/// Every error goes to standard error as `ravenpost: <what went wrong>` (lines after the
/// first may add a diagnostic's quoted line, a help or the usage), with exit code 2 for
/// bad input and usage, 1 for a refusal or a problem found, 3 for a change saved but not
/// checked out; `--help` and `--version` go to standard output with exit code 0.
pub fn main() -> ExitCode {
    // `COMPLETE=SHELL ravenpost …`: a shell asks for completions (or their script).
    if let Some(code) = c::completions::answer_a_shell() {
        return code;
    }
    let cli = match parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            match failure::usage_error(&e) {
                Some(text) => errln!("{text}"),
                // Help shown for a missing subcommand (`ravenpost mail`): as clap writes it.
                None => {
                    let _ = e.print();
                }
            }
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = run(cli, &mut out);
    let _ = out.flush();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            if !f.message.is_empty() {
                // Filled at spaces to the terminal's width, never mid-word (piped: as is).
                errln!("{}", terminal::fit_stderr(&failure::error_text(&f.message)));
            }
            ExitCode::from(f.code)
        }
    }
}
