//! What one game's page shows, computed from its replayed [`Game`]: the tags, the move
//! list with comments, and every ply's position as data for the page's script
//! ([`PlyData`]): the pieces that changed since the ply before (square name and position
//! string token), the last move's squares, both sides' pieces in hand, the position
//! string and whose move it is.
//!
//! The board itself is [`crate::notation::svg::board_svg`]: the empty board whose every
//! `<rect class="square">` has the square's name as its `id` (`2e3` on Gygax Chess,
//! `f6` elsewhere); the script puts the ply's pieces on it.

use serde::Serialize;

use crate::engine::{Position, Side, Variant};
use crate::notation::diagram::piece_label;
use crate::notation::pgn::VERBATIM_MARK;
use crate::notation::position_string::{piece_token, write_position};
use crate::record::game::Game;
use crate::record::{PREPARED_COMMENT, TIME_PREFIX, player, result_of};

/// One ply's position, as the page's script reads it (JSON, short field names).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct PlyData {
    /// The squares whose contents changed since the ply before: `[square, token]`, the
    /// token `""` for a square left empty (at ply 0: every occupied square).
    pub d: Vec<(String, String)>,
    /// The last move's squares: its origin (absent for a piece brought onto the board)
    /// and its destination; empty at ply 0.
    pub l: Vec<String>,
    /// Pieces in hand: for each side (first side first), `[token, count]` of each kind
    /// held.
    pub h: [Vec<(String, u8)>; 2],
    /// The position string.
    pub f: String,
    /// Whose move it is, e.g. `Gold to move (move 12)`, or the end of the game.
    pub s: String,
    /// Squares marked: `[square, "check"]` for the royal piece of a side in check,
    /// `[square, "frozen"]` for each frozen piece (Gygax Chess's Basilisk).
    pub m: Vec<(String, &'static str)>,
}

/// How piece `p` is drawn.
fn piece_style(v: &Variant, p: crate::engine::Piece) -> PieceStyle {
    PieceStyle { label: piece_label(v, p), side: if p.side == Side::White { 0 } else { 1 } }
}

/// The squares of a move a board outlines as the last move: its origin (none for a piece
/// brought onto the board) and its destination.
fn last_squares(v: &Variant, m: &crate::engine::Move) -> Vec<String> {
    let dims = v.def().dims;
    m.from().into_iter().chain(std::iter::once(m.to())).map(|sq| dims.name(sq)).collect()
}

