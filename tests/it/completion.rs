//! Completion in the real shells: the script `ravenpost completions SHELL` prints is
//! loaded by bash, zsh and fish, which then ask ravenpost (`COMPLETE=SHELL ravenpost --
//! WORDS…`) for the game ids of the archive the command would use (the games waiting
//! for your move first) and for variant names. A completion never fails loudly.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::tools::require;
use common::{identity, isolate, ok};

/// An archive whose identity is Ann Example, holding three games: two waiting for Ann's
/// move (`club-2027-r04-b3`, `friendly-bo-ann`) and one for Cy's (`club-2027-r03-a1`).
/// Returns (temporary folder, archive, home).
fn club() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Ann Example", "ann@example.org");
    let dir = t.path().join("arc");
    ok(t.path(), &home, &["init", dir.to_str().unwrap()]);
    for (variant, white, black, id) in [
        ("gygax", "Ann Example", "Bo Example", "club-2027-r04-b3"),
        ("gygax", "Cy Example", "Ann Example", "club-2027-r03-a1"),
        ("fidchell", "Bo Example", "Ann Example", "friendly-bo-ann"),
    ] {
        ok(&dir, &home, &["new", variant, "--white", white, "--black", black, "--id", id]);
    }
    ok(&dir, &home, &["move", "friendly-bo-ann", "W_c3", "--as", "Bo Example"]);
    let status = ok(&dir, &home, &["status", "--to-move"]);
    let waiting: Vec<&str> = status.lines().skip(1).filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(waiting, ["club-2027-r04-b3", "friendly-bo-ann"], "{status}");
    (t, dir, home)
}

/// The registration script for `shell`, written into the temporary folder.
fn script(t: &Path, dir: &Path, home: &Path, shell: &str) -> PathBuf {
    let path = t.join(format!("ravenpost.{shell}"));
    std::fs::write(&path, ok(dir, home, &["completions", shell])).unwrap();
    path
}

