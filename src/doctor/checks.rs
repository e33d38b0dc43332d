//! The checks that need the config, the service and the history, in the
//! order an admin fixes them: a check that cannot run because an earlier
//! one failed is left out, the earlier one says why.

use std::time::Duration;

use time::OffsetDateTime;

use super::{Check, host};
use crate::api::model::ErrorType;
use crate::api::{ApiError, PageParams, ProjectListParams};
use crate::config::{Context, LoadedConfig};
use crate::history::{HistoryConfig, HistoryLocation, inspect_schema};
use crate::session::{GlobalArgs, Session, SessionError};
use crate::tui::settings::TuiSettings;

/// A clock this far from the service's is worth a look (the service's `Date`
/// is whole seconds).
const CLOCK_WARN: Duration = Duration::from_secs(5);
/// A clock this far off breaks rate-limit waits, ages and snapshots' order.
const CLOCK_FAIL: Duration = Duration::from_secs(120);

pub async fn all(global: &GlobalArgs) -> Vec<Check> {
    let mut checks = Vec::new();
    if let Some((loaded, context)) = config_and_context(global, &mut checks) {
        checks.push(dashboard(&loaded));
        service(global, &mut checks).await;
        history(global, &loaded, &context, &mut checks);
    }
    checks.extend(host::checks());
    checks
}

fn config_and_context(
    global: &GlobalArgs,
    checks: &mut Vec<Check>,
) -> Option<(LoadedConfig, Context)> {
    let loaded = match LoadedConfig::load(global.config.as_deref()) {
        Ok(loaded) => loaded,
        Err(error) => {
            checks.push(Check::fail(
                "config",
                error.to_string(),
                "fix the file as the error says, or name another with --config or VANTAGE_CONFIG",
            ));
            return None;
        }
    };
    let path = loaded
        .path
        .as_ref()
        .map_or_else(|| "no config path".to_owned(), |p| p.display().to_string());
    checks.push(if loaded.exists {
        Check::ok(
            "config",
            format!("{path}{}", host::mode_text(loaded.path.as_deref())),
        )
    } else {
        Check::ok(
            "config",
            format!("no file at {path}: flags and VANTAGE_* variables only"),
        )
    });
    let name = match global.context_name() {
        Ok(name) => name,
        Err(error) => {
            checks.push(Check::fail(
                "context",
                error.to_string(),
                "give one --context",
            ));
            return None;
        }
    };
    match loaded.select_context(name, |name| std::env::var(name).ok()) {
        Ok(context) => {
            checks.push(Check::ok(
                "context",
                format!("{} (chosen by {})", context.name, context.origin),
            ));
            Some((loaded, context))
        }
        Err(error) => {
            checks.push(Check::fail(
                "context",
                error.to_string(),
                "`vantage context list` shows the contexts; choose one with --context or VANTAGE_CONTEXT",
            ));
            None
        }
    }
}

/// `[tui]` and `[keys]` read as the dashboard reads them (it refuses to start
/// on a mistake there), and the `[tui]` values in effect.
fn dashboard(loaded: &LoadedConfig) -> Check {
    match TuiSettings::from_config(loaded) {
        Ok(settings) => {
            let values: Vec<String> = settings
                .tui
                .values()
                .into_iter()
                .map(|(key, value)| match value {
                    Some(value) => format!("{key} = {value}"),
                    None => format!("{key} unset"),
                })
                .collect();
            Check::ok("dashboard", format!("[tui] {}", values.join(", ")))
        }
        Err(error) => Check::fail(
            "dashboard",
            error.to_string(),
            "fix [tui] or [keys] as the error says (README.md: the dashboard's settings)",
        ),
    }
}

