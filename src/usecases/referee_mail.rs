//! The referee mailbox (`ravenpost mail serve`): a club member with nothing but a mail
//! client plays by replying to the board mail (or writing to the club's address) with a
//! move or a command on the first line ([`crate::mail::command`]). Each mail is judged
//! here through the same use cases as `ravenpost move`, `resign` and `draw`, committed to
//! the club's archive (the bare repository the git players push to, whose post-receive
//! hook then mails the opponent), and answered.
//!
//! **Who acts.** A mail acts for the player whose registered address sent it: the
//! address in `players:` of `ravenpost.yaml`, else the game's `WhiteEmail`/`BlackEmail`
//! tag. A player given a secret (`ravenpost mail secret NAME`, kept hashed in the
//! repository's `ravenpost/` directory, never committed) must also write it on a line
//! `secret: WORD`. A mail from an address no player of the game has registered is never
//! answered (its From may be forged; an answer would go to a stranger); a registered
//! sender whose secret is missing or wrong is answered at the registered address. A
//! registered sender's mail must also satisfy the club's DKIM policy ([`super::dkim`]).
//! No mail acts for a computer player (`plays-by: bot`), whatever its sender: only the
//! referee makes its moves ([`super::referee_bots`]), after the mail whose step made one
//! due, and on each pass for a game pushed with the computer to move.
//!
//! **Exactly once.** Every mail is known by its `Message-ID` in a ledger,
//! `ravenpost/referee-mail.log`: an `intent` line (the game, and the ply count and text
//! digest before the step) is made durable before the step is committed, and a `done`
//! line after. A mail seen again with a `done` line is not applied; one with only an
//! `intent` line (the referee was killed between the two) is applied unless the game
//! already holds its step (the move at that ply, or a game changed since the intent for
//! another step), so that no mail is lost and none is applied twice. A torn last line
//! (a kill during the append) is ignored.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::dkim::{DkimCheck, DkimVerdict};
use super::error::Error as Failure;
use super::games::{find, read};
use super::mail::{Delivery, deliver};
use super::referee_bots::{ComputerMoves, Computers, computers_move};
use super::session::Session;
use crate::archive::Archive;
use crate::engine::Side;
use crate::mail::Mailbox;
use crate::mail::command::{COMMANDS, CommandMail, MailCommand, read_command_mail};
use crate::notation::san::write_move;
use crate::record::{self, DrawAction, game::Game};

/// Why a mail is not taken from its sender (typed: the referee's verdict on who acts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum SenderRefusal {
    /// The mail is not one message with one sender and a `Message-ID`.
    Unreadable {
        /// Why.
        reason: String,
    },
    /// The sender is not a registered address of a player of the game.
    NotAPlayer {
        /// The sender's address.
        address: String,
    },
    /// The player has a secret and the mail has no `secret:` line.
    MissingSecret,
    /// The `secret:` line is not the player's secret.
    WrongSecret,
    /// The mail is not signed by its sender's domain (DKIM) and the club, or the
    /// domain's DMARC policy, asks that it be.
    Unsigned {
        /// The `From` domain.
        domain: String,
        /// Why, in words for the player.
        why: String,
    },
}

impl SenderRefusal {
    /// What the player is told (a refusal of a registered sender only).
    fn to_player(&self) -> String {
        match self {
            SenderRefusal::MissingSecret => {
                "your mails to the referee carry your secret on a line of its own, `secret: WORD`, and this \
                 one had none"
                    .to_string()
            }
            SenderRefusal::WrongSecret => "its `secret:` line is not your secret".to_string(),
            SenderRefusal::Unsigned { why, .. } => format!(
                "{why}. Write from the address the club has for you, through your provider's own \
                 server (its webmail or its SMTP server), which signs your mail; if it does not sign \
                 it, ask the club's admin"
            ),
            other => other.to_string(),
        }
    }
}

impl std::fmt::Display for SenderRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SenderRefusal::Unreadable { reason } => write!(f, "unreadable: {reason}"),
            SenderRefusal::NotAPlayer { address } => {
                write!(f, "{address} is not the registered address of a player of the game")
            }
            SenderRefusal::MissingSecret => {
                write!(f, "the player has a secret and the mail has no `secret:` line")
            }
            SenderRefusal::WrongSecret => write!(f, "the mail's `secret:` line is not the player's secret"),
            SenderRefusal::Unsigned { why, .. } => write!(f, "{why}"),
        }
    }
}

