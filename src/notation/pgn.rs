//! Game files (`notation-spec/movetext.md`): a PGN-style tag section and movetext.
//!
//! [`GameReader`] streams games out of any [`BufRead`] one at a time, so memory follows
//! the largest game, not the file. Each game is split into tag pairs and movetext with nom
//! and kept as plain data ([`GameText`]) that knows where every token stood (line and
//! column in the file). [`write_game`] writes the canonical layout.
//!
//! Reading is lenient: a byte-order mark, CRLF line ends, Latin-1 bytes (in player names,
//! say), several tags on one line, `%` escape lines. Writing is UTF-8 with LF.

use std::io::BufRead;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_while, take_while1};
use nom::character::complete::{char, digit1, multispace0, none_of};
use nom::combinator::{map, opt, recognize};
use nom::multi::many0;
use nom::sequence::{delimited, pair, preceded};
use nom::{IResult, Parser};

/// Where a token stands in its file: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// A tag pair: `[Name "value"]`, value unescaped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagPair {
    /// Tag name (case-sensitive).
    pub name: String,
    /// Value, with `\"` and `\\` unescaped.
    pub value: String,
    /// Where the tag starts.
    pub span: Span,
}

/// One move of the movetext with what annotates it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct MoveNode {
    /// The move token as written (annotation marks `!`/`?` removed into `nags`).
    pub token: String,
    /// Where the token starts.
    pub span: Span,
    /// Numeric annotation glyphs (`$n`; `!` is 1, `?` 2, `!!` 3, `??` 4, `!?` 5, `?!` 6).
    pub nags: Vec<u8>,
    /// Comments after the move, white space collapsed.
    pub comments: Vec<String>,
    /// Alternatives to this move, each a line of moves.
    pub variations: Vec<Vec<MoveNode>>,
}

/// One game as read: tags, comments before the first move, moves, result token.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct GameText {
    /// Tag pairs in file order.
    pub tags: Vec<TagPair>,
    /// Comments before the first move.
    pub leading_comments: Vec<String>,
    /// The main line.
    pub moves: Vec<MoveNode>,
    /// The result token (`1-0`, `0-1`, `1/2-1/2`, `*`) and where it stands, if present.
    pub result: Option<(String, Span)>,
    /// Where the game starts in its file.
    pub span: Span,
}

impl GameText {
    /// The value of tag `name`, if present (the first one).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|t| t.name == name).map(|t| t.value.as_str())
    }
    /// Sets tag `name` to `value`, replacing an existing one or appending.
    pub fn set_tag(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.tags.iter_mut().find(|t| t.name == name) {
            Some(t) => t.value = value,
            None => self.tags.push(TagPair { name: name.to_string(), value, span: Span::default() }),
        }
    }
    /// Removes tag `name`.
    pub fn remove_tag(&mut self, name: &str) {
        self.tags.retain(|t| t.name != name);
    }
}

/// How deep variations may nest: deeper files are refused with a diagnostic (replaying
/// and writing them recurses once per level).
pub const MAX_VARIATION_DEPTH: usize = 200;

/// A syntax error in a game file: where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {reason}")]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The offending text, if any.
    pub token: String,
    /// What is wrong.
    pub reason: String,
}

/// Reads games one at a time from a byte stream.
///
/// A game's text is read in pieces of about [`GameReader::PIECE_BYTES`], each cut after a
/// line where no comment or tag pair is open, so that no token spans two pieces: as an
/// iterator it gives whole [`GameText`]s, and [`GameReader::next_streamed`] hands each
/// main-line move to a [`MoveSink`] as soon as it is read (with its comments and
/// variations), so that memory follows the longest move, not the game.
pub struct GameReader<R> {
    input: R,
    line_no: usize,
    pending: Option<(usize, String)>,
    first_line: bool,
    done: bool,
    piece_bytes: usize,
}

/// Takes a game's main-line moves one at a time as [`GameReader::next_streamed`] reads
/// them. Nothing is taken back: a syntax error found later ends the game, and the
/// sink's work on it is to be dropped.
pub trait MoveSink {
    /// The game's tag pairs and the comments before its first move (`game.moves` is
    /// empty, `game.result` not yet known): once per game, before its first move.
    fn tags(&mut self, game: &GameText);
    /// The next main-line move, with its NAGs, comments and variations.
    fn main_move(&mut self, node: MoveNode);
}

/// A [`MoveSink`] that keeps every move: the whole [`GameText`].
#[derive(Default)]
struct KeepAll(Vec<MoveNode>);

impl MoveSink for KeepAll {
    fn tags(&mut self, _: &GameText) {}
    fn main_move(&mut self, node: MoveNode) {
        self.0.push(node);
    }
}

