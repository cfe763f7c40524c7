//! Judging the archive's layout ([`Layout`]): where a record may be at a commit, and the
//! one commit that moves an archive from the flat layout to the fan-out
//! ([`judge_migration`], what `ravenpost archive migrate-layout` makes). The hook and
//! `verify` both judge through these functions; the caller reads the settings (the
//! referee reads no settings file) and says how the commit changes them
//! ([`SettingsChange`]).
//!
//! A migration commit changes `ravenpost.yaml` only by its `layout:` (flat to fan-out),
//! and moves every game and army choice file from its flat path to its fan-out path with
//! the same bytes: no other change, and no record left at a flat path. Who may push it is
//! the archive's set-up rule: an admin, when the archive names admins.
//!
//! Any other change of the settings is a settings change ([`judge_settings_change`], what
//! `ravenpost archive settings` makes): `ravenpost.yaml` alone, `version` and `layout`
//! kept, a file that reads; pushed by an admin of the settings before it, when those
//! name admins.

use std::collections::BTreeMap;

use super::judge::Finding;
use super::layout::{CONFIG_PATH, GamePath, Layout, army_choice_path, parse_army_choice_path};
use super::problem::Problem;

/// How a commit changes the archive's settings (`ravenpost.yaml`), as the caller read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsChange {
    /// Only the `layout:` changes, from one layout to the other.
    Layout {
        /// The layout before the commit.
        from: Layout,
        /// The layout after it.
        to: Layout,
    },
    /// Settings other than `version` and `layout` change (or only the file's form: its
    /// comments, its order), and the new file reads: what `ravenpost archive settings`
    /// commits ([`judge_settings_change`]).
    Settings,
    /// The new file reads, but `version`, or `layout` together with other settings,
    /// changes (named by the key).
    Fixed {
        /// `version` or `layout`.
        key: &'static str,
    },
    /// The new file does not read as settings.
    Unreadable {
        /// The reader's message.
        why: String,
    },
    /// Anything else: the file deleted, or settings before the commit that did not read.
    Other,
}

impl SettingsChange {
    /// Whether the commit is judged as a change of the settings ([`judge_settings_change`])
    /// rather than as a migration or as any other commit.
    pub fn is_settings_change(&self) -> bool {
        matches!(
            self,
            SettingsChange::Settings | SettingsChange::Fixed { .. } | SettingsChange::Unreadable { .. }
        )
    }
}

/// What is wrong with a commit that changes the archive's settings other than by its
/// layout (`settings`, not a [`SettingsChange::Layout`]): it must change `ravenpost.yaml`
/// alone (`changed`: every path the commit changes), keep `version` and `layout`, leave a
/// file that reads, and, when the server named the pusher (`pushed`, with the accounts
/// the settings listed *before* the commit), be pushed by an admin when those settings
/// name admins (as the archive's set-up). Empty: an accepted settings change.
pub fn judge_settings_change(
    changed: &[&str],
    settings: &SettingsChange,
    pushed: Option<(&super::players::Pusher, &super::players::ClubAccounts)>,
) -> Vec<Finding> {
    let at_config = |problem: Problem| Finding { subject: CONFIG_PATH.to_string(), problem };
    let mut out: Vec<Finding> = changed
        .iter()
        .filter(|p| **p != CONFIG_PATH)
        .map(|p| Finding {
            subject: p.to_string(),
            problem: Problem::NotOnlySettings { path: p.to_string() },
        })
        .collect();
    match settings {
        SettingsChange::Settings => {}
        SettingsChange::Fixed { key } => out.push(at_config(Problem::FixedSetting { key: key.to_string() })),
        SettingsChange::Unreadable { why } => {
            out.push(at_config(Problem::SettingsUnreadable { why: why.clone() }))
        }
        SettingsChange::Layout { .. } | SettingsChange::Other => out.push(at_config(Problem::NotAGameFile)),
    }
    if let Some((p, club)) = pushed
        && !club.admins.is_empty()
        && !club.admins.contains(&p.account)
    {
        out.push(at_config(Problem::SettingsByNonAdmin {
            pusher: p.account.clone(),
            variable: p.variable.clone(),
            admins: club.admins.clone(),
        }));
    }
    out
}

