//! The hand counts of `tests/data/fidchell.perft`: depth 1 of both start positions,
//! piece kind by piece kind, as the comments in that file break them down.

use crate::common;

use common::rules::{fidchell, variant};

use std::collections::BTreeMap;

use ravenpost::engine::Move;

fn by_kind(options: &[(&str, &str)]) -> BTreeMap<String, usize> {
    let v = variant("fidchell", options);
    let mut counts = BTreeMap::new();
    for m in v.legal_moves(&v.start_position()) {
        *counts.entry(v.def().kind(m.piece()).code.clone()).or_insert(0) += 1;
    }
    counts
}

#[test]
fn default_arrangement_depth_1_by_kind() {
    let expected: BTreeMap<String, usize> = [
        ("W", 6),
        ("P", 6),
        ("Md", 1),
        ("Mk", 1),
        ("Mq", 1),
        ("Mb", 1),
        ("L", 2),
        ("S", 4),
        ("E", 12),
        ("G", 2),
        ("T", 6),
        ("N", 2),
        ("K", 1),
        ("Q", 1),
        ("B", 1),
        ("D", 1),
        ("J", 1),
        ("A", 1),
    ]
    .into_iter()
    .map(|(k, n)| (k.to_string(), n))
    .collect();
    let got = by_kind(&[("introduction", "default")]);
    assert_eq!(got, expected);
    assert_eq!(got.values().sum::<usize>(), 50);
}

#[test]
fn introduction_depth_1_is_six_kinds_times_twelve_squares() {
    let got = by_kind(&[]);
    let expected: BTreeMap<String, usize> =
        ["W", "P", "Mk", "Mq", "Md", "Mb"].iter().map(|k| (k.to_string(), 12)).collect();
    assert_eq!(got, expected);
    let v = fidchell();
    let start = v.start_position();
    let moves = v.legal_moves(&start);
    assert!(moves.iter().all(|m| matches!(m, Move::Drop { to, .. } if to.rank().number() == 3)));
    // Depth 2: whatever White dropped, Black has the same 72 on rank 10.
    for m in &moves {
        assert_eq!(v.legal_moves(&v.make(&start, m)).len(), 72);
    }
}
