//! A slow, separate Fidchell move generator, written from `shared/rulings.md` §3 without
//! the engine's tables, atoms or rules code: plain coordinate loops over a 12×12 array of
//! piece codes, its own position-string reader, its own legality. Every count in
//! `tests/data/fidchell.perft` is recomputed with it, and at every node of the first
//! plies its move list must equal the engine's.
//!
//! Coordinates here are `(file, rank)`, both 0..12; "forward" is +rank for White and
//! −rank for Black.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

type Sq = (i32, i32);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Pc {
    white: bool,
    code: &'static str,
}

const CODES: [&str; 33] = [
    "W", "P", "Mk", "Mq", "Md", "Mb", "L", "E", "G", "S", "J", "T", "C", "N", "A", "W+", "PG", "AE", "RP",
    "D+", "B+", "LG", "GG", "S+", "T+", "K", "Q", "D", "B", "F", "U", "Y", "I",
];

fn code(s: &str) -> &'static str {
    CODES.iter().copied().find(|c| c.eq_ignore_ascii_case(s)).unwrap_or_else(|| panic!("code {s}"))
}

#[derive(Clone, Debug)]
struct Pos {
    board: [[Option<Pc>; 12]; 12], // [file][rank]
    white: bool,
    hand: [BTreeMap<&'static str, u8>; 2],
    captured: [BTreeMap<&'static str, u8>; 2],
    uses: [u8; 8],
    pending: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mv {
    Go { from: Sq, to: Sq, code: &'static str, promo: Option<&'static str>, capture: Option<&'static str> },
    Drop { code: &'static str, to: Sq },
    Replace { code: &'static str, to: Sq },
}

fn side(white: bool) -> usize {
    if white { 0 } else { 1 }
}

fn on(s: Sq) -> bool {
    (0..12).contains(&s.0) && (0..12).contains(&s.1)
}

fn name(s: Sq) -> String {
    format!("{}{}", (b'a' + s.0 as u8) as char, s.1 + 1)
}

impl Mv {
    fn text(&self) -> String {
        match self {
            Mv::Go { from, to, code, promo, capture } => {
                let mut s = format!(
                    "{code}{}{}{}",
                    name(*from),
                    if capture.is_some() { "x" } else { "-" },
                    name(*to)
                );
                if let Some(p) = promo {
                    s.push('=');
                    s.push_str(p);
                }
                s
            }
            Mv::Drop { code, to } | Mv::Replace { code, to } => format!("{code}_{}", name(*to)),
        }
    }
}

// ---- reading a position string (own reader) ----

fn read_list(f: &str) -> Vec<Pc> {
    if f == "-" {
        return vec![];
    }
    let inner = &f[1..f.len() - 1];
    let mut out = vec![];
    let cs: Vec<char> = inner.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let tok: String = if cs[i] == '(' {
            let j = i + cs[i..].iter().position(|c| *c == ')').unwrap();
            let t = cs[i + 1..j].iter().collect();
            i = j + 1;
            t
        } else {
            i += 1;
            cs[i - 1].to_string()
        };
        out.push(Pc { white: tok.chars().next().unwrap().is_ascii_uppercase(), code: code(&tok) });
    }
    out
}

fn read(text: &str) -> Pos {
    let f: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(f.len(), 8, "{text}");
    let mut board = [[None; 12]; 12];
    for (row, r) in f[0].split('/').enumerate() {
        let rank = 11 - row as i32;
        let cs: Vec<char> = r.chars().collect();
        let (mut i, mut file) = (0, 0);
        while i < cs.len() {
            if cs[i].is_ascii_digit() {
                let mut n = 0;
                while i < cs.len() && cs[i].is_ascii_digit() {
                    n = n * 10 + cs[i].to_digit(10).unwrap() as i32;
                    i += 1;
                }
                file += n;
            } else {
                let tok: String = if cs[i] == '(' {
                    let j = i + cs[i..].iter().position(|c| *c == ')').unwrap();
                    let t = cs[i + 1..j].iter().collect();
                    i = j + 1;
                    t
                } else {
                    i += 1;
                    cs[i - 1].to_string()
                };
                board[file as usize][rank as usize] =
                    Some(Pc { white: tok.chars().next().unwrap().is_ascii_uppercase(), code: code(&tok) });
                file += 1;
            }
        }
        assert_eq!(file, 12);
    }
    let mut p = Pos {
        board,
        white: f[1] == "w",
        hand: Default::default(),
        captured: Default::default(),
        uses: [0; 8],
        pending: f[5] == "Q",
    };
    for pc in read_list(f[2]) {
        *p.hand[side(pc.white)].entry(pc.code).or_default() += 1;
    }
    for pc in read_list(f[3]) {
        *p.captured[side(pc.white)].entry(pc.code).or_default() += 1;
    }
    let digits: Vec<u8> = f[4].bytes().filter(|b| b.is_ascii_digit()).map(|b| b - b'0').collect();
    p.uses.copy_from_slice(&digits);
    p
}

/// The play-phase start with the default arrangement, built square by square.
fn default_start() -> Pos {
    let back = ["N", "T", "C", "J", "D", "K", "Q", "B", "A", "C", "T", "N"];
    let second = ["", "L", "S", "E", "", "G", "G", "", "E", "S", "L", ""];
    let third = ["W", "W", "W", "P", "Md", "Mk", "Mq", "Mb", "P", "W", "W", "W"];
    let mut board = [[None; 12]; 12];
    for f in 0..12 {
        for (rank, row) in [(0, &back), (1, &second), (2, &third)] {
            if !row[f].is_empty() {
                board[f][rank] = Some(Pc { white: true, code: code(row[f]) });
                board[f][11 - rank] = Some(Pc { white: false, code: code(row[f]) });
            }
        }
    }
    Pos {
        board,
        white: true,
        hand: Default::default(),
        captured: Default::default(),
        uses: [0; 8],
        pending: false,
    }
}

fn intro_start() -> Pos {
    let mut p = default_start();
    for f in 0..12 {
        p.board[f][2] = None;
        p.board[f][9] = None;
    }
    for s in 0..2 {
        for (c, n) in [("W", 6), ("P", 2), ("Mk", 1), ("Mq", 1), ("Md", 1), ("Mb", 1)] {
            p.hand[s].insert(code(c), n);
        }
    }
    p
}

// ---- movement ----

const ORTH: [Sq; 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const DIAG: [Sq; 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

fn all8(a: i32, b: i32) -> Vec<Sq> {
    let mut v = vec![];
    for (x, y) in [(a, b), (b, a)] {
        for sx in [1, -1] {
            for sy in [1, -1] {
                if !v.contains(&(x * sx, y * sy)) {
                    v.push((x * sx, y * sy));
                }
            }
        }
    }
    v
}

/// (direction, how many squares at most, may move, may capture) slides, and leaps with
/// (offset, may move, may capture), all for White.
struct Movement {
    slides: Vec<(Sq, i32, bool, bool)>,
    leaps: Vec<(Sq, bool, bool)>,
    unicorn: bool,
}

fn movement(c: &str) -> Movement {
    let mut m = Movement { slides: vec![], leaps: vec![], unicorn: false };
    let slide = |m: &mut Movement, dirs: &[Sq], n: i32| {
        for d in dirs {
            m.slides.push((*d, n, true, true));
        }
    };
    let leap = |m: &mut Movement, offs: Vec<Sq>| {
        for o in offs {
            m.leaps.push((o, true, true));
        }
    };
    const F: Sq = (0, 1);
    const B: Sq = (0, -1);
    const S: [Sq; 2] = [(1, 0), (-1, 0)];
    match c {
        "W" => slide(&mut m, &[F, S[0], S[1]], 1),
        "P" => slide(&mut m, &[F], 3),
        "Mk" | "Mq" | "Md" | "Mb" => {
            for d in [F, S[0], S[1]] {
                m.slides.push((d, 1, true, false));
            }
            m.leaps.push(((1, 1), false, true));
            m.leaps.push(((-1, 1), false, true));
        }
        "L" => {
            slide(&mut m, &[F, (1, 1), (-1, 1)], 1);
            leap(&mut m, vec![(2, 2), (-2, 2)]);
        }
        "Q" | "RP" => slide(&mut m, &[DIAG[0], DIAG[1], DIAG[2], DIAG[3], S[0], S[1]], 1),
        "E" => {
            slide(&mut m, &[B], 1);
            leap(&mut m, vec![(0, 2), (0, 3), (2, 2), (-2, 2), (3, 3), (-3, 3)]);
        }
        "G" | "W+" => {
            slide(&mut m, &[F, B], 1);
            slide(&mut m, &S, 3);
        }
        "S" => leap(&mut m, all8(1, 2)),
        "K" | "AE" => slide(&mut m, &[ORTH, DIAG].concat(), 1),
        "PG" => {
            slide(&mut m, &[B], 1);
            slide(&mut m, &[F, S[0], S[1]], 3);
        }
        "GG" => {
            slide(&mut m, &[F, B], 1);
            slide(&mut m, &[F, S[0], S[1]], 3);
        }
        "LG" => {
            slide(&mut m, &[(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1)], 1);
            leap(&mut m, vec![(2, 2), (-2, 2), (3, 3), (-3, 3), (2, 0), (-2, 0), (3, 0), (-3, 0)]);
        }
        "J" => {
            slide(&mut m, &[ORTH, DIAG].concat(), 1);
            leap(&mut m, all8(1, 2));
        }
        "T" | "S+" => leap(&mut m, [all8(1, 2), all8(1, 3)].concat()),
        "T+" => leap(&mut m, [all8(1, 2), all8(1, 3), all8(2, 3)].concat()),
        "F" => leap(&mut m, [all8(1, 3), all8(2, 3)].concat()),
        "C" => slide(&mut m, &DIAG, 99),
        "N" => slide(&mut m, &ORTH, 99),
        "U" => {
            slide(&mut m, &ORTH, 99);
            m.unicorn = true;
        }
        "A" => {
            slide(&mut m, &ORTH, 1);
            slide(&mut m, &DIAG, 99);
        }
        "Y" => leap(&mut m, (3..=11).flat_map(|n| all8(1, n)).collect()),
        "D" | "D+" => {
            slide(&mut m, &ORTH, 99);
            leap(&mut m, all8(1, 2));
        }
        "I" => {
            slide(&mut m, &ORTH, 99);
            leap(&mut m, [all8(1, 2), all8(1, 3)].concat());
        }
        "B" | "B+" => slide(&mut m, &[ORTH, DIAG].concat(), 99),
        other => panic!("{other}"),
    }
    m
}

fn promotes_to(c: &str) -> Option<&'static str> {
    Some(match c {
        "W" => "W+",
        "P" => "PG",
        "Mk" => "AE",
        "Mq" => "RP",
        "Md" => "D+",
        "Mb" => "B+",
        "L" => "LG",
        "G" => "GG",
        "S" => "S+",
        "T" => "T+",
        _ => return None,
    })
}

fn unpromoted(c: &'static str) -> &'static str {
    match c {
        "W+" => "W",
        "PG" => "P",
        "AE" => "Mk",
        "RP" => "Mq",
        "D+" => "Md",
        "B+" => "Mb",
        "LG" => "L",
        "GG" => "G",
        "S+" => "S",
        "T+" => "T",
        other => other,
    }
}

/// (square, White's?, admitted kind or none for own captured pieces, openers, limit,
/// portal that must have been used first)
type Portal = (Sq, bool, Option<&'static str>, &'static [&'static str], u8, Option<usize>);

const RETURNABLE: [&str; 15] =
    ["W", "P", "Mk", "Mq", "Md", "Mb", "L", "E", "G", "S", "J", "T", "C", "N", "A"];

impl Pos {
    fn at(&self, s: Sq) -> Option<Pc> {
        self.board[s.0 as usize][s.1 as usize]
    }

    /// Moves of the piece on `from` by its movement alone.
    fn piece_moves(&self, from: Sq, out: &mut Vec<Mv>) {
        let pc = self.at(from).unwrap();
        let fwd = if pc.white { 1 } else { -1 };
        let m = movement(pc.code);
        let mut dests: BTreeSet<(Sq, Option<&'static str>)> = BTreeSet::new();
        for (d, n, mv, cap) in &m.slides {
            let mut s = from;
            for _ in 0..*n {
                s = (s.0 + d.0, s.1 + d.1 * fwd);
                if !on(s) {
                    break;
                }
                match self.at(s) {
                    None => {
                        if *mv {
                            dests.insert((s, None));
                        }
                    }
                    Some(t) => {
                        if *cap && t.white != pc.white {
                            dests.insert((s, Some(t.code)));
                        }
                        break;
                    }
                }
            }
        }
        for (o, mv, cap) in &m.leaps {
            let s = (from.0 + o.0, from.1 + o.1 * fwd);
            if !on(s) {
                continue;
            }
            match self.at(s) {
                None if *mv => {
                    dests.insert((s, None));
                }
                Some(t) if *cap && t.white != pc.white => {
                    dests.insert((s, Some(t.code)));
                }
                _ => {}
            }
        }
        if m.unicorn {
            for d in ORTH {
                let mut s = from;
                let mut over = 0;
                loop {
                    s = (s.0 + d.0, s.1 + d.1);
                    if !on(s) {
                        break;
                    }
                    match self.at(s) {
                        None => {
                            if over == 1 {
                                dests.insert((s, None));
                            }
                        }
                        Some(t) => {
                            over += 1;
                            if over == 2 {
                                if t.white != pc.white {
                                    dests.insert((s, Some(t.code)));
                                }
                                break;
                            }
                        }
                    }
                }
            }
        }
        let far = if pc.white { 11 } else { 0 };
        for (to, capture) in dests {
            let promo = if to.1 == far { promotes_to(pc.code) } else { None };
            out.push(Mv::Go { from, to, code: pc.code, promo, capture });
        }
    }

    fn squares_of(&self, white: bool) -> Vec<Sq> {
        let mut v = vec![];
        for f in 0..12 {
            for r in 0..12 {
                if self.at((f, r)).is_some_and(|p| p.white == white) {
                    v.push((f, r));
                }
            }
        }
        v
    }

    fn find(&self, white: bool, c: &str) -> Vec<Sq> {
        self.squares_of(white).into_iter().filter(|s| self.at(*s).unwrap().code == c).collect()
    }

    fn attacked_by(&self, target: Sq, white: bool) -> bool {
        let mut v = vec![];
        for s in self.squares_of(white) {
            self.piece_moves(s, &mut v);
        }
        v.iter().any(|m| matches!(m, Mv::Go { to, capture: Some(_), .. } if *to == target))
    }

    fn has_successor(&self, white: bool) -> bool {
        ["AE", "N", "Q"].iter().any(|c| !self.find(white, c).is_empty())
    }

    fn portal_moves(&self, out: &mut Vec<Mv>) {
        // (square, white, admits, openers, limit, must-have-been-used)
        let druid: &[&str] = &["K", "D", "AE", "D+"];
        let faerie: &[&str] = &["Q", "B", "RP", "B+"];
        let delve: &[&str] = &["A", "C", "J", "T", "N"];
        let portals: [Portal; 8] = [
            ((4, 0), true, Some("I"), druid, 2, Some(4)),
            ((7, 0), true, Some("U"), faerie, 2, None),
            ((5, 5), true, None, delve, 1, None),
            ((6, 5), true, None, delve, 1, None),
            ((4, 11), false, Some("F"), druid, 2, None),
            ((7, 11), false, Some("Y"), faerie, 2, Some(1)),
            ((5, 6), false, None, delve, 1, None),
            ((6, 6), false, None, delve, 1, None),
        ];
        for (i, (sq, white, admits, openers, limit, after)) in portals.into_iter().enumerate() {
            if white != self.white || self.at(sq).is_some() || self.uses[i] >= limit {
                continue;
            }
            if after.is_some_and(|a| self.uses[a] == 0) {
                continue;
            }
            let mut near = false;
            for df in -1..=1 {
                for dr in -1..=1 {
                    let s = (sq.0 + df, sq.1 + dr);
                    if (df, dr) != (0, 0)
                        && on(s)
                        && self.at(s).is_some_and(|p| p.white == white && openers.contains(&p.code))
                    {
                        near = true;
                    }
                }
            }
            if !near {
                continue;
            }
            match admits {
                Some(c) => {
                    // Reserve: two of each, less what came in already.
                    if self.uses[i] < 2 {
                        out.push(Mv::Drop { code: code(c), to: sq });
                    }
                }
                None => {
                    for c in RETURNABLE {
                        if self.captured[side(white)].get(c).copied().unwrap_or(0) > 0 {
                            out.push(Mv::Drop { code: c, to: sq });
                        }
                    }
                }
            }
        }
    }

    fn legal(&self) -> Vec<Mv> {
        let me = self.white;
        let mut out = vec![];
        if self.hand.iter().any(|h| h.values().any(|n| *n > 0)) {
            let rank = if me { 2 } else { 9 };
            for (c, n) in &self.hand[side(me)] {
                if *n == 0 {
                    continue;
                }
                for f in 0..12 {
                    if self.at((f, rank)).is_none() {
                        out.push(Mv::Drop { code: c, to: (f, rank) });
                    }
                }
            }
            return out;
        }
        if self.find(me, "K").is_empty() {
            for c in ["AE", "N", "Q"] {
                let v = self.find(me, c);
                if !v.is_empty() {
                    return v.into_iter().map(|s| Mv::Replace { code: "K", to: s }).collect();
                }
            }
            return out;
        }
        for s in self.squares_of(me) {
            self.piece_moves(s, &mut out);
        }
        self.portal_moves(&mut out);
        if self.pending {
            for s in self.find(me, "RP") {
                out.push(Mv::Replace { code: "Q", to: s });
            }
        }
        let king_captures: Vec<Mv> =
            out.iter().filter(|m| matches!(m, Mv::Go { capture: Some("K"), .. })).cloned().collect();
        if !king_captures.is_empty() {
            return king_captures;
        }
        out.retain(|m| {
            let after = self.play(m);
            let k = after.find(me, "K");
            k.is_empty() || after.has_successor(me) || !after.attacked_by(k[0], !me)
        });
        out
    }

    fn play(&self, m: &Mv) -> Pos {
        let mut p = self.clone();
        let me = self.white;
        p.pending = false;
        match m {
            Mv::Go { from, to, code, promo, capture } => {
                p.board[from.0 as usize][from.1 as usize] = None;
                p.board[to.0 as usize][to.1 as usize] = Some(Pc { white: me, code: promo.unwrap_or(code) });
                if let Some(c) = capture {
                    if *c == "Q" && !p.find(!me, "RP").is_empty() {
                        p.pending = true;
                    }
                    let base = unpromoted(c);
                    if RETURNABLE.contains(&base) {
                        *p.captured[side(!me)].entry(base).or_default() += 1;
                    }
                }
            }
            Mv::Drop { code, to } => {
                p.board[to.0 as usize][to.1 as usize] = Some(Pc { white: me, code });
                if let Some(n) = p.hand[side(me)].get_mut(code)
                    && *n > 0
                {
                    *n -= 1;
                } else {
                    let i = [(4, 0), (7, 0), (5, 5), (6, 5), (4, 11), (7, 11), (5, 6), (6, 6)]
                        .iter()
                        .position(|s| s == to)
                        .unwrap();
                    p.uses[i] += 1;
                    if ![0, 1, 4, 5].contains(&i) {
                        *p.captured[side(me)].get_mut(code).unwrap() -= 1;
                        p.captured[side(me)].retain(|_, n| *n > 0);
                    }
                }
            }
            Mv::Replace { code, to } => {
                p.board[to.0 as usize][to.1 as usize] = Some(Pc { white: me, code });
            }
        }
        p.white = !me;
        p
    }
}

fn perft(p: &Pos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = p.legal();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves.iter().map(|m| perft(&p.play(m), depth - 1)).sum()
}

// ---- the comparison ----

use std::path::Path;

use common::perft::read_blocks;
use common::rng::Lcg;
use common::rules::variant;
use ravenpost::engine::{Position, Variant};
use ravenpost::notation::moves::long_form;
use ravenpost::notation::position_string::{parse_position, write_position};

fn engine_texts(v: &Variant, p: &Position) -> BTreeSet<String> {
    v.legal_moves(p).iter().map(|m| long_form(v, m)).collect()
}

/// Compares the move lists of the engine and the reference at every node down to
/// `depth` plies (each position also goes through the engine's writer and reader).
fn compare_tree(v: &Variant, e: &Position, r: &Pos, depth: u32, path: &mut Vec<String>) {
    let ours: BTreeSet<String> = r.legal().iter().map(Mv::text).collect();
    let theirs = engine_texts(v, e);
    assert_eq!(
        theirs,
        ours,
        "after {:?} ({}): engine-only {:?}, reference-only {:?}",
        path,
        write_position(v, e),
        theirs.difference(&ours).collect::<Vec<_>>(),
        ours.difference(&theirs).collect::<Vec<_>>()
    );
    let text = write_position(v, e);
    let back = read(&text);
    assert_eq!(back.legal().len(), ours.len(), "reference reads the engine's string {text}");
    if depth == 0 {
        return;
    }
    let moves = v.legal_moves(e);
    for m in &moves {
        let t = long_form(v, m);
        let rm = r.legal().into_iter().find(|x| x.text() == t).unwrap();
        path.push(t);
        compare_tree(v, &v.make(e, m), &r.play(&rm), depth - 1, path);
        path.pop();
    }
}

fn fidchell_with(options: &[(&str, &str)]) -> std::sync::Arc<Variant> {
    variant("fidchell", options)
}

#[test]
fn reference_agrees_move_by_move_from_the_default_arrangement() {
    let v = fidchell_with(&[("introduction", "default")]);
    compare_tree(&v, &v.start_position(), &default_start(), 1, &mut vec![]);
}

#[test]
fn reference_agrees_move_by_move_in_the_introduction() {
    let v = fidchell_with(&[]);
    compare_tree(&v, &v.start_position(), &intro_start(), 1, &mut vec![]);
}

#[test]
fn reference_start_positions_are_the_engines() {
    let v = fidchell_with(&[("introduction", "default")]);
    let from_engine = read(&write_position(&v, &v.start_position()));
    assert_eq!(from_engine.board, default_start().board);
    let v = fidchell_with(&[]);
    let from_engine = read(&write_position(&v, &v.start_position()));
    assert_eq!(from_engine.board, intro_start().board);
    assert_eq!(from_engine.hand, intro_start().hand);
}

/// Every count of `tests/data/fidchell.perft`, recomputed by the reference, and each
/// position's move tree compared with the engine's for two plies.
#[test]
fn reference_agrees_with_every_count_of_the_perft_file() {
    let mut checked = 0;
    for b in read_blocks(Path::new("tests/data/fidchell.perft")) {
        assert_eq!(b.variant, "fidchell", "line {}", b.line);
        let v = b.variant();
        let e = b.position_in(&v);
        let r = if b.position != "start" {
            read(&b.position)
        } else if b.options.iter().any(|(k, x)| k == "introduction" && x == "default") {
            default_start()
        } else {
            intro_start()
        };
        for &(depth, nodes) in &b.expect {
            assert_eq!(perft(&r, depth), nodes, "reference: {} depth {depth}", b.id);
            if depth <= 2 {
                compare_tree(&v, &e, &r, depth.saturating_sub(1), &mut vec![]);
            }
            checked += 1;
        }
    }
    assert!(checked >= 5, "{checked}");
}

/// Pseudo-random games from both starts (captures preferred, so that promotions, portal
/// returns, King captures and successions happen): at every ply the engine's and the
/// reference's move lists must be equal, and the reference must read the engine's
/// position string into the same position.
#[test]
fn reference_agrees_along_pseudo_random_games() {
    let mut rng = Lcg(0x5eed_f1dc);
    let mut next = move |n: usize| rng.below(n);
    let mut events: BTreeMap<&str, usize> = BTreeMap::new();
    // The last four games start from the `queen-return` position of the perft file.
    let queen =
        "n4k6/6q2c2/2(rp)1(s+)7/3(mk)8/11(B+)/12/1B6I3/W6W4/4(D+)5(AE)1/12/12/1K4Q5 w - - 0000/0000 - 0 20";
    for game in 0..16 {
        let default = game % 2 == 0;
        let v = fidchell_with(if default { &[("introduction", "default")] } else { &[] });
        let (mut e, mut r) = if game >= 12 {
            (parse_position(&v, queen).unwrap(), read(queen))
        } else if default {
            (v.start_position(), default_start())
        } else {
            (v.start_position(), intro_start())
        };
        for ply in 0..400 {
            let ours: BTreeSet<String> = r.legal().iter().map(Mv::text).collect();
            let theirs = engine_texts(&v, &e);
            assert_eq!(theirs, ours, "game {game} ply {ply}: {}", write_position(&v, &e));
            let again = read(&write_position(&v, &e));
            assert_eq!(again.board, r.board, "game {game} ply {ply}");
            assert_eq!((again.uses, again.pending, &again.captured), (r.uses, r.pending, &r.captured));
            let moves = v.legal_moves(&e);
            if moves.is_empty() {
                *events.entry("game over").or_default() += 1;
                break;
            }
            let captures: Vec<_> = moves.iter().filter(|m| m.capture().is_some()).collect();
            let queen_return = moves.iter().find(|m| long_form(&v, m).starts_with("Q_"));
            let m = if let Some(q) = queen_return.filter(|_| next(2) == 0) {
                *q
            } else if !captures.is_empty() && next(3) > 0 {
                *captures[next(captures.len())]
            } else {
                moves[next(moves.len())]
            };
            let t = long_form(&v, &m);
            if t.starts_with("K_") {
                *events.entry("re-introduction").or_default() += 1;
            } else if t.starts_with("Q_") {
                *events.entry("queen return").or_default() += 1;
            } else if t.contains('_') && (ply >= 24 || game >= 12) {
                *events.entry("portal entry").or_default() += 1;
            } else if t.contains('=') {
                *events.entry("promotion").or_default() += 1;
            }
            let rm = r.legal().into_iter().find(|x| x.text() == t).unwrap();
            e = v.make(&e, &m);
            r = r.play(&rm);
        }
    }
    eprintln!("events: {events:?}");
    for kind in ["re-introduction", "portal entry", "promotion", "queen return"] {
        assert!(events.get(kind).copied().unwrap_or(0) > 0, "no {kind} happened: {events:?}");
    }
}
