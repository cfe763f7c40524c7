//! The `ravenpost` command line. Only this module prints or exits.
//!
//! Exit codes: 0 success; 1 the command ran but found problems (e.g. an invalid game);
//! 2 bad input (unknown variant, malformed position string, bad arguments); 3 the change
//! was committed (it is saved and counts) but the working copy could not be brought up
//! to date (the message says how; the next command tries again).

/// `eprintln!` that ignores a closed standard error (`ravenpost … 2>&1 | head` must not
/// panic when the reader has gone).
macro_rules! errln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};

mod club_cmds;
mod conditional_cmds;
mod files;
mod import_cmds;
mod mail_cmds;
mod progress;
mod replay;
mod terminal;
mod variant_cmds;

use std::path::PathBuf;

use crate::engine::{Position, Variant};
use crate::notation::position_string::parse_position;
use crate::usecases as ops;
use crate::variants;

/// Play, archive, replay and check correspondence games of Gygax Chess (Dragonchess),
/// Gygax's Fidchell and Fantasy Grand Chess.
#[derive(Debug, Parser)]
#[command(name = "ravenpost", version, about, long_about = None)]
pub struct Cli {
    /// The archive to use (default: $RAVENPOST_ARCHIVE, else the repository you are in if
    /// it is an archive, else the `archive` of your settings file ($RAVENPOST_CONFIG, else
    /// config.yaml in your config directory), else your per-user archive, which `new`
    /// makes on first use).
    #[arg(long, global = true, value_name = "DIR")]
    archive: Option<PathBuf>,
    /// Commit as this identity, "Name <email>" (default: the `identity` of your settings
    /// file, else the archive's ravenpost.yaml author, else git's user.name and
    /// user.email). Moves are authored under the player's name (with their email from the
    /// game's WhiteEmail/BlackEmail tags) and committed by this identity.
    #[arg(long, global = true, value_name = "NAME <EMAIL>")]
    author: Option<String>,
    /// Sign commits with this SSH key where the game requires signed moves: a private key
    /// file, or a public key file or line whose private half is in ssh-agent (default:
    /// the `signing-key` of your settings file, else git's user.signingKey).
    #[arg(long, global = true, value_name = "KEY")]
    signing_key: Option<String>,
    /// Remove the archive's lock file left by an older ravenpost (0.1.0) and go on: only
    /// when no ravenpost is running on the archive. (A lock of this version whose owner
    /// has died is taken over without it.)
    #[arg(long, global = true)]
    break_lock: bool,
    #[command(subcommand)]
    command: Command,
}

