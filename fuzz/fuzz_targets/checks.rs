//! What the fuzz targets check, as plain functions: each target in this folder hands its
//! input to one of these, and `tests/it/fuzz_checks.rs` runs them on the corpus and the
//! regressions in every `cargo test`, so that they compile and hold without libFuzzer or
//! a nightly toolchain.
//!
//! One check per reader of outside input, each calling the library's real public reader:
//! game files ([`parse_game`]), position strings ([`parse_position`]), a move token in a
//! position ([`parse_move`]), `TimeControl` values ([`parse_time_control`]),
//! `ravenpost.yaml` ([`parse_config`]), army choice files ([`parse_army_choice`]), mail
//! messages ([`parse_mail`]), the pre-receive hook's input lines ([`parse_hook_input`]) and
//! `mail import` into a real archive ([`mail_import`]).
//! Each asserts that nothing panics and, where the reader has a canonical writer, that
//! what is written reads back to the same value.

// Each fuzz target uses one of the checks.
#![allow(dead_code)]

use ravenpost::archive::{ArchiveConfig, RefUpdate, read_ref_updates};
use ravenpost::engine::{Position, Side, Variant};
use ravenpost::mail::{self, Mailbox, Outgoing};
use ravenpost::notation::pgn::GameReader;
use ravenpost::notation::position_string::{self, write_position};
use ravenpost::notation::san::{read_move, write_move};
use ravenpost::notation::time_control::{self, TimeControl};
use ravenpost::record::game::replay;
use ravenpost::referee::army::{choice_tags_problem, started_game_text};
use ravenpost::referee::{ArmyChoice, check_choice_step};
use ravenpost::variants::{self, ARMIES};

/// The built-in variants, by the names `ravenpost new` takes.
const VARIANTS: [&str; 4] = ["gygax", "fidchell", "fantasy-grand", "grand"];

/// Any bytes as a game file: reading, replaying and writing back never panic, and what
/// is written back reads back to the same text.
pub fn parse_game(data: &[u8]) {
    for game in GameReader::new(data).take(8) {
        let Ok(text) = game else { continue };
        if let Ok(g) = replay(text) {
            let out = g.canonical_text();
            let again = GameReader::new(out.as_bytes()).next().expect("one game").expect("reads");
            let g2 = replay(again).expect("canonical text replays");
            assert_eq!(g2.canonical_text(), out);
        }
    }
}

/// Any text as a position string of each built-in variant (Fantasy Grand's armies taken
/// from the string, as `ravenpost new --position` does) and as a move token in the
/// start position: never a panic; a position that reads writes back to a string that
/// reads as the same position.
pub fn parse_position(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for name in VARIANTS {
        let options = variants::options_for_position(name, &[], text);
        let Ok(v) = variants::by_name(name, &options) else { continue };
        if let Ok(p) = position_string::parse_position(&v, text) {
            let w = write_position(&v, &p);
            assert_eq!(position_string::parse_position(&v, &w).unwrap(), p, "{name}: {text:?} written {w:?}");
        }
        let _ = read_move(&v, &v.start_position(), text);
    }
}

/// A variant and a position reached from its start by legal moves the bytes choose.
/// Byte 0 picks the variant (and Fantasy Grand's armies), byte 1 how many plies, then one
/// byte a ply picks among the legal moves. Every move on the way is written as SAN and
/// must read back as itself. Returns the rest of the bytes.
fn walk(data: &[u8]) -> Option<(std::sync::Arc<Variant>, Position, &[u8])> {
    let (&pick, rest) = data.split_first()?;
    let (&plies, mut rest) = rest.split_first()?;
    let name = VARIANTS[usize::from(pick) % VARIANTS.len()];
    let n = ARMIES.len();
    let a = usize::from(pick) / VARIANTS.len() % (n * n);
    let mut options = Vec::new();
    if name == "fantasy-grand" {
        let (white, black) = (ARMIES[a / n], ARMIES[a % n]);
        options.push(("army-white".to_string(), white.to_string()));
        options.push(("army-black".to_string(), black.to_string()));
        if white == "druid" || black == "druid" {
            // The Druid army is played only by agreement (rulings §4.2).
            options.push(("druid".to_string(), "allowed".to_string()));
        }
    }
    let v = variants::by_name(name, &options).expect("built-in variant");
    let mut pos = v.start_position();
    for _ in 0..(plies % 24) {
        let Some((&b, more)) = rest.split_first() else { break };
        let legal = v.legal_moves(&pos);
        if legal.is_empty() {
            break;
        }
        rest = more;
        let mv = legal[usize::from(b) % legal.len()];
        let san = write_move(&v, &pos, &mv);
        assert_eq!(
            read_move(&v, &pos, &san).ok(),
            Some(mv),
            "{name}: SAN {san:?} in {}",
            write_position(&v, &pos)
        );
        pos = v.make(&pos, &mv);
    }
    Some((v, pos, rest))
}

