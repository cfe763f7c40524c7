//! Conditional moves: a player's prepared replies to the opponent's next moves, as a
//! tree, checked when entered and followed when the opponent's move arrives.
//!
//! A tree is written in ravenpost's own movetext with variations
//! (`notation-spec/movetext.md`, "Conditional trees"), read by the game file reader
//! ([`crate::notation::pgn`]): it starts with a move the opponent may play next, then the
//! reply, then the opponent's next move, and so on; a variation on an opponent's move
//! gives another expected move at that point:
//! `12... Qd7 (12... Qe7 13. Ne5) 13. Nc5 Qc8 14. Nxb7` prepares `13. Nc5` against
//! `12... Qd7` (and then `14. Nxb7` against `13... Qc8`) and `13. Ne5` against `12... Qe7`.
//!
//! [`enter`] checks a tree against the game as it stands: the game goes on, the opponent
//! is to move (a tree always starts with the opponent's next ply; a move of one's own is
//! played with `move`, not prepared), every move of every line is legal in its line's
//! position (the diagnostics `validate` gives, at the token), move numbers, where
//! written, are those of their plies (a line written for the other side is refused at
//! its number), and no expected move gets two different replies (an alternative to a
//! reply is refused at its token). Each refusal is a [`TreeRefusal`].
//!
//! [`ConditionalTree::follow`] is the decision when the game has moved on: the prepared
//! reply to the opponent's move ([`Followed::Reply`], with the rest of the tree), nothing
//! yet ([`Followed::Waiting`]), or the tree dropped and why ([`Dropped`]: a move no line
//! expected, a finished game, …). Where the tree is kept and how the reply is committed
//! is the archive's business (`usecases::conditional`); nothing here reads or writes.

use std::fmt;

use serde::Serialize;

use crate::engine::{Move, Position, Side, Variant};
use crate::notation::pgn::{GameText, MoveNode, Span, TagPair, read_games, write_game};
use crate::notation::san::{read_move, write_move};
use crate::record::game::{Game, Problem as TokenProblem, move_problem};
use crate::record::result_of;

/// One move of the opponent that a tree expects, the reply prepared to it, and the
/// opponent's moves expected after that reply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Branch {
    /// The opponent's move, canonical SAN.
    pub expected: String,
    #[serde(skip)]
    expected_move: Move,
    /// The prepared reply, canonical SAN (none when the line ends with the opponent's
    /// move: then the tree ends there).
    pub reply: Option<String>,
    #[serde(skip)]
    reply_move: Option<Move>,
    /// The opponent's moves expected after the reply.
    pub then: Vec<Branch>,
}

/// A player's prepared replies in one game: the opponent's expected moves after the
/// first `after_ply` plies, each with its reply and what follows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionalTree {
    /// Whose replies these are.
    pub owner: Side,
    /// How many plies the game had when the tree's first expected move was to come.
    pub after_ply: usize,
    /// The move number of that first expected move.
    pub first_number: u16,
    /// The opponent's expected moves at that ply (never empty).
    pub lines: Vec<Branch>,
}

