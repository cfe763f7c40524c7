//! Secret army choice for Fantasy Grand Chess by correspondence (issue 7, item 6): a
//! commit–reveal protocol kept in the archive beside the game.
//!
//! While the players choose, the archive holds `games/fantasy-grand/<id>.armies.yaml`
//! (an [`ArmyChoice`]) instead of the game file. Each step is one commit:
//!
//! 1. created: the players and the game's other tags, no commitments;
//! 2. each player commits (either order): their commitment is the SHA-256 of
//!    `ravenpost-army-v1\n<id>\n<white|black>\n<army>\n<salt>` in lower-case hex, the salt
//!    32 random bytes in hex kept on the player's own machine until the reveal; the game
//!    id and side in the hash stop a player from copying the opponent's commitment;
//! 3. once both have committed, each reveals army and salt; a reveal that does not hash to
//!    its commitment, or an army the game does not allow, is refused;
//! 4. when both have revealed, the game file is created from the choice: its tags, the
//!    two armies, and the commitments as `WhiteArmyCommitment` / `BlackArmyCommitment`.
//!
//! [`check_choice_step`] judges one version of the file against the one before, as
//! `verify` and the pre-receive hook do for moves. Nothing here touches git.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::engine::Side;

use super::Problem;

/// One side's revealed choice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmyReveal {
    /// The army, as `variants::ARMIES` writes it (`evil-horde`).
    pub army: String,
    /// The salt: 64 lower-case hex digits.
    pub salt: String,
}

/// The state of a secret army choice: the file `games/fantasy-grand/<id>.armies.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ArmyChoice {
    /// Format version, [`ArmyChoice::VERSION`].
    pub version: u32,
    /// The first player's name.
    pub white: String,
    /// The second player's name.
    pub black: String,
    /// The tag pairs of the game to be created, other than the armies, by name (the game
    /// file writes them in canonical order).
    pub tags: BTreeMap<String, String>,
    /// White's commitment (64 hex digits), once made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_commitment: Option<String>,
    /// Black's commitment, once made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_commitment: Option<String>,
    /// White's reveal, once made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_reveal: Option<ArmyReveal>,
    /// Black's reveal, once made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_reveal: Option<ArmyReveal>,
}

/// What one version of a choice file did relative to the one before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChoiceStep {
    /// The choice was opened.
    Created,
    /// A player committed to an army.
    Committed {
        /// The player.
        player: String,
    },
    /// A player revealed their army.
    Revealed {
        /// The player.
        player: String,
        /// The army.
        army: String,
    },
}

impl ChoiceStep {
    /// The player who acted (none for the opening).
    pub fn player(&self) -> Option<&str> {
        match self {
            ChoiceStep::Created => None,
            ChoiceStep::Committed { player } | ChoiceStep::Revealed { player, .. } => Some(player),
        }
    }
}

/// The tag pair names that hold the commitments in the created game.
pub const COMMITMENT_TAGS: [&str; 2] = ["WhiteArmyCommitment", "BlackArmyCommitment"];

fn side_word(side: Side) -> &'static str {
    if side == Side::White { "white" } else { "black" }
}

