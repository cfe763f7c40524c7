//! Fantasy Grand Chess rules on small hand-built positions (position strings): each
//! special piece (blocked and open paths, board edge, Black's mirrored direction) and
//! each special rule (en passant, promotion to lost pieces, the Orc's removal and its
//! check, Werewolf and Goblin promotion, the Druid option). Expected sets are counted by
//! hand from the rules (`src/variants/fantasy-grand.md`, rulings §4).

use crate::common;

use std::sync::Arc;

use common::rules::{long_moves_from, play_long, pos, set, squares, variant};
use ravenpost::engine::{EndReason, Move, Outcome, Variant};
use ravenpost::notation::moves::long_form;
use ravenpost::notation::position_string::{parse_position, write_position};
use ravenpost::notation::san::{read_move, write_move};
use ravenpost::variants::by_name;

fn game(white: &str, black: &str) -> Arc<Variant> {
    variant("fantasy-grand", &[("army-white", white), ("army-black", black), ("druid", "allowed")])
}

// ---------------------------------------------------------------- special pieces

#[test]
fn mage_is_the_grande_acedrex_griffon() {
    let v = game("elves", "humans");
    // Mage e5, own King a1, enemy King j10.
    let p = pos(&v, "9k/10/10/10/10/4M5/10/10/10/K9 w - - 0 1 elves humans");
    let d = squares(&v, &p, "e5");
    // 4 diagonal steps + outward slides: f6→f7..f10, g6..i6 (j... j6 too); d6→d7..d10,
    // c6..a6; f4→f3..f1, g4..j4; d4→d3..d1, c4..a4 = 4 + 8 + 7 + 7 + 6.
    assert_eq!(d.len(), 32, "{d:?}");
    assert!(d.contains("j6") && d.contains("f10") && d.contains("a4"));
    assert!(!d.contains("e6") && !d.contains("g7"), "no orthogonal step, no bishop slide");
    // An own piece on f6 stops that branch; an enemy on d6 is captured, nothing beyond.
    let p = pos(&v, "9k/10/10/10/3p1W4/4M5/10/10/10/K9 w - - 0 1 elves humans");
    let d = squares(&v, &p, "e5");
    assert!(!d.contains("f6") && !d.contains("f7") && !d.contains("g6"));
    assert!(d.contains("d6") && !d.contains("d7") && !d.contains("c6"));
    assert!(d.contains("f4") && d.contains("j4"));
}

#[test]
fn loremaster_and_two_headed_cyclops() {
    let v = game("elves", "giants");
    let p = pos(&v, "9k/10/10/10/10/4L5/10/10/10/K9 w - - 0 1 elves giants");
    // Rook (9 + 9 = 18 from e5... e-file 9, rank 5 9) + Mage 32 = 50.
    assert_eq!(squares(&v, &p, "e5").len(), 50);
    let v = game("giants", "elves");
    let p = pos(&v, "9k/10/10/10/10/4(Tw)5/10/10/10/K9 w - - 0 1 giants elves");
    let d = squares(&v, &p, "e5");
    // The Mage without its one-square move: 32 - 4.
    assert_eq!(d.len(), 28);
    assert!(!d.contains("f6") && d.contains("f7") && d.contains("g6"));
}

#[test]
fn cyclops_and_eagle_skip_their_first_square_which_must_be_empty() {
    let v = game("giants", "druid");
    let p = pos(&v, "9k/10/10/10/10/10/10/10/1(Cy)8/K9 w - - 0 1 giants druid");
    let d = squares(&v, &p, "b2");
    // Up b4..b10 (7); right d2..j2 (7); down: b1 is the first square, nothing beyond;
    // left: a2 first square, nothing beyond.
    assert_eq!(d, set("b4 b5 b6 b7 b8 b9 b10 d2 e2 f2 g2 h2 i2 j2"));
    let p = pos(&v, "9k/10/10/10/10/10/10/1G8/1(Cy)8/K9 w - - 0 1 giants druid");
    assert!(!squares(&v, &p, "b2").iter().any(|s| s.starts_with('b')), "b3 occupied: no move up");
    let v = game("druid", "giants");
    let p = pos(&v, "k9/10/10/10/10/4(Ea)5/10/10/10/K9 w - - 0 1 druid giants");
    let d = squares(&v, &p, "e5");
    assert!(!d.contains("f6") && d.contains("g7") && d.contains("e7") && d.contains("c5"));
    // Bishop lines beyond the first square: f6 side g7 h8 i9 j10 4 + d6 side c7 b8 a9 3 + f4 side g3 h2 i1 3 + d4 side c3 b2 2 (a1 own King) = 12; D 4.
    assert_eq!(d.len(), 16, "{d:?}");
}

