//! `ravenpost replay`: step through a game in the terminal (raw-mode keys and an alternate
//! screen through crossterm), or print its screens for scripts (`--ply N`, `--all`,
//! `--json`); the screens are [`crate::cli::replay`]'s.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::{cursor, execute, queue, terminal};

use crate::cli::args::ColorChoice;
use crate::cli::failure::{Failure, io};
use crate::cli::games::resolve_game;
use crate::cli::replay::{self, KEYS_HELP, KEYS_LINE, Replay};
use crate::cli::terminal::LayoutArg;
use crate::notation::diagram::DiagramStyle;
use crate::usecases::Session;

/// Step through a game in the terminal: the board, the side to move, the result and
/// the move list with comments around the current ply.
///
/// Interactive on a terminal, opening at the current (last) move; for scripts, `--ply N` prints one ply's screen, `--all`
/// every ply's, `--json` the same as JSON.
#[derive(Debug, clap::Args)]
#[command(after_help = KEYS_HELP)]
pub(crate) struct ReplayArgs {
    /// A game id in the archive, or a game file (the first game in it, or the one
    /// chosen with --game; `-`: standard input).
    #[arg(value_name = "GAME|FILE")]
    file: PathBuf,
    /// Print the screen after this many plies (0: the start position) and exit.
    #[arg(long, value_name = "N")]
    ply: Option<usize>,
    /// Print the screen of every ply in order (the start position first) and exit.
    #[arg(long, conflicts_with = "ply")]
    all: bool,
    /// Print as JSON (with --ply: that ply; else every ply) and exit.
    #[arg(long)]
    json: bool,
    /// Which game of the file, counting from 1.
    #[arg(long, default_value_t = 1)]
    game: usize,
    /// Start with the board flipped (ranks top to bottom, files right to left).
    #[arg(long)]
    flip: bool,
    /// Colour the diagram: `auto` when standard output is a terminal and NO_COLOR is
    /// unset or empty.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Where Gygax Chess's three levels go: `auto` puts them side by side when that
    /// fits the terminal (its width, else $COLUMNS), else in the compact layout (one
    /// character a square, 78 columns).
    #[arg(long, value_enum, default_value_t = LayoutArg::Auto)]
    layout: LayoutArg,
}

/// `ravenpost replay GAME|FILE`.
pub(crate) fn run(s: &Session, a: ReplayArgs, out: &mut impl Write) -> Result<(), Failure> {
    let (g, broken) = resolve_game(s, &a.file, a.game)?;
    if let (Some(b), Some(n)) = (&broken, a.ply)
        && n >= b.ply
    {
        return Err(b.refuse(n));
    }
    let mut r = Replay::new(g, broken.as_ref().map(|b| (b.lines(), b.json())));
    r.set_layout(a.layout);
    if let Some(n) = a.ply {
        r.check(n)?;
    }
    let color = a.color.colors(std::io::IsTerminal::is_terminal(&std::io::stdout()));
    let style = DiagramStyle { color, flip: a.flip };
    if a.json {
        let v = match a.ply {
            Some(n) => r.json(n),
            None => serde_json::Value::Array((0..=r.plies()).map(|p| r.json(p)).collect()),
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&v).expect("json")).map_err(io)?;
    } else if let Some(n) = a.ply {
        replay::print(&r, &[n], style, true, out).map_err(io)?;
    } else if a.all {
        let plies: Vec<usize> = (0..=r.plies()).collect();
        replay::print(&r, &plies, style, false, out).map_err(io)?;
    } else {
        interactive(&r, r.plies(), color, a.flip)?;
    }
    Ok(())
}

/// Leaves raw mode and the alternate screen when dropped (also on errors and panics).
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = execute!(std::io::stdout(), cursor::Show, terminal::LeaveAlternateScreen);
        let _ = terminal::disable_raw_mode();
    }
}

/// What a key does.
enum Action {
    Go(usize),
    Flip,
    Quit,
    Redraw,
}