/// A record's path read: which game it is for, whether it is the game file or the army
/// choice file, and its layout.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Record {
    /// The variant folder (`fantasy-grand` for an army choice).
    variant: String,
    id: String,
    /// An army choice file rather than the game file.
    choice: bool,
    layout: Layout,
}

fn record(path: &str) -> Option<Record> {
    if let Some((layout, id)) = parse_army_choice_path(path) {
        let variant = super::army::ArmyChoice::VARIANT.to_string();
        return Some(Record { variant, id: id.to_string(), choice: true, layout });
    }
    GamePath::parse(path).map(|g| Record {
        variant: g.variant().to_string(),
        id: g.id().to_string(),
        choice: false,
        layout: g.layout(),
    })
}

impl Record {
    /// Its path in `layout`.
    fn path_in(&self, layout: Layout) -> String {
        if self.choice {
            army_choice_path(layout, &self.id)
        } else {
            GamePath::in_layout(layout, &self.variant, &self.id).map(|g| g.path()).unwrap_or_default()
        }
    }
}

/// What is wrong with the record at `path` in an archive of `layout`: a record (game or
/// army choice file) at a path of the other layout is [`Problem::WrongLayout`]. `None` for
/// a record in its place, and for any other path.
pub fn layout_problem(path: &str, layout: Layout) -> Option<Problem> {
    let r = record(path).filter(|r| r.layout != layout)?;
    Some(Problem::WrongLayout {
        path: path.to_string(),
        found: r.layout.to_string(),
        layout: layout.to_string(),
        want: r.path_in(layout),
    })
}

/// The records of one game id at two paths among `paths` (a commit's tree): the same game
/// file twice (two variants, or two layouts), or the army choice file twice.
pub fn duplicate_ids<'a>(paths: impl IntoIterator<Item = &'a str>) -> Vec<Finding> {
    let mut seen: BTreeMap<(String, bool), &str> = BTreeMap::new();
    let mut out = Vec::new();
    for path in paths {
        let Some(r) = record(path) else { continue };
        match seen.get(&(r.id.clone(), r.choice)) {
            Some(first) => out.push(Finding {
                subject: r.id.clone(),
                problem: Problem::DuplicateGameId {
                    id: r.id,
                    first: first.to_string(),
                    second: path.to_string(),
                },
            }),
            None => {
                seen.insert((r.id, r.choice), path);
            }
        }
    }
    out
}

