//! Email addresses kept off published pages (issue 32).
//!
//! A club's archive names its players by their git identity (`Ann <ann@example.org>`)
//! and a tournament writes each player's address into `WhiteEmail` / `BlackEmail` tags,
//! for the mail front end. A site copied to any web host must not publish them:
//! [`Addresses::Hidden`] (the default) writes every name without its address, leaves out
//! each tag whose value holds one, and masks any address in a comment.

use std::borrow::Cow;

/// Whether the pages show email addresses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Addresses {
    /// Names without their address, tags holding one left out, addresses in comments
    /// masked.
    #[default]
    Hidden,
    /// Everything as the game files have it (`site --include-addresses`).
    Shown,
}

/// What stands in a comment for an address that was there.
pub const MASK: &str = "[address hidden]";

/// Characters that end an address: whitespace and the punctuation around one in a
/// name or a sentence.
fn ends_address(c: char) -> bool {
    c.is_whitespace()
        || matches!(c, '<' | '>' | '{' | '}' | '(' | ')' | '[' | ']' | ',' | ';' | '"' | '\'' | '`')
}

/// The byte ranges of the addresses in `text`: each run of characters between
/// [`ends_address`] characters that holds an `@` with something on both sides (a
/// trailing full stop belongs to the sentence, not the address).
fn address_ranges(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    let close = |s: usize, e: usize, out: &mut Vec<(usize, usize)>| {
        let word = text[s..e].trim_end_matches('.');
        if let Some(at) = word.find('@')
            && at > 0
            && at + 1 < word.len()
        {
            out.push((s, s + word.len()));
        }
    };
    for (i, c) in text.char_indices() {
        if ends_address(c) {
            if let Some(s) = start.take() {
                close(s, i, &mut out);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        close(s, text.len(), &mut out);
    }
    out
}

/// Whether `text` holds an email address.
pub fn holds_address(text: &str) -> bool {
    !address_ranges(text).is_empty()
}

/// A player's name as a page shows it: `Ann <ann@example.org>` → `Ann`; a name that is
/// only an address shows its part before the `@` (`ann@example.org` → `ann`).
pub fn public_name(name: &str) -> Cow<'_, str> {
    let ranges = address_ranges(name);
    if ranges.is_empty() {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len());
    let mut last = 0;
    for &(s, e) in &ranges {
        out.push_str(&name[last..s]);
        last = e;
    }
    out.push_str(&name[last..]);
    let cleaned = out.replace("<>", "").replace("()", "").replace("[]", "");
    let cleaned = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    if cleaned.is_empty() {
        let (s, e) = ranges[0];
        let address = &name[s..e];
        Cow::Owned(address[..address.find('@').expect("an address has an @")].to_string())
    } else {
        Cow::Owned(cleaned)
    }
}

/// `text` with each address replaced by [`MASK`].
pub fn masked(text: &str) -> Cow<'_, str> {
    let ranges = address_ranges(text);
    if ranges.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for &(s, e) in &ranges {
        out.push_str(&text[last..s]);
        out.push_str(MASK);
        last = e;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_their_address() {
        assert_eq!(public_name("Ann Example <ann@example.org>"), "Ann Example");
        assert_eq!(public_name("ann@example.org"), "ann");
        assert_eq!(public_name("<bo@example.org>"), "bo");
        assert_eq!(public_name("Bo (bo@example.org) Smith"), "Bo Smith");
        assert_eq!(public_name("Ann"), "Ann");
        // An @ with nothing on one side is no address.
        assert_eq!(public_name("@ann"), "@ann");
        assert_eq!(public_name("Team A@"), "Team A@");
    }

    #[test]
    fn comments_keep_their_words_and_lose_the_address() {
        assert_eq!(masked("write to ann@example.org."), "write to [address hidden].");
        assert_eq!(masked("a@b, c@d"), "[address hidden], [address hidden]");
        assert_eq!(masked("no address here"), "no address here");
        assert!(holds_address("x <a@b.c>"));
        assert!(!holds_address("e4 @ 12:00"));
    }
}