/// Steps through `r` interactively from ply `start`, colouring the diagram if `color`.
///
/// # Errors
/// Exit 2 when standard input or output is not a terminal (with the non-interactive
/// forms to use instead) or the terminal cannot be set up.
fn interactive(r: &Replay, start: usize, color: bool, flip: bool) -> Result<(), Failure> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(Failure::input(
            "replay steps through a game interactively and needs a terminal on standard input and output; \
             in scripts use `ravenpost replay GAME --ply N`, `--all` or `--json`",
        ));
    }
    let term = |e: std::io::Error| Failure::input(format!("terminal: {e}"));
    terminal::enable_raw_mode().map_err(term)?;
    let _guard = TerminalGuard;
    let mut stdout = std::io::stdout();
    execute!(stdout, terminal::EnterAlternateScreen, cursor::Hide).map_err(term)?;
    let mut style = DiagramStyle { color, flip };
    let mut ply = start;
    let mut number = String::new();
    let mut status = String::new();
    loop {
        let rows = match terminal::size() {
            Ok((_, h)) if h > 0 => h as usize,
            _ => 24,
        };
        let mut lines = r.screen(ply, style, 0);
        // Title, diagram and state lines, then the list, the status line and the keys.
        let list_rows = rows.saturating_sub(lines.len() + 3).max(3);
        lines = r.screen(ply, style, list_rows);
        lines.push(if number.is_empty() { status.clone() } else { format!("Go to ply: {number}") });
        lines.push(KEYS_LINE.to_string());
        queue!(stdout, terminal::Clear(terminal::ClearType::All), cursor::MoveTo(0, 0)).map_err(term)?;
        stdout.write_all(lines.join("\r\n").as_bytes()).map_err(term)?;
        stdout.flush().map_err(term)?;
        let action = match crossterm::event::read().map_err(term)? {
            Event::Key(k) if k.kind != KeyEventKind::Release => {
                key(k, ply, r.plies(), &mut number, &mut status)
            }
            _ => Action::Redraw,
        };
        match action {
            Action::Go(p) => {
                ply = p;
                status.clear();
            }
            Action::Flip => {
                style.flip = !style.flip;
                status = if style.flip { "Board flipped".into() } else { String::new() };
            }
            Action::Quit => return Ok(()),
            Action::Redraw => {}
        }
    }
}

/// Applies key `k` at `ply` of `plies`; `number` holds the digits typed so far and
/// `status` receives a message for the user.
fn key(k: KeyEvent, ply: usize, plies: usize, number: &mut String, status: &mut String) -> Action {
    let last = plies;
    match k.code {
        KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => Action::Quit,
        KeyCode::Char(d) if d.is_ascii_digit() => {
            if number.len() < 9 {
                number.push(d);
            }
            Action::Redraw
        }
        KeyCode::Enter | KeyCode::Char('g') if !number.is_empty() => {
            let n: usize = number.parse().unwrap_or(usize::MAX);
            number.clear();
            if n > plies {
                *status = format!("ply {n}: the game has {plies} plies");
                Action::Redraw
            } else {
                Action::Go(n)
            }
        }
        KeyCode::Backspace if !number.is_empty() => {
            number.pop();
            Action::Redraw
        }
        KeyCode::Esc if !number.is_empty() => {
            number.clear();
            Action::Redraw
        }
        KeyCode::Char('g') => {
            *status = "Type a ply number, then Enter or g".into();
            Action::Redraw
        }
        KeyCode::Char('n' | ' ' | 'l' | 'j') | KeyCode::Right | KeyCode::Down | KeyCode::Enter => {
            if ply < last {
                Action::Go(ply + 1)
            } else {
                *status = "That is the last ply".into();
                Action::Redraw
            }
        }
        KeyCode::Char('p' | 'h' | 'k') | KeyCode::Left | KeyCode::Up | KeyCode::Backspace => {
            if ply > 0 {
                Action::Go(ply - 1)
            } else {
                *status = "That is the start position".into();
                Action::Redraw
            }
        }
        KeyCode::Char('<') | KeyCode::Home => Action::Go(0),
        KeyCode::Char('>') | KeyCode::End => Action::Go(last),
        KeyCode::Char('f') => Action::Flip,
        KeyCode::Char('q') | KeyCode::Esc => Action::Quit,
        _ => {
            *status = "Unknown key (q quits)".into();
            Action::Redraw
        }
    }
}
