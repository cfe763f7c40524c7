//! Why a TLS connection to a mail server failed, in words a club organiser can act on.
//!
//! rustls reports a refused server certificate in its own debug notation (`invalid peer
//! certificate: Other(OtherError(CaUsedAsEndEntity))`). [`certificate_refusal`] finds that
//! error under a connection's error (lettre's and tokio-rustls's wrap it) and says what
//! was wrong and what to do.

use rustls::CertificateError;

/// What went wrong and what to do, when `e` (or an error it wraps) is rustls refusing the
/// server's certificate, or finding no TLS where TLS was asked for; `None` for any other
/// failure.
pub(crate) fn certificate_refusal(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    for err in causes(e) {
        match rustls_error(err) {
            Some(rustls::Error::InvalidCertificate(c)) => return Some(words(c)),
            Some(rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType)) => {
                return Some(
                    "the server did not answer in TLS: it speaks plain text on this port (for \
                     SMTP with STARTTLS, usually on port 587, pass --security starttls)"
                        .to_string(),
                );
            }
            _ => {}
        }
    }
    None
}

/// `e` and the errors under it, outermost first (lettre's and tokio-rustls's errors wrap
/// the system's and rustls's).
pub(crate) fn causes<'e>(
    e: &'e (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'e (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(e), |err| err.source())
}

/// The certificates of the CA file `path` (PEM); an error when it cannot be read or holds
/// none (a file of anything else would trust nothing, silently).
pub(crate) fn ca_certificates(
    path: &std::path::Path,
) -> Result<Vec<rustls::pki_types::CertificateDer<'static>>, String> {
    use rustls::pki_types::pem::PemObject as _;
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let certs = rustls::pki_types::CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("not a PEM file ({e})"))?;
    if certs.is_empty() {
        return Err("no certificate in it (a PEM file with -----BEGIN CERTIFICATE----- blocks)".into());
    }
    Ok(certs)
}

/// The rustls error `e` is, or carries as an I/O error's inner error.
fn rustls_error<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    if let Some(r) = e.downcast_ref::<rustls::Error>() {
        return Some(r);
    }
    e.downcast_ref::<std::io::Error>()?.get_ref()?.downcast_ref::<rustls::Error>()
}

fn words(c: &CertificateError) -> String {
    let ca_file = "give the CA that signed it with --ca-file (for mail send, also `ca-file:` under \
                   mail.smtp in your settings file)";
    match c {
        CertificateError::UnknownIssuer => {
            format!("the server's certificate is not signed by a CA this client trusts: {ca_file}")
        }
        CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
            "the server's certificate is not for the host name or address connected to: connect to \
             a name its certificate lists (its subjectAltName)"
                .to_string()
        }
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            "the server's certificate has expired: the server needs a new one".to_string()
        }
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
            "the server's certificate is not valid yet: check the clocks of both machines".to_string()
        }
        CertificateError::Other(other)
            if matches!(other.0.downcast_ref::<webpki::Error>(), Some(webpki::Error::CaUsedAsEndEntity)) =>
        {
            "the server presents a CA certificate (basicConstraints CA:TRUE) as its own, and a CA \
             certificate is never accepted as a server's: make a CA, give the server a certificate \
             signed by it (basicConstraints CA:FALSE), and give the CA with --ca-file"
                .to_string()
        }
        other => format!("the server's certificate was refused ({other:?})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As tokio-rustls returns it: an I/O error carrying rustls's.
    fn io(c: CertificateError) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::InvalidData, rustls::Error::InvalidCertificate(c))
    }

    #[test]
    fn each_refusal_says_what_to_do() {
        let ca = CertificateError::Other(rustls::OtherError(std::sync::Arc::new(
            webpki::Error::CaUsedAsEndEntity,
        )));
        let said = certificate_refusal(&io(ca)).unwrap();
        assert!(
            said.contains("CA certificate (basicConstraints CA:TRUE)") && said.contains("--ca-file"),
            "{said}"
        );
        let said = certificate_refusal(&io(CertificateError::UnknownIssuer)).unwrap();
        assert!(said.starts_with("the server's certificate is not signed by a CA"), "{said}");
        assert_eq!(certificate_refusal(&std::io::Error::other("connection refused")), None);
    }

    #[test]
    fn a_ca_file_without_a_certificate_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("ca.pem");
        std::fs::write(&file, "not a certificate\n").unwrap();
        assert!(ca_certificates(&file).unwrap_err().starts_with("no certificate in it"));
        assert!(ca_certificates(&t.path().join("none.pem")).is_err());
    }
}
