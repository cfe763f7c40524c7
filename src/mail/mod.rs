//! Games by email: the message that carries a game to the opponent, and reading such
//! messages back (this module: no I/O, no git). Sending them (SMTP or `sendmail`),
//! importing received ones into the archive and mailing the player to move after each
//! pushed move are use cases ([`crate::usecases::mail`], [`crate::usecases::notify`]).
//!
//! A game message is an RFC 5322 message with
//! - `Subject: [ravenpost] <id>: <N>. <move>` (`<N>... <move>` for the second side's ply,
//!   the result appended when the game has ended);
//! - a plain text body of lines of at most [`BODY_WIDTH`] columns, the essentials first
//!   (so that they fit one pager screen): the players, the last move, a draw offer and how
//!   to answer it, whose turn it is and what the reader should do, the moves so far (the
//!   game score, wrapped, a draw offer marked `(=)` after its move), with a text diagram
//!   after the last move (Gygax Chess's levels in the compact layout, 10 lines) and the
//!   variant's legend after the score;
//! - the whole game file as an attachment `<id>.pgn` of type [`PGN_TYPE`], so the message
//!   alone is enough to replay the game;
//! - `Message-ID: <id.PLY@domain>` ([`message_id`]), `In-Reply-To` and `References` naming
//!   the previous ply's message, so mail clients thread a game;
//! - `X-Ravenpost-Game: <variant>/<id>`, and `List-Id: <<id>.<variant>.ravenpost>`
//!   ([`list_id`]), for mail filters (`~h List-Id` or `~l` in NeoMutt);
//! - `X-Ravenpost-Declined-Before: <ply>, …` ([`DECLINED_HEADER`]) when the game's mover
//!   declined a draw offer before a ply (the game file keeps no trace of a declined offer:
//!   the move would have ended it too), so the receiving archive records the decline as
//!   the sender's did.

use std::borrow::Cow;

pub mod command;

use mail_builder::MessageBuilder;
use mail_builder::headers::address::Address;
use mail_builder::headers::message_id::MessageId;
use mail_builder::headers::raw::Raw;
use mail_parser::decoders::charsets::map::charset_decoder;
use mail_parser::{HeaderName, HeaderValue, Message, MessageParser, MessagePart, MimeHeaders, PartType};

use crate::engine::Side;
use crate::notation::diagram;
use crate::notation::san::write_move;
use crate::record;
use crate::referee::limits::{Limits, size_in_words};

/// The MIME type of the attached game file (IANA's registered type for PGN).
pub const PGN_TYPE: &str = "application/vnd.chess-pgn";

/// Other types a received game file may have (older and informal PGN types).
pub const PGN_TYPES_ACCEPTED: [&str; 3] = [PGN_TYPE, "application/x-chess-pgn", "text/plain"];

/// The header naming the game as `<variant>/<id>`.
pub const GAME_HEADER: &str = "X-Ravenpost-Game";

/// The header listing the plies before which their mover declined a draw offer, e.g.
/// `X-Ravenpost-Declined-Before: 12`.
pub const DECLINED_HEADER: &str = "X-Ravenpost-Declined-Before";

/// The `List-Id` of a game's messages: `<ann-bo.gygax.ravenpost>` (RFC 2919: a
/// dot-atom, the game id's characters other than letters, digits and `-` as `-`).
pub fn list_id(variant: &str, game_id: &str) -> String {
    let atom: String =
        game_id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '-' }).collect();
    format!("<{atom}.{variant}.ravenpost>")
}

/// What the sender's history adds to a game message beyond the game file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Steps {
    /// The step the sender took without a move after the last ply, if any.
    pub answer: Option<Answer>,
    /// The plies (1-based) before which their mover declined a draw offer, in order.
    pub declined_before: Vec<usize>,
    /// The plies (1-based) their mover offered a draw with, in order.
    pub offered_with: Vec<usize>,
    /// The ply of the game's first message, the thread's root: 0, the new game's own
    /// message (the default), or 1 when the game's first message was its first move's
    /// (its creator moves first and mailed nothing before): no message names an earlier
    /// one, which was never sent.
    pub first_message: usize,
    /// A `Message-ID` of its own (no angle brackets), for a notification that is not the
    /// game's message of its ply: the new game's message to its first mover, a deadline
    /// reminder. `None`: [`message_id`]'s.
    pub message_id: Option<String>,
    /// A notice the message leads with (a deadline reminder): the subject's text after
    /// the game id, and the body's first line.
    pub lead: Option<String>,
}

/// The widest line of a message body, in columns (RFC 5322 §2.1.1's 78).
pub const BODY_WIDTH: usize = 78;

/// A step the sender took without a move after the game's last ply (a declined or
/// offered draw, booked leave): the message says what it was and gets a `Message-ID` of
/// its own, so it never repeats the message of that ply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// What was done, as the history says it, e.g. `Scarlet declines the draw`.
    pub summary: String,
    /// The commit that recorded it (its short id), which makes the `Message-ID` unique.
    pub commit: String,
}

/// A name and an email address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mailbox {
    /// The display name, e.g. `Ann Example`.
    pub name: String,
    /// The address, e.g. `ann@example.org`.
    pub email: String,
}

/// Why a message could not be built or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MailError {
    /// The game file does not replay.
    #[error("the game file: {0}")]
    Game(String),
    /// The message could not be written.
    #[error("writing the message: {0}")]
    Write(String),
    /// The bytes are not a message, or carry no game.
    #[error("{0}")]
    Read(String),
}

/// What [`build`] needs.
#[derive(Debug, Clone)]
pub struct Outgoing<'a> {
    /// The game id (the file name without `.pgn`).
    pub game_id: &'a str,
    /// The game file's text (one game), attached as it is.
    pub text: &'a str,
    /// The game, replayed from `text` by the caller (who has the definitions a game
    /// pinning one needs).
    pub game: &'a crate::record::game::Game,
    /// The side of the sender.
    pub sender: Side,
    /// The sender.
    pub from: Mailbox,
    /// The recipient (the other player).
    pub to: Mailbox,
    /// The `Date` header, Unix seconds.
    pub date: i64,
    /// The deadline of the player to move, when the message should say it (a server's
    /// notification of the opponent's move, a move mailed in a game with a time control).
    pub deadline: Option<crate::referee::Time>,
    /// The time each side has used on its moves (seconds, by [`Side::index`]), when the
    /// message should say it (a game with a time control).
    pub used: Option<[u64; 2]>,
    /// How the reader answers: what the body tells them to do.
    pub answer_by: AnswerBy,
    /// The club's address, when the club's server sends the message for the sender: it
    /// is then `From: Ann via ravenpost <club address>` (mail from another domain's
    /// address would fail the receiver's SPF and DMARC checks), with `Reply-To` the
    /// sender (or the referee, [`AnswerBy::Reply`]), and the thread's ids at the club's
    /// domain.
    pub via: Option<String>,
}

