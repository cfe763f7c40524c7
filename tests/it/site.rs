//! `ravenpost site` (issue 18): the generated pages driven in a real headless Chromium
//! through the DevTools protocol (a websocket on a loopback port Chromium picks), checked
//! against the positions the library computes; incremental regeneration; the
//! post-receive hook after a real `git push`.
//!
//! Chromium is Debian's `chromium` (`.ci/run` installs it); without it the browser tests
//! fail and say so. Every browser started here is killed when its test ends, passing or
//! not ([`Browser`]'s `Drop`).

use crate::common;

use std::collections::BTreeMap;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::cli::{T0, archive, ok, ok_at};
use common::git::git;
use common::rng::Lcg;
use ravenpost::archive::{Archive, ArchiveOptions, GitConfigScope, Identity};
use ravenpost::engine::{Piece, PieceKind, Position, Side, Variant};
use ravenpost::notation::diagram::{is_dark, level_colors, piece_label, portal_squares};
use ravenpost::notation::position_string::{piece_token, write_position};
use ravenpost::notation::san::write_move;
use ravenpost::record;
use ravenpost::usecases::{self as ops, NewGame};
use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

const CHROMIUM: &str = "/usr/bin/chromium";

// ---------------------------------------------------------------------------------------
// The browser.

/// A headless Chromium and one page of it, driven over the DevTools protocol. Dropping
/// it kills the browser.
pub(crate) struct Browser {
    child: Child,
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    session: String,
    next_id: u64,
    /// Every event received on the page's session: (method, params).
    events: Vec<(String, Value)>,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    /// Starts Chromium on a new profile with a page of `width`×`height` CSS pixels at
    /// device scale 1.
    pub(crate) fn start(width: u32, height: u32) -> Browser {
        assert!(
            Path::new(CHROMIUM).exists(),
            "this test needs {CHROMIUM}: install Debian's package `chromium` (`apt-get install -y chromium`; .ci/run does)"
        );
        let profile = tempfile::tempdir().unwrap();
        let child = Command::new(CHROMIUM)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--hide-scrollbars",
                "--force-color-profile=srgb",
                "--force-device-scale-factor=1",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("{CHROMIUM} does not start ({e}): install Debian's package `chromium`")
            });
        // Kill it even if the start fails below.
        let mut guard = Some(child);
        let port_file = profile.path().join("DevToolsActivePort");
        let started = Instant::now();
        let (port, path) = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                let mut lines = text.lines();
                if let (Some(p), Some(path)) = (lines.next(), lines.next()) {
                    break (p.trim().to_string(), path.trim().to_string());
                }
            }
            if let Some(status) = guard.as_mut().unwrap().try_wait().unwrap() {
                panic!("{CHROMIUM} exited at start ({status})");
            }
            if started.elapsed() > Duration::from_secs(60) {
                let mut c = guard.take().unwrap();
                let _ = c.kill();
                let _ = c.wait();
                panic!("{CHROMIUM} wrote no DevToolsActivePort within 60 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let (socket, _) = tungstenite::connect(format!("ws://127.0.0.1:{port}{path}")).unwrap_or_else(|e| {
            let mut c = guard.take().unwrap();
            let _ = c.kill();
            let _ = c.wait();
            panic!("the DevTools websocket on port {port}: {e}")
        });
        if let MaybeTlsStream::Plain(s) = socket.get_ref() {
            s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        }
        let mut b = Browser {
            child: guard.take().unwrap(),
            socket,
            session: String::new(),
            next_id: 0,
            events: Vec::new(),
            _profile: profile,
        };
        let target = b.call("Target.createTarget", json!({ "url": "about:blank" }));
        let target = target["targetId"].as_str().expect("targetId").to_string();
        let attached = b.call("Target.attachToTarget", json!({ "targetId": target, "flatten": true }));
        b.session = attached["sessionId"].as_str().expect("sessionId").to_string();
        for m in ["Page.enable", "Runtime.enable", "Log.enable"] {
            b.call(m, json!({}));
        }
        b.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
        b
    }

    fn read(&mut self) -> Value {
        loop {
            match self.socket.read() {
                Ok(Message::Text(t)) => {
                    return serde_json::from_str(t.as_str()).expect("DevTools sends JSON");
                }
                Ok(_) => continue,
                // A signal for another test's child landed during the read: read again.
                Err(tungstenite::Error::Io(e)) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => panic!("reading from Chromium: {e}"),
            }
        }
    }

    /// Sends `method` (on the page's session once attached) and returns its result;
    /// events read meanwhile are kept.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.try_call(method, params).unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    /// [`Browser::call`], with the error Chromium answered instead of a panic.
    fn try_call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if !self.session.is_empty() {
            msg["sessionId"] = json!(self.session);
        }
        self.socket.send(Message::text(msg.to_string())).expect("send to Chromium");
        loop {
            let m = self.read();
            if m["id"].as_u64() == Some(id) {
                if let Some(e) = m.get("error") {
                    return Err(e.clone());
                }
                return Ok(m["result"].clone());
            }
            self.keep(m);
        }
    }

    fn keep(&mut self, m: Value) {
        if let Some(method) = m["method"].as_str()
            && m["sessionId"].as_str() == Some(self.session.as_str())
        {
            self.events.push((method.to_string(), m["params"].clone()));
        }
    }

    /// Opens `url` and waits for its load event; when only the fragment changes (a
    /// `#ply=N` on the page already open), until the page has gone to that ply.
    pub(crate) fn open(&mut self, url: &str) {
        let from = self.events.len();
        let r = self.call("Page.navigate", json!({ "url": url }));
        assert!(r.get("errorText").is_none(), "navigate to {url}: {r}");
        let started = Instant::now();
        loop {
            let events = &self.events[from..];
            if events.iter().any(|(m, _)| m == "Page.loadEventFired") {
                return;
            }
            if events.iter().any(|(m, p)| m == "Page.navigatedWithinDocument" && p["url"] == json!(url)) {
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "{url} did not load");
            let m = self.read();
            self.keep(m);
        }
        let ply =
            url.rsplit_once("#ply=").map(|(_, n)| n.to_string()).expect("a fragment navigation is to #ply=N");
        while self.eval("document.body.getAttribute('data-ply')") != json!(ply) {
            assert!(started.elapsed() < Duration::from_secs(10), "{url}: the page did not go to ply {ply}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The value of a JavaScript expression, or `None` while the page is being replaced
    /// (a reload or navigation closed the context the expression was sent to).
    pub(crate) fn eval_unless_navigating(&mut self, expression: &str) -> Option<Value> {
        let params = json!({ "expression": expression, "returnByValue": true });
        match self.try_call("Runtime.evaluate", params) {
            Ok(r) => {
                assert!(r.get("exceptionDetails").is_none(), "{expression}: {}", r["exceptionDetails"]);
                Some(r["result"]["value"].clone())
            }
            Err(e)
                if e["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("navigated") || m.contains("context")) =>
            {
                None
            }
            Err(e) => panic!("Runtime.evaluate: {e}"),
        }
    }

    /// The value of a JavaScript expression (JSON-serialisable).
    pub(crate) fn eval(&mut self, expression: &str) -> Value {
        let r = self.call("Runtime.evaluate", json!({ "expression": expression, "returnByValue": true }));
        assert!(r.get("exceptionDetails").is_none(), "{expression}: {}", r["exceptionDetails"]);
        r["result"]["value"].clone()
    }

    fn key(&mut self, key: &str, code: u32) {
        for kind in ["keyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({ "type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code }),
            );
        }
    }

    pub(crate) fn click(&mut self, x: f64, y: f64) {
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
    }

    /// The page as a PNG image: (width, height, RGB bytes).
    pub(crate) fn screenshot(&mut self) -> (u32, u32, Vec<u8>, Vec<u8>) {
        let r = self.call("Page.captureScreenshot", json!({ "format": "png" }));
        let png = data_encoding::BASE64.decode(r["data"].as_str().expect("data").as_bytes()).expect("base64");
        let decoder = png::Decoder::new(std::io::Cursor::new(png.clone()));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("a frame");
        assert_eq!(info.bit_depth, png::BitDepth::Eight, "8-bit screenshot");
        let channels = match info.color_type {
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => panic!("screenshot colour type {other:?}"),
        };
        let rgb = buf[..info.buffer_size()].chunks(channels).flat_map(|p| [p[0], p[1], p[2]]).collect();
        (info.width, info.height, rgb, png)
    }

    /// The console errors, uncaught exceptions and error log entries seen so far.
    pub(crate) fn errors(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|(m, p)| match m.as_str() {
                "Runtime.exceptionThrown" => Some(format!("exception: {}", p["exceptionDetails"])),
                "Runtime.consoleAPICalled" if matches!(p["type"].as_str(), Some("error" | "assert")) => {
                    Some(format!("console.{}: {}", p["type"], p["args"]))
                }
                "Log.entryAdded" if p["entry"]["level"].as_str() == Some("error") => {
                    Some(format!("log: {}", p["entry"]))
                }
                _ => None,
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------
// The archive.

fn open_archive(dir: &Path) -> Archive {
    let mut a = Archive::open(dir).unwrap();
    let mut options = ArchiveOptions::default();
    options.git_config = GitConfigScope::RepositoryOnly;
    a.set_options(options);
    a
}

/// Makes game `id` of `variant` and plays `plies` random legal moves (fixed seed) through
/// the library's `play`, as `ravenpost move` does.
fn play_game(a: &Archive, variant: &str, id: &str, armies: Option<(&str, &str)>, plies: usize, seed: u64) {
    let referee = Identity::new("Referee", "referee@example.org");
    let n = NewGame {
        variant: variant.into(),
        white: "Ann Example".into(),
        black: "Bo Example".into(),
        options: vec![],
        armies: armies.map(|(w, b)| (w.to_string(), b.to_string())),
        id: Some(id.into()),
        event: Some("Club & \"friends\"".into()),
        time_control: None,
        keys: [None, None],
        secret_armies: false,
        emails: [None, None],
        accounts: [None, None],
        variant_file: None,
        seed: None,
    };
    let (path, _) = ops::new_game(a, n, &ops::Session::new().with_identity(referee)).unwrap();
    let mut rng = Lcg(seed);
    for _ in 0..plies {
        let game = record::load(&a.read_file(&path.path()).unwrap().unwrap()).unwrap();
        let pos = game.position();
        let legal = game.variant.legal_moves(&pos);
        if legal.is_empty() || record::result_of(&game) != "*" {
            break;
        }
        let mv = &legal[rng.below(legal.len())];
        let token = write_move(&game.variant, &pos, mv);
        let who = record::player(&game, pos.side_to_move());
        let me = ops::Session::new().with_identity(Identity::new(&who, "player@example.org"));
        ops::play(a, id, &token, Some(&who), None, &me).unwrap();
    }
}

fn game_of(a: &Archive, path: &str) -> record::game::Game {
    record::load(&a.read_file(path).unwrap().unwrap()).unwrap()
}

fn site(dir: &Path, home: &Path, out: &Path) -> Value {
    let text = ok(dir, home, &["site", out.to_str().unwrap(), "--json"]);
    serde_json::from_str(&text).unwrap()
}

fn url(out: &Path, rel: &str, fragment: &str) -> String {
    format!("file://{}/{rel}{fragment}", out.canonicalize().unwrap().display())
}

// ---------------------------------------------------------------------------------------
// What the page should show, from the library.

/// Square name → piece token (`""`: empty) of every square.
fn expected_squares(v: &Variant, pos: &Position) -> BTreeMap<String, String> {
    let dims = v.def().dims;
    dims.squares()
        .map(|sq| (dims.name(sq), pos.piece_at(sq).map(|p| piece_token(v.def(), p)).unwrap_or_default()))
        .collect()
}

fn expected_hands(v: &Variant, pos: &Position) -> Vec<Vec<(String, u64)>> {
    let def = v.def();
    Side::ALL
        .iter()
        .map(|&side| {
            (0..def.kinds.len())
                .filter_map(|i| {
                    let kind = PieceKind::new(i as u8);
                    let n = pos.in_hand(side, kind);
                    (n > 0).then(|| (piece_token(def, Piece { side, kind }), n as u64))
                })
                .collect()
        })
        .collect()
}

const READ_BOARD: &str = r#"JSON.stringify({
  ply: document.body.getAttribute('data-ply'),
  hash: location.hash,
  squares: Array.from(document.querySelectorAll('#board rect.square')).map(r => [r.id, r.getAttribute('data-piece') || '', +r.getAttribute('x'), +r.getAttribute('y'), +r.getAttribute('width')]),
  pieces: Array.from(document.querySelectorAll('#board g.piece')).map(g => [g.getAttribute('data-square'), g.getAttribute('data-piece'), g.textContent, +g.querySelector('circle').getAttribute('cx'), +g.querySelector('circle').getAttribute('cy')]),
  last: Array.from(document.querySelectorAll('#board rect.last')).map(r => r.getAttribute('data-square')),
  hands: Array.from(document.querySelectorAll('.hand')).map(h => Array.from(h.querySelectorAll('.held')).map(s => [s.getAttribute('data-piece'), +s.getAttribute('data-count')])),
  fen: document.getElementById('fen').textContent
})"#;

/// Checks that the page shows ply `ply` of `game`: every square's piece (the rect's
/// `data-piece` and the drawn disc on it, with its label), the last move's squares, the
/// hands, the position string.
fn check_board(b: &mut Browser, game: &record::game::Game, ply: usize, what: &str) {
    let v = &game.variant;
    let pos = game.position_at(ply);
    let seen: Value = serde_json::from_str(b.eval(READ_BOARD).as_str().unwrap()).unwrap();
    assert_eq!(seen["ply"], json!(ply.to_string()), "{what}: the page's ply");
    assert_eq!(seen["hash"], json!(format!("#ply={ply}")), "{what}: the address");
    let expected = expected_squares(v, &pos);
    let squares: BTreeMap<String, (String, f64, f64, f64)> = seen["squares"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s[0].as_str().unwrap().to_string(),
                (
                    s[1].as_str().unwrap().to_string(),
                    s[2].as_f64().unwrap(),
                    s[3].as_f64().unwrap(),
                    s[4].as_f64().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(squares.len(), expected.len(), "{what}: one rect per square");
    let shown: BTreeMap<String, String> = squares.iter().map(|(k, v)| (k.clone(), v.0.clone())).collect();
    assert_eq!(shown, expected, "{what}: the pieces on the squares (data-piece)");
    // The drawn discs: one per occupied square, centred on it, labelled.
    let mut drawn = BTreeMap::new();
    for p in seen["pieces"].as_array().unwrap() {
        let sq = p[0].as_str().unwrap();
        let (_, x, y, w) = squares[sq];
        assert_eq!(
            (p[3].as_f64().unwrap(), p[4].as_f64().unwrap()),
            (x + w / 2.0, y + w / 2.0),
            "{what}: disc on {sq}"
        );
        drawn
            .insert(sq.to_string(), (p[1].as_str().unwrap().to_string(), p[2].as_str().unwrap().to_string()));
    }
    let dims = v.def().dims;
    let want: BTreeMap<String, (String, String)> = dims
        .squares()
        .filter_map(|sq| {
            pos.piece_at(sq).map(|p| (dims.name(sq), (piece_token(v.def(), p), piece_label(v, p))))
        })
        .collect();
    assert_eq!(drawn, want, "{what}: the drawn pieces");
    let last: Vec<String> = match ply.checked_sub(1).map(|i| &game.moves[i]) {
        None => vec![],
        Some(m) => m.from().into_iter().chain([m.to()]).map(|s| dims.name(s)).collect(),
    };
    assert_eq!(seen["last"], json!(last), "{what}: the last move's squares");
    if v.def().slug == "fidchell" {
        let hands: Vec<Vec<(String, u64)>> = serde_json::from_value(seen["hands"].clone()).unwrap();
        assert_eq!(hands, expected_hands(v, &pos), "{what}: the pieces in hand");
    }
    assert_eq!(seen["fen"], json!(write_position(v, &pos)), "{what}: the position string");
}

fn hex(c: &str) -> [u8; 3] {
    let h = c.trim_start_matches('#');
    let b = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).unwrap();
    [b(0), b(2), b(4)]
}

/// Checks the screenshot's colour at the centre of empty squares (two light and two dark
/// on each level, none of the last move's or a portal) against the variant's render
/// colours; returns how many squares were checked.
fn check_colours(b: &mut Browser, game: &record::game::Game, ply: usize, what: &str, save: &Path) -> usize {
    let v = &game.variant;
    let pos = game.position_at(ply);
    let dims = v.def().dims;
    let portals = portal_squares(v);
    let last: Vec<_> = ply
        .checked_sub(1)
        .map(|i| &game.moves[i])
        .map(|m| m.from().into_iter().chain([m.to()]).collect())
        .unwrap_or_default();
    let boxes: BTreeMap<String, [f64; 4]> = serde_json::from_str::<Vec<(String, [f64; 4])>>(
        b.eval(
            "window.scrollTo(0, 0); JSON.stringify(Array.from(document.querySelectorAll('#board rect.square')).map(r => { const b = r.getBoundingClientRect(); return [r.id, [b.left, b.top, b.width, b.height]]; }))",
        )
        .as_str()
        .unwrap(),
    )
    .unwrap()
    .into_iter()
    .collect();
    let (w, h, rgb, png) = b.screenshot();
    std::fs::write(save, png).unwrap();
    let mut checked = 0;
    for level in 0..dims.levels() {
        let (light, dark) = level_colors(v, level);
        let mut per = [0, 0];
        for sq in dims.squares().filter(|s| s.level().index() == level as usize) {
            let d = is_dark(sq) as usize;
            if per[d] >= 2 || pos.piece_at(sq).is_some() || portals.contains(&sq) || last.contains(&sq) {
                continue;
            }
            let name = dims.name(sq);
            let [x, y, bw, bh] = boxes[&name];
            let (px, py) = ((x + bw / 2.0) as u32, (y + bh / 2.0) as u32);
            assert!(
                px < w && py < h,
                "{what}: square {name} at ({px}, {py}) is outside the {w}×{h} screenshot"
            );
            let i = ((py * w + px) * 3) as usize;
            let got = [rgb[i], rgb[i + 1], rgb[i + 2]];
            let want = hex(if d == 1 { &dark } else { &light });
            assert!(
                got.iter().zip(want).all(|(g, w)| g.abs_diff(w) <= 2),
                "{what}: square {name} is {got:?} in the screenshot, its render colour is {want:?}"
            );
            per[d] += 1;
            checked += 1;
        }
        assert_eq!(
            per,
            [2, 2],
            "{what}: level {} has two empty light and two empty dark squares to check",
            level + 1
        );
    }
    checked
}

// ---------------------------------------------------------------------------------------
// The tests.

/// One game of each variant: `#ply=N` and N presses of → show the position the library
/// computes for ply N; clicking a move goes to its ply; flipping keeps every piece on its
/// square; the console shows no error; the screenshot's squares have the variant's
/// colours.
#[test]
fn game_pages_show_the_library_positions_in_chromium() {
    let (t, dir, home) = archive();
    let a = open_archive(&dir);
    play_game(&a, "gygax", "gy", None, 24, 11);
    play_game(&a, "fidchell", "fi", None, 30, 12);
    play_game(&a, "fantasy-grand", "fg", Some(("elves", "dwarves")), 24, 13);
    let out = t.path().join("site");
    let report = site(&dir, &home, &out);
    assert_eq!(report["games"], json!(3));
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));

    let mut b = Browser::start(1400, 1000);
    // The error collector itself works: a console error on a blank page is seen.
    b.eval("console.error('ravenpost-probe'); 1");
    assert!(b.errors().iter().any(|e| e.contains("ravenpost-probe")), "the console collector sees errors");
    b.events.clear();

    for (variant, id) in [("gygax", "gy"), ("fidchell", "fi"), ("fantasy-grand", "fg")] {
        let game = game_of(&a, &format!("games/{variant}/{id}.pgn"));
        let plies = game.moves.len();
        assert!(plies >= 20, "{id}: a game of some length ({plies} plies)");
        let page = format!("games/{variant}/{id}.html");
        let n = plies / 2 + 1;
        for ply in [0, n, plies] {
            b.open(&url(&out, &page, &format!("#ply={ply}")));
            check_board(&mut b, &game, ply, &format!("{id} opened at #ply={ply}"));
        }
        // Without a fragment: the final position.
        b.open(&url(&out, &page, ""));
        check_board(&mut b, &game, plies, &format!("{id} opened without #ply"));
        // From ply 0, N presses of the right arrow.
        b.open(&url(&out, "index.html", ""));
        b.open(&url(&out, &page, "#ply=0"));
        check_board(&mut b, &game, 0, &format!("{id} at ply 0"));
        for _ in 0..n {
            b.key("ArrowRight", 39);
        }
        check_board(&mut b, &game, n, &format!("{id} after {n} × ArrowRight"));
        b.key("ArrowLeft", 37);
        check_board(&mut b, &game, n - 1, &format!("{id} after ArrowLeft"));
        // Past the end stays at the end.
        b.key("End", 35);
        b.key("ArrowRight", 39);
        check_board(&mut b, &game, plies, &format!("{id} after End, ArrowRight"));
        // A real click on the third move of the list.
        let r = b.eval(
            "(() => { const a = document.querySelector('#moves .move[data-ply=\"3\"]'); a.scrollIntoView(); const b = a.getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]; })()",
        );
        b.click(r[0].as_f64().unwrap(), r[1].as_f64().unwrap());
        check_board(&mut b, &game, 3, &format!("{id} after clicking move 3"));
        // Buttons.
        b.eval("document.getElementById('next').click(); 1");
        check_board(&mut b, &game, 4, &format!("{id} after the ▶ button"));
        // Flip: a1 and its opposite corner swap places; pieces stay on their squares.
        let dims = game.variant.def().dims;
        let low = dims.name(dims.square_at(0, 0, 0).unwrap());
        let high = dims.name(dims.square_at(0, dims.files() as i32 - 1, dims.ranks() as i32 - 1).unwrap());
        let at = |b: &mut Browser, sq: &str| -> (f64, f64) {
            let v = b.eval(&format!("[+document.getElementById('{sq}').getAttribute('x'), +document.getElementById('{sq}').getAttribute('y')]"));
            (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
        };
        let (low0, high0) = (at(&mut b, &low), at(&mut b, &high));
        b.key("f", 70);
        assert_eq!(
            (at(&mut b, &low), at(&mut b, &high)),
            (high0, low0),
            "{id}: flipped, {low} and {high} swap places"
        );
        check_board(&mut b, &game, 4, &format!("{id} flipped"));
        b.eval("document.getElementById('flip').click(); 1");
        assert_eq!(at(&mut b, &low), low0, "{id}: flipped back");
        // The screenshot's colours, at ply 0 and at the end.
        b.open(&url(&out, &page, "#ply=0"));
        let checked = check_colours(&mut b, &game, 0, id, &shots.join(format!("site-{variant}-ply0.png")));
        assert_eq!(checked, 4 * dims.levels() as usize);
        b.open(&url(&out, &page, &format!("#ply={plies}")));
        check_colours(&mut b, &game, plies, id, &shots.join(format!("site-{variant}.png")));
        assert_eq!(b.errors(), Vec::<String>::new(), "{id}: the console shows no error");
    }

    // The index lists the three games, links to their pages, sorts by a column.
    b.open(&url(&out, "index.html", ""));
    let rows = b.eval("Array.from(document.querySelectorAll('#games tbody tr')).map(r => Array.from(r.cells).map(c => c.textContent.trim()))");
    let ids: Vec<&str> = rows.as_array().unwrap().iter().map(|r| r[0].as_str().unwrap()).collect();
    assert_eq!(ids, ["fg", "fi", "gy"], "index rows, sorted by variant then id as listed");
    let gy = game_of(&a, "games/gygax/gy.pgn");
    let gy_row = &rows[2];
    assert_eq!(gy_row[1], json!("Gygax Chess"));
    assert_eq!(gy_row[2], json!("Ann Example"));
    assert_eq!(gy_row[5], json!(gy.moves.len().to_string()));
    // Sort by ply, twice: ascending, then descending.
    let plies: Vec<usize> = ["fantasy-grand/fg", "fidchell/fi", "gygax/gy"]
        .iter()
        .map(|p| game_of(&a, &format!("games/{p}.pgn")).moves.len())
        .collect();
    let mut asc = plies.clone();
    asc.sort();
    let sorted = |b: &mut Browser| -> Vec<usize> {
        b.eval("Array.from(document.querySelectorAll('#games tbody tr')).map(r => +r.cells[5].textContent)")
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect()
    };
    b.eval("document.querySelectorAll('#games th')[5].click(); 1");
    assert_eq!(sorted(&mut b), asc);
    b.eval("document.querySelectorAll('#games th')[5].click(); 1");
    asc.reverse();
    assert_eq!(sorted(&mut b), asc);
    let href = b.eval("document.querySelector('#games a[href$=\"gy.html\"]').href");
    assert_eq!(href, json!(url(&out, "games/gygax/gy.html", "")));
    assert_eq!(b.errors(), Vec::<String>::new(), "index: the console shows no error");
}

/// Player names, tags and comments are user input: `<script>` in them is shown as text
/// and never runs (the game file written by hand, as plain git would).
#[test]
fn script_in_a_player_name_and_a_comment_is_shown_not_run() {
    let (t, dir, home) = archive();
    let a = open_archive(&dir);
    let text = "[Event \"</title><script>window.pwned = 'event'</script>\"]\n[Site \"ravenpost\"]\n[Date \"2025.11.29\"]\n[Round \"-\"]\n[White \"Ann <script>window.pwned = 'name'</script>\"]\n[Black \"Bo & 'Co' \\\"x\\\"\"]\n[Result \"*\"]\n[Variant \"fantasy-grand\"]\n[Ruleset \"ravenpost-1\"]\n[WhiteArmy \"elves\"]\n[BlackArmy \"dwarves\"]\n\n{<script>window.pwned = 'lead'</script>} e4 {</script><script>window.pwned = 'comment'</script><!--} *\n";
    let game = record::load(text).unwrap_or_else(|e| panic!("the hand-written game reads: {e}"));
    assert_eq!(record::player(&game, Side::White), "Ann <script>window.pwned = 'name'</script>");
    let tip = a.tip().unwrap();
    let who = Identity::new("Referee", "referee@example.org");
    a.create_file(
        "games/fantasy-grand/x.pgn",
        text,
        tip,
        Some(&who),
        ravenpost::archive::Timestamp::from_unix(T0, 0),
        "New game",
    )
    .unwrap();
    let out = t.path().join("site");
    site(&dir, &home, &out);
    let html = std::fs::read_to_string(out.join("games/fantasy-grand/x.html")).unwrap();
    assert!(!html.contains("<script>window"), "no script of the game's text in the page's HTML:\n{html}");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!index.contains("<script>window"), "nor in the index:\n{index}");

    let mut b = Browser::start(1200, 900);
    b.open(&url(&out, "games/fantasy-grand/x.html", "#ply=1"));
    assert_eq!(b.eval("typeof window.pwned"), json!("undefined"), "no script of the game ran");
    let h1 = b.eval("document.querySelector('h1').textContent");
    assert!(
        h1.as_str().unwrap().contains("Ann <script>window.pwned = 'name'</script>"),
        "the name as text: {h1}"
    );
    assert!(h1.as_str().unwrap().contains("Bo & 'Co' \"x\""), "{h1}");
    let comments = b.eval("Array.from(document.querySelectorAll('.comment')).map(c => c.textContent)");
    assert_eq!(
        comments,
        json!([
            "<script>window.pwned = 'lead'</script>",
            "</script><script>window.pwned = 'comment'</script><!--"
        ])
    );
    let title = b.eval("document.title");
    assert!(title.as_str().unwrap().contains("Ann <script>"), "{title}");
    let tags = b.eval("Array.from(document.querySelectorAll('.tags td')).map(c => c.textContent)");
    assert_eq!(tags[0], json!("</title><script>window.pwned = 'event'</script>"));
    check_board(&mut b, &game, 1, "the hand-written game");
    b.open(&url(&out, "index.html", ""));
    assert_eq!(b.eval("typeof window.pwned"), json!("undefined"), "no script of the game ran on the index");
    let cell = b.eval("document.querySelectorAll('#games tbody td')[2].textContent");
    assert_eq!(cell, json!("Ann <script>window.pwned = 'name'</script>"));
    assert_eq!(b.errors(), Vec::<String>::new(), "the console shows no error");
}

