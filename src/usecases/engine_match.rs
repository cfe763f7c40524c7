//! `match`: two UCI engines play each other, every move checked by ravenpost's rules.
//!
//! Each engine is a program started once (again after it dies) and spoken to in the
//! Universal Chess Interface: `uci`, the options, `UCI_Variant`, `isready`; for each game
//! `ucinewgame`; for each move `position startpos|fen … moves …` and `go movetime T` or
//! `go nodes N`. Its `bestmove` must be one of the legal moves of ravenpost's move
//! generator: an illegal move, `(none)` while a move exists, no answer in time or an
//! engine that exits loses the game, and the record says why. The game otherwise ends as
//! the referee sees it: the end of the game by the rules (checkmate, stalemate, …), or a
//! draw claimed by the side to move as soon as the position has occurred three times or
//! 100 plies have passed without progress; and a game longer than a limit is adjudicated
//! a draw. Each opening is played twice, colours reversed.
//!
//! The score is the first engine's. Its error is computed from the game pairs (the
//! pentanomial model, as fastchess reports it): the pair scores' mean and variance give
//! a 95% interval of the score, turned into Elo by the logistic formula. With SPRT bounds
//! the match stops when the generalised SPRT's log-likelihood ratio (the normal
//! approximation on pair scores, α = β = 0.05) leaves its bounds.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::engine::{Outcome, Position, Side, Variant};
use crate::notation::position_string::parse_position;
use crate::notation::san::write_move;
use crate::notation::uci::{engine_move, write_uci};
use crate::record::game::Game;
use crate::record::{self, DrawAction, Play};

use super::error::Error;

/// One engine: its command line, UCI options and the name its games give it.
#[derive(Clone, Debug, Default)]
pub struct EngineSpec {
    /// The program and its arguments (words split at white space; quotes group).
    pub command: String,
    /// `setoption name NAME value VALUE`, in order.
    pub options: Vec<(String, String)>,
    /// The player's name in the records (default: the engine's `id name`).
    pub name: Option<String>,
}

/// How much each move may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveBudget {
    /// `go movetime`.
    Time(Duration),
    /// `go nodes`.
    Nodes(u64),
}

/// One opening: a start position (`None`: the variant's) and UCI moves from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// A position string, or the variant's start.
    pub fen: Option<String>,
    /// The moves played from it, as UCI writes them.
    pub moves: Vec<String>,
}

/// What the match is.
#[derive(Clone, Debug)]
pub struct MatchSetup {
    /// The two engines; the first plays White in the odd-numbered games.
    pub engines: [EngineSpec; 2],
    /// The variant (ravenpost's name, also sent as `UCI_Variant`).
    pub variant: String,
    /// The `UCI_Variant` value if it differs from `variant`.
    pub uci_variant: Option<String>,
    /// Each move's budget.
    pub budget: MoveBudget,
    /// How long an engine may take to answer `go` before it loses.
    pub answer_within: Duration,
    /// The number of games (each opening twice, colours reversed, in file order, again
    /// from the first when the openings run out).
    pub games: usize,
    /// The openings (none: the start position).
    pub openings: Vec<Opening>,
    /// A game still going after this many plies is adjudicated a draw.
    pub max_plies: Option<usize>,
    /// SPRT bounds (elo0, elo1): the match stops when the test accepts one.
    pub sprt: Option<(f64, f64)>,
    /// The file the games are appended to as they end.
    pub pgn: Option<PathBuf>,
    /// The `Event` tag.
    pub event: String,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatchGame {
    /// Its number, from 1.
    pub number: usize,
    /// Which engine (0 or 1) played White.
    pub white: usize,
    /// The players' names: White's, Black's.
    pub players: [String; 2],
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// Why, in words (`checkmate`, `Black's engine sent the illegal move e3e9`, …).
    pub reason: String,
    /// Plies played (the opening's included).
    pub plies: usize,
    /// The start position's string, when the opening gave one (else the variant's start).
    pub start: Option<String>,
    /// Every move, the opening's included, as UCI writes them.
    pub moves: Vec<String>,
    /// The record, in canonical form.
    pub record: String,
}

impl MatchGame {
    /// The first engine's points (1, 0.5 or 0).
    pub fn first_points(&self) -> f64 {
        let white = match self.result.as_str() {
            "1-0" => 1.0,
            "0-1" => 0.0,
            _ => 0.5,
        };
        if self.white == 0 { white } else { 1.0 - white }
    }
}

/// The first engine's score so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MatchScore {
    /// Games won, drawn, lost by the first engine.
    pub wins: usize,
    /// Draws.
    pub draws: usize,
    /// Losses.
    pub losses: usize,
    /// Game pairs (same opening, colours reversed) by the first engine's points in the
    /// pair: 0, 0.5, 1, 1.5, 2.
    pub pairs: [usize; 5],
}