impl<R: BufRead> GameReader<R> {
    /// About how many bytes of a game's text are read and parsed at a time.
    pub const PIECE_BYTES: usize = 1 << 16;

    /// A reader over `input`.
    pub fn new(input: R) -> Self {
        GameReader {
            input,
            line_no: 0,
            pending: None,
            first_line: true,
            done: false,
            piece_bytes: Self::PIECE_BYTES,
        }
    }

    /// A reader over `input` that parses a game's text in pieces of about `bytes` (0: cut
    /// after every line that allows it). The games read are the same whatever the size;
    /// for tests of that.
    #[doc(hidden)]
    pub fn with_piece_bytes(input: R, bytes: usize) -> Self {
        GameReader { piece_bytes: bytes, ..GameReader::new(input) }
    }

    /// The next line as text: BOM dropped, CR LF and CR ends dropped, bytes that are not
    /// UTF-8 read as Latin-1.
    fn next_line(&mut self) -> std::io::Result<Option<(usize, String)>> {
        if let Some(p) = self.pending.take() {
            return Ok(Some(p));
        }
        let mut buf = Vec::new();
        if self.input.read_until(b'\n', &mut buf)? == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        let mut text = match String::from_utf8(buf) {
            Ok(s) => s,
            Err(e) => e.into_bytes().iter().map(|&b| b as char).collect(),
        };
        if self.first_line {
            self.first_line = false;
            if let Some(s) = text.strip_prefix('\u{feff}') {
                text = s.to_string();
            }
        }
        Ok(Some((self.line_no, text)))
    }
}

/// Whether `line` holds only tag pairs (starts with `[` after white space).
fn is_tag_line(line: &str) -> bool {
    line.trim_start().starts_with('[')
}

/// Counts the open `{` comments after reading `line`, starting with `open` (0 or 1).
fn comment_state(line: &str, mut open: bool) -> bool {
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if open {
            if c == '}' {
                open = false;
            }
        } else if c == '{' {
            open = true;
        } else if c == ';' {
            break;
        } else if c == '"' {
            // Skip quoted tag values, with escapes.
            while let Some(d) = chars.next() {
                if d == '\\' {
                    chars.next();
                } else if d == '"' {
                    break;
                }
            }
        }
    }
    open
}

/// Whether a comment (`{`), a tag pair (`[`) or a quoted tag value is open after `line`,
/// given what was open before it: a game's text may be cut after a line only when none
/// is (no token spans the cut then). Errs on the side of open: a line is never cut
/// where the tokens could run on.
fn open_after(line: &str, open: (bool, bool, bool)) -> (bool, bool, bool) {
    let (mut comment, mut bracket, mut quote) = open;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if comment {
            comment = c != '}';
        } else if quote {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => quote = false,
                _ => {}
            }
        } else {
            match c {
                '{' => comment = true,
                ';' => break,
                '"' => quote = true,
                '[' => bracket = true,
                ']' => bracket = false,
                _ => {}
            }
        }
    }
    // A quote outside a tag pair ends with its line (the tokens fail at it anyway).
    (comment, bracket, quote && bracket)
}

impl<R: BufRead> Iterator for GameReader<R> {
    type Item = Result<GameText, SyntaxError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut all = KeepAll::default();
        let read = self.next_streamed(&mut all)?;
        Some(read.map(|mut game| {
            game.moves = all.0;
            game
        }))
    }
}

/// A [`MoveSink`] that only counts the main-line moves.
struct Count(usize);

impl MoveSink for Count {
    fn tags(&mut self, _: &GameText) {}
    fn main_move(&mut self, _: MoveNode) {
        self.0 += 1;
    }
}

/// The number of main-line moves (plies) of the first game in `text`, read in pieces and
/// never held whole; `None` when it does not read. For limits checked before a replay.
pub fn count_plies(text: &[u8]) -> Option<usize> {
    let mut count = Count(0);
    GameReader::new(text).next_streamed(&mut count)?.ok()?;
    Some(count.0)
}

