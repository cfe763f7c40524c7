//! What a player writes to the club's referee mailbox (`ravenpost mail serve`): a reply
//! to a game's mail, or a new mail to the club's address, whose first line is a move or a
//! command (this module reads it: no I/O, no archive).
//!
//! The first line of the text that is not empty and not quoted (`>`) is the command:
//!
//! | first line | what it asks |
//! | --- | --- |
//! | a move in SAN, e.g. `Sa3b6` or `12... Sa3b6` | play it |
//! | a move then `draw`, e.g. `Sa3b6 draw` (or `draw`, the move on the next line) | offer a draw with the move |
//! | `resign` | resign the game |
//! | `draw` | offer a draw (or accept the opponent's standing offer) |
//! | `accept` / `decline` | answer the opponent's draw offer |
//! | `moves` or `moves SQUARE` | the legal moves (of the piece on SQUARE) |
//! | `board` | the position |
//!
//! The game is the one the mail replies to (its `In-Reply-To`/`References` name a game
//! message's `Message-ID`, `<id>.<ply>@…`), else the one its subject names
//! (`[ravenpost] <id>:` or `game <id>` anywhere in the subject). A line `secret: WORD` in
//! the text carries the player's secret for a sender whose domain does not sign.

use mail_parser::{HeaderName, MessageParser};

use super::{Mailbox, header_addresses, id_from_subject};

/// What a command mail asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MailCommand {
    /// Play the move `token` (as written), offering a draw with it when `offer_draw`.
    Move {
        /// The move as the player wrote it, without a move number.
        token: String,
        /// `Sa3b6 draw`.
        offer_draw: bool,
    },
    /// Resign the game.
    Resign,
    /// Offer a draw, or accept a standing one.
    Draw,
    /// Accept the opponent's draw offer.
    Accept,
    /// Decline the opponent's draw offer.
    Decline,
    /// List the legal moves, all or of the piece on a square.
    Moves {
        /// The square, as written.
        from: Option<String>,
    },
    /// Show the position.
    Board,
}

/// A command mail, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandMail {
    /// Its `Message-ID`, without angle brackets.
    pub message_id: String,
    /// Its one sender.
    pub from: Mailbox,
    /// Its subject, if any.
    pub subject: Option<String>,
    /// The game it is about, as its threading headers or subject say; the ply of the game
    /// message it answers when a header names one.
    pub game: Option<(String, Option<usize>)>,
    /// The command, or why the first line is none.
    pub command: Result<MailCommand, String>,
    /// The `secret:` line's word, if any.
    pub secret: Option<String>,
    /// The ids for a reply's `References`: this message's own references, then it.
    pub references: Vec<String>,
}

/// Why a mail cannot be taken at all (no answer is sent: its sender is not known).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unreadable {
    /// Not a message.
    #[error("not an email message (no headers could be read)")]
    NotAMessage,
    /// No `Message-ID`: it could not be recognised if it came again.
    #[error("the message has no Message-ID")]
    NoMessageId,
    /// Not exactly one sender.
    #[error("{0}")]
    Sender(String),
}

/// The commands a first line can hold, for answers: `resign`, `draw`, ….
pub const COMMANDS: &str = "a move, a move then `draw`, `resign`, `draw`, `accept`, `decline`, `moves`, \
                            `moves SQUARE` or `board`";

