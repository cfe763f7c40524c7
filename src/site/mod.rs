//! An archive published as a static web site: `ravenpost site <OUT_DIR>`.
//!
//! [`generate`] reads every game file at the archive's branch tip and writes
//!
//! - `index.html`: one row per game (variant, id, players, result, ply, whose turn),
//!   sortable by any column in the browser, plus the army choices still secret and the
//!   game files that could not be read (with the reason: nothing is left out silently;
//!   such a game has no page until its file reads again);
//! - `games/<variant>/<id>.html`: the game's board, its move list with comments, its tags,
//!   and controls to step through it (buttons, the arrow keys, a click on a move,
//!   `#ply=N` in the address, flipping the board);
//! - `site.js`, `site.css`: the pages' one script (no dependency, nothing fetched) and
//!   style sheet;
//! - `.ravenpost-site.json`: the manifest ([`Manifest`]) of what it wrote.
//!
//! The pages need no server: they work opened from disk (`file://`) as well as from any
//! static host. A game page embeds the empty board drawn by
//! [`crate::notation::svg::board_svg`] and every ply's changes as JSON
//! ([`page::PlyData`]); the script puts the ply's pieces on the squares (each
//! `rect.square` gets `data-piece` with the piece's position-string token, each drawn
//! piece is a `g.piece` with `data-square`), outlines the last move, lists the pieces in
//! hand (Fidchell) and shows the position string.
//!
//! Pages are made from minijinja templates with HTML auto-escaping: player names, tags
//! and comments are user input and appear only escaped (the JSON inside `<script>` has
//! `<`, `>` and `&` as `\u` escapes, [`page::script_json`]).
//!
//! **Incremental**: the manifest keeps the SHA-256 of each game file the pages were made
//! from (with the game's index row), and of the generator (this version's templates and
//! script). A re-run replays and rewrites only the games whose file changed, removes the pages of games no longer in the
//! archive, and writes any other file only when its contents differ. Files are replaced
//! atomically (written beside, then renamed), so a host serving the folder never sees half
//! a page. [`install_site_hook`] makes a repository regenerate the site after each
//! accepted push.
//!
//! Each tournament gets a standings page (`tournaments/<name>.html`, the crosstable with
//! each game linked; a knockout's bracket above it) and beside it the figures `ravenpost standings --json` prints
//! (`tournaments/<name>.json`); the index links them ([`extra_pages`]).

mod hook;
pub mod page;
pub mod privacy;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use minijinja::{Environment, Value, context};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::archive::{Archive, ArchiveError, ArmyChoice};
use crate::engine::Side;
use crate::record;
use crate::usecases::Session;

pub use hook::{POST_RECEIVE_MARK, install_site_hook, put_site_line, site_hook_line, site_line};
pub use page::{GamePage, game_page};
pub use privacy::Addresses;

/// The manifest's file name in the output directory.
pub const MANIFEST: &str = ".ravenpost-site.json";

const INDEX_TEMPLATE: &str = include_str!("assets/index.html");
const GAME_TEMPLATE: &str = include_str!("assets/game.html");
const STANDINGS_TEMPLATE: &str = include_str!("assets/standings.html");
const ARMY_TEMPLATE: &str = include_str!("assets/army.html");
/// The pages' one script (the static site's and the server's).
pub const SCRIPT: &str = include_str!("assets/site.js");
/// The pages' style sheet.
pub const STYLE: &str = include_str!("assets/site.css");

/// Why a site could not be (completely) written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SiteError {
    /// The archive could not be read.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// A file of the site could not be written (or an old page removed).
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The output directory holds files but no manifest: it is not a site ravenpost
    /// wrote, and nothing in it is overwritten.
    #[error(
        "{dir} is not empty and has no {MANIFEST}: give an empty or new directory, or one made by `ravenpost site`"
    )]
    NotASite {
        /// The directory.
        dir: PathBuf,
    },
    /// A template failed to render (a bug in ravenpost).
    #[error("page {page}: template error: {message}")]
    Template {
        /// The page.
        page: String,
        /// The template engine's message.
        message: String,
    },
    /// A tournament's standings could not be worked out.
    #[error("standings: {0}")]
    Standings(#[source] Box<crate::usecases::Error>),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> SiteError + '_ {
    move |source| SiteError::Io { path: path.to_path_buf(), source }
}