/// What became of one mail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "verdict")]
pub enum Verdict {
    /// The player's step was committed.
    Played {
        /// The game id.
        game: String,
        /// What was done, e.g. `Bo (Scarlet) plays Sa3b6`.
        said: String,
        /// The game's ply count after it.
        ply: usize,
        /// The commit (short id).
        commit: String,
    },
    /// A question (`moves`, `board`) answered.
    Answered {
        /// The game id.
        game: String,
    },
    /// The player's step was refused (an illegal move, not their turn, no game named):
    /// the answer says why and what would be legal. Nothing was committed.
    Refused {
        /// The game id, when the mail named one.
        game: Option<String>,
        /// Why.
        reason: String,
    },
    /// Not taken from its sender; nothing committed.
    Forged {
        /// Why.
        refusal: SenderRefusal,
    },
    /// Its `Message-ID` was applied before: nothing done again.
    AlreadyApplied,
    /// Not judged yet: the DNS could not say whether it is signed (DKIM). It stays
    /// unseen and is judged on a later pass; nothing is recorded.
    Deferred {
        /// Why.
        reason: String,
    },
}

/// What a pass of the referee reports, in the order it happened.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Served {
    /// A mail handled.
    Mail(Handled),
    /// A computer player's moves, made as they became due.
    Computer(ComputerMoves),
}

/// One mail handled.
#[derive(Debug, Clone, Serialize)]
pub struct Handled {
    /// Where it came from (a file name, an IMAP uid).
    pub source: String,
    /// Its `Message-ID`.
    pub message_id: Option<String>,
    /// Its sender.
    pub from: Option<String>,
    /// The verdict.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// How the answer went: `None` when none was due, else `sent to …` or why not.
    pub answer: Option<String>,
    /// What the post-receive hook said when it failed.
    pub hook: Option<String>,
}

// ------------------------------------------------------------------ the ledger

/// The ledger's file in the repository's `ravenpost/` directory.
pub const LEDGER_FILE: &str = "referee-mail.log";

/// An applied or half-applied mail, as the ledger remembers it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    /// Its step was about to be committed: the game, its ply count and text digest then.
    Intent { game: String, plies: usize, digest: String },
    /// Handled.
    Done,
}

/// The ledger, read once per pass and appended to durably.
#[derive(Debug)]
pub struct Ledger {
    path: PathBuf,
    entries: HashMap<String, Entry>,
}

impl Ledger {
    /// Reads the ledger of `archive` (empty when there is none); a torn last line is
    /// ignored.
    ///
    /// # Errors
    /// The file cannot be read.
    pub fn open(archive: &Archive) -> Result<Ledger, Failure> {
        let path = archive.secrets_dir().join(LEDGER_FILE);
        let text = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Failure::Declined(format!("{}: {e}", path.display()))),
        };
        let mut entries = HashMap::new();
        let whole = match text.iter().rposition(|b| *b == b'\n') {
            Some(end) => &text[..=end],
            None => &text[..0],
        };
        for line in String::from_utf8_lossy(whole).lines() {
            let f: Vec<&str> = line.split('\t').collect();
            match f.as_slice() {
                ["intent", id, game, plies, digest] => {
                    let Ok(plies) = plies.parse() else { continue };
                    let e = Entry::Intent { game: (*game).to_string(), plies, digest: (*digest).to_string() };
                    entries.insert((*id).to_string(), e);
                }
                ["done", id, ..] => {
                    entries.insert((*id).to_string(), Entry::Done);
                }
                _ => {}
            }
        }
        Ok(Ledger { path, entries })
    }

    /// Appends `line` durably (written and synced before the caller goes on).
    fn append(&mut self, fields: &[&str]) -> Result<(), Failure> {
        let fail = |e: std::io::Error| Failure::Declined(format!("{}: {e}", self.path.display()));
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        // Tabs and line ends in a field would break the line apart.
        let clean: Vec<String> = fields.iter().map(|f| ledger_key(f)).collect();
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&self.path).map_err(fail)?;
        f.write_all(format!("{}\n", clean.join("\t")).as_bytes()).map_err(fail)?;
        f.sync_data().map_err(fail)
    }

    fn intent(&mut self, id: &str, game: &str, plies: usize, digest: &str) -> Result<(), Failure> {
        self.append(&["intent", id, game, &plies.to_string(), digest])?;
        let e = Entry::Intent { game: game.to_string(), plies, digest: digest.to_string() };
        self.entries.insert(ledger_key(id), e);
        Ok(())
    }

    fn done(&mut self, id: &str, verdict: &str) -> Result<(), Failure> {
        self.append(&["done", id, verdict])?;
        self.entries.insert(ledger_key(id), Entry::Done);
        Ok(())
    }

    /// Whether the mail `id` was applied.
    pub fn is_done(&self, id: &str) -> bool {
        self.entries.get(&ledger_key(id)) == Some(&Entry::Done)
    }
}

/// A field as the ledger writes it (a tab or line end would break its line apart), and
/// so the key a `Message-ID` is looked up by: a folded id is found again.
fn ledger_key(field: &str) -> String {
    field.replace(['\t', '\n', '\r'], " ")
}

// ------------------------------------------------------------------ secrets

