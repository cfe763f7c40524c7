//! Whether a mail to the referee mailbox comes from the domain of its `From` address:
//! its DKIM signatures verified, and the domain's DMARC policy read, by the `mail-auth`
//! crate (Stalwart's, the library of a production mail server) over DNS.
//!
//! A signature counts when it verifies and its domain (`d=`) is aligned with the `From`
//! address: the same domain, or a parent domain of it (never a top-level domain). What
//! is asked of a mail is the club's [`DkimPolicy`]:
//! - `when-published`: an aligned signature is required when the `From` domain publishes
//!   a DMARC policy of `quarantine` or `reject` (with DMARC's own alignment rules);
//! - `required`: of every mail;
//! - `off`: nothing is checked.
//!
//! A DNS server that cannot be reached gives [`DkimVerdict::Unavailable`]: the mail is
//! left for the next pass, neither taken nor refused.

use std::net::SocketAddr;

use mail_auth::dmarc::Policy;
use mail_auth::dmarc::verify::DmarcParameters;
use mail_auth::hickory_resolver::config::{ConnectionConfig, NameServerConfig, ResolverConfig, ResolverOpts};
use mail_auth::{AuthenticatedMessage, DkimOutput, DkimResult, DmarcResult, MessageAuthenticator, SpfOutput};
use serde::Serialize;

pub use crate::archive::DkimPolicy;

/// What the DKIM check says of one mail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "dkim")]
pub enum DkimVerdict {
    /// Not checked (`club: dkim: off`).
    Unchecked,
    /// A signature aligned with the `From` domain verifies.
    Signed {
        /// The signing domain.
        domain: String,
    },
    /// No aligned signature verifies, and the policy does not ask for one.
    Unsigned {
        /// The `From` domain.
        domain: String,
    },
    /// No aligned signature verifies, and one is required: the mail is not taken.
    Refused {
        /// The `From` domain.
        domain: String,
        /// Why, in words for the player.
        why: String,
    },
    /// The DNS could not answer: ask again later.
    Unavailable {
        /// Why.
        why: String,
    },
}

/// The DKIM checker of a referee mailbox: the club's policy and, unless it is `off`, a
/// DNS resolver (with its cache) on a runtime of its own.
pub struct DkimCheck {
    policy: DkimPolicy,
    dns: Option<(tokio::runtime::Runtime, MessageAuthenticator)>,
}

impl std::fmt::Debug for DkimCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DkimCheck").field("policy", &self.policy).finish_non_exhaustive()
    }
}

impl DkimCheck {
    /// A checker with `policy`, asking the DNS server `server` (default: the system's,
    /// from `/etc/resolv.conf`).
    ///
    /// # Errors
    /// The resolver cannot be set up (no readable `/etc/resolv.conf`).
    pub fn new(policy: DkimPolicy, server: Option<SocketAddr>) -> Result<DkimCheck, String> {
        if policy == DkimPolicy::Off {
            return Ok(DkimCheck { policy, dns: None });
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("starting the DNS resolver: {e}"))?;
        let authenticator = std::thread::scope(|s| {
            s.spawn(|| {
                let _inside = rt.enter();
                match server {
                    Some(addr) => {
                        let connection = |mut c: ConnectionConfig| {
                            c.port = addr.port();
                            c
                        };
                        let ns = NameServerConfig::new(
                            addr.ip(),
                            true,
                            vec![connection(ConnectionConfig::udp()), connection(ConnectionConfig::tcp())],
                        );
                        MessageAuthenticator::new(
                            ResolverConfig::from_name_servers(vec![ns]),
                            ResolverOpts::default(),
                        )
                    }
                    None => MessageAuthenticator::new_system_conf(),
                }
                .map_err(|e| format!("setting up the DNS resolver: {e}"))
            })
            .join()
            .unwrap_or_else(|_| Err("setting up the DNS resolver failed".to_string()))
        })?;
        Ok(DkimCheck { policy, dns: Some((rt, authenticator)) })
    }

    /// The policy checked.
    pub fn policy(&self) -> DkimPolicy {
        self.policy
    }

    /// The verdict on the mail `raw`, whose sender the referee read as `from`
    /// (callable from inside another runtime: the lookups run on a thread of their own).
    pub fn check(&self, raw: &[u8], from: &str) -> DkimVerdict {
        let Some((rt, authenticator)) = &self.dns else { return DkimVerdict::Unchecked };
        std::thread::scope(|s| {
            s.spawn(|| rt.block_on(verify(authenticator, self.policy, raw, from)))
                .join()
                .unwrap_or_else(|_| DkimVerdict::Unavailable { why: "the DKIM check failed".to_string() })
        })
    }
}

