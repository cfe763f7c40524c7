//! Text diagrams (snapshots), their colours, and SVG pictures of positions.

use crate::common;

use std::sync::Arc;

use common::diagram::check_pieces;
use common::rng::Lcg;
use common::rules::{gygax, play_san, variant};
use common::{cli, cli_env};
use ravenpost::engine::{Move, Position, Side, Variant};
use ravenpost::notation::diagram::{
    DiagramStyle, Layout, diagram, diagram_comments, diagram_laid_out, diagram_styled, piece_label,
};
use ravenpost::notation::san::write_move;
use ravenpost::notation::svg::svg;

/// Fidchell after its introduction (the `default` arrangement).
fn fidchell_arranged() -> Arc<Variant> {
    variant("fidchell", &[("introduction", "default")])
}
fn grand() -> Arc<Variant> {
    variant("grand", &[])
}
fn fantasy_grand() -> Arc<Variant> {
    variant("fantasy-grand", &[("army-white", "evil-horde"), ("army-black", "druid"), ("druid", "allowed")])
}

const GYGAX_MOVES: &[&str] = &["2e3", "Sa3b6", "R3g1x3b6"];
const FIDCHELL_MOVES: &[&str] = &["Tb1-c4", "Tb12-c9", "Kf1-e2"];
const GRAND_MOVES: &[&str] = &["e5", "Ce7", "g4", "c7"];
const FANTASY_GRAND_MOVES: &[&str] = &["e5", "Fob7", "Orde3"];

#[test]
fn start_diagrams() {
    let start = |v: &Variant| {
        let d = diagram(v, &v.start_position(), None);
        check_pieces(v, &v.start_position(), None, &d, false);
        d
    };
    insta::assert_snapshot!("gygax_start", start(&gygax()));
    insta::assert_snapshot!("fidchell_start", start(&fidchell_arranged()));
    insta::assert_snapshot!("grand_start", start(&grand()));
    insta::assert_snapshot!("fantasy_grand_start", start(&fantasy_grand()));
}

#[test]
fn mid_game_diagrams() {
    let mid = |v: &Variant, moves: &[&str]| {
        let (pos, last) = play_san(v, moves);
        let d = diagram(v, &pos, last.as_ref());
        check_pieces(v, &pos, last.as_ref(), &d, false);
        d
    };
    insta::assert_snapshot!("gygax_mid", mid(&gygax(), GYGAX_MOVES));
    insta::assert_snapshot!("fidchell_mid", mid(&fidchell_arranged(), FIDCHELL_MOVES));
    insta::assert_snapshot!("grand_mid", mid(&grand(), GRAND_MOVES));
    insta::assert_snapshot!("fantasy_grand_mid", mid(&fantasy_grand(), FANTASY_GRAND_MOVES));
}

#[test]
fn flipped_diagrams() {
    // Half a turn: rank 1 on top, files from right to left; levels keep their order.
    let flipped = |v: &Variant, moves: &[&str]| {
        let (pos, last) = play_san(v, moves);
        let d = diagram_styled(v, &pos, last.as_ref(), DiagramStyle { color: false, flip: true });
        check_pieces(v, &pos, last.as_ref(), &d, true);
        d
    };
    insta::assert_snapshot!("gygax_mid_flipped", flipped(&gygax(), GYGAX_MOVES));
    insta::assert_snapshot!("fidchell_mid_flipped", flipped(&fidchell_arranged(), FIDCHELL_MOVES));
}

#[test]
fn coloured_diagram_has_escapes_and_the_same_text() {
    let v = fidchell_arranged();
    let (pos, last) = play_san(&v, FIDCHELL_MOVES);
    let plain = diagram(&v, &pos, last.as_ref());
    let coloured = diagram_styled(&v, &pos, last.as_ref(), DiagramStyle { color: true, flip: false });
    assert!(!plain.contains('\x1b'));
    assert!(coloured.contains("\x1b[48;2;"), "{coloured}");
    // The portal background (#a070c8) and the last move's (#e0c040).
    assert!(coloured.contains("\x1b[48;2;160;112;200m"));
    assert!(coloured.contains("\x1b[48;2;224;192;64m"));
    // Without the escapes it is the plain diagram.
    let mut stripped = String::new();
    let mut in_escape = false;
    for c in coloured.chars() {
        match c {
            '\x1b' => in_escape = true,
            'm' if in_escape => in_escape = false,
            _ if in_escape => {}
            c => stripped.push(c),
        }
    }
    assert_eq!(stripped, plain);
}