/// The file of the players' secrets (name, tab, SHA-256 of the secret, in hex).
pub const SECRETS_FILE: &str = "mail-secrets";

fn digest(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

fn secrets(archive: &Archive) -> Result<HashMap<String, String>, Failure> {
    let path = archive.secrets_dir().join(SECRETS_FILE);
    match std::fs::read_to_string(&path) {
        Ok(t) => Ok(t
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(n, h)| (n.to_string(), h.to_string()))
            .collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HashMap::new()),
        Err(e) => Err(Failure::Declined(format!("{}: {e}", path.display()))),
    }
}

/// `ravenpost mail secret NAME`: gives the player `name` a new secret (printed once,
/// kept only as its hash) that their mails to the referee must carry; `remove` takes it
/// away. Returns the secret.
///
/// # Errors
/// The file cannot be written; a name with a tab or line end.
pub fn mail_secret(archive: &Archive, name: &str, remove: bool) -> Result<Option<String>, Failure> {
    if name.is_empty() || name.contains(['\t', '\n', '\r']) {
        return Err(Failure::Usage(format!("`{name}` is not a player's name")));
    }
    let config = archive.config()?;
    if config.is_computer(name) {
        return Err(Failure::Usage(format!(
            "{name} is a computer player (`plays-by: bot`): no mail acts for it, so it has no secret"
        )));
    }
    if config.player(name).is_none() {
        let known: Vec<&str> = config.players.keys().map(String::as_str).collect();
        return Err(Failure::Usage(format!(
            "`{name}` is not a player of ravenpost.yaml `players:` ({}); a secret is for a registered player",
            if known.is_empty() { "it lists none".to_string() } else { known.join(", ") }
        )));
    }
    let mut all = secrets(archive)?;
    let secret = if remove {
        if all.remove(name).is_none() {
            return Err(Failure::Usage(format!("{name} has no secret")));
        }
        None
    } else {
        let mut raw = [0u8; 12];
        getrandom::fill(&mut raw).map_err(|e| Failure::Declined(format!("no randomness: {e}")))?;
        let word: String = raw.iter().map(|b| format!("{b:02x}")).collect();
        all.insert(name.to_string(), digest(&word));
        Some(word)
    };
    let dir = archive.secrets_dir();
    let path = dir.join(SECRETS_FILE);
    let fail = |e: std::io::Error| Failure::Declined(format!("{}: {e}", path.display()));
    std::fs::create_dir_all(&dir).map_err(fail)?;
    let mut lines: Vec<String> = all.iter().map(|(n, h)| format!("{n}\t{h}\n")).collect();
    lines.sort();
    super::files::write_atomically(&path, lines.concat()).map_err(fail)?;
    Ok(secret)
}

// ------------------------------------------------------------------ one mail

/// The referee's settings for a pass.
#[derive(Debug)]
pub struct Referee {
    /// The referee's own address (answers come from it): `club.referee` of
    /// `ravenpost.yaml`, else `--address`.
    pub address: Mailbox,
    /// How answers are delivered (the archive's `mail:` settings when empty).
    pub delivery: Delivery,
    /// The DKIM check of a registered player's mail (`club: dkim:`).
    pub dkim: DkimCheck,
    /// How the club's computer players (`plays-by: bot`) are played.
    pub computers: Computers,
}

impl Referee {
    /// The referee of `archive`: `address` when given, else its `club.referee`; DKIM
    /// keys and DMARC policies asked of the DNS server `dns` (default: the system's);
    /// each move of a computer player searched within `bot`.
    ///
    /// # Errors
    /// [`Failure::Usage`] when neither names an address; the DNS resolver cannot be set
    /// up.
    pub fn of(
        archive: &Archive,
        address: Option<&str>,
        delivery: Delivery,
        dns: Option<std::net::SocketAddr>,
        bot: super::analysis::Budget,
    ) -> Result<Referee, Failure> {
        let club = archive.config()?.club;
        let dkim = DkimCheck::new(club.dkim, dns).map_err(Failure::Declined)?;
        let configured = club.referee;
        let email = address.map(str::to_string).or(configured).ok_or_else(|| {
            Failure::Usage(
                "the referee mailbox has no address: set `club: referee:` in ravenpost.yaml or pass --address"
                    .to_string(),
            )
        })?;
        crate::referee::players::check_address(&email)
            .map_err(|e| Failure::Usage(format!("{email}: {e}")))?;
        let address = Mailbox { name: "ravenpost referee".to_string(), email };
        Ok(Referee { address, delivery, dkim, computers: Computers::new(bot) })
    }

    /// The computer players' moves that have become due since the last look (see
    /// [`computers_move`]), committed, and mailed by the post-receive hook.
    ///
    /// # Errors
    /// The archive's errors.
    pub fn computers_move(&self, archive: &Archive, session: &Session) -> Result<Vec<Served>, Failure> {
        let moved = computers_move(archive, session, &self.computers, &self.address.email)?;
        Ok(moved.into_iter().map(Served::Computer).collect())
    }
}