/// How the reader of a game message answers it: the body's instructions follow it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum AnswerBy {
    /// Peer-to-peer mail play: the reader takes the message into their own archive
    /// (`ravenpost mail import`), then moves and mails the answer (`ravenpost mail send`).
    #[default]
    Import,
    /// A club player with a clone of the club's archive: `ravenpost sync`, then
    /// `ravenpost move ID MOVE` and `ravenpost sync` again.
    Sync,
    /// A club player by mail only: a reply to the referee mailbox at `referee` (the
    /// message's `Reply-To`) with the move, or a command, on its first line.
    Reply {
        /// The referee mailbox's address.
        referee: String,
    },
    /// A club player in the browser: the game's page on the club's server at `url`.
    Web {
        /// The club server's address, e.g. `https://chess.club.example.org`.
        url: String,
    },
}

impl AnswerBy {
    /// The game's page on the club's server, for [`AnswerBy::Web`].
    pub fn page(url: &str, game_id: &str) -> String {
        format!("{}/game/{game_id}", url.trim_end_matches('/'))
    }
}

/// A built message.
#[derive(Debug, Clone)]
pub struct Built {
    /// The RFC 5322 message, CRLF line ends.
    pub bytes: Vec<u8>,
    /// Its `Message-ID`, without angle brackets.
    pub message_id: String,
    /// The `In-Reply-To` message id, if any, without angle brackets.
    pub in_reply_to: Option<String>,
    /// Its subject.
    pub subject: String,
}

/// The domain of an address (after the last `@`), lower case; `ravenpost.invalid` when it
/// has none.
pub fn domain(email: &str) -> String {
    match email.rsplit_once('@') {
        Some((_, d)) if !d.is_empty() => d.to_ascii_lowercase(),
        _ => "ravenpost.invalid".to_string(),
    }
}

/// The `Message-ID` (no angle brackets) of the message that carries ply `ply` of game
/// `game_id` (0: the new game), sent from an address at `domain`: `ann-bo.12@example.org`.
/// `ended` marks the message recording a result reached without a move (resignation,
/// agreed or claimed draw, time forfeit): `ann-bo.12.end@example.org`.
pub fn message_id(game_id: &str, ply: usize, ended: bool, domain: &str) -> String {
    format!("{game_id}.{ply}{}@{domain}", if ended { ".end" } else { "" })
}

/// The move as people write it with its number: `12. 2e3` or `12... Sa3b6`.
fn numbered(game: &crate::record::game::Game, ply: usize) -> Option<String> {
    if ply == 0 || ply > game.moves.len() {
        return None;
    }
    let before = game.position_at(ply - 1);
    let san = write_move(&game.variant, &before, &game.moves[ply - 1]);
    let n = before.fullmove_number();
    Some(if before.side_to_move() == Side::White { format!("{n}. {san}") } else { format!("{n}... {san}") })
}

/// Builds the message carrying the game `o.text` from `o.from` to `o.to`.
///
/// The `Message-ID` is [`message_id`] of the last ply at the domain of the player who
/// made it (the sender's for a result without a move, and for a game without moves the
/// player not to move); `In-Reply-To` names the message of the ply before (of the last
/// ply, for a result without a move) and `References` the game's first message and the
/// ten before this one ([`Steps::first_message`] says which was the first: the game's
/// first message names none). Both players derive the same ids because each knows both
/// addresses (`o.from`, `o.to`).
///
/// # Errors
/// [`MailError::Game`] when the text does not replay; [`MailError::Write`] should the
/// message writer fail.
pub fn build(o: &Outgoing<'_>) -> Result<Built, MailError> {
    build_answer(o, None)
}

/// [`build`], for a message that also reports `answer`, a step the sender took without a
/// move after the last ply (ignored once the game has ended): its `Message-ID` is
/// `<id>.<ply>.<commit>@<sender's domain>`, in reply to the message of the last ply, and
/// the subject and body say what was done.
///
/// # Errors
/// As [`build`].
pub fn build_answer(o: &Outgoing<'_>, answer: Option<&Answer>) -> Result<Built, MailError> {
    build_steps(o, &Steps { answer: answer.cloned(), ..Steps::default() })
}

/// [`build_answer`] with what the sender's history says ([`Steps`]): the answer, the
/// declines ([`DECLINED_HEADER`]) and the offers (marked `(=)` in the body's moves).
///
/// # Errors
/// As [`build`].
pub fn build_steps(o: &Outgoing<'_>, steps: &Steps) -> Result<Built, MailError> {
    let game = o.game.clone();
    let plies = game.moves.len();
    let result = game.text.result.as_ref().map(|r| r.0.clone()).unwrap_or_else(|| "*".into());
    let ended = result != "*" && game.rules_result() != Some(result.as_str());
    let answer = steps.answer.as_ref().filter(|_| result == "*");
    let offer_by_sender =
        record::pending_offer(&game).filter(|s| s == game.variant.def().side_name(o.sender));
    let last = numbered(&game, plies);
    let draft = Draft { o, game, plies, result, ended, answer, offer_by_sender, last };
    let def = draft.game.variant.def();
    let (mut this, in_reply_to, references) = draft.thread(steps.first_message);
    if let Some(id) = &steps.message_id {
        this.clone_from(id);
    }
    let what = draft.what();
    let subject = match &steps.lead {
        Some(lead) => format!("[ravenpost] {}: {}", o.game_id, lead.trim_end_matches('.')),
        None if draft.result != "*" => {
            format!("[ravenpost] {}: {} \u{2014} {}", o.game_id, what.trim_end_matches('.'), draft.result)
        }
        None => format!("[ravenpost] {}: {what}", o.game_id),
    };
    let mut body = steps.lead.as_ref().map(|l| format!("{l}\n")).unwrap_or_default();
    body.push_str(&draft.body(&what, &steps.offered_with));
    let body = fit_lines(&body, BODY_WIDTH);

    let from = match &o.via {
        Some(club) => Address::new_address(Some(format!("{} via ravenpost", o.from.name)), club.clone()),
        None => Address::new_address(Some(o.from.name.clone()), o.from.email.clone()),
    };
    let mut b = MessageBuilder::new()
        .from(from)
        .to(Address::new_address(Some(o.to.name.clone()), o.to.email.clone()))
        .subject(subject.clone())
        .date(o.date)
        .message_id(this.clone())
        .header(GAME_HEADER, Raw::new(format!("{}/{}", def.slug, o.game_id)))
        .header("List-Id", Raw::new(list_id(&def.slug, o.game_id)))
        .text_body(body)
        .attachment(PGN_TYPE, format!("{}.pgn", o.game_id), o.text.as_bytes().to_vec());
    if let AnswerBy::Reply { referee } = &o.answer_by {
        // A reply reaches the referee mailbox, which judges and commits it.
        b = b.reply_to(Address::new_address(None::<String>, referee.clone()));
    } else if o.via.is_some() {
        // A reply reaches the player the message is from, as it would without the club.
        b = b.reply_to(Address::new_address(Some(o.from.name.clone()), o.from.email.clone()));
    }
    let declined: Vec<String> =
        steps.declined_before.iter().filter(|&&k| k >= 1 && k <= plies).map(usize::to_string).collect();
    if !declined.is_empty() {
        b = b.header(DECLINED_HEADER, Raw::new(declined.join(", ")));
    }
    if let Some(r) = &in_reply_to {
        b = b.in_reply_to(r.clone()).references(MessageId::new_list(references.iter().cloned()));
    }
    let bytes = b.write_to_vec().map_err(|e| MailError::Write(e.to_string()))?;
    Ok(Built { bytes, message_id: this, in_reply_to, subject })
}

