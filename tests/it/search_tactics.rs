//! The search's tactics suite: positions of each game family (Gygax Chess, Fidchell,
//! Grand and Fantasy Grand Chess) with a forced win, in `tests/data/tactics/*.txt`. The
//! search must find a winning first move within a fixed node budget, and that move is
//! checked with the engine's own legal-move generator, independently of the search: a
//! mate in 1 leaves the opponent no legal move and the game won by the mover (in check,
//! when the engine says checkmate); a mate in 2 leaves the opponent legal replies, each
//! of which allows such a mate.
//!
//! The positions were found the same independent way: seeded games in which each side
//! prefers captures, every position of them tested for a mating move (each legal move
//! made and the opponent's legal moves counted), and the position two plies before a
//! mate in 1 tested for a mate in 2 by trying every reply (positions where a draw by
//! 100 plies is near left out). `RAVENPOST_BLESS=1 cargo test
//! --test it search_tactics::` writes the files again from the same seeds.

use std::path::{Path, PathBuf};

use ravenpost::engine::{EndReason, Move, Outcome, Position, Variant};
use ravenpost::notation::position_string::{parse_position, write_position};
use ravenpost::notation::san::write_move;
use ravenpost::search::{Limits, Score, search};

use crate::common::rng::Lcg;

/// The node budget for a mate in 1 and for a mate in 2.
const BUDGET_MATE_1: u64 = 20_000;
const BUDGET_MATE_2: u64 = 400_000;
/// How many positions each family's file holds at least.
const AT_LEAST: usize = 30;

/// A family's file and the variants (with options) its positions are of.
struct Family {
    file: &'static str,
    variants: &'static [(&'static str, &'static [(&'static str, &'static str)])],
    seed: u64,
}

const FAMILIES: &[Family] = &[
    Family { file: "gygax", variants: &[("gygax", &[])], seed: 1 },
    Family {
        file: "fidchell",
        variants: &[("fidchell", &[]), ("fidchell", &[("introduction", "default")])],
        seed: 2,
    },
    Family {
        file: "grand",
        variants: &[
            ("grand", &[]),
            ("fantasy-grand", &[]),
            ("fantasy-grand", &[("army-white", "elves"), ("army-black", "evil-horde")]),
            ("fantasy-grand", &[("army-white", "dwarves"), ("army-black", "giants")]),
        ],
        seed: 3,
    },
];

fn data(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/tactics/{file}.txt"))
}

fn options(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// The variant and position of a line's `variant` and position string.
pub(crate) fn load(
    variant: &str,
    options: &[(String, String)],
    text: &str,
) -> (std::sync::Arc<Variant>, Position) {
    let options = ravenpost::variants::options_for_position(variant, options, text);
    let v = ravenpost::variants::by_name(variant, &options).unwrap();
    let p = parse_position(&v, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    (v, p)
}

/// Whether `mv` wins at once: the opponent has no legal move, the engine's outcome is a
/// win for the mover, and a checkmate is a check.
pub(crate) fn wins_at_once(v: &Variant, pos: &Position, mv: &Move) -> bool {
    let next = v.make(pos, mv);
    if v.has_legal_move(&next) || !v.legal_moves(&next).is_empty() {
        return false;
    }
    match v.outcome(&next) {
        Some(Outcome::Win { winner, reason }) if winner == pos.side_to_move() => {
            reason != EndReason::Checkmate || v.in_check(&next)
        }
        _ => false,
    }
}

pub(crate) fn mate_in_one(v: &Variant, pos: &Position) -> Option<Move> {
    v.legal_moves(pos).into_iter().find(|m| wins_at_once(v, pos, m))
}

/// Whether `mv` mates in 2: the opponent has legal replies, and after each a move wins
/// at once.
fn mates_in_two(v: &Variant, pos: &Position, mv: &Move) -> bool {
    let next = v.make(pos, mv);
    let replies = v.legal_moves(&next);
    !replies.is_empty() && replies.iter().all(|r| mate_in_one(v, &v.make(&next, r)).is_some())
}

/// One position of the suite.
struct Tactic {
    variant: String,
    kind: String,
    position: String,
    answer: String,
}

fn read(file: &str) -> Vec<Tactic> {
    let text = std::fs::read_to_string(data(file)).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "{file}: {l}");
            Tactic { variant: f[0].into(), kind: f[1].into(), position: f[2].into(), answer: f[3].into() }
        })
        .collect()
}

