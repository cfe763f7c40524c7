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

/// The points the TRF's line of each player states (columns 81–84), as bbpPairings
/// counted them.
fn trf_points(path: &Path) -> Vec<f64> {
    let text = fs::read_to_string(path).unwrap().replace('\r', "\n");
    text.lines().filter(|l| l.starts_with("001")).map(|l| l[80..84].trim().parse().unwrap()).collect()
}

/// The tie-breaks of a finished Swiss counted straight from the TRF (no code of
/// ravenpost's): for each player (points, Buchholz Cut-1, Buchholz, Sonneborn-Berger) in
/// half points, quarter points for SB. The bye ('U') is a win against an opponent with
/// the player's own score; Cut-1 leaves out the lowest opponent's score.
fn trf_tie_breaks(t: &Trf) -> Vec<(u32, u32, u32, u32)> {
    let halves = |c: char| match c {
        '1' | 'U' => 2,
        '=' => 1,
        _ => 0,
    };
    let score: Vec<u32> = t.entries.iter().map(|rs| rs.iter().map(|e| halves(e.2)).sum()).collect();
    (0..t.entries.len())
        .map(|i| {
            let opp: Vec<(u32, u32)> =
                t.entries[i].iter().map(|e| (halves(e.2), e.0.map_or(score[i], |o| score[o]))).collect();
            let bh: u32 = opp.iter().map(|o| o.1).sum();
            let cut = bh - opp.iter().map(|o| o.1).min().unwrap();
            let sb = opp.iter().map(|(r, s)| r * s).sum();
            (score[i], cut, bh, sb)
        })
        .collect()
}