fn is_hex64(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl ArmyChoice {
    /// The format version this ravenpost writes and reads.
    pub const VERSION: u32 = 1;
    /// The variant folder the choice files live in.
    pub const VARIANT: &'static str = "fantasy-grand";
    /// The file name ending of choice files.
    pub const SUFFIX: &'static str = ".armies.yaml";

    /// A new choice between `white` and `black` for a game with `tags` (no army tags).
    pub fn new(white: &str, black: &str, tags: BTreeMap<String, String>) -> ArmyChoice {
        ArmyChoice {
            version: Self::VERSION,
            white: white.to_string(),
            black: black.to_string(),
            tags,
            white_commitment: None,
            black_commitment: None,
            white_reveal: None,
            black_reveal: None,
        }
    }

    /// The choice file's path for game `id` in an archive of `layout`, beside the game's
    /// file: `games/fantasy-grand/<bucket>/<id>.armies.yaml`
    /// ([`super::layout::army_choice_path`]).
    pub fn path(layout: super::layout::Layout, id: &str) -> String {
        super::layout::army_choice_path(layout, id)
    }

    /// The game id of a choice file's path (in either layout); `None` for any other path.
    pub fn parse_path(path: &str) -> Option<&str> {
        super::layout::parse_army_choice_path(path).map(|(_, id)| id)
    }

    /// The commitment to `army` with `salt` for `side` of game `id`: 64 lower-case hex
    /// digits (SHA-256; see the module description for the exact bytes).
    pub fn commitment(id: &str, side: Side, army: &str, salt: &str) -> String {
        let mut h = Sha256::new();
        h.update(format!("ravenpost-army-v1\n{id}\n{}\n{army}\n{salt}", side_word(side)).as_bytes());
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// A fresh salt: 32 bytes from the operating system's random source, in hex.
    ///
    /// # Errors
    /// The OS random source failed (rare; message says so).
    pub fn fresh_salt() -> Result<String, String> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| format!("no random numbers from the system: {e}"))?;
        Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Reads a choice file.
    ///
    /// # Errors
    /// What does not fit, in one sentence (YAML error or unknown version).
    pub fn from_yaml(text: &str) -> Result<ArmyChoice, String> {
        let c: ArmyChoice = serde_yaml_ng::from_str(text).map_err(|e| format!("army choice file: {e}"))?;
        if c.version != Self::VERSION {
            return Err(format!(
                "army choice file: format version {}, this ravenpost reads version {}",
                c.version,
                Self::VERSION
            ));
        }
        Ok(c)
    }

    /// The file's text.
    pub fn to_yaml(&self) -> String {
        let body = serde_yaml_ng::to_string(self).expect("a struct of strings serialises");
        format!(
            "# Secret army choice (ravenpost): each player commits to an army, then both reveal.\n\
             # Written by `ravenpost army commit|reveal`; do not edit by hand.\n{body}"
        )
    }

    /// The player of `side`.
    pub fn player(&self, side: Side) -> &str {
        if side == Side::White { &self.white } else { &self.black }
    }

    /// The side `name` plays, if a player.
    pub fn side_of(&self, name: &str) -> Option<Side> {
        Side::ALL.into_iter().find(|s| self.player(*s) == name)
    }

    /// `side`'s commitment, if made.
    pub fn commitment_of(&self, side: Side) -> Option<&str> {
        if side == Side::White { self.white_commitment.as_deref() } else { self.black_commitment.as_deref() }
    }

    /// `side`'s reveal, if made.
    pub fn reveal_of(&self, side: Side) -> Option<&ArmyReveal> {
        if side == Side::White { self.white_reveal.as_ref() } else { self.black_reveal.as_ref() }
    }

    /// Sets `side`'s commitment.
    pub fn set_commitment(&mut self, side: Side, c: String) {
        if side == Side::White { self.white_commitment = Some(c) } else { self.black_commitment = Some(c) }
    }

    /// Sets `side`'s reveal.
    pub fn set_reveal(&mut self, side: Side, r: ArmyReveal) {
        if side == Side::White { self.white_reveal = Some(r) } else { self.black_reveal = Some(r) }
    }

    /// Whether both players have revealed: the game can start.
    pub fn is_complete(&self) -> bool {
        self.white_reveal.is_some() && self.black_reveal.is_some()
    }

    /// What the players still have to do, for `status`: e.g. `waiting for Bo's commitment`.
    pub fn waiting_for(&self) -> String {
        // Reveals come only after both commitments: until then only commitments are due.
        let committing = Side::ALL.into_iter().any(|s| self.commitment_of(s).is_none());
        let pending: Vec<String> = Side::ALL
            .into_iter()
            .filter_map(|s| {
                if self.commitment_of(s).is_none() {
                    Some(format!("{}'s army commitment", self.player(s)))
                } else if !committing && self.reveal_of(s).is_none() {
                    Some(format!("{}'s reveal", self.player(s)))
                } else {
                    None
                }
            })
            .collect();
        if pending.is_empty() {
            "both armies revealed".to_string()
        } else {
            format!("waiting for {}", pending.join(" and "))
        }
    }

    /// The tag pairs of the game to create once both have revealed: the stored tags, the
    /// armies (`WhiteArmy`, `BlackArmy`) and the commitments; `None` before that.
    pub fn game_tags(&self) -> Option<Vec<(String, String)>> {
        let (w, b) = (self.white_reveal.as_ref()?, self.black_reveal.as_ref()?);
        let mut tags: Vec<(String, String)> = self.tags.clone().into_iter().collect();
        tags.push(("WhiteArmy".into(), w.army.clone()));
        tags.push(("BlackArmy".into(), b.army.clone()));
        tags.push((COMMITMENT_TAGS[0].into(), self.white_commitment.clone()?));
        tags.push((COMMITMENT_TAGS[1].into(), self.black_commitment.clone()?));
        Some(tags)
    }

    /// Whether the game allows `army` for `side`: a known army, and the Druid only with
    /// the option `druid=allowed` in the `GameOptions` tag (rulings §4.2).
    ///
    /// # Errors
    /// Why not, in one sentence.
    pub fn check_army(&self, side: Side, army: &str) -> Result<&'static str, String> {
        let name = crate::variants::army_name(army).ok_or_else(|| {
            format!("unknown army `{army}` (the armies: {})", crate::variants::ARMIES.join(", "))
        })?;
        let mut options: Vec<(String, String)> = self
            .tags
            .get("GameOptions")
            .into_iter()
            .flat_map(|v| v.split_whitespace())
            .filter_map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
            .collect();
        let other = if name == "humans" { "elves" } else { "humans" };
        let (w, b) = if side == Side::White { (name, other) } else { (other, name) };
        options.push(("army-white".into(), w.into()));
        options.push(("army-black".into(), b.into()));
        let druid_allowed = options.iter().any(|(k, v)| k == "druid" && v == "allowed");
        if name == "druid" && !druid_allowed {
            // The option is the game's, set when it was created: a player cannot add it.
            return Err(
                "the Druid army is played only when both players agreed to allow it (rulings §4.2), and this game \
                 was created without the option druid=allowed (a game's options are set by `ravenpost new … \
                 --option druid=allowed`): choose another army"
                    .into(),
            );
        }
        crate::variants::by_name(Self::VARIANT, &options).map_err(|e| e.to_string())?;
        Ok(name)
    }
}

