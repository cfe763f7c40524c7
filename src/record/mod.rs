//! Changes to a game record, each checked by the rules: a move appended, a resignation,
//! a draw offer, acceptance, refusal or claim; and the check that one version of a game
//! file follows from the one before (what `ravenpost verify` applies to every commit).
//!
//! Everything here works on game file text and returns new canonical text; storing it is
//! the archive's business. Draw offers are recorded as a comment after the last move,
//! `{ravenpost: draw offered by Gold}`, and each move's time as `{ravenpost: at
//! 2026-11-29T16:40:00Z}` right after it ([`TIME_PREFIX`]), so that other PGN tools keep
//! them.

pub mod game;

use std::fmt;

use crate::engine::{EndReason, Move, Outcome, Side};

use self::game::{Game, Problem, result_token};
use crate::notation::pgn::{GameReader, GameText, MoveNode};
use crate::notation::san::{SanError, read_move, write_move};
use crate::variants;

/// The comment that records a pending draw offer, with the offering side's name.
pub const DRAW_OFFER_PREFIX: &str = "ravenpost: draw offered by ";

/// The comment that records when a move was made: `ravenpost: at 2026-11-29T16:40:00Z`
/// (RFC 3339, UTC, whole seconds), the first comment after the move
/// (`notation-spec/movetext.md` §2, "Move times"). A mailed game file carries its own
/// move times this way; files without them fall back to commit times.
pub const TIME_PREFIX: &str = "ravenpost: at ";

/// The comment that notes a move played from its player's conditional tree (a prepared
/// reply, see `referee::conditional`): `{ravenpost: prepared}`, after the move's time
/// (`notation-spec/movetext.md`, "Prepared replies").
pub const PREPARED_COMMENT: &str = "ravenpost: prepared";

/// Whether ply `ply` (1-based) of `text`'s main line is noted as a prepared reply.
pub fn is_prepared(text: &GameText, ply: usize) -> bool {
    ply.checked_sub(1)
        .and_then(|i| text.moves.get(i))
        .is_some_and(|m| m.comments.iter().any(|c| c == PREPARED_COMMENT))
}

/// `game` without its prepared-reply notes ([`PREPARED_COMMENT`]), as the opponent
/// receives it by mail: which replies were prepared is the owner's to know. `None` when
/// no ply carries one.
pub fn without_prepared_notes(game: &Game) -> Option<Game> {
    let noted = |m: &MoveNode| m.comments.iter().any(|c| c == PREPARED_COMMENT);
    if !game.text.moves.iter().any(noted) {
        return None;
    }
    let mut g = game.clone();
    for m in &mut g.text.moves {
        m.comments.retain(|c| c != PREPARED_COMMENT);
    }
    Some(g)
}

/// `received`, a version of the game `ours` received by mail (mailed
/// [`without_prepared_notes`]), with the notes `ours` has on the plies both share put
/// back where ravenpost writes them (after the move's time), so that its plies read as
/// ours do.
pub fn with_prepared_notes_of(received: &Game, ours: &Game) -> Game {
    let mut g = received.clone();
    let shared = ours.moves.iter().zip(&received.moves).take_while(|(a, b)| a == b).count();
    for (k, m) in g.text.moves.iter_mut().enumerate().take(shared.min(ours.text.moves.len())) {
        if is_prepared(&ours.text, k + 1) && !m.comments.iter().any(|c| c == PREPARED_COMMENT) {
            let at = usize::from(m.comments.first().is_some_and(|c| c.starts_with(TIME_PREFIX)));
            m.comments.insert(at, PREPARED_COMMENT.to_string());
        }
    }
    g
}

/// How far (seconds) a recorded move time may lie after the time of the commit that adds
/// the move: clocks of correspondence players' machines differ a little.
pub const MAX_CLOCK_SKEW: i64 = 900;

/// The time comment for `at` (Unix seconds): `ravenpost: at 2026-11-29T16:40:00Z`.
pub fn time_comment(at: i64) -> String {
    format!("{TIME_PREFIX}{}", rfc3339(at))
}

