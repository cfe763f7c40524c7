//! Changes to game records, each checked by the rules (the archive's `move`, `resign`,
//! `draw` and `verify` build on these).

use crate::common;

use common::records::{book_leave, draw, play_move, resign, time_forfeit};
use common::rules::{gygax, pos};
use ravenpost::notation::pgn::read_games;
use ravenpost::notation::san::write_move;
use ravenpost::record::game::replay;
use ravenpost::record::{DrawAction, Refusal, claim_basis};
use ravenpost::referee::Step;
use ravenpost::variants::Definitions;

/// The referee's step check, its problem as the sentence users see.
fn check_step(old: Option<&str>, new: &str, author: Option<&str>) -> Result<Step, String> {
    ravenpost::referee::check_step(old, new, author).map_err(|e| e.to_string())
}

/// As [`check_step`], at a commit time.
fn check_step_at(
    old: Option<&str>,
    new: &str,
    author: Option<&str>,
    at: Option<i64>,
) -> Result<Step, String> {
    ravenpost::referee::check_step_at(old, new, author, at, &Definitions::new()).map_err(|e| e.to_string())
}

const NEW: &str =
    "[Event \"?\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n[Variant \"gygax\"]\n\n*\n";

fn play(text: &str, moves: &[(&str, &str)]) -> String {
    let mut t = text.to_string();
    for (who, m) in moves {
        t = play_move(&t, m, Some(who), None).unwrap_or_else(|e| panic!("{m}: {e}")).text;
    }
    t
}

#[test]
fn moves_are_checked_and_written_canonically() {
    let a = play_move(NEW, "W2e2-2e3", Some("Ann"), Some(1)).unwrap();
    assert_eq!(a.san.as_deref(), Some("2e3"));
    assert_eq!(a.ply, 1);
    assert_eq!(a.summary, "Gold plays 2e3");
    assert!(a.text.contains("\n1. 2e3 *\n"), "{}", a.text);
    // Not Ann's turn now.
    let e = play_move(&a.text, "Sa3b6", Some("Ann"), None).unwrap_err();
    assert_eq!(e.to_string(), "not Ann's turn: Bo (Scarlet) is to move");
    // Meant for another ply.
    let e = play_move(&a.text, "Sa3b6", Some("Bo"), Some(1)).unwrap_err();
    assert_eq!(e, Refusal::WrongPly { expected: 1, next: 2 });
    // Illegal, with the engine's reason.
    let e = play_move(&a.text, "Sa3a6", Some("Bo"), None).unwrap_err();
    // (s5 item 15: it says what the origin was read as.)
    assert!(e.to_string().contains("illegal move: no Sylph of Scarlet on the a-file can go to 3a6"), "{e}");
    let b = play_move(&a.text, "Sa3b6", Some("Bo"), Some(2)).unwrap();
    assert!(b.text.contains("1. 2e3 Sa3b6 *"));
}

#[test]
fn checkmate_writes_result_and_termination() {
    let fen = "[Variant \"gygax\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[SetUp \"1\"]\n[FEN \"12/12/12/12/12/12/12/1c10 \
        1o5k4/2o9/12/12/12/12/12/K11 12/12/12/12/12/12/12/1c10 s 0 1\"]\n\n*\n";
    let a = play_move(fen, "O2a7", Some("Bo"), None).unwrap();
    assert_eq!(a.result.as_deref(), Some("0-1"));
    assert_eq!(a.san.as_deref(), Some("O2a7#"));
    assert!(a.summary.contains("checkmate: Scarlet wins"), "{}", a.summary);
    assert!(a.text.contains("[Result \"0-1\"]") && a.text.contains("[Termination \"normal\"]"));
    assert!(a.text.contains("1... O2a7# 0-1"), "{}", a.text);
    let e = play_move(&a.text, "K2a2", Some("Ann"), None).unwrap_err();
    assert_eq!(e, Refusal::Over { result: "0-1".into() });
}

