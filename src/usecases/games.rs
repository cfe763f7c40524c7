//! The commands that change games: `init`, `new`, `move`, `resign`, `draw`, `claim
//! timeout`, `leave`, and finding a game by id.
//!
//! Every change is checked by the rules ([`crate::record`], [`crate::referee`]) against
//! the file as it stands at the branch tip, then committed on that tip with a
//! compare-and-swap, so a concurrent change makes this one fail with "the game moved on"
//! and nothing is lost.

use std::path::{Path, PathBuf};

use crate::archive::{
    Archive, ArchiveConfig, ArchiveError, ArmyChoice, Change, CommitId, CommitNames, GamePath, Identity,
    SshSigner, Timestamp, default_archive, is_public_key,
};
use crate::engine::Side;
use crate::record::game::{Game, RULESET};
use crate::record::{self, Applied, DrawAction, game_text_from_tags};
use crate::referee::clock::{check_leave_start, check_timeout_claim};
use crate::referee::players::{email_tag, side_of_person, signing_key_tag};

use super::error::Error as Failure;
use super::session::Session;

/// The archive to work on: `--archive DIR`, else `RAVENPOST_ARCHIVE`, else the repository
/// the command runs in if it is an archive, else the per-user archive. Only with `create`
/// (`ravenpost new`, and `mail import`, whose first message may be the first game) is a
/// missing default archive made; other commands say where none is.
pub fn open(session: &Session, create: bool) -> Result<Archive, Failure> {
    let mut archive = open_archive(session, create)?;
    let mut options = archive.options().clone();
    if session.break_lock {
        options.break_locks_older_than = Some(std::time::Duration::ZERO);
    }
    // A long history walk proves most changes from the games' texts (see the option).
    options.move_ends = Some(crate::notation::pgn::move_ends);
    archive.set_options(options);
    // A write a killed ravenpost left half done is finished before anything else (a
    // failure here is left for the next write, which reports it).
    let _ = archive.recover_interrupted_write();
    Ok(archive)
}

/// The definition the archive of `session` (when there is one) keeps for the variant
/// `name` at its tip (`variants/<name>.md`): what `new NAME` plays, for the commands that
/// name a variant (`perft`, `position`, `moves`, `analyse`). `None` outside an archive, or
/// when the archive has no such file.
///
/// # Errors
/// [`Failure::Usage`]: the archive's file does not load; the archive's errors.
pub fn archive_variant(
    session: &Session,
    name: &str,
) -> Result<Option<crate::variants::Definition>, Failure> {
    if crate::referee::layout::parse_definition_path(&crate::referee::layout::definition_path(name)).is_none()
    {
        return Ok(None);
    }
    let Ok(archive) = open(session, false) else { return Ok(None) };
    let Some(tip) = archive.tip()? else { return Ok(None) };
    let path = crate::referee::layout::definition_path(name);
    let Some(text) = archive.read_file_at(tip, &path)? else { return Ok(None) };
    crate::variants::load_definition(&text).map(Some).map_err(|e| Failure::Usage(e.located(&path)))
}

/// An archive [`open_or_make`] made on this run: [`Made::undo`] removes it again when
/// nothing was committed to it (a refused `mail import` leaves nothing on disk).
#[derive(Debug)]
pub struct Made {
    /// The archive's directory.
    pub dir: PathBuf,
    /// The topmost directory that did not exist before (`None`: `dir` existed, empty).
    top: Option<PathBuf>,
}

impl Made {
    /// Removes what making the archive created: the directories that did not exist
    /// before, or the contents of the empty directory it was made in.
    ///
    /// # Errors
    /// The file system's.
    pub fn undo(self) -> std::io::Result<()> {
        match &self.top {
            Some(top) => std::fs::remove_dir_all(top),
            None => {
                for e in std::fs::read_dir(&self.dir)? {
                    let p = e?.path();
                    if p.is_dir() { std::fs::remove_dir_all(&p)? } else { std::fs::remove_file(&p)? }
                }
                Ok(())
            }
        }
    }
}

/// [`open`] as `mail import` needs it: the archive there is, else the one `open(dir,
/// true)` makes, with what was made so that it can be undone.
///
/// # Errors
/// As [`open`].
pub fn open_or_make(session: &Session) -> Result<(Archive, Option<Made>), Failure> {
    let dir = session.archive.as_deref();
    match open(session, false) {
        Ok(a) => return Ok((a, None)),
        Err(e) if dir.is_some() => return Err(e),
        Err(_) => {}
    }
    // Where it can be made, and the state of each place before.
    let cwd = &session.cwd;
    let env = session.archive_env.as_ref().filter(|v| !v.is_empty()).map(|e| cwd.join(e));
    let places: Vec<(PathBuf, Option<Option<PathBuf>>)> =
        [env, session.settings.archive.clone(), session.data_dir.as_ref().map(|d| d.join("archive"))]
            .into_iter()
            .flatten()
            .map(|p| {
                let top = p.ancestors().take_while(|a| !a.exists()).last().map(Path::to_path_buf);
                let empty = std::fs::read_dir(&p).map(|mut d| d.next().is_none()).unwrap_or(false);
                let state = match (top, empty) {
                    (Some(t), _) => Some(Some(t)),
                    (None, true) => Some(None),
                    (None, false) => None,
                };
                (p, state)
            })
            .collect();
    let archive = open(session, true)?;
    let made = archive.dir().canonicalize().ok().and_then(|d| {
        places.into_iter().find_map(|(p, state)| {
            let top = state?;
            (p.canonicalize().ok()? == d).then_some(Made { dir: p, top })
        })
    });
    Ok((archive, made))
}

