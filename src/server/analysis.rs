//! The analysis board: lines tried from any position of a game, with the legal moves
//! from the server and nothing committed; the lines saved as the player's conditional
//! tree (the one `ravenpost conditional add` writes, kept in this archive's git
//! directory, never committed or pushed); and leave booked (`ravenpost leave`): the
//! steps of a page that name the user's own side rather than the side to move.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::{
    LegalMove, Refused, Served, Visitor, admitted, blocking, change_request, error_response, json_answer,
    json_body, legal_moves, load_game, refusal, side_in,
};
use crate::site::page::{PieceStyle, PlyData, position_data};
use crate::usecases as ops;

/// The longest line the board analyses (plies from its starting position).
pub const MAX_LINE: usize = 400;

/// What a page asks: the line `line` (SAN tokens) tried from the position after ply
/// `from` of the game.
#[derive(Debug, Deserialize)]
pub struct AnalyseRequest {
    /// The game's ply the line starts from.
    pub from: usize,
    /// The moves tried, in order.
    pub line: Vec<String>,
}

/// One position of a line: how to draw it and its legal moves.
#[derive(Debug, Serialize)]
pub struct LinePosition {
    /// The position, every occupied square in `d`.
    pub p: PlyData,
    /// Its legal moves.
    pub moves: Vec<LegalMove>,
}

/// The answer: each position of the line (its start first), the line's moves in
/// canonical SAN, and the style of every piece shown.
#[derive(Debug, Serialize)]
pub struct Analysis {
    /// `line.len() + 1` positions.
    pub positions: Vec<LinePosition>,
    /// The moves as ravenpost writes them.
    pub sans: Vec<String>,
    /// Piece token → how it is drawn.
    pub pieces: std::collections::BTreeMap<String, PieceStyle>,
}

/// Works out `line` from ply `from` of `g`: refused (422) at the first move that is not
/// legal, with the reason and where.
pub fn analyse(g: &crate::record::game::Game, from: usize, line: &[String]) -> Result<Analysis, Refused> {
    if from > g.moves.len() {
        return Err(refusal(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("the game has {} plies: a line starts from ply 0 to {}", g.moves.len(), g.moves.len()),
        ));
    }
    if line.len() > MAX_LINE {
        return Err(refusal(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("a line is at most {MAX_LINE} plies ({} sent)", line.len()),
        ));
    }
    let v = &g.variant;
    let def = v.def();
    let mut pos = g.position_at(from);
    let side_line = |pos: &crate::engine::Position, moves: &[LegalMove]| {
        let side = def.side_name(pos.side_to_move());
        if moves.is_empty() {
            format!("Analysis: {side} to move (move {}) has no legal move", pos.fullmove_number())
        } else {
            format!("Analysis: {side} to move (move {})", pos.fullmove_number())
        }
    };
    let mut pieces = std::collections::BTreeMap::new();
    let mut positions = Vec::with_capacity(line.len() + 1);
    let mut sans = Vec::with_capacity(line.len());
    let mut last = None;
    for i in 0..=line.len() {
        let moves = legal_moves(v, &pos);
        let (p, styles) = position_data(v, &pos, last.as_ref(), side_line(&pos, &moves));
        pieces.extend(styles);
        positions.push(LinePosition { p, moves });
        let Some(token) = line.get(i) else { break };
        let m = crate::notation::san::read_move(v, &pos, token).map_err(|e| {
            refusal(StatusCode::UNPROCESSABLE_ENTITY, format!("move {} of the line, {token}: {e}", i + 1))
        })?;
        sans.push(crate::notation::san::write_move(v, &pos, &m));
        pos = v.make(&pos, &m);
        last = Some(m);
    }
    Ok(Analysis { positions, sans, pieces })
}

/// `POST /game/ID/analyse`: the positions of a line tried, nothing written.
pub(super) async fn analyse_line(
    State(s): State<Arc<Served>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    if let Err(r) = admitted(&s, &headers) {
        return r.into_response();
    }
    let request: AnalyseRequest = match json_body(&body, 64 * 1024, "a line ({\"from\", \"line\"})") {
        Ok(r) => r,
        Err(r) => return r.into_response(),
    };
    let answer = blocking(move || {
        let archive = ops::open(&s.session, false).map_err(|e| error_response(&e))?;
        let g = load_game(&archive, &id)?;
        analyse(&g, request.from, &request.line)
    })
    .await;
    match answer {
        Ok(a) => axum::Json(a).into_response(),
        Err(r) => r.into_response(),
    }
}

