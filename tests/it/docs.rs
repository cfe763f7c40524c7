//! The documentation for people (`README.md`, `docs/*.md`) kept true:
//!
//! - [`reference_is_current`]: `docs/reference.md` is every command's long `--help`,
//!   generated from the command-line definition (`RAVENPOST_BLESS=1` rewrites it);
//! - [`runnable_blocks_run`]: every shell block fenced as ```` ```sh runnable ```` runs;
//! - [`links_resolve`]: every relative link names an existing file and heading;
//! - [`piece_legend_matches_the_definitions`]: the piece tables of `docs/notation.md` are
//!   the built-in definitions' codes and names.

use crate::common;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `README.md` and every `docs/*.md`, in a fixed order.
fn guides() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    docs.insert(0, root().join("README.md"));
    docs
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).display().to_string()
}

// ---------------------------------------------------------------------------------------
// The command reference

/// The width the reference is rendered at, whatever the terminal running the test.
const REFERENCE_WIDTH: usize = 100;

/// The text of `docs/reference.md`: the long help of `ravenpost` and of every subcommand,
/// depth first in the order `--help` lists them.
fn reference() -> String {
    let mut cmd = ravenpost::cli::command().term_width(REFERENCE_WIDTH).max_term_width(REFERENCE_WIDTH);
    cmd.build();
    let mut sections = Vec::new();
    collect(&mut cmd, "ravenpost".to_string(), &mut sections);
    let mut out = String::new();
    out.push_str("# Command reference\n\n");
    out.push_str(
        "<!-- Generated from the command-line definition by tests/it/docs.rs: do not edit.\n     \
         Rewrite it with: RAVENPOST_BLESS=1 cargo test --locked --test it -- docs::reference_is_current -->\n\n",
    );
    out.push_str(
        "Every command's `--help`, as `ravenpost COMMAND --help` prints it. The guides by task are\n\
         listed in the [README](../README.md#documentation).\n\n",
    );
    for (path, _) in &sections {
        let anchor = path.replace(' ', "-");
        writeln!(out, "- [{path}](#{anchor})").unwrap();
    }
    for (path, help) in &sections {
        write!(out, "\n## {path}\n\n```text\n{help}```\n").unwrap();
    }
    out
}

fn collect(cmd: &mut clap::Command, path: String, sections: &mut Vec<(String, String)>) {
    let help = cmd.render_long_help().to_string();
    let mut text = String::new();
    for line in help.trim_end().lines() {
        text.push_str(line.trim_end());
        text.push('\n');
    }
    sections.push((path.clone(), text));
    for sub in cmd.get_subcommands_mut() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        let name = sub.get_name().to_string();
        collect(sub, format!("{path} {name}"), sections);
    }
}

/// `docs/reference.md` is what the command line says now; `RAVENPOST_BLESS=1` rewrites it.
#[test]
fn reference_is_current() {
    let path = root().join("docs/reference.md");
    let want = reference();
    if std::env::var_os("RAVENPOST_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default().replace("\r\n", "\n");
    if have != want {
        let first = have
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(have.lines().count().min(want.lines().count()));
        panic!(
            "docs/reference.md is not the commands' help as it is now (first difference at line {}: \
             {:?} where the help says {:?}); rewrite it with\n    \
             RAVENPOST_BLESS=1 cargo test --locked --test it -- docs::reference_is_current",
            first + 1,
            have.lines().nth(first).unwrap_or("(end of file)"),
            want.lines().nth(first).unwrap_or("(end of file)"),
        );
    }
}

/// The reference covers every command, one section each, and no section is empty.
#[test]
fn reference_lists_every_command() {
    let text = reference();
    for path in [
        "ravenpost",
        "ravenpost move",
        "ravenpost mail import",
        "ravenpost hook install",
        "ravenpost tournament new",
    ] {
        assert!(text.contains(&format!("\n## {path}\n")), "no section for `{path}`");
    }
    assert!(!text.contains("```text\n```"), "an empty help");
    assert!(text.lines().all(|l| l == l.trim_end()), "trailing spaces");
}

// ---------------------------------------------------------------------------------------
// Runnable shell blocks

/// A fenced block of a guide: its info string, first line number (of its text) and text.
struct Block {
    info: String,
    line: usize,
    text: String,
}

/// The fenced code blocks of a Markdown text (fences of backticks, maybe indented, as in
/// list items; the indentation of the fence is taken off its lines).
fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String, Block)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let fence = "`".repeat(3 + info.chars().take_while(|&c| c == '`').count());
                    let info = info.trim_start_matches('`').trim().to_string();
                    open = Some((indent, fence, Block { info, line: i + 2, text: String::new() }));
                }
            }
            Some((fence_indent, fence, block)) => {
                if trimmed.starts_with(fence.as_str()) && trimmed.trim_end() == fence.as_str() {
                    out.push(open.take().unwrap().2);
                } else {
                    let cut =
                        line.char_indices().nth((*fence_indent).min(indent)).map_or(line.len(), |(b, _)| b);
                    block.text.push_str(&line[cut..]);
                    block.text.push('\n');
                }
            }
        }
    }
    out
}

