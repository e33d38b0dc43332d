//! Whose words a local file holds (DESIGN.md, "Answers that are safe to
//! read", Local files). One rule, ssh's for `~/.ssh/config`: a file that a
//! user other than its reader (and root) could have written, by its mode, its
//! directory's mode, the directory of the file a link points to, or its
//! owner, is not used at all. It covers every file vantage reads a secret
//! from, or a place to send one: the config file (its commands, its keys,
//! `base_url`, `history_url`, `[history] path`: all of it), and the password
//! file (`~/.pgpass`), which must also be readable by its owner alone, as
//! libpq requires.

use std::fmt;
use std::path::{Path, PathBuf};

/// The most read from a password file: a few lines in practice.
const MAX_SECRET_FILE_BYTES: u64 = 1024 * 1024;

/// A file, or a directory on its way, that another user could have written:
/// whatever it says may be someone else's words. Shown, it names the place,
/// its mode or owner, and the command that fixes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WritableByOthers {
    /// The file or directory at fault.
    pub path: PathBuf,
    pub mode: u32,
    /// Owned by another user (not us, not root), whatever its mode.
    pub foreign_owner: bool,
    /// Its owner's uid.
    pub owner: u32,
}

impl fmt::Display for WritableByOthers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        if self.foreign_owner {
            write!(
                f,
                "{path} is owned by another user (uid {}); run: chown {} {path} (or use a file of your own)",
                self.owner,
                my_name()
            )
        } else {
            write!(
                f,
                "{path} is writable by its group or others (mode {:o}); run: chmod go-w {path}",
                self.mode & 0o7777,
            )
        }
    }
}

/// The current user's login name, else their uid: what `chown` takes.
fn my_name() -> String {
    #[cfg(unix)]
    {
        let uid = nix::unistd::getuid();
        nix::unistd::User::from_uid(uid)
            .ok()
            .flatten()
            .map_or_else(|| uid.as_raw().to_string(), |user| user.name)
    }
    #[cfg(not(unix))]
    String::from("$USER")
}

/// Whether another user could have written the file at `path`: the file
/// (through a link: its target), the directory that holds it, and when it is
/// a link, the directory of the file it points to. A group- or
/// world-writable one counts, and one owned by someone but us and root. A
/// sticky directory (`/tmp`) does not: there, nobody else can rename or
/// remove a file of ours, and a file planted by another user has their owner.
#[cfg(unix)]
pub fn writable_by_others(path: &Path) -> Option<WritableByOthers> {
    use std::os::unix::fs::MetadataExt;
    let me = nix::unistd::getuid().as_raw();
    let check = |place: &Path, is_dir: bool| {
        let metadata = std::fs::metadata(place).ok()?;
        let foreign_owner = metadata.uid() != me && metadata.uid() != 0;
        let sticky = is_dir && metadata.mode() & 0o1000 != 0;
        let writable = metadata.mode() & 0o022 != 0 && !sticky;
        (foreign_owner || writable).then(|| WritableByOthers {
            path: place.to_path_buf(),
            mode: metadata.mode(),
            foreign_owner,
            owner: metadata.uid(),
        })
    };
    let parent = |path: &Path| {
        path.parent()
            .filter(|dir| !dir.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    };
    let mut places = vec![(path.to_path_buf(), false), (parent(path), true)];
    if let Ok(real) = std::fs::canonicalize(path) {
        places.push((parent(&real), true));
    }
    places
        .iter()
        .find_map(|(place, is_dir)| check(place, *is_dir))
}

#[cfg(not(unix))]
pub fn writable_by_others(_path: &Path) -> Option<WritableByOthers> {
    None
}

/// The mode of the file at `path` when its group or others may read it.
#[cfg(unix)]
pub fn readable_by_others(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).ok()?.permissions().mode();
    (mode & 0o077 != 0).then_some(mode)
}

#[cfg(not(unix))]
pub fn readable_by_others(_path: &Path) -> Option<u32> {
    None
}

/// Why a file holding secrets (a password file) was not read.
#[derive(Debug, thiserror::Error)]
pub enum SecretFileError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Untrusted(WritableByOthers),
    #[error(
        "{path} is readable by its group or others (mode {:o}); run: chmod 600 {path}",
        mode & 0o7777,
        path = path.display()
    )]
    Readable { path: PathBuf, mode: u32 },
}

impl SecretFileError {
    /// The file is not there: nothing to say about it.
    pub fn is_missing(&self) -> bool {
        matches!(self, Self::Read { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

/// Reads a file that holds secrets (`~/.pgpass`): only when no other user
/// could have written it ([`writable_by_others`]) nor can read it, from a
/// regular file (a link to one is fine), never blocking, at most 1 MiB.
pub fn read_secret_file(path: &Path) -> Result<String, SecretFileError> {
    let read = |source| SecretFileError::Read {
        path: path.to_path_buf(),
        source,
    };
    let bytes =
        crate::safe_file::read_small(path, MAX_SECRET_FILE_BYTES, crate::safe_file::Links::Follow)
            .map_err(read)?;
    if let Some(place) = writable_by_others(path) {
        return Err(SecretFileError::Untrusted(place));
    }
    if let Some(mode) = readable_by_others(path) {
        return Err(SecretFileError::Readable {
            path: path.to_path_buf(),
            mode,
        });
    }
    String::from_utf8(bytes).map_err(|_| {
        read(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "it is not UTF-8 text",
        ))
    })
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_file_or_directory_others_can_write_is_named_with_its_mode_and_fix() {
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
        let shown = found.to_string();
        assert!(shown.contains("mode 666"), "{shown}");
        assert!(
            shown.contains(&format!("run: chmod go-w {}", path.display())),
            "{shown}"
        );

        chmod(&path, 0o600);
        chmod(dir.path(), 0o777);
        let found = writable_by_others(&path).unwrap();
        assert_eq!(found.path, dir.path());
        // Sticky, as /tmp is: nobody else can replace a file of ours there.
        chmod(dir.path(), 0o1777);
        assert_eq!(writable_by_others(&path), None);
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

    #[test]
    fn a_file_of_another_user_is_named_with_the_chown_that_fixes_it() {
        let found = WritableByOthers {
            path: PathBuf::from("/home/ada/.config/vantage/config.toml"),
            mode: 0o100600,
            foreign_owner: true,
            owner: 1234,
        };
        let shown = found.to_string();
        assert!(
            shown.starts_with(
                "/home/ada/.config/vantage/config.toml is owned by another user (uid 1234); run: chown "
            ),
            "{shown}"
        );
        // A file root owns (/etc) is trusted; one of ours too.
        assert_eq!(writable_by_others(Path::new("/etc/passwd")), None);
    }

    #[test]
    fn a_secret_file_is_read_only_when_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pgpass");
        std::fs::write(&path, "*:*:*:*:secret\n").unwrap();
        chmod(&path, 0o600);
        assert_eq!(read_secret_file(&path).unwrap(), "*:*:*:*:secret\n");
        chmod(&path, 0o640);
        let error = read_secret_file(&path).unwrap_err().to_string();
        assert!(error.contains("mode 640"), "{error}");
        assert!(error.contains("run: chmod 600"), "{error}");
        chmod(&path, 0o600);
        chmod(dir.path(), 0o777);
        let error = read_secret_file(&path).unwrap_err();
        chmod(dir.path(), 0o700);
        assert!(matches!(error, SecretFileError::Untrusted(_)), "{error}");
        assert!(
            read_secret_file(&dir.path().join("missing"))
                .unwrap_err()
                .is_missing()
        );
    }
}
