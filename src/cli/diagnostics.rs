//! Diagnostics of game files: what `validate` and `fmt` report for each problem, at its
//! place in the file (compiler-style, with the line quoted), and the canonical text `fmt`
//! writes.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};

use super::files::{CliFiles, STDIN_NAME, stdin_bytes};
pub use crate::usecases::files::{FileProblem, Report};

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

/// Reads and replays every game of every file ([`crate::usecases::files::validate`]).
///
/// # Errors
/// A file that cannot be opened.
pub fn validate(files: &[PathBuf], progress: &mut dyn FnMut(usize, usize)) -> Result<Report, String> {
    crate::usecases::files::validate(&CliFiles, files, progress)
}

/// The canonical text of a whole file, or its problems
/// ([`crate::usecases::files::canonical_file`]).
///
/// # Errors
/// As [`crate::usecases::files::canonical_file`].
pub fn canonical_file(path: &Path) -> Result<String, Vec<FileProblem>> {
    crate::usecases::files::canonical_file(&CliFiles, path)
}
