//! Text diagrams (snapshots), their colours, and SVG pictures of positions.

mod common;

use std::sync::Arc;

use common::diagram::check_pieces;
use common::rules::{gygax, play_san, variant};
use common::{cli, cli_env};
use ravenpost::engine::Variant;
use ravenpost::notation::diagram::{DiagramStyle, diagram, diagram_styled};
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

/// BUG (reported to the lead, not fixed here: `src/notation/diagram.rs`): a last-move mark
/// around a two-letter piece code (`[Or]`) takes four columns, so the rest of that rank
/// stands one column right of its file letters (and of the other ranks). Fantasy Grand
/// Chess after 1. e5 Fob7 2. Orde3: rank 3 is 36 characters wide, the others 35. Run with
/// `cargo test --test pictures -- --ignored` once fixed, then remove the `ignore`.
#[test]
#[ignore = "BUG: a marked two-letter piece shifts the rest of its rank by one column"]
fn marked_two_letter_pieces_keep_the_columns() {
    let v = fantasy_grand();
    let (pos, last) = play_san(&v, FANTASY_GRAND_MOVES);
    let d = diagram(&v, &pos, last.as_ref());
    let widths: Vec<usize> = d
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(str::len)
        .collect();
    // Rank 10's label is one character wider on the right.
    assert!(widths[1..].iter().all(|w| *w == widths[1]), "{widths:?}\n{d}");
}