/// `shell` run in `cwd` with the tests' isolated environment.
fn shell(program: &str, cwd: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(program);
    isolate(&mut cmd, home);
    cmd.current_dir(cwd);
    cmd
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What bash's completion function puts in COMPREPLY for the line `words` (the cursor at
/// the end of the last word), asked as bash asks it on TAB.
fn bash_complete(script: &Path, cwd: &Path, home: &Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let text = format!(
        "source '{}'\n\
         COMP_WORDS=({})\nCOMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))\n\
         COMP_LINE=\"${{COMP_WORDS[*]}}\"\nCOMP_POINT=${{#COMP_LINE}}\nCOMP_TYPE=9\n\
         _clap_complete_ravenpost ravenpost \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script.display(),
        quoted.join(" ")
    );
    let out = stdout(&shell("bash", cwd, home).arg("--norc").arg("-c").arg(text).output().unwrap());
    out.lines().filter(|l| !l.is_empty()).map(str::to_string).collect()
}

/// Game ids in bash: yours to move first; the unique one completed; `--archive` of the
/// line read from elsewhere; variant names.
#[test]
fn bash_completes_game_ids_and_variant_names() {
    require("bash", &["--version"], "bash");
    let (t, dir, home) = club();
    let script = script(t.path(), &dir, &home, "bash");
    let registered = stdout(
        &shell("bash", &dir, &home)
            .arg("-c")
            .arg(format!("source '{}'; complete -p ravenpost", script.display()))
            .output()
            .unwrap(),
    );
    assert!(
        registered.contains("-F _clap_complete_ravenpost") && registered.trim_end().ends_with(" ravenpost"),
        "{registered}"
    );

    // `club-2`: Ann's game first although its id sorts last.
    assert_eq!(
        bash_complete(&script, &dir, &home, &["ravenpost", "show", "club-2"]),
        ["club-2027-r04-b3", "club-2027-r03-a1"]
    );
    assert_eq!(
        bash_complete(&script, &dir, &home, &["ravenpost", "move", "club-2027-r04"]),
        ["club-2027-r04-b3"]
    );
    // Every game: Ann's two, then Cy's; after `show` the options follow.
    let all = bash_complete(&script, &dir, &home, &["ravenpost", "resign", ""]);
    assert_eq!(all[..3], ["club-2027-r04-b3", "friendly-bo-ann", "club-2027-r03-a1"], "{all:?}");
    assert!(all[3..].iter().all(|w| w.starts_with('-')), "{all:?}");
    assert!(
        !all.iter().any(|w| w == "--archive"),
        "global options are not offered after a subcommand: {all:?}"
    );
    // The archive named on the line, from outside it (the global option after the subcommand).
    assert_eq!(
        bash_complete(
            &script,
            t.path(),
            &home,
            &["ravenpost", "log", "--archive", dir.to_str().unwrap(), "fri"]
        ),
        ["friendly-bo-ann"]
    );
    // The identity named on the line decides which games are yours: none waits for Bo's
    // move, so for Bo they come by id. An `--author` bash broke into pieces is left out
    // (Ann's order again), not a reason to offer nothing.
    assert_eq!(
        bash_complete(
            &script,
            &dir,
            &home,
            &["ravenpost", "--author", "Bo Example <bo@example.net>", "show", "c"]
        ),
        ["club-2027-r03-a1", "club-2027-r04-b3"]
    );
    assert_eq!(
        bash_complete(
            &script,
            &dir,
            &home,
            &["ravenpost", "--author", "\"Ann", "<ann@example.org>\"", "show", "c"]
        ),
        ["club-2027-r04-b3", "club-2027-r03-a1"]
    );
    assert_eq!(
        bash_complete(&script, &dir, &home, &["ravenpost", "mail", "send", "friendly"]),
        ["friendly-bo-ann"]
    );

    // Variant names: built-ins and aliases, where a command takes a variant.
    assert_eq!(
        bash_complete(&script, &dir, &home, &["ravenpost", "new", "fant"]),
        ["fantasy-grand", "fantasy-grand-chess"]
    );
    assert_eq!(bash_complete(&script, &dir, &home, &["ravenpost", "perft", "drag"]), ["dragonchess"]);
    assert_eq!(bash_complete(&script, &dir, &home, &["ravenpost", "variant", "show", "fid"]), ["fidchell"]);
    // `moves` takes a variant or a game.
    assert_eq!(
        bash_complete(&script, &dir, &home, &["ravenpost", "moves", "f"]),
        ["fidchell", "fantasy-grand", "fantasy-grand-chess", "friendly-bo-ann"]
    );
}

/// Outside any archive, or with a settings file that does not read, a completion offers
/// no game id and says nothing: exit 0, no standard error.
#[test]
fn completion_outside_an_archive_is_quiet() {
    let (t, _dir, home) = club();
    let bad = t.path().join("bad.yaml");
    std::fs::write(&bad, "identity: [unclosed\n").unwrap();
    for env in [None, Some(("RAVENPOST_CONFIG", bad.to_str().unwrap()))] {
        let complete = |words: &[&str]| {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_ravenpost"));
            isolate(&mut cmd, &home);
            cmd.current_dir(t.path()).env("COMPLETE", "fish");
            if let Some((k, v)) = env {
                cmd.env(k, v);
            }
            cmd.arg("--").args(words).output().unwrap()
        };
        let o = complete(&["ravenpost", "show", "club"]);
        assert_eq!(o.status.code(), Some(0), "{env:?}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), "", "{env:?}");
        assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{env:?}");
        // The variant names need no archive.
        let o = complete(&["ravenpost", "new", "gyg"]);
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "gygax\ngygax-chess\ngygax-fidchell\ngygaxs-fidchell\n",
            "{env:?}: {}",
            common::text(&o)
        );
    }
}

/// zsh, interactive in a pseudo-terminal (its own zpty module): the script sourced after
/// compinit, lines typed with TAB, and the edited line read back from the line editor.
/// TAB completes a unique game id and the common part of two variant names; with
/// menu completion the first TAB inserts the first choice: your game to move.
#[test]
fn zsh_completes_game_ids_and_variant_names() {
    require("zsh", &["--version"], "zsh (.ci/test-deps installs it)");
    let (t, dir, home) = club();
    let script = script(t.path(), &dir, &home, "zsh");
    let lines = t.path().join("lines");
    let setup = t.path().join("setup.zsh");
    // In the inner zsh: Ctrl-T appends the line being edited to `lines` and clears it.
    std::fs::write(
        &setup,
        format!(
            "PS1='> '\nautoload -Uz compinit && compinit -u -d '{dump}'\nsource '{script}'\n\
             dump() {{ print -r -- \"$BUFFER\" >> '{lines}'; BUFFER=; }}\nzle -N dump\nbindkey '^T' dump\n",
            dump = t.path().join("zcompdump").display(),
            script = script.display(),
            lines = lines.display(),
        ),
    )
    .unwrap();
    let driver = format!(
        "zmodload zsh/zpty\n\
         zpty z zsh -f -i\n\
         zpty -w z \"source '{setup}'\"\n\
         zpty -w -n z $'ravenpost show club-2027-r04\\t\\x14'\n\
         zpty -w -n z $'ravenpost new fant\\t\\x14'\n\
         zpty -w z 'setopt menu_complete'\n\
         zpty -w -n z $'ravenpost show \\t\\x14'\n\
         zpty -w -n z $'ravenpost show club-2\\t\\x14'\n\
         for i in {{1..600}}; do [[ -e '{lines}' && $(wc -l < '{lines}') -ge 4 ]] && break; sleep 0.1; done\n\
         zpty -d z\n\
         cat '{lines}'\n",
        setup = setup.display(),
        lines = lines.display(),
    );
    let out = stdout(&shell("zsh", &dir, &home).arg("-f").arg("-c").arg(driver).output().unwrap());
    let got: Vec<&str> = out.lines().map(str::trim_end).collect();
    assert_eq!(
        got,
        [
            "ravenpost show club-2027-r04-b3",
            "ravenpost new fantasy-grand",
            "ravenpost show club-2027-r04-b3",
            "ravenpost show club-2027-r04-b3",
        ],
        "{out}"
    );
}

/// fish: the script sourced, `complete -C` lists the choices in ravenpost's order, each
/// with its description.
#[test]
fn fish_completes_game_ids_and_variant_names() {
    require("fish", &["--version"], "fish (.ci/test-deps installs it)");
    let (t, dir, home) = club();
    let script = script(t.path(), &dir, &home, "fish");
    let complete = |line: &str| -> Vec<String> {
        let o = shell("fish", &dir, &home)
            .arg("--no-config")
            .arg("-c")
            .arg(format!("source '{}'; complete -C '{line}'", script.display()))
            .output()
            .unwrap();
        stdout(&o).lines().map(str::to_string).collect()
    };
    assert_eq!(
        complete("ravenpost show club-2"),
        [
            "club-2027-r04-b3\tgygax, Ann Example v Bo Example, your move (ply 0)",
            "club-2027-r03-a1\tgygax, Cy Example v Ann Example, ply 0",
        ]
    );
    let words: Vec<String> = complete("ravenpost new fant")
        .into_iter()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    assert_eq!(words, ["fantasy-grand", "fantasy-grand-chess"]);
    assert_eq!(
        complete("ravenpost draw offer fri"),
        ["friendly-bo-ann\tfidchell, Bo Example v Ann Example, your move (ply 1)"]
    );
}
