//! The club archive the benchmarks run on (issues 12, 31 and 32): Grand Chess games of
//! random legal moves, each ply one commit, as `ravenpost new` and `ravenpost move` write
//! them; built through `git fast-import` and kept under the target directory, keyed by
//! its parameters (see `archive_scale.rs` for how it is made).

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use ravenpost::archive::{
    Archive, ArchiveConfig, ArchiveOptions, GamePath, GitConfigScope, Identity, Layout, Timestamp,
};
use ravenpost::notation::pgn::{GameText, TagPair, write_game};
use ravenpost::notation::san;
use ravenpost::record;

/// Bump when the generated archive changes, so cached ones are rebuilt (2: the fan-out
/// layout of new archives).
pub(crate) const FORMAT: u32 = 2;
pub(crate) const SEED: u64 = 0x7261_7665_6e70_6f73;
/// 2025-03-01T00:00:00Z: the club starts.
pub(crate) const T0: i64 = 1_740_787_200;
pub(crate) const PLAYERS: [&str; 12] = [
    "Ann Example",
    "Bo Example",
    "Cy Example",
    "Di Example",
    "Ed Example",
    "Flo Example",
    "Gus Example",
    "Hal Example",
    "Ida Example",
    "Jo Example",
    "Kai Example",
    "Lu Example",
];

/// splitmix64: small, fixed, and the same on every machine.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub(crate) fn email(name: &str) -> String {
    format!("{}@example.org", name.split(' ').next().unwrap_or(name).to_lowercase())
}

/// One commit to come: when, by whom, which game, the new text, the message.
pub(crate) struct Step {
    time: i64,
    game: usize,
    author: String,
    message: String,
    text: String,
}

pub(crate) fn game_id(g: usize) -> String {
    format!("g{g:03}")
}

/// The path of game `g` in an archive of `layout` (new archives are fan-out).
pub(crate) fn game_path_in(layout: Layout, g: usize) -> String {
    GamePath::in_layout(layout, "grand", &game_id(g)).expect("a valid id").path()
}

/// The text `ravenpost new grand --white W --black B --id ID` writes at `time` in an
/// archive with the default settings (the tags of `cli::archive_cmds::new_game`).
pub(crate) fn new_game_text(white: &str, black: &str, time: i64) -> String {
    let date = Timestamp::from_unix(time, 0).to_datetime().expect("in range").format("%Y.%m.%d").to_string();
    let tags = [
        ("Event", "?"),
        ("Site", "?"),
        ("Date", date.as_str()),
        ("Round", "-"),
        ("White", white),
        ("Black", black),
        ("Result", "*"),
        ("Variant", "grand"),
        ("Ruleset", ravenpost::record::game::RULESET),
    ];
    let text = GameText {
        tags: tags
            .iter()
            .map(|(k, v)| TagPair { name: k.to_string(), value: v.to_string(), span: Default::default() })
            .collect(),
        ..GameText::default()
    };
    record::load(&write_game(&text, 1, true)).expect("a new game loads").canonical_text()
}

/// Plays one game of random legal moves: its commits, oldest first.
pub(crate) fn play_game(g: usize, rng: &mut Rng) -> Vec<Step> {
    let variant = ravenpost::variants::by_name("grand", &[]).expect("grand");
    let white = PLAYERS[g % PLAYERS.len()];
    let black = PLAYERS[(g / PLAYERS.len() + g + 1) % PLAYERS.len()];
    let black = if black == white { PLAYERS[(g + 5) % PLAYERS.len()] } else { black };
    let mut time = T0 + (g as i64) * 1_800 + rng.below(3_600) as i64;
    let mut text = new_game_text(white, black, time);
    let mut steps = vec![Step {
        time,
        game: g,
        author: format!("{white} <{}>", email(white)),
        message: format!("{}: new Grand Chess game, {white} v {black}", game_id(g)),
        text: text.clone(),
    }];
    let plies = 40 + rng.below(91) as usize;
    let mut pos = variant.start_position();
    for ply in 1..=plies {
        let legal = variant.legal_moves(&pos);
        if legal.is_empty() {
            break;
        }
        let mv = &legal[rng.below(legal.len() as u64) as usize];
        let token = san::write_move(&variant, &pos, mv);
        time += 600 + rng.below(86_400) as i64;
        let player = if ply % 2 == 1 { white } else { black };
        let how = record::Play {
            who: Some(player),
            expect_ply: Some(ply),
            options: record::MoveOptions { at: Some(time), ..Default::default() },
            ..Default::default()
        };
        let (applied, _) = record::load(&text)
            .and_then(|game| record::play(&game, &token, how))
            .unwrap_or_else(|e| panic!("game {g} ply {ply} {token}: {e:?}"));
        let message = match &applied.san {
            Some(s) => format!("{}: ply {} {} ({})", game_id(g), applied.ply, s, applied.summary),
            None => format!("{}: {}", game_id(g), applied.summary),
        };
        text = applied.text;
        steps.push(Step {
            time,
            game: g,
            author: format!("{player} <{}>", email(player)),
            message,
            text: text.clone(),
        });
        pos = variant.make(&pos, mv);
        if applied.result.is_some() {
            break;
        }
    }
    steps
}

