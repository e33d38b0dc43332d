//! The built-in pack: the Rego files of `assets/policies/`, shipped in the
//! binary. Each policy `NAME.rego` comes with its unit tests, `NAME_test.rego`
//! (`test_` rules), which vantage's test suite runs. A test checks that this
//! list and the folder hold the same files.

use super::engine::PolicySource;

macro_rules! pack {
    ($($name:literal),* $(,)?) => {
        /// Every policy of the pack: (file name, text).
        pub const POLICIES: &[(&str, &str)] = &[
            $((concat!($name, ".rego"), include_str!(concat!("../../assets/policies/", $name, ".rego")))),*
        ];
        /// The pack's unit tests: (file name, text), one file a policy.
        pub const TESTS: &[(&str, &str)] = &[
            $((concat!($name, "_test.rego"), include_str!(concat!("../../assets/policies/", $name, "_test.rego")))),*
        ];
    };
}

pack![
    "public_personal_data",
    "stale_scan",
    "departed_owner_edit",
    "review_current",
    "finding_public_security_exposure",
    "finding_public_pii_exposure",
    "finding_external_collaborator_access",
    "finding_inactive_owner",
];

/// What an origin of the pack looks like in messages: `builtin:NAME.rego`.
pub fn origin(file: &str) -> String {
    format!("builtin:{file}")
}

/// The pack's policies as sources.
pub fn sources() -> Vec<PolicySource> {
    POLICIES
        .iter()
        .map(|(file, text)| PolicySource {
            origin: origin(file),
            text: (*text).to_owned(),
        })
        .collect()
}
