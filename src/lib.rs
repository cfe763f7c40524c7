//! ravenpost: play, archive, replay and check correspondence games of Gygax Chess
//! (Dragonchess), Gygax's Fidchell and Fantasy Grand Chess.
//!
//! Layers, each using only those before it:
//! [`engine`] (rules; no I/O) ← [`notation`] (position strings, moves and game text, read
//! with nom and written back in one canonical form; [`render`] rasterises its SVG pictures)
//! ← [`variants`] (the built-in definitions) ← [`record`] (game records: a game text
//! replayed by the rules, and the changes a player can make to it) ← [`archive`] (games
//! kept as files in a git repository), [`mail`] (game messages by email) ← [`cli`] (the
//! `ravenpost` command).
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
pub mod render;
pub mod variants;