/// Why a tree was refused at entry. Nothing was stored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TreeRefusal {
    /// The game has ended.
    #[error("the game is over ({result}): there is no move left to prepare")]
    GameOver {
        /// Its result token.
        result: String,
    },
    /// The owner is to move: a tree starts with the opponent's move.
    #[error(
        "it is {owner}'s own move (ply {ply}): a conditional tree starts with the opponent's next move; play yours with `ravenpost move`, then prepare the replies"
    )]
    OwnersTurn {
        /// The owner's name.
        owner: String,
        /// The next ply (1-based).
        ply: usize,
    },
    /// No move was given.
    #[error("no moves given: a tree starts with the opponent's expected move, e.g. `{example} REPLY`")]
    Empty {
        /// The move number the first expected move would have (`12...`).
        example: String,
    },
    /// The text is not movetext.
    #[error("{}", .0.message)]
    Syntax(TokenProblem),
    /// A move that cannot be played in its line's position (illegal, ambiguous, an
    /// unknown piece code, after the end of the game).
    #[error("{}", .0.message)]
    Move(TokenProblem),
    /// A move number that is not its ply's (for the other side: a line for the wrong
    /// side).
    #[error("{}", wrong_number(.written, .expected, *.wrong_side))]
    WrongNumber {
        /// Where the number stands.
        span: Span,
        /// The number as written (`13.`).
        written: String,
        /// The number of that ply (`12...`).
        expected: String,
        /// Whether the number names the other side's move.
        wrong_side: bool,
    },
    /// Two different replies to one expected move.
    #[error(
        "two replies to {expected}: `{first}` and `{second}`; a tree gives one reply to each expected move"
    )]
    TwoReplies {
        /// Where the second reply stands.
        span: Span,
        /// The second reply as written.
        token: String,
        /// The expected move, numbered (`12... Qd7`).
        expected: String,
        /// The first reply (canonical SAN).
        first: String,
        /// The second reply (canonical SAN).
        second: String,
    },
    /// A tag pair in the movetext.
    #[error("tag pair `{name}` in a conditional tree: give moves only")]
    TagPair {
        /// Where it stands.
        span: Span,
        /// The tag's name.
        name: String,
    },
    /// A result token other than `*`.
    #[error("result `{token}` in a conditional tree: a tree holds moves, not a result")]
    Result {
        /// Where it stands.
        span: Span,
        /// The token.
        token: String,
    },
    /// A stored tree that no longer fits the game (its history was rewritten) or cannot
    /// be read.
    #[error("the stored tree cannot be read: {why}")]
    Stored {
        /// What is wrong.
        why: String,
    },
}

fn wrong_number(written: &str, expected: &str, wrong_side: bool) -> String {
    if wrong_side {
        format!(
            "`{written}` numbers the other side's move, but this ply is `{expected}`: a line for the wrong side"
        )
    } else {
        format!("`{written}` is not this ply's number: this ply is `{expected}`")
    }
}

impl TreeRefusal {
    /// Where in the movetext the refusal points, if at a token.
    pub fn span(&self) -> Option<Span> {
        match self {
            TreeRefusal::Syntax(p) | TreeRefusal::Move(p) => Some(p.span),
            TreeRefusal::WrongNumber { span, .. }
            | TreeRefusal::TwoReplies { span, .. }
            | TreeRefusal::TagPair { span, .. }
            | TreeRefusal::Result { span, .. } => Some(*span),
            _ => None,
        }
    }

    /// The offending token, if at one.
    pub fn token(&self) -> &str {
        match self {
            TreeRefusal::Syntax(p) | TreeRefusal::Move(p) => &p.token,
            TreeRefusal::WrongNumber { written, .. } => written,
            TreeRefusal::TwoReplies { token, .. } | TreeRefusal::Result { token, .. } => token,
            TreeRefusal::TagPair { name, .. } => name,
            _ => "",
        }
    }

    /// What would be right, if known.
    pub fn help(&self) -> Option<String> {
        match self {
            TreeRefusal::Syntax(p) | TreeRefusal::Move(p) => p.help.clone(),
            TreeRefusal::WrongNumber { expected, .. } => {
                Some(format!("write `{expected}`, or leave the number out"))
            }
            TreeRefusal::TwoReplies { expected, first, .. } => Some(format!(
                "keep one reply to {expected}; alternatives go on the opponent's moves, e.g. `{expected} {first} (…)`"
            )),
            _ => None,
        }
    }
}

