//! `ravenpost completions SHELL`: the script that registers ravenpost's completion in a
//! shell; and the completion itself, asked by that script as `COMPLETE=SHELL ravenpost --
//! WORDS…` (clap's dynamic completion): subcommands and options as clap knows them, game
//! ids of the archive the command would use (yours to move first) and variant names.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};

use clap_complete::engine::{ArgValueCompleter, CompletionCandidate, PathCompleter, ValueCompleter};
use clap_complete::env::{CompleteEnv, Shells};

use crate::cli::failure::{Failure, io};
use crate::cli::session;
use crate::usecases::{self as ops, GameChoice, Standing};

/// The variable a completion script sets to ask ravenpost for completions.
const COMPLETE_ENV: &str = "COMPLETE";

/// Print the script that registers ravenpost's completion in a shell.
///
/// The script asks ravenpost for each completion: subcommands, options, the game ids of
/// the archive the command would use (your games to move first) and variant names.
///
/// Load it when the shell starts (so that it always fits the ravenpost installed):
///   bash, in ~/.bashrc:  source <(ravenpost completions bash)
///   zsh, in ~/.zshrc:    source <(ravenpost completions zsh)
///   fish, in ~/.config/fish/config.fish:  ravenpost completions fish | source
/// `COMPLETE=bash ravenpost` prints the same script as `ravenpost completions bash`.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// `ravenpost completions SHELL`: the registration script for `ravenpost`, calling the
/// program as it was called (a path when run by its path, else `ravenpost`).
pub(crate) fn run(a: CompletionsArgs, out: &mut impl Write) -> Result<(), Failure> {
    let name = a.shell.to_string();
    let shells = Shells::builtins();
    let shell = shells
        .completer(&name)
        .ok_or_else(|| Failure::input(format!("completions: no dynamic completion for {name}")))?;
    let mut script = Vec::new();
    shell
        .write_registration(COMPLETE_ENV, "ravenpost", "ravenpost", &completer_path(), &mut script)
        .map_err(io)?;
    out.write_all(&script).map_err(io)
}

/// The program the script calls: this one by its path when it was run by a path (made
/// absolute), else by its name, found in PATH.
fn completer_path() -> String {
    let Some(arg0) = std::env::args_os().next().map(PathBuf::from) else { return "ravenpost".into() };
    if arg0.components().count() < 2 {
        return "ravenpost".into();
    }
    let full = match std::env::current_dir() {
        Ok(cwd) if arg0.is_relative() => cwd.join(arg0),
        _ => arg0,
    };
    full.to_string_lossy().into_owned()
}

/// Answers a shell's completion request (`COMPLETE=SHELL` set): prints the completions
/// of the words after `--` (or, with no words, the registration script) and gives the
/// exit code; `None` when no shell asks. A completion never fails loudly: an archive
/// that cannot be opened gives no game ids.
pub(crate) fn answer_a_shell() -> Option<ExitCode> {
    if std::env::var_os(COMPLETE_ENV).is_none_or(|v| v.is_empty() || v == "0") {
        return None;
    }
    let args: Vec<OsString> = std::env::args_os().collect();
    let words = args.iter().skip_while(|a| *a != "--").skip(1).cloned().collect();
    let source = Arc::new(Source { words, games: OnceLock::new(), variants: OnceLock::new() });
    let factory = move || with_completers(crate::cli::command(), &source);
    let cwd = std::env::current_dir().ok();
    match CompleteEnv::with_factory(factory)
        .var(COMPLETE_ENV)
        .bin("ravenpost")
        .try_complete(args, cwd.as_deref())
    {
        Ok(true) => Some(ExitCode::SUCCESS),
        Ok(false) => None,
        Err(e) => {
            let _ = e.print();
            Some(ExitCode::from(2))
        }
    }
}

/// What the completers read, once per completion: the archive of the line being
/// completed (its `--archive` and `--author`, else the defaults), asked only when a game
/// id or a variant name is completed.
struct Source {
    /// The words of the line (the program's name first).
    words: Vec<OsString>,
    games: OnceLock<Vec<GameChoice>>,
    variants: OnceLock<Vec<String>>,
}

impl Source {
    /// The value of the global option `--NAME` on the line (`--NAME V` or `--NAME=V`, or
    /// `--NAME`, `=`, `V` as bash splits words at `=`), `~/` read as the home directory.
    fn option(&self, name: &str) -> Option<String> {
        let long = format!("--{name}");
        let mut words = self.words.iter().map(|w| w.to_string_lossy()).peekable();
        let mut found = None;
        while let Some(w) = words.next() {
            if w == long {
                if words.peek().is_some_and(|v| v == "=") {
                    words.next();
                }
                found = words.next().map(|v| v.into_owned());
            } else if let Some(v) = w.strip_prefix(&format!("{long}=")) {
                found = Some(v.to_string());
            }
        }
        let home = std::env::var("HOME").ok();
        found.map(|v| match (v.strip_prefix("~/"), home) {
            (Some(rest), Some(h)) => format!("{h}/{rest}"),
            _ => v,
        })
    }

