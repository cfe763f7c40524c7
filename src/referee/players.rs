//! Who a game's players are: by name (`White`/`Black` tags), by email address
//! (`WhiteEmail`/`BlackEmail`), by SSH signing key (`WhiteSigningKey`/`BlackSigningKey`),
//! and by account on the club's git server (`WhiteAccount`/`BlackAccount`, or the
//! archive's `ravenpost.yaml` accounts): when the server names the account that pushed,
//! [`push_problem`] decides whether that account may push the step.

use crate::engine::Side;
use crate::record::{self, game::Game};

use super::problem::Problem;

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

/// The tag that lists `side`'s accounts on the club's git server (`WhiteAccount` /
/// `BlackAccount`): one or more account names, separated by spaces or commas. When the
/// git server names the pusher, only these accounts may push that player's steps.
pub fn account_tag(side: Side) -> &'static str {
    if side == Side::White { "WhiteAccount" } else { "BlackAccount" }
}

/// The account names in an account tag's value (split on spaces and commas).
pub fn split_accounts(value: &str) -> Vec<String> {
    value.split([',', ' ', '\t']).filter(|a| !a.is_empty()).map(str::to_string).collect()
}

/// Whether `account` can be an account name in a tag or in `ravenpost.yaml`: not empty,
/// no spaces, commas or control characters.
///
/// # Errors
/// Why not, for the caller to put after the flag or key.
pub fn check_account(account: &str) -> Result<(), String> {
    if account.is_empty() {
        return Err("an account name may not be empty".to_string());
    }
    if let Some(c) = account.chars().find(|c| c.is_whitespace() || c.is_control() || *c == ',') {
        return Err(format!("an account name has no spaces, commas or control characters (found {c:?})"));
    }
    Ok(())
}

/// The server accounts an archive lists in its `ravenpost.yaml`: the admins (who may push
/// the archive's set-up commits: its first commit, new games and army choices) and each
/// player's accounts for games that have no account tags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClubAccounts {
    /// Admin accounts.
    pub admins: Vec<String>,
    /// Player name → the accounts that may push that player's steps.
    pub players: std::collections::BTreeMap<String, Vec<String>>,
}

/// The account the git server authenticated for a push, and the environment variable
/// that named it (`GL_USER`, `REMOTE_USER`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pusher {
    /// The account.
    pub account: String,
    /// The variable it came from.
    pub variable: String,
}

/// The accounts that may push `player`'s steps, and where they are listed: the game's
/// account tag (`tag`: its name and value) if it has one, else the player's entry in
/// `club`, else the account named like the player.
///
/// Where `club` registers the player, the registry wins: a tag narrows the registered
/// accounts but never adds one (an account the tag names that is not registered to the
/// player is left out; [`registry_problem`] refuses such a game when it is created).
pub fn player_accounts(
    player: &str,
    tag: (&str, Option<&str>),
    club: &ClubAccounts,
) -> (Vec<String>, String) {
    if let Some(registered) = club.players.get(player) {
        if let (name, Some(value)) = tag {
            let narrowed: Vec<String> =
                split_accounts(value).into_iter().filter(|a| registered.contains(a)).collect();
            if !narrowed.is_empty() {
                return (narrowed, format!("{name} tag, within ravenpost.yaml accounts"));
            }
        }
        return (registered.clone(), "ravenpost.yaml accounts".to_string());
    }
    if let (name, Some(value)) = tag {
        return (split_accounts(value), format!("{name} tag"));
    }
    (vec![player.to_string()], "no account listed for the player: the account of their name".to_string())
}

/// What is wrong with `pusher` pushing a step of the game or choice whose players and
/// account tags are `players` (White, Black: name and tag value), done by `actor`
/// (`None`: the game's or choice's creation, which its players and the admins may push).
pub fn push_problem(
    pusher: &Pusher,
    club: &ClubAccounts,
    players: [(&str, Option<&str>); 2],
    actor: Option<&str>,
) -> Option<Problem> {
    let of = |side: Side| {
        let (name, value) = players[usize::from(side != Side::White)];
        (name, player_accounts(name, (account_tag(side), value), club))
    };
    match actor {
        Some(who) => {
            let side = Side::ALL.into_iter().find(|s| of(*s).0 == who)?;
            let (_, (accounts, listed_in)) = of(side);
            (!accounts.contains(&pusher.account)).then(|| Problem::PushedByOtherAccount {
                player: who.to_string(),
                pusher: pusher.account.clone(),
                variable: pusher.variable.clone(),
                accounts,
                listed_in,
            })
        }
        None => {
            let mut allowed: Vec<String> = Side::ALL.into_iter().flat_map(|s| of(s).1.0).collect();
            allowed.extend(club.admins.iter().cloned());
            (!allowed.contains(&pusher.account)).then(|| Problem::CreatedByOutsider {
                pusher: pusher.account.clone(),
                variable: pusher.variable.clone(),
                accounts: allowed,
            })
        }
    }
}

