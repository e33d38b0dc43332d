//! The `[history]` section of the config file. Every key is optional:
//!
//! ```toml
//! [history]
//! path = "/somewhere/history.sqlite3"  # default: history.sqlite3 in the data dir
//! retention_days = 90                  # snapshots older than this are pruned
//! retention_snapshots = 200            # per workspace, the newest kept
//!                                      # (both: VANTAGE_RETENTION_DAYS, _SNAPSHOTS over the file)
//! detail_requests = 400                # at most this many member/project reads per snapshot
//! snapshot_max_age_hours = 24          # the dashboard takes a snapshot when the newest is older
//! snapshot_max_age = "off"             # or "12h", "30m", "2d"; "off": no background snapshot
//! rate_window_secs = 60                # the rate limit's window, for the time estimate
//! reviewer = "ada"                     # who marks projects reviewed (default: the user name)
//! statement_timeout_secs = 30          # shared database: one statement at most this long (0: no limit)
//! lock_timeout_secs = 10               # shared database: one wait for a lock at most this long (0: no limit)
//! ```

use std::path::PathBuf;

use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HistoryConfig {
    pub path: Option<PathBuf>,
    pub retention_days: u32,
    pub retention_snapshots: u32,
    pub detail_requests: u32,
    pub snapshot_max_age_hours: u32,
    /// `"off"`, or a duration (`12h`, `30m`, `2d`); takes precedence over
    /// `snapshot_max_age_hours`.
    pub snapshot_max_age: Option<String>,
    pub rate_window_secs: u64,
    /// Who marks projects reviewed; `None`: the user name.
    pub reviewer: Option<String>,
    /// The shared database: how long one statement may run (0: no limit).
    pub statement_timeout_secs: u64,
    /// The shared database: how long one wait for a lock may last (0: no
    /// limit); a teammate's `LOCK TABLE` then ends a command (exit 7).
    pub lock_timeout_secs: u64,
    /// Where the history is, when not the file: `--history`, else
    /// `VANTAGE_HISTORY_URL`, else the context's `history_url`.
    #[serde(skip)]
    pub url: Option<String>,
    /// The context's `history_password_command`.
    #[serde(skip)]
    pub password_command: Option<String>,
}

/// The environment variable that names the history when `--history` does not.
pub const HISTORY_URL_ENV: &str = "VANTAGE_HISTORY_URL";
/// `retention_days` from the environment (over the file's; `snapshot prune
/// --older-than-days` over both), so a unit or a CronJob sets it without a file.
pub const RETENTION_DAYS_ENV: &str = "VANTAGE_RETENTION_DAYS";
/// `retention_snapshots` from the environment (`snapshot prune --keep` over it).
pub const RETENTION_SNAPSHOTS_ENV: &str = "VANTAGE_RETENTION_SNAPSHOTS";

impl Default for HistoryConfig {
    fn default() -> Self {
        Self {
            path: None,
            retention_days: 90,
            retention_snapshots: 200,
            // 800 members named within three snapshots (the names carry over,
            // a quarter of the reads goes to audience targets).
            detail_requests: 400,
            snapshot_max_age_hours: 24,
            snapshot_max_age: None,
            rate_window_secs: 60,
            reviewer: None,
            statement_timeout_secs: 30,
            lock_timeout_secs: 10,
            url: None,
            password_command: None,
        }
    }
}

/// `history.sqlite3` in the data dir.
pub fn default_path() -> PathBuf {
    crate::paths::data_dir().join("history.sqlite3")
}

impl HistoryConfig {
    /// Reads `[history]` from the config file's other sections; absent is the
    /// defaults.
    pub fn from_sections(sections: &toml::Table) -> Result<Self, String> {
        let Some(section) = sections.get("history") else {
            return Ok(Self::default());
        };
        let config: Self = section
            .clone()
            .try_into()
            .map_err(|error: toml::de::Error| format!("[history]: {}", error.message().trim()))?;
        if config.retention_snapshots == 0 {
            return Err("[history]: retention_snapshots must be at least 1".into());
        }
        if config.rate_window_secs == 0 {
            return Err("[history]: rate_window_secs must be at least 1".into());
        }
        if let Some(raw) = &config.snapshot_max_age {
            parse_max_age(raw)
                .map_err(|reason| format!("[history]: snapshot_max_age: {reason}"))?;
        }
        Ok(config)
    }

