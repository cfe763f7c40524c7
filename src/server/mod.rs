//! `ravenpost serve`: the archive in the browser, to play in (issue 32).
//!
//! An HTTP server (axum on a tokio runtime of one thread) on 127.0.0.1 over the archive
//! the command line uses. Its pages are the static site's ([`crate::site`]): the same
//! templates, style sheet and board script, with the data to play added to a game page
//! ([`PlayData`]): the legal moves of the current position, from the engine, each with
//! its SAN, long form, origin and destination. The script marks a clicked piece's
//! destinations on every level, asks for a choice where several moves share them (a
//! promotion), and plays the chosen move after one confirmation through the same use
//! case as `ravenpost move` ([`crate::usecases::play`]): the same checks, the same
//! commit, the same refusals. An open page asks for the game's ply every few seconds and
//! redraws itself when a move arrives from elsewhere (`sync`, mail, the command line).
//! The analysis board (`analysis`) works out lines tried from any position, with
//! nothing written, and keeps them as the player's conditional tree on request
//! ([`crate::usecases::conditional_add`]).
//!
//! **Who acts**: the server acts for the archive's user, as the command line does, and
//! only for a browser that proves it was given the URL the server printed: the URL
//! carries a random token, which the server exchanges for an `HttpOnly`,
//! `SameSite=Strict` cookie; every request without it is refused (403). A request that
//! changes something must also carry the page's CSRF token in a header (another site's
//! page can neither read it nor send the header without the server's consent, which it
//! never gives). A move names the ply it is for, so a request sent twice commits once.
//!
//! **A club** (`--account-header NAME`): the server sits behind a reverse proxy that
//! authenticates each member (an htpasswd file, the git server's accounts) and names the
//! account in the header NAME. Each request then acts for that account, as the
//! pre-receive hook judges a push by it ([`crate::usecases::account_side`]): a member
//! sees every game, moves only for the side whose player's accounts hold theirs, and each
//! account has its own CSRF token. A step committed into a bare repository then runs the
//! repository's post-receive hook, as a push would (notification mails, the site).
//!
//! Git and the rules are synchronous: each request's work runs on tokio's blocking pool.

mod analysis;
mod armies;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};

use crate::archive::Archive;
use crate::engine::{Move, Position, Variant};
use crate::notation::moves::long_form;
use crate::notation::position_string::piece_token;
use crate::notation::san::write_move;
use crate::record::game::Game;
use crate::site::privacy::public_name;
use crate::usecases::{self as ops, Error, Session};

/// The longest account name a proxy's header may carry (bytes).
const MAX_ACCOUNT: usize = 128;

/// The cookie that proves a browser was given the server's URL.
const COOKIE: &str = "ravenpost-serve";
/// The header a changing request carries the page's CSRF token in.
pub const CSRF_HEADER: &str = "x-ravenpost-csrf";

/// Why the server did not start or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The port could not be bound, or the server failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The archive could not be opened.
    #[error(transparent)]
    Archive(Box<Error>),
    /// The port is taken.
    #[error(
        "port {port} on 127.0.0.1 is in use: give another with --port, or leave --port out for a free one"
    )]
    PortInUse {
        /// The port asked for.
        port: u16,
    },
}

/// Whom the server admits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// The archive's user, in a browser given the printed URL (its token).
    Token,
    /// A club's members: the account a reverse proxy authenticated, named in this
    /// request header (lower case, e.g. `x-remote-user`).
    AccountHeader(String),
}

/// Whom a request acts for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Visitor {
    /// The archive's user (the token).
    User,
    /// A club member's account (the reverse proxy's header).
    Account(String),
}

/// What the server needs for every request. One value, shared by the handlers: no
/// process-wide state.
struct Served {
    session: Session,
    admission: Admission,
    /// The secret of the printed URL (and of the cookie).
    token: String,
    /// The secret a changing request repeats in [`CSRF_HEADER`] (the user's).
    csrf: String,
    /// The `Host` headers a request for the user may carry (`127.0.0.1:PORT`,
    /// `localhost:PORT`): a page served under another name (DNS rebinding) is refused.
    hosts: [String; 2],
}

/// A started server: its address and the URL to open (with the token).
#[derive(Debug, Clone)]
pub struct Listening {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The URL to open, with the token that lets the browser in.
    pub url: String,
}

fn random_hex(bytes: usize) -> Result<String, std::io::Error> {
    let mut b = vec![0u8; bytes];
    getrandom::fill(&mut b).map_err(|e| std::io::Error::other(format!("no random token: {e}")))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Equal in time independent of where two secrets differ.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// How `ravenpost serve` listens.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The port on 127.0.0.1 (0: a free one).
    pub port: u16,
    /// Who a request acts for.
    pub admission: Admission,
    /// How long a connection may take to send a request's head: a connection that stays
    /// half sent is closed then, so that strangers cannot hold the server's connections.
    pub header_timeout: std::time::Duration,
}

/// The most connections served at once; more are closed at once (each holds a file
/// descriptor until it ends).
pub const MAX_CONNECTIONS: usize = 256;

