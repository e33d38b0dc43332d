//! Basic auth against the web config's `basic_auth_users` (bcrypt hashes),
//! as the exporter toolkit checks it: every path, a 401 with
//! `WWW-Authenticate` otherwise, an unknown user costing as much as a known
//! one, and a verified password remembered (bcrypt takes tens of
//! milliseconds by design, and Prometheus sends it on every scrape).

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::WebConfig;

/// Verified passwords remembered, at most; then the memory starts over.
const REMEMBERED: usize = 256;

/// The users and their bcrypt hashes, and the passwords already verified.
#[derive(Default)]
pub struct Users {
    hashes: BTreeMap<String, String>,
    /// Digests of `user`, password and hash that verified.
    verified: Mutex<HashSet<[u8; 32]>>,
}

impl Users {
    /// Each hash must be bcrypt's (`$2a$`, `$2b$`, `$2y$`); a plain password
    /// written there by mistake is refused, never compared.
    pub fn new(hashes: BTreeMap<String, String>) -> Result<Self, String> {
        for (user, hash) in &hashes {
            if user.contains(':') {
                return Err(format!("user {user:?}: a name cannot hold ':'"));
            }
            let is_bcrypt = ["$2a$", "$2b$", "$2y$"]
                .iter()
                .any(|prefix| hash.starts_with(prefix));
            if !is_bcrypt || hash.len() != 60 {
                return Err(format!(
                    "user {user:?}: not a bcrypt hash (make one with `htpasswd -nBC 10 \"\"`)"
                ));
            }
        }
        Ok(Self {
            hashes,
            verified: Mutex::default(),
        })
    }

    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// Whether `user` and `password` match (blocking: bcrypt's cost).
    pub fn check(&self, user: &str, password: &str) -> bool {
        let hash = self.hashes.get(user);
        let digest: [u8; 32] = Sha256::new()
            .chain_update(user.as_bytes())
            .chain_update([0])
            .chain_update(password.as_bytes())
            .chain_update([0])
            .chain_update(hash.map_or("", String::as_str).as_bytes())
            .finalize()
            .into();
        let remembered = self
            .verified
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .any(|known| bool::from(known.ct_eq(&digest)));
        if remembered && hash.is_some() {
            return true;
        }
        // An unknown user is checked against a hash of nothing, so that the
        // answer takes as long as for a known one.
        let against = match hash {
            Some(hash) => hash.as_str(),
            None => dummy_hash(),
        };
        let verifies = bcrypt::verify(password, against).unwrap_or(false);
        if verifies && hash.is_some() {
            let mut verified = self.verified.lock().unwrap_or_else(|p| p.into_inner());
            if verified.len() >= REMEMBERED {
                verified.clear();
            }
            verified.insert(digest);
            return true;
        }
        false
    }
}

fn dummy_hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| bcrypt::hash("", bcrypt::DEFAULT_COST).unwrap_or_default())
}

/// `user:password` from an `Authorization: Basic …` header.
fn credentials(request: &Request) -> Option<(String, String)> {
    let value = request
        .headers()
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, encoded) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (user, password) = text.split_once(':')?;
    Some((user.to_owned(), password.to_owned()))
}

/// The middleware: with users configured, a request passes only with one's
/// password; without, every request passes.
pub async fn require_basic_auth(
    State(web): State<Option<Arc<WebConfig>>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(web) = web else {
        return next.run(request).await;
    };
    let active = web.current();
    if active.users.is_empty() {
        return next.run(request).await;
    }
    let allowed = match credentials(&request) {
        Some((user, password)) => {
            let active = active.clone();
            tokio::task::spawn_blocking(move || active.users.check(&user, &password))
                .await
                .unwrap_or(false)
        }
        None => false,
    };
    if allowed {
        return next.run(request).await;
    }
    (
        StatusCode::UNAUTHORIZED,
        [(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"vantage exporter\""),
        )],
        "Unauthorized\n",
    )
        .into_response()
}
