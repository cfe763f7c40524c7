//! Why a step is not accepted: one typed [`Problem`] per kind, each carrying what its
//! message needs. [`Problem`]'s `Display` is the sentence users see (`verify`, `log`, the
//! hook's `remote: ravenpost: …` lines, `sync` and `mail import`).

use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

/// A time on the correspondence clock: UTC, whole seconds.
pub type Time = DateTime<Utc>;

/// `t` as RFC 3339 in UTC with whole seconds (`2026-11-29T16:40:00Z`).
pub fn rfc3339(t: &Time) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The time `seconds` after the Unix epoch (clamped to chrono's range: a time past its
/// end is its last second, not the epoch).
pub fn time_from_unix(seconds: i64) -> Time {
    DateTime::from_timestamp(seconds, 0).unwrap_or(if seconds > 0 { Time::MAX_UTC } else { Time::MIN_UTC })
}

/// Whom the registry gives `account` (for [`Problem::AccountNotRegistered`]).
fn registered_to(account: &str, owner: Option<&str>, player: &str, registered: &[String]) -> String {
    match owner {
        Some(o) => format!("`{account}` to {o}"),
        None => format!("{player}'s steps to {}", accounts_list(registered)),
    }
}

/// Account names for a message: `` `ann` ``, `` `ann` or `ann2` ``.
fn accounts_list(accounts: &[String]) -> String {
    let quoted: Vec<String> = accounts.iter().map(|a| format!("`{a}`")).collect();
    match quoted.len() {
        0 => "no account".to_string(),
        1 => format!("the account {}", quoted[0]),
        _ => format!("one of the accounts {}", quoted.join(", ")),
    }
}

/// Why `key` (`version` or `layout`) cannot change in a settings change.
fn fixed_setting(key: &str) -> String {
    match key {
        "layout" => "ravenpost.yaml: `layout` cannot change in a settings change: `ravenpost archive migrate-layout` moves the games to the fan-out layout and sets it, in a commit of its own".to_string(),
        _ => format!("ravenpost.yaml: `{key}` cannot change: it is the file's format version, which ravenpost writes (a settings change keeps it)"),
    }
}

/// A length of time as people read it: `3d 4h`, `5h 10m`, `12m`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span(pub i64);

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0.unsigned_abs();
        let (d, h, m) = (s / 86_400, (s % 86_400) / 3_600, (s % 3_600) / 60);
        if d > 0 {
            write!(f, "{d}d {h}h")
        } else if h > 0 {
            write!(f, "{h}h {m}m")
        } else {
            write!(f, "{m}m")
        }
    }
}