/// A tree of lines to keep as the user's conditional moves.
#[derive(Debug, Deserialize)]
pub struct TreeRequest {
    /// The tree in movetext with variations, as `ravenpost conditional add` takes it.
    pub movetext: String,
}

/// `POST /game/ID/conditional`: stores the tree as `ravenpost conditional add` does
/// (checked against the game; replacing the player's earlier tree).
pub(super) async fn save_tree(
    State(s): State<Arc<Served>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let (visitor, request): (Visitor, TreeRequest) =
        match change_request(&s, &headers, &body, 64 * 1024, "a tree ({\"movetext\"})") {
            Ok(r) => r,
            Err(r) => return r.into_response(),
        };
    let answer = blocking(move || {
        let archive = ops::open(&s.session, false).map_err(|e| error_response(&e))?;
        // A club member keeps a tree only for the side their account plays.
        let who = match &visitor {
            Visitor::User => None,
            Visitor::Account(_) => Some(own_player(&archive, &s, &visitor, &id)?),
        };
        let prepared = ops::conditional_add(&archive, &id, &request.movetext, who.as_deref(), &s.session)
            .map_err(|e| error_response(&e))?;
        Ok(serde_json::json!({
            "owner": prepared.owner,
            "movetext": prepared.movetext,
            "lines": prepared.lines,
        }))
    })
    .await;
    json_answer(answer)
}

/// The player of the side the visitor plays in game `id`: refused (403) when none.
fn own_player(
    archive: &crate::archive::Archive,
    s: &Served,
    visitor: &Visitor,
    id: &str,
) -> Result<String, Refused> {
    let g = load_game(archive, id)?;
    let (side, me) = side_in(archive, s, visitor, &g)?;
    let side = side.ok_or_else(|| {
        let who = me.unwrap_or_else(|| "the user (no identity is set)".to_string());
        refusal(StatusCode::FORBIDDEN, format!("{who} plays neither side of {id}"))
    })?;
    Ok(crate::record::player(&g, side))
}

/// Leave to book, as a page asks for it.
#[derive(Debug, Deserialize)]
pub struct LeaveRequest {
    /// The first day, `YYYY-MM-DD` (UTC); today when absent.
    pub from: Option<String>,
    /// How many days.
    pub days: u32,
}

/// `POST /game/ID/leave`: books leave for the visitor's own side, as `ravenpost leave`
/// does (the same refusals).
pub(super) async fn book_leave(
    State(s): State<Arc<Served>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let shape = "leave ({\"from\": \"YYYY-MM-DD\", \"days\": N})";
    let (visitor, request): (Visitor, LeaveRequest) = match change_request(&s, &headers, &body, 4096, shape) {
        Ok(r) => r,
        Err(r) => return r.into_response(),
    };
    let answer = blocking(move || {
        let now = s.session.now().unix_seconds();
        let from = match request.from.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
            None => now,
            Some(d) => chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d")
                .map_err(|_| {
                    refusal(
                        StatusCode::BAD_REQUEST,
                        format!("the first day `{d}` is not a date (YYYY-MM-DD)"),
                    )
                })?
                .and_hms_opt(0, 0, 0)
                .expect("midnight exists")
                .and_utc()
                .timestamp(),
        };
        let archive = ops::open(&s.session, false).map_err(|e| error_response(&e))?;
        let who = own_player(&archive, &s, &visitor, &id)?;
        let before = archive.tip().map_err(|e| error_response(&crate::usecases::Error::from(e)))?;
        let applied = ops::leave(&archive, &id, &who, from, request.days, &s.session)
            .map_err(|e| error_response(&e))?;
        Ok(serde_json::json!({ "said": applied.said, "hook": super::after_step(&archive, before) }))
    })
    .await;
    json_answer(answer)
}
