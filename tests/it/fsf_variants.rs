//! Fairy-Stockfish's rules in definition files (issue 37): castling (`engine.castling`),
//! the bare king and extinction (`engine.bare-king`, `engine.extinction`).
//!
//! The perft counts of castling positions, from Fairy-Stockfish itself, are
//! `tests/data/fsf-castling.perft` (run with every `.perft` file by `perft::perft_files`);
//! the tests here check what perft cannot: the moves' tokens, the position strings'
//! castling field, and the game's end.

use crate::common;

use std::path::Path;

use common::perft::read_blocks;
use ravenpost::engine::{EndReason, Move, Outcome, Side, Variant};
use ravenpost::notation::position_string::{parse_position, write_position};
use ravenpost::notation::san::{read_move, write_move};
use ravenpost::variants::load_definition;

fn user(file: &str) -> std::sync::Arc<Variant> {
    let text = std::fs::read_to_string(Path::new("tests/data/variants").join(file)).unwrap();
    load_definition(&text).unwrap().variant(&[]).unwrap()
}

fn play(v: &Variant, fen: &str, tokens: &[&str]) -> ravenpost::engine::Position {
    let mut pos = parse_position(v, fen).unwrap();
    for t in tokens {
        let m = read_move(v, &pos, t).unwrap_or_else(|e| panic!("{t}: {e}"));
        pos = v.make(&pos, &m);
    }
    pos
}

#[test]
fn the_castling_perft_file_has_castling_rights_in_every_block() {
    let blocks = read_blocks(Path::new("tests/data/fsf-castling.perft"));
    assert!(blocks.len() >= 7);
    let mut castled = 0;
    for b in &blocks {
        let v = b.variant();
        let pos = b.position_in(&v);
        let rights =
            Side::ALL.iter().flat_map(|&s| [pos.castling_rook(s, true), pos.castling_rook(s, false)]);
        assert!(rights.flatten().count() >= 2, "{}: no castling rights", b.id);
        // Within two plies somebody castles: the counts include castling moves.
        let first = v.legal_moves(&pos);
        let second = first.iter().flat_map(|m| v.legal_moves(&v.make(&pos, m)));
        castled += usize::from(first.iter().copied().chain(second).any(|m| matches!(m, Move::Castle { .. })));
    }
    assert!(castled >= 6, "{castled} blocks with castling within two plies");
}

#[test]
fn castling_is_read_and_written_as_o_o_and_o_o_o() {
    let v = user("chess.md");
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let pos = parse_position(&v, fen).unwrap();
    let short = read_move(&v, &pos, "O-O").unwrap();
    let long = read_move(&v, &pos, "0-0-0").unwrap();
    assert_eq!(write_move(&v, &pos, &short), "O-O");
    assert_eq!(write_move(&v, &pos, &long), "O-O-O");
    let after = v.make(&pos, &short);
    assert_eq!(
        write_position(&v, &after),
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R4RK1 b kq - 1 1"
    );
    let after = v.make(&pos, &long);
    assert_eq!(
        write_position(&v, &after),
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/2KR3R b kq - 1 1"
    );
    // The king's two-square step is not castling.
    assert!(read_move(&v, &pos, "Kg1").is_err());
    // A check mark earned by castling: the rook gives check on f8's file.
    let v = user("chess.md");
    let pos = parse_position(&v, "5k2/8/8/8/8/8/8/4K2R w K - 0 1").unwrap();
    let m = read_move(&v, &pos, "O-O").unwrap();
    assert_eq!(write_move(&v, &pos, &m), "O-O+");
}

#[test]
fn castling_out_of_through_or_into_check_is_refused_saying_why() {
    let v = user("chess.md");
    // Black's rook on f8 attacks f1: White may not castle short through it.
    let pos = parse_position(&v, "4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1").unwrap();
    let err = read_move(&v, &pos, "O-O").unwrap_err().to_string();
    assert!(err.contains("out of, through or into check"), "{err}");
    assert!(err.contains("legal: O-O-O"), "{err}");
    // In check: no castling at all.
    let pos = parse_position(&v, "4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1").unwrap();
    assert!(!v.legal_moves(&pos).iter().any(|m| matches!(m, Move::Castle { .. })));
    // Into check: g1 attacked by the rook on g8.
    let pos = parse_position(&v, "4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1").unwrap();
    assert!(read_move(&v, &pos, "O-O").is_err());
    assert!(read_move(&v, &pos, "O-O-O").is_ok());
    // No right after the king has moved and come back.
    let pos = play(&v, "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", &["Kf1", "Kd8", "Ke1", "Ke8"]);
    let err = read_move(&v, &pos, "O-O").unwrap_err().to_string();
    assert!(err.contains("no castling right"), "{err}");
    assert!(write_position(&v, &pos).contains(" w - - "), "{}", write_position(&v, &pos));
}

