//! ravenpost: play, archive, replay and check correspondence games of Gygax Chess
//! (Dragonchess), Gygax's Fidchell and Fantasy Grand Chess.
//!
//! Layers, each using only those before it:
//! [`engine`] (rules; no I/O) ← [`search`] (a game-tree search and evaluation on the engine
//! alone), [`notation`] (position strings, moves and game text, read
//! with nom and written back in one canonical form; [`render`] rasterises its SVG pictures)
//! ← [`variants`] (the built-in definitions) ← [`record`] (game records: a game text
//! replayed by the rules, and the changes a player can make to it) ← [`referee`] (the
//! correspondence rules as decisions: what a step, a clock, a commit or a push may be;
//! typed verdicts) ← [`archive`] (games kept as files in a git repository; every change
//! judged by the referee before it is committed), [`mail`] (game messages by email) ←
//! [`usecases`] (what each command does, for every front end) ← [`site`] (an archive as a
//! static web site) ← [`server`] (`ravenpost serve`: the archive in the browser, to play
//! in) ← [`cli`] (the `ravenpost` command: parses, calls one library function, formats).
//!
//! ```
//! let gygax = ravenpost::variants::by_name("gygax", &[]).unwrap();
//! let start = gygax.start_position();
//! assert_eq!(gygax.legal_moves(&start).len(), 90);
//! ```
#![warn(missing_docs)]

pub mod archive;
pub mod cli;
pub mod engine;
pub mod mail;
pub mod notation;
pub mod record;
pub mod referee;
pub mod render;
pub mod search;
pub mod server;
pub mod site;
pub mod usecases;
pub mod variants;