/// A re-run writes nothing; a new move rewrites that game's page and the index only; a
/// game gone from the archive loses its page; a folder that is not a site is refused.
#[test]
fn a_rerun_rewrites_only_what_changed() {
    let (t, dir, home) = archive();
    let a = open_archive(&dir);
    play_game(&a, "gygax", "g1", None, 4, 1);
    play_game(&a, "fidchell", "f1", None, 4, 2);
    play_game(&a, "grand", "c1", None, 4, 3);
    let out = t.path().join("site");
    let first = site(&dir, &home, &out);
    assert_eq!(
        first["written"],
        json!([
            "games/fidchell/f1.html",
            "games/fidchell/f1.pgn",
            "games/grand/c1.html",
            "games/grand/c1.pgn",
            "games/gygax/g1.html",
            "games/gygax/g1.pgn",
            "index.html",
            "site.css",
            "site.js"
        ])
    );
    let page = out.join("games/gygax/g1.html");
    let before = std::fs::read_to_string(&page).unwrap();
    let again = site(&dir, &home, &out);
    assert_eq!(again["written"], json!([]), "nothing changed");
    assert_eq!(again["unchanged"], json!(3));
    // One more move in g1.
    let game = game_of(&a, "games/gygax/g1.pgn");
    let pos = game.position();
    let mv = &game.variant.legal_moves(&pos)[0];
    let token = write_move(&game.variant, &pos, mv);
    let who = record::player(&game, pos.side_to_move());
    // After the library's moves, which took the clock's time.
    let later =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64 + 60;
    ok_at(&dir, &home, later, &["move", "g1", &token, "--as", &who]);
    let third = site(&dir, &home, &out);
    assert_eq!(third["written"], json!(["games/gygax/g1.html", "games/gygax/g1.pgn", "index.html"]));
    assert_eq!(third["unchanged"], json!(2));
    let after = std::fs::read_to_string(&page).unwrap();
    assert_ne!(before, after);
    assert!(after.contains(&format!(">{token}</a>")), "the new move is in the list");
    // g1 leaves the archive (plain git).
    git(&dir, &home, &["rm", "-q", "games/gygax/g1.pgn"]);
    git(&dir, &home, &["commit", "-q", "-m", "g1 removed"]);
    let fourth = site(&dir, &home, &out);
    assert_eq!(fourth["removed"], json!(["games/gygax/g1.html", "games/gygax/g1.pgn"]));
    assert!(!out.join("games/gygax/g1.pgn").exists(), "the game file goes with its page");
    assert_eq!(fourth["written"], json!(["index.html"]));
    assert!(!page.exists());
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join(".ravenpost-site.json")).unwrap()).unwrap();
    let pages: Vec<&String> = manifest["pages"].as_object().unwrap().keys().collect();
    assert_eq!(pages, ["games/fidchell/f1.html", "games/grand/c1.html"]);
    // A folder with other files is not overwritten.
    let other = t.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("index.html"), "mine").unwrap();
    let o = common::cli::run(&dir, &home, &["site", other.to_str().unwrap()]);
    let err = common::cli::expect_failure(&o, "site into a foreign folder", 1, "has no .ravenpost-site.json");
    assert!(err.contains(&other.display().to_string()), "{err}");
    assert_eq!(std::fs::read_to_string(other.join("index.html")).unwrap(), "mine");
}

