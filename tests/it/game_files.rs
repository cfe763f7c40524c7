//! Game files in the wild (notation-spec/movetext.md): odd encodings, escapes, comments,
//! variations, missing results; and the canonical writer.

use crate::common;

use common::rules::gygax;

use ravenpost::notation::pgn::{GameReader, read_games};
use ravenpost::record::game::replay;

const GAME: &str = "[Event \"Test\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n[Variant \"gygax\"]\n\n\
1. 2e3 Sa3b6 2. Rx3b6 {The Dragon takes.} U2c6 3. R:2c6 H3b7 *\n";

#[test]
fn bom_and_crlf_are_read_and_written_back_as_utf8_lf() {
    let with = format!("\u{feff}{}", GAME.replace('\n', "\r\n"));
    let games = read_games(&with);
    assert_eq!(games.len(), 1);
    let g = games.into_iter().next().unwrap().unwrap();
    assert_eq!(g.tag("Event"), Some("Test"));
    let out = replay(g).unwrap().canonical_text();
    assert!(!out.contains('\r') && !out.contains('\u{feff}'));
    assert!(out.starts_with("[Event \"Test\"]\n"));
}

#[test]
fn latin1_player_names_are_read() {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"[Event \"?\"]\n[White \"Bj");
    bytes.push(0xf6); // ö in Latin-1
    bytes.extend_from_slice(b"rn\"]\n[Variant \"gygax\"]\n\n1. 2e3 *\n");
    let g = GameReader::new(&bytes[..]).next().unwrap().unwrap();
    assert_eq!(g.tag("White"), Some("Björn"));
    let out = replay(g).unwrap().canonical_text();
    assert!(out.contains("[White \"Björn\"]"));
}

#[test]
fn escaped_quotes_and_brackets_in_tag_values() {
    let text = "[Event \"The \\\"Raven\\\" [cup] \\\\ 2026\"]\n[Variant \"gygax\"]\n\n1. 2e3 *\n";
    let g = read_games(text).remove(0).unwrap();
    assert_eq!(g.tag("Event"), Some("The \"Raven\" [cup] \\ 2026"));
    let out = replay(g).unwrap().canonical_text();
    assert!(out.contains("[Event \"The \\\"Raven\\\" [cup] \\\\ 2026\"]"), "{out}");
    // And it reads back the same.
    assert_eq!(read_games(&out).remove(0).unwrap().tag("Event"), Some("The \"Raven\" [cup] \\ 2026"));
}

#[test]
fn braces_and_brackets_inside_comments() {
    let text = "[Variant \"gygax\"]\n\n1. 2e3 {a comment with [brackets]\n[Event \"not a tag\"] still comment} \
        Sa3b6 ; rest of line {with a brace\n2. 2f3 *\n";
    let games = read_games(text);
    assert_eq!(games.len(), 1, "a `[` line inside a comment does not start a game");
    let g = games.into_iter().next().unwrap().unwrap();
    assert_eq!(g.moves.len(), 3);
    assert_eq!(g.moves[0].comments, vec!["a comment with [brackets] [Event \"not a tag\"] still comment"]);
    assert_eq!(g.moves[1].comments, vec!["rest of line {with a brace"]);
    let out = replay(g).unwrap().canonical_text();
    // A comment holding a brace is written as a `;` comment; the file reads back the same.
    let again = replay(read_games(&out).remove(0).unwrap()).unwrap().canonical_text();
    assert_eq!(again, out);
}

#[test]
fn verbatim_comment_lines_keep_their_spacing_and_stand_alone() {
    // `;|` lines (board diagrams) keep inner white space; other comments are collapsed.
    let text =
        "[Variant \"gygax\"]\n\n1. 2e3 ;|  8  .  :   g   \n;|    a  b\n{plain   text} Sa3b6 {|x   y} *\n";
    let g = read_games(text).remove(0).unwrap();
    assert_eq!(g.moves[0].comments, vec!["|  8  .  :   g", "|    a  b", "plain text"]);
    assert_eq!(g.moves[1].comments, vec!["|x y"]);
    let out = replay(g).unwrap().canonical_text();
    let movetext = out.split("\n\n").nth(1).unwrap();
    // Each verbatim line on a line of its own, as written; a brace comment starting with
    // `|` becomes one too.
    assert_eq!(movetext, "1. 2e3\n;|  8  .  :   g\n;|    a  b\n{plain text} 1... Sa3b6\n;|x y\n*\n");
    let again = replay(read_games(&out).remove(0).unwrap()).unwrap().canonical_text();
    assert_eq!(again, out);
}

