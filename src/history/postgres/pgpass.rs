//! The password file, as libpq reads it: `PGPASSFILE`, else `~/.pgpass`,
//! `host:port:database:user:password` lines with `*` and `\:` escapes; a
//! file that group or others can read is ignored, and the error says so.

use std::path::{Path, PathBuf};

/// `PGPASSFILE`, else `~/.pgpass`.
pub(super) fn password_file() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PGPASSFILE") {
        return Some(PathBuf::from(path));
    }
    std::env::var_os("HOME").map(|home| Path::new(&home).join(".pgpass"))
}

/// The password of the first line of the password file that matches
/// `host:port:database:user` (`*` matches anything, `\:` and `\\` escape).
/// A file others can read is ignored, as libpq ignores it.
pub fn pgpass_lookup(file: &Path, wanted: [&str; 4], notes: &mut Vec<String>) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(file).ok()?.permissions().mode();
        if mode & 0o077 != 0 {
            notes.push(format!(
                "the password file {} was ignored: group or others can read it (chmod 600 it)",
                file.display()
            ));
            return None;
        }
    }
    let text = std::fs::read_to_string(file).ok()?;
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
}