/// What is wrong with the account tags of a new game or army choice whose players and
/// account tags are `players` (White, Black: name and tag value), as the archive's
/// registry `club` stands: a tag that names an account registered to another player, or
/// (where the player is registered) one not among the player's accounts; or one account
/// on both sides. `None`: the tags may stand.
pub fn registry_problem(club: &ClubAccounts, players: [(&str, Option<&str>); 2]) -> Option<Problem> {
    let owner = |account: &str| {
        club.players.iter().find(|(_, accounts)| accounts.iter().any(|a| a == account)).map(|(p, _)| p)
    };
    for (side, (player, value)) in Side::ALL.into_iter().zip(players) {
        let Some(value) = value else { continue };
        for account in split_accounts(value) {
            let registered = club.players.get(player);
            let foreign = owner(&account).filter(|o| o.as_str() != player);
            if registered.is_some_and(|r| !r.contains(&account)) || foreign.is_some() {
                return Some(Problem::AccountNotRegistered {
                    player: player.to_string(),
                    white: side == Side::White,
                    account,
                    owner: foreign.cloned(),
                    registered: registered.cloned().unwrap_or_default(),
                });
            }
        }
    }
    let of = |side: Side| {
        let (name, value) = players[usize::from(side != Side::White)];
        player_accounts(name, (account_tag(side), value), club).0
    };
    let (white, black) = (of(Side::White), of(Side::Black));
    white.into_iter().find(|a| black.contains(a)).map(|account| Problem::SameAccountBothSides { account })
}

/// [`registry_problem`] for a new game.
pub fn game_registry_problem(club: &ClubAccounts, game: &Game) -> Option<Problem> {
    let (w, b) = (record::player(game, Side::White), record::player(game, Side::Black));
    let tag = |s: Side| game.text.tag(account_tag(s));
    registry_problem(club, [(&w, tag(Side::White)), (&b, tag(Side::Black))])
}

/// [`registry_problem`] for a new army choice (its tags become the game's).
pub fn choice_registry_problem(club: &ClubAccounts, choice: &super::army::ArmyChoice) -> Option<Problem> {
    let tag = |s: Side| choice.tags.get(account_tag(s)).map(String::as_str);
    registry_problem(club, [(&choice.white, tag(Side::White)), (&choice.black, tag(Side::Black))])
}

/// [`push_problem`] for a game's step.
pub fn game_push_problem(
    pusher: &Pusher,
    club: &ClubAccounts,
    game: &Game,
    actor: Option<&str>,
) -> Option<Problem> {
    let (w, b) = (record::player(game, Side::White), record::player(game, Side::Black));
    let tag = |s: Side| game.text.tag(account_tag(s));
    push_problem(pusher, club, [(&w, tag(Side::White)), (&b, tag(Side::Black))], actor)
}

/// Whether `account` may push the steps of the player named `player`, whose game's
/// account tag for that side is `tag` ([`player_accounts`]).
pub fn account_plays(club: &ClubAccounts, player: &str, tag: Option<&str>, account: &str) -> bool {
    player_accounts(player, ("account tag", tag), club).0.iter().any(|a| a == account)
}

/// The side of `game` whose steps `account` may take, as [`push_problem`] judges a push
/// of it by that account: the side whose player's accounts ([`player_accounts`]) hold it.
/// `None` when the account plays neither side (or, listed for both, one account on both
/// sides, which the registry refuses).
pub fn side_of_account(game: &Game, club: &ClubAccounts, account: &str) -> Option<Side> {
    let mut sides = Side::ALL
        .into_iter()
        .filter(|s| account_plays(club, &record::player(game, *s), game.text.tag(account_tag(*s)), account));
    let side = sides.next()?;
    sides.next().is_none().then_some(side)
}

/// [`push_problem`] for an army choice's step (its tags become the game's).
pub fn choice_push_problem(
    pusher: &Pusher,
    club: &ClubAccounts,
    choice: &super::army::ArmyChoice,
    actor: Option<&str>,
) -> Option<Problem> {
    let tag = |s: Side| choice.tags.get(account_tag(s)).map(String::as_str);
    push_problem(pusher, club, [(&choice.white, tag(Side::White)), (&choice.black, tag(Side::Black))], actor)
}

