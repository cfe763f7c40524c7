//! The archive's settings changed after its first commit: `ravenpost archive settings`
//! ([`show_settings`], [`change_settings`]) commits a new `ravenpost.yaml` as one commit
//! that changes nothing else, and [`settings_changes`] finds such commits in the history
//! for `verify`. The referee judges them
//! ([`crate::referee::judge_layout::judge_settings_change`]); the hook takes one only from
//! an admin of the settings before it, when those name admins.
//!
//! A key is a dotted path into the file: `club.referee`, `mail.smtp.port`,
//! `players."Bo Example".plays-by` (a name with a dot, or any other character than
//! letters, digits, `-` and `_`, in double quotes; `\"` and `\\` inside them). A value is
//! read as YAML: `2525` is a number, `[ann, ann-laptop]` a list, `"2525"` a string.
//! `version` and `layout` are never changed here (`layout`: `ravenpost archive
//! migrate-layout`). Games already created keep the rules their tags pin.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_yaml_ng::{Mapping, Value};

use crate::archive::{Archive, ArchiveConfig, ArchiveError, CommitNames, HistoryIndex, PathVersion};
use crate::referee::judge::Finding;
use crate::referee::judge_layout::judge_settings_change;
use crate::referee::layout::CONFIG_PATH;

use super::error::Error as Failure;
use super::session::Session;

/// The archive's settings as committed at the tip.
#[derive(Debug, Serialize)]
pub struct ShownSettings {
    /// The text of `ravenpost.yaml`.
    pub text: String,
    /// The settings it holds.
    pub settings: ArchiveConfig,
}

/// A change to make to the settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsEdit {
    /// Set the key (a dotted path) to the value (read as YAML).
    Set {
        /// The dotted path.
        key: String,
        /// The value's text.
        value: String,
    },
    /// Remove the key (and the sections it leaves empty).
    Unset {
        /// The dotted path.
        key: String,
    },
    /// Replace the whole file with this text (kept as it is, comments too).
    Replace {
        /// The new file's text.
        text: String,
    },
}

/// What `ravenpost archive settings set|unset|--file` committed.
#[derive(Debug, Serialize)]
pub struct SettingsChanged {
    /// The commit (short id).
    pub commit: String,
    /// Each setting changed, as `key = value` or `key unset`, in key order.
    pub changes: Vec<String>,
}

/// `ravenpost archive settings`: the committed `ravenpost.yaml` at the tip.
///
/// # Errors
/// An archive without settings; a settings file that does not read; the archive's errors.
pub fn show_settings(archive: &Archive) -> Result<ShownSettings, Failure> {
    let Some(text) = archive.read_file(CONFIG_PATH)? else {
        return Err(Failure::Usage(
            "the archive has no ravenpost.yaml yet (`ravenpost init` writes it)".into(),
        ));
    };
    let settings = ArchiveConfig::from_yaml(&text)?;
    Ok(ShownSettings { text, settings })
}

/// `ravenpost archive settings set|unset|--file`: commits the changed `ravenpost.yaml`
/// at the tip, alone, by the caller's identity, under the write lock; the message says
/// what changed. The new file must read, with the same `version` and `layout`.
///
/// # Errors
/// A usage error for a key that cannot be set that way, a value that is no value, a
/// change of `version` or `layout`, new settings that do not read, or nothing changed;
/// an uncommitted edit of `ravenpost.yaml` in the working tree (other than the new text
/// itself); the archive's errors.
pub fn change_settings(
    archive: &Archive,
    session: &Session,
    edit: &SettingsEdit,
) -> Result<SettingsChanged, Failure> {
    let Some(tip) = archive.tip()? else {
        return Err(Failure::Usage(
            "the archive has no commit yet: `ravenpost init` writes its settings".into(),
        ));
    };
    let Some(old_text) = archive.read_file_at(tip, CONFIG_PATH)? else {
        return Err(Failure::Usage("the archive has no ravenpost.yaml (`ravenpost init` writes it)".into()));
    };
    let old = ArchiveConfig::from_yaml(&old_text)?;
    let new_text = match edit {
        SettingsEdit::Replace { text } => text.clone(),
        SettingsEdit::Set { key, value } => edited(&old_text, key, Some(value))?,
        SettingsEdit::Unset { key } => edited(&old_text, key, None)?,
    };
    let new = ArchiveConfig::from_yaml(&new_text).map_err(|e| {
        let why = match e {
            ArchiveError::Config { message, .. } => message,
            other => other.to_string(),
        };
        Failure::Usage(format!("the new ravenpost.yaml would not read: {why}; nothing was written"))
    })?;
    if new.version != old.version {
        return Err(Failure::Usage(fixed(
            "version",
            "it is the file's format version, which ravenpost writes",
        )));
    }
    if new.layout != old.layout {
        return Err(Failure::Usage(fixed(
            "layout",
            "`ravenpost archive migrate-layout` moves the games and sets it",
        )));
    }
    check_working_copy(archive, &old_text, &new_text)?;
    let changes = differences(&yaml(&old_text)?, &yaml(&new_text)?);
    if changes.is_empty() && new_text == old_text {
        return Err(Failure::Usage("the settings are already so: nothing to commit".into()));
    }
    // The author of the settings before the change, not of the working tree's copy.
    let me = archive.identity_over(session.identity().or(old.author.as_ref()))?;
    let names = CommitNames::by(&me, session.now());
    let message = commit_message(&changes);
    let commit = archive.commit_moves(&[], (CONFIG_PATH, new_text.as_bytes()), tip, names, &message)?;
    Ok(SettingsChanged { commit: commit.short(), changes })
}