/// Handles the mail `bytes` (from `source`): judges it, commits its step, answers it.
///
/// # Errors
/// Only when the archive or the ledger cannot be read or written; a bad mail is a
/// [`Verdict`].
pub fn referee_message(
    archive: &Archive,
    session: &Session,
    referee: &Referee,
    ledger: &mut Ledger,
    source: &str,
    bytes: &[u8],
) -> Result<Handled, Failure> {
    let config = archive.config()?;
    let limit = config.limits().message_bytes;
    let handled = |message_id: Option<String>, from: Option<String>, verdict: Verdict| Handled {
        source: source.to_string(),
        message_id,
        from,
        verdict,
        answer: None,
        hook: None,
    };
    if bytes.len() as u64 > limit {
        let reason = crate::mail::too_large(Some(bytes.len() as u64), limit);
        return Ok(handled(None, None, Verdict::Forged { refusal: SenderRefusal::Unreadable { reason } }));
    }
    let mail = match read_command_mail(bytes) {
        Ok(m) => m,
        Err(e) => {
            let refusal = SenderRefusal::Unreadable { reason: e.to_string() };
            return Ok(handled(None, None, Verdict::Forged { refusal }));
        }
    };
    let (id, from) = (Some(mail.message_id.clone()), Some(mail.from.email.clone()));
    if ledger.is_done(&mail.message_id) {
        return Ok(handled(id, from, Verdict::AlreadyApplied));
    }
    let before = archive.tip()?;
    let sent = Sent { mail: &mail, raw: bytes, dkim: &referee.dkim };
    let (verdict, answer_to, text) = judge(archive, session, &config, ledger, &sent)?;
    // Only what acted is recorded: a mail not taken from its sender (a stranger's, a forged
    // one) must not mark its Message-ID done, or the player's own mail with that id would
    // then be dropped as applied before.
    match verdict {
        Verdict::Deferred { .. } => return Ok(handled(id, from, verdict)),
        Verdict::Forged { .. } => {}
        _ => ledger.done(&mail.message_id, verdict_word(&verdict))?,
    }
    let mut out = handled(id, from, verdict);
    if let Some(to) = answer_to {
        out.answer = Some(answer(archive, session, referee, &mail, &to, &out.verdict, &text));
    }
    if matches!(out.verdict, Verdict::Played { .. }) {
        out.hook = super::club::post_receive_failure(archive, before, archive.tip()?);
    }
    Ok(out)
}

fn verdict_word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Played { .. } => "played",
        Verdict::Answered { .. } => "answered",
        Verdict::Refused { .. } => "refused",
        Verdict::Forged { .. } => "forged",
        Verdict::AlreadyApplied => "already",
        Verdict::Deferred { .. } => "deferred",
    }
}

/// A mail as it came (`raw`) and as read, with the check of its signature.
struct Sent<'a> {
    mail: &'a CommandMail,
    raw: &'a [u8],
    dkim: &'a DkimCheck,
}

