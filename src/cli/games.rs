//! The game a reading command (`show`, `replay`, `moves`) names: a game file or a game id
//! in the archive, replayed as far as its main line is legal, with where it breaks.

use std::path::Path;

use super::{Failure, files};
use crate::record::game::Game;
use crate::usecases::{self as ops, Session};

/// Where a shown record breaks: the first ply that cannot be played, its place in the
/// file, and why.
pub(crate) struct Break {
    pub(crate) ply: usize,
    file: String,
    problem: crate::record::game::Problem,
}

impl Break {
    /// `Record breaks at ply 7 (g.pgn:9:4): illegal move …`, and the help line.
    pub(crate) fn lines(&self) -> Vec<String> {
        let p = &self.problem;
        let mut out = vec![format!(
            "Record breaks at ply {} ({}:{}:{}): {}",
            self.ply, self.file, p.span.line, p.span.column, p.message
        )];
        out.extend(p.help.as_ref().map(|h| format!("  help: {h}")));
        out
    }

    /// The refusal of a ply `n` at or past the break.
    pub(crate) fn refuse(&self, n: usize) -> Failure {
        Failure {
            message: format!(
                "ply {n}: the record breaks before it; plies 0 to {} can be shown\n{}",
                self.ply - 1,
                self.lines().join("\n")
            ),
            code: 1,
        }
    }

    pub(crate) fn json(&self) -> serde_json::Value {
        let p = &self.problem;
        serde_json::json!({
            "ply": self.ply,
            "file": self.file,
            "line": p.span.line,
            "column": p.span.column,
            "token": p.token,
            "message": p.message,
            "help": p.help,
        })
    }
}

/// A game named on the command line, at its current position: refused when its record
/// breaks before its last ply (there is no current position then).
pub(crate) fn resolve_current_game(session: &Session, file: &Path, game: usize) -> Result<Game, Failure> {
    let (g, broken) = resolve_game(session, file, game)?;
    if let Some(b) = broken {
        return Err(Failure::refused(format!(
            "the record breaks at ply {}: it has no current position\n{}",
            b.ply,
            b.lines().join("\n")
        )));
    }
    Ok(g)
}

/// The game `file` names: a game file (its `game`th game, from 1), else a game id in the
/// session's archive; replayed as far as its main line is legal, with where it breaks.
pub(crate) fn resolve_game(
    session: &Session,
    file: &Path,
    game: usize,
) -> Result<(Game, Option<Break>), Failure> {
    if game == 0 {
        return Err(Failure::input("--game counts from 1"));
    }
    let looks_like_file = file.extension().is_some_and(|e| e == "pgn") || file.components().count() > 1;
    let (prefix, name) = if file.is_file() || files::is_stdin(file) {
        (files::load_game_prefix(file, game).map_err(Failure::input)?, files::display_name(file))
    } else if looks_like_file {
        return Err(Failure::input(format!("{}: no such file", file.display())));
    } else {
        let a = ops::open(session, false)?;
        let path = ops::find(&a, &file.to_string_lossy())?;
        let text = a.read_file(&path.path())?.unwrap_or_default();
        let definitions = ops::definitions_at(&a)?;
        let loaded = crate::record::Loader::new().definitions(&definitions).as_far_as_legal().load(&text)?;
        (crate::record::game::Prefix { game: loaded.game, broken: loaded.broken }, path.path())
    };
    let broken = prefix.broken.map(|(ply, problem)| Break { ply, file: name, problem });
    Ok((prefix.game, broken))
}