/// A score turned into Elo: the point estimate and a 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EloEstimate {
    /// Elo difference (first engine minus second); infinite at a score of 0 or 1.
    pub elo: f64,
    /// The interval's low end.
    pub low: f64,
    /// The interval's high end.
    pub high: f64,
}

impl MatchScore {
    /// Games counted.
    pub fn games(&self) -> usize {
        self.wins + self.draws + self.losses
    }

    /// The first engine's points per game (0.5 with no game).
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            return 0.5;
        }
        (self.wins as f64 + self.draws as f64 / 2.0) / self.games() as f64
    }

    /// The pair scores' mean (per game) and the variance of a pair's per-game score;
    /// `None` without two pairs.
    fn pair_moments(&self) -> Option<(usize, f64, f64)> {
        let m: usize = self.pairs.iter().sum();
        if m < 2 {
            return None;
        }
        let x = |i: usize| i as f64 / 4.0;
        let mean = self.pairs.iter().enumerate().map(|(i, &c)| c as f64 * x(i)).sum::<f64>() / m as f64;
        let var = self.pairs.iter().enumerate().map(|(i, &c)| c as f64 * (x(i) - mean).powi(2)).sum::<f64>()
            / m as f64;
        Some((m, mean, var))
    }

    /// The Elo difference with its 95% interval from the pentanomial model (the pairs'
    /// variance); `None` without two complete pairs.
    pub fn elo(&self) -> Option<EloEstimate> {
        let (m, mean, var) = self.pair_moments()?;
        let half = 1.96 * (var / m as f64).sqrt();
        Some(EloEstimate { elo: elo_of(mean), low: elo_of(mean - half), high: elo_of(mean + half) })
    }

    /// The trinomial model's estimate (each game on its own), for comparison.
    pub fn elo_trinomial(&self) -> Option<EloEstimate> {
        let n = self.games();
        if n < 2 {
            return None;
        }
        let s = self.score();
        let var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n as f64;
        let half = 1.96 * (var / n as f64).sqrt();
        Some(EloEstimate { elo: elo_of(s), low: elo_of(s - half), high: elo_of(s + half) })
    }

    /// The generalised SPRT's log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`),
    /// logistic Elo, on the pair scores (0 while they cannot tell).
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        let Some((m, mean, var)) = self.pair_moments() else { return 0.0 };
        if var <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_of(elo0), score_of(elo1));
        m as f64 * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }
}

/// The SPRT's bounds on the log-likelihood ratio for α = β = 0.05: (accept H0, accept H1).
pub fn sprt_bounds() -> (f64, f64) {
    let (alpha, beta) = (0.05f64, 0.05f64);
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// Elo difference of a score (logistic): infinite at 0 and 1.
pub fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The expected score of an Elo difference (logistic).
pub fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The match's end.
#[derive(Clone, Debug, Serialize)]
pub struct MatchReport {
    /// The players' names, first engine first.
    pub names: [String; 2],
    /// The games, in order.
    pub games: Vec<MatchGame>,
    /// The first engine's score.
    pub score: MatchScore,
    /// The SPRT's verdict: `H1` (elo1 accepted), `H0`, or none when it went on to the
    /// last game.
    pub sprt: Option<String>,
    /// The SPRT's last log-likelihood ratio.
    pub llr: Option<f64>,
}

/// Splits a command line into words as a POSIX shell does (`shlex`): white space
/// separates, quotes group, a backslash escapes.
///
/// # Errors
/// An unclosed quote, or no word at all.
pub fn split_command(line: &str) -> Result<Vec<String>, String> {
    let words = shlex::split(line)
        .ok_or_else(|| format!("`{line}`: a quote is not closed, or it ends in a backslash"))?;
    if words.is_empty() {
        return Err("an engine's command line is empty".into());
    }
    Ok(words)
}

/// Reads an openings file: one opening a line, either UCI moves from the start (`e3e5
/// e8e6`) or a position string, optionally followed by `moves` and UCI moves; blank
/// lines and lines starting with `#` are skipped. Every move is checked by the rules.
///
/// # Errors
/// The line and why, for a position string that does not read or an illegal move.
pub fn read_openings(v: &Variant, text: &str) -> Result<Vec<Opening>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (fen, moves) = match line.split_once(" moves") {
            Some((f, m)) if f.contains('/') => (Some(f.trim().to_string()), m),
            _ if line.contains('/') => (Some(line.to_string()), ""),
            _ => (None, line),
        };
        let opening = Opening { fen, moves: moves.split_whitespace().map(str::to_string).collect() };
        opening_position(v, &opening).map_err(|e| format!("line {}: {e}", i + 1))?;
        out.push(opening);
    }
    Ok(out)
}

