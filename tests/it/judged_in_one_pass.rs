//! `log` and `verify` judge most versions of a game from one replay of a later version
//! (the versions cut from it: `referee::Growth`). Each game here is committed version by
//! version, with steps of every kind a player, a hand or another tool makes: moves by the
//! wrong player, timed in the future, written with a non-canonical token, a comment, a
//! NAG or a variation, a prepared reply, a move without a time, a draw offer, a move
//! timed before the one before it, two plies at once, a move taken back, a CR LF edit, a
//! resignation. Every version's verdict from the archive (`history`) must be the one the
//! referee gives when the version is judged on its own, from the whole text of the version
//! before (`judge_game_version`), and, cached, again the same.

use crate::common::records;
use ravenpost::archive::{Archive, FileVersion, Identity, Timestamp};
use ravenpost::notation::san::write_move;
use ravenpost::record::{self, DrawAction, MoveOptions};
use ravenpost::referee::judge::judge_game_version;
use ravenpost::referee::{CommitInfo, Evidence, GamePath, Problem, Step};
use ravenpost::usecases::history;
use ravenpost::variants::Definitions;

/// 2025-03-01T00:00:00Z.
const T0: i64 = 1_740_787_200;
const HOUR: i64 = 3_600;

/// What a version's commit needs beyond the two texts: nothing is signed, no army is
/// chosen; the earlier versions (for a time-forfeit claim) are the file's.
struct Plain<'a> {
    earlier: &'a [FileVersion],
}

impl Evidence for Plain<'_> {
    type Error = std::convert::Infallible;
    fn signature_problem(&self, _: &str, _: &str, _: &str) -> Result<Option<Problem>, Self::Error> {
        Ok(None)
    }
    fn earlier_versions(&self) -> Result<Vec<(i64, Option<String>)>, Self::Error> {
        Ok(self.earlier.iter().map(|v| (v.time.unix_seconds(), v.contents.clone())).collect())
    }
    fn army_choice(&self, _: &str) -> Result<Option<String>, Self::Error> {
        Ok(None)
    }
    fn game_exists(&self, _: &str) -> Result<bool, Self::Error> {
        Ok(false)
    }
}

/// A verdict as `log` words it: what the step was, and the problem.
fn words(verdict: &Result<Step, Problem>) -> (String, Option<String>) {
    match verdict {
        Ok(Step::Created) => ("created".into(), None),
        Ok(Step::Moved { ply, san, .. }) => (format!("ply {ply} {san}"), None),
        Ok(Step::Recorded { result, summary, .. }) => (format!("{summary} ({result})"), None),
        Err(p) => ("invalid".into(), Some(p.to_string())),
    }
}

/// Every version judged on its own, from the whole text of the version before.
fn judged_alone(path: &GamePath, versions: &[FileVersion]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        let text = v.contents.as_deref().expect("no version is deleted");
        let evidence = Plain { earlier: &versions[..i] };
        let info = CommitInfo { author: &v.author_name, time: v.time.unix_seconds() };
        let verdict = match i.checked_sub(1).map(|p| versions[p].contents.as_deref().unwrap()) {
            None => judge_game_version(&evidence, path, info, None, text, &Definitions::new())
                .unwrap()
                .map(|(s, _)| s),
            Some(old) => match record::load(old) {
                Ok(g0) => {
                    judge_game_version(&evidence, path, info, Some((&g0, old)), text, &Definitions::new())
                        .unwrap()
                        .map(|(s, _)| s)
                }
                Err(e) => Err(Problem::PreviousUnreadable { why: e.to_string() }),
            },
        };
        out.push(words(&verdict));
    }
    out
}