#[test]
fn castling_rights_follow_rook_moves_and_captures() {
    let v = user("chess.md");
    let pos = play(&v, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", &["Rxa8+"]);
    // The white rook left a1 and took the rook on a8: White keeps K, Black keeps k.
    assert_eq!(write_position(&v, &pos), "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1");
    // Shredder-FEN letters are read; outermost rooks are written as K/Q (X-FEN).
    let pos = parse_position(&v, "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1").unwrap();
    assert_eq!(write_position(&v, &pos), "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    // An inner rook's right is written by its file.
    let pos = parse_position(&v, "2r1kr2/8/8/8/8/8/8/1R2K1R1 w GBfc - 0 1").unwrap();
    assert_eq!(write_position(&v, &pos), "2r1kr2/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1");
    let pos = parse_position(&v, "r1r1k3/8/8/8/8/8/8/4K3 b c - 0 1").unwrap();
    assert_eq!(write_position(&v, &pos), "r1r1k3/8/8/8/8/8/8/4K3 b c - 0 1");
}

#[test]
fn a_castling_right_without_its_rook_is_refused_where_it_is_written() {
    let v = user("chess.md");
    let err = parse_position(&v, "4k3/8/8/8/8/8/8/4K2R w KQ - 0 1").unwrap_err().to_string();
    assert!(err.contains("castling right `Q`"), "{err}");
    let err = parse_position(&v, "4k3/8/8/8/8/8/8/4K2R w KX - 0 1").unwrap_err().to_string();
    assert!(err.contains("not a right"), "{err}");
    // A game without castling refuses any right.
    let shatranj = user("shatranj.md");
    let err = parse_position(&shatranj, "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1").unwrap_err().to_string();
    assert!(err.contains("no castling in this game"), "{err}");
}

#[test]
fn bare_king_in_shatranj_ended_the_game_with_seven_moves_left() {
    // Issue 37: Fairy-Stockfish has 0 legal moves here (Black's Shah is bare, White to
    // move); ravenpost had 7.
    let v = user("shatranj.md");
    let pos = parse_position(&v, "4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1").unwrap();
    assert!(v.legal_moves(&pos).is_empty());
    assert_eq!(v.outcome(&pos), Some(Outcome::Win { winner: Side::White, reason: EndReason::BareKing }));
    // Bared but to move, Black may answer; it cannot take the Ferz, so it loses next.
    let pos = parse_position(&v, "4k3/8/8/8/8/8/3Q4/4K3 b - - 0 1").unwrap();
    assert_eq!(v.outcome(&pos), None);
    assert_eq!(v.legal_moves(&pos).len(), 5);
    // Baring the other Shah at once: both bare, the game goes on.
    let pos = play(&v, "8/8/8/8/8/8/3q4/4K2k w - - 0 1", &["Kxd2"]);
    assert_eq!(v.outcome(&pos), None);
    assert!(!v.legal_moves(&pos).is_empty());
}

#[test]
fn extinction_of_a_kind_is_a_typed_verdict() {
    let text = std::fs::read_to_string("tests/data/variants/chess.md").unwrap();
    let text =
        text.replace("  castling: {", "  extinction: { kinds: [N], count: 0, result: loss }\n  castling: {");
    let v = load_definition(&text).unwrap().variant(&[]).unwrap();
    let pos = parse_position(&v, "4k3/8/8/8/8/8/8/N3K3 b - - 0 1").unwrap();
    assert!(v.legal_moves(&pos).is_empty());
    assert_eq!(v.outcome(&pos), Some(Outcome::Win { winner: Side::White, reason: EndReason::Extinction }));
}

fn ravenpost(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ravenpost")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn import_fsf_writes_a_definition_that_plays_and_refuses_by_key_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let ini = dir.path().join("variants.ini");
    std::fs::write(
        &ini,
        "# two sections\n[capablanca-like:chess]\nmaxFile = 10\narchbishop = a\nchancellor = c\n\
         startFen = rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1\n\
         promotionPieceTypes = qcarbn\ncastlingKingsideFile = i\ncastlingQueensideFile = c\n\n\
         [drops:chess]\npieceDrops = true\n",
    )
    .unwrap();
    let ini = ini.to_str().unwrap();
    let (code, text, err) = ravenpost(&["variant", "import-fsf", ini, "capablanca-like"]);
    assert_eq!(code, 0, "{err}");
    let file = dir.path().join("capablanca-like.md");
    std::fs::write(&file, &text).unwrap();
    // Fairy-Stockfish's capablanca perft from the start (tests/data/variants/capablanca.md).
    let (code, out, err) = ravenpost(&["perft", "--variant-file", file.to_str().unwrap(), "3"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().last(), Some("25228"));
    // Castling came through: O-O from a position where it is legal.
    let v = load_definition(&text).unwrap().variant(&[]).unwrap();
    let pos = parse_position(&v, "r4k3r/10/10/10/10/10/10/R4K3R w KQkq - 0 1").unwrap();
    assert_eq!(write_move(&v, &pos, &read_move(&v, &pos, "O-O").unwrap()), "O-O");
    // What it cannot say is refused with its line and key, and nothing is printed.
    let (code, out, err) = ravenpost(&["variant", "import-fsf", ini, "drops"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("line 12: `pieceDrops`"), "{err}");
    // Several sections and no name: the names are listed.
    let (code, _, err) = ravenpost(&["variant", "import-fsf", ini]);
    assert_ne!(code, 0);
    assert!(err.contains("capablanca-like drops"), "{err}");
}

/// `tests/data/fsf/perft.txt`: (name, depth, nodes).
fn fsf_perft() -> Vec<(String, u32, u64)> {
    std::fs::read_to_string("tests/data/fsf/perft.txt")
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_string(), f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect()
}

#[test]
fn imported_fairy_stockfish_variants_match_its_perft_at_depths_1_to_4() {
    let ini = std::fs::read_to_string("tests/data/fsf/variants.ini").unwrap();
    let expect = fsf_perft();
    let mut names: Vec<&str> = expect.iter().map(|e| e.0.as_str()).collect();
    names.dedup();
    assert!(names.len() >= 40, "{} variants", names.len());
    for name in names {
        let (_, text) =
            ravenpost::variants::fsf::import(&ini, Some(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let v =
            load_definition(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}")).variant(&[]).unwrap();
        let start = v.start_position();
        let depths: Vec<u32> = expect.iter().filter(|e| e.0 == name).map(|e| e.1).collect();
        assert_eq!(depths, vec![1, 2, 3, 4], "{name}");
        for (_, depth, nodes) in expect.iter().filter(|e| e.0 == name) {
            assert_eq!(v.perft(&start, *depth), *nodes, "{name} depth {depth}");
        }
    }
}

#[test]
fn every_refused_section_of_fairy_stockfishs_file_has_its_reason() {
    let refused = std::fs::read_to_string("tests/data/fsf/refused.txt").unwrap();
    let ini = std::fs::read_to_string("tests/data/fsf/variants.ini").unwrap();
    let imported = ravenpost::variants::fsf::section_names(&ini).unwrap();
    let mut n = 0;
    for line in refused.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let (name, reason) = line.split_once(": ").unwrap();
        assert!(reason.starts_with("line ") || reason.contains("not this built-in"), "{line}");
        assert!(!imported.iter().any(|i| i == name), "{name} is both imported and refused");
        n += 1;
    }
    // With the 19 imported, every one of the 143 sections of that file.
    assert_eq!(n + 19, 143);
}

/// Plays `moves` of game `id` alternately from Ann's and Bo's clones, each pushed
/// through the hook.
fn play_by_correspondence(home: &Path, ann: &Path, bo: &Path, id: &str, moves: &[&str]) {
    use common::ok;
    for (i, m) in moves.iter().enumerate() {
        let (dir, who) = if i % 2 == 0 { (ann, "Ann") } else { (bo, "Bo") };
        ok(dir, home, &["sync"]);
        ok(dir, home, &["move", id, m, "--as", who]);
        assert!(ok(dir, home, &["sync"]).contains("Pushed 1 commit"), "{m}");
    }
    ok(ann, home, &["sync"]);
    ok(bo, home, &["sync"]);
}

#[test]
fn capablanca_with_both_castlings_and_shatranj_ended_by_bare_king_by_correspondence() {
    use common::ok;
    let common::BareClub { dir: t, home, ann, bo, .. } = common::bare_club();
    let capablanca = std::fs::canonicalize("tests/data/variants/capablanca.md").unwrap();
    let capablanca = capablanca.to_str().unwrap();
    ok(&ann, &home, &["new", "--variant-file", capablanca, "--white", "Ann", "--black", "Bo", "--id", "c"]);
    let moves =
        ["Nj3", "Na6", "Ci3", "Ab6", "h3", "e6", "Bh2", "Qe7", "O-O", "c6", "a3", "Bc7", "a4", "O-O-O"];
    play_by_correspondence(&home, &ann, &bo, "c", &moves);
    let shown = ok(&bo, &home, &["show", "c"]);
    assert!(shown.contains("Last move: 7... O-O-O (O-O-O), ply 14"), "{shown}");
    let record = std::fs::read_to_string(bo.join(common::fan_out_path("capablanca", "c"))).unwrap();
    let words = record.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("5. O-O {") && words.contains("7... O-O-O {"), "{record}");
    // A shatranj ending as a definition's start: the Rukh takes the last black piece,
    // Black answers, and White has bared the Shah.
    let ending = std::fs::read_to_string("tests/data/variants/shatranj.md")
        .unwrap()
        .replace("slug: shatranj", "slug: shatranj-ending")
        .replace("RNBKQBNR/PPPPPPPP/8/8/8/8/pppppppp/rnbkqbnr", "3RK3/3r4/8/8/8/8/8/4k3");
    let file = t.path().join("shatranj-ending.md");
    std::fs::write(&file, ending).unwrap();
    ok(
        &ann,
        &home,
        &["new", "--variant-file", file.to_str().unwrap(), "--white", "Ann", "--black", "Bo", "--id", "s"],
    );
    play_by_correspondence(&home, &ann, &bo, "s", &["Rxd2", "Kf7"]);
    let shown = ok(&ann, &home, &["show", "s"]);
    assert!(shown.contains("Bo (Black) has a bare king"), "{shown}");
    let record = std::fs::read_to_string(ann.join(common::fan_out_path("shatranj-ending", "s"))).unwrap();
    assert!(record.contains("[Result \"1-0\"]"), "{record}");
    let err = common::fails(&bo, &home, &["move", "s", "Ke1", "--as", "Ann"], 1, "");
    assert!(!err.is_empty());
    assert!(ok(&ann, &home, &["verify"]).contains("0 problems"));
    // Issue 37: `log`, `log --json` and the site say why the game ended.
    let (log, json, page) = shown_end(&ann, &home, &t.path().join("site"), "shatranj-ending", "s");
    assert!(log.ends_with("ply 2 Kf7, result 1-0 · bare king"), "{log}");
    assert_eq!(json, ("1-0".to_string(), "bare king".to_string()));
    assert_eq!(page, "1-0 · bare king");
}

/// How `log`, `log --json` and the site show the end of game `id` (a `variant` game) of
/// the clone `dir`: the last line of `log`, the last JSON entry's `result` and `reason`
/// (the earlier entries have neither), the result line of the game's page in a site
/// written to `site`.
fn shown_end(
    dir: &Path,
    home: &Path,
    site: &Path,
    variant: &str,
    id: &str,
) -> (String, (String, String), String) {
    use common::ok;
    let log = ok(dir, home, &["log", id]);
    let last = log.lines().last().unwrap().to_string();
    let json: serde_json::Value = serde_json::from_str(&ok(dir, home, &["log", id, "--json"])).unwrap();
    let entries = json.as_array().unwrap();
    for e in &entries[..entries.len() - 1] {
        assert!(e.get("reason").is_none() && e.get("result").is_none(), "{e}");
    }
    let end = entries.last().unwrap();
    let field = |k: &str| end[k].as_str().unwrap_or_else(|| panic!("no {k}: {end}")).to_string();
    let json = (field("result"), field("reason"));
    ok(dir, home, &["site", site.to_str().unwrap()]);
    // The page escapes `/` (`1&#x2f;2-1&#x2f;2`).
    let html = std::fs::read_to_string(site.join(format!("games/{variant}/{id}.html")))
        .unwrap()
        .replace("&#x2f;", "/");
    let line = html.split("<p class=\"result\">").nth(1).and_then(|r| r.split("</p>").next()).unwrap();
    assert!(html.contains(&format!("result <strong>{}</strong> · {}", json.0, json.1)), "{html}");
    (last, json, line.to_string())
}

/// The position as Fairy-Stockfish writes it: castling and en passant fields always (a
/// running count is written in its place, in Fairy-Stockfish's form).
fn fsf_fen(v: &Variant, pos: &ravenpost::engine::Position) -> String {
    let s = write_position(v, pos);
    if v.def().chess_fields || pos.count().is_some() {
        return s;
    }
    let mut f: Vec<&str> = s.split(' ').collect();
    f.splice(2..2, ["-", "-"]);
    f.join(" ")
}

/// `m` in UCI as Fairy-Stockfish writes it (castling: the king's two squares).
fn uci(v: &Variant, m: &Move) -> String {
    let d = v.def().dims;
    let promo = m.promotion().map(|k| v.def().kind(k).code.to_lowercase()).unwrap_or_default();
    format!("{}{}{promo}", d.name(m.from().unwrap()), d.name(m.to()))
}

/// The game's end from the side to move's view, as Fairy-Stockfish gives it: 1 it has
/// won, -1 lost, 0 drawn; `None` while it goes on.
fn end_value(v: &Variant, pos: &ravenpost::engine::Position) -> Option<i32> {
    v.outcome(pos).map(|o| match o {
        Outcome::Win { winner, .. } if winner == pos.side_to_move() => 1,
        Outcome::Win { .. } => -1,
        Outcome::Draw { .. } => 0,
    })
}

#[test]
fn pyffish_agrees_on_legal_moves_and_game_ends_in_random_games() {
    common::tools::require_pyffish();
    let ini = std::fs::read_to_string("tests/data/fsf/variants.ini").unwrap();
    let courier = ravenpost::variants::fsf::import(&ini, Some("courier")).unwrap().1;
    let variants = [
        ("chess", user("chess.md")),
        ("capablanca", user("capablanca.md")),
        ("shatranj", user("shatranj.md")),
        ("courier", load_definition(&courier).unwrap().variant(&[]).unwrap()),
    ];
    let mut rng = common::rng::Lcg(0x000f_5f37);
    let mut lines = String::new();
    let mut ours = Vec::new();
    // pyffish takes some 2 ms a call (it sets up its piece tables each time): 12 games
    // a variant, two calls a position, are most of this test's minute.
    for (name, v) in &variants {
        for _ in 0..12 {
            let mut pos = v.start_position();
            for _ in 0..400 {
                let legal = v.legal_moves(&pos);
                let mut moves: Vec<String> = legal.iter().map(|m| uci(v, m)).collect();
                moves.sort();
                lines.push_str(&format!("{name}\t{}\n", fsf_fen(v, &pos)));
                ours.push((name.to_string(), fsf_fen(v, &pos), moves.join(" "), end_value(v, &pos)));
                if legal.is_empty() {
                    break;
                }
                // Prefer captures, so games reach bare kings and endings.
                let captures: Vec<&Move> = legal.iter().filter(|m| m.capture().is_some()).collect();
                let m = if !captures.is_empty() && rng.below(3) > 0 {
                    *captures[rng.below(captures.len())]
                } else {
                    legal[rng.below(legal.len())]
                };
                pos = v.make(&pos, &m);
            }
        }
    }
    let script = r#"
import sys, pyffish
for line in sys.stdin:
    variant, fen = line.rstrip("\n").split("\t")
    moves = sorted(pyffish.legal_moves(variant, fen, []))
    end, value = pyffish.is_immediate_game_end(variant, fen, [])
    if not end and not moves:
        end, value = True, pyffish.game_result(variant, fen, [])
    v = "-" if not end else str((value > 0) - (value < 0))
    print(" ".join(moves) + "|" + v)
"#;
    let theirs = pyffish_answers(script, lines);
    assert_eq!(theirs.len(), ours.len());
    assert!(ours.len() >= 5000, "{} positions", ours.len());
    let mut ended = 0;
    for ((name, fen, moves, end), line) in ours.iter().zip(&theirs) {
        let (their_moves, their_end) = line.split_once('|').unwrap();
        assert_eq!(moves, their_moves, "{name} {fen}: legal moves");
        let end = end.map_or("-".to_string(), |e| e.to_string());
        assert_eq!(end, their_end, "{name} {fen}: game end");
        ended += usize::from(end != "-");
    }
    assert!(ended >= 20, "{ended} games ended");
}

/// pyffish's answers to `lines`, one a line, from `script` (read from its stdin).
fn pyffish_answers(script: &str, lines: String) -> Vec<String> {
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Written from a thread: the answers are read while the questions are written.
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(lines.as_bytes()).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect()
}

/// The makruk definition with another counting rule (Cambodian: pyffish's `cambodian`
/// from a start without its King's and Met's first-move rights plays makruk's moves).
fn makruk_counting(rule: &str) -> std::sync::Arc<Variant> {
    let text = std::fs::read_to_string("tests/data/variants/makruk.md").unwrap();
    let text = text.replace("rule: makruk", &format!("rule: {rule}"));
    load_definition(&text).unwrap().variant(&[]).unwrap()
}

/// Our verdict as the differential writes it: `-` while the game goes on, else the value
/// for the side to move (1, -1, 0), `c0` for a draw by the counting rule.
fn verdict(v: &Variant, pos: &ravenpost::engine::Position) -> String {
    match v.outcome(pos) {
        Some(Outcome::Draw { reason: EndReason::Counting }) => "c0".into(),
        _ => end_value(v, pos).map_or("-".to_string(), |e| e.to_string()),
    }
}

#[test]
fn pyffish_agrees_on_counting_draws_in_random_makruk_asean_and_cambodian_games() {
    common::tools::require_pyffish();
    let ini = std::fs::read_to_string("tests/data/fsf/variants.ini").unwrap();
    let asean = ravenpost::variants::fsf::import(&ini, Some("asean")).unwrap().1;
    let variants = [
        ("makruk", user("makruk.md")),
        ("asean", load_definition(&asean).unwrap().variant(&[]).unwrap()),
        ("cambodian", makruk_counting("cambodian")),
    ];
    let mut rng = common::rng::Lcg(0x0c0f_f5f7);
    // One line a game: the variant, the start, the moves played; pyffish answers for
    // every position of it, in order.
    let mut lines = String::new();
    let mut ours = Vec::new();
    for (name, v) in &variants {
        let start = v.start_position();
        for _ in 0..12 {
            let mut pos = start.clone();
            let mut played: Vec<String> = Vec::new();
            for ply in 0..=600 {
                let legal = v.legal_moves(&pos);
                let mut moves: Vec<String> = legal.iter().map(|m| uci(v, m)).collect();
                moves.sort();
                ours.push((
                    name.to_string(),
                    fsf_fen(v, &pos),
                    moves.join(" "),
                    verdict(v, &pos),
                    pos.clone(),
                ));
                if legal.is_empty() || v.outcome(&pos).is_some() || ply == 600 {
                    break;
                }
                // Captures nine times in ten, so games reach pawnless endings and bare
                // kings, where the counts run.
                let captures: Vec<&Move> = legal.iter().filter(|m| m.capture().is_some()).collect();
                let m = if !captures.is_empty() && rng.below(10) > 0 {
                    *captures[rng.below(captures.len())]
                } else {
                    legal[rng.below(legal.len())]
                };
                played.push(uci(v, &m));
                pos = v.make(&pos, &m);
            }
            lines.push_str(&format!("{name}\t{}\t{}\n", fsf_fen(v, &start), played.join(" ")));
        }
    }
    // Each position is Fairy-Stockfish's own string of the one before with the move
    // played, so its count comes from its own moves (a replay from the start for each
    // would take minutes); the last position of each game is checked against its replay
    // of the whole game. These games have no immediate end (no extinction): a game ends
    // by checkmate, stalemate or the count (pyffish's optional end, asked only when
    // Fairy-Stockfish's count has passed its limit: a repetition is one too, and a
    // claim in ravenpost).
    let script = r#"
import sys, pyffish
def sign(x):
    return str((x > 0) - (x < 0))
for line in sys.stdin:
    variant, start, moves = line.rstrip("\n").split("\t")
    moves = moves.split()
    fen = start
    for k in range(len(moves) + 1):
        here = [] if k == 0 else [moves[k - 1]]
        legal = sorted(pyffish.legal_moves(variant, fen, here))
        fen = pyffish.get_fen(variant, fen, here)
        f = fen.split()
        if f[3].isdigit() and int(f[4]) > int(f[3]) and pyffish.is_optional_game_end(variant, fen, [])[0]:
            v = "c0"
        elif not legal:
            v = sign(pyffish.game_result(variant, fen, []))
        else:
            v = "-"
        print(" ".join(legal) + "|" + v + "|" + fen)
    assert pyffish.get_fen(variant, start, moves) == fen, (variant, moves)
"#;
    let theirs = pyffish_answers(script, lines);
    assert_eq!(theirs.len(), ours.len());
    let (mut counted, mut by_count) = (0, 0);
    let mut per_variant = std::collections::BTreeMap::<String, (usize, usize, usize)>::new();
    for ((name, fen, moves, end, pos), line) in ours.iter().zip(&theirs) {
        let f: Vec<&str> = line.split('|').collect();
        let (their_moves, their_end, their_fen) = (f[0], f[1], f[2]);
        assert_eq!(fen, their_fen, "{name}: position string");
        assert_eq!(end, their_end, "{name} {fen}: game end");
        // A game drawn by the count has no legal move in ravenpost; pyffish lists them.
        if end != "c0" {
            assert_eq!(moves, their_moves, "{name} {fen}: legal moves");
        }
        let v = &variants.iter().find(|(n, _)| n == name).unwrap().1;
        if pos.count().is_some() {
            // Fairy-Stockfish's string of a running count reads back as the same count.
            assert_eq!(parse_position(v, their_fen).unwrap().count(), pos.count(), "{name} {fen}");
            counted += 1;
        }
        by_count += usize::from(end == "c0");
        let e = per_variant.entry(name.clone()).or_default();
        *e = (e.0 + 1, e.1 + usize::from(pos.count().is_some()), e.2 + usize::from(end == "c0"));
    }
    println!("{} positions, {counted} with a count running, {by_count} games drawn by the count", ours.len());
    println!("per variant (positions, counted, drawn by the count): {per_variant:?}");
    assert!(ours.len() >= 5000, "{} positions", ours.len());
    assert!(counted >= 1000, "{counted} positions with a count running");
    assert!(by_count >= 15, "{by_count} games drawn by the count");
    for (name, (_, counted, drawn)) in &per_variant {
        assert!(*counted >= 100 && *drawn >= 3, "{name}: {counted} counted, {drawn} drawn by the count");
    }
}

#[test]
fn a_running_count_is_read_and_written_as_fairy_stockfish_writes_it() {
    let v = user("makruk.md");
    // pyffish: get_fen("makruk", "4k3/8/8/8/8/8/8/R3K2R w - - 0 1", ["a1a2"]).
    let fsf = "4k3/8/8/8/8/8/R7/4K2R b - 16 8 1";
    let pos = play(&v, "4k3/8/8/8/8/8/8/R3K2R w - - 0 1", &["Ra2"]);
    assert_eq!(pos.count(), Some((8, 16)));
    assert_eq!(write_position(&v, &pos), fsf);
    assert_eq!(parse_position(&v, fsf).unwrap().count(), Some((8, 16)));
    // Past the limit (pyffish: is_optional_game_end is true), a draw with no legal move.
    let over = parse_position(&v, "8/3k4/8/8/8/8/R7/4K2R w - 16 17 6").unwrap();
    assert_eq!(v.outcome(&over), Some(Outcome::Draw { reason: EndReason::Counting }));
    assert!(v.legal_moves(&over).is_empty());
    // Checkmate still wins past the limit (pyffish: no legal move, is_optional_game_end
    // false, game_result a loss for White).
    let mated = parse_position(&v, "N3k3/8/8/8/8/8/r7/r6K w - 128 129 70").unwrap();
    assert_eq!(v.outcome(&mated), Some(Outcome::Win { winner: Side::Black, reason: EndReason::Checkmate }));
    // A game without a counting rule refuses a count.
    let err = parse_position(&user("shatranj.md"), fsf).unwrap_err().to_string();
    assert!(err.contains("column 27: counting limit `16`: this game has no counting rule"), "{err}");
    // An unknown rule is refused at its line, saying which are known.
    let text = std::fs::read_to_string("tests/data/variants/makruk.md").unwrap();
    let err = load_definition(&text.replace("rule: makruk", "rule: thai")).unwrap_err().to_string();
    assert!(
        err.contains("line 16, column 3: unknown counting rule `thai` (known: makruk, cambodian, asean)"),
        "{err}"
    );
}

#[test]
fn a_makruk_ending_drawn_by_the_count_by_correspondence() {
    use common::ok;
    let common::BareClub { dir: t, home, ann, bo, .. } = common::bare_club();
    // Two Rueas against a lone Khun: the pieces' honour gives White 8 moves, counted
    // from 8 (twice the four pieces) once White has moved.
    let ending = std::fs::read_to_string("tests/data/variants/makruk.md")
        .unwrap()
        .replace("slug: makruk", "slug: makruk-ending")
        .replace("RNSKMSNR/8/PPPPPPPP/8/8/pppppppp/8/rnsmksnr", "R3K2R/8/8/8/8/8/8/4k3");
    let file = t.path().join("makruk-ending.md");
    std::fs::write(&file, ending).unwrap();
    ok(
        &ann,
        &home,
        &["new", "--variant-file", file.to_str().unwrap(), "--white", "Ann", "--black", "Bo", "--id", "m"],
    );
    // pyffish: is_optional_game_end is false until the tenth ply, true after it.
    let moves = ["Ra2", "Kd7", "Rh3", "Kc7", "Ra1", "Kd7", "Rh1", "Kc7", "Ra2"];
    play_by_correspondence(&home, &ann, &bo, "m", &moves);
    let last = ok(&bo, &home, &["move", "m", "Kd7", "--as", "Bo"]);
    assert!(last.contains("counting rule: draw"), "{last}");
    assert!(ok(&bo, &home, &["sync"]).contains("Pushed 1 commit"));
    ok(&ann, &home, &["sync"]);
    let shown = ok(&ann, &home, &["show", "m"]);
    assert!(shown.contains("the count has run out (17 plies of 16): a draw by the counting rule"), "{shown}");
    let record = std::fs::read_to_string(ann.join(common::fan_out_path("makruk-ending", "m"))).unwrap();
    assert!(record.contains("[Result \"1/2-1/2\"]"), "{record}");
    // The picture's caption says it too.
    let svg = ok(&ann, &home, &["show", "m", "--svg", "-"]);
    assert!(svg.contains("Ply 10: the count has run out (17 plies of 16)"), "{svg}");
    // A verdict cache written by the release before reasons were shown (namespace `-2`,
    // verdicts without `end`) holds this move as ending nothing: it must not be read.
    let archive = ravenpost::archive::Archive::open(&bo).unwrap();
    let tip = archive.tip().unwrap().unwrap();
    let file = common::fan_out_path("makruk-ending", "m");
    let mut now = archive.verdict_cache(concat!("referee-", env!("CARGO_PKG_VERSION"), "-3"));
    now.remove(tip, &file);
    now.save().unwrap();
    let mut old = archive.verdict_cache(concat!("referee-", env!("CARGO_PKG_VERSION"), "-2"));
    old.put(tip, &file, r#"{"what":"ply 10 Kd7","ply":10,"san":"Kd7","problem":null}"#.to_string());
    old.save().unwrap();
    drop((now, old, archive));
    let (log, json, page) = shown_end(&bo, &home, &t.path().join("site"), "makruk-ending", "m");
    assert!(log.ends_with("ply 10 Kd7, result 1/2-1/2 · counting rule"), "{log}");
    assert_eq!(json, ("1/2-1/2".to_string(), "counting rule".to_string()));
    assert_eq!(page, "1/2-1/2 · counting rule");
    let err = common::fails(&ann, &home, &["move", "m", "Ra3", "--as", "Ann"], 1, "");
    assert!(!err.is_empty());
    assert!(ok(&ann, &home, &["verify"]).contains("0 problems"));
}

/// Issue 37: a position string as Fairy-Stockfish writes it (pyffish's `get_fen`), and as
/// it reads it with its last fields left out, is read for variants imported from its
/// format: the position pyffish reached by the same moves, written back as it wrote it.
#[test]
fn fairy_stockfishs_position_strings_are_read_for_imported_variants() {
    common::tools::require_pyffish();
    let ini = std::fs::read_to_string("tests/data/fsf/variants.ini").unwrap();
    let names = [
        "capablanca",
        "janus",
        "embassy",
        "gothic",
        "knightmate",
        "nocastle",
        "makruk",
        "courier",
        "gardner",
    ];
    let mut rng = common::rng::Lcg(0x0037_f3e0);
    let mut lines = String::new();
    let mut ours = Vec::new();
    for name in names {
        let def = ravenpost::variants::fsf::import(&ini, Some(name)).unwrap().1;
        let v = load_definition(&def).unwrap().variant(&[]).unwrap();
        for _ in 0..8 {
            let mut pos = v.start_position();
            let mut moves = Vec::new();
            for _ in 0..50 {
                let legal = v.legal_moves(&pos);
                if legal.is_empty() {
                    break;
                }
                let m = legal[rng.below(legal.len())];
                moves.push(uci(&v, &m));
                pos = v.make(&pos, &m);
                lines.push_str(&format!("{name}\t{}\n", moves.join(" ")));
                ours.push((name, v.clone(), write_position(&v, &pos)));
            }
        }
    }
    // Each line: the position string, then the placement and side alone, and the first
    // four fields alone, each as pyffish reads them (written out in full).
    let script = r#"
import sys, pyffish
for line in sys.stdin:
    variant, moves = line.rstrip("\n").split("\t")
    fen = pyffish.get_fen(variant, pyffish.start_fen(variant), moves.split(" "))
    f = fen.split(" ")
    short = [" ".join(f[:2]), " ".join(f[:4])]
    print("\t".join([fen] + [x + "=" + pyffish.get_fen(variant, x, []) for x in short]))
"#;
    let theirs = pyffish_answers(script, lines);
    assert_eq!(theirs.len(), ours.len());
    let (mut castling, mut en_passant) = (0, 0);
    for ((name, v, expected), line) in ours.iter().zip(&theirs) {
        let mut parts = line.split('\t');
        let fen = parts.next().unwrap();
        let pos = parse_position(v, fen).unwrap_or_else(|e| panic!("{name} {fen}: {e}"));
        assert_eq!(&write_position(v, &pos), expected, "{name} {fen}");
        assert_eq!(fsf_fen(v, &pos), fen, "{name}: written back");
        let f: Vec<&str> = fen.split(' ').collect();
        castling += usize::from(f[2] != "-");
        en_passant += usize::from(f[3] != "-" && !f[3].bytes().all(|b| b.is_ascii_digit()));
        for short in parts {
            let (short, full) = short.split_once('=').unwrap();
            let read = parse_position(v, short).unwrap_or_else(|e| panic!("{name} `{short}`: {e}"));
            let full = parse_position(v, full).unwrap();
            assert_eq!(write_position(v, &read), write_position(v, &full), "{name} `{short}`");
        }
    }
    assert!(
        ours.len() >= 2000 && castling >= 500 && en_passant >= 5,
        "{} {castling} {en_passant}",
        ours.len()
    );
}

#[test]
fn a_fairy_stockfish_field_that_cannot_be_read_says_which_and_what_would_be() {
    // Shatranj has no castling: the field names itself and what to write.
    let v = user("shatranj.md");
    let err = parse_position(&v, "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w KQkq - 0 1").unwrap_err();
    assert_eq!(
        err.to_string(),
        "column 47: castling field `KQkq`: there is no castling in this game (its definition has no \
         `castling`); write `-`"
    );
    let chess = user("chess.md");
    let err =
        parse_position(&chess, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1").unwrap_err();
    assert!(err.to_string().starts_with("column 54: en passant field `e4`: "), "{err}");
    assert!(err.to_string().ends_with("write `-`, or the square passed over"), "{err}");
    let err =
        parse_position(&chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 7").unwrap_err();
    assert!(err.to_string().contains("castling rights (`-`, or K, Q, k, q and file letters)"), "{err}");
    // Without `chess_fields`, `placement side halfmove fullmove` is the whole string: of
    // Fairy-Stockfish's shortened forms only the placement, with or without the side.
    let shatranj_start = write_position(&v, &v.start_position());
    assert_eq!(shatranj_start, "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w 0 1");
    for short in
        ["rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR", "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w"]
    {
        assert_eq!(write_position(&v, &parse_position(&v, short).unwrap()), shatranj_start, "{short}");
    }
    assert!(parse_position(&v, "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w -").is_err());
}

/// Whether a first rank written as a position string writes it (`RNBQKBNR`) obeys
/// Chess960's rules, checked here from the letters: the Bishops on squares of both
/// colours, the King between the Rooks.
fn chess960_rank(rank: &str) -> bool {
    let at = |c: char| rank.char_indices().filter(|(_, x)| *x == c).map(|(i, _)| i).collect::<Vec<_>>();
    let (b, r, k) = (at('B'), at('R'), at('K'));
    b.len() == 2 && b[0] % 2 != b[1] % 2 && r.len() == 2 && k.len() == 1 && r[0] < k[0] && k[0] < r[1]
}

#[test]
fn the_960_style_starts_of_chess_are_the_960_of_chess960_each_by_the_rules() {
    use ravenpost::engine::shuffle;
    let v = user("chess960.md");
    // Every arrangement of the eight pieces, each once, counted here on its own.
    fn all(left: &mut Vec<char>, done: &mut String, out: &mut std::collections::BTreeSet<String>) {
        if left.is_empty() {
            out.insert(done.clone());
        }
        for i in 0..left.len() {
            let c = left.remove(i);
            done.push(c);
            all(left, done, out);
            done.pop();
            left.insert(i, c);
        }
    }
    let mut every = std::collections::BTreeSet::new();
    all(&mut "RNBQKBNR".chars().collect(), &mut String::new(), &mut every);
    assert_eq!(every.len(), 5040);
    let by_the_rules: std::collections::BTreeSet<String> =
        every.into_iter().filter(|r| chess960_rank(r)).collect();
    assert_eq!(by_the_rules.len(), 960);
    // Ravenpost's: all 960, each a whole start (Black's rank the mirror, pawns in place,
    // all four castling rights, White to move).
    let ours = shuffle::arrangements(v.def());
    assert_eq!(ours.len(), 960);
    let mut ranks = std::collections::BTreeSet::new();
    for a in &ours {
        let pos = shuffle::start_with(&v, a);
        let s = write_position(&v, &pos);
        let (placement, rest) = s.split_once(' ').unwrap();
        let rows: Vec<&str> = placement.split('/').collect();
        assert_eq!(rows[0], rows[7].to_lowercase(), "{s}");
        assert_eq!(rows[1..7].join("/"), "pppppppp/8/8/8/8/PPPPPPPP", "{s}");
        assert_eq!(rest, "w KQkq - 0 1", "{s}");
        assert!(shuffle::is_drawn_start(&v, &pos), "{s}");
        ranks.insert(rows[7].to_string());
    }
    assert_eq!(ranks, by_the_rules);
    // Not a drawn start: the Bishops on one colour, or the King outside the Rooks.
    for fen in [
        "rbnbqknr/pppppppp/8/8/8/8/PPPPPPPP/RBNBQKNR w KQkq - 0 1",
        "krbbqnnr/pppppppp/8/8/8/8/PPPPPPPP/KRBNQBNR w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    ] {
        if let Ok(pos) = parse_position(&v, fen) {
            assert!(!shuffle::is_drawn_start(&v, &pos), "{fen}");
        }
    }
}

#[test]
fn a_seed_draws_the_start_fairy_stockfish_counted() {
    let v = user("chess960.md");
    let mut seeds = 0;
    for b in read_blocks(Path::new("tests/data/fsf-chess960.perft")) {
        let Some((_, seed)) = b.id.split_once("seed-") else { continue };
        let v = b.variant();
        let drawn = ravenpost::engine::shuffle::draw(&v, seed.parse().unwrap()).unwrap();
        assert_eq!(write_position(&v, &drawn), b.position, "{}", b.id);
        seeds += 1;
    }
    assert_eq!(seeds, 6);
    // Other seeds draw other starts: 1,000 seeds, well over 600 of the 960.
    let drawn: std::collections::BTreeSet<String> = (0..1000_u64)
        .map(|s| write_position(&v, &ravenpost::engine::shuffle::draw(&v, s).unwrap()))
        .collect();
    assert!(drawn.len() > 600, "{}", drawn.len());
    // A definition without `chess960` draws nothing.
    assert!(ravenpost::engine::shuffle::draw(&user("chess.md"), 1).is_none());
}

#[test]
fn a_chess960_game_with_castling_by_correspondence() {
    use common::ok;
    let common::BareClub { dir: t, home, ann, bo, .. } = common::bare_club();
    let file = std::fs::canonicalize("tests/data/variants/chess960.md").unwrap();
    let file = file.to_str().unwrap();
    // Seed 2: NBBRNKRQ, the King on f1 beside the g1 Rook: `O-O` at once, King to g1,
    // Rook to f1 (each on the other's square).
    ok(
        &ann,
        &home,
        &["new", "--variant-file", file, "--white", "Ann", "--black", "Bo", "--id", "f", "--seed", "2"],
    );
    play_by_correspondence(&home, &ann, &bo, "f", &["O-O", "O-O", "e4", "e5"]);
    let record = std::fs::read_to_string(bo.join(common::fan_out_path("chess960", "f"))).unwrap();
    assert!(record.contains("[SetUp \"1\"]"), "{record}");
    assert!(
        record.contains("[FEN \"nbbrnkrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRNKRQ w KQkq - 0 1\"]"),
        "{record}"
    );
    let words = record.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("1. O-O {") && words.contains("1... O-O {"), "{record}");
    let shown = ok(&bo, &home, &["show", "f", "--json"]);
    assert!(shown.contains("nbbrnrkq/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/NBBRNRKQ w - - 0 3"), "{shown}");
    assert!(ok(&ann, &home, &["verify"]).contains("0 problems"));
    // A game of it from a start that is no drawn one is refused where it is created.
    let text = std::fs::read_to_string(file).unwrap();
    let mut held = ravenpost::variants::Definitions::new();
    held.insert(load_definition(&text).unwrap());
    let tags = &record[..record.find("\n\n").unwrap()];
    for (fen, drawn) in [
        ("nbbrnkrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRNKRQ w KQkq - 0 1", true),
        ("rbnbqknr/pppppppp/8/8/8/8/PPPPPPPP/RBNBQKNR w KQkq - 0 1", false),
        ("nbbrnkrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRNKRQ w Kk - 0 1", false),
    ] {
        let new = tags.replace("nbbrnkrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRNKRQ w KQkq - 0 1", fen) + "\n\n*\n";
        let game = ravenpost::record::Loader::new().definitions(&held).load(&new).unwrap().game;
        let created = ravenpost::referee::step::check_created("chess960", &game);
        match drawn {
            true => assert!(created.is_ok(), "{fen}: {created:?}"),
            false => {
                let err = created.unwrap_err().to_string();
                assert!(
                    err.contains("is not one of Chess960 (a user definition)'s 960-style starts"),
                    "{err}"
                );
            }
        }
    }
    drop(t);
}

#[test]
fn pyffish_agrees_on_legal_moves_in_random_games_from_drawn_960_starts() {
    common::tools::require_pyffish();
    let v = user("chess960.md");
    let d = v.def().dims;
    // Fairy-Stockfish's UCI in Chess960 mode: castling is the king taking its own rook.
    let uci960 = |m: &Move| match *m {
        Move::Castle { from, rook_from, .. } => format!("{}{}", d.name(from), d.name(rook_from)),
        _ => uci(&v, m),
    };
    let mut rng = common::rng::Lcg(0x0960_f5f3);
    let (mut lines, mut ours, mut castled) = (String::new(), Vec::new(), 0);
    for seed in 0..60_u64 {
        let mut pos = ravenpost::engine::shuffle::draw(&v, seed).unwrap();
        for _ in 0..80 {
            let legal = v.legal_moves(&pos);
            if legal.is_empty() {
                break;
            }
            let mut moves: Vec<String> = legal.iter().map(uci960).collect();
            moves.sort();
            lines.push_str(&format!("{}\n", write_position(&v, &pos)));
            ours.push((write_position(&v, &pos), moves.join(" ")));
            // Castle half the times it can, else a random move.
            let m = match legal.iter().find(|m| matches!(m, Move::Castle { .. })) {
                Some(c) if rng.below(2) == 0 => {
                    castled += 1;
                    *c
                }
                _ => legal[rng.below(legal.len())],
            };
            pos = v.make(&pos, &m);
        }
    }
    let script = r#"
import sys, pyffish
for line in sys.stdin:
    print(" ".join(sorted(pyffish.legal_moves("chess", line.rstrip("\n"), [], True))))
"#;
    let theirs = pyffish_answers(script, lines);
    assert_eq!(theirs.len(), ours.len());
    for ((fen, moves), their) in ours.iter().zip(&theirs) {
        assert_eq!(moves, their, "{fen}");
    }
    assert!(ours.len() >= 3000 && castled >= 40, "{} positions, {castled} castlings", ours.len());
}