/// The verdict on `mail`, who to answer (`None`: nobody), and the answer's text.
fn judge(
    archive: &Archive,
    session: &Session,
    config: &crate::archive::ArchiveConfig,
    ledger: &mut Ledger,
    sent: &Sent<'_>,
) -> Result<(Verdict, Option<Mailbox>, String), Failure> {
    let mail = sent.mail;
    // A sender who is a registered player anywhere may be told that the game is missing.
    // A computer player's address is no player's: no mail acts for it.
    let registered_anywhere = config
        .players
        .iter()
        .any(|(name, p)| !config.is_computer(name) && same(p.email.as_deref(), &mail.from.email));
    let named = match mail.game.clone() {
        Some((id, _)) => Some(id),
        // A registered player's mail that names no game (a reply to the digest, a new
        // mail to the club): their one game to move, if they have one.
        None if registered_anywhere => {
            let waiting = games_to_move(archive, session, config, &mail.from.email)?;
            match waiting.as_slice() {
                [one] => Some(one.clone()),
                _ => {
                    let listed = if waiting.is_empty() {
                        "you have no game to move".to_string()
                    } else {
                        format!("your games to move are {}", waiting.join(", "))
                    };
                    let reason = format!(
                        "the mail names no game ({listed}): reply to the game's mail, or write `game ID` in \
                         the subject"
                    );
                    let v = Verdict::Refused { game: None, reason: reason.clone() };
                    return Ok((v, Some(mail.from.clone()), reason));
                }
            }
        }
        None => None,
    };
    let Some(game_id) = named else {
        let refusal = SenderRefusal::NotAPlayer { address: mail.from.email.clone() };
        return Ok((Verdict::Forged { refusal }, None, String::new()));
    };
    let Ok(path) = find(archive, &game_id) else {
        let reason = format!("there is no game `{game_id}` in the club's archive");
        let refusal = SenderRefusal::NotAPlayer { address: mail.from.email.clone() };
        return Ok(if registered_anywhere {
            (
                Verdict::Refused { game: Some(game_id), reason: reason.clone() },
                Some(mail.from.clone()),
                reason,
            )
        } else {
            (Verdict::Forged { refusal }, None, String::new())
        });
    };
    let (text, tip) = read(archive, &path)?;
    let game = super::definitions::load_pinned_at(archive, tip, path.id(), &text)?;
    let registered = |side: Side| -> Option<String> {
        let name = record::player(&game, side);
        if config.is_computer(&name) {
            return None;
        }
        config
            .player(&name)
            .and_then(|p| p.email.clone())
            .or_else(|| game.text.tag(crate::referee::players::email_tag(side)).map(str::to_string))
    };
    let Some(side) = Side::ALL.into_iter().find(|s| same(registered(*s).as_deref(), &mail.from.email)) else {
        let refusal = SenderRefusal::NotAPlayer { address: mail.from.email.clone() };
        return Ok((Verdict::Forged { refusal }, None, String::new()));
    };
    let name = record::player(&game, side);
    let to = Mailbox { name: name.clone(), email: registered(side).unwrap_or_default() };
    // Only a registered player's mail is checked: a stranger's costs no DNS lookup.
    match sent.dkim.check(sent.raw, &mail.from.email) {
        DkimVerdict::Unchecked | DkimVerdict::Signed { .. } | DkimVerdict::Unsigned { .. } => {}
        DkimVerdict::Unavailable { why } => {
            return Ok((Verdict::Deferred { reason: why }, None, String::new()));
        }
        DkimVerdict::Refused { domain, why } => {
            let refusal = SenderRefusal::Unsigned { domain, why };
            // Told at the registered address: the player learns that a mail in their
            // name was not taken, whoever sent it.
            let text = format!("{}. Nothing was played.", crate::variants::capitalise(&refusal.to_player()));
            return Ok((Verdict::Forged { refusal }, Some(to), text));
        }
    }
    if let Some(hash) = secrets(archive)?.get(&name) {
        let refusal = match &mail.secret {
            None => Some(SenderRefusal::MissingSecret),
            Some(s) if digest(s) != *hash => Some(SenderRefusal::WrongSecret),
            Some(_) => None,
        };
        if let Some(refusal) = refusal {
            let text = format!("{}. Nothing was played.", crate::variants::capitalise(&refusal.to_player()));
            return Ok((Verdict::Forged { refusal }, Some(to), text));
        }
    }
    let id = path.id().to_string();
    let (verdict, text) = match &mail.command {
        Err(why) => (Verdict::Refused { game: Some(id.clone()), reason: why.clone() }, why.clone()),
        Ok(MailCommand::Board) => (Verdict::Answered { game: id.clone() }, board(&game)),
        Ok(MailCommand::Moves { from }) => {
            (Verdict::Answered { game: id.clone() }, moves(&game, from.as_deref()))
        }
        Ok(command) => {
            let acting = Acting { id: &id, game: &game, text: &text, name: &name, email: &to.email };
            step(archive, session, ledger, mail, &acting, command)?
        }
    };
    Ok((verdict, Some(to), text))
}

/// The games the players registered at `email` are to move in (ids, nearest deadline
/// first).
fn games_to_move(
    archive: &Archive,
    session: &Session,
    config: &crate::archive::ArchiveConfig,
    email: &str,
) -> Result<Vec<String>, Failure> {
    let mut ids = Vec::new();
    for (name, _) in
        config.players.iter().filter(|(n, p)| !config.is_computer(n) && same(p.email.as_deref(), email))
    {
        ids.extend(super::tournament::to_move(archive, name, session)?.into_iter().map(|l| l.id));
    }
    Ok(ids)
}

fn same(registered: Option<&str>, from: &str) -> bool {
    registered.is_some_and(|r| r.trim().eq_ignore_ascii_case(from.trim()))
}

/// The game a mail acts in, and the player it acts for.
struct Acting<'a> {
    /// The game id.
    id: &'a str,
    /// The game as read at the tip, and its text.
    game: &'a Game,
    text: &'a str,
    /// The player and their registered address.
    name: &'a str,
    email: &'a str,
}