fn rfc3339(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The recorded time of each main-line ply (index 0 = ply 1), Unix seconds; `None` for a
/// ply without a time comment.
///
/// # Errors
/// `ply N: …` for a time comment that is not an RFC 3339 time, or a ply with two.
pub fn move_times(text: &GameText) -> Result<Vec<Option<i64>>, String> {
    times_of(&text.moves, 0)
}

/// The times of `moves`, the main-line moves from index `first` on.
fn times_of(moves: &[MoveNode], first: usize) -> Result<Vec<Option<i64>>, String> {
    let mut out = Vec::with_capacity(moves.len());
    for (i, m) in moves.iter().enumerate() {
        let ply = first + i + 1;
        let mut found = None;
        for c in &m.comments {
            let Some(t) = c.strip_prefix(TIME_PREFIX) else { continue };
            let secs = chrono::DateTime::parse_from_rfc3339(t.trim())
                .map_err(|e| format!("ply {ply} ({}): the time `{t}` is not an RFC 3339 time: {e}", m.token))?
                .timestamp();
            if found.replace(secs).is_some() {
                return Err(format!("ply {ply} ({}): two recorded times", m.token));
            }
        }
        out.push(found);
    }
    Ok(out)
}

/// As [`move_times`], for the main-line moves from index `from` on (0-based): their times,
/// in order.
///
/// # Errors
/// As [`move_times`], for those moves.
pub fn move_times_from(text: &GameText, from: usize) -> Result<Vec<Option<i64>>, String> {
    times_of(text.moves.get(from..).unwrap_or_default(), from)
}

/// The time recorded for the last of the first `before` main-line moves that has one
/// (Unix seconds); `None` when none has a readable one.
pub fn last_move_time(text: &GameText, before: usize) -> Option<i64> {
    last_timed(&text.moves[..before.min(text.moves.len())]).map(|(t, _)| t)
}

/// The time recorded for the last of `moves` that has a readable one, and its ply (1-based
/// within `moves`).
pub(crate) fn last_timed(moves: &[MoveNode]) -> Option<(i64, usize)> {
    moves.iter().enumerate().rev().find_map(|(i, m)| {
        let t = m.comments.iter().find_map(|c| c.strip_prefix(TIME_PREFIX))?;
        Some((chrono::DateTime::parse_from_rfc3339(t.trim()).ok()?.timestamp(), i + 1))
    })
}

/// The comments ravenpost writes after a move by `side` in `game` (before its diagram
/// lines): its time, the prepared note, and the mover's own pending offer carried along
/// (the opponent's offer lapses).
fn move_comments(game: &Game, side: Side, options: MoveOptions) -> Vec<String> {
    let own_offer = pending_offer(game).filter(|s| s == game.variant.def().side_name(side));
    written_comments(own_offer, options)
}

/// The comments ravenpost writes after a move (before its diagram lines), the mover's own
/// pending offer `own_offer` carried along.
fn written_comments(own_offer: Option<String>, options: MoveOptions) -> Vec<String> {
    let mut comments: Vec<String> = options.at.map(time_comment).into_iter().collect();
    if options.prepared {
        comments.push(PREPARED_COMMENT.to_string());
    }
    comments.extend(own_offer.map(|s| format!("{DRAW_OFFER_PREFIX}{s}")));
    comments
}

/// Whether `g1` is what [`play`] (unwritten) makes of `g0` with `san`, `g1`'s one new
/// main-line move, written with `options` (no diagram), as [`same_game`] compares games,
/// told from the new move alone when the first `shared` main-line moves of both texts
/// were read from the same bytes: the same tags, comments before the first move and
/// result; the moves after the shared ones as `g0` has them, its draw offer cleared; and
/// the new move written as ravenpost writes it (its time, the prepared note, the mover's
/// own offer carried along). `false` when that does not settle it (the move ends the game,
/// a shared move holds an offer, anything differs): then compare whole games.
pub fn adds_just_the_move(g0: &Game, g1: &Game, shared: usize, san: &str, options: MoveOptions) -> bool {
    fn kept(c: &[String]) -> impl Iterator<Item = &String> {
        c.iter().filter(|c| !c.starts_with('|'))
    }
    fn offer(c: &str) -> bool {
        c.starts_with(DRAW_OFFER_PREFIX)
    }
    fn cleared(c: &[String]) -> impl Iterator<Item = &String> {
        kept(c).filter(|c| !offer(c.as_str()))
    }
    let (t0, t1) = (&g0.text, &g1.text);
    let k0 = t0.moves.len();
    if options.diagram
        || g1.outcome.is_some()
        || k0 != g0.moves.len()
        || t1.moves.len() != k0 + 1
        || shared > k0
        || g1.moves.len() != k0 + 1
    {
        return false;
    }
    let same_tags = t0.tags.len() == t1.tags.len()
        && t0.tags.iter().zip(&t1.tags).all(|(x, y)| x.name == y.name && x.value == y.value);
    let same_frame = g0.variant.def().slug == g1.variant.def().slug
        && g0.options == g1.options
        && g0.start == g1.start
        && same_tags
        && cleared(&t0.leading_comments).eq(kept(&t1.leading_comments))
        && t0.result.as_ref().map(|r| &r.0) == t1.result.as_ref().map(|r| &r.0);
    if !same_frame || t0.moves[..shared].iter().any(|m| holds_offer(&m.comments)) {
        return false;
    }
    let same_after_clearing = t0.moves[shared..].iter().zip(&t1.moves[shared..k0]).all(|(m, n)| {
        m.token == n.token
            && m.nags == n.nags
            && m.variations.is_empty()
            && n.variations.is_empty()
            && cleared(&m.comments).eq(kept(&n.comments))
    });
    if !same_after_clearing {
        return false;
    }
    let comments = move_comments(g0, g0.position().side_to_move(), options);
    written_with(&t1.moves[k0], san, &comments)
}

/// Whether `node` is the move `san` written with `comments` (its diagram lines aside): no
/// NAG, no variation.
fn written_with(node: &MoveNode, san: &str, comments: &[String]) -> bool {
    node.token == san
        && node.nags.is_empty()
        && node.variations.is_empty()
        && comments.iter().eq(node.comments.iter().filter(|c| !c.starts_with('|')))
}

/// Whether `node`, a new main-line move, is what ravenpost writes for the move `san` with
/// `options` (no diagram) when no draw offer is pending: [`adds_just_the_move`]'s test of
/// the new move, for a game whose earlier moves and leading comments hold no offer (see
/// [`holds_offer`]).
pub fn written_as_move(node: &MoveNode, san: &str, options: MoveOptions) -> bool {
    !options.diagram && written_with(node, san, &written_comments(None, options))
}

/// Whether one of `comments` is a draw offer.
pub fn holds_offer(comments: &[String]) -> bool {
    comments.iter().any(|c| c.starts_with(DRAW_OFFER_PREFIX))
}

/// Why a change to a game was refused. Nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The game file itself has problems.
    Invalid(Vec<Problem>),
    /// The game has ended.
    Over {
        /// Its result token.
        result: String,
    },
    /// The move was meant for another ply (`--expect-ply`).
    WrongPly {
        /// The ply the caller expected to play (1-based).
        expected: usize,
        /// The ply that is next (1-based).
        next: usize,
    },
    /// Not this player's turn (or not a player of this game).
    NotYourTurn {
        /// Who asked.
        player: String,
        /// Whose turn it is (name and side).
        to_move: String,
    },
    /// The move is not legal.
    Illegal(SanError),
    /// No draw offer to accept or decline.
    NoOffer,
    /// The player has already offered a draw that still stands.
    AlreadyOffered,
    /// The name given is not one of the game's players.
    NotAPlayer {
        /// Who asked.
        player: String,
        /// The game's players.
        players: String,
    },
    /// A draw claim the position does not support.
    ClaimRefused(String),
    /// Leave that cannot be booked (none, or over the limit).
    LeaveRefused(String),
    /// A draw offer answered before its maker's move, which it goes with.
    OfferNotYetMade {
        /// Who offered (and is to move).
        offerer: String,
        /// Who tried to answer.
        answering: String,
    },
    /// A draw offer by the player who has just moved: an offer is made in one's own turn,
    /// before one's move, and goes with it.
    OfferAfterMove {
        /// Who tried to offer.
        player: String,
        /// Whose turn it is (name and side).
        to_move: String,
    },
    /// A comment to go with a move that cannot be written as one ([`move_comment_text`]).
    BadComment(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Invalid(ps) => match ps.first() {
                Some(p) => {
                    write!(f, "the game file has problems: {}:{}: {}", p.span.line, p.span.column, p.message)
                }
                None => write!(f, "the game file has no game in it"),
            },
            Refusal::Over { result } => write!(f, "the game is over ({result})"),
            Refusal::WrongPly { expected, next } if expected > next => {
                write!(f, "the game is not that far: you meant ply {expected}, but the next ply is {next}")
            }
            Refusal::WrongPly { expected, next } => {
                write!(f, "the game moved on: you meant ply {expected}, but the next ply is {next}")
            }
            Refusal::NotYourTurn { player, to_move } => {
                write!(f, "not {player}'s turn: {to_move} is to move")
            }
            Refusal::Illegal(e) => write!(f, "{e}"),
            Refusal::NoOffer => write!(f, "there is no draw offer from the opponent to answer"),
            Refusal::AlreadyOffered => {
                write!(f, "you have already offered a draw; it goes with your next move")
            }
            Refusal::NotAPlayer { player, players } => {
                write!(f, "{player} is not a player of this game (the players are {players})")
            }
            Refusal::ClaimRefused(why) => write!(f, "claim refused: {why}"),
            Refusal::LeaveRefused(why) => write!(f, "leave refused: {why}"),
            Refusal::BadComment(why) => write!(f, "comment refused: {why}"),
            Refusal::OfferAfterMove { player, to_move } => write!(
                f,
                "not {player}'s turn: {to_move} is to move; a draw offer goes with a move: offer in your turn, before you move"
            ),
            Refusal::OfferNotYetMade { offerer, answering } => write!(
                f,
                "{offerer}'s draw offer goes with {offerer}'s next move and stands until then: {answering} answers it after that move (`draw accept` or `draw decline`, or by moving on)"
            ),
        }
    }
}

