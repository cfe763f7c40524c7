//! The time of one move's commit: `Archive::commit_file` changing a small game file in an
//! archive of 1,000 games (lock, tree from the tip, commit, branch compare-and-swap,
//! working file and index entry). Also the reads behind `log`/`verify` and `status`:
//! `file_history` of one game, `history` of the whole archive, and `list_games`.
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use ravenpost::archive::{Archive, GamePath, Identity, Timestamp};

const GAMES: usize = 1_000;
const MOVES: usize = 300;

fn game(n: usize, moves: &str) -> String {
    format!(
        "[Event \"?\"]\n[Site \"ravenpost\"]\n[Date \"2025.03.01\"]\n[Round \"-\"]\n[White \"Ann Example\"]\n\
         [Black \"Bo Example\"]\n[Result \"*\"]\n[Variant \"gygax\"]\n[Ruleset \"ravenpost-1\"]\n\
         [TimeControl \"1/3d\"]\n\n{{game {n}}} {moves}*\n"
    )
}

fn move_commit(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let who = Identity::new("Ann Example", "ann@example.com");
    let t = Timestamp::from_unix(1_740_787_200, 0);
    let archive = Archive::init(tmp.path(), Some(&who), t).unwrap();
    let setup = Instant::now();
    let mut tip = archive.tip().unwrap();
    for n in 0..GAMES {
        let path = GamePath::new("gygax", &format!("game-{n:04}")).unwrap().path();
        tip = Some(archive.create_file(&path, game(n, ""), tip, Some(&who), t, "New game").unwrap());
    }
    // Game 500 gets 300 moves before anything is timed.
    let path = GamePath::new("gygax", "game-0500").unwrap().path();
    let mut ply = 0u64;
    for _ in 0..MOVES {
        ply += 1;
        let text = game(500, &format!("{{ply {ply}}} "));
        tip = Some(archive.commit_file(&path, text, tip, Some(&who), t, "move").unwrap());
    }
    eprintln!("set up {GAMES} games and {MOVES} moves in {:.1?}", setup.elapsed());

    // The reads behind `log`/`verify` (the history of game 500: 301 versions among 1,301
    // commits) and `status` (the list of games).
    let mut g = c.benchmark_group("archive_read");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    g.bench_function("file_history_301_versions_1301_commits", |b| {
        b.iter(|| assert_eq!(archive.file_history(&path).unwrap().len(), MOVES + 1))
    });
    g.bench_function("history_whole_archive_1301_commits", |b| {
        b.iter(|| assert_eq!(archive.history(None).unwrap().len(), GAMES + MOVES + 1))
    });
    g.bench_function("list_games_1000", |b| {
        b.iter(|| assert_eq!(archive.list_games().unwrap().len(), GAMES))
    });
    g.finish();

    let mut g = c.benchmark_group("move_commit");
    g.sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    g.bench_function("commit_file_in_1000_games", |b| {
        b.iter(|| {
            ply += 1;
            let text = game(500, &format!("{{ply {ply}}} "));
            tip = Some(archive.commit_file(&path, text, tip, Some(&who), t, "move").unwrap());
        })
    });
    g.finish();
}

criterion_group!(benches, move_commit);
criterion_main!(benches);
