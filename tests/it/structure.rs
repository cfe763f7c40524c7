//! The layers of `src/`, read from its `crate::` paths: engine ← notation and search ← variants ←
//! record ← referee ← archive and mail ← usecases ← site ← server ← cli. A module names only the
//! layers below it; the archive (storage) names neither the record nor the notation; and
//! the files of the use-case layer import each other without a circle. Unit-test modules
//! (`#[cfg(test)] mod` to the end of a file) are not read for imports.
//!
//! And no function of `src/` (unit tests included) is over 150 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module of `src/` and its layer: a module may name only modules of a
/// lower layer.
const LAYERS: &[(&str, usize)] = &[
    ("engine", 0),
    ("notation", 1),
    ("search", 1),
    ("variants", 2),
    ("render", 2),
    ("record", 3),
    ("referee", 4),
    ("archive", 5),
    ("mail", 5),
    ("usecases", 6),
    ("site", 7),
    ("server", 8),
    ("cli", 9),
];

/// Lower modules a module must not name all the same.
const FORBIDDEN: &[(&str, &str, &str)] = &[
    ("archive", "record", "the archive is storage only"),
    ("archive", "notation", "the archive is storage only"),
];

/// The source without comments and without its unit-test module.
fn code(text: &str) -> String {
    // The unit-test module: `#[cfg(test)]` on a `mod` (a test-only item before it is read).
    let text = text.find("#[cfg(test)]\nmod ").map_or(text, |i| &text[..i]);
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

/// The most lines a function of `src/` may have, from its `fn` line to its closing `}`.
const MAX_FN_LINES: usize = 150;

/// The name of the function a trimmed line starts, if it starts one: `pub`, `pub(crate)`
/// or `pub(super)`, then any of `const`, `async`, `unsafe` and `extern "C"`, then
/// `fn name`.
fn fn_name(trimmed: &str) -> Option<&str> {
    let mut rest = trimmed;
    if let Some(r) = ["pub(crate) ", "pub(super) ", "pub "].iter().find_map(|v| rest.strip_prefix(v)) {
        rest = r;
    }
    while let Some(r) =
        ["const ", "async ", "unsafe ", "extern \"C\" "].iter().find_map(|q| rest.strip_prefix(q))
    {
        rest = r;
    }
    let rest = rest.strip_prefix("fn ")?;
    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// Each function with a body in `text`, as (line number, name, lines): from its `fn` line
/// to the line at its indentation that is `}` (rustfmt's layout), both counted. A
/// function whose signature ends in `;` (a trait method's declaration) or whose body is
/// on its `fn` line has none; a body never closed runs to the end of the text.
fn fn_lengths(text: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let Some(name) = fn_name(trimmed) else { continue };
        let indent = &line[..line.len() - trimmed.len()];
        // The lines at the function's indentation: its signature's (the `fn` line, then
        // `) -> T {`, `where`, `{`), then the closing `}`.
        let at_indent = lines.iter().enumerate().skip(i).filter_map(|(j, l)| {
            let t = l.strip_prefix(indent)?;
            (!t.starts_with(char::is_whitespace)).then_some((j, t.trim_end()))
        });
        let mut body = false;
        let mut end = None;
        for (j, t) in at_indent {
            if body {
                if t == "}" {
                    end = Some(j);
                    break;
                }
            } else if t.ends_with(';') || t.ends_with('}') {
                break;
            } else if t.ends_with('{') {
                body = true;
            }
        }
        if body {
            out.push((i + 1, name.to_string(), end.unwrap_or(lines.len() - 1) - i + 1));
        }
    }
    out
}

/// Every function of `files` over [`MAX_FN_LINES`] lines, as `src/path:line: fn name is N
/// lines`.
fn long_functions(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (path, text) in files {
        for (line, name, len) in fn_lengths(text) {
            if len > MAX_FN_LINES {
                out.push(format!("src/{path}:{line}: fn {name} is {len} lines"));
            }
        }
    }
    out
}

/// A function of `n` lines (its `fn` line and `}` counted) in an `impl` block, among
/// functions without a body and one-line ones.
fn synthetic_function(n: usize) -> String {
    let mut text = String::from(
        "trait T {\n    fn declared(&self) -> u8;\n    fn declared_long(\n        &self,\n    ) -> u8;\n}\n\
         pub(crate) const fn one_line() -> u8 { 1 }\n\nimpl S {\n    pub(super) fn long(\n        \
         &self,\n    ) -> u8\n    where\n        Self: Sized,\n    {\n",
    );
    // Six lines so far from `fn long(`; then a block of three whose `}` is not the
    // function's, a line each up to line `n - 1`, and the function's `}` on line `n`.
    text.push_str("        if true {\n            let _y = 0;\n        }\n");
    for k in 10..n {
        text.push_str(&format!("        let _x{k} = {k};\n"));
    }
    text.push_str("    }\n}\n\nfn after() {}\n");
    text
}

/// No function of `src/` is over [`MAX_FN_LINES`] lines (issue #30); and the measure finds
/// one that is: a synthetic function of 151 lines, not one of 150.
#[test]
fn no_function_in_src_is_over_150_lines() {
    for (n, over) in [(MAX_FN_LINES, false), (MAX_FN_LINES + 1, true)] {
        let text = synthetic_function(n);
        let found: Vec<_> = fn_lengths(&text).into_iter().map(|(_, name, len)| (name, len)).collect();
        assert_eq!(found, [("long".to_string(), n)], "{text}");
        let long = long_functions(&[("synthetic.rs".into(), text)]);
        let want = if over { vec![format!("src/synthetic.rs:10: fn long is {n} lines")] } else { vec![] };
        assert_eq!(long, want);
    }

    let files = sources();
    let measured: usize = files.iter().map(|(_, t)| fn_lengths(t).len()).sum();
    assert!(measured > 1000, "{measured} functions measured");
    let long = long_functions(&files);
    assert!(long.is_empty(), "functions over {MAX_FN_LINES} lines:\n{}", long.join("\n"));
}

/// The process-wide state and environment reads allowed outside the front ends (`cli/`,
/// `main.rs`), each with why (docs/internals.md, "Process-wide state"): (file, what the
/// line holds, why).
const PROCESS_WIDE: &[(&str, &str, &str)] = &[
    ("archive/write.rs", "static STATE", "the signal handlers, process-wide by nature"),
    ("archive/write.rs", "RAVENPOST_TEST_PAUSE", "the crash tests' pause at a step of a write"),
    ("archive/lock.rs", "COMPUTERNAME", "the host name written in the lock"),
    ("archive/remote.rs", "open_from_env", "a hook's repository as git names it, when the session says so"),
    // Not settings: the engine's constant table, a memo of the compiled-in definitions,
    // and the test-only count of move generations (issue: "a test-only hook is fine").
    ("engine/position.rs", "static Z", "the Zobrist keys: a constant table"),
    ("variants/mod.rs", "static CACHE", "the built-in variants, built once: keyed by content"),
    ("engine/variant.rs", "static GENERATIONS", "the count of move generations, for tests"),
    // Compiled into the unit tests only (`#[cfg(test)]`).
    ("archive/index.rs", "static WALK_WITH_LIBGIT2", "unit tests only: walk with libgit2"),
    ("archive/index.rs", "static WALKS_THROUGH_GIT", "unit tests only: count git log walks"),
    ("archive/index.rs", "static SEGMENT", "unit tests only: short git log segments"),
];

/// The entries of [`PROCESS_WIDE`] that are no run settings (a constant table, a memo of
/// compiled-in data, test-only counters), and so not among the five allowed.
const NOT_SETTINGS: usize = 6;

/// Each line of `src/` outside the front ends that holds process-wide state or reads the
/// environment: (file, line).
fn process_wide(files: &[(String, String)]) -> Vec<(String, String)> {
    // `env::current_dir(`: the process's directory (a child's, `Command::current_dir`, is
    // not process-wide).
    let marks = [
        "static ",
        "env::var",
        "var_os(",
        "env::current_dir(",
        "home_dir(",
        "directories::",
        "open_from_env",
    ];
    let mut found = Vec::new();
    for (path, text) in files {
        if path.starts_with("cli/") || path == "main.rs" {
            continue;
        }
        for line in code(text).lines() {
            let t = line.trim();
            // `&'static str` and the like are lifetimes, not statics.
            let t_no_lifetimes = t.replace("'static ", "");
            if marks.iter().any(|m| t_no_lifetimes.contains(m)) {
                found.push((path.clone(), t.to_string()));
            }
        }
    }
    found
}

/// The lines of `found` that [`PROCESS_WIDE`] does not allow.
fn unallowed(found: &[(String, String)]) -> Vec<String> {
    found
        .iter()
        .filter(|(path, line)| !PROCESS_WIDE.iter().any(|(p, what, _)| p == path && line.contains(what)))
        .map(|(path, line)| format!("{path}: {line}"))
        .collect()
}

#[test]
fn process_wide_state_is_only_what_is_documented() {
    let found = process_wide(&sources());
    let bad = unallowed(&found);
    assert!(
        bad.is_empty(),
        "process-wide state or environment reads below the front ends:\n{}",
        bad.join("\n")
    );
    // Each allowed one is still there (a stale entry would hide a new one in its file).
    for (path, what, why) in PROCESS_WIDE {
        assert!(
            found.iter().any(|(p, l)| p == path && l.contains(what)),
            "{path}: no `{what}` ({why}) any more"
        );
    }
    // Besides the constant table, the memo and the test-only counters: at most five.
    assert!(PROCESS_WIDE.len() - NOT_SETTINGS <= 5);
    // And the check finds one that is added.
    let mut injected = sources();
    let settings = injected.iter_mut().find(|(p, _)| p == "archive/settings.rs").expect("settings.rs");
    // Before the unit tests, which the check does not read.
    settings.1.insert_str(0, "fn home() -> Option<std::ffi::OsString> { std::env::var_os(\"HOME\") }\n");
    let bad = unallowed(&process_wide(&injected));
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].starts_with("archive/settings.rs: fn home()"), "{bad:?}");
}
