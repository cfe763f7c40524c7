//! Games: a [`GameText`] replayed against the rules of its variant.
//!
//! [`replay`] checks the tags, every move of the main line and of every variation, and
//! the result token, and gives either the replayed [`Game`] or the [`Problem`]s found,
//! each with its line and column. [`Game::canonical_text`] writes the game back in the
//! one canonical form (`notation-spec/movetext.md` §4).
//!
//! Every step is linear in the number of plies: each main-line move is resolved once,
//! against the position before it, and a [`Game`] keeps what that replay saw (its final
//! position, one position every [`CHECKPOINT_PLIES`] plies, and how often each position
//! occurred), so [`Game::position`] and [`Game::repetitions`] take constant time and
//! [`Game::position_at`] at most [`CHECKPOINT_PLIES`] moves. A [`super::Loader`] told
//! of the previous version's [`Game`] replays the next version of a game file from it,
//! resolving only the plies the new text adds.

use std::collections::HashMap;
use std::sync::Arc;

use crate::engine::{Move, Outcome, Position, Side, Variant};
use crate::variants;

use crate::notation::pgn::{GameText, MoveNode, Span, write_game};
use crate::notation::position_string::{parse_position, write_position};
use crate::notation::san::{read_move, write_move};

/// The rule set this version of ravenpost plays (`Ruleset` tag).
pub const RULESET: &str = "ravenpost-1";

/// One problem found in a game: where, the offending text, what is wrong, and a hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where it is.
    pub span: Span,
    /// The offending token or tag.
    pub token: String,
    /// What is wrong.
    pub message: String,
    /// What would be right, if known.
    pub help: Option<String>,
}

/// How many plies apart a [`Game`] keeps positions of its main line, so that
/// [`Game::position_at`] plays at most this many moves.
pub const CHECKPOINT_PLIES: usize = 64;

/// A replayed game.
///
/// Besides its public fields it keeps what replaying the main line saw (see the module
/// docs). That record stays right when `moves` is only extended or truncated (as
/// [`crate::record`]'s edits do): the positions after the kept plies are made from the
/// last kept one. A game whose earlier moves were changed in place must be replayed.
///
/// Two games are equal (`==`) when their variant definitions, texts, start positions,
/// moves, outcomes, options and replay records are.
#[derive(Clone, Debug)]
pub struct Game {
    /// Its variant, with the game's options.
    pub variant: Arc<Variant>,
    /// The text it was read from.
    pub text: GameText,
    /// The start position.
    pub start: Position,
    /// The main line's moves.
    pub moves: Vec<Move>,
    /// The game's end by the rules in the final position, if it has ended so.
    pub outcome: Option<Outcome>,
    /// The game options the variant was built with (from `GameOptions`, the army tags
    /// and the FEN's army fields).
    pub options: Vec<(String, String)>,
    /// What the replay of the main line saw.
    line: LineRecord,
}

impl PartialEq for Game {
    fn eq(&self, other: &Game) -> bool {
        self.variant.def() == other.variant.def()
            && self.text == other.text
            && self.start == other.start
            && self.moves == other.moves
            && self.outcome == other.outcome
            && self.options == other.options
            && self.line == other.line
    }
}

/// What replaying a main line saw: checkpoints, the final position, and how often each
/// position occurred. Built one ply at a time ([`LineRecord::push`]).
#[derive(Clone, PartialEq, Eq)]
struct LineRecord {
    /// The number of plies recorded: `moves[..plies]` of the game as it was replayed.
    plies: usize,
    /// The position after ply `i * CHECKPOINT_PLIES`, for each such ply up to `plies`
    /// (the first is the start position).
    checkpoints: Vec<Position>,
    /// The position after ply `plies`.
    end: Position,
    /// How many times each position (by [`Position::hash`]) occurred after plies
    /// `0..=plies`.
    seen: HashMap<u64, u32>,
    /// Each ply's token as read, and as [`crate::notation::san::write_move`] writes its
    /// move (found with the move, from the same generation of moves): the canonical text
    /// is written from these, without reading the moves again.
    tokens: Vec<(String, String)>,
}

impl std::fmt::Debug for LineRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineRecord")
            .field("plies", &self.plies)
            .field("checkpoints", &self.checkpoints.len())
            .field("positions", &self.seen.len())
            .finish()
    }
}

impl LineRecord {
    /// The record of a line that has not moved yet.
    fn new(start: &Position) -> LineRecord {
        LineRecord {
            plies: 0,
            checkpoints: vec![start.clone()],
            end: start.clone(),
            seen: HashMap::from([(start.hash(), 1)]),
            tokens: Vec::new(),
        }
    }

    /// Records one more ply, read as `read` and written as `written`, after which the
    /// position is `after`.
    fn push(&mut self, after: Position, read: &str, written: String) {
        self.plies += 1;
        self.tokens.push((read.to_string(), written));
        *self.seen.entry(after.hash()).or_insert(0) += 1;
        if self.plies.is_multiple_of(CHECKPOINT_PLIES) {
            self.checkpoints.push(after.clone());
        }
        self.end = after;
    }
}