#[test]
fn priest_mammoth_and_behemoth_turn_freely_and_count_each_square_once() {
    let v = game("dwarves", "giants");
    let p = pos(&v, "9k/10/10/10/10/4P5/10/10/10/K9 w - - 0 1 dwarves giants");
    // F 4, A 4, D 4 (each D square by two paths, one move).
    assert_eq!(squares(&v, &p, "e5").len(), 12);
    assert_eq!(long_moves_from(&v, &p, "e5").len(), 12, "no duplicate moves");
    let p = pos(&v, "9k/10/10/10/3S6/4P5/10/10/10/K9 w - - 0 1 dwarves giants");
    let d = squares(&v, &p, "e5");
    // d6 own: d6 and c7 gone; e7 still by f6, c5 still by d4.
    assert_eq!(d.len(), 10);
    assert!(d.contains("e7") && d.contains("c5") && !d.contains("c7"));
    let v = game("giants", "dwarves");
    let p = pos(&v, "9k/10/10/10/10/4M5/10/10/10/K9 w - - 0 1 giants dwarves");
    assert_eq!(squares(&v, &p, "e5").len(), 12, "W 4, D 4, F squares 4");
    let p = pos(&v, "9k/10/10/10/10/4B5/10/10/10/K9 w - - 0 1 giants dwarves");
    // Every square at orthogonal distance 1, 2 or 3: 4 + 8 + 12.
    assert_eq!(squares(&v, &p, "e5").len(), 24);
    assert_eq!(long_moves_from(&v, &p, "e5").len(), 24);
    // Walled in orthogonally by own Giants: no move at all.
    let p = pos(&v, "9k/10/10/10/4G5/3GBG4/4G5/10/10/K9 w - - 0 1 giants dwarves");
    assert!(squares(&v, &p, "e5").is_empty());
}

#[test]
fn warlock_and_balrog_zigzag() {
    let v = game("evil-horde", "humans");
    let p = pos(&v, "9k/10/10/10/10/4(Wa)5/10/10/10/K9 w - - 0 1 evil-horde humans");
    let d = squares(&v, &p, "e5");
    // Rightward zigzag f6 g5 h6 i5 j6 and f4 g5 h4 i5 j4.
    for s in ["f6", "g5", "h6", "i5", "j6", "f4", "h4", "j4"] {
        assert!(d.contains(s), "{s}");
    }
    assert!(!d.contains("g7") && !d.contains("e6"), "never two diagonal steps in a line");
    // Own pieces on f6 and f4: the whole right side is closed, g5 too.
    let p = pos(&v, "9k/10/10/10/5G4/4(Wa)5/5G4/10/10/K9 w - - 0 1 evil-horde humans");
    let d = squares(&v, &p, "e5");
    assert!(!d.contains("g5") && !d.contains("h6"));
    assert!(d.contains("c5") && d.contains("e7") && d.contains("e3"), "up, down and left zigzags open");
    let p = pos(&v, "1k8/10/10/10/10/4B5/10/10/10/K9 w - - 0 1 evil-horde humans");
    let d = squares(&v, &p, "e5");
    // Rook lines plus staircases e6 f6 f7 g7 ...
    assert!(d.contains("f6") && d.contains("g7") && d.contains("h8") && d.contains("e10"));
    assert!(d.contains("f7") && d.contains("d3"));
}

