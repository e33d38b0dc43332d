//! Policy files: a `.rego` file, or every `.rego` file of a folder (its
//! `_test.rego` files are tests, read apart), in name order. The config
//! dir's `policies/` folder is read only when nobody else could have written
//! it (the config file's own trust rule, `config/trust.rs`).

use std::path::{Path, PathBuf};

use super::PolicyError;
use super::engine::PolicySource;
use super::pack;

/// The most a policy file may hold.
const MAX_POLICY_BYTES: u64 = 1024 * 1024;

fn read_error(path: &Path, reason: impl std::fmt::Display) -> PolicyError {
    PolicyError::Read {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}

fn is_test(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.ends_with("_test.rego"))
}

fn read_one(path: &Path, trust: Trust) -> Result<PolicySource, PolicyError> {
    if trust == Trust::OwnOnly
        && let Some(writable) = crate::config::trust::writable_by_others(path)
    {
        return Err(read_error(path, format!("refused: {writable}")));
    }
    let bytes =
        crate::safe_file::read_small(path, MAX_POLICY_BYTES, crate::safe_file::Links::Follow)
            .map_err(|error| read_error(path, error))?;
    let text = String::from_utf8(bytes).map_err(|_| read_error(path, "not UTF-8 text"))?;
    Ok(PolicySource {
        origin: path.display().to_string(),
        text,
    })
}

/// Whether a file another user could have written may be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// A path named on the command line: the user chose it.
    Named,
    /// The config dir's folder, read without being named: only files nobody
    /// else could have written, as the config file itself.
    OwnOnly,
}

/// The `.rego` files of `path` (a file, or a folder's files in name order):
/// (policies, tests).
pub fn read_path(
    path: &Path,
    trust: Trust,
) -> Result<(Vec<PolicySource>, Vec<PolicySource>), PolicyError> {
    let metadata = std::fs::metadata(path).map_err(|error| read_error(path, error))?;
    if !metadata.is_dir() {
        let source = read_one(path, trust)?;
        return Ok(if is_test(path) {
            (Vec::new(), vec![source])
        } else {
            (vec![source], Vec::new())
        });
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|error| read_error(path, error))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|file| file.extension().is_some_and(|ext| ext == "rego") && file.is_file())
        .collect();
    files.sort();
    let mut policies = Vec::new();
    let mut tests = Vec::new();
    for file in files {
        let source = read_one(&file, trust)?;
        if is_test(&file) {
            tests.push(source);
        } else {
            policies.push(source);
        }
    }
    Ok((policies, tests))
}

/// The config dir's `policies/` folder beside `config_file`, when it exists;
/// refused when another user could have written it.
pub fn config_dir_policies(config_file: &Path) -> Result<Option<PathBuf>, PolicyError> {
    let Some(dir) = config_file.parent().map(|dir| dir.join("policies")) else {
        return Ok(None);
    };
    if !dir.is_dir() {
        return Ok(None);
    }
    if let Some(writable) = crate::config::trust::writable_by_others(&dir) {
        return Err(read_error(
            &dir,
            format!("refused: {writable} (fix with chmod go-w, or pass --policy)"),
        ));
    }
    Ok(Some(dir))
}

/// The policies and tests every evaluation loads (`vantage check`, the
/// exporter): those `named` (`builtin` names the pack), else the built-in
/// pack and the `policies/` folder beside `config_file` (when nobody else
/// could have written it). (policies, tests).
pub fn load(
    named: &[PathBuf],
    config_file: Option<&Path>,
) -> Result<(Vec<PolicySource>, Vec<PolicySource>), PolicyError> {
    let mut policies = Vec::new();
    let mut tests = Vec::new();
    let builtin = |policies: &mut Vec<PolicySource>, tests: &mut Vec<PolicySource>| {
        policies.extend(pack::sources());
        tests.extend(pack::TESTS.iter().map(|(file, text)| PolicySource {
            origin: pack::origin(file),
            text: (*text).to_owned(),
        }));
    };
    if named.is_empty() {
        builtin(&mut policies, &mut tests);
        if let Some(config) = config_file
            && let Some(dir) = config_dir_policies(config)?
        {
            let (more, more_tests) = read_path(&dir, Trust::OwnOnly)?;
            policies.extend(more);
            tests.extend(more_tests);
        }
        return Ok((policies, tests));
    }
    for path in named {
        if path == Path::new("builtin") {
            builtin(&mut policies, &mut tests);
            continue;
        }
        let (more, more_tests) = read_path(path, Trust::Named)?;
        if more.is_empty() && more_tests.is_empty() {
            return Err(PolicyError::NoPolicyFile {
                path: path.display().to_string(),
            });
        }
        policies.extend(more);
        tests.extend(more_tests);
    }
    Ok((policies, tests))
}