impl Game {
    /// The position after the first `ply` moves (clamped to the game's length): made
    /// from the nearest recorded position, at most [`CHECKPOINT_PLIES`] moves back
    /// (moves appended after the replay are made from its final position).
    pub fn position_at(&self, ply: usize) -> Position {
        let ply = ply.min(self.moves.len());
        let line = &self.line;
        let (mut p, from) = if ply >= line.plies {
            (line.end.clone(), line.plies)
        } else {
            let i = ply / CHECKPOINT_PLIES;
            (line.checkpoints[i].clone(), i * CHECKPOINT_PLIES)
        };
        for m in &self.moves[from..ply] {
            p = self.variant.make(&p, m);
        }
        p
    }

    /// The final position.
    pub fn position(&self) -> Position {
        self.position_at(self.moves.len())
    }

    /// How many times the final position has occurred in the main line (counting the
    /// start and the final position; positions are the same when their
    /// [`Position::hash`] is: same pieces on the same squares, same side to move, same
    /// pieces off the board, same rights). Constant time for the game as replayed;
    /// moves pushed or truncated since are counted by playing the line again.
    pub fn repetitions(&self) -> usize {
        if self.moves.len() == self.line.plies {
            return self.line.seen.get(&self.line.end.hash()).map_or(0, |n| *n as usize);
        }
        let mut p = self.start.clone();
        let mut hashes = vec![p.hash()];
        for m in &self.moves {
            p = self.variant.make(&p, m);
            hashes.push(p.hash());
        }
        hashes.iter().filter(|h| **h == p.hash()).count()
    }

    /// The result token the rules give for the final position, if the game is over.
    pub fn rules_result(&self) -> Option<&'static str> {
        self.outcome.map(result_token)
    }

    /// The game in canonical form: the Seven Tag Roster filled in, tags in canonical
    /// order, the variant's canonical name, `Ruleset`, `SetUp`/`FEN` only for a
    /// non-standard start, canonical move tokens, canonical layout.
    pub fn canonical_text(&self) -> String {
        let mut t = self.text.clone();
        for (name, default) in [
            ("Event", "?"),
            ("Site", "?"),
            ("Date", "????.??.??"),
            ("Round", "?"),
            ("White", "?"),
            ("Black", "?"),
        ] {
            if t.tag(name).is_none() {
                t.set_tag(name, default);
            }
        }
        let result = t.result.as_ref().map(|r| r.0.clone()).unwrap_or_else(|| "*".to_string());
        t.set_tag("Result", result);
        t.set_tag("Variant", self.variant.def().slug.clone());
        if self.variant.def().slug == "fantasy-grand" {
            // The armies always go in their tags, so a FEN dropped for a standard start
            // cannot take them along (movetext.md, "WhiteArmy / BlackArmy").
            for (tag, key) in [("WhiteArmy", "army-white"), ("BlackArmy", "army-black")] {
                let army =
                    self.options.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()).unwrap_or("humans");
                t.set_tag(tag, variants::army_name(army).unwrap_or(army));
            }
        }
        t.set_tag("Ruleset", RULESET);
        let standard = self.variant.start_position();
        if self.start == standard {
            t.remove_tag("SetUp");
            t.remove_tag("FEN");
        } else {
            t.set_tag("SetUp", "1");
            t.set_tag("FEN", write_position(&self.variant, &self.start));
        }
        if let Some(tc) = t.tag("TimeControl").and_then(|v| crate::notation::time_control::parse(v).ok()) {
            t.set_tag("TimeControl", crate::notation::time_control::write(&tc));
        }
        if let Some(term) = t.tag("Termination").map(str::to_ascii_lowercase) {
            t.set_tag("Termination", &term);
        }
        if let Some(opts) = t.tag("GameOptions").map(str::to_string) {
            let canon = canonical_options(&self.variant, &opts);
            if canon.is_empty() {
                t.remove_tag("GameOptions");
            } else {
                t.set_tag("GameOptions", canon);
            }
        }
        self.canonical_moves(&mut t.moves);
        write_game(&t, self.start.fullmove_number() as u32, self.start.side_to_move() == Side::White)
    }
}

impl Game {
    /// The token ravenpost writes for main-line move `ply` (0-based), as the replay found
    /// it with the move; `None` past the plies replayed.
    pub fn written_token(&self, ply: usize) -> Option<&str> {
        self.line.tokens.get(ply).map(|(_, written)| written.as_str())
    }

