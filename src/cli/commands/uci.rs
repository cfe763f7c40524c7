//! `ravenpost uci`: the search behind the Universal Chess Interface, for the one-level
//! variants (Grand Chess, Fantasy Grand Chess, variants from definition files), so that
//! match tools and GUIs can run it as they run Fairy-Stockfish.
//!
//! Moves are written as UCI writes them: origin and destination squares (`e2e4`, ranks
//! past 9 in full: `a9a10`), a promotion's piece code in lower case (`a9a10q`), a drop as
//! `P@e4`, castling as the king's move. `UCI_Variant` chooses the variant (any name
//! `ravenpost` knows; `grand` by default). Standard input is read on a thread of its
//! own and the search runs on another, both sending to the one loop that answers, so
//! that `stop` and `quit` are read while it thinks; the search answers `info` (depth,
//! score, nodes, time, principal variation) and `bestmove` when it ends.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::cli::failure::{Failure, io};
use crate::engine::{Move, Position, Side, Variant};
use crate::notation::position_string::parse_position;
use crate::search::Score;
use crate::usecases::{self as ops, Analysis, Budget};

/// Speak the Universal Chess Interface on standard input and output (for match tools and
/// GUIs), for the one-level variants.
///
/// `setoption name UCI_Variant value NAME` (grand, the default; fantasy-grand; or a
/// one-level variant of a definition file ravenpost knows), `position startpos|fen FEN
/// [moves ...]`, `go [depth N] [nodes N] [movetime MS] [wtime MS btime MS winc MS binc MS
/// movestogo N] [infinite]`, `stop`, `quit` (which, like the end of the input, stops a
/// search at once).
#[derive(Debug, clap::Args)]
pub(crate) struct UciArgs {}

/// The UCI writing of `mv` ([`crate::notation::uci::write_uci`]).
pub(crate) fn uci_move(v: &Variant, mv: &Move) -> Option<String> {
    crate::notation::uci::write_uci(v, mv)
}

/// The game as `position` set it: the variant, the position and the earlier positions'
/// hashes (for repetitions).
struct Game {
    variant: Arc<Variant>,
    position: Position,
    history: Vec<u64>,
}

impl Game {
    fn start(variant: Arc<Variant>) -> Game {
        let position = variant.start_position();
        Game { variant, position, history: Vec::new() }
    }
}

/// The search going on: its stop flag and thread.
struct Thinking {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl Thinking {
    fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
    }
}

/// What the answering loop receives: a line of standard input (`None` at its end), or a
/// line the search says.
enum Event {
    Input(Option<String>),
    Said(String),
}

/// `position startpos|fen FEN [moves ...]`.
fn set_position(variant: &Arc<Variant>, words: &[&str]) -> Result<Game, String> {
    let moves_at = words.iter().position(|w| *w == "moves").unwrap_or(words.len());
    let mut game = match words.first() {
        Some(&"startpos") => Game::start(variant.clone()),
        Some(&"fen") => {
            let fen = words[1..moves_at].join(" ");
            let position = parse_position(variant, &fen).map_err(|e| format!("fen {fen}: {e}"))?;
            Game { variant: variant.clone(), position, history: Vec::new() }
        }
        _ => return Err("position: expected startpos or fen".into()),
    };
    for token in words.iter().skip(moves_at + 1) {
        let v = &game.variant;
        let legal = v.legal_moves(&game.position);
        let Some(m) = legal.iter().find(|m| uci_move(v, m).as_deref() == Some(*token)) else {
            return Err(format!("illegal move {token}"));
        };
        game.history.push(game.position.hash());
        game.position = v.make(&game.position, m);
    }
    Ok(game)
}

/// The budget `go`'s words give for the side to move `side` (`infinite`, or no limit at
/// all: until `stop`).
fn go_budget(words: &[&str], side: Side) -> Budget {
    let number = |name: &str| -> Option<u64> {
        let i = words.iter().position(|w| *w == name)?;
        words.get(i + 1)?.parse().ok()
    };
    let mut budget =
        Budget { depth: number("depth").map(|d| d.clamp(1, 48) as u32), multipv: 1, ..Budget::default() };
    budget.nodes = number("nodes");
    budget.time = number("movetime").map(Duration::from_millis);
    let (clock, increment) = match side {
        Side::White => (number("wtime"), number("winc")),
        Side::Black => (number("btime"), number("binc")),
    };
    if let (Some(left), None) = (clock, budget.time) {
        let moves = number("movestogo").unwrap_or(30).max(1);
        let share = left / moves + increment.unwrap_or(0) * 3 / 4;
        budget.time = Some(Duration::from_millis(share.min(left / 2).max(1)));
    }
    budget
}