impl<R: BufRead> GameReader<R> {
    /// Reads the next game, handing its main-line moves to `sink` as they are read: the
    /// game without its moves (tags, the comments before the first move, the result,
    /// where it starts), or its syntax error (exactly as the iterator gives them); `None`
    /// after the last game.
    pub fn next_streamed(&mut self, sink: &mut dyn MoveSink) -> Option<Result<GameText, SyntaxError>> {
        if self.done {
            return None;
        }
        let mut piece = Lines::default();
        let mut build: Option<Build> = None;
        let mut in_movetext = false;
        let mut in_comment = false;
        let mut open = (false, false, false);
        loop {
            let next = match self.next_line() {
                Ok(l) => l,
                Err(e) => {
                    self.done = true;
                    return Some(Err(SyntaxError {
                        line: self.line_no + 1,
                        column: 1,
                        token: String::new(),
                        reason: format!("cannot read: {e}"),
                    }));
                }
            };
            let Some((n, line)) = next else {
                self.done = true;
                break;
            };
            if !in_comment && line.starts_with('%') {
                continue;
            }
            if !in_comment && in_movetext && is_tag_line(&line) {
                self.pending = Some((n, line));
                break;
            }
            if !in_comment && !line.trim().is_empty() && !is_tag_line(&line) {
                in_movetext = true;
            }
            in_comment = comment_state(&line, in_comment);
            // Blank lines before the game are not part of it.
            if build.is_some() || !line.trim().is_empty() {
                let b = build.get_or_insert_with(|| Build::new(n));
                piece.push(n, &line);
                b.last_line = (n, line.chars().count());
                open = open_after(&line, open);
                if open == (false, false, false) && piece.text.len() >= self.piece_bytes {
                    b.piece(&piece, sink);
                    piece = Lines::default();
                }
            }
        }
        let mut build = build?;
        build.piece(&piece, sink);
        Some(build.finish(sink))
    }
}

/// The lines of one game joined into one text (each ending in `\n`), with where each
/// starts and its line number in the file.
#[derive(Default)]
struct Lines {
    text: String,
    starts: Vec<usize>,
    numbers: Vec<usize>,
}

impl Lines {
    fn push(&mut self, number: usize, line: &str) {
        self.starts.push(self.text.len());
        self.numbers.push(number);
        self.text.push_str(line);
        self.text.push('\n');
    }
}

/// Reads every game of `text` (a whole file held in memory).
pub fn read_games(text: &str) -> Vec<Result<GameText, SyntaxError>> {
    GameReader::new(text.as_bytes()).collect()
}

/// Where each line of `text` starts (byte offsets: 0, then after each LF): the lines a
/// [`Span`] counts.
pub fn line_starts(text: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', text).map(|i| i + 1));
    starts
}

/// The length of the longest common prefix of `a` and `b`, in bytes.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 64;
    let whole = a.chunks(CHUNK).zip(b.chunks(CHUNK)).take_while(|(x, y)| x == y).count() * CHUNK;
    let whole = whole.min(a.len()).min(b.len());
    whole + a[whole..].iter().zip(&b[whole..]).take_while(|(x, y)| x == y).count()
}

/// The byte offset in `text` (whose [`line_starts`] are `starts`) of the place `span`
/// names, as [`GameReader`] counts lines and columns (a byte order mark opening the text
/// is not counted); `None` when `text` has no such place.
pub fn byte_offset(text: &str, starts: &[usize], span: Span) -> Option<usize> {
    let mut start = *starts.get(span.line.checked_sub(1)?)?;
    if span.line == 1 && text.starts_with('\u{feff}') {
        start += '\u{feff}'.len_utf8();
    }
    let column = span.column.checked_sub(1)?;
    let within = text.get(start..)?.char_indices().nth(column).map(|(i, _)| i)?;
    Some(start + within)
}

/// Reads `text`, a new version of the game file `prev_text` that was read as `prev`, from
/// where the two first differ: the tag pairs, the comments before the first move and the
/// main-line moves that stand wholly before that place are taken from `prev`; the rest is
/// read as a game's movetext would be, and its places are counted in `text`. The game, as
/// [`GameReader`] would read `text` (the same tags, moves, comments and places), and how
/// many main-line moves were taken from `prev`.
///
/// `None` when that cannot be done: the versions differ in the tags or before the first
/// move, or the rest cannot be read (read the whole text to get the error and its place).
/// This is what makes judging a game's next version cost the new moves, not the game.
pub fn read_continuation(prev: &GameText, prev_text: &str, text: &str) -> Option<(GameText, usize)> {
    let common = common_prefix(prev_text.as_bytes(), text.as_bytes());
    let starts = line_starts(prev_text.as_bytes());
    // The last main-line move whose token starts within the common part, after white space
    // (so that the token before it ended there too).
    let (shared, at, span) = prev.moves.iter().enumerate().rev().find_map(|(i, node)| {
        let at = byte_offset(prev_text, &starts, node.span)?;
        let fits = at <= common
            && at > 0
            && prev_text.as_bytes()[at - 1].is_ascii_whitespace()
            && prev_text[at..].starts_with(node.token.as_str());
        fits.then_some((i, at, node.span))
    })?;
    let rest = GameReader::new(&text.as_bytes()[at..]).next()?.ok()?;
    if !rest.tags.is_empty() || !rest.leading_comments.is_empty() {
        return None;
    }
    // The rest's first line is part of line `span.line`, from column `span.column`.
    let place = |s: &mut Span| {
        if s.line == 1 {
            s.column += span.column - 1;
        }
        s.line += span.line - 1;
    };
    fn shift(nodes: &mut [MoveNode], place: &dyn Fn(&mut Span)) {
        for n in nodes {
            place(&mut n.span);
            for v in &mut n.variations {
                shift(v, place);
            }
        }
    }
    let mut moves = Vec::with_capacity(shared + rest.moves.len());
    moves.extend_from_slice(&prev.moves[..shared]);
    let mut new_moves = rest.moves;
    shift(&mut new_moves, &place);
    moves.extend(new_moves);
    let result = rest.result.map(|(r, mut s)| {
        place(&mut s);
        (r, s)
    });
    let game = GameText {
        tags: prev.tags.clone(),
        leading_comments: prev.leading_comments.clone(),
        moves,
        result,
        span: prev.span,
    };
    Some((game, shared))
}