    /// Rewrites the tokens of `moves` (this game's main line as [`Game::text`] holds it,
    /// moves pushed since the replay included) as [`canonical_line`] does: the plies the
    /// replay read, from the same tokens and without variations, take the tokens it wrote
    /// with their moves; the rest is read again from the position there.
    fn canonical_moves(&self, moves: &mut [MoveNode]) {
        let line = &self.line;
        let replayed = line.plies.min(self.moves.len()).min(moves.len());
        let same = moves[..replayed]
            .iter()
            .zip(&line.tokens)
            .take_while(|(node, (read, _))| node.variations.is_empty() && node.token == *read)
            .count();
        for (node, (_, written)) in moves[..same].iter_mut().zip(&line.tokens) {
            node.token.clone_from(written);
        }
        canonical_line(&self.variant, &self.position_at(same), &mut moves[same..]);
    }
}

fn canonical_options(v: &Variant, text: &str) -> String {
    let defaults = variants::options_of(&v.def().slug);
    let mut items: Vec<(String, String)> = parse_options(text).unwrap_or_default();
    items.retain(|(k, val)| !defaults.iter().any(|(n, vals)| n == k && vals.first() == Some(&val.as_str())));
    items.sort();
    items.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
}

/// Rewrites the tokens of `moves` (a line legal from `start`) and its variations.
fn canonical_line(v: &Variant, start: &Position, moves: &mut [MoveNode]) {
    let mut p = start.clone();
    for node in moves.iter_mut() {
        for var in node.variations.iter_mut() {
            canonical_line(v, &p, var);
        }
        match read_move(v, &p, &node.token) {
            Ok(m) => {
                node.token = write_move(v, &p, &m);
                p = v.make(&p, &m);
            }
            Err(_) => return,
        }
    }
}

/// The result token of an outcome.
pub fn result_token(o: Outcome) -> &'static str {
    match o {
        Outcome::Win { winner: Side::White, .. } => "1-0",
        Outcome::Win { winner: Side::Black, .. } => "0-1",
        Outcome::Draw { .. } => "1/2-1/2",
    }
}

/// Whether `s` is an OpenSSH public key line (`ssh-ed25519 AAAA… [comment]`, also
/// `ecdsa-…` and `sk-…` kinds), as the signing-key tags hold one.
pub fn is_public_key(s: &str) -> bool {
    let mut parts = s.split_whitespace();
    let (Some(kind), Some(blob)) = (parts.next(), parts.next()) else { return false };
    (kind.starts_with("ssh-") || kind.starts_with("ecdsa-") || kind.starts_with("sk-"))
        && blob.len() >= 16
        && blob.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=')
}

/// The values of the `Termination` tag (PGN's), in lower case (movetext.md, "Termination").
pub const TERMINATIONS: &[&str] =
    &["normal", "time forfeit", "abandoned", "adjudication", "rules infraction", "emergency", "unterminated"];

/// Checks a `Date` value: `YYYY.MM.DD`, each part digits or all `?`; a fully known date
/// must exist in the calendar (movetext.md, Seven Tag Roster).
///
/// # Errors
/// What is wrong, in one sentence.
pub fn check_date(d: &str) -> Result<(), String> {
    let parts: Vec<&str> = d.split('.').collect();
    let shape = parts.len() == 3
        && [4, 2, 2].iter().zip(&parts).all(|(n, p)| {
            p.len() == *n && (p.bytes().all(|b| b.is_ascii_digit()) || p.bytes().all(|b| b == b'?'))
        });
    if !shape {
        return Err(format!("Date `{d}` is not YYYY.MM.DD"));
    }
    if parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit())) {
        let [y, m, dd] = [parts[0], parts[1], parts[2]].map(|p| p.parse::<u32>().unwrap_or(0));
        if chrono::NaiveDate::from_ymd_opt(y as i32, m, dd).is_none() {
            return Err(format!("Date `{d}` is not a day of the calendar"));
        }
    } else if parts[1].bytes().all(|b| b.is_ascii_digit())
        && !(1..=12).contains(&parts[1].parse::<u32>().unwrap_or(0))
    {
        return Err(format!("Date `{d}`: there is no month {}", parts[1]));
    }
    Ok(())
}

/// Reads a `GameOptions` value: `name=value` items separated by white space.
///
/// # Errors
/// The item that is not `name=value`, or a name given twice.
pub fn parse_options(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    for item in text.split_whitespace() {
        let (k, v) = item.split_once('=').ok_or_else(|| format!("`{item}` is not name=value"))?;
        if out.iter().any(|(n, _)| n == k) {
            return Err(format!("option `{k}` given twice"));
        }
        out.push((k.to_string(), v.to_string()));
    }
    Ok(out)
}

impl From<crate::notation::pgn::SyntaxError> for Problem {
    fn from(e: crate::notation::pgn::SyntaxError) -> Problem {
        Problem {
            span: Span { line: e.line, column: e.column },
            token: e.token,
            message: e.reason,
            help: None,
        }
    }
}

fn problem(span: Span, token: &str, message: impl Into<String>, help: Option<String>) -> Problem {
    Problem { span, token: token.to_string(), message: message.into(), help }
}