/// The canonical token of the `n`-th legal move (modulo their number) of `text`'s game,
/// and a longer token that reads as the same move, if there is one.
fn nth_move(text: &str, n: usize) -> (String, Option<String>) {
    let game = record::load(text).unwrap();
    let pos = game.position();
    let legal = game.variant.legal_moves(&pos);
    let mv = legal[n % legal.len()];
    let san = write_move(&game.variant, &pos, &mv);
    let dims = game.variant.def().dims;
    let long = mv.from().map(|from| {
        let code = game.variant.def().kind(mv.piece()).code.clone();
        let sep = if mv.capture().is_some() { "x" } else { "-" };
        format!("{code}{}{sep}{}", dims.name(from), dims.name(mv.to()))
    });
    let long =
        long.filter(|l| *l != san && ravenpost::notation::san::read_move(&game.variant, &pos, l) == Ok(mv));
    (san, long)
}

/// The players' names: White, Black.
const PLAYERS: [&str; 2] = ["Ann", "Bo"];

/// The player to move in `text`'s game.
fn mover(text: &str) -> &'static str {
    PLAYERS[record::load(&text.replace("\r\n", "\n")).unwrap().moves.len() % 2]
}

/// Commits `versions` (text, author, commit time) of game `id` one by one and checks the
/// archive's verdicts against the referee's on each version alone; returns the verdicts.
fn check_game(id: &str, versions: &[(String, &str, i64)]) -> Vec<(String, Option<String>)> {
    let dir = tempfile::tempdir().unwrap();
    let ann = Identity::new("Ann", "ann@example.com");
    let archive = Archive::init(dir.path(), Some(&ann), Timestamp::from_unix(T0 - HOUR, 0)).unwrap();
    let path = GamePath::new("grand", id).unwrap();
    let file = path.path();
    for (text, author, time) in versions {
        let who = Identity::new(*author, format!("{}@example.com", author.to_lowercase()));
        let tip = archive.tip().unwrap();
        archive.commit_file(&file, text, tip, Some(&who), Timestamp::from_unix(*time, 0), "step").unwrap();
    }
    let stored = archive.file_history(&file).unwrap();
    assert_eq!(stored.len(), versions.len(), "one commit per version");
    let want = judged_alone(&path, &stored);
    for round in ["judged", "cached"] {
        let got: Vec<(String, Option<String>)> =
            history(&archive, &path).unwrap().into_iter().map(|l| (l.what, l.problem)).collect();
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{round}: version {i} of {id}:\n{}", versions[i].0);
        }
    }
    want
}