// One value per run, parsed from the command line: the size of its largest variant costs
// nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal move tree (perft), a check of the move generator.
    ///
    /// The last line printed is the node count. The last ply is counted in bulk.
    Perft {
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
        #[arg(long = "option", value_name = "K=V")]
        options: Vec<String>,
        /// Print JSON: variant, position, depth, node count (and with --divide each move's).
        #[arg(long)]
        json: bool,
    },
    /// List every legal move of a position, one a line, in long form; or of a game (a
    /// game id in the archive, or a game file) at its current position, in SAN.
    Moves {
        /// Variant: gygax (alias dragonchess), fidchell, fantasy-grand, grand; or a game
        /// id or game file.
        #[arg(required_unless_present = "variant_file", value_name = "VARIANT|GAME")]
        variant: Option<String>,
        /// Play the variant defined in this file (notation-spec/variant-files.md).
        #[arg(long, value_name = "FILE", conflicts_with = "variant")]
        variant_file: Option<PathBuf>,
        /// The position string (default: the start position).
        #[arg(long, value_name = "POS")]
        position: Option<String>,
        /// Game option K=V (repeatable).
        #[arg(long = "option", value_name = "K=V")]
        options: Vec<String>,
        /// A game's file: which game of it (from 1).
        #[arg(long, default_value_t = 1)]
        game: usize,
        /// Print JSON: the moves (SAN and long form), and for a game its ply, side to
        /// move, position and result.
        #[arg(long)]
        json: bool,
    },
    /// Variant definition files: check one, or print a built-in one.
    Variant {
        #[command(subcommand)]
        action: variant_cmds::VariantCmd,
    },
    /// The position after a list of moves, each checked: position string, diagram, side
    /// to move (or JSON).
    Position(variant_cmds::PositionArgs),
    /// Read a record in another program's piece letters or level numbering and write it
    /// in ravenpost's canonical form (notation-spec/piece-codes.md §6).
    Import(import_cmds::ImportArgs),
    /// Replay every game in the files (directories: every .pgn below them) and check
    /// tags, moves and results against the rules.
    ///
    /// Prints one diagnostic per problem and a summary; exits 0 only if every game is
    /// valid.
    Validate {
        /// Game files or directories (`-`: standard input).
        #[arg(required = true, value_name = "FILES|DIRS")]
        paths: Vec<PathBuf>,
        /// Print the report as JSON on standard output.
        #[arg(long)]
        json: bool,
        /// Colour the diagnostics: `auto` when standard error is a terminal and NO_COLOR
        /// is unset or empty.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
    /// Show a game's position as a text diagram (all levels for Gygax Chess), with the side
    /// to move, the last move and the result.
    Show {
        /// A game id in the archive, or a game file (the first game in it, or the one
        /// chosen with --game; `-`: standard input).
        #[arg(value_name = "GAME|FILE")]
        file: PathBuf,
        /// Show the position after this many plies (default: the end).
        #[arg(long)]
        ply: Option<usize>,
        /// Which game of the file, counting from 1.
        #[arg(long, default_value_t = 1)]
        game: usize,
        /// Print as JSON (position string, side to move, last move, result).
        #[arg(long)]
        json: bool,
        /// Colour the diagram: `auto` when standard output is a terminal and NO_COLOR is
        /// unset or empty.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
        /// Where Gygax Chess's three levels go: `auto` puts them side by side when that
        /// fits the terminal (its width, else $COLUMNS), else one above the other.
        #[arg(long, value_enum, default_value_t = terminal::LayoutArg::Auto)]
        layout: terminal::LayoutArg,
        /// Write an SVG picture of the position to this file instead of printing it (`-`:
        /// standard output).
        #[arg(long, value_name = "OUT.svg", conflicts_with = "json")]
        svg: Option<PathBuf>,
        /// Write a PNG picture of the position to this file instead of printing it (the
        /// SVG rasterised; text needs a system font, else only the board is drawn; `-`:
        /// standard output).
        #[arg(long, value_name = "OUT.png", conflicts_with = "json")]
        png: Option<PathBuf>,
        /// Turn the board half a turn, in the diagram and the pictures: rank 1 on top,
        /// files from right to left (the second player's view).
        #[arg(long)]
        flip: bool,
        /// Draw the PNG at this many pixels per SVG unit, from 0.25 to 8 (Gygax Chess at 1
        /// is 996 pixels wide; 2 doubles it).
        #[arg(long, default_value_t = 1.0, requires = "png")]
        scale: f32,
    },
    /// Step through a game in the terminal: the board, the side to move, the result and
    /// the move list with comments around the current ply.
    ///
    /// Interactive on a terminal; for scripts, `--ply N` prints one ply's screen, `--all`
    /// every ply's, `--json` the same as JSON.
    #[command(after_help = replay::KEYS_HELP)]
    Replay {
        /// A game id in the archive, or a game file (the first game in it, or the one
        /// chosen with --game; `-`: standard input).
        #[arg(value_name = "GAME|FILE")]
        file: PathBuf,
        /// Print the screen after this many plies (0: the start position) and exit.
        #[arg(long, value_name = "N")]
        ply: Option<usize>,
        /// Print the screen of every ply in order (the start position first) and exit.
        #[arg(long, conflicts_with = "ply")]
        all: bool,
        /// Print as JSON (with --ply: that ply; else every ply) and exit.
        #[arg(long)]
        json: bool,
        /// Which game of the file, counting from 1.
        #[arg(long, default_value_t = 1)]
        game: usize,
        /// Start with the board flipped (ranks top to bottom, files right to left).
        #[arg(long)]
        flip: bool,
        /// Colour the diagram: `auto` when standard output is a terminal and NO_COLOR is
        /// unset or empty.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
        /// Where Gygax Chess's three levels go: `auto` puts them side by side when that
        /// fits the terminal (its width, else $COLUMNS), else one above the other.
        #[arg(long, value_enum, default_value_t = terminal::LayoutArg::Auto)]
        layout: terminal::LayoutArg,
    },
    /// Create an archive: a git repository for game files (an empty or new directory, an
    /// existing repository, or one with no commit yet).
    Init {
        /// Where (default: the current directory).
        dir: Option<PathBuf>,
        /// Board diagrams in game files: `every-move` writes the plain diagram of the new
        /// position after each move as `;|` comment lines (ravenpost.yaml `diagrams:`).
        #[arg(long, value_enum, default_value_t = DiagramsArg::None)]
        diagrams: DiagramsArg,
        /// An account on the club's git server that may push the archive's set-up (this
        /// first commit, new games, army choices) when the server names the pusher
        /// (repeatable; ravenpost.yaml `admins`).
        #[arg(long = "admin", value_name = "ACCOUNT")]
        admins: Vec<String>,
        /// A player's account on the club's git server, for games without
        /// WhiteAccount/BlackAccount tags (repeatable; ravenpost.yaml `accounts`).
        #[arg(long = "account", value_name = "NAME=ACCOUNT")]
        accounts: Vec<String>,
    },
    /// Start a game: write its file with its tags and commit it.
    New {
        /// Variant: gygax, fidchell, fantasy-grand, grand, or a definition of the archive
        /// (variants/<name>.md); omitted with --variant-file.
        #[arg(required_unless_present = "variant_file")]
        variant: Option<String>,
        /// Play the variant defined in this file: committed to the archive as
        /// variants/<slug>.md (unless it is there already), and pinned by the game's
        /// VariantFile and VariantHash tags.
        #[arg(long, value_name = "FILE", conflicts_with = "variant")]
        variant_file: Option<PathBuf>,
        /// The first player's name (Gold in Gygax Chess).
        #[arg(long)]
        white: String,
        /// The second player's name (Scarlet in Gygax Chess).
        #[arg(long)]
        black: String,
        /// Fantasy Grand Chess: the first player's army.
        #[arg(long, value_name = "ARMY")]
        army_white: Option<String>,
        /// Fantasy Grand Chess: the second player's army.
        #[arg(long, value_name = "ARMY")]
        army_black: Option<String>,
        /// Game option K=V (repeatable), e.g. introduction=default.
        #[arg(long = "option", value_name = "K=V")]
        options: Vec<String>,
        /// The game's id (default: date-white-black).
        #[arg(long)]
        id: Option<String>,
        /// The Event tag.
        #[arg(long)]
        event: Option<String>,
        /// The TimeControl tag, e.g. 1/3d (three days a move).
        #[arg(long, value_name = "TC")]
        time_control: Option<String>,
        /// Require the first player's moves and actions to be signed by this SSH public key
        /// (a key line "ssh-ed25519 AAAA…", or a .pub file); kept as the WhiteSigningKey tag.
        #[arg(long, value_name = "KEY|FILE")]
        white_key: Option<String>,
        /// The same for the second player (BlackSigningKey tag).
        #[arg(long, value_name = "KEY|FILE")]
        black_key: Option<String>,
        /// Fantasy Grand Chess: each player chooses an army in secret (`ravenpost army
        /// commit`, then `ravenpost army reveal`); the game file is made when both revealed.
        #[arg(long, conflicts_with_all = ["army_white", "army_black"])]
        secret_armies: bool,
        /// The first player's email address (the WhiteEmail tag; `mail send` writes to it).
        #[arg(long, value_name = "ADDRESS")]
        white_email: Option<String>,
        /// The second player's email address (the BlackEmail tag).
        #[arg(long, value_name = "ADDRESS")]
        black_email: Option<String>,
        /// The first player's account(s) on the club's git server (comma-separated; the
        /// WhiteAccount tag): when the server names the pusher, only these may push their steps.
        #[arg(long, value_name = "ACCOUNT")]
        white_account: Option<String>,
        /// The same for the second player (the BlackAccount tag).
        #[arg(long, value_name = "ACCOUNT")]
        black_account: Option<String>,
    },
    /// Fantasy Grand Chess secret army choice: commit to an army unseen, then reveal it.
    Army {
        #[command(subcommand)]
        action: ArmyCmd,
    },
    /// Play a move: checked by the rules, then appended in canonical form and committed
    /// (author: the player).
    Move {
        /// The game id.
        game: String,
        /// The move, e.g. 2e3, Rx3a7, R:2f4, W2e2-2e3.
        #[arg(value_name = "MOVE", allow_hyphen_values = true)]
        mv: String,
        /// Who plays it; refused unless that player is to move (default: you, if your
        /// identity's name or email is a player's, else the player to move).
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
        /// The ply you mean to play (1 = the first move); refused if the game is elsewhere.
        #[arg(long, value_name = "N")]
        expect_ply: Option<usize>,
    },
    /// Resign a game.
    Resign {
        /// The game id.
        game: String,
        /// Who resigns, at any time (default: you, if your identity's name or email is a
        /// player's, else the player to move).
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
    },
    /// Offer, accept, decline or claim a draw (a claim is checked: threefold repetition or
    /// 100 plies without progress).
    Draw {
        /// offer, accept, decline or claim.
        #[arg(value_enum)]
        action: DrawArg,
        /// The game id.
        game: String,
        /// Who acts (default: you, if your identity's name or email is a player's, else the
        /// player to move).
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
    },
    /// Claim a win because the player to move is over time (checked from the recorded
    /// times of the moves and the game's TimeControl).
    Claim {
        /// What is claimed.
        #[command(subcommand)]
        what: ClaimWhat,
    },
    /// Book leave: the player's clock stops for these days.
    Leave {
        /// The game id.
        game: String,
        /// Number of days.
        #[arg(long)]
        days: u32,
        /// First day (YYYY-MM-DD, UTC; default: now).
        #[arg(long, value_name = "DATE")]
        from: Option<String>,
        /// Whose leave (a player of the game).
        #[arg(long = "as", value_name = "NAME")]
        who: String,
    },
    /// Every game in the archive: variant, players, ply, whose turn, result, deadline.
    Status {
        /// Print as JSON.
        #[arg(long)]
        json: bool,
        /// Only the games waiting for this player's move (default: your identity's name),
        /// the most urgent deadline first.
        #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "")]
        to_move: Option<String>,
    },
    /// Tournaments: create a (double) round robin of games in one commit.
    Tournament {
        #[command(subcommand)]
        action: club_cmds::TournamentCmd,
    },
    /// A tournament's crosstable: each game's result, points, games left,
    /// Sonneborn-Berger and place (as ICCF prints it).
    Standings(club_cmds::StandingsArgs),
    /// Elo ratings from the archive's finished games, overall and per variant.
    Ratings(club_cmds::RatingsArgs),
    /// One line per change of a game, from the git history: ply, move, author, time; without
    /// a game, every game's changes in time order.
    Log {
        /// The game id (default: every game of the archive).
        game: Option<String>,
        /// Print as JSON (`commit`: 12 hex digits; `hash`: the full 40; with no game, each
        /// entry names its `game`).
        #[arg(long)]
        json: bool,
    },
    /// Replay the git history of each game (or one) and check that every commit creates
    /// the game, adds exactly one legal ply by the player to move, or records one action
    /// (resignation, draw, win on time checked against the clock, leave) by the player
    /// entitled to it, signed where the game lists the player's key; secret army choices
    /// are checked step by step. Edits made with plain git are caught.
    Verify {
        /// The game id (default: every game).
        game: Option<String>,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Server-side enforcement: install or run the git pre-receive hook that checks every
    /// pushed commit with the rules.
    Hook {
        #[command(subcommand)]
        action: HookCmd,
    },
    /// Fetch the remote's branch, check its new commits by the rules, then fast-forward
    /// (when behind) or push (when ahead); when both moved in different games, replay
    /// this archive's commits on top of the remote's (judged again) and push. Refuses,
    /// changing nothing, a remote that rewrote history it had accepted (naming the
    /// vanished moves), illegal commits, and a move in a game the remote also moved in.
    Sync {
        /// The remote.
        #[arg(default_value = "origin")]
        remote: String,
        /// Print as JSON: what was fetched, replayed and pushed (or why nothing was).
        #[arg(long)]
        json: bool,
        /// Keep syncing every INTERVAL (30s, 5m, 1h; default 5m), playing prepared
        /// replies as the opponent's moves arrive, one line per round, until Ctrl-C.
        #[arg(long, value_name = "INTERVAL", num_args = 0..=1, default_missing_value = "5m", conflicts_with = "json")]
        watch: Option<String>,
    },
    /// Conditional moves: prepared replies to the opponent's next moves, as a tree kept
    /// in this clone only and played when the opponent's move arrives (by sync, mail
    /// import or a move in this archive).
    Conditional {
        #[command(subcommand)]
        action: conditional_cmds::ConditionalCmd,
    },
    /// Play by email: write a game's message, send it, or import a received one.
    #[command(after_long_help = MAIL_SETTINGS_HELP)]
    Mail {
        #[command(subcommand)]
        action: MailCmd,
    },
    /// Write the archive as a static web site into OUT_DIR: an index of the games and one
    /// page per game to step through in a browser (works opened from disk). Re-running
    /// rewrites only what changed.
    Site {
        /// The output directory (new, empty, or made by `ravenpost site`).
        #[arg(value_name = "OUT_DIR")]
        out: PathBuf,
        /// Print what was done as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a shell completion script: `ravenpost completions bash > ~/.local/share/bash-completion/completions/ravenpost`
    /// (zsh: a file `_ravenpost` in a folder of $fpath; fish: ~/.config/fish/completions/ravenpost.fish).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff; `man -l` shows it), or with --out write one page per
    /// command into a folder (ravenpost.1, ravenpost-move.1, …).
    Man {
        /// Write the pages into this folder (made if missing) instead.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Rewrite game files in canonical form (notation-spec/movetext.md §4).
    ///
    /// A file with any problem is left as it is, and its problems are reported.
    Fmt {
        /// Game files or directories (`-`: standard input, written canonical to standard
        /// output).
        #[arg(required = true, value_name = "FILES|DIRS")]
        paths: Vec<PathBuf>,
        /// Change nothing; list the files that are not canonical and exit 1 if any.
        #[arg(long)]
        check: bool,
        /// Colour the diagnostics: `auto` when standard error is a terminal and NO_COLOR
        /// is unset or empty.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
}

/// `ravenpost army` actions.
#[derive(Debug, Subcommand)]
enum ArmyCmd {
    /// Commit to an army without showing it: its salted hash is committed; the army and
    /// salt stay in this clone (.git/ravenpost/armies/) until the reveal.
    Commit {
        /// The game id (made with `ravenpost new fantasy-grand --secret-armies`).
        game: String,
        /// humans, elves, dwarves, evil-horde, giants, or druid (with druid=allowed).
        army: String,
        /// Who commits (default: your identity, if a player).
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Reveal the army you committed to, once both players have committed; when both have
    /// revealed, the game file is created and the game starts.
    Reveal {
        /// The game id.
        game: String,
        /// Who reveals (default: your identity, if a player).
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
        /// The army, when this clone did not make the commitment (with --salt).
        #[arg(long, requires = "salt")]
        army: Option<String>,
        /// The salt saved at commit time in .git/ravenpost/armies/<GAME>.<white|black>.yaml
        /// of the committing clone (with --army).
        #[arg(long, requires = "army")]
        salt: Option<String>,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `hook install --gitolite`: which of gitolite's hook folders.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum GitoliteArg {
    /// gitolite's common hooks, linked into every repository (gitolite-admin is skipped).
    Common,
    /// A repo-specific hook named `ravenpost` (gitolite's repo-specific-hooks feature).
    RepoSpecific,
}

/// `ravenpost hook` actions.
#[derive(Debug, Subcommand)]
enum HookCmd {
    /// Write hooks/pre-receive into a (bare) repository: it runs `ravenpost hook check` on
    /// every pushed ref and rejects the push with the engine's reason.
    Install {
        /// The repository (default: the current directory).
        #[arg(long, value_name = "DIR", conflicts_with_all = ["gitolite", "print"])]
        repo: Option<PathBuf>,
        /// Install into gitolite (run as the gitolite user): `common` writes gitolite's
        /// common pre-receive hook and links it into every repository; `repo-specific`
        /// writes $LOCAL_CODE/hooks/repo-specific/ravenpost, for `option hook.pre-receive =
        /// ravenpost` in gitolite.conf.
        #[arg(long, value_enum, value_name = "HOW", conflicts_with = "print")]
        gitolite: Option<GitoliteArg>,
        /// Write nothing; print the hook script, for a server's own custom hook folder
        /// (GitLab: custom_hooks/pre-receive; Gitea, Forgejo: hooks/pre-receive.d/).
        #[arg(long)]
        print: bool,
        /// The environment variable in which the git server names the pushing account,
        /// when it is none of GL_USER, REMOTE_USER, GL_USERNAME, GITEA_PUSHER_NAME
        /// (written into the hook as RAVENPOST_PUSHER_VAR).
        #[arg(long, value_name = "VAR")]
        pusher_var: Option<String>,
        /// Also write hooks/post-receive: after every pushed move it mails the player to
        /// move (the game's email tags; the archive's mail settings); failures are logged
        /// in ravenpost/notify.log of the git directory and never undo a push.
        #[arg(long)]
        notify: bool,
        /// Also write hooks/post-receive to regenerate the web site in DIR (`ravenpost
        /// site DIR`) after each accepted push.
        #[arg(long, value_name = "DIR")]
        site: Option<PathBuf>,
    },
    /// Mail the player to move for each move in one ref update (the post-receive hook
    /// runs it); always exits 0 once the repository reads.
    Notify {
        /// The old commit (all zeros: a new branch).
        old: String,
        /// The new commit.
        new: String,
        /// The ref, e.g. refs/heads/main.
        #[arg(value_name = "REF")]
        refname: String,
    },
    /// Check one ref update in the repository at the current directory (or $GIT_DIR):
    /// every new first-parent commit must be one legal step of one game by its author,
    /// pushed by that player's account when the server names the pusher (GL_USER,
    /// REMOTE_USER, GL_USERNAME, GITEA_PUSHER_NAME, or the variable RAVENPOST_PUSHER_VAR
    /// names).
    Check {
        /// Say who the hook takes the pusher to be (from which variable), or that the
        /// server names nobody and steps are judged by author name; then check the ref
        /// update, if one is given.
        #[arg(long)]
        explain: bool,
        /// The old commit (all zeros: a new branch).
        #[arg(required_unless_present = "explain")]
        old: Option<String>,
        /// The new commit.
        #[arg(required_unless_present = "explain")]
        new: Option<String>,
        /// The ref, e.g. refs/heads/main.
        #[arg(value_name = "REF", required_unless_present = "explain")]
        refname: Option<String>,
    },
}

/// The end of `ravenpost mail --help`: where your own settings for mail live and their
/// keys (README "Your settings and the archive's", "Playing by email").
const MAIL_SETTINGS_HELP: &str = "\
Your settings (personal, never committed) are in ravenpost/config.yaml in your config
directory: ~/.config/ravenpost/config.yaml on Linux ($XDG_CONFIG_HOME/ravenpost/ if set),
~/Library/Application Support/ravenpost/config.yaml on macOS, or the file that
$RAVENPOST_CONFIG names. The keys mail uses:

  identity:                 who you are: the sender, and the player an import is for
    name: Ann Example
    email: ann@example.org
  archive: ~/chess          the archive used outside any archive (a mail client's pipe)
  mail:                     how `mail send` delivers (the whole section, over the
    smtp:                   archive's ravenpost.yaml `mail:`)
      host: smtp.example.org
      port: 587             default 587 (starttls), 465 (tls), 25 (none)
      security: starttls    starttls (required, not just tried), tls or none
      user: ann             the password comes from $RAVENPOST_SMTP_PASSWORD,
      password-env: VAR     or from the variable named here
      ca-file: club-ca.pem  extra CA certificates (PEM) to trust
    sendmail: /usr/sbin/sendmail    instead of smtp: a sendmail-compatible command

Flags win over these: --author, --archive, --smtp, --security, --user, --ca-file,
--sendmail. Passwords are never stored in a file.";

/// `ravenpost mail` actions (issue 7, item 4; README "Playing by email").
#[derive(Debug, Subcommand)]
enum MailCmd {
    /// Write the game's message to the opponent (RFC 5322 .eml): the last move in the
    /// subject, a diagram in the body, the game file attached, threading headers.
    ///
    /// As for `mail send`, the step must be yours: when the last step is the opponent's,
    /// nothing is written and the exit code is 1 (play your move first). `--as NAME`
    /// writes NAME's message whatever the last step (a copy of the opponent's message for
    /// a third party, or a shared archive).
    Export {
        /// The game id.
        game: String,
        /// Write to this file (default: standard output).
        #[arg(short, long, value_name = "FILE.eml")]
        output: Option<PathBuf>,
        #[command(flatten)]
        who: MailWho,
    },
    /// Build the same message and deliver it by SMTP or a sendmail command (flags, else
    /// ravenpost.yaml's `mail` section).
    ///
    /// Only the player whose step is the game's last may send (a move, a draw offer, a
    /// decline, a resignation): when the last step is the opponent's, nothing is sent and
    /// the exit code is 1 (play your move first with `ravenpost move GAME MOVE`). Exit
    /// code 2: bad input (an unknown game, no address, no way to send).
    Send {
        /// The game id.
        game: String,
        #[command(flatten)]
        who: MailWho,
        /// The SMTP server, HOST or HOST:PORT.
        #[arg(long, value_name = "HOST[:PORT]")]
        smtp: Option<String>,
        /// How the SMTP connection is protected (default starttls).
        #[arg(long, value_enum)]
        security: Option<SecurityArg>,
        /// SMTP user name; the password comes from $RAVENPOST_SMTP_PASSWORD.
        #[arg(long)]
        user: Option<String>,
        /// Extra CA certificates (PEM) to trust, for a server with its own CA.
        #[arg(long, value_name = "PEM")]
        ca_file: Option<PathBuf>,
        /// Deliver through a sendmail-compatible command instead (default: sendmail).
        #[arg(long, value_name = "CMD", num_args = 0..=1, default_missing_value = "sendmail", conflicts_with = "smtp")]
        sendmail: Option<String>,
    },
    /// Read received messages (.eml files, mbox files, or directories such as a Maildir),
    /// check that each game extends ours by the opponent's legal moves, and commit them.
    ///
    /// A message must come from the player whose steps it adds: its one From address (and
    /// its Sender, if any) is that player's WhiteEmail/BlackEmail address in the game
    /// (`--accept-sender` takes it all the same). A message without a Message-ID, with two
    /// different copies of the game, naming another game in a header or the subject, or
    /// over the archive's limits (ravenpost.yaml `limits:`) is refused. Nothing of a
    /// refused message is committed (exit code 1).
    Import {
        /// Message files, mbox files or directories (`-`: a message or mbox on standard
        /// input, as a mail client pipes it).
        #[arg(required = true, value_name = "FILE.eml|MBOX|DIR")]
        paths: Vec<PathBuf>,
        /// Who you are (default: the archive's identity).
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
        /// Take a message whose From address is not that of the player whose steps it
        /// adds (or whose game lists no address for that player); each such commit says
        /// who sent it. Without it, such a message is refused.
        #[arg(long)]
        accept_sender: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Sender and recipient of a game message.
#[derive(Debug, clap::Args)]
struct MailWho {
    /// The sending player (default: you, if you play the game, else who moved last).
    #[arg(long = "as", value_name = "NAME")]
    who: Option<String>,
    /// The recipient, `ADDRESS` or `Name <ADDRESS>` (default: the opponent's
    /// WhiteEmail/BlackEmail tag).
    #[arg(long, value_name = "ADDRESS")]
    to: Option<String>,
}

/// SMTP connection security.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum SecurityArg {
    /// STARTTLS, required (port 587).
    Starttls,
    /// TLS from the start (port 465).
    Tls,
    /// No encryption (port 25; a local relay only).
    None,
}

/// What `claim` can claim.
#[derive(Debug, Subcommand)]
enum ClaimWhat {
    /// The opponent has not moved by their deadline: the game is won on time.
    Timeout {
        /// The game id.
        game: String,
        /// Who claims (the player waiting for the move).
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
    },
}

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ColorChoice {
    /// When standard output is a terminal and NO_COLOR is unset or empty.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// `init --diagrams`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum DiagramsArg {
    /// No diagrams.
    None,
    /// The diagram of the new position after every move.
    EveryMove,
}

/// The draw actions.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum DrawArg {
    /// Offer a draw with your next move.
    Offer,
    /// Accept the opponent's offer.
    Accept,
    /// Decline the opponent's offer.
    Decline,
    /// Claim a draw by threefold repetition or 100 plies without progress.
    Claim,
}

/// A failure to report: message and exit code.
pub(crate) struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    fn input(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), code: 2 }
    }
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

/// The git directory `hook install` writes into (`--repo`, else the current directory's).
fn hook_git_dir(repo: Option<PathBuf>) -> Result<PathBuf, Failure> {
    let dir = match repo {
        Some(d) => d,
        None => std::env::current_dir().map_err(|e| Failure::input(format!("current directory: {e}")))?,
    };
    Ok(crate::archive::Archive::open_for_hook(&dir)?.git_dir().to_path_buf())
}

/// `hook install --site DIR`: the post-receive line that regenerates the site.
fn install_site_hook(repo: Option<PathBuf>, site: &std::path::Path) -> Result<String, Failure> {
    let dir = match repo {
        Some(d) => d,
        None => std::env::current_dir().map_err(|e| Failure::input(format!("current directory: {e}")))?,
    };
    let a = crate::archive::Archive::open_for_hook(&dir)?;
    let exe = std::env::current_exe().map_err(|e| Failure::input(format!("this executable's path: {e}")))?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let file = crate::site::install_site_hook(a.git_dir(), &exe, site)
        .map_err(|e| Failure { message: e.to_string(), code: 1 })?;
    Ok(format!("Installed {} (regenerates the site in {})", file.display(), site.display()))
}

fn parse_options(raw: &[String]) -> Result<Vec<(String, String)>, Failure> {
    let mut out: Vec<(String, String)> = Vec::new();
    for o in raw {
        let (k, v) = o
            .split_once('=')
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .ok_or_else(|| Failure::input(format!("game option `{o}`: expected K=V")))?;
        if out.iter().any(|(n, _)| *n == k) {
            return Err(Failure::input(format!("game option `{k}` given twice")));
        }
        out.push((k, v));
    }
    Ok(out)
}

fn load(variant: &str, options: &[String], position: Option<&str>) -> Result<Arc<Variant>, Failure> {
    let mut options = parse_options(options)?;
    if let Some(p) = position {
        // Fantasy Grand Chess position strings may name the armies.
        options = variants::options_for_position(variant, &options, p);
    }
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
    // The user's own settings: defaults below the command line's (archive::settings).
    let settings =
        crate::archive::settings::UserSettings::load().map_err(|e| Failure::input(e.to_string()))?;
    let author: Option<crate::archive::Identity> = match &cli.author {
        None => settings.identity.clone(),
        Some(a) => Some(a.parse().map_err(|e| Failure::input(format!("--author: {e}")))?),
    };
    ops::set_signing_key(cli.signing_key.clone().or_else(|| settings.signing_key.clone()));
    ops::set_user_settings(settings);
    ops::set_break_lock(cli.break_lock);
    match cli.command {
        Command::Perft { args, variant_file, position: pos, divide, options, json } => {
            variant_cmds::perft(&args, variant_file.as_deref(), pos.as_deref(), divide, &options, json, out)?;
        }
        Command::Moves { variant, variant_file, position: pos, options, game, json } => {
            match variant.as_deref() {
                // Not a variant name: a game, at its current position.
                Some(name)
                    if variant_file.is_none()
                        && pos.is_none()
                        && options.is_empty()
                        && variants::by_name(name, &[]).is_err() =>
                {
                    let (g, broken) = resolve_game(cli.archive.as_deref(), std::path::Path::new(name), game)?;
                    if let Some(b) = broken {
                        return Err(Failure {
                            message: format!(
                                "the record breaks at ply {}: it has no current position\n{}",
                                b.ply,
                                b.lines().join("\n")
                            ),
                            code: 1,
                        });
                    }
                    game_moves(&g, json, out)?;
                }
                _ => variant_cmds::moves(
                    variant.as_deref(),
                    variant_file.as_deref(),
                    pos.as_deref(),
                    &options,
                    json,
                    out,
                )?,
            }
        }
        Command::Variant { action } => variant_cmds::variant(action, out)?,
        Command::Position(args) => variant_cmds::position_cmd(args, out)?,
        Command::Import(args) => import_cmds::import(args, out)?,
        Command::Validate { paths, json, color } => {
            let found = files::collect(&paths).map_err(Failure::input)?;
            warn_skipped(&found);
            let list = found.files;
            // A bar only for many files (one long file is over before a bar would help).
            let mut bar = progress::Bar::new(json || list.len() < 20, "validating");
            let mut report =
                files::validate(&list, &mut |done, total| bar.set(done, total)).map_err(Failure::input)?;
            report.skipped = found.skipped;
            bar.finish();
            if json {
                let text = serde_json::to_string_pretty(&report).expect("report serialises");
                writeln!(out, "{text}").map_err(io)?;
            } else {
                let color = color.stderr();
                for p in &report.problems {
                    errln!("{}", files::render(p, color));
                }
                writeln!(
                    out,
                    "{} file{}, {} game{}: {} valid, {} problem{}",
                    report.files,
                    plural(report.files),
                    report.games,
                    plural(report.games),
                    report.valid,
                    report.problems.len(),
                    plural(report.problems.len())
                )
                .map_err(io)?;
            }
            if !report.problems.is_empty() {
                return Err(Failure { message: String::new(), code: 1 });
            }
        }
        Command::Show { file, ply, game, json, color, layout, svg, png, flip, scale } => {
            let (g, broken) = resolve_game(cli.archive.as_deref(), &file, game)?;
            let n = ply.unwrap_or(g.moves.len());
            if let Some(b) = broken.as_ref().filter(|b| n >= b.ply) {
                return Err(b.refuse(n));
            }
            if n > g.moves.len() {
                return Err(Failure::input(format!("ply {n}: the game has {} plies", g.moves.len())));
            }
            let pos = g.position_at(n);
            let before = if n > 0 { Some(g.position_at(n - 1)) } else { None };
            let last = if n > 0 { Some(g.moves[n - 1]) } else { None };
            let last_token = match (&before, &last) {
                (Some(b), Some(m)) => Some(crate::notation::san::write_move(&g.variant, b, m)),
                _ => None,
            };
            let result = if n == g.moves.len() {
                g.text.result.as_ref().map(|r| r.0.clone()).unwrap_or_else(|| "*".into())
            } else {
                "*".into()
            };
            if json {
                let mut v = serde_json::json!({
                    "variant": g.variant.def().slug,
                    "ply": n,
                    "position": crate::notation::position_string::write_position(&g.variant, &pos),
                    "side_to_move": g.variant.def().side_name(pos.side_to_move()),
                    "last_move": last_token,
                    "result": result,
                });
                if let Some(b) = &broken {
                    v["broken"] = b.json();
                }
                writeln!(out, "{}", serde_json::to_string_pretty(&v).expect("json")).map_err(io)?;
            } else if svg.is_some() || png.is_some() {
                if !(crate::render::MIN_SCALE..=crate::render::MAX_SCALE).contains(&scale) {
                    let e = crate::render::RenderError::Scale { scale };
                    return Err(Failure::input(format!("--scale: {e}; nothing was written")));
                }
                let style =
                    crate::notation::svg::PictureStyle { flip, caption: crate::record::caption(&g, n) };
                if let Some(path) = svg {
                    let picture = crate::notation::svg::svg_styled(&g.variant, &pos, last.as_ref(), &style);
                    if path.as_os_str() == "-" {
                        out.write_all(picture.as_bytes()).map_err(io)?;
                    } else {
                        files::write_atomically(&path, &picture)
                            .map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
                        writeln!(out, "Wrote {} (ply {n})", path.display()).map_err(io)?;
                    }
                }
                if let Some(path) = png {
                    let fonts = crate::render::Fonts::System;
                    let picture =
                        crate::render::png_styled(&g.variant, &pos, last.as_ref(), &style, fonts, scale)
                            .map_err(|e| Failure { message: e.to_string(), code: 1 })?;
                    if path.as_os_str() == "-" {
                        out.write_all(&picture).map_err(io)?;
                    } else {
                        files::write_atomically(&path, &picture)
                            .map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
                        writeln!(out, "Wrote {} (ply {n})", path.display()).map_err(io)?;
                    }
                }
            } else {
                let style = crate::notation::diagram::DiagramStyle {
                    flip,
                    color: color.colors(std::io::IsTerminal::is_terminal(&std::io::stdout())),
                };
                if let Some(note) = terminal::too_wide_note(&g.variant, layout, terminal::columns()) {
                    errln!("{note}");
                }
                let layout = terminal::layout(&g.variant, layout);
                write!(
                    out,
                    "{}",
                    crate::notation::diagram::diagram_laid_out(
                        &g.variant,
                        &pos,
                        last.as_ref(),
                        style,
                        layout
                    )
                )
                .map_err(io)?;
                writeln!(out, "{}", crate::notation::diagram::side_line(&g.variant, &pos)).map_err(io)?;
                if let Some(t) = last_token {
                    writeln!(out, "Last move: {t} (ply {n})").map_err(io)?;
                }
                writeln!(out, "Result: {result}").map_err(io)?;
                for l in broken.iter().flat_map(Break::lines) {
                    writeln!(out, "{l}").map_err(io)?;
                }
            }
        }
        Command::Replay { file, ply, all, json, game, flip, color, layout } => {
            let (g, broken) = resolve_game(cli.archive.as_deref(), &file, game)?;
            if let (Some(b), Some(n)) = (&broken, ply)
                && n >= b.ply
            {
                return Err(b.refuse(n));
            }
            let mut r = replay::Replay::new(g, broken.as_ref().map(|b| (b.lines(), b.json())));
            r.set_layout(layout);
            if let Some(n) = ply {
                r.check(n)?;
            }
            let color = color.colors(std::io::IsTerminal::is_terminal(&std::io::stdout()));
            let style = crate::notation::diagram::DiagramStyle { color, flip };
            if json {
                let v = match ply {
                    Some(n) => r.json(n),
                    None => serde_json::Value::Array((0..=r.plies()).map(|p| r.json(p)).collect()),
                };
                writeln!(out, "{}", serde_json::to_string_pretty(&v).expect("json")).map_err(io)?;
            } else if let Some(n) = ply {
                replay::print(&r, &[n], style, true, out).map_err(io)?;
            } else if all {
                let plies: Vec<usize> = (0..=r.plies()).collect();
                replay::print(&r, &plies, style, false, out).map_err(io)?;
            } else {
                replay::interactive(&r, 0, color, flip)?;
            }
        }
        Command::Init { dir, diagrams, admins, accounts } => {
            let diagrams = match diagrams {
                DiagramsArg::None => crate::archive::Diagrams::None,
                DiagramsArg::EveryMove => crate::archive::Diagrams::EveryMove,
            };
            let mut club = ops::ClubSetup { admins, accounts: Vec::new() };
            for a in &accounts {
                let Some((name, account)) = a.split_once('=') else {
                    return Err(Failure::input(format!(
                        "--account `{a}`: expected NAME=ACCOUNT, e.g. --account \"Ann Example=ann\""
                    )));
                };
                club.accounts.push((name.trim().to_string(), account.trim().to_string()));
            }
            let msg = ops::init_club(dir, diagrams, club)?;
            writeln!(out, "{msg}").map_err(io)?;
        }
        Command::New {
            variant,
            variant_file,
            white,
            black,
            army_white,
            army_black,
            options,
            id,
            event,
            time_control,
            white_key,
            black_key,
            secret_armies,
            white_email,
            black_email,
            white_account,
            black_account,
        } => {
            let a = ops::open(cli.archive.as_deref(), true)?;
            let armies = match (army_white, army_black) {
                (None, None) => None,
                (w, b) => Some((w.unwrap_or_else(|| "humans".into()), b.unwrap_or_else(|| "humans".into()))),
            };
            let n = ops::NewGame {
                variant: variant.unwrap_or_default(),
                variant_file,
                white,
                black,
                options: parse_options(&options)?,
                armies,
                id,
                event,
                time_control,
                keys: [white_key, black_key],
                secret_armies,
                emails: [white_email, black_email],
                accounts: [white_account, black_account],
            };
            let (path, commit) = ops::new_game(&a, n, author.as_ref())?;
            writeln!(out, "{} (commit {})", path.id(), commit.short()).map_err(io)?;
            if let Some(dir) = ops::per_user_dir(&a) {
                let note = format!("ravenpost: the game is in your per-user archive at {}", dir.display());
                errln!("{}", terminal::fit_stderr(&note));
            }
            if secret_armies {
                writeln!(
                    out,
                    "Armies are chosen in secret: each player runs `ravenpost army commit {} ARMY`, then `ravenpost army reveal {}`",
                    path.id(),
                    path.id()
                )
                .map_err(io)?;
            }
        }
        Command::Move { game, mv, who, expect_ply } => {
            let a = ops::open(cli.archive.as_deref(), false)?;
            let applied = match ops::play(&a, &game, &mv, who.as_deref(), expect_ply, author.as_ref()) {
                Err(ops::Error::Refused(crate::record::Refusal::Illegal(
                    crate::notation::san::SanError::Illegal { reason, legal },
                ))) => {
                    return Err(Failure { message: illegal_move_text(&game, &mv, &reason, &legal), code: 1 });
                }
                other => other?,
            };
            writeln!(out, "{} (ply {})", applied.summary, applied.ply).map_err(io)?;
            if let Some(r) = applied.result {
                writeln!(out, "Result: {r}").map_err(io)?;
            }
            conditional_cmds::answer(&a, author.as_ref(), out)?;
        }
        Command::Resign { game, who } => {
            let a = ops::open(cli.archive.as_deref(), false)?;
            let applied = ops::resign(&a, &game, who.as_deref(), author.as_ref())?;
            writeln!(out, "{}", applied.summary).map_err(io)?;
            conditional_cmds::answer(&a, author.as_ref(), out)?;
        }
        Command::Draw { action, game, who } => {
            let a = ops::open(cli.archive.as_deref(), false)?;
            let action = match action {
                DrawArg::Offer => crate::record::DrawAction::Offer,
                DrawArg::Accept => crate::record::DrawAction::Accept,
                DrawArg::Decline => crate::record::DrawAction::Decline,
                DrawArg::Claim => crate::record::DrawAction::Claim,
            };
            let applied = match ops::draw(&a, &game, who.as_deref(), action, author.as_ref()) {
                // An offer after one's own move: the commands, in the order they go.
                Err(ops::Error::Refused(crate::record::Refusal::OfferAfterMove { player, to_move })) => {
                    return Err(Failure {
                        message: format!(
                            "not {player}'s turn: {to_move} is to move\n\
                             A draw offer goes with a move: make it in your turn, before you move:\n    \
                             ravenpost draw offer {game}\n    ravenpost move {game} MOVE"
                        ),
                        code: 1,
                    });
                }
                other => other?,
            };
            writeln!(out, "{}", applied.summary).map_err(io)?;
            conditional_cmds::answer(&a, author.as_ref(), out)?;
        }
        Command::Claim { what: ClaimWhat::Timeout { game, who } } => {
            let a = ops::open(cli.archive.as_deref(), false)?;
            let applied = ops::claim_timeout(&a, &game, who.as_deref(), author.as_ref())?;
            writeln!(out, "{}", applied.summary).map_err(io)?;
        }
        Command::Leave { game, days, from, who } => {
            let a = ops::open(cli.archive.as_deref(), false)?;
            let start = match from {
                None => ops::now().unix_seconds(),
                Some(d) => chrono::NaiveDate::parse_from_str(&d, "%Y-%m-%d")
                    .map_err(|_| Failure::input(format!("--from `{d}`: expected YYYY-MM-DD")))?
                    .and_hms_opt(0, 0, 0)
                    .expect("midnight exists")
                    .and_utc()
                    .timestamp(),
            };
            let applied = ops::leave(&a, &game, &who, start, days, author.as_ref())?;
            writeln!(out, "{}", applied.summary).map_err(io)?;
        }
        Command::Status { json, to_move } => {
            let a = ops::open(cli.archive.as_deref(), false)?;
            let player = match to_move.as_deref() {
                None => None,
                Some("") => Some(ops::identity_name(&a, author.as_ref())?),
                Some(name) => Some(name.to_string()),
            };
            let lines = match &player {
                None => ops::status(&a)?,
                Some(p) => ops::to_move(&a, p)?,
            };
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&lines).expect("json")).map_err(io)?;
            } else if let (Some(p), true) = (&player, lines.is_empty()) {
                writeln!(out, "No games waiting for {p}'s move in {}", a.dir().display()).map_err(io)?;
            } else if lines.is_empty() {
                writeln!(out, "No games in {} (start one with `ravenpost new`)", a.dir().display())
                    .map_err(io)?;
            } else {
                writeln!(out, "Archive: {}", a.dir().display()).map_err(io)?;
                let players: Vec<String> =
                    lines.iter().map(|l| format!("{} v {}", l.white, l.black)).collect();
                let id_w = lines.iter().map(|l| l.id.chars().count()).max().unwrap_or(0);
                let var_w = lines.iter().map(|l| l.variant.len()).max().unwrap_or(0);
                let pl_w = players.iter().map(|p| p.chars().count()).max().unwrap_or(0);
                for (l, pl) in lines.iter().zip(&players) {
                    let mut state = match (&l.problem, &l.to_move) {
                        (Some(p), _) => format!("INVALID: {p}"),
                        (None, None) if l.army_choice.is_some() => {
                            format!(
                                "choosing armies in secret: {}",
                                l.army_choice.clone().unwrap_or_default()
                            )
                        }
                        (None, Some(who)) => {
                            format!("{} to move ({})", who, l.side_to_move.clone().unwrap_or_default())
                        }
                        (None, None) => format!("finished {}", l.result),
                    };
                    if let Some(side) = &l.draw_offer {
                        state.push_str(&format!(", draw offered by {side}"));
                    }
                    if !l.prepared.is_empty() {
                        state.push_str(&format!(", prepared replies ({})", l.prepared.join(", ")));
                    }
                    if let Some(c) = &l.clock {
                        if c.overdue {
                            state.push_str(&format!(
                                ", OVERDUE since {} ({} ago)",
                                crate::referee::problem::rfc3339(&c.deadline),
                                crate::referee::Span(c.seconds_left)
                            ));
                        } else {
                            state.push_str(&format!(
                                ", deadline {} ({} left)",
                                crate::referee::problem::rfc3339(&c.deadline),
                                crate::referee::Span(c.seconds_left)
                            ));
                        }
                    }
                    writeln!(
                        out,
                        "{:<id_w$}  {:<var_w$}  {:<pl_w$}  ply {:<4} {}",
                        l.id, l.variant, pl, l.ply, state
                    )
                    .map_err(io)?;
                }
            }
        }
        Command::Log { game: None, json } => {
            let a = ops::open(cli.archive.as_deref(), false)?;
            archive_log(&a, json, out)?;
        }
        Command::Log { game: Some(game), json } => {
            let a = ops::open(cli.archive.as_deref(), false)?;
            // A Fantasy Grand game with a secret army choice: the choice comes first (and is
            // all there is until both armies are revealed).
            let choice = a
                .list_army_choices()?
                .into_iter()
                .find(|id| *id == game.trim_start_matches("fantasy-grand/"));
            let mut lines = match &choice {
                Some(id) => ops::choice_history(&a, id)?,
                None => Vec::new(),
            };
            match ops::find(&a, &game) {
                Ok(path) => lines.extend(ops::history(&a, &path)?),
                Err(e) if lines.is_empty() => return Err(e.into()),
                Err(_) => {}
            }
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&lines).expect("json")).map_err(io)?;
            } else {
                for l in &lines {
                    let what = match &l.problem {
                        Some(p) => format!("INVALID: {p}"),
                        None if l.prepared => format!("{} (prepared reply)", l.what),
                        None => log_what(l),
                    };
                    writeln!(out, "{}  {}  {:<16} {}", l.commit, log_time(&l.time), l.author, what)
                        .map_err(io)?;
                }
            }
        }
        Command::Verify { game, json } => {
            let a = ops::open(cli.archive.as_deref(), false)?;
            let mut bar = progress::Bar::new(json, "verifying");
            let report = ops::verify(&a, game.as_deref(), &mut |done, total| bar.set(done, total))?;
            bar.finish();
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&report).expect("json")).map_err(io)?;
            } else {
                for p in &report.problems {
                    errln!("{} commit {} by {}: {}", p.game, p.commit, p.author, p.problem);
                }
                writeln!(
                    out,
                    "{} game{} verified, {} problem{}",
                    report.games,
                    plural(report.games),
                    report.problems.len(),
                    plural(report.problems.len())
                )
                .map_err(io)?;
                if let Some(b) = &report.shallow {
                    let plies: usize = b.games.iter().map(|g| g.plies).sum();
                    writeln!(
                        out,
                        "shallow clone: the history starts at {}; {plies} earlier pl{} in {} game{} not checked (`git fetch --unshallow` brings them)",
                        b.commit,
                        if plies == 1 { "y" } else { "ies" },
                        b.games.len(),
                        plural(b.games.len())
                    )
                    .map_err(io)?;
                }
            }
            if !report.problems.is_empty() {
                return Err(Failure { message: String::new(), code: 1 });
            }
        }
        Command::Army { action } => {
            let a = ops::open(cli.archive.as_deref(), false)?;
            let (outcome, json) = match action {
                ArmyCmd::Commit { game, army, who, json } => {
                    (ops::army_commit(&a, &game, &army, who.as_deref(), author.as_ref())?, json)
                }
                ArmyCmd::Reveal { game, who, army, salt, json } => {
                    let given = army.zip(salt);
                    (ops::army_reveal(&a, &game, who.as_deref(), given, author.as_ref())?, json)
                }
            };
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&outcome).expect("json")).map_err(io)?;
            } else {
                writeln!(out, "{} (commit {})", outcome.summary, outcome.commits.join(", ")).map_err(io)?;
            }
        }
        Command::Hook { action: HookCmd::Install { repo, gitolite, print, pusher_var, notify, site } } => {
            let target = match gitolite {
                None if print => ops::HookTarget::Print,
                None => ops::HookTarget::Repository(repo.clone()),
                Some(GitoliteArg::Common) => ops::HookTarget::GitoliteCommon,
                Some(GitoliteArg::RepoSpecific) => ops::HookTarget::GitoliteRepoSpecific,
            };
            let installed = ops::install_hook_to(target, pusher_var.as_deref())?;
            // The script (`--print`) as it is; the line saying where it went filled.
            let installed = if print { installed } else { terminal::fit_stdout(&installed) };
            writeln!(out, "{installed}").map_err(io)?;
            if notify {
                // The notify hook is written whole: a site line installed before is put back.
                let kept =
                    hook_git_dir(repo.clone()).ok().and_then(|d| crate::site::site_line(&d).map(|l| (d, l)));
                writeln!(out, "{}", ops::install_notify_hook(repo.clone())?).map_err(io)?;
                if let (None, Some((git_dir, line))) = (&site, kept) {
                    crate::site::put_site_line(&git_dir, &line)
                        .map_err(|e| Failure { message: e.to_string(), code: 1 })?;
                }
            }
            // After --notify, which writes the post-receive hook whole: this adds one line.
            if let Some(site) = site {
                writeln!(out, "{}", install_site_hook(repo, &site)?).map_err(io)?;
            }
        }
        Command::Site { out: dir, json } => {
            let a = ops::open(cli.archive.as_deref(), false)?;
            let report =
                crate::site::generate(&a, &dir).map_err(|e| Failure { message: e.to_string(), code: 1 })?;
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&report).expect("json")).map_err(io)?;
            } else {
                for (path, problem) in &report.unreadable {
                    errln!("ravenpost: {path}: {problem} (listed on the index without a page)");
                }
                writeln!(
                    out,
                    "{} game{}: wrote {} file{}, {} page{} unchanged, {} removed ({})",
                    report.games,
                    plural(report.games),
                    report.written.len(),
                    plural(report.written.len()),
                    report.unchanged,
                    plural(report.unchanged),
                    report.removed.len(),
                    dir.join("index.html").display()
                )
                .map_err(io)?;
            }
        }
        Command::Hook { action: HookCmd::Notify { old, new, refname } } => {
            for n in crate::usecases::notify::hook_notify(&old, &new, &refname)? {
                match &n.failure {
                    None => writeln!(
                        out,
                        "ravenpost: mailed {} ply {} to {}",
                        n.game,
                        n.ply,
                        n.to.as_deref().unwrap_or_default()
                    )
                    .map_err(io)?,
                    Some(f) => writeln!(out, "ravenpost: {} ply {}: not mailed ({f}; logged)", n.game, n.ply)
                        .map_err(io)?,
                }
            }
        }
        Command::Tournament { action } => {
            club_cmds::tournament(cli.archive.as_deref(), author.as_ref(), action, out)?;
        }
        Command::Standings(args) => club_cmds::standings(cli.archive.as_deref(), args, out)?,
        Command::Ratings(args) => club_cmds::ratings(cli.archive.as_deref(), args, out)?,
        Command::Hook { action: HookCmd::Check { explain, old, new, refname } } => {
            if explain {
                writeln!(out, "{}", ops::hook_explain()?).map_err(io)?;
            }
            let (Some(old), Some(new), Some(refname)) = (old, new, refname) else {
                return Ok(());
            };
            let problems = ops::hook_check(&old, &new, &refname)?;
            if !problems.is_empty() {
                for p in &problems {
                    errln!("ravenpost: {p}");
                }
                return Err(Failure { message: String::new(), code: 1 });
            }
            // One line on success, so that a check run by hand says it passed.
            writeln!(out, "{}", crate::archive::hook_accepted_line(&refname, &old, &new)).map_err(io)?;
        }
        Command::Sync { remote, json, watch } => match watch {
            Some(every) => {
                let a = ops::open_for_sync(cli.archive.as_deref())?;
                conditional_cmds::watch(&a, &remote, author.as_ref(), &every, out)?;
            }
            None => conditional_cmds::sync(cli.archive.as_deref(), &remote, author.as_ref(), json, out)?,
        },
        Command::Conditional { action } => {
            conditional_cmds::conditional(cli.archive.as_deref(), author.as_ref(), action, out)?;
        }
        Command::Mail { action: MailCmd::Export { game, output, who } } => {
            let a = ops::open(cli.archive.as_deref(), false)?;
            let (bytes, line) = crate::usecases::mail::export(
                &a,
                &game,
                who.who.as_deref(),
                who.to.as_deref(),
                author.as_ref(),
            )?;
            match output {
                Some(path) => {
                    std::fs::write(&path, &bytes)
                        .map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
                    writeln!(out, "Wrote {}: {line}", path.display()).map_err(io)?;
                }
                None => out.write_all(&bytes).map_err(io)?,
            }
        }
        Command::Mail { action: MailCmd::Send { game, who, smtp, security, user, ca_file, sendmail } } => {
            let a = ops::open(cli.archive.as_deref(), false)?;
            let delivery = crate::usecases::mail::Delivery {
                smtp,
                security: security.map(|s| match s {
                    SecurityArg::Starttls => crate::archive::SmtpSecurity::Starttls,
                    SecurityArg::Tls => crate::archive::SmtpSecurity::Tls,
                    SecurityArg::None => crate::archive::SmtpSecurity::None,
                }),
                user,
                ca_file,
                sendmail,
            };
            let line = crate::usecases::mail::send(
                &a,
                &game,
                who.who.as_deref(),
                who.to.as_deref(),
                &delivery,
                author.as_ref(),
            )?;
            writeln!(out, "{}", terminal::fit_stdout(&line)).map_err(io)?;
        }
        Command::Mail { action: MailCmd::Import { paths, who, accept_sender, json } } => {
            let options = crate::usecases::mail::ImportOptions { who: who.as_deref(), accept_sender };
            mail_cmds::import(cli.archive.as_deref(), &paths, options, author.as_ref(), json, out)?;
        }
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            // Into memory first: clap_complete panics on a failed write (a closed pipe).
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, "ravenpost", &mut script);
            out.write_all(&script).map_err(io)?;
        }
        Command::Man { out: None } => {
            let cmd = <Cli as clap::CommandFactory>::command();
            clap_mangen::Man::new(cmd).render(out).map_err(io)?;
        }
        Command::Man { out: Some(dir) } => {
            let written = terminal::man_pages(&dir)
                .map_err(|e| Failure { message: format!("{}: {e}", dir.display()), code: 1 })?;
            writeln!(out, "Wrote {} manual pages into {}", written, dir.display()).map_err(io)?;
        }
        Command::Fmt { paths, check, color } => {
            let found = files::collect(&paths).map_err(Failure::input)?;
            warn_skipped(&found);
            let list = found.files;
            let color = color.stderr();
            let mut failed = false;
            let mut changed = 0;
            for f in &list {
                match files::canonical_file(f) {
                    Err(problems) => {
                        failed = true;
                        for p in &problems {
                            errln!("{}", files::render(p, color));
                        }
                    }
                    Ok(text) if files::is_stdin(f) => {
                        let old = files::stdin_bytes().unwrap_or_default();
                        if old != text.as_bytes() {
                            changed += 1;
                        }
                        if check && old != text.as_bytes() {
                            writeln!(out, "{}", files::STDIN_NAME).map_err(io)?;
                        } else if !check {
                            out.write_all(text.as_bytes()).map_err(io)?;
                        }
                    }
                    Ok(text) => {
                        let old = std::fs::read(f).unwrap_or_default();
                        if old != text.as_bytes() {
                            changed += 1;
                            if check {
                                writeln!(out, "{}", f.display()).map_err(io)?;
                            } else {
                                files::write_atomically(f, &text).map_err(|e| Failure {
                                    message: format!("{}: {e}", f.display()),
                                    code: 1,
                                })?;
                            }
                        }
                    }
                }
            }
            if failed {
                return Err(Failure {
                    message: "some files have problems and were left as they are".into(),
                    code: 1,
                });
            }
            if check && changed > 0 {
                return Err(Failure {
                    message: format!("{changed} file{} not in canonical form", plural(changed)),
                    code: 1,
                });
            }
        }
    }
    Ok(())
}