/// What a tree prepares now that the game has moved on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Followed {
    /// The opponent has not played the tree's next expected move yet: keep it.
    Waiting,
    /// The opponent's move matched a line: play this reply.
    Reply {
        /// The reply's ply (1-based).
        ply: usize,
        /// The reply (canonical SAN).
        san: String,
        /// The opponent's move it answers (canonical SAN).
        answers: String,
        /// The tree after the reply (none when this was its last reply).
        rest: Option<ConditionalTree>,
    },
    /// The tree does not apply any more.
    Dropped(Dropped),
}

/// Why a tree was dropped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "why", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Dropped {
    /// The game has ended.
    Finished {
        /// Its result token.
        result: String,
    },
    /// The opponent played a move no line expected.
    NoLine {
        /// The ply (1-based).
        ply: usize,
        /// The move played.
        played: String,
        /// The moves the tree expected there.
        expected: Vec<String>,
    },
    /// The owner played another move than the prepared reply (by hand).
    PlayedOtherwise {
        /// The ply (1-based).
        ply: usize,
        /// The move played.
        played: String,
        /// The reply prepared.
        prepared: String,
    },
    /// The opponent's move ends a line that prepares no reply to it.
    LineEnds {
        /// The ply (1-based).
        ply: usize,
        /// The move played.
        played: String,
    },
    /// Every prepared reply has been played.
    Exhausted,
    /// The game has fewer plies than when the tree was entered (its history changed).
    Rewritten {
        /// The plies the game has.
        plies: usize,
        /// The plies it had at entry.
        after_ply: usize,
    },
}

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dropped::Finished { result } => write!(f, "the game is over ({result})"),
            Dropped::NoLine { ply, played, expected } => write!(
                f,
                "ply {ply} {played} matches no prepared line (the tree expected {})",
                expected.join(" or ")
            ),
            Dropped::PlayedOtherwise { ply, played, prepared } => {
                write!(f, "ply {ply} was played as {played}, not the prepared {prepared}")
            }
            Dropped::LineEnds { ply, played } => write!(f, "the prepared line ends with ply {ply} {played}"),
            Dropped::Exhausted => write!(f, "every prepared reply has been played"),
            Dropped::Rewritten { plies, after_ply } => write!(
                f,
                "the game has {plies} plies, fewer than the {after_ply} it had when the tree was entered"
            ),
        }
    }
}

/// `12.` or `12...`: the number of the ply to be played in `p`.
fn number_of(p: &Position) -> String {
    let dots = if p.side_to_move() == Side::White { "." } else { "..." };
    format!("{}{dots}", p.fullmove_number())
}

/// A move number written right before the token at `span` on its line: where it
/// starts, the text, the number, and whether it is the second side's (`...`).
fn number_before(source: &str, span: Span) -> Option<(Span, String, u16, bool)> {
    let line = source.lines().nth(span.line.checked_sub(1)?)?;
    let before: String = line.chars().take(span.column.saturating_sub(1)).collect();
    let trimmed = before.trim_end();
    let chars: Vec<char> = trimmed.chars().collect();
    let tail_len = chars.iter().rev().take_while(|c| c.is_ascii_digit() || **c == '.').count();
    let tail: String = chars[chars.len() - tail_len..].iter().collect();
    let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
    let dots = &tail[digits.len()..];
    if digits.is_empty() || dots.is_empty() || !dots.chars().all(|c| c == '.') {
        return None;
    }
    let column = chars.len() - tail_len + 1;
    Some((Span { line: span.line, column }, tail.clone(), digits.parse().ok()?, dots.len() >= 2))
}

/// Reads the lines of a tree, checking each move where it stands.
struct Reader<'a> {
    variant: &'a Variant,
    source: &'a str,
}

