//! Build facts for `vantage --version` and the exporter's build info: the
//! commit, the build date, the target, the compiler, and the glibc the build
//! is made for.
//!
//! Reproducible-ish: the date is `SOURCE_DATE_EPOCH` when set (scripts/dist sets
//! it to the commit's time, as Debian's reproducible builds do), and the script
//! reruns only when HEAD moves, not on every source change.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for var in [
        "SOURCE_DATE_EPOCH",
        "VANTAGE_GIT_COMMIT",
        "VANTAGE_GLIBC",
        "VANTAGE_BUILD_DATE",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    watch_head();

    let commit = std::env::var("VANTAGE_GIT_COMMIT")
        .ok()
        .filter(|commit| !commit.is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_owned());
    let date = std::env::var("VANTAGE_BUILD_DATE")
        .ok()
        .filter(|date| !date.is_empty())
        .unwrap_or_else(build_date);
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".to_owned());
    println!("cargo:rustc-env=VANTAGE_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=VANTAGE_BUILD_DATE={date}");
    println!("cargo:rustc-env=VANTAGE_TARGET={target}");
    // The glibc the binary is built for: scripts/dist says it (the zig target's
    // version); a plain cargo build links against the build host's glibc.
    let glibc = match std::env::var("VANTAGE_GLIBC") {
        Ok(version) if !version.is_empty() => version,
        _ if target.ends_with("-gnu") => host_glibc()
            .map(|version| format!("{version} (the build host's)"))
            .unwrap_or_else(|| "unknown (the build host's)".to_owned()),
        _ => "none".to_owned(),
    };
    println!("cargo:rustc-env=VANTAGE_GLIBC={glibc}");
    println!("cargo:rustc-env=VANTAGE_RUSTC={}", rustc_version());
}

/// The compiler's version ("rustc 1.91.0 (f8297e351 2025-10-28)": the second
/// word), from the `RUSTC` cargo hands the script.
fn rustc_version() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .and_then(|text| text.split_whitespace().nth(1).map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Reruns the script when HEAD moves: HEAD itself, the branch file it points
/// to, and packed-refs (where git moves branch files). Paths come from git, so a
/// worktree (whose `.git` is a file) works too.
fn watch_head() {
    let mut files = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        files.push(branch);
    }
    for file in files {
        if let Some(path) = git(&["rev-parse", "--git-path", &file]) {
            // A path that does not exist would make cargo rerun every build.
            if Path::new(&path).exists() {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
}

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?.trim().to_owned();
    (output.status.success() && !text.is_empty()).then_some(text)
}

/// `YYYY-MM-DD` (UTC) of `SOURCE_DATE_EPOCH`, else of now.
fn build_date() -> String {
    let seconds = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|epoch| epoch.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.as_secs() as i64)
        });
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    format!("{year:04}-{month:02}-{day:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
/// `civil_from_days`), so the build script needs no date crate.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The build host's glibc version, from `ldd --version` ("ldd (Debian GLIBC
/// 2.36-9) 2.36": the last word of the first line).
fn host_glibc() -> Option<String> {
    let output = Command::new("ldd").arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let version = text.lines().next()?.split_whitespace().last()?.to_owned();
    version
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.')
        .then_some(version)
}
