//! The archive commands: `init`, `new`, `move`, `status`, `log`, `resign`, `draw`,
//! `verify`, and game lookup for `show`.
//!
//! Every change is checked by the rules ([`crate::record`]) against the file as
//! it stands at the branch tip, then committed on that tip with a compare-and-swap, so a
//! concurrent change makes this one fail with "the game moved on" and nothing is lost.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::archive::{
    Archive, ArchiveError, ArmyChoice, CommitId, FileVersion, GamePath, Identity, SshSigner, Timestamp,
    default_archive, is_public_key, platform_data_dir, verify_ssh_signature,
};
use crate::engine::Side;
use crate::notation::pgn::{GameReader, GameText, TagPair};
use crate::record::game::RULESET;
use crate::record::{self, Applied, DrawAction, Refusal, Step};

use super::Failure;

impl From<ArchiveError> for Failure {
    fn from(e: ArchiveError) -> Failure {
        let code = match e {
            ArchiveError::Moved { .. } | ArchiveError::Unchanged { .. } | ArchiveError::Signing { .. } => 1,
            _ => 2,
        };
        Failure { message: e.to_string(), code }
    }
}

impl From<Refusal> for Failure {
    fn from(e: Refusal) -> Failure {
        Failure { message: e.to_string(), code: 1 }
    }
}

/// The time commits are stamped with: now, or `RAVENPOST_TIME` (Unix seconds, UTC) for
/// reproducible archives and tests.
pub fn now() -> Timestamp {
    match std::env::var("RAVENPOST_TIME").ok().and_then(|s| s.trim().parse::<i64>().ok()) {
        Some(secs) => Timestamp::from_unix(secs, 0),
        None => Timestamp::now(),
    }
}

