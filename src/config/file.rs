//! The config file as a file: read only from a regular file and at most
//! [`MAX_CONFIG_BYTES`], and whether another user could have written it
//! (DESIGN.md, "Answers that are safe to read", Local files).

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The most read from a config file. A real one is a few KiB; a 1 GB line,
/// or a link to `/dev/zero`, would otherwise be read until memory runs out.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// Reads the config file at `path`. It must be a regular file (a link to one
/// is fine: dotfiles): a FIFO would block and a device may never end, so
/// both are refused after an `open` that cannot block (`O_NONBLOCK`) and an
/// `fstat` of what was opened. At most [`MAX_CONFIG_BYTES`] are read.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        nix::fcntl::OFlag::O_NONBLOCK.bits(),
    );
    let file = options.open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "it is not a regular file (a {}); vantage reads its config from a file only",
                kind_of(&metadata)
            ),
        ));
    }
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "it is larger than {} MiB; a config file is a few KiB",
                MAX_CONFIG_BYTES / (1024 * 1024)
            ),
        )
    };
    if metadata.len() > MAX_CONFIG_BYTES {
        return Err(too_large());
    }
    // The file may grow after the fstat: the read is bounded too.
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(too_large());
    }
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

fn kind_of(metadata: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = metadata.file_type();
        if kind.is_fifo() {
            return "FIFO";
        } else if kind.is_char_device() || kind.is_block_device() {
            return "device";
        } else if kind.is_socket() {
            return "socket";
        }
    }
    if metadata.is_dir() {
        "directory"
    } else {
        "special file"
    }
}

/// A config file, or the directory holding it, that a user other than its
/// reader (and root) can write: whatever it says may be someone else's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WritableByOthers {
    /// The file or directory at fault.
    pub path: PathBuf,
    pub mode: u32,
    /// Owned by another user (not us, not root), whatever its mode.
    pub foreign_owner: bool,
}

impl fmt::Display for WritableByOthers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.foreign_owner {
            write!(f, "{} is owned by another user", self.path.display())
        } else {
            write!(
                f,
                "{} is writable by its group or others (mode {:o}); run: chmod go-w {}",
                self.path.display(),
                self.mode & 0o7777,
                self.path.display()
            )
        }
    }
}

/// Whether another user could have written the config at `path`: the file
/// (through a link: its target), the directory that holds it, and when it is
/// a link, the directory of the file it points to. As ssh does for
/// `~/.ssh/config` (and git for a repository another user owns), a group- or
/// world-writable one, or one owned by someone but us and root, counts.
#[cfg(unix)]
pub fn writable_by_others(path: &Path) -> Option<WritableByOthers> {
    use std::os::unix::fs::MetadataExt;
    let me = nix::unistd::getuid().as_raw();
    let check = |path: &Path| {
        let metadata = std::fs::metadata(path).ok()?;
        let foreign_owner = metadata.uid() != me && metadata.uid() != 0;
        (foreign_owner || metadata.mode() & 0o022 != 0).then(|| WritableByOthers {
            path: path.to_path_buf(),
            mode: metadata.mode(),
            foreign_owner,
        })
    };
    let parent = |path: &Path| {
        path.parent()
            .filter(|dir| !dir.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    };
    let mut places = vec![path.to_path_buf(), parent(path)];
    if let Ok(real) = std::fs::canonicalize(path) {
        places.push(parent(&real));
    }
    places.iter().find_map(|place| check(place))
}

#[cfg(not(unix))]
pub fn writable_by_others(_path: &Path) -> Option<WritableByOthers> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

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

    #[test]
    fn a_file_or_directory_others_can_write_is_named_with_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "").unwrap();
        chmod(&path, 0o600);
        assert_eq!(writable_by_others(&path), None);
        chmod(&path, 0o644);
        assert_eq!(writable_by_others(&path), None, "readable is not writable");

        chmod(&path, 0o666);
        let found = writable_by_others(&path).unwrap();
        assert_eq!(
            (found.path.as_path(), found.mode & 0o777),
            (path.as_path(), 0o666)
        );
        assert!(found.to_string().contains("mode 666"), "{found}");

        chmod(&path, 0o600);
        chmod(dir.path(), 0o777);
        let found = writable_by_others(&path).unwrap();
        assert_eq!(found.path, dir.path());
        chmod(dir.path(), 0o700);

        // A link's target directory counts too.
        let elsewhere = tempfile::tempdir().unwrap();
        let real = elsewhere.path().join("vantage.toml");
        std::fs::write(&real, "").unwrap();
        chmod(&real, 0o600);
        chmod(elsewhere.path(), 0o770);
        let link = dir.path().join("linked.toml");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let found = writable_by_others(&link).unwrap();
        assert_eq!(found.path, std::fs::canonicalize(elsewhere.path()).unwrap());
    }
}