/// Serves the archive of `session` as `options` say until the process ends; `ready` is
/// told the address and URL once the port is bound.
///
/// # Errors
/// [`ServeError`]: the archive does not open, the port cannot be bound.
pub fn serve(
    session: Session,
    options: ServeOptions,
    ready: impl FnOnce(&Listening),
) -> Result<(), ServeError> {
    // The archive must open before the server says it is ready.
    ops::open(&session, false).map_err(|e| ServeError::Archive(Box::new(e)))?;
    let (token, csrf) = (random_hex(16)?, random_hex(16)?);
    let ServeOptions { port, admission, header_timeout } = options;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_io().enable_time().build()?;
    runtime.block_on(async move {
        let listener =
            match tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await {
                Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                    return Err(ServeError::PortInUse { port });
                }
                other => other?,
            };
        let addr = listener.local_addr()?;
        let port = addr.port();
        let hosts = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
        let served = Arc::new(Served { session, admission, token, csrf, hosts });
        let url = match served.admission {
            Admission::Token => format!("http://{addr}/?token={}", served.token),
            Admission::AccountHeader(_) => format!("http://{addr}/"),
        };
        ready(&Listening { addr, url });
        Ok(accept_loop(listener, router(served), header_timeout).await?)
    })?;
    Ok(())
}

/// Counts a connection while it lives.
struct Connection(Arc<std::sync::atomic::AtomicUsize>);

impl Drop for Connection {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Accepts connections for ever: each served by hyper's HTTP/1 with a timeout on the
/// request head, at most [`MAX_CONNECTIONS`] at once. An accept that fails (no file
/// descriptor left) is retried after a pause rather than ending the server.
async fn accept_loop(
    listener: tokio::net::TcpListener,
    app: Router,
    header_timeout: std::time::Duration,
) -> std::io::Result<()> {
    use std::sync::atomic::Ordering;
    let active = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        if active.fetch_add(1, Ordering::Relaxed) >= MAX_CONNECTIONS {
            active.fetch_sub(1, Ordering::Relaxed);
            drop(stream);
            continue;
        }
        let connection = Connection(Arc::clone(&active));
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let _counted = connection;
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(header_timeout);
            // A connection's end (closed, timed out, malformed) concerns that client only.
            let _ = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service).await;
        });
    }
}

fn router(served: Arc<Served>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/index.html", get(index))
        .route("/site.js", get(script))
        .route("/site.css", get(style))
        // Browsers ask for it on every page: no icon, and no error in their console.
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .route("/game/{id}", get(game))
        .route("/game/{id}/ply", get(ply))
        .route("/game/{id}/download", get(download))
        .route("/game/{id}/move", post(play))
        .route("/game/{id}/action", post(action))
        .route("/game/{id}/analyse", post(analysis::analyse_line))
        .route("/game/{id}/conditional", post(analysis::save_tree))
        .route("/game/{id}/leave", post(analysis::book_leave))
        .route("/tournaments/{file}", get(standings))
        .route("/army/{id}", get(armies::page))
        .route("/army/{id}/commit", post(armies::commit))
        .route("/army/{id}/reveal", post(armies::reveal))
        .with_state(served)
        .layer(axum::middleware::map_response(guarded))
}

/// Every answer: never framed by another page (the confirmations cannot be clickjacked),
/// its type as declared, and no address (with the token) sent on to another site.
async fn guarded(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert("x-frame-options", HeaderValue::from_static("DENY"));
    h.insert("content-security-policy", HeaderValue::from_static("frame-ancestors 'none'"));
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    r
}

/// Why a request was refused: the HTTP status and a sentence, sent as JSON
/// (`{"error": …}`) for the page's script to show.
#[derive(Debug)]
pub struct Refused {
    /// The status (403: not admitted; 409: the rules or the game's state refused).
    pub status: StatusCode,
    /// What went wrong and what to do.
    pub message: String,
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        (self.status, axum::Json(serde_json::json!({ "error": self.message }))).into_response()
    }
}

fn refusal(status: StatusCode, message: impl Into<String>) -> Refused {
    Refused { status, message: message.into() }
}

fn cookie_token(headers: &HeaderMap) -> Option<&str> {
    headers.get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()).find_map(|v| {
        v.split(';').find_map(|kv| {
            let (k, val) = kv.trim().split_once('=')?;
            (k == COOKIE).then_some(val)
        })
    })
}

/// Whether the request's `Host` is the address the server printed.
fn host_is_ours(s: &Served, headers: &HeaderMap) -> bool {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    host.is_some_and(|h| s.hosts.iter().any(|o| h.eq_ignore_ascii_case(o)))
}