/// `hook install --site DIR` on a bare repository: after each accepted `git push` the
/// site in DIR shows the pushed games; the hook's other lines are kept and installing
/// twice leaves one site line.
#[test]
fn the_post_receive_hook_regenerates_the_site_after_a_push() {
    let t = tempfile::tempdir().unwrap();
    let home = common::cli::identity(&t.path().join("home"), "Ann Example", "ann@example.org");
    let server = t.path().join("server.git");
    git(t.path(), &home, &["init", "-q", "--bare", "-b", "main", server.to_str().unwrap()]);
    std::fs::write(server.join("hooks/post-receive"), "#!/bin/sh\necho other-tool >&2\n").unwrap();
    let out = t.path().join("published");
    for _ in 0..2 {
        ok(
            t.path(),
            &home,
            &["hook", "install", "--repo", server.to_str().unwrap(), "--site", out.to_str().unwrap()],
        );
    }
    let hook = std::fs::read_to_string(server.join("hooks/post-receive")).unwrap();
    assert_eq!(hook.lines().filter(|l| l.ends_with("# ravenpost site")).count(), 1, "{hook}");
    assert!(hook.contains("echo other-tool"), "{hook}");
    git(t.path(), &home, &["clone", "-q", server.to_str().unwrap(), "clone"]);
    let clone = t.path().join("clone");
    ok(&clone, &home, &["init", "--layout", "flat"]);
    ok(&clone, &home, &["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "ab"]);
    let pushed = common::git::git_out(&clone, &home, &["push", "-q", "origin", "main"]);
    assert!(pushed.status.success(), "push: {}", common::cli::text(&pushed));
    assert!(String::from_utf8_lossy(&pushed.stderr).contains("other-tool"), "the other hook line ran");
    let page = out.join("games/gygax/ab.html");
    assert!(page.is_file(), "the hook wrote the game's page: {}", common::cli::text(&pushed));
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    // minijinja escapes `/` in attribute values too (`&#x2f;`).
    assert!(index.contains(r#"<a href="games&#x2f;gygax&#x2f;ab.html">ab</a>"#), "{index}");

    ok(&clone, &home, &["move", "ab", "2e3", "--as", "Ann Example"]);
    let pushed = common::git::git_out(&clone, &home, &["push", "-q", "origin", "main"]);
    assert!(pushed.status.success(), "push: {}", common::cli::text(&pushed));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains(r#"data-ply="1" title="played "#) && html.contains(">2e3</a>"),
        "the page has the pushed move"
    );
}

/// Regression: `hook install --notify` after `hook install --site DIR` wrote the
/// post-receive hook whole and dropped the site's line.
#[test]
fn notify_installed_after_the_site_dropped_the_site_line() {
    let t = tempfile::tempdir().unwrap();
    let home = common::cli::identity(&t.path().join("home"), "Ann Example", "ann@example.org");
    let server = t.path().join("server.git");
    git(t.path(), &home, &["init", "-q", "--bare", "-b", "main", server.to_str().unwrap()]);
    let out = t.path().join("published");
    let repo = server.to_str().unwrap();
    ok(t.path(), &home, &["hook", "install", "--repo", repo, "--site", out.to_str().unwrap()]);
    let site_line = |hook: &str| hook.lines().filter(|l| l.ends_with("# ravenpost site")).count();
    let before = std::fs::read_to_string(server.join("hooks/post-receive")).unwrap();
    assert_eq!(site_line(&before), 1, "{before}");
    ok(t.path(), &home, &["hook", "install", "--repo", repo, "--notify"]);
    let after = std::fs::read_to_string(server.join("hooks/post-receive")).unwrap();
    assert_eq!(site_line(&after), 1, "the site line is kept: {after}");
    assert!(after.contains("hook notify"), "the notify hook is there: {after}");
    assert!(after.contains(out.to_str().unwrap()), "{after}");
    // and it runs: nothing before it ends the script.
    let before_site = after.split("# ravenpost site").next().unwrap_or_default();
    assert!(!before_site.lines().any(|l| l.trim_start().starts_with("exit")), "{after}");
}

/// Regression: pages were written with a temporary file's mode (0600), unreadable by a web
/// server running as another user.
#[test]
fn published_pages_are_readable_by_everyone() {
    use std::os::unix::fs::PermissionsExt;
    let (t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "ab"]);
    let out = t.path().join("site");
    site(&dir, &home, &out);
    for f in ["games/gygax/ab.html", "index.html", "site.js", "site.css"] {
        let mode = out.join(f).metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "{f}: mode {mode:o}");
    }
}

/// Every file under `dir`, as (relative path, text).
pub(crate) fn site_files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned()));
            }
        }
    }
    out.sort();
    out
}