impl std::error::Error for Refusal {}

impl Refusal {
    /// As its `Display`, with a problem's line and column after the name of the game file
    /// `file` (`games/gygax/g.pgn:15:28: illegal move …`), as compilers and editors write
    /// a place.
    pub fn in_file(&self, file: &str) -> String {
        match self {
            Refusal::Invalid(ps) if !ps.is_empty() => {
                let p = &ps[0];
                format!("{file}:{}:{}: {}", p.span.line, p.span.column, p.message)
            }
            other => other.to_string(),
        }
    }
}

/// What a successful change did, for commit messages and output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The new canonical game text.
    pub text: String,
    /// The ply number of the move (1-based), or of the last move for other records.
    pub ply: usize,
    /// The canonical token of the move, if a move was played.
    pub san: Option<String>,
    /// The side that acted.
    pub side: Side,
    /// The player's name (`White`/`Black` tag).
    pub player: String,
    /// The result token if the change ended the game.
    pub result: Option<String>,
    /// A one-line description, e.g. `Gold plays 2e3` or `Scarlet resigns`: as the
    /// commit message and the history (`log --json`, the referee's steps) say it, in
    /// the words of every earlier release.
    pub summary: String,
    /// The same for people, naming the player with the side ([`named`]):
    /// `Ann (Gold) plays 2e3`, `Bo (Scarlet) resigns`.
    pub said: String,
}

/// Reads the one game of `text` and replays it: [`Loader`] with no options (built-in
/// variants only; a game pinning a user definition is refused as not loaded).
///
/// # Errors
/// [`Refusal::Invalid`] with the problems found.
pub fn load(text: &str) -> Result<Game, Refusal> {
    Loader::new().load(text).map(|l| l.game)
}

/// The first game of `text`, as read.
fn read_first(text: &str) -> Result<GameText, Refusal> {
    let mut games = GameReader::new(text.as_bytes());
    let first = games.next().ok_or_else(|| Refusal::Invalid(vec![]))?;
    first.map_err(|e| Refusal::Invalid(vec![e.into()]))
}

/// How a game is read and replayed: the one loader, with its options. The default
/// replays the whole text, with the built-in variants only, and refuses a record with
/// any problem.
///
/// ```
/// # use ravenpost::record::Loader;
/// # use ravenpost::variants::Definitions;
/// let text = "[Variant \"gygax\"]\n\n1. 2e3 *\n";
/// let first = Loader::new().load(text).unwrap().game;
/// let next = "[Variant \"gygax\"]\n\n1. 2e3 Sa3b6 *\n";
/// let definitions = Definitions::new();
/// let loaded = Loader::new().definitions(&definitions).after(&first, Some(text)).load(next).unwrap();
/// assert_eq!(loaded.game.moves.len(), 2);
/// // The same game as a whole replay gives, for the cost of the move it adds.
/// assert_eq!(loaded.game, Loader::new().load(next).unwrap().game);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Loader<'a> {
    definitions: Option<&'a variants::Definitions>,
    previous: Option<(&'a Game, Option<&'a str>)>,
    as_far_as_legal: bool,
}

/// A game as a [`Loader`] loaded it.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The game (what [`load`] gives, for a record without problems).
    pub game: Game,
    /// How many main-line moves were taken from the previous version as read (0 when
    /// the text was read whole).
    pub shared: usize,
    /// With [`Loader::as_far_as_legal`], the first main-line ply (1-based) that cannot be
    /// played, and why; the game then stops before it.
    pub broken: Option<(usize, Problem)>,
}

impl<'a> Loader<'a> {
    /// The default loader (see the type's documentation).
    pub fn new() -> Loader<'a> {
        Loader::default()
    }

    /// A game pinning a user definition (`VariantFile`, `VariantHash`) takes it from
    /// `definitions`.
    pub fn definitions(mut self, definitions: &'a variants::Definitions) -> Loader<'a> {
        self.definitions = Some(definitions);
        self
    }

    /// The text is the next version of the game `previous` was loaded from (its text
    /// `previous_text`, when known): the plies it shares with `previous` are taken from
    /// it and only those it adds are replayed; with `previous_text`, the text is read only
    /// from where the two versions first differ
    /// ([`crate::notation::pgn::read_continuation`]). The answer is the same as without.
    pub fn after(mut self, previous: &'a Game, previous_text: Option<&'a str>) -> Loader<'a> {
        self.previous = Some((previous, previous_text));
        self
    }

    /// Replays the main line as far as it is legal, for showing a record that breaks at
    /// some ply (an imported record with a wrong move): the game up to the ply before the
    /// break, and the break ([`Loaded::broken`]). A record without problems gives itself.
    pub fn as_far_as_legal(mut self) -> Loader<'a> {
        self.as_far_as_legal = true;
        self
    }

    /// Reads the first game of `text` and replays it.
    ///
    /// # Errors
    /// [`Refusal::Invalid`] with the problems found (with [`Loader::as_far_as_legal`],
    /// only when not even a prefix replays, or the main line is legal and the problems
    /// are elsewhere).
    pub fn load(&self, text: &str) -> Result<Loaded, Refusal> {
        if !self.as_far_as_legal
            && let Some((prev, Some(prev_text))) = self.previous
            && let Some((gt, shared)) = crate::notation::pgn::read_continuation(&prev.text, prev_text, text)
        {
            let game = game::replay_after(prev, gt, shared, self.definitions).map_err(Refusal::Invalid)?;
            return Ok(Loaded { game, shared, broken: None });
        }
        self.replay(read_first(text)?).map_err(Refusal::Invalid)
    }

    /// Replays `text`, a game already read.
    ///
    /// # Errors
    /// The problems found, as [`Loader::load`].
    pub fn replay(&self, text: GameText) -> Result<Loaded, Vec<Problem>> {
        let definitions = self.definitions;
        if self.as_far_as_legal {
            let p = game::replay_prefix(text, definitions)?;
            return Ok(Loaded { game: p.game, shared: 0, broken: p.broken });
        }
        let game = match self.previous {
            Some((prev, _)) => game::replay_after(prev, text, 0, definitions)?,
            None => game::replay_with(text, None, 0, definitions)?,
        };
        Ok(Loaded { game, shared: 0, broken: None })
    }
}

