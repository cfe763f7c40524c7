//! The scale benchmark (issues 12 and 31): the real `ravenpost` binary on a club's archive
//! of 300, 3,000 and 30,000 Grand Chess games (300 games: some 25,000 plies, one commit
//! each; 30,000: some 2.5 million).
//!
//! The archives are generated, deterministically: a fixed-seed RNG plays random legal
//! moves (40 to 130 plies a game, 85 on average), each game file is written exactly as
//! `ravenpost new` and `ravenpost move` write it (the same tags; `record::play_move_at`
//! with the move's time), each ply one commit authored by the player who moved, the games'
//! moves interleaved by time, on top of the root commit `Archive::init` makes, in the
//! fan-out layout of new archives (a flat one on request, for comparison). The commits
//! go in through `git fast-import` and the archive is kept under the target directory
//! (`bench-archives/`), keyed by its parameters, so later runs reuse it. Before timing,
//! `ravenpost verify` must find no problem in it (the bench aborts otherwise).
//!
//! Then each command runs in a scratch copy and its median time is printed, one table for
//! all sizes, with each command's peak memory (`/usr/bin/time`). Commands slower than 5 s
//! run once. Cold runs (the index built from nothing, `verify` with no cache) are medians
//! too: a single cold run varies by a fifth on a shared machine. The table ends with
//! issue 31's targets, each as the measured figure over its limit, computed from the same
//! run's figures (`met` at 1.00 or less).
//!
//! ```sh
//! cargo bench --bench archive_scale                          # 300, 3,000 and 30,000 games
//! ARCHIVE_SCALE_SIZES=300,3000 cargo bench --bench archive_scale
//! ARCHIVE_SCALE_FLAT=3000 cargo bench --bench archive_scale  # and a flat 3,000 one
//! ARCHIVE_SCALE_BUILD_ONLY=1 cargo bench --bench archive_scale   # build the archives only
//! ```
//! `RAVENPOST_BENCH_REPS` sets the repetitions of fast commands (default 5).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use ravenpost::archive::{Archive, Layout};
use ravenpost::notation::san;
use ravenpost::record;

#[path = "support/club_archive.rs"]
mod club_archive;
use club_archive::{T0, archive, email, game_id, game_path_in, git};

/// A command slower than this runs once.
const SLOW: Duration = Duration::from_secs(5);

/// `command` run in the archive `dir`, as the archive of ravenpost, with no git
/// configuration but the archive's own.
fn in_archive<'c>(command: &'c mut Command, dir: &Path) -> &'c mut Command {
    command
        .current_dir(dir)
        .env("RAVENPOST_ARCHIVE", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
}