    /// The session of the line being completed (an `--author` that does not read, as
    /// a shell may split it, left out); `None` when it cannot be made (a settings file
    /// that does not read, say).
    fn session(&self) -> Option<ops::Session> {
        let archive = self.option("archive").map(PathBuf::from);
        session::from_env(archive.clone(), self.option("author"), None, false)
            .or_else(|_| session::from_env(archive, None, None, false))
            .ok()
    }

    /// The games whose id starts with `typed`, the word being completed (the same word
    /// for every completer of one completion).
    fn games(&self, typed: &str) -> &[GameChoice] {
        self.games.get_or_init(|| {
            self.session().and_then(|s| ops::game_choices(&s, typed).ok()).unwrap_or_default()
        })
    }

    fn variants(&self) -> &[String] {
        self.variants.get_or_init(|| ops::variant_names(self.session().as_ref()))
    }
}

/// What an argument takes, for its completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A game id (`files`: or a game file).
    Game { files: bool },
    /// A variant name.
    Variant,
    /// A variant name, a game id or a game file (`moves`).
    VariantOrGame,
}

/// The kind of the positional argument `arg` of the command `path` (its names from the
/// top, `ravenpost` left out), read from its value name: `GAME`, `GAME|FILE`,
/// `VARIANT|GAME`, a first value `VARIANT` (`VARIANT DEPTH`…), and the `NAME` of a
/// `variant` subcommand.
pub(crate) fn kind_of(path: &[String], arg: &clap::Arg) -> Option<Kind> {
    if !arg.is_positional() {
        return None;
    }
    let name = match arg.get_value_names().and_then(|v| v.first()) {
        Some(v) => v.to_string(),
        None => arg.get_id().as_str().to_ascii_uppercase(),
    };
    match name.as_str() {
        "GAME" => Some(Kind::Game { files: false }),
        "GAME|FILE" => Some(Kind::Game { files: true }),
        "VARIANT|GAME" => Some(Kind::VariantOrGame),
        n if n == "VARIANT" || n.starts_with("VARIANT ") => Some(Kind::Variant),
        "NAME" if path.first().is_some_and(|p| p == "variant") => Some(Kind::Variant),
        _ => None,
    }
}

/// `cmd` with a completer on each game and variant argument of every subcommand.
fn with_completers(cmd: clap::Command, source: &Arc<Source>) -> clap::Command {
    fn walk(mut cmd: clap::Command, path: &[String], source: &Arc<Source>) -> clap::Command {
        // `mut_arg` moves the argument last: every positional one is taken, in order, so
        // that they keep their order (their places on the line).
        let positionals: Vec<(clap::Id, Option<Kind>)> =
            cmd.get_positionals().map(|a| (a.get_id().clone(), kind_of(path, a))).collect();
        for (id, kind) in positionals {
            cmd = cmd.mut_arg(id, |a| match kind {
                Some(kind) => a.add(ArgValueCompleter::new(Completer { kind, source: source.clone() })),
                None => a,
            });
        }
        let names: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_string()).collect();
        for name in names {
            let mut sub = path.to_vec();
            sub.push(name.clone());
            cmd = cmd.mut_subcommand(name, |c| walk(c, &sub, source));
        }
        cmd
    }
    walk(cmd, &[], source)
}

/// The completer of one argument.
struct Completer {
    kind: Kind,
    source: Arc<Source>,
}

impl ValueCompleter for Completer {
    fn complete(&self, current: &OsStr) -> Vec<CompletionCandidate> {
        self.complete_at(0, current)
    }

    /// Only the first value of an argument of several (`perft VARIANT DEPTH`) is a variant.
    fn complete_at(&self, index: usize, current: &OsStr) -> Vec<CompletionCandidate> {
        if index > 0 {
            return Vec::new();
        }
        let typed = current.to_string_lossy();
        let mut out = Vec::new();
        if matches!(self.kind, Kind::Variant | Kind::VariantOrGame) {
            out.extend(variant_candidates(self.source.variants(), &typed));
        }
        if matches!(self.kind, Kind::Game { .. } | Kind::VariantOrGame) {
            out.extend(game_candidates(self.source.games(&typed), &typed));
        }
        // A game file: when the word looks like a path, or names no game or variant.
        let files = matches!(self.kind, Kind::Game { files: true } | Kind::VariantOrGame);
        let path_like = typed.contains('/') || typed.starts_with('.') || typed.starts_with('~');
        if files && (path_like || (out.is_empty() && !typed.is_empty())) {
            let mut paths = PathCompleter::any();
            if let Ok(cwd) = std::env::current_dir() {
                paths = paths.current_dir(cwd);
            }
            out.extend(paths.complete(current));
        }
        out
    }
}

/// The variant names that start with `typed`.
fn variant_candidates(names: &[String], typed: &str) -> Vec<CompletionCandidate> {
    names.iter().filter(|n| n.starts_with(typed)).map(|n| CompletionCandidate::new(n.as_str())).collect()
}

