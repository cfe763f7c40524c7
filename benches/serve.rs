//! The browser front end's costs (issue 32): what a player waits for on `ravenpost serve`.
//!
//! 1. **Legal moves**, in process: `server::legal_moves` (every legal move of the
//!    position with its SAN, long form and kind: what a game page carries, so a click on
//!    any piece marks its moves without asking the server again) for each game family, at
//!    the start and after 30 random plies. The legal moves of one piece cost at most this.
//! 2. **Requests to the real server**, on the club archives of `archive_scale` (Grand
//!    Chess, each ply one commit; built once, kept under the target directory) at 30 and
//!    300 games: a game page, the poll a page makes every two seconds (`/ply`), and a
//!    move from the click's request to its commit (`POST /game/ID/move`, answered once
//!    the move is committed). Each is timed from the request's first byte sent to the
//!    answer's last byte read over loopback, so the figures include HTTP and are an upper
//!    bound of the server's own time.
//!
//! The table ends with issue 32's targets, each as the measured median over its limit
//! (`met` at 1.00 or less).
//!
//! ```sh
//! cargo bench --bench serve                       # 30 and 300 games
//! SERVE_BENCH_SIZES=300,3000 cargo bench --bench serve
//! ```
//! `RAVENPOST_BENCH_REPS` sets the repetitions (default 30).

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ravenpost::archive::{GamePath, Layout};
use ravenpost::engine::{Position, Variant};
use ravenpost::record;

#[path = "support/club_archive.rs"]
mod club_archive;
use club_archive::{Rng, archive, game_id, git};

/// Median of `times`.
fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// The position after `plies` random legal moves from the start (fewer if the game ends).
fn played(v: &Variant, plies: usize, rng: &mut Rng) -> Position {
    let mut pos = v.start_position();
    for _ in 0..plies {
        let legal = v.legal_moves(&pos);
        if legal.is_empty() {
            break;
        }
        pos = v.make(&pos, &legal[rng.below(legal.len() as u64) as usize]);
    }
    pos
}

/// Part 1: `server::legal_moves` for each family; returns the slowest median.
fn legal_moves_in_process(reps: usize) -> Duration {
    println!("Legal moves with SAN and long form, every piece of the side to move (median of {reps})");
    let families: [(&str, &[(&str, &str)]); 4] = [
        ("gygax", &[]),
        ("fidchell", &[]),
        ("fantasy-grand", &[("army-white", "evil-horde"), ("army-black", "elves")]),
        ("grand", &[]),
    ];
    let mut worst = Duration::ZERO;
    let mut rng = Rng(0x5e_7e);
    for (name, options) in families {
        let options: Vec<(String, String)> =
            options.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let v = ravenpost::variants::by_name(name, &options).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        for (when, plies) in [("start", 0), ("after 30 plies", 30)] {
            let pos = played(&v, plies, &mut rng);
            let mut count = 0;
            let times = (0..reps)
                .map(|_| {
                    let t = Instant::now();
                    count = ravenpost::server::legal_moves(&v, &pos).len();
                    t.elapsed()
                })
                .collect();
            let m = median(times);
            worst = worst.max(m);
            println!("  {name:<14} {when:<15} {count:>4} moves  {:>10}", ms(m));
        }
    }
    worst
}