/// Whom the request acts for: a browser given the URL, or the account the reverse
/// proxy names.
fn admitted(s: &Served, headers: &HeaderMap) -> Result<Visitor, Refused> {
    match &s.admission {
        Admission::Token if !host_is_ours(s, headers) => Err(refusal(
            StatusCode::FORBIDDEN,
            format!("this server answers only at http://{}/ (the Host header names another)", s.hosts[0]),
        )),
        Admission::Token => match cookie_token(headers) {
            Some(t) if same_secret(t, &s.token) => Ok(Visitor::User),
            _ => Err(refusal(
                StatusCode::FORBIDDEN,
                "not signed in: open the URL `ravenpost serve` printed (it carries the token)",
            )),
        },
        Admission::AccountHeader(name) => {
            let mut values = headers.get_all(name.as_str()).iter();
            let account = values.next().and_then(|v| v.to_str().ok()).map(str::trim);
            if values.next().is_some() {
                // A proxy that appends rather than replaces: which one is the member's?
                return Err(refusal(
                    StatusCode::FORBIDDEN,
                    format!("the request names two accounts in {name}: the proxy must set it once"),
                ));
            }
            match account {
                Some(a) if a.len() <= MAX_ACCOUNT && crate::referee::players::check_account(a).is_ok() => {
                    Ok(Visitor::Account(a.to_string()))
                }
                _ => Err(refusal(
                    StatusCode::FORBIDDEN,
                    "not signed in: this server takes the account from its reverse proxy, which named none",
                )),
            }
        }
    }
}

/// The CSRF secret of `visitor`'s pages.
fn csrf_of(s: &Served, visitor: &Visitor) -> Result<String, Refused> {
    match visitor {
        Visitor::User => Ok(s.csrf.clone()),
        // Derived from the server's secret and the account: nothing kept per account, so
        // no stranger's header values can grow the server's memory.
        Visitor::Account(a) => {
            use sha2::Digest as _;
            let mut h = sha2::Sha256::new();
            h.update(s.csrf.as_bytes());
            h.update([0]);
            h.update(a.as_bytes());
            Ok(h.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect())
        }
    }
}

/// As [`admitted`], and the page's CSRF token in [`CSRF_HEADER`].
fn admitted_to_change(s: &Served, headers: &HeaderMap) -> Result<Visitor, Refused> {
    let visitor = admitted(s, headers)?;
    let csrf = csrf_of(s, &visitor)?;
    match headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok()) {
        Some(t) if same_secret(t, &csrf) => Ok(visitor),
        _ => Err(refusal(StatusCode::FORBIDDEN, "the request lacks the page's CSRF token: reload the page")),
    }
}

/// Runs `work` on the blocking pool; a panic there is a 500, never the server's end.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Refused> + Send + 'static,
) -> Result<T, Refused> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(refusal(StatusCode::INTERNAL_SERVER_ERROR, format!("internal error: {e}"))))
}

/// The status a use case's error is answered with.
fn error_response(e: &Error) -> Refused {
    let status = match e {
        Error::Refused(_)
        | Error::Clock(_)
        | Error::AlreadyRecorded { .. }
        | Error::MovedOn { .. }
        | Error::Declined(_)
        | Error::ChoosingArmies { .. }
        | Error::NoSigningKey { .. } => StatusCode::CONFLICT,
        Error::Usage(_) => StatusCode::BAD_REQUEST,
        Error::Tree(_) => StatusCode::UNPROCESSABLE_ENTITY,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    refusal(status, e.to_string())
}

#[derive(Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

/// `/`: with `?token=`, the cookie is set and the browser sent on without the token in
/// its address; else the list of games, the user's to move first.
async fn index(State(s): State<Arc<Served>>, Query(q): Query<TokenQuery>, headers: HeaderMap) -> Response {
    if let (Some(t), Admission::Token) = (q.token, &s.admission) {
        if !host_is_ours(&s, &headers) {
            return refusal(
                StatusCode::FORBIDDEN,
                format!("this server answers only at http://{}/", s.hosts[0]),
            )
            .into_response();
        }
        if !same_secret(&t, &s.token) {
            return refusal(StatusCode::FORBIDDEN, "wrong token: open the URL `ravenpost serve` printed")
                .into_response();
        }
        let cookie = format!("{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/", s.token);
        let mut r = Redirect::to("/").into_response();
        r.headers_mut().insert(header::SET_COOKIE, HeaderValue::from_str(&cookie).expect("a hex cookie"));
        return r.into_response();
    }
    let visitor = match admitted(&s, &headers) {
        Ok(v) => v,
        Err(r) => return r.into_response(),
    };
    let s2 = s.clone();
    match blocking(move || index_html(&s2, &visitor)).await {
        Ok(html) => Html(html).into_response(),
        Err(r) => r.into_response(),
    }
}

fn index_html(s: &Served, visitor: &Visitor) -> Result<String, Refused> {
    let archive = ops::open(&s.session, false).map_err(|e| error_response(&e))?;
    let me = match visitor {
        Visitor::User => me(&archive, &s.session),
        Visitor::Account(_) => None,
    };
    let club = match visitor {
        Visitor::Account(a) => Some((ops::club_accounts(&archive).map_err(|e| error_response(&e))?, a)),
        Visitor::User => None,
    };
    let is_mine = |l: &ops::StatusLine| {
        let Some(p) = l.to_move.as_deref() else { return false };
        match &club {
            Some((c, a)) => {
                let side = usize::from(p != l.white);
                ops::plays_as(c, p, l.account_tags[side].as_deref(), a)
            }
            None => is_me(p, me.as_ref()),
        }
    };
    let lines = ops::status(&archive, &s.session).map_err(|e| error_response(&e))?;
    let mut rows: Vec<(bool, i64, crate::site::IndexRow)> = lines
        .into_iter()
        .map(|l| {
            let mine = is_mine(&l);
            let mut to_move = match (&l.to_move, &l.side_to_move) {
                (Some(p), Some(side)) => format!("{} ({side})", public_name(p)),
                _ => String::new(),
            };
            if let Some(c) = &l.clock {
                let deadline = c.deadline.format("%Y-%m-%d %H:%M UTC");
                if c.overdue {
                    to_move.push_str(&format!(", over time since {deadline}"));
                } else {
                    to_move.push_str(&format!(", by {deadline}"));
                }
            }
            let deadline = l.clock.as_ref().map_or(i64::MAX, |c| c.deadline.timestamp());
            let row = crate::site::IndexRow {
                href: if l.army_choice.is_some() {
                    Some(format!("army/{}", l.id))
                } else {
                    l.problem.is_none().then(|| format!("game/{}", l.id))
                },
                variant: crate::variants::by_name(&l.variant, &[])
                    .map(|v| v.def().title.clone())
                    .unwrap_or_else(|_| l.variant.clone()),
                white: public_name(&l.white).into_owned(),
                black: public_name(&l.black).into_owned(),
                result: l.result.clone(),
                ending: l.ending.as_deref().map(|e| public_name(e).into_owned()),
                ply: l.ply,
                to_move,
                problem: l.problem.clone().or_else(|| l.army_choice.clone()),
                id: l.id,
            };
            (mine, deadline, row)
        })
        .collect();
    // Yours to move first, the nearest deadline first; then the games going on, then the
    // finished ones.
    rows.sort_by_key(|(mine, deadline, r)| (!mine, r.result != "*", *deadline, r.id.clone()));
    let yours = rows.iter().filter(|(m, _, _)| *m).count();
    let plural = if yours == 1 { "" } else { "s" };
    let lead = match (&club, &me) {
        (Some((_, a)), _) => format!("Signed in as {a}: {yours} game{plural} waiting for your move."),
        (None, Some(i)) => format!("Playing as {}: {yours} game{plural} waiting for your move.", i.name),
        (None, None) => {
            "No identity is set (git's user.name, or `--author`): moves cannot be made here.".into()
        }
    };
    let sections = ops::list_tournaments(&archive)
        .map_err(|e| error_response(&e))?
        .into_iter()
        .map(|t| (format!("{t}: standings"), format!("tournaments/{t}.html")))
        .collect();
    crate::site::index_html(rows.into_iter().map(|(_, _, r)| r).collect(), sections, Some(lead))
        .map_err(|e| refusal(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

async fn script() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], crate::site::SCRIPT).into_response()
}

async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], crate::site::STYLE).into_response()
}