/// Why an API error happened, and what to do, for a check's line.
fn api_failure(error: &ApiError) -> (String, String) {
    let fix = match error {
        ApiError::Api(response) => match (response.status, &response.kind) {
            (401, _) => "the key is refused: set a valid one (SERVICE_API_KEY, api_key_command, …)",
            (402, _) => "the workspace's plan does not include this: see the plan below",
            (403, ErrorType::InsufficientScope) => {
                "create a key with the scope named above (workspaces:read for the workspace)"
            }
            (404, _) => {
                "check workspace_id (or VANTAGE_WORKSPACE); `vantage workspaces` lists those the key reaches"
            }
            (429, _) => {
                "the key's rate limit is spent: wait for its reset, or stop what else uses the key"
            }
            _ => "see the error; retry later if the service is away",
        },
        ApiError::Transport(_) => {
            "check base_url (or VANTAGE_BASE_URL), the network, a proxy, and that the service runs"
        }
        _ => "see the error",
    };
    (error.to_string(), fix.to_owned())
}

fn is_status(error: &ApiError, status: u16) -> bool {
    matches!(error, ApiError::Api(response) if response.status == status)
}

async fn service(global: &GlobalArgs, checks: &mut Vec<Check>) {
    let session = match Session::connect(global) {
        Ok(session) => session,
        Err(error) => {
            let fix = match &error {
                // The key source named in the error: its file's mode, its command.
                SessionError::Credential(_) => {
                    "as the error says (the key source it names), or set SERVICE_API_KEY"
                }
                _ => {
                    "set base_url (or VANTAGE_BASE_URL) and a key source (SERVICE_API_KEY, api_key_env, api_key_command); see config.example.toml"
                }
            };
            checks.push(Check::fail("connection", error.to_string(), fix));
            return;
        }
    };
    let source = session
        .credential_source
        .as_ref()
        .map_or_else(|| "none".to_owned(), ToString::to_string);
    checks.push(Check::ok("key", format!("from {source}")));
    for warning in &session.warnings {
        checks.push(Check::warn("key", warning.clone(), "as the warning says"));
    }
    let base_url = session_base_url(global, &session);
    let page = PageParams { limit: Some(100) };
    let reached = match session.client.list_workspaces(&page, None).await {
        Ok(reached) => {
            checks.push(Check::ok(
                "api",
                format!(
                    "{base_url} answers (API version {}); the key reaches {} workspace(s)",
                    session.api_version,
                    reached.data.len()
                ),
            ));
            reached.data
        }
        Err(error) => {
            let (detail, fix) = api_failure(&error);
            checks.push(Check::fail("api", format!("{base_url}: {detail}"), fix));
            clock(&base_url, checks).await;
            return;
        }
    };
    let workspace_id = match &session.workspace_id {
        Some(id) => id.clone(),
        None => match reached.as_slice() {
            [only] => only.id.clone(),
            [] => {
                checks.push(Check::fail(
                    "workspace",
                    "none configured, and the key reaches none",
                    "use a key of the workspace, or set workspace_id",
                ));
                return;
            }
            several => {
                let ids: Vec<&str> = several.iter().map(|w| w.id.as_str()).collect();
                checks.push(Check::fail(
                    "workspace",
                    format!("none configured; the key reaches {}", ids.join(", ")),
                    "set workspace_id (or VANTAGE_WORKSPACE, --workspace) to one of them",
                ));
                return;
            }
        },
    };
    match session.client.get_workspace(&workspace_id).await {
        Ok(workspace) => {
            let plan = workspace
                .plan
                .as_ref()
                .map_or("unknown".to_owned(), |plan| {
                    crate::api::model::WireEnum::wire(plan).to_owned()
                });
            checks.push(Check::ok(
                "workspace",
                format!(
                    "{} ({}){}",
                    workspace.id,
                    workspace.name.as_deref().unwrap_or("no name"),
                    if session.workspace_id.is_none() {
                        ", the only one the key reaches"
                    } else {
                        ""
                    }
                ),
            ));
            checks.push(plan_check(&plan));
        }
        Err(error) => {
            let (detail, fix) = api_failure(&error);
            checks.push(Check::fail(
                "workspace",
                format!("{workspace_id}: {detail}"),
                fix,
            ));
        }
    }
    scopes(&session, &workspace_id, checks).await;
    rate_limit(&session, checks);
    clock(&base_url, checks).await;
}