/// `ravenpost log` without a game: every game's history, merged in time order (games in
/// path order at equal times), one line each, or as JSON.
fn archive_log(a: &crate::archive::Archive, json: bool, out: &mut impl Write) -> Result<(), Failure> {
    let io = |e: std::io::Error| Failure { message: format!("writing output: {e}"), code: 1 };
    /// One entry of `log --json` without a game (docs/schemas/log.schema.json).
    #[derive(serde::Serialize)]
    struct Entry {
        game: String,
        #[serde(flatten)]
        line: ops::LogLine,
    }
    let mut entries = Vec::new();
    for path in a.list_games()? {
        let id = format!("{}/{}", path.variant(), path.id());
        entries.extend(ops::history(a, &path)?.into_iter().map(|line| Entry { game: id.clone(), line }));
    }
    entries.sort_by(|x, y| x.line.time.cmp(&y.line.time));
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&entries).expect("json")).map_err(io)?;
        return Ok(());
    }
    let width = entries.iter().map(|e| e.game.chars().count()).max().unwrap_or(0);
    for e in &entries {
        let l = &e.line;
        let what = match &l.problem {
            Some(p) => format!("INVALID: {p}"),
            None => l.what.clone(),
        };
        writeln!(out, "{}  {}  {:<width$}  {:<16} {what}", l.commit, log_time(&l.time), e.game, l.author)
            .map_err(io)?;
    }
    Ok(())
}