/// One game of a [`Digest`]: its id, its players, its ply and the deadline.
#[derive(Debug, Clone)]
pub struct DigestGame {
    /// The game id.
    pub id: String,
    /// `Ann v Bo`.
    pub players: String,
    /// The plies played.
    pub ply: usize,
    /// The deadline of the reader's move, if the game has a clock.
    pub deadline: Option<crate::referee::Time>,
}

/// A daily "your games to move" message ([`build_digest`]).
#[derive(Debug, Clone)]
pub struct Digest {
    /// The sender (the club's referee address, or `ravenpost@` the reader's domain).
    pub from: Mailbox,
    /// The reader.
    pub to: Mailbox,
    /// The `Date` header, Unix seconds.
    pub date: i64,
    /// The day it reports, `2026-12-01`.
    pub day: String,
    /// Its `Message-ID` (deterministic: one per player and day).
    pub message_id: String,
    /// The games waiting for the reader's move, the most urgent first.
    pub games: Vec<DigestGame>,
    /// How the reader answers.
    pub answer_by: AnswerBy,
}

/// The message of a [`Digest`]: a list of the games, then how to answer; lines of at
/// most [`BODY_WIDTH`] columns.
///
/// # Errors
/// [`MailError::Write`] should the message writer fail.
pub fn build_digest(d: &Digest) -> Result<Built, MailError> {
    let n = d.games.len();
    let subject = format!("[ravenpost] {} game{} to move, {}", n, if n == 1 { "" } else { "s" }, d.day);
    let mut body = format!(
        "{}, {n} game{} wait{} for your move ({}):\n\n",
        d.to.name,
        if n == 1 { "" } else { "s" },
        if n == 1 { "s" } else { "" },
        d.day
    );
    for g in &d.games {
        let deadline = g.deadline.as_ref().map_or_else(
            || "no clock".to_string(),
            |t| format!("deadline {}", crate::referee::problem::rfc3339(t)),
        );
        body.push_str(&format!("- {}: {}, ply {}, {deadline}\n", g.id, g.players, g.ply));
        if let AnswerBy::Web { url } = &d.answer_by {
            body.push_str(&format!("  {}\n", AnswerBy::page(url, &g.id)));
        }
    }
    body.push('\n');
    body.push_str(match &d.answer_by {
        AnswerBy::Import => "Answer each game from your archive: `ravenpost move ID MOVE`, then `ravenpost mail send ID`.\n",
        AnswerBy::Sync => "In your clone of the club's archive: `ravenpost sync`, then `ravenpost move ID MOVE` and `ravenpost sync`.\n",
        AnswerBy::Reply { .. } => "Reply to each game's own mail (not to this one) with your move on the first line.\n",
        AnswerBy::Web { .. } => "Play each move on its game's page above.\n",
    });
    let mut b = MessageBuilder::new()
        .from(Address::new_address(Some(d.from.name.clone()), d.from.email.clone()))
        .to(Address::new_address(Some(d.to.name.clone()), d.to.email.clone()))
        .subject(subject.clone())
        .date(d.date)
        .message_id(d.message_id.clone())
        .text_body(fit_lines(&body, BODY_WIDTH));
    if let AnswerBy::Reply { referee } = &d.answer_by {
        b = b.reply_to(Address::new_address(None::<String>, referee.clone()));
    }
    let bytes = b.write_to_vec().map_err(|e| MailError::Write(e.to_string()))?;
    Ok(Built { bytes, message_id: d.message_id.clone(), in_reply_to: None, subject })
}

/// How the body tells the reader to take a message into their archive.
const HOW_TO_IMPORT: &str = "pipe this message into `ravenpost mail import -` (with `--archive DIR` when \
                             your mail client does not run in your archive; or save it and run \
                             `ravenpost mail import FILE`)";

/// A game message being written ([`build_steps`]): the game it carries, and what its
/// subject, body and thread are written from.
struct Draft<'a> {
    o: &'a Outgoing<'a>,
    game: crate::record::game::Game,
    /// The game's plies.
    plies: usize,
    /// The game's result, `*` while it goes on.
    result: String,
    /// Whether the game ended without a move (a result the rules do not give).
    ended: bool,
    /// The step the sender took without a move after the last ply, while the game goes on.
    answer: Option<&'a Answer>,
    /// A draw offer the sender made (with the last move, or alone): the reader answers it.
    offer_by_sender: Option<String>,
    /// The last move with its number ([`numbered`]).
    last: Option<String>,
}