fn plan_check(plan: &str) -> Check {
    match plan {
        "enterprise" => Check::ok(
            "plan",
            "enterprise: every read, the inventory and personal data too",
        ),
        "business" => Check::warn(
            "plan",
            "business: no security inventory, no personal-data findings (the dashboard's inventory and `snapshot` need enterprise)",
            "an enterprise plan for the inventory",
        ),
        other => Check::warn(
            "plan",
            format!("{other}: project and workspace reads need business or higher"),
            "a business or enterprise plan",
        ),
    }
}

/// The key's read scopes, probed with reads; write scopes are not probed,
/// since doctor never writes.
async fn scopes(session: &Session, workspace_id: &str, checks: &mut Vec<Check>) {
    let mut found = Vec::new();
    let mut missing = Vec::new();
    let params = ProjectListParams {
        workspace_id: vec![workspace_id.to_owned()],
        limit: Some(1),
    };
    let first_project = match session.client.list_projects(&params, None).await {
        Ok(page) => {
            found.push("workspaces:read");
            page.data.into_iter().next().map(|project| project.id)
        }
        Err(error) if is_status(&error, 403) => {
            missing.push("workspaces:read");
            None
        }
        Err(_) => None,
    };
    if let Some(project) = first_project {
        match session.client.get_project(&project).await {
            Ok(_) => found.push("projects:read"),
            Err(error) if is_status(&error, 403) => missing.push("projects:read"),
            Err(_) => {}
        }
    }
    let detail = format!(
        "reads: {}{}; write scopes not probed (doctor never writes)",
        if found.is_empty() {
            "none".to_owned()
        } else {
            found.join(", ")
        },
        if missing.is_empty() {
            String::new()
        } else {
            format!("; missing {}", missing.join(", "))
        }
    );
    checks.push(if missing.is_empty() {
        Check::ok("scopes", detail)
    } else {
        Check::warn(
            "scopes",
            detail,
            format!(
                "a key with {} for every screen and command",
                missing.join(" and ")
            ),
        )
    });
}

fn rate_limit(session: &Session, checks: &mut Vec<Check>) {
    let Some(state) = session.client.rate_limit_state() else {
        checks.push(Check::ok("rate limit", "the service sent none"));
        return;
    };
    let reset = state.reset.map_or_else(String::new, |at| {
        let left = (at - OffsetDateTime::now_utc()).whole_seconds().max(0);
        format!(", resets in {left} s")
    });
    let detail = format!(
        "{} of {} requests left{reset}",
        state.remaining, state.limit
    );
    checks.push(if state.remaining == 0 {
        Check::warn(
            "rate limit",
            detail,
            "spent now: commands wait for the reset; stop what else uses the key",
        )
    } else {
        Check::ok("rate limit", detail)
    });
}

fn session_base_url(global: &GlobalArgs, session: &Session) -> String {
    let raw = global
        .base_url
        .clone()
        .or_else(|| session.context.connection.base_url.clone())
        .unwrap_or_default();
    // A user or password in the URL is a secret: never shown.
    match reqwest::Url::parse(&raw) {
        Ok(mut url) if !url.username().is_empty() || url.password().is_some() => {
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.to_string().trim_end_matches('/').to_owned()
        }
        _ => raw.trim_end_matches('/').to_owned(),
    }
}