impl Reader<'_> {
    /// The move `node` in `pos`, its number (if written) checked.
    fn play(&self, pos: &Position, node: &MoveNode) -> Result<Move, TreeRefusal> {
        if let Some((span, written, n, second)) = number_before(self.source, node.span) {
            let black = pos.side_to_move() == Side::Black;
            if (n, second) != (pos.fullmove_number(), black) {
                return Err(TreeRefusal::WrongNumber {
                    span,
                    written,
                    expected: number_of(pos),
                    wrong_side: second != black,
                });
            }
        }
        if let Some(o) = self.variant.outcome(pos) {
            let result = crate::record::game::result_token(o);
            return Err(TreeRefusal::Move(TokenProblem {
                span: node.span,
                token: node.token.clone(),
                message: format!(
                    "`{}`: a move after the end of the game (the line ends {result})",
                    node.token
                ),
                help: Some("end the line at the move that ends the game".into()),
            }));
        }
        read_move(self.variant, pos, &node.token)
            .map_err(|e| TreeRefusal::Move(move_problem(self.variant, pos, node, &e)))
    }

    /// Adds the line `moves` (an opponent's move in `pos`, the reply, …) and the
    /// alternatives of its first move to `into`.
    fn line(&self, moves: &[MoveNode], pos: &Position, into: &mut Vec<Branch>) -> Result<(), TreeRefusal> {
        let Some(first) = moves.first() else { return Ok(()) };
        let v = self.variant;
        let mv = self.play(pos, first)?;
        let san = write_move(v, pos, &mv);
        let after = v.make(pos, &mv);
        let i = match into.iter().position(|b| b.expected_move == mv) {
            Some(i) => i,
            None => {
                into.push(Branch {
                    expected: san.clone(),
                    expected_move: mv,
                    reply: None,
                    reply_move: None,
                    then: Vec::new(),
                });
                into.len() - 1
            }
        };
        if let Some(reply) = moves.get(1) {
            let expected = format!("{} {san}", number_of(pos));
            let rmv = self.play(&after, reply)?;
            let rsan = write_move(v, &after, &rmv);
            if let Some(alt) = reply.variations.iter().find_map(|l| l.first()) {
                let amv = self.play(&after, alt)?;
                return Err(TreeRefusal::TwoReplies {
                    span: alt.span,
                    token: alt.token.clone(),
                    expected,
                    first: rsan,
                    second: write_move(v, &after, &amv),
                });
            }
            let b = &mut into[i];
            if let (Some(m), Some(first_san)) = (b.reply_move, &b.reply)
                && m != rmv
            {
                return Err(TreeRefusal::TwoReplies {
                    span: reply.span,
                    token: reply.token.clone(),
                    expected,
                    first: first_san.clone(),
                    second: rsan,
                });
            }
            b.reply = Some(rsan);
            b.reply_move = Some(rmv);
            let after2 = v.make(&after, &rmv);
            self.line(&moves[2..], &after2, &mut into[i].then)?;
        }
        for alt in &first.variations {
            self.line(alt, pos, into)?;
        }
        Ok(())
    }
}

/// Reads `source` as the movetext of one tree: no tags, no result but `*`.
fn read_movetext(source: &str, example: &str) -> Result<GameText, TreeRefusal> {
    let mut games = read_games(source).into_iter();
    let Some(first) = games.next() else { return Err(TreeRefusal::Empty { example: example.to_string() }) };
    let text = first.map_err(|e| TreeRefusal::Syntax(e.into()))?;
    let stray: Option<TagPair> = match games.next() {
        Some(Ok(g)) => g.tags.first().cloned(),
        Some(Err(e)) => return Err(TreeRefusal::Syntax(e.into())),
        None => None,
    };
    if let Some(t) = text.tags.first().cloned().or(stray) {
        return Err(TreeRefusal::TagPair { span: t.span, name: t.name });
    }
    if let Some((token, span)) = &text.result
        && token != "*"
    {
        return Err(TreeRefusal::Result { span: *span, token: token.clone() });
    }
    if text.moves.is_empty() {
        return Err(TreeRefusal::Empty { example: example.to_string() });
    }
    Ok(text)
}