/// Checks that the choice file `new` follows from `old` (None: `new` opens the choice)
/// by one step of the protocol, taken by `author` (if given) when a player acts; `id` is
/// the game id (commitments are bound to it).
///
/// # Errors
/// The [`Problem`] with the step.
pub fn check_choice_step(
    id: &str,
    old: Option<&str>,
    new: &str,
    author: Option<&str>,
) -> Result<ChoiceStep, Problem> {
    let c1 = ArmyChoice::from_yaml(new).map_err(|why| Problem::ChoiceUnreadable { why })?;
    let Some(old) = old else {
        if c1.white_commitment.is_some()
            || c1.black_commitment.is_some()
            || c1.white_reveal.is_some()
            || c1.black_reveal.is_some()
        {
            return Err(Problem::ChoiceStartsFilled);
        }
        if c1.white == c1.black {
            return Err(Problem::ChoiceSamePlayers);
        }
        return Ok(ChoiceStep::Created);
    };
    let c0 = ArmyChoice::from_yaml(old).map_err(|why| Problem::PreviousChoiceUnreadable { why })?;
    if c0.white != c1.white || c0.black != c1.black || c0.tags != c1.tags {
        return Err(Problem::ChoiceTagsChanged);
    }
    if c0.is_complete() {
        return Err(Problem::ChoiceFinal);
    }
    let changed: Vec<Side> = Side::ALL
        .into_iter()
        .filter(|s| c0.commitment_of(*s) != c1.commitment_of(*s) || c0.reveal_of(*s) != c1.reveal_of(*s))
        .collect();
    let [side] = changed[..] else {
        return Err(if changed.is_empty() {
            Problem::ChoiceNoEntryChanged
        } else {
            Problem::ChoiceBothChanged
        });
    };
    let player = c1.player(side).to_string();
    if let Some(a) = author
        && a != player
    {
        return Err(Problem::ChoiceNotEntitled { player, author: a.to_string() });
    }
    match (c0.commitment_of(side), c1.commitment_of(side), c0.reveal_of(side), c1.reveal_of(side)) {
        (None, Some(c), None, None) => {
            if !is_hex64(c) {
                return Err(Problem::ChoiceBadCommitment { player });
            }
            Ok(ChoiceStep::Committed { player })
        }
        (Some(a), Some(b), None, Some(r)) if a == b => {
            if c1.commitment_of(side.opponent()).is_none() {
                return Err(Problem::ChoiceEarlyReveal {
                    player,
                    opponent: c1.player(side.opponent()).to_string(),
                });
            }
            if ArmyChoice::commitment(id, side, &r.army, &r.salt) != a {
                return Err(Problem::ChoiceRevealMismatch { player, army: r.army.clone() });
            }
            let army = c1.check_army(side, &r.army).map_err(|why| Problem::ChoiceArmyRefused { why })?;
            if army != r.army {
                return Err(Problem::ChoiceArmySpelling { player, army: army.to_string() });
            }
            Ok(ChoiceStep::Revealed { player, army: r.army.clone() })
        }
        (Some(_), _, _, _) if c0.commitment_of(side) != c1.commitment_of(side) => {
            Err(Problem::ChoiceCommitmentChanged { player })
        }
        _ => Err(Problem::ChoiceOutOfOrder { player }),
    }
}

