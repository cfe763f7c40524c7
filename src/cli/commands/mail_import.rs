//! `ravenpost mail import`: the report of each message imported, one line each (wrapped
//! at spaces to the terminal's width when it is one, so nothing breaks mid-word at 80
//! columns), and the per-user archive made for the import only when something is
//! committed to it.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::cli::failure::{Failure, io, plural};
use crate::cli::files;
use crate::cli::terminal::{fit, width};
use crate::usecases::mail::{ImportLine, ImportOptions};
use crate::usecases::{self as ops, Session};

/// What one imported message did, in the order it happened: `ply 2 Sa3b6 by Bo`,
/// `Scarlet (Bo) declines the draw, ply 12 S3l6 by Bo`, `new game; ply 1 2e3 by Ann`.
pub(crate) fn imported_what(l: &ImportLine) -> String {
    let mut items = Vec::new();
    for p in &l.plies {
        items.extend(l.steps.iter().filter(|s| s.before_ply == Some(p.ply)).map(|s| s.summary.clone()));
        items.push(format!("ply {} {} by {}", p.ply, p.token, p.player));
    }
    let after: Vec<String> =
        l.steps.iter().filter(|s| s.before_ply.is_none()).map(|s| s.summary.clone()).collect();
    let result = l.result.as_deref().unwrap_or("*");
    // A result without a move says what ended the game first: `Scarlet (Bo) resigns;
    // result 1-0`.
    items.extend(after);
    let mut what = items.join(", ");
    if result != "*" {
        what = if what.is_empty() { format!("result {result}") } else { format!("{what}; result {result}") };
    }
    if l.created {
        what = if what.is_empty() { "new game".to_string() } else { format!("new game; {what}") };
    }
    what
}

/// The line after a first import that made the archive `dir` for it.
fn made_note(dir: &Path) -> String {
    format!(
        "ravenpost: imported into the archive at {}, made for it (name another with --archive DIR)",
        dir.display()
    )
}

/// `ravenpost mail import FILE|MBOX|DIR|- ...`.
pub(super) fn run(
    s: &Session,
    paths: &[PathBuf],
    options: ImportOptions<'_>,
    (json, send): (bool, bool),
    out: &mut impl Write,
) -> Result<(), Failure> {
    // The first import on a machine makes the per-user archive, as `new` does; when
    // nothing is committed to it, it is removed again.
    let (a, made) = ops::open_or_make(s)?;
    let read = (|| -> Result<Vec<ImportLine>, Failure> {
        let mut lines = Vec::new();
        for p in paths {
            lines.extend(if files::is_stdin(p) {
                // Read only as far as the archive's limit on a message.
                let name = Path::new(files::STDIN_NAME);
                crate::usecases::mail::import_reader(&a, name, std::io::stdin().lock(), options, s)?
            } else {
                crate::usecases::mail::import(&a, std::slice::from_ref(p), options, s)?
            });
        }
        Ok(lines)
    })();
    let committed = read.as_ref().is_ok_and(|lines| lines.iter().any(|l| l.status == "imported"));
    let mut kept = Some(a);
    let made_for_it = made.as_ref().filter(|_| committed).map(|m| m.dir.clone());
    let unmade = match made {
        Some(m) if !committed => {
            let dir = m.dir.clone();
            drop(kept.take());
            m.undo().map_err(|e| Failure::refused(format!("removing {}: {e}", dir.display())))?;
            Some(dir)
        }
        _ => None,
    };
    let lines = read?;
    let refused = lines.iter().filter(|l| l.status == "refused").count();
    // The opponent's moves are in: play the prepared replies that are now due.
    let answers = match &kept {
        Some(a) => ops::answer_prepared(a, s)?,
        None => Vec::new(),
    };
    // A prepared reply played here is the player's move to mail, as after `move`.
    let mailed: Vec<String> = match &kept {
        Some(a) => mail_prepared(a, s, &answers, send),
        None => Vec::new(),
    };
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&lines).expect("json")).map_err(io)?;
        for line in answers.iter().map(ToString::to_string).chain(mailed.iter().cloned()) {
            errln!("ravenpost: {line}");
        }
    } else {
        let (wide_out, wide_err) =
            (width(std::io::stdout().is_terminal()), width(std::io::stderr().is_terminal()));
        for line in answers.iter().map(ToString::to_string).chain(mailed.iter().cloned()) {
            writeln!(out, "{}", fit(&line, wide_out)).map_err(io)?;
        }
        for l in &lines {
            let msg = l.message_id.as_ref().map(|m| format!(" <{m}>")).unwrap_or_default();
            let game = l.game.as_deref().unwrap_or("?");
            match l.status {
                "refused" => errln!(
                    "{}",
                    fit(
                        &format!(
                            "ravenpost: {}{msg}: game {game}: refused, nothing committed: {}",
                            l.file,
                            l.reason.as_deref().unwrap_or("")
                        ),
                        wide_err
                    )
                ),
                "nothing-new" => writeln!(
                    out,
                    "{}",
                    fit(
                        &format!(
                            "{}{msg}: game {game}: nothing new ({})",
                            l.file,
                            l.reason.as_deref().unwrap_or("")
                        ),
                        wide_out
                    )
                )
                .map_err(io)?,
                _ => {
                    let what = imported_what(l);
                    let sep = if l.plies.is_empty() && !l.created { ": " } else { " " };
                    writeln!(
                        out,
                        "{}",
                        fit(&format!("{}{msg}: game {game}: imported{sep}{what}", l.file), wide_out)
                    )
                    .map_err(io)?;
                }
            }
        }
    }
    // The per-user archive made for this import (the mail client did not run in an
    // archive, and `--archive` was not given): say where the game went.
    if let Some(dir) = &made_for_it {
        errln!("{}", fit(&made_note(dir), width(std::io::stderr().is_terminal())));
    }
    if let Some(dir) = &unmade {
        errln!(
            "{}",
            fit(
                &format!("ravenpost: no archive was made at {}: nothing was committed", dir.display()),
                width(std::io::stderr().is_terminal())
            )
        );
    }
    if refused > 0 {
        return Err(Failure::refused(format!("{refused} message{} refused", plural(refused))));
    }
    Ok(())
}