/// A player's step: recorded as an intent, committed, or refused.
fn step(
    archive: &Archive,
    session: &Session,
    ledger: &mut Ledger,
    mail: &CommandMail,
    acting: &Acting<'_>,
    command: &MailCommand,
) -> Result<(Verdict, String), Failure> {
    let Acting { id, game, text, name, email } = *acting;
    let plies = game.moves.len();
    let now = digest(text);
    // Killed after the intent: the step may stand already.
    if let Some(Entry::Intent { plies: then, digest: was, .. }) =
        ledger.entries.get(&ledger_key(&mail.message_id)).cloned()
    {
        let stands = match command {
            MailCommand::Move { token, .. } => holds_move(game, then + 1, token),
            _ => was != now,
        };
        if stands {
            return Ok((Verdict::AlreadyApplied, String::new()));
        }
    }
    ledger.intent(&mail.message_id, id, plies, &now)?;
    let who = Some(name);
    // The step is the player's: committed under their name and registered address.
    let mut session = session.clone();
    session.identity = Some(crate::archive::Identity { name: name.to_string(), email: email.to_string() });
    let session = &session;
    let applied = match command {
        MailCommand::Move { token, offer_draw } => {
            let with = super::games::WithMove { offer_draw: *offer_draw, comment: None };
            // The offer and the move: said together (`… offers a draw; … plays …`).
            super::games::play_with(archive, id, token, who, Some(plies + 1), &with, session).map(|steps| {
                let said: Vec<String> = steps.iter().map(|a| a.said.clone()).collect();
                let mut last = steps.into_iter().last().expect("the move");
                last.said = said.join("; ");
                last
            })
        }
        MailCommand::Resign => super::games::resign(archive, id, who, session),
        MailCommand::Draw => {
            let theirs = record::pending_offer_side(game).is_some_and(|s| record::player(game, s) != name);
            let action = if theirs { DrawAction::Accept } else { DrawAction::Offer };
            super::games::draw(archive, id, who, action, session)
        }
        MailCommand::Accept => super::games::draw(archive, id, who, DrawAction::Accept, session),
        MailCommand::Decline => super::games::draw(archive, id, who, DrawAction::Decline, session),
        MailCommand::Moves { .. } | MailCommand::Board => unreachable!("answered by judge"),
    };
    match applied {
        Ok(a) => {
            let commit = archive.tip()?.map(|c| c.short()).unwrap_or_default();
            let after = a.result.as_deref().map(|r| format!(" The game is over: {r}.")).unwrap_or_default();
            let mut text = format!("Played: {}.{after}", a.said);
            if let Some(now) = position_after(archive, session, id, name, &a.text)? {
                text.push_str(&format!("\n\n{now}"));
            }
            Ok((Verdict::Played { game: id.to_string(), said: a.said, ply: a.ply, commit }, text))
        }
        Err(e) => {
            let reason = e.to_string();
            let mut text = format!("Not played: {reason}");
            // The legal moves are the side to move's: listed only when that is the sender.
            let theirs = record::player(game, game.position().side_to_move()) != name;
            if let (MailCommand::Move { token, .. }, false) = (command, theirs) {
                text.push_str(&format!("\n\n{}", moves_like(game, token)));
            }
            Ok((Verdict::Refused { game: Some(id.to_string()), reason }, text))
        }
    }
}

/// The game's result, when it is over.
fn over(game: &Game) -> Option<String> {
    Some(record::result_of(game)).filter(|r| r != "*")
}

/// Whether the game's ply `ply` (1-based) is the move `token`.
fn holds_move(game: &Game, ply: usize, token: &str) -> bool {
    let Some(recorded) = ply.checked_sub(1).and_then(|p| game.moves.get(p)) else { return false };
    let before = game.position_at(ply - 1);
    crate::notation::san::read_move(&game.variant, &before, token).is_ok_and(|m| m == *recorded)
}

/// The legal moves, in SAN, of the side to move; those `keep` keeps.
fn legal_sans(game: &Game, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let pos = game.position();
    let mut sans: Vec<String> = game
        .variant
        .legal_moves(&pos)
        .iter()
        .map(|m| write_move(&game.variant, &pos, m))
        .filter(|s| keep(s))
        .collect();
    sans.sort();
    sans.dedup();
    sans
}

/// SANs wrapped to the mail's width.
fn wrapped(sans: &[String]) -> String {
    textwrap::fill(&sans.join("  "), crate::mail::BODY_WIDTH)
}