// ---------------------------------------------------------------------------------------
// The nom grammar of one game. Inputs are `&str` slices of the game's text; positions are
// recovered from slice offsets.

/// A located piece of text: offset into the game text.
type Located<'a, T> = (&'a str, T);

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    Tag(&'a str, String),
    Comment(String),
    Open,
    Close,
    Nag(u8),
    Result(&'a str),
    Number,
    Symbol(&'a str, Vec<u8>),
}

/// `tag-value = '"' { char | '\"' | '\\' } '"'`
fn tag_value(input: &str) -> IResult<&str, String> {
    delimited(
        char('"'),
        map(
            many0(alt((
                preceded(char('\\'), alt((char('"'), char('\\')))),
                map(pair(char('\\'), none_of("\"\\")), |(_, c)| c).map(|c| c),
                none_of("\"\\\n"),
            ))),
            |cs: Vec<char>| cs.into_iter().collect(),
        ),
        char('"'),
    )
    .parse(input)
}

/// `tag-pair = "[" name value "]"`
fn tag_pair(input: &str) -> IResult<&str, Tok<'_>> {
    map(
        delimited(
            pair(char('['), multispace0),
            pair(
                take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_'),
                preceded(multispace0, tag_value),
            ),
            pair(multispace0, char(']')),
        ),
        |(n, v)| Tok::Tag(n, v),
    )
    .parse(input)
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A comment whose text starts with this mark is a **verbatim line**: read from a `;`
/// comment without collapsing its white space (only trailing white space is dropped), and
/// always written as a `;` comment on a line of its own. Board diagrams in game files are
/// such lines (`;|  8  .  :  g …`).
pub const VERBATIM_MARK: char = '|';

/// The text of a `;` comment: verbatim when it starts with [`VERBATIM_MARK`].
fn line_comment(text: &str) -> String {
    if text.starts_with(VERBATIM_MARK) { text.trim_end().to_string() } else { collapse(text) }
}

/// `comment = "{" { any but "}" } "}" | ";" { any but newline }`
fn comment(input: &str) -> IResult<&str, Tok<'_>> {
    alt((
        map(delimited(char('{'), take_till(|c| c == '}'), char('}')), |t: &str| Tok::Comment(collapse(t))),
        map(preceded(char(';'), take_till(|c| c == '\n')), |t: &str| Tok::Comment(line_comment(t))),
    ))
    .parse(input)
}

/// `nag = "$" digit { digit }`
fn nag(input: &str) -> IResult<&str, Tok<'_>> {
    let (rest, d) = preceded(char('$'), digit1).parse(input)?;
    match d.parse::<u8>() {
        Ok(n) => Ok((rest, Tok::Nag(n))),
        Err(_) => Err(nom::Err::Failure(nom::error::Error::new(input, nom::error::ErrorKind::Digit))),
    }
}

/// `result = "1-0" | "0-1" | "1/2-1/2" | "*"` (not followed by a symbol character)
fn result(input: &str) -> IResult<&str, Tok<'_>> {
    let (rest, r) = alt((tag("1/2-1/2"), tag("1-0"), tag("0-1"), tag("*"))).parse(input)?;
    if rest.starts_with(|c: char| c.is_ascii_alphanumeric() || "_+#=:-/".contains(c)) {
        return Err(nom::Err::Error(nom::error::Error::new(input, nom::error::ErrorKind::Tag)));
    }
    Ok((rest, Tok::Result(r)))
}