/// `ravenpost moves GAME`: the legal moves at the game's current position, in SAN (none
/// once the game is over), one a line or as JSON.
fn game_moves(g: &crate::record::game::Game, json: bool, out: &mut impl Write) -> Result<(), Failure> {
    let io = |e: std::io::Error| Failure { message: format!("writing output: {e}"), code: 1 };
    let pos = g.position();
    let result = crate::record::result_of(g);
    let moves = if result == "*" { g.variant.legal_moves(&pos) } else { Vec::new() };
    if json {
        let list: Vec<serde_json::Value> = moves
            .iter()
            .map(|m| {
                serde_json::json!({
                    "san": crate::notation::san::write_move(&g.variant, &pos, m),
                    "long": crate::notation::moves::long_form(&g.variant, m),
                })
            })
            .collect();
        let v = serde_json::json!({
            "variant": g.variant.def().slug,
            "ply": g.moves.len(),
            "side_to_move": g.variant.def().side_name(pos.side_to_move()),
            "position": crate::notation::position_string::write_position(&g.variant, &pos),
            "result": result,
            "moves": list,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v).expect("json")).map_err(io)?;
    } else {
        for m in &moves {
            writeln!(out, "{}", crate::notation::san::write_move(&g.variant, &pos, m)).map_err(io)?;
        }
    }
    Ok(())
}

