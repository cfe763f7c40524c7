//! `ravenpost army commit|reveal`: the secret army choice of Fantasy Grand Chess (the
//! protocol and its checks are in [`crate::referee::army`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::archive::{Archive, ArmyChoice, ArmyReveal, CommitId, GamePath, Identity};
use crate::engine::Side;
use crate::referee::players::{email_tag, signing_key_tag};

use super::error::Error as Failure;
use super::games::{PlayerStep, commit_player_step};
use super::session::Session;

/// What `army commit` and `army reveal` did.
#[derive(Debug, Clone, Serialize)]
pub struct ArmyOutcome {
    /// The game id.
    pub game: String,
    /// One line for people.
    pub summary: String,
    /// The commits made (one, or two when the game file was created).
    pub commits: Vec<String>,
    /// Whether the game file now exists (both revealed).
    pub started: bool,
}

/// The secret kept in this clone between commitment and reveal.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Secret {
    army: String,
    salt: String,
}

fn secret_path(archive: &Archive, id: &str, side: Side) -> PathBuf {
    let word = if side == Side::White { "white" } else { "black" };
    archive.secrets_dir().join("armies").join(format!("{id}.{word}.yaml"))
}

/// The choice file at the tip, with the tip.
fn read_choice(archive: &Archive, id: &str) -> Result<(ArmyChoice, Option<CommitId>), Failure> {
    let tip = archive.tip()?;
    let text = match tip {
        Some(t) => archive.read_file_at(t, &ArmyChoice::path(archive.layout()?, id))?,
        None => None,
    };
    let Some(text) = text else {
        let pending = archive.list_army_choices()?;
        return Err(Failure::Usage(format!(
            "no secret army choice `{id}` in the archive{}",
            if pending.is_empty() {
                " (start one with `ravenpost new fantasy-grand --secret-armies …`)".to_string()
            } else {
                format!(" (pending: {})", pending.join(", "))
            }
        )));
    };
    let choice = ArmyChoice::from_yaml(&text).map_err(Failure::Declined)?;
    Ok((choice, tip))
}

/// The acting player: `--as`, else the committing identity if it is a player.
fn acting(
    archive: &Archive,
    choice: &ArmyChoice,
    who: Option<&str>,
    session: &Session,
) -> Result<(String, Side), Failure> {
    let name = match who {
        Some(w) => w.to_string(),
        None => archive.identity(session.identity()).map(|i| i.name).unwrap_or_default(),
    };
    let email = archive.identity(session.identity()).map(|i| i.email).unwrap_or_default();
    let by_email = |side: Side| {
        who.is_none()
            && choice.tags.get(email_tag(side)).is_some_and(|e| e.trim().eq_ignore_ascii_case(email.trim()))
    };
    let side = choice.side_of(&name).or_else(|| Side::ALL.into_iter().find(|s| by_email(*s)));
    let name = side.map_or(name, |s| choice.player(s).to_string());
    match side.map(|s| (s, choice.player(s))) {
        Some((side, _)) => Ok((name, side)),
        None => Err(Failure::Usage(format!(
            "{}: say which player you are with --as ({} or {})",
            if name.is_empty() { "no identity".to_string() } else { format!("{name} is not a player") },
            choice.white,
            choice.black
        ))),
    }
}

fn commit_choice(
    archive: &Archive,
    id: &str,
    choice: &ArmyChoice,
    (player, side): (&str, Side),
    tip: Option<CommitId>,
    message: &str,
    session: &Session,
) -> Result<CommitId, Failure> {
    let tag = signing_key_tag(side);
    let required_key = choice.tags.get(tag).cloned();
    let file = ArmyChoice::path(archive.layout()?, id);
    let email = choice.tags.get(crate::referee::players::email_tag(side)).cloned();
    let step = PlayerStep { file: &file, id, player, side, required_key, email };
    commit_player_step(archive, &step, &choice.to_yaml(), tip, message, session)
}

