//! `Service-Version` and `Service-Beta` resolution: every row of the contract's
//! header-resolution table.

use axum::http::{HeaderMap, StatusCode};
use serde_json::json;

use super::errors::HttpError;
use crate::api::model::{API_VERSION, ErrorType};

pub const VERSION_HEADER: &str = "service-version";
pub const BETA_HEADER: &str = "service-beta";

/// The longest `Service-Beta` header we accept. The contract says only "too long".
const MAX_BETA_HEADER_LEN: usize = 512;

/// Where users read about migrating off a retired version or beta.
const MIGRATION_URL: &str = "https://docs.example.invalid/api/migrations";

/// A beta revision the server knows.
#[derive(Debug, Clone)]
pub struct BetaRevision {
    /// The full revision string sent in `Service-Beta`, e.g. `insights-2026-10-01`.
    pub name: String,
    /// The beta feature it revises; two revisions of one feature conflict.
    pub feature: String,
    /// Stable versions it works on top of.
    pub supported_versions: Vec<String>,
}

/// Versions and betas the server serves, and those it has retired.
#[derive(Debug, Clone)]
pub struct VersionCatalog {
    pub supported: Vec<String>,
    pub retired: Vec<String>,
    pub betas: Vec<BetaRevision>,
    pub retired_betas: Vec<String>,
    /// Pairs of beta features that cannot be combined.
    pub incompatible_features: Vec<(String, String)>,
}

impl Default for VersionCatalog {
    /// The contract: `2026-09-11` only, no beta released. The retired entries are
    /// our choice, so that the 410 rows can be exercised.
    fn default() -> Self {
        Self {
            supported: vec![API_VERSION.to_owned()],
            retired: vec!["2026-01-15".to_owned()],
            betas: Vec::new(),
            retired_betas: vec!["insights-2026-05-01".to_owned()],
            incompatible_features: Vec::new(),
        }
    }
}

/// What a request selected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    pub version: String,
    pub betas: Vec<String>,
}

impl VersionCatalog {
    /// Resolves the headers, in the contract's order: version, then betas.
    pub fn resolve(&self, headers: &HeaderMap) -> Result<Selection, HttpError> {
        let version = self.resolve_version(headers)?;
        let betas = self.resolve_betas(headers, &version)?;
        Ok(Selection { version, betas })
    }

    fn resolve_version(&self, headers: &HeaderMap) -> Result<String, HttpError> {
        let values: Vec<_> = headers.get_all(VERSION_HEADER).iter().collect();
        let requested = match values.as_slice() {
            [] => return self.default_version(),
            [one] => one.to_str().ok().map(str::trim).filter(|v| is_date(v)),
            _ => None,
        };
        let Some(requested) = requested else {
            return Err(HttpError::invalid(
                "header.Service-Version",
                "Service-Version must be exactly one date in the form YYYY-MM-DD",
            ));
        };
        if self.supported.iter().any(|v| v == requested) {
            Ok(requested.to_owned())
        } else if self.retired.iter().any(|v| v == requested) {
            Err(HttpError::new(
                StatusCode::GONE,
                ErrorType::RetiredVersion,
                "Retired version",
            )
            .detail(format!("API version {requested} is retired"))
            .prop("migration_url", json!(MIGRATION_URL)))
        } else {
            // The contract: detail and errors are null for unknown_version.
            Err(HttpError::new(
                StatusCode::BAD_REQUEST,
                ErrorType::UnknownVersion,
                "Unknown version",
            ))
        }
    }