/// A running `ravenpost serve`, killed when dropped.
struct Server {
    child: Child,
    port: u16,
    cookie: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `git config` in `dir`: the user the server acts as.
fn be(dir: &Path, name: &str) {
    git(dir, &["config", "user.name", name]);
    git(dir, &["config", "user.email", &club_archive::email(name)]);
}

impl Server {
    fn start(dir: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ravenpost"))
            .args(["serve", "--json", "--archive"])
            .arg(dir)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("ravenpost serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("the URL line");
        let v: serde_json::Value = serde_json::from_str(&line).expect("serve --json prints JSON");
        let port = v["port"].as_u64().expect("port") as u16;
        let token = v["url"].as_str().expect("url").rsplit_once("token=").expect("token").1.to_string();
        Server { child, port, cookie: format!("ravenpost-serve={token}") }
    }

    /// One request (a new connection, as a browser's first): (status, body, time).
    fn request(&self, method: &str, path: &str, csrf: Option<&str>, body: &str) -> (u16, String, Duration) {
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nCookie: {}\r\n",
            self.port, self.cookie
        );
        if let Some(c) = csrf {
            req.push_str(&format!("X-Ravenpost-Csrf: {c}\r\n"));
        }
        if !body.is_empty() {
            req.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        req.push_str(body);
        let started = Instant::now();
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.write_all(req.as_bytes()).expect("request sent");
        let mut out = Vec::new();
        s.read_to_end(&mut out).expect("answer read");
        let took = started.elapsed();
        let text = String::from_utf8_lossy(&out).into_owned();
        let status = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
        let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
        (status, body, took)
    }
}

/// The page's CSRF token.
fn csrf_of(page: &str) -> String {
    let data = page
        .split("<script type=\"application/json\" id=\"play-data\">")
        .nth(1)
        .and_then(|r| r.split("</script>").next())
        .expect("play data in the page");
    let v: serde_json::Value = serde_json::from_str(data).expect("play data is JSON");
    v["csrf"].as_str().expect("csrf").to_string()
}

/// The game `g` of the archive in `dir`: (its players, its next legal move's SAN, plies),
/// or `None` once it has ended.
fn next_move(dir: &Path, g: usize) -> Option<([String; 2], String, usize)> {
    let path = dir.join(GamePath::in_layout(Layout::FanOut, "grand", &game_id(g)).ok()?.path());
    let game = record::load(&std::fs::read_to_string(path).ok()?).ok()?;
    if record::result_of(&game) != "*" {
        return None;
    }
    let pos = game.position();
    let v = &game.variant;
    let m = v.legal_moves(&pos).into_iter().next()?;
    let players =
        [ravenpost::engine::Side::White, ravenpost::engine::Side::Black].map(|s| record::player(&game, s));
    Some((players, ravenpost::notation::san::write_move(v, &pos, &m), game.moves.len()))
}

/// Part 2 at `games` games: medians of (page, poll, move).
fn requests(root: &Path, games: usize, reps: usize) -> [Duration; 3] {
    let kept = archive(root, games, Layout::FanOut);
    let scratch = tempfile::tempdir().expect("scratch");
    let dir = scratch.path().join("club");
    let copied = Command::new("cp").arg("-a").arg(&kept).arg(&dir).status().expect("cp runs");
    assert!(copied.success(), "the archive is copied");
    // The index and caches built before timing, as on a club's server in use.
    let built = Command::new(env!("CARGO_BIN_EXE_ravenpost"))
        .args(["status", "--archive"])
        .arg(&dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdout(Stdio::null())
        .status()
        .expect("ravenpost status runs");
    assert!(built.success(), "ravenpost status");
    let g = (0..games).find(|&g| next_move(&dir, g).is_some()).expect("a game going on");
    let id = game_id(g);
    let (players, _, _) = next_move(&dir, g).expect("going on");
    be(&dir, &players[0]);
    let server = Server::start(&dir);
    let (status, page, _) = server.request("GET", &format!("/game/{id}"), None, "");
    assert_eq!(status, 200, "{page}");
    let csrf = csrf_of(&page);
    let mut pages = Vec::new();
    let mut polls = Vec::new();
    let mut moves = Vec::new();
    for _ in 0..reps {
        let (status, body, t) = server.request("GET", &format!("/game/{id}"), None, "");
        assert_eq!(status, 200, "{body}");
        pages.push(t);
        let (status, body, t) = server.request("GET", &format!("/game/{id}/ply"), None, "");
        assert_eq!(status, 200, "{body}");
        polls.push(t);
    }
    // Moves, each by the player to move (the server acts as the repository's user).
    let mut game = g;
    while moves.len() < reps {
        let Some((players, san, plies)) = next_move(&dir, game) else {
            game = (game + 1..games).find(|&g| next_move(&dir, g).is_some()).expect("games going on");
            continue;
        };
        be(&dir, &players[plies % 2]);
        let body = serde_json::json!({ "san": san, "ply": plies + 1 }).to_string();
        let (status, answer, t) =
            server.request("POST", &format!("/game/{}/move", game_id(game)), Some(&csrf), &body);
        assert_eq!(status, 200, "{san} in {}: {answer}", game_id(game));
        moves.push(t);
    }
    [median(pages), median(polls), median(moves)]
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is taken.
    let reps = std::env::var("RAVENPOST_BENCH_REPS").ok().and_then(|r| r.parse().ok()).unwrap_or(30);
    let sizes: Vec<usize> = std::env::var("SERVE_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![30, 300]);
    let legal = legal_moves_in_process(reps);
    // <target>/release/ravenpost → <target>/bench-archives, shared with `archive_scale`.
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_ravenpost"));
    let root = exe.parent().and_then(Path::parent).expect("target dir").join("bench-archives");
    std::fs::create_dir_all(&root).expect("the archives' folder");
    println!("\nRequests to `ravenpost serve` over loopback (median of {reps}; Grand Chess club archives)");
    println!("  {:>7}  {:>10}  {:>10}  {:>14}", "games", "game page", "poll /ply", "click → commit");
    let mut worst = [Duration::ZERO; 3];
    for &n in &sizes {
        let [page, poll, mv] = requests(&root, n, reps);
        println!("  {n:>7}  {:>10}  {:>10}  {:>14}", ms(page), ms(poll), ms(mv));
        worst = [worst[0].max(page), worst[1].max(poll), worst[2].max(mv)];
    }
    println!("\nIssue 32's targets (measured / limit; met at 1.00 or less)");
    for (what, d, limit) in [
        ("legal moves of a piece (all pieces, slowest family)", legal, 5.0),
        ("a move from click to commit", worst[2], 100.0),
        ("a game page", worst[0], 50.0),
    ] {
        let ratio = d.as_secs_f64() * 1e3 / limit;
        println!(
            "  {what:<52} {:>10} / {limit:>5} ms = {ratio:.2} {}",
            ms(d),
            if ratio <= 1.0 { "met" } else { "NOT met" }
        );
    }
}
