//! Files vantage writes, made one way (DESIGN.md, "Answers that are safe to
//! read", Local files): never through a symlink vantage did not create, files
//! 0600 and directories vantage makes 0700. The history file, exports, the
//! log, the watch list, the palette's history and config rewrites all come
//! here. A local user who can plant a link at one of these places must not get
//! vantage to create, truncate or chmod the file it points to.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// Makes `dir` and its missing parents, each one vantage makes 0700; a
/// directory already there keeps its mode.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    if dir.as_os_str().is_empty() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

fn create_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(dir) => create_private_dir(dir),
        None => Ok(()),
    }
}

/// Opens `path` to append, creating it 0600 when missing: the new file with
/// `O_CREAT|O_EXCL|O_NOFOLLOW`, an existing one with `O_NOFOLLOW`, so a symlink
/// at its place is refused either way. An existing file must be a regular file
/// and gets mode 0600 through its descriptor (`fchmod`, never `chmod` by name).
/// For the history file (before SQLite opens it) and the log.
pub fn open_private_append(path: &Path) -> io::Result<File> {
    create_parent(path)?;
    let mut create = std::fs::OpenOptions::new();
    create.append(true).create_new(true);
    no_follow(&mut create);
    match create.open(path) {
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
        opened => return opened.map_err(|error| refused_link(path, error)),
    }
    let mut existing = std::fs::OpenOptions::new();
    existing.append(true);
    no_follow(&mut existing);
    let file = existing
        .open(path)
        .map_err(|error| refused_link(path, error))?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(io::Error::other(format!(
            "{} is not a regular file; refusing to write to it",
            path.display()
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if metadata.permissions().mode() & 0o777 != 0o600 {
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
    }
    Ok(file)
}

/// A file written whole beside `target`, then renamed over it: readers see the
/// old file or the new one, never half of one. The temporary file is made with
/// `O_EXCL` under a random name (the `tempfile` crate), mode 0600, so nothing
/// planted beside the target is followed; the rename replaces a link at the
/// target's place instead of writing through it.
pub struct Replacement {
    temp: NamedTempFile,
    target: PathBuf,
}

impl Replacement {
    /// Starts the replacement of `target`, making its directory (0700) if needed.
    pub fn new(target: &Path) -> io::Result<Self> {
        create_parent(target)?;
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        Ok(Self {
            temp: NamedTempFile::new_in(dir)?,
            target: target.to_path_buf(),
        })
    }

    /// Gives the new file `mode` (e.g. the old config's) instead of 0600.
    #[cfg(unix)]
    pub fn set_mode(&self, mode: u32) -> io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        self.temp
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode & 0o7777))
    }

    /// Flushes the new file to disk and renames it over the target. Dropped
    /// without this, the temporary file is removed and the target untouched.
    pub fn commit(self) -> io::Result<()> {
        self.temp.as_file().sync_all()?;
        self.temp
            .persist(&self.target)
            .map(drop)
            .map_err(|error| error.error)
    }
}

impl Write for Replacement {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.temp.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.temp.flush()
    }
}

/// Replaces `target` with `bytes` (see [`Replacement`]): mode 0600.
pub fn replace(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut replacement = Replacement::new(target)?;
    replacement.write_all(bytes)?;
    replacement.commit()
}

#[cfg(unix)]
fn no_follow(options: &mut std::fs::OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    options
        .mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits());
}

#[cfg(not(unix))]
fn no_follow(_options: &mut std::fs::OpenOptions) {}

/// `ELOOP` from `O_NOFOLLOW` says "too many levels of symbolic links"; say
/// what happened instead.
fn refused_link(path: &Path, error: io::Error) -> io::Error {
    #[cfg(unix)]
    if error.raw_os_error() == Some(nix::errno::Errno::ELOOP as i32) {
        return io::Error::other(format!(
            "{} is a symbolic link; vantage does not write through a link it did not create \
             (remove it, or point the setting at the real file)",
            path.display()
        ));
    }
    let _ = path;
    error
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    /// A file another user's link could point at: its bytes and mode.
    fn precious(dir: &Path) -> PathBuf {
        let path = dir.join("precious.txt");
        std::fs::write(&path, "keep me\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        path
    }

    fn untouched(path: &Path) {
        assert_eq!(std::fs::read_to_string(path).unwrap(), "keep me\n");
        assert_eq!(mode(path), 0o644);
    }

    #[test]
    fn appends_refuse_a_planted_link_and_leave_its_target_alone() {
        let dir = tempfile::tempdir().unwrap();
        let target = precious(dir.path());
        let link = dir.path().join("history.sqlite3");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let error = open_private_append(&link).unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        untouched(&target);

        // A link to a missing path: nothing is created at its end.
        let dangling = dir.path().join("vantage.log");
        let missing = dir.path().join("missing");
        std::os::unix::fs::symlink(&missing, &dangling).unwrap();
        assert!(open_private_append(&dangling).is_err());
        assert!(!missing.exists());
    }

    #[test]
    fn appends_create_0600_in_a_0700_dir_and_tighten_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new/dir/vantage.log");
        open_private_append(&path).unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("new")), 0o700);
        assert_eq!(mode(&dir.path().join("new/dir")), 0o700);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        open_private_append(&path).unwrap();
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn a_replacement_replaces_a_link_instead_of_writing_through_it() {
        let dir = tempfile::tempdir().unwrap();
        let target = precious(dir.path());
        let link = dir.path().join("watchlist.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        replace(&link, b"[]\n").unwrap();
        untouched(&target);
        assert!(!std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "[]\n");
        assert_eq!(mode(&link), 0o600);
        // Nothing but the two files is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn an_uncommitted_replacement_leaves_the_target_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let target = precious(dir.path());
        let mut replacement = Replacement::new(&target).unwrap();
        replacement.write_all(b"half").unwrap();
        drop(replacement);
        untouched(&target);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