/// `move-number = digit { digit } "." { "." }` | `digit { digit }` before white space | `...`
fn move_number(input: &str) -> IResult<&str, Tok<'_>> {
    alt((
        map(recognize(pair(digit1, take_while1(|c| c == '.'))), |_| Tok::Number),
        map(take_while1(|c| c == '.'), |_| Tok::Number),
        map(
            recognize(nom::sequence::terminated(
                digit1,
                nom::combinator::peek(alt((
                    recognize(nom::character::complete::multispace1),
                    nom::combinator::eof,
                ))),
            )),
            |_| Tok::Number,
        ),
    ))
    .parse(input)
}

fn annotation_nag(a: &str) -> Option<u8> {
    Some(match a {
        "!" => 1,
        "?" => 2,
        "!!" => 3,
        "??" => 4,
        "!?" => 5,
        "?!" => 6,
        _ => return None,
    })
}

/// `symbol = (letter | digit) { letter | digit | "_+#=:-" } [ "!" | "?" ... ]`
fn symbol(input: &str) -> IResult<&str, Tok<'_>> {
    let (rest, s) = recognize(pair(
        take_while1(|c: char| c.is_ascii_alphanumeric()),
        take_while(|c: char| c.is_ascii_alphanumeric() || "_+#=:-".contains(c)),
    ))
    .parse(input)?;
    let (rest, marks) = opt(take_while1(|c| c == '!' || c == '?')).parse(rest)?;
    let mut nags = Vec::new();
    if let Some(m) = marks {
        match annotation_nag(m) {
            Some(n) => nags.push(n),
            None => {
                return Err(nom::Err::Failure(nom::error::Error::new(input, nom::error::ErrorKind::Verify)));
            }
        }
    }
    Ok((rest, Tok::Symbol(s, nags)))
}

/// One movetext token.
fn token(input: &str) -> IResult<&str, Tok<'_>> {
    alt((
        comment,
        map(char('('), |_| Tok::Open),
        map(char(')'), |_| Tok::Close),
        nag,
        result,
        move_number,
        symbol,
        tag_pair,
    ))
    .parse(input)
}

/// Line starts of `text`, for turning offsets into lines and columns.
///
/// Spans are asked for in text order, so the last answer is kept: the next column on
/// the same line is counted from there, and a long line costs its length once, not once
/// per token.
struct LineIndex<'a> {
    text: &'a str,
    starts: &'a [usize],
    numbers: &'a [usize],
    /// The last offset asked for, its line (index into `starts`) and its column.
    last: std::cell::Cell<(usize, usize, usize)>,
}

impl<'a> LineIndex<'a> {
    fn new(lines: &'a Lines) -> LineIndex<'a> {
        LineIndex {
            text: &lines.text,
            starts: &lines.starts,
            numbers: &lines.numbers,
            last: std::cell::Cell::new((0, 0, 1)),
        }
    }

    fn span_of(&self, at: &str) -> Span {
        let off = (at.as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize).min(self.text.len());
        let i = self.starts.partition_point(|s| *s <= off).saturating_sub(1);
        let (last_off, last_line, last_column) = self.last.get();
        let column = if last_line == i && last_off <= off {
            last_column + self.text[last_off..off].chars().count()
        } else {
            self.text[self.starts[i]..off].chars().count() + 1
        };
        self.last.set((off, i, column));
        Span { line: self.numbers[i], column }
    }
}

/// One game's text parsed piece by piece ([`Build::piece`]): the tokens of every piece
/// first (a token that cannot be read is the game's error, wherever it stands), the
/// structure as the tokens come (the first misplaced one is the error, unless a token
/// after it cannot be read). Main-line moves go to the sink once the next one starts.
struct Build {
    game: GameText,
    /// Still in the tag section.
    in_tags: bool,
    /// The open lines: the main line (holding only its last move, not yet handed over),
    /// then each open variation.
    stack: Vec<Vec<MoveNode>>,
    /// Whether the sink has had the tags.
    told_tags: bool,
    /// A result token was read: any token after it is an error.
    after_result: bool,
    /// The first token that cannot be read: the game's error.
    unreadable: Option<SyntaxError>,
    /// The first misplaced token: the game's error unless one is unreadable.
    misplaced: Option<SyntaxError>,
    /// The number of the game's last line so far and its length in characters.
    last_line: (usize, usize),
}

impl Build {
    fn new(first_line: usize) -> Build {
        Build {
            game: GameText { span: Span { line: first_line, column: 1 }, ..GameText::default() },
            in_tags: true,
            stack: vec![Vec::new()],
            told_tags: false,
            after_result: false,
            unreadable: None,
            misplaced: None,
            last_line: (first_line, 0),
        }
    }