/// What is wrong with one commit (or one mailed version) of a game or army choice file, or
/// with a pushed ref. Nothing is accepted that has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Problem {
    // ---- the version itself -------------------------------------------------------------
    /// The new version does not read as a game (its first problem).
    #[error("{why}")]
    Unreadable {
        /// The reader's or the rules' sentence, with line and column.
        why: String,
    },
    /// The version before does not read.
    #[error("the previous version: {why}")]
    PreviousUnreadable {
        /// The reader's sentence.
        why: String,
    },
    /// A move time comment that does not read, or two on one ply.
    #[error("{why}")]
    BadMoveTime {
        /// The sentence, naming the ply.
        why: String,
    },
    /// The file is not UTF-8 text.
    #[error("the game file is not UTF-8 text")]
    NotText,

    // ---- one version against the one before ----------------------------------------------
    /// Tags (other than `Result`/`Termination`) or the start position differ.
    #[error("the game's tags or start position were changed")]
    TagsChanged,
    /// An earlier ply differs or is gone.
    #[error("ply {ply} was changed or removed: earlier moves may not be rewritten")]
    MoveRewritten {
        /// The first ply that differs (1-based).
        ply: usize,
    },
    /// An earlier ply's recorded time differs.
    #[error("the recorded time of ply {ply} was changed: earlier moves may not be rewritten")]
    MoveTimeRewritten {
        /// The ply (1-based).
        ply: usize,
    },
    /// The new ply is timed before the move before it.
    #[error("ply {ply} is timed {}, before the previous move ({})", rfc3339(.at), rfc3339(.previous))]
    TimedBeforePrevious {
        /// The new ply.
        ply: usize,
        /// Its recorded time.
        at: Time,
        /// The last recorded time before it.
        previous: Time,
    },
    /// The new ply is timed after its commit (beyond the allowed clock skew).
    #[error(
        "ply {ply} is timed {}, later than its commit ({}): a move cannot be timed in the future",
        rfc3339(.at),
        rfc3339(.commit)
    )]
    TimedInFuture {
        /// The new ply.
        ply: usize,
        /// Its recorded time.
        at: Time,
        /// The commit's time.
        commit: Time,
    },
    /// A commit that arrives (at the hook, or in `sync`) dated later than its arrival,
    /// beyond the allowed clock skew: a step counts when it is made, and a step dated ahead
    /// could claim a win on time before the time is up, or time a move so that the
    /// opponent's reply would seem to come before it.
    #[error(
        "the commit is dated {}, later than it arrived ({}): a step cannot be dated in the future",
        rfc3339(.commit),
        rfc3339(.arrived)
    )]
    DatedInFuture {
        /// The commit's (author) time.
        commit: Time,
        /// When it arrived, by this machine's clock.
        arrived: Time,
    },
    /// A finished game's result was changed.
    #[error("the result of a finished game was changed from {from} to {to}")]
    FinishedResultChanged {
        /// The old result.
        from: String,
        /// The new result.
        to: String,
    },
    /// A finished game's record was changed.
    #[error("the game is over ({result}): its record may not change")]
    GameOver {
        /// Its result.
        result: String,
    },
    /// A result typed in without a recorded action.
    #[error(
        "the result was set to {result} without a resignation, draw agreement or claim, or time-forfeit claim as ravenpost records them"
    )]
    ResultWithoutAction {
        /// The result written.
        result: String,
    },
    /// No move and no recorded action explains the change.
    #[error(
        "the change is not a move, a resignation, a draw offer, answer or claim, a time-forfeit claim or booked leave as ravenpost records them"
    )]
    NotAStep,
    /// A recorded action authored by someone not entitled to it (the commit's author, as
    /// `log` shows it).
    #[error("\"{summary}\" was authored by {author}, but only {entitled} can do that")]
    NotEntitled {
        /// What was recorded, e.g. `Scarlet resigns`.
        summary: String,
        /// The commit's author.
        author: String,
        /// Who may.
        entitled: String,
    },
    /// A move after the end of the game.
    #[error("a move was added after the end of the game ({result})")]
    MoveAfterEnd {
        /// The result.
        result: String,
    },
    /// A ply authored by the player not to move (the commit's author, as `log` shows it).
    #[error("ply {ply} was authored by {author}, but {to_move} ({side_name}) was to move")]
    OutOfTurn {
        /// The ply.
        ply: usize,
        /// The commit's author.
        author: String,
        /// Who was to move.
        to_move: String,
        /// Their side's name in the variant (`Gold`).
        side_name: String,
    },
    /// The added ply is not legal (the rules' sentence).
    #[error("ply {ply}: {why}")]
    IllegalMove {
        /// The ply.
        ply: usize,
        /// Why, with the legal alternatives.
        why: String,
    },
    /// A ply added together with a result the rules do not give.
    #[error(
        "ply {ply} ({san}) comes with the result {result}, but the rules give {rules} after it: a resignation or draw is recorded on its own"
    )]
    ResultWithMove {
        /// The ply.
        ply: usize,
        /// Its move.
        san: String,
        /// The result written.
        result: String,
        /// The result by the rules.
        rules: String,
    },
    /// A ply added with other changes (comments, tags).
    #[error(
        "ply {ply} ({san}) changes more than the move: comments or tags differ from what ravenpost records"
    )]
    MoreThanTheMove {
        /// The ply.
        ply: usize,
        /// Its move.
        san: String,
    },
    /// Several plies in one commit.
    #[error("{plies} plies were added at once: each commit adds one")]
    SeveralPlies {
        /// How many.
        plies: usize,
    },

    // ---- a new game --------------------------------------------------------------------
    /// A game stored under another variant's folder.
    #[error("a {variant} game stored under games/{folder}/ (moved by hand?)")]
    WrongFolder {
        /// The game's variant.
        variant: String,
        /// The folder it is in.
        folder: String,
    },
    /// A new game file that already has moves.
    #[error("the game appeared with {plies} plies already played: games start with none")]
    CreatedWithMoves {
        /// How many.
        plies: usize,
    },
    /// A new game of a variant whose start is drawn 960-style, starting from a position
    /// that is none of its drawn starts.
    #[error(
        "the game starts from `{fen}`, which is not one of {variant}'s 960-style starts (king between the \
         rooks, like pieces of one square colour on both colours, the second side's rank the mirror of the first's)"
    )]
    NotADrawnStart {
        /// The variant's title.
        variant: String,
        /// The start as its FEN tag gives it.
        fen: String,
    },
    /// The game file was deleted (as `log` and `verify` see one game).
    #[error("the game file was deleted")]
    GameDeleted,
    /// A game file or army choice file was deleted somewhere in the history.
    #[error("{path} was deleted: games are never removed")]
    RecordDeleted {
        /// The file.
        path: String,
    },

    // ---- signatures and clocks -----------------------------------------------------------
    /// A step of a player whose key the game lists, not signed.
    #[error("the commit is not signed, but {player}'s steps in this game must be ({tag})")]
    Unsigned {
        /// The player.
        player: String,
        /// The tag listing the key.
        tag: String,
    },
    /// A signature that is not a good one by the listed key.
    #[error("{player}'s signature is not good: {why} ({tag})")]
    BadSignature {
        /// The player.
        player: String,
        /// What `ssh-keygen -Y verify` said.
        why: String,
        /// The tag listing the key.
        tag: String,
    },
    /// A win on time claimed before the deadline.
    #[error("a win on time was claimed at {}, but {player} had until {} ({left} left)", rfc3339(.at), rfc3339(.deadline))]
    ClaimBeforeDeadline {
        /// When it was claimed.
        at: Time,
        /// The player to move.
        player: String,
        /// Their deadline.
        deadline: Time,
        /// Time they had left.
        left: Span,
    },
    /// Leave booked to start before the day it was booked (leave is booked in advance).
    #[error(
        "leave booked on {} may not start before that day: it starts on {}",
        rfc3339(.booked),
        rfc3339(.from)
    )]
    LeaveBackdated {
        /// The leave's start.
        from: Time,
        /// When it was booked (the commit's time).
        booked: Time,
    },
    /// A win on time claimed in a game without a clock.
    #[error("a win on time was claimed, but no clock runs in this game (no TimeControl)")]
    ClaimWithoutClock,

    // ---- secret army choice --------------------------------------------------------------
    /// The choice file does not read (or the version is unknown).
    #[error("{why}")]
    ChoiceUnreadable {
        /// The reader's sentence.
        why: String,
    },
    /// The version before does not read.
    #[error("the previous version: {why}")]
    PreviousChoiceUnreadable {
        /// The reader's sentence.
        why: String,
    },
    /// A new choice with commitments or reveals already in it.
    #[error("a new army choice must start without commitments or reveals")]
    ChoiceStartsFilled,
    /// One player on both sides.
    #[error("the two players of an army choice must differ")]
    ChoiceSamePlayers,
    /// Players or tags of the choice changed.
    #[error("the players or tags of an army choice were changed")]
    ChoiceTagsChanged,
    /// A change to a complete choice.
    #[error("both armies are revealed: the choice is final")]
    ChoiceFinal,
    /// The file changed but no entry did.
    #[error("the army choice file changed but no commitment or reveal did")]
    ChoiceNoEntryChanged,
    /// Both players' entries changed at once.
    #[error("both players' entries changed in one commit: each commit is one player's step")]
    ChoiceBothChanged,
    /// A player's step authored by someone else (the commit's author).
    #[error("{player}'s army choice step was authored by {author}")]
    ChoiceNotEntitled {
        /// The player.
        player: String,
        /// The commit's author.
        author: String,
    },
    /// A commitment that is not a SHA-256 in hex.
    #[error("{player}'s commitment is not 64 lower-case hex digits")]
    ChoiceBadCommitment {
        /// The player.
        player: String,
    },
    /// A reveal before the opponent committed.
    #[error("{player} revealed before {opponent} committed: reveals come after both commitments")]
    ChoiceEarlyReveal {
        /// The player.
        player: String,
        /// The opponent.
        opponent: String,
    },
    /// A reveal that does not hash to the commitment.
    #[error("{player}'s reveal ({army}) does not match their commitment: refused")]
    ChoiceRevealMismatch {
        /// The player.
        player: String,
        /// The army revealed.
        army: String,
    },
    /// An army the game does not allow, or unknown.
    #[error("{why}")]
    ChoiceArmyRefused {
        /// Why.
        why: String,
    },
    /// An army not written in its canonical name.
    #[error("{player}'s army must be written `{army}`")]
    ChoiceArmySpelling {
        /// The player.
        player: String,
        /// The canonical name.
        army: String,
    },
    /// A commitment changed.
    #[error("{player}'s commitment was changed: a commitment is final")]
    ChoiceCommitmentChanged {
        /// The player.
        player: String,
    },
    /// Steps out of order.
    #[error("{player}'s entry changed out of order (commit first, reveal once)")]
    ChoiceOutOfOrder {
        /// The player.
        player: String,
    },
    /// The choice file was deleted.
    #[error("the army choice file was deleted; it is part of the game's record")]
    ChoiceDeleted,
    /// A choice opened for an existing game.
    #[error("an army choice was opened for {id}, which is already a game")]
    ChoiceForExistingGame {
        /// The game id.
        id: String,
    },
    /// The choice's tags name armies or commitments, or do not make a game.
    #[error("{why}")]
    ChoiceTags {
        /// Why.
        why: String,
    },
    /// A complete choice that does not make a valid game.
    #[error("both armies are revealed, but the choice does not make a valid game")]
    ChoiceMakesNoGame,
    /// A game created while its choice is incomplete.
    #[error("the game was created before both armies were revealed ({waiting})")]
    GameBeforeReveal {
        /// What the choice waits for.
        waiting: String,
    },
    /// The game's choice file does not read.
    #[error("its army choice file does not read")]
    GameChoiceUnreadable,
    /// The game's revealed choice does not make a valid game.
    #[error("its revealed army choice does not make a valid game")]
    GameChoiceInvalid,
    /// The game plays another army than the one revealed.
    #[error("{player} plays {played} in the game file, but revealed {revealed} ({tag})")]
    GameArmyMismatch {
        /// The player.
        player: String,
        /// The army in the game file.
        played: String,
        /// The army revealed.
        revealed: String,
        /// The tag.
        tag: String,
    },
    /// The game's tags differ from its choice's.
    #[error("the game's tags differ from its army choice's tags")]
    GameTagsDifferFromChoice,

    // ---- a game's pinned variant definition (variant-files.md §10) ------------------------
    /// The `VariantFile` tag names no definition path.
    #[error("VariantFile `{file}` is not a definition of the archive (variants/<name>.md)")]
    NotADefinitionPath {
        /// The tag's value.
        file: String,
    },
    /// The pinned definition is not in the archive at the judged commit.
    #[error("the game's variant definition {file} is not in the archive")]
    DefinitionMissing {
        /// The `VariantFile` tag.
        file: String,
    },
    /// The definition at the pinned path is not the one the game pins.
    #[error(
        "{file} is not the definition the game pins: its hash is {found}, the game's VariantHash is {pinned} (a definition a game pins may not change)"
    )]
    DefinitionHashMismatch {
        /// The `VariantFile` tag.
        file: String,
        /// The `VariantHash` tag.
        pinned: String,
        /// The content hash of the file in the archive.
        found: String,
    },
    /// A definition in the archive that does not load.
    #[error("{file} is not a playable variant definition: {why}")]
    DefinitionInvalid {
        /// The definition's path.
        file: String,
        /// `variant check`'s sentence, with line and column.
        why: String,
    },
    /// A new definition whose slug is not its file name.
    #[error("{file} defines `{slug}`: a definition's file is variants/<slug>.md")]
    DefinitionMisnamed {
        /// The definition's path.
        file: String,
        /// The slug it defines.
        slug: String,
    },
    /// A committed definition was changed.
    #[error(
        "{file} was changed: a committed variant definition is never changed (games pin it by its hash); add the new rules as a new file"
    )]
    DefinitionChanged {
        /// The definition's path.
        file: String,
    },
    /// A committed definition was deleted.
    #[error("{file} was deleted: a committed variant definition is never deleted (games pin it)")]
    DefinitionDeleted {
        /// The definition's path.
        file: String,
    },
    // ---- who pushed (the git server's account) ---------------------------------------------
    /// A player's step pushed by an account that is not one of theirs.
    #[error(
        "{player}'s steps must be pushed by {} ({listed_in}), but this push was authenticated as `{pusher}` ({variable})",
        accounts_list(.accounts)
    )]
    PushedByOtherAccount {
        /// The player who acted.
        player: String,
        /// The account that pushed.
        pusher: String,
        /// The environment variable that named it.
        variable: String,
        /// The accounts that may push this player's steps.
        accounts: Vec<String>,
        /// Where those are listed.
        listed_in: String,
    },
    /// A new game or army choice pushed by an account that is neither a player's nor an admin's.
    #[error(
        "a new game may be pushed by its players' or an admin's account ({}), but this push was authenticated as `{pusher}` ({variable})",
        accounts_list(.accounts)
    )]
    CreatedByOutsider {
        /// The account that pushed.
        pusher: String,
        /// The environment variable that named it.
        variable: String,
        /// The accounts that may.
        accounts: Vec<String>,
    },
    /// A new game's account tag names an account the archive's registry does not give
    /// that player.
    #[error(
        "the {} tag names `{account}` for {player}, but ravenpost.yaml registers {}",
        if *.white { "WhiteAccount" } else { "BlackAccount" },
        registered_to(.account, .owner.as_deref(), .player, .registered)
    )]
    AccountNotRegistered {
        /// The player the tag is for.
        player: String,
        /// Whether the tag is White's (`WhiteAccount`; else `BlackAccount`).
        white: bool,
        /// The account it names.
        account: String,
        /// The player the registry gives the account to, if another.
        owner: Option<String>,
        /// The accounts the registry gives the player (empty: none listed).
        registered: Vec<String>,
    },
    /// One account named for both sides of a new game: its holder could play both.
    #[error("the account `{account}` is named for both players: each player pushes from their own account")]
    SameAccountBothSides {
        /// The account.
        account: String,
    },
    /// The archive's first commit pushed by an account that is no admin.
    #[error(
        "the archive's set-up commit may be pushed only by an admin ({}, ravenpost.yaml admins), but this push was authenticated as `{pusher}` ({variable})",
        accounts_list(.admins)
    )]
    SetupByNonAdmin {
        /// The account that pushed.
        pusher: String,
        /// The environment variable that named it.
        variable: String,
        /// The admin accounts.
        admins: Vec<String>,
    },
    /// A pushed step of a computer player (`plays-by: bot` in ravenpost.yaml): only the
    /// referee mailbox makes its steps, in the club's repository, never by a push.
    #[error(
        "{player} is a computer player (plays-by: bot in ravenpost.yaml): its steps are made only by the club's referee mailbox, never pushed"
    )]
    ComputerStepPushed {
        /// The computer player.
        player: String,
    },

    // ---- what a push may be --------------------------------------------------------------
    /// A commit changes a file that is no game file.
    #[error(
        "a commit may change only one game file (games/<variant>/<id>.pgn, or a Fantasy Grand army choice) or add one variant definition (variants/<name>.md); beside them an archive holds only README.md, README, LICENSE, .gitattributes, .gitignore and .mailmap at its root"
    )]
    NotAGameFile,
    /// A path under `games/` that is a symbolic link or a submodule, not a regular file
    /// ([`crate::referee::layout::entry_problem`]).
    #[error(
        "{path} is a {what}, not a regular file: game files are regular files (git mode 100644), never links to elsewhere"
    )]
    NotARegularFile {
        /// The path in the archive.
        path: String,
        /// What it is: `symbolic link`, `submodule`, `file of git mode NNNNNN`.
        what: String,
    },
    /// A record (game or army choice file) at a path of the layout the archive does not
    /// use at that commit ([`crate::referee::layout::Layout`]).
    #[error(
        "{path} is in the {found} layout, but the archive keeps its games in the {layout} layout ({want})"
    )]
    WrongLayout {
        /// The path in the archive.
        path: String,
        /// The layout of the path.
        found: String,
        /// The archive's layout.
        layout: String,
        /// Where the record belongs.
        want: String,
    },
    /// Two records of one game id at different paths.
    #[error("game id {id} is at two paths, {first} and {second}: a game id names one game")]
    DuplicateGameId {
        /// The game id.
        id: String,
        /// One path.
        first: String,
        /// The other.
        second: String,
    },
    /// A commit changing the archive's layout does more than move records unchanged.
    #[error(
        "{path}: a change of layout (`ravenpost archive migrate-layout`) only moves every game and army choice file unchanged to its fan-out path and sets `layout: fan-out` in ravenpost.yaml; {why}"
    )]
    NotAMigration {
        /// The path of the change that is no such move.
        path: String,
        /// What it does instead.
        why: String,
    },
    /// A settings change (`ravenpost archive settings`) that changes another file too.
    #[error(
        "a settings change (`ravenpost archive settings`) is a commit that changes only ravenpost.yaml; this one also changes {path}"
    )]
    NotOnlySettings {
        /// The other path the commit changes.
        path: String,
    },
    /// A settings change that changes `version` or `layout`, which a settings change
    /// keeps.
    #[error("{}", fixed_setting(.key))]
    FixedSetting {
        /// The key: `version` or `layout`.
        key: String,
    },
    /// A settings change after which `ravenpost.yaml` does not read.
    #[error(
        "ravenpost.yaml does not read after this commit ({why}); the archive's settings must stay readable (`ravenpost archive settings set`/`--file` checks a change before committing it)"
    )]
    SettingsUnreadable {
        /// The reader's message.
        why: String,
    },
    /// A settings change pushed by an account that was no admin before it.
    #[error(
        "the archive's settings may be changed only by an admin ({}, ravenpost.yaml admins before the change), but this push was authenticated as `{pusher}` ({variable})",
        accounts_list(.admins)
    )]
    SettingsByNonAdmin {
        /// The account that pushed.
        pusher: String,
        /// The environment variable that named it.
        variable: String,
        /// The admin accounts before the change.
        admins: Vec<String>,
    },
    /// A commit changes several game files.
    #[error("a commit may change only one game file, this one changes {}", .files.len())]
    SeveralFiles {
        /// The games changed (ids; army choices marked).
        files: Vec<String>,
    },
    /// A game file deleted in a pushed commit.
    #[error("the game file was deleted; games are never deleted")]
    DeletedInPush,
    /// Pushed history does not contain the old tip.
    #[error(
        "history rewritten: {new} is not a descendant of {old} (earlier commits were changed or dropped)"
    )]
    HistoryRewritten {
        /// The pushed tip (short id).
        new: String,
        /// The old tip (short id).
        old: String,
    },
    /// A branch deletion.
    #[error("{refname}: deleting a branch is refused")]
    BranchDeleted {
        /// The ref.
        refname: String,
    },
    /// A push to something other than a branch.
    #[error("{refname}: only branches may be pushed to a ravenpost archive")]
    NotABranch {
        /// The ref.
        refname: String,
    },
    /// A step fetched by `sync` made in the syncing player's name by someone else: not
    /// committed by them, not signed, and on a server that vouches for no account of theirs.
    #[error(
        "a step in your name ({player}) that you did not make: committed by {committer}, unsigned, and the game lists no server account of yours that would have vouched for it"
    )]
    NotYourStep {
        /// The player (you).
        player: String,
        /// Who committed it (`Name <email>`).
        committer: String,
    },
    /// A push to a branch other than the archive's own, which its settings do not allow.
    #[error(
        "{refname}: only the archive's branch {branch} may be pushed (ravenpost.yaml `branches:` lists any others a club allows)"
    )]
    OtherBranch {
        /// The ref pushed.
        refname: String,
        /// The archive's branch.
        branch: String,
    },
    /// A file larger than the archive's limit for its kind.
    #[error(
        "{path} has {}, over the limit of {} for {what} (ravenpost.yaml `limits: {key}:` may raise it)",
        super::limits::size_in_words(*.size),
        super::limits::size_in_words(*.limit)
    )]
    FileTooLarge {
        /// The path.
        path: String,
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
        /// What kind of file: `a game file`, `a file that is no record`.
        what: String,
        /// The `limits:` key.
        key: String,
    },
    /// A game with more plies than the archive's limit.
    #[error(
        "the game has {plies} plies, over the limit of {limit} (ravenpost.yaml `limits: plies:` may raise it)"
    )]
    TooManyPlies {
        /// The plies the file holds.
        plies: usize,
        /// The limit.
        limit: usize,
    },
    /// A new path that some systems cannot hold or that another path collides with.
    #[error("{path}: {why}")]
    NotPortable {
        /// The path.
        path: String,
        /// The rule it breaks.
        why: String,
    },
    /// `.gitattributes` changed in a push by an account that is no admin.
    #[error(
        ".gitattributes may be changed only by an admin ({}, ravenpost.yaml admins), but this push was authenticated as `{pusher}` ({variable})",
        accounts_list(.admins)
    )]
    AttributesByNonAdmin {
        /// The account that pushed.
        pusher: String,
        /// The environment variable that named it.
        variable: String,
        /// The admin accounts.
        admins: Vec<String>,
    },

    // ---- tournaments ---------------------------------------------------------------------
    /// A tournament's creation is not what `ravenpost tournament new` makes.
    #[error("tournament {name}: {why}")]
    TournamentInvalid {
        /// The tournament's name (from its path).
        name: String,
        /// The referee's sentence ([`crate::referee::tournament::TournamentProblem`]).
        why: String,
    },
    /// A tournament file changed or deleted after its creation.
    #[error("tournament {name}: a tournament file never changes after the commit that creates it")]
    TournamentChanged {
        /// The tournament's name.
        name: String,
    },
}