/// Reads a command mail.
///
/// # Errors
/// [`Unreadable`] for bytes that are no message, a message without a `Message-ID`, or
/// without exactly one sender (one `From` address, and a `Sender`, if any, the same).
pub fn read_command_mail(bytes: &[u8]) -> Result<CommandMail, Unreadable> {
    let m = MessageParser::default().parse(bytes).ok_or(Unreadable::NotAMessage)?;
    if m.from().is_none() && m.message_id().is_none() && m.subject().is_none() {
        return Err(Unreadable::NotAMessage);
    }
    let message_id = m.message_id().map(str::to_string).ok_or(Unreadable::NoMessageId)?;
    let from: Vec<Mailbox> = m.header_values(HeaderName::From).flat_map(header_addresses).collect();
    let from = match from.as_slice() {
        [one] => one.clone(),
        [] => return Err(Unreadable::Sender("the message has no From address".into())),
        more => {
            let all: Vec<&str> = more.iter().map(|b| b.email.as_str()).collect();
            return Err(Unreadable::Sender(format!(
                "the message has {} senders ({})",
                more.len(),
                all.join(", ")
            )));
        }
    };
    let sender: Vec<Mailbox> = m.header_values(HeaderName::Sender).flat_map(header_addresses).collect();
    if let Some(s) = sender.iter().find(|s| !s.email.eq_ignore_ascii_case(&from.email)) {
        return Err(Unreadable::Sender(format!(
            "the Sender header names {}, the From header {}: a player's mail is sent by the player",
            s.email, from.email
        )));
    }
    let subject = m.subject().map(str::to_string);
    let mut thread: Vec<String> = ids(m.references());
    thread.extend(ids(m.in_reply_to()));
    // The nearest game message first: In-Reply-To, then References from the last.
    let game = thread
        .iter()
        .rev()
        .find_map(|id| game_of_message_id(id))
        .map(|(g, p)| (g, Some(p)))
        .or_else(|| subject.as_deref().and_then(game_of_subject).map(|g| (g, None)));
    let text = m.body_text(0).map(|t| t.into_owned()).unwrap_or_default();
    let own: Vec<&str> =
        text.lines().take_while(|l| !is_quote_header(l)).filter(|l| !l.starts_with('>')).collect();
    let mut lines = own.iter().map(|l| l.trim()).filter(|l| !l.is_empty());
    let command = match lines.next() {
        // `draw` with the move on the next line is the move with a draw offer.
        Some(line) => match (read_command(line), lines.next().map(read_command)) {
            (Ok(MailCommand::Draw), Some(Ok(MailCommand::Move { token, .. }))) => {
                Ok(MailCommand::Move { token, offer_draw: true })
            }
            (command, _) => command,
        },
        None => Err("the mail's text is empty: its first line should be your move or a command".to_string()),
    };
    let secret = own.iter().find_map(|l| {
        let (key, word) = l.trim().split_once(':')?;
        key.trim().eq_ignore_ascii_case("secret").then(|| word.trim().to_string())
    });
    let mut references: Vec<String> = ids(m.references());
    references.push(message_id.clone());
    Ok(CommandMail { message_id, from, subject, game, command, secret, references })
}

/// The message ids a header holds.
fn ids(v: &mail_parser::HeaderValue<'_>) -> Vec<String> {
    match v {
        mail_parser::HeaderValue::Text(t) => vec![t.to_string()],
        mail_parser::HeaderValue::TextList(l) => l.iter().map(|t| t.to_string()).collect(),
        _ => Vec::new(),
    }
}

/// The line a mail client writes above a quoted message: `On …, Ann wrote:`.
fn is_quote_header(line: &str) -> bool {
    let l = line.trim();
    l.ends_with("wrote:") && (l.starts_with("On ") || l.contains('@')) || l == "-- "
}

/// The game and ply a game message's `Message-ID` names ([`super::message_id`]):
/// `ann-bo.12@x` or `ann-bo.12.end@x`.
pub fn game_of_message_id(id: &str) -> Option<(String, usize)> {
    let local = id.rsplit_once('@')?.0;
    let local = local.strip_suffix(".end").unwrap_or(local);
    let (game, ply) = local.rsplit_once('.')?;
    let ply: usize = ply.parse().ok()?;
    (!game.is_empty()).then(|| (game.to_string(), ply))
}

/// The game a subject names: `[ravenpost] <id>:` or `game <id>`.
fn game_of_subject(subject: &str) -> Option<String> {
    if let Some(id) = id_from_subject(subject) {
        return Some(id);
    }
    let words: Vec<&str> = subject.split_whitespace().collect();
    let at = words.iter().position(|w| w.eq_ignore_ascii_case("game"))?;
    words.get(at + 1).map(|w| w.trim_end_matches([':', ',', '.']).to_string()).filter(|w| !w.is_empty())
}

/// Reads the first line.
fn read_command(line: &str) -> Result<MailCommand, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    let lower: Vec<&str> = lower.iter().map(String::as_str).collect();
    match lower.as_slice() {
        ["resign"] => return Ok(MailCommand::Resign),
        ["draw"] | ["draw", "offer"] | ["offer", "draw"] => return Ok(MailCommand::Draw),
        ["accept"] | ["accept", "draw"] => return Ok(MailCommand::Accept),
        ["decline"] | ["decline", "draw"] => return Ok(MailCommand::Decline),
        ["moves"] => return Ok(MailCommand::Moves { from: None }),
        ["moves", _] => return Ok(MailCommand::Moves { from: Some(words[1].to_string()) }),
        ["board"] => return Ok(MailCommand::Board),
        _ => {}
    }
    // A move, after an optional move number (`12.`, `12...`).
    let rest: Vec<&str> = match words.first() {
        Some(w) if w.trim_end_matches('.').chars().all(|c| c.is_ascii_digit()) && w.ends_with('.') => {
            words[1..].to_vec()
        }
        _ => words.clone(),
    };
    match rest.as_slice() {
        [token] => Ok(MailCommand::Move { token: (*token).to_string(), offer_draw: false }),
        [token, d] if d.eq_ignore_ascii_case("draw") || *d == "(=)" => {
            Ok(MailCommand::Move { token: (*token).to_string(), offer_draw: true })
        }
        _ => Err(format!("the first line `{}` is not a move or a command: write {COMMANDS}", clip(line))),
    }
}