fn game_file(dir: &std::path::Path) -> std::path::PathBuf {
    let f = dir.join("g.pgn");
    std::fs::write(&f, "[Variant \"gygax\"]\n\n1. 2e3 Sa3b6 2. R3g1x3b6 *\n").unwrap();
    f
}

#[test]
fn show_colours_only_when_asked_or_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let f = game_file(dir.path());
    let f = f.to_str().unwrap();
    let (code, out, err) = cli_env(&["show", f, "--color", "always"], &[("NO_COLOR", None)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains('\x1b'));
    for (args, no_color) in [
        (vec!["show", f, "--color", "never"], None),
        (vec!["show", f], Some("1")),
        // Not a terminal: auto means none.
        (vec!["show", f, "--color", "auto"], None),
        (vec!["show", f], Some("")),
    ] {
        let (code, out, err) = cli_env(&args, &[("NO_COLOR", no_color)]);
        assert_eq!(code, 0, "{err}");
        assert!(!out.contains('\x1b'), "{args:?} {no_color:?}");
        assert!(out.contains("[R]"));
    }
    let (code, _, err) = cli_env(&["show", f, "--color", "sometimes"], &[("NO_COLOR", None)]);
    assert_eq!(code, 2, "{err}");
}

/// The square rects of an SVG, by id, with their fill.
fn squares(text: &str) -> Vec<(String, String)> {
    let doc = roxmltree::Document::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("class") == Some("square"))
        .map(|n| (n.attribute("id").unwrap().to_string(), n.attribute("fill").unwrap().to_string()))
        .collect()
}

fn fill(sq: &[(String, String)], id: &str) -> String {
    sq.iter().find(|(i, _)| i == id).unwrap_or_else(|| panic!("no square {id}")).1.clone()
}