fn fixed(key: &str, why: &str) -> String {
    format!("`{key}` cannot be changed by `ravenpost archive settings`: {why}; nothing was written")
}

/// Refuses an edit of `ravenpost.yaml` in the working tree that the commit would
/// overwrite: one that is neither the committed text nor the new one.
fn check_working_copy(archive: &Archive, committed: &str, new: &str) -> Result<(), Failure> {
    if archive.is_bare() {
        return Ok(());
    }
    let file = archive.dir().join(CONFIG_PATH);
    let here = std::fs::read(&file).ok().map(|b| String::from_utf8_lossy(&b).replace("\r\n", "\n"));
    match here {
        Some(h) if h == committed.replace("\r\n", "\n") || h == new.replace("\r\n", "\n") => Ok(()),
        _ => Err(ArchiveError::UncommittedSettings { path: CONFIG_PATH.to_string() }.into()),
    }
}

/// The text as a YAML value (a mapping).
fn yaml(text: &str) -> Result<Value, Failure> {
    serde_yaml_ng::from_str(text).map_err(|e| Failure::Usage(format!("ravenpost.yaml: {e}")))
}

/// The dotted path `key` read into its names: `a.b."c d"`.
///
/// # Errors
/// A usage error naming what is wrong.
pub(crate) fn key_path(key: &str) -> Result<Vec<String>, Failure> {
    let bad = |why: &str| Failure::Usage(format!("settings key `{key}`: {why}"));
    let mut names = Vec::new();
    let mut chars = key.chars().peekable();
    loop {
        let mut name = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    None => return Err(bad("a quoted name is not closed with `\"`")),
                    Some('"') => break,
                    Some('\\') => name.push(chars.next().ok_or_else(|| bad("it ends in `\\`"))?),
                    Some(c) => name.push(c),
                }
            }
            if !matches!(chars.peek(), None | Some('.')) {
                return Err(bad("a quoted name must be followed by `.` or the end"));
            }
        } else {
            while let Some(c) = chars.next_if(|c| *c != '.') {
                name.push(c);
            }
            if name.is_empty() {
                return Err(bad("an empty name (two dots, or a dot at an end)"));
            }
        }
        names.push(name);
        if chars.next().is_none() {
            return Ok(names);
        }
    }
}

