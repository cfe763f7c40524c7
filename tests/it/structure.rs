//! The layers of `src/`, read from its `crate::` paths: engine ← notation ← variants ←
//! record ← referee ← archive and mail ← usecases ← site ← cli. A module names only the
//! layers below it; the archive (storage) names neither the record nor the notation; and
//! the files of the use-case layer import each other without a circle. Unit-test modules
//! (`#[cfg(test)]` to the end of a file) are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module of `src/` and its layer: a module may name only modules of a
/// lower layer.
const LAYERS: &[(&str, usize)] = &[
    ("engine", 0),
    ("notation", 1),
    ("variants", 2),
    ("render", 2),
    ("record", 3),
    ("referee", 4),
    ("archive", 5),
    ("mail", 5),
    ("usecases", 6),
    ("site", 7),
    ("cli", 8),
];

/// Lower modules a module must not name all the same.
const FORBIDDEN: &[(&str, &str, &str)] = &[
    ("archive", "record", "the archive is storage only"),
    ("archive", "notation", "the archive is storage only"),
];

/// The source without comments and without its unit-test module.
fn code(text: &str) -> String {
    let text = text.find("#[cfg(test)]").map_or(text, |i| &text[..i]);
    text.lines()
        .map(|l| {
            let t = l.trim_start();
            if t.starts_with("//") { "" } else { l }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first path segments named after each `prefix` in `code`: `prefix` `name` and each
/// top-level name of `prefix` `{a, b::c}`.
fn names_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident =
        |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => start = true,
                    c if c.is_whitespace() => {}
                    _ if start && depth == 1 => {
                        start = false;
                        let name = ident(&group[k..]);
                        if !name.is_empty() && name != "self" {
                            out.insert(name);
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// The files of `src/`, as (path relative to `src/`, text).
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let rel = p.strip_prefix("src").unwrap().to_string_lossy().replace('\\', "/");
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new("src"), &mut out);
    out
}

/// Every import that breaks the layers, as `file: why`.
fn layer_violations(files: &[(String, String)]) -> Vec<String> {
    let rank: BTreeMap<&str, usize> = LAYERS.iter().copied().collect();
    let mut out = Vec::new();
    for (path, text) in files {
        let top = path.split(['/', '.']).next().unwrap();
        if matches!(top, "lib" | "main") {
            continue;
        }
        let Some(&mine) = rank.get(top) else {
            out.push(format!("{path}: the module `{top}` has no layer in LAYERS"));
            continue;
        };
        for name in names_after(&code(text), "crate::") {
            if name == top {
                continue;
            }
            match rank.get(name.as_str()) {
                None => out.push(format!("{path}: names `crate::{name}`, which has no layer")),
                Some(&theirs) if theirs >= mine => out.push(format!(
                    "{path}: `{top}` (layer {mine}) names `{name}` (layer {theirs}), not below it"
                )),
                Some(_) => {
                    if let Some((_, _, why)) = FORBIDDEN.iter().find(|(a, b, _)| *a == top && *b == name) {
                        out.push(format!("{path}: `{top}` names `{name}`: {why}"));
                    }
                }
            }
        }
    }
    out
}

/// The imports between the files of `layer` (`src/<layer>/*.rs`, `mod.rs` aside: it only
/// re-exports), a name re-exported by `mod.rs` counted as an import of the file it comes
/// from.
fn file_edges(files: &[(String, String)], layer: &str) -> BTreeMap<String, BTreeSet<String>> {
    let prefix = format!("{layer}/");
    let mine: BTreeMap<String, &String> = files
        .iter()
        .filter_map(|(p, t)| {
            let name = p.strip_prefix(&prefix)?.strip_suffix(".rs")?;
            (!name.contains('/')).then(|| (name.to_string(), t))
        })
        .collect();
    // `pub use file::{A, B}` in mod.rs: where each re-exported name comes from.
    let mut reexported: BTreeMap<String, String> = BTreeMap::new();
    if let Some(m) = mine.get("mod") {
        let m = code(m);
        for (file, _) in mine.iter().filter(|(f, _)| *f != "mod") {
            for name in names_after(&m, &format!("pub use {file}::")) {
                reexported.insert(name, file.clone());
            }
        }
    }
    let mut edges = BTreeMap::new();
    for (file, text) in mine.iter().filter(|(f, _)| *f != "mod") {
        let c = code(text);
        let named =
            names_after(&c, "super::").into_iter().chain(names_after(&c, &format!("crate::{layer}::")));
        let to: BTreeSet<String> = named
            .filter_map(|n| if mine.contains_key(&n) { Some(n) } else { reexported.get(&n).cloned() })
            .filter(|n| n != file && n != "mod")
            .collect();
        edges.insert(file.clone(), to);
    }
    edges
}

/// A circle of imports in `edges`, if there is one.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            let mut c = path[i..].to_vec();
            c.push(n.to_string());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for m in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|n| visit(n, edges, &mut Vec::new(), &mut done))
}

#[test]
fn no_module_imports_upward() {
    let files = sources();
    assert!(files.len() > 50, "{} files", files.len());
    let bad = layer_violations(&files);
    assert!(bad.is_empty(), "imports against the layers:\n{}", bad.join("\n"));
}

#[test]
fn the_use_case_files_import_each_other_without_a_circle() {
    let edges = file_edges(&sources(), "usecases");
    // The layer's files as read: the kernel and the reports are imported, not importing.
    assert!(edges["checks"].contains("games"), "{edges:?}");
    assert!(edges["definitions"].contains("report"), "{edges:?}");
    assert!(edges["report"].is_empty() && edges["error"].is_empty(), "{edges:?}");
    assert_eq!(circle(&edges), None, "{edges:?}");
}

/// The checks fail when an import goes up or round: an engine file naming the command
/// line, the archive naming the record, and two use-case files naming each other.
#[test]
fn an_upward_import_or_a_circle_is_found() {
    let mut files = sources();
    assert!(layer_violations(&files).is_empty());
    files.push(("engine/extra.rs".into(), "use crate::{cli::Cli, engine::Side};\n".into()));
    files.push(("archive/extra.rs".into(), "fn f() { crate::record::load(\"\"); }\n".into()));
    files.push(("mail/extra.rs".into(), "use crate::usecases::find;\n".into()));
    let bad = layer_violations(&files);
    assert_eq!(bad.len(), 3, "{bad:?}");
    assert!(bad[0].starts_with("engine/extra.rs: `engine` (layer 0) names `cli`"), "{bad:?}");
    assert_eq!(bad[1], "archive/extra.rs: `archive` names `record`: the archive is storage only");
    assert!(bad[2].starts_with("mail/extra.rs: `mail` (layer 5) names `usecases`"), "{bad:?}");

    // `report` naming `checks` (which imports it) closes a circle; through a name that
    // mod.rs re-exports too.
    let mut files = sources();
    let report = files.iter_mut().find(|(p, _)| p == "usecases/report.rs").unwrap();
    report.1.push_str("\nuse super::status;\n");
    let c = circle(&file_edges(&files, "usecases")).expect("a circle");
    assert!(c.contains(&"report".to_string()) && c.contains(&"checks".to_string()), "{c:?}");
}
