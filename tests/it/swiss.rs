//! Swiss pairings by the Dutch system, checked against an independent implementation.
//!
//! `tests/data/swiss/*.trf` are whole tournaments that bbpPairings (the FIDE-endorsed
//! Dutch pairing engine, built from its public source; see the README there for the
//! commands) paired round by round with random results. For each round the test gives
//! ravenpost's pairing the rounds before it and compares the games, colours included, and
//! the bye with the file's.

use std::fs;
use std::path::Path;

use ravenpost::engine::Side;
use ravenpost::referee::dutch::{Past, RoundPairing, pair_round};

/// One round of a player as the TRF lists it: opponent index (none for a bye), colour,
/// result.
type Entry = (Option<usize>, Option<Side>, char);

/// A tournament as the TRF lists it.
struct Trf {
    rounds: usize,
    /// `entries[i][r]`: player `i`'s round `r`.
    entries: Vec<Vec<Entry>>,
}

fn read_trf(path: &Path) -> Trf {
    let text = fs::read_to_string(path).unwrap().replace('\r', "\n");
    let mut entries = Vec::new();
    let mut rounds = 0;
    for line in text.lines().filter(|l| l.starts_with("001")) {
        let number: usize = line[4..8].trim().parse().unwrap();
        let mut rs = Vec::new();
        let mut at = 91;
        while at + 8 <= line.len() + 1 && at < line.len() {
            let block = &line[at..(at + 10).min(line.len())];
            let opponent: usize = block[..4].trim().parse().unwrap();
            let colour = match block.as_bytes()[5] {
                b'w' => Some(Side::White),
                b'b' => Some(Side::Black),
                _ => None,
            };
            let result = block.as_bytes()[7] as char;
            rs.push(((opponent > 0).then(|| opponent - 1), colour, result));
            at += 10;
        }
        rounds = rounds.max(rs.len());
        assert_eq!(number, entries.len() + 1, "{}: players in order", path.display());
        entries.push(rs);
    }
    Trf { rounds, entries }
}

/// The players' pasts before round `round` (from 0).
fn pasts(t: &Trf, round: usize) -> Vec<Vec<Past>> {
    t.entries
        .iter()
        .map(|rs| {
            rs[..round.min(rs.len())]
                .iter()
                .map(|&(opponent, colour, result)| {
                    let points = match result {
                        '1' | '+' | 'W' | 'F' | 'U' => 2,
                        '=' | 'D' | 'H' => 1,
                        _ => 0,
                    };
                    match (opponent, colour, result) {
                        (Some(opponent), _, '+' | '-') => Past::Forfeit { opponent, points },
                        (Some(opponent), Some(colour), _) => Past::Played { opponent, colour, points },
                        (None, _, 'U') => Past::Bye,
                        _ => Past::Absent { points },
                    }
                })
                .collect()
        })
        .collect()
}

/// Round `round` (from 0) as the file has it.
fn as_paired(t: &Trf, round: usize) -> RoundPairing {
    let mut games = Vec::new();
    let mut bye = None;
    for (i, rs) in t.entries.iter().enumerate() {
        match rs[round] {
            (Some(o), Some(Side::White), _) => games.push((i, o)),
            (None, _, 'U') => bye = Some(i),
            _ => {}
        }
    }
    games.sort_unstable();
    RoundPairing { games, bye }
}

fn show(p: &RoundPairing) -> String {
    let mut g: Vec<String> = p.games.iter().map(|(w, b)| format!("{}-{}", w + 1, b + 1)).collect();
    g.sort();
    format!("{} bye {:?}", g.join(" "), p.bye.map(|b| b + 1))
}

/// Compares every round of the tournament in `file` (or, when `file` has a `.expected`
/// beside it in bbpPairings' output format, the next round only): the rounds compared and
/// the differences.
fn compare(file: &Path) -> (usize, Vec<String>) {
    let t = read_trf(file);
    let text = fs::read_to_string(file).unwrap().replace('\r', "\n");
    let total = text
        .lines()
        .find_map(|l| l.strip_prefix("XXR ").map(|r| r.trim().parse::<usize>().unwrap()))
        .unwrap_or(t.rounds);
    let initial = t.entries[0].first().and_then(|e| e.1).unwrap_or(Side::White);
    let name = file.file_name().unwrap().to_string_lossy().to_string();
    let mut differences = Vec::new();
    let expected_file = file.with_extension("expected");
    // Rounds with a game or a bye in them were played; an entry after them is an absence
    // declared for the round to pair.
    let played = (0..t.rounds)
        .filter(|&r| t.entries.iter().any(|e| e.get(r).is_some_and(|x| x.0.is_some() || x.2 == 'U')))
        .max()
        .map_or(0, |r| r + 1);
    let out: Vec<usize> = (0..t.entries.len()).filter(|&i| t.entries[i].len() > played).collect();
    let rounds: Vec<(usize, RoundPairing)> = if expected_file.exists() {
        let text = fs::read_to_string(&expected_file).unwrap();
        let mut games = Vec::new();
        let mut bye = None;
        for line in text.lines().skip(1) {
            let v: Vec<usize> = line.split_whitespace().map(|x| x.parse().unwrap()).collect();
            match v[..] {
                [a, 0] => bye = Some(a - 1),
                [w, b] => games.push((w - 1, b - 1)),
                _ => {}
            }
        }
        games.sort_unstable();
        vec![(played, RoundPairing { games, bye })]
    } else {
        (0..t.rounds).map(|r| (r, as_paired(&t, r))).collect()
    };
    for (round, expected) in &rounds {
        let out: &[usize] = if *round == played { &out } else { &[] };
        let mut got = pair_round(&pasts(&t, *round), total as u32, initial, out).unwrap();
        got.games.sort_unstable();
        if got != *expected {
            differences.push(format!(
                "{name} round {}:\n  bbpPairings {}\n  ravenpost   {}",
                round + 1,
                show(expected),
                show(&got)
            ));
        }
    }
    (rounds.len(), differences)
}

fn trf_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "trf"));
    files.sort();
    files
}

/// Every round of every tournament in `tests/data/swiss` (and in the folder
/// `RAVENPOST_SWISS_MORE` names, for wider runs by hand): the pairing ravenpost makes is
/// bbpPairings'.
#[test]
fn dutch_pairings_equal_bbppairings_round_by_round() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/swiss");
    let mut files = trf_files(&dir);
    assert!(files.len() >= 3, "the tournaments are there");
    for file in &files {
        assert!(read_trf(file).entries.len() >= 20, "{}: 20 players at least", file.display());
    }
    if let Ok(more) = std::env::var("RAVENPOST_SWISS_MORE") {
        let extra = trf_files(Path::new(&more));
        assert!(!extra.is_empty(), "no .trf in {more}");
        files.extend(extra);
    }
    let (mut compared, mut differences) = (0, Vec::new());
    for file in &files {
        eprintln!("{}", file.display());
        let (c, d) = compare(file);
        compared += c;
        differences.extend(d);
    }
    eprintln!("{compared} rounds of {} tournaments compared", files.len());
    assert!(compared >= 21);
    assert!(
        differences.is_empty(),
        "{} of {compared} rounds differ:\n{}",
        differences.len(),
        differences.join("\n")
    );
}