/// Replays `text`: checks its tags, every move (variations too) and its result.
///
/// # Errors
/// The problems found: the tag problems, then the first illegal move of the main line
/// (later moves cannot be judged) and of each variation, then a result that contradicts
/// the final position.
pub fn replay(text: GameText) -> Result<Game, Vec<Problem>> {
    replay_with(text, None, 0, None)
}

/// Replays `text`, the next version of the game `prev` was replayed from, reusing
/// `prev`: when `text` has the same tags (names and values, in order) and its first
/// `prev.moves.len()` main-line tokens are those of `prev.text`, those plies are taken
/// from `prev` and only the plies after them are resolved, from [`Game::position`] of
/// `prev`; otherwise (or when `prev`'s moves were edited since its replay) this is
/// [`replay`]. Either way the answer is exactly [`replay`]'s: the same [`Game`] (`==`)
/// or the same problems. Everything else (tags, move times, variations, the result) is
/// checked on `text` as [`replay`] does. A `text` whose first `shared` main-line moves
/// were read from the same bytes as `prev.text`'s
/// ([`crate::notation::pgn::read_continuation`]): their move times, checked when `prev`
/// was replayed, are not checked again. A pinned user variant is taken from
/// `definitions`.
///
/// For judging one commit of a game file from the version before it without replaying
/// the game from its first ply.
///
/// # Errors
/// As [`replay`].
pub(super) fn replay_after(
    prev: &Game,
    text: GameText,
    shared: usize,
    definitions: Option<&variants::Definitions>,
) -> Result<Game, Vec<Problem>> {
    let reuse = continues(prev, &text);
    let shared = if reuse { shared.min(prev.moves.len()) } else { 0 };
    replay_with(text, reuse.then_some(prev), shared, definitions)
}

/// Whether `text` continues `prev`: the same tags (names and values, in order), and its
/// first `prev.moves.len()` main-line tokens are those `prev` was replayed from (and its
/// moves have not been pushed or truncated since).
fn continues(prev: &Game, text: &GameText) -> bool {
    let k = prev.moves.len();
    let same_tags = prev.text.tags.len() == text.tags.len()
        && prev.text.tags.iter().zip(&text.tags).all(|(a, b)| a.name == b.name && a.value == b.value);
    same_tags
        && prev.line.plies == k
        && prev.text.moves.len() >= k
        && text.moves.len() >= k
        && prev.text.moves[..k].iter().zip(&text.moves[..k]).all(|(a, b)| a.token == b.token)
}

/// [`replay`], taking the variant and the first `prev.moves.len()` plies from `prev`
/// when given (the caller has checked that `text` has `prev`'s tags and those tokens).
/// The move times of the first `checked` main-line moves (the same as `prev.text`'s, which
/// replayed without problems) are not checked again. A pinned user variant is taken from
/// `definitions`.
pub(super) fn replay_with(
    text: GameText,
    prev: Option<&Game>,
    checked: usize,
    definitions: Option<&variants::Definitions>,
) -> Result<Game, Vec<Problem>> {
    let setup = set_up(&text, prev, definitions).map_err(|p| vec![p])?;
    let mut problems = setup.first;
    // Move times (movetext.md, "Move times"): readable, one per ply, never going back.
    let checked = if prev.is_some() { checked.min(text.moves.len()) } else { 0 };
    // The last time among the moves not checked again: where the check goes on from.
    let mut times = MoveTimes { last: super::last_timed(&text.moves[..checked]) };
    for (i, m) in text.moves.iter().enumerate().skip(checked) {
        times.check(i, m, &mut problems);
    }
    problems.extend(setup.then);
    let Some((variant, start, options)) = setup.built else { return Err(problems) };
    if let Some(p) = result_differs(&text) {
        problems.push(p);
    }
    let (mut moves, mut line) = match prev {
        Some(g) => {
            // The plies `g` resolved from the same tokens: only their variations are new.
            for (i, node) in text.moves[..g.moves.len()].iter().enumerate() {
                if !node.variations.is_empty() {
                    check_variations(&variant, &g.position_at(i), node, &mut problems);
                }
            }
            (g.moves.clone(), g.line.clone())
        }
        None => (Vec::new(), LineRecord::new(&start)),
    };
    let mut p = line.end.clone();
    let mut line_ok = true;
    for node in &text.moves[moves.len()..] {
        check_variations(&variant, &p, node, &mut problems);
        match crate::notation::san::read_move_written(&variant, &p, &node.token) {
            Ok((m, token)) => {
                moves.push(m);
                p = variant.make(&p, &m);
                line.push(p.clone(), &node.token, token);
            }
            Err(e) => {
                problems.push(main_line_problem(&variant, &p, node, &e));
                line_ok = false;
                break;
            }
        }
    }
    let outcome = if line_ok { variant.outcome(&p) } else { None };
    if line_ok && let Some(o) = outcome {
        problems.extend(result_contradicts(&variant, o, &text));
    }
    if let Some(extra) = text.moves.get(moves.len())
        && line_ok
        && outcome.is_some()
    {
        problems.push(problem(extra.span, &extra.token, "a move after the end of the game", None));
    }
    if problems.is_empty() {
        Ok(Game { variant, text, start, moves, outcome, options, line })
    } else {
        Err(problems)
    }
}