/// The user's identity in the archive, if one is set.
fn me(archive: &Archive, session: &Session) -> Option<crate::archive::Identity> {
    archive.identity(session.identity()).ok()
}

/// Whether a game's player (`Ann`, `Ann <ann@example.org>`) is the user.
fn is_me(player: &str, me: Option<&crate::archive::Identity>) -> bool {
    me.is_some_and(|i| {
        public_name(player) == i.name || player == i.name || player.contains(&format!("<{}>", i.email))
    })
}

/// The game `id` at the tip; an unknown one is 404, without the archive's folder or its
/// list of games (a page is not the command line).
fn find_game(archive: &Archive, id: &str) -> Result<crate::archive::GamePath, Refused> {
    ops::find(archive, id).map_err(|e| match e {
        Error::Usage(_) => refusal(StatusCode::NOT_FOUND, format!("no game `{id}` here")),
        other => error_response(&other),
    })
}

/// A game at the tip: its file's text and the game replayed.
fn load_game(archive: &Archive, id: &str) -> Result<Game, Refused> {
    load_game_at(archive, id).map(|(_, g)| g)
}

/// [`load_game`], with where the game's file is.
fn load_game_at(archive: &Archive, id: &str) -> Result<(crate::archive::GamePath, Game), Refused> {
    let path = find_game(archive, id)?;
    let text = archive
        .read_file(&path.path())
        .map_err(|e| refusal(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
        .unwrap_or_default();
    let definitions = ops::definitions_at(archive).map_err(|e| error_response(&Error::from(e)))?;
    crate::record::Loader::new()
        .definitions(&definitions)
        .load(&text)
        .map(|l| (path, l.game))
        .map_err(|e| refusal(StatusCode::CONFLICT, format!("{id} does not replay: {e}")))
}

/// One legal move as the board script reads it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct LegalMove {
    /// SAN, as `ravenpost move` takes it.
    pub san: String,
    /// The long form (`S3a7-3b6`).
    pub long: String,
    /// The origin square; `None` for a piece brought onto the board (a drop).
    pub from: Option<String>,
    /// The square clicked to play it: the destination, or the captured piece's square
    /// for a capture from afar.
    pub to: String,
    /// The placed piece's token, for a drop.
    pub drop: Option<String>,
    /// What kind of move it is: `move`, `capture`, `afar` (a capture without moving),
    /// `drop`, `promotion` (with or without a capture).
    pub kind: &'static str,
}

/// The data a served game page adds to the site's.
#[derive(Debug, Clone, Serialize)]
pub struct PlayData {
    /// The game id.
    pub game: String,
    /// Plies played (a move is for ply `plies + 1`).
    pub plies: usize,
    /// The game's state as `/game/ID/ply` says it ([`state_of`]): a page redraws when
    /// it changes.
    pub state: String,
    /// Whether the user is the player to move.
    pub yours: bool,
    /// The legal moves, when it is the user's move (else empty).
    pub moves: Vec<LegalMove>,
    /// The token a move repeats in [`CSRF_HEADER`].
    pub csrf: String,
    /// Whether the user plays a side of the game.
    pub plays: bool,
    /// Who plays, for the page's line (`Playing as Ann`).
    pub me: Option<String>,
    /// The other steps the user can take now ([`Action`]'s names: `resign`,
    /// `offer-draw`, `accept-draw`, `decline-draw`, `claim-draw`).
    pub actions: Vec<&'static str>,
    /// The clock of the player to move, when one runs: `Your move by …, … left`, or who
    /// is over time.
    pub clock: Option<String>,
    /// A draw offer that stands, said for the user (`Bo Example offers a draw: …`).
    pub offer: Option<String>,
    /// Today (UTC, `YYYY-MM-DD`): the first day of leave a page proposes.
    pub today: String,
    /// Whether the user can prepare replies (conditional moves) now: they play a side of
    /// the game, it goes on, and the opponent is to move.
    pub prepare: bool,
}

/// A step other than a move, as a page asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// `ravenpost resign`.
    Resign,
    /// `ravenpost draw offer`.
    OfferDraw,
    /// `ravenpost draw accept`.
    AcceptDraw,
    /// `ravenpost draw decline`.
    DeclineDraw,
    /// `ravenpost draw claim` (threefold repetition, 100 plies).
    ClaimDraw,
    /// `ravenpost claim timeout` (the opponent is over time).
    ClaimTimeout,
}

