//! A command replays its game once (issue 30): `move` read the game, then wrote its
//! canonical text by reading every move again (three move generations per earlier ply);
//! `resign`, `draw`, `leave` and a timeout claim loaded the game a second time as well.
//! Counted with the engine's generation counter (`engine::variant::generations`, per
//! thread), in process.

use crate::common;

use ravenpost::archive::{Archive, ArchiveConfig, ArchiveOptions, GitConfigScope, Identity, Timestamp};
use ravenpost::engine::variant::generations;
use ravenpost::record::{self, DrawAction};
use ravenpost::usecases::{self, Session};

/// The plies of the game before each command.
const PLIES: usize = 300;

/// An archive holding `g`, a Grand Chess game of [`PLIES`] random legal plies between
/// Ann and Bo, and the next ply's token.
fn archive_with_a_long_game(dir: &std::path::Path) -> (Archive, String) {
    let line = common::long_game::random_game("grand", PLIES + 1, 30);
    let tags: Vec<(String, String)> = [("White", "Ann"), ("Black", "Bo"), ("Variant", "grand")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let empty = record::game_text_from_tags(&tags);
    let mut movetext = String::new();
    for (i, t) in line.tokens[..PLIES].iter().enumerate() {
        if i % 2 == 0 {
            movetext.push_str(&format!("{}. ", i / 2 + 1));
        }
        movetext.push_str(t);
        movetext.push(' ');
    }
    let text = empty.trim_end().strip_suffix('*').expect("no moves yet").to_string() + &movetext + "*\n";
    let game = record::load(&text).expect("the random game replays");
    assert_eq!(game.moves.len(), PLIES);
    let mut options = ArchiveOptions::default();
    options.git_config = GitConfigScope::RepositoryOnly;
    let referee = Identity::new("Referee", "referee@example.org");
    let t = Timestamp::from_unix(1_740_787_200, 0);
    let archive =
        Archive::init_with_config(dir, &ArchiveConfig::default(), Some(&referee), t, options).unwrap();
    let tip = archive.tip().unwrap();
    archive
        .create_file("games/grand/g.pgn", game.canonical_text(), tip, Some(&referee), t, "g: new")
        .unwrap();
    (archive, line.tokens[PLIES].clone())
}

/// The move generations `run` makes on this thread.
fn counted<T>(run: impl FnOnce() -> T) -> (T, u64) {
    let before = generations();
    let out = run();
    (out, generations() - before)
}

#[test]
fn move_resign_and_draw_replayed_the_game_three_times() {
    let t = tempfile::tempdir().unwrap();
    let (archive, next) = archive_with_a_long_game(t.path());
    let ann = Session::new().with_identity(Identity::new("Ann", "ann@example.org"));
    let bo = Session::new().with_identity(Identity::new("Bo", "bo@example.org"));
    // One replay: what loading the game takes (a generation per ply, two where a
    // token's pseudo-legal match was not unique), then at most a handful more for the
    // new move's own (read, written, the outcome after it), never a second pass.
    let replay = |a: &Archive| {
        let text = a.read_file("games/grand/g.pgn").unwrap().unwrap();
        counted(|| record::load(&text).unwrap()).1
    };
    let one = replay(&archive);
    assert!(one >= PLIES as u64, "{one} generations to load {PLIES} plies");
    let once = |n: u64, what: &str| {
        assert!(n >= one, "{what}: {n} generations, fewer than a replay's {one}");
        assert!(n <= one + 12, "{what}: {n} generations, a replay being {one}");
    };
    // Ply 301 is White's: Ann's.
    let (played, n) = counted(|| usecases::play(&archive, "g", &next, Some("Ann"), None, &ann).unwrap());
    assert_eq!(played.ply, PLIES + 1);
    once(n, "move");
    let (offered, n) = counted(|| usecases::draw(&archive, "g", Some("Bo"), DrawAction::Offer, &bo).unwrap());
    assert_eq!(offered.player, "Bo");
    once(n, "draw offer");
    let (resigned, n) = counted(|| usecases::resign(&archive, "g", Some("Ann"), &ann).unwrap());
    assert_eq!(resigned.result.as_deref(), Some("0-1"));
    once(n, "resign");
    // The game as committed replays, with its moves.
    let text = archive.read_file("games/grand/g.pgn").unwrap().unwrap();
    let game = record::load(&text).unwrap();
    assert_eq!((game.moves.len(), record::result_of(&game)), (PLIES + 1, "0-1".into()));
}