#[test]
fn resignation_and_draws() {
    let t = play(NEW, &[("Ann", "2e3")]);
    let r = resign(&t, Some("Ann")).unwrap();
    assert_eq!(r.result.as_deref(), Some("0-1"));
    assert!(r.text.contains("{Gold resigns.} 0-1"), "{}", r.text);
    assert_eq!(
        resign(&t, Some("Cy")).unwrap_err().to_string(),
        "Cy is not a player of this game (the players are Ann and Bo)"
    );
    // Bo (to move) offers, then plays: the offer goes with his move.
    let o = draw(&t, Some("Bo"), DrawAction::Offer).unwrap();
    assert_eq!(o.summary, "Scarlet offers a draw");
    assert_eq!(draw(&o.text, Some("Bo"), DrawAction::Accept).unwrap_err(), Refusal::NoOffer, "not one's own");
    let with_move = play_move(&o.text, "Sa3b6", Some("Bo"), None).unwrap().text;
    assert!(with_move.contains("Sa3b6 {ravenpost: draw offered by Scarlet}"), "{with_move}");
    // Ann may accept it ...
    let acc = draw(&with_move, Some("Ann"), DrawAction::Accept).unwrap();
    assert_eq!(acc.result.as_deref(), Some("1/2-1/2"));
    assert!(acc.text.contains("{Draw agreed.} 1/2-1/2") && !acc.text.contains("offered"), "{}", acc.text);
    // ... decline it ...
    let dec = draw(&with_move, Some("Ann"), DrawAction::Decline).unwrap();
    assert!(!dec.text.contains("offered") && dec.result.is_none());
    // ... or move instead, which lets it lapse.
    let lapsed = play_move(&with_move, "2f3", Some("Ann"), None).unwrap().text;
    assert!(!lapsed.contains("offered"));
    assert_eq!(draw(&lapsed, Some("Bo"), DrawAction::Accept).unwrap_err(), Refusal::NoOffer);
    let claim = draw(&t, Some("Bo"), DrawAction::Claim).unwrap_err();
    assert!(claim.to_string().contains("occurred 1 time (3 needed)"), "{claim}");
}

#[test]
fn threefold_repetition_claim_is_verified() {
    let cycle = [("Ann", "U2c3"), ("Bo", "U2c6"), ("Ann", "U2b1"), ("Bo", "U2b8")];
    let mut moves = Vec::new();
    for _ in 0..2 {
        moves.extend(cycle);
    }
    let t = play(NEW, &moves);
    // The start position (Gold to move) has now occurred three times.
    let c = draw(&t, Some("Ann"), DrawAction::Claim).unwrap();
    assert_eq!(c.result.as_deref(), Some("1/2-1/2"));
    let flat = c.text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("{Draw claimed by Gold: the position has occurred 3 times.} 1/2-1/2"), "{flat}");
}