#[test]
fn nested_variations_are_replayed_and_kept() {
    let text =
        "[Variant \"gygax\"]\n\n1. 2e3 (1. 2f3 Sa3b6 (1... Sc3d6 2. 2g3) 2. 2g3) 1... Sa3b6 2. Rx3b6 *\n";
    let g = read_games(text).remove(0).unwrap();
    assert_eq!(g.moves[0].variations.len(), 1);
    assert_eq!(g.moves[0].variations[0][1].variations.len(), 1);
    let game = replay(g).unwrap();
    let out = game.canonical_text();
    assert!(out.contains("1. 2e3 (1. 2f3 Sa3b6 (1... Sc3d6 2. 2g3) 2. 2g3) 1... Sa3b6 2. Rx3b6 *"), "{out}");
    // An illegal move inside a variation is reported with its place.
    let bad = "[Variant \"gygax\"]\n\n1. 2e3 (1. 2f3 Sa3b6 (1... Sc3d5)) 1... Sa3b6 *\n";
    let problems = replay(read_games(bad).remove(0).unwrap()).unwrap_err();
    assert_eq!(problems.len(), 1);
    assert_eq!((problems[0].span.line, problems[0].span.column), (3, 28));
    assert!(problems[0].message.contains("Sc3d5"));
}

#[test]
fn a_game_without_result_and_several_games_stream() {
    let text = format!("[Variant \"gygax\"]\n\n1. 2e3 Sa3b6\n\n\n{GAME}\n[Variant \"gygax\"]\n1. 2e3 1-0");
    let games: Vec<_> = GameReader::new(text.as_bytes()).collect();
    assert_eq!(games.len(), 3);
    let first = games[0].clone().unwrap();
    assert_eq!(first.result, None);
    assert_eq!(first.moves.len(), 2);
    let out = replay(first).unwrap().canonical_text();
    assert!(out.ends_with("1. 2e3 Sa3b6 *\n"), "{out}");
    let third = games[2].clone().unwrap();
    assert_eq!(third.result.as_ref().map(|r| r.0.as_str()), Some("1-0"));
    assert_eq!(third.span.line, 14);
}

#[test]
fn errors_carry_line_and_column() {
    let cases: &[(&str, (usize, usize), &str)] = &[
        ("[Variant \"gygax\"]\n\n1. 2e3 {never closed\n", (3, 8), "comment never closed"),
        ("[Variant \"gygax\"]\n\n1. 2e3 )\n", (3, 8), "without `(`"),
        ("[Variant \"gygax\"]\n[Variant \"gygax\"]\n\n1. 2e3 *\n", (2, 1), "given twice"),
        ("[Variant \"gygax\"]\n\n1. 2e3 * 2f3\n", (3, 10), "after the result"),
        ("[Variant \"gygax\"]\n\n1. 2e3 $300 *\n", (3, 8), "NAG"),
        ("[Variant \"gygax\"]\n\n1. 2e3 & *\n", (3, 8), "unexpected `&`"),
    ];
    for (text, (line, col), why) in cases {
        let e = read_games(text).remove(0).unwrap_err();
        assert_eq!((e.line, e.column), (*line, *col), "{text}: {e}");
        assert!(e.reason.contains(why), "{text}: {}", e.reason);
    }
}