/// The answer to `moves [SQUARE]`.
fn moves(game: &Game, from: Option<&str>) -> String {
    if let Some(r) = over(game) {
        return format!("The game is over ({r}): there are no moves.");
    }
    let pos = game.position();
    let whose = record::player(game, pos.side_to_move());
    let (sans, of) = match from {
        Some(text) => {
            let dims = game.variant.def().dims;
            let Some(sq) = dims.parse_square(text.trim()) else {
                return format!("`{text}` is not a square of this board (write it as the moves below do).");
            };
            let def = game.variant.def();
            match pos.piece_at(sq) {
                None => return format!("There is no piece on {}.", dims.name(sq)),
                Some(p) if p.side != pos.side_to_move() => {
                    return format!(
                        "The piece on {} is {}'s, and {} is to move ({whose}): its moves are listed when it \
                         is {}'s turn.",
                        dims.name(sq),
                        def.side_name(p.side),
                        def.side_name(pos.side_to_move()),
                        def.side_name(p.side)
                    );
                }
                Some(_) => {}
            }
            let mut sans: Vec<String> = game
                .variant
                .legal_moves_where(&pos, |m| m.from() == Some(sq))
                .iter()
                .map(|m| write_move(&game.variant, &pos, m))
                .collect();
            sans.sort();
            (sans, format!(" of the piece on {}", dims.name(sq)))
        }
        None => (legal_sans(game, |_| true), String::new()),
    };
    if sans.is_empty() {
        return format!("{whose} to move: no legal moves{of}.");
    }
    let n = sans.len();
    format!("{whose} to move: {n} legal move{}{of}:\n{}", if n == 1 { "" } else { "s" }, wrapped(&sans))
}

/// After a refused move: the legal moves of the piece its first letter names (or of the
/// pawns), else all.
fn moves_like(game: &Game, token: &str) -> String {
    if let Some(r) = over(game) {
        return format!("The game is over ({r}).");
    }
    let letter = token.chars().next().filter(char::is_ascii_uppercase);
    let same_piece = legal_sans(game, |s| match letter {
        Some(l) => s.starts_with(l),
        None => !s.starts_with(|c: char| c.is_ascii_uppercase()),
    });
    if same_piece.is_empty() {
        let all = legal_sans(game, |_| true);
        return format!("The legal moves ({}):\n{}", all.len(), wrapped(&all));
    }
    let what =
        letter.map(|l| format!("the {l} pieces")).unwrap_or_else(|| "the pieces without a letter".into());
    format!("The legal moves of {what} ({}):\n{}", same_piece.len(), wrapped(&same_piece))
}

/// The game `id` as the step of `name` left it (its file's `text`, as committed): the
/// board, whose move it is, and the deadline of that move when a clock runs (`None`
/// when the game cannot be read back).
fn position_after(
    archive: &Archive,
    session: &Session,
    id: &str,
    name: &str,
    text: &str,
) -> Result<Option<String>, Failure> {
    let Ok(path) = find(archive, id) else { return Ok(None) };
    let Ok(game) = super::definitions::load_pinned_at(archive, archive.tip()?, path.id(), text) else {
        return Ok(None);
    };
    let mut out = board(&game);
    if over(&game).is_none() {
        let to_move = record::player(&game, game.position().side_to_move());
        let clock = super::clock::clock_of_game(archive, &path, &game, session.now().unix_seconds());
        if let Ok(Some(k)) = clock {
            out.push_str(&format!(
                "Deadline for {to_move}'s move: {}.\n",
                crate::referee::problem::rfc3339(&k.deadline)
            ));
        }
        if to_move != name {
            out.push_str(&format!("You will be mailed when {to_move} has moved.\n"));
        }
    }
    Ok(Some(out))
}

/// The answer to `board`.
fn board(game: &Game) -> String {
    use crate::notation::diagram;
    let pos = game.position();
    let layout = diagram::Layout::fitting(&game.variant, crate::mail::BODY_WIDTH);
    let mut out = diagram::diagram_laid_out(
        &game.variant,
        &pos,
        game.moves.last(),
        diagram::DiagramStyle::default(),
        layout,
    );
    if let Some(hand) = diagram::hand_line(&game.variant, &pos) {
        out.push_str(&hand);
        out.push('\n');
    }
    match over(game) {
        Some(r) => out.push_str(&format!("The game is over: {r}.\n")),
        None => out.push_str(&format!("{} to move.\n", record::player(game, pos.side_to_move()))),
    }
    out
}

/// Builds and sends the answer to `mail`; says how it went.
fn answer(
    archive: &Archive,
    session: &Session,
    referee: &Referee,
    mail: &CommandMail,
    to: &Mailbox,
    verdict: &Verdict,
    text: &str,
) -> String {
    let subject = match &mail.subject {
        Some(s) if s.to_ascii_lowercase().starts_with("re:") => s.clone(),
        Some(s) => format!("Re: {s}"),
        None => "Re: your mail to the referee".to_string(),
    };
    let head = match verdict {
        Verdict::Played { .. } => "Done.",
        Verdict::Answered { .. } => "Your question, answered.",
        Verdict::Refused { .. } => "Your mail was refused: nothing was played.",
        Verdict::Forged { .. } | Verdict::AlreadyApplied | Verdict::Deferred { .. } => {
            "Your mail was not taken."
        }
    };
    let over = text.contains("The game is over");
    let footer = if over {
        String::new()
    } else {
        format!(
            "\n\nWhen it is your turn, reply with your move on the first line, or one of:\n{}",
            textwrap::fill(COMMANDS, crate::mail::BODY_WIDTH)
        )
    };
    // Prose is filled to the mail's width as every mail body is; diagrams and lists
    // already fit it.
    let text = crate::mail::fill_lines(text, crate::mail::BODY_WIDTH, "");
    let body = format!("{head}\n\n{}{footer}\n", text.trim_end());
    let domain = crate::mail::domain(&referee.address.email);
    let own_id = format!("answer.{}@{domain}", &digest(&mail.message_id)[..16]);
    let built = mail_builder::MessageBuilder::new()
        .from((referee.address.name.as_str(), referee.address.email.as_str()))
        .to((to.name.as_str(), to.email.as_str()))
        .subject(subject)
        .message_id(own_id)
        .in_reply_to(mail.message_id.clone())
        .references(mail.references.clone())
        .date(session.now().unix_seconds())
        .text_body(body)
        .write_to_vec();
    let bytes = match built {
        Ok(b) => b,
        Err(e) => return format!("not sent: {e}"),
    };
    match deliver(session, archive, &referee.delivery, &referee.address, to, &bytes) {
        Ok(via) => format!("sent to {} ({via})", to.email),
        Err(e) => format!("not sent to {}: {e}", to.email),
    }
}