/// Every ```` ```sh runnable ```` block of each guide runs with the built binary: the
/// blocks of one file in order in one `bash -euo pipefail`, as a reader types them, in a
/// new temporary folder that is also the (empty) `HOME`, with nothing of the caller's
/// environment but `PATH`.
#[test]
fn runnable_blocks_run() {
    common::tools::require("git", &["--version"], "git");
    let bin = tempfile::tempdir().unwrap();
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_ravenpost"));
    std::os::unix::fs::symlink(&exe, bin.path().join("ravenpost")).unwrap();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = Vec::new();
    let mut failures = Vec::new();
    for guide in guides() {
        let name = relative(&guide);
        let runnable: Vec<Block> =
            blocks(&read(&guide)).into_iter().filter(|b| b.info == "sh runnable").collect();
        if runnable.is_empty() {
            continue;
        }
        let mut script = String::from("set -euo pipefail\n");
        for b in &runnable {
            writeln!(script, "echo '>>> {name}:{}' >&2", b.line).unwrap();
            script.push_str(&b.text);
        }
        let home = tempfile::tempdir().unwrap();
        let home = home.path().canonicalize().unwrap();
        let o = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(&home)
            .env_clear()
            .env("PATH", &path)
            .env("HOME", &home)
            .env("TZ", "UTC")
            .env("LC_ALL", "C")
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("bash runs");
        ran.push(format!("{name}: {} blocks", runnable.len()));
        if !o.status.success() {
            let err = String::from_utf8_lossy(&o.stderr);
            let at = err.lines().rev().find_map(|l| l.strip_prefix(">>> ")).unwrap_or("?").to_string();
            failures.push(format!(
                "{name}: the block at {at} failed ({}):\n--- stdout\n{}\n--- stderr\n{err}",
                o.status,
                String::from_utf8_lossy(&o.stdout)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    for must in ["README.md", "docs/git.md", "docs/email.md", "docs/notation.md", "docs/playing.md"] {
        assert!(
            ran.iter().any(|r| r.starts_with(&format!("{must}:"))),
            "no runnable block in {must}: {ran:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Links

/// GitHub's anchor of a heading: lower case, letters, digits, `-` and `_` kept, spaces
/// made `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The text of a Markdown file outside its fenced blocks, line by line (fenced lines are
/// blank, so that line numbers stay).
fn prose(text: &str) -> Vec<String> {
    let mut fence: Option<String> = None;
    text.lines()
        .map(|line| {
            let t = line.trim_start();
            match &fence {
                Some(f) => {
                    if t.trim_end() == f.as_str() {
                        fence = None;
                    }
                    String::new()
                }
                None if t.starts_with("```") => {
                    fence = Some("`".repeat(t.chars().take_while(|&c| c == '`').count()));
                    String::new()
                }
                None => line.to_string(),
            }
        })
        .collect()
}

/// The anchors of a Markdown file's headings (a repeated heading gets `-1`, `-2`, …).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for line in prose(text) {
        let t = line.trim_start();
        let hashes = t.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
            let base = slug(&t[hashes..]);
            let mut anchor = base.clone();
            let mut n = 0;
            while seen.contains(&anchor) {
                n += 1;
                anchor = format!("{base}-{n}");
            }
            seen.insert(anchor);
        }
    }
    seen
}

/// The link targets of a line of prose: `[text](target)` and `![alt](target)`, inline
/// code taken out first.
fn link_targets(line: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code {
            plain.push(c);
        }
    }
    let mut out = Vec::new();
    let mut rest = plain.as_str();
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let end = after.find(')').unwrap_or(after.len());
        let target = after[..end].split_whitespace().next().unwrap_or("").to_string();
        out.push(target);
        rest = &after[end..];
    }
    out
}

/// Every relative link of `README.md` and `docs/*.md` names an existing file or folder,
/// and its `#anchor`, if any, a heading of that Markdown file.
#[test]
fn links_resolve() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for guide in guides() {
        let text = read(&guide);
        for (n, line) in prose(&text).iter().enumerate() {
            for target in link_targets(line) {
                if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (file, anchor) = match target.split_once('#') {
                    Some((f, a)) => (f, Some(a)),
                    None => (target.as_str(), None),
                };
                let dest = if file.is_empty() { guide.clone() } else { guide.parent().unwrap().join(file) };
                let at = format!("{}:{}: {target}", relative(&guide), n + 1);
                if !dest.exists() {
                    broken.push(format!("{at}: no such file"));
                    continue;
                }
                if let Some(anchor) = anchor {
                    if dest.extension().is_none_or(|e| e != "md") {
                        broken.push(format!("{at}: an anchor into a file that is not Markdown"));
                    } else if !anchors(&read(&dest)).contains(anchor) {
                        broken.push(format!("{at}: no heading #{anchor} in {}", relative(&dest)));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked > 50, "only {checked} links checked: is the link reader broken?");
}

#[test]
fn slugs_are_githubs() {
    assert_eq!(slug("Your settings and the archive's"), "your-settings-and-the-archives");
    assert_eq!(
        slug("Smart HTTP: `git http-backend` behind a web server with authentication"),
        "smart-http-git-http-backend-behind-a-web-server-with-authentication"
    );
    assert_eq!(slug("Secret army choice (Fantasy Grand Chess)"), "secret-army-choice-fantasy-grand-chess");
    assert_eq!(link_targets("see [`a`](b.md#c) and ![x](y.png), `[no](code)`"), ["b.md#c", "y.png"]);
}

// ---------------------------------------------------------------------------------------
// The piece legend

/// The YAML front matter of a built-in definition.
fn definition(slug: &str) -> serde_yaml_ng::Value {
    let text = read(&root().join(format!("src/variants/{slug}.md")));
    let front = text.strip_prefix("---\n").and_then(|t| t.split_once("\n---\n")).map(|(f, _)| f).unwrap();
    serde_yaml_ng::from_str(front).unwrap()
}

/// (code, name) of each piece of a definition's list, each code recoded by `recode`.
fn pieces(list: &serde_yaml_ng::Value, recode: &serde_yaml_ng::Value) -> Vec<(String, String)> {
    list.as_sequence()
        .unwrap()
        .iter()
        .map(|p| {
            let code = p["code"].as_str().unwrap();
            let code = recode.get(code).and_then(|c| c.as_str()).unwrap_or(code);
            (code.to_string(), p["name"].as_str().unwrap().to_string())
        })
        .collect()
}

/// Each table of `docs/notation.md`'s piece legend, headed `### … (`slug`)`, lists
/// exactly the codes and names of that game's (or army's) built-in definition, in order.
#[test]
fn piece_legend_matches_the_definitions() {
    let text = read(&root().join("docs/notation.md"));
    let legend = text.split_once("\n## Piece legend\n").unwrap().1;
    let legend = legend.split_once("\n## ").map_or(legend, |(l, _)| l);
    let none = serde_yaml_ng::Value::Null;
    let fantasy = definition("fantasy-grand");
    let grand = definition("grand");
    let mut seen = Vec::new();
    for section in legend.split("\n### ").skip(1) {
        let heading = section.lines().next().unwrap();
        let key = heading
            .rsplit_once("(`")
            .and_then(|(_, k)| k.strip_suffix("`)"))
            .unwrap_or_else(|| panic!("{heading}"));
        let want = match key {
            "gygax" | "fidchell" => pieces(&definition(key)["engine"]["pieces"], &none),
            "grand" => pieces(&fantasy["engine"]["armies"]["humans"]["pieces"], &grand["engine"]["recode"]),
            army => pieces(&fantasy["engine"]["armies"][army]["pieces"], &none),
        };
        let have: Vec<(String, String)> = section
            .lines()
            .filter_map(|l| l.strip_prefix("| `"))
            .map(|l| {
                let cells: Vec<&str> = l.split(" | ").collect();
                (cells[0].trim_end_matches('`').to_string(), cells[1].trim().to_string())
            })
            .collect();
        assert_eq!(have, want, "docs/notation.md, {heading}");
        seen.push(key.to_string());
    }
    let mut armies: Vec<String> = fantasy["engine"]["armies"]
        .as_mapping()
        .unwrap()
        .keys()
        .map(|k| k.as_str().unwrap().to_string())
        .collect();
    armies.extend(["gygax", "fidchell", "grand"].map(String::from));
    armies.sort();
    seen.sort();
    assert_eq!(seen, armies, "a table for each game and each Fantasy Grand army");
}
