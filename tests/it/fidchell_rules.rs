//! Gygax's Fidchell rules (rulings §3) on small hand-built positions: every piece kind,
//! every promotion, every portal (open and refused), the Queen's return, the King's
//! succession, compulsory King captures, checkmate and stalemate.
//!
//! Positions are written as lists of pieces (`"K a1, k l12, W f5"`: upper case White,
//! lower case Black) turned into position strings by [`place`].

use crate::common;

use std::collections::BTreeSet;

use common::rules::{dests, fidchell, long_moves, set};
use ravenpost::engine::{EndReason, Outcome, Position, Side, Variant};
use ravenpost::notation::moves::long_form;
use ravenpost::notation::position_string::{parse_position, write_position};

/// A position string: `pieces` (`"K a1, k l12"`), side `w`/`b`, then the four Fidchell
/// fields and clocks in `rest` (default `- - 0000/0000 -`).
fn fen(pieces: &str, side: &str, rest: &str) -> String {
    let mut grid = vec![vec![String::new(); 12]; 12];
    for item in pieces.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (code, sq) = item.split_once(' ').unwrap();
        let file = (sq.as_bytes()[0] - b'a') as usize;
        let rank: usize = sq[1..].parse().unwrap();
        grid[rank - 1][file] = if code.len() > 1 { format!("({code})") } else { code.to_string() };
    }
    let mut ranks = Vec::new();
    for r in (0..12).rev() {
        let mut s = String::new();
        let mut empty = 0;
        for cell in &grid[r] {
            if cell.is_empty() {
                empty += 1;
            } else {
                if empty > 0 {
                    s.push_str(&empty.to_string());
                    empty = 0;
                }
                s.push_str(cell);
            }
        }
        if empty > 0 {
            s.push_str(&empty.to_string());
        }
        ranks.push(s);
    }
    let rest = if rest.is_empty() { "- - 0000/0000 -" } else { rest };
    format!("{} {side} {rest} 0 20", ranks.join("/"))
}