/// What [`generate`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SiteReport {
    /// Games in the archive (game files, readable or not).
    pub games: usize,
    /// The files written (relative paths, sorted), pages and others.
    pub written: Vec<String>,
    /// Game pages left as they were (their game file did not change).
    pub unchanged: usize,
    /// Pages removed (their game left the archive).
    pub removed: Vec<String>,
    /// Game files that could not be read: `(path, first problem)`; listed on the index.
    pub unreadable: Vec<(String, String)>,
}

/// What the last generation wrote (`.ravenpost-site.json` in the output directory).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// SHA-256 (hex) of the generator: ravenpost's version, the templates and the script.
    pub generator: String,
    /// Each game page (relative path), what it was made from and its index row.
    pub pages: BTreeMap<String, PageRecord>,
}

/// One game page in the [`Manifest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageRecord {
    /// SHA-256 (hex) of the game file the page was made from.
    pub source: String,
    /// The game's row of the index (kept so that an unchanged game is not replayed).
    pub row: IndexRow,
}

fn sha256_hex(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The generator's fingerprint: a change of version, template, script or of whether
/// addresses are shown regenerates every page.
pub fn generator_hash(addresses: Addresses) -> String {
    let shown: &[u8] = match addresses {
        Addresses::Hidden => b"addresses hidden",
        Addresses::Shown => b"addresses shown",
    };
    sha256_hex(&[
        env!("CARGO_PKG_VERSION").as_bytes(),
        shown,
        INDEX_TEMPLATE.as_bytes(),
        GAME_TEMPLATE.as_bytes(),
        STANDINGS_TEMPLATE.as_bytes(),
        SCRIPT.as_bytes(),
        STYLE.as_bytes(),
    ])
}

/// One row of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexRow {
    /// The game id.
    pub id: String,
    /// The variant's title.
    pub variant: String,
    /// The page's relative address (`games/gygax/g1.html`); `None` when there is no page.
    pub href: Option<String>,
    /// The first side's player.
    pub white: String,
    /// The second side's player.
    pub black: String,
    /// The result token, or what the game is waiting for.
    pub result: String,
    /// How a finished game ended (`Bo (Black) resigns`), addresses masked.
    #[serde(default)]
    pub ending: Option<String>,
    /// Plies played.
    pub ply: usize,
    /// Who is to move (the player's name and side), if the game goes on.
    pub to_move: String,
    /// Why the game has no page, if it has none.
    pub problem: Option<String>,
}

/// The index page's contents.
#[derive(Debug, Clone, Serialize)]
pub struct IndexPage {
    /// One row per game.
    pub rows: Vec<IndexRow>,
    /// Further pages linked from the index: `(title, relative address)` (for standings
    /// pages; see [`extra_pages`]).
    pub sections: Vec<(String, String)>,
    /// A line above the table (the server's `Playing as Ann: 2 games waiting for your
    /// move.`).
    pub lead: Option<String>,
}

/// A page added beside the games' pages (see [`extra_pages`]).
#[derive(Debug, Clone)]
pub struct ExtraPage {
    /// Its title, linked from the index.
    pub title: String,
    /// Its path relative to the output directory.
    pub path: String,
    /// Its HTML.
    pub html: String,
    /// Files written beside it: `(path relative to the output directory, contents)`.
    pub beside: Vec<(String, String)>,
}