#[test]
fn titan_general_and_cannons() {
    let v = game("giants", "humans");
    let p = pos(&v, "9k/10/10/10/10/4T5/10/10/10/K9 w - - 0 1 giants humans");
    assert_eq!(squares(&v, &p, "e5").len(), 24, "the ring at distance 3");
    let p = pos(&v, "9k/10/10/10/10/10/10/10/10/T8K w - - 0 1 giants humans");
    assert_eq!(squares(&v, &p, "a1"), set("a4 b4 c4 d4 d3 d2 d1"), "board edge");
    let v = game("dwarves", "humans");
    let p = pos(&v, "9k/10/10/10/4S5/4(Gn)5/10/10/10/K9 w - - 0 1 dwarves humans");
    let d = squares(&v, &p, "e5");
    // e6 own: no e6, e7, and the lame knight squares d7 f7 through e6 are shut.
    assert!(!d.contains("d7") && !d.contains("f7") && !d.contains("e7"));
    assert!(d.contains("g6") && d.contains("c4") && d.contains("d3") && d.contains("g7"));
    // War Machine: rook, cannon capture over a screen, one diagonal step forward.
    let p = pos(&v, "4r4k/10/10/10/10/4S5/10/10/4W5/K9 w - - 0 1 dwarves humans");
    let d = long_moves_from(&v, &p, "e2");
    assert!(d.contains("We2xe10"), "hop over e5 onto e10");
    assert!(d.contains("We2-d3") && d.contains("We2-f3"), "fF");
    assert!(!d.contains("We2-d1"), "no backward diagonal");
    // Black's War Machine steps diagonally toward rank 1.
    let v = game("humans", "dwarves");
    let p = pos(&v, "9k/4w5/10/10/10/10/10/10/10/K9 b - - 0 1 humans dwarves");
    let d = squares(&v, &p, "e9");
    assert!(d.contains("d8") && d.contains("f8") && !d.contains("d10"));
}

#[test]
fn druid_pawns_move_and_capture_in_every_direction() {
    let v = game("druid", "humans");
    // Jaguar mA cW on e5, enemy pawns on e4 and d6 (not W of e5: d6 is diagonal).
    let p = pos(&v, "9k/10/10/10/3p6/4J5/4p5/10/10/K9 w - - 0 1 druid humans");
    assert_eq!(squares(&v, &p, "e5"), set("c3 c7 g3 g7 e4"));
    // Puma mD cA: captures two diagonally (backward too).
    let p = pos(&v, "9k/10/10/10/10/4(Pu)5/10/2p7/10/K9 w - - 0 1 druid humans");
    assert_eq!(squares(&v, &p, "e5"), set("c3 e3 e7 c5 g5"));
}

#[test]
fn black_mirrors_pawn_directions() {
    let v = game("humans", "elves");
    // Black Warrior e8: steps in all four orthogonal directions, captures toward rank 1.
    let p = pos(&v, "9k/10/4w5/3P1P4/10/10/10/10/10/K9 b - - 0 1 humans elves");
    assert_eq!(squares(&v, &p, "e8"), set("e9 e7 d8 f8 d7 f7"));
    let v = game("humans", "evil-horde");
    // Black Goblin on rank 8 double-steps toward rank 1; Orc on rank 9 diagonally.
    let p = pos(&v, "9k/4(or)5/4g5/10/10/10/10/10/10/K9 b - - 0 1 humans evil-horde");
    assert_eq!(squares(&v, &p, "e8"), set("e7 e6"));
    assert_eq!(squares(&v, &p, "e9"), set("d8 f8 c7 g7"));
}

// ---------------------------------------------------------------- en passant

#[test]
fn en_passant_plain_move_and_capture_are_two_moves() {
    let v = game("humans", "druid");
    let p = pos(&v, "9k/10/10/10/10/3(fo)6/10/4P5/10/K9 w - - 0 1 humans druid");
    let p = play_long(&v, &p, "Pe3-e5");
    let written = write_position(&v, &p);
    assert!(written.contains(" b - e4 0 1 humans druid"), "{written}");
    let m = long_moves_from(&v, &p, "d5");
    assert!(m.contains("Fod5-e4") && m.contains("Fod5xe4ep"), "{m:?}");
    let after = play_long(&v, &p, "Fod5xe4ep");
    assert!(after.piece_at(v.def().dims.parse_square("e5").unwrap()).is_none(), "the pawn is taken");
    let plain = play_long(&v, &p, "Fod5-e4");
    assert!(plain.piece_at(v.def().dims.parse_square("e5").unwrap()).is_some());
    // SAN keeps them apart too.
    let ep = read_move(&v, &p, "Foxe4ep").unwrap();
    assert!(matches!(ep, Move::EnPassant { .. }));
    assert!(matches!(read_move(&v, &p, "Foe4").unwrap(), Move::Normal { .. }));
    assert_eq!(write_move(&v, &p, &ep), "Foxe4ep");
    // Only on the very next move.
    let p2 = play_long(&v, &p, "Kj10-i10");
    let p3 = play_long(&v, &p2, "Ka1-b1");
    assert!(!long_moves_from(&v, &p3, "d5").iter().any(|m| m.ends_with("ep")));
}