/// Where a shown record breaks: the first ply that cannot be played, its place in the
/// file, and why.
struct Break {
    ply: usize,
    file: String,
    problem: crate::record::game::Problem,
}

impl Break {
    /// `Record breaks at ply 7 (g.pgn:9:4): illegal move …`, and the help line.
    fn lines(&self) -> Vec<String> {
        let p = &self.problem;
        let mut out = vec![format!(
            "Record breaks at ply {} ({}:{}:{}): {}",
            self.ply, self.file, p.span.line, p.span.column, p.message
        )];
        out.extend(p.help.as_ref().map(|h| format!("  help: {h}")));
        out
    }

    /// The refusal of a ply `n` at or past the break.
    fn refuse(&self, n: usize) -> Failure {
        Failure {
            message: format!(
                "ply {n}: the record breaks before it; plies 0 to {} can be shown\n{}",
                self.ply - 1,
                self.lines().join("\n")
            ),
            code: 1,
        }
    }

    fn json(&self) -> serde_json::Value {
        let p = &self.problem;
        serde_json::json!({
            "ply": self.ply,
            "file": self.file,
            "line": p.span.line,
            "column": p.span.column,
            "token": p.token,
            "message": p.message,
            "help": p.help,
        })
    }
}

/// The game `file` names: a game file (its `game`th game, from 1), else a game id in the
/// archive (`archive`, or the default one); replayed as far as its main line is legal,
/// with where it breaks.
fn resolve_game(
    archive: Option<&std::path::Path>,
    file: &std::path::Path,
    game: usize,
) -> Result<(crate::record::game::Game, Option<Break>), Failure> {
    if game == 0 {
        return Err(Failure::input("--game counts from 1"));
    }
    let looks_like_file = file.extension().is_some_and(|e| e == "pgn") || file.components().count() > 1;
    let (prefix, name) = if file.is_file() || files::is_stdin(file) {
        (files::load_game_prefix(file, game).map_err(Failure::input)?, files::display_name(file))
    } else if looks_like_file {
        return Err(Failure::input(format!("{}: no such file", file.display())));
    } else {
        let a = ops::open(archive, false)?;
        let path = ops::find(&a, &file.to_string_lossy())?;
        let text = a.read_file(&path.path())?.unwrap_or_default();
        (crate::record::load_prefix(&text)?, path.path())
    };
    let broken = prefix.broken.map(|(ply, problem)| Break { ply, file: name, problem });
    Ok((prefix.game, broken))
}