    /// Reads the tokens of `lines`, the next piece of the game's text (whole lines, cut
    /// where no token runs on).
    fn piece(&mut self, lines: &Lines, sink: &mut dyn MoveSink) {
        if self.unreadable.is_some() || lines.starts.is_empty() {
            return;
        }
        let index = LineIndex::new(lines);
        let text = &lines.text;
        let mut toks: Vec<Located<Tok>> = Vec::new();
        let mut rest: &str = text;
        loop {
            let (r, _) = multispace0::<&str, nom::error::Error<&str>>(rest).expect("never fails");
            rest = r;
            if rest.is_empty() {
                break;
            }
            match token(rest) {
                Ok((r, t)) => {
                    toks.push((rest, t));
                    rest = r;
                }
                Err(_) => {
                    let span = index.span_of(rest);
                    let bad: String = rest.chars().take_while(|c| !c.is_whitespace()).take(20).collect();
                    let reason = if rest.starts_with('{') {
                        "comment never closed (`}` missing)".to_string()
                    } else if rest.starts_with('[') {
                        "malformed tag pair: expected [Name \"value\"]".to_string()
                    } else if rest.starts_with('$') {
                        "a NAG is `$` and a number from 0 to 255".to_string()
                    } else if rest.starts_with('\u{feff}') {
                        "a byte order mark (U+FEFF) in the middle of the file: only a file's first character may be one; remove it (two files pasted together?)".to_string()
                    } else {
                        format!("unexpected `{}`", visible(&bad))
                    };
                    self.unreadable =
                        Some(SyntaxError { line: span.line, column: span.column, token: bad, reason });
                    return;
                }
            }
        }
        if self.misplaced.is_some() {
            return;
        }
        for (at, t) in &toks {
            let span = index.span_of(at);
            if let Err(e) = self.token(t, span, sink) {
                self.misplaced = Some(e);
                return;
            }
        }
    }

    /// Takes the next token, which stands at `span`.
    fn token(&mut self, t: &Tok<'_>, span: Span, sink: &mut dyn MoveSink) -> Result<(), SyntaxError> {
        let err = |reason: &str, token: &str| SyntaxError {
            line: span.line,
            column: span.column,
            token: token.to_string(),
            reason: reason.to_string(),
        };
        if self.after_result {
            return Err(SyntaxError {
                line: span.line,
                column: span.column,
                token: format!("{t:?}"),
                reason: "text after the result token".into(),
            });
        }
        if self.in_tags {
            if let Tok::Tag(name, value) = t {
                if self.game.tags.iter().any(|tag| tag.name == *name) {
                    return Err(err(&format!("tag `{name}` given twice"), name));
                }
                self.game.tags.push(TagPair { name: name.to_string(), value: value.clone(), span });
                return Ok(());
            }
            self.in_tags = false;
        }
        let stack = &mut self.stack;
        match t {
            Tok::Tag(name, _) => return Err(err("tag pair inside the movetext", name)),
            Tok::Number => {}
            Tok::Symbol(s, nags) => {
                if stack.len() == 1
                    && let Some(done) = stack[0].pop()
                {
                    Self::hand_over(&mut self.told_tags, &self.game, done, sink);
                }
                self.stack.last_mut().expect("non-empty").push(MoveNode {
                    token: s.to_string(),
                    span,
                    nags: nags.clone(),
                    ..MoveNode::default()
                });
            }
            Tok::Nag(n) => match stack.last_mut().and_then(|l| l.last_mut()) {
                Some(m) => m.nags.push(*n),
                None => return Err(err("a NAG must follow a move", "$")),
            },
            Tok::Comment(c) => {
                let depth = stack.len();
                match stack.last_mut().and_then(|l| l.last_mut()) {
                    Some(m) => m.comments.push(c.clone()),
                    None if depth == 1 => self.game.leading_comments.push(c.clone()),
                    None => {}
                }
            }
            Tok::Open => {
                if stack.last().is_none_or(|l| l.is_empty()) {
                    return Err(err("a variation must follow a move", "("));
                }
                if stack.len() > MAX_VARIATION_DEPTH {
                    return Err(err(&format!("variations nested more than {MAX_VARIATION_DEPTH} deep"), "("));
                }
                stack.push(Vec::new());
            }
            Tok::Close => {
                if stack.len() == 1 {
                    return Err(err("`)` without `(`", ")"));
                }
                let v = stack.pop().expect("len > 1");
                stack.last_mut().and_then(|l| l.last_mut()).expect("checked on open").variations.push(v);
            }
            Tok::Result(r) => {
                if stack.len() > 1 {
                    return Err(err("result inside a variation (`)` missing)", r));
                }
                self.game.result = Some((r.to_string(), span));
                self.after_result = true;
            }
        }
        Ok(())
    }