/// A game set up from its tags: its variant, start position and game options.
type Built = (Arc<Variant>, Position, Vec<(String, String)>);

/// What a game's tags say, checked ([`set_up`]).
struct Setup {
    /// The problems of the `Ruleset`, `TimeControl` and signing-key tags: reported
    /// before those of the move times.
    first: Vec<Problem>,
    /// The problems of `Date`, `Termination`, `GameOptions`, the variant and the start
    /// position: reported after the move times.
    then: Vec<Problem>,
    /// The variant, the start position and the game options; `None` when the game cannot
    /// be set up (`then` ends with why).
    built: Option<Built>,
}

/// Checks `text`'s tags and sets up its variant and start position (the variant taken
/// from `prev` when given: the same tags build the same variant; a pinned user variant
/// from `definitions`).
///
/// # Errors
/// The one problem of a game without a `Variant` tag.
fn set_up(
    text: &GameText,
    prev: Option<&Game>,
    definitions: Option<&variants::Definitions>,
) -> Result<Setup, Problem> {
    let mut first = Vec::new();
    let mut then = Vec::new();
    let tag_span =
        |name: &str| text.tags.iter().find(|t| t.name == name).map(|t| t.span).unwrap_or(text.span);
    let Some(vname) = text.tag("Variant") else {
        return Err(problem(
            text.span,
            "",
            "no Variant tag: a game file must say which game it is",
            Some(format!("add e.g. [Variant \"gygax\"] (known: {})", variants::known_names().join(", "))),
        ));
    };
    if let Some(r) = text.tag("Ruleset")
        && r != RULESET
    {
        first.push(problem(
            tag_span("Ruleset"),
            r,
            format!("unknown rule set `{r}`"),
            Some(format!("this ravenpost plays {RULESET}")),
        ));
    }
    if let Some(tc) = text.tag("TimeControl")
        && let Err(e) = crate::notation::time_control::parse(tc)
    {
        first.push(problem(tag_span("TimeControl"), tc, e, None));
    }
    // Signing keys (README "Signed moves"): a key no move could ever be signed with is a
    // problem of the file, not of a later move.
    for tag in ["WhiteSigningKey", "BlackSigningKey"] {
        if let Some(k) = text.tag(tag)
            && !is_public_key(k)
        {
            first.push(problem(
                tag_span(tag),
                k,
                format!(
                    "{tag} is not an OpenSSH public key (expected a line like `ssh-ed25519 AAAA… comment`)"
                ),
                None,
            ));
        }
    }
    if let Some(d) = text.tag("Date")
        && let Err(e) = check_date(d)
    {
        then.push(problem(tag_span("Date"), d, e, Some("write YYYY.MM.DD, `??` for unknown parts".into())));
    }
    if let Some(t) = text.tag("Termination")
        && !TERMINATIONS.contains(&t.to_ascii_lowercase().as_str())
    {
        then.push(problem(
            tag_span("Termination"),
            t,
            format!("unknown Termination `{t}`"),
            Some(format!("one of: {}", TERMINATIONS.join(", "))),
        ));
    }
    let options = match text.tag("GameOptions").map(parse_options).transpose() {
        Ok(o) => o.unwrap_or_default(),
        Err(e) => {
            then.push(problem(tag_span("GameOptions"), "GameOptions", e, None));
            Vec::new()
        }
    };
    // Fantasy Grand Chess armies: the WhiteArmy / BlackArmy tags, else the FEN's army
    // fields (movetext.md, "WhiteArmy / BlackArmy").
    let mut options = options;
    for (tag, key) in [("WhiteArmy", "army-white"), ("BlackArmy", "army-black")] {
        if let Some(a) = text.tag(tag)
            && !options.iter().any(|(k, _)| k == key)
        {
            options.push((key.to_string(), a.to_string()));
        }
    }
    if let Some(fen) = text.tag("FEN") {
        options = variants::options_for_position(vname, &options, fen);
    }
    let unbuilt = |then| Ok(Setup { first: first.clone(), then, built: None });
    let built = match prev {
        // The same tags build the same variant.
        Some(g) => Ok(g.variant.clone()),
        // A user definition pinned by its content hash (variant-files.md §8).
        None => match (text.tag("VariantFile"), text.tag("VariantHash")) {
            (file, Some(hash)) => match definitions {
                Some(d) => d.variant(vname, file.unwrap_or("?"), hash, &options),
                None => Err(variants::VariantError::NotLoaded {
                    file: file.unwrap_or("?").to_string(),
                    hash: hash.to_string(),
                }),
            },
            (Some(file), None) => {
                then.push(problem(
                    tag_span("VariantFile"),
                    file,
                    format!("VariantFile `{file}` without a VariantHash tag"),
                    Some("a game pins its definition: add [VariantHash \"sha256:…\"]".into()),
                ));
                return unbuilt(then);
            }
            (None, None) => variants::by_name(vname, &options),
        },
    };
    let variant = match built {
        Ok(v) => v,
        Err(e) => {
            then.push(problem(tag_span("Variant"), vname, e.to_string(), None));
            return unbuilt(then);
        }
    };
    let start = match (text.tag("FEN"), text.tag("SetUp")) {
        (Some(fen), _) => match parse_position(&variant, fen) {
            Ok(p) => p,
            Err(e) => {
                then.push(problem(tag_span("FEN"), fen, format!("FEN: {e}"), None));
                return unbuilt(then);
            }
        },
        (None, Some("1")) => {
            then.push(problem(tag_span("SetUp"), "SetUp", "SetUp \"1\" without a FEN tag", None));
            variant.start_position()
        }
        _ => variant.start_position(),
    };
    Ok(Setup { first, then, built: Some((variant, start, options)) })
}