/// A pending secret army choice at the branch tip, and the side the session's identity
/// plays in it (by name or address), if any: what a front end shows before a step.
///
/// # Errors
/// No pending choice `id`; the archive's errors.
pub fn army_choice(
    archive: &Archive,
    id: &str,
    session: &Session,
) -> Result<(ArmyChoice, Option<Side>), Failure> {
    let (choice, _) = read_choice(archive, id)?;
    let side = acting(archive, &choice, None, session).ok().map(|(_, s)| s);
    Ok((choice, side))
}

/// `ravenpost army commit <GAME> <ARMY>`: commits the player to `army` without showing
/// it; the army and salt are kept in this clone (`.git/ravenpost/armies/`) for the reveal.
///
/// # Errors
/// Not a pending choice, not a player, already committed, an army the game does not
/// allow, or the archive's errors.
pub fn army_commit(
    archive: &Archive,
    id: &str,
    army: &str,
    who: Option<&str>,
    session: &Session,
) -> Result<ArmyOutcome, Failure> {
    let _lock = archive.lock()?;
    let (mut choice, tip) = read_choice(archive, id)?;
    let (player, side) = acting(archive, &choice, who, session)?;
    if choice.commitment_of(side).is_some() {
        return Err(Failure::Declined(format!(
            "{player} has already committed to an army in {id}; a commitment is final"
        )));
    }
    let army = choice.check_army(side, army).map_err(Failure::Declined)?;
    let salt = ArmyChoice::fresh_salt().map_err(Failure::Usage)?;
    // The secret is saved before the commitment is committed, so that it is never lost.
    let path = secret_path(archive, id, side);
    let secret = Secret { army: army.to_string(), salt: salt.clone() };
    let io = |e: std::io::Error| Failure::Usage(format!("{}: {e}", path.display()));
    std::fs::create_dir_all(path.parent().expect("has a parent")).map_err(io)?;
    std::fs::write(&path, serde_yaml_ng::to_string(&secret).expect("strings serialise")).map_err(io)?;
    choice.set_commitment(side, ArmyChoice::commitment(id, side, army, &salt));
    let message = format!("{id}: {player} commits to an army (secret until both reveal)");
    let c = commit_choice(archive, id, &choice, (&player, side), tip, &message, session)?;
    Ok(ArmyOutcome {
        game: id.to_string(),
        summary: format!(
            "{player} committed to an army for {id}; it stays secret until both reveal ({}). Kept in {}",
            choice.waiting_for(),
            path.display()
        ),
        commits: vec![c.short()],
        started: false,
    })
}

