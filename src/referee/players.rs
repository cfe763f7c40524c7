//! Who a game's players are: by name (`White`/`Black` tags), by email address
//! (`WhiteEmail`/`BlackEmail`), and by SSH signing key (`WhiteSigningKey`/`BlackSigningKey`).

use crate::engine::Side;
use crate::record::{self, game::Game};

/// The tag that holds `side`'s email address (`WhiteEmail` / `BlackEmail`).
pub fn email_tag(side: Side) -> &'static str {
    if side == Side::White { "WhiteEmail" } else { "BlackEmail" }
}

/// The tag that lists `side`'s SSH public key; when present, every step of that player
/// must be a commit signed by it (README "Signed moves").
pub fn signing_key_tag(side: Side) -> &'static str {
    if side == Side::White { "WhiteSigningKey" } else { "BlackSigningKey" }
}

/// The side that the person `name <email>` plays in `game`: the player whose name is
/// `name`, else the one whose `WhiteEmail`/`BlackEmail` tag is `email` (case-insensitive),
/// so that "Ann <ann@example.org>" is recognised as the player "Ann Example".
pub fn side_of_person(game: &Game, name: &str, email: &str) -> Option<Side> {
    Side::ALL.into_iter().find(|s| record::player(game, *s) == name).or_else(|| {
        Side::ALL.into_iter().find(|s| {
            game.text.tag(email_tag(*s)).is_some_and(|e| e.trim().eq_ignore_ascii_case(email.trim()))
        })
    })
}

/// The key `player`'s steps in `game` must be signed with, with the tag that lists it.
pub fn required_key<'g>(game: &'g Game, player: &str) -> Option<(&'static str, &'g str)> {
    let side = Side::ALL.into_iter().find(|s| record::player(game, *s) == player)?;
    let tag = signing_key_tag(side);
    game.text.tag(tag).map(|k| (tag, k))
}

/// The tag of the first signing key the game lists, if any: such a game travels only
/// through a shared repository (signatures live in git commits).
pub fn signed_game(game: &Game) -> Option<&'static str> {
    Side::ALL.into_iter().map(signing_key_tag).find(|t| game.text.tag(t).is_some())
}

/// Whether `e` is an email address a player can be reached at (as the mail transport
/// reads addresses).
///
/// # Errors
/// Why not, for the caller to put after the flag or tag.
pub fn check_address(e: &str) -> Result<(), String> {
    e.parse::<lettre::Address>().map(|_| ()).map_err(|err| format!("not an email address ({err})"))
}
