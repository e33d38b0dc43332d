//! The `[history]` section of the config file. Every key is optional:
//!
//! ```toml
//! [history]
//! path = "/somewhere/history.sqlite3"  # default: history.sqlite3 in the data dir
//! retention_days = 90                  # snapshots older than this are pruned
//! retention_snapshots = 200            # per workspace, the newest kept
//! detail_requests = 100                # at most this many member/project reads per snapshot
//! snapshot_max_age_hours = 24          # the dashboard takes a snapshot when the newest is older
//! rate_window_secs = 60                # the rate limit's window, for the time estimate
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
    pub rate_window_secs: u64,
}

impl Default for HistoryConfig {
    fn default() -> Self {
        Self {
            path: None,
            retention_days: 90,
            retention_snapshots: 200,
            detail_requests: 100,
            snapshot_max_age_hours: 24,
            rate_window_secs: 60,
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
        Ok(config)
    }

    /// Where the history file is.
    pub fn file(&self) -> PathBuf {
        self.path.clone().unwrap_or_else(default_path)
    }

    /// `snapshot_max_age_hours` as a duration.
    pub fn snapshot_max_age(&self) -> time::Duration {
        time::Duration::hours(i64::from(self.snapshot_max_age_hours))
    }

    /// The retention rule as configured.
    pub fn retention(&self) -> super::Retention {
        super::Retention {
            max_age: time::Duration::days(i64::from(self.retention_days)),
            max_snapshots: self.retention_snapshots,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
