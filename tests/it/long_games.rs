//! Long games and replaying a game from its previous version (correctness only; the
//! timings are in `benches/long_games.rs`).
//!
//! The games are random legal games from a fixed seed (`tests/support/long_game.rs`);
//! what a replay gives is checked against the moves and positions the engine made while
//! generating them, and a replay continuing the previous version ([`Loader::after`]) against a full [`replay`] of the same text.

use proptest::prelude::*;
use ravenpost::engine::Position;
use ravenpost::notation::pgn::{GameText, MoveNode, read_games};
use ravenpost::record::Loader;
use ravenpost::record::game::{CHECKPOINT_PLIES, Game, Problem, replay};

use crate::common::long_game;

use crate::common;

fn text_of(file: &str) -> GameText {
    read_games(file).remove(0).expect("readable")
}

/// Every position of the generated game, start first, made move by move.
fn positions(game: &long_game::LongGame) -> Vec<Position> {
    let mut p = game.variant.start_position();
    let mut out = vec![p.clone()];
    for m in &game.moves {
        p = game.variant.make(&p, m);
        out.push(p.clone());
    }
    out
}

#[test]
fn a_long_game_replays_to_the_moves_and_positions_it_was_made_of() {
    for (variant, plies) in [("grand", 3_000), ("gygax", 1_500)] {
        let game = long_game::random_game(variant, plies, 7);
        let g = replay(text_of(&long_game::game_file(&game.tokens, variant, ""))).expect("legal");
        assert_eq!(g.moves, game.moves, "{variant}");
        assert_eq!(g.outcome, None);
        assert_eq!(g.position(), game.end);
        let all = positions(&game);
        assert_eq!(all.len(), plies + 1);
        for (ply, p) in all.iter().enumerate() {
            assert_eq!(&g.position_at(ply), p, "{variant}, ply {ply}");
        }
        assert_eq!(g.position_at(plies + 10), game.end, "clamped to the game's length");
    }
}

#[test]
fn a_long_game_with_a_comment_on_every_ply_replays_and_writes_back() {
    let game = long_game::random_game("grand", 800, 11);
    let file = long_game::game_file(&game.tokens, "grand", "{a note}");
    let g = replay(text_of(&file)).expect("legal");
    assert_eq!(g.moves, game.moves);
    assert!(g.text.moves.iter().all(|m| m.comments == ["a note"]));
    let canonical = g.canonical_text();
    let again = replay(text_of(&canonical)).expect("canonical text replays");
    assert_eq!(again.moves, game.moves);
    assert_eq!(again.canonical_text(), canonical);
}

/// `cycles` times: both sides move a piece out and back, so the start position returns.
/// The tokens, and White's first move.
fn shuffle_game(cycles: usize) -> (Vec<String>, ravenpost::engine::Move) {
    use ravenpost::engine::Move;
    let v = ravenpost::variants::by_name("grand", &[]).unwrap();
    let start = v.start_position();
    let piece_move = |p: &Position| -> Move {
        v.legal_moves(p)
            .into_iter()
            .find(|m| m.capture().is_none() && !v.def().kind(m.piece()).pawn)
            .expect("a piece move")
    };
    let reverse = |p: &Position, m: &Move| -> Move {
        v.legal_moves(p)
            .into_iter()
            .find(|r| r.from() == Some(m.to()) && Some(r.to()) == m.from())
            .expect("the piece goes back")
    };
    let white = piece_move(&start);
    let p1 = v.make(&start, &white);
    let black = piece_move(&p1);
    let p2 = v.make(&p1, &black);
    let white_back = reverse(&p2, &white);
    let p3 = v.make(&p2, &white_back);
    let black_back = reverse(&p3, &black);
    // The same position again (only the clocks differ).
    assert_eq!(v.make(&p3, &black_back).hash(), start.hash(), "the cycle comes back to the start");
    let tokens: Vec<String> = [(&start, white), (&p1, black), (&p2, white_back), (&p3, black_back)]
        .iter()
        .map(|(p, m)| ravenpost::notation::san::write_move(&v, p, m))
        .collect();
    (tokens.iter().cycle().take(4 * cycles).cloned().collect(), white)
}

#[test]
fn repetitions_counts_the_returns_of_the_final_position() {
    for cycles in [1, 2, 5, 40] {
        let (tokens, white) = shuffle_game(cycles);
        let g = replay(text_of(&long_game::game_file(&tokens, "grand", ""))).unwrap();
        // The start position, then once after each cycle.
        assert_eq!(g.repetitions(), cycles + 1, "{cycles} cycles");
        // One ply more: the position after White's first move, reached once per cycle.
        let mut more = tokens.clone();
        more.push(tokens[0].clone());
        let g = replay(text_of(&long_game::game_file(&more, "grand", ""))).unwrap();
        assert_eq!(g.repetitions(), cycles + 1);
        assert_eq!(g.moves.last(), Some(&white));
    }
}