/// The name of `side`'s player (`White`/`Black` tag; `?` if absent).
pub fn player(game: &Game, side: Side) -> String {
    let tag = if side == Side::White { "White" } else { "Black" };
    game.text.tag(tag).unwrap_or("?").to_string()
}

/// A player as messages name them: the name with the side in brackets, e.g.
/// `Ann (Gold)`; only the side when the game names no player for it (`?` or no tag).
pub fn named(game: &Game, side: Side) -> String {
    let side_name = game.variant.def().side_name(side);
    match player(game, side).as_str() {
        "" | "?" => side_name.to_string(),
        name => format!("{name} ({side_name})"),
    }
}

/// A summary that starts with the side's name (`Scarlet resigns`), naming the player
/// instead ([`named`]: `Bo (Scarlet) resigns`); any other summary as it is.
pub fn saying(game: &Game, side: Side, summary: &str) -> String {
    let side_name = game.variant.def().side_name(side);
    match summary.strip_prefix(side_name) {
        Some(rest) if rest.starts_with(' ') => format!("{}{rest}", named(game, side)),
        _ => summary.to_string(),
    }
}

/// A summary that starts with either side's name, naming its player instead ([`saying`]):
/// `Ann (Gold) offers a draw` for `Gold offers a draw`.
pub fn with_names(game: &Game, summary: &str) -> String {
    Side::ALL
        .into_iter()
        .map(|side| saying(game, side, summary))
        .find(|s| s != summary)
        .unwrap_or_else(|| summary.to_string())
}

/// The caption of a picture of `game` after `ply` plies: the players with their sides
/// (and armies, in a game of armies), then the ply, the side to move, check or mate, and
/// the result once the last ply is reached. E.g.
/// `Ann Example (Gold) v Bo Example (Scarlet)` and `Ply 3: Scarlet to move, check`, or
/// `Ply 40: Gold is checkmated; result 0-1`.
pub fn caption(game: &Game, ply: usize) -> Vec<String> {
    let def = game.variant.def();
    let army = |side: Side| {
        let key = if side == Side::White { "army-white" } else { "army-black" };
        game.options.iter().find(|(k, _)| k == key).map(|(_, a)| format!(", {a}")).unwrap_or_default()
    };
    let who = |side: Side| format!("{} ({}{})", player(game, side), def.side_name(side), army(side));
    let players = format!("{} v {}", who(Side::White), who(Side::Black));
    let ply = ply.min(game.moves.len());
    let pos = game.position_at(ply);
    let mover = def.side_name(pos.side_to_move());
    let v = &game.variant;
    let state = match v.outcome(&pos).map(|o| match o {
        Outcome::Win { reason, .. } | Outcome::Draw { reason } => reason,
    }) {
        Some(EndReason::Checkmate) => format!("{mover} is checkmated"),
        Some(EndReason::Stalemate) => format!("{mover} is stalemated"),
        Some(EndReason::RoyalCaptured) => format!("{mover} has lost the royal piece"),
        Some(reason @ (EndReason::BareKing | EndReason::Extinction)) => {
            extinction_words(game, v.outcome(&pos), reason)
        }
        Some(EndReason::Counting) => counting_words(&pos),
        None if v.in_check(&pos) => format!("{mover} to move, check"),
        None => format!("{mover} to move"),
    };
    let mut line = format!("Ply {ply}: {state}");
    let result = result_of(game);
    if ply == game.moves.len() && result != "*" {
        line.push_str(&format!("; result {result}"));
    }
    vec![players, line]
}

/// How a game ended by extinction reads: `Scarlet has a bare king`, `Gold is extinct`
/// (the side that lost), or `bare king: draw`.
pub fn extinction_words(game: &Game, end: Option<Outcome>, reason: EndReason) -> String {
    match end {
        Some(Outcome::Win { winner, .. }) => {
            let loser = named(game, winner.opponent());
            if reason == EndReason::BareKing {
                format!("{loser} has a bare king")
            } else {
                format!("{loser} is extinct")
            }
        }
        _ => format!("{reason}: draw"),
    }
}

/// How a game ended by a counting rule reads: `the count has run out (33 plies of 32):
/// a draw by the counting rule`.
pub fn counting_words(pos: &crate::engine::Position) -> String {
    let (ply, limit) = pos.count().unwrap_or((0, 0));
    format!("the count has run out ({ply} plies of {limit}): a draw by the counting rule")
}

/// How a finished game ended: the board's verdict (checkmate, stalemate), else the
/// record's closing comment with the side named by its player (`Bo (Scarlet) resigns`),
/// else its `Termination` tag.
pub fn ending(g: &Game) -> String {
    use crate::engine::{EndReason, Outcome, Side};
    let pos = g.position();
    let mover = named(g, pos.side_to_move());
    let end = g.variant.outcome(&pos);
    match end.map(|o| match o {
        Outcome::Win { reason, .. } | Outcome::Draw { reason } => reason,
    }) {
        Some(EndReason::Checkmate) => return format!("{mover} is checkmated"),
        Some(EndReason::Stalemate) => return format!("{mover} is stalemated"),
        Some(EndReason::RoyalCaptured) => return format!("{mover} has lost the royal piece"),
        Some(reason @ (EndReason::BareKing | EndReason::Extinction)) => {
            return extinction_words(g, end, reason);
        }
        Some(EndReason::Counting) => return counting_words(&pos),
        None => {}
    }
    let comments = match g.text.moves.last() {
        Some(m) => &m.comments,
        None => &g.text.leading_comments,
    };
    let closing = comments
        .iter()
        .rev()
        .find(|c| !c.starts_with("ravenpost: ") && !c.starts_with('|') && !c.starts_with(TIME_PREFIX));
    let Some(said) = closing.map(|c| c.trim().trim_end_matches('.')) else {
        return g.text.tag("Termination").unwrap_or("game over").to_string();
    };
    // The side the record names gets its player's name: `Bo (Scarlet) resigns`.
    let def = g.variant.def();
    match Side::ALL.into_iter().find(|s| said.starts_with(&format!("{} ", def.side_name(*s)))) {
        Some(side) => format!("{}{}", named(g, side), &said[def.side_name(side).len()..]),
        None => said.to_string(),
    }
}