/// The start position of `o` and the positions after each of its moves.
fn opening_position(v: &Variant, o: &Opening) -> Result<Vec<Position>, String> {
    let start = match &o.fen {
        Some(f) => parse_position(v, f).map_err(|e| format!("`{f}`: {e}"))?,
        None => v.start_position(),
    };
    let mut line = vec![start];
    for token in &o.moves {
        let p = line.last().expect("start");
        let m = engine_move(v, p, token).ok_or_else(|| format!("`{token}` is not a legal move here"))?;
        line.push(v.make(p, &m));
    }
    Ok(line)
}

/// A running engine: its process, input, and the lines it writes (read on a thread).
struct Engine {
    spec: EngineSpec,
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
    name: String,
}

/// Why an engine gave no answer.
enum Silence {
    /// It exited (or closed its output).
    Exited,
    /// It did not answer in time.
    Late,
}

impl Engine {
    /// Starts the engine and readies it for `variant`.
    fn start(spec: &EngineSpec, variant: &str) -> Result<Engine, String> {
        let words = split_command(&spec.command)?;
        let mut child = Command::new(&words[0])
            .args(&words[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("engine `{}` does not start: {e}", spec.command))?;
        let input = child.stdin.take().expect("piped");
        let output = BufReader::new(child.stdout.take().expect("piped"));
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in output.lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = Engine { spec: spec.clone(), child, input, lines, name: String::new() };
        let said = |what: &str, s: Silence| match s {
            Silence::Exited => format!("engine `{}` exited before answering `{what}`", spec.command),
            Silence::Late => format!("engine `{}` did not answer `{what}` within 30 s", spec.command),
        };
        let wait = Duration::from_secs(30);
        e.send("uci");
        let hello = e.until("uciok", wait).map_err(|s| said("uci", s))?;
        e.name =
            hello.iter().find_map(|l| l.strip_prefix("id name ")).unwrap_or(&spec.command).trim().to_string();
        for (name, value) in &spec.options {
            e.send(&format!("setoption name {name} value {value}"));
        }
        e.send(&format!("setoption name UCI_Variant value {variant}"));
        e.send("isready");
        e.until("readyok", wait).map_err(|s| said("isready", s))?;
        Ok(e)
    }

    /// Sends a line (an engine that has exited is found out by the next wait).
    fn send(&mut self, line: &str) {
        let _ = writeln!(self.input, "{line}").and_then(|()| self.input.flush());
    }

    /// The lines up to the first that starts with `word`, waiting at most `within`.
    fn until(&mut self, word: &str, within: Duration) -> Result<Vec<String>, Silence> {
        let deadline = Instant::now() + within;
        let mut said = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.split_whitespace().next() == Some(word);
                    said.push(line);
                    if done {
                        return Ok(said);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(Silence::Late),
                Err(RecvTimeoutError::Disconnected) => return Err(Silence::Exited),
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The record of a new game between `white` and `black` from `opening`.
fn new_record(
    setup: &MatchSetup,
    v: &Variant,
    number: usize,
    names: [&str; 2],
    o: &Opening,
) -> Result<Game, Error> {
    let mut tags = vec![
        ("Event".to_string(), setup.event.clone()),
        ("Site".to_string(), "?".to_string()),
        ("Round".to_string(), number.to_string()),
        ("White".to_string(), names[0].to_string()),
        ("Black".to_string(), names[1].to_string()),
        ("Result".to_string(), "*".to_string()),
        ("Variant".to_string(), v.def().slug.clone()),
    ];
    if let Some(f) = &o.fen {
        tags.push(("SetUp".to_string(), "1".to_string()));
        tags.push(("FEN".to_string(), f.clone()));
    }
    let mut game = record::load(&record::game_text_from_tags(&tags))?;
    let mut p = game.position();
    for token in &o.moves {
        let m = engine_move(v, &p, token).ok_or_else(|| Error::Usage(format!("opening move `{token}`")))?;
        let san = write_move(v, &p, &m);
        game = record::play(&game, &san, Play { unwritten: true, ..Play::default() })?.1;
        p = v.make(&p, &m);
    }
    Ok(game)
}

/// A game in play: the record, the position, the positions' hashes since the start.
struct Board {
    game: Game,
    position: Position,
    start: String,
    moves: Vec<String>,
}

impl Board {
    /// The `position` command for the game so far.
    fn position_command(&self) -> String {
        let mut c = format!("position {}", self.start);
        if !self.moves.is_empty() {
            c.push_str(" moves ");
            c.push_str(&self.moves.join(" "));
        }
        c
    }
}

/// The end of `board`'s game as the referee sees it after a move, if it has ended: the
/// rules' own end, or a draw the side to move may claim (threefold repetition, 100
/// plies), claimed at once.
fn referee_end(board: &mut Board) -> Result<Option<String>, Error> {
    if let Some(o) = board.game.outcome {
        return Ok(Some(match o {
            Outcome::Win { reason, .. } | Outcome::Draw { reason } => reason.to_string(),
        }));
    }
    // The claim's own rule (rulings §1.3), as `draw claim` checks it.
    if let Ok(why) = record::claim_basis(&board.game) {
        board.game = record::draw(&board.game, None, DrawAction::Claim)?.1;
        return Ok(Some(why));
    }
    Ok(None)
}

/// Plays game `number` between the running engines, `white` (0 or 1) playing White.
fn play_game(
    setup: &MatchSetup,
    v: &Variant,
    engines: &mut [Option<Engine>; 2],
    number: usize,
    white: usize,
    opening: &Opening,
) -> Result<MatchGame, Error> {
    let names = [player_name(engines, white), player_name(engines, 1 - white)];
    let game = new_record(setup, v, number, [&names[0], &names[1]], opening)?;
    let start = match &opening.fen {
        Some(f) => format!("fen {f}"),
        None => "startpos".to_string(),
    };
    let position = game.position();
    let mut board = Board { game, position, start, moves: opening.moves.clone() };
    for e in engines.iter_mut().flatten() {
        e.send("ucinewgame");
        e.send("isready");
    }
    for e in engines.iter_mut() {
        if let Some(engine) = e
            && engine.until("readyok", Duration::from_secs(30)).is_err()
        {
            *e = None;
        }
    }
    let go = match setup.budget {
        MoveBudget::Time(t) => format!("go movetime {}", t.as_millis()),
        MoveBudget::Nodes(n) => format!("go nodes {n}"),
    };
    let reason = loop {
        if let Some(why) = referee_end(&mut board)? {
            break why;
        }
        if setup.max_plies.is_some_and(|m| board.game.moves.len() >= m) {
            let why = format!("adjudicated a draw after {} plies", board.game.moves.len());
            board.game = record::end_by_decision(&board.game, "1/2-1/2", "adjudication", &format!("{why}."))?;
            break why;
        }
        let side = board.position.side_to_move();
        let index = if side == Side::White { white } else { 1 - white };
        match ask_move(setup, v, &mut engines[index], &board, &go) {
            Ok(token) => {
                let m = engine_move(v, &board.position, &token).expect("checked");
                let san = write_move(v, &board.position, &m);
                board.game = record::play(&board.game, &san, Play { unwritten: true, ..Play::default() })?.1;
                board.position = v.make(&board.position, &m);
                board.moves.push(write_uci(v, &m).unwrap_or(token));
            }
            Err((fault, termination)) => {
                let side_name = v.def().side_name(side);
                let why = format!("{side_name}'s engine {fault}");
                let result = if side == Side::White { "0-1" } else { "1-0" };
                board.game = record::end_by_decision(&board.game, result, termination, &format!("{why}."))?;
                break why;
            }
        }
    };
    let result = record::result_of(&board.game);
    let plies = board.game.moves.len();
    let record = board.game.canonical_text();
    let (start, moves) = (opening.fen.clone(), board.moves);
    Ok(MatchGame { number, white, players: names, result, reason, plies, start, moves, record })
}

/// The name of engine `i` in the records.
fn player_name(engines: &[Option<Engine>; 2], i: usize) -> String {
    match &engines[i] {
        Some(e) => e.spec.name.clone().unwrap_or_else(|| e.name.clone()),
        None => format!("engine {}", i + 1),
    }
}

/// Asks `engine` for its move in `board`: its `bestmove` token when it is legal, else what
/// went wrong and the `Termination` it makes (an engine that exits is dropped, to be
/// started again for the next game).
fn ask_move(
    setup: &MatchSetup,
    v: &Variant,
    engine: &mut Option<Engine>,
    board: &Board,
    go: &str,
) -> Result<String, (String, &'static str)> {
    let Some(e) = engine else { return Err(("did not start".into(), "abandoned")) };
    e.send(&board.position_command());
    e.send(go);
    let said = match e.until("bestmove", setup.answer_within) {
        Ok(said) => said,
        Err(Silence::Exited) => {
            *engine = None;
            return Err(("exited without a move".into(), "abandoned"));
        }
        Err(Silence::Late) => {
            // It may still be thinking: stop it, and start afresh next game.
            *engine = None;
            let ms = setup.answer_within.as_millis();
            return Err((format!("gave no move within {ms} ms"), "time forfeit"));
        }
    };
    let token = said.last().and_then(|l| l.split_whitespace().nth(1)).unwrap_or("").to_string();
    if engine_move(v, &board.position, &token).is_some() {
        return Ok(token);
    }
    let shown: String =
        token.chars().filter(|c| c.is_ascii_alphanumeric() || "@()-".contains(*c)).take(24).collect();
    Err((format!("sent the illegal move `{shown}`"), "rules infraction"))
}

/// Plays the match, calling `on_game` after each game with the score so far.
///
/// # Errors
/// [`Error::Usage`]: an unknown variant, an engine that does not start or answer `uci`;
/// the file the games go to cannot be written.
pub fn play_match(
    setup: &MatchSetup,
    on_game: &mut dyn FnMut(&MatchGame, &MatchScore),
) -> Result<MatchReport, Error> {
    let v = crate::variants::by_name(&setup.variant, &[]).map_err(|e| Error::Usage(e.to_string()))?;
    let uci_variant = setup.uci_variant.clone().unwrap_or_else(|| setup.variant.clone());
    let start = |i: usize| Engine::start(&setup.engines[i], &uci_variant).map_err(Error::Usage);
    let mut engines = [Some(start(0)?), Some(start(1)?)];
    let names = [player_name(&engines, 0), player_name(&engines, 1)];
    let default_opening = [Opening { fen: None, moves: Vec::new() }];
    let openings: &[Opening] = if setup.openings.is_empty() { &default_opening } else { &setup.openings };
    let mut pgn = match &setup.pgn {
        Some(path) => {
            Some(std::fs::File::create(path).map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?)
        }
        None => None,
    };
    let mut report =
        MatchReport { names, games: Vec::new(), score: MatchScore::default(), sprt: None, llr: None };
    for index in 0..setup.games {
        for (i, e) in engines.iter_mut().enumerate() {
            if e.is_none() {
                *e = start(i).ok();
            }
        }
        let white = index % 2;
        let opening = &openings[(index / 2) % openings.len()];
        let g = play_game(setup, &v, &mut engines, index + 1, white, opening)?;
        if let (Some(file), Some(path)) = (pgn.as_mut(), &setup.pgn) {
            writeln!(file, "{}", g.record).map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
        }
        let points = g.first_points();
        let s = &mut report.score;
        match points {
            1.0 => s.wins += 1,
            0.0 => s.losses += 1,
            _ => s.draws += 1,
        }
        if white == 1 {
            let pair = points + report.games.last().map_or(0.0, MatchGame::first_points);
            s.pairs[(pair * 2.0) as usize] += 1;
        }
        on_game(&g, s);
        report.games.push(g);
        if let Some((elo0, elo1)) = setup.sprt {
            let llr = report.score.llr(elo0, elo1);
            report.llr = Some(llr);
            let (low, high) = sprt_bounds();
            if llr <= low || llr >= high {
                report.sprt = Some(if llr >= high { "H1" } else { "H0" }.to_string());
                break;
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_at_white_space_and_quotes_group() {
        assert_eq!(split_command("ravenpost uci").unwrap(), ["ravenpost", "uci"]);
        assert_eq!(split_command(" '/a b/sf'  \"x y\" z ").unwrap(), ["/a b/sf", "x y", "z"]);
        assert_eq!(split_command("a ''").unwrap(), ["a", ""]);
        assert!(split_command("  ").is_err());
        assert!(split_command("a 'b").is_err());
    }

    /// Hand-computed: 60 pairs of 1 point (two draws or a win and a loss) and 20 of 1.5
    /// make a per-pair-game mean of 0.5625 and a variance of 0.01171875; the interval's
    /// half width is 1.96 · sqrt(0.01171875 / 80) = 0.023722.
    #[test]
    fn the_pentanomial_interval_is_the_pair_variance_s() {
        let s = MatchScore { wins: 50, draws: 80, losses: 30, pairs: [0, 0, 60, 20, 0] };
        assert_eq!(s.games(), 160);
        assert!((s.score() - 0.5625).abs() < 1e-12);
        let e = s.elo().unwrap();
        assert!((e.elo - 43.66).abs() < 0.01, "{e:?}");
        assert!((e.low - elo_of(0.5625 - 0.023722)).abs() < 0.01, "{e:?}");
        assert!((e.high - elo_of(0.5625 + 0.023722)).abs() < 0.01, "{e:?}");
        // Each game on its own: a larger variance (0.1367), a wider interval.
        let t = s.elo_trinomial().unwrap();
        assert!(t.high - t.low > e.high - e.low);
        assert!((score_of(e.elo) - 0.5625).abs() < 1e-9);
        assert_eq!(elo_of(1.0), f64::INFINITY);
    }

    /// The normal approximation of the GSPRT: m (s1 − s0)(2x̄ − s0 − s1) / (2σ²), with
    /// s0 = 0.5 and s1 = score_of(10) = 0.514387 for bounds [0, 10].
    #[test]
    fn the_sprt_ratio_grows_with_a_winning_score() {
        let s = MatchScore { wins: 50, draws: 80, losses: 30, pairs: [0, 0, 60, 20, 0] };
        let (s0, s1) = (0.5, score_of(10.0));
        assert!((s1 - 0.514387).abs() < 1e-6);
        let want = 80.0 * (s1 - s0) * (2.0 * 0.5625 - s0 - s1) / (2.0 * 0.01171875);
        assert!((s.llr(0.0, 10.0) - want).abs() < 1e-9);
        assert!(s.llr(0.0, 10.0) > sprt_bounds().1);
        let (low, high) = sprt_bounds();
        assert!((high - 2.944).abs() < 0.001 && (low + 2.944).abs() < 0.001);
    }

    #[test]
    fn openings_are_moves_or_position_strings_checked_by_the_rules() {
        let v = crate::variants::by_name("grand", &[]).unwrap();
        let fen = crate::notation::position_string::write_position(&v, &v.start_position());
        let text = format!("# a comment\n\ne3e5 e8e6\n{fen}\n{fen} moves f3f4\n");
        let o = read_openings(&v, &text).unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!(o[0], Opening { fen: None, moves: vec!["e3e5".into(), "e8e6".into()] });
        assert_eq!(o[1].fen.as_deref(), Some(fen.as_str()));
        assert_eq!(o[2].moves, ["f3f4"]);
        let e = read_openings(&v, "e3e5\ne3e9\n").unwrap_err();
        assert!(e.starts_with("line 2: `e3e9`"), "{e}");
    }
}