/// What is wrong with a commit that changes the settings' layout (`settings`): each of
/// `changes` (path, new contents or blob; `None` for a deletion; `old` gives what a deleted
/// path held before the commit) must be one half of a record's move from its flat path to
/// its fan-out path with the same contents, and `tree_after` (every path of the commit's
/// tree) must hold no record at a flat path and no game id twice. Empty: a migration.
pub fn judge_migration<T: PartialEq>(
    changes: &[(&str, Option<T>)],
    old: impl Fn(&str) -> Option<T>,
    settings: SettingsChange,
    tree_after: &[&str],
) -> Vec<Finding> {
    let not_a_move = |path: &str, why: String| Finding {
        subject: path.to_string(),
        problem: Problem::NotAMigration { path: path.to_string(), why },
    };
    let mut out = Vec::new();
    if settings != (SettingsChange::Layout { from: Layout::Flat, to: Layout::FanOut }) {
        let why = "its settings change other than from the flat layout to `layout: fan-out`".to_string();
        return vec![not_a_move(CONFIG_PATH, why)];
    }
    let mut added: BTreeMap<Record, (&str, &T)> = BTreeMap::new();
    let mut deleted: Vec<(Record, &str)> = Vec::new();
    for (path, new) in changes.iter().filter(|(p, _)| *p != CONFIG_PATH) {
        let Some(r) = record(path) else {
            out.push(not_a_move(path, "this file is no game or army choice file".into()));
            continue;
        };
        match (new, r.layout) {
            (Some(bytes), Layout::FanOut) => {
                added.insert(r, (path, bytes));
            }
            (None, Layout::Flat) => deleted.push((r, path)),
            (Some(_), Layout::Flat) => out.push(not_a_move(path, "it writes a file at a flat path".into())),
            (None, Layout::FanOut) => {
                out.push(not_a_move(path, "it deletes a file at a fan-out path".into()))
            }
        }
    }
    for (r, path) in deleted {
        let key = Record { layout: Layout::FanOut, ..r };
        match added.remove(&key) {
            None => out.push(not_a_move(
                path,
                format!("it deletes it without writing {}", key.path_in(Layout::FanOut)),
            )),
            Some((to, bytes)) => {
                if old(path).as_ref() != Some(bytes) {
                    out.push(not_a_move(to, format!("its contents differ from those of {path}")));
                }
            }
        }
    }
    for (_, (path, _)) in added {
        out.push(not_a_move(path, "it writes a file that is not moved from its flat path".into()));
    }
    for path in tree_after {
        if let Some(problem) = layout_problem(path, Layout::FanOut) {
            out.push(Finding { subject: path.to_string(), problem });
        }
    }
    out.extend(duplicate_ids(tree_after.iter().copied()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TO: SettingsChange = SettingsChange::Layout { from: Layout::Flat, to: Layout::FanOut };

    fn fan(id: &str) -> String {
        GamePath::in_layout(Layout::FanOut, "gygax", id).unwrap().path()
    }

    #[test]
    fn a_move_with_the_same_bytes_is_a_migration() {
        let to = fan("g");
        let changes = [("games/gygax/g.pgn", None), (to.as_str(), Some(b"x".to_vec()))];
        let old = |p: &str| (p == "games/gygax/g.pgn").then(|| b"x".to_vec());
        assert_eq!(judge_migration(&changes, old, TO, &[to.as_str()]), Vec::new());
    }

    #[test]
    fn a_changed_text_or_a_left_game_is_no_migration() {
        let to = fan("g");
        let changes = [("games/gygax/g.pgn", None), (to.as_str(), Some(b"y".to_vec()))];
        let old = |p: &str| (p == "games/gygax/g.pgn").then(|| b"x".to_vec());
        let found = judge_migration(&changes, old, TO, &[to.as_str()]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].problem.to_string().contains("contents differ"), "{}", found[0].problem);
        let left = judge_migration::<Vec<u8>>(&[], |_| None, TO, &["games/gygax/h.pgn"]);
        assert!(matches!(left[0].problem, Problem::WrongLayout { .. }), "{left:?}");
        let other = judge_migration::<Vec<u8>>(&[], |_| None, SettingsChange::Other, &[]);
        assert!(matches!(other[0].problem, Problem::NotAMigration { .. }), "{other:?}");
    }

    #[test]
    fn a_settings_change_is_the_settings_alone_by_an_admin() {
        use crate::referee::players::{ClubAccounts, Pusher};
        let club = ClubAccounts { admins: vec!["boss".into()], ..Default::default() };
        let by = |a: &str| Pusher { account: a.into(), variable: "REMOTE_USER".into() };
        let (boss, ann) = (by("boss"), by("ann"));
        assert_eq!(
            judge_settings_change(&[CONFIG_PATH], &SettingsChange::Settings, Some((&boss, &club))),
            []
        );
        assert_eq!(judge_settings_change(&[CONFIG_PATH], &SettingsChange::Settings, None), []);
        let found = judge_settings_change(&[CONFIG_PATH], &SettingsChange::Settings, Some((&ann, &club)));
        assert_eq!(
            found[0].problem.to_string(),
            "the archive's settings may be changed only by an admin (the account `boss`, ravenpost.yaml admins before the change), but this push was authenticated as `ann` (REMOTE_USER)"
        );
        let found =
            judge_settings_change(&[CONFIG_PATH, "games/gygax/g.pgn"], &SettingsChange::Settings, None);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].subject, "games/gygax/g.pgn");
        let found = judge_settings_change(&[CONFIG_PATH], &SettingsChange::Fixed { key: "layout" }, None);
        assert!(found[0].problem.to_string().contains("ravenpost archive migrate-layout"), "{found:?}");
        assert!(SettingsChange::Unreadable { why: "x".into() }.is_settings_change());
        assert!(!SettingsChange::Other.is_settings_change() && !TO.is_settings_change());
    }

    #[test]
    fn one_id_at_two_paths_is_found() {
        let found = duplicate_ids(["games/gygax/g.pgn", "games/grand/g.pgn", "games/grand/h.pgn"]);
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].problem.to_string(),
            "game id g is at two paths, games/gygax/g.pgn and games/grand/g.pgn: a game id names one game"
        );
    }
}
