//! `ravenpost bot` (issue 35): a computer player's moves by correspondence. Two bots play
//! a whole Gygax Chess game through a bare remote with the pre-receive hook, which judges
//! every ply of both sides; `verify` finds it clean and its end is the referee's. A bot
//! answers a draw offer by its search's score.

use crate::common;

use common::{git, run_at, text};

use crate::knockout::club;

/// Two bots (Alf White, Bea Black, 2,000 nodes a move) play a Gygax Chess game to its
/// end, each pass committed as `move --as` commits and pushed with `sync` every 40
/// plies: the hook accepts every push, the server has the whole game, and `verify` and
/// `status` agree with the last move's result.
#[test]
fn two_bots_play_a_whole_gygax_game_through_the_hook() {
    let c = club(None);
    let mut t = common::T0 + 60;
    c.ok(t, &["new", "gygax", "--white", "Alf", "--black", "Bea", "--id", "duel"]);
    c.ok(t, &["sync"]);
    let mut last = None;
    let mut plies = 0;
    'game: for _ in 0..2000 {
        for who in ["Alf", "Bea"] {
            t += 60;
            let json = c.ok(t, &["bot", "--as", who, "--nodes", "2000", "--json"]);
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            let moves = v["moves"].as_array().unwrap();
            assert!(v["skipped"].as_array().unwrap().is_empty(), "{json}");
            let Some(m) = moves.first() else { break 'game };
            assert_eq!(moves.len(), 1, "{json}");
            assert_eq!(m["game"], "duel");
            plies = m["ply"].as_u64().unwrap();
            if plies % 40 == 0 {
                c.ok(t, &["sync"]);
            }
            if !m["result"].is_null() {
                last = Some(m.clone());
                break 'game;
            }
        }
    }
    let last = last.expect("the game ended");
    t += 60;
    c.ok(t, &["sync"]);
    let result = last["result"].as_str().unwrap();
    assert!(["1-0", "0-1", "1/2-1/2"].contains(&result), "{last}");
    assert!(plies > 10, "{plies} plies");
    assert_eq!(
        git(&c.server, &c.home, &["rev-parse", "main"]),
        git(&c.org, &c.home, &["rev-parse", "HEAD"]),
        "the hook accepted every ply"
    );
    let status = c.ok(t, &["status"]);
    assert!(status.contains(&format!("finished {result}")), "{status}");
    let v = c.ok(t, &["verify"]);
    assert!(v.contains("1 game verified, 0 problems"), "{v}");
    // Every ply is its own commit, authored by the player who moved.
    let authors = git(&c.org, &c.home, &["log", "--format=%an", "--", "games"]);
    let alf = authors.lines().filter(|a| *a == "Alf").count() as u64;
    let bea = authors.lines().filter(|a| *a == "Bea").count() as u64;
    // A claimed or accepted draw is a commit of its own after the last ply.
    let steps = plies + u64::from(last["action"] != "move");
    assert_eq!(alf + bea, steps, "{authors}");
    // Nothing waits for either bot now.
    let o = run_at(&c.org, &c.home, t, &["bot", "--as", "Alf"]);
    assert_eq!(text(&o), "Alf: no game waits for a move (it plays in no game going on)\n");
}

