//! The referee layer called directly (no git, no binary): every verdict a judged commit
//! can get ([`Problem`] variants with their fields, a few of their sentences), the steps
//! it accepts ([`Step`]), the correspondence clock (each time-control form, carried-over
//! time, leave, deadlines exact to the second), timeout claims and leave bookings, the
//! secret army choice of Fantasy Grand Chess, and what a commit may change.
//!
//! Game texts are made the way ravenpost makes them (`common::records::play_move_at`, `resign`,
//! `draw`, `book_leave`, `time_forfeit`) and then edited the way a cheater or a broken
//! tool would. Times are hand-computed from `T0` = 2025-11-29T07:06:40Z (Unix
//! 1 764 400 000; that day starts at `D0` = 1 764 374 400, 07:06:40 being 25 600 s).

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::common::records::{book_leave, draw, play_move_at, resign, time_forfeit};
use ravenpost::engine::Side;
use ravenpost::notation::pgn::{GameText, MoveNode};
use ravenpost::record::game::Game;
use ravenpost::record::{DrawAction, load, time_comment};
use ravenpost::referee::army::{choice_tags_problem, started_game_problem, started_game_text};
use ravenpost::referee::clock::{
    TimedVersion, arrival_problem, arrival_time, check_leave_start, check_timeout_claim, clock,
    timeout_claim_problem,
};
use ravenpost::referee::judge::{Changed, classify_changes, judge_choice_version, judge_game_version};
use ravenpost::referee::problem::{Span, time_from_unix};
use ravenpost::referee::step::{check_created, check_step_at, check_step_from};
use ravenpost::referee::{
    ArmyChoice, ArmyReveal, COMMITMENT_TAGS, ChoiceStep, Clock, ClockRefusal, CommitInfo, Evidence, Finding,
    GamePath, PlyTimes, Problem, Step, check_choice_step,
};
use ravenpost::variants::Definitions;

/// 2025-11-29T07:06:40Z.
const T0: i64 = 1_764_400_000;
/// 2025-11-29T00:00:00Z, the start of `T0`'s UTC day.
const D0: i64 = 1_764_374_400;
const HOUR: i64 = 3_600;
const DAY: i64 = 86_400;

/// A new Gygax game between Ann (Gold, first) and Bo (Scarlet), as a hand-written file
/// (tags not in canonical layout: layout is no change).
fn new_game(tc: Option<&str>) -> String {
    let tc = tc.map(|t| format!("[TimeControl \"{t}\"]\n")).unwrap_or_default();
    format!("[Event \"?\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n[Variant \"gygax\"]\n{tc}\n*\n")
}

/// The first four plies used throughout: Ann 2e3, Bo Sa3b6, Ann 2d3, Bo 2e6.
const PLIES: [(&str, &str); 4] =
    [("Ann", "W2e2-2e3"), ("Bo", "Sa3b6"), ("Ann", "W2d2-2d3"), ("Bo", "W2e7-2e6")];

/// `text` after the first `times.len()` of [`PLIES`], ply k timed `times[k]` (`None`: no
/// time recorded).
fn play(text: &str, times: &[Option<i64>]) -> String {
    let mut t = text.to_string();
    for ((who, token), at) in PLIES.iter().zip(times) {
        t = play_move_at(&t, token, Some(who), None, *at).unwrap_or_else(|e| panic!("{token}: {e}")).text;
    }
    t
}

