//! Round trip for every variant and every Fantasy Grand Chess army pairing: in random
//! legal games, each move's canonical token (and its long form) reads back as the same
//! move, and the position string of every position reads back as the same position.

use crate::common;

use common::rules::{fidchell, gygax, variant};

use std::sync::Arc;

use proptest::prelude::*;
use ravenpost::engine::Variant;
use ravenpost::notation::moves::long_form;
use ravenpost::notation::position_string::{parse_position, write_position};
use ravenpost::notation::san::{read_move, write_move};

const ARMIES: [&str; 6] = ["humans", "elves", "dwarves", "evil-horde", "giants", "druid"];

/// Every variant setting to test: the four games, and all 36 pairings.
fn settings() -> Vec<Arc<Variant>> {
    let opt = |k: &str, v: &str| (k.to_string(), v.to_string());
    let mut out =
        vec![gygax(), fidchell(), variant("fidchell", &[("introduction", "default")]), variant("grand", &[])];
    for w in ARMIES {
        for b in ARMIES {
            let opts = vec![opt("army-white", w), opt("army-black", b), opt("druid", "allowed")];
            out.push(ravenpost::variants::by_name("fantasy-grand", &opts).unwrap());
        }
    }
    out
}

fn play(v: &Variant, choices: &[u32]) -> Result<(), TestCaseError> {
    let mut p = v.start_position();
    for &c in choices {
        let legal = v.legal_moves(&p);
        if legal.is_empty() {
            break;
        }
        let m = legal[c as usize % legal.len()];
        let t = write_move(v, &p, &m);
        prop_assert_eq!(read_move(v, &p, &t), Ok(m), "{} in {}", t, write_position(v, &p));
        prop_assert_eq!(read_move(v, &p, &long_form(v, &m)), Ok(m));
        p = v.make(&p, &m);
        let s = write_position(v, &p);
        let back = parse_position(v, &s);
        prop_assert_eq!(back.as_ref(), Ok(&p), "{}", s);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 80, ..ProptestConfig::default() })]

    #[test]
    fn every_variant_and_pairing_round_trips(
        which in 0usize..40,
        choices in proptest::collection::vec(0u32..100_000, 1..50),
    ) {
        let all = settings();
        play(&all[which % all.len()], &choices)?;
    }
}

/// Each setting once, with a fixed game, so that every pairing is certainly covered.
#[test]
fn each_setting_once() {
    let choices: Vec<u32> = (0..40).map(|i| (i * 7919 + 13) % 1000).collect();
    for v in settings() {
        play(&v, &choices).unwrap();
    }
}
