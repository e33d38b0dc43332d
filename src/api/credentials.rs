//! The API key, kept out of every `Debug`, `Display` and log line.

use std::fmt;

use sha2::{Digest, Sha256};

use super::error::ConfigError;

/// An API key (or session/OAuth token). It never prints: `Debug` and `Display`
/// show only a short fingerprint, so two keys can be told apart in a log.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Trims surrounding whitespace (a key read from a file or a command ends in
    /// a newline) and refuses an empty key or one that cannot travel in a header.
    pub fn new(raw: impl Into<String>) -> Result<Self, ConfigError> {
        let raw = raw.into();
        let key = raw.trim();
        if key.is_empty() {
            return Err(ConfigError::InvalidCredential("the API key is empty"));
        }
        if key.chars().any(|ch| ch.is_control() || !ch.is_ascii()) {
            return Err(ConfigError::InvalidCredential(
                "the API key holds a control or non-ASCII character, so it cannot be sent in a header",
            ));
        }
        Ok(Self(key.to_owned()))
    }

    /// The key itself, for the one place that sends it.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }

    /// The first 8 hex digits of the key's SHA-256: safe to show.
    pub fn fingerprint(&self) -> String {
        hex::encode(&Sha256::digest(self.0.as_bytes())[..4])
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey(redacted, sha256:{})", self.fingerprint())
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[redacted key sha256:{}]", self.fingerprint())
    }
}

impl<'de> serde::Deserialize<'de> for ApiKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        ApiKey::new(raw).map_err(serde::de::Error::custom)
    }
}

/// How the key is sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthScheme {
    /// `Service-API-Key: <key>`.
    #[default]
    #[serde(alias = "service-api-key", alias = "api_key")]
    ServiceApiKey,
    /// `Authorization: Bearer <key>`.
    Bearer,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_prints_the_key() {
        let key = ApiKey::new("  vtg_secret_value_123\n").unwrap();
        assert_eq!(key.expose_secret(), "vtg_secret_value_123");
        for shown in [format!("{key:?}"), format!("{key}"), format!("{:#?}", key)] {
            assert!(!shown.contains("secret"), "{shown}");
            assert!(shown.contains(&key.fingerprint()), "{shown}");
        }
        assert_eq!(key.fingerprint().len(), 8);
    }

    #[test]
    fn refuses_keys_that_cannot_be_sent() {
        assert!(ApiKey::new("  ").is_err());
        assert!(ApiKey::new("a\tb").is_err());
        assert!(ApiKey::new("clé").is_err());
        let message = ApiKey::new("bad\u{7}key").unwrap_err().to_string();
        assert!(!message.contains("bad"), "{message}");
    }
}
