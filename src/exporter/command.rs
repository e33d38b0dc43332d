//! The `vantage exporter` command: the sessions to serve and their
//! workspaces, where the log goes, and serving until a signal.

use tokio::net::TcpListener;

use super::policy::PolicyPlan;
use super::web::WebConfig;
use super::{ExporterArgs, ExporterError, ServeOptions, Target, context_plan, start_with};
use crate::clock::Clock;
use crate::config::{ContextOrigin, LoadedConfig};
use crate::history::HistoryConfig;
use crate::session::{ContextsError, FlagUse, GlobalArgs, Session, SessionError, WorkspaceChoice};

/// The sessions to serve: the one context the flags and the file choose, or
/// each `--context` named (then without the flags that name one connection).
pub fn connect_contexts(
    global: &GlobalArgs,
) -> Result<Vec<(Option<String>, Session)>, SessionError> {
    if global.context.len() <= 1 {
        return Ok(vec![(None, Session::connect(global)?)]);
    }
    for (flag, given) in [
        ("--base-url", global.base_url.is_some()),
        ("--workspace", global.workspace.is_some()),
        ("--api-key-env", global.api_key_env.is_some()),
    ] {
        if given {
            return Err(ContextsError::FlagWithSeveral(flag).into());
        }
    }
    let config = LoadedConfig::load(global.config.as_deref())?;
    let mut sessions: Vec<(Option<String>, Session)> = Vec::new();
    for name in &global.context {
        if sessions
            .iter()
            .any(|(known, _)| known.as_deref() == Some(name))
        {
            return Err(ContextsError::Repeated(name.clone()).into());
        }
        let context = config.context(name, ContextOrigin::Flag)?;
        let session = Session::connect_to(global, config.clone(), context, FlagUse::ReadOnlyOnly)?;
        sessions.push((Some(name.clone()), session));
    }
    Ok(sessions)
}

/// The session's workspace, as `vantage insights` finds it: `--workspace`,
/// the config, or else the one workspace the key reaches (said on stderr).
async fn resolve_workspace(
    session: &Session,
    context: Option<&str>,
) -> Result<String, SessionError> {
    let choice = session.resolve_workspace().await?;
    if let WorkspaceChoice::Discovered(workspace) = &choice {
        let name = workspace
            .name
            .as_deref()
            .map(|name| format!(" ({})", crate::text::escape_invisible(name)))
            .unwrap_or_default();
        let context = context.map(|c| format!("{c}: ")).unwrap_or_default();
        crate::stderr::line(format_args!(
            "{context}using workspace {}{name}, the one this key reaches",
            crate::text::escape_invisible(&workspace.id)
        ));
    }
    choice.into_id(session)
}

/// Where the log goes: a file in the data dir when stderr is a terminal (the
/// operator's screen stays quiet), stderr otherwise, so that systemd's journal
/// or a container runtime gets it, without colour codes (as node_exporter logs).
fn start_logging() -> Result<String, ExporterError> {
    if crate::stderr::is_terminal() {
        let path =
            crate::logging::to_file(&crate::paths::data_dir()).map_err(ExporterError::Log)?;
        Ok(path.display().to_string())
    } else {
        crate::logging::to_stderr("info");
        Ok("stderr".to_owned())
    }
}

