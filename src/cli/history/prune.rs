//! `vantage snapshot prune --keep-*` (restic's and borg's rules, what a mark
//! needs kept) and `vantage snapshot posture`.

use super::Local;
use crate::cli::exit::CliError;
use crate::cli::options::OutputArgs;
use crate::cli::print::{Field, Row, write_list};
use crate::cli::progress::Progress;
use crate::formats::OutputError;
use crate::formats::row::when;
use crate::history::posture::PostureAt;
use crate::history::retention::KeepPolicy;

/// Removes what no rule, mark or waiver keeps (or, `dry_run`, says what
/// would go); one line a snapshot removed, and one a snapshot kept only
/// because something refers to it, on stdout; the count on stderr. A run
/// that removes without a terminal (cron, a timer) says nothing unless it
/// fails: cron mails any output.
pub async fn keeping(local: &Local, policy: KeepPolicy, dry_run: bool) -> Result<(), CliError> {
    if policy.is_empty() {
        return Err(CliError::Usage(
            "every --keep-* rule is 0: that would remove every snapshot; keep at least one (--keep-last 1)"
                .into(),
        ));
    }
    let workspace = local.workspace.clone();
    let outcome = local
        .store
        .with(move |store| store.prune_keeping(&workspace, policy, dry_run))
        .await?;
    use std::io::IsTerminal;
    let speak = dry_run || std::io::stdout().is_terminal() || crate::stderr::is_terminal();
    if !speak {
        return Ok(());
    }
    let mut out = String::new();
    for verdict in &outcome.verdicts {
        let snapshot = &verdict.snapshot;
        let at = when(Some(snapshot.taken_at));
        if verdict.kept.is_empty() {
            let verb = if outcome.applied {
                "removed"
            } else {
                "would remove"
            };
            out.push_str(&format!("{verb} snapshot {} ({at})\n", snapshot.id));
        } else if verdict.kept.iter().all(|reason| !reason.is_rule()) {
            let why: Vec<String> = verdict
                .kept
                .iter()
                .map(|reason| reason.describe())
                .collect();
            out.push_str(&format!(
                "kept snapshot {} ({at}): {} refers to it\n",
                snapshot.id,
                why.join(", ")
            ));
        }
    }
    {
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(out.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(OutputError::from)?;
    }
    let removed = outcome.removed().count();
    let kept = outcome.verdicts.len() - removed;
    if outcome.applied {
        crate::stderr::line(format_args!("pruned {removed} snapshots; {kept} kept"));
    } else {
        crate::stderr::line(format_args!(
            "would prune {removed} snapshots; {kept} kept (--dry-run: nothing removed)"
        ));
    }
    Ok(())
}

fn count(value: i64) -> String {
    value.to_string()
}

fn priority(at: &PostureAt, name: &str) -> String {
    count(at.posture.by_priority.get(name).copied().unwrap_or(0))
}

impl Row for PostureAt {
    const FIELDS: &'static [Field<Self>] = &[
        Field::number("SNAPSHOT", |at| at.snapshot.to_string()),
        Field::fixed("TAKEN AT (UTC)", |at| when(Some(at.taken_at))),
        Field::number("PROJECTS", |at| count(at.posture.projects)),
        Field::number("NEEDS REVIEW", |at| priority(at, "needs_review")),
        Field::number("RECOMMENDED", |at| priority(at, "review_recommended")),
        Field::number("PUBLISHED", |at| count(at.posture.published)),
        Field::number("PUBLIC", |at| count(at.posture.public)),
        Field::number("WITH PII", |at| count(at.posture.with_pii)),
        Field::number("REVIEWED", |at| count(at.posture.reviewed)),
        Field::number("CHANGED", |at| count(at.posture.changed_since_review)),
    ];
}

/// Every snapshot's posture, oldest first, read in one query.
pub async fn posture(local: &Local, output: OutputArgs) -> Result<(), CliError> {
    let workspace = local.workspace.clone();
    let postures = local
        .store
        .with(move |store| store.posture(&workspace))
        .await?;
    let stream = futures::stream::iter(postures.into_iter().map(Ok));
    write_list(stream, output.resolve(), None, &Progress::hidden()).await
}
