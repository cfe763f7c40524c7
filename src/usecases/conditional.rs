//! Conditional moves in an archive: `ravenpost conditional add|show|clear`, and the
//! prepared replies played where the opponent's move arrives (after `move`, `mail
//! import` and `sync`; `sync --watch` keeps doing it).
//!
//! A tree ([`crate::referee::conditional`]) is kept in the clone's git directory only:
//! `.git/ravenpost/conditional/<game>.<white|black>`, written whole to a temporary file
//! and renamed into place. It is never staged, committed, pushed or mailed; the opponent
//! learns a prepared move when it is played, as any other move. [`answer_prepared`]
//! reads every tree of the clone against its game at the branch tip: a reply that is due
//! is committed as the owner's move through the normal write path (the write lock, the
//! compare-and-swap on the branch, the journal, signed with the owner's key when the game
//! lists it), with its move time and the note `{ravenpost: prepared}` in the record; the
//! tree then keeps the lines after that reply. A move no line expected, a finished game,
//! or a used-up tree removes the tree, and the answer says why.

use std::path::PathBuf;

use serde::Serialize;

use crate::archive::Archive;
use crate::engine::Side;
use crate::record;
use crate::record::game::Game;
use crate::referee::conditional::{Branch, ConditionalTree, Dropped, Followed, enter};
use crate::referee::players::side_of_person;

use super::definitions::load_pinned_at;
use super::error::{Error as Failure, TreeRefused};
use super::games::{StepKind, change_game, find, read};
use super::session::Session;

/// One stored tree, as `conditional show` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Prepared {
    /// The game id.
    pub game: String,
    /// Whose replies they are.
    pub owner: String,
    /// The owner's side (`white` or `black`).
    pub side: String,
    /// The plies the game had when the tree's first expected move was to come.
    pub after_ply: usize,
    /// The tree as canonical movetext.
    pub movetext: String,
    /// Every line, each move numbered.
    pub lines: Vec<Vec<String>>,
    /// The tree: the opponent's expected moves, each with its reply and what follows.
    pub tree: Vec<Branch>,
    /// Where the tree is kept (in the clone's git directory).
    pub file: PathBuf,
}

/// What happened to one tree after the game moved on.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    /// The game id.
    pub game: String,
    /// The tree's owner.
    pub owner: String,
    /// What was done.
    #[serde(flatten)]
    pub outcome: AnswerOutcome,
}

/// What [`answer_prepared`] did with a tree.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "answer", rename_all = "kebab-case")]
pub enum AnswerOutcome {
    /// The prepared reply was committed.
    Played {
        /// Its ply (1-based).
        ply: usize,
        /// The reply (SAN).
        san: String,
        /// The opponent's move it answers (SAN).
        answers: String,
        /// The commit (short id).
        commit: String,
        /// How many lines the tree still holds after it.
        lines_left: usize,
    },
    /// The tree was removed.
    Dropped {
        /// Why.
        reason: Dropped,
    },
    /// The reply was due but could not be committed (no signing key, say); the tree is
    /// kept and tried again by the next command.
    NotPlayed {
        /// Its ply.
        ply: usize,
        /// The reply.
        san: String,
        /// Why it was not committed.
        error: String,
    },
    /// The stored tree no longer reads against the game; it was removed.
    Unreadable {
        /// Why.
        error: String,
    },
}

impl Answer {
    /// Whether a reply was committed.
    pub fn played(&self) -> bool {
        matches!(self.outcome, AnswerOutcome::Played { .. })
    }
}

impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (game, owner) = (&self.game, &self.owner);
        match &self.outcome {
            AnswerOutcome::Played { ply, san, answers, commit, lines_left } => {
                write!(
                    f,
                    "{game}: {owner}'s prepared reply to {answers}: ply {ply} {san} (commit {commit}; "
                )?;
                match lines_left {
                    0 => write!(f, "no prepared lines left)"),
                    1 => write!(f, "1 prepared line left)"),
                    n => write!(f, "{n} prepared lines left)"),
                }
            }
            AnswerOutcome::Dropped { reason } => {
                write!(f, "{game}: {owner}'s conditional tree dropped: {reason}")
            }
            AnswerOutcome::NotPlayed { ply, san, error } => write!(
                f,
                "{game}: {owner}'s prepared reply ply {ply} {san} was not played: {error}; the tree is kept"
            ),
            AnswerOutcome::Unreadable { error } => {
                write!(f, "{game}: {owner}'s conditional tree dropped: {error}")
            }
        }
    }
}

/// The folder of the clone's trees.
fn trees_dir(archive: &Archive) -> PathBuf {
    archive.secrets_dir().join("conditional")
}