    /// Hands a main-line move to `sink`, the tags first if it has not had them.
    fn hand_over(told_tags: &mut bool, game: &GameText, node: MoveNode, sink: &mut dyn MoveSink) {
        if !*told_tags {
            *told_tags = true;
            sink.tags(game);
        }
        sink.main_move(node);
    }

    /// The game (without its moves, which the sink has had) or its error.
    fn finish(mut self, sink: &mut dyn MoveSink) -> Result<GameText, SyntaxError> {
        if let Some(e) = self.unreadable.or(self.misplaced) {
            return Err(e);
        }
        if self.stack.len() > 1 {
            let (line, chars) = self.last_line;
            // Where the text ends: after its last line's end.
            return Err(SyntaxError {
                line,
                column: chars + 2,
                token: String::new(),
                reason: "variation never closed (`)` missing)".into(),
            });
        }
        if let Some(last) = self.stack[0].pop() {
            Self::hand_over(&mut self.told_tags, &self.game, last, sink);
        }
        if !self.told_tags {
            sink.tags(&self.game);
        }
        Ok(self.game)
    }
}

// ---------------------------------------------------------------------------------------
// Writing.

/// The canonical tag order (`movetext.md` §2): the Seven Tag Roster, then ravenpost's own
/// tags, then the rest in ASCII order.
const TAG_ORDER: &[&str] = &[
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "Variant",
    "Ruleset",
    "WhiteArmy",
    "BlackArmy",
    "GameOptions",
    "TimeControl",
    "SetUp",
    "FEN",
    "Termination",
];

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes `game` in canonical layout. `first_side_to_move` says whether the first move of
/// the main line is the first side's, and `first_number` its move number.
pub fn write_game(game: &GameText, first_number: u32, first_side_to_move: bool) -> String {
    let mut out = String::new();
    let mut tags: Vec<&TagPair> = game.tags.iter().collect();
    tags.sort_by_key(|t| match TAG_ORDER.iter().position(|n| *n == t.name) {
        Some(i) => (i, String::new()),
        None => (TAG_ORDER.len(), t.name.clone()),
    });
    for t in tags {
        out.push_str(&format!("[{} \"{}\"]\n", t.name, escape(&t.value)));
    }
    out.push('\n');
    let mut words: Vec<String> = Vec::new();
    for c in &game.leading_comments {
        push_comment(c, &mut words);
    }
    write_line(&game.moves, first_number, first_side_to_move, !game.leading_comments.is_empty(), &mut words);
    words.push(game.result.as_ref().map(|r| r.0.clone()).unwrap_or_else(|| "*".into()));
    wrap(&words, &mut out);
    out
}

/// The main line of `game` as plain movetext for people to read (a mail body): move
/// numbers and moves only (no comments, NAGs or variations), then the result, in lines
/// of at most `width` characters. `first_number` and `first_side_to_move` as in
/// [`write_game`].
pub fn write_moves_only(
    game: &GameText,
    first_number: u32,
    first_side_to_move: bool,
    width: usize,
) -> String {
    let moves: Vec<MoveNode> =
        game.moves.iter().map(|m| MoveNode { token: m.token.clone(), ..MoveNode::default() }).collect();
    let mut words = Vec::new();
    write_line(&moves, first_number, first_side_to_move, false, &mut words);
    words.push(game.result.as_ref().map(|r| r.0.clone()).unwrap_or_else(|| "*".into()));
    let mut out = String::new();
    wrap_to(&words, width, &mut out);
    out
}

/// Pushes a comment as words (so long comments wrap), as a `;` comment ending its line
/// when its text holds a `}`, or as a `;` line of its own when it is a verbatim line.
fn push_comment(c: &str, words: &mut Vec<String>) {
    if c.starts_with(VERBATIM_MARK) {
        words.push(format!("\n;{c}\n"));
        return;
    }
    if c.contains('}') {
        words.push(format!(";{c}\n"));
        return;
    }
    let parts: Vec<&str> = c.split_whitespace().collect();
    if parts.is_empty() {
        words.push("{}".into());
        return;
    }
    let last = parts.len() - 1;
    for (i, p) in parts.iter().enumerate() {
        let mut w = String::new();
        if i == 0 {
            w.push('{');
        }
        w.push_str(p);
        if i == last {
            w.push('}');
        }
        words.push(w);
    }
}

fn write_line(
    moves: &[MoveNode],
    number: u32,
    first_side: bool,
    mut need_number: bool,
    words: &mut Vec<String>,
) {
    let mut n = number;
    let mut white = first_side;
    let mut first = true;
    for m in moves {
        let mut w = String::new();
        if white {
            w.push_str(&format!("{n}. "));
        } else if first || need_number {
            w.push_str(&format!("{n}... "));
        }
        w.push_str(&m.token);
        words.push(w);
        first = false;
        need_number = false;
        for g in &m.nags {
            words.push(format!("${g}"));
            need_number = true;
        }
        for c in &m.comments {
            push_comment(c, words);
            need_number = true;
        }
        for v in &m.variations {
            let mut inner = Vec::new();
            write_line(v, n, white, true, &mut inner);
            if let Some(f) = inner.first_mut() {
                f.insert(0, '(');
            }
            match inner.last_mut() {
                // A `;` comment runs to the end of its line: the `)` follows on the next.
                Some(l) if l.ends_with('\n') => inner.push(")".to_string()),
                Some(l) => l.push(')'),
                None => {}
            }
            words.extend(inner);
            need_number = true;
        }
        if !white {
            n += 1;
        }
        white = !white;
    }
}

/// Joins `words` with single spaces into lines of at most 80 characters (a word ending in
/// a line break, a `;` comment, ends its line; one starting with a line break starts one).
fn wrap(words: &[String], out: &mut String) {
    wrap_to(words, 80, out);
}

/// [`wrap`] to lines of at most `width` characters.
fn wrap_to(words: &[String], width: usize, out: &mut String) {
    let mut line = String::new();
    // The characters of `line`, kept as it grows (counting it again per word would cost
    // its length each time).
    let mut chars = 0;
    for w in words {
        let (w, forced_break) = match w.strip_suffix('\n') {
            Some(s) => (s, true),
            None => (w.as_str(), false),
        };
        let w = match w.strip_prefix('\n') {
            Some(s) => {
                if !line.is_empty() {
                    out.push_str(&line);
                    out.push('\n');
                    line.clear();
                    chars = 0;
                }
                s
            }
            None => w,
        };
        // A move number and its move stay together; other words break at spaces.
        let w_chars = w.chars().count();
        if !line.is_empty() && chars + 1 + w_chars > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
            chars = 0;
        }
        if !line.is_empty() {
            line.push(' ');
            chars += 1;
        }
        line.push_str(w);
        chars += w_chars;
        if forced_break {
            out.push_str(&line);
            out.push('\n');
            line.clear();
            chars = 0;
        }
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
}

/// Whether `c` is invisible or moves what follows it: a control character (C0, DEL, C1:
/// terminal escapes among them), a byte order mark, a soft hyphen, a zero-width or other
/// format character, a line or paragraph separator, a bidirectional override.
pub fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{feff}' | '\u{00ad}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}')
}