    /// `[history]` for a context: where the history is comes from `flag`
    /// (`--history`), else `VANTAGE_HISTORY_URL`, else the context's
    /// `history_url`; absent from all three, the file.
    pub fn for_context(
        sections: &toml::Table,
        context: &crate::config::ContextConfig,
        flag: Option<&str>,
    ) -> Result<Self, String> {
        let mut config = Self::from_sections(sections)?;
        let given = |value: Option<String>| value.filter(|value| !value.trim().is_empty());
        config.url = given(flag.map(str::to_owned))
            .or_else(|| given(std::env::var(HISTORY_URL_ENV).ok()))
            .or_else(|| given(context.history_url.clone()));
        config.password_command = context.history_password_command.clone();
        config.retention_from_environment(|name| std::env::var(name).ok())?;
        Ok(config)
    }

    /// `retention_days` and `retention_snapshots` from their variables, when
    /// set (`read` reads one); a value that is not a count is refused, named.
    fn retention_from_environment(
        &mut self,
        read: impl Fn(&str) -> Option<String>,
    ) -> Result<(), String> {
        let count = |name: &str, least: u32, unit: &str| -> Result<Option<u32>, String> {
            let Some(raw) = read(name).filter(|raw| !raw.trim().is_empty()) else {
                return Ok(None);
            };
            match raw.trim().parse::<u32>() {
                Ok(value) if value >= least => Ok(Some(value)),
                _ => Err(format!(
                    "{name} is {:?}: expected a whole number of {unit}, at least {least}",
                    crate::text::escape_invisible(&raw)
                )),
            }
        };
        if let Some(days) = count(RETENTION_DAYS_ENV, 0, "days")? {
            self.retention_days = days;
        }
        if let Some(snapshots) = count(RETENTION_SNAPSHOTS_ENV, 1, "snapshots")? {
            self.retention_snapshots = snapshots;
        }
        Ok(())
    }

    /// Where the history file is.
    pub fn file(&self) -> PathBuf {
        self.path.clone().unwrap_or_else(default_path)
    }

    /// Where the history is: a `postgres://` URL names the shared database,
    /// a plain path a file, nothing the configured file.
    pub fn location(&self) -> Result<super::HistoryLocation, super::HistoryError> {
        let Some(url) = self.url.as_deref().map(str::trim) else {
            return Ok(super::HistoryLocation::File(self.file()));
        };
        if super::postgres::is_database_url(url) {
            return super::PgTarget::parse(url, self.password_command.clone())
                .map(|target| target.with_limits(self.session_limits()))
                .map(super::HistoryLocation::Database);
        }
        if let Some(path) = url.strip_prefix("file:") {
            return Ok(super::HistoryLocation::File(PathBuf::from(path)));
        }
        if url.contains("://") {
            return Err(super::HistoryError::Url(format!(
                "{} is neither a postgres:// URL nor a file",
                super::postgres::redact(url)
            )));
        }
        Ok(super::HistoryLocation::File(PathBuf::from(url)))
    }

    /// The shared database's time limits for each session.
    pub fn session_limits(&self) -> super::postgres::SessionLimits {
        super::postgres::SessionLimits {
            statement: std::time::Duration::from_secs(self.statement_timeout_secs),
            lock: std::time::Duration::from_secs(self.lock_timeout_secs),
        }
    }

    /// Who a mark is by: `reviewer`, else the user's login name (`$USER`,
    /// `$LOGNAME`, `$USERNAME`, then `whoami`, as git falls back to the
    /// account's name when `user.name` is unset).
    pub fn reviewer_name(&self) -> Option<String> {
        let given = |name: &str| {
            let name = name.trim();
            (!name.is_empty()).then(|| name.to_owned())
        };
        self.reviewer
            .as_deref()
            .and_then(given)
            .or_else(|| {
                ["USER", "LOGNAME", "USERNAME"]
                    .iter()
                    .find_map(|var| std::env::var(var).ok().as_deref().and_then(given))
            })
            .or_else(|| {
                let output = std::process::Command::new("whoami").output().ok()?;
                output
                    .status
                    .success()
                    .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
                    .as_deref()
                    .and_then(given)
            })
    }

    /// How old the newest snapshot may grow before the dashboard takes one in
    /// the background; `None` when that is turned off.
    pub fn snapshot_max_age(&self) -> Option<time::Duration> {
        match &self.snapshot_max_age {
            // Checked when the config was read; a bad value there never gets here.
            Some(raw) => parse_max_age(raw).ok().flatten(),
            None => Some(time::Duration::hours(i64::from(
                self.snapshot_max_age_hours,
            ))),
        }
    }

    /// The retention rule as configured.
    pub fn retention(&self) -> super::Retention {
        super::Retention {
            max_age: time::Duration::days(i64::from(self.retention_days)),
            max_snapshots: self.retention_snapshots,
        }
    }
}

