//! The referee: the correspondence rules, as decisions on data. It reads no repository
//! and writes nothing; the [`crate::archive`] asks it before every commit it makes and of
//! every commit it checks, and [`crate::mail`] of every mailed game.
//!
//! - [`step`]: what one version of a game file may be after the one before (the game's
//!   creation, one legal ply of the player to move, one recorded action), as a typed
//!   [`Step`] or [`Problem`]; and a [`Growth`], the plies of versions cut from one text,
//!   judged from one replay of the last of them.
//! - [`judge`]: one commit as a whole: which record it changes ([`judge::classify_changes`]),
//!   and whether the change is a step of the player who authored it, signed where the game
//!   lists their key, a win on time only past the deadline ([`judge::judge_game_version`],
//!   [`judge::judge_choice_version`]); what it needs from the repository it asks of an
//!   [`judge::Evidence`].
//! - [`conditional`]: conditional moves: a player's prepared replies as a tree, checked
//!   at entry and followed when the opponent's move arrives.
//! - [`clock`]: the correspondence clock (typed [`Time`]s, leave, timeout claims).
//! - [`army`]: the secret army choice of Fantasy Grand Chess (commit–reveal).
//! - [`layout`]: where records live in an archive ([`GamePath`]).
//! - [`limits`]: how much outside input is taken before it is refused ([`limits::Limits`]).
//! - [`players`]: who plays a side (name, email, signing key, account on the club's git
//!   server), and which account may push a step ([`players::push_problem`]).
//! - [`definitions`]: the archive's variant definitions, pinned by games and never changed.
//! - [`tournament`]: round robins (Berger pairings), what a tournament file may hold, and
//!   standings with the Sonneborn-Berger tie-break.
//! - [`knockout`]: knockouts: the seeded bracket, matches and their tie-breaks, the
//!   games due as results come in.
//!
//! Every verdict is a value: [`Problem`] is an enum whose variants carry what their
//! message needs, and whose `Display` is the sentence users see.

pub mod army;
pub mod clock;
pub mod conditional;
pub mod definitions;
pub mod dutch;
pub mod judge;
pub mod judge_layout;
pub mod knockout;
pub mod layout;
pub mod limits;
pub mod players;
pub mod problem;
pub mod step;
pub mod swiss;
pub mod tournament;

pub use army::{ArmyChoice, ArmyReveal, COMMITMENT_TAGS, ChoiceStep, check_choice_step};
pub use clock::{Clock, ClockRefusal, PlyTimes};
pub use judge::{CommitInfo, Evidence, Finding};
pub use layout::{GamePath, InvalidGamePath, Layout};
pub use problem::{Problem, Span, Time};
pub use step::{Ended, Growth, Step, check_step, check_step_at};