/// Whether `signer` (a signature's `d=`) is aligned with `from` (the `From` domain).
fn aligned(signer: &str, from: &str) -> bool {
    let (signer, from) = (signer.trim_end_matches('.').to_ascii_lowercase(), from.to_ascii_lowercase());
    signer.contains('.') && (from == signer || from.ends_with(&format!(".{signer}")))
}

/// The most signatures of the `From` domain verified (each may cost DNS lookups).
const MOST_SIGNATURES: usize = 4;
/// The most headers a counted signature may sign (mail-auth's matching of them grows
/// with the square of their number).
const MOST_SIGNED_HEADERS: usize = 64;

async fn verify(
    authenticator: &MessageAuthenticator,
    policy: DkimPolicy,
    raw: &[u8],
    from: &str,
) -> DkimVerdict {
    let domain = from.rsplit_once('@').map(|(_, d)| d.to_ascii_lowercase()).unwrap_or_default();
    let refused = |why: String| DkimVerdict::Refused { domain: domain.clone(), why };
    let Some(mut message) = AuthenticatedMessage::parse(raw) else {
        return refused("it is not a readable message".to_string());
    };
    if let Some(why) = ambiguous(&message, from) {
        return refused(why);
    }
    // Only the signatures of the From domain are verified (a stranger's cost nothing);
    // the others are named.
    let foreign: Vec<String> = message
        .dkim_headers
        .iter()
        .filter(|h| !aligned(&h.header.d, &domain))
        .map(|h| format!("its DKIM signature is by {}, not {domain}", shown(&h.header.d)))
        .collect();
    message.dkim_headers.retain(|h| aligned(&h.header.d, &domain));
    if message.dkim_headers.len() > MOST_SIGNATURES {
        return refused(format!("it carries more than {MOST_SIGNATURES} DKIM signatures of {domain}"));
    }
    if message.dkim_headers.iter().any(|h| h.header.h.len() > MOST_SIGNED_HEADERS) {
        return refused(format!(
            "a DKIM signature of {domain} signs more than {MOST_SIGNED_HEADERS} headers"
        ));
    }
    let outputs = authenticator.verify_dkim(&message).await;
    let signed = outputs.iter().any(|o| {
        *o.result() == DkimResult::Pass
            && o.signature().is_some_and(|s| aligned(&s.d, &domain) && weakness(s, &message).is_none())
    });
    if signed {
        return DkimVerdict::Signed { domain };
    }
    if let Some(why) = temporary(&outputs, &domain) {
        return DkimVerdict::Unavailable { why };
    }
    let mut said = described(&outputs, &message, &domain);
    said.extend(foreign);
    said.truncate(3);
    let signatures =
        if said.is_empty() { "the mail has no DKIM signature".to_string() } else { said.join("; ") };
    if policy == DkimPolicy::Required {
        let why = format!("the club takes only mail signed by its sender's domain (DKIM), and {signatures}");
        return DkimVerdict::Refused { domain, why };
    }
    let spf = SpfOutput::new(domain.clone());
    let dmarc = authenticator.verify_dmarc(DmarcParameters::new(&message, &outputs, &domain, &spf)).await;
    // DMARC's own pass is not enough: its signature may be one that does not count here.
    match (dmarc.dkim_result(), dmarc.policy()) {
        (DmarcResult::TempError(e), _) => {
            DkimVerdict::Unavailable { why: format!("the DMARC policy of {domain} could not be read ({e})") }
        }
        (_, p @ (Policy::Quarantine | Policy::Reject)) => {
            let p = if p == Policy::Reject { "reject" } else { "quarantine" };
            let why =
                format!("{domain} asks that its unsigned mail be refused (DMARC p={p}), and {signatures}");
            DkimVerdict::Refused { domain, why }
        }
        _ => DkimVerdict::Unsigned { domain },
    }
}

/// The headers the referee reads a command's game and identity from: a signature that
/// leaves one of them (when the mail has it) unsigned lets anyone who holds one signed
/// mail of the player send it again, changed, for another game.
const READ_HEADERS: [&str; 5] = ["from", "message-id", "subject", "in-reply-to", "references"];

