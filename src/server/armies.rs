//! A secret army choice in the browser (Fantasy Grand Chess): the page shows each army's
//! pieces as the board draws them and how each moves, and the player commits to one and
//! later reveals it through the same use cases as `ravenpost army commit|reveal` (the
//! army and its salt kept in this archive's git directory until the reveal).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::{
    Refused, Served, Visitor, admitted, blocking, change_request, csrf_of, error_response, json_answer,
    refusal,
};
use crate::archive::{Archive, ArmyChoice};
use crate::engine::Side;
use crate::usecases as ops;

/// One piece of an army, as the page shows it.
#[derive(Debug, Serialize)]
struct ArmyPiece {
    label: String,
    name: String,
    summary: String,
}

/// One army a player may choose.
#[derive(Debug, Serialize)]
struct ArmyOption {
    name: &'static str,
    title: String,
    allowed: bool,
    refusal: Option<String>,
    pieces: Vec<ArmyPiece>,
}

/// What the army page's template reads.
#[derive(Debug, Serialize)]
struct ArmyPage {
    id: String,
    white: String,
    black: String,
    state: String,
    /// `commit`, `reveal` or `wait`.
    step: &'static str,
    armies: Vec<ArmyOption>,
}

/// The page's script data.
#[derive(Debug, Serialize)]
struct ArmyData {
    game: String,
    csrf: String,
}

/// The side the visitor plays in `choice`, if any.
fn side_of(
    archive: &Archive,
    s: &Served,
    visitor: &Visitor,
    id: &str,
) -> Result<(ArmyChoice, Option<Side>), Refused> {
    let (choice, mine) = ops::army_choice(archive, id, &s.session).map_err(|e| match e {
        crate::usecases::Error::Usage(_) => {
            refusal(StatusCode::NOT_FOUND, format!("no army choice `{id}` here"))
        }
        other => error_response(&other),
    })?;
    match visitor {
        Visitor::User => Ok((choice, mine)),
        Visitor::Account(a) => {
            let club = ops::club_accounts(archive).map_err(|e| error_response(&e))?;
            let side = Side::ALL.into_iter().find(|&side| {
                let tag = choice.tags.get(crate::referee::players::account_tag(side)).map(String::as_str);
                ops::plays_as(&club, choice.player(side), tag, a)
            });
            Ok((choice, side))
        }
    }
}

/// An army's name for people: `evil-horde` → `Evil Horde`.
fn title(army: &str) -> String {
    army.split('-').map(crate::variants::capitalise).collect::<Vec<_>>().join(" ")
}

/// The pieces `army` puts on the first side's ranks, in the order of the definition.
fn pieces_of(army: &'static str) -> Vec<ArmyPiece> {
    let other = if army == "humans" { "elves" } else { "humans" };
    let options = [
        ("army-white".to_string(), army.to_string()),
        ("army-black".to_string(), other.to_string()),
        ("druid".to_string(), "allowed".to_string()),
    ];
    let Ok(v) = crate::variants::by_name(ArmyChoice::VARIANT, &options) else { return Vec::new() };
    let def = v.def();
    let start = v.start_position();
    let legend = crate::variants::legend::legend(def);
    let mut kinds: Vec<usize> = def
        .dims
        .squares()
        .filter_map(|sq| start.piece_at(sq).filter(|p| p.side == Side::White).map(|p| p.kind.index()))
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds
        .into_iter()
        .filter_map(|k| {
            let e = legend.get(k)?;
            let piece =
                crate::engine::Piece { side: Side::White, kind: crate::engine::PieceKind::new(k as u8) };
            Some(ArmyPiece {
                label: crate::notation::diagram::piece_label(&v, piece),
                name: e.name.clone(),
                summary: e.summary.clone(),
            })
        })
        .collect()
}