/// What is wrong with the tags an army choice opens with, if anything: they must make a
/// valid game whatever the armies, and may not name the armies (`WhiteArmy`, `BlackArmy`,
/// `army-white`/`army-black` options) or commitments themselves.
pub fn choice_tags_problem(tags: &BTreeMap<String, String>) -> Option<Problem> {
    for t in ["WhiteArmy", "BlackArmy", COMMITMENT_TAGS[0], COMMITMENT_TAGS[1], "FEN", "SetUp"] {
        if tags.contains_key(t) {
            return Some(Problem::ChoiceTags {
                why: format!("the choice's tags may not include {t}: the armies come from the reveals"),
            });
        }
    }
    if let Some(o) = tags.get("GameOptions")
        && o.split_whitespace().any(|kv| kv.starts_with("army-"))
    {
        return Some(Problem::ChoiceTags {
            why: format!("the choice's GameOptions `{o}` name an army: the armies come from the reveals"),
        });
    }
    let mut probe: Vec<(String, String)> = tags.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    probe.push(("WhiteArmy".into(), "humans".into()));
    probe.push(("BlackArmy".into(), "humans".into()));
    crate::record::load(&crate::record::game_text_from_tags(&probe))
        .err()
        .map(|e| Problem::ChoiceTags { why: format!("the choice's tags do not make a game: {e}") })
}

/// The game file a complete choice starts: canonical text of its tags, no moves. `None`
/// while an army is unrevealed.
///
/// # Errors
/// The [`crate::record::Refusal`] if the tags do not make a valid game.
pub fn started_game_text(choice: &ArmyChoice) -> Option<Result<String, crate::record::Refusal>> {
    let tags = choice.game_tags()?;
    Some(crate::record::load(&crate::record::game_text_from_tags(&tags)).map(|g| g.canonical_text()))
}

/// How a game file's first version (`game`) must relate to the choice file of the same
/// game in the same commit (`choice_text`): a Fantasy Grand game whose choice file exists
/// must be exactly the game its complete choice starts. (A game with commitment tags but
/// no choice file was chosen elsewhere, e.g. received by email: nothing to compare.)
pub fn started_game_problem(
    folder: &str,
    choice_text: Option<&str>,
    game: &crate::record::game::Game,
) -> Option<Problem> {
    if folder != ArmyChoice::VARIANT {
        return None;
    }
    let choice_text = choice_text?;
    let Ok(choice) = ArmyChoice::from_yaml(choice_text) else { return Some(Problem::GameChoiceUnreadable) };
    let expected = match started_game_text(&choice) {
        None => return Some(Problem::GameBeforeReveal { waiting: choice.waiting_for() }),
        Some(Err(_)) => return Some(Problem::GameChoiceInvalid),
        Some(Ok(t)) => t,
    };
    for (side, tag) in [(Side::White, "WhiteArmy"), (Side::Black, "BlackArmy")] {
        let revealed = choice.reveal_of(side).map(|r| r.army.as_str()).unwrap_or_default();
        let key = if side == Side::White { "army-white" } else { "army-black" };
        let played = game.options.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()).unwrap_or("humans");
        // Armies compare by their canonical names (`horde` is `evil-horde`).
        let same = crate::variants::army_name(played)
            .is_some_and(|p| Some(p) == crate::variants::army_name(revealed));
        if !same {
            return Some(Problem::GameArmyMismatch {
                player: choice.player(side).to_string(),
                played: played.to_string(),
                revealed: revealed.to_string(),
                tag: tag.to_string(),
            });
        }
    }
    // `started_game_text` is already canonical.
    (expected != game.canonical_text()).then_some(Problem::GameTagsDifferFromChoice)
}