impl Draft<'_> {
    /// The player who sent the message of ply `k`: the one not to move after it.
    fn sender_of(&self, k: usize) -> Side {
        self.game.position_at(k).side_to_move().opponent()
    }

    /// The [`message_id`] of the message of ply `k`, at its sender's domain (the club's,
    /// [`Outgoing::via`]).
    fn id_of(&self, k: usize) -> String {
        let o = self.o;
        let address = if self.sender_of(k) == o.sender { &o.from.email } else { &o.to.email };
        message_id(o.game_id, k, false, &domain(o.via.as_ref().unwrap_or(address)))
    }

    /// The comment the last move's player wrote with it (`move --comment`), if any: not
    /// the comment that records how a game ended without a move (`Gold resigns.`).
    fn comment(&self) -> Option<&str> {
        let last = self.game.text.moves.get(self.plies.checked_sub(1)?)?;
        let ending = if self.ended { last.comments.last().map(String::as_str) } else { None };
        record::move_comment(&self.game.text, self.plies).filter(|c| Some(*c) != ending)
    }

    /// A side as the body names it: the player with the side, `Ann (Gold)`.
    fn named(&self, side: Side) -> String {
        record::named(&self.game, side)
    }

    /// The message's place in the game's thread, the game's first message being that of
    /// ply `first_message`: its `Message-ID`, its `In-Reply-To` (none for the first) and
    /// its `References` ([`build`] says which).
    fn thread(&self, first_message: usize) -> (String, Option<String>, Vec<String>) {
        let (o, plies) = (self.o, self.plies);
        let own = domain(o.via.as_ref().unwrap_or(&o.from.email));
        let this = match (self.ended, self.answer) {
            (true, _) => message_id(o.game_id, plies, true, &own),
            (false, Some(a)) => format!("{}.{plies}.{}@{own}", o.game_id, a.commit),
            (false, None) => self.id_of(plies),
        };
        // The messages before this one, from the game's first (the thread's root, which
        // names none).
        let root = first_message.min(plies);
        let previous: Vec<usize> = if self.ended || self.answer.is_some() {
            (root..=plies).collect()
        } else {
            (root..plies).collect()
        };
        let in_reply_to = previous.last().map(|&k| self.id_of(k));
        let mut references: Vec<String> = Vec::new();
        if let Some(&first) = previous.first() {
            references.push(self.id_of(first));
        }
        for &k in previous.iter().skip(1).rev().take(10).collect::<Vec<_>>().iter().rev() {
            references.push(self.id_of(*k));
        }
        (this, in_reply_to, references)
    }

    /// What the message reports, for its subject: the last move (and a draw offered with
    /// it), the sender's step without a move, the new game, or how the game ended.
    fn what(&self) -> String {
        let game = &self.game;
        let def = game.variant.def();
        let white = record::player(game, Side::White);
        let black = record::player(game, Side::Black);
        match (&self.last, self.ended) {
            (_, true) => game
                .text
                .moves
                .last()
                .and_then(|m| m.comments.iter().rev().find(|c| !c.starts_with("ravenpost: ")))
                .map_or_else(|| format!("result {}", self.result), |c| record::with_names(game, c)),
            (Some(l), false) => match self.answer {
                Some(a) => format!("{} after {l}", record::with_names(game, &a.summary)),
                None if self.offer_by_sender.is_some() => format!("{l} (draw offered)"),
                None => l.clone(),
            },
            (None, false) => match self.answer {
                Some(a) => {
                    format!(
                        "{} (new {} game, {white} v {black})",
                        record::with_names(game, &a.summary),
                        def.title
                    )
                }
                None => format!("new {} game, {white} v {black}", def.title),
            },
        }
    }

    /// The message's body, in lines of at most [`BODY_WIDTH`] columns: the essentials
    /// first, so that they fit one pager screen (the players, the last move, what the
    /// reader should do, the moves, a move in `offered_with` marked `(=)`), then the
    /// boards. `what` is what the message reports ([`Draft::what`]).
    fn body(&self, what: &str, offered_with: &[usize]) -> String {
        let (game, plies, id) = (&self.game, self.plies, self.o.game_id);
        let def = game.variant.def();
        let white = record::player(game, Side::White);
        let black = record::player(game, Side::Black);
        let pos = game.position();
        let last_move = if plies > 0 { Some(game.moves[plies - 1]) } else { None };
        // The first pager screen (13 lines of an 80×24 NeoMutt under its headers): whose
        // move and the move, how to answer, then the whole board (the compact layout: 10
        // lines for Gygax Chess); the players, the details and the legend after them.
        let mut body = self.headline(&pos, what);
        if let (Some(d), "*") = (&self.o.deadline, self.result.as_str()) {
            body.push_str(&format!(
                "Deadline for {}'s move: {}.\n",
                record::player(game, pos.side_to_move()),
                crate::referee::problem::rfc3339(d)
            ));
        }
        body.push_str(&self.short_answer(&pos));
        let layout = diagram::Layout::fitting(&game.variant, BODY_WIDTH);
        let style = diagram::DiagramStyle::default();
        body.push_str(&diagram::diagram_laid_out(&game.variant, &pos, last_move.as_ref(), style, layout));
        if let Some(hand) = diagram::hand_line(&game.variant, &pos) {
            body.push_str(&format!("{hand}\n"));
        }
        body.push_str(&format!("\n{} v {} ({}), game {id}\n", white, black, def.title));
        match &self.last {
            Some(l) => {
                let mover = record::player(game, self.sender_of(plies));
                body.push_str(&format!("Last move: {l} by {mover} (ply {plies})\n"));
                if let Some(c) = self.comment() {
                    body.push_str(&format!("Comment by {}: {c}\n", self.named(self.sender_of(plies))));
                }
            }
            None => body.push_str("No move has been played yet.\n"),
        }
        if let Some(a) = self.answer {
            body.push_str(&format!("Then: {}.\n", record::with_names(game, &a.summary)));
        }
        if self.result == "*" {
            self.push_turn(&mut body, &pos);
        } else {
            self.push_end(&mut body, what);
        }
        // The plies a draw was offered with: from the sender's history, and the pending offer
        // when the last ply's mover made it.
        let mut offered = offered_with.to_vec();
        if plies > 0
            && record::pending_offer(game).as_deref() == Some(def.side_name(self.sender_of(plies)))
            && !offered.contains(&plies)
        {
            offered.push(plies);
        }
        body.push_str("\nMoves:\n");
        body.push_str(&score(game, &offered));
        if !offered.is_empty() {
            body.push_str("(=): a draw offer made with the move\n");
        }
        // The legend, for a reader without the rules at hand.
        body.push('\n');
        for l in crate::variants::legend::legend_lines(def, BODY_WIDTH) {
            body.push_str(&format!("{l}\n"));
        }
        body.push_str(&format!("\nThe game file is attached as {id}.pgn.\n"));
        fit_lines(&body, BODY_WIDTH)
    }

    /// The body's first line: the game, whose move it is and the move it answers (or the
    /// result, or the step without a move the message reports: `what`).
    fn headline(&self, pos: &crate::engine::Position, what: &str) -> String {
        let id = self.o.game_id;
        if self.result != "*" {
            return format!("Game {id} has ended: {} ({}).\n", self.result, what.trim_end_matches('.'));
        }
        let to_move = self.named(pos.side_to_move());
        match &self.last {
            _ if pos.side_to_move() == self.o.sender => {
                format!("Game {id}: {what}; {to_move} to move.\n")
            }
            Some(l) => format!("Game {id}: {to_move} to move after {l}.\n"),
            None => format!("Game {id}: {to_move} to move; no move has been played yet.\n"),
        }
    }

    /// How to answer, in a sentence that fits the first pager screen (the details under
    /// the board), as the reader answers ([`AnswerBy`]): take the message in, then move
    /// and send; sync, move and sync; reply; or play on the game's page; or wait.
    fn short_answer(&self, pos: &crate::engine::Position) -> String {
        let id = self.o.game_id;
        let ended = self.result != "*";
        let waiting = !ended && pos.side_to_move() == self.o.sender;
        let wait = || format!("Nothing to do now: {} is to move, not you.\n", self.named(pos.side_to_move()));
        match &self.o.answer_by {
            AnswerBy::Import => {
                let import = "pipe this mail into `ravenpost mail import -`";
                if ended {
                    format!("To take the result in: {import}.\n")
                } else if waiting {
                    format!("To take it in: {import}; then wait.\n")
                } else {
                    format!(
                        "To answer: {import}, then `ravenpost move {id} MOVE` and `ravenpost mail send {id}`.\n"
                    )
                }
            }
            AnswerBy::Sync if ended => "Your clone has it after `ravenpost sync`.\n".to_string(),
            AnswerBy::Sync if waiting => wait(),
            AnswerBy::Sync => {
                format!(
                    "To answer: `ravenpost sync`, then `ravenpost move {id} MOVE` and `ravenpost sync`.\n"
                )
            }
            AnswerBy::Reply { .. } | AnswerBy::Web { .. } if ended => {
                "Nothing to do: the game is over.\n".into()
            }
            AnswerBy::Reply { .. } | AnswerBy::Web { .. } if waiting => wait(),
            AnswerBy::Reply { .. } => {
                "To answer: reply to this mail with your move on the first line (or resign, \
                 draw, accept, decline, moves, board).\n"
                    .to_string()
            }
            AnswerBy::Web { url } => format!("To answer: play your move at {}\n", AnswerBy::page(url, id)),
        }
    }

    /// Adds to `body`, for a game that goes on (at `pos`), whose turn it is, the time
    /// used, a draw offer, and what the reader should do: take the message in, then move
    /// or wait, and answer the sender's offer.
    fn push_turn(&self, body: &mut String, pos: &crate::engine::Position) {
        let (o, game) = (self.o, &self.game);
        let def = game.variant.def();
        let to_move = pos.side_to_move();
        let to_move_name = record::player(game, to_move);
        body.push_str(&format!("{}: {to_move_name}.\n", diagram::side_line(&game.variant, pos)));
        if let Some(used) = o.used {
            let span =
                |side: Side| crate::referee::Span(i64::try_from(used[side.index()]).unwrap_or(i64::MAX));
            body.push_str(&format!(
                "Time used: {} {}, {} {}.\n",
                self.named(Side::White),
                span(Side::White),
                self.named(Side::Black),
                span(Side::Black)
            ));
        }
        if self.offer_by_sender.is_some() {
            // How to answer it comes after how to import it (below), which must come first.
            body.push_str(&format!("{} offers a draw.\n", self.named(o.sender)));
        } else if let Some(side) = record::pending_offer(game)
            && let Some(side) = Side::ALL.into_iter().find(|s| def.side_name(*s) == side)
        {
            body.push_str(&format!("{} offers a draw.\n", self.named(side)));
        }
        body.push('\n');
        body.push_str(&self.how_to_answer(to_move == o.sender, &to_move_name, to_move));
        match (self.offer_by_sender.is_some(), to_move == o.sender, &o.answer_by) {
            (false, _, _) => {}
            // The offer stands with the sender's next move: it cannot be answered before.
            (true, true, AnswerBy::Sync | AnswerBy::Reply { .. } | AnswerBy::Web { .. }) => {
                body.push_str(&format!(
                    "{} offers a draw with their next move: you can accept or decline it when that \
                     move comes.\n",
                    self.named(o.sender)
                ));
            }
            (true, _, _) => body.push_str(&self.how_to_answer_the_offer()),
        }
    }

    /// The paragraph saying what the reader does: move (as [`AnswerBy`] says how), or
    /// wait while the sender, `waiting_for` (`side`), is still to move.
    fn how_to_answer(&self, wait: bool, waiting_for: &str, side: Side) -> String {
        let id = self.o.game_id;
        let named = self.named(side);
        match (&self.o.answer_by, wait) {
            // A step without a move (a declined or offered draw, leave): the sender is
            // still to move; the reader waits.
            (AnswerBy::Import, true) => format!(
                "To take this into your archive, {HOW_TO_IMPORT}; then wait for {waiting_for}'s move: \
                 {named} is to move, not you.\n"
            ),
            (AnswerBy::Import, false) => format!(
                "To take the move into your archive, {HOW_TO_IMPORT}; then play with `ravenpost move {id} \
                 MOVE` and answer with `ravenpost mail send {id}`.\n"
            ),
            (_, true) => format!(
                "Wait for {waiting_for}'s move: {named} is to move, not you; you will be mailed when \
                 it is your turn.\n"
            ),
            (AnswerBy::Sync, false) => format!(
                "In your clone of the club's archive, run `ravenpost sync` (it brings the game), then \
                 play with `ravenpost move {id} MOVE` and send it with `ravenpost sync`. There is \
                 nothing to import: this mail only tells you.\n"
            ),
            (AnswerBy::Reply { referee }, false) => format!(
                "Reply to this mail (it goes to the club's referee, {referee}) with your move on the \
                 first line, as the moves are written below (`MOVE draw` offers a draw with it). \
                 Or write one word on the first line: `resign`, `draw`, `accept` or `decline` (a \
                 draw offer), `moves` (the legal moves), `board` (the position). The referee \
                 answers with the new position, or says why a move is refused.\n"
            ),
            (AnswerBy::Web { url }, false) => format!(
                "Play your move on the game's page, {}, or answer a draw offer there.\n",
                AnswerBy::page(url, id)
            ),
        }
    }

    /// The paragraph saying how to answer the sender's draw offer.
    fn how_to_answer_the_offer(&self) -> String {
        let id = self.o.game_id;
        let by = self.named(self.o.sender);
        match &self.o.answer_by {
            AnswerBy::Import => format!(
                "{by} offers a draw: accept it with `ravenpost draw accept {id}` or decline it with \
                 `ravenpost draw decline {id}` (playing a move instead declines it too), then answer with \
                 `ravenpost mail send {id}`.\n"
            ),
            AnswerBy::Sync => format!(
                "{by} offers a draw: after `ravenpost sync`, accept it with `ravenpost draw accept {id}` \
                 or decline it with `ravenpost draw decline {id}` (playing a move instead declines it \
                 too), then `ravenpost sync`.\n"
            ),
            AnswerBy::Reply { .. } => format!(
                "{by} offers a draw: reply with `accept` or `decline` on the first line (a move \
                 instead declines it too).\n"
            ),
            AnswerBy::Web { url } => format!(
                "{by} offers a draw: accept or decline it on {} (a move instead declines it too).\n",
                AnswerBy::page(url, id)
            ),
        }
    }

    /// Adds to `body`, for a game that has ended, its result and how it ended (`what`,
    /// [`Draft::what`]), and how to take the result in.
    fn push_end(&self, body: &mut String, what: &str) {
        let def = self.game.variant.def();
        // The record's comment ends in a full stop (`Gold resigns.`): not twice; and the
        // side gets its player's name, as elsewhere in the body (`Gold (Ann) resigns`).
        let mut ended_by = what.trim_end_matches('.').to_string();
        if let Some(side) =
            Side::ALL.into_iter().find(|s| ended_by.starts_with(&format!("{} ", def.side_name(*s))))
        {
            ended_by = format!("{}{}", self.named(side), &ended_by[def.side_name(side).len()..]);
        }
        body.push_str(&format!("The game has ended: {} ({ended_by}).\n\n", self.result));
        match &self.o.answer_by {
            AnswerBy::Import => {
                body.push_str(&format!("To take the result into your archive, {HOW_TO_IMPORT}.\n"));
            }
            AnswerBy::Sync => body.push_str("`ravenpost sync` brings the result into your clone.\n"),
            AnswerBy::Reply { .. } | AnswerBy::Web { .. } => {
                body.push_str("Nothing to do: the game is over.\n")
            }
        }
    }
}