    /// The oldest supported version is the default.
    fn default_version(&self) -> Result<String, HttpError> {
        self.supported.iter().min().cloned().ok_or_else(|| {
            HttpError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorType::NoSupportedVersion,
                "No supported version",
            )
            .detail("no stable API version is currently supported")
        })
    }

    fn resolve_betas(&self, headers: &HeaderMap, version: &str) -> Result<Vec<String>, HttpError> {
        let values: Vec<_> = headers.get_all(BETA_HEADER).iter().collect();
        if values.is_empty() {
            return Ok(Vec::new());
        }
        let malformed = || {
            HttpError::invalid(
                "header.Service-Beta",
                "Service-Beta must be a comma-separated list of beta revision strings",
            )
        };
        let mut joined = String::new();
        for value in values {
            let text = value.to_str().map_err(|_| malformed())?;
            if !joined.is_empty() {
                joined.push(',');
            }
            joined.push_str(text);
        }
        if joined.trim().is_empty() || joined.len() > MAX_BETA_HEADER_LEN {
            return Err(malformed());
        }
        let mut selected: Vec<String> = Vec::new();
        for part in joined.split(',') {
            let name = part.trim();
            let well_formed = !name.is_empty()
                && name
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | '.'));
            if !well_formed {
                return Err(malformed());
            }
            if !selected.iter().any(|s| s == name) {
                selected.push(name.to_owned());
            }
        }
        let mut features: Vec<&BetaRevision> = Vec::new();
        for name in &selected {
            if self.retired_betas.iter().any(|b| b == name) {
                return Err(HttpError::new(
                    StatusCode::GONE,
                    ErrorType::RetiredBeta,
                    "Retired beta",
                )
                .detail(format!("beta {name} is retired"))
                .prop("migration_url", json!(MIGRATION_URL)));
            }
            let Some(beta) = self.betas.iter().find(|b| &b.name == name) else {
                return Err(HttpError::new(
                    StatusCode::BAD_REQUEST,
                    ErrorType::UnknownBeta,
                    "Unknown beta",
                )
                .detail(format!("beta {name} is not released")));
            };
            if !beta.supported_versions.iter().any(|v| v == version) {
                return Err(HttpError::new(
                    StatusCode::BAD_REQUEST,
                    ErrorType::UnsupportedBetaVersion,
                    "Unsupported beta version",
                )
                .detail(format!(
                    "beta {name} does not support API version {version}"
                )));
            }
            features.push(beta);
        }
        for (i, a) in features.iter().enumerate() {
            for b in &features[i + 1..] {
                let incompatible = self.incompatible_features.iter().any(|(x, y)| {
                    (x == &a.feature && y == &b.feature) || (x == &b.feature && y == &a.feature)
                });
                if a.feature == b.feature || incompatible {
                    return Err(HttpError::new(
                        StatusCode::BAD_REQUEST,
                        ErrorType::ConflictingBetas,
                        "Conflicting betas",
                    )
                    .detail(format!(
                        "betas {} and {} cannot be combined",
                        a.name, b.name
                    )));
                }
            }
        }
        Ok(selected)
    }
}

/// `YYYY-MM-DD`, a real calendar date.
fn is_date(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && time::Date::parse(
            value,
            time::macros::format_description!("[year]-[month]-[day]"),
        )
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn kind(result: Result<Selection, HttpError>) -> String {
        match result {
            Ok(_) => "ok".into(),
            Err(e) => e.kind.as_str().to_owned(),
        }
    }

    #[test]
    fn resolves_each_row_of_the_table() {
        let catalog = VersionCatalog {
            betas: vec![
                BetaRevision {
                    name: "widgets-2026-10-01".into(),
                    feature: "widgets".into(),
                    supported_versions: vec![API_VERSION.into()],
                },
                BetaRevision {
                    name: "widgets-2026-11-01".into(),
                    feature: "widgets".into(),
                    supported_versions: vec![API_VERSION.into()],
                },
                BetaRevision {
                    name: "gadgets-2026-10-01".into(),
                    feature: "gadgets".into(),
                    supported_versions: vec!["2027-01-01".into()],
                },
            ],
            ..VersionCatalog::default()
        };
        let cases: &[(&[(&'static str, &str)], &str)] = &[
            (&[], "ok"),
            (&[(VERSION_HEADER, "2026-09-11")], "ok"),
            (&[(VERSION_HEADER, "2026-9-11")], "invalid_request"),
            (&[(VERSION_HEADER, "2026-02-30")], "invalid_request"),
            (
                &[
                    (VERSION_HEADER, "2026-09-11"),
                    (VERSION_HEADER, "2026-09-11"),
                ],
                "invalid_request",
            ),
            (&[(VERSION_HEADER, "2026-09-12")], "unknown_version"),
            (&[(VERSION_HEADER, "2026-01-15")], "retired_version"),
            (&[(BETA_HEADER, "")], "invalid_request"),
            (&[(BETA_HEADER, "a,,b")], "invalid_request"),
            (&[(BETA_HEADER, "nope-2026-01-01")], "unknown_beta"),
            (&[(BETA_HEADER, "insights-2026-05-01")], "retired_beta"),
            (
                &[(BETA_HEADER, "gadgets-2026-10-01")],
                "unsupported_beta_version",
            ),
            (
                &[(BETA_HEADER, "widgets-2026-10-01, widgets-2026-11-01")],
                "conflicting_betas",
            ),
            (&[(BETA_HEADER, "widgets-2026-10-01")], "ok"),
        ];
        for (pairs, expected) in cases {
            assert_eq!(
                kind(catalog.resolve(&headers(pairs))),
                *expected,
                "{pairs:?}"
            );
        }
        let long = "a".repeat(MAX_BETA_HEADER_LEN + 1);
        assert_eq!(
            kind(catalog.resolve(&headers(&[(BETA_HEADER, &long)]))),
            "invalid_request"
        );
        let empty = VersionCatalog {
            supported: vec![],
            ..VersionCatalog::default()
        };
        assert_eq!(kind(empty.resolve(&headers(&[]))), "no_supported_version");
    }
}
