//! `vantage_exporter_build_info`: what serves these metrics, as every
//! exporter says it (`node_exporter_build_info`).

use super::families::Families;
use crate::build_info::{COMMIT, GLIBC, RUSTC, TARGET, VERSION};

/// `vantage_exporter_build_info{version,commit,target,rustc,glibc} 1`: the
/// facts `vantage --version --verbose` prints, from `build.rs`.
pub(super) fn add_build_info(families: &mut Families) {
    families.info(
        "exporter_build",
        "The version, git commit, target, compiler and glibc of the vantage that serves these metrics",
        vec![
            ("version", VERSION.to_owned()),
            ("commit", COMMIT.to_owned()),
            ("target", TARGET.to_owned()),
            ("rustc", RUSTC.to_owned()),
            ("glibc", GLIBC.to_owned()),
        ],
    );
}