fn place(v: &Variant, pieces: &str, side: &str, rest: &str) -> Position {
    let text = fen(pieces, side, rest);
    parse_position(v, &text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The destinations of a White `code` alone on f5 (Kings on a1 and l12).
fn alone_on_f5(code: &str) -> BTreeSet<String> {
    let v = fidchell();
    let king = if code == "K" { "" } else { "K a1, " };
    dests(&v, &place(&v, &format!("{king}k l12, {code} f5"), "w", ""), "f5")
}

// ---- pieces ----

#[test]
fn warrior_steps_forward_or_sideways_and_captures_so() {
    let v = fidchell();
    let p = place(&v, "K a1, k l12, W f5, w g5, w f6", "w", "");
    assert_eq!(dests(&v, &p, "f5"), set("xf6 e5 xg5"));
    // Black's forward is down the board.
    let p = place(&v, "K a1, k l12, w f8", "b", "");
    assert_eq!(dests(&v, &p, "f8"), set("f7 e8 g8"));
}

#[test]
fn guard_and_promoted_warrior_step_vertically_and_slide_three_sideways() {
    for code in ["G", "W+"] {
        assert_eq!(alone_on_f5(code), set("f6 f4 e5 d5 c5 g5 h5 i5"), "{code}");
    }
    let v = fidchell();
    let p = place(&v, "K a1, k l12, G f5, W d5, w h5", "w", "");
    assert_eq!(dests(&v, &p, "f5"), set("f6 f4 e5 g5 xh5"), "the sideways slide is blocked");
}

#[test]
fn pike_slides_up_to_three_forward() {
    assert_eq!(alone_on_f5("P"), set("f6 f7 f8"));
    let v = fidchell();
    let p = place(&v, "K a1, k l12, P f5, w f7", "w", "");
    assert_eq!(dests(&v, &p, "f5"), set("f6 xf7"));
    let p = place(&v, "K a1, k l12, p f8", "b", "");
    assert_eq!(dests(&v, &p, "f8"), set("f7 f6 f5"));
}

#[test]
fn pike_guard_and_guard_general() {
    assert_eq!(alone_on_f5("PG"), set("f4 f6 f7 f8 e5 d5 c5 g5 h5 i5"));
    assert_eq!(alone_on_f5("GG"), set("f4 f6 f7 f8 e5 d5 c5 g5 h5 i5"));
}

#[test]
fn men_at_arms_move_forward_or_sideways_and_capture_only_diagonally_forward() {
    for code in ["Mk", "Mq", "Md", "Mb"] {
        let v = fidchell();
        let p = place(&v, &format!("K a1, k l12, {code} f5, w f6, w e6, w g4"), "w", "");
        assert_eq!(dests(&v, &p, "f5"), set("e5 g5 xe6"), "{code}");
        let p = place(&v, &format!("K a1, k l12, {} f8, W e7, W f7", code.to_lowercase()), "b", "");
        assert_eq!(dests(&v, &p, "f8"), set("e8 g8 xe7"), "black {code}");
    }
}

#[test]
fn longbowman_and_longbowman_guard() {
    assert_eq!(alone_on_f5("L"), set("f6 e6 g6 d7 h7"));
    assert_eq!(alone_on_f5("LG"), set("f6 f4 e5 g5 e6 g6 d7 h7 c8 i8 d5 h5 c5 i5"));
    let v = fidchell();
    let p = place(&v, "K a1, k l12, l f8", "b", "");
    assert_eq!(dests(&v, &p, "f8"), set("f7 e7 g7 d6 h6"));
}

#[test]
fn queen_and_royal_princess_step_diagonally_or_sideways() {
    assert_eq!(alone_on_f5("Q"), set("e6 g6 e4 g4 e5 g5"));
    assert_eq!(alone_on_f5("RP"), set("e6 g6 e4 g4 e5 g5"));
}

#[test]
fn engine_steps_back_and_leaps_forward() {
    assert_eq!(alone_on_f5("E"), set("f4 f7 f8 d7 h7 c8 i8"));
    let v = fidchell();
    let p = place(&v, "K a1, k l12, E f5, W f6, W f7, w f8", "w", "");
    assert_eq!(dests(&v, &p, "f5"), set("f4 xf8 d7 h7 c8 i8"), "leaps are not blocked");
    let p = place(&v, "K a1, k l12, e f8", "b", "");
    assert_eq!(dests(&v, &p, "f8"), set("f9 f6 f5 d6 h6 c5 i5"));
}

#[test]
fn leapers_serjeant_knight_esquire_marshal_fiend() {
    let n = "e7 g7 d6 h6 d4 h4 e3 g3";
    let camel = "e8 g8 e2 g2 c6 i6 c4 i4";
    let zebra = "d8 h8 d2 h2 c7 i7 c3 i3";
    assert_eq!(alone_on_f5("S"), set(n));
    assert_eq!(alone_on_f5("T"), set(&format!("{n} {camel}")));
    assert_eq!(alone_on_f5("S+"), set(&format!("{n} {camel}")));
    assert_eq!(alone_on_f5("T+"), set(&format!("{n} {camel} {zebra}")));
    assert_eq!(alone_on_f5("F"), set(&format!("{camel} {zebra}")));
}

#[test]
fn king_aetheling_jester() {
    let k = "e4 e5 e6 f4 f6 g4 g5 g6";
    assert_eq!(alone_on_f5("K"), set(k));
    assert_eq!(alone_on_f5("AE"), set(k));
    assert_eq!(alone_on_f5("J"), set(&format!("{k} e7 g7 d6 h6 d4 h4 e3 g3")));
}

#[test]
fn sliders_chaplain_noble_astrologer_druid_seer_immortal_bard_spellsinger() {
    let diag = "g6 h7 i8 j9 k10 l11 e6 d7 c8 b9 a10 g4 h3 i2 j1 e4 d3 c2 b1";
    let orth = "f6 f7 f8 f9 f10 f11 f12 f4 f3 f2 f1 e5 d5 c5 b5 a5 g5 h5 i5 j5 k5 l5";
    let n = "e7 g7 d6 h6 d4 h4 e3 g3";
    let camel = "e8 g8 e2 g2 c6 i6 c4 i4";
    assert_eq!(alone_on_f5("C"), set(diag));
    assert_eq!(alone_on_f5("N"), set(orth));
    assert_eq!(alone_on_f5("A"), set(&format!("{diag} f6 f4 e5 g5")));
    assert_eq!(alone_on_f5("D"), set(&format!("{orth} {n}")));
    assert_eq!(alone_on_f5("D+"), set(&format!("{orth} {n}")));
    assert_eq!(alone_on_f5("I"), set(&format!("{orth} {n} {camel}")));
    assert_eq!(alone_on_f5("B"), set(&format!("{orth} {diag}")));
    assert_eq!(alone_on_f5("B+"), set(&format!("{orth} {diag}")));
}

#[test]
fn unicorn_slides_and_may_jump_exactly_one_piece() {
    let v = fidchell();
    // Up: f6 f7, jumps its own Warrior f8 to f9, takes f10, stops (not beyond a second
    // piece). Down: f4, jumps the enemy on f3 to f2 f1. Left: jumps e5 straight away.
    // Right: takes g5, or jumps it to h5 and takes i5.
    let p = place(&v, "K a1, k l12, U f5, W f8, w f10, w f12, w f3, W e5, w g5, w i5, w k5", "w", "");
    assert_eq!(dests(&v, &p, "f5"), set("f6 f7 f9 xf10 f4 f2 f1 d5 c5 b5 a5 xg5 h5 xi5 xf3"));
    // The jump is an attack: the Black King e9 is in check across the Warrior e7.
    let p = place(&v, "K a1, k e9, U e4, N a2, W e7", "b", "");
    assert!(v.in_check(&p));
}

#[test]
fn wyvern_leaps_one_by_three_to_one_by_eleven() {
    let v = fidchell();
    let p = place(&v, "K a1, k l12, y f5", "b", "");
    assert_eq!(
        dests(&v, &p, "f5"),
        set("e8 g8 e2 g2 e9 g9 e1 g1 e10 g10 e11 g11 e12 g12 \
             c6 c4 i6 i4 b6 b4 j6 j4 a6 a4 k6 k4 l6 l4")
    );
    // Its longest leap gives check.
    let p = place(&v, "K l2, k l12, y a1, N b3", "w", "");
    assert!(v.in_check(&p));
}

// ---- promotion ----

#[test]
fn every_promotion_on_the_far_rank_is_compulsory() {
    let v = fidchell();
    for (code, promoted, from, to) in [
        ("W", "W+", "f11", "f12"),
        ("P", "PG", "f11", "f12"),
        ("Mk", "AE", "f11", "f12"),
        ("Mq", "RP", "f11", "f12"),
        ("Md", "D+", "f11", "f12"),
        ("Mb", "B+", "f11", "f12"),
        ("L", "LG", "f11", "f12"),
        ("G", "GG", "f11", "f12"),
        ("S", "S+", "f10", "e12"),
        ("T", "T+", "f10", "g12"),
    ] {
        let p = place(&v, &format!("K a1, k l10, {code} {from}"), "w", "");
        let d = dests(&v, &p, from);
        assert!(d.contains(&format!("{to}={promoted}")), "{code}: {d:?}");
        assert!(!d.contains(to), "{code}: promotion is compulsory");
        // Black promotes on rank 1.
        let black_from = format!("{}{}", &from[..1], 13 - from[1..].parse::<u32>().unwrap());
        let black_to = format!("{}{}", &to[..1], 13 - to[1..].parse::<u32>().unwrap());
        let p = place(&v, &format!("K a12, k l3, {} {black_from}", code.to_lowercase()), "b", "");
        let d = dests(&v, &p, &black_from);
        assert!(d.contains(&format!("{black_to}={promoted}")), "black {code}: {d:?}");
    }
    // By capture too, and only on the far rank.
    let p = place(&v, "K a1, k l10, Mk f11, n g12", "w", "");
    assert_eq!(dests(&v, &p, "f11"), set("e11 g11 f12=AE xg12=AE"));
    let p = place(&v, "K a1, k l10, W f10", "w", "");
    assert_eq!(dests(&v, &p, "f10"), set("f11 e10 g10"));
    // A promoted Warrior does not promote again, nor do the other promoted kinds.
    for code in ["W+", "PG", "GG", "LG", "S+", "T+", "AE", "RP", "D+", "B+"] {
        let p = place(&v, &format!("K a1, k l10, {code} f9"), "w", "");
        assert!(v.legal_moves(&p).iter().all(|m| m.promotion().is_none()), "{code}");
    }
}

// ---- the introduction phase ----

#[test]
fn introduction_only_drops_on_the_own_third_rank() {
    let v = fidchell();
    let start = v.start_position();
    let ms = long_moves(&v, &start);
    assert_eq!(ms.len(), 72);
    assert!(ms.iter().all(|m| m.contains('_') && m.ends_with('3') && !m.ends_with("13")));
    let after = v.make(&start, &v.legal_moves(&start)[0]);
    let ms = long_moves(&v, &after);
    assert_eq!(ms.len(), 72);
    assert!(ms.iter().all(|m| m.ends_with("10")), "{ms:?}");
    // A side whose hand is empty while the other's is not cannot be set up to move.
    let text =
        "ntcjdkqbactn/1lse1gg1esl1/12/12/12/12/12/12/12/12/1LSE1GG1ESL1/NTCJDKQBACTN w [w] - 0000/0000 - 0 1";
    assert!(parse_position(&v, text).is_err());
}

#[test]
fn introduction_takes_24_turns_then_play_begins() {
    let v = fidchell();
    let mut p = v.start_position();
    for _ in 0..24 {
        let ms = v.legal_moves(&p);
        assert!(ms.iter().all(|m| m.from().is_none()));
        p = v.make(&p, &ms[ms.len() / 2]);
    }
    assert_eq!(p.side_to_move(), Side::White);
    assert_eq!(p.fullmove_number(), 13);
    assert!(v.legal_moves(&p).iter().all(|m| m.from().is_some()), "play phase: pieces move");
}

// ---- portals ----

/// The portal entries among the legal moves.
fn entries(v: &Variant, p: &Position) -> BTreeSet<String> {
    v.legal_moves(p).iter().filter(|m| m.from().is_none()).map(|m| long_form(v, m)).collect()
}

#[test]
fn astral_portal_needs_a_druidic_opener_the_abyssal_used_and_a_free_square() {
    let v = fidchell();
    let base = "K a1, k l12, D d2";
    assert_eq!(entries(&v, &place(&v, base, "w", "- - 0000/1000 -")), set("I_e1"));
    // Wrong order: the Abyssal has not been used.
    assert_eq!(entries(&v, &place(&v, base, "w", "- - 0000/0000 -")), set(""));
    // Used up.
    assert_eq!(entries(&v, &place(&v, base, "w", "- - 2000/1000 -")), set(""));
    // Occupied (the Druid stands on it, as at the start).
    assert_eq!(entries(&v, &place(&v, "K a1, k l12, D e1", "w", "- - 0000/1000 -")), set(""));
    // No opener next to it (a Noble is not one).
    assert_eq!(entries(&v, &place(&v, "K a1, k l12, N d2", "w", "- - 0000/1000 -")), set(""));
    // The King, Aetheling and Seer open it too.
    for opener in ["K f2, k l12", "K a1, k l12, AE f1", "K a1, k l12, D+ e2"] {
        assert_eq!(entries(&v, &place(&v, opener, "w", "- - 0000/1000 -")), set("I_e1"), "{opener}");
    }
}

#[test]
fn entering_uses_the_portal_and_the_reserve() {
    let v = fidchell();
    let p = place(&v, "K a1, k l12, D d2", "w", "- - 1000/1000 -");
    let m = v.legal_moves(&p).into_iter().find(|m| long_form(&v, m) == "I_e1").unwrap();
    let after = v.make(&p, &m);
    let text = write_position(&v, &after);
    assert!(text.contains(" 2000/1000 "), "{text}");
    let immortal = v.def().kind_by_code("I").unwrap();
    assert_eq!(after.in_hand(Side::White, immortal), 0, "both Immortals have come in");
    assert_eq!(after.halfmove_clock(), 0);
}

#[test]
fn faerie_portals_seelie_first_then_unseelie() {
    let v = fidchell();
    assert_eq!(entries(&v, &place(&v, "K a1, k l12, Q g1", "w", "")), set("U_h1"));
    assert_eq!(entries(&v, &place(&v, "K a1, k l12, RP i2", "w", "")), set("U_h1"));
    assert_eq!(entries(&v, &place(&v, "K a1, k l12, B+ h2", "w", "- - 0200/0000 -")), set(""), "used up");
    assert_eq!(entries(&v, &place(&v, "K a1, k l12, B h1", "w", "")), set(""), "occupied");
    assert_eq!(entries(&v, &place(&v, "K a1, k l12, D g1", "w", "")), set(""), "no faerie opener");
    // Black's Unseelie opens only once the Seelie has been used.
    assert_eq!(entries(&v, &place(&v, "K a1, k l1, b g12", "b", "")), set(""), "wrong order");
    assert_eq!(entries(&v, &place(&v, "K a1, k l1, b g12", "b", "- - 0100/0000 -")), set("Y_h12"));
    assert_eq!(entries(&v, &place(&v, "K a1, k l1, b g12", "b", "- - 0100/0200 -")), set(""));
    assert_eq!(entries(&v, &place(&v, "K a1, k l1, b h12", "b", "- - 0100/0000 -")), set(""), "occupied");
    assert_eq!(entries(&v, &place(&v, "K a1, k l1, d g12", "b", "- - 0100/0000 -")), set(""), "no opener");
    assert_eq!(entries(&v, &place(&v, "K a1, k l1, q i11", "b", "- - 0100/0000 -")), set("Y_h12"));
}

#[test]
fn abyssal_portal() {
    let v = fidchell();
    assert_eq!(entries(&v, &place(&v, "K a1, k l1, d d11", "b", "")), set("F_e12"));
    assert_eq!(entries(&v, &place(&v, "K a1, k e11", "b", "")), set("F_e12"), "the King opens it");
    assert_eq!(entries(&v, &place(&v, "K a1, k l1, d e12", "b", "")), set(""), "occupied");
    assert_eq!(entries(&v, &place(&v, "K a1, k l1, d d11", "b", "- - 0000/2000 -")), set(""), "used up");
    assert_eq!(entries(&v, &place(&v, "K a1, k l1, b d11", "b", "")), set(""), "no druidic opener");
}

#[test]
fn subterranean_portals_return_own_captured_pieces_once_each() {
    let v = fidchell();
    // The Knight e5 stands next to f6 only; White has a Warrior and a Noble captured,
    // Black a Serjeant (not White's to bring back).
    let p = place(&v, "K a1, k l12, T e5", "w", "- [WNs] 0000/0000 -");
    assert_eq!(entries(&v, &p), set("W_f6 N_f6"));
    // Astrologer, Chaplain, Jester and Noble open them too; a Jester between both opens both.
    // Each opens what it stands next to: e7 and e6 touch f6 only; f5 touches f6 and g6.
    let opened =
        |opener: &str| entries(&v, &place(&v, &format!("K a1, k l12, {opener}"), "w", "- [W] 0000/0000 -"));
    assert_eq!(opened("C e7"), set("W_f6"));
    assert_eq!(opened("N e6"), set("W_f6"));
    assert_eq!(opened("A f5"), set("W_f6 W_g6"));
    let p = place(&v, "K a1, k l12, J g5", "w", "- [W] 0000/0000 -");
    assert_eq!(entries(&v, &p), set("W_f6 W_g6"));
    // A Marshal is not a Knight; a Queen is no opener.
    for other in ["T+ e5", "Q e5", "D e5"] {
        let p = place(&v, &format!("K a1, k l12, {other}"), "w", "- [W] 0000/0000 -");
        assert_eq!(entries(&v, &p), set(""), "{other}");
    }
    // Used once: shut. Occupied: shut. Nothing captured: nothing to bring.
    assert_eq!(entries(&v, &place(&v, "K a1, k l12, T e5", "w", "- [W] 0010/0000 -")), set(""));
    assert_eq!(entries(&v, &place(&v, "K a1, k l12, T e5, W f6", "w", "- [W] 0000/0000 -")), set(""));
    assert_eq!(entries(&v, &place(&v, "K a1, k l12, T e5", "w", "")), set(""));
    // Black's are f7 and g7.
    let p = place(&v, "K a1, k l12, n h8", "b", "- [ww] 0000/0000 -");
    assert_eq!(entries(&v, &p), set("W_g7"));
    let after = v.make(&p, &v.legal_moves(&p).into_iter().find(|m| m.from().is_none()).unwrap());
    assert!(write_position(&v, &after).contains(" w - [w] 0000/0001 - "), "{}", write_position(&v, &after));
}

#[test]
fn captured_pieces_are_listed_unpromoted_and_only_the_returnable_kinds() {
    let v = fidchell();
    for (victim, listed) in [
        ("s+", "[s]"),
        ("w+", "[w]"),
        ("ae", "[(mk)]"),
        ("t+", "[t]"),
        ("gg", "[g]"),
        ("e", "[e]"),
        ("q", "-"),
        ("d", "-"),
        ("y", "-"),
    ] {
        let p = place(&v, &format!("K a1, k l12, n b12, N f5, {victim} f9"), "w", "");
        let m = v.legal_moves(&p).into_iter().find(|m| long_form(&v, m) == "Nf5xf9").unwrap();
        let text = write_position(&v, &v.make(&p, &m));
        assert!(text.contains(&format!(" b - {listed} 0000/0000 ")), "{victim}: {text}");
    }
}

// ---- Queen and King ----

#[test]
fn queen_returns_on_the_princess_square_the_next_turn_only() {
    let v = fidchell();
    let p = place(&v, "K a1, W a5, n a12, k f12, q g11, rp c10, B b6, N l1", "w", "");
    let take = v.legal_moves(&p).into_iter().find(|m| long_form(&v, m) == "Bb6xg11").unwrap();
    let after = v.make(&p, &take);
    let text = write_position(&v, &after);
    assert!(text.contains(" b - - 0000/0000 Q "), "{text}");
    assert!(long_moves(&v, &after).contains("Q_c10"));
    // Returning: the Queen stands on c10, the Princess has left the field.
    let back = v.legal_moves(&after).into_iter().find(|m| long_form(&v, m) == "Q_c10").unwrap();
    let returned = v.make(&after, &back);
    let q = v.def().kind_by_code("Q").unwrap();
    let c10 = v.def().dims.parse_square("c10").unwrap();
    assert_eq!(returned.piece_at(c10).map(|p| p.kind), Some(q));
    assert!(write_position(&v, &returned).contains(" w - - 0000/0000 - 0 "));
    // Lapse: Black does something else; one turn later the option is gone.
    let other = v.legal_moves(&after).into_iter().find(|m| long_form(&v, m) == "Na12-a11").unwrap();
    let later = v.make(&v.make(&after, &other), &v.legal_moves(&v.make(&after, &other))[0]);
    assert_eq!(later.side_to_move(), Side::Black);
    assert!(!long_moves(&v, &later).iter().any(|m| m.starts_with("Q_")));
    // Without a Princess on the field when the Queen falls there is no return.
    let p = place(&v, "K a1, W a5, n a12, k f12, q g11, B b6, N l1", "w", "");
    let take = v.legal_moves(&p).into_iter().find(|m| long_form(&v, m) == "Bb6xg11").unwrap();
    let after = v.make(&p, &take);
    assert!(!long_moves(&v, &after).iter().any(|m| m.starts_with("Q_")));
    assert!(write_position(&v, &after).contains(" 0000/0000 - "));
}

#[test]
fn king_capture_is_compulsory_and_always_legal() {
    let v = fidchell();
    // White can take the King e8 with the Noble; the Bard could take a Noble instead.
    let p = place(&v, "K f1, N e2, B h4, k e8, n l4, q d12", "w", "");
    assert_eq!(long_moves(&v, &p), set("Ne2xe8"));
    // Legal even when it exposes White's own King with no White successor on the field:
    // the Guard f2 shields the King f1 from the Noble f12 and takes the King h2 anyway.
    let p = place(&v, "K f1, G f2, k h2, n f12", "w", "");
    assert_eq!(long_moves(&v, &p), set("Gf2xh2"));
}

#[test]
fn a_king_may_stand_attacked_only_while_a_successor_is_on_the_field() {
    let v = fidchell();
    // The Black Noble l2 sweeps rank 2.
    let with = place(&v, "K a1, N h5, k l12, n l2", "w", "");
    let without = place(&v, "K a1, W h5, k l12, n l2", "w", "");
    assert!(dests(&v, &with, "a1").contains("a2"));
    assert!(!dests(&v, &without, "a1").contains("a2"));
    assert_eq!(dests(&v, &without, "a1"), set("b1"));
    // An Aetheling or the Queen counts as a successor; a Royal Princess does not.
    for succ in ["AE h5", "Q h5"] {
        assert!(dests(&v, &place(&v, &format!("K a1, {succ}, k l12, n l2"), "w", ""), "a1").contains("a2"));
    }
    assert!(!dests(&v, &place(&v, "K a1, RP h5, k l12, n l2", "w", ""), "a1").contains("a2"));
}

#[test]
fn succession_aetheling_first_then_a_noble_of_choice_then_the_queen() {
    let v = fidchell();
    // Positions with White's King just captured: the re-introduction is White's turn.
    let no_king = |pieces: &str| place(&v, pieces, "w", "");
    assert_eq!(long_moves(&v, &no_king("AE f5, N c3, N l7, Q h4, k l12")), set("K_f5"));
    assert_eq!(long_moves(&v, &no_king("N c3, N l7, Q h4, k l12")), set("K_c3 K_l7"));
    assert_eq!(long_moves(&v, &no_king("Q h4, RP c2, k l12")), set("K_h4"));
    // Nothing to take its place: the game is lost.
    let lost = no_king("RP c2, B b4, k l12");
    assert!(v.legal_moves(&lost).is_empty());
    assert_eq!(
        v.outcome(&lost),
        Some(Outcome::Win { winner: Side::Black, reason: EndReason::RoyalCaptured })
    );
    // The re-introduced King replaces the piece for good, and is legal even on an
    // attacked square.
    let p = no_king("N e5, k l12");
    let m = v.legal_moves(&p).pop().unwrap();
    let after = v.make(&p, &m);
    assert_eq!(write_position(&v, &after), fen("K e5, k l12", "b", ""));
    let attacked = no_king("N e5, k l12, n e9");
    assert_eq!(long_moves(&v, &attacked), set("K_e5"));
    let after = v.make(&attacked, &v.legal_moves(&attacked)[0]);
    assert_eq!(long_moves(&v, &after), set("Ne9xe5"), "the capture is compulsory");
    let gone = v.make(&after, &v.legal_moves(&after)[0]);
    assert_eq!(
        v.outcome(&gone),
        Some(Outcome::Win { winner: Side::Black, reason: EndReason::RoyalCaptured })
    );
}

#[test]
fn a_full_cycle_capture_then_reintroduction() {
    let v = fidchell();
    let p = place(&v, "K f1, N e2, k e8, ae c10, n l12", "w", "");
    let after = v.make(&p, &v.legal_moves(&p)[0]);
    assert_eq!(long_moves(&v, &after), set("K_c10"), "Black's whole turn is the re-introduction");
    let back = v.make(&after, &v.legal_moves(&after)[0]);
    assert!(write_position(&v, &back).starts_with("11n/12/2k9/"), "{}", write_position(&v, &back));
}

#[test]
fn checkmate_needs_no_successor_on_the_field() {
    let v = fidchell();
    // Nobles l1 and l2 hold ranks 1 and 2: the White King a1 is in check, cannot move.
    let mate = place(&v, "K a1, k l12, n l1, n l2", "w", "");
    assert!(v.in_check(&mate));
    assert!(v.legal_moves(&mate).is_empty());
    assert_eq!(v.outcome(&mate), Some(Outcome::Win { winner: Side::Black, reason: EndReason::Checkmate }));
    // With a Noble of its own on the field, White may leave the King there: no mate.
    let not_mate = place(&v, "K a1, N h7, k l12, n l1, n l2", "w", "");
    assert!(v.in_check(&not_mate));
    assert!(!v.legal_moves(&not_mate).is_empty());
    assert_eq!(v.outcome(&not_mate), None);
}

#[test]
fn stalemate_is_a_draw() {
    let v = fidchell();
    // The Nobles b12 and l2 hold b1, b2 and a2; a1 itself is not attacked.
    let p = place(&v, "K a1, k l12, n b12, n l2", "w", "");
    assert!(!v.in_check(&p));
    assert!(v.legal_moves(&p).is_empty());
    assert_eq!(v.outcome(&p), Some(Outcome::Draw { reason: EndReason::Stalemate }));
}

#[test]
fn the_definition_has_33_kinds_and_documents_its_rulings() {
    let v = fidchell();
    assert_eq!(v.def().kinds.len(), 33);
    assert_eq!(v.def().kinds.iter().filter(|k| k.promotion.is_some()).count(), 10);
    let doc = ravenpost::variants::FIDCHELL_MD;
    assert!(doc.contains("**(ruling)**"));
    for code in v.def().kinds.iter().map(|k| k.code.as_str()) {
        assert!(
            doc.contains(&format!("| {code} |")) || doc.contains(&format!("{code},")),
            "{code} documented"
        );
    }
}