#[test]
fn positions_and_repetitions_stay_right_when_moves_are_pushed_or_truncated() {
    let (tokens, white) = shuffle_game(3);
    let mut g = replay(text_of(&long_game::game_file(&tokens, "grand", ""))).unwrap();
    let start = g.start.clone();
    assert_eq!(g.repetitions(), 4);
    let end = g.position();
    assert_eq!(end.hash(), start.hash());
    // As `record::play` does: the move is pushed on the replayed game.
    g.moves.push(white);
    assert_eq!(g.position(), g.variant.make(&end, &white));
    assert_eq!(g.repetitions(), 4, "after White's first move: once per cycle, and now");
    g.moves.truncate(4);
    assert_eq!(g.position().hash(), start.hash());
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.position_at(1), g.variant.make(&start, &white));
}

#[test]
fn position_at_is_right_on_both_sides_of_every_checkpoint() {
    let game = long_game::random_game("gygax", 3 * CHECKPOINT_PLIES + 5, 3);
    let g = replay(text_of(&long_game::game_file(&game.tokens, "gygax", ""))).unwrap();
    let all = positions(&game);
    for k in 1..=3 {
        for ply in [k * CHECKPOINT_PLIES - 1, k * CHECKPOINT_PLIES, k * CHECKPOINT_PLIES + 1] {
            assert_eq!(g.position_at(ply), all[ply], "ply {ply}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// replay_continuing: the same answer as replay, for every kind of next version.

/// A next version of a game text, as someone might commit it.
#[derive(Clone, Debug)]
enum Edit {
    /// The next `n` plies of the generated game appended.
    Append(usize),
    /// The token of ply `i` replaced by the token of another ply (mostly illegal).
    ChangeEarlier(usize, usize),
    /// A tag changed: `Event` (harmless) or `Variant` (another game).
    ChangeTag(bool),
    /// A comment added to ply `i` (or before the moves).
    AddComment(usize),
    /// A variation added after ply `i`: the generated moves from there (legal) or
    /// shifted by one (mostly illegal).
    AddVariation(usize, bool),
    /// An appended token that is not a legal move there: the token of ply `i`, or junk.
    AppendIllegal(usize, bool),
    /// The last `n` plies removed.
    Truncate(usize),
    /// The result token (and tag) set to `1-0`.
    Result,
}

fn node(token: &str) -> MoveNode {
    MoveNode { token: token.to_string(), ..MoveNode::default() }
}

/// `base` (the text of the first `j` plies of `game`) edited by `edit`.
fn edited(base: &GameText, game: &long_game::LongGame, j: usize, edit: &Edit) -> GameText {
    let mut t = base.clone();
    let n = game.tokens.len();
    match *edit {
        Edit::Append(k) => t.moves.extend(game.tokens[j..(j + k).min(n)].iter().map(|s| node(s))),
        Edit::ChangeEarlier(i, other) => {
            if !t.moves.is_empty() {
                let i = i % t.moves.len();
                t.moves[i].token = game.tokens[other % n].clone();
            }
        }
        Edit::ChangeTag(variant) => {
            if variant {
                let other = if t.tag("Variant") == Some("grand") { "gygax" } else { "grand" };
                t.set_tag("Variant", other);
            } else {
                t.set_tag("Event", "another event");
            }
        }
        Edit::AddComment(i) => match t.moves.len() {
            0 => t.leading_comments.push("a comment".into()),
            len => t.moves[i % len].comments.push("a comment".into()),
        },
        Edit::AddVariation(i, legal) => {
            if !t.moves.is_empty() {
                let i = i % t.moves.len();
                let from = if legal { i } else { i + 1 };
                let line = game.tokens[from.min(n)..(from + 4).min(n)].iter().map(|s| node(s)).collect();
                t.moves[i].variations.push(line);
            }
        }
        Edit::AppendIllegal(i, junk) => {
            t.moves.push(node(if junk { "Zz99" } else { &game.tokens[i % n] }));
        }
        Edit::Truncate(k) => {
            let keep = t.moves.len().saturating_sub(k);
            t.moves.truncate(keep);
        }
        Edit::Result => {
            t.result = Some(("1-0".into(), Default::default()));
            t.set_tag("Result", "1-0");
        }
    }
    t
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (1usize..4).prop_map(Edit::Append),
        (0usize..1000, 0usize..1000).prop_map(|(i, o)| Edit::ChangeEarlier(i, o)),
        any::<bool>().prop_map(Edit::ChangeTag),
        (0usize..1000).prop_map(Edit::AddComment),
        (0usize..1000, any::<bool>()).prop_map(|(i, l)| Edit::AddVariation(i, l)),
        (0usize..1000, any::<bool>()).prop_map(|(i, j)| Edit::AppendIllegal(i, j)),
        (1usize..3).prop_map(Edit::Truncate),
        Just(Edit::Result),
    ]
}

const VARIANTS: [&str; 4] = ["grand", "gygax", "fantasy-grand", "fidchell"];

fn base_games() -> &'static Vec<long_game::LongGame> {
    static GAMES: std::sync::OnceLock<Vec<long_game::LongGame>> = std::sync::OnceLock::new();
    GAMES.get_or_init(|| VARIANTS.iter().map(|v| long_game::random_game(v, 150, 0x1234)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// The previous version is any prefix of a generated game; the next one is that text
    /// edited once or twice (each version judged from the one before).
    #[test]
    fn replay_continuing_gives_what_replay_gives(
        which in 0usize..VARIANTS.len(),
        j in 0usize..140,
        edits in proptest::collection::vec(edit_strategy(), 1..3),
    ) {
        let game = &base_games()[which];
        let slug = VARIANTS[which];
        let mut prev: Game = replay(text_of(&long_game::game_file(&game.tokens[..j], slug, "")))
            .expect("a prefix of a legal game is legal");
        let mut base = prev.text.clone();
        for edit in &edits {
            let next = edited(&base, game, prev.moves.len().min(game.tokens.len()), edit);
            let full = replay(next.clone());
            let continued = replay_continuing(&prev, next.clone());
            prop_assert_eq!(&continued, &full, "{:?}", edit);
            match full {
                Ok(g) => {
                    base = g.text.clone();
                    prev = g;
                }
                Err(_) => break,
            }
        }
    }
}

#[test]
fn a_long_game_is_judged_one_ply_at_a_time_from_its_previous_version() {
    let game = long_game::random_game("grand", 400, 5);
    let mut prev = replay(text_of(&long_game::game_file(&[], "grand", ""))).unwrap();
    for ply in 1..=game.tokens.len() {
        let text = text_of(&long_game::game_file(&game.tokens[..ply], "grand", ""));
        let next = replay_continuing(&prev, text).expect("one legal ply more");
        assert_eq!(next.moves[..], game.moves[..ply]);
        prev = next;
    }
    assert_eq!(prev.position(), game.end);
    let full = replay(text_of(&long_game::game_file(&game.tokens, "grand", ""))).unwrap();
    assert_eq!(prev, full);
}

/// Issue 12: on a movetext of one long line every token's column was counted from the
/// start of the line (quadratic in the line's length). The columns must stay right,
/// also after characters of more than one byte.
#[test]
fn issue_12_columns_on_a_long_one_line_movetext() {
    let game = long_game::random_game("grand", 2_000, 9);
    let mut line = String::from("{Ærø – ünïcode} ");
    let mut columns = Vec::new();
    for (i, t) in game.tokens.iter().enumerate() {
        if i % 2 == 0 {
            line.push_str(&format!("{}. ", i / 2 + 1));
        }
        columns.push(line.chars().count() + 1);
        line.push_str(t);
        line.push_str(if i % 3 == 0 { " {é} " } else { " " });
    }
    line.push('*');
    let file = format!("[Variant \"grand\"]\n\n{line}\n");
    let g = replay(text_of(&file)).expect("legal");
    assert_eq!(g.moves, game.moves);
    for (node, column) in g.text.moves.iter().zip(&columns) {
        assert_eq!(node.span.line, 3, "{}", node.token);
        assert_eq!(node.span.column, *column, "{}", node.token);
    }
    assert_eq!(g.text.result.as_ref().map(|r| r.1.column), Some(line.chars().count()));
}

/// Regression (issue 29): `validate` of one 100 MB game (26M plies) took 5.8 GB, about 60
/// bytes per byte of the file: it held every parsed move and replayed position. Now each
/// move is judged as it is read, and the peak does not grow with the game. Measured here
/// (memory, not time) on a 4 MB game of a million plies, which took some 230 MB before;
/// `cargo bench --bench validate_memory` measures the 100 MB game.
#[test]
fn validate_of_a_100_mb_game_took_5_8_gb() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.pgn");
    let plies = long_game::write_dense_game(&file, 4_000_000);
    assert!(plies > 900_000, "{plies} plies");
    let mut cmd = std::process::Command::new("/usr/bin/time");
    cmd.arg("-v").arg(env!("CARGO_BIN_EXE_ravenpost")).arg("validate").arg(&file);
    common::isolate(&mut cmd, dir.path());
    let out = cmd.output().expect("GNU time (/usr/bin/time) runs: install it (Debian: apt install time)");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}{stderr}");
    assert_eq!(stdout.trim(), "1 file, 1 game: 1 valid, 0 problems");
    let peak_kb: u64 = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("GNU time's maximum resident set size in: {stderr}"));
    // The file's size would be 4 MB: the peak stays well below it plus the program.
    assert!(peak_kb < 40 * 1024, "validate of a 4 MB game peaked at {peak_kb} kB");
}

/// The replay of `text` continuing the game `prev` ([`Loader::after`]).
fn replay_continuing(prev: &Game, text: GameText) -> Result<Game, Vec<Problem>> {
    Loader::new().after(prev, None).replay(text).map(|l| l.game)
}