/// The `info` line of a finished search.
fn info_line(v: &Variant, a: &Analysis) -> Option<String> {
    let line = a.lines.first()?;
    let score = match line.score {
        Score::Centipawns(c) => format!("cp {c}"),
        Score::Mate(n) => format!("mate {n}"),
    };
    let pv: Vec<String> = line.moves.iter().filter_map(|m| uci_move(v, m)).collect();
    Some(format!(
        "info depth {} seldepth {} score {score} nodes {} nps {} time {} pv {}",
        a.depth,
        a.seldepth,
        a.nodes,
        a.nodes_per_second(),
        a.elapsed.as_millis(),
        pv.join(" ")
    ))
}

/// `go`: the search on its own thread, which says `info` and `bestmove` when it ends.
fn go(game: &Game, words: &[&str], events: Sender<Event>) -> Thinking {
    let budget = go_budget(words, game.position.side_to_move());
    let stop = Arc::new(AtomicBool::new(false));
    let (v, pos, history) = (game.variant.clone(), game.position.clone(), game.history.clone());
    let flag = stop.clone();
    let thread = std::thread::spawn(move || {
        let a = ops::analyse_until(&v, &pos, &history, budget, Some(flag));
        if let Some(info) = info_line(&v, &a) {
            let _ = events.send(Event::Said(info));
        }
        let best = a.lines.first().and_then(|l| l.moves.first()).and_then(|m| uci_move(&v, m));
        let _ = events.send(Event::Said(format!("bestmove {}", best.as_deref().unwrap_or("(none)"))));
    });
    Thinking { stop, thread }
}

/// `setoption name UCI_Variant value NAME`: the variant, if one-level.
fn set_variant(name: &str) -> Result<Arc<Variant>, String> {
    let v = crate::variants::by_name(name, &[]).map_err(|e| e.to_string())?;
    if v.def().dims.levels() > 1 {
        return Err(format!("{name} has several levels: UCI squares cannot name them"));
    }
    Ok(v)
}

/// Runs `ravenpost uci` until `quit` or the end of standard input.
pub(crate) fn run(_args: UciArgs, out: &mut impl Write) -> Result<(), Failure> {
    let mut variant = set_variant("grand").map_err(Failure::input)?;
    let mut game = Game::start(variant.clone());
    let mut thinking: Option<Thinking> = None;
    let (events, received) = channel();
    let input = events.clone();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if input.send(Event::Input(Some(line))).is_err() {
                return;
            }
        }
        let _ = input.send(Event::Input(None));
    });
    let mut say = |line: &str| -> Result<(), Failure> {
        writeln!(out, "{line}").map_err(io)?;
        out.flush().map_err(io)
    };
    // Input read while a stopped search said its last lines, to handle after them.
    let mut pending = std::collections::VecDeque::new();
    while let Some(event) = pending.pop_front().or_else(|| received.recv().ok()) {
        let line = match event {
            Event::Said(line) => {
                say(&line)?;
                continue;
            }
            Event::Input(None) => break,
            Event::Input(Some(line)) => line,
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("uci") => {
                say(&format!("id name ravenpost {}", env!("CARGO_PKG_VERSION")))?;
                say("id author the ravenpost developers")?;
                say("option name UCI_Variant type string default grand")?;
                say("uciok")?;
            }
            Some("isready") => say("readyok")?,
            Some("setoption") if words.get(2).is_some_and(|w| w.eq_ignore_ascii_case("UCI_Variant")) => {
                match words.get(4).map(|n| set_variant(n)) {
                    Some(Ok(v)) => {
                        variant = v;
                        game = Game::start(variant.clone());
                    }
                    Some(Err(e)) => say(&format!("info string {e}"))?,
                    None => say("info string setoption name UCI_Variant value NAME")?,
                }
            }
            Some("ucinewgame") => game = Game::start(variant.clone()),
            Some("position") => match set_position(&variant, &words[1..]) {
                Ok(g) => game = g,
                Err(e) => say(&format!("info string {e}"))?,
            },
            Some("go") | Some("stop") => {
                if let Some(t) = thinking.take() {
                    t.stop();
                    // Its `bestmove` comes before anything read meanwhile.
                    for e in received.try_iter() {
                        match e {
                            Event::Said(line) => say(&line)?,
                            input => pending.push_back(input),
                        }
                    }
                }
                if words[0] == "go" {
                    thinking = Some(go(&game, &words[1..], events.clone()));
                }
            }
            Some("quit") => break,
            _ => {}
        }
    }
    if let Some(t) = thinking.take() {
        t.stop();
    }
    // What the search said as it stopped.
    for e in received.try_iter() {
        if let Event::Said(line) = e {
            say(&line)?;
        }
    }
    Ok(())
}