/// `"off"` (`None`), or a number with a unit: `30m`, `12h`, `2d`.
fn parse_max_age(raw: &str) -> Result<Option<time::Duration>, String> {
    if raw.trim().eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    parse_duration(raw)
        .map(Some)
        .map_err(|_| format!("expected \"off\" or a duration such as 30m, 12h or 2d, not {raw:?}"))
}

/// A positive number with a unit: `30m`, `12h`, `2d` (the history's ages:
/// `snapshot_max_age`, `snapshot --if-older-than`).
pub fn parse_duration(raw: &str) -> Result<time::Duration, String> {
    let raw = raw.trim();
    let expected = || format!("expected a duration such as 30m, 12h or 2d, not {raw:?}");
    let split = raw.len().saturating_sub(1);
    let (number, unit) = (
        raw.get(..split).ok_or_else(expected)?,
        raw.get(split..).ok_or_else(expected)?,
    );
    let number: i64 = number.parse().map_err(|_| expected())?;
    if number <= 0 {
        return Err(expected());
    }
    match unit {
        "m" => Ok(time::Duration::minutes(number)),
        "h" => Ok(time::Duration::hours(number)),
        "d" => Ok(time::Duration::days(number)),
        _ => Err(expected()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retention_from_the_environment_over_the_file() {
        let mut config = HistoryConfig {
            retention_days: 30,
            ..HistoryConfig::default()
        };
        let set = |days: &'static str, snapshots: &'static str| {
            move |name: &str| match name {
                RETENTION_DAYS_ENV => Some(days.to_owned()),
                RETENTION_SNAPSHOTS_ENV => Some(snapshots.to_owned()),
                _ => None,
            }
        };
        config.retention_from_environment(|_| None).unwrap();
        assert_eq!(
            (config.retention_days, config.retention_snapshots),
            (30, 200)
        );
        config
            .retention_from_environment(set("400", " 365 "))
            .unwrap();
        assert_eq!(
            (config.retention_days, config.retention_snapshots),
            (400, 365)
        );
        // Empty is unset, as for the other variables.
        config.retention_from_environment(set("", "")).unwrap();
        assert_eq!(
            (config.retention_days, config.retention_snapshots),
            (400, 365)
        );
        for (days, snapshots, named) in [
            ("a year", "1", "VANTAGE_RETENTION_DAYS is \"a year\""),
            ("-1", "1", "VANTAGE_RETENTION_DAYS"),
            (
                "1",
                "0",
                "VANTAGE_RETENTION_SNAPSHOTS is \"0\": expected a whole number of snapshots, at least 1",
            ),
            ("1", "99999999999", "VANTAGE_RETENTION_SNAPSHOTS"),
        ] {
            let error = config
                .retention_from_environment(set(days, snapshots))
                .unwrap_err();
            assert!(error.contains(named), "{error}");
        }
    }

    #[test]
    fn defaults_and_overrides() {
        let empty = toml::Table::new();
        assert_eq!(
            HistoryConfig::from_sections(&empty).unwrap(),
            HistoryConfig::default()
        );
        let table: toml::Table = toml::from_str("[history]\nretention_days = 7\n").unwrap();
        let config = HistoryConfig::from_sections(&table).unwrap();
        assert_eq!(config.retention_days, 7);
        assert_eq!(config.retention_snapshots, 200);
        let bad: toml::Table = toml::from_str("[history]\nretention_dayz = 7\n").unwrap();
        assert!(HistoryConfig::from_sections(&bad).is_err());
        let zero: toml::Table = toml::from_str("[history]\nretention_snapshots = 0\n").unwrap();
        assert!(HistoryConfig::from_sections(&zero).is_err());
    }

    #[test]
    fn the_background_snapshot_can_be_turned_off() {
        let read = |text: &str| {
            let table: toml::Table = toml::from_str(text).unwrap();
            HistoryConfig::from_sections(&table)
        };
        let off = read("[history]\nsnapshot_max_age = \"off\"\n").unwrap();
        assert_eq!(off.snapshot_max_age(), None);
        let half = read("[history]\nsnapshot_max_age = \"12h\"\n").unwrap();
        assert_eq!(half.snapshot_max_age(), Some(time::Duration::hours(12)));
        assert_eq!(
            HistoryConfig::default().snapshot_max_age(),
            Some(time::Duration::hours(24))
        );
        let bad = read("[history]\nsnapshot_max_age = \"soon\"\n").unwrap_err();
        assert!(bad.contains("snapshot_max_age"), "{bad}");
    }
}