/// The game's result token (`*` while it goes on).
pub fn result_of(game: &Game) -> String {
    game.text.result.as_ref().map(|r| r.0.clone()).unwrap_or_else(|| "*".into())
}

/// Refuses a change to a finished game.
fn ensure_going(game: &Game) -> Result<(), Refusal> {
    let result = result_of(game);
    if result != "*" { Err(Refusal::Over { result }) } else { Ok(()) }
}

/// The side `who` plays in this game.
fn side_of(game: &Game, who: &str) -> Result<Side, Refusal> {
    Side::ALL.into_iter().find(|s| player(game, *s) == who).ok_or_else(|| Refusal::NotAPlayer {
        player: who.to_string(),
        players: format!("{} and {}", player(game, Side::White), player(game, Side::Black)),
    })
}

/// Adds a comment after the last move (before the first, if none was played).
fn add_comment(text: &mut GameText, comment: String) {
    match text.moves.last_mut() {
        Some(m) => m.comments.push(comment),
        None => text.leading_comments.push(comment),
    }
}

fn check_turn(game: &Game, who: Option<&str>) -> Result<(Side, String), Refusal> {
    ensure_going(game)?;
    let side = game.position().side_to_move();
    let name = player(game, side);
    if let Some(w) = who {
        side_of(game, w)?;
    }
    if let Some(w) = who
        && w != name
    {
        return Err(Refusal::NotYourTurn {
            player: w.to_string(),
            to_move: format!("{name} ({})", game.variant.def().side_name(side)),
        });
    }
    Ok((side, name))
}

fn finish(game: &mut Game, result: &str, comment: Option<String>) {
    game.text.result = Some((result.to_string(), Default::default()));
    game.text.set_tag("Result", result);
    game.text.set_tag("Termination", "normal");
    if let Some(c) = comment {
        add_comment(&mut game.text, c);
    }
}

fn clear_offer(text: &mut GameText) {
    for m in text.moves.iter_mut() {
        m.comments.retain(|c| !c.starts_with(DRAW_OFFER_PREFIX));
    }
    text.leading_comments.retain(|c| !c.starts_with(DRAW_OFFER_PREFIX));
}

/// The side with a pending draw offer, if any (an offer lapses when the offerer's
/// opponent moves).
pub fn pending_offer(game: &Game) -> Option<String> {
    let comments = match game.text.moves.last() {
        Some(m) => &m.comments,
        None => &game.text.leading_comments,
    };
    comments.iter().find_map(|c| c.strip_prefix(DRAW_OFFER_PREFIX).map(str::to_string))
}

/// The side whose draw offer is pending ([`pending_offer`] names it by its side name).
pub fn pending_offer_side(game: &Game) -> Option<Side> {
    let by = pending_offer(game)?;
    Side::ALL.into_iter().find(|&s| game.variant.def().side_name(s) == by)
}

/// How [`play`] writes the move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveOptions {
    /// Write the plain diagram of the new position after the move, as `;|` comment lines
    /// ([`crate::notation::diagram::diagram_comments`]).
    pub diagram: bool,
    /// Record the move's time (Unix seconds, UTC) in the comment [`TIME_PREFIX`].
    pub at: Option<i64>,
    /// Note that the move was a prepared reply, played from a conditional tree
    /// ([`PREPARED_COMMENT`], after the time).
    pub prepared: bool,
}

/// How a move is played ([`play`]): by whom, at which ply, written how.
#[derive(Debug, Clone, Copy, Default)]
pub struct Play<'a> {
    /// The player making it: if given, it must be the player to move.
    pub who: Option<&'a str>,
    /// The ply (1-based) the move must be: if given, it must be the next.
    pub expect_ply: Option<usize>,
    /// What is written with the move.
    pub options: MoveOptions,
    /// Leave the new text unwritten ([`Applied::text`] empty): for checking what a move
    /// would make ([`same_game`] compares it) at the cost of the move alone.
    pub unwritten: bool,
    /// The player's comment to the opponent, kept in the record after the move, after
    /// the comments ravenpost writes ([`move_comment_text`] says which are refused).
    pub comment: Option<&'a str>,
}

/// A player's comment as it is written after a move: the text with each run of white
/// space made one space, trimmed.
///
/// # Errors
/// [`Refusal::BadComment`]: empty; holding an invisible character (a terminal escape, a
/// zero-width or bidirectional mark: [`crate::notation::pgn::is_invisible`]), which would
/// act on the opponent's terminal or disguise the text; or starting as ravenpost's own
/// comments do (`ravenpost:`, which the rules read, or `ravenpost` and another sign) or as a
/// diagram line (`|`).
pub fn move_comment_text(text: &str) -> Result<String, Refusal> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return Err(Refusal::BadComment("the comment is empty".into()));
    }
    if let Some(c) = text.chars().find(|c| crate::notation::pgn::is_invisible(*c)) {
        return Err(Refusal::BadComment(format!(
            "`{}`: a comment may not hold the invisible character {} (a control, format or \
             direction character)",
            crate::notation::pgn::visible(&text),
            c.escape_unicode()
        )));
    }
    let lower = text.to_lowercase();
    let like_own_note = lower
        .strip_prefix("ravenpost")
        .is_some_and(|rest| rest.trim_start().starts_with(|c: char| !c.is_alphanumeric()));
    if like_own_note {
        return Err(Refusal::BadComment(format!(
            "`{text}`: a comment may not start with `ravenpost:` (nor `ravenpost` and another sign), which marks ravenpost's own notes (times, draw offers)"
        )));
    }
    if text.starts_with('|') {
        return Err(Refusal::BadComment(format!(
            "`{text}`: a comment may not start with `|`, which marks a diagram line"
        )));
    }
    Ok(text)
}

/// The player's comment on ply `ply` (1-based) of `text`'s main line, as [`play`] writes
/// it with [`Play::comment`]: the first comment after the move that is neither one of
/// ravenpost's (`ravenpost: …`) nor a diagram line.
pub fn move_comment(text: &GameText, ply: usize) -> Option<&str> {
    let node = text.moves.get(ply.checked_sub(1)?)?;
    node.comments.iter().map(String::as_str).find(|c| !c.starts_with("ravenpost: ") && !c.starts_with('|'))
}