/// The archive to work on: `--archive DIR`, else `RAVENPOST_ARCHIVE`, else the repository
/// the command runs in if it is an archive, else the per-user archive. Only with `create`
/// (`ravenpost new`) is a missing default archive made; other commands say where none is.
pub fn open(dir: Option<&Path>, create: bool) -> Result<Archive, Failure> {
    if let Some(d) = dir {
        return Ok(Archive::open(d)?);
    }
    let cwd = std::env::current_dir().map_err(|e| Failure::input(format!("current directory: {e}")))?;
    let env = std::env::var_os("RAVENPOST_ARCHIVE");
    if env.as_ref().is_none_or(|v| v.is_empty()) {
        // Inside a repository that holds an archive, use it or say why not (a detached
        // HEAD, say), never fall back silently to another archive.
        if let Some(dir) =
            cwd.ancestors().find(|d| d.join(".git").exists() && d.join("ravenpost.yaml").exists())
        {
            return Ok(Archive::open(dir)?);
        }
    }
    let data = platform_data_dir();
    if !create {
        let missing = |p: &Path| std::fs::read_dir(p).map(|mut d| d.next().is_none()).unwrap_or(true);
        match env.as_ref().filter(|v| !v.is_empty()) {
            Some(e) => {
                let p = cwd.join(e);
                if missing(&p) {
                    return Err(Failure::input(format!(
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
                    return Err(Failure::input(format!(
                        "no archive here, and your per-user archive ({}) does not exist yet: start a game with \
                         `ravenpost new`, or name an archive with --archive DIR",
                        p.display()
                    )));
                }
            }
        }
    }
    let (archive, _) = default_archive(env.as_deref(), &cwd, data.as_deref(), now())?;
    Ok(archive)
}

/// Finds a game by id (`20261129-ann-bo`), by `variant/id`, or by its path in the archive.
pub fn find(archive: &Archive, game: &str) -> Result<GamePath, Failure> {
    let games = archive.list_games()?;
    let wanted = game.trim_end_matches(".pgn").trim_start_matches("games/");
    let matches: Vec<&GamePath> = games
        .iter()
        .filter(|g| g.id() == wanted || format!("{}/{}", g.variant(), g.id()) == wanted)
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => {
            if archive.list_army_choices()?.iter().any(|id| id == wanted) {
                return Err(Failure {
                    message: format!(
                        "{wanted}: the armies are still being chosen in secret (see `ravenpost status`); the game file is made when both players have revealed (`ravenpost army reveal {wanted}`)"
                    ),
                    code: 1,
                });
            }
            let known: Vec<String> = games.iter().take(10).map(|g| g.id().to_string()).collect();
            Err(Failure::input(format!(
                "no game `{game}` in the archive at {}{}",
                archive.dir().display(),
                if known.is_empty() {
                    " (it has no games yet)".to_string()
                } else {
                    format!(" (games: {})", known.join(", "))
                }
            )))
        }
        many => Err(Failure::input(format!(
            "`{game}` names {} games: write it as variant/id ({})",
            many.len(),
            many.iter().map(|g| format!("{}/{}", g.variant(), g.id())).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// The game's text and the tip it was read at.
fn read(archive: &Archive, path: &GamePath) -> Result<(String, Option<CommitId>), Failure> {
    let tip = archive.tip()?;
    let text = match tip {
        Some(t) => archive.read_file_at(t, &path.path())?,
        None => None,
    };
    let text = text.ok_or_else(|| Failure::input(format!("{}: not in the archive", &path.path())))?;
    Ok((text, tip))
}

/// The author of a player's commit: their name, with the email of the configured
/// identity when the names agree, else `name@ravenpost.invalid`.
fn player_identity(archive: &Archive, player: &str, given: Option<&Identity>) -> Identity {
    match archive.identity(given) {
        Ok(id) if id.name == player => id,
        Ok(id) => Identity::new(player, id.email),
        Err(_) => Identity::new(player, format!("{}@ravenpost.invalid", slug(player))),
    }
}

fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

fn commit_applied(
    archive: &Archive,
    path: &GamePath,
    tip: Option<CommitId>,
    a: &Applied,
    given: Option<&Identity>,
) -> Result<CommitId, Failure> {
    let message = match &a.san {
        Some(san) => format!("{}: ply {} {} ({})", path.id(), a.ply, san, a.summary),
        None => format!("{}: {}", path.id(), a.summary),
    };
    let required =
        record::load(&a.text).ok().and_then(|g| g.text.tag(signing_key_tag(a.side)).map(str::to_string));
    let step = PlayerStep {
        file: &path.path(),
        id: path.id(),
        player: &a.player,
        side: a.side,
        required_key: required,
    };
    commit_player_step(archive, &step, &a.text, tip, &message, given)
}

/// One player's step to commit: which file of which game, by whom, and the SSH public key
/// its commit must be signed with, if the game lists one for that player.
pub(crate) struct PlayerStep<'a> {
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
}

/// Commits `text` as `step.player`'s step (author: the player), signed when required.
/// Nothing is written when signing fails or the branch moved.
pub(crate) fn commit_player_step(
    archive: &Archive,
    step: &PlayerStep<'_>,
    text: &str,
    tip: Option<CommitId>,
    message: &str,
    given: Option<&Identity>,
) -> Result<CommitId, Failure> {
    let author = player_identity(archive, step.player, given);
    let written = match &step.required_key {
        None => archive.commit_file(step.file, text, tip, Some(&author), now(), message),
        Some(public_key) => {
            let key = match SIGNING_KEY.get().cloned().flatten() {
                Some(k) => k,
                None => archive.git_signing_key()?.ok_or_else(|| Failure {
                    message: format!(
                        "{}'s moves in {} must be signed ({} tag): pass --signing-key ~/.ssh/id_ed25519 (or its .pub with the key in ssh-agent), or set `git config user.signingKey`; nothing was written",
                        step.player,
                        step.id,
                        signing_key_tag(step.side)
                    ),
                    code: 1,
                })?,
            };
            let signer = SshSigner::new(key).expecting(public_key.clone()).labelled(format!(
                "{}'s key ({})",
                step.player,
                signing_key_tag(step.side)
            ));
            archive.commit_file_signed(step.file, text, tip, Some(&author), now(), message, &signer)
        }
    };
    match written {
        Ok(c) => Ok(c),
        Err(ArchiveError::Moved { .. }) => Err(Failure {
            message: format!(
                "the game moved on: {} changed while this command ran; nothing was written (look again with `ravenpost show {}`)",
                step.id, step.id
            ),
            code: 1,
        }),
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
            Err(Failure::input(format!("{what} `{}`: the player's name {why}", name.escape_debug())))
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
        Ok(())
    } else {
        Err(Failure::input(format!(
            "--id `{}`: use letters, digits, `-`, `_` and `.`, not starting with `.` and without `.pgn` (added for you)",
            id.escape_debug()
        )))
    }
}

/// `ravenpost init [DIR]`.
pub fn init(dir: Option<PathBuf>, diagrams: crate::archive::Diagrams) -> Result<String, Failure> {
    let dir = match dir {
        Some(d) => d,
        None => std::env::current_dir().map_err(|e| Failure::input(e.to_string()))?,
    };
    let config = crate::archive::ArchiveConfig { diagrams, ..Default::default() };
    let a = Archive::init_with_config(&dir, &config, None, now(), Default::default())?;
    Ok(format!("Initialised a ravenpost archive in {}", a.dir().display()))
}

/// Options of `ravenpost new`.
pub struct NewGame {
    /// Variant name.
    pub variant: String,
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
}

/// The tag that holds `side`'s email address (`WhiteEmail` / `BlackEmail`).
pub fn email_tag(side: Side) -> &'static str {
    if side == Side::White { "WhiteEmail" } else { "BlackEmail" }
}

/// The tag that lists `side`'s SSH public key; when present, every step of that player
/// must be a commit signed by it (issue 7, "Signed moves"; README "Signed moves").
pub fn signing_key_tag(side: Side) -> &'static str {
    if side == Side::White { "WhiteSigningKey" } else { "BlackSigningKey" }
}

/// A claim of a win on time that the recorded times do not support: `new` is the game
/// after the step, `before` its versions up to the step, `at` the claim's commit time.
/// `None` when `new` is no time-forfeit claim or the player to move was over time.
///
/// # Errors
/// [`Failure`] if the earlier versions do not read.
pub fn timeout_claim_problem(before: &[FileVersion], new: &str, at: i64) -> Result<Option<String>, Failure> {
    let Ok(game) = record::load(new) else { return Ok(None) };
    if game.text.tag("Termination").map(str::to_ascii_lowercase).as_deref() != Some("time forfeit") {
        return Ok(None);
    }
    Ok(match clock_of(before, at)? {
        Some(c) if c.overdue => None,
        Some(c) => Some(format!(
            "a win on time was claimed at {}, but {} had until {} ({} left)",
            rfc3339(at),
            c.player,
            c.deadline,
            human(c.seconds_left)
        )),
        None => Some("a win on time was claimed, but no clock runs in this game (no TimeControl)".into()),
    })
}

/// Who acted in a checked step (None for a game's creation, which needs no signature).
pub fn actor(step: &Step) -> Option<&str> {
    match step {
        Step::Created => None,
        Step::Moved { player, .. } | Step::Recorded { player, .. } => Some(player),
    }
}

/// What is wrong with the signature of `commit`, which made the game `text` by a step of
/// `player`: nothing if the game lists no key for that player; otherwise the commit must
/// carry a good SSH signature by the listed key (`ssh-keygen -Y verify`, namespace `git`).
///
/// # Errors
/// [`Failure`] if the commit cannot be read.
pub fn signature_problem(
    archive: &Archive,
    commit: CommitId,
    text: &str,
    player: &str,
) -> Result<Option<String>, Failure> {
    let Ok(game) = record::load(text) else { return Ok(None) };
    let Some(side) = Side::ALL.into_iter().find(|s| record::player(&game, *s) == player) else {
        return Ok(None);
    };
    let tag = signing_key_tag(side);
    let Some(key) = game.text.tag(tag) else { return Ok(None) };
    commit_signature_problem(archive, commit, player, tag, key)
}

/// What is wrong with `commit`'s signature, which must be `player`'s by `key` (listed
/// in the game's `tag`): unsigned, or not a good signature by that key.
///
/// # Errors
/// [`Failure`] if the commit cannot be read.
pub fn commit_signature_problem(
    archive: &Archive,
    commit: CommitId,
    player: &str,
    tag: &str,
    key: &str,
) -> Result<Option<String>, Failure> {
    Ok(match archive.commit_signature(commit)? {
        None => Some(format!("the commit is not signed, but {player}'s steps in this game must be ({tag})")),
        Some(sig) => verify_ssh_signature(&sig.signed_data, &sig.signature, key)
            .err()
            .map(|why| format!("{player}'s signature is not good: {why} ({tag})")),
    })
}

/// `--signing-key` for this run (None: git's `user.signingKey`).
static SIGNING_KEY: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

/// Sets the key `--signing-key` names, once per run.
pub fn set_signing_key(key: Option<String>) {
    let _ = SIGNING_KEY.set(key);
}

/// A public key given on the command line: a key line, or the path of a file holding one.
fn read_public_key(what: &str, given: &str) -> Result<String, Failure> {
    let line = if given.trim().contains('\n') {
        return Err(Failure::input(format!("{what}: one key line expected, got several lines")));
    } else if is_public_key(given) {
        given.trim().to_string()
    } else {
        let text = std::fs::read_to_string(given).map_err(|e| {
            Failure::input(format!(
                "{what} {given}: neither an SSH public key line nor a readable file ({e})"
            ))
        })?;
        text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default().trim().to_string()
    };
    if !is_public_key(&line) {
        return Err(Failure::input(format!(
            "{what} {given}: not an OpenSSH public key (expected a line like `ssh-ed25519 AAAA… comment`; a private key? use its .pub file)"
        )));
    }
    Ok(line)
}

/// `ravenpost new`: writes the game file with its tags and commits it.
pub fn new_game(
    archive: &Archive,
    n: NewGame,
    author: Option<&Identity>,
) -> Result<(GamePath, CommitId), Failure> {
    for (what, name) in [("--white", &n.white), ("--black", &n.black)] {
        check_player_name(what, name)?;
    }
    if n.white == n.black {
        return Err(Failure::input(format!(
            "--white and --black are both `{}`: the two players must have different names",
            n.white
        )));
    }
    if let Some(id) = &n.id {
        check_id(id)?;
    }
    for (flag, e) in ["--white-email", "--black-email"].iter().zip(&n.emails) {
        if let Some(e) = e {
            super::mail_cmds::check_address(e)
                .map_err(|why| Failure::input(format!("{flag} `{e}`: {why}")))?;
        }
    }
    if let Some(tc) = &n.time_control {
        crate::notation::time_control::parse(tc)
            .map_err(|e| Failure::input(format!("--time-control: {e}")))?;
    }
    let mut options = n.options.clone();
    if let Some((w, b)) = &n.armies {
        options.push(("army-white".into(), w.clone()));
        options.push(("army-black".into(), b.clone()));
    }
    let variant =
        crate::variants::by_name(&n.variant, &options).map_err(|e| Failure::input(e.to_string()))?;
    let slug_v = variant.def().slug.clone();
    let time = now();
    let date =
        time.to_datetime().map(|d| d.format("%Y.%m.%d").to_string()).unwrap_or_else(|| "????.??.??".into());
    let config = archive.config()?;
    let mut tags = vec![
        ("Event", n.event.clone().or(config.event.clone()).unwrap_or_else(|| "?".into())),
        ("Site", config.site.clone().unwrap_or_else(|| "?".into())),
        ("Date", date.clone()),
        ("Round", "-".into()),
        ("White", n.white.clone()),
        ("Black", n.black.clone()),
        ("Result", "*".into()),
        ("Variant", slug_v.clone()),
        ("Ruleset", RULESET.into()),
    ];
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
    if let (Some(w), Some(b)) = (&n.keys[0], &n.keys[1]) {
        let key_of = |k: &str, f: &str| {
            read_public_key(f, k).map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        };
        if key_of(w, "--white-key")? == key_of(b, "--black-key")? {
            return Err(Failure::input(
                "--white-key and --black-key are the same key: each player signs with their own",
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
    for (side, e) in Side::ALL.into_iter().zip(&n.emails) {
        if let Some(e) = e {
            tags.push((email_tag(side), e.clone()));
        }
    }
    let tags: Vec<(String, String)> = tags.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    if n.secret_armies {
        if slug_v != ArmyChoice::VARIANT {
            return Err(Failure::input(format!(
                "--secret-armies: only Fantasy Grand Chess has armies, not {slug_v}"
            )));
        }
        if n.armies.is_some() || n.options.iter().any(|(k, _)| k.starts_with("army-")) {
            return Err(Failure::input(
                "--secret-armies: leave out --army-white, --army-black and army options (the players choose)",
            ));
        }
        if let Some(p) = super::army_cmds::choice_tags_problem(&tags.iter().cloned().collect()) {
            return Err(Failure::input(format!("--secret-armies: {p}")));
        }
    }
    let canonical = if n.secret_armies {
        String::new()
    } else {
        record::load(&game_text_from_tags(&tags))?.canonical_text()
    };
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
        return Err(Failure::input(format!("--id {id}: the archive already has a game {id}")));
    }
    let path = GamePath::new(&slug_v, &id)?;
    let tip = archive.tip()?;
    let message = format!("{id}: new {} game, {} v {}", variant.def().title, n.white, n.black);
    // Without a configured identity the game is created under the first player's name,
    // as their moves are.
    let creator = match archive.identity(author) {
        Ok(id) => id,
        Err(_) => player_identity(archive, &n.white, author),
    };
    let commit = if n.secret_armies {
        let choice = ArmyChoice::new(&n.white, &n.black, tags.into_iter().collect());
        let message = format!(
            "{id}: new {} game, {} v {}, armies chosen in secret",
            variant.def().title,
            n.white,
            n.black
        );
        archive.create_file(&ArmyChoice::path(&id), choice.to_yaml(), tip, Some(&creator), time, &message)?
    } else {
        archive.create_file(&path.path(), &canonical, tip, Some(&creator), time, &message)?
    };
    Ok((path, commit))
}

/// A game file with these tag pairs and no moves, in canonical form (not checked).
pub(crate) fn game_text_from_tags(tags: &[(String, String)]) -> String {
    let text = GameText {
        tags: tags
            .iter()
            .map(|(k, v)| TagPair { name: k.clone(), value: v.clone(), span: Default::default() })
            .collect(),
        ..GameText::default()
    };
    crate::notation::pgn::write_game(&text, 1, true)
}

/// Who acts when `--as` is not given: the committing identity if it is one of the game's
/// players (so a player's clone never moves for the opponent by accident), else nobody
/// in particular (a referee's or a shared archive: the player to move acts).
fn acting_player(
    archive: &Archive,
    text: &str,
    who: Option<&str>,
    author: Option<&Identity>,
) -> Option<String> {
    if let Some(w) = who {
        return Some(w.to_string());
    }
    let me = archive.identity(author).ok()?;
    let game = record::load(text).ok()?;
    side_of_identity(&game, &me).map(|s| record::player(&game, s))
}

/// The side `me` plays in `game`: the player whose name is `me`'s name, else the one whose
/// `WhiteEmail`/`BlackEmail` tag is `me`'s address (case-insensitive), so that "Ann
/// <ann@example.org>" is recognised as the player "Ann Example <ann@example.org>".
pub(crate) fn side_of_identity(game: &crate::record::game::Game, me: &Identity) -> Option<Side> {
    Side::ALL.into_iter().find(|s| record::player(game, *s) == me.name).or_else(|| {
        Side::ALL.into_iter().find(|s| {
            game.text.tag(email_tag(*s)).is_some_and(|e| e.trim().eq_ignore_ascii_case(me.email.trim()))
        })
    })
}

/// `ravenpost move`.
pub fn play(
    archive: &Archive,
    game: &str,
    token: &str,
    who: Option<&str>,
    expect_ply: Option<usize>,
    author: Option<&Identity>,
) -> Result<Applied, Failure> {
    let path = find(archive, game)?;
    let _lock = archive.lock()?;
    let (text, tip) = read(archive, &path)?;
    let who = acting_player(archive, &text, who, author);
    let options = record::MoveOptions {
        diagram: archive.config()?.diagrams == crate::archive::Diagrams::EveryMove,
        at: Some(now().unix_seconds()),
    };
    let applied = record::play_move_with(&text, token, who.as_deref(), expect_ply, options)?;
    commit_applied(archive, &path, tip, &applied, author)?;
    Ok(applied)
}

/// `ravenpost resign`.
pub fn resign(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    author: Option<&Identity>,
) -> Result<Applied, Failure> {
    let path = find(archive, game)?;
    let _lock = archive.lock()?;
    let (text, tip) = read(archive, &path)?;
    let who = acting_player(archive, &text, who, author);
    let applied = record::resign(&text, who.as_deref())?;
    commit_applied(archive, &path, tip, &applied, author)?;
    Ok(applied)
}

/// `ravenpost draw`.
pub fn draw(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    action: DrawAction,
    author: Option<&Identity>,
) -> Result<Applied, Failure> {
    let path = find(archive, game)?;
    let _lock = archive.lock()?;
    let (text, tip) = read(archive, &path)?;
    let who = acting_player(archive, &text, who, author);
    let applied = record::draw(&text, who.as_deref(), action)?;
    commit_applied(archive, &path, tip, &applied, author)?;
    Ok(applied)
}

/// One line of `ravenpost status`.
#[derive(Debug, Serialize)]
pub struct StatusLine {
    /// Game id.
    pub id: String,
    /// Variant slug.
    pub variant: String,
    /// First player.
    pub white: String,
    /// Second player.
    pub black: String,
    /// Plies played.
    pub ply: usize,
    /// Who is to move (name), if the game goes on.
    pub to_move: Option<String>,
    /// The side to move (the variant's name for it), if the game goes on.
    pub side_to_move: Option<String>,
    /// Result token.
    pub result: String,
    /// The side with a standing draw offer, if any.
    pub draw_offer: Option<String>,
    /// The clock of the player to move, when the game has a time control.
    pub clock: Option<ClockState>,
    /// A problem with the file, if it does not replay.
    pub problem: Option<String>,
    /// For a Fantasy Grand game whose armies are still being chosen in secret: what the
    /// choice waits for (e.g. `waiting for Bo's army commitment`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub army_choice: Option<String>,
}

/// `ravenpost status`.
pub fn status(archive: &Archive) -> Result<Vec<StatusLine>, Failure> {
    let mut out = Vec::new();
    let tip = archive.tip()?;
    for g in archive.list_games()? {
        let text = match tip {
            Some(t) => archive.read_file_at(t, &g.path()).map(Option::unwrap_or_default),
            None => Ok(String::new()),
        };
        let loaded = match text {
            Ok(t) => record::load(&t).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let line = match loaded {
            Ok(game) => {
                let result = game.text.result.as_ref().map(|r| r.0.clone()).unwrap_or_else(|| "*".into());
                let pos = game.position();
                let side = pos.side_to_move();
                let going = result == "*";
                StatusLine {
                    id: g.id().to_string(),
                    variant: g.variant().to_string(),
                    white: record::player(&game, crate::engine::Side::White),
                    black: record::player(&game, crate::engine::Side::Black),
                    ply: game.moves.len(),
                    to_move: going.then(|| record::player(&game, side)),
                    side_to_move: going.then(|| game.variant.def().side_name(side).to_string()),
                    draw_offer: record::pending_offer(&game),
                    clock: if going { clock(archive, &g, now().unix_seconds()).ok().flatten() } else { None },
                    result,
                    problem: None,
                    army_choice: None,
                }
            }
            Err(e) => StatusLine {
                id: g.id().to_string(),
                variant: g.variant().to_string(),
                white: String::new(),
                black: String::new(),
                ply: 0,
                to_move: None,
                side_to_move: None,
                result: "?".into(),
                draw_offer: None,
                clock: None,
                problem: Some(e),
                army_choice: None,
            },
        };
        out.push(line);
    }
    let started: Vec<String> = out.iter().map(|l| l.id.clone()).collect();
    for id in archive.list_army_choices()? {
        if started.contains(&id) {
            continue;
        }
        let text = match tip {
            Some(t) => archive.read_file_at(t, &ArmyChoice::path(&id))?.unwrap_or_default(),
            None => String::new(),
        };
        let choice = ArmyChoice::from_yaml(&text);
        out.push(StatusLine {
            id: id.clone(),
            variant: ArmyChoice::VARIANT.to_string(),
            white: choice.as_ref().map(|c| c.white.clone()).unwrap_or_default(),
            black: choice.as_ref().map(|c| c.black.clone()).unwrap_or_default(),
            ply: 0,
            to_move: None,
            side_to_move: None,
            result: "*".into(),
            draw_offer: None,
            clock: None,
            problem: choice.as_ref().err().cloned(),
            army_choice: choice.ok().map(|c| c.waiting_for()),
        });
    }
    Ok(out)
}

/// One line of `ravenpost log`, and what `verify` checks per commit.
#[derive(Debug, Serialize)]
pub struct LogLine {
    /// Short commit id.
    pub commit: String,
    /// Author name.
    pub author: String,
    /// Commit time (RFC 3339).
    pub time: String,
    /// What the commit did: `created`, `ply N SAN`, `result R`.
    pub what: String,
    /// Ply number for moves.
    pub ply: Option<usize>,
    /// The move, for moves.
    pub san: Option<String>,
    /// Why the commit is not a legal step, if it is not.
    pub problem: Option<String>,
}

/// Judges one commit's version `text` of the game file `path` against the one before
/// (`previous`; `None`: the commit creates it): one legal step by its author
/// ([`record::check_step_at`], at the commit's `time`), a new game as `ravenpost new` or a
/// revealed army choice writes it, signed where the game lists the actor's key, and a win
/// on time only past the deadline (`before`: the file's versions before this commit,
/// read only for such a claim). What `verify`, `log`, `sync` and the hook all apply.
///
/// # Errors
/// [`Failure`] if the archive cannot be read.
#[allow(clippy::too_many_arguments)]
pub(crate) fn judge_step(
    archive: &Archive,
    path: &GamePath,
    commit: CommitId,
    previous: Option<&str>,
    text: &str,
    author: &str,
    time: i64,
    before: impl FnOnce() -> Result<Vec<FileVersion>, Failure>,
) -> Result<Result<Step, String>, Failure> {
    let step = match record::check_step_at(previous, text, Some(author), Some(time)) {
        Ok(Step::Created) => check_created(path, text),
        other => other,
    };
    let step = match step {
        Ok(s) => s,
        Err(e) => return Ok(Err(e)),
    };
    let problem = if step == Step::Created {
        super::army_cmds::check_started_game(archive, commit, path, text)?
    } else {
        None
    };
    let problem = match (problem, actor(&step)) {
        (None, Some(who)) => signature_problem(archive, commit, text, who)?,
        (p, _) => p,
    };
    let problem = match (problem, &step) {
        (None, Step::Recorded { .. }) => timeout_claim_problem(&before()?, text, time)?,
        (p, _) => p,
    };
    Ok(match problem {
        Some(p) => Err(p),
        None => Ok(step),
    })
}

/// A game file's first version: a game of the variant its folder names, with no move
/// played yet (`ravenpost new` writes exactly that).
pub(crate) fn check_created(path: &GamePath, contents: &str) -> Result<Step, String> {
    let game = record::load(contents).map_err(|e| e.to_string())?;
    let slug = &game.variant.def().slug;
    if slug != path.variant() {
        return Err(format!("a {slug} game stored under games/{}/ (moved by hand?)", path.variant()));
    }
    if !game.moves.is_empty() {
        return Err(format!(
            "the game appeared with {} plies already played: games start with none",
            game.moves.len()
        ));
    }
    Ok(Step::Created)
}

/// Game files deleted anywhere in the archive's history: `verify` reports each.
pub fn deletions(archive: &Archive) -> Result<Vec<LogLine>, Failure> {
    let mut out = Vec::new();
    for c in archive.history(None)? {
        for ch in &c.changes {
            let is_record = (ch.path.starts_with("games/") && ch.path.ends_with(".pgn"))
                || ArmyChoice::parse_path(&ch.path).is_some();
            if ch.contents.is_none() && is_record {
                out.push(LogLine {
                    commit: c.commit.short(),
                    author: c.author_name.clone(),
                    time: c.time.to_datetime().map(|d| d.to_rfc3339()).unwrap_or_default(),
                    what: "deleted".into(),
                    ply: None,
                    san: None,
                    problem: Some(format!("{} was deleted: games are never removed", ch.path)),
                });
            }
        }
    }
    Ok(out)
}

/// The history of one game, each commit checked (`log` shows it, `verify` judges it).
pub fn history(archive: &Archive, path: &GamePath) -> Result<Vec<LogLine>, Failure> {
    let versions = archive.file_history(&path.path())?;
    let mut out = Vec::new();
    let mut prev: Option<String> = None;
    for (i, v) in versions.iter().enumerate() {
        let time = v.time.to_datetime().map(|d| d.to_rfc3339()).unwrap_or_default();
        let Some(contents) = v.contents.clone() else {
            out.push(LogLine {
                commit: v.commit.short(),
                author: v.author_name.clone(),
                time,
                what: "deleted".into(),
                ply: None,
                san: None,
                problem: Some("the game file was deleted".into()),
            });
            prev = None;
            continue;
        };
        let step = judge_step(
            archive,
            path,
            v.commit,
            prev.as_deref(),
            &contents,
            &v.author_name,
            v.time.unix_seconds(),
            || Ok(versions[..i].to_vec()),
        )?;
        let (what, ply, san, problem) = match step {
            Ok(Step::Created) => ("created".to_string(), None, None, None),
            Ok(Step::Moved { ply, san, .. }) => (format!("ply {ply} {san}"), Some(ply), Some(san), None),
            Ok(Step::Recorded { result, summary, .. }) => (format!("{summary} ({result})"), None, None, None),
            Err(e) => ("invalid".to_string(), None, None, Some(e)),
        };
        out.push(LogLine {
            commit: v.commit.short(),
            author: v.author_name.clone(),
            time,
            what,
            ply,
            san,
            problem,
        });
        prev = Some(contents);
    }
    Ok(out)
}

/// The clock of the player to move, from the times the moves were committed.
#[derive(Debug, Clone, Serialize)]
pub struct ClockState {
    /// The player to move.
    pub player: String,
    /// When they must have moved (RFC 3339, UTC).
    pub deadline: String,
    /// Seconds left (negative when over time).
    pub seconds_left: i64,
    /// Whether the deadline has passed.
    pub overdue: bool,
}

/// Seconds of `[a, b)` that fall within `[c, d)`.
fn overlap(a: i64, b: i64, c: i64, d: i64) -> u64 {
    (b.min(d) - a.max(c)).max(0) as u64
}

fn rfc3339(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The clock of a going game with a time control, at `now` (Unix seconds): each move's
/// time is the time recorded after it in the game file (`{ravenpost: at …}`, as mailed
/// games carry it), else its commit's time; the game starts at its creation commit; a player's clock runs from the opponent's move (or the
/// game's creation) to their own, except during their booked leave (rulings: the
/// project's correspondence clock, README "Time control").
pub fn clock(archive: &Archive, path: &GamePath, now: i64) -> Result<Option<ClockState>, Failure> {
    clock_of(&archive.file_history(&path.path())?, now)
}

/// The clock at `now` (Unix seconds) of the game whose versions, oldest first, are
/// `versions` (as [`clock`], for any point of the history).
///
/// # Errors
/// [`Failure`] if the last version does not read.
pub fn clock_of(versions: &[FileVersion], now: i64) -> Result<Option<ClockState>, Failure> {
    let Some(last) = versions.last().and_then(|v| v.contents.clone()) else { return Ok(None) };
    let game = record::load(&last)?;
    if game.text.result.as_ref().is_some_and(|r| r.0 != "*") {
        return Ok(None);
    }
    let Some(tc) = game.text.tag("TimeControl").and_then(|t| crate::notation::time_control::parse(t).ok())
    else {
        return Ok(None);
    };
    // Times of the game's creation and of each ply: the commit where the main line first
    // reached that length. Parsing is enough here; `verify` is where each step's
    // legality is checked.
    let mut times: Vec<i64> = Vec::new();
    for v in versions {
        let Some(c) = &v.contents else { continue };
        let Some(Ok(text)) = GameReader::new(c.as_bytes()).next() else { continue };
        if times.is_empty() {
            times.push(v.time.unix_seconds());
        }
        while times.len() <= text.moves.len() {
            times.push(v.time.unix_seconds());
        }
    }
    if times.len() != game.moves.len() + 1 {
        return Ok(None);
    }
    // Times recorded in the file win over commit times (a game imported from a message
    // is committed when it arrives, not when the move was made).
    if let Ok(recorded) = record::move_times(&game.text) {
        for (k, t) in recorded.into_iter().enumerate() {
            if let Some(t) = t {
                times[k + 1] = t;
            }
        }
    }
    let pos = game.position();
    let side = pos.side_to_move();
    let name = record::player(&game, side);
    let leaves: Vec<(i64, i64)> =
        record::leaves(&game).into_iter().filter(|(p, _, _)| *p == name).map(|(_, a, b)| (a, b)).collect();
    let paused = |a: i64, b: i64| -> u64 { leaves.iter().map(|&(c, d)| overlap(a, b, c, d)).sum() };
    // The side to move made the plies at indices with the same parity as the next one.
    let plies = times.len() - 1;
    let start_white = game.start.side_to_move() == crate::engine::Side::White;
    let mover_of = |ply: usize| -> crate::engine::Side {
        // Ply k (1-based) was made by the first mover if k is odd.
        let first = if start_white { crate::engine::Side::White } else { crate::engine::Side::Black };
        if ply % 2 == 1 { first } else { first.opponent() }
    };
    let mut used: u64 = 0;
    let mut made: u32 = 0;
    for k in 1..=plies {
        if mover_of(k) == side {
            let (a, b) = (times[k - 1], times[k]);
            used += ((b - a).max(0) as u64).saturating_sub(paused(a, b));
            made += 1;
        }
    }
    let turn_start = times[plies];
    let Some(deadline) = crate::notation::time_control::deadline(
        &tc,
        turn_start,
        used,
        made + 1,
        paused(turn_start, i64::MAX),
    ) else {
        return Ok(None);
    };
    Ok(Some(ClockState {
        player: name,
        deadline: rfc3339(deadline),
        seconds_left: deadline - now,
        overdue: now > deadline,
    }))
}

/// `ravenpost claim timeout`: the waiting player wins if the player to move is over time.
pub fn claim_timeout(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    author: Option<&Identity>,
) -> Result<Applied, Failure> {
    let path = find(archive, game)?;
    let _lock = archive.lock()?;
    let (text, tip) = read(archive, &path)?;
    let game = record::load(&text)?;
    let waiting = record::player(&game, game.position().side_to_move().opponent());
    if let Some(w) = who
        && w != waiting
    {
        return Err(Failure {
            message: format!(
                "timeout claim refused: only {waiting}, who is waiting for a move, can claim a win on time"
            ),
            code: 1,
        });
    }
    let now = now().unix_seconds();
    let Some(c) = clock(archive, &path, now)? else {
        return Err(Failure {
            message: format!("{}: no clock runs (no TimeControl, or the game is over)", path.id()),
            code: 1,
        });
    };
    if !c.overdue {
        return Err(Failure {
            message: format!(
                "timeout claim refused: {} has until {} ({} left)",
                c.player,
                c.deadline,
                human(c.seconds_left)
            ),
            code: 1,
        });
    }
    let why = format!("{} did not move by {}", c.player, c.deadline);
    let applied = record::time_forfeit(&text, who, &why)?;
    commit_applied(archive, &path, tip, &applied, author)?;
    Ok(applied)
}

/// `ravenpost leave`: books leave for a player.
pub fn leave(
    archive: &Archive,
    game: &str,
    who: &str,
    from: i64,
    days: u32,
    author: Option<&Identity>,
) -> Result<Applied, Failure> {
    let path = find(archive, game)?;
    let _lock = archive.lock()?;
    let (text, tip) = read(archive, &path)?;
    let today = now().unix_seconds().div_euclid(86_400) * 86_400;
    if from < today {
        return Err(Failure {
            message: format!(
                "leave refused: it would start on {}, before today ({}): leave is booked in advance",
                rfc3339(from),
                rfc3339(today)
            ),
            code: 1,
        });
    }
    let applied = record::book_leave(&text, who, from, days)?;
    commit_applied(archive, &path, tip, &applied, author)?;
    Ok(applied)
}

/// `3d 4h`, `5h 10m`, `12m`: a duration for people.
pub fn human(seconds: i64) -> String {
    let s = seconds.unsigned_abs();
    let (d, h, m) = (s / 86_400, (s % 86_400) / 3_600, (s % 3_600) / 60);
    if d > 0 {
        format!("{d}d {h}h")
    } else if h > 0 {
        format!("{h}h {m}m")
    } else {
        format!("{m}m")
    }
}
