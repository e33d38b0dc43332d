//! `vantage check`: the policies (the built-in pack, the config dir's
//! `policies/`, or `--policy`) over the workspace read live or from a
//! snapshot, with the history's waivers applied; `check waive`, `check
//! waivers` and `check test`. Exit 8 when a violation of `--fail-on`'s
//! severity or worse is not waived (`cli/exit.rs`); a project a policy could
//! not judge is reported `unknown` and said on stderr, and changes no exit.

pub mod args;
mod gather;
mod junit;
mod report;
mod waivers;

use time::OffsetDateTime;

pub use args::{CheckArgs, CheckCommand};

use super::exit::CliError;
use super::history::Local;
use crate::policy::files::load;
use crate::policy::{Evaluation, FindingStatus, PolicyError, PolicySet, PolicySource};
use crate::session::GlobalArgs;

impl From<PolicyError> for CliError {
    fn from(error: PolicyError) -> Self {
        match error {
            PolicyError::UnknownPolicy { .. } | PolicyError::NoPolicyFile { .. } => {
                CliError::Usage(error.to_string())
            }
            other => CliError::Policy(other.to_string()),
        }
    }
}

/// The policies and tests to load, as every evaluation loads them
/// (`policy::files::load`): `--policy` (with `builtin` for the pack), else
/// the pack and the config dir's `policies/`.
fn sources(
    named: &[std::path::PathBuf],
    global: &GlobalArgs,
) -> Result<(Vec<PolicySource>, Vec<PolicySource>), CliError> {
    let config = global.config.clone().or_else(crate::paths::config_file);
    Ok(load(named, config.as_deref())?)
}

pub async fn execute(args: CheckArgs, global: &GlobalArgs) -> Result<(), CliError> {
    match args.command.clone() {
        Some(CheckCommand::Test { policy, now }) => run_tests(&policy, now, global),
        Some(command) => waivers::run(command, global).await,
        None => check(args, global).await,
    }
}

fn run_tests(
    named: &[std::path::PathBuf],
    now: Option<OffsetDateTime>,
    global: &GlobalArgs,
) -> Result<(), CliError> {
    let (policies, tests) = sources(named, global)?;
    let now = now.unwrap_or_else(OffsetDateTime::now_utc);
    let results =
        crate::policy::rego_test::run(&policies, &tests, crate::policy::clock_ext::to_ns(now))?;
    let failed: Vec<_> = results.iter().filter(|result| !result.passed).collect();
    for result in &failed {
        println!(
            "FAIL {} ({}){}",
            result.name,
            result.location,
            result
                .error
                .as_deref()
                .map(|error| format!(": {}", crate::text::escape_invisible(error)))
                .unwrap_or_default()
        );
    }
    println!(
        "{} passed, {} failed",
        results.len() - failed.len(),
        failed.len()
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::Policy(format!(
            "{} of {} Rego tests failed",
            failed.len(),
            results.len()
        )))
    }
}

/// The projects that violate one of `ids` (waived or not), evaluated as
/// `vantage check` evaluates: the default policies over the workspace read
/// live, the history's waivers applied. `vantage inventory --violates`:
/// the inventory walked in `walk`'s page size and order, each item handed
/// to `keep` (`gather::live_walking`).
pub(crate) async fn violating(
    ids: &[String],
    global: &GlobalArgs,
    walk: crate::api::InventoryParams,
    keep: impl FnMut(crate::api::CheckedJson),
) -> Result<std::collections::HashSet<String>, CliError> {
    let now = OffsetDateTime::now_utc();
    let (sources, _) = sources(&[], global)?;
    let local = Local::open(global).await?;
    let input = gather::live_walking(&local, global, now, walk, keep).await?;
    let workspace = local.workspace.clone();
    let waivers = local
        .store
        .with(move |store| store.all_waivers(&workspace))
        .await?;
    let evaluation = crate::policy::evaluate(&sources, &input, waivers, now)?;
    evaluation.check_ids(ids)?;
    Ok(evaluation
        .violating(ids)
        .into_iter()
        .map(str::to_owned)
        .collect())
}

async fn check(args: CheckArgs, global: &GlobalArgs) -> Result<(), CliError> {
    let now = args.now.unwrap_or_else(OffsetDateTime::now_utc);
    let (sources, _) = sources(&args.policy, global)?;
    let mut set = PolicySet::compile(&sources, crate::policy::clock_ext::to_ns(now))?;
    set.retain_ids(&args.only)?;
    let local = Local::open(global).await?;
    let input = match (&args.input, &args.from_snapshot) {
        (Some(path), _) => gather::from_file(path)?,
        (None, Some(reference)) => gather::from_snapshot(&local, reference, now).await?,
        (None, None) => gather::live(&local, global, now).await?,
    };
    if args.print_input {
        let mut out = std::io::stdout().lock();
        crate::formats::json::to_writer_pretty(&mut out, &input)
            .map_err(|error| CliError::Output(error.into()))?;
        std::io::Write::write_all(&mut out, b"\n")
            .map_err(|error| CliError::Output(error.into()))?;
        return Ok(());
    }
    let workspace = local.workspace.clone();
    let waivers = local
        .store
        .with(move |store| store.all_waivers(&workspace))
        .await?;
    let evaluation = Evaluation::of_set(&mut set, &input, waivers, now)?;
    report::write(&args, &evaluation.policies, &input, &evaluation.findings)?;
    // A policy that could not judge some projects does not fail the check
    // (`--from-snapshot` must stay usable), but it is never silent.
    report::not_judged(&evaluation);
    let failing = evaluation
        .findings
        .iter()
        .filter(|f| f.status == FindingStatus::Failing && f.severity.at_least(args.fail_on))
        .count();
    // The process ends once the command returns: freeing the document and
    // the engine's tree of it, node by node, would only delay the exit (a
    // fifth of the command's time at 20,000 projects), so both are left to
    // the operating system, as compilers leave theirs.
    std::mem::forget(set);
    std::mem::forget(input);
    std::mem::forget(evaluation);
    if failing > 0 {
        return Err(CliError::ViolationsFound(format!(
            "{failing} violation(s) of severity {} or worse are not waived",
            args.fail_on.as_str()
        )));
    }
    Ok(())
}