/// A message of `size` bytes, over the archive's `limit`: judged by its size alone,
/// never read into memory, never answered.
pub fn oversized(source: &str, size: u64, limit: u64) -> Handled {
    let reason = crate::mail::too_large(Some(size), limit);
    let verdict = Verdict::Forged { refusal: SenderRefusal::Unreadable { reason } };
    Handled { source: source.to_string(), message_id: None, from: None, verdict, answer: None, hook: None }
}

// ------------------------------------------------------------------ a Maildir

/// One pass over a Maildir: every message of `new/`, and of `cur/` not yet marked seen,
/// oldest first, handled and then moved to `cur/` marked seen (`:2,S`). A message
/// larger than the archive's limit is not read into memory. The computer players'
/// moves due are made first, and again after each mail that played a step.
///
/// # Errors
/// The Maildir or the archive cannot be read; the ledger cannot be written.
pub fn referee_maildir_pass(
    archive: &Archive,
    session: &Session,
    referee: &Referee,
    maildir: &Path,
) -> Result<Vec<Served>, Failure> {
    let limit = archive.config()?.limits().message_bytes;
    let fail = |p: &Path, e: std::io::Error| Failure::Declined(format!("{}: {e}", p.display()));
    // In the order they arrived: by modification time, then name (Maildir names start
    // with the delivery's second only).
    let mut pending: Vec<(Option<std::time::SystemTime>, String, PathBuf)> = Vec::new();
    for sub in ["new", "cur"] {
        let dir = maildir.join(sub);
        let entries = std::fs::read_dir(&dir).map_err(|e| fail(&dir, e))?;
        for e in entries {
            let e = e.map_err(|e| fail(&dir, e))?;
            let name = e.file_name().to_string_lossy().into_owned();
            let seen = name.rsplit_once(":2,").is_some_and(|(_, flags)| flags.contains('S'));
            if name.starts_with('.') || seen {
                continue;
            }
            let arrived = e.metadata().and_then(|m| m.modified()).ok();
            pending.push((arrived, name, e.path()));
        }
    }
    pending.sort();
    // A game pushed with a computer player to move, or one a killed referee left so.
    let mut out = referee.computers_move(archive, session)?;
    if pending.is_empty() {
        // A watching referee looks every few seconds: the ledger is read only for mail.
        return Ok(out);
    }
    let mut ledger = Ledger::open(archive)?;
    for (_, name, path) in pending {
        let size = std::fs::metadata(&path).map_err(|e| fail(&path, e))?.len();
        let played = if size > limit {
            // Judged by its size alone, never read into memory.
            out.push(Served::Mail(oversized(&name, size, limit)));
            false
        } else {
            let bytes = std::fs::read(&path).map_err(|e| fail(&path, e))?;
            let h = referee_message(archive, session, referee, &mut ledger, &name, &bytes)?;
            let (deferred, played) =
                (matches!(h.verdict, Verdict::Deferred { .. }), matches!(h.verdict, Verdict::Played { .. }));
            out.push(Served::Mail(h));
            if deferred {
                // Left where it is for the next pass.
                continue;
            }
            played
        };
        let base = name.split_once(":2,").map_or(name.as_str(), |(b, _)| b);
        let flags = name.split_once(":2,").map_or("", |(_, f)| f);
        let seen = maildir.join("cur").join(format!("{base}:2,{}S", flags.replace('S', "")));
        std::fs::rename(&path, &seen).map_err(|e| fail(&path, e))?;
        // The step may have made a computer player's move due: made once the mail is
        // marked seen (a referee killed before that makes it on its next pass).
        if played {
            out.extend(referee.computers_move(archive, session)?);
        }
    }
    Ok(out)
}