/// The file of `side`'s tree in game `id`.
fn tree_file(archive: &Archive, id: &str, side: Side) -> PathBuf {
    trees_dir(archive).join(format!("{id}.{side}"))
}

/// Writes `text` to `file` atomically: a temporary file in the same folder, renamed.
fn store(file: &std::path::Path, text: &str) -> Result<(), Failure> {
    use std::io::Write as _;
    let dir = file.parent().expect("a tree file has a folder");
    let io = |e: std::io::Error| Failure::Declined(format!("{}: {e}", file.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    tmp.write_all(text.as_bytes()).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(file).map_err(|e| io(e.error))?;
    Ok(())
}

fn remove(file: &std::path::Path) {
    let _ = std::fs::remove_file(file);
}

/// The side whose tree a command means: `--as NAME` (a player), else the identity's if
/// it plays the game; `None` when neither (every tree of the game).
fn owner_side(
    archive: &Archive,
    game: &Game,
    id: &str,
    who: Option<&str>,
    session: &Session,
) -> Result<Option<Side>, Failure> {
    if let Some(w) = who {
        return Side::ALL.into_iter().find(|s| record::player(game, *s) == w).map(Some).ok_or_else(|| {
            Failure::Usage(format!(
                "--as {w}: not a player of {id} (the players are {} and {})",
                record::player(game, Side::White),
                record::player(game, Side::Black)
            ))
        });
    }
    Ok(archive.identity(session.identity()).ok().and_then(|me| side_of_person(game, &me.name, &me.email)))
}

fn prepared(id: &str, owner: &str, tree: &ConditionalTree, file: PathBuf) -> Prepared {
    Prepared {
        game: id.to_string(),
        owner: owner.to_string(),
        side: tree.owner.to_string(),
        after_ply: tree.after_ply,
        movetext: tree.movetext(),
        lines: tree.paths(),
        tree: tree.lines.clone(),
        file,
    }
}

/// `ravenpost conditional add`: checks `movetext` against the game at the branch tip
/// and stores it as the owner's tree (replacing the one they had).
///
/// # Errors
/// [`Failure::Tree`] with the refusal; [`Failure::Usage`] when the owner is unknown.
pub fn conditional_add(
    archive: &Archive,
    game: &str,
    movetext: &str,
    who: Option<&str>,
    session: &Session,
) -> Result<Prepared, Failure> {
    let path = find(archive, game)?;
    let (text, tip) = read(archive, &path)?;
    let g = load_pinned_at(archive, tip, path.id(), &text)?;
    let side = owner_side(archive, &g, path.id(), who, session)?.ok_or_else(|| {
        Failure::Usage(format!(
            "whose replies are these? You are not a player of {}: say so with `--as {}` or `--as {}`",
            path.id(),
            record::player(&g, Side::White),
            record::player(&g, Side::Black)
        ))
    })?;
    let tree = enter(&g, side, movetext).map_err(|refusal| {
        Failure::Tree(Box::new(TreeRefused {
            id: path.id().to_string(),
            refusal,
            movetext: movetext.to_string(),
        }))
    })?;
    let owner = record::player(&g, side);
    let file = tree_file(archive, path.id(), side);
    store(&file, &tree.stored(path.id(), &owner))?;
    Ok(prepared(path.id(), &owner, &tree, file))
}

/// A game's id, the game, and the files of its trees in this clone (by owner's side).
type GameTrees = (String, Game, Vec<(Side, PathBuf)>);

/// The trees of `game` in this clone (the owner's, or every one when `who` and the
/// identity name no player), each read again against the game.
fn trees_of(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    session: &Session,
) -> Result<GameTrees, Failure> {
    let path = find(archive, game)?;
    let (text, tip) = read(archive, &path)?;
    let g = load_pinned_at(archive, tip, path.id(), &text)?;
    let sides = match owner_side(archive, &g, path.id(), who, session)? {
        Some(s) => vec![s],
        None => Side::ALL.to_vec(),
    };
    let files = sides
        .into_iter()
        .map(|s| (s, tree_file(archive, path.id(), s)))
        .filter(|(_, f)| f.is_file())
        .collect();
    Ok((path.id().to_string(), g, files))
}

/// `ravenpost conditional show`: the stored trees of a game.
///
/// # Errors
/// The archive's errors; a stored tree that does not read.
pub fn conditional_show(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    session: &Session,
) -> Result<Vec<Prepared>, Failure> {
    let (id, g, files) = trees_of(archive, game, who, session)?;
    let mut out = Vec::new();
    for (side, file) in files {
        let stored = std::fs::read_to_string(&file)
            .map_err(|e| Failure::Declined(format!("{}: {e}", file.display())))?;
        let tree = ConditionalTree::from_stored(&g, &stored)
            .map_err(|e| Failure::Declined(format!("{}: {e}", file.display())))?;
        out.push(prepared(&id, &record::player(&g, side), &tree, file));
    }
    Ok(out)
}

/// `ravenpost conditional clear`: removes the stored trees of a game; the owners whose
/// trees were removed.
///
/// # Errors
/// The archive's errors.
pub fn conditional_clear(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    session: &Session,
) -> Result<Vec<String>, Failure> {
    let (_, g, files) = trees_of(archive, game, who, session)?;
    let mut out = Vec::new();
    for (side, file) in files {
        std::fs::remove_file(&file).map_err(|e| Failure::Declined(format!("{}: {e}", file.display())))?;
        out.push(record::player(&g, side));
    }
    Ok(out)
}

/// The players with a stored tree in game `id` in this clone (`status` shows them).
pub fn prepared_owners(archive: &Archive, id: &str, white: &str, black: &str) -> Vec<String> {
    Side::ALL
        .into_iter()
        .zip([white, black])
        .filter(|(s, _)| tree_file(archive, id, *s).is_file())
        .map(|(_, name)| name.to_string())
        .collect()
}

/// Every stored tree of the clone: game id and side.
fn stored_trees(archive: &Archive) -> Vec<(String, Side, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(trees_dir(archive)) else { return Vec::new() };
    let mut out: Vec<(String, Side, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let (id, side) = name.rsplit_once('.')?;
            let side = match side {
                "white" => Side::White,
                "black" => Side::Black,
                _ => return None,
            };
            Some((id.to_string(), side, e.path()))
        })
        .collect();
    out.sort_by(|a, b| a.2.cmp(&b.2));
    out
}

/// Plays every prepared reply that is due in this clone (see the module docs), and
/// drops the trees that no longer apply; again while replies were played (in an archive
/// that holds both players' trees, one reply may answer the other).
///
/// # Errors
/// The archive's errors (reading the games); a reply that cannot be committed is an
/// [`AnswerOutcome::NotPlayed`], not an error.
pub fn answer_prepared(archive: &Archive, session: &Session) -> Result<Vec<Answer>, Failure> {
    let mut out = Vec::new();
    for _ in 0..64 {
        let before = out.len();
        let mut played = false;
        for (id, side, file) in stored_trees(archive) {
            let Ok(path) = find(archive, &id) else { continue };
            let (text, tip) = read(archive, &path)?;
            let Ok(g) = load_pinned_at(archive, tip, path.id(), &text) else { continue };
            let owner = record::player(&g, side);
            let answer = |outcome| Answer { game: id.clone(), owner: owner.clone(), outcome };
            let stored = std::fs::read_to_string(&file).unwrap_or_default();
            let tree = match ConditionalTree::from_stored(&g, &stored) {
                Ok(t) => t,
                Err(e) => {
                    remove(&file);
                    out.push(answer(AnswerOutcome::Unreadable { error: e.to_string() }));
                    continue;
                }
            };
            match tree.follow(&g) {
                Followed::Waiting => {}
                Followed::Dropped(reason) => {
                    remove(&file);
                    out.push(answer(AnswerOutcome::Dropped { reason }));
                }
                Followed::Reply { ply, san, answers, rest } => {
                    let options = record::MoveOptions {
                        diagram: archive.config()?.diagrams == crate::archive::Diagrams::EveryMove,
                        at: Some(session.now().unix_seconds()),
                        prepared: true,
                    };
                    let committed = change_game(
                        archive,
                        path.id(),
                        Some(&owner),
                        StepKind::Move { expect_ply: Some(ply) },
                        session,
                        |_, game, who| {
                            let how = record::Play {
                                who,
                                expect_ply: Some(ply),
                                options,
                                ..record::Play::default()
                            };
                            let (mut applied, _) = record::play(game, &san, how)?;
                            applied.summary.push_str(", a prepared reply");
                            applied.said.push_str(", a prepared reply");
                            Ok(applied)
                        },
                    );
                    match committed {
                        Ok(applied) => {
                            let commit = archive.tip()?.map(|c| c.short()).unwrap_or_default();
                            let lines_left = match &rest {
                                Some(r) => {
                                    store(&file, &r.stored(&id, &owner))?;
                                    r.paths().len()
                                }
                                None => {
                                    remove(&file);
                                    0
                                }
                            };
                            played = true;
                            out.push(answer(AnswerOutcome::Played {
                                ply: applied.ply,
                                san: applied.san.unwrap_or(san),
                                answers,
                                commit,
                                lines_left,
                            }));
                        }
                        Err(e) => {
                            out.push(answer(AnswerOutcome::NotPlayed { ply, san, error: e.to_string() }))
                        }
                    }
                }
            }
        }
        if !played || out.len() == before {
            break;
        }
    }
    Ok(out)
}
