//! `ravenpost uci` (issue 35): the Universal Chess Interface, driven as a match tool
//! drives it. The positions are Fairy-Stockfish's own self-play games of Grand Chess
//! (`benches/data/grand-fsf-selfplay/games.txt`, its UCI moves), and every `bestmove`
//! is checked against pyffish's legal moves for the same position (an independent move
//! generator), as is every move of the principal variation's first step.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// A `ravenpost uci` process: lines in, lines out.
struct Uci {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: BufReader<std::process::ChildStdout>,
}

impl Uci {
    fn start() -> Uci {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ravenpost"))
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Uci { child, input, output }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").unwrap();
        self.input.flush().unwrap();
    }

    /// The lines up to and including the first that starts with `until`.
    fn until(&mut self, until: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            assert!(self.output.read_line(&mut line).unwrap() > 0, "ended before {until}: {lines:?}");
            let line = line.trim_end().to_string();
            let done = line.starts_with(until);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }
}

/// pyffish's legal moves (UCI) of Grand Chess after `moves` from the start.
fn pyffish_legal(moves: &[&str]) -> Vec<String> {
    let script = "import sys, pyffish\nmoves = sys.argv[1].split()\nfen = pyffish.start_fen('grand')\nprint(' '.join(pyffish.legal_moves('grand', fen, moves)))\n";
    let o = Command::new("python3").args(["-c", script, &moves.join(" ")]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap().split_whitespace().map(str::to_string).collect()
}

#[test]
fn uci_answers_legal_moves_in_fairy_stockfish_games() {
    common::tools::require_pyffish();
    let data = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/data/grand-fsf-selfplay/games.txt"
    ))
    .unwrap();
    let mut uci = Uci::start();
    uci.send("uci");
    let hello = uci.until("uciok");
    assert!(hello.iter().any(|l| l.starts_with("id name ravenpost")), "{hello:?}");
    uci.send("setoption name UCI_Variant value grand");
    uci.send("isready");
    assert_eq!(uci.until("readyok"), ["readyok"]);
    let mut checked = 0;
    for line in data.lines().take(12) {
        let moves: Vec<&str> = line.split_whitespace().filter(|w| !w.contains('=')).collect();
        // A position from the middle of the game (and the start, for the first).
        let at = if checked == 0 { 0 } else { moves.len() / 2 };
        let played = &moves[..at];
        uci.send("ucinewgame");
        uci.send(&format!("position startpos moves {}", played.join(" ")));
        uci.send("go nodes 3000");
        let out = uci.until("bestmove");
        let best = out.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
        let legal = pyffish_legal(played);
        assert!(legal.contains(&best), "game {checked} ply {at}: bestmove {best} not in pyffish's {legal:?}");
        let info = out.iter().find(|l| l.starts_with("info depth")).expect("an info line");
        let pv: Vec<&str> = info.split(" pv ").nth(1).unwrap().split_whitespace().collect();
        assert_eq!(pv[0], best, "{info}");
        checked += 1;
    }
    assert_eq!(checked, 12);

    // `go infinite` thinks until `stop`, then answers.
    uci.send("position startpos moves e3e5");
    uci.send("go infinite");
    uci.send("stop");
    let out = uci.until("bestmove");
    let best = out.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
    assert!(pyffish_legal(&["e3e5"]).contains(&best), "{out:?}");
    // Refusals are info strings; the game stays where it was.
    uci.send("position startpos moves e3e9");
    uci.send("setoption name UCI_Variant value gygax");
    uci.send("isready");
    let out = uci.until("readyok");
    assert!(out.contains(&"info string illegal move e3e9".to_string()), "{out:?}");
    assert!(out.iter().any(|l| l.contains("gygax has several levels")), "{out:?}");
    uci.send("quit");
    assert!(uci.child.wait().unwrap().success());
}