/// Plays `token` in the replayed `game` as `how` says: the change, and the game after it
/// (its canonical text is the change's text). A move that ends the game by the rules
/// writes the result and `Termination` too.
///
/// # Errors
/// [`Refusal`]: the game is over, the ply or player is wrong, or the move is illegal
/// (with the engine's reason).
pub fn play(game: &Game, token: &str, how: Play) -> Result<(Applied, Game), Refusal> {
    let Play { who, expect_ply, options, unwritten, comment } = how;
    let comment = comment.map(move_comment_text).transpose()?;
    let mut game = game.clone();
    let next = game.moves.len() + 1;
    if let Some(e) = expect_ply
        && e != next
    {
        return Err(Refusal::WrongPly { expected: e, next });
    }
    let (side, name) = check_turn(&game, who)?;
    let pos = game.position();
    let mv: Move = read_move(&game.variant, &pos, token).map_err(Refusal::Illegal)?;
    let san = write_move(&game.variant, &pos, &mv);
    // The mover's own offer travels with the move; the opponent's offer lapses (moving
    // instead of answering declines it).
    let mut comments = move_comments(&game, side, options);
    comments.extend(comment);
    clear_offer(&mut game.text);
    let after = game.variant.make(&pos, &mv);
    if options.diagram {
        comments.extend(crate::notation::diagram::diagram_comments(&game.variant, &after, Some(&mv)));
    }
    game.text.moves.push(MoveNode { token: san.clone(), comments, ..MoveNode::default() });
    game.moves.push(mv);
    game.outcome = game.variant.outcome(&after);
    let side_name = game.variant.def().side_name(side).to_string();
    let mut summary = format!("{side_name} plays {san}");
    let result = game.outcome.map(|o| {
        let r = result_token(o);
        let why = match o {
            crate::engine::Outcome::Win { winner, reason } => {
                format!("{}: {} wins", reason, game.variant.def().side_name(winner))
            }
            crate::engine::Outcome::Draw { reason } => format!("{reason}: draw"),
        };
        summary.push_str(&format!(" ({why})"));
        finish(&mut game, r, None);
        r.to_string()
    });
    let text = if unwritten { String::new() } else { game.canonical_text() };
    let said = match game.outcome {
        Some(crate::engine::Outcome::Win { winner, reason }) => {
            format!("{} plays {san} ({reason}: {} wins)", named(&game, side), named(&game, winner))
        }
        _ => saying(&game, side, &summary),
    };
    let applied = Applied { text, ply: next, san: Some(san), side, player: name, result, summary, said };
    Ok((applied, game))
}

/// Records that `who` (the player to move, if given) resigns. Returns the change and the game after it (its canonical text is the change's text).
///
/// # Errors
/// [`Refusal`]: invalid file, game over, not this player's turn.
pub fn resign(game: &Game, who: Option<&str>) -> Result<(Applied, Game), Refusal> {
    let mut game = game.clone();
    let (side, name) = match who {
        // Either player may resign at any time: find which one `who` is.
        Some(w) => {
            ensure_going(&game)?;
            (side_of(&game, w)?, w.to_string())
        }
        None => check_turn(&game, None)?,
    };
    let side_name = game.variant.def().side_name(side).to_string();
    let r = if side == Side::White { "0-1" } else { "1-0" };
    clear_offer(&mut game.text);
    finish(&mut game, r, Some(format!("{side_name} resigns.")));
    Ok(recorded(game, side, name, Some(r.into()), format!("{side_name} resigns")))
}

/// A step without a move on `game` (already changed): the change as [`Applied`], with
/// the game's canonical text, and the game.
fn recorded(
    game: Game,
    side: Side,
    player: String,
    result: Option<String>,
    summary: String,
) -> (Applied, Game) {
    let said = saying(&game, side, &summary);
    let applied = Applied {
        text: game.canonical_text(),
        ply: game.moves.len(),
        san: None,
        side,
        player,
        result,
        summary,
        said,
    };
    (applied, game)
}

/// A draw action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawAction {
    /// The player to move offers a draw; the offer goes with their next move and lapses
    /// if the opponent moves instead of answering.
    Offer,
    /// The player to move accepts the opponent's pending offer.
    Accept,
    /// The player to move declines it.
    Decline,
    /// The player to move claims a draw by threefold repetition or 100 plies.
    Claim,
}

/// Applies a draw action of the player to move (`who`, if given, must be that player).
/// Returns the change and the game after it (its canonical text is the change's text).
///
/// # Errors
/// [`Refusal`]: invalid file, game over, wrong player, no offer to answer, or a claim
/// the position does not support (the engine counts repetitions and the ply clock).
pub fn draw(game: &Game, who: Option<&str>, action: DrawAction) -> Result<(Applied, Game), Refusal> {
    let mut game = game.clone();
    let (side, name) = match check_turn(&game, who) {
        // Answering an offer its maker has not yet moved with: say when it can be.
        Err(Refusal::NotYourTurn { player: answering, .. })
            if matches!(action, DrawAction::Accept | DrawAction::Decline)
                && pending_offer(&game).as_deref()
                    == Some(game.variant.def().side_name(game.position().side_to_move())) =>
        {
            let offerer = player(&game, game.position().side_to_move());
            return Err(Refusal::OfferNotYetMade { offerer, answering });
        }
        // Offering after one's own move: say that the offer comes before it.
        Err(Refusal::NotYourTurn { player, to_move }) if action == DrawAction::Offer => {
            return Err(Refusal::OfferAfterMove { player, to_move });
        }
        other => other?,
    };
    let side_name = game.variant.def().side_name(side).to_string();
    let opponent = game.variant.def().side_name(side.opponent()).to_string();
    let (summary, result) = match action {
        DrawAction::Offer => {
            if pending_offer(&game).as_deref() == Some(side_name.as_str()) {
                return Err(Refusal::AlreadyOffered);
            }
            clear_offer(&mut game.text);
            add_comment(&mut game.text, format!("{DRAW_OFFER_PREFIX}{side_name}"));
            (format!("{side_name} offers a draw"), None)
        }
        DrawAction::Accept | DrawAction::Decline => {
            if pending_offer(&game).as_deref() != Some(opponent.as_str()) {
                return Err(Refusal::NoOffer);
            }
            clear_offer(&mut game.text);
            if action == DrawAction::Accept {
                finish(&mut game, "1/2-1/2", Some("Draw agreed.".into()));
                (format!("{side_name} accepts the draw"), Some("1/2-1/2".to_string()))
            } else {
                (format!("{side_name} declines the draw"), None)
            }
        }
        DrawAction::Claim => {
            let why = claim_basis(&game).map_err(|e| Refusal::ClaimRefused(format!("no draw: {e}")))?;
            clear_offer(&mut game.text);
            finish(&mut game, "1/2-1/2", Some(format!("Draw claimed by {side_name}: {why}.")));
            (format!("{side_name} claims a draw ({why})"), Some("1/2-1/2".to_string()))
        }
    };
    Ok(recorded(game, side, name, result, summary))
}