/// Checks the tree `movetext` of `owner` against `game` as it stands (see the module
/// docs) and gives it.
///
/// # Errors
/// The [`TreeRefusal`]: the game is over, it is the owner's move, or the first problem
/// of the movetext, at its token.
pub fn enter(game: &Game, owner: Side, movetext: &str) -> Result<ConditionalTree, TreeRefusal> {
    let result = result_of(game);
    if result != "*" {
        return Err(TreeRefusal::GameOver { result });
    }
    let pos = game.position();
    if let Some(o) = game.variant.outcome(&pos) {
        return Err(TreeRefusal::GameOver { result: crate::record::game::result_token(o).to_string() });
    }
    if pos.side_to_move() == owner {
        return Err(TreeRefusal::OwnersTurn {
            owner: crate::record::player(game, owner),
            ply: game.moves.len() + 1,
        });
    }
    let text = read_movetext(movetext, &number_of(&pos))?;
    ConditionalTree::read(&game.variant, &pos, owner, game.moves.len(), &text, movetext)
}

/// The tags of a stored tree ([`ConditionalTree::stored`]).
const GAME_TAG: &str = "Game";
const OWNER_TAG: &str = "Owner";
const SIDE_TAG: &str = "Side";
const AFTER_TAG: &str = "AfterPly";

impl ConditionalTree {
    /// The tree of `text` (the movetext read from `source`) for `owner`, starting in
    /// `start`, the position after `after_ply` plies.
    fn read(
        variant: &Variant,
        start: &Position,
        owner: Side,
        after_ply: usize,
        text: &GameText,
        source: &str,
    ) -> Result<ConditionalTree, TreeRefusal> {
        let reader = Reader { variant, source };
        let mut lines = Vec::new();
        reader.line(&text.moves, start, &mut lines)?;
        Ok(ConditionalTree { owner, after_ply, first_number: start.fullmove_number(), lines })
    }

    /// The tree as movetext, canonical: the first line of each point as the main line,
    /// the others as variations, numbered from the first expected move.
    pub fn movetext(&self) -> String {
        let text = GameText { moves: nodes(&self.lines), ..GameText::default() };
        let written = write_game(&text, u32::from(self.first_number), self.owner == Side::Black);
        written.trim().trim_end_matches('*').trim().to_string()
    }

    /// Every line from the first expected move to its end, each move numbered
    /// (`12... Qd7`, `13. Nc5`, …).
    pub fn paths(&self) -> Vec<Vec<String>> {
        fn walk(
            bs: &[Branch],
            k: usize,
            t: &ConditionalTree,
            prefix: &mut Vec<String>,
            out: &mut Vec<Vec<String>>,
        ) {
            for b in bs {
                let depth = prefix.len();
                prefix.push(format!("{} {}", t.number_at(k), b.expected));
                if let Some(r) = &b.reply {
                    prefix.push(format!("{} {r}", t.number_at(k + 1)));
                }
                if b.then.is_empty() || b.reply.is_none() {
                    out.push(prefix.clone());
                } else {
                    walk(&b.then, k + 2, t, prefix, out);
                }
                prefix.truncate(depth);
            }
        }
        let mut out = Vec::new();
        walk(&self.lines, 0, self, &mut Vec::new(), &mut out);
        out
    }

    /// The number of the `k`th ply of the tree (0: the first expected move).
    fn number_at(&self, k: usize) -> String {
        let first_black = self.owner == Side::White;
        let n = usize::from(self.first_number) + if first_black { k.div_ceil(2) } else { k / 2 };
        let black = k.is_multiple_of(2) == first_black;
        format!("{n}{}", if black { "..." } else { "." })
    }

    /// The most plies of any line.
    pub fn depth(&self) -> usize {
        self.paths().iter().map(Vec::len).max().unwrap_or(0)
    }