#[test]
fn tag_and_result_problems() {
    let check = |text: &str, want: &str| {
        let problems = replay(read_games(text).remove(0).unwrap()).unwrap_err();
        assert!(problems.iter().any(|p| p.message.contains(want)), "{text}: {problems:?}");
    };
    check("[Event \"x\"]\n\n1. 2e3 *\n", "no Variant tag");
    check("[Variant \"chess\"]\n\n1. e4 *\n", "unknown variant");
    check("[Variant \"gygax\"]\n[Ruleset \"ravenpost-9\"]\n\n1. 2e3 *\n", "unknown rule set");
    check("[Variant \"gygax\"]\n[Result \"1-0\"]\n\n1. 2e3 *\n", "differs from the Result tag");
    check("[Variant \"gygax\"]\n[GameOptions \"sylph-return=down\"]\n\n1. 2e3 *\n", "expected one of");
    check("[Variant \"gygax\"]\n[SetUp \"1\"]\n\n1. 2e3 *\n", "without a FEN");
    check("[Variant \"gygax\"]\n[FEN \"12/12 g 0 1\"]\n\n*\n", "FEN: column");
    // A finished game must carry the result the rules give: Scarlet mates with O2a7
    // (a-file check; the b-file Oliphant and the Clerics cover every escape).
    let mate = "[Variant \"gygax\"]\n[FEN \"12/12/12/12/12/12/12/1c10 1o5k4/2o9/12/12/12/12/12/K11 \
        12/12/12/12/12/12/12/1c10 s 0 1\"]\n\n1... O2a7 *\n";
    check(mate, "the game is over (Scarlet wins by checkmate) but the result is `*`");
    let ok = mate.replace("2a7 *", "2a7 0-1");
    assert!(replay(read_games(&ok).remove(0).unwrap()).is_ok());
}

#[test]
fn canonical_form_is_a_fixed_point() {
    let g = replay(read_games(GAME).remove(0).unwrap()).unwrap();
    let once = g.canonical_text();
    let twice = replay(read_games(&once).remove(0).unwrap()).unwrap().canonical_text();
    assert_eq!(once, twice);
    assert_eq!(
        once,
        "[Event \"Test\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n\
[Result \"*\"]\n[Variant \"gygax\"]\n[Ruleset \"ravenpost-1\"]\n\n\
1. 2e3 Sa3b6 2. Rx3b6 {The Dragon takes.} 2... U2c6 3. R:2c6 H3b7 *\n"
    );
}

#[test]
fn long_games_wrap_at_80_columns() {
    let v = gygax();
    let mut p = v.start_position();
    let mut tokens = Vec::new();
    for i in 0..80 {
        let legal = v.legal_moves(&p);
        let m = legal[(i * 7) % legal.len()];
        tokens.push(ravenpost::notation::san::write_move(&v, &p, &m));
        p = v.make(&p, &m);
        if v.outcome(&p).is_some() {
            break;
        }
    }
    let mut text = String::from("[Variant \"gygax\"]\n\n");
    for (i, t) in tokens.iter().enumerate() {
        if i % 2 == 0 {
            text.push_str(&format!("{}. ", i / 2 + 1));
        }
        text.push_str(t);
        text.push(' ');
    }
    text.push('*');
    let g = replay(read_games(&text).remove(0).unwrap()).unwrap();
    let out = g.canonical_text();
    assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
    assert!(out.lines().count() > 5);
    assert_eq!(g.moves.len(), tokens.len());
}

/// Every input the fuzzer once crashed on (`tests/data/fuzz-regressions`, both about
/// level 0, which Gygax Chess does not have) is now refused with the reason, and does what
/// the fuzz target `parse_game` checks: a game that replays writes a canonical text that
/// reads and replays back to itself.
#[test]
fn fuzz_regressions_are_refused_with_their_reason() {
    let mut outcomes = Vec::new();
    let mut names: Vec<_> =
        std::fs::read_dir("tests/data/fuzz-regressions").unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    for path in names {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for t in GameReader::new(&bytes[..]) {
            let outcome = match t {
                Err(e) => format!("read: {e}"),
                Ok(t) => match replay(t) {
                    Ok(g) => {
                        let out = g.canonical_text();
                        let again = GameReader::new(out.as_bytes()).next().expect("one game").expect("reads");
                        let g2 = replay(again).expect("canonical text replays");
                        assert_eq!(g2.canonical_text(), out, "{name}");
                        "replays".to_string()
                    }
                    Err(problems) => problems
                        .iter()
                        .map(|p| format!("{}: {}", p.token, p.message))
                        .collect::<Vec<_>>()
                        .join("; "),
                },
            };
            outcomes.push((name.clone(), outcome));
        }
    }
    let expected = [
        ("level-zero-origin.pgn", "read: 1:1: malformed tag pair: expected [Name \"value\"]"),
        ("level-zero-origin.pgn", "02e6: `02e6` is not a move (Scarlet, move 1): level 0 does not exist"),
        (
            "level-zero-square.pgn",
            "U0c6: `U0c6` is not a move (Scarlet, move 2): `0c6` is not a square of this board",
        ),
        ("level-zero-square.pgn", "read: 9:1: malformed tag pair: expected [Name \"value\"]"),
    ];
    let expected: Vec<(String, String)> =
        expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(outcomes, expected);
}