/// Whether `marks` hold a check.
fn checked(marks: &[(String, &'static str)]) -> bool {
    marks.iter().any(|(_, k)| *k == "check")
}

/// The marks of `pos` ([`PlyData::m`]): the side to move's royal piece when in check,
/// and every frozen piece.
fn marks(v: &Variant, pos: &Position) -> Vec<(String, &'static str)> {
    let dims = v.def().dims;
    let mut out: Vec<(String, &'static str)> =
        dims.squares().filter(|&sq| v.is_frozen(pos, sq)).map(|sq| (dims.name(sq), "frozen")).collect();
    if v.in_check(pos)
        && let Some(k) = pos.royal_square(pos.side_to_move())
    {
        out.push((dims.name(k), "check"));
    }
    out
}

/// How a piece token is drawn: its label and whose it is (0: first side).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct PieceStyle {
    /// The text on the disc.
    pub label: String,
    /// 0 for the first side, 1 for the second.
    pub side: u8,
}

/// Everything the page's script needs, embedded as one JSON object.
#[derive(Debug, Clone, Serialize)]
pub struct BoardData {
    /// Cell size in SVG units.
    pub cell: u32,
    /// Files and ranks of each level.
    pub files: u8,
    /// See [`BoardData::files`].
    pub ranks: u8,
    /// Every piece token that occurs, and how to draw it.
    pub pieces: std::collections::BTreeMap<String, PieceStyle>,
    /// The side names, first side first.
    pub sides: [String; 2],
    /// One entry per ply, ply 0 (the start position) first.
    pub plies: Vec<PlyData>,
}

/// A move of the main line in the page's list.
#[derive(Debug, Clone, Serialize)]
pub struct MoveItem {
    /// The ply this move leads to (1 for the first move).
    pub ply: usize,
    /// The move number shown before it (`12.`, or `12…` for a second-side move that
    /// starts the list), empty otherwise.
    pub number: String,
    /// The move as written (SAN).
    pub san: String,
    /// Its comments (diagram lines and the time comment left out).
    pub comments: Vec<String>,
    /// When it was played, from its time comment (`2026-11-29T16:40:00Z`), if it has one.
    pub time: Option<String>,
}

/// One piece kind of the page's legend.
#[derive(Debug, Clone, Serialize)]
pub struct LegendItem {
    /// The letters drawn on its disc and written in moves (`S`, `Mk`).
    pub code: String,
    /// Its name (`Sylph`).
    pub name: String,
    /// How it moves, in one line (the variant's rule text).
    pub summary: String,
}

/// One tag pair.
#[derive(Debug, Clone, Serialize)]
pub struct TagItem {
    /// The tag's name.
    pub name: String,
    /// Its value.
    pub value: String,
}

/// A game's page, before it is written out.
#[derive(Debug, Clone, Serialize)]
pub struct GamePage {
    /// The game id.
    pub id: String,
    /// The variant's slug (`gygax`).
    pub variant: String,
    /// The variant's title (`Gygax Chess`).
    pub title: String,
    /// The first side's player.
    pub white: String,
    /// The second side's player.
    pub black: String,
    /// The first side's name (`Gold`).
    pub white_side: String,
    /// The second side's name (`Scarlet`).
    pub black_side: String,
    /// The result token.
    pub result: String,
    /// Why the rules ended the game (`bare king`, `counting rule`), if they did: from the
    /// referee's typed verdict on the last position ([`crate::referee::Ended`]).
    pub reason: Option<String>,
    /// Plies in the main line.
    pub plies: usize,
    /// Whose move it is now, if the game goes on (the player's name).
    pub to_move: Option<String>,
    /// The tag pairs in file order.
    pub tags: Vec<TagItem>,
    /// Comments before the first move.
    pub leading_comments: Vec<String>,
    /// The main line.
    pub moves: Vec<MoveItem>,
    /// Whether the page shows pieces in hand (Fidchell, or any game where a side holds
    /// some).
    pub hands: bool,
    /// The kinds of piece that occur in the game, with how each moves.
    pub legend: Vec<LegendItem>,
    /// The board's data (serialised into the page).
    #[serde(skip)]
    pub board: BoardData,
    /// The empty board ([`crate::notation::svg::board_svg`]).
    #[serde(skip)]
    pub svg: String,
}

/// The comments a page shows: the players' (`move --comment`) and the record's notes,
/// without diagram lines, the move time (shown apart) and the prepared-reply note, which
/// is its owner's to know.
fn comments(list: &[String]) -> Vec<String> {
    list.iter()
        .filter(|c| !c.starts_with(VERBATIM_MARK) && !c.starts_with(TIME_PREFIX) && *c != PREPARED_COMMENT)
        .cloned()
        .collect()
}

fn move_time(list: &[String]) -> Option<String> {
    list.iter().find_map(|c| c.strip_prefix(TIME_PREFIX)).map(|t| t.trim().to_string())
}

fn hands(v: &Variant, pos: &Position) -> [Vec<(String, u8)>; 2] {
    let def = v.def();
    Side::ALL.map(|side| {
        (0..def.kinds.len())
            .filter_map(|i| {
                let kind = crate::engine::PieceKind::new(i as u8);
                let n = pos.in_hand(side, kind);
                (n > 0).then(|| (piece_token(def, crate::engine::Piece { side, kind }), n))
            })
            .collect()
    })
}

/// `in_check`: the side to move is in check (from [`marks`]).
fn side_line(game: &Game, pos: &Position, ply: usize, in_check: bool) -> String {
    let def = game.variant.def();
    if ply == game.moves.len() {
        if let Some(end) = crate::referee::Ended::of(game) {
            return format!("Game over: {end}");
        }
        let result = result_of(game);
        if result != "*" {
            return format!("Game over: {result}");
        }
    }
    let check = if in_check { ", in check" } else { "" };
    format!("{} to move (move {}){check}", def.side_name(pos.side_to_move()), pos.fullmove_number())
}

/// A position outside the game's record (the analysis board's): every occupied square,
/// the move that led to it, the pieces in hand, the position string and `side_line`,
/// with the style of each piece token it shows.
pub fn position_data(
    v: &Variant,
    pos: &Position,
    last: Option<&crate::engine::Move>,
    side_line: String,
) -> (PlyData, std::collections::BTreeMap<String, PieceStyle>) {
    let def = v.def();
    let dims = def.dims;
    let mut pieces = std::collections::BTreeMap::new();
    let d = dims
        .squares()
        .filter_map(|sq| {
            let p = pos.piece_at(sq)?;
            let token = piece_token(def, p);
            pieces.entry(token.clone()).or_insert_with(|| piece_style(v, p));
            Some((dims.name(sq), token))
        })
        .collect();
    for side in Side::ALL {
        for i in 0..def.kinds.len() {
            let p = crate::engine::Piece { side, kind: crate::engine::PieceKind::new(i as u8) };
            if pos.in_hand(side, p.kind) > 0 {
                pieces.entry(piece_token(def, p)).or_insert_with(|| piece_style(v, p));
            }
        }
    }
    let h = hands(v, pos);
    let l = last.map(|m| last_squares(v, m)).unwrap_or_default();
    (PlyData { d, l, h, f: write_position(v, pos), s: side_line, m: marks(v, pos) }, pieces)
}

/// The page of `game` (game id `id`).
pub fn game_page(id: &str, game: &Game) -> GamePage {
    let v = &game.variant;
    let def = v.def();
    let dims = def.dims;
    let squares: Vec<_> = dims.squares().collect();
    let mut pieces = std::collections::BTreeMap::new();
    let mut style = |p: crate::engine::Piece| {
        let token = piece_token(def, p);
        pieces.entry(token.clone()).or_insert_with(|| piece_style(v, p));
        token
    };
    let mut plies = Vec::with_capacity(game.moves.len() + 1);
    let mut pos = game.start.clone();
    let mut any_hand = def.slug == "fidchell";
    let d = squares.iter().filter_map(|&sq| pos.piece_at(sq).map(|p| (dims.name(sq), style(p)))).collect();
    let h = hands(v, &pos);
    any_hand |= h.iter().any(|s| !s.is_empty());
    let m = marks(v, &pos);
    plies.push(PlyData {
        d,
        l: vec![],
        s: side_line(game, &pos, 0, checked(&m)),
        f: write_position(v, &pos),
        h,
        m,
    });
    let mut items = Vec::with_capacity(game.moves.len());
    for (i, m) in game.moves.iter().enumerate() {
        let next = v.make(&pos, m);
        let d = squares
            .iter()
            .filter(|&&sq| pos.piece_at(sq) != next.piece_at(sq))
            .map(|&sq| (dims.name(sq), next.piece_at(sq).map(&mut style).unwrap_or_default()))
            .collect();
        let l = last_squares(v, m);
        let h = hands(v, &next);
        any_hand |= h.iter().any(|s| !s.is_empty());
        let node = game.text.moves.get(i);
        let number = if pos.side_to_move() == Side::White {
            format!("{}.", pos.fullmove_number())
        } else if i == 0 {
            format!("{}…", pos.fullmove_number())
        } else {
            String::new()
        };
        items.push(MoveItem {
            ply: i + 1,
            number,
            san: node.map(|n| n.token.clone()).unwrap_or_default(),
            comments: node.map(|n| comments(&n.comments)).unwrap_or_default(),
            time: node.and_then(|n| move_time(&n.comments)),
        });
        let m = marks(v, &next);
        plies.push(PlyData {
            d,
            l,
            s: side_line(game, &next, i + 1, checked(&m)),
            f: write_position(v, &next),
            h,
            m,
        });
        pos = next;
    }
    let result = result_of(game);
    let to_move = (result == "*").then(|| player(game, pos.side_to_move()));
    let seen = |kind: crate::engine::PieceKind| {
        Side::ALL
            .into_iter()
            .any(|side| pieces.contains_key(&piece_token(def, crate::engine::Piece { side, kind })))
    };
    let legend = crate::variants::legend::legend(def)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| seen(crate::engine::PieceKind::new(*i as u8)))
        .map(|(_, e)| LegendItem { code: e.code, name: e.name, summary: e.summary })
        .collect();
    let cell =
        if def.render.cell_size > 0 { def.render.cell_size } else { crate::notation::svg::DEFAULT_CELL_SIZE };
    GamePage {
        id: id.to_string(),
        variant: def.slug.clone(),
        title: def.title.clone(),
        white: player(game, Side::White),
        black: player(game, Side::Black),
        white_side: def.side_name(Side::White).to_string(),
        black_side: def.side_name(Side::Black).to_string(),
        result,
        reason: crate::referee::Ended::of(game).map(|e| e.reason.to_string()),
        plies: game.moves.len(),
        to_move,
        tags: game
            .text
            .tags
            .iter()
            .map(|t| TagItem { name: t.name.clone(), value: t.value.clone() })
            .collect(),
        leading_comments: comments(&game.text.leading_comments),
        moves: items,
        hands: any_hand,
        legend,
        svg: crate::notation::svg::board_svg(v),
        board: BoardData {
            cell,
            files: dims.files(),
            ranks: dims.ranks(),
            pieces,
            sides: [def.side_name(Side::White).to_string(), def.side_name(Side::Black).to_string()],
            plies,
        },
    }
}

impl GamePage {
    /// The page without email addresses ([`super::privacy`]): the players' names without
    /// theirs, the tags holding one left out (`White` and `Black` kept, as names), the
    /// addresses in comments masked.
    pub fn hide_addresses(&mut self) {
        use super::privacy::{holds_address, masked, public_name};
        for name in [&mut self.white, &mut self.black] {
            *name = public_name(name).into_owned();
        }
        if let Some(n) = &mut self.to_move {
            *n = public_name(n).into_owned();
        }
        self.tags.retain_mut(|t| match t.name.as_str() {
            "White" | "Black" => {
                t.value = public_name(&t.value).into_owned();
                true
            }
            _ => !holds_address(&t.value),
        });
        let mask = |c: &mut String| *c = masked(c).into_owned();
        self.leading_comments.iter_mut().for_each(mask);
        for m in &mut self.moves {
            m.comments.iter_mut().for_each(mask);
        }
    }
}

/// `value` as JSON that may stand inside an HTML `<script>` element: `<`, `>` and `&`
/// (which JSON has only inside strings) written as `\u` escapes, so no text of the
/// game can close the element or open a comment.
pub fn script_json<T: Serialize>(value: &T) -> String {
    let json = serde_json::to_string(value).expect("page data serialises");
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_cannot_close_the_script_element() {
        let s = script_json(&vec!["</script><!-- & \u{2028}"]);
        assert_eq!(s, r#"["\u003c/script\u003e\u003c!-- \u0026 \u2028"]"#);
        let back: Vec<String> = serde_json::from_str(&s).unwrap();
        assert_eq!(back, ["</script><!-- & \u{2028}"]);
    }

    #[test]
    fn a_page_has_one_ply_entry_per_position_and_the_start_pieces() {
        let game = crate::record::load(
            "[Variant \"grand\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\ne4 {ravenpost: at 2025-11-29T08:00:00Z} {ravenpost: prepared} {good} e7 *\n",
        )
        .unwrap();
        let page = game_page("g", &game);
        assert_eq!(page.board.plies.len(), 3);
        // Grand Chess starts with 40 pieces; a pawn move changes two squares.
        assert_eq!(page.board.plies[0].d.len(), 40);
        assert_eq!(
            page.board.plies[1].d,
            [("e3".to_string(), String::new()), ("e4".to_string(), "P".to_string())]
        );
        assert_eq!(page.board.plies[1].l, ["e3", "e4"]);
        assert_eq!(page.moves[0].number, "1.");
        // The player's comment is shown; the prepared-reply note is not (issue 34).
        assert_eq!(page.moves[0].comments, ["good"]);
        assert_eq!(page.moves[0].time.as_deref(), Some("2025-11-29T08:00:00Z"));
        assert_eq!(page.moves[1].number, "");
        assert_eq!(page.to_move.as_deref(), Some("A"));
    }
}