/// The check of the move times (movetext.md, "Move times"): readable, one per ply, never
/// going back. Takes the main-line moves in order.
struct MoveTimes {
    /// The last move time so far, and its ply.
    last: Option<(i64, usize)>,
}

impl MoveTimes {
    /// Checks the time of main-line move `m`, the `i`th (from 0).
    fn check(&mut self, i: usize, m: &MoveNode, problems: &mut Vec<Problem>) {
        let times: Vec<&str> = m.comments.iter().filter_map(|c| c.strip_prefix(super::TIME_PREFIX)).collect();
        if times.len() > 1 {
            problems.push(problem(
                m.span,
                &m.token,
                format!("ply {} has {} move times", i + 1, times.len()),
                None,
            ));
        }
        let Some(t) = times.first() else { return };
        match chrono::DateTime::parse_from_rfc3339(t.trim()) {
            Err(e) => problems.push(problem(
                m.span,
                &m.token,
                format!("ply {}: the move time `{t}` is not an RFC 3339 time ({e})", i + 1),
                Some("write {ravenpost: at 2026-11-29T16:40:00Z}".into()),
            )),
            Ok(at) => {
                let at = at.timestamp();
                if let Some((before, ply)) = self.last
                    && at < before
                {
                    problems.push(problem(
                        m.span,
                        &m.token,
                        format!("ply {}: the move time `{t}` is before ply {ply}'s", i + 1),
                        None,
                    ));
                }
                self.last = Some((at, i + 1));
            }
        }
    }
}

/// The problem of a result token that differs from the `Result` tag, if it does.
fn result_differs(text: &GameText) -> Option<Problem> {
    let (Some(tag_result), Some((token, span))) = (text.tag("Result"), &text.result) else { return None };
    (tag_result != token).then(|| {
        problem(
            *span,
            token,
            format!("the result token `{token}` differs from the Result tag `{tag_result}`"),
            None,
        )
    })
}

/// The problem of main-line move `node`, which cannot be played in `p`: a move after the
/// game's end, or [`move_problem`]'s.
fn main_line_problem(
    v: &Variant,
    p: &Position,
    node: &MoveNode,
    e: &crate::notation::san::SanError,
) -> Problem {
    match v.outcome(p) {
        Some(o) => problem(
            node.span,
            &node.token,
            format!("`{}`: a move after the end of the game ({})", node.token, describe(v, o)),
            Some(format!("the game ended; the result is {}", result_token(o))),
        ),
        None => move_problem(v, p, node, e),
    }
}

/// The problem of a result that contradicts the end the rules gave the game, if it does.
fn result_contradicts(v: &Variant, o: Outcome, text: &GameText) -> Option<Problem> {
    let want = result_token(o);
    let (token, span) = text.result.clone().unwrap_or(("(none)".into(), text.span));
    (token != want).then(|| {
        let who = describe(v, o);
        problem(
            span,
            &token,
            format!("the game is over ({who}) but the result is `{token}`"),
            Some(format!("the result is {want}")),
        )
    })
}

/// Judges one game as [`crate::notation::pgn::GameReader::next_streamed`] reads it,
/// finding exactly the problems [`replay`] finds in the same text, without keeping its
/// moves or positions: only the position after the last ply and the problems. For
/// `validate`, so that its memory follows the longest move, not the longest game.
/// Judging the main line stops at the first ply that fails. A pinned user variant is
/// taken from the definitions given ([`Judging::new`]).
#[derive(Default)]
pub struct Judging<'a> {
    /// The user definitions a pinned game may use.
    definitions: Option<&'a variants::Definitions>,
    /// The game set up from its tags (`Err`: the game has no `Variant` tag).
    setup: Option<Result<Setup, Problem>>,
    /// The problems of the move times.
    times: Vec<Problem>,
    /// The problems of the main line and its variations, in order.
    moves: Vec<Problem>,
    check_times: Option<MoveTimes>,
    /// The main-line moves read so far.
    read: usize,
    /// The position after the last ply, while the main line is legal.
    position: Option<Position>,
}

