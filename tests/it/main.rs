//! The one integration test binary: each file of `tests/it/` is a module here, and they all
//! share the harness in [`common`] (`cargo test --test it mail::` runs one file's tests).
//! One binary links the library, libgit2, resvg and lettre once instead of once per file.
//! [`every_test_file_is_compiled_in`] fails when a file of this folder is not listed below.

mod common;

mod annotate;
mod archive_cli;
mod archive_index;
mod archive_store;
mod bot;
mod cli;
mod cli_fantasy_grand;
mod club_mail_play;
mod club_server;
mod compact_board;
mod compat_archive;
mod completion;
mod conditional;
mod correspondence;
mod crash_safety;
mod docs;
mod engine_match;
mod fantasy_grand_pairings;
mod fantasy_grand_rules;
mod fidchell_cli;
mod fidchell_perft_counts;
mod fidchell_position_strings;
mod fidchell_reference;
mod fidchell_rules;
mod fsf_variants;
mod fuzz_checks;
mod game_files;
mod grand_corpus;
mod gygax_rules;
mod import_records;
mod judged_in_one_pass;
mod knockout;
mod layout;
mod long_games;
mod mail;
mod mail_bot;
mod notify;
mod one_replay;
mod perft;
mod pictures;
mod png;
mod position_strings;
mod position_tool;
mod record;
mod referee;
mod referee_mailbox;
mod replay;
mod round_trip;
mod san;
mod san_backwards;
mod search_tactics;
mod serve;
mod settings_change;
mod site;
mod structure;
mod swiss;
mod sync_club;
mod terminal_tools;
mod tournament;
mod uci;
mod user_tools;
mod variant_duplicates;
mod variant_files;

/// A test file that is not a module of this binary would never run: each `tests/it/*.rs`
/// must be listed above, and nothing may sit in `tests/` beside `it/` and `data/`.
#[test]
fn every_test_file_is_compiled_in() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let main = std::fs::read_to_string(root.join("it/main.rs")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("it")).unwrap() {
        let path = entry.unwrap().path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".rs")) else {
            continue;
        };
        if name != "main" && !main.lines().any(|l| l == format!("mod {name};")) {
            missing.push(name.to_string());
        }
    }
    assert_eq!(missing, Vec::<String>::new(), "test files not compiled into tests/it/main.rs");
    let mut beside: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "it" && n != "data")
        .collect();
    beside.sort();
    assert_eq!(beside, Vec::<String>::new(), "files in tests/ outside it/ and data/ are not compiled");
}