/// Why a draw may be claimed now (rulings §1.3): the position has occurred three times
/// with the same side to move and the same pieces off the board, or 100 plies have passed
/// without a capture, promotion, drop or pawn-type move.
///
/// # Errors
/// Why not, with the counts.
pub fn claim_basis(game: &Game) -> Result<String, String> {
    // The game's own count of the final position (no replay when it is as loaded).
    let seen = game.repetitions();
    if seen >= 3 {
        return Ok(format!("the position has occurred {seen} times"));
    }
    let clock = game.position().halfmove_clock();
    if clock >= 100 {
        return Ok(format!("{clock} plies without a capture, promotion, drop or pawn move"));
    }
    Err(format!(
        "the position has occurred {seen} time{} (3 needed) and the ply clock is {clock} (100 needed)",
        if seen == 1 { "" } else { "s" }
    ))
}

/// Whether two replayed games record the same game: equal canonical text once diagram
/// comment lines (`;|`) are left out ([`without_diagrams`]). Games whose texts agree as
/// read (tags, comments, moves as written, result) are the same without writing either;
/// only games that differ as written are compared in canonical form.
pub fn same_game(a: &Game, b: &Game) -> bool {
    fn comments(c: &[String]) -> impl Iterator<Item = &String> {
        c.iter().filter(|c| !c.starts_with('|'))
    }
    fn same_line(x: &[MoveNode], y: &[MoveNode]) -> bool {
        x.len() == y.len()
            && x.iter().zip(y).all(|(m, n)| {
                m.token == n.token
                    && m.nags == n.nags
                    && comments(&m.comments).eq(comments(&n.comments))
                    && m.variations.len() == n.variations.len()
                    && m.variations.iter().zip(&n.variations).all(|(v, w)| same_line(v, w))
            })
    }
    let (s, t) = (&a.text, &b.text);
    let as_read = a.variant.def().slug == b.variant.def().slug
        && a.options == b.options
        && a.start == b.start
        && s.tags.len() == t.tags.len()
        && s.tags.iter().zip(&t.tags).all(|(x, y)| x.name == y.name && x.value == y.value)
        && comments(&s.leading_comments).eq(comments(&t.leading_comments))
        && s.result.as_ref().map(|r| &r.0) == t.result.as_ref().map(|r| &r.0)
        && same_line(&s.moves, &t.moves);
    as_read || without_diagrams(a) == without_diagrams(b)
}

/// Whether two game file texts record the same game: equal canonical text once diagram
/// comment lines (`;|`) are left out. Unreadable texts are never the same.
pub fn same_record(a: &str, b: &str) -> bool {
    match (load(a), load(b)) {
        (Ok(x), Ok(y)) => without_diagrams(&x) == without_diagrams(&y),
        _ => false,
    }
}

/// The canonical text of `game` without diagram comment lines (`;|`): what step checks
/// compare.
pub fn without_diagrams(game: &Game) -> String {
    let mut g = game.clone();
    let keep = |c: &String| !c.starts_with('|');
    g.text.leading_comments.retain(keep);
    for m in &mut g.text.moves {
        m.comments.retain(keep);
    }
    g.canonical_text()
}

/// Which recorded action turns the game `g0` into `new` (whose canonical text it must give
/// exactly): a resignation by either player; a draw offer, acceptance, refusal or claim
/// by the player to move; a time-forfeit claim (its reason as written; whether the
/// deadline really passed is judged from the recorded times by the archive layer); or
/// booked leave.
pub fn recognise_action(g0: &Game, new: &Game) -> Option<Applied> {
    recognise(g0, new).map(|(_, a)| a)
}

/// A recorded action, as [`recognise_action`] finds it, to take again on another game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// The player named resigns.
    Resign(String),
    /// The player named offers, accepts, declines or claims a draw.
    Draw(String, DrawAction),
    /// A time-forfeit claim, with whose deadline passed when.
    TimeForfeit(String),
    /// The player named books leave: from (Unix seconds), days.
    Leave(String, i64, u32),
}

impl Action {
    fn take(&self, game: &Game) -> Result<(Applied, Game), Refusal> {
        match self {
            Action::Resign(who) => resign(game, Some(who)),
            Action::Draw(who, action) => draw(game, Some(who), *action),
            Action::TimeForfeit(why) => time_forfeit(game, None, why),
            Action::Leave(who, from, days) => book_leave(game, who, *from, *days),
        }
    }
}

/// [`recognise_action`], with the action it found (typed: what the step was).
pub fn recognise_step(g0: &Game, new: &Game) -> Option<(Action, Applied)> {
    recognise(g0, new)
}

/// [`recognise_action`], with the action it found.
fn recognise(g0: &Game, new: &Game) -> Option<(Action, Applied)> {
    let target = without_diagrams(new);
    let mut tries: Vec<Action> = Side::ALL.into_iter().map(|s| Action::Resign(player(g0, s))).collect();
    let to_move = player(g0, g0.position().side_to_move());
    for action in [DrawAction::Offer, DrawAction::Accept, DrawAction::Decline, DrawAction::Claim] {
        tries.push(Action::Draw(to_move.clone(), action));
    }
    let last_comments = match new.text.moves.last() {
        Some(m) => &m.comments,
        None => &new.text.leading_comments,
    };
    for c in last_comments {
        if let Some(why) = c.strip_prefix("Time forfeit: ").and_then(|r| r.rsplit_once("; claimed by ")) {
            tries.push(Action::TimeForfeit(why.0.to_string()));
        }
        if let Some((who, from, days)) = parse_leave(c) {
            let days = u32::try_from(days).ok()?;
            tries.push(Action::Leave(who, from, days));
        }
    }
    // Each try's game is what its text replays to: compared as written, without diagrams.
    // (A draw action is the player to move's, whoever that is: not looked up by name.)
    let take = |action: &Action| match action {
        Action::Draw(_, a) => draw(g0, None, *a),
        other => other.take(g0),
    };
    tries.into_iter().find_map(|action| match take(&action) {
        Ok((a, g)) if without_diagrams(&g) == target => Some((action, a)),
        _ => None,
    })
}

