//! Records written by other programs (`notation-spec/piece-codes.md` §6): their letters
//! and level numbering, turned into ravenpost's before the record is read.
//!
//! Two choices a file carries no mark of, so the user names them:
//!
//! - [`Letters::Hatch`] (= [`Letters::Freeling`]): the Humans army of Fantasy Grand Chess
//!   (and Grand Chess) written with `M` Marshall and `C` Cardinal. `C` becomes `A`, the
//!   Cardinal in ravenpost's letters, in the moves of a Humans side (promotions
//!   included) and in the `FEN` tag's bare letters of that side; `M` already means the
//!   Marshall.
//! - [`Levels::TopFirst`]: Gygax Chess levels numbered from the top (1 = Air, as
//!   chessvariants.com does); each level digit *n* of a move becomes *levels + 1 − n*.
//!
//! Every rewrite keeps a token's length, so line and column of a later diagnostic still
//! point into the file as the user wrote it.

use crate::notation::pgn::{GameText, MoveNode};

use super::{army_name, normalise};

/// Whose piece letters a record uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Letters {
    /// ravenpost's own (and the seed's; Fairy-Stockfish's under `grand`).
    #[default]
    Ravenpost,
    /// Ralph Hatch's: Humans `M` Marshall, `C` Cardinal.
    Hatch,
    /// Christian Freeling's: the same letters as Hatch's.
    Freeling,
}

/// How a record numbers the levels of a game on stacked boards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Levels {
    /// 1 = the lowest level (the seed's and ravenpost's numbering).
    #[default]
    BottomFirst,
    /// 1 = the top level.
    TopFirst,
}

/// What an import changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImportChoices {
    /// The record's letters.
    pub letters: Letters,
    /// The record's level numbering.
    pub levels: Levels,
}

/// Why a record cannot be converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The game has no `Variant` tag, so its letters cannot be told.
    #[error("no Variant tag: the importer must know the game to convert its letters or levels")]
    NoVariant,
    /// Hatch/Freeling letters are only for games with the Humans army.
    #[error(
        "--letters {letters}: only Fantasy Grand Chess and Grand Chess have those letters (this is `{variant}`)"
    )]
    LettersNotFor {
        /// The choice given.
        letters: &'static str,
        /// The game's Variant tag.
        variant: String,
    },
    /// Top-first levels are only for games on more than one level.
    #[error("--levels top-first: `{variant}` has one level")]
    LevelsNotFor {
        /// The game's Variant tag.
        variant: String,
    },
}

impl Letters {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Letters::Ravenpost => "ravenpost",
            Letters::Hatch => "hatch",
            Letters::Freeling => "freeling",
        }
    }
}

/// Rewrites `game`'s moves (main line and variations) and `FEN` tag from `choices`
/// into ravenpost's letters and level numbering, in place.
///
/// # Errors
/// [`ImportError`] when a choice does not fit the game's variant.
pub fn convert(game: &mut GameText, choices: ImportChoices) -> Result<(), ImportError> {
    if choices == ImportChoices::default() {
        return Ok(());
    }
    let vname = game.tag("Variant").ok_or(ImportError::NoVariant)?.to_string();
    let builtin = super::by_name(&vname, &[]).ok();
    let slug = builtin.as_ref().map(|v| v.def().slug.clone()).unwrap_or_else(|| normalise(&vname));
    // Which sides play the Humans army and so use the record's letters.
    let mut humans = [false, false];
    if choices.letters != Letters::Ravenpost {
        match slug.as_str() {
            "grand" => humans = [true, true],
            "fantasy-grand" => {
                let fen_armies: Vec<String> = game
                    .tag("FEN")
                    .map(|f| f.split_whitespace().skip(6).map(str::to_string).collect())
                    .unwrap_or_default();
                let options = game.tag("GameOptions").unwrap_or("").to_string();
                for (i, (tag, key)) in
                    [("WhiteArmy", "army-white"), ("BlackArmy", "army-black")].iter().enumerate()
                {
                    let from_options =
                        options.split([',', ' ']).find_map(|kv| kv.strip_prefix(&format!("{key}=")));
                    let army = game
                        .tag(tag)
                        .map(str::to_string)
                        .or_else(|| from_options.map(str::to_string))
                        .or_else(|| fen_armies.get(i).cloned())
                        .unwrap_or_else(|| "humans".into());
                    humans[i] = army_name(&army) == Some("humans");
                }
            }
            _ => return Err(ImportError::LettersNotFor { letters: choices.letters.name(), variant: vname }),
        }
    }
    let levels = match choices.levels {
        Levels::BottomFirst => None,
        Levels::TopFirst => match builtin.as_ref().map(|v| v.def().dims.levels()) {
            Some(n) if n > 1 => Some(n),
            _ => return Err(ImportError::LevelsNotFor { variant: vname }),
        },
    };
    // The side to move first: White unless the FEN says otherwise.
    let first_black = game
        .tag("FEN")
        .and_then(|f| f.split_whitespace().nth(if slug == "gygax" { 3 } else { 1 }))
        .is_some_and(|s| s == "b" || s == "s");
    let rewrite = |token: &str, side: usize| -> String {
        let mut t = token.to_string();
        if humans[side] {
            t = cardinal_letters(&t);
        }
        if let Some(n) = levels {
            t = flip_levels(&t, n);
        }
        t
    };
    convert_line(&mut game.moves, usize::from(first_black), &rewrite);
    if humans.iter().any(|h| *h)
        && let Some(fen) = game.tag("FEN").map(str::to_string)
    {
        game.set_tag("FEN", fen_cardinals(&fen, humans));
    }
    Ok(())
}