/// The name as a key is written: bare when it is letters, digits, `-` and `_`, else in
/// double quotes.
fn key_name(name: &str) -> String {
    if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_') {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// `text` with the setting at `key` set to `value` (read as YAML), or removed (`None`).
fn edited(text: &str, key: &str, value: Option<&str>) -> Result<String, Failure> {
    let path = key_path(key)?;
    match path[0].as_str() {
        "version" => return Err(Failure::Usage(fixed("version", "it is the file's format version"))),
        "layout" => {
            return Err(Failure::Usage(fixed(
                "layout",
                "`ravenpost archive migrate-layout` moves the games and sets it",
            )));
        }
        _ => {}
    }
    let mut root = yaml(text)?;
    let (last, sections) = path.split_last().expect("a key has a name");
    let mut at = &mut root;
    let mut trail = Vec::new();
    for name in sections {
        trail.push(key_name(name));
        let Value::Mapping(m) = at else {
            return Err(Failure::Usage(format!(
                "settings key `{key}`: `{}` is a value, not a section",
                trail.join(".")
            )));
        };
        if value.is_none() && !m.contains_key(name.as_str()) {
            return Err(Failure::Usage(format!("settings key `{key}` is not set: nothing to unset")));
        }
        at = m.entry(Value::String(name.clone())).or_insert_with(|| Value::Mapping(Mapping::new()));
    }
    let Value::Mapping(m) = at else {
        return Err(Failure::Usage(format!(
            "settings key `{key}`: `{}` is a value, not a section",
            trail.join(".")
        )));
    };
    match value {
        Some(v) => {
            m.insert(Value::String(last.clone()), value_of(key, v)?);
        }
        None => {
            if m.remove(last.as_str()).is_none() {
                return Err(Failure::Usage(format!("settings key `{key}` is not set: nothing to unset")));
            }
            prune(&mut root);
        }
    }
    serde_yaml_ng::to_string(&root).map_err(|e| Failure::Usage(format!("settings key `{key}`: {e}")))
}

/// Removes the sections left empty (below the top).
fn prune(v: &mut Value) {
    if let Value::Mapping(m) = v {
        for (_, child) in m.iter_mut() {
            prune(child);
        }
        m.retain(|_, child| !matches!(child, Value::Mapping(c) if c.is_empty()));
    }
}

/// `text` read as a setting's value: a scalar or a list of scalars.
fn value_of(key: &str, text: &str) -> Result<Value, Failure> {
    let v: Value = serde_yaml_ng::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()));
    let scalar = |v: &Value| matches!(v, Value::Bool(_) | Value::Number(_) | Value::String(_));
    match &v {
        Value::Null => Err(Failure::Usage(format!(
            "settings key `{key}`: an empty value; to remove the setting, run `ravenpost archive settings unset {key}`"
        ))),
        Value::Sequence(items) if items.iter().all(scalar) => Ok(v),
        v if scalar(v) => Ok(v.clone()),
        _ => Err(Failure::Usage(format!(
            "settings key `{key}`: the value must be one value or a list `[a, b]`; set a section's keys one by one, or replace the file with --file"
        ))),
    }
}

/// The settings of a YAML value, each leaf (a scalar or a list) at its dotted key.
fn leaves(v: &Value, prefix: &str, out: &mut BTreeMap<String, String>) {
    match v {
        Value::Mapping(m) => {
            for (k, child) in m {
                let name = match k {
                    Value::String(s) => key_name(s),
                    other => one_line(other),
                };
                let key = if prefix.is_empty() { name } else { format!("{prefix}.{name}") };
                leaves(child, &key, out);
            }
        }
        other => {
            out.insert(prefix.to_string(), one_line(other));
        }
    }
}

/// A YAML value on one line (a list in flow style).
fn one_line(v: &Value) -> String {
    match v {
        Value::Sequence(items) => format!("[{}]", items.iter().map(one_line).collect::<Vec<_>>().join(", ")),
        other => serde_yaml_ng::to_string(other).map(|t| t.trim().to_string()).unwrap_or_default(),
    }
}

/// Each setting that differs between `old` and `new`: `key = value`, or `key unset`.
fn differences(old: &Value, new: &Value) -> Vec<String> {
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    leaves(old, "", &mut a);
    leaves(new, "", &mut b);
    let mut out = Vec::new();
    for key in a.keys().chain(b.keys()).collect::<std::collections::BTreeSet<_>>() {
        match (a.get(key), b.get(key)) {
            (Some(x), Some(y)) if x == y => {}
            (_, Some(y)) => out.push(format!("{key} = {y}")),
            (Some(_), None) => out.push(format!("{key} unset")),
            (None, None) => {}
        }
    }
    out
}

/// The commit message: `settings: <the change>` for one change that fits a subject line,
/// else `settings: N changes` with every change in the body.
fn commit_message(changes: &[String]) -> String {
    let body = "Changed with `ravenpost archive settings`: games already created keep the\nrules their tags pin; the archive's other settings apply from this commit on.";
    match changes {
        [] => format!("settings: ravenpost.yaml rewritten, no setting changed\n\n{body}"),
        [one] if one.chars().count() <= 62 => format!("settings: {one}\n\n{body}"),
        many => {
            let list: Vec<String> = many.iter().map(|c| format!("- {c}")).collect();
            let n = many.len();
            let s = if n == 1 { "" } else { "s" };
            format!("settings: {n} change{s}\n\n{}\n\n{body}", list.join("\n"))
        }
    }
}