/// What a page watches for: the plies, the result and a pending draw offer.
fn state_of(g: &Game) -> String {
    format!(
        "{} {} {}",
        g.moves.len(),
        crate::record::result_of(g),
        crate::record::pending_offer(g).unwrap_or_default()
    )
}

/// The actions a game page offers the user in `g`, whose side is `mine`; `clock_runs`:
/// the game has a clock; `overdue`: the player to move is over time.
fn actions(
    g: &Game,
    mine: Option<crate::engine::Side>,
    clock_runs: bool,
    overdue: bool,
) -> Vec<&'static str> {
    let Some(side) = mine else { return Vec::new() };
    if crate::record::result_of(g) != "*" {
        return Vec::new();
    }
    let mut out = vec!["resign"];
    if overdue && g.position().side_to_move() != side {
        out.push("claim-timeout");
    }
    if clock_runs {
        out.push("leave");
    }
    if g.position().side_to_move() == side {
        match crate::record::pending_offer_side(g) {
            Some(by) if by != side => out.extend(["accept-draw", "decline-draw"]),
            // An offer of the user's own stands until their next move: no second one.
            Some(_) => {}
            None => out.push("offer-draw"),
        }
        // Only when the rules allow the claim now (threefold repetition, 100 plies).
        if crate::record::claim_basis(g).is_ok() {
            out.push("claim-draw");
        }
    }
    out
}

/// A standing draw offer as the page says it to the player of `mine` (or to anyone).
fn offer_text(g: &Game, mine: Option<crate::engine::Side>) -> Option<String> {
    let side = crate::record::pending_offer_side(g)?;
    let name = |s| public_name(&crate::record::player(g, s)).into_owned();
    let to_move = g.position().side_to_move();
    Some(match mine {
        Some(m) if m == side && to_move == m => "Your draw offer goes with your next move.".to_string(),
        Some(m) if m == side => format!("Your draw offer awaits {}'s answer.", name(m.opponent())),
        Some(m) if to_move == m => {
            format!("{} offers a draw: accept or decline it below (a move declines it).", name(side))
        }
        Some(_) => format!("{} offers a draw with their next move.", name(side)),
        None => format!("{} offers a draw.", name(side)),
    })
}

/// A clock as a page says it: whose deadline, when (UTC), and the time left or over.
fn clock_text(c: &crate::referee::clock::Clock, yours: bool) -> String {
    let deadline = c.deadline.format("%Y-%m-%d %H:%M UTC");
    let span = crate::referee::Span(c.seconds_left);
    let who = if yours { "Your move".to_string() } else { format!("{} to move", public_name(&c.player)) };
    if c.overdue {
        format!("{who}: over time since {deadline} ({span} ago).")
    } else {
        format!("{who} by {deadline} ({span} left).")
    }
}

/// The legal moves of `pos` as [`LegalMove`]s.
pub fn legal_moves(v: &Variant, pos: &Position) -> Vec<LegalMove> {
    let def = v.def();
    v.legal_moves(pos)
        .iter()
        .map(|m| {
            let side = pos.side_to_move();
            let (kind, drop) = match *m {
                Move::Drop { piece, .. } | Move::Replace { piece, .. } => {
                    ("drop", Some(piece_token(def, crate::engine::Piece { side, kind: piece })))
                }
                Move::Remote { .. } => ("afar", None),
                Move::Normal { promotion: Some(_), .. } | Move::EnPassant { promotion: Some(_), .. } => {
                    ("promotion", None)
                }
                _ if m.capture().is_some() => ("capture", None),
                _ => ("move", None),
            };
            LegalMove {
                san: write_move(v, pos, m),
                long: long_form(v, m),
                from: m.from().map(|sq| def.dims.name(sq)),
                to: def.dims.name(m.to()),
                drop,
                kind,
            }
        })
        .collect()
}