/// The game score: the main line's moves in canonical form with their numbers, then the
/// result, in lines of at most [`BODY_WIDTH`] columns; a move a draw was offered with
/// (`offered`, 1-based plies) followed by `(=)`, the sign FIDE's Laws (9.1.2.2) have
/// players write on their scoresheets for an offer.
fn score(game: &crate::record::game::Game, offered: &[usize]) -> String {
    let mut pos = game.start.clone();
    let mut text = crate::notation::pgn::GameText::default();
    for (i, m) in game.moves.iter().enumerate() {
        let mut token = write_move(&game.variant, &pos, m);
        if offered.contains(&(i + 1)) {
            token.push_str(" (=)");
        }
        text.moves.push(crate::notation::pgn::MoveNode { token, ..Default::default() });
        pos = game.variant.make(&pos, m);
    }
    text.result = game.text.result.clone();
    let first_number = u32::from(game.start.fullmove_number());
    let first_side = game.start.side_to_move() == Side::White;
    crate::notation::pgn::write_moves_only(&text, first_number, first_side, BODY_WIDTH)
}

/// `text` with every line longer than `width` characters filled to lines of at most
/// `width` (a paragraph written as one line, a player's long name), broken at spaces
/// only (a word longer than that stays whole, and so does a `backticked command`);
/// shorter lines (the diagram's) stay as they are.
fn fit_lines(text: &str, width: usize) -> String {
    fill_lines(text, width, "")
}