/// The addresses written into the archive below, found in `text`.
fn addresses_in(text: &str) -> Vec<&'static str> {
    [
        "ann@example.org",
        "bo@example.net",
        "cy@example.com",
        "dee@example.org",
        "eve@example.org",
        "referee@example.org",
    ]
    .into_iter()
    .filter(|a| text.contains(a) || text.contains(&a.replace('@', "&#x40;")))
    .collect()
}

/// Issue 32: the static site published every player's email address (the tags table, the
/// names of git identities). No file it writes holds one now, unless asked.
#[test]
fn no_page_of_the_site_holds_an_email_address() {
    let (t, dir, home) = archive();
    ok(
        &dir,
        &home,
        &[
            "new",
            "gygax",
            "--white",
            "Ann Example",
            "--black",
            "bo@example.net",
            "--white-email",
            "ann@example.org",
            "--black-email",
            "bo@example.net",
            "--id",
            "g1",
        ],
    );
    ok(&dir, &home, &["move", "g1", "2e3", "--as", "Ann Example", "--comment", "mail me: ann@example.org."]);
    ok(
        &dir,
        &home,
        &["tournament", "new", "cup", "grand", "--players", "Cy <cy@example.com>,Dee <dee@example.org>"],
    );
    ok(
        &dir,
        &home,
        &[
            "new",
            "fantasy-grand",
            "--white",
            "eve@example.org",
            "--black",
            "Ann Example",
            "--secret-armies",
            "--id",
            "fg",
        ],
    );
    let out = t.path().join("site");
    let report = site(&dir, &home, &out);
    let files = site_files(&out);
    assert!(files.len() >= 6, "index, script, style, manifest and the pages: {report}");
    for (rel, text) in &files {
        assert_eq!(addresses_in(text), Vec::<&str>::new(), "{rel} shows no address");
    }
    let page = std::fs::read_to_string(out.join("games/gygax/g1.html")).unwrap();
    assert!(page.contains("<h1>Ann Example <span class=\"side\">"), "the name without its address");
    assert!(page.contains("mail me: [address hidden]."), "the comment's words are kept");
    assert!(!page.contains("WhiteEmail"), "tags holding an address are left out");
    // The game file offered for download replays to the same moves, without addresses.
    let pgn = std::fs::read_to_string(out.join("games/gygax/g1.pgn")).unwrap();
    let kept = ravenpost::record::load(&pgn).unwrap();
    assert_eq!(kept.moves.len(), 1);
    assert_eq!(record::player(&kept, Side::Black), "bo", "{pgn}");
    assert!(page.contains(r#"download="g1.pgn""#), "the page links it");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    for name in ["<td>Ann Example</td>", "<td>bo</td>", "<td>Cy</td>", "<td>Dee</td>"] {
        assert!(index.contains(name), "{name} in the index:\n{index}");
    }

    // Asked for, they are shown; every page is written again.
    let text = ok(&dir, &home, &["site", out.to_str().unwrap(), "--json", "--include-addresses"]);
    let report: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report["unchanged"], json!(0), "{report}");
    let page = std::fs::read_to_string(out.join("games/gygax/g1.html")).unwrap();
    assert_eq!(addresses_in(&page), ["ann@example.org", "bo@example.net"]);
    // And hidden again by default.
    site(&dir, &home, &out);
    for (rel, text) in &site_files(&out) {
        assert_eq!(addresses_in(text), Vec::<&str>::new(), "{rel} shows no address");
    }
}