#[test]
fn en_passant_of_an_orc_names_its_square_and_only_pawns_take() {
    let v = game("evil-horde", "humans");
    // White Orc b2 two-steps to d4 passing c3; Black pawn b4 takes on c3; Black Knight
    // a4 (not a pawn) could reach c3 too but not en passant.
    let p = pos(&v, "9k/10/10/10/10/10/np8/10/1(Or)8/K9 w - - 0 1 evil-horde humans");
    let p = play_long(&v, &p, "Orb2-d4");
    assert!(write_position(&v, &p).contains(" b - c3:d4 0 1 evil-horde humans"));
    let m: Vec<String> = v.legal_moves(&p).iter().map(|m| long_form(&v, m)).collect();
    assert!(m.contains(&"Pb4xc3ep".to_string()), "{m:?}");
    assert!(!m.iter().any(|s| s.starts_with("Na4") && s.ends_with("ep")));
    // c3 is on Black's last three ranks: the en passant capture may promote too (to
    // any of the six kinds Black has lost: all but one Knight).
    let eps: Vec<&String> = m.iter().filter(|s| s.starts_with("Pb4xc3ep")).collect();
    assert_eq!(eps.len(), 7, "{eps:?}");
    assert!(m.contains(&"Pb4xc3ep=Q".to_string()) && m.contains(&"Pb4xc3ep=N".to_string()));
    let after = play_long(&v, &p, "Pb4xc3ep");
    assert!(after.piece_at(v.def().dims.parse_square("d4").unwrap()).is_none());
    // The position string reads back with the Orc's square.
    let text = write_position(&v, &p);
    assert_eq!(pos(&v, &text), p);
}

#[test]
fn double_step_only_from_the_setup_rank() {
    let v = game("humans", "humans");
    let p = pos(&v, "9k/10/10/10/10/10/4P5/10/10/K9 w - - 0 1");
    assert_eq!(squares(&v, &p, "e4"), set("e5"));
}

// ---------------------------------------------------------------- promotion

#[test]
fn promotion_is_limited_to_lost_pieces_and_compulsory_on_the_last_rank() {
    let v = game("humans", "humans");
    // White has lost everything but the King: six choices on e10, no plain move.
    let p = pos(&v, "k9/4P5/10/10/10/10/10/10/10/K9 w - - 0 1");
    assert_eq!(
        long_moves_from(&v, &p, "e9"),
        set("Pe9-e10=Q Pe9-e10=M Pe9-e10=A Pe9-e10=R Pe9-e10=B Pe9-e10=N")
    );
    // On rank 8 promotion is optional: six choices plus the plain move.
    let p = pos(&v, "k9/10/10/4P5/10/10/10/10/10/K9 w - - 0 1");
    assert_eq!(long_moves_from(&v, &p, "e7").len(), 7);
    // Only a Knight is lost (one of two on the board): only =N. (Own pawns on rank 3
    // keep the other pieces' lines shut.)
    let p = pos(&v, "7k2/4P5/10/10/10/10/10/PPPPPPPPPP/1NBQKMABR1/R9 w - - 0 1");
    assert_eq!(long_moves_from(&v, &p, "e9"), set("Pe9-e10=N"));
    // Nothing lost: no move to e10 at all, but e9 still attacks d10 and f10.
    let p = pos(&v, "7k2/4P5/10/10/10/10/10/PPPPPPPPPP/1NBQKMABN1/R8R w - - 0 1");
    assert!(long_moves_from(&v, &p, "e9").is_empty());
    assert!(parse_position(&v, "3k6/4P5/10/10/10/10/10/PPPPPPPPPP/1NBQKMABN1/R8R w - - 0 1").is_err());
    let p = pos(&v, "6k3/4P5/10/10/10/10/10/PPPPPPPPPP/1NBQKMABN1/R8R b - - 0 1");
    assert_eq!(squares(&v, &p, "g10"), set("h10 f9 g9 h9"));
    // Black promotes on ranks 3..1.
    let p = pos(&v, "9k/10/10/10/10/10/10/10/4p5/K9 b - - 0 1");
    assert_eq!(long_moves_from(&v, &p, "e2").len(), 6);
}

#[test]
fn soldier_never_becomes_a_war_machine_or_cannon() {
    let v = game("dwarves", "humans");
    let p = pos(&v, "k9/4S5/10/10/10/10/10/10/10/K9 w - - 0 1 dwarves humans");
    assert_eq!(long_moves_from(&v, &p, "e9"), set("Se9-e10=Gn Se9-e10=P Se9-e10=G"));
}

