//! What this binary is: version, commit, build date, target, rustc and the glibc it
//! is built for, as `build.rs` found them. `vantage --version` prints these.

/// The crate's version (Cargo.toml).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The commit built (12 hex digits), or `unknown` outside a git checkout.
pub const COMMIT: &str = env!("VANTAGE_GIT_COMMIT");
/// `YYYY-MM-DD` (UTC): `SOURCE_DATE_EPOCH`'s day when set, else the build's.
pub const BUILD_DATE: &str = env!("VANTAGE_BUILD_DATE");
/// The Rust target triple, e.g. `x86_64-unknown-linux-gnu`.
pub const TARGET: &str = env!("VANTAGE_TARGET");
/// The compiler's version, e.g. `1.91.0`.
pub const RUSTC: &str = env!("VANTAGE_RUSTC");
/// The newest glibc the binary may need: scripts/dist's target version, or the
/// build host's for a plain cargo build (`none` off glibc).
pub const GLIBC: &str = env!("VANTAGE_GLIBC");

/// `vantage 0.1.0 (commit 1a2b3c4d5e6f, built 2026-11-26)`, as `git --version`
/// and `rustc -V` put the commit and date on one line.
pub fn version_line() -> String {
    format!("vantage {VERSION} (commit {COMMIT}, built {BUILD_DATE})")
}

/// The version line, then one `key: value` line per build fact, as
/// `rustc -Vv` does.
pub fn version_verbose() -> String {
    format!(
        "{}\nversion: {VERSION}\ncommit: {COMMIT}\nbuild-date: {BUILD_DATE}\ntarget: {TARGET}\nrustc: {RUSTC}\nglibc: {GLIBC}\n",
        version_line()
    )
}