    /// The tree as stored in the owner's clone: tags naming the game, the owner, the
    /// side and the plies before it, then [`ConditionalTree::movetext`]
    /// (`notation-spec/movetext.md`, "Conditional trees").
    pub fn stored(&self, game_id: &str, owner_name: &str) -> String {
        let tag =
            |name: &str, value: String| TagPair { name: name.to_string(), value, span: Span::default() };
        let text = GameText {
            tags: vec![
                tag(GAME_TAG, game_id.to_string()),
                tag(OWNER_TAG, owner_name.to_string()),
                tag(SIDE_TAG, self.owner.to_string()),
                tag(AFTER_TAG, self.after_ply.to_string()),
            ],
            moves: nodes(&self.lines),
            ..GameText::default()
        };
        write_game(&text, u32::from(self.first_number), self.owner == Side::Black)
    }

    /// Reads a stored tree ([`ConditionalTree::stored`]) of `game`, every move checked
    /// again from the position it starts in.
    ///
    /// # Errors
    /// [`TreeRefusal::Stored`] when its tags are missing or the game is shorter than the
    /// tree's start; the movetext's refusals.
    pub fn from_stored(game: &Game, stored: &str) -> Result<ConditionalTree, TreeRefusal> {
        let mut games = read_games(stored).into_iter();
        let text = match games.next() {
            Some(Ok(t)) => t,
            Some(Err(e)) => return Err(TreeRefusal::Stored { why: e.to_string() }),
            None => return Err(TreeRefusal::Stored { why: "the file is empty".into() }),
        };
        let owner = match text.tag(SIDE_TAG) {
            Some("white") => Side::White,
            Some("black") => Side::Black,
            other => {
                return Err(TreeRefusal::Stored {
                    why: format!("Side tag {other:?}: white or black expected"),
                });
            }
        };
        let after_ply: usize = text
            .tag(AFTER_TAG)
            .and_then(|a| a.parse().ok())
            .ok_or_else(|| TreeRefusal::Stored { why: "no AfterPly tag".into() })?;
        if after_ply > game.moves.len() {
            return Err(TreeRefusal::Stored {
                why: format!("it starts after ply {after_ply}, but the game has {} plies", game.moves.len()),
            });
        }
        let start = game.position_at(after_ply);
        if start.side_to_move() == owner {
            return Err(TreeRefusal::Stored { why: format!("after ply {after_ply} it is the owner's move") });
        }
        ConditionalTree::read(&game.variant, &start, owner, after_ply, &text, stored)
    }

    /// What the tree prepares now that `game` (the game it was entered for, moved on)
    /// stands where it does: see [`Followed`].
    pub fn follow(&self, game: &Game) -> Followed {
        let result = result_of(game);
        if result != "*" {
            return Followed::Dropped(Dropped::Finished { result });
        }
        let n = game.moves.len();
        if n < self.after_ply {
            return Followed::Dropped(Dropped::Rewritten { plies: n, after_ply: self.after_ply });
        }
        let v = &game.variant;
        let mut branches = &self.lines;
        let mut ply = self.after_ply;
        loop {
            if ply == n {
                return if branches.is_empty() {
                    Followed::Dropped(Dropped::Exhausted)
                } else {
                    Followed::Waiting
                };
            }
            let played = game.moves[ply];
            let before = game.position_at(ply);
            let played_san = write_move(v, &before, &played);
            let Some(b) = branches.iter().find(|b| b.expected_move == played) else {
                return Followed::Dropped(Dropped::NoLine {
                    ply: ply + 1,
                    played: played_san,
                    expected: branches.iter().map(|b| b.expected.clone()).collect(),
                });
            };
            let (Some(reply), Some(reply_san)) = (b.reply_move, &b.reply) else {
                return Followed::Dropped(Dropped::LineEnds { ply: ply + 1, played: played_san });
            };
            ply += 1;
            if ply == n {
                let after = v.make(&game.position(), &reply);
                let rest = (!b.then.is_empty()).then(|| ConditionalTree {
                    owner: self.owner,
                    after_ply: n + 1,
                    first_number: after.fullmove_number(),
                    lines: b.then.clone(),
                });
                return Followed::Reply { ply: n + 1, san: reply_san.clone(), answers: played_san, rest };
            }
            if game.moves[ply] != reply {
                let mine = write_move(v, &game.position_at(ply), &game.moves[ply]);
                return Followed::Dropped(Dropped::PlayedOtherwise {
                    ply: ply + 1,
                    played: mine,
                    prepared: reply_san.clone(),
                });
            }
            ply += 1;
            branches = &b.then;
        }
    }
}