impl crate::notation::pgn::MoveSink for Judging<'_> {
    fn tags(&mut self, game: &GameText) {
        let setup = set_up(game, None, self.definitions);
        self.position = setup.as_ref().ok().and_then(|s| s.built.as_ref()).map(|(_, start, _)| start.clone());
        self.setup = Some(setup);
        self.check_times = Some(MoveTimes { last: None });
    }

    fn main_move(&mut self, node: MoveNode) {
        let i = self.read;
        self.read += 1;
        if let Some(t) = self.check_times.as_mut() {
            t.check(i, &node, &mut self.times);
        }
        let Some(Ok(Setup { built: Some((v, _, _)), .. })) = &self.setup else { return };
        let Some(p) = self.position.as_mut() else { return };
        check_variations(v, p, &node, &mut self.moves);
        match read_move(v, p, &node.token) {
            Ok(m) => *p = v.make(p, &m),
            Err(e) => {
                self.moves.push(main_line_problem(v, p, &node, &e));
                self.position = None;
            }
        }
    }
}

impl<'a> Judging<'a> {
    /// Judging a game whose pinned user variant, if any, is in `definitions`.
    pub fn new(definitions: &'a variants::Definitions) -> Judging<'a> {
        Judging { definitions: Some(definitions), ..Judging::default() }
    }

    /// The verdict on the game `text` (as the reader gave it: its result, without its
    /// moves): the number of its plies, or the problems [`replay`] finds, in its order.
    ///
    /// # Errors
    /// The problems.
    pub fn finish(self, text: &GameText) -> Result<usize, Vec<Problem>> {
        let setup = match self.setup {
            Some(s) => s,
            None => set_up(text, None, self.definitions),
        };
        let setup = setup.map_err(|p| vec![p])?;
        let mut problems = setup.first;
        problems.extend(self.times);
        problems.extend(setup.then);
        let Some((variant, _, _)) = setup.built else { return Err(problems) };
        problems.extend(result_differs(text));
        problems.extend(self.moves);
        if let Some(p) = &self.position
            && let Some(o) = variant.outcome(p)
        {
            problems.extend(result_contradicts(&variant, o, text));
        }
        if problems.is_empty() { Ok(self.read) } else { Err(problems) }
    }
}

/// "Gold wins by checkmate", "a draw by stalemate".
fn describe(v: &Variant, o: Outcome) -> String {
    match o {
        Outcome::Win { winner, reason } => format!("{} wins by {reason}", v.def().side_name(winner)),
        Outcome::Draw { reason } => format!("a draw by {reason}"),
    }
}

/// The problem of a move token `node` that cannot be played in `p` (illegal, ambiguous,
/// unknown piece code, not a move), with the legal moves or candidates as help: what
/// `validate` reports for a move.
pub fn move_problem(
    v: &Variant,
    p: &Position,
    node: &MoveNode,
    e: &crate::notation::san::SanError,
) -> Problem {
    use crate::notation::san::SanError;
    let side = v.def().side_name(p.side_to_move());
    let number = p.fullmove_number();
    let help = match e {
        SanError::Illegal { legal, .. } if !legal.is_empty() => Some(format!("legal: {}", legal.join(" "))),
        SanError::Ambiguous { candidates } => Some(format!("write one of: {}", candidates.join(", "))),
        SanError::UnknownCode { known, .. } => Some(format!("codes: {}", known.join(" "))),
        _ => None,
    };
    let message = match e {
        SanError::Illegal { reason, .. } => {
            format!("illegal move `{}` ({side}, move {number}): {reason}", node.token)
        }
        SanError::Ambiguous { .. } => format!("ambiguous move `{}` ({side}, move {number})", node.token),
        SanError::UnknownCode { code, .. } => {
            format!("unknown piece code `{code}` in `{}` ({side}, move {number})", node.token)
        }
        SanError::Syntax { reason } => {
            format!("`{}` is not a move ({side}, move {number}): {reason}", node.token)
        }
    };
    problem(node.span, &node.token, message, help)
}

fn check_variations(v: &Variant, before: &Position, node: &MoveNode, problems: &mut Vec<Problem>) {
    for var in &node.variations {
        let mut p = before.clone();
        for n in var {
            check_variations(v, &p, n, problems);
            match read_move(v, &p, &n.token) {
                Ok(m) => p = v.make(&p, &m),
                Err(e) => {
                    problems.push(move_problem(v, &p, n, &e));
                    break;
                }
            }
        }
    }
}

/// A game replayed as far as its main line is legal ([`replay_prefix`]).
#[derive(Clone, Debug)]
pub struct Prefix {
    /// The game up to the last legal ply of its main line (its text's moves cut there,
    /// without variations, its result that of the rules in that position or `*`).
    pub game: Game,
    /// Where the main line breaks, if it does: the 1-based ply of the first move that
    /// cannot be played, and why.
    pub broken: Option<(usize, Problem)>,
}

/// Replays `text` as far as its main line is legal, for showing a record that breaks at
/// some ply (an imported record with a wrong move): the game up to the ply before the
/// break, and the break. A record that [`replay`] accepts gives itself, unbroken.
///
/// # Errors
/// The problems of [`replay`] when even the start cannot be set up (the tags: no or an
/// unknown variant, a bad `FEN`, …), or when the main line is legal and the problems are
/// elsewhere (a variation, the result).
pub(super) fn replay_prefix(
    text: GameText,
    definitions: Option<&variants::Definitions>,
) -> Result<Prefix, Vec<Problem>> {
    let replay = |t: GameText| replay_with(t, None, 0, definitions);
    let problems = match replay(text.clone()) {
        Ok(game) => return Ok(Prefix { game, broken: None }),
        Err(ps) => ps,
    };
    let mut bare = text.clone();
    bare.moves.clear();
    bare.result = None;
    bare.set_tag("Result", "*");
    let start = replay(bare.clone())?;
    let (v, mut p) = (start.variant.clone(), start.start.clone());
    let mut broken = None;
    for (i, node) in text.moves.iter().enumerate() {
        if let Some(o) = v.outcome(&p) {
            let message = format!("`{}`: a move after the end of the game ({})", node.token, describe(&v, o));
            broken = Some((i, problem(node.span, &node.token, message, None)));
            break;
        }
        match read_move(&v, &p, &node.token) {
            Ok(m) => p = v.make(&p, &m),
            Err(e) => {
                broken = Some((i, move_problem(&v, &p, node, &e)));
                break;
            }
        }
    }
    let Some((kept, why)) = broken else { return Err(problems) };
    bare.moves =
        text.moves[..kept].iter().map(|n| MoveNode { variations: Vec::new(), ..n.clone() }).collect();
    let result = v.outcome(&p).map_or("*", result_token);
    bare.set_tag("Result", result);
    bare.result = Some((result.to_string(), text.span));
    let game = replay(bare)?;
    Ok(Prefix { game, broken: Some((kept + 1, why)) })
}

/// The plain diagram (as [`diagram`], no colour, not flipped) of `game` after its first
/// `ply` moves (0: the start position), the last of those moves marked. For exported
/// email and the game file's `;` comments.
///
/// # Errors
/// [`PlyOutOfRange`] when `ply` is beyond the game's last move.
pub fn game_diagram(game: &Game, ply: usize) -> Result<String, crate::notation::diagram::PlyOutOfRange> {
    if ply > game.moves.len() {
        return Err(crate::notation::diagram::PlyOutOfRange { ply, plies: game.moves.len() });
    }
    let last = ply.checked_sub(1).map(|i| game.moves[i]);
    Ok(crate::notation::diagram::diagram(&game.variant, &game.position_at(ply), last.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::pgn::read_games;

    fn text(movetext: &str) -> GameText {
        read_games(&format!("[Event \"e\"]\n[Variant \"gygax\"]\n\n{movetext}\n")).remove(0).unwrap()
    }

    #[test]
    fn a_next_version_continues_its_previous_one_only_with_the_same_tags_and_tokens() {
        let prev = replay(text("1. 2e3 Sa3b6 *")).unwrap();
        assert!(continues(&prev, &text("1. 2e3 Sa3b6 2. R3g1x3b6 *")), "a ply appended");
        assert!(continues(&prev, &text("1. 2e3 {a comment} Sa3b6 (Sa3c6) *")), "comments, variations");
        assert!(continues(&prev, &text("1. 2e3 Sa3b6 1-0")), "another result");
        assert!(!continues(&prev, &text("1. 2e4 Sa3b6 *")), "an earlier ply changed");
        assert!(!continues(&prev, &text("1. 2e3 *")), "a ply taken back");
        let mut other_tag = text("1. 2e3 Sa3b6 *");
        other_tag.set_tag("Event", "f");
        assert!(!continues(&prev, &other_tag), "a tag changed");
        let mut pushed = prev.clone();
        let m = pushed.moves[0];
        pushed.moves.push(m);
        assert!(!continues(&pushed, &text("1. 2e3 Sa3b6 2. R3g1x3b6 *")), "moves edited since the replay");
    }

    #[test]
    fn the_continued_replay_takes_the_plies_and_the_record_from_the_previous_version() {
        let prev = replay(text("1. 2e3 Sa3b6 *")).unwrap();
        let next = replay_after(&prev, text("1. 2e3 Sa3b6 2. R3g1x3b6 *"), 0, None).unwrap();
        assert!(Arc::ptr_eq(&next.variant, &prev.variant), "the variant is reused");
        assert_eq!(next.line.plies, 3);
        assert_eq!(next.line.checkpoints.len(), 1);
        assert_eq!(next.line.seen.values().sum::<u32>(), 4, "start and three plies");
        assert_eq!(next, replay(text("1. 2e3 Sa3b6 2. R3g1x3b6 *")).unwrap());
    }
}