/// Checks every position of `file`: the stored answer is a forced win (the legal-move
/// generator's check), and the search finds a winning first move within the budget.
fn suite(file: &str) {
    let tactics = read(file);
    assert!(tactics.len() >= AT_LEAST, "{file}: {} positions", tactics.len());
    let mut failures = Vec::new();
    for t in &tactics {
        let (v, p) = load(&t.variant, &[], &t.position);
        let answer = ravenpost::notation::san::read_move(&v, &p, &t.answer).unwrap();
        let (budget, wins): (u64, &dyn Fn(&Move) -> bool) = match t.kind.as_str() {
            "mate1" => (BUDGET_MATE_1, &|m| wins_at_once(&v, &p, m)),
            "mate2" => (BUDGET_MATE_2, &|m| wins_at_once(&v, &p, m) || mates_in_two(&v, &p, m)),
            other => panic!("{file}: unknown kind {other}"),
        };
        assert!(wins(&answer), "{file}: the stored answer {} does not win in {}", t.answer, t.position);
        let r = search(&v, &p, &[], &Limits { nodes: Some(budget), ..Limits::default() });
        let best = r.lines[0].moves[0];
        let mate = match t.kind.as_str() {
            "mate1" => Score::Mate(1),
            _ => Score::Mate(2),
        };
        let found = wins(&best) && (r.lines[0].score == mate || r.lines[0].score == Score::Mate(1));
        if !found {
            failures.push(format!(
                "{} {} ({}): found {} ({:?}, depth {}, {} nodes), expected {}",
                t.variant,
                t.kind,
                t.position,
                write_move(&v, &p, &best),
                r.lines[0].score,
                r.depth,
                r.nodes,
                t.answer
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{file}: {} of {} missed:\n{}",
        failures.len(),
        tactics.len(),
        failures.join("\n")
    );
}

#[test]
fn gygax_mates_are_found_within_the_node_budget() {
    bless_if_asked();
    suite("gygax");
}

#[test]
fn fidchell_mates_are_found_within_the_node_budget() {
    bless_if_asked();
    suite("fidchell");
}

#[test]
fn grand_and_fantasy_grand_mates_are_found_within_the_node_budget() {
    bless_if_asked();
    suite("grand");
}

/// The search reports a mate found at depth 1 as mate in 1, from the side to move's view.
#[test]
fn a_mate_in_one_scores_mate_in_one_for_the_side_to_move() {
    let t = read("grand").into_iter().find(|t| t.kind == "mate1").unwrap();
    let (v, p) = load(&t.variant, &[], &t.position);
    let r = search(&v, &p, &[], &Limits { depth: Some(1), ..Limits::default() });
    assert_eq!(r.depth, 1);
    assert_eq!(r.lines[0].score, Score::Mate(1));
    assert!(wins_at_once(&v, &p, &r.lines[0].moves[0]));
    assert_eq!(r.lines[0].moves.len(), 1);
}

/// With `RAVENPOST_BLESS=1`, the files are written again from the seeds (once per run).
fn bless_if_asked() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if std::env::var_os("RAVENPOST_BLESS").is_none() {
        return;
    }
    ONCE.call_once(|| {
        for f in FAMILIES {
            mine(f);
        }
    });
}

/// Plays seeded games of each of the family's variants, collecting mates in 1 and 2.
fn mine(f: &Family) {
    let mut rng = Lcg(f.seed);
    let mut lines = Vec::new();
    let (mut ones, mut twos) = (0, 0);
    let mut game = 0;
    while (ones < AT_LEAST - 6 || twos < 6) && game < 400 {
        let (name, opts) = f.variants[game % f.variants.len()];
        game += 1;
        let v = ravenpost::variants::by_name(name, &options(opts)).unwrap();
        let mut history: Vec<(Position, Move)> = Vec::new();
        let mut p = v.start_position();
        for _ply in 0..400 {
            let moves = v.legal_moves(&p);
            if moves.is_empty() {
                break;
            }
            // Past 90 plies without progress a draw may soon be claimed: a mate in 2
            // there is no forced win.
            if p.halfmove_clock() < 90
                && let Some(m) = mate_in_one(&v, &p)
            {
                if ones < AT_LEAST {
                    lines.push(format!(
                        "{name}\tmate1\t{}\t{}",
                        write_position(&v, &p),
                        write_move(&v, &p, &m)
                    ));
                    ones += 1;
                }
                if let [.., (q, first), _] = &history[..]
                    && mate_in_one(&v, q).is_none()
                    && mates_in_two(&v, q, first)
                {
                    lines.push(format!(
                        "{name}\tmate2\t{}\t{}",
                        write_position(&v, q),
                        write_move(&v, q, first)
                    ));
                    twos += 1;
                }
                break;
            }
            let captures: Vec<&Move> = moves.iter().filter(|m| m.capture().is_some()).collect();
            let m = if !captures.is_empty() && rng.below(10) < 8 {
                *captures[rng.below(captures.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            history.push((p.clone(), m));
            p = v.make(&p, &m);
        }
    }
    let head = format!(
        "# Forced wins of the {} family, found by tests/it/search_tactics.rs from seed {} \
         (RAVENPOST_BLESS=1 writes this file again).\n# variant<TAB>mate1|mate2<TAB>position<TAB>a winning first move\n",
        f.file, f.seed
    );
    std::fs::create_dir_all(data(f.file).parent().unwrap()).unwrap();
    std::fs::write(data(f.file), head + &lines.join("\n") + "\n").unwrap();
}

/// `analyse --json` on a mate in 1: the score is mate in 1 for the side to move, the
/// line its one move written in SAN with `#`, and the search stops at depth 1.
#[test]
fn analyse_json_gives_the_mate_and_its_line() {
    let t = read("grand").into_iter().find(|t| t.kind == "mate1" && t.variant == "grand").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let args = ["analyse", t.variant.as_str(), "--position", t.position.as_str(), "--depth", "3", "--json"];
    let out = crate::common::ok(dir.path(), dir.path(), &args);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["lines"][0]["score"]["mate"], 1, "{out}");
    assert_eq!(j["depth"], 1, "{out}");
    let moves = j["lines"][0]["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 1, "{out}");
    assert!(moves[0].as_str().unwrap().ends_with('#'), "{out}");
    assert_eq!(j["position"], t.position.as_str());
}

/// `analyse` of a finished game says how it ended rather than searching.
#[test]
fn analyse_of_a_finished_game_says_how_it_ended() {
    let dir = tempfile::tempdir().unwrap();
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("games/gygax/gygax-sample-1.pgn");
    let out = crate::common::ok(dir.path(), dir.path(), &["analyse", game.to_str().unwrap()]);
    assert_eq!(out, "Scarlet to move: the game is over (Gold wins by checkmate)\n");
}