/// The real pychess Grand Chess record (Fairy-Stockfish letters: C = Marshall) imports,
/// validates, ends in the position its README gives, and `fmt` changes only its tags and
/// line breaks: every move token comes back as it was written.
#[test]
fn pychess_grand_record_imports_validates_and_keeps_its_moves() {
    let text = std::fs::read_to_string("../shared/corpus/grand/pychess-2024-12-26.pgn").unwrap();
    let g = replay(read_games(&text).remove(0).unwrap()).unwrap();
    assert_eq!(g.variant.def().slug, "grand");
    assert_eq!(g.moves.len(), 49);
    assert_eq!(
        ravenpost::notation::position_string::write_position(&g.variant, &g.position()),
        "4k5/1n5b2/pq2pA3p/b1pr1pQ1p1/3P3p1c/3P1P4/2P3PN2/PP1N3PPP/2B1K2B2/R8R b - - 4 25"
    );
    let tokens = |t: &str| -> Vec<String> {
        read_games(t).remove(0).unwrap().moves.iter().map(|m| m.token.clone()).collect()
    };
    let out = g.canonical_text();
    assert_eq!(tokens(&out), tokens(&text));
    assert!(out.contains("[Variant \"grand\"]") && !out.contains("[FEN"), "standard start: no FEN tag");
}

/// `games/` holds at least one complete game of every variant, each valid and canonical.
#[test]
fn games_folder_has_a_complete_valid_game_per_variant() {
    for slug in ["gygax", "fidchell", "fantasy-grand", "grand"] {
        let dir = format!("games/{slug}");
        let mut complete = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let g = replay(read_games(&text).remove(0).unwrap())
                .unwrap_or_else(|p| panic!("{}: {p:?}", path.display()));
            assert_eq!(g.canonical_text(), text, "{} is canonical", path.display());
            if g.text.result.as_ref().is_some_and(|r| r.0 != "*") {
                complete += 1;
            }
        }
        assert!(complete >= 1, "{dir}: no complete game");
    }
}

/// Regression: variations nested thousands deep overflowed the stack; now a diagnostic.
#[test]
fn deeply_nested_variations_are_refused_not_crashed() {
    let mut text = String::from("[Variant \"gygax\"]\n\n1. 2e3 ");
    for _ in 0..5000 {
        text.push_str("(1. 2e3 ");
    }
    text.push_str(&")".repeat(5000));
    text.push_str(" *\n");
    let e = read_games(&text).remove(0).unwrap_err();
    assert!(e.reason.contains("nested more than 200 deep"), "{}", e.reason);
    assert_eq!(e.line, 3);
}

/// Regression: armies given only by the FEN's army fields were lost when `fmt` dropped the
/// (standard) FEN; the canonical form writes the army tags.
#[test]
fn fen_armies_survive_the_canonical_form() {
    let text = "[Variant \"fantasy-grand\"]\n[FEN \"4rr4/1s1lkem1s1/wwwwwwwwww/10/10/10/10/PPPPPPPPPP/1NBQKMABN1/R8R \
        w - - 0 1 humans elves\"]\n\n1. e5 Rc9 *\n";
    let out = replay(read_games(text).remove(0).unwrap()).unwrap().canonical_text();
    assert!(out.contains("[WhiteArmy \"humans\"]\n[BlackArmy \"elves\"]"), "{out}");
    let again = replay(read_games(&out).remove(0).unwrap()).unwrap();
    assert_eq!(again.canonical_text(), out);
}

/// Regression: a `;` comment ending a variation swallowed its `)` when written back.
#[test]
fn line_comment_at_the_end_of_a_variation() {
    let text = "[Variant \"gygax\"]\n\n1. 2e3 (1. 2f3 ; x } y\n) *\n";
    let out = replay(read_games(text).remove(0).unwrap()).unwrap().canonical_text();
    let again = replay(read_games(&out).remove(0).unwrap()).unwrap().canonical_text();
    assert_eq!(again, out);
    assert!(out.contains(";x } y\n)"), "{out}");
}