/// A commit time (RFC 3339) as a `log` line shows it: UTC as `Z`, RFC 3339's short form
/// (`2026-12-01T18:46:53Z`), so that a line fits 80 columns more often.
fn log_time(time: &str) -> String {
    time.strip_suffix("+00:00").map_or_else(|| time.to_string(), |t| format!("{t}Z"))
}

/// What a `log` line says a commit did, for reading: a recorded action (`log --json`'s
/// `Scarlet declines the draw (*)`) without the result when it stays `*`, and with the
/// word when it changed (`Scarlet resigns, result 1-0`).
fn log_what(l: &ops::LogLine) -> String {
    if l.ply.is_none() {
        for result in ["*", "1-0", "0-1", "1/2-1/2"] {
            if let Some(action) = l.what.strip_suffix(&format!(" ({result})")) {
                return match result {
                    "*" => action.to_string(),
                    r => format!("{action}, result {r}"),
                };
            }
        }
    }
    l.what.clone()
}

/// `move`'s refusal of an illegal move `token` in `game`: the reason, then the nearest
/// legal moves (`legal`, those of the piece the token names, else those to its square)
/// wrapped within 80 columns, then where to see every legal move.
fn illegal_move_text(game: &str, token: &str, reason: &str, legal: &[String]) -> String {
    let mut text = format!("illegal move `{token}`: {reason}");
    if !legal.is_empty() {
        let list = format!("legal: {}", legal.join(" "));
        let options = textwrap::Options::new(80).subsequent_indent("       ");
        for line in textwrap::wrap(&list, options) {
            text.push('\n');
            text.push_str(&line);
        }
    }
    text.push_str(&format!("\nevery legal move: `ravenpost moves {game}`"));
    text
}

