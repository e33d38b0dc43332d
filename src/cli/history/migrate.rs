//! `vantage history migrate [--dry-run]`: bring the history's schema up to
//! this vantage's version now (every vantage does so when it first opens it),
//! or say what that would do without changing anything.

use crate::cli::exit::CliError;
use crate::history::{Store, inspect_schema};
use crate::session::GlobalArgs;

pub fn run(dry_run: bool, global: &GlobalArgs) -> Result<(), CliError> {
    let location = super::selected_history_config(global)?.location()?;
    let status = inspect_schema(&location)?;
    if dry_run {
        println!("{}", status.describe());
        return Ok(());
    }
    if status.is_newer() || status.steps.is_empty() {
        println!("{}", status.describe());
        return Ok(());
    }
    // Opening migrates, in one transaction under the store's lock.
    drop(Store::open_at(&location)?);
    println!(
        "{}: migrated from schema version {} to {}",
        status.store,
        status.found.unwrap_or(0),
        status.known
    );
    Ok(())
}