/// Issue 32: a tournament's standings page shows the figures `ravenpost standings --json`
/// prints (the JSON beside it is that output), and both equal a hand count: a round robin
/// of four, five games decided by resignation or agreement, one still going on.
#[test]
fn the_standings_page_shows_what_standings_json_prints() {
    let (t, dir, home) = archive();
    let made = ok(
        &dir,
        &home,
        &["tournament", "new", "cup", "gygax", "--players", "Ann <ann@example.org>,Bo,Cy,Di", "--json"],
    );
    let made: Value = serde_json::from_str(&made).unwrap();
    let games = made["tournament"]["games"].as_array().expect("the tournament's games");
    assert_eq!(games.len(), 6);
    // The pairing's result, by the players' names: who resigns, or a draw; Bo–Di goes on.
    let game_of = |a: &str, b: &str| {
        games
            .iter()
            .find(|g| {
                let (w, k) = (g["white"].as_str().unwrap(), g["black"].as_str().unwrap());
                (w == a && k == b) || (w == b && k == a)
            })
            .unwrap_or_else(|| panic!("no game {a}–{b} in {made}"))
    };
    for (a, b, loser) in [
        ("Ann", "Bo", Some("Bo")),
        ("Ann", "Di", Some("Ann")),
        ("Bo", "Cy", Some("Cy")),
        ("Cy", "Di", Some("Di")),
    ] {
        let id = game_of(a, b)["id"].as_str().unwrap().to_string();
        ok(&dir, &home, &["resign", &id, "--as", loser.unwrap()]);
    }
    let drawn = game_of("Ann", "Cy");
    let (id, white, black) =
        (drawn["id"].as_str().unwrap(), drawn["white"].as_str().unwrap(), drawn["black"].as_str().unwrap());
    // An offer goes with the offerer's next move.
    ok(&dir, &home, &["draw", "offer", id, "--as", white]);
    ok(&dir, &home, &["move", id, "2e3", "--as", white]);
    ok(&dir, &home, &["draw", "accept", id, "--as", black]);

    let printed = ok(&dir, &home, &["standings", "--json"]);
    let json: Value = serde_json::from_str(&printed).unwrap();
    // By hand: Ann 1½ (beat Bo, drew Cy, lost to Di), Cy 1½ (drew Ann, lost to Bo, beat
    // Di), Bo 1 (lost to Ann, beat Cy; Di to play), Di 1 (beat Ann, lost to Cy; Bo to
    // play). Sonneborn-Berger: Ann 1 + ½·1½ = 1.75, Cy ½·1½ + 1 = 1.75, Bo 1½, Di 1½:
    // Ann and Cy share first place, Bo and Di third.
    let by_hand =
        [("Ann", 1.5, 0, 1.75, 1), ("Bo", 1.0, 1, 1.5, 3), ("Cy", 1.5, 0, 1.75, 1), ("Di", 1.0, 1, 1.5, 3)];
    let rows = json[0]["rows"].as_array().unwrap();
    for (row, (name, points, left, sb, rank)) in rows.iter().zip(by_hand) {
        assert_eq!(row["name"], name);
        assert_eq!(row["points"], points, "{name}'s points");
        assert_eq!(row["left"], left, "{name}'s games left");
        assert_eq!(row["sonneborn_berger"], sb, "{name}'s Sonneborn-Berger");
        assert_eq!(row["rank"], rank, "{name}'s place");
    }

    let out = t.path().join("site");
    let report = site(&dir, &home, &out);
    let written: Vec<&str> = report["written"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(
        written.contains(&"tournaments/cup.html") && written.contains(&"tournaments/cup.json"),
        "{written:?}"
    );
    let beside = std::fs::read_to_string(out.join("tournaments/cup.json")).unwrap();
    assert_eq!(beside, printed, "the JSON beside the page is what `standings --json` prints");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap().replace("&#x2f;", "/");
    // Each finished game's row says how it ended, as `status` does.
    assert_eq!(index.matches(" resigns)</span>").count(), 4, "{index}");
    assert!(index.contains("<td>1-0 <span class=\"ending\">(Bo (Scarlet) resigns)</span></td>"), "{index}");
    assert_eq!(index.matches("<span class=\"ending\">(Draw agreed)</span>").count(), 1, "{index}");
    assert!(
        index.contains("<a href=\"tournaments/cup.html\">cup: standings</a>"),
        "the index links the standings"
    );

    // The page as a browser shows it: each row's visible figures and each cell's games.
    let mut b = Browser::start(1280, 900);
    b.open(&url(&out, "tournaments/cup.html", ""));
    let shown = b.eval(
        "JSON.stringify([...document.querySelectorAll('#crosstable tbody tr')].map(tr => ({
            number: +tr.cells[0].textContent,
            name: tr.querySelector('th.name').textContent,
            points: tr.querySelector('.points').textContent,
            left: +tr.querySelector('.left').textContent,
            sb: tr.querySelector('.sb').textContent,
            rank: +tr.querySelector('.rank').textContent,
            cells: [...tr.querySelectorAll('td.cell, td.self')].map(td =>
                [...td.querySelectorAll('a.game')].map(a => [a.dataset.game, a.textContent,
                    a.classList.contains('white'), new URL(a.href).pathname.endsWith('.html')])),
        })))",
    );
    let shown: Value = serde_json::from_str(shown.as_str().unwrap()).unwrap();
    let shown = shown.as_array().unwrap();
    assert_eq!(shown.len(), rows.len());
    for (s, r) in shown.iter().zip(rows) {
        let name = r["name"].as_str().unwrap();
        assert_eq!(s["number"], r["number"], "{name}");
        assert_eq!(s["name"], r["name"]);
        let points = match r["points"].as_f64().unwrap() {
            p if p.fract() == 0.0 => format!("{p}"),
            p if p < 1.0 => "½".to_string(),
            p => format!("{}½", p.trunc()),
        };
        assert_eq!(s["points"], points.as_str(), "{name}'s points as shown");
        assert_eq!(s["left"], r["left"], "{name}");
        assert_eq!(
            s["sb"],
            format!("{:.2}", r["sonneborn_berger"].as_f64().unwrap()).as_str(),
            "{name}'s SB"
        );
        assert_eq!(s["rank"], r["rank"], "{name}'s place");
        for (j, (cell, games)) in
            s["cells"].as_array().unwrap().iter().zip(r["cells"].as_array().unwrap()).enumerate()
        {
            let expected: Vec<Value> = games
                .as_array()
                .unwrap()
                .iter()
                .map(|g| {
                    let mark = match g["halves"].as_u64() {
                        Some(2) => "1",
                        Some(1) => "½",
                        Some(_) => "0",
                        None => "·",
                    };
                    json!([g["id"], mark, g["white"], true])
                })
                .collect();
            assert_eq!(cell.as_array().unwrap(), &expected, "{name} against player {}", j + 1);
        }
    }
    keep_site_screenshot(&mut b, "standings-1280");
    assert!(b.errors().is_empty(), "{:?}", b.errors());
}

