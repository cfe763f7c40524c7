//! `ravenpost serve` (issue 32): a real server on a free loopback port, driven by real
//! clicks in headless Chromium ([`crate::site::Browser`]) and by plain HTTP requests;
//! each move it makes is compared with the command line's `move` of the same token in a
//! twin archive, and pushed to a bare remote whose pre-receive hook must accept it.

use crate::common;
use crate::site::Browser;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::cli::{T0, identity, ok, ok_at, ravenpost_at};
use common::git::git;
use ravenpost::archive::{Archive, ArchiveOptions, GitConfigScope};
use ravenpost::variants;
use serde_json::{Value, json};

/// A running `ravenpost serve`, stopped when dropped.
struct Server {
    child: Child,
    url: String,
    port: u16,
    /// Everything the server wrote after its address line (standard output and error).
    log: tempfile::NamedTempFile,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(dir: &Path, home: &Path) -> Server {
        Server::start_with(dir, home, &[])
    }

    fn start_with(dir: &Path, home: &Path, extra: &[&str]) -> Server {
        Server::start_at(dir, home, T0, extra)
    }

    /// A server whose clock says `time`.
    fn start_at(dir: &Path, home: &Path, time: i64, extra: &[&str]) -> Server {
        let log = tempfile::NamedTempFile::new().expect("a log file");
        let mut child = ravenpost_at(dir, home, time)
            .args(["serve", "--json"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log.reopen().expect("the log")))
            .spawn()
            .expect("ravenpost serve starts");
        let mut line = String::new();
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        out.read_line(&mut line).expect("the URL line");
        let mut rest = log.reopen().expect("the log");
        std::thread::spawn(move || std::io::copy(&mut out, &mut rest));
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
            let _ = child.kill();
            panic!("serve printed {line:?}: {e}")
        });
        let url = v["url"].as_str().expect("url").to_string();
        let port = v["port"].as_u64().expect("port") as u16;
        if !extra.contains(&"--account-header") {
            assert!(url.starts_with(&format!("http://127.0.0.1:{port}/?token=")), "{url}");
        } else {
            assert_eq!(url, format!("http://127.0.0.1:{port}/"), "a club's server prints no token");
        }
        Server { child, url, port, log }
    }

    /// What the server has written so far, besides its address.
    fn logged(&self) -> String {
        std::fs::read_to_string(self.log.path()).expect("the log reads")
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn token(&self) -> &str {
        self.url.rsplit_once("token=").expect("a token").1
    }

    /// A request written out whole (`\r\n` line ends): the whole answer, head and body.
    fn raw(&self, request: &str) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).unwrap();
        String::from_utf8_lossy(&out).into_owned()
    }

    /// One HTTP/1.1 request: (status, body).
    fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut req =
            format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n", self.port);
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        if !body.is_empty() {
            req.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        req.push_str(body);
        s.write_all(req.as_bytes()).unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).unwrap();
        let text = String::from_utf8_lossy(&out).into_owned();
        let status = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or_else(|| panic!("{text}"));
        let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
        (status, body)
    }
}

/// A player's archive with one game `g1` between Ann Example (the user, first side)
/// and Bo Example: (the directory, home).
fn club(t: &Path, name: &str, variant: &str) -> (PathBuf, PathBuf) {
    let home = identity(&t.join(format!("home-{name}")), "Ann Example", "ann@example.org");
    let dir = t.join(name);
    ok(t, &home, &["init", dir.to_str().unwrap(), "--layout", "flat"]);
    let mut args = vec!["new", variant, "--white", "Ann Example", "--black", "Bo Example", "--id", "g1"];
    if variant == "fantasy-grand" {
        args.extend_from_slice(&["--army-white", "evil-horde", "--army-black", "elves"]);
    }
    ok(&dir, &home, &args);
    (dir, home)
}

fn game_text(dir: &Path) -> String {
    let mut a = Archive::open(dir).expect("archive");
    let mut options = ArchiveOptions::default();
    options.git_config = GitConfigScope::RepositoryOnly;
    a.set_options(options);
    let path = ravenpost::usecases::find(&a, "g1").expect("g1");
    a.read_file(&path.path()).unwrap().unwrap()
}

fn head_message(dir: &Path, home: &Path) -> String {
    git(dir, home, &["log", "-1", "--format=%B"])
}

/// The centre of the element `selector` in the page, in CSS pixels.
fn centre(b: &mut Browser, selector: &str) -> (f64, f64) {
    let v = b.eval(&format!(
        "(function () {{ var e = document.querySelector({sel}); if (!e) return null; e.scrollIntoView({{ block: 'center' }}); var r = e.getBoundingClientRect(); \
         return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
        sel = json!(selector)
    ));
    let xy = v.as_array().unwrap_or_else(|| panic!("no element {selector} on the page"));
    (xy[0].as_f64().unwrap(), xy[1].as_f64().unwrap())
}

fn click_on(b: &mut Browser, selector: &str) {
    let (x, y) = centre(b, selector);
    b.click(x, y);
}