/// The pages added beside the games' pages: a standings page for `tournament` (or for
/// each tournament), with its figures as JSON beside it (the same JSON `ravenpost
/// standings --json` prints for it). `href` gives a game's page address from the output
/// directory (`None`: the game has no page).
///
/// # Errors
/// The archive's errors; an unknown tournament or one whose file cannot be read.
pub fn extra_pages(
    archive: &Archive,
    session: &Session,
    tournament: Option<&str>,
    href: &dyn Fn(&str) -> Option<String>,
    addresses: Addresses,
) -> Result<Vec<ExtraPage>, SiteError> {
    let env = environment();
    let all = crate::usecases::standings(archive, tournament, session)
        .map_err(|e| SiteError::Standings(Box::new(e)))?;
    let mut out = Vec::new();
    for mut s in all {
        if addresses == Addresses::Hidden {
            for r in &mut s.rows {
                r.name = privacy::public_name(&r.name).into_owned();
            }
            if let Some(b) = &mut s.knockout {
                b.rename(&|n| privacy::public_name(n).into_owned());
            }
            for r in s.swiss.iter_mut().flat_map(|t| &mut t.rows) {
                r.name = privacy::public_name(&r.name).into_owned();
            }
        }
        let file = |ext: &str| format!("tournaments/{}.{ext}", s.tournament);
        let json = serde_json::to_string_pretty(&[&s]).expect("standings serialise") + "\n";
        let rows: Vec<Value> = s
            .rows
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(r).expect("a row serialises");
                v["points_text"] = crate::referee::tournament::points_text(r.points).into();
                v["sb_text"] = format!("{:.2}", r.sonneborn_berger).into();
                Value::from(minijinja::value::Serde(v))
            })
            .collect();
        // A game of the tournament without a page (unreadable) links to the index.
        let mut links = BTreeMap::new();
        for r in &s.rows {
            for c in r.cells.iter().flatten() {
                let to = href(&c.id).map_or_else(|| "../index.html".to_string(), |h| format!("../{h}"));
                links.insert(c.id.clone(), to);
            }
        }
        let bracket = s.knockout.as_ref().map(|b| {
            let mut v = serde_json::to_value(b).expect("a bracket serialises");
            for (m, value) in b.matches.iter().zip(v["matches"].as_array_mut().into_iter().flatten()) {
                let points = crate::referee::tournament::points_text;
                value["score_text"] =
                    format!("{}-{}", points(m.higher_points), points(m.lower_points)).into();
                value["reason_text"] = m.reason.map(|r| r.words()).into();
            }
            v["tie_break_text"] = b.rules.tie_break.words().into();
            Value::from(minijinja::value::Serde(v))
        });
        let swiss = s.swiss.as_ref().map(swiss_value);
        let json_name = format!("{}.json", s.tournament);
        let html = render(
            &env,
            "standings.html",
            &file("html"),
            context! {
                s => context! {
                    tournament => s.tournament.clone(),
                    variant => crate::variants::by_name(&s.variant, &[])
                        .map_or_else(|_| s.variant.clone(), |v| v.def().title.clone()),
                    games => s.games,
                    finished => s.finished,
                    rows => rows,
                    bracket => bracket,
                    swiss => swiss,
                },
                hrefs => links,
                json => json_name,
            },
        )?;
        out.push(ExtraPage {
            title: format!("{}: standings", s.tournament),
            path: file("html"),
            html,
            beside: vec![(file("json"), json)],
        });
    }
    Ok(out)
}

/// A Swiss table for the standings page: the rows with their figures as text.
fn swiss_value(t: &crate::referee::swiss::SwissTable) -> Value {
    let points = crate::referee::tournament::points_text;
    let mut v = serde_json::to_value(t).expect("a Swiss table serialises");
    for (r, value) in t.rows.iter().zip(v["rows"].as_array_mut().into_iter().flatten()) {
        value["points_text"] = points(r.points).into();
        value["cut_text"] = points(r.buchholz_cut1).into();
        value["bh_text"] = points(r.buchholz).into();
        value["sb_text"] = format!("{:.2}", r.sonneborn_berger).into();
        value["de_text"] = r.direct_encounter.map_or_else(|| "-".to_string(), points).into();
    }
    Value::from(minijinja::value::Serde(v))
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    // Names ending in .html are auto-escaped (minijinja's default).
    env.add_template("index.html", INDEX_TEMPLATE).expect("index template parses");
    env.add_template("game.html", GAME_TEMPLATE).expect("game template parses");
    env.add_template("standings.html", STANDINGS_TEMPLATE).expect("standings template parses");
    env.add_template("army.html", ARMY_TEMPLATE).expect("army template parses");
    env
}

