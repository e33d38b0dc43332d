//! `vantage doctor`: what is wrong on this host, one line a check, as
//! `flutter doctor` and `brew doctor` say it: ✓ fine, ! works but should be
//! fixed, ✗ broken, each with the fix. Exit 0 when no check failed, else 1.
//! It reads, never writes (not even a history's schema), and never prints a
//! secret: keys and passwords are named by where they come from.

mod checks;
mod host;

use serde::Serialize;

use crate::session::GlobalArgs;

#[derive(clap::Args, Debug, Clone)]
pub struct DoctorArgs {
    /// `text`: a line a check; `json`: {"ok", "checks": [{check, status, detail, fix}]}.
    #[arg(
        long,
        short = 'o',
        value_enum,
        default_value = "text",
        value_name = "FORMAT"
    )]
    pub format: DoctorFormat,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DoctorFormat {
    Text,
    Json,
}

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// ✓
    Ok,
    /// ! works, but should be fixed
    Warn,
    /// ✗ broken
    Fail,
}

impl Status {
    fn mark(self) -> &'static str {
        match self {
            Self::Ok => "✓",
            Self::Warn => "!",
            Self::Fail => "✗",
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// What was checked: `config`, `api`, `clock`, …
    pub check: &'static str,
    pub status: Status,
    pub detail: String,
    /// What to do about it; none when all is well.
    pub fix: Option<String>,
}

impl Check {
    fn ok(check: &'static str, detail: impl Into<String>) -> Self {
        Self {
            check,
            status: Status::Ok,
            detail: detail.into(),
            fix: None,
        }
    }

    fn warn(check: &'static str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            check,
            status: Status::Warn,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }

    fn fail(check: &'static str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            check,
            status: Status::Fail,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }
}

#[derive(Serialize)]
struct Report<'a> {
    ok: bool,
    checks: &'a [Check],
}

/// Runs every check, prints the report, and returns the exit code.
pub fn run(global: &GlobalArgs, args: &DoctorArgs) -> std::io::Result<u8> {
    let checks = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(checks::all(global));
    let ok = checks.iter().all(|check| check.status != Status::Fail);
    let mut out = std::io::stdout().lock();
    write_report(&mut out, &checks, ok, args.format)?;
    Ok(if ok { 0 } else { 1 })
}

fn write_report(
    out: &mut impl std::io::Write,
    checks: &[Check],
    ok: bool,
    format: DoctorFormat,
) -> std::io::Result<()> {
    match format {
        DoctorFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &Report { ok, checks })?;
            writeln!(out)
        }
        DoctorFormat::Text => {
            let width = checks
                .iter()
                .map(|check| check.check.len())
                .max()
                .unwrap_or(0);
            for check in checks {
                // Every value may come from outside (a file, the service).
                let detail = crate::text::escape_invisible(&check.detail);
                writeln!(
                    out,
                    "{} {:width$}  {detail}",
                    check.status.mark(),
                    check.check
                )?;
                if let Some(fix) = &check.fix {
                    let fix = crate::text::escape_invisible(fix);
                    writeln!(out, "  {:width$}  fix: {fix}", "")?;
                }
            }
            let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
            let warned = checks.iter().filter(|c| c.status == Status::Warn).count();
            match (failed, warned) {
                (0, 0) => writeln!(out, "\nAll is well."),
                (0, warned) => writeln!(out, "\nNo problem; {warned} to look at (!)."),
                (failed, _) => writeln!(out, "\n{failed} problem(s) (✗): see the fixes above."),
            }
        }
    }
}