/// `text` with invisible characters ([`is_invisible`]) written as `\u{..}` escapes, so a
/// message or a display shows them instead of obeying them.
pub fn visible(text: &str) -> String {
    text.chars()
        .map(|c| if is_invisible(c) { c.escape_unicode().to_string() } else { c.to_string() })
        .collect()
}

/// Where `text`, a game file, can be cut after each main-line move: `ends[j]` is the byte
/// where its first `j` moves end, with everything written after them (comments, NAGs,
/// variations) but nothing of the next move, not even its number; the last entry ends the
/// text of every move (before the result). `None` when `text` is no readable game, or a
/// move is not where its span says. The archive rebuilds a game's older versions from a
/// newer one with these ([`crate::archive::CutPoints`]).
pub fn move_ends(text: &[u8]) -> Option<Vec<usize>> {
    let s = std::str::from_utf8(text).ok()?;
    let game = GameReader::new(text).next()?.ok()?;
    let starts = line_starts(text);
    let offset = |line: usize, column: usize| byte_offset(s, &starts, Span { line, column });
    let mut ends = Vec::with_capacity(game.moves.len() + 1);
    for node in &game.moves {
        let at = offset(node.span.line, node.span.column)?;
        if !s[at..].starts_with(node.token.as_str()) {
            return None;
        }
        ends.push(end_before(text, at));
    }
    // The text of every move: up to the result token, or to the end.
    let all = match &game.result {
        Some((_, span)) => end_before(text, offset(span.line, span.column)?),
        None => text.trim_ascii_end().len(),
    };
    ends.push(all);
    Some(ends)
}

/// Where the text before the token at `at` ends: white space and the token's move number
/// (`12.` or `12...`) left out.
fn end_before(text: &[u8], at: usize) -> usize {
    let mut end = text[..at].trim_ascii_end().len();
    if end > 0 && text[end - 1] == b'.' {
        let dots = end - text[..end].iter().rev().take_while(|b| **b == b'.').count();
        let digits = dots - text[..dots].iter().rev().take_while(|b| b.is_ascii_digit()).count();
        if digits < dots && (digits == 0 || text[digits - 1].is_ascii_whitespace()) {
            end = text[..digits].trim_ascii_end().len();
        }
    }
    end
}