/// The host's clock against the service's `Date` header, read from an
/// answer to a request that carries no key.
async fn clock(base_url: &str, checks: &mut Vec<Check>) {
    let client = match reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
    {
        Ok(client) => client,
        Err(error) => {
            checks.push(Check::warn("clock", error.to_string(), "see the error"));
            return;
        }
    };
    let asked = std::time::SystemTime::now();
    let answer = client.get(format!("{base_url}/v1/workspaces")).send().await;
    let date = answer.ok().and_then(|answer| {
        let value = answer
            .headers()
            .get(reqwest::header::DATE)?
            .to_str()
            .ok()?
            .to_owned();
        httpdate::parse_http_date(&value).ok()
    });
    let Some(date) = date else {
        checks.push(Check::warn(
            "clock",
            "the service sent no Date header to compare with",
            "check the clock is synchronised (timedatectl, chronyc tracking)",
        ));
        return;
    };
    let (skew, ahead) = match asked.duration_since(date) {
        Ok(behind) => (behind, true),
        Err(error) => (error.duration(), false),
    };
    let detail = format!(
        "{} s {} the service's",
        skew.as_secs(),
        if ahead { "ahead of" } else { "behind" }
    );
    let fix = "synchronise the clock (timedatectl set-ntp true, chrony)";
    checks.push(if skew > CLOCK_FAIL {
        Check::fail("clock", detail, fix)
    } else if skew > CLOCK_WARN {
        Check::warn("clock", detail, fix)
    } else {
        Check::ok(
            "clock",
            format!("within {} s of the service's", CLOCK_WARN.as_secs()),
        )
    });
}

/// Where the history is, whether it answers, its schema version and, for a
/// shared one, its TLS mode. Read only: a schema is never migrated here.
fn history(global: &GlobalArgs, loaded: &LoadedConfig, context: &Context, checks: &mut Vec<Check>) {
    let config = match HistoryConfig::for_context(
        &loaded.file.other,
        &context.connection,
        global.history.as_deref(),
    ) {
        Ok(config) => config,
        Err(reason) => {
            checks.push(Check::fail(
                "history",
                reason,
                "fix [history] in the config file",
            ));
            return;
        }
    };
    let location = match config.location() {
        Ok(location) => location,
        Err(error) => {
            checks.push(Check::fail(
                "history",
                error.to_string(),
                "fix history_url, VANTAGE_HISTORY_URL or --history",
            ));
            return;
        }
    };
    if let HistoryLocation::Database(target) = &location {
        checks.push(tls_check(target));
    }
    let inspected = std::thread::scope(|scope| {
        // The blocking driver runs its own runtime: never inside this one.
        scope
            .spawn(|| inspect_schema(&location))
            .join()
            .unwrap_or_else(|_| {
                Err(crate::history::HistoryError::Corrupt(
                    "inspection stopped".into(),
                ))
            })
    });
    match inspected {
        Ok(status) if status.is_newer() => checks.push(Check::fail(
            "history",
            status.describe(),
            "upgrade vantage on this host to the team's version",
        )),
        // An empty database: the first vantage to connect creates the tables.
        Ok(status) if status.found == Some(0) => checks.push(Check::ok(
            "history",
            format!("{}: empty; the first snapshot creates the tables", status.store),
        )),
        Ok(status) if status.found.is_some() && !status.steps.is_empty() => checks.push(Check::warn(
            "history",
            status.describe(),
            "upgrade every host together: the first newer vantage migrates it, older ones are then refused (`vantage history migrate --dry-run`)",
        )),
        Ok(status) => checks.push(Check::ok("history", status.describe())),
        Err(error) => {
            let fix = if error.is_unreachable() {
                "check the host and port, sslmode, and the password source (history_password_command, PGPASSWORD, ~/.pgpass)"
            } else {
                "see the error"
            };
            checks.push(Check::fail("history", error.to_string(), fix));
        }
    }
}

fn tls_check(target: &crate::history::PgTarget) -> Check {
    use crate::history::postgres::TlsMode;
    let mode = format!("{:?}", target.tls).to_lowercase();
    match target.tls {
        TlsMode::VerifyFull => Check::ok("history tls", "sslmode=verify-full"),
        TlsMode::Require => Check::warn(
            "history tls",
            "sslmode=require: encrypted, but the server's certificate is not checked",
            "sslmode=verify-full (with sslrootcert when the CA is private)",
        ),
        _ => Check::warn(
            "history tls",
            format!("sslmode={mode}: the password and the history may cross the network in clear"),
            "sslmode=verify-full",
        ),
    }
}