/// The game ids that start with `typed`, in the order given (yours to move first), each
/// with a description: `gygax, Ann v Bo, your move (ply 12)`.
pub(crate) fn game_candidates(games: &[GameChoice], typed: &str) -> Vec<CompletionCandidate> {
    games
        .iter()
        .filter(|g| g.id.starts_with(typed))
        .map(|g| {
            let state = match g.standing {
                Standing::YourMove => format!("your move (ply {})", g.ply),
                Standing::Waiting => format!("ply {}", g.ply),
                Standing::Finished => "finished".to_string(),
                Standing::Invalid => "invalid".to_string(),
            };
            let help = format!("{}, {} v {}, {state}", g.variant, g.white, g.black);
            CompletionCandidate::new(g.id.as_str()).help(Some(help.into()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command argument that names a game or a variant gets a completer, and no
    /// other: read from the real command line.
    #[test]
    fn game_and_variant_arguments_are_found() {
        let mut found = Vec::new();
        fn walk(cmd: &clap::Command, path: &[String], found: &mut Vec<String>) {
            for a in cmd.get_arguments() {
                if let Some(k) = kind_of(path, a) {
                    found.push(format!("{} {}: {k:?}", path.join(" "), a.get_id()));
                }
            }
            for c in cmd.get_subcommands() {
                let mut sub = path.to_vec();
                sub.push(c.get_name().to_string());
                walk(c, &sub, found);
            }
        }
        walk(&crate::cli::command(), &[], &mut found);
        let has = |cmd: &str, kind: &str| {
            found.iter().any(|f| f.starts_with(&format!("{cmd} ")) && f.ends_with(kind))
        };
        for cmd in [
            "move",
            "resign",
            "draw",
            "claim timeout",
            "leave",
            "log",
            "verify",
            "mail export",
            "mail send",
            "army commit",
            "army reveal",
            "conditional add",
            "conditional show",
            "conditional clear",
        ] {
            assert!(has(cmd, "Game { files: false }"), "{cmd}: {found:#?}");
        }
        for cmd in ["show", "replay"] {
            assert!(has(cmd, "Game { files: true }"), "{cmd}: {found:#?}");
        }
        assert!(has("moves", "VariantOrGame"), "{found:#?}");
        for cmd in ["new", "perft", "position", "variant show", "tournament new"] {
            assert!(has(cmd, "Variant"), "{cmd}: {found:#?}");
        }
        // Not a game: `mail import FILE`, `import FILE`, `tournament new NAME`.
        for cmd in ["mail import", "import", "status", "completions"] {
            assert!(!found.iter().any(|f| f.starts_with(&format!("{cmd} "))), "{cmd}: {found:#?}");
        }
        assert!(!found.iter().any(|f| f.starts_with("tournament new name")), "{found:#?}");
    }

    /// Regression: `mut_arg` moves an argument last, so `move GAME MOVE` completed game
    /// ids in the place of the move. Each positional argument keeps its place.
    #[test]
    fn game_ids_were_offered_in_the_place_of_the_move() {
        let source =
            Arc::new(Source { words: Vec::new(), games: OnceLock::new(), variants: OnceLock::new() });
        let mut cmd = with_completers(crate::cli::command(), &source);
        cmd.build();
        for (path, first, second) in [
            (&["move"][..], "game", "mv"),
            (&["conditional", "add"][..], "game", "movetext"),
            (&["draw"][..], "action", "game"),
        ] {
            let sub = path.iter().fold(&cmd, |c, name| c.find_subcommand(name).unwrap());
            let at = |i| sub.get_positionals().find(|a| a.get_index() == Some(i)).unwrap();
            assert_eq!((at(1).get_id().as_str(), at(2).get_id().as_str()), (first, second), "{path:?}");
            let game = if first == "game" { at(1) } else { at(2) };
            assert!(game.get::<ArgValueCompleter>().is_some(), "{path:?}");
            let other = if first == "game" { at(2) } else { at(1) };
            assert!(other.get::<ArgValueCompleter>().is_none(), "{path:?}");
        }
    }

    /// The `--archive` of the line is read in both spellings, the last one winning.
    #[test]
    fn the_archive_of_the_line_is_read() {
        let source = |words: &[&str]| Source {
            words: words.iter().map(OsString::from).collect(),
            games: OnceLock::new(),
            variants: OnceLock::new(),
        };
        assert_eq!(
            source(&["ravenpost", "show", "--archive", "/a", "x"]).option("archive").as_deref(),
            Some("/a")
        );
        assert_eq!(
            source(&["ravenpost", "--archive=/b", "show", ""]).option("archive").as_deref(),
            Some("/b")
        );
        assert_eq!(source(&["ravenpost", "show", "club"]).option("archive"), None);
        // bash splits `--archive=/c` at `=`.
        assert_eq!(
            source(&["ravenpost", "--archive", "=", "/c", "show", ""]).option("archive").as_deref(),
            Some("/c")
        );
        // An `--author` split by the shell: a piece that is no identity (the session is
        // then made without it).
        let split = source(&["ravenpost", "--author", "\"Ann", "<ann@example.org>\"", "show", ""]);
        assert_eq!(split.option("author").as_deref(), Some("\"Ann"));
    }
}
