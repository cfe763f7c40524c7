//! `ravenpost man`: the manual page, or one page per command; each with its EXAMPLES,
//! ravenpost(1) and ravenpost-move(1) with a NOTATION section, and the global options
//! described once, in ravenpost(1).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, italic, roman};

use crate::cli::failure::{Failure, io};

/// Print the manual page (roff; `man -l` shows it), or with --out write one page per
/// command into a folder (ravenpost.1, ravenpost-move.1, …).
#[derive(Debug, clap::Args)]
pub(crate) struct ManArgs {
    /// Write the pages into this folder (made if missing) instead.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// `ravenpost man [--out DIR]`: the pages of `ravenpost`.
pub(crate) fn run(a: ManArgs, out: &mut impl Write) -> Result<(), Failure> {
    match a.out {
        None => {
            let mut cmd = command();
            cmd.build();
            out.write_all(&page(&cmd, &[])).map_err(io)
        }
        Some(dir) => {
            let written =
                write_pages(&dir).map_err(|e| Failure::refused(format!("{}: {e}", dir.display())))?;
            writeln!(out, "Wrote {} manual pages into {}", written, dir.display()).map_err(io)
        }
    }
}

/// The command the pages describe: the global options hidden after a subcommand, which
/// names them in a GLOBAL OPTIONS section of its own instead of the note of `--help`.
fn command() -> clap::Command {
    crate::cli::help::command_with(None).disable_help_subcommand(true)
}

/// Writes ravenpost(1) and a page per (visible) subcommand into `dir`; the number of
/// pages.
///
/// # Errors
/// The I/O error.
fn write_pages(dir: &Path) -> std::io::Result<usize> {
    fn write(cmd: &clap::Command, path: &mut Vec<String>, dir: &Path) -> std::io::Result<usize> {
        let name = cmd.get_display_name().unwrap_or_else(|| cmd.get_name()).to_string();
        std::fs::write(dir.join(format!("{name}.1")), page(cmd, path))?;
        let mut n = 1;
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            path.push(sub.get_name().to_string());
            n += write(sub, path, dir)?;
            path.pop();
        }
        Ok(n)
    }
    std::fs::create_dir_all(dir)?;
    let mut cmd = command();
    cmd.build();
    write(&cmd, &mut Vec::new(), dir)
}

/// The page of `cmd`, the command `path` (its subcommand names from the top; empty for
/// ravenpost(1)), as clap_mangen lays it out with NOTATION, EXAMPLES and GLOBAL OPTIONS
/// added before EXTRA (the text after the options in `--help`).
fn page(cmd: &clap::Command, path: &[String]) -> Vec<u8> {
    let man = Man::new(cmd.clone());
    let mut out = Vec::new();
    let visible_args = cmd.get_arguments().any(|a| !a.is_hide_set());
    let visible_subs = cmd.get_subcommands().any(|s| !s.is_hide_set());
    // Writing into memory does not fail.
    let _ = (|| -> std::io::Result<()> {
        man.render_title(&mut out)?;
        man.render_name_section(&mut out)?;
        man.render_synopsis_section(&mut out)?;
        man.render_description_section(&mut out)?;
        if visible_args {
            man.render_options_section(&mut out)?;
        }
        if !path.is_empty() {
            global_options_section().to_writer(&mut out)?;
        }
        if visible_subs {
            man.render_subcommands_section(&mut out)?;
        }
        let key = path.join(" ");
        if key.is_empty() || key == "move" {
            notation_section().to_writer(&mut out)?;
        }
        if let Some((_, examples)) = EXAMPLES.iter().find(|(p, _)| *p == key) {
            examples_section(examples).to_writer(&mut out)?;
        }
        if cmd.get_after_long_help().is_some() || cmd.get_after_help().is_some() {
            man.render_extra_section(&mut out)?;
        }
        if cmd.get_version().is_some() {
            man.render_version_section(&mut out)?;
        }
        Ok(())
    })();
    out
}

