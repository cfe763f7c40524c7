//! Diagnostics of game files: what `validate` and `fmt` report for each problem, at its
//! place in the file (compiler-style, with the line quoted), and the canonical text `fmt`
//! writes.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use serde::Serialize;

use super::files::{STDIN_NAME, definitions_near, display_name, open, stdin_bytes};
use crate::notation::pgn::GameReader;
use crate::record::Loader;
use crate::record::game::{Judging, Problem};

/// A problem with the file it is in, as `--json` prints it.
#[derive(Debug, Serialize)]
pub struct FileProblem {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The offending token.
    pub token: String,
    /// What is wrong.
    pub message: String,
    /// What would be right, if known.
    pub help: Option<String>,
}

/// What `validate` found.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    /// Files read.
    pub files: usize,
    /// Games read.
    pub games: usize,
    /// Games without problems.
    pub valid: usize,
    /// Every problem.
    pub problems: Vec<FileProblem>,
    /// The paths passed over, each with why ([`Collected::skipped`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

fn file_problem(file: &Path, p: Problem) -> FileProblem {
    FileProblem {
        file: display_name(file),
        line: p.span.line,
        column: p.span.column,
        token: p.token,
        message: p.message,
        help: p.help,
    }
}

/// Reads and replays every game of every file.
///
/// # Errors
/// A file that cannot be opened.
pub fn validate(files: &[PathBuf], progress: &mut dyn FnMut(usize, usize)) -> Result<Report, String> {
    let mut report = Report::default();
    for (k, f) in files.iter().enumerate() {
        progress(k, files.len());
        let definitions = definitions_near(f);
        let file = open(f).map_err(|e| format!("{}: {e}", display_name(f)))?;
        report.files += 1;
        // Each game judged as it is read: memory follows the longest move, not the game.
        let mut games = GameReader::new(file);
        loop {
            let mut judging = Judging::new(&definitions);
            let Some(game) = games.next_streamed(&mut judging) else { break };
            report.games += 1;
            match game {
                Err(e) => report.problems.push(file_problem(f, e.into())),
                Ok(text) => match judging.finish(&text) {
                    Ok(_) => report.valid += 1,
                    Err(ps) => report.problems.extend(ps.into_iter().map(|p| file_problem(f, p))),
                },
            }
        }
    }
    progress(files.len(), files.len());
    Ok(report)
}

/// Renders a problem as a compiler-style diagnostic, quoting its line of the file.
pub fn render(p: &FileProblem, color: bool) -> String {
    let line_text = read_line(Path::new(&p.file), p.line).unwrap_or_default();
    render_line(p, &line_text, color)
}

/// Renders a problem as [`render`] does, quoting `line_text` as its line (text that is
/// not in a file: a conditional tree given on the command line).
pub fn render_line(p: &FileProblem, line_text: &str, color: bool) -> String {
    let line_text = line_text.to_string();
    let title = p.message.clone();
    let start =
        line_text.char_indices().nth(p.column.saturating_sub(1)).map(|(i, _)| i).unwrap_or(line_text.len());
    let len = if p.token.is_empty() {
        0
    } else {
        line_text[start..]
            .find(char::is_whitespace)
            .unwrap_or(line_text.len() - start)
            .min(p.token.len())
            .max(1)
    };
    let snippet = Snippet::source(line_text.as_str())
        .line_start(p.line)
        .path(p.file.as_str())
        .annotation(AnnotationKind::Primary.span(start..start + len));
    let mut group = Level::ERROR.primary_title(title.as_str()).element(snippet);
    if let Some(h) = &p.help {
        group = group.element(Level::HELP.message(h.as_str()));
    }
    let renderer = if color { Renderer::styled() } else { Renderer::plain() };
    let rendered = renderer.render(&[group]).to_string();
    // The first line in the shape of every error (`ravenpost: FILE:LINE:COLUMN: what`),
    // then the quoted line and the help as annotate-snippets draws them.
    let mut out = format!("ravenpost: {}:{}:{}: {}", p.file, p.line, p.column, p.message);
    for line in rendered.lines().skip(1) {
        out.push('\n');
        out.push_str(line);
    }
    out
}

fn read_line(path: &Path, line: usize) -> Option<String> {
    let mut r: Box<dyn BufRead> = if path.as_os_str() == STDIN_NAME {
        Box::new(stdin_bytes().ok()?)
    } else {
        Box::new(BufReader::new(std::fs::File::open(path).ok()?))
    };
    let mut buf = Vec::new();
    for _ in 0..line {
        buf.clear();
        if r.read_until(b'\n', &mut buf).ok()? == 0 {
            return None;
        }
    }
    while matches!(buf.last(), Some(b'\n' | b'\r')) {
        buf.pop();
    }
    let s = match String::from_utf8(buf) {
        Ok(s) => s,
        Err(e) => e.into_bytes().iter().map(|&b| b as char).collect(),
    };
    Some(s.trim_start_matches('\u{feff}').to_string())
}

/// The canonical text of a whole file, or its problems.
///
/// # Errors
/// The problems of its games (a file with problems is never rewritten), or a read error.
pub fn canonical_file(path: &Path) -> Result<String, Vec<FileProblem>> {
    let definitions = definitions_near(path);
    let file = open(path).map_err(|e| {
        vec![FileProblem {
            file: display_name(path),
            line: 0,
            column: 0,
            token: String::new(),
            message: e.to_string(),
            help: None,
        }]
    })?;
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for game in GameReader::new(file) {
        match game {
            Err(e) => problems.push(file_problem(path, e.into())),
            Ok(text) => match Loader::new().definitions(&definitions).replay(text) {
                Ok(l) => out.push(l.game.canonical_text()),
                Err(ps) => problems.extend(ps.into_iter().map(|p| file_problem(path, p))),
            },
        }
    }
    if problems.is_empty() { Ok(out.join("\n")) } else { Err(problems) }
}