fn convert_line(line: &mut [MoveNode], first_side: usize, rewrite: &dyn Fn(&str, usize) -> String) {
    for (i, node) in line.iter_mut().enumerate() {
        let side = (first_side + i) % 2;
        node.token = rewrite(&node.token, side);
        for var in &mut node.variations {
            convert_line(var, side, rewrite);
        }
    }
}

/// `C` (Hatch's Cardinal) as the moving piece's code or after `=` becomes `A`.
fn cardinal_letters(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    let mut prev: Option<char> = None;
    for c in token.chars() {
        let at_code = prev.is_none() || prev == Some('=');
        out.push(if c == 'C' && at_code { 'A' } else { c });
        prev = Some(c);
    }
    out
}

/// Each level digit `d` becomes `levels + 1 − d`. In a Gygax Chess token
/// (`notation-spec/moves.md` §3) a level digit is the one directly before a file letter
/// (every square is level, file, rank), or a digit alone as the origin, right after the
/// code and before the destination's level (`S32e4`); the digits after a file letter are
/// ranks.
fn flip_levels(token: &str, levels: u8) -> String {
    let chars: Vec<char> = token.chars().collect();
    let file = |c: Option<&char>| c.is_some_and(|c| ('a'..='l').contains(c));
    let mut out = String::with_capacity(token.len());
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1);
        let level_digit = c.is_ascii_digit()
            && (file(next)
                || (prev.is_none_or(|p| p.is_ascii_uppercase())
                    && next.is_some_and(|n| n.is_ascii_digit())
                    && file(chars.get(i + 2))));
        match c.to_digit(10) {
            Some(d) if level_digit && d >= 1 && d <= levels as u32 => {
                out.push(char::from_digit(levels as u32 + 1 - d, 10).expect("a digit"));
            }
            _ => out.push(c),
        }
    }
    out
}

/// The FEN's placement with Hatch's Cardinal (`C`/`c`, bare letters only) of each Humans
/// side written `A`/`a`.
fn fen_cardinals(fen: &str, humans: [bool; 2]) -> String {
    let (placement, rest) = fen.split_once(' ').unwrap_or((fen, ""));
    let mut depth = 0;
    let placement: String = placement
        .chars()
        .map(|c| match c {
            '(' => {
                depth += 1;
                c
            }
            ')' => {
                depth -= 1;
                c
            }
            'C' if depth == 0 && humans[0] => 'A',
            'c' if depth == 0 && humans[1] => 'a',
            _ => c,
        })
        .collect();
    if rest.is_empty() { placement } else { format!("{placement} {rest}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_digits_flip_and_ranks_stay() {
        assert_eq!(flip_levels("Sa1b6", 3), "Sa3b6");
        assert_eq!(flip_levels("S12e4", 3), "S32e4");
        assert_eq!(flip_levels("Sa73b6", 3), "Sa71b6");
        assert_eq!(flip_levels("S1a2", 3), "S3a2");
        assert_eq!(flip_levels("W2e2-2e3", 3), "W2e2-2e3");
        assert_eq!(flip_levels("R1g1x1a7", 3), "R3g1x3a7");
        assert_eq!(flip_levels("R:3f4", 3), "R:1f4");
        assert_eq!(flip_levels("2e10", 3), "2e10");
    }

    #[test]
    fn cardinal_becomes_a_as_code_and_promotion_only() {
        assert_eq!(cardinal_letters("Cxc5"), "Axc5");
        assert_eq!(cardinal_letters("Ce7"), "Ae7");
        assert_eq!(cardinal_letters("c10=C"), "c10=A");
        assert_eq!(cardinal_letters("Mc3"), "Mc3");
        assert_eq!(cardinal_letters("Nc3"), "Nc3");
    }

    #[test]
    fn fen_cardinals_of_humans_sides_only() {
        let fen = "r8r/1nbqkmcbn1/10 w - - 0 1";
        assert_eq!(fen_cardinals(fen, [true, true]), "r8r/1nbqkmabn1/10 w - - 0 1");
        assert_eq!(fen_cardinals("1(Cy)C/c w", [true, false]), "1(Cy)A/c w");
    }
}
