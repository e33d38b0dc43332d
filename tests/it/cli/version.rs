//! `vantage --version` names the version, the commit and the build date;
//! `--version --verbose` adds the target and the glibc the binary needs.

use std::process::Command;

fn vantage(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(args)
        .output()
        .expect("vantage runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `YYYY-MM-DD`.
fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    parts.len() == 3
        && [4, 2, 2]
            .iter()
            .zip(&parts)
            .all(|(len, part)| part.len() == *len && part.chars().all(|c| c.is_ascii_digit()))
}

#[test]
fn version_names_the_version_the_commit_and_the_build_date() {
    for flag in ["--version", "-V"] {
        let (code, stdout, stderr) = vantage(&[flag]);
        assert_eq!(code, 0, "{stderr}");
        let line = stdout.trim_end();
        assert_eq!(stdout.lines().count(), 1, "one line: {stdout}");
        let expected_start = format!("vantage {} (commit ", env!("CARGO_PKG_VERSION"));
        let rest = line
            .strip_prefix(&expected_start)
            .unwrap_or_else(|| panic!("{line:?} starts with {expected_start:?}"));
        let (commit, date) = rest
            .strip_suffix(')')
            .and_then(|rest| rest.split_once(", built "))
            .unwrap_or_else(|| panic!("commit and date in {line:?}"));
        // This test runs in the git checkout: the commit is known.
        assert!(
            commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit()),
            "a 12-digit commit: {commit:?}"
        );
        assert!(is_date(date), "a YYYY-MM-DD build date: {date:?}");
    }
}

#[test]
fn version_verbose_adds_the_target_and_the_glibc() {
    let (code, stdout, stderr) = vantage(&["--version", "--verbose"]);
    assert_eq!(code, 0, "{stderr}");
    let (_, short, _) = vantage(&["--version"]);
    assert!(stdout.starts_with(&short), "{stdout}");
    let field = |name: &str| {
        stdout
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name}: ")))
            .unwrap_or_else(|| panic!("no {name}: line in {stdout}"))
            .to_owned()
    };
    assert_eq!(field("version"), env!("CARGO_PKG_VERSION"));
    assert!(field("target").contains("linux") || !cfg!(target_os = "linux"));
    let glibc = field("glibc");
    if cfg!(target_env = "gnu") {
        let number = glibc.split_whitespace().next().unwrap_or_default();
        let mut parts = number.split('.');
        assert!(
            parts.next().is_some_and(|major| major == "2")
                && parts
                    .next()
                    .is_some_and(|minor| minor.parse::<u32>().is_ok()),
            "a glibc version 2.N: {glibc:?}"
        );
    }
}

#[test]
fn verbose_alone_is_no_version_flag() {
    let (code, _, stderr) = vantage(&["--verbose"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--version"), "{stderr}");
}
