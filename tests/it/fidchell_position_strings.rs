//! Fidchell position strings (`notation-spec/position-strings.md` §4, Fidchell): the
//! spec's own examples, round trips through play, and refused strings.

use crate::common;

use common::rules::{fidchell, play_long, variant};
use ravenpost::engine::Variant;
use ravenpost::notation::position_string::{parse_position, write_position};

const FULL_INTRODUCTION: &str = "ntcjdkqbactn/1lse1gg1esl1/12/12/12/12/12/12/12/12/1LSE1GG1ESL1/NTCJDKQBACTN w \
[WWWWWWPP(Mk)(Mq)(Md)(Mb)wwwwwwpp(mk)(mq)(md)(mb)] - 0000/0000 - 0 1";
const DEFAULT: &str = "ntcjdkqbactn/1lse1gg1esl1/wwwp(md)(mk)(mq)(mb)pwww/12/12/12/12/12/12/\
WWWP(Md)(Mk)(Mq)(Mb)PWWW/1LSE1GG1ESL1/NTCJDKQBACTN w - - 0000/0000 - 0 1";
const AFTER_THREE: &str = "ntcjdkqbactn/1l1e1gg1esl1/1ww1(md)(mk)(mq)(mb)pwww/w2p8/12/12/12/12/W11/\
1WW1(Md)(Mk)(Mq)(Mb)PWWW/1LSE1GG1ESL1/NTCJDKQBACTN w - [Ps] 0000/0000 - 0 4";

/// Fidchell after its introduction (the `default` arrangement).
fn fidchell_arranged() -> std::sync::Arc<Variant> {
    variant("fidchell", &[("introduction", "default")])
}

#[test]
fn the_spec_start_strings_are_the_start_positions() {
    let v = fidchell();
    assert_eq!(write_position(&v, &v.start_position()), FULL_INTRODUCTION);
    assert_eq!(parse_position(&v, FULL_INTRODUCTION).unwrap(), v.start_position());
    let v = fidchell_arranged();
    assert_eq!(write_position(&v, &v.start_position()), DEFAULT);
    assert_eq!(parse_position(&v, DEFAULT).unwrap(), v.start_position());
}

#[test]
fn the_spec_example_after_three_moves() {
    let v = fidchell_arranged();
    let mut p = v.start_position();
    for token in ["Wa3-a4", "Wa10-a9", "Pd3-d6", "Sc11-d9", "Pd6xd9", "Pd10xd9"] {
        p = play_long(&v, &p, token);
    }
    assert_eq!(write_position(&v, &p), AFTER_THREE);
    assert_eq!(parse_position(&v, AFTER_THREE).unwrap(), p);
}

#[test]
fn every_state_field_round_trips() {
    let v = fidchell();
    for text in [
        "12/12/4k7/4u7/6n5/12/4W3f3/12/3WK7/2y4G4/12/A10C w - [WWNww(mk)(mq)] 1011/2110 - 7 30",
        "n4k6/6B2c2/2(rp)1(s+)7/3(mk)8/11(B+)/12/8I3/W6W4/4(D+)5(AE)1/12/12/1K4Q5 b - [(Mk)] 0000/0000 Q 0 20",
        "ntcjdkqbactn/1lse1gg1esl1/wwwp(md)(mk)(mq)1pwww/12/12/12/12/12/12/1WWP(Md)(Mk)(Mq)(Mb)PWWW/1LSE1GG1ESL1/NTCJDKQBACTN w [W(mb)] - 0000/0000 - 0 12",
        "4k7/12/12/12/12/12/12/12/12/12/12/4(AE)7 w - - 0000/0000 - 0 40",
    ] {
        let p = parse_position(&v, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(write_position(&v, &p), text);
    }
    // Lenient order on read, canonical on write.
    let p = parse_position(&v, "4k7/12/12/12/12/12/12/12/12/12/12/4K7 w - [wWsN] 0000/0000 - 0 40").unwrap();
    assert!(write_position(&v, &p).contains(" [WNws] "));
}

#[test]
fn positions_along_the_introduction_and_play_round_trip() {
    let v = fidchell();
    let mut p = v.start_position();
    let mut seen = 0;
    for ply in 0..60 {
        let moves = v.legal_moves(&p);
        if moves.is_empty() {
            break;
        }
        let text = write_position(&v, &p);
        let back = parse_position(&v, &text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back, p, "{text}");
        assert_eq!(back.hash(), p.hash());
        // Prefer captures, to fill the captured list.
        let m = moves.iter().find(|m| m.capture().is_some()).unwrap_or(&moves[(ply * 7) % moves.len()]);
        p = v.make(&p, m);
        seen += 1;
    }
    assert!(seen > 30);
}

#[test]
fn refused_strings_name_the_field() {
    let v = fidchell();
    let k = "4k7/12/12/12/12/12/12/12/12/12/12/4K7";
    for (rest, why) in [
        ("w - - 0000/0000 - 0", "fields"),
        ("w - - 3000/0000 - 0 1", "Astral"),
        ("w - - 0020/0000 - 0 1", "Subterranean"),
        ("w - - 0000-0000 - 0 1", "portal uses"),
        ("w [U] - 0000/0000 - 0 1", "never held in hand"),
        ("w [WWWWWWW] - 0000/0000 - 0 1", "more than 6"),
        ("w - [(W+)] 0000/0000 - 0 1", "unpromoted"),
        ("w - [Q] 0000/0000 - 0 1", "cannot come back"),
        ("w - - 0000/0000 K 0 1", "pending"),
        ("w [w] - 0000/0000 - 0 1", "must have a piece in hand"),
        ("w [W - 0000/0000 - 0 1", "expected `-` or a list"),
        ("w [(Mk] - 0000/0000 - 0 1", "unclosed"),
    ] {
        let text = format!("{k} {rest}");
        let err = parse_position(&v, &text).unwrap_err().to_string();
        assert!(err.contains(why), "{text}: {err}");
    }
}