/// A recorded action that crossed another step, taken again after it: the action that
/// turned `g0` into `new` (a resignation, a draw offer, answer or claim, or booked leave,
/// as [`recognise_action`] finds it) taken by the same player on `onto`, the game as the
/// other step left it, and judged there as a new one (a claim needs its grounds on the new
/// position, an answer the offer, an offer or claim the player's turn). `None` when `g0`
/// to `new` is no such action (a move, a time-forfeit claim, whose clock the other step
/// changed, or any other change).
///
/// # Errors
/// [`Refusal`]: the action no longer holds on `onto`.
pub fn retake_action(g0: &Game, new: &Game, onto: &Game) -> Option<Result<(Applied, Game), Refusal>> {
    if new.moves.len() != g0.moves.len() {
        return None;
    }
    match recognise(g0, new)? {
        (Action::TimeForfeit(_), _) => None,
        (action, _) => Some(action.take(onto)),
    }
}

/// The comment that records booked leave: `ravenpost: leave NAME FROM DAYSd`, `FROM` an
/// RFC 3339 UTC time. A player's clock does not run during their leave.
pub const LEAVE_PREFIX: &str = "ravenpost: leave ";

/// Reads one leave comment: (player, start in Unix seconds, days).
fn parse_leave(comment: &str) -> Option<(String, i64, i64)> {
    let rest = comment.strip_prefix(LEAVE_PREFIX)?;
    let mut parts = rest.rsplitn(3, ' ');
    let days: i64 = parts.next()?.strip_suffix('d')?.parse().ok()?;
    let from = chrono::DateTime::parse_from_rfc3339(parts.next()?).ok()?.timestamp();
    let name = parts.next()?.to_string();
    Some((name, from, days))
}

/// Every leave booked in the game: (player, start, end), Unix seconds.
pub fn leaves(game: &Game) -> Vec<(String, i64, i64)> {
    let all = game.text.leading_comments.iter().chain(game.text.moves.iter().flat_map(|m| m.comments.iter()));
    all.filter_map(|c| parse_leave(c))
        .map(|(name, from, days)| (name, from, from.saturating_add(days.saturating_mul(86_400))))
        .collect()
}

/// The most leave days a player may book in one game (the project's rule, after ICCF's
/// 45 days a year; README "Time control").
pub const MAX_LEAVE_DAYS: i64 = 45;

/// Books `days` days of leave for `who` (a player of the game) from `from` (Unix seconds).
/// Returns the change and the game after it (its canonical text is the change's text).
///
/// # Errors
/// [`Refusal`]: invalid file, game over, not a player, or `days` is 0.
pub fn book_leave(game: &Game, who: &str, from: i64, days: u32) -> Result<(Applied, Game), Refusal> {
    let mut game = game.clone();
    ensure_going(&game)?;
    let side = side_of(&game, who)?;
    if days == 0 {
        return Err(Refusal::LeaveRefused("leave must be at least one day".into()));
    }
    let booked: i64 =
        leaves(&game).iter().filter(|(p, _, _)| p == who).map(|(_, a, b)| (b - a) / 86_400).sum();
    if booked + i64::from(days) > MAX_LEAVE_DAYS {
        let plural = |n: i64| if n == 1 { "" } else { "s" };
        return Err(Refusal::LeaveRefused(format!(
            "{days} day{} requested, but {who} has booked {booked} day{} of leave in this game already, and \
             {} would make {}: at most {MAX_LEAVE_DAYS} in all ({} day{} left to book)",
            plural(days.into()),
            plural(booked),
            if booked == 0 { "these" } else { "the two" },
            booked + i64::from(days),
            (MAX_LEAVE_DAYS - booked).max(0),
            plural((MAX_LEAVE_DAYS - booked).max(0)),
        )));
    }
    let start = chrono::DateTime::from_timestamp(from, 0)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    add_comment(&mut game.text, format!("{LEAVE_PREFIX}{who} {start} {days}d"));
    let side_name = game.variant.def().side_name(side).to_string();
    Ok(recorded(
        game,
        side,
        who.to_string(),
        None,
        format!(
            "{who} ({side_name}) books {days} day{} of leave from {start}",
            if days == 1 { "" } else { "s" }
        ),
    ))
}

/// Ends the game on time in favour of the player not to move, `claimant`; `why` says
/// whose deadline passed when (the caller has checked it from the recorded times).
/// Returns the change and the game after it (its canonical text is the change's text).
///
/// # Errors
/// [`Refusal`]: invalid file, game over, or `claimant` is not the player waiting.
pub fn time_forfeit(game: &Game, claimant: Option<&str>, why: &str) -> Result<(Applied, Game), Refusal> {
    let mut game = game.clone();
    ensure_going(&game)?;
    let loser = game.position().side_to_move();
    let winner = loser.opponent();
    let name = player(&game, winner);
    if let Some(c) = claimant
        && c != name
    {
        return Err(Refusal::ClaimRefused(format!(
            "only {name}, who is waiting for a move, can claim on time"
        )));
    }
    let r = if winner == Side::White { "1-0" } else { "0-1" };
    finish(&mut game, r, Some(format!("Time forfeit: {why}; claimed by {name}.")));
    game.text.set_tag("Termination", "time forfeit");
    let side_name = game.variant.def().side_name(winner).to_string();
    Ok(recorded(game, winner, name, Some(r.into()), format!("{side_name} wins on time")))
}

/// Ends the game with `result` (`1-0`, `0-1` or `1/2-1/2`) by a decision outside the
/// moves (a match's adjudication, an engine's illegal move): `termination` is the
/// `Termination` tag's value (one of PGN's, movetext.md) and `why` the comment after the
/// last move.
///
/// # Errors
/// [`Refusal::Over`]: the game is over already.
pub fn end_by_decision(game: &Game, result: &str, termination: &str, why: &str) -> Result<Game, Refusal> {
    let mut game = game.clone();
    ensure_going(&game)?;
    clear_offer(&mut game.text);
    finish(&mut game, result, Some(why.to_string()));
    game.text.set_tag("Termination", termination);
    Ok(game)
}

/// A game file with these tag pairs and no moves, in canonical PGN layout (not checked:
/// [`load`] it to know it makes a game).
pub fn game_text_from_tags(tags: &[(String, String)]) -> String {
    let text = GameText {
        tags: tags
            .iter()
            .map(|(k, v)| crate::notation::pgn::TagPair {
                name: k.clone(),
                value: v.clone(),
                span: Default::default(),
            })
            .collect(),
        ..GameText::default()
    };
    crate::notation::pgn::write_game(&text, 1, true)
}