/// A subcommand's GLOBAL OPTIONS: where they are described.
fn global_options_section() -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["GLOBAL OPTIONS"]);
    roff.text([
        bold("--archive"),
        roman(", "),
        bold("--author"),
        roman(", "),
        bold("--signing-key"),
        roman(", "),
        bold("--break-lock"),
        roman(": see "),
        bold("ravenpost"),
        roman("(1)."),
    ]);
    roff
}

/// One example: what it does, then the command line(s).
type Example = (&'static str, &'static str);

/// The EXAMPLES of each page, by the command's path (`""`: ravenpost(1)). Each command
/// line is parsed by a test.
const EXAMPLES: &[(&str, &[Example])] = &[
    (
        "",
        &[
            ("An archive (inside it, commands use it):", "ravenpost init ~/chess && cd ~/chess"),
            (
                "A game of Gygax Chess; White (Gold) moves first:",
                "ravenpost new gygax --white Ann --black Bo --id ann-bo",
            ),
            ("A Warrior's step on Land (level 2):", "ravenpost move ann-bo 2e3 --as Ann"),
            ("A Sylph on Air (level 3), from 3a7 to 3b6:", "ravenpost move ann-bo Sa3b6 --as Bo"),
            ("The Dragon takes it:", "ravenpost move ann-bo Rx3b6 --as Ann"),
            ("The three levels, side to move, last move:", "ravenpost show ann-bo"),
            ("Every game: players, ply, whose turn, result:", "ravenpost status"),
            ("One line per commit: ply, move, author, time:", "ravenpost log ann-bo"),
            ("Re-check every commit of every game:", "ravenpost verify"),
            ("Resign (or: draw offer|accept|claim, claim timeout):", "ravenpost resign ann-bo --as Bo"),
        ],
    ),
    (
        "new",
        &[
            (
                "A game of Gygax Chess; Ann (Gold) moves first:",
                "ravenpost new gygax --white Ann --black Bo --id ann-bo",
            ),
            (
                "Fantasy Grand Chess, Elves against Dwarves, three days a move:",
                "ravenpost new fantasy-grand --white Ann --black Bo --army-white elves --army-black dwarves \
                 --time-control 1/3d",
            ),
            (
                "A game played by email (mail send writes to these addresses):",
                "ravenpost new fidchell --white Ann --black Bo --white-email ann@example.org \
                 --black-email bo@example.net",
            ),
        ],
    ),
    (
        "move",
        &[
            (
                "Your move (your identity names the player): a Warrior's step on Land:",
                "ravenpost move ann-bo 2e3",
            ),
            (
                "Bo's reply in long form, the Sylph from 3a7 to 3b6 (SAN Sa3b6):",
                "ravenpost move ann-bo S3a7-3b6 --as Bo",
            ),
            (
                "The Dragon takes the Sylph, refused unless it is the third ply (the game as you saw it):",
                "ravenpost move ann-bo Rx3b6 --expect-ply 3",
            ),
        ],
    ),
    (
        "show",
        &[
            ("The game's position now, with the last move and the side to move:", "ravenpost show ann-bo"),
            (
                "After its third ply, seen from the second player's side:",
                "ravenpost show ann-bo --ply 3 --flip",
            ),
            ("A picture of the position:", "ravenpost show ann-bo --png ann-bo.png"),
        ],
    ),
    (
        "moves",
        &[
            ("The legal moves in the game's position:", "ravenpost moves ann-bo"),
            ("The legal moves of the start position of Gygax Chess:", "ravenpost moves gygax"),
            ("As JSON, each move in SAN and in long form:", "ravenpost moves ann-bo --json"),
        ],
    ),
    (
        "replay",
        &[
            ("Step through a game with the arrow keys (q quits):", "ravenpost replay ann-bo"),
            ("Every position of the game, one after the other:", "ravenpost replay ann-bo --all"),
        ],
    ),
    (
        "status",
        &[
            ("Every game of the archive:", "ravenpost status"),
            (
                "The games waiting for your move, the most urgent deadline first:",
                "ravenpost status --to-move",
            ),
            ("Those waiting for Bo, as JSON:", "ravenpost status --to-move Bo --json"),
        ],
    ),
    (
        "verify",
        &[
            ("Replay every commit of every game and check it by the rules:", "ravenpost verify"),
            ("Only one game's history:", "ravenpost verify ann-bo"),
        ],
    ),
    (
        "sync",
        &[
            ("Fetch the opponent's moves, check them, push yours:", "ravenpost sync"),
            (
                "Each turn of a game played through a shared repository:",
                "ravenpost sync && ravenpost move ann-bo 2e3 && ravenpost sync",
            ),
            ("Keep syncing every five minutes, playing prepared replies:", "ravenpost sync --watch 5m"),
        ],
    ),
    (
        "mail",
        &[
            (
                "Mail your move with the game file attached:",
                "ravenpost move ann-bo 2e3 && ravenpost mail send ann-bo",
            ),
            ("Check the opponent's message and commit their move:", "ravenpost mail import move.eml"),
            (
                "Write the message to a file instead of sending it:",
                "ravenpost mail export ann-bo -o move.eml",
            ),
        ],
    ),
    (
        "log",
        &[
            ("One line per change of the game:", "ravenpost log ann-bo"),
            ("Every game's changes in time order:", "ravenpost log"),
        ],
    ),
    (
        "draw",
        &[
            ("Offer a draw with your next move:", "ravenpost draw offer ann-bo"),
            ("Accept the opponent's offer:", "ravenpost draw accept ann-bo --as Bo"),
        ],
    ),
    ("resign", &[("Resign, at any time:", "ravenpost resign ann-bo --as Bo")]),
    (
        "completions",
        &[
            ("Completion in bash (a line of ~/.bashrc):", "source <(ravenpost completions bash)"),
            ("In zsh (a line of ~/.zshrc, after compinit):", "source <(ravenpost completions zsh)"),
            ("In fish (a line of ~/.config/fish/config.fish):", "ravenpost completions fish | source"),
        ],
    ),
];