/// The page, or `None` once the game has begun (the game page then).
fn army_page(s: &Served, visitor: &Visitor, id: &str) -> Result<Option<String>, Refused> {
    let archive = ops::open(&s.session, false).map_err(|e| error_response(&e))?;
    // Once both have revealed the game file exists (and the choice may be gone).
    if ops::find(&archive, id).is_ok() {
        return Ok(None);
    }
    // Both revealed but the game file not made yet (the reveal's second commit): the
    // page waits, and its poll opens the game once the file is there.
    let (choice, mine) = side_of(&archive, s, visitor, id)?;
    let public = |n: &str| crate::site::privacy::public_name(n).into_owned();
    let step = match mine {
        Some(side) if choice.commitment_of(side).is_none() => "commit",
        Some(side) if choice.reveal_of(side).is_none() && choice.commitment_of(side.opponent()).is_some() => {
            "reveal"
        }
        _ => "wait",
    };
    let armies = match mine {
        Some(side) if step == "commit" => crate::variants::ARMIES
            .iter()
            .map(|&name| {
                let refusal = choice.check_army(side, name).err();
                ArmyOption {
                    name,
                    title: title(name),
                    allowed: refusal.is_none(),
                    refusal,
                    pieces: pieces_of(name),
                }
            })
            .collect(),
        _ => Vec::new(),
    };
    let who = mine.map_or_else(
        || "You play neither side.".to_string(),
        |side| {
            format!(
                "You play {} ({}).",
                public(choice.player(side)),
                if side == Side::White { "White" } else { "Black" }
            )
        },
    );
    let page = ArmyPage {
        id: id.to_string(),
        white: public(&choice.white),
        black: public(&choice.black),
        state: format!("{who} {}.", crate::variants::capitalise(&public(&choice.waiting_for()))),
        step,
        armies,
    };
    let data = ArmyData { game: id.to_string(), csrf: csrf_of(s, visitor)? };
    crate::site::army_choice_html(id, &page, &data)
        .map(Some)
        .map_err(|e| refusal(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// `GET /army/ID`: the choice's page.
pub(super) async fn page(
    State(s): State<Arc<Served>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let visitor = match admitted(&s, &headers) {
        Ok(v) => v,
        Err(r) => return r.into_response(),
    };
    let id_again = id.clone();
    match blocking(move || army_page(&s, &visitor, &id)).await {
        Ok(Some(html)) => Html(html).into_response(),
        // Both armies revealed: the game has begun.
        Ok(None) => axum::response::Redirect::to(&format!("/game/{id_again}")).into_response(),
        Err(r) => super::error_page(r),
    }
}

/// A step of the choice, as the page sends it.
#[derive(Debug, Deserialize)]
pub struct ArmyRequest {
    /// The army, to commit to; absent to reveal.
    pub army: Option<String>,
}

/// `POST /army/ID/commit` and `/army/ID/reveal`: the step, as `ravenpost army` takes it.
async fn step(
    s: Arc<Served>,
    id: String,
    headers: HeaderMap,
    body: axum::body::Bytes,
    reveal: bool,
) -> Response {
    let (visitor, request): (Visitor, ArmyRequest) =
        match change_request(&s, &headers, &body, 4096, "an army step ({\"army\": NAME} or {})") {
            Ok(r) => r,
            Err(r) => return r.into_response(),
        };
    let answer = blocking(move || {
        let archive = ops::open(&s.session, false).map_err(|e| error_response(&e))?;
        let (choice, mine) = side_of(&archive, &s, &visitor, &id)?;
        let side =
            mine.ok_or_else(|| refusal(StatusCode::FORBIDDEN, format!("you play neither side of {id}")))?;
        let who = match visitor {
            Visitor::User => None,
            Visitor::Account(_) => Some(choice.player(side).to_string()),
        };
        let before = archive.tip().map_err(|e| error_response(&crate::usecases::Error::from(e)))?;
        let outcome = if reveal {
            ops::army_reveal(&archive, &id, who.as_deref(), None, &s.session)
        } else {
            let army =
                request.army.ok_or_else(|| refusal(StatusCode::BAD_REQUEST, "which army? (\"army\")"))?;
            ops::army_commit(&archive, &id, &army, who.as_deref(), &s.session)
        }
        .map_err(|e| error_response(&e))?;
        // The summary names where the secret is kept: a path on the server, not for a page.
        let said = outcome.summary.split(". Kept in ").next().unwrap_or_default().to_string();
        Ok(serde_json::json!({
            "said": said,
            "started": outcome.started,
            "hook": super::after_step(&archive, before),
        }))
    })
    .await;
    json_answer(answer)
}

pub(super) async fn commit(
    State(s): State<Arc<Served>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    step(s, id, headers, body, false).await
}

pub(super) async fn reveal(
    State(s): State<Arc<Served>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    step(s, id, headers, body, true).await
}
