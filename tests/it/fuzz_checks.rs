//! The fuzz targets' checks (`fuzz/fuzz_targets/checks.rs`, compiled here as a module)
//! run on their corpus, on every recorded regression and on the positions of the perft
//! files: the fuzz code cannot rot unseen, and what it checks holds for these inputs.

use crate::common;

#[path = "../../fuzz/fuzz_targets/checks.rs"]
mod checks;

use common::perft::{files, read_blocks};

/// Every corpus file of `target` (`fuzz/corpus/<target>/`, at least `min` of them) and
/// every crash kept as a regression (`fuzz/regressions/<target>/`, if any).
fn inputs(target: &str, min: usize) -> Vec<std::path::PathBuf> {
    let mut v = files_in(&format!("fuzz/corpus/{target}"));
    assert!(v.len() >= min, "{target}: {v:?}");
    let regressions = format!("fuzz/regressions/{target}");
    if std::path::Path::new(&regressions).is_dir() {
        v.extend(files_in(&regressions));
    }
    v
}

/// Runs `check` on every input of `target`.
fn replay_all(target: &str, min: usize, check: fn(&[u8])) {
    for path in inputs(target, min) {
        check(&std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    }
}

fn files_in(dir: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir}: {e}")).map(|e| e.unwrap().path()).collect();
    v.sort();
    v
}

#[test]
fn parse_game_holds_on_the_corpus_and_the_regressions() {
    let inputs: Vec<_> =
        inputs("parse_game", 1).into_iter().chain(files_in("tests/data/fuzz-regressions")).collect();
    assert!(inputs.len() >= 3, "{inputs:?}");
    for path in inputs {
        checks::parse_game(&std::fs::read(&path).unwrap());
    }
    // Every game of the repository's own games/ folder too.
    for entry in files_in("games") {
        if entry.is_dir() {
            for f in files_in(entry.to_str().unwrap()) {
                checks::parse_game(&std::fs::read(&f).unwrap());
            }
        }
    }
}

#[test]
fn parse_position_holds_on_the_perft_positions_and_their_prefixes() {
    let mut n = 0;
    for path in files() {
        for b in read_blocks(&path) {
            let text = if b.position == "start" { String::new() } else { b.position.clone() };
            for end in (0..=text.len()).filter(|i| text.is_char_boundary(*i)) {
                checks::parse_position(&text.as_bytes()[..end]);
                n += 1;
            }
        }
    }
    assert!(n > 100, "{n}");
    checks::parse_position(b"\xff\xfe not UTF-8");
    replay_all("parse_position", 7, checks::parse_position);
}

#[test]
fn parse_game_holds_on_the_third_party_corpus() {
    // Read in place (not copied into fuzz/corpus): a real game site's export.
    let pgn = std::fs::read("../shared/corpus/grand/pychess-2024-12-26.pgn").unwrap();
    checks::parse_game(&pgn);
    checks::parse_mail(&[b"Subject: [ravenpost] g: 1. e5\n\n".as_slice(), pgn.as_slice()].concat());
}

#[test]
fn parse_move_holds_on_the_corpus_and_the_regressions() {
    replay_all("parse_move", 9, checks::parse_move);
    // Every prefix of a seed: short walks, empty and cut tokens.
    for path in inputs("parse_move", 9) {
        let data = std::fs::read(&path).unwrap();
        for end in 0..data.len() {
            checks::parse_move(&data[..end]);
        }
    }
}

#[test]
fn parse_time_control_holds_on_the_corpus_and_the_regressions() {
    replay_all("parse_time_control", 9, checks::parse_time_control);
}

#[test]
fn parse_config_holds_on_the_corpus_and_the_regressions() {
    replay_all("parse_config", 3, checks::parse_config);
}

#[test]
fn parse_army_choice_holds_on_the_corpus_and_the_regressions() {
    replay_all("parse_army_choice", 4, checks::parse_army_choice);
}

#[test]
fn parse_mail_holds_on_the_corpus_and_the_regressions() {
    replay_all("parse_mail", 3, checks::parse_mail);
}

#[test]
fn parse_hook_input_holds_on_the_corpus_and_the_regressions() {
    replay_all("parse_hook_input", 2, checks::parse_hook_input);
}

#[test]
fn mail_import_holds_on_the_corpus_and_the_regressions() {
    replay_all("mail_import", 2, checks::mail_import);
}

/// `mail import`'s seeds reach the commit: Bo's reply imports into the archive made from
/// Ann's first message, and the same reply from a stranger is refused.
#[test]
fn the_mail_import_seeds_import() {
    let a = checks::import_archive();
    let reply = std::fs::read("fuzz/corpus/mail_import/seed-ply2.eml").unwrap();
    let forged =
        String::from_utf8(reply.clone()).unwrap().replace("From: \"Bo\" <bo@", "From: \"Bo\" <mallory@");
    assert_ne!(forged.as_bytes(), reply.as_slice());
    let lines = checks::import(&a.archive, forged.as_bytes());
    assert_eq!(lines[0].status, "refused", "{lines:?}");
    let lines = checks::import(&a.archive, &reply);
    assert_eq!((lines[0].status, lines[0].plies.len()), ("imported", 1), "{lines:?}");
    std::fs::remove_dir_all(&a.dir).unwrap();
}

/// The seeds reach the round trips: each is an input its reader accepts (a check that
/// returned early on every seed would prove nothing).
#[test]
fn the_seeds_are_inputs_their_readers_accept() {
    fn text(p: &std::path::Path) -> String {
        std::fs::read_to_string(p).unwrap()
    }
    for p in files_in("fuzz/corpus/parse_time_control") {
        ravenpost::notation::time_control::parse(&text(&p))
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }
    for p in files_in("fuzz/corpus/parse_config") {
        ravenpost::archive::ArchiveConfig::from_yaml(&text(&p))
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }
    for p in files_in("fuzz/corpus/parse_army_choice") {
        let t = text(&p);
        let (old, new) = t.split_once('\0').map_or((None, t.as_str()), |(o, n)| (Some(o), n));
        ravenpost::referee::check_choice_step("fuzz-game", old, new, None)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }
    let mut games = 0;
    for p in files_in("fuzz/corpus/parse_mail") {
        for m in ravenpost::mail::read_messages(&std::fs::read(&p).unwrap()).unwrap() {
            let game = m.game.unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            ravenpost::record::load(&game).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            games += 1;
        }
    }
    assert_eq!(games, 4);
    for p in files_in("fuzz/corpus/parse_hook_input") {
        let updates = ravenpost::archive::read_ref_updates(&text(&p)).unwrap();
        assert!(!updates.is_empty(), "{}", p.display());
    }
    for p in files_in("fuzz/corpus/parse_position") {
        let t = text(&p);
        // The four built-in variants the parse_position target reads each input as.
        let read = ["gygax", "fidchell", "fantasy-grand", "grand"].iter().any(|name| {
            let options = ravenpost::variants::options_for_position(name, &[], &t);
            ravenpost::variants::by_name(name, &options)
                .is_ok_and(|v| ravenpost::notation::position_string::parse_position(&v, &t).is_ok())
        });
        assert!(read, "{}: no variant reads it", p.display());
    }
}