/// What is wrong with `pusher` pushing the archive's first commit (its `ravenpost.yaml`,
/// whose admins are `club.admins`): only an admin may, when the file lists any.
pub fn setup_push_problem(pusher: &Pusher, club: &ClubAccounts) -> Option<Problem> {
    (!club.admins.is_empty() && !club.admins.contains(&pusher.account)).then(|| Problem::SetupByNonAdmin {
        pusher: pusher.account.clone(),
        variable: pusher.variable.clone(),
        admins: club.admins.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by(account: &str) -> Pusher {
        Pusher { account: account.into(), variable: "GL_USER".into() }
    }

    const TAGGED: [(&str, Option<&str>); 2] = [("Ann", Some("ann, ann-laptop")), ("Bo", Some("bo"))];

    #[test]
    fn a_step_pushed_by_one_of_the_players_accounts_is_accepted() {
        let club = ClubAccounts::default();
        assert_eq!(push_problem(&by("ann-laptop"), &club, TAGGED, Some("Ann")), None);
        assert_eq!(push_problem(&by("bo"), &club, TAGGED, Some("Bo")), None);
    }

    #[test]
    fn a_step_pushed_by_the_opponents_account_is_refused_naming_both() {
        let p = push_problem(&by("ann"), &ClubAccounts::default(), TAGGED, Some("Bo")).unwrap();
        assert_eq!(
            p.to_string(),
            "Bo's steps must be pushed by the account `bo` (BlackAccount tag), but this push was authenticated as `ann` (GL_USER)"
        );
    }

    #[test]
    fn an_admin_may_create_a_game_but_not_move_in_it() {
        let club = ClubAccounts { admins: vec!["boss".into()], ..Default::default() };
        assert_eq!(push_problem(&by("boss"), &club, TAGGED, None), None);
        assert!(matches!(
            push_problem(&by("boss"), &club, TAGGED, Some("Ann")),
            Some(Problem::PushedByOtherAccount { .. })
        ));
        assert!(matches!(
            push_problem(&by("eve"), &club, TAGGED, None),
            Some(Problem::CreatedByOutsider { .. })
        ));
    }

    #[test]
    fn without_tags_the_club_accounts_then_the_players_name_are_the_account() {
        let mut club = ClubAccounts::default();
        club.players.insert("Ann".into(), vec!["ann".into()]);
        let untagged = [("Ann", None), ("Bo", None)];
        assert_eq!(push_problem(&by("ann"), &club, untagged, Some("Ann")), None);
        assert_eq!(push_problem(&by("Bo"), &club, untagged, Some("Bo")), None);
        assert!(push_problem(&by("bo"), &club, untagged, Some("Bo")).is_some());
        assert!(push_problem(&by("Ann"), &club, untagged, Some("Ann")).is_some());
    }

    #[test]
    fn the_set_up_commit_is_an_admins_when_admins_are_listed() {
        let none = ClubAccounts::default();
        assert_eq!(setup_push_problem(&by("anyone"), &none), None);
        let club = ClubAccounts { admins: vec!["boss".into()], ..Default::default() };
        assert_eq!(setup_push_problem(&by("boss"), &club), None);
        assert!(matches!(setup_push_problem(&by("ann"), &club), Some(Problem::SetupByNonAdmin { .. })));
    }

    fn registered() -> ClubAccounts {
        let mut club = ClubAccounts::default();
        club.players.insert("Ann".into(), vec!["ann".into()]);
        club.players.insert("Bo".into(), vec!["bo".into()]);
        club
    }

    #[test]
    fn a_game_in_registered_players_names_with_a_strangers_account_tags_was_accepted() {
        let club = registered();
        let forged = [("Ann", Some("mallory")), ("Bo", Some("bo"))];
        assert_eq!(
            registry_problem(&club, forged).map(|p| p.to_string()).as_deref(),
            Some(
                "the WhiteAccount tag names `mallory` for Ann, but ravenpost.yaml registers Ann's steps to the account `ann`"
            )
        );
        // And mallory may neither create it nor move in it: the registry wins over the tags.
        assert!(matches!(
            push_problem(&by("mallory"), &club, forged, None),
            Some(Problem::CreatedByOutsider { .. })
        ));
        assert!(push_problem(&by("mallory"), &club, forged, Some("Ann")).is_some());
        assert_eq!(push_problem(&by("ann"), &club, forged, Some("Ann")), None);
    }

    #[test]
    fn an_account_registered_to_another_player_is_refused_in_a_tag() {
        let club = registered();
        let p = registry_problem(&club, [("Cy", Some("bo")), ("Di", None)]).unwrap();
        assert_eq!(
            p.to_string(),
            "the WhiteAccount tag names `bo` for Cy, but ravenpost.yaml registers `bo` to Bo"
        );
        assert_eq!(registry_problem(&club, [("Ann", Some("ann")), ("Bo", None)]), None);
    }

    #[test]
    fn a_game_with_one_account_on_both_sides_was_accepted_by_the_hook() {
        let none = ClubAccounts::default();
        assert_eq!(
            registry_problem(&none, [("Ann", Some("mallory")), ("Bo", Some("x, mallory"))]),
            Some(Problem::SameAccountBothSides { account: "mallory".into() })
        );
        assert_eq!(registry_problem(&none, [("Ann", Some("ann")), ("Bo", Some("bo"))]), None);
        assert_eq!(registry_problem(&none, [("Ann", None), ("Bo", None)]), None);
    }

    #[test]
    fn account_names_have_no_spaces_or_commas() {
        assert_eq!(split_accounts("ann, ann-laptop,bo"), ["ann", "ann-laptop", "bo"]);
        assert!(check_account("ann").is_ok());
        assert!(
            check_account("ann bo").is_err() && check_account("a,b").is_err() && check_account("").is_err()
        );
    }
}