/// The branches as movetext nodes: the first as the main line, the others as its
/// variations.
fn nodes(branches: &[Branch]) -> Vec<MoveNode> {
    let Some((main, others)) = branches.split_first() else { return Vec::new() };
    let mut line = vec![MoveNode {
        token: main.expected.clone(),
        variations: others.iter().map(|b| nodes(std::slice::from_ref(b))).collect(),
        ..MoveNode::default()
    }];
    if let Some(r) = &main.reply {
        line.push(MoveNode { token: r.clone(), ..MoveNode::default() });
        line.extend(nodes(&main.then));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::load;

    /// A Fantasy Grand Chess game (Humans v Humans) after `moves`.
    fn game(moves: &str) -> Game {
        load(&format!(
            "[White \"Ann\"]\n[Black \"Bo\"]\n[Variant \"fantasy-grand\"]\n[Result \"*\"]\n\n{moves} *\n"
        ))
        .unwrap()
    }

    #[test]
    fn a_tree_reads_with_its_variations_and_writes_back_canonically() {
        let g = game("1. e4");
        let tree =
            enter(&g, Side::White, "e7 (1... f7 2. g4) (j7 i4 i7 h4) 2.d4 d7 (a7 3. j4) 3. c4").unwrap();
        assert_eq!((tree.owner, tree.after_ply, tree.first_number), (Side::White, 1, 1));
        assert_eq!(
            tree.movetext(),
            "1... e7 (1... f7 2. g4) (1... j7 2. i4 i7 3. h4) 2. d4 d7 (2... a7 3. j4) 3. c4"
        );
        assert_eq!(
            tree.paths(),
            [
                vec!["1... e7", "2. d4", "2... d7", "3. c4"],
                vec!["1... e7", "2. d4", "2... a7", "3. j4"],
                vec!["1... f7", "2. g4"],
                vec!["1... j7", "2. i4", "2... i7", "3. h4"],
            ]
        );
        assert_eq!(tree.depth(), 4);
        // The same expected move twice with the same reply: one line, merged.
        let merged = enter(&g, Side::White, "1... e7 (1... e7 2. d4 2... a7 3. j4) 2. d4").unwrap();
        assert_eq!(merged.movetext(), "1... e7 2. d4 a7 3. j4");
        // Stored and read back: the same tree.
        let stored = tree.stored("g", "Ann");
        assert!(
            stored.starts_with("[AfterPly \"1\"]\n[Game \"g\"]\n[Owner \"Ann\"]\n[Side \"white\"]\n"),
            "{stored}"
        );
        assert_eq!(ConditionalTree::from_stored(&g, &stored).unwrap(), tree);
    }

    #[test]
    fn following_a_tree_gives_the_reply_then_drops_on_a_deviation() {
        let g = game("1. e4");
        let tree = enter(&g, Side::White, "1... e7 (1... f7 2. g4) 2. d4 2... d7 3. c4").unwrap();
        assert_eq!(tree.follow(&g), Followed::Waiting);
        let Followed::Reply { ply, san, answers, rest } = tree.follow(&game("1. e4 e7")) else { panic!() };
        assert_eq!((ply, san.as_str(), answers.as_str()), (3, "d4", "e7"));
        let rest = rest.expect("lines after d4");
        assert_eq!((rest.after_ply, rest.movetext().as_str()), (3, "2... d7 3. c4"));
        assert_eq!(
            tree.follow(&game("1. e4 f7")),
            Followed::Reply { ply: 3, san: "g4".into(), answers: "f7".into(), rest: None }
        );
        assert_eq!(
            tree.follow(&game("1. e4 a7")),
            Followed::Dropped(Dropped::NoLine {
                ply: 2,
                played: "a7".into(),
                expected: vec!["e7".into(), "f7".into()]
            })
        );
        // Followed along plies already played: the reply by hand, then the next reply.
        assert_eq!(tree.follow(&game("1. e4 e7 2. d4")), Followed::Waiting);
        assert!(matches!(tree.follow(&game("1. e4 e7 2. d4 d7")), Followed::Reply { ply: 5, .. }));
        assert_eq!(
            tree.follow(&game("1. e4 e7 2. h4")),
            Followed::Dropped(Dropped::PlayedOtherwise {
                ply: 3,
                played: "h4".into(),
                prepared: "d4".into()
            })
        );
        assert_eq!(tree.follow(&game("1. e4 f7 2. g4")), Followed::Dropped(Dropped::Exhausted));
        assert_eq!(tree.follow(&game("")), Followed::Dropped(Dropped::Rewritten { plies: 0, after_ply: 1 }));
        let mut over = game("1. e4 e7");
        over.text.result = Some(("0-1".into(), Span::default()));
        assert_eq!(tree.follow(&over), Followed::Dropped(Dropped::Finished { result: "0-1".into() }));
    }

    #[test]
    fn bad_trees_are_refused_at_the_token() {
        let g = game("1. e4");
        // An illegal move four plies deep, on line 2.
        match enter(&g, Side::White, "1... e7 2. d4\n2... d7 3. d6").unwrap_err() {
            TreeRefusal::Move(p) => {
                assert_eq!((p.span.line, p.span.column, p.token.as_str()), (2, 12, "d6"));
                assert!(p.message.starts_with("illegal move `d6`"), "{}", p.message);
            }
            other => panic!("{other:?}"),
        }
        // Two replies to one expected move.
        let e = enter(&g, Side::White, "1... e7 2. d4 (2. c4)").unwrap_err();
        assert_eq!(
            e,
            TreeRefusal::TwoReplies {
                span: Span { line: 1, column: 19 },
                token: "c4".into(),
                expected: "1... e7".into(),
                first: "d4".into(),
                second: "c4".into()
            }
        );
        // A line for the wrong side: White's number on Black's ply.
        let e = enter(&g, Side::White, "  1. e7").unwrap_err();
        assert_eq!(
            e,
            TreeRefusal::WrongNumber {
                span: Span { line: 1, column: 3 },
                written: "1.".into(),
                expected: "1...".into(),
                wrong_side: true
            }
        );
        assert_eq!(e.token(), "1.");
        let e = enter(&g, Side::White, "3... e7").unwrap_err();
        assert!(matches!(e, TreeRefusal::WrongNumber { wrong_side: false, .. }), "{e:?}");
        // The owner's own move, a tag, a result, nothing.
        assert_eq!(
            enter(&g, Side::Black, "2. d4").unwrap_err(),
            TreeRefusal::OwnersTurn { owner: "Bo".into(), ply: 2 }
        );
        assert!(matches!(
            enter(&g, Side::White, "[Event \"x\"]\n").unwrap_err(),
            TreeRefusal::TagPair { .. }
        ));
        assert!(matches!(enter(&g, Side::White, "e7 1-0").unwrap_err(), TreeRefusal::Result { .. }));
        assert!(matches!(enter(&g, Side::White, "").unwrap_err(), TreeRefusal::Empty { .. }));
        let mut over = g.clone();
        over.text.result = Some(("1-0".into(), Span::default()));
        assert_eq!(
            enter(&over, Side::White, "e7").unwrap_err(),
            TreeRefusal::GameOver { result: "1-0".into() }
        );
    }
}