/// Issue 36: a 20-player, 7-round Swiss played to the end through `sync` and a bare
/// remote with the pre-receive hook. The results are those of `random-1.trf`, the
/// tournament bbpPairings paired and played: fed round by round, `tournament new` and
/// `tournament next` must pair every round as bbpPairings did (colours included; its
/// player 1 had Black in round 1), the hook accepts each round's commit, and the final
/// standings equal the TRF's points and the tie-breaks counted from the TRF alone.
#[test]
fn a_twenty_player_swiss_played_through_sync_pairs_as_bbppairings() {
    use crate::knockout::{R, club, made, play};
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/swiss/random-1.trf");
    let trf = read_trf(&file);
    let n = trf.entries.len();
    assert_eq!((n, trf.rounds), (20, 7));
    let name = |i: usize| format!("P{:02}", i + 1);
    let c = club(None);
    let mut t = crate::common::T0 + 60;
    let players: Vec<String> = (0..n).map(name).collect();
    let players = players.join(",");
    let args = ["tournament", "new", "club", "gygax", "--format", "swiss", "--rounds", "7", "--first-colour"];
    let json = c.ok(t, &[&args[..], &["black", "--players", &players, "--json"]].concat());
    let mut games = made(&json, "tournament");
    t += 60;
    c.ok(t, &["sync"]);
    for round in 0..7 {
        // The round as bbpPairings paired it: "White-Black" by player number.
        let mut expected: Vec<String> =
            as_paired(&trf, round).games.iter().map(|&(w, b)| format!("{}-{}", name(w), name(b))).collect();
        expected.sort();
        let mut got: Vec<String> = games.iter().map(|g| format!("{}-{}", g.1, g.2)).collect();
        got.sort();
        assert_eq!(got, expected, "round {}", round + 1);
        assert!(games.iter().all(|g| g.0.starts_with(&format!("club-r{}-b", round + 1))), "{games:?}");
        for (id, white, black) in &games {
            let w: usize = white[1..].parse::<usize>().unwrap() - 1;
            let r = match trf.entries[w][round].2 {
                '1' => R::White,
                '0' => R::Black,
                _ => R::Draw,
            };
            play(&c, &mut t, id, white, black, r);
        }
        t += 60;
        c.ok(t, &["sync"]);
        t += 60;
        let next = c.ok(t, &["tournament", "next", "club", "--json"]);
        if round < 6 {
            games = made(&next, "");
            t += 60;
            c.ok(t, &["sync"]);
        } else {
            let v: serde_json::Value = serde_json::from_str(&next).unwrap();
            assert_eq!(v["waiting"], "it is over: all 7 rounds were played", "{next}");
        }
    }
    let server = crate::common::git(&c.server, &c.home, &["rev-parse", "main"]);
    assert_eq!(
        server,
        crate::common::git(&c.org, &c.home, &["rev-parse", "HEAD"]),
        "the server has every step"
    );
    let v = c.ok(t, &["verify"]);
    assert!(v.contains("70 games verified, 0 problems"), "{v}");

    let s: serde_json::Value = serde_json::from_str(&c.ok(t, &["standings", "club", "--json"])).unwrap();
    let rows = s[0]["swiss"]["rows"].as_array().unwrap();
    let points = trf_points(&file);
    let counted = trf_tie_breaks(&trf);
    let mut seen = 0;
    for r in rows {
        let i = r["number"].as_u64().unwrap() as usize - 1;
        let (p, cut, bh, sb) = counted[i];
        let got = (r["points"].as_f64().unwrap(), r["buchholz_cut1"].as_f64().unwrap());
        assert_eq!(got, (points[i], f64::from(cut) / 2.0), "{}", name(i));
        assert_eq!(f64::from(p) / 2.0, points[i], "the TRF's points and its results agree");
        assert_eq!(r["buchholz"].as_f64().unwrap(), f64::from(bh) / 2.0, "{}", name(i));
        assert_eq!(r["sonneborn_berger"].as_f64().unwrap(), f64::from(sb) / 4.0, "{}", name(i));
        seen += 1;
    }
    assert_eq!(seen, 20);
    // Places: by points, Cut-1, Buchholz, SB (direct encounter only splits ties that
    // remain, which the check below allows for).
    for a in rows {
        for b in rows {
            let key = |r: &serde_json::Value| {
                let i = r["number"].as_u64().unwrap() as usize - 1;
                counted[i]
            };
            if key(a) > key(b) {
                assert!(a["rank"].as_u64() < b["rank"].as_u64(), "{a} ahead of {b}");
            }
        }
    }
    let text = c.ok(t, &["standings", "club"]);
    assert!(text.starts_with("club (gygax), Swiss of 7 rounds (Dutch system), finished\n"), "{text}");

    // The site's standings page: the same JSON beside it, and the table by place.
    let out = c.org.parent().unwrap().join("site");
    c.ok(t, &["site", out.to_str().unwrap()]);
    let printed = c.ok(t, &["standings", "--json"]);
    assert_eq!(fs::read_to_string(out.join("tournaments/club.json")).unwrap(), printed);
    let page = fs::read_to_string(out.join("tournaments/club.html")).unwrap();
    let table = page.split("<table id=\"swiss\"").nth(1).unwrap().split("</table>").next().unwrap();
    let shown: Vec<String> =
        table.split("<tr data-number=").skip(1).map(crate::common::cli::shown_row).collect();
    assert_eq!(shown.len(), 20);
    let line = |r: &serde_json::Value| {
        let rounds: Vec<String> = r["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                let result = ["0", "½", "1"][x["halves"].as_u64().unwrap() as usize];
                match x["opponent"].as_u64() {
                    Some(o) => format!("{o}{}{result}", if x["white"] == true { "w" } else { "b" }),
                    None => "bye".to_string(),
                }
            })
            .collect();
        format!("{} {} {} {}", r["rank"], r["number"], r["name"].as_str().unwrap(), rounds.join(" "))
    };
    for (r, shown) in rows.iter().zip(&shown) {
        assert!(shown.starts_with(&format!("{} ", line(r))), "{shown} for {r}");
    }
}