fn render(env: &Environment<'_>, name: &str, page: &str, ctx: Value) -> Result<String, SiteError> {
    env.get_template(name)
        .and_then(|t| t.render(ctx))
        .map_err(|e| SiteError::Template { page: page.to_string(), message: format!("{e:#}") })
}

/// The HTML of a game's page; `root` is the relative address of the site's root from the
/// page (`../../`).
///
/// # Errors
/// [`SiteError::Template`] (a bug).
pub fn game_html(page: &GamePage, root: &str) -> Result<String, SiteError> {
    let env = environment();
    game_html_with(&env, page, root)
}

fn game_html_with(env: &Environment<'_>, page: &GamePage, root: &str) -> Result<String, SiteError> {
    let ctx = context! {
        game => Value::from(minijinja::value::Serde(page)),
        root => root,
        download => format!("{}.pgn", page.id),
        board => Value::from_safe_string(page.svg.clone()),
        data => Value::from_safe_string(page::script_json(&page.board)),
    };
    render(env, "game.html", &page.id, ctx)
}

/// A game's page as `ravenpost serve` serves it: the site's page, at the server's root,
/// with `play` (the legal moves and the page's tokens) for the script.
///
/// # Errors
/// [`SiteError::Template`] (a bug).
pub fn served_game_html<T: Serialize>(page: &GamePage, play: &T) -> Result<String, SiteError> {
    let env = environment();
    let ctx = context! {
        game => Value::from(minijinja::value::Serde(page)),
        root => "/",
        download => format!("/game/{}/download", page.id),
        board => Value::from_safe_string(page.svg.clone()),
        data => Value::from_safe_string(page::script_json(&page.board)),
        play => Value::from_safe_string(page::script_json(play)),
    };
    render(&env, "game.html", &page.id, ctx)
}

/// The served page of a secret army choice (Fantasy Grand Chess): `page` as the template
/// reads it (`id`, `white`, `black`, `state`, `step`: `commit`, `reveal` or `wait`,
/// `armies`), `data` the JSON its script reads.
///
/// # Errors
/// [`SiteError::Template`] (a bug).
pub fn army_choice_html<P: Serialize, D: Serialize>(
    id: &str,
    page: &P,
    data: &D,
) -> Result<String, SiteError> {
    let env = environment();
    let ctx = context! {
        page => Value::from(minijinja::value::Serde(page)),
        data => Value::from_safe_string(page::script_json(data)),
    };
    render(&env, "army.html", id, ctx)
}

/// The index page of `rows`, linking `sections` (`(title, address)`: the standings), with
/// `lead` above the table (the server's list of games).
///
/// # Errors
/// [`SiteError::Template`] (a bug).
pub fn index_html(
    rows: Vec<IndexRow>,
    sections: Vec<(String, String)>,
    lead: Option<String>,
) -> Result<String, SiteError> {
    let env = environment();
    let index = IndexPage { rows, sections, lead };
    render(&env, "index.html", "index", context! { index => Value::from(minijinja::value::Serde(&index)) })
}

/// A game file as the site offers it for download: with [`Addresses::Hidden`], the
/// tags holding an address left out (`White` and `Black` keep the name without it) and
/// every address in the movetext's comments masked.
pub fn public_game_text(text: &str, addresses: Addresses) -> String {
    if addresses == Addresses::Shown {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let tag = line.trim_end().strip_prefix('[').and_then(|l| l.strip_suffix(']'));
        match tag.and_then(|t| t.split_once(' ')) {
            Some((name, value)) if privacy::holds_address(value) => {
                if matches!(name, "White" | "Black") {
                    let v = value.trim().trim_matches('"');
                    let end = if line.ends_with('\n') { "\n" } else { "" };
                    out.push_str(&format!("[{name} \"{}\"]{end}", privacy::public_name(v)));
                }
            }
            _ => out.push_str(&privacy::masked(line)),
        }
    }
    out
}