/// Keeps a screenshot of `b` as `<CARGO_TARGET_TMPDIR>/site/<name>.png`, a test artefact
/// to look at.
fn keep_site_screenshot(b: &mut Browser, name: &str) {
    let (_, _, _, png) = b.screenshot();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("site");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
}

/// Issue 32: the board marks a royal piece in check and every frozen piece (the
/// Basilisk's freeze), at every ply, as the library finds them: random Gygax Chess games
/// until plies with both have been seen, each such ply checked in Chromium.
#[test]
fn pages_mark_check_and_frozen_pieces_as_the_library_finds_them() {
    let (t, dir, home) = common::cli::archive();
    let a = open_archive(&dir);
    // Seeds until one game has a check and a frozen piece (found by the library).
    let mut found = None;
    for seed in 1..40u64 {
        let id = format!("g{seed}");
        play_game(&a, "gygax", &id, None, 160, seed);
        let game = game_of(&a, &format!("games/gygax/{id}.pgn"));
        let mut pos = game.start.clone();
        let (mut check, mut frozen) = (None, None);
        for (i, m) in game.moves.iter().enumerate() {
            pos = game.variant.make(&pos, m);
            if check.is_none() && game.variant.in_check(&pos) {
                check = Some(i + 1);
            }
            if frozen.is_none()
                && game.variant.def().dims.squares().any(|sq| game.variant.is_frozen(&pos, sq))
            {
                frozen = Some(i + 1);
            }
        }
        if let (Some(c), Some(f)) = (check, frozen) {
            found = Some((id, game, [c, f]));
            break;
        }
    }
    let (id, game, plies) = found.expect("a random game with a check and a frozen piece");
    let out = t.path().join("site");
    site(&dir, &home, &out);
    let mut b = Browser::start(1280, 900);
    for ply in plies {
        b.open(&url(&out, &format!("games/gygax/{id}.html"), &format!("#ply={ply}")));
        let pos = game.position_at(ply);
        let dims = &game.variant.def().dims;
        let mut frozen: Vec<String> =
            dims.squares().filter(|&sq| game.variant.is_frozen(&pos, sq)).map(|sq| dims.name(sq)).collect();
        frozen.sort();
        let check: Vec<String> = if game.variant.in_check(&pos) {
            pos.royal_square(pos.side_to_move()).map(|k| dims.name(k)).into_iter().collect()
        } else {
            Vec::new()
        };
        let marked = |b: &mut Browser, class: &str| -> Vec<String> {
            let v = b.eval(&format!(
                "Array.prototype.map.call(document.querySelectorAll('#board rect.{class}'), e => e.getAttribute('data-square')).sort()"
            ));
            serde_json::from_value(v).unwrap()
        };
        assert_eq!(marked(&mut b, "frozen"), frozen, "{id} ply {ply}: frozen pieces");
        assert_eq!(marked(&mut b, "check"), check, "{id} ply {ply}: check");
        let line = b.eval("document.getElementById('side-line').textContent").to_string();
        assert_eq!(line.contains("in check"), !check.is_empty(), "{id} ply {ply}: {line}");
    }
    assert!(b.errors().is_empty(), "{:?}", b.errors());
}