pub(crate) fn git(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.org")
        .env("GIT_COMMITTER_NAME", "Bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.org")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// The games played for an archive of more (copied, interleaved).
pub(crate) const COPIED: usize = 3_000;

/// A commit to come, its text already sent to `git fast-import` as blob `mark`.
pub(crate) struct Queued {
    time: i64,
    game: usize,
    mark: usize,
    author: String,
    message: String,
}

/// Builds the archive of `games` games in `dir` (which must not exist), its games at their
/// paths in `layout`. Each game's texts go to `git fast-import` as blobs as soon as the
/// game is played (30,000 games' texts would not fit in memory), then the commits, by time.
pub(crate) fn build(dir: &Path, games: usize, layout: Layout) {
    let started = Instant::now();
    let rng = Rng(SEED ^ games as u64);
    let mut options = ArchiveOptions::default();
    options.git_config = GitConfigScope::RepositoryOnly;
    let referee = Identity::new("Club Referee", "referee@example.org");
    let config = ArchiveConfig { layout, ..ArchiveConfig::default() };
    Archive::init_with_config(dir, &config, Some(&referee), Timestamp::from_unix(T0 - 3_600, 0), options)
        .expect("init");
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["fast-import", "--quiet", "--done"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import runs");
    let mut stdin = std::io::BufWriter::with_capacity(1 << 20, child.stdin.take().expect("stdin"));
    // Above 3,000 games, interleaved copies of the 3,000 games (as issue 31 made its
    // 3,000-game archive from 300): game g of copy k is game k × 3,000 + g, with the same
    // texts at the same times, its commits beside the other copies'.
    let played = games.min(COPIED);
    let mut rng = if played < games { Rng(SEED ^ played as u64) } else { rng };
    let mut queued = Vec::new();
    let mut marks = 0;
    for g in 0..played {
        for s in play_game(g, &mut rng) {
            marks += 1;
            let mark = marks;
            write!(stdin, "blob\nmark :{mark}\ndata {}\n", s.text.len()).expect("stream written");
            stdin.write_all(s.text.as_bytes()).expect("stream written");
            stdin.write_all(b"\n").expect("stream written");
            for k in 0..games / played {
                let game = k * played + s.game;
                let message = if k == 0 {
                    s.message.clone()
                } else {
                    s.message.replacen(&game_id(s.game), &game_id(game), 1)
                };
                queued.push(Queued { time: s.time, game, mark, author: s.author.clone(), message });
            }
        }
    }
    // A club's history: every game's moves in the order they were made.
    queued.sort_by_key(|s| (s.time, s.game));
    eprintln!("  {games} games: {} commits generated in {:.1?}", queued.len() + 1, started.elapsed());
    for (i, s) in queued.iter().enumerate() {
        write!(
            stdin,
            "commit refs/heads/main\nauthor {a} {t} +0000\ncommitter {a} {t} +0000\n",
            a = s.author,
            t = s.time
        )
        .expect("stream written");
        write!(stdin, "data {}\n{}\n", s.message.len() + 1, s.message).expect("stream written");
        if i == 0 {
            stdin.write_all(b"from refs/heads/main^0\n").expect("stream written");
        }
        write!(stdin, "M 100644 :{} {}\n\n", s.mark, game_path_in(layout, s.game)).expect("stream written");
    }
    stdin.write_all(b"done\n").expect("stream written");
    drop(stdin);
    assert!(child.wait().expect("fast-import ends").success(), "git fast-import failed");
    git(dir, &["reset", "-q", "--hard"]);
    // Packed as a club's server would keep it (above 10,000 games the fast-import packs are
    // kept: a full repack of millions of objects takes longer than the benchmark).
    if games <= 10_000 {
        git(dir, &["gc", "-q"]);
    }
    eprintln!("  {games} games: archive built in {:.1?}", started.elapsed());
}

/// The cached archive of `games` games in `layout`, built on first use.
pub(crate) fn archive(root: &Path, games: usize, layout: Layout) -> PathBuf {
    let dir = root.join(format!("grand-{games}-games-{layout}-seed{SEED:x}-v{FORMAT}"));
    if dir.join(".git/ravenpost-bench-complete").exists() {
        return dir;
    }
    let _ = fs::remove_dir_all(&dir);
    build(&dir, games, layout);
    fs::write(dir.join(".git/ravenpost-bench-complete"), "").expect("marker");
    dir
}
