//! The password file, as libpq reads it: `PGPASSFILE`, else `~/.pgpass`,
//! `host:port:database:user:password` lines with `*` and `\:` escapes; a
//! file that group or others can read, or that another user could have
//! written, is ignored, and the error says so.

use std::path::{Path, PathBuf};

use crate::config::trust::read_secret_file;

/// `PGPASSFILE`, else `~/.pgpass`.
pub(super) fn password_file() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PGPASSFILE") {
        return Some(PathBuf::from(path));
    }
    std::env::var_os("HOME").map(|home| Path::new(&home).join(".pgpass"))
}

/// The password of the first line of the password file that matches
/// `host:port:database:user` (`*` matches anything, `\:` and `\\` escape).
/// A file others can read is ignored, as libpq ignores it, and so is one
/// another user could have written (`config/trust.rs`).
pub fn pgpass_lookup(file: &Path, wanted: [&str; 4], notes: &mut Vec<String>) -> Option<String> {
    // The rule for every file vantage reads a secret from (config/trust.rs):
    // owner-only, never one another user could have written, bounded.
    let text = match read_secret_file(file) {
        Ok(text) => text,
        Err(error) if error.is_missing() => return None,
        Err(error) => {
            notes.push(format!("the password file was ignored: {error}"));
            return None;
        }
    };
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#') && !line.trim().is_empty())
        .find_map(|line| {
            let fields = pgpass_fields(line);
            let [host, port, db, user, password] = fields.as_slice() else {
                return None;
            };
            let matches = [host, port, db, user]
                .iter()
                .zip(wanted)
                .all(|(field, want)| field.as_str() == "*" || field.as_str() == want);
            matches.then(|| password.clone())
        })
}

/// A password file line's fields, its escapes undone.
fn pgpass_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next()
                    && let Some(field) = fields.last_mut()
                {
                    field.push(next);
                }
            }
            // The password (the fifth field) may hold colons of its own.
            ':' if fields.len() < 5 => fields.push(String::new()),
            other => {
                if let Some(field) = fields.last_mut() {
                    field.push(other);
                }
            }
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_file_is_read_as_libpq_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pgpass");
        std::fs::write(
            &file,
            "# comment\nother:5432:*:*:no\ndb\\:1:*:vantage:ada:pa\\:ss:word\n*:*:*:*:fallback\n",
        )
        .unwrap();
        let mut notes = Vec::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(
                pgpass_lookup(&file, ["db:1", "5432", "vantage", "ada"], &mut notes),
                None
            );
            assert!(notes[0].contains("chmod 600"), "{notes:?}");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        assert_eq!(
            pgpass_lookup(&file, ["db:1", "5432", "vantage", "ada"], &mut notes).as_deref(),
            Some("pa:ss:word")
        );
        assert_eq!(
            pgpass_lookup(&file, ["elsewhere", "1", "x", "y"], &mut notes).as_deref(),
            Some("fallback")
        );
    }

    /// A password file another user could have replaced (its directory
    /// writable by others) is not used, as the config file is not: the
    /// password would be theirs to choose (`config/trust.rs`).
    #[cfg(unix)]
    #[test]
    fn a_password_file_in_a_directory_others_can_write_is_not_used() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        let file = shared.join("pgpass");
        std::fs::write(&file, "*:*:*:*:planted\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        let mut notes = Vec::new();
        assert_eq!(
            pgpass_lookup(&file, ["db", "5432", "vantage", "ada"], &mut notes),
            None
        );
        assert!(
            notes.len() == 1 && notes[0].contains("chmod go-w") && notes[0].contains("shared"),
            "{notes:?}"
        );
    }
}
