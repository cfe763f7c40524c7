//! PNG pictures: each variant's start position rasterised, its size checked against the
//! SVG and its square colours against the render data read here from the variant's YAML
//! front matter (`src/variants/*.md`).

use crate::common;

use common::cli;
use common::rules::variant;
use common::tools::require_font;
use ravenpost::engine::Variant;
use ravenpost::notation::diagram::{DEFAULT_DARK, DEFAULT_LIGHT};
use ravenpost::notation::svg::svg;
use ravenpost::render::{Fonts, png, svg_to_png};
use resvg::tiny_skia::Pixmap;

/// `(light, dark)` per level, lowest level first, from the front matter of
/// `src/variants/FILE.md`; the defaults when it has no render data.
fn yaml_colors(file: &str, levels: usize) -> Vec<(String, String)> {
    let text =
        std::fs::read_to_string(format!("{}/src/variants/{file}.md", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let front = text.strip_prefix("---\n").unwrap().split("\n---").next().unwrap();
    let yaml: serde_yaml_ng::Value = serde_yaml_ng::from_str(front).unwrap();
    match yaml.get("render").and_then(|r| r.get("layerColors")).and_then(|l| l.as_sequence()) {
        None => vec![(DEFAULT_LIGHT.to_string(), DEFAULT_DARK.to_string()); levels],
        Some(list) => {
            assert_eq!(list.len(), levels);
            // The front matter lists the top level first.
            list.iter()
                .rev()
                .map(|c| {
                    (
                        c["cell-light"].as_str().unwrap().to_string(),
                        c["cell-dark"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        }
    }
}

fn rgb(hex: &str) -> [u8; 3] {
    let h = hex.trim_start_matches('#');
    let c = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).unwrap();
    [c(0), c(2), c(4)]
}

fn pixel(p: &Pixmap, x: u32, y: u32) -> [u8; 3] {
    let c = p.pixel(x, y).unwrap().demultiply();
    assert_eq!(c.alpha(), 255, "({x}, {y}) is not opaque");
    [c.red(), c.green(), c.blue()]
}

/// One square rect of the SVG: (level 1-based, file 0-based, rank 0-based, x, y, size).
type Rect = (usize, u8, u8, u32, u32, u32);

fn rects(text: &str, multi: bool) -> (u32, u32, Vec<Rect>) {
    let doc = roxmltree::Document::parse(text).unwrap();
    let root = doc.root_element();
    let num = |n: roxmltree::Node, a: &str| n.attribute(a).unwrap().parse::<u32>().unwrap();
    let list = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("square"))
        .map(|n| {
            let id = n.attribute("id").unwrap();
            let (level, rest) = if multi { (id[..1].parse().unwrap(), &id[1..]) } else { (1, id) };
            let file = rest.as_bytes()[0] - b'a';
            let rank = rest[1..].parse::<u8>().unwrap() - 1;
            (level, file, rank, num(n, "x"), num(n, "y"), num(n, "width"))
        })
        .collect();
    (num(root, "width"), num(root, "height"), list)
}

/// Renders the start position of `v`, checks the PNG's size against the SVG's, the colour
/// near the corner of every square, and the centre colour of every empty square.
fn check_start(v: &Variant, yaml: &str, fonts: Fonts) {
    let dims = v.def().dims;
    let levels = dims.levels() as usize;
    let colors = yaml_colors(yaml, levels);
    let start = v.start_position();
    let text = svg(v, &start, None);
    let (w, h, list) = rects(&text, levels > 1);
    assert_eq!(list.len(), levels * dims.files() as usize * dims.ranks() as usize);
    let bytes = if fonts == Fonts::System { png(v, &start, None, fonts) } else { svg_to_png(&text, fonts) };
    let pix = Pixmap::decode_png(&bytes.unwrap()).unwrap();
    assert_eq!((pix.width(), pix.height()), (w, h), "{yaml}: PNG size = SVG size");
    let mut empty_checked = 0;
    for (level, file, rank, x, y, size) in list {
        // a1 of each level is dark.
        let (light, dark) = &colors[level - 1];
        let want = rgb(if (file + rank) % 2 == 0 { dark } else { light });
        let inset = size / 8;
        assert_eq!(pixel(&pix, x + inset, y + inset), want, "{yaml}: level {level} file {file} rank {rank}");
        let sq = dims.square_at(level as i32 - 1, file as i32, rank as i32).unwrap();
        let portal =
            v.def().slug == "fidchell" && ravenpost::notation::diagram::portal_squares(v).contains(&sq);
        if start.piece_at(sq).is_none() && !portal {
            assert_eq!(
                pixel(&pix, x + size / 2, y + size / 2),
                want,
                "{yaml}: centre of {level} {file} {rank}"
            );
            empty_checked += 1;
        }
    }
    assert!(empty_checked > 0, "{yaml}: some squares are empty at the start");
}

#[test]
fn png_of_each_start_position_matches_the_render_data() {
    check_start(&variant("gygax", &[]), "gygax", Fonts::System);
    check_start(&variant("fidchell", &[("introduction", "default")]), "fidchell", Fonts::System);
    check_start(&variant("grand", &[]), "grand", Fonts::System);
    check_start(
        &variant("fantasy-grand", &[("army-white", "elves"), ("army-black", "evil-horde")]),
        "fantasy-grand",
        Fonts::System,
    );
}

#[test]
fn png_without_fonts_still_draws_the_squares() {
    check_start(&variant("gygax", &[]), "gygax", Fonts::None);
}

#[test]
fn piece_labels_are_drawn_when_a_font_is_there() {
    // A white disc with a black label: with a font some pixels inside the disc are dark,
    // without one the disc is plain white.
    let v = variant("grand", &[]);
    let start = v.start_position();
    let text = svg(&v, &start, None);
    let doc = roxmltree::Document::parse(&text).unwrap();
    let disc = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("piece") && n.attribute("fill") == Some("#ffffff"))
        .unwrap();
    let n = |a: &str| disc.attribute(a).unwrap().parse::<u32>().unwrap();
    let (cx, cy, r) = (n("cx"), n("cy"), n("r"));
    let dark_pixels = |fonts: Fonts| {
        let pix = Pixmap::decode_png(&svg_to_png(&text, fonts).unwrap()).unwrap();
        let mut count = 0;
        for y in cy - r / 2..cy + r / 2 {
            for x in cx - r / 2..cx + r / 2 {
                if pixel(&pix, x, y).iter().all(|c| *c < 100) {
                    count += 1;
                }
            }
        }
        count
    };
    assert_eq!(dark_pixels(Fonts::None), 0);
    // Regression (issue 20): without a font this used to pass without checking labels.
    require_font();
    assert!(dark_pixels(Fonts::System) > 0, "a label is drawn");
}

#[test]
fn show_writes_a_png_and_an_svg() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("g.pgn");
    std::fs::write(&f, "[Variant \"fidchell\"]\n[GameOptions \"introduction=default\"]\n\n1. Tb1-c4 *\n")
        .unwrap();
    let png_path = dir.path().join("pos.png");
    let svg_path = dir.path().join("pos.svg");
    let f_ = f.to_str().unwrap();
    let (code, out, err) =
        cli(&["show", f_, "--png", png_path.to_str().unwrap(), "--svg", svg_path.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let pix = Pixmap::decode_png(&std::fs::read(&png_path).unwrap()).unwrap();
    let (w, h, _) = rects(&std::fs::read_to_string(&svg_path).unwrap(), false);
    assert_eq!((pix.width(), pix.height()), (w, h));
    // A bad path: an I/O error, exit 2.
    let (code, _, err) = cli(&["show", f_, "--png", "/nonexistent-dir/x.png"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err, "ravenpost: /nonexistent-dir/x.png: No such file or directory (os error 2)\n");
    // Regression (breaker's review): pictures used to replace symbolic links and device
    // files. A link is now followed (its target gets the picture) and a folder or device
    // is refused; `-` writes to standard output.
    let show = |args: &[&str]| cli(&[&["show", f_][..], args].concat());
    #[cfg(unix)]
    {
        let link = dir.path().join("link.svg");
        std::os::unix::fs::symlink(&svg_path, &link).unwrap();
        std::fs::write(&svg_path, "old").unwrap();
        assert_eq!(show(&["--svg", link.to_str().unwrap()]).0, 0);
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert!(std::fs::read_to_string(&svg_path).unwrap().starts_with("<svg"));
        let (code, _, err) = show(&["--png", "/dev/null"]);
        assert_eq!(code, 2);
        assert_eq!(
            err,
            "ravenpost: /dev/null: not a regular file (a folder, device or pipe); nothing was written\n"
        );
    }
    let (code, _, err) = show(&["--svg", dir.path().to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "ravenpost: {}: not a regular file (a folder, device or pipe); nothing was written\n",
            dir.path().display()
        )
    );
    let (code, out, _) = show(&["--svg", "-"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("<svg") && out.trim_end().ends_with("</svg>"), "{out}");
    assert!(!std::path::Path::new("-").exists());
}