/// Prints a warning for each path `validate` or `fmt` passed over (a FIFO, a device, a
/// folder or file reached again through a link).
fn warn_skipped(found: &files::Collected) {
    for w in &found.skipped {
        errln!("ravenpost: warning: {w}");
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Runs the command line; returns the process exit code.
///
/// Every error goes to standard error as `ravenpost: <what went wrong>` (lines after the
/// first may add a diagnostic's quoted line, a help or the usage), with exit code 2 for
/// bad input and usage, 1 for a refusal or a problem found, 3 for a change saved but not
/// checked out; `--help` and `--version` go to standard output with exit code 0.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let rendered = e.render().to_string();
            match usage_error(&rendered) {
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
                errln!("{}", terminal::fit_stderr(&error_text(&f.message)));
            }
            ExitCode::from(f.code)
        }
    }
}

/// The text printed for a failure with `message`: `ravenpost: ` before it, unless the
/// message already starts so (a message never says it twice).
fn error_text(message: &str) -> String {
    let message = message.trim_end_matches('\n');
    if message.starts_with(PREFIX) { message.to_string() } else { format!("{PREFIX}{message}") }
}

/// The prefix of every error line.
const PREFIX: &str = "ravenpost: ";

/// clap's message for a usage error (`error: unexpected argument …`, then the usage and
/// a tip) in ravenpost's shape: `ravenpost: unexpected argument …`, the rest as clap
/// wrote it; `None` for what is no error message (help shown for a missing subcommand).
fn usage_error(rendered: &str) -> Option<String> {
    let rest = rendered.trim_end_matches('\n').strip_prefix("error: ")?;
    Some(format!("{PREFIX}{rest}"))
}