/// For each prepared reply `answers` played: mails it to the opponent when `send`, else
/// says that it is committed but not mailed and how to mail it. One line each.
fn mail_prepared(
    archive: &crate::archive::Archive,
    s: &Session,
    answers: &[ops::Answer],
    send: bool,
) -> Vec<String> {
    let played = answers.iter().filter(|a| matches!(a.outcome, ops::AnswerOutcome::Played { .. }));
    played
        .map(|a| {
            if !send {
                return format!(
                    "{}: the prepared reply is committed but not mailed yet: `ravenpost mail send {}` mails it \
                     (or import with --send)",
                    a.game, a.game
                );
            }
            let delivery = crate::usecases::mail::Delivery::default();
            match crate::usecases::mail::send(archive, &a.game, Some(&a.owner), None, &delivery, s) {
                Ok(line) => line,
                Err(e) => format!("{}: the prepared reply is committed but was not mailed: {e}", a.game),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usecases::mail::{ImportedPly, ImportedStep};

    fn line(plies: &[(usize, &str, &str)], steps: &[(&str, Option<usize>)], result: &str) -> ImportLine {
        ImportLine {
            file: "<stdin>".into(),
            message_id: None,
            game: Some("ann-bo".into()),
            status: "imported",
            created: false,
            plies: plies
                .iter()
                .map(|(ply, token, player)| ImportedPly {
                    ply: *ply,
                    token: token.to_string(),
                    player: player.to_string(),
                })
                .collect(),
            steps: steps
                .iter()
                .map(|(s, before)| ImportedStep { summary: s.to_string(), before_ply: *before })
                .collect(),
            result: Some(result.into()),
            reason: None,
        }
    }

    /// Regression (s4 NeoMutt report, item 12): an imported decline said `imported
    /// recorded; result *`. Now it says what was imported, in the order it happened.
    #[test]
    fn import_of_a_decline_said_imported_recorded_result_star() {
        let decline = line(&[], &[("Scarlet (Bo) declines the draw", None)], "*");
        assert_eq!(imported_what(&decline), "Scarlet (Bo) declines the draw");
        let both = line(&[(12, "S3l6", "Bo")], &[("Scarlet (Bo) declines the draw", Some(12))], "*");
        assert_eq!(imported_what(&both), "Scarlet (Bo) declines the draw, ply 12 S3l6 by Bo");
        let resigned = line(&[], &[("Scarlet (Bo) resigns", None)], "1-0");
        assert_eq!(imported_what(&resigned), "Scarlet (Bo) resigns; result 1-0");
        let moved = line(&[(2, "Sa3b6", "Bo")], &[], "*");
        assert_eq!(imported_what(&moved), "ply 2 Sa3b6 by Bo", "no `; result *`");
    }

    /// Regression (s5 NeoMutt report, N3): a resignation or an accepted draw imported
    /// said `imported recorded; result 0-1: Gold (Ann) resigns`.
    #[test]
    fn import_of_a_resignation_said_imported_recorded() {
        let resigned = line(&[], &[("Gold (Ann) resigns", None)], "0-1");
        assert_eq!(imported_what(&resigned), "Gold (Ann) resigns; result 0-1");
        let accepted = line(&[], &[("Scarlet (Bo) accepts the draw", None)], "1/2-1/2");
        assert_eq!(imported_what(&accepted), "Scarlet (Bo) accepts the draw; result 1/2-1/2");
        let mated = line(&[(9, "Sa3b6#", "Bo")], &[], "0-1");
        assert_eq!(imported_what(&mated), "ply 9 Sa3b6# by Bo; result 0-1");
    }

    /// The line after a first import into an archive made for it names the archive.
    #[test]
    fn the_archive_made_for_an_import_is_named() {
        let note = made_note(Path::new("/home/bo/.local/share/ravenpost/archive"));
        assert_eq!(
            note,
            "ravenpost: imported into the archive at /home/bo/.local/share/ravenpost/archive, made for it \
             (name another with --archive DIR)"
        );
    }

    /// Regression (s4 NeoMutt report, item 14): import lines of 81-90 characters wrapped
    /// mid-word at 80 columns. Now a line wider than the terminal is filled at spaces.
    #[test]
    fn import_lines_wrapped_mid_word_at_80_columns() {
        let long = "<stdin> (message 1) <ann-bo.12.4f420f537163@example.net>: game ann-bo: imported \
                    Scarlet (Bo) declines the draw, ply 12 S3l6 by Bo";
        assert!(long.chars().count() > 80);
        let fitted = fit(long, Some(80));
        assert!(fitted.lines().count() >= 2, "{fitted}");
        for l in fitted.lines() {
            assert!(l.chars().count() <= 80, "{l:?}");
        }
        let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(words(&fitted), words(long), "every word whole, none lost");
        assert_eq!(fit(long, None), long, "no terminal: one line");
    }
}