/// [`fill`] for each line of `text`, continuation lines starting with `indent`.
pub(crate) fn fill_lines(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        out.push_str(&fill(body, width, indent));
        out.push_str(end);
    }
    out
}

/// `line` filled to lines of at most `width` columns, continuation lines starting with
/// `indent`, broken at spaces only: never inside a word (a path, a Message-ID, a game
/// id with a hyphen) nor inside a span in backticks (a command to copy goes whole onto
/// the next line); a line that fits is returned as it is.
pub(crate) fn fill(line: &str, width: usize, indent: &str) -> String {
    if line.chars().count() <= width {
        return line.to_string();
    }
    // The spaces inside backticks become no-break spaces (textwrap without its Unicode
    // features breaks at ASCII spaces only), and back after filling.
    const KEEP: char = '\u{a0}';
    let mut code = false;
    let guarded: String = line
        .chars()
        .map(|c| {
            if c == '`' {
                code = !code;
            }
            if code && c == ' ' { KEEP } else { c }
        })
        .collect();
    let options = textwrap::Options::new(width)
        .subsequent_indent(indent)
        .break_words(false)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::fill(&guarded, &options).replace(KEEP, " ")
}

/// A game message as read by [`read_messages`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incoming {
    /// Where it was in the input, for messages: `message 2` in an mbox, empty for a single
    /// message.
    pub place: String,
    /// Its `Message-ID`, without angle brackets.
    pub message_id: Option<String>,
    /// Its `In-Reply-To`, without angle brackets.
    pub in_reply_to: Option<String>,
    /// The sender.
    pub from: Option<Mailbox>,
    /// The recipients (`To:`), in order.
    pub to: Vec<Mailbox>,
    /// The subject.
    pub subject: Option<String>,
    /// The game id: the attachment's file name without `.pgn`, else the `X-Ravenpost-Game`
    /// header's id, else the subject's `[ravenpost] <id>:`.
    pub game_id: Option<String>,
    /// The game file's text (the attachment, else the tag pairs and movetext found in the
    /// text body), or why there is none.
    pub game: Result<String, String>,
    /// The plies before which their mover declined a draw offer ([`DECLINED_HEADER`]).
    pub declined_before: Vec<usize>,
    /// The variant the `X-Ravenpost-Game` header names, if any.
    pub variant: Option<String>,
    /// Why the message is refused whatever the archive holds: it has no single sender (no
    /// `From` address, two, or a `Sender` other than it), no `Message-ID`, two different
    /// copies of the game, or a header or subject naming another game than its attachment.
    pub malformed: Option<String>,
}

/// Whether `bytes` look like an mbox file (its first line starts with `From `).
pub fn is_mbox(bytes: &[u8]) -> bool {
    bytes.starts_with(b"From ")
}

/// Reads one message, or every message of an mbox file (split at `From ` lines), within
/// the default [`Limits`].
///
/// # Errors
/// As [`read_messages_within`].
pub fn read_messages(bytes: &[u8]) -> Result<Vec<Incoming>, MailError> {
    read_messages_within(bytes, &Limits::default())
}

/// Reads one message, or every message of an mbox file (split at `From ` lines); a game
/// larger than `limits.game_bytes` is not taken (its [`Incoming::game`] says why).
///
/// # Errors
/// [`MailError::Read`] when the input is empty, larger than `limits.message_bytes`, or an
/// mbox that cannot be split.
pub fn read_messages_within(bytes: &[u8], limits: &Limits) -> Result<Vec<Incoming>, MailError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(MailError::Read("empty: no message".into()));
    }
    if bytes.len() as u64 > limits.message_bytes {
        return Err(MailError::Read(too_large(Some(bytes.len() as u64), limits.message_bytes)));
    }
    if !is_mbox(bytes) {
        return Ok(vec![read_one(bytes, String::new(), limits)]);
    }
    let mut out = Vec::new();
    for (i, m) in mail_parser::mailbox::mbox::MessageIterator::new(bytes).enumerate() {
        let m = m.map_err(|e| MailError::Read(format!("message {}: {e}", i + 1)))?;
        out.push(read_one(m.contents(), format!("message {}", i + 1), limits));
    }
    // A single message (a mail client pipes one as an mbox of one): its place says
    // nothing (`from mail message 1 <…>`).
    if let [only] = out.as_mut_slice() {
        only.place.clear();
    }
    Ok(out)
}

fn first_id(v: &mail_parser::HeaderValue<'_>) -> Option<String> {
    match v {
        mail_parser::HeaderValue::Text(t) => Some(t.to_string()),
        mail_parser::HeaderValue::TextList(l) => l.first().map(|t| t.to_string()),
        _ => None,
    }
}