/// The per-user archive's directory, if `archive` is it (`new` then says so).
pub fn per_user_dir(session: &Session, archive: &Archive) -> Option<PathBuf> {
    let user = session.data_dir.as_ref()?.join("archive");
    let same = match (user.canonicalize(), archive.dir().canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    same.then_some(user)
}

/// [`open`], without the definitions.
fn open_archive(session: &Session, create: bool) -> Result<Archive, Failure> {
    if let Some(d) = &session.archive {
        return Ok(Archive::open(d)?);
    }
    let cwd = &session.cwd;
    let env = session.archive_env.clone();
    if env.as_ref().is_none_or(|v| v.is_empty()) {
        // Inside a repository that holds an archive, use it or say why not (a detached
        // HEAD, say), never fall back silently to another archive.
        if let Some(dir) =
            cwd.ancestors().find(|d| d.join(".git").exists() && d.join("ravenpost.yaml").exists())
        {
            return Ok(Archive::open(dir)?);
        }
        // An archive whose settings file is missing from the working copy (an `init`
        // killed before it wrote it): opening it recovers the write.
        if let Some(found) = Archive::discover(cwd)? {
            return Ok(Archive::open(found.dir())?);
        }
        if create && let Some(repo) = Archive::discover_repository(cwd)? {
            // `new` in a git repository that is no archive: never the per-user archive
            // behind the user's back.
            return Err(Failure::Usage(format!(
                "{} is a git repository but not a ravenpost archive: run `ravenpost init` there to make it one, \
                 or name an archive with --archive DIR",
                repo.dir().display()
            )));
        }
    }
    // The archive the user's settings name, outside any archive's repository.
    if env.as_ref().is_none_or(|v| v.is_empty())
        && let Some(dir) = &session.settings.archive
    {
        let empty = std::fs::read_dir(dir).map(|mut d| d.next().is_none()).unwrap_or(true);
        return match (empty, create) {
            (false, _) => Ok(Archive::open(dir)?),
            (true, true) => Ok(Archive::init(dir, None, session.now())?),
            (true, false) => Err(Failure::Usage(format!(
                "no archive at {} (`archive` in your settings, {}): start a game with `ravenpost new`, \
                 or make one with `ravenpost init {}`",
                dir.display(),
                session.settings_path.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
                dir.display()
            ))),
        };
    }
    let data = session.data_dir.clone();
    if !create {
        let missing = |p: &Path| std::fs::read_dir(p).map(|mut d| d.next().is_none()).unwrap_or(true);
        match env.as_ref().filter(|v| !v.is_empty()) {
            Some(e) => {
                let p = cwd.join(e);
                if missing(&p) {
                    return Err(Failure::Usage(format!(
                        "no archive at {} ($RAVENPOST_ARCHIVE): make one with `ravenpost init {}`",
                        p.display(),
                        p.display()
                    )));
                }
            }
            None => {
                if let Some(p) = data.as_ref().map(|d| d.join("archive"))
                    && missing(&p)
                {
                    return Err(Failure::Usage(format!(
                        "no archive here, and your per-user archive ({}) does not exist yet: start a game with \
                         `ravenpost new`, or name an archive with --archive DIR",
                        p.display()
                    )));
                }
            }
        }
    }
    let (archive, _) = default_archive(env.as_deref(), cwd, data.as_deref(), session.now())?;
    Ok(archive)
}

/// Finds a game by id (`20261129-ann-bo`), by `variant/id`, or by its path in the archive.
pub fn find(archive: &Archive, game: &str) -> Result<GamePath, Failure> {
    let wanted = game.trim_end_matches(".pgn").trim_start_matches("games/");
    // The game's possible paths first (a few tree entries, whatever the archive's size);
    // the whole list only to say why none or several match.
    let (variant, id) = match wanted.split_once('/') {
        Some((v, id)) => (Some(v), id),
        None => (None, wanted),
    };
    let found: Vec<GamePath> =
        archive.games_with_id(id)?.into_iter().filter(|g| variant.is_none_or(|v| g.variant() == v)).collect();
    if let [one] = found.as_slice() {
        return Ok(one.clone());
    }
    let games = archive.list_games()?;
    let matches: Vec<&GamePath> = games
        .iter()
        .filter(|g| g.id() == wanted || format!("{}/{}", g.variant(), g.id()) == wanted)
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => {
            if archive.list_army_choices()?.iter().any(|id| id == wanted) {
                return Err(Failure::ChoosingArmies { id: wanted.to_string() });
            }
            if let Some(said) = deleted_game(archive, wanted) {
                return Err(Failure::Usage(said));
            }
            let known: Vec<String> = games.iter().take(10).map(|g| g.id().to_string()).collect();
            Err(Failure::Usage(format!(
                "no game `{game}` in the archive at {}{}",
                archive.dir().display(),
                if known.is_empty() {
                    " (it has no games yet)".to_string()
                } else {
                    format!(" (games: {})", known.join(", "))
                }
            )))
        }
        many => Err(Failure::Usage(format!(
            "`{game}` names {} games: write it as variant/id ({})",
            many.len(),
            many.iter().map(|g| format!("{}/{}", g.variant(), g.id())).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// Why game `wanted` (an id or `variant/id`) is not in the archive when a commit deleted
/// its file: which commit, by whom. `None` when no commit of the branch deleted it.
fn deleted_game(archive: &Archive, wanted: &str) -> Option<String> {
    let index = archive.index().ok()?;
    index.deleted_paths().iter().find_map(|path| {
        let g = GamePath::parse(path)?;
        if g.id() != wanted && format!("{}/{}", g.variant(), g.id()) != wanted {
            return None;
        }
        let deleted = index.versions(path).into_iter().rev().find(|v| v.blob.is_none())?;
        let c = index.commit_at(deleted.position);
        Some(format!(
            "game `{wanted}` is no longer in the archive at {}: commit {} by {} deleted {path} (games are never \
             removed: `ravenpost verify` reports it)",
            archive.dir().display(),
            c.commit.short(),
            c.author_name
        ))
    })
}

/// The game's text and the tip it was read at.
pub(super) fn read(archive: &Archive, path: &GamePath) -> Result<(String, Option<CommitId>), Failure> {
    let tip = archive.tip()?;
    if let Some(t) = tip
        && let Some(problem) = archive.entry_problem_at(t, &path.path())?
    {
        return Err(Failure::Declined(format!("{}: {problem}; nothing was written", path.id())));
    }
    let text = match tip {
        Some(t) => archive.read_file_at(t, &path.path())?,
        None => None,
    };
    let text = text.ok_or_else(|| Failure::Usage(format!("{}: not in the archive", &path.path())))?;
    Ok((text, tip))
}

/// The author of a player's commit: the configured identity when its name is the
/// player's; else the player's name with their email from the game (`email`: its
/// `WhiteEmail`/`BlackEmail` tag), else with the configured identity's email, else
/// `name@ravenpost.invalid`.
fn player_identity(archive: &Archive, player: &str, session: &Session, email: Option<&str>) -> Identity {
    let email = email.filter(|e| Identity::new(player, *e).validate().is_ok());
    match (archive.identity(session.identity()), email) {
        (Ok(id), _) if id.name == player => id,
        (_, Some(e)) => Identity::new(player, e),
        (Ok(id), None) => Identity::new(player, id.email),
        (Err(_), None) => Identity::new(player, format!("{}@ravenpost.invalid", slug(player))),
    }
}

/// Who commits a player's step: the configured identity (the one who ran the command),
/// else [`Identity::ravenpost`] (a step committed without any identity says so).
pub fn step_committer(archive: &Archive, session: &Session) -> Identity {
    archive.identity(session.identity()).unwrap_or_else(|_| Identity::ravenpost())
}

/// `s` as a part of a game id or an address: transliterated to ASCII (`Zoë Ünal` →
/// `zoe-unal`, by deunicode), lower case, each run of other characters one `-`.
fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in deunicode::deunicode(s).chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// Commits the change `a` to the game at `path` (`game`: the game as it was, whose tags
/// say which key, if any, must sign).
fn commit_applied(
    archive: &Archive,
    path: &GamePath,
    tip: Option<CommitId>,
    a: &Applied,
    game: &Game,
    session: &Session,
) -> Result<CommitId, Failure> {
    let message = match &a.san {
        Some(san) => format!("{}: ply {} {} ({})", path.id(), a.ply, san, a.summary),
        None => format!("{}: {}", path.id(), a.summary),
    };
    let required = game.text.tag(signing_key_tag(a.side)).map(str::to_string);
    let step = PlayerStep {
        file: &path.path(),
        id: path.id(),
        player: &a.player,
        side: a.side,
        required_key: required,
        email: game.text.tag(crate::referee::players::email_tag(a.side)).map(str::to_string),
    };
    commit_player_step(archive, &step, &a.text, tip, &message, session)
}

/// One player's step to commit: which file of which game, by whom, and the SSH public key
/// its commit must be signed with, if the game lists one for that player.
pub(super) struct PlayerStep<'a> {
    /// The file in the archive.
    pub file: &'a str,
    /// The game id, for messages.
    pub id: &'a str,
    /// The player.
    pub player: &'a str,
    /// Their side.
    pub side: Side,
    /// The public key the commit must be signed by.
    pub required_key: Option<String>,
    /// The player's email from the game (`WhiteEmail`/`BlackEmail`), for the author.
    pub email: Option<String>,
}

/// Commits `text` as `step.player`'s step (author: the player), signed when required.
/// Nothing is written when signing fails or the branch moved.
pub(super) fn commit_player_step(
    archive: &Archive,
    step: &PlayerStep<'_>,
    text: &str,
    tip: Option<CommitId>,
    message: &str,
    session: &Session,
) -> Result<CommitId, Failure> {
    let author = player_identity(archive, step.player, session, step.email.as_deref());
    let committer = step_committer(archive, session);
    let time = session.now();
    let names = CommitNames { author: &author, author_time: time, committer: &committer, time };
    let change = Change::new(names, tip, message).write(step.file, text.as_bytes());
    let written = match &step.required_key {
        None => archive.commit(&change),
        Some(public_key) => {
            let key = match session.signing_key.clone() {
                Some(k) => k,
                None => archive.git_signing_key()?.ok_or_else(|| Failure::NoSigningKey {
                    player: step.player.to_string(),
                    id: step.id.to_string(),
                    tag: signing_key_tag(step.side),
                })?,
            };
            let signer = SshSigner::new(key)
                .with_home(session.home.clone())
                .expecting(public_key.clone())
                .labelled(format!("{}'s key ({})", step.player, signing_key_tag(step.side)));
            archive.commit(&change.signed(Some(&signer)))
        }
    };
    match written {
        Ok(c) => Ok(c),
        Err(ArchiveError::Moved { .. }) => Err(Failure::MovedOn { id: step.id.to_string() }),
        Err(e) => Err(e.into()),
    }
}

/// A player's name becomes a tag value and a commit author: it must be a usable git
/// author name.
fn check_player_name(what: &str, name: &str) -> Result<(), Failure> {
    let bad = if name.trim().is_empty() {
        Some("is empty")
    } else if name.contains(['<', '>']) {
        Some("contains `<` or `>` (a name, not `Name <email>`)")
    } else if name.chars().any(char::is_control) {
        Some("contains a control character (a line break?)")
    } else if name != name.trim() {
        Some("starts or ends with spaces")
    } else {
        None
    };
    match bad {
        Some(why) => {
            Err(Failure::Usage(format!("{what} `{}`: the player's name {why}", name.escape_debug())))
        }
        None => Ok(()),
    }
}

/// A game id is a file name: letters, digits, `-`, `_`, `.`; not ending in `.pgn`.
fn check_id(id: &str) -> Result<(), Failure> {
    let ok = !id.is_empty()
        && !id.starts_with('.')
        && !id.ends_with(".pgn")
        && id.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if ok {
        match crate::referee::layout::portability_problem(&format!("{id}.pgn")) {
            Some(why) => Err(Failure::Usage(format!("--id `{id}`: {why}"))),
            None => Ok(()),
        }
    } else {
        Err(Failure::Usage(format!(
            "--id `{}`: use letters, digits, `-`, `_` and `.`, not starting with `.` and without `.pgn` (added for you)",
            id.escape_debug()
        )))
    }
}

/// `ravenpost init [DIR]`.
pub fn init(
    session: &Session,
    dir: Option<PathBuf>,
    diagrams: crate::archive::Diagrams,
) -> Result<String, Failure> {
    let dir = match dir {
        Some(d) => d,
        None => session.cwd.clone(),
    };
    init_club(session, Some(dir), diagrams, ClubSetup::default())
}

/// The git server accounts `ravenpost init` writes into `ravenpost.yaml` (README "Running
/// a club server").
#[derive(Debug, Clone, Default)]
pub struct ClubSetup {
    /// `--admin ACCOUNT`: the accounts that may push the archive's set-up.
    pub admins: Vec<String>,
    /// `--account NAME=ACCOUNT`: a player's account(s), for games without account tags.
    pub accounts: Vec<(String, String)>,
    /// `--layout`: where game files go (default: the fan-out of new archives).
    pub layout: Option<crate::archive::Layout>,
}

/// `ravenpost init [--admin ACCOUNT]… [--account NAME=ACCOUNT]…`: as [`init`], with the
/// club's server accounts in `ravenpost.yaml`.
///
/// # Errors
/// A bad account name, and [`init`]'s errors.
pub fn init_club(
    session: &Session,
    dir: Option<PathBuf>,
    diagrams: crate::archive::Diagrams,
    club: ClubSetup,
) -> Result<String, Failure> {
    let dir = match dir {
        Some(d) => d,
        None => session.cwd.clone(),
    };
    let mut config = crate::archive::ArchiveConfig { diagrams, ..Default::default() };
    if let Some(layout) = club.layout {
        config.layout = layout;
    }
    for a in club.admins {
        crate::referee::players::check_account(&a)
            .map_err(|e| Failure::Usage(format!("--admin `{a}`: {e}")))?;
        if !config.admins.contains(&a) {
            config.admins.push(a);
        }
    }
    for (name, account) in club.accounts {
        check_player_name("--account", &name)?;
        crate::referee::players::check_account(&account)
            .map_err(|e| Failure::Usage(format!("--account {name}=`{account}`: {e}")))?;
        let list = config.accounts.entry(name).or_default();
        if !list.contains(&account) {
            list.push(account);
        }
    }
    let options = crate::archive::ArchiveOptions { pin_line_endings: true, ..Default::default() };
    let a = Archive::init_with_config(&dir, &config, None, session.now(), options)?;
    Ok(format!("Initialised a ravenpost archive in {}", a.dir().display()))
}

/// Options of `ravenpost new`.
pub struct NewGame {
    /// Variant name: built-in, or a definition of the archive (`variants/<name>.md`).
    pub variant: String,
    /// A definition file to play instead (`--variant-file`): committed as
    /// `variants/<slug>.md` first unless the archive has it, and pinned by the game.
    pub variant_file: Option<PathBuf>,
    /// First player.
    pub white: String,
    /// Second player.
    pub black: String,
    /// Game options K=V.
    pub options: Vec<(String, String)>,
    /// Armies (Fantasy Grand Chess).
    pub armies: Option<(String, String)>,
    /// Game id.
    pub id: Option<String>,
    /// `Event` tag.
    pub event: Option<String>,
    /// `TimeControl` tag.
    pub time_control: Option<String>,
    /// The players' SSH public keys (White, Black), each a key line or a `.pub` file: that
    /// player's steps must be signed (`WhiteSigningKey` / `BlackSigningKey` tags).
    pub keys: [Option<String>; 2],
    /// Fantasy Grand Chess: the players choose their armies in secret (commit–reveal)
    /// before the game file exists.
    pub secret_armies: bool,
    /// `WhiteEmail` and `BlackEmail` tags: the players' email addresses.
    pub emails: [Option<String>; 2],
    /// `WhiteAccount` and `BlackAccount` tags: the players' accounts on the club's git
    /// server (one or more, separated by commas), the only ones that may push their steps.
    pub accounts: [Option<String>; 2],
    /// The seed of a 960-style start (a definition's `castling.chess960`): the start it
    /// names is written as the game's `SetUp` and `FEN` tags. `None`: drawn from the
    /// operating system's random numbers.
    pub seed: Option<u64>,
}

/// A public key given on the command line: a key line, or the path of a file holding one.
fn read_public_key(what: &str, given: &str) -> Result<String, Failure> {
    let line = if given.trim().contains('\n') {
        return Err(Failure::Usage(format!("{what}: one key line expected, got several lines")));
    } else if is_public_key(given) {
        given.trim().to_string()
    } else {
        let text = std::fs::read_to_string(given).map_err(|e| {
            Failure::Usage(format!(
                "{what} {given}: neither an SSH public key line nor a readable file ({e})"
            ))
        })?;
        text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default().trim().to_string()
    };
    if !is_public_key(&line) {
        return Err(Failure::Usage(format!(
            "{what} {given}: not an OpenSSH public key (expected a line like `ssh-ed25519 AAAA… comment`; a private key? use its .pub file)"
        )));
    }
    Ok(line)
}

/// A new game's tags as `ravenpost new` writes them, checked: the variant's title and
/// slug, the date, and the tag pairs (`Round` is `-`).
pub(super) struct NewTags {
    /// The variant's title, for the commit message.
    pub title: String,
    /// The variant's slug (its folder).
    pub slug: String,
    /// The `Date` tag.
    pub date: String,
    /// Every tag pair, in the order written.
    pub tags: Vec<(String, String)>,
    /// A user-defined variant's definition, and whether its file must first be committed
    /// (given with `--variant-file` and not yet in the archive).
    pub user: Option<UserVariant>,
}

/// A user-defined variant's definition, and whether its file must first be committed
/// ([`NewTags::user`]).
pub(super) type UserVariant = (crate::variants::Definition, bool);

/// The checked tags of the game `n` would make, at `time`.
///
/// # Errors
/// [`Failure::Usage`] for a flag that does not check out; the archive's errors.
pub(super) fn new_game_tags(archive: &Archive, n: &NewGame, time: Timestamp) -> Result<NewTags, Failure> {
    check_new_game_flags(archive, n)?;
    let (variant, user) = new_game_variant(archive, n)?;
    let slug_v = variant.def().slug.clone();
    let date =
        time.to_datetime().map(|d| d.format("%Y.%m.%d").to_string()).unwrap_or_else(|| "????.??.??".into());
    let config = archive.config()?;
    let mut tags = game_tags(n, &config, &date, &slug_v, user.as_ref().map(|(d, _)| d));
    push_signing_keys(n, &mut tags)?;
    for (side, e) in Side::ALL.into_iter().zip(&n.emails) {
        if let Some(e) = e {
            tags.push((email_tag(side), e.clone()));
        }
    }
    push_accounts(n, &config, &mut tags)?;
    push_drawn_start(n, &variant, &mut tags)?;
    let tags: Vec<(String, String)> = tags.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    if n.secret_armies {
        check_secret_armies(n, &slug_v, &tags)?;
    }
    Ok(NewTags { title: variant.def().title.clone(), slug: slug_v, date, tags, user })
}

/// Adds the `SetUp` and `FEN` tags of a game whose start is drawn 960-style: the start
/// `n.seed` names, or one drawn with a seed from the operating system.
///
/// # Errors
/// [`Failure::Usage`] for a seed given for a variant whose start is not drawn; no random
/// numbers from the system.
fn push_drawn_start(
    n: &NewGame,
    variant: &crate::engine::Variant,
    tags: &mut Vec<(&'static str, String)>,
) -> Result<(), Failure> {
    if crate::engine::shuffle::castling_rank(variant.def()).is_none() {
        return match n.seed {
            Some(_) => Err(Failure::Usage(format!(
                "--seed: {} has no 960-style start (its definition's castling has no `chess960: true`)",
                variant.def().title
            ))),
            None => Ok(()),
        };
    }
    let seed = match n.seed {
        Some(s) => s,
        None => {
            let mut b = [0u8; 8];
            getrandom::fill(&mut b)
                .map_err(|e| Failure::Declined(format!("no random numbers from the system: {e}")))?;
            u64::from_le_bytes(b)
        }
    };
    let start = crate::engine::shuffle::draw(variant, seed).ok_or_else(|| {
        Failure::Usage(format!("{}: no start obeys the 960-style rules", variant.def().title))
    })?;
    tags.push(("SetUp", "1".into()));
    tags.push(("FEN", crate::notation::position_string::write_position(variant, &start)));
    Ok(())
}

/// Checks the players' names (two different ones), the game id (no other game's but for
/// case), the email addresses and the time control `n` gives.
///
/// # Errors
/// [`Failure::Usage`] for the first that does not check out; the archive's errors.
fn check_new_game_flags(archive: &Archive, n: &NewGame) -> Result<(), Failure> {
    for (what, name) in [("--white", &n.white), ("--black", &n.black)] {
        check_player_name(what, name)?;
    }
    // The event is shown in every display of the game: no terminal escape, no invisible
    // or direction mark in it.
    if let Some(event) = &n.event
        && let Some(c) = event.chars().find(|c| crate::notation::pgn::is_invisible(*c))
    {
        return Err(Failure::Usage(format!(
            "--event `{}`: the event's name may not hold the invisible character {}",
            crate::notation::pgn::visible(event),
            c.escape_unicode()
        )));
    }
    if n.white == n.black {
        return Err(Failure::Usage(format!(
            "--white and --black are both `{}`: the two players must have different names",
            n.white
        )));
    }
    if let Some(id) = &n.id {
        check_id(id)?;
        let ids: Vec<GamePath> = archive.list_games()?;
        if let Some(other) = crate::referee::layout::case_collision(id, ids.iter().map(GamePath::id))
            .filter(|o| *o != id.as_str())
        {
            return Err(Failure::Usage(format!(
                "--id `{id}`: the archive has a game `{other}`, which differs only in case: on macOS and Windows the two files would be one"
            )));
        }
    }
    for (flag, e) in ["--white-email", "--black-email"].iter().zip(&n.emails) {
        if let Some(e) = e {
            crate::referee::players::check_address(e)
                .map_err(|why| Failure::Usage(format!("{flag} `{e}`: {why}")))?;
        }
    }
    if let Some(tc) = &n.time_control {
        crate::notation::time_control::parse(tc)
            .map_err(|e| Failure::Usage(format!("--time-control: {e}")))?;
    }
    Ok(())
}

/// The variant of the game `n` would make, with its options and armies, and a
/// user-defined variant's definition (as [`NewTags::user`]).
///
/// # Errors
/// [`Failure::Usage`] for a variant file that does not read or a variant that does not
/// build; the archive's errors, and those of the definition.
fn new_game_variant(
    archive: &Archive,
    n: &NewGame,
) -> Result<(std::sync::Arc<crate::engine::Variant>, Option<UserVariant>), Failure> {
    let mut options = n.options.clone();
    if let Some((w, b)) = &n.armies {
        options.push(("army-white".into(), w.clone()));
        options.push(("army-black".into(), b.clone()));
    }
    let tip = archive.tip()?;
    let given = match &n.variant_file {
        Some(f) => Some((
            f.display().to_string(),
            std::fs::read_to_string(f)
                .map_err(|e| Failure::Usage(format!("--variant-file {}: {e}", f.display())))?,
        )),
        None => None,
    };
    let user = super::definitions::definition_for_new(
        archive,
        tip,
        &n.variant,
        given.as_ref().map(|(f, t)| (f.as_str(), t.as_str())),
    )?;
    let variant = match &user {
        Some((d, _)) => d.variant(&options),
        None => crate::variants::by_name(&n.variant, &options),
    }
    .map_err(|e| Failure::Usage(e.to_string()))?;
    Ok((variant, user))
}

/// The tags of the game `n` would make that need no checking, in the order written: the
/// seven tag roster (`Round` is `-`, `Event` and `Site` from `config` unless given), the
/// variant `slug` and the ruleset, a user-defined variant's file and hash (`user`, the
/// definition then pinned), the armies, the options and the time control.
fn game_tags(
    n: &NewGame,
    config: &ArchiveConfig,
    date: &str,
    slug: &str,
    user: Option<&crate::variants::Definition>,
) -> Vec<(&'static str, String)> {
    let mut tags = vec![
        ("Event", n.event.clone().or(config.event.clone()).unwrap_or_else(|| "?".into())),
        ("Site", config.site.clone().unwrap_or_else(|| "?".into())),
        ("Date", date.to_string()),
        ("Round", "-".into()),
        ("White", n.white.clone()),
        ("Black", n.black.clone()),
        ("Result", "*".into()),
        ("Variant", slug.to_string()),
        ("Ruleset", RULESET.into()),
    ];
    if let Some(d) = user {
        tags.push(("VariantFile", crate::referee::layout::definition_path(slug)));
        tags.push(("VariantHash", d.hash().to_string()));
    }
    if let Some((w, b)) = &n.armies {
        tags.push(("WhiteArmy", w.clone()));
        tags.push(("BlackArmy", b.clone()));
    }
    let game_options: Vec<String> = n.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
    if !game_options.is_empty() {
        tags.push(("GameOptions", game_options.join(" ")));
    }
    if let Some(tc) = n.time_control.clone().or(config.time_control.clone()) {
        tags.push(("TimeControl", tc));
    }
    tags
}

/// Adds the players' signing keys `n` gives to `tags` (`WhiteSigningKey`,
/// `BlackSigningKey`), two different keys when both are given.
///
/// # Errors
/// [`Failure::Usage`] for a key that does not read, or the same key twice.
fn push_signing_keys(n: &NewGame, tags: &mut Vec<(&'static str, String)>) -> Result<(), Failure> {
    if let (Some(w), Some(b)) = (&n.keys[0], &n.keys[1]) {
        let key_of = |k: &str, f: &str| {
            read_public_key(f, k).map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        };
        if key_of(w, "--white-key")? == key_of(b, "--black-key")? {
            return Err(Failure::Usage(
                "--white-key and --black-key are the same key: each player signs with their own".into(),
            ));
        }
    }
    for (side, (flag, key)) in
        Side::ALL.into_iter().zip([("--white-key", &n.keys[0]), ("--black-key", &n.keys[1])])
    {
        if let Some(k) = key {
            tags.push((signing_key_tag(side), read_public_key(flag, k)?));
        }
    }
    Ok(())
}

/// Adds the players' accounts `n` gives to `tags` (`WhiteAccount`, `BlackAccount`),
/// checked: valid names, none of them both players', and each the player's own where
/// `config` registers accounts.
///
/// # Errors
/// [`Failure::Usage`] for the first that does not check out.
fn push_accounts(
    n: &NewGame,
    config: &ArchiveConfig,
    tags: &mut Vec<(&'static str, String)>,
) -> Result<(), Failure> {
    for ((side, flag), given) in
        Side::ALL.into_iter().zip(["--white-account", "--black-account"]).zip(&n.accounts)
    {
        if let Some(given) = given {
            let accounts = crate::referee::players::split_accounts(given);
            if accounts.is_empty() {
                return Err(Failure::Usage(format!("{flag}: no account name given")));
            }
            for a in &accounts {
                crate::referee::players::check_account(a)
                    .map_err(|e| Failure::Usage(format!("{flag} `{a}`: {e}")))?;
            }
            tags.push((crate::referee::players::account_tag(side), accounts.join(", ")));
        }
    }
    if let ([Some(w), Some(b)], split) = (&n.accounts, crate::referee::players::split_accounts)
        && let Some(both) = split(w).into_iter().find(|a| split(b).contains(a))
    {
        return Err(Failure::Usage(format!(
            "--white-account and --black-account both list `{both}`: each player pushes from their own account"
        )));
    }
    // Where ravenpost.yaml registers accounts, a game may name only the player's own.
    let given = |k: usize| n.accounts[k].as_deref();
    if let Some(p) = crate::referee::players::registry_problem(
        &config.club_accounts(),
        [(&n.white, given(0)), (&n.black, given(1))],
    ) {
        let flag = if matches!(&p, crate::referee::Problem::AccountNotRegistered { white: false, .. }) {
            "--black-account"
        } else {
            "--white-account"
        };
        return Err(Failure::Usage(format!("{flag}: {p}")));
    }
    Ok(())
}

/// Checks that the game `n` would make, of the variant `slug` with `tags`, can have its
/// armies chosen in secret (`--secret-armies`): Fantasy Grand Chess, no armies given.
///
/// # Errors
/// [`Failure::Usage`] when it cannot.
fn check_secret_armies(n: &NewGame, slug: &str, tags: &[(String, String)]) -> Result<(), Failure> {
    if slug != ArmyChoice::VARIANT {
        return Err(Failure::Usage(format!(
            "--secret-armies: only Fantasy Grand Chess has armies, not {slug}"
        )));
    }
    if n.armies.is_some() || n.options.iter().any(|(k, _)| k.starts_with("army-")) {
        return Err(Failure::Usage(
            "--secret-armies: leave out --army-white, --army-black and army options (the players choose)"
                .into(),
        ));
    }
    if let Some(p) = crate::referee::army::choice_tags_problem(&tags.iter().cloned().collect()) {
        return Err(Failure::Usage(format!("--secret-armies: {p}")));
    }
    Ok(())
}

/// The canonical text of a new game with `tags`, played with `user`'s definition when
/// given (the game pins it).
///
/// # Errors
/// [`Failure::Refused`] for tags that do not make a game.
pub(super) fn new_game_text(
    tags: &[(String, String)],
    user: Option<&UserVariant>,
) -> Result<String, Failure> {
    let mut definitions = crate::variants::Definitions::new();
    if let Some((d, _)) = user {
        definitions.insert(d.clone());
    }
    Ok(super::definitions::load(&definitions, &game_text_from_tags(tags))?.canonical_text())
}

/// `ravenpost new`: writes the game file with its tags and commits it.
pub fn new_game(archive: &Archive, n: NewGame, session: &Session) -> Result<(GamePath, CommitId), Failure> {
    let time = session.now();
    let NewTags { title, slug: slug_v, date, tags, user } = new_game_tags(archive, &n, time)?;
    let canonical = if n.secret_armies { String::new() } else { new_game_text(&tags, user.as_ref())? };
    let base_id =
        n.id.clone()
            .unwrap_or_else(|| format!("{}-{}-{}", date.replace('.', ""), slug(&n.white), slug(&n.black)));
    let mut existing: Vec<String> = archive.list_games()?.iter().map(|g| g.id().to_string()).collect();
    existing.extend(archive.list_army_choices()?);
    let mut id = base_id.clone();
    if n.id.is_none() {
        let mut k = 2;
        while existing.contains(&id) {
            id = format!("{base_id}-{k}");
            k += 1;
        }
    } else if existing.contains(&id) {
        return Err(Failure::Usage(format!("--id {id}: the archive already has a game {id}")));
    }
    let layout = archive.layout()?;
    let path = GamePath::in_layout(layout, &slug_v, &id)?;
    let tip = archive.tip()?;
    let message = format!("{id}: new {} game, {} v {}", title, n.white, n.black);
    // Without a configured identity the game is created under the first player's name,
    // as their moves are.
    let creator = match archive.identity(session.identity()) {
        Ok(id) => id,
        Err(_) => player_identity(archive, &n.white, session, n.emails[0].as_deref()),
    };
    // A definition given with --variant-file goes into the archive in a commit of its own.
    let tip = match &user {
        Some((d, true)) => Some(archive.create_file(
            &crate::referee::layout::definition_path(&slug_v),
            d.text(),
            tip,
            Some(&creator),
            time,
            &format!("variants: add {slug_v} ({})", d.hash()),
        )?),
        _ => tip,
    };
    let commit = if n.secret_armies {
        let choice = ArmyChoice::new(&n.white, &n.black, tags.into_iter().collect());
        let message = format!("{id}: new {} game, {} v {}, armies chosen in secret", title, n.white, n.black);
        archive.create_file(
            &ArmyChoice::path(layout, &id),
            choice.to_yaml(),
            tip,
            Some(&creator),
            time,
            &message,
        )?
    } else {
        archive.create_file(&path.path(), &canonical, tip, Some(&creator), time, &message)?
    };
    Ok((path, commit))
}

/// Who acts when `--as` is not given: the committing identity if it is one of the game's
/// players (so a player's clone never moves for the opponent by accident), else nobody
/// in particular (a referee's or a shared archive: the player to move acts).
fn acting_player(archive: &Archive, game: &Game, who: Option<&str>, session: &Session) -> Option<String> {
    if let Some(w) = who {
        return Some(w.to_string());
    }
    let me = archive.identity(session.identity()).ok()?;
    side_of_person(game, &me.name, &me.email).map(|s| record::player(game, s))
}

/// One player's change to a game at the tip, under the write lock: finds the game, reads
/// and replays it once, checks that a step with no player named is not played for the
/// other side by the identity that made the game's last step ([`check_unknown_actor`]),
/// lets `change` decide (given the text, the game, and who acts: `--as`, else the
/// committing identity if it is a player), and commits the result.
pub(super) fn change_game(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    step: StepKind,
    session: &Session,
    change: impl FnOnce(&str, &Game, Option<&str>) -> Result<Applied, Failure>,
) -> Result<Applied, Failure> {
    change_game_checked(archive, game, who, step, session, |_, _| Ok(()), change)
}

/// [`change_game`], with `first` asked before anything else about the game as read
/// (`move`: the game's last ply given again).
fn change_game_checked(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    step: StepKind,
    session: &Session,
    first: impl FnOnce(&GamePath, &Game) -> Result<(), Failure>,
    change: impl FnOnce(&str, &Game, Option<&str>) -> Result<Applied, Failure>,
) -> Result<Applied, Failure> {
    let path = find(archive, game)?;
    let _lock = archive.lock()?;
    let (text, tip) = read(archive, &path)?;
    let game = super::definitions::load_pinned_at(archive, tip, path.id(), &text)?;
    first(&path, &game)?;
    let who = acting_player(archive, &game, who, session);
    let guarded = who.is_none() && !step.said_whose();
    // A move is guarded first (the same move typed twice is refused as such, not as an
    // illegal move for the other side); another step is first judged by its own rules,
    // so that a claim or answer refused anyway says why.
    if guarded && matches!(step, StepKind::Move { .. }) {
        check_unknown_actor(archive, &path, &game, step, session)?;
    }
    let applied = change(&text, &game, who.as_deref())?;
    if guarded && !matches!(step, StepKind::Move { .. }) {
        check_unknown_actor(archive, &path, &game, step, session)?;
    }
    commit_applied(archive, &path, tip, &applied, &game, session)?;
    Ok(applied)
}

/// `ravenpost move`.
///
/// # Errors
/// [`Failure::Refused`] when the rules refuse it; [`Failure::MovedOn`]; the archive's errors.
pub fn play(
    archive: &Archive,
    game: &str,
    token: &str,
    who: Option<&str>,
    expect_ply: Option<usize>,
    session: &Session,
) -> Result<Applied, Failure> {
    let mut steps = play_with(archive, game, token, who, expect_ply, &WithMove::default(), session)?;
    Ok(steps.pop().expect("the move"))
}

/// What goes with a move (`move --offer-draw`, `move --comment`).
#[derive(Debug, Clone, Default)]
pub struct WithMove {
    /// Offer a draw with the move: the offer is committed first, as `draw offer` does,
    /// then the move, which carries it (two steps, each judged as the hook judges it).
    pub offer_draw: bool,
    /// The player's comment to the opponent, kept in the record after the move.
    pub comment: Option<String>,
}

/// `ravenpost move` with what goes with it ([`WithMove`]): the steps committed, oldest
/// first (the draw offer, if any, then the move). Both are judged before either is
/// committed, under one lock: an illegal move writes no offer.
///
/// # Errors
/// As [`play`].
pub fn play_with(
    archive: &Archive,
    game: &str,
    token: &str,
    who: Option<&str>,
    expect_ply: Option<usize>,
    with: &WithMove,
    session: &Session,
) -> Result<Vec<Applied>, Failure> {
    let options = record::MoveOptions {
        diagram: archive.config()?.diagrams == crate::archive::Diagrams::EveryMove,
        at: Some(session.now().unix_seconds()),
        prepared: false,
    };
    let path = find(archive, game)?;
    let _lock = archive.lock()?;
    let (text, tip) = read(archive, &path)?;
    let loaded = super::definitions::load_pinned_at(archive, tip, path.id(), &text)?;
    already_recorded(archive, &path, &loaded, token)?;
    let who = acting_player(archive, &loaded, who, session);
    let step = StepKind::Move { expect_ply };
    if who.is_none() && !step.said_whose() {
        check_unknown_actor(archive, &path, &loaded, step, session)?;
    }
    let who = who.as_deref();
    let token = move_token_for(&loaded, token)?;
    let offered = if with.offer_draw {
        // The move's own refusal first (not your turn, illegal), as without the offer.
        record::play(
            &loaded,
            token,
            record::Play { who, expect_ply, unwritten: true, ..record::Play::default() },
        )?;
        match record::draw(&loaded, who, DrawAction::Offer) {
            // Offered already (`draw offer` before): the move carries that offer.
            Err(record::Refusal::AlreadyOffered) => None,
            other => Some(other?),
        }
    } else {
        None
    };
    let before = offered.as_ref().map_or(&loaded, |(_, g)| g);
    let how = record::Play {
        who,
        expect_ply,
        options,
        comment: with.comment.as_deref(),
        ..record::Play::default()
    };
    let (moved, _) = record::play(before, token, how)?;
    let mut steps = Vec::new();
    let mut tip = tip;
    if let Some((offer, _)) = offered {
        tip = Some(commit_applied(archive, &path, tip, &offer, &loaded, session)?);
        steps.push(offer);
    }
    commit_applied(archive, &path, tip, &moved, &loaded, session)?;
    steps.push(moved);
    Ok(steps)
}

/// [`Failure::AlreadyRecorded`] when `token` is the game's last ply given again: the same
/// move with its move number (`1. 2e3` run twice), which is no move for the side to move
/// now. A move without its number is judged as a new move.
fn already_recorded(archive: &Archive, path: &GamePath, game: &Game, token: &str) -> Result<(), Failure> {
    let (Some(number), rest) = crate::notation::san::split_move_number(token) else { return Ok(()) };
    let Some(ply) = game.moves.len().checked_sub(1).map(|i| i + 1) else { return Ok(()) };
    let before = game.position_at(ply - 1);
    let same_number = u32::from(before.fullmove_number()) == number.number
        && number.second == (before.side_to_move() == Side::Black);
    let same_move = same_number
        && crate::notation::san::read_move(&game.variant, &before, rest)
            .is_ok_and(|m| m == game.moves[ply - 1]);
    if !same_move {
        return Ok(());
    }
    // Its recorded time, else its commit's (a file without move times).
    let at = match record::move_times(&game.text).ok().and_then(|t| t.get(ply - 1).copied().flatten()) {
        Some(t) => t,
        None => {
            let index = archive.index()?;
            index.last_version(&path.path()).map_or(0, |v| index.commit_at(v.position).time.unix_seconds())
        }
    };
    let san = crate::notation::san::write_move(&game.variant, &before, &game.moves[ply - 1]);
    let dots = if before.side_to_move() == Side::Black { "..." } else { "." };
    let to_move = game.position().side_to_move();
    Err(Failure::AlreadyRecorded {
        id: path.id().to_string(),
        numbered: format!("{}{dots} {san}", before.fullmove_number()),
        ply,
        at: crate::referee::problem::rfc3339(&crate::referee::problem::time_from_unix(at)),
        to_move: record::named(game, to_move),
    })
}

/// The move token of `token`, read without its move number (`17... Mbh8`) when the
/// number is that of the game's next ply; a number for another ply is refused, saying
/// which number the next ply has.
fn move_token_for<'t>(game: &Game, token: &'t str) -> Result<&'t str, Failure> {
    let (number, rest) = crate::notation::san::split_move_number(token);
    let Some(n) = number else { return Ok(token) };
    let position = game.position();
    let side = position.side_to_move();
    let expected = u32::from(position.fullmove_number());
    let second = side == Side::Black;
    if n.number == expected && n.second == second {
        return Ok(rest);
    }
    let write = |number: u32, second: bool| format!("{number}{}", if second { "..." } else { "." });
    Err(Failure::Declined(format!(
        "`{token}`: the move number {} is not the next ply's: ply {} is move {} by {} (write `{} {rest}`, or the move alone); nothing was written",
        write(n.number, n.second),
        game.moves.len() + 1,
        write(expected, second),
        record::named(game, side),
        write(expected, second),
    )))
}

/// Which step a game command takes, for [`check_unknown_actor`]: whose step it is when
/// no player is named, and how the refusal says to name one.
#[derive(Debug, Clone, Copy)]
pub(super) enum StepKind {
    /// `move`, with its `--expect-ply` if given.
    Move {
        /// The ply the mover means to play.
        expect_ply: Option<usize>,
    },
    /// `resign`.
    Resign,
    /// `draw offer|accept|decline|claim`.
    Draw(DrawAction),
    /// `claim timeout`: the waiting player's step.
    ClaimTimeout,
    /// `leave`: its player is always named.
    Leave,
}

impl StepKind {
    /// Whether the command itself says whose step it is (`--expect-ply`, or leave's
    /// `--as`), so no guard is needed.
    fn said_whose(self) -> bool {
        matches!(self, StepKind::Move { expect_ply: Some(_) } | StepKind::Leave)
    }

    /// The side this step acts for when no player is named.
    fn side(self, game: &Game) -> Side {
        let to_move = game.position().side_to_move();
        match self {
            StepKind::ClaimTimeout => to_move.opponent(),
            _ => to_move,
        }
    }

    /// What the step does for `player`, e.g. `play Bo's ply 2`.
    fn doing(self, player: &str, next: usize) -> String {
        match self {
            StepKind::Move { .. } => format!("play {player}'s ply {next}"),
            StepKind::Resign => format!("resign for {player}"),
            StepKind::Draw(DrawAction::Offer) => format!("offer a draw for {player}"),
            StepKind::Draw(DrawAction::Accept) => format!("accept the draw for {player}"),
            StepKind::Draw(DrawAction::Decline) => format!("decline the draw for {player}"),
            StepKind::Draw(DrawAction::Claim) => format!("claim a draw for {player}"),
            StepKind::ClaimTimeout => format!("claim on time for {player}"),
            StepKind::Leave => format!("book leave for {player}"),
        }
    }
}

/// The one "who moves" guard of every step (`move`, `resign`, `draw`, `claim timeout`)
/// given with no `--as` (and, for a move, no `--expect-ply`) by a committing identity
/// that is no player: the step acts for the side whose step it is (the side to move; for
/// a timeout claim the waiting side), unless that identity made the game's last step and
/// that step was the other side's: then the same command given twice, or a referee's
/// command after its own step, would play both sides, so it is refused, saying how to
/// name the player meant. (Without any identity, steps are committed under the players'
/// `@ravenpost.invalid` addresses: one such last step counts as this identity's. A
/// step's author name is always its player's.) The last step is this identity's when its
/// committer is (the author is the player it was played for; without any identity steps
/// are committed by [`Identity::ravenpost`]; ravenpost 0.1 made author and committer the
/// same). A game whose acting side must sign needs no more: the key says whose step it is.
fn check_unknown_actor(
    archive: &Archive,
    path: &GamePath,
    game: &Game,
    step: StepKind,
    session: &Session,
) -> Result<(), Failure> {
    let index = archive.index()?;
    // The last step, not a migration's move of the file.
    let Some(last) = super::layout::game_versions(&index, path).last().copied() else { return Ok(()) };
    let last = index.commit_at(last.position);
    let me = archive.identity(session.identity()).ok();
    // Whose command made the last step: its committer (the author is the player it was
    // played for); ravenpost 0.1 made them the same.
    let committer = archive.committer_of(last.commit)?;
    let mine = match &me {
        Some(me) => committer.email == me.email,
        None => {
            committer.email == Identity::ravenpost().email
                || last.author_email.ends_with("@ravenpost.invalid")
        }
    };
    let side = step.side(game);
    let player = record::player(game, side);
    // A step that must be signed by the acting side's key says whose it is by that key.
    if !mine
        || game.moves.is_empty()
        || *last.author_name == *player
        || game.text.tag(signing_key_tag(side)).is_some()
    {
        return Ok(());
    }
    let next = game.moves.len() + 1;
    let id = path.id();
    let last_step = last.message.lines().next().unwrap_or_default().trim_start_matches(&format!("{id}: "));
    let who = match &me {
        Some(me) => format!(
            "{} <{}> is not a player of this game and made its last step ({last_step})",
            me.name, me.email
        ),
        None => format!(
            "no identity is set (git's user.name and user.email, or --author), and the game's last step ({last_step}) was made without one too"
        ),
    };
    let (question, how) = match step {
        StepKind::Move { .. } => ("move", format!("`--as {player}` or `--expect-ply {next}`")),
        _ => ("step", format!("`--as {player}`")),
    };
    Err(Failure::Declined(format!(
        "{id}: whose {question} is this? {who}, so this would act for the other side too: to {}, say so with {how}; nothing was written",
        step.doing(&player, next),
    )))
}

/// `ravenpost resign`.
///
/// # Errors
/// As [`play`].
pub fn resign(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    session: &Session,
) -> Result<Applied, Failure> {
    change_game(
        archive,
        game,
        who,
        StepKind::Resign,
        session,
        |_, game, who| Ok(record::resign(game, who)?.0),
    )
}

/// `ravenpost draw`.
///
/// # Errors
/// As [`play`].
pub fn draw(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    action: DrawAction,
    session: &Session,
) -> Result<Applied, Failure> {
    change_game(archive, game, who, StepKind::Draw(action), session, |_, game, who| {
        Ok(record::draw(game, who, action)?.0)
    })
}

/// `ravenpost claim timeout`: the waiting player wins if the player to move is over time.
///
/// # Errors
/// [`Failure::Clock`] when the claim is refused; the archive's errors.
pub fn claim_timeout(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    session: &Session,
) -> Result<Applied, Failure> {
    let path = find(archive, game)?;
    let _lock = archive.lock()?;
    let (text, tip) = read(archive, &path)?;
    let loaded = super::definitions::load_pinned_at(archive, tip, path.id(), &text)?;
    let acting = acting_player(archive, &loaded, who, session);
    let who = acting.as_deref();
    let clock = super::clock::clock_of_game(archive, &path, &loaded, session.now().unix_seconds())?;
    let why = check_timeout_claim(path.id(), &loaded, who, clock.as_ref())?;
    let (applied, _) = record::time_forfeit(&loaded, who, &why)?;
    if who.is_none() {
        check_unknown_actor(archive, &path, &loaded, StepKind::ClaimTimeout, session)?;
    }
    commit_applied(archive, &path, tip, &applied, &loaded, session)?;
    Ok(applied)
}

/// `ravenpost leave`: books leave for a player.
pub fn leave(
    archive: &Archive,
    game: &str,
    who: &str,
    from: i64,
    days: u32,
    session: &Session,
) -> Result<Applied, Failure> {
    change_game(archive, game, Some(who), StepKind::Leave, session, |_, game, _| {
        check_leave_start(from, session.now().unix_seconds())?;
        Ok(record::book_leave(game, who, from, days)?.0)
    })
}

#[cfg(test)]
mod slug_tests {
    #[test]
    fn default_ids_transliterate_names() {
        assert_eq!(super::slug("Zoë Ünal"), "zoe-unal");
        assert_eq!(super::slug("Ann Example"), "ann-example");
        assert_eq!(super::slug("Łukasz Żółć"), "lukasz-zolc");
        assert_eq!(super::slug("Søren O'Brien"), "soren-o-brien");
        assert_eq!(super::slug("Ярослав"), "iaroslav");
    }
}