#[test]
fn goblin_and_werewolf_become_wolf_riders() {
    let v = game("evil-horde", "humans");
    // The Goblin: Wolf Rider always available (none in the setup), compulsory on e10.
    let p = pos(&v, "k9/4G5/10/10/10/10/10/10/10/K9 w - - 0 1 evil-horde humans");
    assert_eq!(long_moves_from(&v, &p, "e9"), set("Ge9-e10=Wo"));
    let p = pos(&v, "k9/10/10/4G5/10/10/10/10/10/K9 w - - 0 1 evil-horde humans");
    assert_eq!(long_moves_from(&v, &p, "e7"), set("Ge7-e8 Ge7-e8=Wo"));
    // The Werewolf: compulsory on ranks 9 and 10 only.
    let p = pos(&v, "k9/10/10/4(We)5/10/10/10/10/10/K9 w - - 0 1 evil-horde humans");
    assert_eq!(long_moves_from(&v, &p, "e7"), set("Wee7-d9=Wo Wee7-f9=Wo Wee7-c8 Wee7-g8"));
    // Black's Werewolf promotes on ranks 2 and 1.
    let v = game("humans", "evil-horde");
    let p = pos(&v, "9K/10/10/10/10/10/10/4(we)5/10/k9 b - - 0 1 humans evil-horde");
    assert_eq!(long_moves_from(&v, &p, "e3"), set("Wee3-d1=Wo Wee3-f1=Wo Wee3-c2=Wo Wee3-g2=Wo"));
}

// ---------------------------------------------------------------- the Orc

#[test]
fn orc_removal_takes_any_enemy_non_pawn_non_royal_piece() {
    let v = game("evil-horde", "humans");
    let p = pos(&v, "r2nk4p/10/10/4(Or)5/10/10/10/10/10/1K8 w - - 0 1 evil-horde humans");
    let m = long_moves_from(&v, &p, "e7");
    // Plain moves d8, f8, and each with the removal of the Rook a10 or Knight d10
    // (never the pawn j10 or the King).
    assert_eq!(m, set("Ore7-d8 Ore7-f8 Ore7-d8=xa10 Ore7-d8=xd10 Ore7-f8=xa10 Ore7-f8=xd10"), "{m:?}");
    let after = play_long(&v, &p, "Ore7-f8=xd10");
    let d = v.def().dims;
    assert!(after.piece_at(d.parse_square("f8").unwrap()).is_none(), "the Orc leaves too");
    assert!(after.piece_at(d.parse_square("d10").unwrap()).is_none());
    let removal = v.legal_moves(&p).into_iter().find(|x| long_form(&v, x) == "Ore7-f8=xd10").unwrap();
    assert_eq!(write_move(&v, &p, &removal), "Orf8=xd10");
    assert_eq!(read_move(&v, &p, "Orf8=xd10").unwrap(), removal);
}

#[test]
fn orc_capturing_the_last_removable_piece_removes_nothing_more() {
    let v = game("evil-horde", "humans");
    let p = pos(&v, "4k5/10/3r6/4(Or)5/10/10/10/10/10/K9 w - - 0 1 evil-horde humans");
    assert_eq!(long_moves_from(&v, &p, "e7"), set("Ore7xd8 Ore7-f8 Ore7-f8=xd8"));
}

#[test]
fn orc_ready_to_enter_the_zone_checks_a_side_without_pieces() {
    let v = game("evil-horde", "humans");
    // Black: King and a pawn only. A White Orc on e7 can move to d8/f8: check.
    let p = pos(&v, "10/10/4k4p/4(Or)5/10/10/10/10/10/K9 b - - 0 1 evil-horde humans");
    assert!(v.in_check(&p));
    assert_eq!(v.legal_moves(&p).iter().map(|m| long_form(&v, m)).collect::<Vec<_>>(), vec!["Ke8xe7"]);
    // With the King out of reach of the Orc it is checkmate.
    let p = pos(&v, "10/4k5/9p/4(Or)5/10/10/10/10/10/K9 b - - 0 1 evil-horde humans");
    assert!(v.legal_moves(&p).is_empty());
    assert_eq!(
        v.outcome(&p),
        Some(Outcome::Win { winner: ravenpost::engine::Side::White, reason: EndReason::Checkmate })
    );
    // The same Orc on e6 (its moves end on rank 7): no check.
    let p = pos(&v, "10/4k5/9p/10/4(Or)5/10/10/10/10/K9 b - - 0 1 evil-horde humans");
    assert!(!v.in_check(&p));
    // A side still holding a non-pawn piece is not in check.
    let p = pos(&v, "n9/4k5/9p/4(Or)5/10/10/10/10/10/K9 b - - 0 1 evil-horde humans");
    assert!(!v.in_check(&p));
    // And the side to move may not let it happen: White cannot be left so.
    assert!(parse_position(&v, "10/4k5/9p/4(Or)5/10/10/10/10/10/K9 w - - 0 1 evil-horde humans").is_err());
}