async fn game(State(s): State<Arc<Served>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let visitor = match admitted(&s, &headers) {
        Ok(v) => v,
        Err(r) => return r.into_response(),
    };
    match blocking(move || game_html(&s, &visitor, &id)).await {
        Ok(html) => Html(html).into_response(),
        Err(r) => error_page(r),
    }
}

/// A refused page request as a page: the message, and the way back to the games.
fn error_page(r: Refused) -> Response {
    let status = r.status;
    let message = r.message.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" \
         content=\"width=device-width, initial-scale=1\"><title>ravenpost: {code}</title>\
         <link rel=\"stylesheet\" href=\"/site.css\"></head><body class=\"error\"><h1>{code}</h1>\
         <p class=\"play-line error\">{message}</p><p><a href=\"/\">All games</a></p></body></html>\n",
        code = status.as_u16(),
    );
    (status, Html(html)).into_response()
}

/// The side of `g` that `visitor` plays, and the name the page says they play as.
fn side_in(
    archive: &Archive,
    s: &Served,
    visitor: &Visitor,
    g: &Game,
) -> Result<(Option<crate::engine::Side>, Option<String>), Refused> {
    match visitor {
        Visitor::User => {
            let me = me(archive, &s.session);
            let side =
                me.as_ref().and_then(|i| crate::referee::players::side_of_person(g, &i.name, &i.email));
            Ok((side, me.map(|i| i.name)))
        }
        Visitor::Account(a) => {
            let club = ops::club_accounts(archive).map_err(|e| error_response(&e))?;
            let side = ops::account_side(&club, g, a);
            // The player's name where the account plays a side (`Your move, Ann`).
            let name =
                side.map_or_else(|| a.clone(), |s| public_name(&crate::record::player(g, s)).into_owned());
            Ok((side, Some(name)))
        }
    }
}