/// Writes `bytes` to `out/rel` unless the file already holds exactly them; `true` if
/// it wrote. The file is written beside and renamed into place.
fn write_if_changed(out: &Path, rel: &str, bytes: &[u8]) -> Result<bool, SiteError> {
    let path = out.join(rel);
    if std::fs::read(&path).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    write_file(&path, bytes)?;
    Ok(true)
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), SiteError> {
    let dir = path.parent().expect("a file in the output directory");
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let mut tmp = tempfile::Builder::new().prefix(".ravenpost-").tempfile_in(dir).map_err(io_error(dir))?;
    tmp.write_all(bytes).map_err(io_error(path))?;
    // A temporary file is private (0600); a published page is for everyone to read.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file().set_permissions(std::fs::Permissions::from_mode(0o644)).map_err(io_error(path))?;
    }
    tmp.persist(path).map_err(|e| SiteError::Io { path: path.to_path_buf(), source: e.error })?;
    Ok(())
}

fn read_manifest(out: &Path) -> Result<Option<Manifest>, SiteError> {
    let path = out.join(MANIFEST);
    match std::fs::read(&path) {
        // An unreadable manifest (cut short, hand-edited) only costs a full regeneration.
        Ok(bytes) => Ok(Some(serde_json::from_slice(&bytes).unwrap_or_default())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let empty = match std::fs::read_dir(out) {
                Ok(mut d) => d.next().is_none(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
                Err(e) => return Err(SiteError::Io { path: out.to_path_buf(), source: e }),
            };
            if empty { Ok(None) } else { Err(SiteError::NotASite { dir: out.to_path_buf() }) }
        }
        Err(e) => Err(SiteError::Io { path, source: e }),
    }
}

/// Writes the site of `archive` (its branch tip) into `out`, rewriting only what
/// changed since the last run (see the module docs). `out` must be new, empty, or a
/// directory this function wrote.
///
/// # Errors
/// [`SiteError`]: the archive could not be read, a file could not be written, or `out`
/// holds files that are not a site. Game files that cannot be read are no error: they
/// are listed on the index and in [`SiteReport::unreadable`].
pub fn generate(
    archive: &Archive,
    session: &Session,
    out: &Path,
    addresses: Addresses,
) -> Result<SiteReport, SiteError> {
    let old = read_manifest(out)?;
    std::fs::create_dir_all(out).map_err(io_error(out))?;
    let generator = generator_hash(addresses);
    let name = |n: String| match addresses {
        Addresses::Hidden => privacy::public_name(&n).into_owned(),
        Addresses::Shown => n,
    };
    let old = old.filter(|m| m.generator == generator).unwrap_or_default();
    let env = environment();
    let mut report = SiteReport::default();
    let mut manifest = Manifest { generator, pages: BTreeMap::new() };
    let mut rows = Vec::new();
    let games = archive.list_games()?;
    report.games = games.len();
    // The definitions a game pinning one replays with: the archive's.
    let definitions = crate::usecases::definitions_at(archive)?;
    for path in &games {
        let file = path.path();
        let rel = format!("games/{}/{}.html", path.variant(), path.id());
        let text = archive.read_file(&file)?.unwrap_or_default();
        let hash = sha256_hex(&[text.as_bytes()]);
        if let Some(kept) = old.pages.get(&rel).filter(|p| p.source == hash && out.join(&rel).is_file()) {
            rows.push(kept.row.clone());
            manifest.pages.insert(rel.clone(), kept.clone());
            report.unchanged += 1;
            continue;
        }
        let game = match record::Loader::new().definitions(&definitions).load(&text).map(|l| l.game) {
            Ok(g) => g,
            Err(e) => {
                let problem = e.to_string().lines().next().unwrap_or("unreadable").to_string();
                report.unreadable.push((file.clone(), problem.clone()));
                rows.push(IndexRow {
                    id: path.id().to_string(),
                    variant: path.variant().to_string(),
                    href: None,
                    white: String::new(),
                    black: String::new(),
                    result: String::new(),
                    ending: None,
                    ply: 0,
                    to_move: String::new(),
                    problem: Some(format!("{file} could not be read: {problem}")),
                });
                continue;
            }
        };
        let result = record::result_of(&game);
        let side = game.position().side_to_move();
        let row = IndexRow {
            id: path.id().to_string(),
            variant: game.variant.def().title.clone(),
            href: Some(rel.clone()),
            white: name(record::player(&game, Side::White)),
            black: name(record::player(&game, Side::Black)),
            ply: game.moves.len(),
            to_move: if result == "*" {
                format!("{} ({})", name(record::player(&game, side)), game.variant.def().side_name(side))
            } else {
                String::new()
            },
            ending: (result != "*").then(|| name(record::ending(&game))),
            result,
            problem: None,
        };
        rows.push(row.clone());
        manifest.pages.insert(rel.clone(), PageRecord { source: hash, row });
        let mut page = game_page(path.id(), &game);
        if addresses == Addresses::Hidden {
            page.hide_addresses();
        }
        let html = game_html_with(&env, &page, "../../")?;
        let pgn = rel.replace(".html", ".pgn");
        if write_if_changed(out, &pgn, public_game_text(&text, addresses).as_bytes())? {
            report.written.push(pgn);
        }
        if write_if_changed(out, &rel, html.as_bytes())? {
            report.written.push(rel);
        } else {
            report.unchanged += 1;
        }
    }
    rows.extend(army_choice_rows(archive, addresses)?);
    let hrefs: BTreeMap<String, String> =
        rows.iter().filter_map(|r| Some((r.id.clone(), r.href.clone()?))).collect();
    let extra = extra_pages(archive, session, None, &|id| hrefs.get(id).cloned(), addresses)?;
    for p in &extra {
        for (path, text) in std::iter::once((&p.path, &p.html)).chain(p.beside.iter().map(|(p, t)| (p, t))) {
            if write_if_changed(out, path, text.as_bytes())? {
                report.written.push(path.clone());
            }
        }
    }
    let index = IndexPage {
        rows,
        sections: extra.iter().map(|p| (p.title.clone(), p.path.clone())).collect(),
        lead: None,
    };
    let html = render(
        &env,
        "index.html",
        "index",
        context! { index => Value::from(minijinja::value::Serde(&index)) },
    )?;
    for (rel, bytes) in
        [("index.html", html.as_bytes()), ("site.js", SCRIPT.as_bytes()), ("site.css", STYLE.as_bytes())]
    {
        if write_if_changed(out, rel, bytes)? {
            report.written.push(rel.to_string());
        }
    }
    for rel in old.pages.keys().filter(|p| !manifest.pages.contains_key(*p)) {
        // The page and the game file beside it.
        for rel in [rel.clone(), rel.replace(".html", ".pgn")] {
            let path = out.join(&rel);
            match std::fs::remove_file(&path) {
                Ok(()) => report.removed.push(rel),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(SiteError::Io { path, source: e }),
            }
        }
    }
    let json = serde_json::to_vec_pretty(&manifest).expect("manifest serialises");
    write_if_changed(out, MANIFEST, &json)?;
    report.written.sort();
    Ok(report)
}

/// The index rows of the Fantasy Grand games whose armies are still being chosen (they
/// have no page yet).
fn army_choice_rows(archive: &Archive, addresses: Addresses) -> Result<Vec<IndexRow>, SiteError> {
    let name = |n: String| match addresses {
        Addresses::Hidden => privacy::public_name(&n).into_owned(),
        Addresses::Shown => n,
    };
    let mut rows = Vec::new();
    let layout = archive.layout()?;
    for id in archive.list_army_choices()? {
        let Some(text) = archive.read_file(&ArmyChoice::path(layout, &id))? else { continue };
        let Ok(choice) = ArmyChoice::from_yaml(&text) else { continue };
        if choice.is_complete() {
            continue;
        }
        rows.push(IndexRow {
            id: id.clone(),
            variant: "Fantasy Grand Chess".into(),
            href: None,
            white: name(choice.white.clone()),
            black: name(choice.black.clone()),
            result: "*".into(),
            ending: None,
            ply: 0,
            to_move: String::new(),
            problem: Some(match addresses {
                Addresses::Hidden => {
                    privacy::masked(&format!("choosing armies in secret: {}", choice.waiting_for()))
                        .into_owned()
                }
                Addresses::Shown => format!("choosing armies in secret: {}", choice.waiting_for()),
            }),
        });
    }
    Ok(rows)
}