#[test]
fn stalemate_is_a_draw() {
    let v = game("humans", "humans");
    let p = pos(&v, "k9/2Q7/1K8/10/10/10/10/10/10/10 b - - 0 1");
    assert_eq!(v.outcome(&p), Some(Outcome::Draw { reason: EndReason::Stalemate }));
}

// ---------------------------------------------------------------- options and strings

#[test]
fn druid_army_needs_both_players_agreement() {
    for (w, b) in [("druid", "humans"), ("elves", "druid")] {
        let opts = vec![("army-white".to_string(), w.to_string()), ("army-black".to_string(), b.to_string())];
        let e = by_name("fantasy-grand", &opts).unwrap_err().to_string();
        assert!(e.contains("druid=allowed"), "{e}");
        let mut forbidden = opts.clone();
        forbidden.push(("druid".into(), "forbidden".into()));
        assert!(by_name("fantasy-grand", &forbidden).is_err());
        let mut allowed = opts.clone();
        allowed.push(("druid".into(), "allowed".into()));
        assert!(by_name("fantasy-grand", &allowed).is_ok());
    }
    let bad = vec![("army-white".to_string(), "orcs".to_string())];
    assert!(by_name("fantasy-grand", &bad).is_err());
}

#[test]
fn start_position_strings_round_trip_for_every_pairing() {
    let armies = ["humans", "elves", "dwarves", "evil-horde", "giants", "druid"];
    for w in armies {
        for b in armies {
            let v = game(w, b);
            let s = v.start_position();
            let text = write_position(&v, &s);
            assert_eq!(pos(&v, &text), s, "{text}");
            if w == "humans" && b == "humans" {
                assert!(text.ends_with(" w - - 0 1"), "{text}");
            } else {
                assert!(text.ends_with(&format!(" w - - 0 1 {w} {b}")), "{text}");
            }
        }
    }
    // The spec's examples.
    let v = game("humans", "elves");
    let t = "4rr4/1s1lkem1s1/wwwwwwwwww/10/10/10/10/PPPPPPPPPP/1NBQKMABN1/R8R w - - 0 1 humans elves";
    assert_eq!(write_position(&v, &v.start_position()), t);
    let v = game("evil-horde", "druid");
    let t = "9(el)/bh(ea)rku(pe)fs1/(fo)j(co)l(pu)(ch)tw(pa)d/10/10/10/10/GGGGGGGGGG/\
             (Or)(Or)(Or)(Or)(Or)(Or)(Or)(Or)(Or)(Or)/(Wa)(Og)(We)BKMA(We)(Og)(Wa) w - - 0 1 evil-horde druid";
    assert_eq!(write_position(&v, &v.start_position()), t);
    // Army fields that disagree with the game are refused; `horde` reads as evil-horde.
    assert!(parse_position(&v, &t.replace("evil-horde druid", "humans druid")).is_err());
    assert!(parse_position(&v, &t.replace("evil-horde druid", "Horde druid")).is_ok());
}

#[test]
fn grand_reads_fairy_stockfish_fen() {
    let v = by_name("grand", &[]).unwrap();
    let t = "r8r/1nbqkcabn1/pppppppppp/10/10/10/10/PPPPPPPPPP/1NBQKCABN1/R8R w - - 0 1";
    assert_eq!(pos(&v, t), v.start_position());
    assert_eq!(write_position(&v, &v.start_position()), t);
    assert!(parse_position(&v, &t.replace(" w - -", " w KQ -")).is_err(), "no castling");
    // `M` is also read as the Marshall (piece-codes.md §4), never written.
    assert_eq!(pos(&v, &t.replace('c', "m").replace('C', "M")), v.start_position());
    let s = v.start_position();
    let m = read_move(&v, &s, "Me4").unwrap();
    assert_eq!(m, read_move(&v, &s, "Ce4").unwrap());
    assert_eq!(write_move(&v, &s, &m), "Ce4");
}