#[test]
fn verify_steps() {
    let v1 = NEW.to_string();
    let v2 = play(&v1, &[("Ann", "2e3")]);
    let v3 = play(&v2, &[("Bo", "Sa3b6")]);
    assert_eq!(check_step(None, &v1, Some("Ann")), Ok(Step::Created));
    assert_eq!(
        check_step(Some(&v1), &v2, Some("Ann")),
        Ok(Step::Moved { ply: 1, san: "2e3".into(), player: "Ann".into(), end: None })
    );
    // Two plies at once.
    assert!(check_step(Some(&v1), &v3, Some("Ann")).unwrap_err().contains("2 plies were added"));
    // Out of turn: committed by Ann for Scarlet's move.
    assert!(check_step(Some(&v2), &v3, Some("Ann")).unwrap_err().contains("authored by Ann, but Bo"));
    // An earlier move rewritten.
    let other = play(&v1, &[("Ann", "2f3"), ("Bo", "Sa3b6")]);
    assert!(check_step(Some(&v3), &other, Some("Bo")).unwrap_err().contains("ply 1 was changed"));
    // An illegal move typed by hand.
    let forged = v2.replace("1. 2e3 *", "1. 2e3 2e5 *");
    assert!(check_step(Some(&v2), &forged, Some("Bo")).unwrap_err().contains("illegal move"));
    // Tags changed.
    let renamed = v3.replace("[White \"Ann\"]", "[White \"Eve\"]");
    assert!(check_step(Some(&v3), &renamed, None).unwrap_err().contains("tags"));
    // A resignation.
    let r = resign(&v3, Some("Ann")).unwrap().text;
    assert_eq!(
        check_step(Some(&v3), &r, Some("Ann")),
        Ok(Step::Recorded { result: "0-1".into(), player: "Ann".into(), summary: "Gold resigns".into() })
    );
    // The same resignation committed by the opponent: forged.
    let e = check_step(Some(&v3), &r, Some("Bo")).unwrap_err();
    assert!(e.contains("\"Gold resigns\" was authored by Bo, but only Ann can do that"), "{e}");
    // A result typed by hand, with no resignation or claim.
    let typed = v3.replace("[Result \"*\"]", "[Result \"1-0\"]").replace(" *", " 1-0");
    let e = check_step(Some(&v3), &typed, Some("Ann")).unwrap_err();
    assert!(e.contains("result was set to 1-0 without"), "{e}");
    // A move with a result the rules do not give: a resignation is a step of its own.
    let moved_and_won =
        play(&v3, &[("Ann", "2f3")]).replace("[Result \"*\"]", "[Result \"1-0\"]").replace(" *\n", " 1-0\n");
    let e = check_step(Some(&v3), &moved_and_won, Some("Ann")).unwrap_err();
    assert!(e.contains("ply 3 (2f3) comes with the result 1-0, but the rules give *"), "{e}");
    // A move with two comments typed in by hand (one is what `move --comment` writes).
    let noted = play(&v3, &[("Ann", "2f3")]).replace("2f3", "2f3 {forced} {really}");
    let e = check_step(Some(&v3), &noted, Some("Ann")).unwrap_err();
    assert!(e.contains("changes more than the move"), "{e}");
    // A comment slipped in by hand is not a recorded action.
    let chatty = v3.replace("Sa3b6", "Sa3b6 {nice}");
    assert!(check_step(Some(&v3), &chatty, Some("Ann")).unwrap_err().contains("not a move"));
    // After the end, the record is final.
    let annotated = r.replace("{Gold resigns.}", "{Gold resigns.} {well played}");
    assert!(check_step(Some(&r), &annotated, Some("Ann")).unwrap_err().contains("is over"));
    // A draw offer is the side to move's; accepting it is the opponent's.
    let offer = draw(&v3, None, DrawAction::Offer).unwrap().text;
    assert_eq!(
        check_step(Some(&v3), &offer, Some("Ann"))
            .map(|s| matches!(s, Step::Recorded { player, .. } if player == "Ann")),
        Ok(true)
    );
    assert_eq!(
        check_step(Some(&v3), &offer, Some("Bo")),
        Err("\"Gold offers a draw\" was authored by Bo, but only Ann can do that".to_string())
    );
    let v4 = play_move(&offer, "2f3", Some("Ann"), None).unwrap().text;
    let accepted = draw(&v4, Some("Bo"), DrawAction::Accept).unwrap().text;
    assert!(check_step(Some(&v4), &accepted, Some("Bo")).is_ok());
    assert!(check_step(Some(&v4), &accepted, Some("Ann")).unwrap_err().contains("only Bo"));
    // Leave booked by Bo, committed by Bo; a time-forfeit claim by the waiting player.
    let leave = book_leave(&v3, "Bo", 1_800_000_000, 3).unwrap().text;
    assert!(check_step(Some(&v3), &leave, Some("Bo")).is_ok());
    assert_eq!(
        check_step(Some(&v3), &leave, Some("Ann")),
        Err("\"Bo (Scarlet) books 3 days of leave from 2027-01-15T08:00:00Z\" was authored by Ann, but only Bo \
             can do that"
            .to_string())
    );
    let forfeit = time_forfeit(&v3, None, "Ann did not move by 2027-01-01T00:00:00Z").unwrap().text;
    assert!(check_step(Some(&v3), &forfeit, Some("Bo")).is_ok());
    assert_eq!(
        check_step(Some(&v3), &forfeit, Some("Ann")),
        Err("\"Scarlet wins on time\" was authored by Ann, but only Bo can do that".to_string())
    );
}