/// The `vantage exporter` command: connects, finds each context's workspace,
/// and serves until interrupted.
pub fn main(global: &GlobalArgs, args: ExporterArgs) -> Result<(), ExporterError> {
    // Before anything connects: a refusal costs the operator nothing.
    let web = args
        .web_config_file
        .as_deref()
        .map(WebConfig::load)
        .transpose()?;
    let off_loopback = !crate::accept::is_loopback(args.listen.ip());
    if off_loopback && web.is_none() && !args.insecure_listen {
        return Err(ExporterError::Insecure { addr: args.listen });
    }
    let sessions = connect_contexts(global)?;
    let mut warnings: Vec<String> = Vec::new();
    for (_, session) in &sessions {
        for warning in &session.warnings {
            if !warnings.contains(warning) {
                warnings.push(warning.clone());
            }
        }
    }
    for warning in &warnings {
        crate::stderr::line(format_args!("warning: {warning}"));
    }
    let mut policy_plans = Vec::new();
    for (_, session) in &sessions {
        policy_plans.push(policy_plan(global, &args, session)?);
    }
    let log = start_logging()?;
    let runtime = tokio::runtime::Runtime::new().map_err(ExporterError::Runtime)?;
    runtime.block_on(async move {
        let mut targets = Vec::new();
        let mut workspaces = Vec::new();
        for (context, session) in sessions {
            let workspace = resolve_workspace(&session, context.as_deref()).await?;
            workspaces.push(workspace.clone());
            targets.push(Target {
                plan: context_plan(&args, context.as_deref(), workspace),
                context,
                client: session.client,
            });
        }
        let listener = TcpListener::bind(args.listen)
            .await
            .map_err(|source| ExporterError::Listen {
                addr: args.listen,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| ExporterError::Listen {
            addr: args.listen,
            source,
        })?;
        if !crate::accept::is_loopback(addr.ip()) {
            let warning = match &web {
                None => Some(format!(
                    "listening on {addr}, beyond this machine, without --web.config.file (--insecure-listen): anyone who can reach it reads the workspace's metrics"
                )),
                Some(web) if !web.serves_tls() => Some(format!(
                    "listening on {addr}, beyond this machine, without TLS: basic auth passwords and the metrics travel in the clear"
                )),
                Some(_) => None,
            };
            if let Some(warning) = warning {
                crate::stderr::line(format_args!("warning: {warning}"));
                tracing::warn!("{warning}");
            }
        }
        for target in &targets {
            tracing::info!(%addr, context = ?target.context, workspace = %target.plan.workspace, watched = target.plan.watch.len(), "exporter starting");
        }
        let options = ServeOptions {
            limits: args.connection_limits(),
            telemetry_path: args.telemetry_path.clone(),
            web,
        };
        let mut exporter = start_with(targets, Clock::system(), listener, options)
            .map_err(ExporterError::Serve)?;
        for (index, (plan, workspace)) in policy_plans.into_iter().zip(workspaces).enumerate() {
            if let Some(plan) = plan {
                exporter.watch_policies(index, plan, workspace, Clock::system(), args.interval);
            }
        }
        crate::stderr::line(format_args!(
            "vantage exporter: serving {} (log: {log})",
            exporter.metrics_url(),
        ));
        if log != "stderr" {
            // The log is in a file: the watch list's problems, found by the
            // first cycle, are said here too, once.
            tokio::select! {
                () = exporter.wait_for_cycles(1) => warn_watch_problems(&exporter),
                () = shutdown_signal() => return Ok(()),
            }
        }
        tokio::select! {
            served = exporter.serve() => served,
            () = shutdown_signal() => {
                crate::stderr::line(format_args!("vantage exporter: shutting down"));
                Ok(())
            }
        }
    })
}

/// The policies a session's context evaluates (`None`: `--no-policy`),
/// loaded and compiled now, so a broken one stops the start naming its file
/// and line, as `vantage check` does; the history is the context's.
fn policy_plan(
    global: &GlobalArgs,
    args: &ExporterArgs,
    session: &Session,
) -> Result<Option<PolicyPlan>, ExporterError> {
    if args.no_policy {
        return Ok(None);
    }
    let config = global.config.clone().or_else(crate::paths::config_file);
    let (sources, _) = crate::policy::files::load(&args.policy, config.as_deref())?;
    let now = crate::policy::clock_ext::to_ns(time::OffsetDateTime::now_utc());
    crate::policy::PolicySet::compile(&sources, now)?;
    let history = HistoryConfig::for_context(
        &session.config.file.other,
        &session.context.connection,
        global.history.as_deref(),
    )
    .map_err(|reason| {
        ExporterError::Session(SessionError::Settings(
            crate::config::SettingsError::Invalid {
                path: session.config.path.as_ref().map_or_else(
                    || "the config file".to_owned(),
                    |path| path.display().to_string(),
                ),
                key: "history",
                reason,
            },
        ))
    })?;
    let location = history
        .location()
        .map_err(|error| ExporterError::History(error.to_string()))?;
    Ok(Some(PolicyPlan {
        sources,
        location,
        every: args.policy_interval,
    }))
}

/// One line on stderr per watched project that has nothing to report.
fn warn_watch_problems(exporter: &super::RunningExporter) {
    for cache in &exporter.caches {
        for (id, problem) in cache.snapshot().watch_problems {
            crate::stderr::line(format_args!(
                "warning: watched project {}: {}; asked again every {} minutes",
                crate::text::escape_invisible(&id),
                problem.describe(),
                super::standing::RECHECK.whole_minutes()
            ));
        }
    }
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