/// Regression: a move after checkmate said "no King can go there"; it now says the game
/// is over.
#[test]
fn a_move_after_the_end_is_reported_as_such() {
    let text = "[Variant \"gygax\"]\n[FEN \"12/12/12/12/12/12/12/1c10 1o5k4/2o9/12/12/12/12/12/K11 \
        12/12/12/12/12/12/12/1c10 s 0 1\"]\n\n1... O2a7 2. K2a2 0-1\n";
    let problems = replay(read_games(text).remove(0).unwrap()).unwrap_err();
    assert!(
        problems[0].message.contains("a move after the end of the game (Scarlet wins by checkmate)"),
        "{problems:?}"
    );
}

/// TimeControl values follow movetext.md's grammar and are written canonically.
#[test]
fn time_control_is_checked_and_normalised() {
    let text = "[Variant \"gygax\"]\n[TimeControl \"1/259200\"]\n\n1. 2e3 *\n";
    let out = replay(read_games(text).remove(0).unwrap()).unwrap().canonical_text();
    assert!(out.contains("[TimeControl \"1/3d\"]"), "{out}");
    let bad = "[Variant \"gygax\"]\n[TimeControl \"garbage\"]\n\n1. 2e3 *\n";
    let problems = replay(read_games(bad).remove(0).unwrap()).unwrap_err();
    assert!(problems[0].message.contains("TimeControl `garbage`"), "{problems:?}");
    assert_eq!(problems[0].span.line, 2);
}

#[test]
fn date_and_termination_are_checked() {
    let problems = |tags: &str| {
        let text = format!("[Variant \"gygax\"]\n{tags}\n\n1. 2e3 *\n");
        replay(read_games(&text).remove(0).unwrap()).err().unwrap_or_default()
    };
    for good in ["2025.03.01", "2024.02.29", "2025.??.??", "????.??.??", "2025.03.??"] {
        assert!(problems(&format!("[Date \"{good}\"]")).is_empty(), "{good}");
    }
    for (bad, why) in [
        ("2025.02.29", "not a day of the calendar"),
        ("2025.13.??", "no month 13"),
        ("2025-03-01", "not YYYY.MM.DD"),
        ("25.03.01", "not YYYY.MM.DD"),
        ("2025.3.1", "not YYYY.MM.DD"),
    ] {
        let p = problems(&format!("[Date \"{bad}\"]"));
        assert!(p.iter().any(|p| p.message.contains(why) && p.span.line == 2), "{bad}: {p:?}");
    }
    let p = problems("[Termination \"won on time\"]");
    assert!(p[0].message.contains("unknown Termination `won on time`"), "{p:?}");
    assert!(p[0].help.as_deref().unwrap_or_default().contains("time forfeit"));
    // PGN's values are read in any case and written in lower case.
    let text = "[Variant \"gygax\"]\n[Termination \"Time Forfeit\"]\n\n1. 2e3 *\n";
    let out = replay(read_games(text).remove(0).unwrap()).unwrap().canonical_text();
    assert!(out.contains("[Termination \"time forfeit\"]"), "{out}");
}

#[test]
fn move_times_are_checked_by_validate() {
    let problems = |moves: &str| {
        let text = format!("[Variant \"gygax\"]\n\n{moves} *\n");
        replay(read_games(&text).remove(0).unwrap()).err().unwrap_or_default()
    };
    assert!(
        problems(
            "1. 2e3 {ravenpost: at 2026-11-29T16:40:00Z} 1... Sa3b6 {ravenpost: at 2026-11-30T08:00:00Z}"
        )
        .is_empty()
    );
    let p = problems("1. 2e3 {ravenpost: at garbage}");
    assert!(p[0].message.contains("ply 1: the move time `garbage` is not an RFC 3339 time"), "{p:?}");
    assert_eq!((p[0].span.line, p[0].span.column), (3, 4));
    let p = problems("1. 2e3 {ravenpost: at 2026-02-30T00:00:00Z}");
    assert!(p[0].message.contains("not an RFC 3339 time"), "{p:?}");
    let p = problems(
        "1. 2e3 {ravenpost: at 2026-11-30T00:00:00Z} 1... Sa3b6 {ravenpost: at 2026-11-29T00:00:00Z}",
    );
    assert!(p[0].message.contains("ply 2: the move time `2026-11-29T00:00:00Z` is before ply 1's"), "{p:?}");
    let p = problems("1. 2e3 {ravenpost: at 2026-11-30T00:00:00Z} {ravenpost: at 2026-11-30T00:00:01Z}");
    assert!(p[0].message.contains("ply 1 has 2 move times"), "{p:?}");
}