/// Issue 36: a Swiss's next round is judged by pairing it again. Five players, so one
/// has the bye each round. `tournament next` waits while a game goes on; a commit that
/// pairs round 2 otherwise than the Dutch system (the tournament file and the game
/// file edited alike) is refused by the hook and reported by `verify`; bad input says
/// what would be legal.
#[test]
fn a_forged_swiss_round_is_refused_and_bad_input_says_what_is_legal() {
    use crate::common::{git, run_at, text};
    use crate::knockout::{R, club, made, play};
    let c = club(None);
    let mut t = crate::common::T0 + 60;
    let new = ["tournament", "new", "five", "gygax", "--format", "swiss", "--players", "A,B,C,D,E"];
    let o = run_at(&c.org, &c.home, t, &new);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--format swiss needs --rounds N (fewer rounds than players)"), "{}", text(&o));
    let o = run_at(&c.org, &c.home, t, &[&new[..], &["--rounds", "5"]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("a Swiss of 5 players plays 1 to 4 rounds (--rounds), not 5"), "{}", text(&o));
    let o = run_at(&c.org, &c.home, t, &[&new[..], &["--rounds", "3", "--games", "2"]].concat());
    assert!(text(&o).contains("--games and --tie-break are for --format knockout"), "{}", text(&o));
    let many: Vec<String> = (1..=129).map(|k| format!("P{k}")).collect();
    let many = many.join(",");
    let o = run_at(
        &c.org,
        &c.home,
        t,
        &["tournament", "new", "big", "gygax", "--format", "swiss", "--rounds", "5", "--players", &many],
    );
    assert!(text(&o).contains("a Swiss pairs at most 128 players, this one has 129"), "{}", text(&o));

    let out = c.ok(t, &[&new[..], &["--rounds", "3"]].concat());
    assert!(out.contains("five: Swiss of 3 rounds, 5 players, round 1 paired: 2 games"), "{out}");
    assert!(out.contains("  round  1 board 1: five-r1-b1  A v C\n"), "{out}");
    assert!(out.contains("  round  1 board 2: five-r1-b2  D v B\n  round  1 bye: E\n"), "{out}");
    c.push(t);
    t += 60;
    play(&c, &mut t, "five-r1-b1", "A", "C", R::White);
    let waiting = c.ok(t, &["tournament", "next", "five"]);
    assert_eq!(waiting, "five: no game is due, waiting for the results of five-r1-b2\n");
    play(&c, &mut t, "five-r1-b2", "D", "B", R::Draw);
    t += 60;
    let good = made(&c.ok(t, &["tournament", "next", "five", "--json"]), "");
    let pairs: Vec<String> = good.iter().map(|g| format!("{} {}-{}", g.0, g.1, g.2)).collect();
    // After round 1: A 1, E 1 (bye), B ½, D ½, C 0. The bye goes to the lowest score
    // that still lets the others be paired: C (0), never had it. Then B and D, who met,
    // cannot meet again, so A and E float down to them: B-A (A had White), E-D (D had
    // White).
    assert_eq!(pairs, ["five-r2-b1 B-A", "five-r2-b2 E-D"]);

    // Forge it: C (the bye) instead of B on board 1.
    let yaml = c.org.join("tournaments/five.yaml");
    let before = fs::read_to_string(&yaml).unwrap();
    let at = before.find("id: five-r2-b1").unwrap();
    let forged = format!("{}{}", &before[..at], before[at..].replacen("white: B", "white: C", 1));
    fs::write(&yaml, forged).unwrap();
    let game = c.org.join(crate::common::cli::fan_out_path("gygax", "five-r2-b1"));
    let pgn = fs::read_to_string(&game).unwrap();
    fs::write(&game, pgn.replace("[White \"B\"]", "[White \"C\"]")).unwrap();
    git(&c.org, &c.home, &["commit", "--quiet", "--amend", "-a", "--no-edit"]);
    let refused = c.try_push(t + 60).unwrap_err();
    assert!(
        refused.contains(
            "round 2's games are five-r2-b1 B v A, five-r2-b2 E v D; the commit adds five-r2-b1 C v A, five-r2-b2 E v D"
        ),
        "{refused}"
    );
    let o = run_at(&c.org, &c.home, t + 60, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("round 2's games are five-r2-b1 B v A"), "{}", text(&o));
    git(&c.org, &c.home, &["reset", "--quiet", "--hard", "HEAD~1"]);
    t += 120;
    let again = made(&c.ok(t, &["tournament", "next", "five", "--json"]), "");
    assert_eq!(again, good);
    c.push(t + 60);
    let v = c.ok(t + 60, &["verify"]);
    assert!(v.contains("4 games verified, 0 problems"), "{v}");
    // The JSON says which round was a bye (a new user's trial: only a missing opponent
    // said so). E had round 1's; C has round 2's; no one else had one.
    let s: serde_json::Value = serde_json::from_str(&c.ok(t + 60, &["standings", "five", "--json"])).unwrap();
    let mut byes = Vec::new();
    for r in s[0]["swiss"]["rows"].as_array().unwrap() {
        for round in r["rounds"].as_array().unwrap() {
            assert_eq!(round["bye"].as_bool().unwrap(), round["opponent"].is_null(), "{round}");
            if round["bye"] == true {
                byes.push(format!("{} r{}", r["name"].as_str().unwrap(), round["round"]));
            }
        }
    }
    byes.sort();
    assert_eq!(byes, ["C r2", "E r1"]);
}