fn wait_for(b: &mut Browser, expression: &str, what: &str) -> Value {
    let started = Instant::now();
    // While a page loads (a reload, a navigation) its elements are missing: false then.
    let guarded =
        format!("(function () {{ try {{ return ({expression}); }} catch (e) {{ return false; }} }})()");
    loop {
        // A page replaced while it is asked (the poll's reload) is asked again.
        let v = b.eval_unless_navigating(&guarded).unwrap_or(Value::Null);
        if !v.is_null() && v != json!(false) {
            return v;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{what}: `{expression}` stayed {v}; errors: {:?}",
            b.errors()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The squares the page marks as destinations.
fn marked(b: &mut Browser) -> Vec<String> {
    let v = b.eval(
        "Array.prototype.map.call(document.querySelectorAll('.target:not(.origin)'), function (e) { return e.getAttribute('data-square'); }).sort()",
    );
    serde_json::from_value(v).unwrap()
}

/// Plays `origin` → `dest` by clicks on the open game page (choosing `choose` when the
/// page asks which move), and checks the marks and the confirmation first.
fn click_move(
    b: &mut Browser,
    origin: &str,
    dest: &str,
    expected_marks: &[String],
    choose: Option<&str>,
    confirm: &str,
) {
    click_on(b, &format!("[id=\"{origin}\"]"));
    assert_eq!(marked(b), expected_marks, "the destinations of the piece on {origin}");
    click_on(b, &format!(".target[data-square=\"{dest}\"]"));
    if let Some(san) = choose {
        wait_for(b, "!document.getElementById('choice').hidden", "the choice of moves is shown");
        click_on(b, &format!("#choice button[data-san=\"{san}\"]"));
    }
    wait_for(b, "!document.getElementById('confirm').hidden", "the confirmation is shown");
    assert_eq!(b.eval("document.getElementById('confirm-text').textContent"), json!(confirm));
    click_on(b, "#confirm-play");
}

/// Clicks the page's button for `action`, checks the confirmation says `confirm`, and
/// confirms.
fn act_by_click(b: &mut Browser, action: &str, confirm: &str) {
    click_on(b, &format!("#actions button[data-action=\"{action}\"]"));
    wait_for(b, "!document.getElementById('confirm').hidden", "the confirmation is shown");
    assert_eq!(b.eval("document.getElementById('confirm-text').textContent"), json!(confirm));
    click_on(b, "#confirm-play");
}

/// Waits until the game file of `dir` has the result `result`.
fn wait_for_result(dir: &Path, result: &str) {
    let started = Instant::now();
    while !game_text(dir).contains(&format!("[Result \"{result}\"]")) {
        assert!(started.elapsed() < Duration::from_secs(30), "no {result} reached the archive");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn wait_for_ply(dir: &Path, ply: usize) -> String {
    let started = Instant::now();
    loop {
        let text = game_text(dir);
        let g = ravenpost::record::load(&text).unwrap();
        if g.moves.len() == ply {
            return text;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "no move reached the archive:\n{text}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Pushes `dir`'s main to a new bare repository with ravenpost's pre-receive hook:
/// the push must be accepted.
fn hook_accepts(t: &Path, dir: &Path, home: &Path, name: &str) {
    let bare = t.join(format!("{name}.git"));
    git(t, home, &["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
    ok(t, home, &["hook", "install", "--repo", bare.to_str().unwrap()]);
    let pushed = common::git::git_out(dir, home, &["push", "-q", bare.to_str().unwrap(), "main"]);
    assert!(pushed.status.success(), "the hook refused the push: {}", common::cli::text(&pushed));
}

/// A first move of each side (from the library's move generator) after which the first
/// side has a move `wanted` accepts, played by the cli in each of `archives` (as Ann
/// Example, then Bo Example): the position after them.
fn two_plies_then(
    v: &ravenpost::engine::Variant,
    archives: &[(&PathBuf, &PathBuf)],
    wanted: impl Fn(&ravenpost::engine::Move) -> bool,
) -> Option<ravenpost::engine::Position> {
    let start = v.start_position();
    let (sans, pos) = v.legal_moves(&start).into_iter().find_map(|a| {
        let p1 = v.make(&start, &a);
        v.legal_moves(&p1).into_iter().find_map(|b| {
            let p2 = v.make(&p1, &b);
            v.legal_moves(&p2).iter().any(&wanted).then(|| {
                let sans = [
                    ravenpost::notation::san::write_move(v, &start, &a),
                    ravenpost::notation::san::write_move(v, &p1, &b),
                ];
                (sans, p2)
            })
        })
    })?;
    for (d, h) in archives {
        ok(d, h, &["move", "g1", &sans[0], "--as", "Ann Example"]);
        ok(d, h, &["move", "g1", &sans[1], "--as", "Bo Example"]);
    }
    Some(pos)
}

#[test]
fn a_clicked_gygax_move_from_air_to_land_is_committed_as_the_cli_commits_it() {
    let t = tempfile::tempdir().unwrap();
    let (dir, home) = club(t.path(), "web", "gygax");
    let (twin, twin_home) = club(t.path(), "cli", "gygax");
    // A first move of each side after which the first side has a move from the Air
    // (level 3) to Land (level 2), from the library's move generator; played by the cli
    // in both archives.
    let v = variants::by_name("gygax", &[]).unwrap();
    let dims = &v.def().dims;
    let air_to_land = |m: &ravenpost::engine::Move| {
        m.from().is_some_and(|f| dims.name(f).starts_with('3')) && dims.name(m.to()).starts_with('2')
    };
    let pos = two_plies_then(&v, &[(&dir, &home), (&twin, &twin_home)], air_to_land)
        .expect("two plies after which a piece can go from the Air to Land");
    let moves = v.legal_moves(&pos);
    let m = moves.iter().find(|m| air_to_land(m)).expect("the move");
    let origin = dims.name(m.from().unwrap());
    let dest = dims.name(m.to());
    let san = ravenpost::notation::san::write_move(&v, &pos, m);
    let long = ravenpost::notation::moves::long_form(&v, m);
    let mut marks: Vec<String> =
        moves.iter().filter(|x| x.from() == m.from()).map(|x| dims.name(x.to())).collect();
    marks.sort();
    marks.dedup();

    let server = Server::start(&dir, &home);
    let mut player = Browser::start(1280, 1000);
    player.open(&server.url);
    let index = player.eval("document.body.textContent").to_string();
    assert!(index.contains("Playing as Ann Example: 1 game waiting for your move."), "{index}");
    player.open(&format!("{}/game/g1", server.base()));
    // The legend names every piece on the board and says how it moves (the rules' text).
    let legend = player.eval("document.querySelector('table.legend').textContent").to_string();
    for (name, line) in [
        ("Sylph", "Air: moves 1 diagonally forward"),
        ("Basilisk", "freezes the enemy piece directly above it"),
    ] {
        assert!(legend.contains(name) && legend.contains(line), "{name}: {line} in the legend: {legend}");
    }
    assert_eq!(
        player.eval("document.querySelectorAll('table.legend tr').length"),
        json!(15),
        "Gygax Chess has 15 kinds"
    );
    // The opponent's view of the same game, in a second browser, open before the move.
    let mut watcher = Browser::start(1280, 1000);
    watcher.open(&server.url);
    watcher.open(&format!("{}/game/g1", server.base()));
    watcher.eval("window.notReloaded = true");

    click_on(&mut player, &format!("[id=\"{origin}\"]"));
    keep_screenshot(&mut player, "gygax-1280-marks");
    click_move(&mut player, &origin, &dest, &marks, None, &format!("Play {san} ({long})?"));
    let served = wait_for_ply(&dir, 3);
    ok(&twin, &twin_home, &["move", "g1", &san]);
    assert_eq!(served, game_text(&twin), "the served move is the cli's, byte for byte");
    assert_eq!(head_message(&dir, &home), head_message(&twin, &twin_home));
    // Both pages show it: the player's at once, the watcher's without a reload.
    wait_for(&mut player, "document.body.getAttribute('data-ply') === '3'", "the player's page shows ply 3");
    wait_for(&mut watcher, "document.body.getAttribute('data-ply') === '3'", "the other page shows ply 3");
    assert_eq!(watcher.eval("window.notReloaded === true"), json!(true), "the page was not reloaded");
    assert_eq!(
        watcher.eval(&format!("document.querySelector('#board [data-square=\"{dest}\"].piece') !== null")),
        json!(true),
        "the piece stands on {dest}"
    );
    assert!(player.errors().is_empty(), "{:?}", player.errors());
    assert!(watcher.errors().is_empty(), "{:?}", watcher.errors());
    hook_accepts(t.path(), &dir, &home, "remote");
    phone_fits(&server, "gygax");
}

/// Keeps a screenshot of `b` as `<CARGO_TARGET_TMPDIR>/serve/<name>.png`, a test
/// artefact to look at.
fn keep_screenshot(b: &mut Browser, name: &str) -> PathBuf {
    let (w, h, _, png) = b.screenshot();
    assert!(w > 0 && h > 0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.png"));
    std::fs::write(&file, png).unwrap();
    file
}

/// The game page at a phone's width (412 CSS pixels): the board is no wider than the
/// window, and nothing makes the page scroll sideways.
fn phone_fits(server: &Server, family: &str) {
    let mut phone = Browser::start(412, 915);
    phone.open(&server.url);
    phone.open(&format!("{}/game/g1", server.base()));
    let board = phone.eval("document.querySelector('#board svg').getBoundingClientRect().width");
    assert!(board.as_f64().unwrap() <= 412.0, "the board is {board} px wide at 412");
    let square = phone.eval("document.querySelector('#board rect.square').getBoundingClientRect().width");
    assert!(
        square.as_f64().unwrap() >= 24.0,
        "a square is {square} px wide at 412: too small to read and touch"
    );
    let page = phone.eval("document.documentElement.scrollWidth");
    assert!(page.as_f64().unwrap() <= 412.0, "the page is {page} px wide at 412");
    keep_screenshot(&mut phone, &format!("{family}-412"));
    assert!(phone.errors().is_empty(), "{:?}", phone.errors());
}

#[test]
fn a_request_without_the_token_or_the_csrf_token_changes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let (dir, home) = club(t.path(), "web", "gygax");
    let server = Server::start(&dir, &home);
    // No cookie: refused, whatever the path.
    for path in ["/", "/game/g1", "/game/g1/ply"] {
        let (status, body) = server.request("GET", path, &[], "");
        assert_eq!(status, 403, "{path}: {body}");
    }
    assert_eq!(server.request("GET", "/?token=0123", &[], "").0, 403, "a wrong token");
    let (status, _) = server.request("GET", &format!("/?token={}", server.token()), &[], "");
    assert_eq!(status, 303, "the right token sets the cookie and redirects");
    let cookie = format!("ravenpost-serve={}", server.token());
    let (status, page) = server.request("GET", "/game/g1", &[("Cookie", &cookie)], "");
    assert_eq!(status, 200);
    let csrf =
        page.split("\"csrf\":\"").nth(1).and_then(|r| r.split('"').next()).expect("the page's CSRF token");
    let body = r#"{"san": "2e3", "ply": 1}"#;
    // A move without the CSRF header, with a wrong one, without the cookie: refused.
    for headers in [
        vec![("Cookie", cookie.as_str())],
        vec![("Cookie", cookie.as_str()), ("X-Ravenpost-Csrf", "00")],
        vec![("X-Ravenpost-Csrf", csrf)],
    ] {
        let (status, answer) = server.request("POST", "/game/g1/move", &headers, body);
        assert_eq!(status, 403, "{headers:?}: {answer}");
    }
    assert_eq!(ravenpost::record::load(&game_text(&dir)).unwrap().moves.len(), 0, "nothing was played");
    let both = [("Cookie", cookie.as_str()), ("X-Ravenpost-Csrf", csrf)];
    // An illegal move: refused with the rules' reason.
    let (status, answer) = server.request("POST", "/game/g1/move", &both, r#"{"san": "2e5", "ply": 1}"#);
    assert_eq!(status, 409, "{answer}");
    assert!(answer.contains("2e5"), "{answer}");
    // Oversized and malformed bodies: refused, nothing played.
    let big = format!(r#"{{"san": "{}", "ply": 1}}"#, "x".repeat(5000));
    assert_eq!(server.request("POST", "/game/g1/move", &both, &big).0, 413);
    assert_eq!(server.request("POST", "/game/g1/move", &both, "not json").0, 400);
    // The move, then the same request again (a replay): one commit.
    let before = git(&dir, &home, &["rev-list", "--count", "HEAD"]);
    let (status, answer) = server.request("POST", "/game/g1/move", &both, body);
    assert_eq!(status, 200, "{answer}");
    let after = git(&dir, &home, &["rev-list", "--count", "HEAD"]);
    // A request sent again (its answer lost): the move stands, said so, nothing more.
    let (status, answer) = server.request("POST", "/game/g1/move", &both, body);
    assert_eq!(status, 200, "the replayed request: {answer}");
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["already"], json!(true), "{answer}");
    assert!(answer["said"].as_str().unwrap().starts_with("ply 1 "), "{answer}");
    assert_eq!(ravenpost::record::load(&game_text(&dir)).unwrap().moves.len(), 1);
    assert_eq!(before.trim().parse::<u32>().unwrap() + 1, after.trim().parse::<u32>().unwrap());
    assert_eq!(after, git(&dir, &home, &["rev-list", "--count", "HEAD"]), "no commit for the replay");
    let (status, file) = server.request("GET", "/game/g1/download", &[("Cookie", &cookie)], "");
    assert_eq!((status, file), (200, game_text(&dir)), "the download is the game's file");
    assert_eq!(server.request("GET", "/game/g1/download", &[], "").0, 403);
    let (status, ply) = server.request("GET", "/game/g1/ply", &[("Cookie", &cookie)], "");
    assert_eq!((status, serde_json::from_str::<Value>(&ply).unwrap()["plies"].clone()), (200, json!(1)));
}

#[test]
fn a_clicked_fidchell_drop_from_the_hand_is_committed_as_the_cli_commits_it() {
    let t = tempfile::tempdir().unwrap();
    let (dir, home) = club(t.path(), "web", "fidchell");
    let (twin, twin_home) = club(t.path(), "cli", "fidchell");
    let v = variants::by_name("fidchell", &[]).unwrap();
    let dims = &v.def().dims;
    let start = v.start_position();
    let moves = v.legal_moves(&start);
    let drop = *moves.iter().find(|m| m.from().is_none()).expect("a drop at the start");
    let token = ravenpost::notation::position_string::piece_token(
        v.def(),
        ravenpost::engine::Piece { side: start.side_to_move(), kind: drop.piece() },
    );
    let mut marks: Vec<String> = moves
        .iter()
        .filter(|m| m.from().is_none() && m.piece() == drop.piece())
        .map(|m| dims.name(m.to()))
        .collect();
    marks.sort();
    marks.dedup();
    let dest = dims.name(drop.to());
    let san = ravenpost::notation::san::write_move(&v, &start, &drop);
    let long = ravenpost::notation::moves::long_form(&v, &drop);

    let server = Server::start(&dir, &home);
    let mut b = Browser::start(1280, 1000);
    b.open(&server.url);
    b.open(&format!("{}/game/g1", server.base()));
    click_on(&mut b, &format!(".hand[data-side=\"0\"] .held[data-piece=\"{token}\"]"));
    assert_eq!(marked(&mut b), marks, "the squares a {token} can be dropped on");
    keep_screenshot(&mut b, "fidchell-1280-drop");
    click_on(&mut b, &format!(".target[data-square=\"{dest}\"]"));
    wait_for(&mut b, "!document.getElementById('confirm').hidden", "the confirmation is shown");
    assert_eq!(
        b.eval("document.getElementById('confirm-text').textContent"),
        json!(format!("Play {san} ({long})?"))
    );
    click_on(&mut b, "#confirm-play");
    let served = wait_for_ply(&dir, 1);
    ok(&twin, &twin_home, &["move", "g1", &san]);
    assert_eq!(served, game_text(&twin), "the served drop is the cli's, byte for byte");
    wait_for(&mut b, "document.body.getAttribute('data-ply') === '1'", "the page shows ply 1");
    assert!(b.errors().is_empty(), "{:?}", b.errors());
    hook_accepts(t.path(), &dir, &home, "remote");
    phone_fits(&server, "fidchell");
}

#[test]
fn a_draw_offer_accepted_by_a_click_is_committed_as_the_cli_commits_it() {
    let t = tempfile::tempdir().unwrap();
    let (dir, home) = club(t.path(), "web", "gygax");
    let (twin, twin_home) = club(t.path(), "cli", "gygax");
    for (d, h) in [(&dir, &home), (&twin, &twin_home)] {
        ok(d, h, &["move", "g1", "2e3", "--as", "Ann Example"]);
        ok(d, h, &["move", "g1", "Sa3b6", "--as", "Bo Example", "--offer-draw"]);
    }
    let server = Server::start(&dir, &home);
    let mut b = Browser::start(1280, 1000);
    b.open(&server.url);
    b.open(&format!("{}/game/g1", server.base()));
    let offered = b.eval(
        "Array.prototype.map.call(document.querySelectorAll('#actions button'), function (e) { return e.getAttribute('data-action'); })",
    );
    assert_eq!(offered, json!(["resign", "accept-draw", "decline-draw"]));
    assert_eq!(
        b.eval("document.getElementById('offer-line').textContent"),
        json!("Bo Example offers a draw: accept or decline it below (a move declines it).")
    );
    act_by_click(&mut b, "accept-draw", "Accept the draw offer? The game ends drawn.");
    wait_for_result(&dir, "1/2-1/2");
    ok(&twin, &twin_home, &["draw", "accept", "g1"]);
    assert_eq!(game_text(&dir), game_text(&twin), "the served acceptance is the cli's, byte for byte");
    // The page redraws as the game ended: no actions, no moves.
    wait_for(
        &mut b,
        "document.querySelectorAll('#actions button').length === 0",
        "no actions after the game ended",
    );
    assert!(b.eval("document.body.textContent").as_str().unwrap().contains("1/2-1/2"));
    // A second acceptance (a stale page, a replay) is refused with the rules' reason.
    let cookie = format!("ravenpost-serve={}", server.token());
    let (_, page) = server.request("GET", "/game/g1", &[("Cookie", &cookie)], "");
    let csrf = page.split("\"csrf\":\"").nth(1).and_then(|r| r.split('"').next()).unwrap().to_string();
    let (status, answer) = server.request(
        "POST",
        "/game/g1/action",
        &[("Cookie", &cookie), ("X-Ravenpost-Csrf", &csrf)],
        r#"{"action": "accept-draw"}"#,
    );
    assert_eq!(status, 409, "{answer}");
    assert_eq!(game_text(&dir), game_text(&twin), "nothing more was written");
    assert!(b.errors().is_empty(), "{:?}", b.errors());
}

#[test]
fn a_fantasy_grand_promotion_asks_which_piece_and_is_played_as_the_cli_plays_it() {
    use ravenpost::engine::Move;
    let t = tempfile::tempdir().unwrap();
    // Ann's Evil Horde: a Goblin promotes to a Wolf Rider, always available, on the
    // last three ranks (rulings: Fantasy Grand §5), where it may also stay a Goblin.
    let (dir, home) = club(t.path(), "web", "fantasy-grand");
    let goblin_file = 'e';
    let mut g = ravenpost::record::load(&game_text(&dir)).unwrap();
    let promotions = loop {
        assert!(g.moves.len() < 40, "no promotion within 40 plies:\n{}", game_text(&dir));
        let v = g.variant.clone();
        let dims = &v.def().dims;
        let pos = g.position();
        let moves = v.legal_moves(&pos);
        let anns = pos.side_to_move() == ravenpost::engine::Side::White;
        let promos: Vec<Move> =
            moves.iter().filter(|m| matches!(m, Move::Normal { promotion: Some(_), .. })).copied().collect();
        if anns && !promos.is_empty() {
            break promos;
        }
        // Ann pushes her e-file Goblin; Bo moves anything that captures nothing and
        // stays off the e-file.
        let pick = if anns {
            moves
                .iter()
                .filter(|m| {
                    v.def().kind(m.piece()).name == "Goblin"
                        && m.from().is_some_and(|f| dims.name(f).starts_with(goblin_file))
                })
                .max_by_key(|m| dims.name(m.to())[1..].parse::<u32>().unwrap())
                .copied()
                .expect("the Goblin can go on")
        } else {
            *moves
                .iter()
                .find(|m| m.capture().is_none() && !dims.name(m.to()).starts_with(goblin_file))
                .expect("a quiet move for Bo")
        };
        let san = ravenpost::notation::san::write_move(&v, &pos, &pick);
        let who = if anns { "Ann Example" } else { "Bo Example" };
        ok(&dir, &home, &["move", "g1", &san, "--as", who]);
        g = ravenpost::record::load(&game_text(&dir)).unwrap();
    };
    // The twin: a clone of the archive as it is now, where the cli plays the same move.
    let twin = t.path().join("cli");
    git(t.path(), &home, &["clone", "-q", dir.to_str().unwrap(), twin.to_str().unwrap()]);
    let v = g.variant.clone();
    let dims = &v.def().dims;
    let pos = g.position();
    let m = promotions[0];
    let (origin, dest) = (dims.name(m.from().unwrap()), dims.name(m.to()));
    let legal = v.legal_moves(&pos);
    let on_square: Vec<Move> =
        legal.iter().filter(|x| x.from() == m.from() && x.to() == m.to()).copied().collect();
    assert!(on_square.len() > 1, "a promotion and staying a Goblin: {on_square:?}");
    let chosen = on_square.iter().find(|x| matches!(x, Move::Normal { promotion: Some(_), .. })).unwrap();
    let san = ravenpost::notation::san::write_move(&v, &pos, chosen);
    let long = ravenpost::notation::moves::long_form(&v, chosen);
    let mut marks: Vec<String> =
        legal.iter().filter(|x| x.from() == m.from()).map(|x| dims.name(x.to())).collect();
    marks.sort();
    marks.dedup();
    let mut offered: Vec<String> =
        on_square.iter().map(|x| ravenpost::notation::san::write_move(&v, &pos, x)).collect();
    offered.sort();

    let plies = g.moves.len();
    let server = Server::start(&dir, &home);
    let mut b = Browser::start(1280, 1000);
    b.open(&server.url);
    b.open(&format!("{}/game/g1", server.base()));
    click_on(&mut b, &format!("[id=\"{origin}\"]"));
    assert_eq!(marked(&mut b), marks, "the Goblin's destinations");
    assert_eq!(
        b.eval(&format!(
            "document.querySelector('.target[data-square=\"{dest}\"]').classList.contains('promotion')"
        )),
        json!(true),
        "the promotion square is marked as one"
    );
    click_on(&mut b, &format!(".target[data-square=\"{dest}\"]"));
    wait_for(&mut b, "!document.getElementById('choice').hidden", "the choice of moves is shown");
    let mut shown: Vec<String> = serde_json::from_value(b.eval(
        "Array.prototype.map.call(document.querySelectorAll('#choice button'), function (e) { return e.getAttribute('data-san'); })",
    ))
    .unwrap();
    shown.sort();
    assert_eq!(shown, offered, "the page asks between the moves to that square");
    keep_screenshot(&mut b, "fantasy-grand-1280-promotion");
    click_on(&mut b, &format!("#choice button[data-san=\"{san}\"]"));
    wait_for(&mut b, "!document.getElementById('confirm').hidden", "the confirmation is shown");
    assert_eq!(
        b.eval("document.getElementById('confirm-text').textContent"),
        json!(format!("Play {san} ({long})?"))
    );
    click_on(&mut b, "#confirm-play");
    let served = wait_for_ply(&dir, plies + 1);
    ok(&twin, &home, &["move", "g1", &san]);
    assert_eq!(served, game_text(&twin), "the served promotion is the cli's, byte for byte");
    assert!(b.errors().is_empty(), "{:?}", b.errors());
    hook_accepts(t.path(), &dir, &home, "remote");
    phone_fits(&server, "fantasy-grand");
}

/// The CSRF token and the play data of a served game page.
fn page_data(page: &str) -> (String, Value) {
    let data = page
        .split("<script type=\"application/json\" id=\"play-data\">")
        .nth(1)
        .and_then(|r| r.split("</script>").next())
        .unwrap_or_else(|| panic!("no play data in the page:\n{page}"));
    let v: Value = serde_json::from_str(data).expect("play data is JSON");
    (v["csrf"].as_str().expect("csrf").to_string(), v)
}

/// A club's bare repository `club.git` with ravenpost's pre-receive hook and a
/// post-receive hook that writes the site to `published`, holding `games` (id, White,
/// Black, their accounts) of Gygax Chess made by the admin's clone: (bare, home,
/// published).
fn club_repository(t: &Path, games: &[(&str, &str, &str, &str, &str)]) -> (PathBuf, PathBuf, PathBuf) {
    let home = identity(&t.join("home-admin"), "Club Server", "server@example.org");
    let bare = t.join("club.git");
    let published = t.join("published");
    git(t, &home, &["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
    ok(
        t,
        &home,
        &["hook", "install", "--repo", bare.to_str().unwrap(), "--site", published.to_str().unwrap()],
    );
    git(t, &home, &["clone", "-q", bare.to_str().unwrap(), "admin"]);
    let admin = t.join("admin");
    ok(&admin, &home, &["init", "--layout", "flat"]);
    for (id, white, black, wa, ba) in games {
        ok(
            &admin,
            &home,
            &[
                "new",
                "gygax",
                "--white",
                white,
                "--black",
                black,
                "--id",
                id,
                "--white-account",
                wa,
                "--black-account",
                ba,
            ],
        );
    }
    let pushed = common::git::git_out(&admin, &home, &["push", "-q", "origin", "main"]);
    assert!(pushed.status.success(), "push: {}", common::cli::text(&pushed));
    (bare, home, published)
}

fn bare_game(bare: &Path, id: &str) -> ravenpost::record::game::Game {
    let mut a = Archive::open(bare).expect("archive");
    let mut options = ArchiveOptions::default();
    options.git_config = GitConfigScope::RepositoryOnly;
    a.set_options(options);
    let path = ravenpost::usecases::find(&a, id).expect("the game");
    ravenpost::record::load(&a.read_file(&path.path()).unwrap().unwrap()).unwrap()
}

#[test]
fn a_club_member_moves_only_for_their_own_account_through_the_proxy_header() {
    let t = tempfile::tempdir().unwrap();
    let (bare, home, published) = club_repository(
        t.path(),
        &[("g1", "Ann Example", "Bo Example", "ann", "bo"), ("g2", "Cy Example", "Dee Example", "cy", "dee")],
    );
    let server = Server::start_with(&bare, &home, &["--account-header", "X-Remote-User"]);
    let commits = || git(&bare, &home, &["rev-list", "--count", "main"]).trim().parse::<u32>().unwrap();
    let before = commits();
    // No account named by the proxy: nothing is shown.
    for path in ["/", "/game/g1", "/game/g1/ply", "/game/g1/download"] {
        assert_eq!(server.request("GET", path, &[], "").0, 403, "{path} without an account");
    }
    let as_ann = [("X-Remote-User", "ann")];
    let (status, index) = server.request("GET", "/", &as_ann, "");
    assert_eq!(status, 200, "{index}");
    assert!(index.contains("Signed in as ann: 1 game waiting for your move."), "{index}");
    let (status, page) = server.request("GET", "/game/g1", &as_ann, "");
    assert_eq!(status, 200);
    let (ann_csrf, data) = page_data(&page);
    // The page names the player the account plays as (`Your move, Ann Example`).
    assert_eq!((data["yours"].clone(), data["me"].clone()), (json!(true), json!("Ann Example")));
    let first = data["moves"][0]["san"].as_str().unwrap().to_string();
    // Bo's page of g1 is not his move; Cy's page of g1 is none of his.
    let (_, bo_page) = server.request("GET", "/game/g1", &[("X-Remote-User", "bo")], "");
    let (bo_csrf, bo_data) = page_data(&bo_page);
    assert_eq!((bo_data["yours"].clone(), bo_data["moves"].clone()), (json!(false), json!([])));
    assert_ne!(bo_csrf, ann_csrf, "each account has its own CSRF token");
    let body = json!({ "san": first, "ply": 1 }).to_string();
    // Ann's move with Bo's CSRF token: refused.
    let (status, said) = server.request(
        "POST",
        "/game/g1/move",
        &[("X-Remote-User", "ann"), ("X-Ravenpost-Csrf", &bo_csrf)],
        &body,
    );
    assert_eq!(status, 403, "{said}");
    // Ann in Cy's game: refused by account, whatever the token.
    let (_, cy_page) = server.request("GET", "/game/g2", &as_ann, "");
    let (ann_csrf2, _) = page_data(&cy_page);
    assert_eq!(ann_csrf2, ann_csrf);
    let (status, said) = server.request(
        "POST",
        "/game/g2/move",
        &[("X-Remote-User", "ann"), ("X-Ravenpost-Csrf", &ann_csrf)],
        &body,
    );
    assert_eq!(status, 403, "{said}");
    assert!(said.contains("the account ann plays neither side of g2"), "{said}");
    // Bo cannot move for Ann: the move is Ann's.
    let (status, said) = server.request(
        "POST",
        "/game/g1/move",
        &[("X-Remote-User", "bo"), ("X-Ravenpost-Csrf", &bo_csrf)],
        &body,
    );
    assert_eq!(status, 409, "{said}");
    assert_eq!(commits(), before, "nothing refused left a commit");
    // Ann's own move lands, authored by her, committed by the server's identity.
    // nginx passes the member's Basic credentials on unless told not to: they must
    // leave no trace (checked at the end). "ann:club-secret-7" in Base64.
    let ann = [
        ("X-Remote-User", "ann"),
        ("X-Ravenpost-Csrf", ann_csrf.as_str()),
        ("Authorization", "Basic YW5uOmNsdWItc2VjcmV0LTc="),
    ];
    let (status, said) = server.request("POST", "/game/g1/move", &ann, &body);
    assert_eq!(status, 200, "{said}");
    let answer: Value = serde_json::from_str(&said).unwrap();
    assert_eq!(answer["hook"], Value::Null, "the post-receive hook ran without failing: {said}");
    assert_eq!(commits(), before + 1);
    assert_eq!(
        git(&bare, &home, &["log", "-1", "--format=%an|%cn", "main"]).trim(),
        "Ann Example|Club Server"
    );
    assert_eq!(bare_game(&bare, "g1").moves.len(), 1);
    // The same request again: the move stands (`already`), no second commit.
    let (status, said) = server.request("POST", "/game/g1/move", &ann, &body);
    assert_eq!(status, 200, "{said}");
    assert!(said.contains("\"already\":true"), "{said}");
    assert_eq!(commits(), before + 1);
    // The post-receive hook ran as after a push: the site shows the move.
    let site_page = std::fs::read_to_string(published.join("games/gygax/g1.html")).unwrap();
    assert!(site_page.contains(&format!(">{first}</a>")), "the site has the move");
    // Bo resigns from the page, as his account.
    let bo = [("X-Remote-User", "bo"), ("X-Ravenpost-Csrf", bo_csrf.as_str())];
    let (status, said) = server.request("POST", "/game/g1/action", &bo, r#"{"action":"resign"}"#);
    assert_eq!(status, 200, "{said}");
    assert_eq!(git(&bare, &home, &["log", "-1", "--format=%an", "main"]).trim(), "Bo Example");
    // What the server committed is what the hook accepts from the players' accounts:
    // a clone verifies clean, and its sync finds nothing to refuse.
    git(t.path(), &home, &["clone", "-q", bare.to_str().unwrap(), "check"]);
    let check = t.path().join("check");
    ok(&check, &home, &["verify"]);
    ok(&check, &home, &["sync"]);
    // The password is nowhere: not in what the server wrote, the repository or the site.
    let secrets = ["club-secret-7", "YW5uOmNsdWItc2VjcmV0LTc="];
    let logged = server.logged();
    assert!(secrets.iter().all(|p| !logged.contains(p)), "{logged}");
    crate::conditional::holds_none(&bare, &home, &secrets);
    for (path, text) in crate::site::site_files(&published) {
        assert!(secrets.iter().all(|p| !text.contains(p)), "{path}");
    }
}

/// 50 clients moving at once in 10 games through one club server, while the command
/// line moves in the same repository: each ply is won by exactly one request, every
/// answered move is in the archive, and `verify` finds it clean.
#[test]
fn fifty_clients_and_the_cli_racing_in_ten_games_each_ply_has_one_winner() {
    let t = tempfile::tempdir().unwrap();
    let games: Vec<(String, String, String, String, String)> = (0..10)
        .map(|i| {
            (format!("r{i}"), format!("White {i}"), format!("Black {i}"), format!("w{i}"), format!("b{i}"))
        })
        .collect();
    let refs: Vec<(&str, &str, &str, &str, &str)> = games
        .iter()
        .map(|(a, b, c, d, e)| (a.as_str(), b.as_str(), c.as_str(), d.as_str(), e.as_str()))
        .collect();
    let (bare, home, _) = club_repository(t.path(), &refs);
    let server =
        std::sync::Arc::new(Server::start_with(&bare, &home, &["--account-header", "X-Remote-User"]));
    let start = git(&bare, &home, &["rev-list", "--count", "main"]).trim().parse::<usize>().unwrap();
    const ROUNDS: usize = 4;
    let won = std::sync::Arc::new(std::sync::Mutex::new(Vec::<(String, usize)>::new()));
    let mut threads = Vec::new();
    for client in 0..50 {
        let (server, won) = (server.clone(), won.clone());
        threads.push(std::thread::spawn(move || {
            let game = format!("r{}", client % 10);
            for _ in 0..ROUNDS {
                // Whoever is to move in the game: its account.
                let g = client % 10;
                let (_, page) = server.request(
                    "GET",
                    &format!("/game/{game}"),
                    &[("X-Remote-User", &format!("w{g}"))],
                    "",
                );
                let (_, data) = page_data(&page);
                let plies = data["plies"].as_u64().unwrap() as usize;
                let account = if plies.is_multiple_of(2) { format!("w{g}") } else { format!("b{g}") };
                let (_, page) =
                    server.request("GET", &format!("/game/{game}"), &[("X-Remote-User", &account)], "");
                let (csrf, data) = page_data(&page);
                let Some(san) =
                    data["moves"].get(client % 3).or(data["moves"].get(0)).and_then(|m| m["san"].as_str())
                else {
                    continue;
                };
                let ply = data["plies"].as_u64().unwrap() as usize + 1;
                let body = json!({ "san": san, "ply": ply }).to_string();
                let (status, said) = server.request(
                    "POST",
                    &format!("/game/{game}/move"),
                    &[("X-Remote-User", &account), ("X-Ravenpost-Csrf", &csrf)],
                    &body,
                );
                match status {
                    // The same move as the winner's, sent for the same ply: not a win.
                    200 if said.contains("\"already\":true") => {}
                    200 => won.lock().unwrap().push((game.clone(), ply)),
                    409 => {}
                    _ => panic!("{status}: {said}"),
                }
            }
        }));
    }
    // The command line, in the same repository, at the same time: the first legal move
    // of r0 and r1, as their players.
    let mut cli_won = Vec::new();
    for round in 0..6 {
        let id = format!("r{}", round % 2);
        let g = bare_game(&bare, &id);
        let pos = g.position();
        let mv = g.variant.legal_moves(&pos)[0];
        let token = ravenpost::notation::san::write_move(&g.variant, &pos, &mv);
        let player = ravenpost::record::player(&g, pos.side_to_move());
        let ply = g.moves.len() + 1;
        let o = common::cli::run(
            &bare,
            &home,
            &["move", &id, &token, "--as", &player, "--expect-ply", &ply.to_string()],
        );
        if o.status.success() {
            cli_won.push((id, ply));
        }
    }
    for th in threads {
        th.join().expect("a client thread");
    }
    let mut won = won.lock().unwrap().clone();
    won.extend(cli_won);
    won.sort();
    let mut unique = won.clone();
    unique.dedup();
    assert_eq!(won, unique, "a ply was won twice");
    let mut total = 0;
    for i in 0..10 {
        let id = format!("r{i}");
        let plies = bare_game(&bare, &id).moves.len();
        let answered: Vec<usize> = won.iter().filter(|(g, _)| *g == id).map(|(_, p)| *p).collect();
        assert_eq!(answered, (1..=plies).collect::<Vec<_>>(), "{id}: every ply answered once, none lost");
        total += plies;
    }
    assert!(total >= 10, "moves were made ({total})");
    let end = git(&bare, &home, &["rev-list", "--count", "main"]).trim().parse::<usize>().unwrap();
    assert_eq!(end, start + total, "one commit per move");
    git(t.path(), &home, &["clone", "-q", bare.to_str().unwrap(), "check"]);
    ok(&t.path().join("check"), &home, &["verify"]);
}

/// Issue 32: the Dragon's capture from afar (it takes a piece on Land without moving) is
/// marked as such (a dashed ring on the Land square), played by clicks, and committed as
/// the cli commits the same token; the Dragon stays in the Air.
#[test]
fn a_clicked_dragon_capture_from_afar_is_committed_as_the_cli_commits_it() {
    use ravenpost::engine::Move;
    let t = tempfile::tempdir().unwrap();
    let (dir, home) = club(t.path(), "web", "gygax");
    let (twin, twin_home) = club(t.path(), "cli", "gygax");
    // A Gold move and a Scarlet reply after which Gold's Dragon can capture from afar,
    // found by the library's move generator.
    let v = variants::by_name("gygax", &[]).unwrap();
    let dims = &v.def().dims;
    let remote = |m: &Move| matches!(m, Move::Remote { .. });
    let pos = two_plies_then(&v, &[(&dir, &home), (&twin, &twin_home)], remote)
        .expect("two plies after which the Dragon can capture from afar");
    let moves = v.legal_moves(&pos);
    let m = moves.iter().find(|m| remote(m)).expect("the capture from afar");
    let origin = dims.name(m.from().unwrap());
    let dest = dims.name(m.to());
    assert!(origin.starts_with('3') && dest.starts_with('2'), "from the Air ({origin}) onto Land ({dest})");
    let san = ravenpost::notation::san::write_move(&v, &pos, m);
    let long = ravenpost::notation::moves::long_form(&v, m);
    let mut marks: Vec<String> =
        moves.iter().filter(|x| x.from() == m.from()).map(|x| dims.name(x.to())).collect();
    marks.sort();
    marks.dedup();

    let server = Server::start(&dir, &home);
    let mut b = Browser::start(1280, 1000);
    b.open(&server.url);
    b.open(&format!("{}/game/g1", server.base()));
    click_on(&mut b, &format!("[id=\"{origin}\"]"));
    assert_eq!(
        b.eval(&format!(
            "(function () {{ var e = document.querySelector('.target[data-square=\"{dest}\"]'); \
             return [e.getAttribute('class'), e.getAttribute('stroke-dasharray')]; }})()"
        )),
        json!(["target afar", "4 3"]),
        "{dest} is marked as a capture from afar (a dashed ring)"
    );
    keep_screenshot(&mut b, "gygax-1280-afar");
    click_move(&mut b, &origin, &dest, &marks, None, &format!("Play {san} ({long})?"));
    let served = wait_for_ply(&dir, 3);
    ok(&twin, &twin_home, &["move", "g1", &san]);
    assert_eq!(served, game_text(&twin), "the served move is the cli's, byte for byte");
    wait_for(&mut b, "document.body.getAttribute('data-ply') === '3'", "the page shows ply 3");
    assert_eq!(
        b.eval(&format!(
            "[document.querySelector('#board [data-square=\"{origin}\"].piece') !== null, \
              document.querySelector('#board [data-square=\"{dest}\"].piece') === null]"
        )),
        json!([true, true]),
        "the Dragon stays on {origin}, the piece on {dest} is gone"
    );
    assert!(b.errors().is_empty(), "{:?}", b.errors());
    hook_accepts(t.path(), &dir, &home, "remote");
}

/// The moves of `pos` a click plays without a question: from a square, the only move of
/// that piece to its destination.
fn clickable(
    v: &ravenpost::engine::Variant,
    pos: &ravenpost::engine::Position,
) -> Vec<ravenpost::engine::Move> {
    let moves = v.legal_moves(pos);
    moves
        .iter()
        .filter(|m| {
            m.from().is_some()
                && moves.iter().filter(|o| o.from() == m.from() && o.to() == m.to()).count() == 1
        })
        .cloned()
        .collect()
}

/// Plays `m` on the analysis board by two clicks and waits until the line has `len`
/// moves.
fn analyse_click(b: &mut Browser, v: &ravenpost::engine::Variant, m: &ravenpost::engine::Move, len: usize) {
    let dims = &v.def().dims;
    click_on(b, &format!("[id=\"{}\"]", dims.name(m.from().unwrap())));
    click_on(b, &format!(".target[data-square=\"{}\"]", dims.name(m.to())));
    wait_for(
        b,
        &format!("document.querySelectorAll('#analysis-line .amove').length === {len}"),
        &format!("the analysis line has {len} moves"),
    );
}

/// Issue 32: on the analysis board a player tries two lines by clicking while the
/// opponent is to move, nothing committed; saves them as the conditional tree
/// `conditional add` writes; the reply of the line the opponent then follows is played
/// by the next `sync`, and neither the opponent's clone nor the server ever holds the
/// tree.
#[test]
fn an_analysis_tree_of_two_lines_saved_by_clicks_is_played_when_the_move_arrives() {
    use crate::conditional::{Setup, holds, holds_none, server_log};
    let s = Setup::new("fg", &[]);
    s.push_move(&s.ann, "fg", "e4", T0 + 100);
    let file = s.ann.join("games/fantasy-grand/c/3/fg.pgn");
    let game = ravenpost::record::load(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let v = game.variant.clone();
    let pos = game.position();
    // Two of Bo's moves by different pieces, and Ann's reply to each (the library's).
    let bo_moves = clickable(&v, &pos);
    let x1 = bo_moves[0];
    let x2 = *bo_moves.iter().find(|m| m.from() != x1.from()).expect("a move of another piece");
    let reply = |x: &ravenpost::engine::Move| {
        let after = v.make(&pos, x);
        let y = clickable(&v, &after)[0];
        (
            ravenpost::notation::san::write_move(&v, &pos, x),
            ravenpost::notation::san::write_move(&v, &after, &y),
            y,
        )
    };
    let (x1_san, y1_san, y1) = reply(&x1);
    let (x2_san, y2_san, y2) = reply(&x2);
    let commits = || git(&s.ann, &s.home, &["rev-list", "--count", "HEAD"]).trim().to_string();
    let before = commits();

    let server = Server::start(&s.ann, &s.home);
    let mut b = Browser::start(1280, 1000);
    b.open(&server.url);
    b.open(&format!("{}/game/fg", server.base()));
    click_on(&mut b, "#analyse");
    wait_for(&mut b, "!document.getElementById('analysis').hidden", "the analysis board opens");
    analyse_click(&mut b, &v, &x1, 1);
    analyse_click(&mut b, &v, &y1, 2);
    // Back to the start of the line, and another first move.
    click_on(&mut b, "#analysis-back");
    click_on(&mut b, "#analysis-back");
    wait_for(&mut b, "document.getElementById('analysis-back').disabled", "back at the line's start");
    analyse_click(&mut b, &v, &x2, 1);
    analyse_click(&mut b, &v, &y2, 2);
    let lines = b.eval(
        "Array.prototype.map.call(document.querySelectorAll('#analysis-lines li'), e => e.textContent)",
    );
    assert_eq!(lines, json!([format!("{x1_san} {y1_san}"), format!("{x2_san} {y2_san}")]), "the lines tried");
    let dims = &v.def().dims;
    assert_eq!(
        b.eval(&format!(
            "[document.body.getAttribute('data-ply'), document.querySelector('#board [data-square=\"{}\"].piece') !== null]",
            dims.name(y2.to())
        )),
        json!(["1", true]),
        "the board shows the analysis position; the game stays at ply 1"
    );
    keep_screenshot(&mut b, "fantasy-grand-1280-analysis");
    assert_eq!(commits(), before, "analysis commits nothing");
    click_on(&mut b, "#analysis-save");
    wait_for(
        &mut b,
        "document.getElementById('play-line').textContent.indexOf('Saved as your conditional moves (2 lines)') === 0",
        "the tree is saved",
    );
    assert!(b.errors().is_empty(), "{:?}", b.errors());
    drop(b);
    drop(server);
    assert_eq!(commits(), before, "saving a tree commits nothing");
    let shown: Value =
        serde_json::from_str(&ok(&s.ann, &s.home, &["conditional", "show", "fg", "--json"])).unwrap();
    assert_eq!(shown[0]["owner"], "Ann");
    let stored: Vec<Vec<String>> = serde_json::from_value(shown[0]["lines"].clone()).unwrap();
    assert_eq!(stored.len(), 2, "{shown}");
    let movetext = shown[0]["movetext"].as_str().unwrap().to_string();
    for san in [&x1_san, &y1_san, &x2_san, &y2_san] {
        assert!(movetext.contains(san.as_str()), "{san} in {movetext}");
    }
    // The scan below finds the tree where it is: in Ann's clone only.
    assert!(holds(&s.ann, &s.home, &movetext));

    // Bo plays the second line's move; Ann's next sync answers with its reply.
    ok_at(&s.bo, &s.home, T0 + 1000, &["sync"]);
    s.push_move(&s.bo, "fg", &x2_san, T0 + 1000);
    let out = ok_at(&s.ann, &s.home, T0 + 1100, &["sync"]);
    assert!(out.contains(&format!("fg: Ann's prepared reply to {x2_san}: ply 3 {y2_san} (commit ")), "{out}");
    assert_eq!(
        server_log(&s).last().unwrap(),
        &format!("Ann|fg: ply 3 {y2_san} (White plays {y2_san}, a prepared reply)")
    );
    ok_at(&s.bo, &s.home, T0 + 1200, &["sync"]);
    let secrets = [movetext.as_str(), "AfterPly"];
    holds_none(&s.bo, &s.home, &secrets);
    holds_none(&s.server, &s.home, &secrets);
    assert!(
        holds(&s.ann, &s.home, "AfterPly") || !s.ann.join(".git/ravenpost/conditional/fg.white").exists()
    );
}

/// Issue 32: the page shows the clock of the player to move; once the opponent is over
/// time it offers the claim, and a click commits what `claim timeout` commits.
#[test]
fn a_timeout_claimed_by_a_click_is_committed_as_the_cli_commits_it() {
    let t = tempfile::tempdir().unwrap();
    let [(dir, home), (twin, twin_home)] = timed_twins(t.path());
    let day = 86_400;
    let actions = "Array.prototype.map.call(document.querySelectorAll('#actions button'), function (e) { return e.getAttribute('data-action'); })";
    // Before Bo's deadline: his clock, and no claim.
    {
        let server = Server::start_at(&dir, &home, T0 + 3_600, &[]);
        let mut b = Browser::start(1280, 1000);
        b.open(&server.url);
        let index = b.eval("document.body.textContent").to_string();
        assert!(index.contains("Bo Example (Scarlet), by 2025-"), "the deadline on the index: {index}");
        b.open(&format!("{}/game/g1", server.base()));
        let clock = b.eval("document.getElementById('clock-line').textContent");
        assert!(clock.as_str().unwrap().starts_with("Bo Example to move by 2025-"), "{clock}");
        assert!(clock.as_str().unwrap().ends_with(" left)."), "{clock}");
        assert_eq!(b.eval(actions), json!(["resign", "leave"]));
    }
    let later = T0 + 3 * day;
    let server = Server::start_at(&dir, &home, later, &[]);
    let mut b = Browser::start(1280, 1000);
    b.open(&server.url);
    b.open(&format!("{}/game/g1", server.base()));
    let clock = b.eval("document.getElementById('clock-line').textContent");
    assert!(clock.as_str().unwrap().starts_with("Bo Example to move: over time since 2025-"), "{clock}");
    assert_eq!(b.eval(actions), json!(["resign", "claim-timeout", "leave"]));
    act_by_click(&mut b, "claim-timeout", "Claim the game on time? Your opponent is over time.");
    wait_for_result(&dir, "1-0");
    ok_at(&twin, &twin_home, later, &["claim", "timeout", "g1"]);
    assert_eq!(game_text(&dir), game_text(&twin), "the served claim is the cli's, byte for byte");
    assert_eq!(head_message(&dir, &home), head_message(&twin, &twin_home));
    wait_for(&mut b, "document.querySelectorAll('#actions button').length === 0", "no actions after the end");
    assert!(b.errors().is_empty(), "{:?}", b.errors());
}

/// Two archives of Ann Example's, `web` and `cli`, each with the Gygax Chess game `g1`
/// against Bo Example at one move a day, Ann's first move made at `T0 + 60`.
fn timed_twins(t: &Path) -> [(PathBuf, PathBuf); 2] {
    let mut archives = Vec::new();
    for name in ["web", "cli"] {
        let home = identity(&t.join(format!("home-{name}")), "Ann Example", "ann@example.org");
        let dir = t.join(name);
        ok_at(t, &home, T0, &["init", dir.to_str().unwrap(), "--layout", "flat"]);
        ok_at(
            &dir,
            &home,
            T0,
            &[
                "new",
                "gygax",
                "--white",
                "Ann Example",
                "--black",
                "Bo Example",
                "--id",
                "g1",
                "--time-control",
                "1/1d",
            ],
        );
        ok_at(&dir, &home, T0 + 60, &["move", "g1", "2e3"]);
        archives.push((dir, home));
    }
    <[_; 2]>::try_from(archives).unwrap()
}

/// Issue 32: leave booked from the page (a date and a number of days) is what
/// `ravenpost leave` books; a refused booking (a day in the past) says why and writes
/// nothing.
#[test]
fn leave_booked_by_clicks_is_committed_as_the_cli_commits_it() {
    let t = tempfile::tempdir().unwrap();
    let [(dir, home), (twin, twin_home)] = timed_twins(t.path());
    let now = T0 + 3_600;
    let server = Server::start_at(&dir, &home, now, &[]);
    let mut b = Browser::start(1280, 1000);
    b.open(&server.url);
    b.open(&format!("{}/game/g1", server.base()));
    let before = game_text(&dir);
    click_on(&mut b, "#actions button[data-action=\"leave\"]");
    wait_for(&mut b, "!document.getElementById('leave-form').hidden", "the leave form is shown");
    assert_eq!(b.eval("document.getElementById('leave-from').value"), json!("2025-11-29"), "today first");
    // A day in the past is refused with the rules' reason.
    b.eval("document.getElementById('leave-from').value = '2025-11-20'");
    click_on(&mut b, "#leave-book");
    wait_for(
        &mut b,
        "document.getElementById('play-line').classList.contains('error')",
        "the refusal is shown",
    );
    let said = b.eval("document.getElementById('play-line').textContent").to_string();
    let refused = common::cli::run(
        &twin,
        &twin_home,
        &["leave", "g1", "--days", "5", "--from", "2025-11-20", "--as", "Ann Example"],
    );
    assert!(!refused.status.success());
    assert_eq!(game_text(&dir), before, "a refused booking writes nothing");
    assert!(said.contains("2025-11-20"), "the page says which day was refused: {said}");
    b.eval("document.getElementById('leave-from').value = '2025-12-10'");
    b.eval("document.getElementById('leave-days').value = '5'");
    click_on(&mut b, "#leave-book");
    let started = Instant::now();
    while game_text(&dir) == before {
        assert!(started.elapsed() < Duration::from_secs(30), "no leave reached the archive");
        std::thread::sleep(Duration::from_millis(50));
    }
    ok_at(
        &twin,
        &twin_home,
        now,
        &["leave", "g1", "--days", "5", "--from", "2025-12-10", "--as", "Ann Example"],
    );
    assert_eq!(game_text(&dir), game_text(&twin), "the served leave is the cli's, byte for byte");
    assert_eq!(head_message(&dir, &home), head_message(&twin, &twin_home));
    // The one error in the console is the refused booking's answer.
    let errors: Vec<String> = b
        .errors()
        .into_iter()
        .filter(|e| !(e.contains("status of 409") && e.contains("/game/g1/leave")))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

/// Found by trying the server as a club: a draw offer already made was offered again, and
/// a draw claim was offered in every position. Now the offer goes once, and the claim
/// only when the position has occurred three times.
#[test]
fn serve_offered_a_second_draw_offer_and_claims_the_rules_refuse() {
    let t = tempfile::tempdir().unwrap();
    let (dir, home) = club(t.path(), "web", "gygax");
    // A move of each side that the same piece can take back, from the library.
    let v = variants::by_name("gygax", &[]).unwrap();
    let start = v.start_position();
    let back_and_forth = |pos: &ravenpost::engine::Position| {
        let pairs = v.legal_moves(pos).into_iter().flat_map(|m| {
            let after = v.make(pos, &m);
            v.legal_moves(&after).into_iter().map(move |r| (m, r))
        });
        pairs.into_iter().find_map(|(m, reply)| {
            let after = v.make(pos, &m);
            let after_reply = v.make(&after, &reply);
            let back = v
                .legal_moves(&after_reply)
                .into_iter()
                .find(|b| b.from() == Some(m.to()) && Some(b.to()) == m.from())?;
            let after_back = v.make(&after_reply, &back);
            let reply_back = v
                .legal_moves(&after_back)
                .into_iter()
                .find(|b| b.from() == Some(reply.to()) && Some(b.to()) == reply.from())?;
            let sans = [
                ravenpost::notation::san::write_move(&v, pos, &m),
                ravenpost::notation::san::write_move(&v, &after, &reply),
                ravenpost::notation::san::write_move(&v, &after_reply, &back),
                ravenpost::notation::san::write_move(&v, &after_back, &reply_back),
            ];
            (v.make(&after_back, &reply_back).hash() == pos.hash()).then_some(sans)
        })
    };
    let cycle = back_and_forth(&start).expect("four plies back to the start");
    let players = ["Ann Example", "Bo Example"];
    let play = |sans: &[String]| {
        for (i, san) in sans.iter().enumerate() {
            ok(&dir, &home, &["move", "g1", san, "--as", players[i % 2]]);
        }
    };
    play(&cycle);
    let server = Server::start(&dir, &home);
    let mut b = Browser::start(1280, 1000);
    b.open(&server.url);
    b.open(&format!("{}/game/g1", server.base()));
    let actions = "Array.prototype.map.call(document.querySelectorAll('#actions button'), function (e) { return e.getAttribute('data-action'); })";
    assert_eq!(b.eval(actions), json!(["resign", "offer-draw"]), "the start twice: no claim");
    click_on(&mut b, "#actions button[data-action=\"offer-draw\"]");
    wait_for(&mut b, "!document.getElementById('confirm').hidden", "the confirmation is shown");
    click_on(&mut b, "#confirm-play");
    wait_for(
        &mut b,
        "document.querySelectorAll('#actions button[data-action=\"offer-draw\"]').length === 0 && document.querySelectorAll('#actions button').length === 1",
        "the offer stands: not offered again",
    );
    assert_eq!(
        b.eval("document.getElementById('offer-line').textContent"),
        json!("Your draw offer goes with your next move."),
        "the offer is said to its player"
    );
    // Ann's move carries the offer, Bo moves on (declining it), back to the start a
    // third time: now the claim.
    play(&cycle);
    b.open(&format!("{}/game/g1", server.base()));
    assert_eq!(b.eval(actions), json!(["resign", "offer-draw", "claim-draw"]), "the start three times");
    assert!(b.errors().is_empty(), "{:?}", b.errors());
}

/// Found by trying to break the server: a served move did not answer the opponent's
/// prepared replies (`ravenpost move` does); a club member could download the players'
/// addresses; two account headers were taken as the first; any `Host` was served (DNS
/// rebinding) and pages could be framed.
#[test]
fn serve_left_prepared_replies_unanswered_and_leaked_addresses_in_downloads() {
    let t = tempfile::tempdir().unwrap();
    let (dir, home) = club(t.path(), "web", "gygax");
    ok(&dir, &home, &["conditional", "add", "g1", "1. 2e3 Sa3b6", "--as", "Bo Example"]);
    let server = Server::start(&dir, &home);
    let cookie = format!("ravenpost-serve={}", server.token());
    let (_, page) = server.request("GET", "/game/g1", &[("Cookie", &cookie)], "");
    let (csrf, _) = page_data(&page);
    let (status, answer) = server.request(
        "POST",
        "/game/g1/move",
        &[("Cookie", &cookie), ("X-Ravenpost-Csrf", &csrf)],
        r#"{"san": "2e3", "ply": 1}"#,
    );
    assert_eq!(status, 200, "{answer}");
    let answer: Value = serde_json::from_str(&answer).unwrap();
    let said = answer["prepared"].to_string();
    assert!(said.contains("Bo Example's prepared reply to 2e3: ply 2 Sa3b6"), "{said}");
    let g = ravenpost::record::load(&game_text(&dir)).unwrap();
    assert_eq!(g.moves.len(), 2, "the prepared reply was played");
    // Pages are not to be framed; another Host is refused.
    let head = server.raw(&format!(
        "GET /game/g1 HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n",
        server.port
    ));
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let head = head.to_ascii_lowercase();
    assert!(head.contains("x-frame-options: deny") && head.contains("frame-ancestors 'none'"), "{head}");
    let rebound = server.raw(&format!(
        "GET /game/g1 HTTP/1.1\r\nHost: evil.example:{}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n",
        server.port
    ));
    assert!(rebound.starts_with("HTTP/1.1 403"), "{rebound}");
    // The token is exchanged only under the printed address too (found by a new user).
    let exchanged = server.raw(&format!(
        "GET /?token={} HTTP/1.1\r\nHost: evil.example:{}\r\nConnection: close\r\n\r\n",
        server.token(),
        server.port
    ));
    assert!(exchanged.starts_with("HTTP/1.1 403") && !exchanged.contains("Set-Cookie"), "{exchanged}");
    // A port in use is said so, with what to do.
    let taken = common::cli::run(&dir, &home, &["serve", "--port", &server.port.to_string()]);
    assert!(!taken.status.success());
    let said = common::cli::text(&taken);
    assert!(
        said.contains(&format!("port {} on 127.0.0.1 is in use", server.port)) && said.contains("--port"),
        "{said}"
    );
    drop(server);

    // A club: a member downloads a game without its players' addresses; a request naming
    // two accounts is refused.
    let (bare, club_home, _) = club_repository(t.path(), &[]);
    let admin = t.path().join("admin");
    ok(
        &admin,
        &club_home,
        &[
            "new",
            "gygax",
            "--white",
            "Ann Example",
            "--black",
            "Bo Example",
            "--id",
            "c1",
            "--white-account",
            "ann",
            "--black-account",
            "bo",
            "--white-email",
            "ann@example.org",
            "--black-email",
            "bo@example.net",
        ],
    );
    let pushed = common::git::git_out(&admin, &club_home, &["push", "-q", "origin", "main"]);
    assert!(pushed.status.success(), "push: {}", common::cli::text(&pushed));
    let server = Server::start_with(&bare, &club_home, &["--account-header", "X-Remote-User"]);
    let (status, file) = server.request("GET", "/game/c1/download", &[("X-Remote-User", "cy")], "");
    assert_eq!(status, 200, "{file}");
    assert!(file.contains("[White \"Ann Example\"]"), "{file}");
    assert!(!file.contains("ann@example.org") && !file.contains("bo@example.net"), "{file}");
    let (status, body) = server.request("GET", "/", &[("X-Remote-User", "ann"), ("X-Remote-User", "bo")], "");
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("two accounts"), "{body}");
}

/// Issue 32: a secret army choice in the browser. The page shows each army's pieces as
/// the board draws them (labels from the library's start position of that army); a
/// click commits to one, a click reveals it once both have committed, and the game page
/// opens by itself when the opponent's reveal (by the cli) starts the game.
#[test]
fn an_army_chosen_and_revealed_by_clicks_starts_the_game() {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Ann Example", "ann@example.org");
    let dir = t.path().join("arc");
    ok(t.path(), &home, &["init", dir.to_str().unwrap(), "--layout", "flat"]);
    ok(
        &dir,
        &home,
        &[
            "new",
            "fantasy-grand",
            "--white",
            "Ann Example",
            "--black",
            "Bo Example",
            "--id",
            "g1",
            "--secret-armies",
        ],
    );
    let server = Server::start(&dir, &home);
    let mut b = Browser::start(1280, 1000);
    b.open(&server.url);
    assert_eq!(b.eval("document.querySelector('#games a').getAttribute('href')"), json!("army/g1"));
    b.open(&format!("{}/army/g1", server.base()));
    let armies = b.eval("Array.prototype.map.call(document.querySelectorAll('.choose-army'), e => e.getAttribute('data-army'))");
    assert_eq!(
        armies,
        json!(["humans", "elves", "dwarves", "evil-horde", "giants"]),
        "the Druid only where allowed"
    );
    // The Evil Horde's pieces as the board labels them, from the library.
    let v = variants::by_name(
        "fantasy-grand",
        &[
            ("army-white".to_string(), "evil-horde".to_string()),
            ("army-black".to_string(), "elves".to_string()),
        ],
    )
    .unwrap();
    let start = v.start_position();
    let mut labels: Vec<(usize, String)> = v
        .def()
        .dims
        .squares()
        .filter_map(|sq| start.piece_at(sq))
        .filter(|p| p.side == ravenpost::engine::Side::White)
        .map(|p| (p.kind.index(), ravenpost::notation::diagram::piece_label(&v, p)))
        .collect();
    labels.sort();
    labels.dedup();
    let labels: Vec<String> = labels.into_iter().map(|(_, l)| l).collect();
    let shown = b.eval(
        "Array.prototype.map.call(document.querySelectorAll('section[data-army=\"evil-horde\"] .disc'), e => e.textContent)",
    );
    assert_eq!(shown, json!(labels), "the Evil Horde's pieces");
    keep_screenshot(&mut b, "fantasy-grand-1280-army");
    click_on(&mut b, "button.choose-army[data-army=\"evil-horde\"]");
    wait_for(&mut b, "!document.getElementById('confirm').hidden", "the confirmation is shown");
    assert_eq!(
        b.eval("document.getElementById('confirm-text').textContent"),
        json!("Choose Evil Horde? The choice is final; it stays secret until both players have chosen.")
    );
    click_on(&mut b, "#confirm-play");
    wait_for(
        &mut b,
        "document.getElementById('army-state') !== null && document.getElementById('army-state').textContent.indexOf(\"Waiting for Bo Example's army commitment\") >= 0",
        "Ann's commitment is made",
    );
    assert!(
        head_message(&dir, &home).starts_with("g1: Ann Example commits to an army"),
        "{}",
        head_message(&dir, &home)
    );
    assert!(!game_text_or_none(&dir), "no game before the reveals");
    ok(&dir, &home, &["army", "commit", "g1", "elves", "--as", "Bo Example"]);
    wait_for(
        &mut b,
        "document.getElementById('army-reveal') !== null && document.getElementById('army-state') !== null",
        "the reveal is offered",
    );
    let reveal_state = b.eval("document.getElementById('army-state').textContent");
    assert_eq!(
        reveal_state,
        json!("You play Ann Example (White). Waiting for Ann Example's reveal and Bo Example's reveal.")
    );
    click_on(&mut b, "#army-reveal");
    wait_for(
        &mut b,
        "document.getElementById('army-state') !== null && document.getElementById('army-state').textContent.indexOf(\"Bo Example's reveal\") >= 0",
        "Ann's reveal is made",
    );
    ok(&dir, &home, &["army", "reveal", "g1", "--as", "Bo Example"]);
    wait_for(
        &mut b,
        "document.body !== null && document.body.getAttribute('data-variant') === 'fantasy-grand'",
        "the game page opens",
    );
    let g = ravenpost::record::load(&game_text(&dir)).unwrap();
    assert_eq!(g.moves.len(), 0);
    let text = game_text(&dir);
    assert!(text.contains("[WhiteArmy \"evil-horde\"]") && text.contains("[BlackArmy \"elves\"]"), "{text}");
    assert!(ok(&dir, &home, &["verify"]).contains("0 problems"));
    assert!(b.errors().is_empty(), "{:?}", b.errors());
}

/// Whether the archive in `dir` holds the game file of `g1`.
fn game_text_or_none(dir: &Path) -> bool {
    let a = Archive::open(dir).expect("archive");
    a.list_games().unwrap().iter().any(|p| p.id() == "g1")
}

/// Found by a club trial: the served pages had no standings. The index links each
/// tournament's, the page links each game to its page here, and its JSON is what
/// `standings --json` prints.
#[test]
fn the_served_pages_had_no_standings() {
    let t = tempfile::tempdir().unwrap();
    let (dir, home) = club(t.path(), "web", "gygax");
    ok(&dir, &home, &["tournament", "new", "cup", "gygax", "--players", "Ann Example,Bo Example,Cy Example"]);
    ok(&dir, &home, &["resign", "cup-r1-b1", "--as", "Bo Example"]);
    let printed = ok(&dir, &home, &["standings", "--json"]);
    let server = Server::start(&dir, &home);
    let cookie = format!("ravenpost-serve={}", server.token());
    let c = [("Cookie", cookie.as_str())];
    let (status, index) = server.request("GET", "/", &c, "");
    assert_eq!(status, 200);
    assert!(
        index.replace("&#x2f;", "/").contains("<a href=\"tournaments/cup.html\">cup: standings</a>"),
        "{index}"
    );
    let (status, json) = server.request("GET", "/tournaments/cup.json", &c, "");
    assert_eq!(status, 200);
    assert_eq!(json, printed, "the served JSON is `standings --json`");
    let (status, page) = server.request("GET", "/tournaments/cup.html", &c, "");
    assert_eq!(status, 200);
    assert!(page.replace("&#x2f;", "/").contains("href=\"../game/cup-r1-b1\""), "{page}");
    assert_eq!(server.request("GET", "/tournaments/nope.html", &c, "").0, 404);
    // A game the user plays no side of says so, not "waiting for the opponent" (found by
    // a new user).
    for round in 1..=3 {
        let id = format!("cup-r{round}-b1");
        let g = ravenpost::record::load(
            &std::fs::read_to_string(dir.join(format!("games/gygax/{id}.pgn"))).unwrap(),
        )
        .unwrap();
        let plays =
            ravenpost::engine::Side::ALL.iter().any(|&s| ravenpost::record::player(&g, s) == "Ann Example");
        let (_, page) = server.request("GET", &format!("/game/{id}"), &c, "");
        let (_, data) = page_data(&page);
        assert_eq!(data["plays"], json!(plays), "{id}");
    }
    // An unknown game: a 404 page that names neither the archive's folder nor its games.
    for path in ["/game/nope", "/game/nope/ply", "/game/nope/download", "/army/nope"] {
        let (status, body) = server.request("GET", path, &c, "");
        assert_eq!(status, 404, "{path}: {body}");
        assert!(body.contains("no game `nope` here") || body.contains("nope"), "{path}: {body}");
        assert!(!body.contains(dir.to_str().unwrap()) && !body.contains("cup-r1-b1"), "{path}: {body}");
    }
}

/// Found by trying to break the server: connections that never finish their request's
/// head were held for ever, so a stranger could use up the server's connections. Now
/// each is closed after `--header-timeout`, and requests go on being answered meanwhile.
#[test]
fn serve_held_half_sent_requests_for_ever() {
    let t = tempfile::tempdir().unwrap();
    let (dir, home) = club(t.path(), "web", "gygax");
    let server = Server::start_with(&dir, &home, &["--header-timeout", "1"]);
    let started = Instant::now();
    let mut slow: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
            s.write_all(b"GET / HTTP/1.1\r\nX-Pad: ").unwrap();
            s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            s
        })
        .collect();
    // Meanwhile a whole request is answered.
    let cookie = format!("ravenpost-serve={}", server.token());
    assert_eq!(server.request("GET", "/game/g1", &[("Cookie", &cookie)], "").0, 200);
    // Each half-sent one is closed by the server (end of stream, or an error answer).
    for s in &mut slow {
        let mut buf = Vec::new();
        let read = s.read_to_end(&mut buf);
        assert!(read.is_ok(), "closed by the server, not by our read timeout: {read:?}");
        let text = String::from_utf8_lossy(&buf);
        assert!(text.is_empty() || text.starts_with("HTTP/1.1 408"), "{text}");
    }
    assert!(started.elapsed() < Duration::from_secs(15), "closed after about a second");
}
