//! The `process_*` metrics of the exporter's own process, read from
//! `/proc/self` at each scrape, named and computed as client_golang's process
//! collector (through prometheus/procfs) does. Where `/proc` is missing (not
//! Linux) or a file cannot be read, the metrics it gives are left out.

use std::sync::atomic::AtomicU64;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::{Registry, Unit};

/// Clock ticks per second of `/proc/*/stat`'s times: USER_HZ, 100 on every
/// Linux architecture that matters; prometheus/procfs fixes it at 100 too.
const USER_HZ: f64 = 100.0;

/// What `/proc/self` says about this process.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProcessStats {
    pub cpu_seconds: Option<f64>,
    pub resident_memory_bytes: Option<u64>,
    pub virtual_memory_bytes: Option<u64>,
    pub start_time_seconds: Option<f64>,
    pub open_fds: Option<u64>,
    pub max_fds: Option<u64>,
}

impl ProcessStats {
    /// Reads `/proc/self`.
    pub fn read() -> Self {
        let read = |path: &str| std::fs::read_to_string(path).ok();
        let stat = read("/proc/self/stat");
        let times = stat.as_deref().and_then(stat_times);
        let boot_time = read("/proc/stat").as_deref().and_then(boot_time);
        let status = read("/proc/self/status");
        let kilobytes = |field| status.as_deref().and_then(|s| status_kilobytes(s, field));
        Self {
            cpu_seconds: times.map(|(utime, stime, _)| (utime + stime) as f64 / USER_HZ),
            resident_memory_bytes: kilobytes("VmRSS:").map(|kb| kb * 1024),
            virtual_memory_bytes: kilobytes("VmSize:").map(|kb| kb * 1024),
            start_time_seconds: times
                .zip(boot_time)
                .map(|((_, _, start), boot)| boot as f64 + start as f64 / USER_HZ),
            open_fds: std::fs::read_dir("/proc/self/fd")
                .ok()
                .map(|entries| entries.count() as u64),
            max_fds: read("/proc/self/limits")
                .as_deref()
                .and_then(max_open_files),
        }
    }

    /// The `process_*` families (no prefix: every exporter names them alike).
    pub fn registry(&self) -> Registry {
        let mut registry = Registry::default();
        if let Some(seconds) = self.cpu_seconds {
            let counter = Counter::<f64, AtomicU64>::default();
            counter.inc_by(seconds);
            registry.register_with_unit(
                "process_cpu",
                "Total user and system CPU time spent in seconds",
                Unit::Seconds,
                counter,
            );
        }
        let gauges = [
            (
                "process_resident_memory",
                "Resident memory size in bytes",
                Some(Unit::Bytes),
                self.resident_memory_bytes.map(|b| b as f64),
            ),
            (
                "process_virtual_memory",
                "Virtual memory size in bytes",
                Some(Unit::Bytes),
                self.virtual_memory_bytes.map(|b| b as f64),
            ),
            (
                "process_start_time",
                "Start time of the process since unix epoch in seconds",
                Some(Unit::Seconds),
                self.start_time_seconds,
            ),
            (
                "process_open_fds",
                "Number of open file descriptors",
                None,
                self.open_fds.map(|n| n as f64),
            ),
            (
                "process_max_fds",
                "Maximum number of open file descriptors",
                None,
                self.max_fds.map(|n| n as f64),
            ),
        ];
        for (name, help, unit, value) in gauges {
            let Some(value) = value else { continue };
            let gauge = Gauge::<f64, AtomicU64>::default();
            gauge.set(value);
            match unit {
                Some(unit) => registry.register_with_unit(name, help, unit, gauge),
                None => registry.register(name, help, gauge),
            }
        }
        registry
    }
}

/// `utime`, `stime` and `starttime` (fields 14, 15 and 22) of a
/// `/proc/PID/stat` line. The command name (field 2) may hold spaces and
/// parentheses, so the fields are counted after its last `)`.
fn stat_times(stat: &str) -> Option<(u64, u64, u64)> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    // Field 3 (state) is the first after the name.
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3)?.parse().ok();
    Some((field(14)?, field(15)?, field(22)?))
}

/// `btime` of `/proc/stat`: boot time, in seconds since the epoch.
fn boot_time(stat: &str) -> Option<u64> {
    stat.lines()
        .find_map(|line| line.strip_prefix("btime "))
        .and_then(|value| value.trim().parse().ok())
}

/// A `Name:   N kB` line of `/proc/PID/status`.
fn status_kilobytes(status: &str, field: &str) -> Option<u64> {
    let line = status.lines().find_map(|line| line.strip_prefix(field))?;
    line.split_whitespace().next()?.parse().ok()
}

/// The soft limit of `Max open files` in `/proc/PID/limits`.
fn max_open_files(limits: &str) -> Option<u64> {
    let line = limits
        .lines()
        .find_map(|line| line.strip_prefix("Max open files"))?;
    line.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_are_read_as_procfs_reads_them() {
        let stat = "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 1406 0 0 0 250 50 0 0 20 0 9 0 123400 1234567 890 18446744073709551615";
        assert_eq!(stat_times(stat), Some((250, 50, 123400)));
        assert_eq!(
            boot_time("cpu 1 2 3\nbtime 1700000000\nprocesses 9\n"),
            Some(1_700_000_000)
        );
        let status = "Name:\tvantage\nVmSize:\t  123456 kB\nVmRSS:\t   20480 kB\n";
        assert_eq!(status_kilobytes(status, "VmRSS:"), Some(20480));
        let limits = "Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 524288               files\n";
        assert_eq!(max_open_files(limits), Some(1024));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_is_read() {
        let stats = ProcessStats::read();
        assert!(
            stats.resident_memory_bytes.is_some_and(|b| b > 0),
            "{stats:?}"
        );
        assert!(stats.open_fds.is_some_and(|n| n > 0), "{stats:?}");
        assert!(stats.max_fds.is_some(), "{stats:?}");
        assert!(
            stats.start_time_seconds.is_some_and(|t| t > 1.0e9),
            "{stats:?}"
        );
        assert!(stats.cpu_seconds.is_some(), "{stats:?}");
    }
}