/// A draw offered to a bot is accepted when its search finds it no better (score 0 or
/// less), and left to lapse by a move when it finds it better; bad input says what is
/// legal.
#[test]
fn a_bot_answers_a_draw_offer_by_its_score_and_refuses_bad_input() {
    let c = club(None);
    let t = common::T0 + 60;
    let bot = |at: i64, depth: &str| -> serde_json::Value {
        let json = c.ok(at, &["bot", "--as", "computer", "--depth", depth, "--json"]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["moves"].as_array().unwrap().len(), 1, "{json}");
        v["moves"][0].clone()
    };
    // At once: after 1. 2e3 the bot (Scarlet) finds itself no better and accepts.
    c.ok(t, &["new", "gygax", "--white", "Ann", "--black", "computer", "--id", "a"]);
    c.ok(t, &["move", "a", "2e3", "--as", "Ann", "--offer-draw"]);
    let m = bot(t + 60, "2");
    assert!(m["score"]["cp"].as_i64().unwrap() <= 0, "{m}");
    assert_eq!((m["action"].as_str(), m["result"].as_str()), (Some("accept-draw"), Some("1/2-1/2")), "{m}");
    // Later, with a capture at hand (its search: +225), it takes it and the offer lapses.
    c.ok(t + 120, &["new", "gygax", "--white", "Ann", "--black", "computer", "--id", "b"]);
    c.ok(t + 120, &["move", "b", "2e3", "--as", "Ann"]);
    assert_eq!(bot(t + 180, "3")["san"], "G3i5");
    c.ok(t + 240, &["move", "b", "2d3", "--as", "Ann", "--offer-draw"]);
    let m = bot(t + 300, "3");
    assert!(m["score"]["cp"].as_i64().unwrap() > 0, "{m}");
    assert_eq!(
        (m["action"].as_str(), m["san"].as_str(), m["ply"].as_u64()),
        (Some("move"), Some("Rx3a2"), Some(4))
    );
    let status = c.ok(t + 300, &["status"]);
    assert!(status.contains("a  gygax  Ann v computer  ply 1    finished 1/2-1/2 (Draw agreed)"), "{status}");
    assert!(status.contains("b  gygax  Ann v computer  ply 4    Ann (Gold) to move"), "{status}");
    let v = c.ok(t + 300, &["verify"]);
    assert!(v.contains("2 games verified, 0 problems"), "{v}");

    let o = run_at(&c.org, &c.home, t, &["bot", "--as", "computer", "--depth", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("0 is not in 1..=48"), "{}", text(&o));
    let o = run_at(&c.org, &c.home, t, &["bot"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--as <NAME>"), "{}", text(&o));
}

/// A negative number given to a numeric option (`--timeout -1`) was taken for an unknown
/// option, with clap's tip to write `-- -1`; each is now read as the option's value and
/// refused with the option's range (a new-user trial).
#[test]
fn a_negative_number_was_taken_for_an_option_with_a_tip_about_dashes() {
    let c = club(None);
    let t = common::T0 + 60;
    for (args, range) in [
        (&["bot", "--as", "computer", "--nodes", "-5"][..], "a whole number of nodes from 1 to 100000000"),
        (&["bot", "--as", "computer", "--time", "-1"], "expected seconds above 0"),
        (&["bot", "--as", "computer", "--depth", "-2"], "-2 is not in 1..=48"),
        (&["mail", "serve", "--maildir", "md", "--once", "--bot-nodes", "-5"], "from 1 to 100000000"),
        (&["mail", "send", "g1", "--timeout", "-1"], "expected whole seconds from 1 to 3600"),
        (&["serve", "--header-timeout", "-3"], "expected whole seconds from 1 to 3600"),
    ] {
        let o = run_at(&c.org, &c.home, t, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        let value = args.last().unwrap();
        assert!(text(&o).contains(&format!("invalid value '{value}'")), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(range) && !text(&o).contains("tip:"), "{args:?}: {}", text(&o));
    }
}

/// A node budget of 2^64 − 1 (a typo) held `bot`, and `mail serve` with all its club's
/// mail, searching for hours without a word; `bot --nodes 0` was taken as 2,048 nodes
/// while `mail serve --bot-nodes 0` was refused. Both now take 1 to 100,000,000 nodes and
/// say so.
#[test]
fn a_huge_node_budget_held_the_bot_and_the_referee_without_a_word() {
    let c = club(None);
    let t = common::T0 + 60;
    for args in [
        &["bot", "--as", "computer", "--nodes", "18446744073709551615"][..],
        &["bot", "--as", "computer", "--nodes", "0"],
        &["mail", "serve", "--maildir", "md", "--once", "--bot-nodes", "18446744073709551615"],
        &["mail", "serve", "--maildir", "md", "--once", "--bot-nodes", "0"],
        // A number, not a whole one: it was "expected a number of nodes".
        &["bot", "--as", "computer", "--nodes", "1e9"],
    ] {
        let o = run_at(&c.org, &c.home, t, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(
            text(&o).contains("expected a whole number of nodes from 1 to 100000000"),
            "{args:?}: {}",
            text(&o)
        );
    }
    let o = run_at(&c.org, &c.home, t, &["bot", "--as", "computer", "--time", "1e30"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("at most 10000000"), "{}", text(&o));
}