/// At most 40 characters of `line`, for an answer.
fn clip(line: &str) -> String {
    let mut s: String = line.chars().take(40).collect();
    if line.chars().count() > 40 {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mail(headers: &str, body: &str) -> Vec<u8> {
        format!("{headers}\r\n\r\n{body}").replace('\n', "\r\n").replace("\r\r\n", "\r\n").into_bytes()
    }

    #[test]
    fn first_lines_read_as_commands() {
        let m = |s: &str| read_command(s);
        assert_eq!(m("Sa3b6"), Ok(MailCommand::Move { token: "Sa3b6".into(), offer_draw: false }));
        assert_eq!(m("12... Sa3b6"), Ok(MailCommand::Move { token: "Sa3b6".into(), offer_draw: false }));
        assert_eq!(m("Sa3b6 draw"), Ok(MailCommand::Move { token: "Sa3b6".into(), offer_draw: true }));
        assert_eq!(m("Resign"), Ok(MailCommand::Resign));
        assert_eq!(m("draw"), Ok(MailCommand::Draw));
        assert_eq!(m("accept"), Ok(MailCommand::Accept));
        assert_eq!(m("DECLINE"), Ok(MailCommand::Decline));
        assert_eq!(m("moves 3a7"), Ok(MailCommand::Moves { from: Some("3a7".into()) }));
        assert_eq!(m("board"), Ok(MailCommand::Board));
        let e = m("I think I will play the sylph").unwrap_err();
        assert!(e.starts_with("the first line `I think I will play the sylph` is not a move"), "{e}");
    }

    #[test]
    fn a_reply_names_its_game_and_ply_and_quotes_are_skipped() {
        let bytes = mail(
            "From: Bo <bo@example.org>\nTo: games@club.org\nSubject: Re: [ravenpost] ann-bo: 1. 2e3\n\
             Message-ID: <r1@example.org>\nIn-Reply-To: <ann-bo.1@example.org>\n\
             References: <ann-bo.0@example.org> <ann-bo.1@example.org>",
            "\n  Sa3b6\nsecret: tea-pot\n\nOn Mon, Ann wrote:\n> resign\n",
        );
        let c = read_command_mail(&bytes).unwrap();
        assert_eq!(c.message_id, "r1@example.org");
        assert_eq!(c.from.email, "bo@example.org");
        assert_eq!(c.game, Some(("ann-bo".to_string(), Some(1))));
        assert_eq!(c.command, Ok(MailCommand::Move { token: "Sa3b6".into(), offer_draw: false }));
        assert_eq!(c.secret.as_deref(), Some("tea-pot"));
        assert_eq!(c.references.last().map(String::as_str), Some("r1@example.org"));
        // `draw`, then the move on the next line: the move with a draw offer.
        let bytes =
            mail("From: bo@example.org\nSubject: game ab\nMessage-ID: <d1@x.org>", "draw\n12... Sa3b6\n");
        let c = read_command_mail(&bytes).unwrap();
        assert_eq!(c.command, Ok(MailCommand::Move { token: "Sa3b6".into(), offer_draw: true }));
    }

    #[test]
    fn a_new_mail_names_its_game_in_the_subject() {
        let bytes = mail("From: bo@example.org\nSubject: game ann-bo\nMessage-ID: <n1@x.org>", "board\n");
        let c = read_command_mail(&bytes).unwrap();
        assert_eq!(c.game, Some(("ann-bo".to_string(), None)));
        assert_eq!(c.command, Ok(MailCommand::Board));
        assert_eq!(game_of_message_id("g.1.end@x"), Some(("g".into(), 1)));
        assert_eq!(game_of_message_id("CAF=x@mail.gmail.com"), None);
    }

    #[test]
    fn mails_without_one_sender_or_an_id_are_unreadable() {
        let two = mail("From: a@x.org, b@y.org\nMessage-ID: <1@x>", "resign");
        assert!(matches!(read_command_mail(&two), Err(Unreadable::Sender(_))));
        let forged = mail("From: a@x.org\nSender: m@evil.org\nMessage-ID: <1@x>", "resign");
        assert!(matches!(read_command_mail(&forged), Err(Unreadable::Sender(s)) if s.contains("m@evil.org")));
        assert_eq!(read_command_mail(&mail("From: a@x.org", "resign")), Err(Unreadable::NoMessageId));
        assert_eq!(read_command_mail(b"\x00\x01"), Err(Unreadable::NotAMessage));
    }
}
