//! The config file as a file: read only from a regular file and at most
//! [`MAX_CONFIG_BYTES`], and rewritten in place (DESIGN.md, "Answers that are
//! safe to read", Local files). Whether another user could have written it is
//! `trust.rs`'s question.

use std::path::Path;

/// The most read from a config file. A real one is a few KiB; a 1 GB line,
/// or a link to `/dev/zero`, would otherwise be read until memory runs out.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// Reads the config file at `path`: a regular file (a link to one is fine:
/// dotfiles), at most [`MAX_CONFIG_BYTES`], never blocking on a FIFO
/// (`safe_file::read_small`). Whether it can be trusted is
/// [`super::trust::writable_by_others`]'s question, asked by `LoadedConfig::load`.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    let bytes =
        crate::safe_file::read_small(path, MAX_CONFIG_BYTES, crate::safe_file::Links::Follow)
            .map_err(|error| {
                let hint = match error.kind() {
                    std::io::ErrorKind::InvalidInput => {
                        "; vantage reads its config from a file only"
                    }
                    std::io::ErrorKind::InvalidData => "; a config file is a few KiB",
                    _ => return error,
                };
                std::io::Error::new(error.kind(), format!("{error}{hint}"))
            })?;
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "it is not UTF-8 text"))
}

/// Rewrites the config file at `path` through `edit` (its text in, the new
/// text out), keeping the file's mode (it may hold keys). A missing file is
/// made (mode 0600) when `create` says so, from empty text. Through a
/// symlink (dotfiles) to the file itself, which stays the link's target; a
/// sibling file renamed over the old one, so never a half-written config.
/// `key` names what was edited in an error.
pub fn rewrite(
    path: &Path,
    key: &'static str,
    create: bool,
    edit: impl FnOnce(&str) -> Result<String, String>,
) -> Result<(), super::SettingsError> {
    use std::io::Write;

    use super::SettingsError;
    let path = &std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let read_error = |source| SettingsError::Read {
        path: path.to_path_buf(),
        source,
    };
    let write_error = |source| SettingsError::Write {
        path: path.to_path_buf(),
        source,
    };
    let (text, permissions) = match read_text(path) {
        Ok(text) => {
            let permissions = std::fs::metadata(path).map_err(read_error)?.permissions();
            (text, Some(permissions))
        }
        Err(error) if create && error.kind() == std::io::ErrorKind::NotFound => {
            (String::new(), None)
        }
        Err(error) => return Err(read_error(error)),
    };
    let updated = edit(&text).map_err(|error| SettingsError::Invalid {
        path: path.display().to_string(),
        key,
        reason: format!("cannot edit the file: {error}"),
    })?;
    // The sibling gets a random name and O_EXCL (`safe_file::Replacement`),
    // so a link planted beside the config is never written through.
    let replaced = (|| {
        let mut replacement = crate::safe_file::Replacement::new(path)?;
        #[cfg(unix)]
        if let Some(permissions) = &permissions {
            replacement.set_mode(std::os::unix::fs::PermissionsExt::mode(permissions))?;
        }
        #[cfg(not(unix))]
        let _ = permissions;
        replacement.write_all(updated.as_bytes())?;
        replacement.commit()
    })();
    replaced.map_err(write_error)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_regular_file_and_never_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("config.toml");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let error = read_text(&fifo).unwrap_err();
        assert!(
            error.to_string().contains("not a regular file (a FIFO)"),
            "{error}"
        );

        let zero = dir.path().join("zero.toml");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let error = read_text(&zero).unwrap_err();
        assert!(error.to_string().contains("(a device)"), "{error}");
    }

    #[test]
    fn reads_at_most_a_mebibyte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let line = format!("# {}\n", "x".repeat(MAX_CONFIG_BYTES as usize));
        std::fs::write(&path, line).unwrap();
        let error = read_text(&path).unwrap_err();
        assert!(error.to_string().contains("larger than 1 MiB"), "{error}");
        std::fs::write(&path, "base_url = \"https://x\"\n").unwrap();
        assert_eq!(read_text(&path).unwrap(), "base_url = \"https://x\"\n");
    }
}