/// Move times (notation-spec/movetext.md, "Move times"): written after the move, kept by
/// later changes, and checked by `check_step_at`.
#[test]
fn move_times_are_recorded_and_checked() {
    use common::records::play_move_at;
    use ravenpost::record::move_times;
    let t0 = 1_764_400_000; // 2025-11-29T07:06:40Z
    let v1 = play_move_at(NEW, "2e3", Some("Ann"), None, Some(t0)).unwrap().text;
    assert!(v1.contains("1. 2e3 {ravenpost: at 2025-11-29T07:06:40Z} *"), "{v1}");
    let v2 = play_move_at(&v1, "Sa3b6", Some("Bo"), None, Some(t0 + 60)).unwrap().text;
    let g = ravenpost::record::load(&v2).unwrap();
    assert_eq!(move_times(&g.text).unwrap(), vec![Some(t0), Some(t0 + 60)]);
    // Committed a minute later: fine; long before the time it claims: refused.
    assert!(check_step_at(Some(&v1), &v2, Some("Bo"), Some(t0 + 120)).is_ok());
    assert!(check_step_at(Some(&v1), &v2, Some("Bo"), Some(t0 + 60 - 900)).is_ok(), "15 minutes of skew");
    let e = check_step_at(Some(&v1), &v2, Some("Bo"), Some(t0 - 3600)).unwrap_err();
    assert!(e.contains("ply 2 is timed 2025-11-29T07:07:40Z, later than its commit"), "{e}");
    // Before the previous move.
    let early = play_move_at(&v1, "Sa3b6", Some("Bo"), None, Some(t0 - 1)).unwrap().text;
    let e = check_step_at(Some(&v1), &early, Some("Bo"), None).unwrap_err();
    assert!(e.contains("ply 2: the move time `2025-11-29T07:06:39Z` is before ply 1's"), "{e}");
    // An earlier ply's time changed along with the new ply.
    let moved = v2.replace("07:06:40Z", "07:00:00Z");
    let e = check_step_at(Some(&v1), &moved, Some("Bo"), None).unwrap_err();
    assert!(e.contains("the recorded time of ply 1 was changed"), "{e}");
    // No time at all (an older file, another tool): accepted.
    let plain = play_move(&v1, "Sa3b6", Some("Bo"), None).unwrap().text;
    assert!(check_step_at(Some(&v1), &plain, Some("Bo"), Some(t0)).is_ok());
    // An unreadable time.
    let bad = v2.replace("07:07:40Z", "seven o'clock");
    let e = check_step_at(Some(&v1), &bad, Some("Bo"), None).unwrap_err();
    assert!(e.contains("ply 2: the move time `2025-11-29Tseven o'clock` is not an RFC 3339 time"), "{e}");
}

/// The 100-ply rule (rulings §1.3): from a set-up position whose ply clock is 98, two
/// King moves (no capture, promotion, drop or pawn-type move) make 100 and a draw may be
/// claimed; after one it is 99 and the claim says what is missing. The claim checks the
/// clock, not repetition: the three positions are all different.
#[test]
fn draw_claim_after_100_plies_without_progress() {
    let v = gygax();
    let start = "12/12/12/12/12/12/12/12 7k4/12/12/12/12/12/12/K11 12/12/12/12/12/12/12/12 g 98 60";
    let mut p = pos(&v, start);
    let mut sans = Vec::new();
    for _ in 0..2 {
        let m = v.legal_moves(&p).into_iter().find(|m| m.capture().is_none()).unwrap();
        sans.push(write_move(&v, &p, &m));
        p = v.make(&p, &m);
    }
    assert_eq!(p.halfmove_clock(), 100);
    let game = |moves: &str| {
        let text = format!("[Variant \"gygax\"]\n[SetUp \"1\"]\n[FEN \"{start}\"]\n\n{moves} *\n");
        replay(read_games(&text).remove(0).unwrap()).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    };
    assert_eq!(
        claim_basis(&game(&format!("60. {}", sans[0]))),
        Err("the position has occurred 1 time (3 needed) and the ply clock is 99 (100 needed)".to_string())
    );
    assert_eq!(
        claim_basis(&game(&format!("60. {} {}", sans[0], sans[1]))),
        Ok("100 plies without a capture, promotion, drop or pawn move".to_string())
    );
}

#[test]
fn players_are_named_with_their_side_in_brackets() {
    use ravenpost::engine::Side;
    let g = ravenpost::record::load(NEW).unwrap();
    assert_eq!(ravenpost::record::named(&g, Side::White), "Ann (Gold)");
    assert_eq!(ravenpost::record::named(&g, Side::Black), "Bo (Scarlet)");
    let unnamed = NEW.replace("[Black \"Bo\"]", "[Black \"?\"]");
    let g = ravenpost::record::load(&unnamed).unwrap();
    assert_eq!(ravenpost::record::named(&g, Side::Black), "Scarlet");
}