/// Runs the binary in `dir` with `args`; panics unless it succeeds.
fn ravenpost(dir: &Path, args: &[&str]) -> Output {
    let out = in_archive(&mut Command::new(env!("CARGO_BIN_EXE_ravenpost")), dir)
        .args(args)
        .output()
        .expect("ravenpost runs");
    assert!(
        out.status.success(),
        "ravenpost {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The median of `reps` runs of `run` (one run if the first is slower than [`SLOW`]);
/// `prepare` runs untimed before each and hands `run` what it needs.
fn time<T>(reps: usize, mut prepare: impl FnMut() -> T, mut run: impl FnMut(T)) -> Duration {
    let mut times = Vec::new();
    for _ in 0..reps {
        let prepared = prepare();
        let t = Instant::now();
        run(prepared);
        times.push(t.elapsed());
        if times[0] > SLOW {
            break;
        }
    }
    times.sort();
    times[times.len() / 2]
}

fn clear_caches(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir.join(".git/ravenpost")) else { return };
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("cache.sqlite3") || name.starts_with("index") || name.starts_with("verdicts") {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// The next legal move of the game at `path` in the working copy: (token, player, new text).
fn next_move(dir: &Path, path: &str, at: i64) -> (String, String, String) {
    let text = fs::read_to_string(dir.join(path)).expect("game file");
    let game = record::load(&text).expect("loads");
    let pos = game.position();
    let legal = game.variant.legal_moves(&pos);
    let mv = legal.first().expect("the game goes on");
    let token = san::write_move(&game.variant, &pos, mv);
    let player = record::player(&game, pos.side_to_move());
    let options = record::MoveOptions { at: Some(at), ..Default::default() };
    let how = record::Play { who: Some(&player), options, ..Default::default() };
    let (applied, _) = record::play(&game, &token, how).expect("legal");
    (token, player, applied.text)
}

/// The peak memory (resident set, KiB) of `ravenpost args` in `dir`, as `/usr/bin/time`
/// reads it from the kernel (wait4's maxrss); run once, untimed.
fn peak_kib(dir: &Path, args: &[&str]) -> u64 {
    let report = dir.join(".git/peak-memory");
    let out = in_archive(&mut Command::new("/usr/bin/time"), dir)
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&report)
        .arg(env!("CARGO_BIN_EXE_ravenpost"))
        .args(args)
        .output()
        .expect("/usr/bin/time runs (apt-get install time)");
    assert!(out.status.success(), "ravenpost {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let text = fs::read_to_string(&report).expect("the report of /usr/bin/time");
    text.lines().last().and_then(|l| l.trim().parse().ok()).expect("a number of KiB")
}

/// `ravenpost move` of `token` by `player` at `at` (Unix seconds) in game `id`.
fn play(dir: &Path, id: &str, token: &str, player: &str, at: i64) {
    play_as(dir, id, token, player, at, true);
}

/// As [`play`]; without `--as` unless `named` (the player found from the author).
fn play_as(dir: &Path, id: &str, token: &str, player: &str, at: i64, named: bool) {
    let author = format!("{player} <{}>", email(player));
    let mut args = vec!["move", id, token, "--author", &author];
    if named {
        args.extend(["--as", player]);
    }
    let out = in_archive(&mut Command::new(env!("CARGO_BIN_EXE_ravenpost")), dir)
        .args(&args)
        .env("RAVENPOST_TIME", at.to_string())
        .output()
        .expect("ravenpost runs");
    assert!(out.status.success(), "move: {}", String::from_utf8_lossy(&out.stderr));
}

fn head(dir: &Path) -> String {
    String::from_utf8(git(dir, &["rev-parse", "HEAD"]).stdout).expect("utf-8").trim().to_string()
}

fn measure(base: &Path, games: usize, layout: Layout, reps: usize) -> BTreeMap<&'static str, String> {
    let scratch = tempfile::tempdir().expect("scratch");
    let dir = scratch.path().join("archive");
    let cp = Command::new("cp").arg("-a").arg(base).arg(&dir).status().expect("cp runs");
    assert!(cp.success(), "copy of the archive");
    let mut row = BTreeMap::new();
    let commits = String::from_utf8(git(&dir, &["rev-list", "--count", "HEAD"]).stdout).expect("utf-8");
    let packed = String::from_utf8(git(&dir, &["count-objects", "-v"]).stdout).expect("utf-8");
    let kib = packed.lines().find_map(|l| l.strip_prefix("size-pack: ")).unwrap_or("?").to_string();
    let commit_count: usize = commits.trim().parse().expect("count");
    row.insert("archive: commits", commit_count.to_string());
    row.insert("archive: packed size", format!("{:.1} MB", kib.parse::<f64>().unwrap_or(0.0) / 1024.0));
    // The game to look at: the one the newest commit changed (it goes on). One walk: a
    // `git log -- FILE` a game costs commits × games.
    let newest = git(&dir, &["log", "-1", "--format=", "--name-only", "--", "games"]).stdout;
    let newest = String::from_utf8_lossy(&newest).trim().to_string();
    let g =
        (0..games).find(|g| game_path_in(layout, *g) == newest).expect("the newest commit changed a game");
    let (id, path) = (game_id(g), game_path_in(layout, g));
    let fmt = |d: Duration| format!("{:.3} s", d.as_secs_f64());
    let mut t = |name: &'static str, d: Duration| {
        eprintln!("  {games} games: {name}: {}", fmt(d));
        row.insert(name, fmt(d));
    };

    // The history index through the library: built from nothing (the one history walk of
    // the cold `verify` target), then loaded from its cache (what every command pays).
    let built = time(
        reps,
        || clear_caches(&dir),
        |()| {
            // Opened as the commands open it: with the notation's finder of moves, so that
            // the walk proves changes by hashing trees.
            let mut archive = Archive::open(&dir).expect("open");
            let mut options = archive.options().clone();
            options.move_ends = Some(ravenpost::notation::pgn::move_ends);
            archive.set_options(options);
            let index = archive.index().expect("index");
            assert_eq!(index.len(), commit_count, "the index has every commit");
        },
    );
    let cache_size = fs::metadata(dir.join(".git/ravenpost/cache.sqlite3")).map_or(0, |m| m.len());
    t("index: build (library)", built);
    let load = time(
        reps.max(10),
        || {},
        |()| assert_eq!(Archive::open(&dir).expect("open").index().expect("index").len(), commit_count),
    );
    t("index: load cached (library)", load);
    // verify of everything, cold: first the check that the archive is sound, then timed
    // (a median, as every figure here: one cold run on a shared machine varies by ±20 %).
    clear_caches(&dir);
    let out = ravenpost(&dir, &["verify", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("verify --json");
    let problems = report["problems"].as_array().map_or(usize::MAX, Vec::len);
    assert_eq!(report["games"].as_u64(), Some(games as u64), "verify saw every game");
    assert!(problems == 0, "the generated archive must verify clean: {}", report["problems"]);
    let cold = time(reps, || clear_caches(&dir), |()| drop(ravenpost(&dir, &["verify"])));
    t("verify (all games, cold)", cold);
    // The same with the history index already cached: the referee's own part.
    let verdicts_only = |dir: &Path| {
        let db = rusqlite::Connection::open(dir.join(".git/ravenpost/cache.sqlite3")).expect("the cache");
        db.execute_batch("DELETE FROM verdicts").expect("verdicts deleted");
    };
    let d = time(reps, || verdicts_only(&dir), |()| drop(ravenpost(&dir, &["verify"])));
    t("verify (all games, cold verdicts, index cached)", d);
    let cached_reps = if cold > SLOW { 1 } else { reps };
    t("verify (all games, cached)", time(cached_reps, || {}, |()| drop(ravenpost(&dir, &["verify"]))));
    let status = time(reps, || {}, |()| drop(ravenpost(&dir, &["status"])));
    t("status", status);
    let log_g = time(reps, || {}, |()| drop(ravenpost(&dir, &["log", &id])));
    t("log G", log_g);
    let verify_g = time(reps, || {}, |()| drop(ravenpost(&dir, &["verify", &id])));
    t("verify G", verify_g);
    let validate = time(reps, || {}, |()| drop(ravenpost(&dir, &["validate", "games"])));
    t("validate (all game files)", validate);
    let oneline = time(reps, || {}, |()| drop(git(&dir, &["log", "--oneline"])));
    t("git log --oneline", oneline);

    // move, against git commit of the same kind of change.
    let mut clock = T0 + 400 * 86_400;
    let mut next_time = || {
        clock += 3_600;
        clock
    };
    let moved = time(
        reps,
        || {
            let at = next_time();
            let (token, player, _) = next_move(&dir, &path, at);
            (token, player, at)
        },
        |(token, player, at)| play(&dir, &id, &token, &player, at),
    );
    t("move --as", moved);
    let unnamed = time(
        reps,
        || {
            let at = next_time();
            let (token, player, _) = next_move(&dir, &path, at);
            (token, player, at)
        },
        |(token, player, at)| play_as(&dir, &id, &token, &player, at, false),
    );
    t("move (without --as)", unnamed);
    let committed = time(
        reps,
        || {
            let (token, player, text) = next_move(&dir, &path, next_time());
            fs::write(dir.join(&path), text).expect("write");
            format!("{id}: {token} by {player}")
        },
        |message| drop(git(&dir, &["commit", "-q", "-m", &message, "--", &path])),
    );
    t("git commit (same change)", committed);
    // git commits by hand are ravenpost-like moves but under the bench's name: put the
    // branch back so that verify stays clean.
    let by_git = String::from_utf8(git(&dir, &["rev-list", "--author=Bench", "HEAD"]).stdout).expect("utf-8");
    if let Some(first) = by_git.lines().last() {
        git(&dir, &["reset", "-q", "--hard", &format!("{first}~1")]);
    }

    // verify after one new move (the caches warm from the last verify).
    ravenpost(&dir, &["verify"]);
    let mut one_more = || {
        let at = next_time();
        let (token, player, _) = next_move(&dir, &path, at);
        play(&dir, &id, &token, &player, at);
    };
    let after_one = time(cached_reps, &mut one_more, |()| drop(ravenpost(&dir, &["verify"])));
    t("verify after one new move", after_one);

    // The pre-receive hook's check of one pushed move: the branch still at OLD, NEW only
    // an object (as in the server's quarantine).
    let hook = time(
        cached_reps,
        || {
            one_more();
            let new = head(&dir);
            git(&dir, &["update-ref", "refs/heads/main", "HEAD~1"]);
            (head(&dir), new)
        },
        |(old, new)| {
            drop(ravenpost(&dir, &["hook", "check", &old, &new, "refs/heads/main"]));
            git(&dir, &["update-ref", "refs/heads/main", &new]);
        },
    );
    t("hook check (one new move)", hook);

    // The web site (issue 18): every page from nothing, then after one new move (one
    // game's page and the index rewritten).
    let site = scratch.path().join("site");
    let site_arg = site.to_str().expect("a UTF-8 path").to_string();
    let d = time(
        cached_reps,
        || {
            let _ = fs::remove_dir_all(&site);
        },
        |()| drop(ravenpost(&dir, &["site", &site_arg])),
    );
    t("site (all games, cold)", d);
    let d = time(cached_reps, &mut one_more, |()| drop(ravenpost(&dir, &["site", &site_arg])));
    t("site after one new move", d);
    row.insert("archive: cache database size", format!("{:.1} MB", cache_size as f64 / 1e6));
    // Peak memory of each command, once each (the cold ones from nothing).
    let mut peak = 0;
    let mut mem = |name: &'static str, kib: u64| {
        peak = peak.max(kib);
        row.insert(name, format!("{:.0} MiB", kib as f64 / 1024.0));
    };
    clear_caches(&dir);
    mem("memory: verify (cold)", peak_kib(&dir, &["verify"]));
    mem("memory: verify (cached)", peak_kib(&dir, &["verify"]));
    mem("memory: status", peak_kib(&dir, &["status"]));
    mem("memory: log G", peak_kib(&dir, &["log", &id]));
    mem("memory: verify G", peak_kib(&dir, &["verify", &id]));
    let at = next_time();
    let (token, player, _) = next_move(&dir, &path, at);
    let author = format!("{player} <{}>", email(&player));
    mem("memory: move --as", peak_kib(&dir, &["move", &id, &token, "--as", &player, "--author", &author]));
    let old = head(&dir);
    let at = next_time();
    let (token, player, _) = next_move(&dir, &path, at);
    let author = format!("{player} <{}>", email(&player));
    mem("memory: move (without --as)", peak_kib(&dir, &["move", &id, &token, "--author", &author]));
    let new = head(&dir);
    git(&dir, &["update-ref", "refs/heads/main", &old]);
    mem("memory: hook check", peak_kib(&dir, &["hook", "check", &old, &new, "refs/heads/main"]));
    git(&dir, &["update-ref", "refs/heads/main", &new]);
    let site_dir = scratch.path().join("site-memory");
    mem("memory: site (cold)", peak_kib(&dir, &["site", site_dir.to_str().expect("UTF-8")]));
    // Issue 31's targets, each as the measured figure over its limit (met at 1.00 or less);
    // the growth from 300 games is added across columns (see `main`).
    let secs = Duration::as_secs_f64;
    let targets = [
        ("target: log G <= 0.020 s", secs(&log_g) / 0.020),
        ("target: verify G <= 0.020 s", secs(&verify_g) / 0.020),
        ("target: move --as <= 0.020 s", secs(&moved) / 0.020),
        ("target: move (no --as) <= 0.020 s", secs(&unnamed) / 0.020),
        ("target: hook check <= 0.020 s", secs(&hook) / 0.020),
        ("target: verify after one move <= 0.050 s", secs(&after_one) / 0.050),
        (
            "target: cold verify <= 2 x (git log --oneline + validate)",
            secs(&cold) / (2.0 * (secs(&oneline) + secs(&validate))),
        ),
        ("target: peak memory <= 150 MiB", peak as f64 / (150.0 * 1024.0)),
    ];
    for (name, ratio) in targets {
        row.insert(name, format!("{ratio:.2} {}", if ratio <= 1.0 { "met" } else { "MISSED" }));
    }
    row
}

/// The warm one-game commands whose growth from the smallest archive is a target.
const ONE_GAME: [&str; 5] =
    ["log G", "verify G", "move --as", "move (without --as)", "hook check (one new move)"];

/// Adds to each column the growth of the warm one-game commands from the first column
/// (issue 31: at most 1.2×), and of cold `verify` against the growth of the commit count.
fn add_growth(columns: &mut [(String, BTreeMap<&'static str, String>)]) {
    let seconds = |row: &BTreeMap<&'static str, String>, k: &str| {
        row.get(k).and_then(|v| v.strip_suffix(" s")).and_then(|v| v.parse::<f64>().ok())
    };
    let count = |row: &BTreeMap<&'static str, String>| {
        row.get("archive: commits").and_then(|v| v.parse::<f64>().ok())
    };
    for k in 1..columns.len() {
        let (before, after) = (&columns[k - 1].1, &columns[k].1);
        let cold = "verify (all games, cold)";
        if let (Some(a), Some(b), Some(ca), Some(cb)) =
            (seconds(before, cold), seconds(after, cold), count(before), count(after))
        {
            let ratio = (b / a) / (1.2 * (cb / ca));
            columns[k].1.insert(
                "target: cold verify growth <= 1.2 x commit growth",
                format!("{ratio:.2} {}", if ratio <= 1.0 { "met" } else { "MISSED" }),
            );
        }
    }
    let Some((_, first)) = columns.first().cloned() else { return };
    for (_, row) in columns.iter_mut().skip(1) {
        for name in ONE_GAME {
            if let (Some(a), Some(b)) = (seconds(&first, name), seconds(row, name)) {
                let ratio = b / a;
                let key: &'static str = match name {
                    "log G" => "target: log G growth <= 1.2 x",
                    "verify G" => "target: verify G growth <= 1.2 x",
                    "move --as" => "target: move --as growth <= 1.2 x",
                    "move (without --as)" => "target: move (no --as) growth <= 1.2 x",
                    _ => "target: hook check growth <= 1.2 x",
                };
                row.insert(
                    key,
                    format!("{:.2} {}", ratio / 1.2, if ratio <= 1.2 { "met" } else { "MISSED" }),
                );
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let sizes: Vec<usize> =
        match std::env::var("ARCHIVE_SCALE_SIZES").or_else(|_| std::env::var("RAVENPOST_BENCH_SIZES")) {
            Ok(s) => s.split(',').filter_map(|x| x.trim().parse().ok()).collect(),
            Err(_) if !args.is_empty() => args.iter().filter_map(|a| a.parse().ok()).collect(),
            Err(_) => vec![300, 3_000, 30_000],
        };
    // The flat layout of archives made before the fan-out, for comparison, at these sizes.
    let flat: Vec<usize> = std::env::var("ARCHIVE_SCALE_FLAT")
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_default();
    let build_only = std::env::var_os("ARCHIVE_SCALE_BUILD_ONLY").is_some();
    let reps: usize =
        std::env::var("RAVENPOST_BENCH_REPS").ok().and_then(|r| r.parse().ok()).unwrap_or(5).max(1);
    // <target>/release/ravenpost → <target>/bench-archives
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_ravenpost"));
    let root = exe.parent().and_then(Path::parent).expect("target dir").join("bench-archives");
    fs::create_dir_all(&root).expect("bench-archives");
    let mut columns = Vec::new();
    let runs = sizes.iter().map(|&g| (g, Layout::FanOut)).chain(flat.iter().map(|&g| (g, Layout::Flat)));
    for (games, layout) in runs {
        eprintln!("archive of {games} games ({layout})");
        let started = Instant::now();
        let base = archive(&root, games, layout);
        eprintln!("  {games} games ({layout}): archive ready in {:.1?}", started.elapsed());
        if build_only {
            continue;
        }
        let name = if layout == Layout::Flat { format!("{games} flat") } else { format!("{games} games") };
        columns.push((name, measure(&base, games, layout, reps)));
    }
    add_growth(&mut columns);
    let names: Vec<&str> = columns.last().map(|(_, r)| r.keys().copied().collect()).unwrap_or_default();
    let mut table = format!("{:<44}", "command");
    for (games, _) in &columns {
        let _ = write!(table, " {games:>14}");
    }
    table.push('\n');
    for name in names {
        let _ = write!(table, "{name:<44}");
        for (_, row) in &columns {
            let _ = write!(table, " {:>14}", row.get(name).map_or("-", String::as_str));
        }
        table.push('\n');
    }
    println!("{table}");
}
