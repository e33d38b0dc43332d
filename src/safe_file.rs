//! Files vantage writes, made one way (DESIGN.md, "Answers that are safe to
//! read", Local files): never through a symlink vantage did not create, files
//! 0600 and directories vantage makes 0700. The history file, exports, the
//! log, the watch list, the palette's history and config rewrites all come
//! here. A local user who can plant a link at one of these places must not get
//! vantage to create, truncate or chmod the file it points to.
//!
//! The small local files vantage reads (the config, the palette's history,
//! the watch list, the password file) are read one way too: [`read_small`].

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
    open_private_append_checked(path, |_| Ok(()))
}

/// [`open_private_append`], an existing file first shown to `check` (read
/// from its start): one it refuses keeps its mode and its bytes. The history
/// file says there that it is a history, so `[history] path` pointed at
/// another file of the user's never gets that file's mode changed.
pub fn open_private_append_checked(
    path: &Path,
    check: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<File> {
    create_parent(path)?;
    let mut create = std::fs::OpenOptions::new();
    create.append(true).create_new(true);
    no_follow(&mut create);
    match create.open(path) {
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
        opened => return opened.map_err(|error| refused_link(path, error)),
    }
    let mut existing = std::fs::OpenOptions::new();
    existing.read(true).append(true);
    no_follow(&mut existing);
    let mut file = existing
        .open(path)
        .map_err(|error| refused_link(path, error))?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(io::Error::other(format!(
            "{} is not a regular file; refusing to write to it",
            path.display()
        )));
    }
    check(&mut file)?;
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

/// Whether [`read_small`] reads through a symbolic link at `path`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// The config (dotfiles keep it as a link); whether its target can be
    /// trusted is `config::trust`'s question.
    Follow,
    /// Files vantage writes itself (the palette's history, the watch list):
    /// a link there was planted, never made by vantage.
    Refuse,
}

/// Reads the small local file at `path`, at most `max_bytes` of it. It must
/// be a regular file: it is opened without blocking (`O_NONBLOCK`: a FIFO
/// would wait for a writer forever) and checked with `fstat` on what was
/// opened (a link to `/dev/zero` never ends), and the read itself is bounded
/// (the file may grow after the check). Errors say what the file is instead.
pub fn read_small(path: &Path, max_bytes: u64, links: Links) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = nix::fcntl::OFlag::O_NONBLOCK;
        if links == Links::Refuse {
            flags |= nix::fcntl::OFlag::O_NOFOLLOW;
        }
        options.custom_flags(flags.bits());
    }
    let file = options.open(path).map_err(|error| match links {
        Links::Refuse => refused_link(path, error),
        Links::Follow => error,
    })?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is not a regular file (a {})", kind_of(&metadata)),
        ));
    }
    let too_large = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("it is larger than {}", describe_bytes(max_bytes)),
        )
    };
    if metadata.len() > max_bytes {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(max_bytes + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

/// `1 MiB`, `256 KiB`, `100 bytes`.
fn describe_bytes(bytes: u64) -> String {
    const KIB: u64 = 1024;
    if bytes >= KIB * KIB && bytes.is_multiple_of(KIB * KIB) {
        format!("{} MiB", bytes / (KIB * KIB))
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// What a file that is not a regular one is, for an error.
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

#[cfg(unix)]
fn no_follow(options: &mut std::fs::OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    options
        .mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits());
}

#[cfg(not(unix))]
fn no_follow(_options: &mut std::fs::OpenOptions) {}

/// A symbolic link found where vantage writes: refused, saying why.
pub fn link_refused(path: &Path) -> io::Error {
    io::Error::other(format!(
        "{} is a symbolic link; vantage does not write through a link it did not create \
         (remove it, or point the setting at the real file)",
        path.display()
    ))
}

/// `ELOOP` from `O_NOFOLLOW` says "too many levels of symbolic links"; say
/// what happened instead.
fn refused_link(path: &Path, error: io::Error) -> io::Error {
    #[cfg(unix)]
    if error.raw_os_error() == Some(nix::errno::Errno::ELOOP as i32) {
        return link_refused(path);
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
    #[test]
    fn small_reads_refuse_fifos_devices_links_and_big_files_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("palette_history");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        for links in [Links::Follow, Links::Refuse] {
            let error = read_small(&fifo, 1024, links).unwrap_err();
            assert!(
                error.to_string().contains("not a regular file (a FIFO)"),
                "{error}"
            );
        }
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let error = read_small(&zero, 1024, Links::Follow).unwrap_err();
        assert!(error.to_string().contains("(a device)"), "{error}");
        let error = read_small(&zero, 1024, Links::Refuse).unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");

        let big = dir.path().join("watchlist.json");
        std::fs::write(&big, vec![b'x'; 2048]).unwrap();
        let error = read_small(&big, 1024, Links::Refuse).unwrap_err();
        assert!(error.to_string().contains("larger than 1 KiB"), "{error}");
        assert_eq!(read_small(&big, 2048, Links::Refuse).unwrap().len(), 2048);
    }
}