/// A move token (the bytes after [`walk`]'s) in a position reached by legal moves: never
/// a panic; a token that reads is a legal move, and the SAN written for it reads back as
/// the same move.
pub fn parse_move(data: &[u8]) {
    let Some((v, pos, rest)) = walk(data) else { return };
    let Ok(token) = std::str::from_utf8(rest) else { return };
    if let Ok(mv) = read_move(&v, &pos, token) {
        assert!(v.is_legal(&pos, &mv), "{token:?} read as an illegal move");
        let san = write_move(&v, &pos, &mv);
        assert_eq!(read_move(&v, &pos, &san).ok(), Some(mv), "{token:?} written {san:?}");
    }
}

/// Any text as a `TimeControl` tag value: never a panic; a value that reads is written in
/// canonical form, which reads back as the same value and is written the same again; the
/// deadline arithmetic on it does not overflow, even at the ends of its ranges.
pub fn parse_time_control(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(tc) = time_control::parse(text) else { return };
    let w = time_control::write(&tc);
    let again = time_control::parse(&w).unwrap_or_else(|e| panic!("{text:?} written {w:?}: {e}"));
    assert_eq!(again, tc, "{text:?} written {w:?}");
    assert_eq!(time_control::write(&again), w);
    if let TimeControl::Periods(periods) = &tc {
        for m in [1, 2, 41, u32::MAX] {
            let _ = time_control::allowance(periods, m);
            for (start, used, paused) in
                [(0, 0, 0), (1_700_000_000, 86_400, 3_600), (i64::MAX, u64::MAX, u64::MAX)]
            {
                let _ = time_control::deadline(&tc, start, used, m, paused);
                let _ = time_control::deadline(&tc, -start, used, m, paused);
            }
        }
    }
}

/// Any text as `ravenpost.yaml`: never a panic; settings that read are written back as
/// YAML that reads as the same settings.
pub fn parse_config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(c) = ArchiveConfig::from_yaml(text) else { return };
    let w = c.to_yaml();
    let again = ArchiveConfig::from_yaml(&w).unwrap_or_else(|e| panic!("{text:?} written {w:?}: {e}"));
    assert_eq!(again, c, "{text:?} written {w:?}");
}

/// Any text as an army choice file (and, when the input holds a NUL byte, the text before
/// it as the version before): never a panic; a choice that reads is written back as a
/// file that reads as the same choice; judging the step, the tags and the armies, and
/// starting the game of a complete choice, never panic, and a started game replays.
pub fn parse_army_choice(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (old, new) = match text.split_once('\0') {
        Some((o, n)) => (Some(o), n),
        None => (None, text),
    };
    let _ = check_choice_step("fuzz-game", old, new, None);
    let _ = check_choice_step("fuzz-game", old, new, Some("Ann"));
    let Ok(c) = ArmyChoice::from_yaml(new) else { return };
    let w = c.to_yaml();
    let again = ArmyChoice::from_yaml(&w).unwrap_or_else(|e| panic!("{new:?} written {w:?}: {e}"));
    assert_eq!(again, c, "{new:?} written {w:?}");
    let _ = c.waiting_for();
    let _ = c.is_complete();
    let _ = choice_tags_problem(&c.tags);
    for side in [Side::White, Side::Black] {
        let _ = c.side_of(c.player(side));
        if let Some(r) = c.reveal_of(side) {
            let _ = c.check_army(side, &r.army);
            let _ = ArmyChoice::commitment("fuzz-game", side, &r.army, &r.salt);
        }
    }
    if let Some(Ok(game)) = started_game_text(&c) {
        ravenpost::record::load(&game).unwrap_or_else(|e| panic!("started game {game:?}: {e}"));
    }
}

fn mailbox(name: &str, email: &str) -> Mailbox {
    Mailbox { name: name.to_string(), email: email.to_string() }
}

/// Any bytes as a mail message or mbox file: never a panic; the game a message carries is
/// checked as a game file ([`parse_game`]), and one that replays, mailed again in a
/// message [`mail::build`] writes, is read back from it as the same game.
pub fn parse_mail(data: &[u8]) {
    let Ok(messages) = mail::read_messages(data) else { return };
    for m in messages.iter().take(4) {
        let _ = mail::describe(m);
        let Ok(text) = &m.game else { continue };
        parse_game(text.as_bytes());
        let Ok(game) = ravenpost::record::load(text) else { continue };
        let out = Outgoing {
            game_id: "fuzz-game",
            text,
            game: &game,
            sender: Side::White,
            from: mailbox("Ann Example", "ann@example.org"),
            to: mailbox("Bo Example", "bo@example.org"),
            date: 1_700_000_000,
            deadline: None,
            used: None,
            answer_by: mail::AnswerBy::Import,
            via: None,
        };
        let built = mail::build(&out).unwrap_or_else(|e| panic!("mailing {text:?}: {e}"));
        let back = mail::read_messages(&built.bytes).expect("a built message reads");
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].game_id.as_deref(), Some("fuzz-game"));
        let again = back[0].game.as_ref().unwrap_or_else(|e| panic!("mailed {text:?}: {e}"));
        let replayed =
            ravenpost::record::load(again).unwrap_or_else(|e| panic!("mailed {text:?}, read {again:?}: {e}"));
        assert_eq!(replayed.canonical_text(), game.canonical_text());
    }
}