fn game(text: &str) -> Game {
    load(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// `text` with its game text changed by `f`, written back canonically (a broken tool's
/// or a cheater's edit that still reads as a game).
fn edit(text: &str, f: impl FnOnce(&mut GameText)) -> String {
    let mut g = game(text);
    f(&mut g.text);
    g.canonical_text()
}

fn at(t: i64) -> ravenpost::referee::Time {
    time_from_unix(t)
}

fn step(old: Option<&str>, new: &str, author: Option<&str>) -> Result<Step, Problem> {
    check_step_at(old, new, author, None, &Definitions::new())
}

fn moved(ply: usize, san: &str, player: &str) -> Result<Step, Problem> {
    Ok(Step::Moved { ply, san: san.into(), player: player.into(), end: None })
}

fn recorded(result: &str, player: &str, summary: &str) -> Result<Step, Problem> {
    Ok(Step::Recorded { result: result.into(), player: player.into(), summary: summary.into() })
}

/// A Gygax position where Scarlet (Bo, to move) mates with O2a7 (from `tests/record.rs`);
/// `halfmoves` is the FEN's ply clock.
fn mate_position(halfmoves: u32) -> String {
    format!(
        "[Variant \"gygax\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[SetUp \"1\"]\n[FEN \"12/12/12/12/12/12/12/1c10 \
         1o5k4/2o9/12/12/12/12/12/K11 12/12/12/12/12/12/12/1c10 s {halfmoves} 1\"]\n\n*\n"
    )
}

// ---- steps accepted -------------------------------------------------------------------

#[test]
fn creation_is_a_step_of_nobody() {
    let new = new_game(Some("1/3d"));
    assert_eq!(step(None, &new, None), Ok(Step::Created));
    assert_eq!(step(None, &new, None).unwrap().actor(), None);
    assert_eq!(check_created("gygax", &game(&new)), Ok(Step::Created));
}

#[test]
fn each_players_move_is_a_moved_step() {
    let new = new_game(None);
    let p1 = play(&new, &[Some(T0)]);
    assert_eq!(step(Some(&new), &p1, Some("Ann")), moved(1, "2e3", "Ann"));
    let p2 = play(&new, &[Some(T0), Some(T0 + HOUR)]);
    assert_eq!(step(Some(&p1), &p2, Some("Bo")), moved(2, "Sa3b6", "Bo"));
    assert_eq!(step(Some(&p1), &p2, Some("Bo")).unwrap().actor(), Some("Bo"));
    // Without an author (a mailed game), the player to move is named.
    assert_eq!(step(Some(&p1), &p2, None), moved(2, "Sa3b6", "Bo"));
    // A ply without a recorded time (older files) is accepted.
    let untimed = play(&new, &[None]);
    assert_eq!(step(Some(&new), &untimed, Some("Ann")), moved(1, "2e3", "Ann"));
}

#[test]
fn a_mating_move_comes_with_its_result() {
    let old = mate_position(0);
    let a = play_move_at(&old, "O2a7", Some("Bo"), None, Some(T0)).unwrap();
    assert_eq!(a.result.as_deref(), Some("0-1"));
    // The step says how the rules ended the game (typed, for `log` and the site).
    let end = Some(ravenpost::referee::Ended {
        result: "0-1".into(),
        reason: ravenpost::engine::EndReason::Checkmate,
    });
    assert_eq!(
        step(Some(&old), &a.text, Some("Bo")),
        Ok(Step::Moved { ply: 1, san: "O2a7#".into(), player: "Bo".into(), end })
    );
}

#[test]
fn a_drop_in_fidchell_and_moves_of_fantasy_grand_armies() {
    let new = "[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n[Variant \"fidchell\"]\n\n*\n";
    let p1 = play_move_at(new, "W_a3", Some("Ann"), None, Some(T0)).unwrap().text;
    assert_eq!(step(Some(new), &p1, Some("Ann")), moved(1, "W_a3", "Ann"));
    let new = "[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n[Variant \"fantasy-grand\"]\n\
               [WhiteArmy \"evil-horde\"]\n[BlackArmy \"druid\"]\n[GameOptions \"druid=allowed\"]\n\n*\n";
    let p1 = play_move_at(new, "e5", Some("Ann"), None, Some(T0)).unwrap().text;
    assert_eq!(step(Some(new), &p1, Some("Ann")), moved(1, "e5", "Ann"));
    let p2 = play_move_at(&p1, "Fob7", Some("Bo"), None, Some(T0 + 1)).unwrap().text;
    assert_eq!(step(Some(&p1), &p2, Some("Bo")), moved(2, "Fob7", "Bo"));
    // Fantasy Grand's sides are White and Black.
    assert_eq!(
        step(Some(&p1), &p2, Some("Ann")),
        Err(Problem::OutOfTurn {
            ply: 2,
            author: "Ann".into(),
            to_move: "Bo".into(),
            side_name: "Black".into()
        })
    );
}

#[test]
fn a_move_carries_the_movers_own_draw_offer() {
    let new = new_game(None);
    let offered = draw(&new, Some("Ann"), DrawAction::Offer).unwrap();
    assert_eq!(step(Some(&new), &offered.text, Some("Ann")), recorded("*", "Ann", "Gold offers a draw"));
    let a = play_move_at(&offered.text, "W2e2-2e3", Some("Ann"), None, Some(T0)).unwrap();
    assert!(a.text.contains("{ravenpost: draw offered by Gold}"), "{}", a.text);
    assert_eq!(step(Some(&offered.text), &a.text, Some("Ann")), moved(1, "2e3", "Ann"));
}

#[test]
fn either_player_may_resign() {
    let p1 = play(&new_game(None), &[Some(T0)]);
    // Bo is to move; Ann resigns all the same.
    let r = resign(&p1, Some("Ann")).unwrap();
    assert_eq!(step(Some(&p1), &r.text, Some("Ann")), recorded("0-1", "Ann", "Gold resigns"));
    let r = resign(&p1, Some("Bo")).unwrap();
    assert_eq!(step(Some(&p1), &r.text, Some("Bo")), recorded("1-0", "Bo", "Scarlet resigns"));
}

#[test]
fn draw_offer_accept_decline_and_claim_are_recorded_steps() {
    let p1 = play(&new_game(None), &[Some(T0)]);
    let offer = draw(&p1, Some("Bo"), DrawAction::Offer).unwrap();
    assert_eq!(step(Some(&p1), &offer.text, Some("Bo")), recorded("*", "Bo", "Scarlet offers a draw"));
    // Bo's offer goes with his move; Ann answers it.
    let p2 = play_move_at(&offer.text, "Sa3b6", Some("Bo"), None, Some(T0 + HOUR)).unwrap().text;
    assert_eq!(step(Some(&offer.text), &p2, Some("Bo")), moved(2, "Sa3b6", "Bo"));
    let accept = draw(&p2, Some("Ann"), DrawAction::Accept).unwrap();
    assert_eq!(
        step(Some(&p2), &accept.text, Some("Ann")),
        recorded("1/2-1/2", "Ann", "Gold accepts the draw")
    );
    let decline = draw(&p2, Some("Ann"), DrawAction::Decline).unwrap();
    assert_eq!(step(Some(&p2), &decline.text, Some("Ann")), recorded("*", "Ann", "Gold declines the draw"));
    // 100 plies without a capture, promotion, drop or pawn move (the FEN's ply clock).
    let old = mate_position(100);
    let claim = draw(&old, Some("Bo"), DrawAction::Claim).unwrap();
    assert_eq!(
        step(Some(&old), &claim.text, Some("Bo")),
        recorded(
            "1/2-1/2",
            "Bo",
            "Scarlet claims a draw (100 plies without a capture, promotion, drop or pawn move)"
        )
    );
}

#[test]
fn booked_leave_is_a_recorded_step_of_either_player() {
    let p1 = play(&new_game(Some("1/3d")), &[Some(T0)]);
    let leave = book_leave(&p1, "Bo", D0 + DAY, 3).unwrap();
    assert_eq!(
        step(Some(&p1), &leave.text, Some("Bo")),
        recorded("*", "Bo", "Bo (Scarlet) books 3 days of leave from 2025-11-30T00:00:00Z")
    );
    // Ann is not to move, and may book leave too.
    let leave = book_leave(&p1, "Ann", D0 + 2 * DAY, 1).unwrap();
    assert_eq!(
        step(Some(&p1), &leave.text, Some("Ann")),
        recorded("*", "Ann", "Ann (Gold) books 1 day of leave from 2025-12-01T00:00:00Z")
    );
}

#[test]
fn a_timeout_claim_is_a_step_of_the_waiting_player() {
    let p1 = play(&new_game(Some("1/3d")), &[Some(T0)]);
    let claim = time_forfeit(&p1, Some("Ann"), "Bo did not move by 2025-12-02T07:06:40Z").unwrap();
    assert_eq!(step(Some(&p1), &claim.text, Some("Ann")), recorded("1-0", "Ann", "Gold wins on time"));
}

#[test]
fn step_serialises_with_a_kebab_case_tag() {
    let s = serde_json::to_value(Step::Moved { ply: 3, san: "2d3".into(), player: "Ann".into(), end: None })
        .unwrap();
    assert_eq!(s, serde_json::json!({"step": "moved", "ply": 3, "san": "2d3", "player": "Ann"}));
    assert_eq!(serde_json::to_value(Step::Created).unwrap(), serde_json::json!({"step": "created"}));
}

// ---- problems of one version ----------------------------------------------------------

#[test]
fn unreadable_versions() {
    let new = new_game(None);
    let garbage = "[Event \"?\"\n1. zz *\n";
    let why = load(garbage).unwrap_err().to_string();
    assert_eq!(step(Some(&new), garbage, Some("Ann")), Err(Problem::Unreadable { why: why.clone() }));
    assert_eq!(step(None, garbage, None), Err(Problem::Unreadable { why }));
    let p1 = play(&new, &[Some(T0)]);
    let why = load(garbage).unwrap_err().to_string();
    assert_eq!(step(Some(garbage), &p1, Some("Ann")), Err(Problem::PreviousUnreadable { why: why.clone() }));
    assert_eq!(
        step(Some(garbage), &p1, Some("Ann")).unwrap_err().to_string(),
        format!("the previous version: {why}")
    );
    // An illegal ply does not replay: the version is unreadable, with the rules' reason.
    let illegal = format!("{}1. Sa3b6 *\n", new.strip_suffix("*\n").unwrap());
    let why = load(&illegal).unwrap_err().to_string();
    assert_eq!(step(Some(&new), &illegal, Some("Ann")), Err(Problem::Unreadable { why }));
}

#[test]
fn bad_move_times() {
    let new = new_game(None);
    let p1 = play(&new, &[Some(T0)]);
    // The replay refuses such a file already: the version is unreadable, with its reason.
    let twice = p1.replace("07:06:40Z}", "07:06:40Z} {ravenpost: at 2025-11-29T07:06:41Z}");
    assert_ne!(twice, p1);
    let why = load(&twice).unwrap_err().to_string();
    assert!(why.ends_with("ply 1 has 2 move times"), "{why}");
    assert_eq!(step(Some(&new), &twice, Some("Ann")), Err(Problem::Unreadable { why: why.clone() }));
    assert_eq!(step(None, &twice, None), Err(Problem::Unreadable { why }));
    let bad = p1.replace("2025-11-29T07:06:40Z", "2025-13-45");
    let why = load(&bad).unwrap_err().to_string();
    assert!(why.contains("ply 1: the move time `2025-13-45` is not an RFC 3339 time"), "{why}");
    assert_eq!(step(Some(&new), &bad, Some("Ann")), Err(Problem::Unreadable { why }));
    // A game handed to check_step_from that was changed after its replay (no reader
    // refuses it then): the referee's own reading of the times.
    let g0 = game(&new);
    let mut g1 = game(&p1);
    g1.text.moves[0].comments.push(time_comment(T0 + 1));
    assert_eq!(
        check_step_from(&g0, &g1, Some("Ann"), None),
        Err(Problem::BadMoveTime { why: "ply 1 (2e3): two recorded times".into() })
    );
    g1.text.moves[0].comments = vec!["ravenpost: at 2025-13-45".into()];
    match check_step_from(&g0, &g1, Some("Ann"), None) {
        Err(Problem::BadMoveTime { why }) => {
            assert!(why.starts_with("ply 1 (2e3): the time `2025-13-45` is not an RFC 3339 time: "), "{why}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn tags_changed() {
    let new = new_game(None);
    let p1 = play(&new, &[Some(T0)]);
    let cheat = edit(&p1, |t| t.set_tag("Black", "Bob"));
    assert_eq!(step(Some(&new), &cheat, Some("Ann")), Err(Problem::TagsChanged));
    let cheat = edit(&p1, |t| t.set_tag("TimeControl", "1/30d"));
    assert_eq!(step(Some(&new), &cheat, Some("Ann")), Err(Problem::TagsChanged));
    assert_eq!(Problem::TagsChanged.to_string(), "the game's tags or start position were changed");
}

#[test]
fn earlier_moves_and_their_times_may_not_be_rewritten() {
    let new = new_game(None);
    let p1 = play(&new, &[Some(T0)]);
    let p2 = play(&new, &[Some(T0), Some(T0 + HOUR)]);
    // Ply 1 replaced by another move, ply 2 added.
    let other = play_move_at(&new, "W2d2-2d3", Some("Ann"), None, Some(T0)).unwrap().text;
    let other2 = play_move_at(&other, "Sa3b6", Some("Bo"), None, Some(T0 + HOUR)).unwrap().text;
    assert_eq!(step(Some(&p1), &other2, Some("Bo")), Err(Problem::MoveRewritten { ply: 1 }));
    assert_eq!(
        Problem::MoveRewritten { ply: 1 }.to_string(),
        "ply 1 was changed or removed: earlier moves may not be rewritten"
    );
    // A ply taken back.
    assert_eq!(step(Some(&p2), &p1, Some("Bo")), Err(Problem::MoveRewritten { ply: 2 }));
    // Ply 1's time moved while ply 2 is added; or on its own; or dropped.
    let retimed = edit(&p2, |t| t.moves[0].comments[0] = time_comment(T0 - DAY));
    assert_eq!(step(Some(&p1), &retimed, Some("Bo")), Err(Problem::MoveTimeRewritten { ply: 1 }));
    let retimed = edit(&p1, |t| t.moves[0].comments[0] = time_comment(T0 - DAY));
    assert_eq!(step(Some(&p1), &retimed, Some("Ann")), Err(Problem::MoveTimeRewritten { ply: 1 }));
    let dropped = edit(&p2, |t| t.moves[0].comments.clear());
    assert_eq!(step(Some(&p1), &dropped, Some("Bo")), Err(Problem::MoveTimeRewritten { ply: 1 }));
}

#[test]
fn a_new_ply_timed_before_the_previous_one() {
    let new = new_game(None);
    let p1 = play(&new, &[Some(T0 + 100)]);
    let p2 = play(&new, &[Some(T0 + 100), Some(T0 + 50)]);
    // The replay refuses the file: unreadable, with its reason.
    let why = load(&p2).unwrap_err().to_string();
    assert!(why.ends_with("ply 2: the move time `2025-11-29T07:07:30Z` is before ply 1's"), "{why}");
    assert_eq!(step(Some(&p1), &p2, Some("Bo")), Err(Problem::Unreadable { why }));
    // The referee's own check, on a game changed after its replay.
    let p2_ok = play(&new, &[Some(T0 + 100), Some(T0 + 100)]);
    let mut g1 = game(&p2_ok);
    g1.text.moves[1].comments[0] = time_comment(T0 + 50);
    let p = check_step_from(&game(&p1), &g1, Some("Bo"), None).unwrap_err();
    assert_eq!(p, Problem::TimedBeforePrevious { ply: 2, at: at(T0 + 50), previous: at(T0 + 100) });
    assert_eq!(
        p.to_string(),
        "ply 2 is timed 2025-11-29T07:07:30Z, before the previous move (2025-11-29T07:08:20Z)"
    );
    // The same second is fine.
    let same = play(&new, &[Some(T0 + 100), Some(T0 + 100)]);
    assert_eq!(step(Some(&p1), &same, Some("Bo")), moved(2, "Sa3b6", "Bo"));
}

#[test]
fn a_new_ply_timed_in_the_future() {
    let new = new_game(None);
    // 15 minutes (900 s) of clock skew are allowed, not 901.
    let p1 = play(&new, &[Some(T0 + 900)]);
    assert_eq!(
        check_step_at(Some(&new), &p1, Some("Ann"), Some(T0), &Definitions::new()),
        moved(1, "2e3", "Ann")
    );
    let p1 = play(&new, &[Some(T0 + 901)]);
    assert_eq!(
        check_step_at(Some(&new), &p1, Some("Ann"), Some(T0), &Definitions::new()),
        Err(Problem::TimedInFuture { ply: 1, at: at(T0 + 901), commit: at(T0) })
    );
    assert_eq!(
        check_step_at(Some(&new), &p1, Some("Ann"), Some(T0), &Definitions::new()).unwrap_err().to_string(),
        "ply 1 is timed 2025-11-29T07:21:41Z, later than its commit (2025-11-29T07:06:40Z): a move cannot be timed in the future"
    );
}

#[test]
fn a_finished_game_may_not_change() {
    let p1 = play(&new_game(None), &[Some(T0)]);
    let resigned = resign(&p1, Some("Ann")).unwrap().text;
    let flipped = edit(&resigned, |t| t.result = Some(("1-0".into(), Default::default())));
    assert_eq!(
        step(Some(&resigned), &flipped, Some("Bo")),
        Err(Problem::FinishedResultChanged { from: "0-1".into(), to: "1-0".into() })
    );
    let annotated = edit(&resigned, |t| t.moves[0].comments.push("a pity".into()));
    assert_eq!(
        step(Some(&resigned), &annotated, Some("Bo")),
        Err(Problem::GameOver { result: "0-1".into() })
    );
    assert_eq!(
        Problem::GameOver { result: "0-1".into() }.to_string(),
        "the game is over (0-1): its record may not change"
    );
    let more = edit(&resigned, |t| t.moves.push(MoveNode { token: "Sa3b6".into(), ..MoveNode::default() }));
    assert_eq!(step(Some(&resigned), &more, Some("Bo")), Err(Problem::MoveAfterEnd { result: "0-1".into() }));
}

#[test]
fn changes_that_are_no_step() {
    let p1 = play(&new_game(None), &[Some(T0)]);
    let won = edit(&p1, |t| t.result = Some(("1-0".into(), Default::default())));
    assert_eq!(
        step(Some(&p1), &won, Some("Ann")),
        Err(Problem::ResultWithoutAction { result: "1-0".into() })
    );
    let comment = edit(&p1, |t| t.moves[0].comments.push("good move".into()));
    assert_eq!(step(Some(&p1), &comment, Some("Ann")), Err(Problem::NotAStep));
    // A resignation written by hand, not as ravenpost records it (no comment).
    let hand = edit(&p1, |t| {
        t.result = Some(("0-1".into(), Default::default()));
        t.set_tag("Termination", "normal");
    });
    assert_eq!(
        step(Some(&p1), &hand, Some("Ann")),
        Err(Problem::ResultWithoutAction { result: "0-1".into() })
    );
}

#[test]
fn a_recorded_action_by_someone_not_entitled() {
    let p1 = play(&new_game(Some("1/3d")), &[Some(T0)]);
    let r = resign(&p1, Some("Ann")).unwrap().text;
    let p = step(Some(&p1), &r, Some("Bo")).unwrap_err();
    assert_eq!(
        p,
        Problem::NotEntitled { summary: "Gold resigns".into(), author: "Bo".into(), entitled: "Ann".into() }
    );
    assert_eq!(p.to_string(), "\"Gold resigns\" was authored by Bo, but only Ann can do that");
    // Bo is to move: only he can offer a draw now.
    let offer = draw(&p1, None, DrawAction::Offer).unwrap().text;
    assert_eq!(
        step(Some(&p1), &offer, Some("Ann")),
        Err(Problem::NotEntitled {
            summary: "Scarlet offers a draw".into(),
            author: "Ann".into(),
            entitled: "Bo".into()
        })
    );
    let claim = time_forfeit(&p1, None, "Bo did not move").unwrap().text;
    assert_eq!(
        step(Some(&p1), &claim, Some("Bo")),
        Err(Problem::NotEntitled {
            summary: "Gold wins on time".into(),
            author: "Bo".into(),
            entitled: "Ann".into()
        })
    );
}

#[test]
fn a_ply_out_of_turn() {
    let new = new_game(None);
    let p1 = play(&new, &[Some(T0)]);
    let p2 = play(&new, &[Some(T0), Some(T0 + HOUR)]);
    let p = step(Some(&p1), &p2, Some("Ann")).unwrap_err();
    assert_eq!(
        p,
        Problem::OutOfTurn {
            ply: 2,
            author: "Ann".into(),
            to_move: "Bo".into(),
            side_name: "Scarlet".into()
        }
    );
    assert_eq!(p.to_string(), "ply 2 was authored by Ann, but Bo (Scarlet) was to move");
    // Someone who is not a player at all.
    assert_eq!(
        step(Some(&new), &p1, Some("Eve")),
        Err(Problem::OutOfTurn {
            ply: 1,
            author: "Eve".into(),
            to_move: "Ann".into(),
            side_name: "Gold".into()
        })
    );
}

#[test]
fn a_ply_with_more_than_the_move() {
    let new = new_game(None);
    let p1 = play(&new, &[Some(T0)]);
    let resigned_too = edit(&p1, |t| t.result = Some(("1-0".into(), Default::default())));
    assert_eq!(
        step(Some(&new), &resigned_too, Some("Ann")),
        Err(Problem::ResultWithMove { ply: 1, san: "2e3".into(), result: "1-0".into(), rules: "*".into() })
    );
    // A comment before the move's time is not where `move --comment` writes it; nor is
    // a second one.
    let commented = edit(&p1, |t| t.moves[0].comments.insert(0, "!!".into()));
    assert_eq!(
        step(Some(&new), &commented, Some("Ann")),
        Err(Problem::MoreThanTheMove { ply: 1, san: "2e3".into() })
    );
    let twice = edit(&p1, |t| t.moves[0].comments.extend(["Good luck".into(), "!!".into()]));
    assert_eq!(
        step(Some(&new), &twice, Some("Ann")),
        Err(Problem::MoreThanTheMove { ply: 1, san: "2e3".into() })
    );
    // One comment after the time is the player's comment with the move (`move --comment`).
    let said = edit(&p1, |t| t.moves[0].comments.push("Good luck".into()));
    assert_eq!(
        step(Some(&new), &said, Some("Ann")),
        Ok(Step::Moved { ply: 1, san: "2e3".into(), player: "Ann".into(), end: None })
    );
    // The mate without its result.
    let old = mate_position(0);
    let mate = play_move_at(&old, "O2a7", Some("Bo"), None, Some(T0)).unwrap().text;
    let no_result = edit(&mate, |t| {
        t.result = None;
        t.remove_tag("Termination");
    });
    // The replay refuses it already (unreadable); handed over replayed, the step names it.
    let why = load(&no_result).unwrap_err().to_string();
    assert!(why.ends_with("the game is over (Scarlet wins by checkmate) but the result is `*`"), "{why}");
    assert_eq!(step(Some(&old), &no_result, Some("Bo")), Err(Problem::Unreadable { why }));
    // (The version before in canonical form, so that its tags are compared as written.)
    let old = game(&old).canonical_text();
    let mate = play_move_at(&old, "O2a7", Some("Bo"), None, Some(T0)).unwrap().text;
    let mut g1 = game(&mate);
    g1.text.result = None;
    g1.text.remove_tag("Termination");
    assert_eq!(
        check_step_from(&game(&old), &g1, Some("Bo"), None),
        Err(Problem::ResultWithMove { ply: 1, san: "O2a7#".into(), result: "*".into(), rules: "0-1".into() })
    );
}

#[test]
fn several_plies_at_once() {
    let new = new_game(None);
    let p2 = play(&new, &[Some(T0), Some(T0 + HOUR)]);
    assert_eq!(step(Some(&new), &p2, Some("Ann")), Err(Problem::SeveralPlies { plies: 2 }));
    assert_eq!(
        Problem::SeveralPlies { plies: 2 }.to_string(),
        "2 plies were added at once: each commit adds one"
    );
}

#[test]
fn a_new_game_in_the_wrong_folder_or_with_moves() {
    let new = new_game(None);
    assert_eq!(
        check_created("fidchell", &game(&new)),
        Err(Problem::WrongFolder { variant: "gygax".into(), folder: "fidchell".into() })
    );
    let p1 = play(&new, &[Some(T0)]);
    assert_eq!(check_created("gygax", &game(&p1)), Err(Problem::CreatedWithMoves { plies: 1 }));
    // Through the judge, too.
    let fake = Fake::default();
    let path = GamePath::new("fidchell", "g").unwrap();
    assert_eq!(
        judge_game_version(&fake, &path, info("Ann", T0), None, &new, &Definitions::new())
            .unwrap()
            .map(|v| v.0),
        Err(Problem::WrongFolder { variant: "gygax".into(), folder: "fidchell".into() })
    );
    let path = GamePath::new("gygax", "g").unwrap();
    assert_eq!(
        judge_game_version(&fake, &path, info("Ann", T0), None, &p1, &Definitions::new())
            .unwrap()
            .map(|v| v.0),
        Err(Problem::CreatedWithMoves { plies: 1 })
    );
}

// ---- the judge, with a fake repository -------------------------------------------------

/// What the judge may ask of the repository, answered from fields; records the
/// signature questions it was asked.
#[derive(Default)]
struct Fake {
    signature: Option<Problem>,
    earlier: Vec<(i64, Option<String>)>,
    choice: Option<String>,
    exists: bool,
    asked: RefCell<Vec<(String, String, String)>>,
}

impl Evidence for Fake {
    type Error = std::convert::Infallible;
    fn signature_problem(&self, player: &str, tag: &str, key: &str) -> Result<Option<Problem>, Self::Error> {
        self.asked.borrow_mut().push((player.into(), tag.into(), key.into()));
        Ok(self.signature.clone())
    }
    fn earlier_versions(&self) -> Result<Vec<(i64, Option<String>)>, Self::Error> {
        Ok(self.earlier.clone())
    }
    fn army_choice(&self, _id: &str) -> Result<Option<String>, Self::Error> {
        Ok(self.choice.clone())
    }
    fn game_exists(&self, _id: &str) -> Result<bool, Self::Error> {
        Ok(self.exists)
    }
}

fn info(author: &str, time: i64) -> CommitInfo<'_> {
    CommitInfo { author, time }
}

const ANN_KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEXAMPLEannEXAMPLEannEXAMPLEannEXAMPLEann";

/// Judges `new` after `old` (a game file `games/gygax/g.pgn`).
fn judge(fake: &Fake, author: &str, time: i64, old: &str, new: &str) -> Result<Step, Problem> {
    let g0 = game(old);
    let path = GamePath::new("gygax", "g").unwrap();
    judge_game_version(fake, &path, info(author, time), Some((&g0, old)), new, &Definitions::new())
        .unwrap()
        .map(|(s, _)| s)
}

#[test]
fn signatures_are_asked_for_listed_keys_only() {
    let new = new_game(None).replace("[Result", &format!("[WhiteSigningKey \"{ANN_KEY}\"]\n[Result"));
    let p1 = play(&new, &[Some(T0)]);
    let p2 = play(&new, &[Some(T0), Some(T0 + HOUR)]);
    let unsigned = Problem::Unsigned { player: "Ann".into(), tag: "WhiteSigningKey".into() };
    let fake = Fake { signature: Some(unsigned.clone()), ..Fake::default() };
    assert_eq!(judge(&fake, "Ann", T0, &new, &p1), Err(unsigned.clone()));
    assert_eq!(
        unsigned.to_string(),
        "the commit is not signed, but Ann's steps in this game must be (WhiteSigningKey)"
    );
    assert_eq!(
        *fake.asked.borrow(),
        vec![("Ann".to_string(), "WhiteSigningKey".to_string(), ANN_KEY.to_string())]
    );
    // Bo lists no key: his step is not asked about.
    assert_eq!(judge(&fake, "Bo", T0 + HOUR, &p1, &p2), moved(2, "Sa3b6", "Bo"));
    assert_eq!(fake.asked.borrow().len(), 1);
    // A bad signature; and a good one.
    let bad = Problem::BadSignature {
        player: "Ann".into(),
        why: "Signature verification failed".into(),
        tag: "WhiteSigningKey".into(),
    };
    let fake = Fake { signature: Some(bad.clone()), ..Fake::default() };
    assert_eq!(judge(&fake, "Ann", T0, &new, &p1), Err(bad.clone()));
    assert_eq!(
        bad.to_string(),
        "Ann's signature is not good: Signature verification failed (WhiteSigningKey)"
    );
    let fake = Fake::default();
    assert_eq!(judge(&fake, "Ann", T0, &new, &p1), moved(1, "2e3", "Ann"));
    // Ann's resignation needs her signature even when it is Bo's turn.
    let fake = Fake { signature: Some(unsigned.clone()), ..Fake::default() };
    let r = resign(&p1, Some("Ann")).unwrap().text;
    assert_eq!(judge(&fake, "Ann", T0 + HOUR, &p1, &r), Err(unsigned));
    // The creation is nobody's step: nothing asked.
    let fake = Fake::default();
    let path = GamePath::new("gygax", "g").unwrap();
    let created = judge_game_version(&fake, &path, info("Ann", T0), None, &new, &Definitions::new())
        .unwrap()
        .map(|v| v.0);
    assert_eq!(created, Ok(Step::Created));
    assert!(fake.asked.borrow().is_empty());
}

#[test]
fn the_judge_passes_the_commit_author_and_time_to_the_step() {
    let new = new_game(None);
    let p1 = play(&new, &[Some(T0 + 901)]);
    let fake = Fake::default();
    assert_eq!(
        judge(&fake, "Ann", T0, &new, &p1),
        Err(Problem::TimedInFuture { ply: 1, at: at(T0 + 901), commit: at(T0) })
    );
    assert_eq!(
        judge(&fake, "Bo", T0 + 901, &new, &p1),
        Err(Problem::OutOfTurn {
            ply: 1,
            author: "Bo".into(),
            to_move: "Ann".into(),
            side_name: "Gold".into()
        })
    );
    assert_eq!(
        judge(&fake, "Ann", T0, &new, "1. zz"),
        Err(Problem::Unreadable { why: load("1. zz").unwrap_err().to_string() })
    );
}

/// A 1/3d game: created at `T0`, Ann's ply 1 at `T0 + 1h`; Bo to move, his deadline
/// `T0 + 1h + 3d` = 2025-12-02T08:06:40Z. The versions before the claim, as git has them.
fn timed_game() -> (String, String, Vec<(i64, Option<String>)>) {
    let new = new_game(Some("1/3d"));
    let p1 = play(&new, &[Some(T0 + HOUR)]);
    let earlier = vec![(T0, Some(new.clone())), (T0 + HOUR + 60, Some(p1.clone()))];
    (new, p1, earlier)
}

#[test]
fn a_timeout_claim_before_the_deadline_is_refused() {
    let (_, p1, earlier) = timed_game();
    let fake = Fake { earlier, ..Fake::default() };
    let claim = time_forfeit(&p1, Some("Ann"), "Bo did not move by 2025-12-02T08:06:40Z").unwrap().text;
    let deadline = T0 + HOUR + 3 * DAY;
    // Claimed at T0 + 2d: 1d 1h = 90 000 s left.
    let p = judge(&fake, "Ann", T0 + 2 * DAY, &p1, &claim).unwrap_err();
    assert_eq!(
        p,
        Problem::ClaimBeforeDeadline {
            at: at(T0 + 2 * DAY),
            player: "Bo".into(),
            deadline: at(deadline),
            left: Span(90_000)
        }
    );
    assert_eq!(
        p.to_string(),
        "a win on time was claimed at 2025-12-01T07:06:40Z, but Bo had until 2025-12-02T08:06:40Z (1d 1h left)"
    );
    // At the deadline itself Bo still has time (0 s left); one second later he has not.
    assert_eq!(
        judge(&fake, "Ann", deadline, &p1, &claim),
        Err(Problem::ClaimBeforeDeadline {
            at: at(deadline),
            player: "Bo".into(),
            deadline: at(deadline),
            left: Span(0)
        })
    );
    assert_eq!(judge(&fake, "Ann", deadline + 1, &p1, &claim), recorded("1-0", "Ann", "Gold wins on time"));
}

#[test]
fn a_timeout_claim_without_a_clock_is_refused() {
    let new = new_game(None);
    let p1 = play(&new, &[Some(T0)]);
    let fake = Fake { earlier: vec![(T0, Some(new)), (T0, Some(p1.clone()))], ..Fake::default() };
    let claim = time_forfeit(&p1, Some("Ann"), "Bo did not move").unwrap().text;
    assert_eq!(judge(&fake, "Ann", T0 + 100 * DAY, &p1, &claim), Err(Problem::ClaimWithoutClock));
    assert_eq!(
        Problem::ClaimWithoutClock.to_string(),
        "a win on time was claimed, but no clock runs in this game (no TimeControl)"
    );
    // A history that does not account for the plies: no clock either.
    let (_, p1, _) = timed_game();
    let fake = Fake::default();
    let claim = time_forfeit(&p1, Some("Ann"), "Bo did not move").unwrap().text;
    assert_eq!(judge(&fake, "Ann", T0 + 100 * DAY, &p1, &claim), Err(Problem::ClaimWithoutClock));
    assert_eq!(timeout_claim_problem(None, T0), Some(Problem::ClaimWithoutClock));
}

// ---- Fantasy Grand: a game started from its army choice --------------------------------

const ID: &str = "2025-11-29-ann-bo";
const SALT_W: &str = "1111111111111111111111111111111111111111111111111111111111111111";
const SALT_B: &str = "2222222222222222222222222222222222222222222222222222222222222222";

fn fg_tags() -> BTreeMap<String, String> {
    [("Event", "?"), ("White", "Ann"), ("Black", "Bo"), ("Result", "*"), ("Variant", "fantasy-grand")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn opened() -> ArmyChoice {
    ArmyChoice::new("Ann", "Bo", fg_tags())
}

/// The commitment by the module's formula, computed here with sha2 directly.
fn commit_hash(side: &str, army: &str, salt: &str) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(format!("ravenpost-army-v1\n{ID}\n{side}\n{army}\n{salt}").as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// Both committed (Ann to giants, Bo to elves).
fn committed() -> ArmyChoice {
    let mut c = opened();
    c.set_commitment(Side::White, commit_hash("white", "giants", SALT_W));
    c.set_commitment(Side::Black, commit_hash("black", "elves", SALT_B));
    c
}

fn reveal(army: &str, salt: &str) -> ArmyReveal {
    ArmyReveal { army: army.into(), salt: salt.into() }
}

fn complete() -> ArmyChoice {
    let mut c = committed();
    c.set_reveal(Side::White, reveal("giants", SALT_W));
    c.set_reveal(Side::Black, reveal("elves", SALT_B));
    c
}

#[test]
fn commitments_follow_the_documented_formula() {
    assert_eq!(
        ArmyChoice::commitment(ID, Side::White, "giants", SALT_W),
        commit_hash("white", "giants", SALT_W)
    );
    assert_ne!(commit_hash("white", "giants", SALT_W), commit_hash("black", "giants", SALT_W));
}

fn judge_start(choice: Option<String>, text: &str) -> Result<Step, Problem> {
    let fake = Fake { choice, ..Fake::default() };
    let path = GamePath::new("fantasy-grand", ID).unwrap();
    judge_game_version(&fake, &path, info("Ann", T0), None, text, &Definitions::new()).unwrap().map(|v| v.0)
}

#[test]
fn a_game_started_from_its_complete_choice() {
    let choice = complete();
    let text = started_game_text(&choice).unwrap().unwrap();
    let g = game(&text);
    assert_eq!(g.text.tag("WhiteArmy"), Some("giants"));
    assert_eq!(g.text.tag("BlackArmy"), Some("elves"));
    assert_eq!(g.text.tag(COMMITMENT_TAGS[0]), Some(commit_hash("white", "giants", SALT_W).as_str()));
    assert_eq!(g.text.tag(COMMITMENT_TAGS[1]), Some(commit_hash("black", "elves", SALT_B).as_str()));
    assert_eq!(judge_start(Some(choice.to_yaml()), &text), Ok(Step::Created));
    // Without a choice file beside it (chosen elsewhere), nothing to compare.
    assert_eq!(judge_start(None, &text), Ok(Step::Created));
}

#[test]
fn a_started_game_that_differs_from_its_choice() {
    let yaml = complete().to_yaml();
    let text = started_game_text(&complete()).unwrap().unwrap();
    let swapped = text.replace("[WhiteArmy \"giants\"]", "[WhiteArmy \"elves\"]");
    assert_ne!(swapped, text);
    let p = judge_start(Some(yaml.clone()), &swapped).unwrap_err();
    assert_eq!(
        p,
        Problem::GameArmyMismatch {
            player: "Ann".into(),
            played: "elves".into(),
            revealed: "giants".into(),
            tag: "WhiteArmy".into()
        }
    );
    assert_eq!(p.to_string(), "Ann plays elves in the game file, but revealed giants (WhiteArmy)");
    let retagged = text.replace("[Event \"?\"]", "[Event \"Club final\"]");
    assert_ne!(retagged, text);
    assert_eq!(judge_start(Some(yaml), &retagged), Err(Problem::GameTagsDifferFromChoice));
    // started_game_problem concerns Fantasy Grand games only.
    assert_eq!(started_game_problem("gygax", Some("not yaml: ["), &game(&new_game(None))), None);
}

#[test]
fn a_started_game_whose_choice_is_incomplete_unreadable_or_invalid() {
    let text = started_game_text(&complete()).unwrap().unwrap();
    let mut half = committed();
    half.set_reveal(Side::White, reveal("giants", SALT_W));
    assert_eq!(
        judge_start(Some(half.to_yaml()), &text),
        Err(Problem::GameBeforeReveal { waiting: "waiting for Bo's reveal".into() })
    );
    assert_eq!(
        judge_start(Some(opened().to_yaml()), &text),
        Err(Problem::GameBeforeReveal {
            waiting: "waiting for Ann's army commitment and Bo's army commitment".into()
        })
    );
    assert_eq!(judge_start(Some("version: 2\n".into()), &text), Err(Problem::GameChoiceUnreadable));
    // The Druid without `druid=allowed`: the revealed choice makes no game.
    let mut druid = committed();
    druid.set_reveal(Side::White, reveal("druid", SALT_W));
    druid.set_reveal(Side::Black, reveal("elves", SALT_B));
    assert!(started_game_text(&druid).unwrap().is_err());
    assert_eq!(judge_start(Some(druid.to_yaml()), &text), Err(Problem::GameChoiceInvalid));
}

// ---- the army choice steps ---------------------------------------------------------------

fn choice_step(
    old: Option<&ArmyChoice>,
    new: &ArmyChoice,
    author: Option<&str>,
) -> Result<ChoiceStep, Problem> {
    check_choice_step(ID, old.map(|c| c.to_yaml()).as_deref(), &new.to_yaml(), author)
}

fn with_white_commitment(army: &str) -> ArmyChoice {
    let mut c = opened();
    c.set_commitment(Side::White, commit_hash("white", army, SALT_W));
    c
}

#[test]
fn choice_steps_accepted() {
    assert_eq!(choice_step(None, &opened(), None), Ok(ChoiceStep::Created));
    let w = with_white_commitment("giants");
    assert_eq!(
        choice_step(Some(&opened()), &w, Some("Ann")),
        Ok(ChoiceStep::Committed { player: "Ann".into() })
    );
    assert_eq!(
        choice_step(Some(&w), &committed(), Some("Bo")),
        Ok(ChoiceStep::Committed { player: "Bo".into() })
    );
    let mut r = committed();
    r.set_reveal(Side::Black, reveal("elves", SALT_B));
    assert_eq!(
        choice_step(Some(&committed()), &r, Some("Bo")),
        Ok(ChoiceStep::Revealed { player: "Bo".into(), army: "elves".into() })
    );
    assert_eq!(
        choice_step(Some(&r), &complete(), Some("Ann")),
        Ok(ChoiceStep::Revealed { player: "Ann".into(), army: "giants".into() })
    );
    assert_eq!(choice_step(Some(&r), &complete(), Some("Ann")).unwrap().player(), Some("Ann"));
}

#[test]
fn choice_files_that_do_not_read() {
    let bad = "version: 2\nwhite: Ann\nblack: Bo\ntags: {}\n";
    let why = "army choice file: format version 2, this ravenpost reads version 1".to_string();
    assert_eq!(check_choice_step(ID, None, bad, None), Err(Problem::ChoiceUnreadable { why: why.clone() }));
    assert_eq!(
        check_choice_step(ID, Some(bad), &opened().to_yaml(), None),
        Err(Problem::PreviousChoiceUnreadable { why: why.clone() })
    );
    assert_eq!(
        Problem::PreviousChoiceUnreadable { why }.to_string(),
        "the previous version: army choice file: format version 2, this ravenpost reads version 1"
    );
    match check_choice_step(ID, None, "white: [", None) {
        Err(Problem::ChoiceUnreadable { why }) => assert!(why.starts_with("army choice file: "), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_choice_must_open_empty_between_two_players() {
    assert_eq!(choice_step(None, &with_white_commitment("giants"), None), Err(Problem::ChoiceStartsFilled));
    let same = ArmyChoice::new("Ann", "Ann", fg_tags());
    assert_eq!(choice_step(None, &same, None), Err(Problem::ChoiceSamePlayers));
}

#[test]
fn choice_players_tags_and_final_state_are_fixed() {
    let mut renamed = with_white_commitment("giants");
    renamed.black = "Bob".into();
    assert_eq!(choice_step(Some(&opened()), &renamed, Some("Ann")), Err(Problem::ChoiceTagsChanged));
    let mut retagged = with_white_commitment("giants");
    retagged.tags.insert("Event".into(), "Cup".into());
    assert_eq!(choice_step(Some(&opened()), &retagged, Some("Ann")), Err(Problem::ChoiceTagsChanged));
    assert_eq!(choice_step(Some(&complete()), &complete(), Some("Ann")), Err(Problem::ChoiceFinal));
    let mut changed = complete();
    changed.set_reveal(Side::White, reveal("elves", SALT_W));
    assert_eq!(choice_step(Some(&complete()), &changed, Some("Ann")), Err(Problem::ChoiceFinal));
}

#[test]
fn a_choice_step_is_one_entry_of_its_own_player() {
    // The file rewritten with the same entries (a comment added).
    let same = format!("# edited\n{}", committed().to_yaml());
    assert_eq!(
        check_choice_step(ID, Some(&committed().to_yaml()), &same, Some("Ann")),
        Err(Problem::ChoiceNoEntryChanged)
    );
    assert_eq!(choice_step(Some(&opened()), &committed(), Some("Ann")), Err(Problem::ChoiceBothChanged));
    let p = choice_step(Some(&opened()), &with_white_commitment("giants"), Some("Bo")).unwrap_err();
    assert_eq!(p, Problem::ChoiceNotEntitled { player: "Ann".into(), author: "Bo".into() });
    assert_eq!(p.to_string(), "Ann's army choice step was authored by Bo");
}

#[test]
fn commitments_and_reveals_are_checked() {
    let mut upper = opened();
    upper.set_commitment(Side::White, commit_hash("white", "giants", SALT_W).to_ascii_uppercase());
    assert_eq!(
        choice_step(Some(&opened()), &upper, Some("Ann")),
        Err(Problem::ChoiceBadCommitment { player: "Ann".into() })
    );
    let mut short = opened();
    short.set_commitment(Side::White, "abc".into());
    assert_eq!(
        choice_step(Some(&opened()), &short, Some("Ann")),
        Err(Problem::ChoiceBadCommitment { player: "Ann".into() })
    );
    // Ann reveals before Bo committed.
    let w = with_white_commitment("giants");
    let mut early = w.clone();
    early.set_reveal(Side::White, reveal("giants", SALT_W));
    assert_eq!(
        choice_step(Some(&w), &early, Some("Ann")),
        Err(Problem::ChoiceEarlyReveal { player: "Ann".into(), opponent: "Bo".into() })
    );
    // Ann committed to giants and reveals elves.
    let mut lie = committed();
    lie.set_reveal(Side::White, reveal("elves", SALT_W));
    let p = choice_step(Some(&committed()), &lie, Some("Ann")).unwrap_err();
    assert_eq!(p, Problem::ChoiceRevealMismatch { player: "Ann".into(), army: "elves".into() });
    assert_eq!(p.to_string(), "Ann's reveal (elves) does not match their commitment: refused");
    // The right army with another salt.
    let mut salt = committed();
    salt.set_reveal(Side::White, reveal("giants", SALT_B));
    assert_eq!(
        choice_step(Some(&committed()), &salt, Some("Ann")),
        Err(Problem::ChoiceRevealMismatch { player: "Ann".into(), army: "giants".into() })
    );
}

/// Both committed, Ann to `army` (with `SALT_W`); Ann's reveal of it.
fn reveal_of(army: &str) -> (ArmyChoice, ArmyChoice) {
    let mut before = committed();
    before.set_commitment(Side::White, commit_hash("white", army, SALT_W));
    let mut after = before.clone();
    after.set_reveal(Side::White, reveal(army, SALT_W));
    (before, after)
}

#[test]
fn revealed_armies_must_be_allowed_and_canonical() {
    let (before, after) = reveal_of("orcs");
    assert_eq!(
        choice_step(Some(&before), &after, Some("Ann")),
        Err(Problem::ChoiceArmyRefused {
            why: "unknown army `orcs` (the armies: humans, elves, dwarves, evil-horde, giants, druid)".into()
        })
    );
    let (before, after) = reveal_of("druid");
    match choice_step(Some(&before), &after, Some("Ann")) {
        Err(Problem::ChoiceArmyRefused { why }) => assert!(why.to_lowercase().contains("druid"), "{why}"),
        other => panic!("{other:?}"),
    }
    // With `druid=allowed` the Druid may be revealed.
    let (mut before, mut after) = reveal_of("druid");
    for c in [&mut before, &mut after] {
        c.tags.insert("GameOptions".into(), "druid=allowed".into());
    }
    assert_eq!(
        choice_step(Some(&before), &after, Some("Ann")),
        Ok(ChoiceStep::Revealed { player: "Ann".into(), army: "druid".into() })
    );
    let (before, after) = reveal_of("Giants");
    assert_eq!(
        choice_step(Some(&before), &after, Some("Ann")),
        Err(Problem::ChoiceArmySpelling { player: "Ann".into(), army: "giants".into() })
    );
    let (before, after) = reveal_of("horde");
    let p = choice_step(Some(&before), &after, Some("Ann")).unwrap_err();
    assert_eq!(p, Problem::ChoiceArmySpelling { player: "Ann".into(), army: "evil-horde".into() });
    assert_eq!(p.to_string(), "Ann's army must be written `evil-horde`");
}

#[test]
fn choice_entries_change_only_in_order() {
    // A commitment replaced, or withdrawn.
    let mut other = committed();
    other.set_commitment(Side::White, commit_hash("white", "dwarves", SALT_W));
    assert_eq!(
        choice_step(Some(&committed()), &other, Some("Ann")),
        Err(Problem::ChoiceCommitmentChanged { player: "Ann".into() })
    );
    let mut withdrawn = committed();
    withdrawn.white_commitment = None;
    assert_eq!(
        choice_step(Some(&committed()), &withdrawn, Some("Ann")),
        Err(Problem::ChoiceCommitmentChanged { player: "Ann".into() })
    );
    // Commitment and reveal in one step.
    let mut both = opened();
    both.set_commitment(Side::White, commit_hash("white", "giants", SALT_W));
    both.set_reveal(Side::White, reveal("giants", SALT_W));
    assert_eq!(
        choice_step(Some(&opened()), &both, Some("Ann")),
        Err(Problem::ChoiceOutOfOrder { player: "Ann".into() })
    );
    // A second reveal.
    let mut once = committed();
    once.set_reveal(Side::White, reveal("giants", SALT_W));
    let mut twice = once.clone();
    twice.set_reveal(Side::White, reveal("elves", SALT_W));
    assert_eq!(
        choice_step(Some(&once), &twice, Some("Ann")),
        Err(Problem::ChoiceOutOfOrder { player: "Ann".into() })
    );
}

// ---- the army choice, judged -------------------------------------------------------------

fn judge_choice(
    fake: &Fake,
    author: &str,
    old: Option<&ArmyChoice>,
    new: Option<&ArmyChoice>,
) -> Result<ChoiceStep, Problem> {
    let old = old.map(ArmyChoice::to_yaml);
    let new = new.map(ArmyChoice::to_yaml);
    judge_choice_version(fake, ID, info(author, T0), old.as_deref(), new.as_deref()).unwrap()
}

#[test]
fn a_choice_for_an_existing_game_or_deleted() {
    let fake = Fake { exists: true, ..Fake::default() };
    let p = judge_choice(&fake, "Ann", None, Some(&opened())).unwrap_err();
    assert_eq!(p, Problem::ChoiceForExistingGame { id: ID.into() });
    assert_eq!(p.to_string(), format!("an army choice was opened for {ID}, which is already a game"));
    let fake = Fake::default();
    assert_eq!(judge_choice(&fake, "Ann", None, Some(&opened())), Ok(ChoiceStep::Created));
    assert_eq!(judge_choice(&fake, "Ann", Some(&committed()), None), Err(Problem::ChoiceDeleted));
}

#[test]
fn a_choice_opened_with_tags_that_name_armies_or_make_no_game() {
    let fake = Fake::default();
    let mut named = opened();
    named.tags.insert("WhiteArmy".into(), "giants".into());
    let why = "the choice's tags may not include WhiteArmy: the armies come from the reveals";
    assert_eq!(judge_choice(&fake, "Ann", None, Some(&named)), Err(Problem::ChoiceTags { why: why.into() }));
    assert_eq!(choice_tags_problem(&named.tags), Some(Problem::ChoiceTags { why: why.into() }));
    let mut option = opened();
    option.tags.insert("GameOptions".into(), "army-white=elves".into());
    assert_eq!(
        judge_choice(&fake, "Ann", None, Some(&option)),
        Err(Problem::ChoiceTags {
            why: "the choice's GameOptions `army-white=elves` name an army: the armies come from the reveals"
                .into()
        })
    );
    let mut clockless = opened();
    clockless.tags.insert("TimeControl".into(), "garbage".into());
    match judge_choice(&fake, "Ann", None, Some(&clockless)) {
        Err(Problem::ChoiceTags { why }) => {
            assert!(why.starts_with("the choice's tags do not make a game: "), "{why}");
            assert!(why.contains("garbage"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(choice_tags_problem(&opened().tags), None);
}

#[test]
fn a_complete_choice_that_makes_no_game() {
    // Tags that never made a game (opened by another tool, unchecked); the last reveal
    // is a good step of the protocol, but the game cannot start.
    let bad = |mut c: ArmyChoice| {
        c.tags.insert("TimeControl".into(), "garbage".into());
        c
    };
    let mut before = committed();
    before.set_reveal(Side::Black, reveal("elves", SALT_B));
    let fake = Fake::default();
    assert_eq!(
        judge_choice(&fake, "Ann", Some(&bad(before.clone())), Some(&bad(complete()))),
        Err(Problem::ChoiceMakesNoGame)
    );
    assert_eq!(
        judge_choice(&fake, "Ann", Some(&before), Some(&complete())),
        Ok(ChoiceStep::Revealed { player: "Ann".into(), army: "giants".into() })
    );
}

#[test]
fn choice_steps_are_signed_where_the_choice_lists_a_key() {
    let keyed = |mut c: ArmyChoice| {
        c.tags.insert("WhiteSigningKey".into(), ANN_KEY.into());
        c
    };
    let bad = Problem::BadSignature {
        player: "Ann".into(),
        why: "no signature".into(),
        tag: "WhiteSigningKey".into(),
    };
    let fake = Fake { signature: Some(bad.clone()), ..Fake::default() };
    assert_eq!(
        judge_choice(&fake, "Ann", Some(&keyed(opened())), Some(&keyed(with_white_commitment("giants")))),
        Err(bad)
    );
    assert_eq!(
        *fake.asked.borrow(),
        vec![("Ann".to_string(), "WhiteSigningKey".to_string(), ANN_KEY.to_string())]
    );
    // Bo's step: no key listed for him, nothing asked.
    let fake = Fake { signature: Some(Problem::ClaimWithoutClock), ..Fake::default() };
    assert_eq!(
        judge_choice(&fake, "Bo", Some(&keyed(with_white_commitment("giants"))), Some(&keyed(committed()))),
        Ok(ChoiceStep::Committed { player: "Bo".into() })
    );
    assert!(fake.asked.borrow().is_empty());
}

// ---- what a commit may change -------------------------------------------------------------

#[test]
fn a_commit_changes_one_record() {
    let bytes: &[u8] = b"x";
    let (findings, changed) = classify_changes(&[("games/gygax/g.pgn", Some(bytes))], false);
    assert!(findings.is_empty());
    assert_eq!(changed, Some(Changed::Game(GamePath::new("gygax", "g").unwrap(), Some(bytes))));
    let (findings, changed) = classify_changes(&[("games/gygax/g.pgn", None)], false);
    assert!(findings.is_empty());
    assert_eq!(changed, Some(Changed::Game(GamePath::new("gygax", "g").unwrap(), None)));
    let path = ArmyChoice::path(ravenpost::archive::Layout::Flat, ID);
    assert_eq!(path, format!("games/fantasy-grand/{ID}.armies.yaml"));
    let (findings, changed) = classify_changes(&[(&path, Some(bytes))], false);
    assert!(findings.is_empty());
    assert_eq!(changed, Some(Changed::Choice(ID.into(), Some(bytes))));
}

#[test]
fn a_commit_that_changes_another_file() {
    let bytes: &[u8] = b"x";
    let (findings, changed) =
        classify_changes(&[("notes.txt", Some(bytes)), ("games/gygax/g.pgn", Some(bytes))], false);
    assert_eq!(findings, vec![Finding { subject: "notes.txt".into(), problem: Problem::NotAGameFile }]);
    assert_eq!(changed, Some(Changed::Game(GamePath::new("gygax", "g").unwrap(), Some(bytes))));
    // Not a game file's path: wrong extension, too deep.
    let (findings, changed) =
        classify_changes(&[("games/gygax/g.txt", Some(bytes)), ("games/a/b/c.pgn", None)], false);
    assert_eq!(
        findings,
        vec![
            Finding { subject: "games/gygax/g.txt".into(), problem: Problem::NotAGameFile },
            Finding { subject: "games/a/b/c.pgn".into(), problem: Problem::NotAGameFile },
        ]
    );
    assert_eq!(changed, None);
}

#[test]
fn a_commit_that_changes_several_records() {
    let bytes: &[u8] = b"x";
    let choice = ArmyChoice::path(ravenpost::archive::Layout::Flat, "fg");
    let (findings, changed) = classify_changes(
        &[("games/gygax/a.pgn", Some(bytes)), ("games/fidchell/b.pgn", None), (&choice, Some(bytes))],
        false,
    );
    let files: Vec<String> = vec!["a".into(), "b".into(), "fg (army choice)".into()];
    assert_eq!(
        findings,
        vec![Finding { subject: "a,b,fg (army choice)".into(), problem: Problem::SeveralFiles { files } }]
    );
    assert_eq!(changed, None);
    assert_eq!(findings[0].problem.to_string(), "a commit may change only one game file, this one changes 3");
}

#[test]
fn the_settings_file_only_in_the_root_commit() {
    let bytes: &[u8] = b"x";
    let changes = [("ravenpost.yaml", Some(bytes)), ("games/gygax/g.pgn", Some(bytes))];
    let (findings, changed) = classify_changes(&changes, true);
    assert!(findings.is_empty());
    assert_eq!(changed, Some(Changed::Game(GamePath::new("gygax", "g").unwrap(), Some(bytes))));
    let (findings, changed) = classify_changes(&changes, false);
    assert_eq!(findings, vec![Finding { subject: "ravenpost.yaml".into(), problem: Problem::NotAGameFile }]);
    assert_eq!(changed, Some(Changed::Game(GamePath::new("gygax", "g").unwrap(), Some(bytes))));
    let (findings, changed) = classify_changes(&[("ravenpost.yaml", Some(bytes))], true);
    assert_eq!((findings, changed), (vec![], None));
}

// ---- the clock ---------------------------------------------------------------------------

#[test]
fn ply_times_from_the_record() {
    let new = new_game(Some("1/3d"));
    let p2 = play(&new, &[Some(T0 + HOUR), Some(T0 + DAY)]);
    assert_eq!(PlyTimes::from_record(&game(&p2), T0), Some(PlyTimes(vec![T0, T0 + HOUR, T0 + DAY])));
    assert_eq!(PlyTimes::from_record(&game(&new), T0), Some(PlyTimes(vec![T0])));
    let untimed = play(&new, &[Some(T0 + HOUR), None]);
    assert_eq!(PlyTimes::from_record(&game(&untimed), T0), None);
}

#[test]
fn ply_times_from_the_history() {
    let new = new_game(Some("1/3d"));
    let p1 = play(&new, &[None]);
    let p2 = play(&new, &[None, None]);
    let p2_leave = book_leave(&p2, "Ann", D0 + 5 * DAY, 1).unwrap().text;
    let versions = [
        TimedVersion { time: T0, text: Some(&new) },
        TimedVersion { time: T0 + 10, text: Some(&p1) },
        TimedVersion { time: T0 + 20, text: None },
        TimedVersion { time: T0 + 30, text: Some(&p2) },
        TimedVersion { time: T0 + 40, text: Some(&p2_leave) },
    ];
    // Each ply at the commit that first reached it; a deletion skipped; the leave
    // commit adds no ply.
    assert_eq!(
        PlyTimes::from_history(&versions, &game(&p2_leave)),
        Some(PlyTimes(vec![T0, T0 + 10, T0 + 30]))
    );
    // Times recorded in the last version win over commit times (a mailed game).
    let mailed = play(&new, &[Some(T0 + 5), None]);
    let versions = [
        TimedVersion { time: T0 + 100, text: Some(&new) },
        TimedVersion { time: T0 + 200, text: Some(&mailed) },
    ];
    assert_eq!(
        PlyTimes::from_history(&versions, &game(&mailed)),
        Some(PlyTimes(vec![T0 + 100, T0 + 5, T0 + 200]))
    );
    // A history that does not reach the game's length.
    let versions =
        [TimedVersion { time: T0, text: Some(&new) }, TimedVersion { time: T0 + 10, text: Some(&p1) }];
    assert_eq!(PlyTimes::from_history(&versions, &game(&p2)), None);
    assert_eq!(PlyTimes::from_history(&[], &game(&new)), None);
}

/// The clock at `now` of a game with the time control `tc` after the first plies of
/// [`PLIES`], timed `times` (creation at `T0`).
fn clock_of(tc: &str, times: &[i64], now: i64) -> Option<Clock> {
    let text = play(&new_game(Some(tc)), &times.iter().map(|t| Some(*t)).collect::<Vec<_>>());
    let g = game(&text);
    clock(&g, &PlyTimes::from_record(&g, T0).unwrap(), now)
}

fn deadline_of(tc: &str, times: &[i64]) -> (String, i64) {
    let c = clock_of(tc, times, T0).unwrap();
    (c.player, c.deadline.timestamp())
}

#[test]
fn clock_three_days_a_move_carries_unused_time_over() {
    // Ann used 1d on move 1, Bo 2d. Ann's move 2: 2 × 3d = 6d allowed, 1d used, 5d left
    // from her turn's start T0 + 3d: T0 + 8d = 2025-12-07T07:06:40Z.
    let c = clock_of("1/3d", &[T0 + DAY, T0 + 3 * DAY], T0 + 7 * DAY).unwrap();
    assert_eq!(
        c,
        Clock { player: "Ann".into(), deadline: at(T0 + 8 * DAY), seconds_left: DAY, overdue: false }
    );
    assert_eq!(ravenpost::referee::problem::rfc3339(&c.deadline), "2025-12-07T07:06:40Z");
    // Bo after ply 1: his move 1, 3d from T0 + 1d.
    assert_eq!(deadline_of("1/3d", &[T0 + DAY]), ("Bo".into(), T0 + 4 * DAY));
    // At the start: Ann's move 1, 3d from the creation.
    assert_eq!(deadline_of("1/3d", &[]), ("Ann".into(), T0 + 3 * DAY));
    // Ann moved after 1h: 6d − 1h from T0 + 1h + 2d = T0 + 8d again.
    assert_eq!(deadline_of("1/3d", &[T0 + HOUR, T0 + HOUR + 2 * DAY]), ("Ann".into(), T0 + 8 * DAY));
    // Ann took 5d on move 1 (over time, unclaimed): 6d − 5d = 1d from T0 + 6d.
    assert_eq!(deadline_of("1/3d", &[T0 + 5 * DAY, T0 + 6 * DAY]), ("Ann".into(), T0 + 7 * DAY));
}

#[test]
fn clock_ten_moves_in_thirty_days() {
    // Ann took 4d on move 1; move 2 is still in the first block of 10: 30d − 4d = 26d
    // from T0 + 5d: T0 + 31d = 2025-12-30T07:06:40Z.
    assert_eq!(deadline_of("10/30d", &[T0 + 4 * DAY, T0 + 5 * DAY]), ("Ann".into(), T0 + 31 * DAY));
    assert_eq!(ravenpost::referee::problem::rfc3339(&at(T0 + 31 * DAY)), "2025-12-30T07:06:40Z");
    // Bo's move 1: 30d from Ann's ply at T0 + 4d.
    assert_eq!(deadline_of("10/30d", &[T0 + 4 * DAY]), ("Bo".into(), T0 + 34 * DAY));
}

#[test]
fn clock_thirty_days_plus_one_a_move() {
    // Ann took 2d on move 1; her move 2 may end at 30d + 1d (one increment, earned by
    // move 1) = 31d used in all: 29d left from T0 + 3d = T0 + 32d = 2025-12-31T07:06:40Z.
    assert_eq!(deadline_of("30d+1d", &[T0 + 2 * DAY, T0 + 3 * DAY]), ("Ann".into(), T0 + 32 * DAY));
    assert_eq!(deadline_of("30d+1d", &[]), ("Ann".into(), T0 + 30 * DAY));
}

#[test]
fn clock_two_days_for_each_move_on_its_own() {
    // Sandclock: whatever Ann used before, 2d from her turn's start T0 + 1d + 5h:
    // T0 + 3d + 5h = 2025-12-02T12:06:40Z.
    let (who, d) = deadline_of("*2d", &[T0 + DAY, T0 + DAY + 5 * HOUR]);
    assert_eq!((who.as_str(), d), ("Ann", T0 + 3 * DAY + 5 * HOUR));
    assert_eq!(ravenpost::referee::problem::rfc3339(&at(d)), "2025-12-02T12:06:40Z");
    assert_eq!(deadline_of("*2d", &[T0 + 10 * HOUR]), ("Bo".into(), T0 + 10 * HOUR + 2 * DAY));
}

#[test]
fn the_deadline_is_exact_to_the_second() {
    // 1/3d; Ann's ply 1 at T0 + 1234 s, Bo's at T0 + 1d + 56 s. Ann's move 2: 6d allowed −
    // 1234 s used = 517 166 s from T0 + 86 456: T0 + 603 622 = 1 765 003 622
    // = 2025-12-06T06:47:02Z (T0 + 6d = 12-05T07:06:40, + 603 622 − 518 400 = 85 222 s
    // = 23h 40m 22s later: 12-06T06:47:02).
    let times = [T0 + 1_234, T0 + DAY + 56];
    let c = clock_of("1/3d", &times, 1_765_003_622).unwrap();
    assert_eq!(c.deadline.timestamp(), 1_765_003_622);
    assert_eq!(ravenpost::referee::problem::rfc3339(&c.deadline), "2025-12-06T06:47:02Z");
    assert_eq!((c.seconds_left, c.overdue), (0, false));
    let c = clock_of("1/3d", &times, 1_765_003_623).unwrap();
    assert_eq!((c.seconds_left, c.overdue), (-1, true));
    let c = clock_of("1/3d", &times, 1_765_003_621).unwrap();
    assert_eq!((c.seconds_left, c.overdue), (1, false));
}

#[test]
fn no_clock_without_a_time_control_over_a_finished_game_or_for_other_times() {
    let p1 = play(&new_game(None), &[Some(T0)]);
    let g = game(&p1);
    assert_eq!(clock(&g, &PlyTimes(vec![T0, T0]), T0), None);
    let p1 = play(&new_game(Some("-")), &[Some(T0)]);
    let g = game(&p1);
    assert_eq!(clock(&g, &PlyTimes(vec![T0, T0]), T0), None);
    let p1 = play(&new_game(Some("1/3d")), &[Some(T0)]);
    let g = game(&p1);
    assert!(clock(&g, &PlyTimes(vec![T0, T0]), T0).is_some());
    assert_eq!(clock(&g, &PlyTimes(vec![T0]), T0), None, "times of another length");
    let r = game(&resign(&p1, Some("Ann")).unwrap().text);
    assert_eq!(clock(&r, &PlyTimes(vec![T0, T0]), T0), None);
}

/// Ann's deadline for her first move in a 1/3d game created at `T0` (3d: T0 + 3d
/// without leave), with `who`'s leave of `days` from `from` booked at the creation.
fn deadline_with_leave(who: &str, from: i64, days: u32) -> i64 {
    let text = book_leave(&new_game(Some("1/3d")), who, from, days).unwrap().text;
    let g = game(&text);
    clock(&g, &PlyTimes(vec![T0]), T0).unwrap().deadline.timestamp()
}

#[test]
fn leave_within_the_turn_pauses_the_clock() {
    // 1d of leave from D0 + 1d (inside Ann's turn [T0, T0 + 3d)): deadline T0 + 4d.
    assert_eq!(deadline_with_leave("Ann", D0 + DAY, 1), T0 + 4 * DAY);
    // Leave from the turn's start pauses it wholly: T0 + 3d + 2d.
    assert_eq!(deadline_with_leave("Ann", T0, 2), T0 + 5 * DAY);
    // Leave running past the deadline counts whole: 2d from D0 + 2d (before T0 + 3d).
    assert_eq!(deadline_with_leave("Ann", D0 + 2 * DAY, 2), T0 + 5 * DAY);
}

#[test]
fn leave_overlapping_the_turns_start_counts_from_the_start() {
    // Leave [D0, D0 + 1d) and the turn starting at T0 = D0 + 25 600: the 60 800 s from
    // T0 to D0 + 1d pause the clock. Deadline T0 + 3d + 60 800 = D0 + 4d
    // = 2025-12-03T00:00:00Z.
    let d = deadline_with_leave("Ann", D0, 1);
    assert_eq!(d, T0 + 3 * DAY + 60_800);
    assert_eq!(ravenpost::referee::problem::rfc3339(&at(d)), "2025-12-03T00:00:00Z");
}

#[test]
fn the_opponents_leave_does_not_stop_the_players_clock() {
    assert_eq!(deadline_with_leave("Bo", D0 + DAY, 5), T0 + 3 * DAY);
}

#[test]
fn leave_in_an_earlier_turn_is_not_counted_as_time_used() {
    // Ann books 1d from D0 + 1d (inside her first turn [T0, T0 + 2d)), moves at T0 + 2d:
    // she used 2d − 1d = 1d. Bo moves at T0 + 3d. Her move 2: 6d − 1d = 5d from T0 + 3d:
    // T0 + 8d (without the leave: T0 + 7d).
    let text = book_leave(&new_game(Some("1/3d")), "Ann", D0 + DAY, 1).unwrap().text;
    let text = play(&text, &[Some(T0 + 2 * DAY), Some(T0 + 3 * DAY)]);
    let g = game(&text);
    let c = clock(&g, &PlyTimes::from_record(&g, T0).unwrap(), T0).unwrap();
    assert_eq!((c.player.as_str(), c.deadline.timestamp()), ("Ann", T0 + 8 * DAY));
}

#[test]
fn leave_after_the_deadline_does_not_move_it() {
    // Ann's deadline is T0 + 3d (2025-12-02T07:06:40Z). Leave from D0 + 10d for 5d starts
    // a week after it: she is over time before her clock could stop, so the deadline
    // stays T0 + 3d (got: T0 + 8d, and a claim at T0 + 4d would be refused).
    assert_eq!(deadline_with_leave("Ann", D0 + 10 * DAY, 5), T0 + 3 * DAY);
}

#[test]
fn leave_booked_twice_for_the_same_day_stops_the_clock_once() {
    // Ann books 1d from D0 + 1d twice (2 of her 45 days, which book_leave allows). Her
    // clock stands still for that one day: deadline T0 + 4d (got: T0 + 5d).
    let text = book_leave(&new_game(Some("1/3d")), "Ann", D0 + DAY, 1).unwrap().text;
    let text = book_leave(&text, "Ann", D0 + DAY, 1).unwrap().text;
    let g = game(&text);
    assert_eq!(clock(&g, &PlyTimes(vec![T0]), T0).unwrap().deadline.timestamp(), T0 + 4 * DAY);
}

#[test]
fn leave_over_the_limit_written_by_hand_is_no_step() {
    // 45 days are allowed in all; a hand-written 46-day leave is not what ravenpost
    // records.
    let p1 = play(&new_game(Some("1/3d")), &[Some(T0)]);
    let ok = book_leave(&p1, "Bo", D0 + DAY, 45).unwrap().text;
    assert_eq!(
        step(Some(&p1), &ok, Some("Bo")),
        recorded("*", "Bo", "Bo (Scarlet) books 45 days of leave from 2025-11-30T00:00:00Z")
    );
    let too_long = ok.replace(" 45d}", " 46d}");
    assert_ne!(too_long, ok);
    assert_eq!(step(Some(&p1), &too_long, Some("Bo")), Err(Problem::NotAStep));
}

#[test]
fn leave_backdated_by_hand_is_refused_by_the_judge() {
    // Bo's deadline is T0 + 1h + 3d (2025-12-02T08:06:40Z). On 2025-12-03 (T0 + 4d) he
    // commits leave from 2025-11-30 for 5 days, which `ravenpost leave` refuses.
    let (_, p1, _) = timed_game();
    assert!(check_leave_start(D0 + DAY, T0 + 4 * DAY).is_err());
    let backdated = book_leave(&p1, "Bo", D0 + DAY, 5).unwrap().text;
    let fake = Fake::default();
    assert!(judge(&fake, "Bo", T0 + 4 * DAY, &p1, &backdated).is_err(), "backdated leave accepted");
}

#[test]
fn clock_of_a_game_where_the_second_side_moves_first() {
    // From the Gygax start with Scarlet to move: Bo makes the odd plies. Bo's ply 1 at
    // T0 + 1d, Ann's ply 2 at T0 + 2d; Bo's move 2 (1/3d): 6d − 1d = 5d from T0 + 2d.
    let v = ravenpost::variants::by_name("gygax", &[]).unwrap();
    let fen = ravenpost::notation::position_string::write_position(&v, &v.start_position());
    let fen = fen.replacen(" g ", " s ", 1);
    assert!(fen.contains(" s "), "{fen}");
    let new = format!(
        "[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n[Variant \"gygax\"]\n[TimeControl \"1/3d\"]\n\
         [SetUp \"1\"]\n[FEN \"{fen}\"]\n\n*\n"
    );
    let p1 = play_move_at(&new, "W2e7-2e6", Some("Bo"), None, Some(T0 + DAY)).unwrap().text;
    let p2 = play_move_at(&p1, "W2e2-2e3", Some("Ann"), None, Some(T0 + 2 * DAY)).unwrap().text;
    let g = game(&p2);
    let c = clock(&g, &PlyTimes::from_record(&g, T0).unwrap(), T0).unwrap();
    assert_eq!((c.player.as_str(), c.deadline.timestamp()), ("Bo", T0 + 7 * DAY));
    let g = game(&p1);
    let c = clock(&g, &PlyTimes::from_record(&g, T0).unwrap(), T0).unwrap();
    assert_eq!((c.player.as_str(), c.deadline.timestamp()), ("Ann", T0 + 4 * DAY));
}

/// A commit arriving at the hook: dated up to 15 minutes (the clock skew) after its
/// arrival it is taken, at its arrival; dated later it is refused; dated before, it counts
/// at its own time.
#[test]
fn a_commit_counts_at_most_when_it_arrives() {
    assert_eq!(arrival_problem(T0 - DAY, T0), None);
    assert_eq!(arrival_problem(T0 + 900, T0), None);
    assert_eq!(
        arrival_problem(T0 + 901, T0),
        Some(Problem::DatedInFuture { commit: at(T0 + 901), arrived: at(T0) })
    );
    assert_eq!(
        arrival_problem(T0 + 901, T0).unwrap().to_string(),
        "the commit is dated 2025-11-29T07:21:41Z, later than it arrived (2025-11-29T07:06:40Z): a step \
         cannot be dated in the future"
    );
    assert_eq!(arrival_time(T0 - DAY, T0), T0 - DAY);
    assert_eq!(arrival_time(T0 + 600, T0), T0);
}

/// A commit dated beyond what a date can show (git takes any 64-bit time) was said to be
/// dated 1970, earlier than it arrived, in the very message that refuses it as dated in
/// the future: such a date is shown as the last one there is.
#[test]
fn an_absurd_date_was_shown_as_1970() {
    let refused = arrival_problem(i64::MAX, T0).expect("refused");
    let text = refused.to_string();
    assert!(!text.contains("1970"), "{text}");
    assert!(text.starts_with("the commit is dated +262142-12-31T23:59:59Z, later than it arrived"), "{text}");
    assert_eq!(
        ravenpost::referee::problem::rfc3339(&ravenpost::referee::problem::time_from_unix(i64::MIN)),
        "-262143-01-01T00:00:00Z"
    );
}

#[test]
fn timeout_claims_on_the_clock() {
    let (_, p1, _) = timed_game();
    let g = game(&p1);
    let times = PlyTimes::from_record(&g, T0).unwrap();
    let deadline = T0 + HOUR + 3 * DAY;
    let c = clock(&g, &times, T0 + 2 * DAY).unwrap();
    assert_eq!(
        c,
        Clock { player: "Bo".into(), deadline: at(deadline), seconds_left: 90_000, overdue: false }
    );
    assert_eq!(
        check_timeout_claim("g", &g, Some("Bo"), Some(&c)),
        Err(ClockRefusal::NotWaiting { waiting: "Ann".into() })
    );
    assert_eq!(
        check_timeout_claim("g", &g, Some("Ann"), None),
        Err(ClockRefusal::NoClock { id: "g".into() })
    );
    let e = check_timeout_claim("g", &g, Some("Ann"), Some(&c)).unwrap_err();
    assert_eq!(
        e,
        ClockRefusal::NotOverdue { player: "Bo".into(), deadline: at(deadline), left: Span(90_000) }
    );
    assert_eq!(e.to_string(), "timeout claim refused: Bo has until 2025-12-02T08:06:40Z (1d 1h left)");
    let late = clock(&g, &times, deadline + 1).unwrap();
    assert!(late.overdue);
    assert_eq!(
        check_timeout_claim("g", &g, Some("Ann"), Some(&late)),
        Ok("Bo did not move by 2025-12-02T08:06:40Z".into())
    );
    assert_eq!(
        check_timeout_claim("g", &g, None, Some(&late)),
        Ok("Bo did not move by 2025-12-02T08:06:40Z".into())
    );
    // The same through timeout_claim_problem, as the judge uses it.
    assert_eq!(timeout_claim_problem(Some((&g, times.clone())), deadline + 1), None);
    assert_eq!(
        timeout_claim_problem(Some((&g, times)), deadline - 59),
        Some(Problem::ClaimBeforeDeadline {
            at: at(deadline - 59),
            player: "Bo".into(),
            deadline: at(deadline),
            left: Span(59)
        })
    );
}

#[test]
fn leave_is_booked_from_today_utc() {
    // Booked at T0 (2025-11-29T07:06:40Z): from 00:00 that day is fine, a second before
    // is yesterday.
    assert_eq!(check_leave_start(D0, T0), Ok(()));
    assert_eq!(check_leave_start(T0 + 30 * DAY, T0), Ok(()));
    let e = check_leave_start(D0 - 1, T0).unwrap_err();
    assert_eq!(e, ClockRefusal::LeaveInThePast { from: at(D0 - 1), today: at(D0) });
    assert_eq!(
        e.to_string(),
        "leave refused: it would start on 2025-11-28T23:59:59Z, before today (2025-11-29T00:00:00Z): leave is booked in advance"
    );
    // The last second of the day still books from that day; at midnight it is the next.
    assert_eq!(check_leave_start(D0, D0 + DAY - 1), Ok(()));
    assert_eq!(
        check_leave_start(D0, D0 + DAY),
        Err(ClockRefusal::LeaveInThePast { from: at(D0), today: at(D0 + DAY) })
    );
}

#[test]
fn spans_read_as_people_read_them() {
    assert_eq!(Span(90_000).to_string(), "1d 1h");
    assert_eq!(Span(5 * HOUR + 10 * 60 + 59).to_string(), "5h 10m");
    assert_eq!(Span(12 * 60).to_string(), "12m");
}

// ---- more situations: aliases, names with spaces, commit-time clocks, paths, sentences ----

#[test]
fn a_started_game_naming_its_revealed_army_by_an_alias_is_the_same_game() {
    let mut c = opened();
    c.set_commitment(Side::White, commit_hash("white", "giants", SALT_W));
    c.set_commitment(Side::Black, commit_hash("black", "evil-horde", SALT_B));
    c.set_reveal(Side::White, reveal("giants", SALT_W));
    c.set_reveal(Side::Black, reveal("evil-horde", SALT_B));
    let text = started_game_text(&c).unwrap().unwrap();
    let alias = text.replace("[BlackArmy \"evil-horde\"]", "[BlackArmy \"horde\"]");
    assert_ne!(alias, text);
    // The same game: its canonical text is the started game's.
    assert_eq!(game(&alias).canonical_text(), text);
    assert_eq!(judge_start(Some(c.to_yaml()), &alias), Ok(Step::Created));
}

#[test]
fn leave_of_a_player_whose_name_has_spaces() {
    let new = new_game(Some("1/3d")).replace("\"Ann\"", "\"Ann Example\"");
    let text = book_leave(&new, "Ann Example", D0 + DAY, 2).unwrap().text;
    assert_eq!(
        step(Some(&new), &text, Some("Ann Example")),
        recorded("*", "Ann Example", "Ann Example (Gold) books 2 days of leave from 2025-11-30T00:00:00Z")
    );
    let g = game(&text);
    assert_eq!(clock(&g, &PlyTimes(vec![T0]), T0).unwrap().deadline.timestamp(), T0 + 5 * DAY);
}

#[test]
fn a_timeout_claim_judged_on_commit_times_when_plies_carry_none() {
    // Ann's ply 1 has no recorded time; its commit is at T0 + 2h: Bo's deadline is
    // T0 + 2h + 3d = 2025-12-02T09:06:40Z.
    let new = new_game(Some("1/3d"));
    let p1 = play(&new, &[None]);
    let fake = Fake { earlier: vec![(T0, Some(new)), (T0 + 2 * HOUR, Some(p1.clone()))], ..Fake::default() };
    let claim = time_forfeit(&p1, Some("Ann"), "Bo did not move").unwrap().text;
    let deadline = T0 + 2 * HOUR + 3 * DAY;
    assert_eq!(ravenpost::referee::problem::rfc3339(&at(deadline)), "2025-12-02T09:06:40Z");
    assert_eq!(
        judge(&fake, "Ann", deadline - HOUR, &p1, &claim),
        Err(Problem::ClaimBeforeDeadline {
            at: at(deadline - HOUR),
            player: "Bo".into(),
            deadline: at(deadline),
            left: Span(HOUR)
        })
    );
    assert_eq!(judge(&fake, "Ann", deadline + 1, &p1, &claim), recorded("1-0", "Ann", "Gold wins on time"));
}

#[test]
fn a_timeout_claim_against_a_player_on_leave_waits_for_the_leave() {
    // Bo (to move since T0 + 1h, deadline T0 + 1h + 3d) booked 2 days from D0 + 1d, in
    // advance: his deadline moves 2d to T0 + 1h + 5d.
    let (new, p1, _) = timed_game();
    let leave = book_leave(&p1, "Bo", D0 + DAY, 2).unwrap().text;
    let fake = Fake {
        earlier: vec![(T0, Some(new)), (T0 + HOUR, Some(p1.clone())), (T0 + 2 * HOUR, Some(leave.clone()))],
        ..Fake::default()
    };
    let claim = time_forfeit(&leave, Some("Ann"), "Bo did not move").unwrap().text;
    let deadline = T0 + HOUR + 5 * DAY;
    assert_eq!(
        judge(&fake, "Ann", T0 + 4 * DAY, &leave, &claim),
        Err(Problem::ClaimBeforeDeadline {
            at: at(T0 + 4 * DAY),
            player: "Bo".into(),
            deadline: at(deadline),
            left: Span(DAY + HOUR)
        })
    );
    assert_eq!(
        judge(&fake, "Ann", deadline + 1, &leave, &claim),
        recorded("1-0", "Ann", "Gold wins on time")
    );
}

#[test]
fn a_choice_file_whose_id_cannot_be_a_game_id_is_no_record() {
    let bytes: &[u8] = b"x";
    assert!(GamePath::new("fantasy-grand", "bad id").is_err());
    let (findings, changed) =
        classify_changes(&[("games/fantasy-grand/bad id.armies.yaml", Some(bytes))], false);
    assert_eq!(
        findings,
        vec![Finding {
            subject: "games/fantasy-grand/bad id.armies.yaml".into(),
            problem: Problem::NotAGameFile
        }]
    );
    assert_eq!(changed, None);
}

#[test]
fn sentences_of_the_problems_the_archive_reports() {
    // Made by the archive layer (reading blobs, one game's history, a push), not by the
    // referee's functions: their sentences as users see them.
    assert_eq!(Problem::NotText.to_string(), "the game file is not UTF-8 text");
    assert_eq!(Problem::GameDeleted.to_string(), "the game file was deleted");
    assert_eq!(
        Problem::RecordDeleted { path: "games/gygax/g.pgn".into() }.to_string(),
        "games/gygax/g.pgn was deleted: games are never removed"
    );
    assert_eq!(Problem::DeletedInPush.to_string(), "the game file was deleted; games are never deleted");
    assert_eq!(
        Problem::HistoryRewritten { new: "abc1234".into(), old: "def5678".into() }.to_string(),
        "history rewritten: abc1234 is not a descendant of def5678 (earlier commits were changed or dropped)"
    );
    assert_eq!(
        Problem::BranchDeleted { refname: "refs/heads/main".into() }.to_string(),
        "refs/heads/main: deleting a branch is refused"
    );
    assert_eq!(
        Problem::NotABranch { refname: "refs/tags/v1".into() }.to_string(),
        "refs/tags/v1: only branches may be pushed to a ravenpost archive"
    );
    assert_eq!(
        Problem::IllegalMove { ply: 3, why: "no Sylph can go there".into() }.to_string(),
        "ply 3: no Sylph can go there"
    );
    // Serialised with a kebab-case `kind` (the verdict cache).
    assert_eq!(
        serde_json::to_value(Problem::SeveralPlies { plies: 2 }).unwrap(),
        serde_json::json!({"kind": "several-plies", "plies": 2})
    );
    let p = Problem::ClaimBeforeDeadline {
        at: at(T0),
        player: "Bo".into(),
        deadline: at(T0 + DAY),
        left: Span(DAY),
    };
    let back: Problem = serde_json::from_value(serde_json::to_value(&p).unwrap()).unwrap();
    assert_eq!(back, p);
}

/// A comment with terminal escapes (`move --comment $'\e[2J\e]52;c;…\a'`), pushed by a
/// player, was accepted and printed raw by the opponent's `replay`: it cleared the
/// screen and wrote the clipboard. So were zero-width and direction marks that made a
/// player's comment look like ravenpost's own note (`\u{200b}ravenpost: draw offered
/// by Scarlet`). The referee now refuses them in a move's comment, as `move --comment`
/// does; a plain comment is still the player's.
#[test]
fn a_comment_with_terminal_escapes_reached_the_opponents_terminal() {
    let new = new_game(None);
    let p1 = play(&new, &[Some(T0)]);
    for bad in [
        "esc \u{1b}[31mRED\u{1b}[0m",
        "clip \u{1b}]52;c;ZWNobyBwd25lZA==\u{7}",
        "c1 \u{9b}2J",
        "\u{200b}ravenpost: draw offered by Scarlet",
        "\u{202e}ravenpost: Scarlet resigns",
        "ravenpost\u{ff1a} Scarlet resigns",
        "ravenpost : draw offered by Scarlet",
    ] {
        let said = edit(&p1, |t| t.moves[0].comments.push(bad.into()));
        assert_eq!(
            step(Some(&new), &said, Some("Ann")),
            Err(Problem::MoreThanTheMove { ply: 1, san: "2e3".into() }),
            "{bad:?}"
        );
        let refused = ravenpost::record::move_comment_text(bad).unwrap_err().to_string();
        assert!(!refused.chars().any(|c| c == '\u{1b}' || c == '\u{200b}' || c == '\u{202e}'), "{refused:?}");
    }
    for good in ["ravenpost rocks", "Good luck, Bo!", "Ça va? 2e3 was forced"] {
        let said = edit(&p1, |t| t.moves[0].comments.push(good.into()));
        assert_eq!(
            step(Some(&new), &said, Some("Ann")),
            Ok(Step::Moved { ply: 1, san: "2e3".into(), player: "Ann".into(), end: None }),
            "{good:?}"
        );
    }
}