/// The commits of `index` that change the settings other than by the layout (a settings
/// change, [`judge_settings_change`]), with what the referee finds wrong with each
/// (`verify`: no pusher is known). The settings' first version, a deletion and a
/// migration are not among them.
///
/// # Errors
/// The archive's errors.
pub(crate) fn settings_changes(
    archive: &Archive,
    index: &HistoryIndex,
) -> Result<Vec<(usize, Vec<Finding>)>, Failure> {
    let mut out = Vec::new();
    let versions: Vec<PathVersion> = index.versions(CONFIG_PATH).to_vec();
    for pair in versions.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let text = before.blob.and_then(|b| archive.read_blob_text(b, CONFIG_PATH).ok());
        let bytes = match after.blob {
            Some(b) => Some(archive.read_blob_bytes(b, CONFIG_PATH)?),
            None => None,
        };
        let change = super::layout::settings_change(text.as_deref(), bytes.as_deref());
        if !change.is_settings_change() {
            continue;
        }
        let c = index.commit_at(after.position);
        let changed: Vec<&str> = c.changes.iter().map(|ch| &*ch.path).collect();
        out.push((after.position, judge_settings_change(&changed, &change, None)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_with_quoted_names() {
        assert_eq!(key_path("mail.smtp.host").unwrap(), ["mail", "smtp", "host"]);
        assert_eq!(
            key_path("players.\"Bo Example\".plays-by").unwrap(),
            ["players", "Bo Example", "plays-by"]
        );
        assert_eq!(key_path("accounts.\"J. \\\"Jo\\\" Smith\"").unwrap(), ["accounts", "J. \"Jo\" Smith"]);
        assert_eq!(key_path("players.Bo Example.email").unwrap(), ["players", "Bo Example", "email"]);
        for bad in ["", "a..b", "a.", ".a", "a.\"b", "a.\"b\"c"] {
            assert!(key_path(bad).is_err(), "{bad}");
        }
        assert_eq!(key_name("J. Smith"), "\"J. Smith\"");
        assert_eq!(key_name("plays-by"), "plays-by");
    }

    #[test]
    fn a_set_and_an_unset_change_one_setting() {
        let text = "version: 1\nsite: club\nmail:\n  smtp:\n    host: a\n";
        let set = edited(text, "mail.smtp.port", Some("2525")).unwrap();
        assert_eq!(set, "version: 1\nsite: club\nmail:\n  smtp:\n    host: a\n    port: 2525\n");
        let set = edited(text, "players.\"Bo Example\".plays-by", Some("mail")).unwrap();
        assert!(set.ends_with("players:\n  Bo Example:\n    plays-by: mail\n"), "{set}");
        assert_eq!(
            differences(&yaml(text).unwrap(), &yaml(&set).unwrap()),
            ["players.\"Bo Example\".plays-by = mail"]
        );
        let unset = edited(text, "mail.smtp.host", None).unwrap();
        assert_eq!(unset, "version: 1\nsite: club\n");
        assert_eq!(differences(&yaml(text).unwrap(), &yaml(&unset).unwrap()), ["mail.smtp.host unset"]);
        let admins = edited(text, "admins", Some("[boss, deputy]")).unwrap();
        assert_eq!(differences(&yaml(text).unwrap(), &yaml(&admins).unwrap()), ["admins = [boss, deputy]"]);
        for (key, value, want) in [
            ("layout", Some("flat"), "migrate-layout"),
            ("version", Some("2"), "format version"),
            ("site.x", Some("y"), "`site` is a value, not a section"),
            ("club.web", None, "is not set"),
            ("site", Some(""), "unset site"),
            ("site", Some("{a: b}"), "one value or a list"),
        ] {
            let e = edited(text, key, value).unwrap_err().to_string();
            assert!(e.contains(want), "{key}: {e}");
        }
    }

    #[test]
    fn many_changes_are_listed_in_the_body() {
        let one = commit_message(&["club.referee = games@club.org".into()]);
        assert!(one.starts_with("settings: club.referee = games@club.org\n\n"), "{one}");
        let two = commit_message(&["a = 1".into(), "b unset".into()]);
        assert!(two.starts_with("settings: 2 changes\n\n- a = 1\n- b unset\n\n"), "{two}");
    }
}