/// The EXAMPLES section: each example's sentence, then its command line indented.
fn examples_section(examples: &[Example]) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["EXAMPLES"]);
    for (what, line) in examples {
        roff.control("PP", []).text([roman(*what)]);
        roff.control("RS", ["4"]).control("nf", []).text([bold(*line)]).control("fi", []).control("RE", []);
    }
    roff
}

/// One move of the NOTATION section: (variant, position string or `None` for the
/// start, moves before it, the move, its long form, what it means). A test plays each
/// with the rules.
type NotationExample =
    (&'static str, Option<&'static str>, &'static [&'static str], &'static str, &'static str, &'static str);

/// The moves the NOTATION section explains.
const NOTATION_EXAMPLES: &[NotationExample] = &[
    (
        "gygax",
        None,
        &[],
        "2e3",
        "W2e2-2e3",
        "Gygax Chess: a Warrior (the letterless piece, code W) steps from 2e2 to 2e3 on Land.",
    ),
    (
        "gygax",
        None,
        &["2e3"],
        "Sa3b6",
        "S3a7-3b6",
        "The Sylph of file a (on 3a7) goes to 3b6, on Air: read S, a, 3b6, not \"a3 to b6\"; the a \
         tells it from the Sylph on 3c7, which could go there too.",
    ),
    ("gygax", None, &[], "Rx3a7", "R3g1x3a7", "The Dragon on 3g1 takes the Sylph on 3a7."),
    (
        "gygax",
        None,
        &["2e3", "Sa3b6", "Rx3b6", "U2c6"],
        "R:2c6",
        "R3b6:2c6",
        "The Dragon on Air captures on Land below without moving.",
    ),
    (
        "gygax",
        None,
        &["2e3", "Sa3b6", "Rx3b6", "U2c6", "R:2c6"],
        "H3b7",
        "H2c8-3b7",
        "A Hero goes up from Land to Air: the destination's level says where it goes.",
    ),
    (
        "gygax",
        Some("12/12/12/12/12/12/12/12 7k4/2W9/12/12/12/12/12/K11 12/12/12/12/12/12/12/12 g 0 1"),
        &[],
        "2c8=H",
        "W2c7-2c8=H",
        "A Warrior reaching the last rank becomes a Hero (=H may be left out: it is forced).",
    ),
    (
        "gygax",
        Some("12/12/12/3H8/12/12/12/12 7k4/12/12/12/12/12/12/K11 12/12/12/12/12/3H8/12/12 g 0 1"),
        &[],
        "H32e4",
        "H3d5-2e4",
        "The Hero on Air (3d5) goes down to 2e4: the origin is its level, 3, as the Hero on 1d3 could \
         go there too.",
    ),
    ("fidchell", None, &[], "W_c3", "W_c3", "Fidchell's introduction: a drop is the code, _ and the square."),
    ("fantasy-grand", None, &[], "e5", "Pe3-e5", "Fantasy Grand Chess: a Human Pawn's two-step from e3."),
];