/// Why a valid signature does not count: it covers only part of the body (`l=`, which
/// lets anyone append to it), or leaves a header the referee reads unsigned.
fn weakness(s: &mail_auth::dkim::Signature, message: &AuthenticatedMessage<'_>) -> Option<String> {
    if s.a == mail_auth::common::crypto::Algorithm::RsaSha1 {
        return Some(format!(
            "its DKIM signature by {} uses rsa-sha1, which no longer counts (RFC 8301)",
            shown(&s.d)
        ));
    }
    if s.l > 0 {
        return Some(format!("its DKIM signature by {} covers only part of the text (l=)", shown(&s.d)));
    }
    let present = |name: &str| message.headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(name.as_bytes()));
    let unsigned: Vec<&str> = READ_HEADERS
        .into_iter()
        .filter(|name| present(name) && !s.h.iter().any(|h| h.eq_ignore_ascii_case(name)))
        .collect();
    (!unsigned.is_empty())
        .then(|| format!("its DKIM signature by {} does not sign its {}", shown(&s.d), unsigned.join(", ")))
}

/// A temporary DNS failure while fetching the key of an aligned signature.
fn temporary(outputs: &[DkimOutput<'_>], domain: &str) -> Option<String> {
    outputs.iter().find_map(|o| match (o.result(), o.signature()) {
        (DkimResult::TempError(e), Some(s)) if aligned(&s.d, domain) => {
            Some(format!("the DKIM key of {} could not be fetched ({e})", shown(&s.d)))
        }
        _ => None,
    })
}

/// Why the mail cannot be judged one way: a header name no mail program writes (which
/// one parser may read as a `From` and another not), two of a header the referee reads,
/// or a `From` that mail-auth reads otherwise than the referee.
fn ambiguous(message: &AuthenticatedMessage<'_>, from: &str) -> Option<String> {
    for (name, _) in &message.headers {
        if name.is_empty() || name.iter().any(|&b| !(33..=126).contains(&b) || b == b':') {
            let shown: String = String::from_utf8_lossy(name).escape_debug().take(40).collect();
            return Some(format!("it has a header named \"{shown}\", which no mail program writes"));
        }
    }
    for read in READ_HEADERS {
        let n = message.headers.iter().filter(|(name, _)| name.eq_ignore_ascii_case(read.as_bytes())).count();
        if n > 1 {
            return Some(format!("it has {n} {read} headers"));
        }
    }
    match message.from.as_slice() {
        [one] if one.eq_ignore_ascii_case(from) => None,
        _ => Some("its From header cannot be read one way".to_string()),
    }
}

/// A signature's domain as a refusal names it: only a domain name is repeated.
fn shown(d: &str) -> String {
    let name = !d.is_empty()
        && d.len() <= 253
        && d.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    if name { d.to_ascii_lowercase() } else { "something that is not a domain name".to_string() }
}

/// The mail's signatures of the `From` domain, in words: `its DKIM signature by
/// example.org does not verify (…)`.
fn described(outputs: &[DkimOutput<'_>], message: &AuthenticatedMessage<'_>, domain: &str) -> Vec<String> {
    let mut said: Vec<String> = Vec::new();
    for o in outputs {
        let Some(s) = o.signature() else {
            if let DkimResult::Neutral(e) | DkimResult::PermError(e) = o.result() {
                said.push(format!("a DKIM signature does not count ({e})"));
            }
            continue;
        };
        let line = match o.result() {
            DkimResult::Pass if aligned(&s.d, domain) => match weakness(s, message) {
                Some(w) => w,
                None => continue,
            },
            DkimResult::Pass => format!("its DKIM signature is by {}, not {domain}", shown(&s.d)),
            DkimResult::Neutral(e)
            | DkimResult::Fail(e)
            | DkimResult::PermError(e)
            | DkimResult::TempError(e) => {
                format!("its DKIM signature by {} does not verify ({e})", shown(&s.d))
            }
            DkimResult::None => continue,
        };
        said.push(line);
    }
    said
}

#[cfg(test)]
mod tests {
    use super::aligned;

    #[test]
    fn a_signature_is_aligned_with_its_domain_and_its_subdomains_only() {
        assert!(aligned("club.example", "club.example"));
        assert!(aligned("example.org", "mail.example.org"));
        assert!(aligned("Example.ORG.", "example.org"));
        assert!(!aligned("mail.example.org", "example.org"));
        assert!(!aligned("ample.org", "example.org"));
        assert!(!aligned("org", "example.org"));
    }
}