/// Every `.pgn` file of the repository (sample games, imports, fuzz finds), as bytes.
fn repository_game_files() -> Vec<Vec<u8>> {
    fn walk(dir: &std::path::Path, out: &mut Vec<Vec<u8>>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "pgn") {
                out.push(std::fs::read(&p).unwrap());
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in ["games", "tests/data", "fuzz/corpus/parse_game"] {
        walk(&root.join(dir), &mut out);
    }
    assert!(out.len() >= 10, "{} game files", out.len());
    out
}

/// A game's text is read in pieces, cut after lines where no comment or tag pair is
/// open: the games and errors read are the same wherever the cuts fall. The repository's
/// game files, each also with characters that open, close or break comments, tag pairs,
/// quotes and variations put in at random places.
#[test]
fn games_read_in_pieces_are_the_games_read_whole() {
    const INSERTS: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        "\"",
        "\\",
        "(",
        ")",
        ";",
        "\n",
        "\n%",
        "\n[Event \"x\"]\n",
        "$300",
        " 1-0 ",
        "\n\n",
        "{a\nb}",
    ];
    let mut rng = common::rng::Lcg(38);
    let mut texts = repository_game_files();
    let originals = texts.len();
    for k in 0..originals {
        for _ in 0..60 {
            let mut t = texts[k].clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(t.len() + 1);
                let what = INSERTS[rng.below(INSERTS.len())].as_bytes();
                t.splice(at..at, what.iter().copied());
            }
            texts.push(t);
        }
    }
    let (mut games, mut errors) = (0, 0);
    for t in &texts {
        let whole: Vec<_> = GameReader::new(&t[..]).collect();
        let pieces: Vec<_> = GameReader::with_piece_bytes(&t[..], 0).collect();
        assert_eq!(pieces, whole, "{}", String::from_utf8_lossy(t));
        games += whole.iter().filter(|g| g.is_ok()).count();
        errors += whole.iter().filter(|g| g.is_err()).count();
    }
    assert!(games > 100 && errors > 100, "{games} games, {errors} errors");
}

/// `validate` judges each game as it is read ([`Judging`]), keeping neither its moves nor
/// its positions: it finds exactly what `replay` of the whole game finds, the same
/// problems in the same order at the same places. The repository's game files, each also
/// with moves, variations, results and move times put in at random places.
#[test]
fn games_judged_as_they_are_read_get_the_problems_of_a_replay() {
    use ravenpost::record::game::Judging;
    const INSERTS: &[&str] = &[
        " 2e3 ",
        " Zz9 ",
        " e5 ",
        "(",
        ")",
        " ( 2e3 ) ",
        " 1-0 ",
        " * ",
        " 1/2-1/2 ",
        "{",
        " {ravenpost: at 2026-01-01T00:00:00Z} ",
        " {ravenpost: at 2020-01-01T00:00:00Z} ",
        " {ravenpost: at someday} ",
        "\n[Result \"0-1\"]\n",
        "\n[Date \"2026.13.01\"]\n",
    ];
    let mut rng = common::rng::Lcg(29);
    let mut texts = repository_game_files();
    let originals = texts.len();
    for k in 0..originals {
        for _ in 0..40 {
            let mut t = texts[k].clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(t.len() + 1);
                let what = INSERTS[rng.below(INSERTS.len())].as_bytes();
                t.splice(at..at, what.iter().copied());
            }
            texts.push(t);
        }
    }
    let (mut valid, mut invalid) = (0, 0);
    for t in &texts {
        let replayed: Vec<_> =
            GameReader::new(&t[..]).map(|g| g.map(|g| replay(g).map(|g| g.moves.len()))).collect();
        let mut games = GameReader::with_piece_bytes(&t[..], 0);
        let mut judged = Vec::new();
        loop {
            let mut judging = Judging::default();
            let Some(g) = games.next_streamed(&mut judging) else { break };
            judged.push(g.map(|g| judging.finish(&g)));
        }
        assert_eq!(judged, replayed, "{}", String::from_utf8_lossy(t));
        valid += replayed.iter().filter(|g| matches!(g, Ok(Ok(_)))).count();
        invalid += replayed.iter().filter(|g| matches!(g, Ok(Err(_)))).count();
    }
    assert!(valid > 50 && invalid > 100, "{valid} valid games, {invalid} with problems");
}