/// The NOTATION section: how a move is written, with [`NOTATION_EXAMPLES`].
fn notation_section() -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["NOTATION"]);
    roff.text([roman(
        "A move is written as in chess's SAN: the piece's code (a capital letter or more; none \
         for the letterless piece, the Warrior of Gygax Chess and Fidchell and each army's \
         pawn), as little of its origin as tells it from another piece of the kind that could \
         go there, x when it captures, the destination square, then =CODE when it promotes and \
         + or # for check or mate. A square is a file letter and a rank (e5, a10); in Gygax \
         Chess a level digit comes first: 3 Air, 2 Land, 1 Subterranean (3b6 is b6 on Air), and \
         in an origin a letter alone is a file and a digit alone a level.",
    )]);
    roff.control("PP", []).text([
        roman(
            "The long form gives the code (the letterless piece's too), the whole origin square, \
         then - (or x for a capture) and the destination; it is always accepted, and ",
        ),
        bold("ravenpost moves"),
        roman(" lists each legal move in it."),
    ]);
    for (_, _, _, san, long, what) in NOTATION_EXAMPLES {
        let mut text = vec![roman(*what)];
        if san != long {
            text.extend([roman(" Long form: "), bold(*long), roman(".")]);
        }
        roff.control("TP", []).text([bold(*san)]).text(text);
    }
    roff.control("PP", []).text([
        roman("The piece codes of each game: "),
        bold("ravenpost variant show"),
        roman(" "),
        italic("NAME"),
        roman("; the whole notation: docs/notation.md and notation-spec/moves.md."),
    ]);
    roff
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::moves::long_form;
    use crate::notation::position_string::parse_position;
    use crate::notation::san::{read_move, write_move};

    /// Each move of the NOTATION section is legal where it says, reads as the same move
    /// as its long form, and is what ravenpost writes.
    #[test]
    fn the_notation_examples_are_legal_moves() {
        for (variant, position, before, san, long, what) in NOTATION_EXAMPLES {
            let v = crate::variants::by_name(variant, &[]).unwrap();
            let mut pos = match position {
                Some(p) => parse_position(&v, p).unwrap(),
                None => v.start_position(),
            };
            for m in *before {
                let mv = read_move(&v, &pos, m).unwrap_or_else(|e| panic!("{m}: {e:?}"));
                pos = v.make(&pos, &mv);
            }
            let mv = read_move(&v, &pos, san).unwrap_or_else(|e| panic!("{san} ({what}): {e:?}"));
            assert_eq!(write_move(&v, &pos, &mv), *san, "{what}");
            assert_eq!(long_form(&v, &mv), *long, "{san}: {what}");
            assert_eq!(read_move(&v, &pos, long).ok(), Some(mv), "{long}");
        }
    }

    /// Each example's command line parses (the shell's `&&`, `<(…)` and `| source`
    /// aside): no example names an option that does not exist.
    #[test]
    fn every_example_parses() {
        let mut parsed = 0;
        for (page, examples) in EXAMPLES {
            for (_, line) in *examples {
                for part in line.split(" && ") {
                    let part = part.trim_start_matches("source <(").trim_end_matches(')');
                    let part = part.trim_end_matches(" | source");
                    let words: Vec<&str> = part.split_whitespace().collect();
                    if words.first() != Some(&"ravenpost") {
                        continue;
                    }
                    crate::cli::command()
                        .try_get_matches_from(&words)
                        .unwrap_or_else(|e| panic!("{page}: {part}: {e}"));
                    parsed += 1;
                }
            }
        }
        assert!(parsed > 30, "{parsed}");
    }
}
