//! Game texts changed step by step, as the tests build them: each helper loads the text
//! (built-in variants only), makes the change with the record API ([`record::play`],
//! [`record::resign`], …) and gives the change, whose `text` is the next version.

use ravenpost::record::game::Game;
use ravenpost::record::{self, Applied, DrawAction, Loader, MoveOptions, Play, Refusal};

/// [`record::play`] of `token` in the game `text`.
pub fn play_move(
    text: &str,
    token: &str,
    who: Option<&str>,
    expect_ply: Option<usize>,
) -> Result<Applied, Refusal> {
    play_move_with(text, token, who, expect_ply, MoveOptions::default())
}

/// [`play_move`], the move's time `at` recorded.
pub fn play_move_at(
    text: &str,
    token: &str,
    who: Option<&str>,
    expect_ply: Option<usize>,
    at: Option<i64>,
) -> Result<Applied, Refusal> {
    play_move_with(text, token, who, expect_ply, MoveOptions { at, ..MoveOptions::default() })
}

/// [`play_move`], written as `options` say.
pub fn play_move_with(
    text: &str,
    token: &str,
    who: Option<&str>,
    expect_ply: Option<usize>,
    options: MoveOptions,
) -> Result<Applied, Refusal> {
    let how = Play { who, expect_ply, options, ..Play::default() };
    record::play(&record::load(text)?, token, how).map(|(a, _)| a)
}

/// [`record::resign`] in the game `text`.
pub fn resign(text: &str, who: Option<&str>) -> Result<Applied, Refusal> {
    record::resign(&record::load(text)?, who).map(|(a, _)| a)
}

/// [`record::draw`] in the game `text`.
pub fn draw(text: &str, who: Option<&str>, action: DrawAction) -> Result<Applied, Refusal> {
    record::draw(&record::load(text)?, who, action).map(|(a, _)| a)
}

/// [`record::book_leave`] in the game `text`.
pub fn book_leave(text: &str, who: &str, from: i64, days: u32) -> Result<Applied, Refusal> {
    record::book_leave(&record::load(text)?, who, from, days).map(|(a, _)| a)
}

/// [`record::time_forfeit`] in the game `text`.
pub fn time_forfeit(text: &str, claimant: Option<&str>, why: &str) -> Result<Applied, Refusal> {
    record::time_forfeit(&record::load(text)?, claimant, why).map(|(a, _)| a)
}

/// The next version `text` of the game `prev`, replayed from it ([`Loader::after`]).
pub fn load_after(prev: &Game, text: &str) -> Result<Game, Refusal> {
    Loader::new().after(prev, None).load(text).map(|l| l.game)
}