fn game_html(s: &Served, visitor: &Visitor, id: &str) -> Result<String, Refused> {
    let archive = ops::open(&s.session, false).map_err(|e| error_response(&e))?;
    let (path, g) = load_game_at(&archive, id)?;
    let (mine, me) = side_in(&archive, s, visitor, &g)?;
    let pos = g.position();
    let going_on = crate::record::result_of(&g) == "*";
    let yours = going_on && mine == Some(pos.side_to_move());
    let clock = if going_on {
        ops::clock_of_game(&archive, &path, &g, s.session.now().unix_seconds())
            .map_err(|e| error_response(&e))?
    } else {
        None
    };
    let overdue = clock.as_ref().is_some_and(|c| c.overdue);
    let play = PlayData {
        game: id.to_string(),
        plies: g.moves.len(),
        state: state_of(&g),
        yours,
        moves: if yours { legal_moves(&g.variant, &pos) } else { Vec::new() },
        csrf: csrf_of(s, visitor)?,
        plays: mine.is_some(),
        me,
        actions: actions(&g, mine, clock.is_some(), overdue),
        clock: clock.as_ref().map(|c| clock_text(c, yours)),
        offer: offer_text(&g, mine),
        today: chrono::DateTime::from_timestamp(s.session.now().unix_seconds(), 0)
            .map(|t| t.format("%Y-%m-%d").to_string())
            .unwrap_or_default(),
        prepare: going_on && mine.is_some_and(|m| m != pos.side_to_move()),
    };
    let mut page = crate::site::game_page(id, &g);
    page.hide_addresses();
    crate::site::served_game_html(&page, &play)
        .map_err(|e| refusal(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// `/game/ID/download`: the game's file as the archive holds it.
async fn download(State(s): State<Arc<Served>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let visitor = match admitted(&s, &headers) {
        Ok(v) => v,
        Err(r) => return r.into_response(),
    };
    let answer = blocking(move || {
        let archive = ops::open(&s.session, false).map_err(|e| error_response(&e))?;
        let path = find_game(&archive, &id)?;
        let text = archive
            .read_file(&path.path())
            .map_err(|e| refusal(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
            .unwrap_or_default();
        // Your own archive as it is; a club's members see the file as the pages show it,
        // without the players' addresses.
        let text = match visitor {
            Visitor::User => text,
            Visitor::Account(_) => crate::site::public_game_text(&text, crate::site::Addresses::Hidden),
        };
        Ok((path.id().to_string(), text))
    })
    .await;
    match answer {
        Ok((id, text)) => {
            // Game ids are letters, digits, `-`, `_` and `.` (`new --id`): nothing to quote.
            let disposition = format!("attachment; filename=\"{id}.pgn\"");
            (
                [
                    (header::CONTENT_TYPE, "application/x-chess-pgn; charset=utf-8".to_string()),
                    (header::CONTENT_DISPOSITION, disposition),
                ],
                text,
            )
                .into_response()
        }
        Err(r) => r.into_response(),
    }
}

/// `/tournaments/NAME.html` and `NAME.json`: a tournament's standings, as the static site
/// writes them, each game linked to its page here.
async fn standings(State(s): State<Arc<Served>>, Path(file): Path<String>, headers: HeaderMap) -> Response {
    if let Err(r) = admitted(&s, &headers) {
        return r.into_response();
    }
    let answer = blocking(move || {
        let archive = ops::open(&s.session, false).map_err(|e| error_response(&e))?;
        // Only the tournament asked for: `NAME.html` or `NAME.json`.
        let (name, kind) = match file.rsplit_once('.') {
            Some((n, "html")) => (n, "text/html; charset=utf-8"),
            Some((n, "json")) => (n, "application/json"),
            _ => return Err(refusal(StatusCode::NOT_FOUND, format!("no standings {file}"))),
        };
        if !ops::list_tournaments(&archive).map_err(|e| error_response(&e))?.iter().any(|t| t == name) {
            return Err(refusal(StatusCode::NOT_FOUND, format!("no standings {file}")));
        }
        let href = |id: &str| Some(format!("game/{id}"));
        let pages =
            crate::site::extra_pages(&archive, &s.session, Some(name), &href, crate::site::Addresses::Hidden)
                .map_err(|e| refusal(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
        let wanted = format!("tournaments/{file}");
        pages
            .into_iter()
            .find_map(|p| {
                if p.path == wanted {
                    return Some((kind, p.html));
                }
                p.beside.into_iter().find(|(path, _)| *path == wanted).map(|(_, j)| (kind, j))
            })
            .ok_or_else(|| refusal(StatusCode::NOT_FOUND, format!("no standings {file}")))
    })
    .await;
    match answer {
        Ok((kind, body)) => ([(header::CONTENT_TYPE, kind)], body).into_response(),
        Err(r) => error_page(r),
    }
}

/// `/game/ID/ply`: the plies played and the result, for a page to see a move arrive.
async fn ply(State(s): State<Arc<Served>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    if let Err(r) = admitted(&s, &headers) {
        return r.into_response();
    }
    let answer = blocking(move || {
        let archive = ops::open(&s.session, false).map_err(|e| error_response(&e))?;
        let g = load_game(&archive, &id)?;
        Ok(serde_json::json!({
            "plies": g.moves.len(),
            "result": crate::record::result_of(&g),
            "state": state_of(&g),
        }))
    })
    .await;
    json_answer(answer)
}

/// A move sent by a game page.
#[derive(Debug, Deserialize)]
pub struct MoveRequest {
    /// The move, as `ravenpost move` takes it.
    pub san: String,
    /// The ply it is for (plies played + 1): sent twice, it commits once.
    pub ply: usize,
}

/// Whom a step by `visitor` in game `id` acts for: `None` for the user (the command
/// line's rule: the player to move who is the user); for a club member, the player of
/// the side the account plays, refused (403) when it plays neither.
fn acting_as(archive: &Archive, visitor: &Visitor, id: &str) -> Result<Option<String>, Refused> {
    let Visitor::Account(a) = visitor else { return Ok(None) };
    let g = load_game(archive, id)?;
    let club = ops::club_accounts(archive).map_err(|e| error_response(&e))?;
    match ops::account_side(&club, &g, a) {
        Some(side) => Ok(Some(crate::record::player(&g, side))),
        None => Err(refusal(
            StatusCode::FORBIDDEN,
            format!("the account {a} plays neither side of {id}: only its players' accounts act in it"),
        )),
    }
}

/// Reads a JSON body of at most `limit` bytes; `shape` says what was expected.
fn json_body<T: serde::de::DeserializeOwned>(body: &[u8], limit: usize, shape: &str) -> Result<T, Refused> {
    if body.len() > limit {
        return Err(refusal(StatusCode::PAYLOAD_TOO_LARGE, format!("the request is over {limit} bytes")));
    }
    serde_json::from_slice(body)
        .map_err(|e| refusal(StatusCode::BAD_REQUEST, format!("the request is not {shape}: {e}")))
}

/// A request that changes something: who sends it (admitted, with the CSRF token) and
/// its JSON body.
fn change_request<T: serde::de::DeserializeOwned>(
    s: &Served,
    headers: &HeaderMap,
    body: &[u8],
    limit: usize,
    shape: &str,
) -> Result<(Visitor, T), Refused> {
    let visitor = admitted_to_change(s, headers)?;
    Ok((visitor, json_body(body, limit, shape)?))
}

/// A handler's answer: its JSON, or the refusal.
fn json_answer(answer: Result<serde_json::Value, Refused>) -> Response {
    match answer {
        Ok(v) => axum::Json(v).into_response(),
        Err(r) => r.into_response(),
    }
}

/// After a step: the prepared replies it answers, played (or the trees it ends,
/// dropped) as after `ravenpost move` in an archive both players use; what was done, one
/// line each. The step stands whatever happens here.
fn answer_prepared(archive: &Archive, session: &Session) -> Vec<String> {
    match ops::answer_prepared(archive, session) {
        Ok(answers) => answers.iter().map(ToString::to_string).collect(),
        Err(e) => vec![format!("prepared replies were not answered: {e}")],
    }
}

/// After a step committed on the tip `before` moved: the repository's post-receive hook,
/// as a push would run it (a bare club repository; nothing for a working copy). What it
/// said, when it failed, for the answer.
fn after_step(archive: &Archive, before: Option<crate::archive::CommitId>) -> Option<String> {
    let new = archive.tip().ok().flatten()?;
    if Some(new) == before {
        return None;
    }
    match ops::run_post_receive(archive, before, new) {
        Ok(Some(run)) if !run.success => Some(format!("the post-receive hook failed: {}", run.output.trim())),
        Ok(_) => None,
        Err(e) => Some(format!("the post-receive hook did not run: {e}")),
    }
}

async fn play(
    State(s): State<Arc<Served>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    // A move is a few bytes; anything longer is no move.
    let (visitor, request): (Visitor, MoveRequest) =
        match change_request(&s, &headers, &body, 4096, "a move ({\"san\", \"ply\"})") {
            Ok(r) => r,
            Err(r) => return r.into_response(),
        };
    let answer = blocking(move || {
        let archive = ops::open(&s.session, false).map_err(|e| error_response(&e))?;
        let who = acting_as(&archive, &visitor, &id)?;
        let before = archive.tip().map_err(|e| error_response(&Error::from(e)))?;
        let applied =
            match ops::play(&archive, &id, &request.san, who.as_deref(), Some(request.ply), &s.session) {
                Ok(a) => a,
                Err(e) => {
                    // A request sent again after its answer was lost: the move stands.
                    if let Some(san) = already_played(&archive, &id, &request) {
                        return Ok(serde_json::json!({
                            "san": san,
                            "ply": request.ply,
                            "said": format!("ply {} {san} was already played", request.ply),
                            "already": true,
                        }));
                    }
                    return Err(error_response(&e));
                }
            };
        let prepared = answer_prepared(&archive, &s.session);
        Ok(serde_json::json!({
            "san": applied.san,
            "ply": applied.ply,
            "said": applied.said,
            "result": applied.result,
            "prepared": prepared,
            "hook": after_step(&archive, before),
        }))
    })
    .await;
    json_answer(answer)
}

/// The move `request` names, when the game already holds it at its ply (a request sent
/// twice): its SAN as written.
fn already_played(archive: &Archive, id: &str, request: &MoveRequest) -> Option<String> {
    let g = load_game(archive, id).ok()?;
    let ply = request.ply.checked_sub(1)?;
    let recorded = g.moves.get(ply)?;
    let before = g.position_at(ply);
    let m = crate::notation::san::read_move(&g.variant, &before, &request.san).ok()?;
    (m == *recorded).then(|| write_move(&g.variant, &before, &m))
}

/// A step other than a move sent by a game page.
#[derive(Debug, Deserialize)]
pub struct ActionRequest {
    /// Which.
    pub action: Action,
}

async fn action(
    State(s): State<Arc<Served>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let shape =
        "an action ({\"action\": \"resign|offer-draw|accept-draw|decline-draw|claim-draw|claim-timeout\"})";
    let (visitor, request): (Visitor, ActionRequest) = match change_request(&s, &headers, &body, 4096, shape)
    {
        Ok(r) => r,
        Err(r) => return r.into_response(),
    };
    let answer = blocking(move || {
        use crate::record::DrawAction;
        let archive = ops::open(&s.session, false).map_err(|e| error_response(&e))?;
        let who = acting_as(&archive, &visitor, &id)?;
        let before = archive.tip().map_err(|e| error_response(&Error::from(e)))?;
        let draw = |a| ops::draw(&archive, &id, who.as_deref(), a, &s.session);
        let applied = match request.action {
            Action::Resign => ops::resign(&archive, &id, who.as_deref(), &s.session),
            Action::OfferDraw => draw(DrawAction::Offer),
            Action::AcceptDraw => draw(DrawAction::Accept),
            Action::DeclineDraw => draw(DrawAction::Decline),
            Action::ClaimDraw => draw(DrawAction::Claim),
            Action::ClaimTimeout => ops::claim_timeout(&archive, &id, who.as_deref(), &s.session),
        }
        .map_err(|e| error_response(&e))?;
        let prepared = answer_prepared(&archive, &s.session);
        Ok(serde_json::json!({
            "said": applied.said,
            "result": applied.result,
            "prepared": prepared,
            "hook": after_step(&archive, before),
        }))
    })
    .await;
    json_answer(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("abcd", "abcd"));
        assert!(!same_secret("abcd", "abce"));
        assert!(!same_secret("abc", "abcd"));
    }

    #[test]
    fn the_cookie_is_found_among_others() {
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, HeaderValue::from_static("a=1; ravenpost-serve=xyz; b=2"));
        assert_eq!(cookie_token(&h), Some("xyz"));
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, HeaderValue::from_static("ravenpost-serve2=xyz"));
        assert_eq!(cookie_token(&h), None);
    }

    #[test]
    fn a_drop_a_promotion_and_a_capture_from_afar_are_named() {
        let v = crate::variants::by_name("fidchell", &[]).unwrap();
        let moves = legal_moves(&v, &v.start_position());
        assert_eq!(moves.len(), v.legal_moves(&v.start_position()).len());
        for m in &moves {
            assert_eq!(m.kind == "drop", m.from.is_none(), "{m:?}");
        }
    }
}