#[test]
fn svg_of_each_start_position() {
    let start = |v: &Variant| svg(v, &v.start_position(), None);
    let g = start(&gygax());
    let sq = squares(&g);
    assert_eq!(sq.len(), 3 * 96);
    assert_eq!(fill(&sq, "3a1"), "#6a9ec8");
    assert_eq!(fill(&sq, "3b1"), "#a0c8e8");
    assert_eq!(fill(&sq, "2a1"), "#6d9450");
    assert_eq!(fill(&sq, "2a2"), "#a8c890");
    assert_eq!(fill(&sq, "1a1"), "#a06848");
    assert_eq!(fill(&sq, "1l1"), "#d4a080");
    for name in ["Air (3)", "Land (2)", "Subterranean (1)"] {
        assert!(g.contains(&format!(">{name}</text>")), "{name}");
    }
    // Air is drawn leftmost.
    assert!(g.find("Air (3)").unwrap() < g.find("Land (2)").unwrap());
    assert!(g.contains(r#"width="24""#));

    let f = start(&fidchell_arranged());
    let sq = squares(&f);
    assert_eq!(sq.len(), 144);
    assert_eq!(fill(&sq, "a1"), "#7a9a5a");
    assert_eq!(fill(&sq, "b1"), "#e8dcb8");
    assert_eq!(f.matches(r#"class="portal""#).count(), 8);

    for v in [grand(), fantasy_grand()] {
        let s = start(&v);
        let sq = squares(&s);
        assert_eq!(sq.len(), 100);
        assert_eq!(fill(&sq, "a1"), ravenpost::notation::diagram::DEFAULT_DARK);
        assert_eq!(fill(&sq, "j10"), ravenpost::notation::diagram::DEFAULT_DARK);
        assert_eq!(fill(&sq, "a10"), ravenpost::notation::diagram::DEFAULT_LIGHT);
        assert!(!s.contains(r#"class="last""#));
    }
}

#[test]
fn svg_labels_pieces_and_outlines_the_last_move() {
    let v = gygax();
    let (pos, last) = play_san(&v, GYGAX_MOVES);
    let s = svg(&v, &pos, last.as_ref());
    let doc = roxmltree::Document::parse(&s).unwrap();
    assert_eq!(doc.descendants().filter(|n| n.attribute("class") == Some("last")).count(), 2);
    let labels: Vec<(&str, &str)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text") && n.attribute("font-weight") == Some("bold"))
        .map(|n| (n.text().unwrap(), n.attribute("fill").unwrap()))
        .collect();
    // 84 pieces at the start, one Sylph captured.
    assert_eq!(labels.len(), 83);
    assert!(labels.iter().all(|(t, f)| (t.chars().all(|c| c.is_uppercase()) && *f == "#000000")
        || (t.chars().all(|c| c.is_lowercase()) && *f == "#ffffff")));
    assert!(labels.contains(&("R", "#000000")) && labels.contains(&("r", "#ffffff")));
    assert_eq!(ravenpost::notation::svg::escape("<a&\"b'>"), "&lt;a&amp;&quot;b&apos;&gt;");
}

#[test]
fn show_writes_an_svg() {
    let dir = tempfile::tempdir().unwrap();
    let f = game_file(dir.path());
    let out_path = dir.path().join("pos.svg");
    let (code, out, err) = cli_env(
        &["show", f.to_str().unwrap(), "--ply", "1", "--svg", out_path.to_str().unwrap()],
        &[("NO_COLOR", None)],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("pos.svg"), "{out}");
    let text = std::fs::read_to_string(&out_path).unwrap();
    assert_eq!(squares(&text).len(), 288);
    assert_eq!(text.matches(r#"class="last""#).count(), 2);
    // Nothing left behind but the game and the picture.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    let (code, _, err) = cli(&["show", f.to_str().unwrap(), "--svg", "/nonexistent-dir/x.svg"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err, "ravenpost: /nonexistent-dir/x.svg: No such file or directory (os error 2)\n");
}

/// The position after a move of a piece with a two-letter code by `side` from a square (found by
/// playing pseudo-random legal moves from the start, seed `seed`): the position, the
/// move, and the moves in order as written (SAN).
fn after_two_letter_move(v: &Variant, side: Side, seed: u64) -> (Position, Move, Vec<String>) {
    let mut rng = Lcg(seed);
    let mut pos = v.start_position();
    let mut sans = Vec::new();
    for _ in 0..200 {
        let moves = v.legal_moves(&pos);
        assert!(!moves.is_empty(), "{}: no legal move after {sans:?}", v.def().slug);
        let two_letter: Vec<&Move> = moves
            .iter()
            .filter(|m| {
                // A move from a square (not a piece placed, as in Fidchell's introduction).
                let piece = m.from().and_then(|_| v.make(&pos, m).piece_at(m.to()));
                piece.is_some_and(|p| p.side == side && piece_label(v, p).chars().count() == 2)
            })
            .collect();
        let mine = pos.side_to_move() == side;
        let m = if mine && !two_letter.is_empty() {
            *two_letter[rng.below(two_letter.len())]
        } else {
            moves[rng.below(moves.len())]
        };
        sans.push(write_move(v, &pos, &m));
        pos = v.make(&pos, &m);
        if mine && !two_letter.is_empty() {
            return (pos, m, sans);
        }
    }
    panic!("{}: no move of a two-letter piece of {side:?} in 200 plies: {sans:?}", v.def().slug);
}

/// `text` without its ANSI escapes.
fn without_escapes(text: &str) -> String {
    let mut out = String::new();
    let mut in_escape = false;
    for c in text.chars() {
        match c {
            '\x1b' => in_escape = true,
            'm' if in_escape => in_escape = false,
            _ if in_escape => {}
            c => out.push(c),
        }
    }
    out
}

/// Every rank row of the diagram `text` (boards of `files` files, side by side or not)
/// keeps its cells in their columns: each board's rank label on the right stands 3
/// columns a file after the one on the left, as the file letters do.
fn check_columns(text: &str, files: usize, what: &str) {
    let board = 3 + 3 * files + 3 + 4;
    let mut rows = 0;
    for line in text.lines().filter(|l| l.split_whitespace().next().is_some_and(|t| t.parse::<u32>().is_ok()))
    {
        let label = line.split_whitespace().next().unwrap();
        let mut left = 0;
        while left < line.len() {
            assert_eq!(line.get(left..left + 2).map(str::trim), Some(label), "{what}: {line:?}\n{text}");
            let right = left + 3 + 3 * files + 1;
            assert_eq!(line.get(right..right + label.len()), Some(label), "{what}: {line:?}\n{text}");
            left += board;
        }
        rows += 1;
    }
    assert!(rows >= 8, "{what}: {rows} rank rows in\n{text}");
}

/// Shatranj (tests/data/variants) with its Faras coded `Hs`: a user variant with a
/// two-letter code.
fn shatranj_with_a_two_letter_code() -> Arc<Variant> {
    let text = std::fs::read_to_string("tests/data/variants/shatranj.md").unwrap();
    let text = text.replace("    - code: N\n", "    - code: Hs\n").replace(
        "\"RNBKQBNR/PPPPPPPP/8/8/8/8/pppppppp/rnbkqbnr\"",
        "\"R(Hs)BKQB(Hs)R/PPPPPPPP/8/8/8/8/pppppppp/r(hs)bkqb(hs)r\"",
    );
    assert!(text.contains("code: Hs") && text.contains("(hs)"));
    ravenpost::variants::load_definition(&text).unwrap().variant(&[]).unwrap()
}

/// A variant to draw: its name, the variant, the game file's tags naming it (none for a
/// user variant), and the sides with two-letter codes.
type Case = (String, Arc<Variant>, Option<String>, Vec<Side>);

/// Regression (issue 38): a last-move mark around a two-letter piece code (`[Or]`) took
/// four columns, so the rest of that rank stood one column right of its file letters (and
/// of the other ranks): Fantasy Grand Chess after 1. e5 Fob7 2. Orde3, rank 3 was 36
/// characters wide, the others 35. Now the mark takes the code's free column (`Or]`).
/// Checked after a move of a two-letter piece of each side in every variant with such
/// codes (Fantasy Grand Chess with each army that has them; Fidchell; a user variant) in each writer that marks a move: the terminal's (side by side and
/// stacked, turned, coloured), the mail body's and the game file's (`;|` lines).
#[test]
fn marked_two_letter_pieces_keep_the_columns() {
    let v = fantasy_grand();
    let (pos, last) = play_san(&v, FANTASY_GRAND_MOVES);
    let d = diagram(&v, &pos, last.as_ref());
    assert!(d.contains(" 3  G  G  G  G Or] G  G  G  G  G  3\n"), "{d}");
    check_columns(&d, 10, "1. e5 Fob7 2. Orde3");

    let both = vec![Side::White, Side::Black];
    let mut cases: Vec<Case> = Vec::new();
    // The armies with two-letter codes (the Humans' and the Elves' are all one letter).
    for army in ["dwarves", "evil-horde", "giants", "druid"] {
        for (white, black, side) in [(army, "humans", Side::White), ("humans", army, Side::Black)] {
            let opts = [("army-white", white), ("army-black", black), ("druid", "allowed")];
            let tags = format!(
                "[Variant \"fantasy-grand\"]\n[WhiteArmy \"{white}\"]\n[BlackArmy \"{black}\"]\n\
                 [GameOptions \"druid=allowed\"]\n"
            );
            let v = variant("fantasy-grand", &opts);
            cases.push((format!("fantasy-grand {white} v {black}"), v, Some(tags), vec![side]));
        }
    }
    let fidchell_tags = Some("[Variant \"fidchell\"]\n".to_string());
    cases.push(("fidchell".into(), variant("fidchell", &[]), fidchell_tags, both.clone()));
    cases.push(("shatranj with Hs".into(), shatranj_with_a_two_letter_code(), None, both));
    let mut checked = 0;
    for (seed, (name, v, tags, sides)) in cases.iter().enumerate() {
        let files = v.def().dims.files() as usize;
        for &side in sides {
            let (pos, last, sans) = after_two_letter_move(v, side, seed as u64 * 2 + side.index() as u64);
            let what = format!("{name}, {side:?}: {}", sans.join(" "));
            // The terminal's.
            for layout in [Layout::SideBySide, Layout::Stacked] {
                for (color, flip) in [(false, false), (false, true), (true, false)] {
                    let d = diagram_laid_out(v, &pos, Some(&last), DiagramStyle { color, flip }, layout);
                    let plain = without_escapes(&d);
                    check_columns(
                        &plain,
                        files,
                        &format!("{what} ({layout:?}, colour {color}, flip {flip})"),
                    );
                    check_pieces(v, &pos, Some(&last), &plain, flip);
                }
            }
            let plain = diagram(v, &pos, Some(&last));
            // The game file's, as `;|` lines.
            let comments: Vec<String> = diagram_comments(v, &pos, Some(&last))
                .iter()
                .map(|c| c.strip_prefix('|').unwrap().to_string())
                .collect();
            check_columns(&comments.join("\n"), files, &format!("{what} (game file)"));
            assert_eq!(comments, plain.lines().map(str::trim_end).collect::<Vec<_>>(), "{what}");
            let Some(tags) = tags else {
                checked += 1;
                continue;
            };
            // Written into a game file by `move` (with diagrams), and into a mail body.
            let (last_san, before) = sans.split_last().unwrap();
            let mut text = format!("[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n{tags}\n");
            for (i, san) in before.iter().enumerate() {
                if i % 2 == 0 {
                    text.push_str(&format!("{}. ", i / 2 + 1));
                }
                text.push_str(&format!("{san} "));
            }
            text.push_str("*\n");
            let game = ravenpost::record::load(&text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
            let options = ravenpost::record::MoveOptions { diagram: true, ..Default::default() };
            let how = ravenpost::record::Play { options, ..Default::default() };
            let (applied, _) = ravenpost::record::play(&game, last_san, how).unwrap();
            let written: Vec<&str> = applied.text.lines().filter_map(|l| l.strip_prefix(";|")).collect();
            assert_eq!(written, comments.iter().map(String::as_str).collect::<Vec<_>>(), "{what}");
            let sent = ravenpost::record::load(&applied.text).unwrap();
            let built = ravenpost::mail::build(&ravenpost::mail::Outgoing {
                game_id: "g",
                text: &applied.text,
                game: &sent,
                sender: side,
                from: ravenpost::mail::Mailbox { name: "Ann".into(), email: "ann@example.org".into() },
                to: ravenpost::mail::Mailbox { name: "Bo".into(), email: "bo@example.net".into() },
                date: 1_764_400_000,
                deadline: None,
                used: None,
                answer_by: ravenpost::mail::AnswerBy::Import,
                via: None,
            })
            .unwrap();
            let message = mail_parser::MessageParser::default().parse(&built.bytes).unwrap();
            let body = message.body_text(0).unwrap().replace("\r\n", "\n");
            let layout = Layout::fitting(v, ravenpost::mail::BODY_WIDTH);
            let in_body = diagram_laid_out(v, &pos, Some(&last), DiagramStyle::default(), layout);
            assert!(body.contains(&in_body), "{what}: the body has not the diagram\n{in_body}\n{body}");
            check_columns(&in_body, files, &format!("{what} (mail body)"));
            checked += 1;
        }
    }
    assert_eq!(checked, 8 + 2 + 2);
}
