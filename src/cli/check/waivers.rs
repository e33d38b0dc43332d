//! `vantage check waive` and `check waivers`: waivers in the review history
//! (both stores), with who and when.

use time::OffsetDateTime;

use super::args::CheckCommand;
use crate::cli::exit::CliError;
use crate::cli::history::Local;
use crate::cli::print::{Field, Row, write_each, write_one};
use crate::formats::row::when;
use crate::history::waivers::{NewWaiver, Waiver, standing};
use crate::session::GlobalArgs;

impl Row for Waiver {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("POLICY", |w| w.policy_id.clone()),
        Field::fixed("PROJECT", |w| w.project_id.clone()),
        Field::fixed("UNTIL (UTC)", |w| when(Some(w.until))),
        Field::text("BY", 4, |w| w.waived_by.clone().unwrap_or_default()),
        Field::fixed("AT (UTC)", |w| when(Some(w.waived_at))),
        Field::text("REASON", 8, |w| w.reason.clone()),
    ];
}

pub async fn run(command: CheckCommand, global: &GlobalArgs) -> Result<(), CliError> {
    let local = Local::open(global).await?;
    match command {
        CheckCommand::Waive {
            policy,
            project_id,
            reason,
            until,
            output,
        } => {
            let now = OffsetDateTime::now_utc();
            let waiver = NewWaiver {
                policy_id: policy,
                project_id,
                reason,
                until,
                by: local.config.reviewer_name(),
            };
            waiver.check(now).map_err(CliError::Usage)?;
            let workspace = local.workspace.clone();
            let added = local
                .store
                .with(move |store| store.add_waiver(&workspace, &waiver, now))
                .await?;
            if output.format.is_none() && crate::stderr::is_terminal() {
                crate::stderr::line(format_args!(
                    "waived {} for {} until {}",
                    crate::text::escape_invisible(&added.policy_id),
                    crate::text::escape_invisible(&added.project_id),
                    when(Some(added.until))
                ));
                return Ok(());
            }
            write_one(&added, output.resolve(), None, |width| {
                crate::formats::row::rows_table(std::slice::from_ref(&added), width)
            })
        }
        CheckCommand::Waivers {
            expired,
            all,
            now,
            output,
        } => {
            let now = now.unwrap_or_else(OffsetDateTime::now_utc);
            let workspace = local.workspace.clone();
            let given = local
                .store
                .with(move |store| store.all_waivers(&workspace))
                .await?;
            let shown: Vec<Waiver> = if all {
                given
            } else {
                standing(given)
                    .into_iter()
                    .filter(|waiver| waiver.applies_at(now) != expired)
                    .collect()
            };
            write_each(output.resolve(), |write| {
                for waiver in shown {
                    write(waiver)?;
                }
                Ok(())
            })
        }
        CheckCommand::Test { .. } => Ok(()),
    }
}