/// The game id in a subject `[ravenpost] <id>: …`.
pub(crate) fn id_from_subject(subject: &str) -> Option<String> {
    let rest = &subject[subject.find("[ravenpost] ")? + "[ravenpost] ".len()..];
    let (id, _) = rest.split_once(':')?;
    (!id.is_empty() && !id.contains(' ')).then(|| id.to_string())
}

/// The game file inside a text: from the first tag pair line to the end.
fn game_in_text(text: &str) -> Option<String> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let tag_like = t.starts_with('[')
            && t[1..].chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && t.contains(" \"");
        if tag_like {
            return Some(text[offset..].replace("\r\n", "\n"));
        }
        offset += line.len();
    }
    None
}

/// Why a message of `size` bytes (when known: standard input's is not) is not read: it is
/// over `limit`, the most one message may have (`limits: message-bytes:` in
/// `ravenpost.yaml`).
pub fn too_large(size: Option<u64>, limit: u64) -> String {
    let size = size.map(|s| format!("is {}, ", size_in_words(s))).unwrap_or_else(|| "is ".into());
    format!(
        "the message {size}over the limit of {} for one message (`limits: message-bytes:` in the \
         archive's ravenpost.yaml)",
        size_in_words(limit)
    )
}

/// Every address of an address list.
fn addresses(a: &mail_parser::Address<'_>) -> Vec<Mailbox> {
    a.iter()
        .filter_map(|a| {
            Some(Mailbox {
                name: a.name().map(str::to_string).unwrap_or_default(),
                email: a.address()?.to_string(),
            })
        })
        .collect()
}

/// Every address a header (`From`, `Sender`) names.
pub(crate) fn header_addresses(v: &HeaderValue<'_>) -> Vec<Mailbox> {
    v.as_address().map(addresses).unwrap_or_default()
}

/// Addresses as a list for messages: `a@x.org, b@y.org`.
fn listed(boxes: &[Mailbox]) -> String {
    boxes.iter().map(|b| b.email.as_str()).collect::<Vec<_>>().join(", ")
}

/// Whether the part is a game file: named `*.pgn`, or of a PGN type.
fn is_game_file(p: &MessagePart<'_>) -> bool {
    let named_pgn = p.attachment_name().is_some_and(|n| n.to_ascii_lowercase().ends_with(".pgn"));
    let typed = p.content_type().is_some_and(|ct| {
        let full = format!("{}/{}", ct.ctype(), ct.subtype().unwrap_or("")).to_ascii_lowercase();
        full == PGN_TYPE || full == "application/x-chess-pgn"
    });
    named_pgn || typed
}

/// The game id an attached game file names: its file name without `.pgn`.
fn attachment_id(p: &MessagePart<'_>) -> Option<String> {
    p.attachment_name()
        .and_then(|n| n.strip_suffix(".pgn").or_else(|| n.strip_suffix(".PGN")))
        .map(str::to_string)
}

/// The text of the attached game file `p` of message `m`, as its transfer encoding and
/// its declared charset say (mail-parser decodes both), LF line ends; or why there is none:
/// the message ends inside it, it is larger than `limits.game_bytes`, or it is not text
/// in a charset known.
fn attachment_text(m: &Message<'_>, p: &MessagePart<'_>, limits: &Limits) -> Result<String, String> {
    let name = p.attachment_name().unwrap_or("(without a name)");
    if p.is_encoding_problem {
        // mail-parser keeps such a part's raw text; it ends where the message does when
        // the boundary that should close it never came.
        let encoding = p.content_transfer_encoding().unwrap_or("7bit");
        return Err(if p.offset_end as usize >= m.raw_message().len() {
            format!(
                "the attached game file {name} is cut off: the message ends inside it, before the MIME \
                 boundary that closes it (ask the sender for the message again)"
            )
        } else {
            format!("the attached game file {name} cannot be decoded: its {encoding} text is malformed")
        });
    }
    let bytes = p.contents();
    if bytes.len() as u64 > limits.game_bytes {
        return Err(format!(
            "the attached game file {name} is {}, over the limit of {} for a game (`limits: game-bytes:` \
             in the archive's ravenpost.yaml)",
            size_in_words(bytes.len() as u64),
            size_in_words(limits.game_bytes)
        ));
    }
    let charset = p.content_type().and_then(|ct| ct.attribute("charset"));
    // UTF-8 (and its subset ASCII) is checked strictly, not decoded with replacements.
    let utf8 = |c: &str| {
        let c = c.to_ascii_lowercase().replace('_', "-");
        matches!(c.as_str(), "utf-8" | "utf8" | "us-ascii" | "ascii")
    };
    let decoder = charset.filter(|c| !utf8(c)).and_then(|c| charset_decoder(c.as_bytes()));
    let text = match (&p.body, decoder) {
        // A text/* part: mail-parser has decoded its declared charset.
        (PartType::Text(t), _) => t.to_string(),
        (_, Some(decode)) => decode(bytes),
        (_, None) => match std::str::from_utf8(bytes) {
            Ok(t) => t.to_string(),
            Err(_) => {
                return Err(match charset.filter(|c| !utf8(c)) {
                    Some(c) => format!(
                        "the attached game file {name} is not UTF-8 text and declares charset {c}, which is \
                         not known (UTF-8, ISO-8859-1 and Windows-1252 are)"
                    ),
                    None => format!(
                        "the attached game file {name} is not UTF-8 text and declares no charset (such as \
                         `charset=iso-8859-1`) that says what it is"
                    ),
                });
            }
        },
    };
    Ok(text.replace("\r\n", "\n"))
}

