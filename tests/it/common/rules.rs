//! Variants, positions and move sets for the rules tests.

use std::collections::BTreeSet;
use std::sync::Arc;

use ravenpost::engine::{Move, Position, Variant};
use ravenpost::notation::moves::long_form;
use ravenpost::notation::position_string::parse_position;
use ravenpost::notation::san::read_move;

/// The built-in variant `name` with game options `opts` (`("introduction", "default")`).
pub fn variant(name: &str, opts: &[(&str, &str)]) -> Arc<Variant> {
    let opts: Vec<(String, String)> = opts.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    ravenpost::variants::by_name(name, &opts).unwrap_or_else(|e| panic!("{name} {opts:?}: {e}"))
}

/// Gygax Chess.
pub fn gygax() -> Arc<Variant> {
    variant("gygax", &[])
}

/// Gygax's Fidchell with its default options (the introduction phase).
pub fn fidchell() -> Arc<Variant> {
    variant("fidchell", &[])
}

/// A position string read, or a panic naming it.
pub fn pos(v: &Variant, text: &str) -> Position {
    parse_position(v, text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A set of strings, written separated by white space: `set("3c6 x3d6")`.
pub fn set(items: &str) -> BTreeSet<String> {
    items.split_whitespace().map(str::to_string).collect()
}

/// The legal moves of the piece on `from`, each as its destination: `3c6`, `x3d6`
/// (capture), `:2f6` (capture without moving), `f12=W` (promotion).
pub fn dests(v: &Variant, p: &Position, from: &str) -> BTreeSet<String> {
    let d = v.def().dims;
    let from = d.parse_square(from).unwrap_or_else(|| panic!("square {from}"));
    v.legal_moves(p)
        .into_iter()
        .filter(|m| m.from() == Some(from))
        .map(|m| {
            if let Move::Remote { target, .. } = m {
                return format!(":{}", d.name(target));
            }
            let mut s = format!("{}{}", if m.capture().is_some() { "x" } else { "" }, d.name(m.to()));
            if let Some(k) = m.promotion() {
                s.push('=');
                s.push_str(&v.def().kind(k).code);
            }
            s
        })
        .collect()
}

/// The squares the piece on `from` can reach (names only, captures and promotions
/// folded together).
pub fn squares(v: &Variant, p: &Position, from: &str) -> BTreeSet<String> {
    let d = v.def().dims;
    let sq = d.parse_square(from).unwrap_or_else(|| panic!("square {from}"));
    v.legal_moves(p).iter().filter(|m| m.from() == Some(sq)).map(|m| d.name(m.to())).collect()
}

/// Every legal move in long form.
pub fn long_moves(v: &Variant, p: &Position) -> BTreeSet<String> {
    v.legal_moves(p).iter().map(|m| long_form(v, m)).collect()
}

/// The legal moves from `from`, in long form.
pub fn long_moves_from(v: &Variant, p: &Position, from: &str) -> BTreeSet<String> {
    let sq = v.def().dims.parse_square(from).unwrap_or_else(|| panic!("square {from}"));
    v.legal_moves(p).iter().filter(|m| m.from() == Some(sq)).map(|m| long_form(v, m)).collect()
}

/// The position after the legal move written `long` in long form.
pub fn play_long(v: &Variant, p: &Position, long: &str) -> Position {
    let m = v
        .legal_moves(p)
        .into_iter()
        .find(|m| long_form(v, m) == long)
        .unwrap_or_else(|| panic!("{long} is not legal: {:?}", long_moves(v, p)));
    v.make(p, &m)
}

/// The position after the moves `sans` (SAN) from the start, and the last move.
pub fn play_san(v: &Variant, sans: &[&str]) -> (Position, Option<Move>) {
    let mut pos = v.start_position();
    let mut last = None;
    for t in sans {
        let m = read_move(v, &pos, t).unwrap_or_else(|e| panic!("{t}: {e:?}"));
        pos = v.make(&pos, &m);
        last = Some(m);
    }
    (pos, last)
}
