//! What `vantage check` prints: one row per finding (a violation failing or
//! waived, a project a policy could not judge: `unknown`) in table, json,
//! jsonl or csv through the shared writers; JUnit XML through `junit.rs`;
//! and on stderr, each policy that could not judge some projects.

use super::args::{CheckArgs, CheckFormat};
use super::junit;
use crate::cli::exit::CliError;
use crate::cli::options::{Format, OutputArgs};
use crate::cli::print::{Field, Row, write_each};
use crate::formats::row::when;
use crate::policy::input::PolicyInput;
use crate::policy::{Evaluation, Finding, Policy};

impl Row for Finding {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("POLICY", |f| f.policy.clone()),
        Field::fixed("SEVERITY", |f| f.severity.as_str().to_owned()),
        Field::fixed("STATUS", |f| f.status.as_str().to_owned()),
        Field::fixed("PROJECT", |f| f.project_id.clone()),
        Field::text("NAME", 8, |f| f.project_name.clone().unwrap_or_default()),
        Field::text("MESSAGE", 12, |f| f.message.clone()),
        Field::text("WAIVER", 6, |f| match (&f.waiver_reason, f.waived_until) {
            (Some(reason), until) => format!(
                "until {} by {}: {reason}",
                when(until),
                f.waived_by.as_deref().unwrap_or("?")
            ),
            _ => String::new(),
        }),
    ];
}

pub fn write(
    args: &CheckArgs,
    policies: &[Policy],
    input: &PolicyInput,
    findings: &[Finding],
) -> Result<(), CliError> {
    let format = match args.format {
        Some(CheckFormat::Junit) => {
            let xml = junit::render(policies, input, findings);
            let mut out = std::io::stdout().lock();
            std::io::Write::write_all(&mut out, xml.as_bytes())
                .map_err(|error| CliError::Output(error.into()))?;
            return Ok(());
        }
        Some(CheckFormat::Json) => Some(Format::Json),
        Some(CheckFormat::Jsonl) => Some(Format::Jsonl),
        Some(CheckFormat::Csv) => Some(Format::Csv),
        Some(CheckFormat::Table) => Some(Format::Table),
        None => None,
    };
    let output = OutputArgs {
        format,
        csv_raw_formulas: args.csv_raw_formulas,
    }
    .resolve();
    write_each(output, |write| {
        for finding in findings {
            write(finding.clone())?;
        }
        Ok(())
    })
}

/// Each policy that could not judge some projects, one line on stderr: the
/// report says `unknown` row by row, this says it where a reader of the
/// exit code looks, whatever the format.
pub fn not_judged(evaluation: &Evaluation) {
    for (policy, projects, message) in evaluation.not_judged() {
        crate::stderr::line(format_args!(
            "{}: {projects} project{} not judged: {message}",
            policy.meta.id,
            if projects == 1 { "" } else { "s" },
        ));
    }
}