/// Why message `m` cannot be taken whatever the archive holds (see [`Incoming::malformed`]),
/// given its `From` headers' addresses, its game files (the first is the game) and the
/// game ids its attachment, `X-Ravenpost-Game` headers and subject name.
fn malformed(
    m: &Message<'_>,
    from: &[Vec<Mailbox>],
    games: &[&MessagePart<'_>],
    limits: &Limits,
    header_ids: &[String],
    subject_id: Option<&str>,
) -> Option<String> {
    let all: Vec<Mailbox> = from.iter().flatten().cloned().collect();
    match (from.len(), all.len()) {
        (_, 0) => return Some("no sender: the message has no From address".into()),
        (1, 1) => {}
        (1, n) => {
            return Some(format!(
                "the From header names {n} addresses ({}): a game message has exactly one sender",
                listed(&all)
            ));
        }
        (n, _) => {
            return Some(format!(
                "the message has {n} From headers ({}): a game message has exactly one sender",
                listed(&all)
            ));
        }
    }
    let sender: Vec<Mailbox> = m.header_values(HeaderName::Sender).flat_map(header_addresses).collect();
    let from_email = &all[0].email;
    match sender.as_slice() {
        [] if m.header_values(HeaderName::Sender).next().is_none() => {}
        [s] if s.email.eq_ignore_ascii_case(from_email) => {}
        [s] => {
            return Some(format!(
                "the Sender header names {}, the From header {from_email}: a game message is sent by the \
                 player it is from",
                s.email
            ));
        }
        _ => {
            return Some(format!(
                "the Sender header names {} addresses ({}), the From header {from_email}: a game message is \
                 sent by the player it is from",
                sender.len(),
                listed(&sender)
            ));
        }
    }
    if m.message_id().is_none() {
        return Some(
            "no Message-ID header: every game message has one (ravenpost writes <GAME.PLY@DOMAIN>), by \
             which a message read again is known"
                .into(),
        );
    }
    if let Some(other) = header_ids.iter().find(|h| *h != &header_ids[0]) {
        return Some(format!(
            "two {GAME_HEADER} headers name different games ({} and {other})",
            header_ids[0]
        ));
    }
    let attached = games.first().and_then(|p| attachment_id(p));
    let named = match (&attached, header_ids.first()) {
        (Some(a), Some(h)) if a != h => {
            return Some(format!(
                "the {GAME_HEADER} header names game {h}, but the attached game file is {a}.pgn"
            ));
        }
        (Some(a), _) => Some(format!("the attached game file is {a}.pgn")),
        (None, Some(h)) => Some(format!("the {GAME_HEADER} header names game {h}")),
        (None, None) => None,
    };
    let id = attached.as_deref().or(header_ids.first().map(String::as_str));
    if let (Some(s), Some(id), Some(named)) = (subject_id, id, named)
        && s != id
    {
        return Some(format!("the subject names game {s}, but {named}"));
    }
    // Further copies of the game (the same id, or no name): all the same, or none taken.
    if let Some((first, rest)) = games.split_first() {
        let same_game = |p: &MessagePart<'_>| match (attachment_id(first), attachment_id(p)) {
            (Some(a), Some(b)) => a.eq_ignore_ascii_case(&b),
            _ => true,
        };
        let text = attachment_text(m, first, limits);
        for (i, p) in rest.iter().enumerate() {
            if same_game(p) && attachment_text(m, p, limits) != text {
                let name =
                    |p: &MessagePart<'_>| p.attachment_name().unwrap_or("(without a name)").to_string();
                return Some(format!(
                    "two different copies of the game are attached ({} and {}, the game files 1 and {}): which \
                     one was sent cannot be told",
                    name(first),
                    name(p),
                    i + 2
                ));
            }
        }
    }
    None
}

fn read_one(bytes: &[u8], place: String, limits: &Limits) -> Incoming {
    let Some(m) = MessageParser::default().parse(bytes) else {
        return Incoming {
            place,
            message_id: None,
            in_reply_to: None,
            from: None,
            to: Vec::new(),
            subject: None,
            game_id: None,
            game: Err("not an email message (no headers could be read)".into()),
            declined_before: Vec::new(),
            variant: None,
            malformed: None,
        };
    };
    let from_headers: Vec<Vec<Mailbox>> = m.header_values(HeaderName::From).map(header_addresses).collect();
    let from = from_headers.iter().flatten().next().cloned();
    let to = m.to().map(addresses).unwrap_or_default();
    let subject = m.subject().map(str::to_string);
    let games: Vec<&MessagePart<'_>> = m.attachments().filter(|p| is_game_file(p)).collect();
    let attachment = games.first().copied();
    // Every `X-Ravenpost-Game: <variant>/<id>` header, as (variant, id).
    let game_headers: Vec<(Option<String>, String)> = m
        .headers_raw()
        .filter(|(name, _)| name.eq_ignore_ascii_case(GAME_HEADER))
        .map(|(_, v)| match v.trim().rsplit_once('/') {
            Some((variant, id)) => (Some(variant.trim().to_string()), id.trim().to_string()),
            None => (None, v.trim().to_string()),
        })
        .filter(|(_, id)| !id.is_empty())
        .collect();
    let header_ids: Vec<String> = game_headers.iter().map(|(_, id)| id.clone()).collect();
    let subject_id = subject.as_deref().and_then(id_from_subject);
    let game_id = attachment.and_then(attachment_id).or(header_ids.first().cloned()).or(subject_id.clone());
    let game = match attachment {
        Some(p) => attachment_text(&m, p, limits),
        None => m
            .body_text(0)
            .and_then(|t| game_in_text(&t))
            .ok_or_else(|| "no game file: neither a .pgn attachment nor a game in the text".to_string())
            .and_then(|g| {
                if g.len() as u64 > limits.game_bytes {
                    Err(format!(
                        "the game in the message's text is {}, over the limit of {} for a game \
                         (`limits: game-bytes:` in the archive's ravenpost.yaml)",
                        size_in_words(g.len() as u64),
                        size_in_words(limits.game_bytes)
                    ))
                } else {
                    Ok(g)
                }
            }),
    };
    let malformed = malformed(&m, &from_headers, &games, limits, &header_ids, subject_id.as_deref());
    Incoming {
        place,
        message_id: m.message_id().map(str::to_string),
        in_reply_to: first_id(m.in_reply_to()),
        from,
        to,
        subject,
        game_id,
        game,
        declined_before: m
            .header_raw(DECLINED_HEADER)
            .map(|v| v.split(',').filter_map(|k| k.trim().parse().ok()).collect())
            .unwrap_or_default(),
        variant: game_headers.into_iter().next().and_then(|(v, _)| v),
        malformed,
    }
}

/// A short, readable name for a message in reports: its `Message-ID` or its place.
pub fn describe(m: &Incoming) -> Cow<'_, str> {
    match (&m.message_id, m.place.is_empty()) {
        (Some(id), true) => Cow::Owned(format!("<{id}>")),
        (Some(id), false) => Cow::Owned(format!("{} <{id}>", m.place)),
        (None, _) => Cow::Borrowed(&m.place),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (s5 NeoMutt report, N10): the body's 78-column filling split commands
    /// inside their backticks (`` `ravenpost draw accept` `` / `` ann-bo` ``). Now a
    /// backticked span goes whole onto the next line.
    #[test]
    fn commands_in_backticks_were_split_across_lines() {
        let line = "Gold (Ann Example) offers a draw: accept it with `ravenpost draw accept ann-bo` or \
                    decline it with `ravenpost draw decline ann-bo` (playing a move instead declines \
                    it too), then answer with `ravenpost mail send ann-bo`.";
        let filled = fit_lines(line, BODY_WIDTH);
        assert_eq!(
            filled,
            "Gold (Ann Example) offers a draw: accept it with\n\
             `ravenpost draw accept ann-bo` or decline it with\n\
             `ravenpost draw decline ann-bo` (playing a move instead declines it too), then\n\
             answer with `ravenpost mail send ann-bo`."
        );
        for l in filled.lines() {
            assert!(l.chars().count() <= BODY_WIDTH, "{l:?}");
        }
    }
}