/// A game of `plies` moves as `ravenpost move` writes them, each by its player, committed a
/// minute after its move time; `edit(ply, text, author, time)` may change each new version
/// (the ply is 1-based) or add versions before it.
fn played(
    plies: usize,
    mut edit: impl FnMut(usize, &mut Vec<(String, &'static str, i64)>),
) -> Vec<(String, &'static str, i64)> {
    let tags: Vec<(String, String)> = [("White", PLAYERS[0]), ("Black", PLAYERS[1]), ("Variant", "grand")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut versions = vec![(record::game_text_from_tags(&tags), PLAYERS[0], T0)];
    for ply in 1..=plies {
        let text = versions.last().unwrap().0.clone();
        let at = T0 + ply as i64 * HOUR;
        let (san, _) = nth_move(&text, ply * 7 + 3);
        let next = records::play_move_at(&text, &san, None, None, Some(at)).unwrap().text;
        versions.push((next, mover(&text), at + 60));
        edit(ply, &mut versions);
    }
    versions
}

#[test]
fn a_game_written_by_ravenpost_is_judged_as_each_version_alone() {
    let verdicts = check_game("plain", &played(40, |_, _| {}));
    assert_eq!(verdicts.len(), 41);
    assert!(verdicts[1..].iter().all(|(w, p)| w.starts_with("ply ") && p.is_none()), "{verdicts:?}");
}

#[test]
fn every_kind_of_step_is_judged_as_each_version_alone() {
    let versions = played(48, |ply, versions| {
        let (text, author, time) = versions.last().cloned().unwrap();
        let before = versions[versions.len() - 2].0.clone();
        let at = T0 + ply as i64 * HOUR;
        let (san, long) = nth_move(&before, ply * 7 + 3);
        let replace = |with: String| -> (String, &'static str, i64) { (with, author, time) };
        let new = match ply {
            // By the wrong player.
            3 => Some((text.clone(), mover(&text), time)),
            // Timed two days after its commit.
            5 => Some((text.clone(), author, time - 48 * HOUR)),
            // A longer token for the same move.
            8 => long.and_then(|l| {
                let at = text.rfind(&format!(" {san}"))? + 1;
                Some(replace(format!("{}{l}{}", &text[..at], &text[at + san.len()..])))
            }),
            // A comment, a NAG.
            11 => Some(replace(text.trim_end().trim_end_matches('*').trim_end().to_string() + " {nice} *\n")),
            13 => {
                let at = text.rfind(&format!(" {san}")).unwrap() + 1 + san.len();
                Some(replace(format!("{}!{}", &text[..at], &text[at..])))
            }
            // A prepared reply; a move without a time.
            15 => {
                let options = MoveOptions { at: Some(at), prepared: true, ..MoveOptions::default() };
                Some(replace(records::play_move_with(&before, &san, None, None, options).unwrap().text))
            }
            17 => Some(replace(records::play_move_at(&before, &san, None, None, None).unwrap().text)),
            // A draw offer with the move, then the reply (the offer lapses).
            19 => {
                versions.push((
                    records::draw(&text, None, DrawAction::Offer).unwrap().text,
                    mover(&text),
                    time + 30,
                ));
                None
            }
            // The reply to the offer (carried with ply 20) and the move after it, the offer
            // kept (ravenpost lets it lapse).
            21 | 22 => {
                let mut game = record::load(&text).unwrap();
                game.text.moves[19].comments = record::load(&before).unwrap().text.moves[19].comments.clone();
                Some(replace(game.canonical_text()))
            }
            // Timed before the move before it, then timed again.
            23 => {
                let early =
                    records::play_move_at(&before, &san, None, None, Some(at - 2 * HOUR)).unwrap().text;
                versions.insert(versions.len() - 1, (early, author, time - 30));
                None
            }
            // Two plies at once: this ply and the next in one version.
            27 => {
                let (next, _) = nth_move(&text, 5);
                let two = records::play_move_at(&text, &next, None, None, Some(at + 60)).unwrap().text;
                Some(replace(two))
            }
            // The move taken back, then played again.
            31 => {
                versions.push((before.clone(), author, time + 30));
                versions.push((text.clone(), author, time + 60));
                None
            }
            // Lines ending in CR LF, then LF again.
            35 => {
                versions.push((text.replace('\n', "\r\n"), author, time + 30));
                None
            }
            // A variation to the new move.
            41 => {
                let (alt, _) = nth_move(&before, ply * 7 + 4);
                let cut = text.trim_end().trim_end_matches('*').trim_end().to_string();
                Some(replace(format!("{cut} ({alt}) *\n")))
            }
            _ => None,
        };
        if let Some(new) = new {
            *versions.last_mut().unwrap() = new;
        }
    });
    let mut versions = versions;
    let (last, _, time) = versions.last().cloned().unwrap();
    versions.push((records::resign(&last, Some(PLAYERS[1])).unwrap().text, PLAYERS[1], time + HOUR));
    let verdicts = check_game("edited", &versions);
    // Every kind of verdict the edits were made for was given.
    let problems: Vec<String> = verdicts.iter().filter_map(|(_, p)| p.clone()).collect();
    let moved = verdicts.iter().filter(|(w, _)| w.starts_with("ply ")).count();
    assert!(moved > 30, "{moved} plies accepted: {verdicts:#?}");
    assert!(problems.len() >= 8, "{problems:#?}");
    // A longer token reads as the same move: the step is that move, shown canonically.
    assert!(versions.iter().any(|(t, _, _)| t.contains(" Ra10-b10 ")), "the longer token was written");
    assert!(verdicts.contains(&("ply 8 Rb10".to_string(), None)), "{verdicts:#?}");
    assert!(verdicts.iter().any(|(w, _)| w.contains("offers a draw")), "{verdicts:#?}");
    assert!(verdicts.last().is_some_and(|(w, _)| w.contains("resign")), "{verdicts:#?}");
}