/// `ravenpost army reveal <GAME>`: reveals the army committed to (from this clone's
/// secret, or `given` army and salt); when both have revealed, creates the game file.
///
/// # Errors
/// Not a pending choice, not a player, the opponent has not committed yet, no saved
/// secret, a reveal that does not match the commitment, or the archive's errors.
pub fn army_reveal(
    archive: &Archive,
    id: &str,
    who: Option<&str>,
    given: Option<(String, String)>,
    session: &Session,
) -> Result<ArmyOutcome, Failure> {
    let _lock = archive.lock()?;
    let (mut choice, tip) = read_choice(archive, id)?;
    let (player, side) = acting(archive, &choice, who, session)?;
    let refuse = Failure::Declined;
    let Some(commitment) = choice.commitment_of(side).map(str::to_string) else {
        return Err(refuse(format!(
            "{player} has not committed to an army in {id} yet (`ravenpost army commit`)"
        )));
    };
    if choice.reveal_of(side).is_some() {
        // Both revealed but no game file (a reveal committed by other means): make it.
        let path = GamePath::in_layout(archive.layout()?, ArmyChoice::VARIANT, id)?;
        if choice.is_complete()
            && tip.is_some_and(|t| archive.read_file_at(t, &path.path()).ok().flatten().is_none())
        {
            let c = start_game(archive, id, &choice, &started_game_text(&choice)?, &player, session)?;
            return Ok(ArmyOutcome {
                game: id.to_string(),
                summary: format!("both armies were revealed; the game {id} starts now"),
                commits: vec![c.short()],
                started: true,
            });
        }
        return Err(refuse(format!("{player} has already revealed their army in {id}")));
    }
    let opponent = choice.player(side.opponent()).to_string();
    if choice.commitment_of(side.opponent()).is_none() {
        return Err(refuse(format!(
            "{opponent} has not committed yet: reveal only after both commitments (sync and try again later)"
        )));
    }
    let path = secret_path(archive, id, side);
    let secret = match given {
        Some((army, salt)) => Secret { army, salt },
        None => {
            let text = std::fs::read_to_string(&path).map_err(|e| {
                Failure::Usage(format!(
                    "{}: {e}: this clone holds no saved choice for {player}; give it with --army A --salt S",
                    path.display()
                ))
            })?;
            serde_yaml_ng::from_str(&text).map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?
        }
    };
    if ArmyChoice::commitment(id, side, &secret.army, &secret.salt) != commitment {
        return Err(refuse(format!(
            "this army and salt do not match {player}'s commitment in {id}: refused, nothing written"
        )));
    }
    choice.set_reveal(side, ArmyReveal { army: secret.army.clone(), salt: secret.salt });
    // The game must be made before the reveal is committed: a choice whose game cannot
    // be made is refused with nothing written.
    let game_text = if choice.is_complete() { Some(started_game_text(&choice)?) } else { None };
    let message = format!("{id}: {player} reveals {}", secret.army);
    let mut commits =
        vec![commit_choice(archive, id, &choice, (&player, side), tip, &message, session)?.short()];
    let mut summary = format!("{player} reveals {} for {id}", secret.army);
    let started = game_text.is_some();
    if let Some(text) = game_text {
        commits.push(start_game(archive, id, &choice, &text, &player, session)?.short());
        let (w, b) = (
            choice.white_reveal.as_ref().expect("complete"),
            choice.black_reveal.as_ref().expect("complete"),
        );
        summary = format!(
            "{summary}; both armies are revealed: {} plays {}, {} plays {}. The game {id} starts",
            choice.white, w.army, choice.black, b.army
        );
    } else {
        summary.push_str(&format!(" ({})", choice.waiting_for()));
    }
    // The saved choice stays: the reveal is public once pushed, and until then it can be
    // lost (a `git reset` to the server's branch after a refused sync) and given again.
    Ok(ArmyOutcome { game: id.to_string(), summary, commits, started })
}

/// Creates the game file `text` ([`started_game_text`]) of a complete choice (author:
/// `player`).
fn start_game(
    archive: &Archive,
    id: &str,
    choice: &ArmyChoice,
    text: &str,
    player: &str,
    session: &Session,
) -> Result<CommitId, Failure> {
    let path = GamePath::in_layout(archive.layout()?, ArmyChoice::VARIANT, id)?;
    let tip = archive.tip()?;
    let (w, b) =
        (choice.white_reveal.as_ref().expect("complete"), choice.black_reveal.as_ref().expect("complete"));
    let message = format!(
        "{id}: armies revealed, {} ({}) v {} ({}): the game starts",
        choice.white, w.army, choice.black, b.army
    );
    let email = archive
        .identity(session.identity())
        .map(|i| i.email)
        .unwrap_or_else(|_| "ravenpost@ravenpost.invalid".into());
    Ok(archive.create_file(
        &path.path(),
        text,
        tip,
        Some(&Identity::new(player, email)),
        session.now(),
        &message,
    )?)
}

/// The game file a complete choice starts (canonical text of its tags, no moves).
fn started_game_text(choice: &ArmyChoice) -> Result<String, Failure> {
    match crate::referee::army::started_game_text(choice) {
        None => Err(Failure::Declined("the armies are not both revealed".into())),
        Some(text) => Ok(text?),
    }
}