/// Any text as the pre-receive hook's standard input (and each line as the three fields
/// the hook script passes on): never a panic; every update that reads is written back as
/// a line that reads as the same update, and what the hook would refuse it for is decided;
/// its lines as pushed paths are judged, and its plies counted as the reader reads them.
pub fn parse_hook_input(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(updates) = read_ref_updates(text) {
        for u in &updates {
            let line = u.to_line();
            let again =
                RefUpdate::parse_line(&line, 1).unwrap_or_else(|e| panic!("{u:?} written {line:?}: {e}"));
            assert_eq!(&again, u, "written {line:?}");
            let _ = u.problem();
        }
    }
    for line in text.lines().take(16) {
        let mut f = line.splitn(3, ' ');
        let (old, new, refname) = (f.next().unwrap_or(""), f.next().unwrap_or(""), f.next().unwrap_or(""));
        if let Ok(u) = RefUpdate::from_fields(old, new, refname) {
            assert_eq!(u.refname, refname);
            let _ = u.problem();
        }
        // Each line as a pushed file's path, and the lines as one folder's names.
        let _ = ravenpost::referee::layout::portability_problem(line);
        let _ = ravenpost::referee::layout::case_collision(line, text.lines().take(16));
    }
    // The input as a pushed game file: the plies the hook counts before replaying are
    // the plies the reader reads.
    if let Some(plies) = ravenpost::notation::pgn::count_plies(data)
        && let Some(Ok(game)) = GameReader::new(data).next()
    {
        assert_eq!(plies, game.moves.len());
    }
}

/// The archive [`mail_import`] imports into: a fresh one, made by importing Ann's first
/// message of `fid-1` (`corpus/mail_import/seed-ply1.eml`), every 256 inputs.
pub struct ImportArchive {
    pub dir: std::path::PathBuf,
    pub archive: ravenpost::archive::Archive,
    inputs: usize,
}

pub fn import_archive() -> ImportArchive {
    use ravenpost::archive::{Archive, Identity, Timestamp};
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("ravenpost-fuzz-import-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let club = Identity { name: "Club".into(), email: "club@example.org".into() };
    // Flat: the checks below read games at their flat paths.
    let config = ravenpost::archive::ArchiveConfig {
        layout: ravenpost::archive::Layout::Flat,
        ..ravenpost::archive::ArchiveConfig::default()
    };
    let archive = Archive::init_with_config(
        &dir,
        &config,
        Some(&club),
        Timestamp::from_unix(1_700_000_000, 0),
        ravenpost::archive::ArchiveOptions::default(),
    )
    .expect("init");
    let seed = include_bytes!("../corpus/mail_import/seed-ply1.eml");
    let lines = import(&archive, seed);
    assert_eq!(lines.iter().map(|l| l.status).collect::<Vec<_>>(), ["imported"], "{lines:?}");
    ImportArchive { dir, archive, inputs: 0 }
}

pub fn import(
    archive: &ravenpost::archive::Archive,
    data: &[u8],
) -> Vec<ravenpost::usecases::mail::ImportLine> {
    let options = ravenpost::usecases::mail::ImportOptions { who: None, accept_sender: false };
    let path = std::path::Path::new("fuzz.eml");
    let session = ravenpost::usecases::Session::new();
    ravenpost::usecases::mail::import_reader(archive, path, data, options, &session)
        .expect("import reports, not fails")
}

/// Any bytes given to `mail import` of an archive holding Ann and Bo's game `fid-1`:
/// never a panic; a message that is not imported leaves the branch as it was, and an
/// imported one leaves every game it touched replaying.
pub fn mail_import(data: &[u8]) {
    thread_local!(static ARCHIVE: std::cell::RefCell<Option<ImportArchive>> = const { std::cell::RefCell::new(None) });
    ARCHIVE.with_borrow_mut(|slot| {
        if slot.as_ref().is_none_or(|a| a.inputs >= 256) {
            if let Some(old) = slot.take() {
                let _ = std::fs::remove_dir_all(&old.dir);
            }
            *slot = Some(import_archive());
        }
        let a = slot.as_mut().expect("made above");
        a.inputs += 1;
        let before = a.archive.tip().expect("tip");
        let lines = import(&a.archive, data);
        let after = a.archive.tip().expect("tip");
        if lines.iter().all(|l| l.status != "imported") {
            assert_eq!(before, after, "{lines:?}");
        }
        for l in lines.iter().filter(|l| l.status == "imported") {
            let game = l.game.as_deref().expect("an imported game has an id");
            let file = std::fs::read_dir(a.dir.join("games"))
                .expect("the games folder")
                .flatten()
                .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
                .find(|f| f.path().file_stem().is_some_and(|s| s == game))
                .unwrap_or_else(|| panic!("{game}: no file in the archive ({lines:?})"));
            let text = std::fs::read_to_string(file.path()).expect("game file");
            ravenpost::record::load(&text).unwrap_or_else(|e| panic!("{game} imported as {text:?}: {e}"));
        }
    });
}
