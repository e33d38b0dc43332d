//! The script commands' arguments (clap). Enum flags accept exactly the
//! contract's values, listed in `--help`; repeatable filters take repeated flags
//! or comma-separated values.

use clap::{Args, Subcommand};
use time::OffsetDateTime;

use super::options::{ListArgs, OutputArgs, parse_duration, parse_instant, wire, wire_subset};

use crate::api::InventoryParams;
use crate::api::model::{
    AudienceTarget, MemberSortBy, PublishAudience, ReviewPriority, Role, SortOrder, Visibility,
};
use crate::flags::InventoryFilterArgs;

/// Review priorities of finding types (insights): `unscored` applies only to projects.
const FINDING_PRIORITIES: &[ReviewPriority] = &[
    ReviewPriority::NeedsReview,
    ReviewPriority::ReviewRecommended,
    ReviewPriority::NoReviewNeeded,
];

/// The script commands, flattened into `vantage`'s own, grouped by what they
/// need before they run: a connection, or only the local files.
#[derive(Subcommand, Debug, Clone)]
pub enum ScriptCommand {
    /// The commands that talk to the service (they connect with a key).
    #[command(flatten)]
    Service(ServiceCommand),
    /// The config file's contexts (named connections): list them, or choose one.
    #[command(subcommand)]
    Context(super::context::ContextCommand),
    /// The local review history: `snapshot`, `changes`, `reviewed`.
    #[command(flatten)]
    History(super::history::HistoryCommand),
}

/// The commands that connect to the service before they run.
#[derive(Subcommand, Debug, Clone)]
pub enum ServiceCommand {
    /// Workspace security insights: summary counts and finding types.
    Insights(InsightsArgs),
    /// The workspace's security project inventory, every page.
    Inventory(InventoryArgs),
    /// Workspace members (list), or one member (get).
    ///
    /// The table reads each listed member for name and e-mail (one request a
    /// row); the other formats write the list's items as the service sends them.
    Members(MembersArgs),
    /// Read and change projects.
    #[command(subcommand)]
    Projects(ProjectsCommand),
    /// Personal-data findings of a project, every page.
    Pii(PiiArgs),
    /// Visitor analytics of a project.
    #[command(subcommand)]
    Analytics(AnalyticsCommand),
    /// Security scans of a project, and a scan's findings.
    #[command(subcommand)]
    Scans(super::scans::ScansCommand),
    /// The workspaces the key reaches (list), or one of them (get).
    Workspaces(WorkspacesArgs),
    /// Write a report for an auditor or a ticket: posture, what needs attention,
    /// what changed, review coverage, scans, members (HTML or Markdown, one file).
    Report(Box<super::report::ReportArgs>),
}

#[derive(Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true)]
pub struct WorkspacesArgs {
    #[command(subcommand)]
    pub command: Option<WorkspacesCommand>,
    #[command(flatten)]
    pub list: ListArgs,
}

#[derive(Subcommand, Debug, Clone)]
pub enum WorkspacesCommand {
    /// One workspace.
    Get {
        workspace_id: String,
        #[command(flatten)]
        output: OutputArgs,
    },
}

#[derive(Args, Debug, Clone)]
pub struct InsightsArgs {
    /// Show only finding types of these priorities (summary counts stay workspace-wide).
    #[arg(long, value_name = "PRIORITY", value_delimiter = ',',
          value_parser = wire_subset(FINDING_PRIORITIES))]
    pub review_priority: Vec<ReviewPriority>,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Args, Debug, Clone)]
pub struct InventoryArgs {
    /// The search, sort and filters: one declaration with the dashboard's
    /// `:filter` and saved views.
    #[command(flatten)]
    pub filters: InventoryFilterArgs,
    #[command(flatten)]
    pub list: ListArgs,
}

impl InventoryArgs {
    /// The one place the flags become the client's parameters.
    pub fn params(&self) -> InventoryParams {
        self.filters.params(Some(self.list.page_size))
    }
}

#[derive(Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true)]
pub struct MembersArgs {
    #[command(subcommand)]
    pub command: Option<MembersCommand>,
    #[command(flatten)]
    pub filters: MemberFilters,
    #[command(flatten)]
    pub list: ListArgs,
}

#[derive(Args, Debug, Clone, Default)]
pub struct MemberFilters {
    /// Searches display name, username and e-mail (terms under 3 characters are ignored).
    #[arg(long, value_name = "TEXT")]
    pub query: Option<String>,
    /// Workspace role; matches any given.
    #[arg(long, value_name = "ROLE", value_delimiter = ',', value_parser = wire::<Role>())]
    pub role: Vec<Role>,
    /// Sort key (`relevance` needs --query) [default: role, then most recently joined].
    #[arg(long, value_name = "KEY", value_parser = wire::<MemberSortBy>())]
    pub sort_by: Option<MemberSortBy>,
    /// Sort direction [default: desc].
    #[arg(long, value_name = "ORDER", requires = "sort_by", value_parser = wire::<SortOrder>())]
    pub sort_order: Option<SortOrder>,
    /// Only members provisioned by an identity provider (true) or only others (false).
    #[arg(long, value_name = "BOOL")]
    pub scim_managed: Option<bool>,
}

#[derive(Subcommand, Debug, Clone)]
pub enum MembersCommand {
    /// One active member of the workspace.
    Get {
        /// The member's user UUID, as the member list gives it.
        user_id: String,
        #[command(flatten)]
        output: OutputArgs,
    },
}

#[derive(Subcommand, Debug, Clone)]
pub enum ProjectsCommand {
    /// Every project of the workspace, last edited first (`GET /v1/projects`).
    /// Several workspaces (up to 10): --workspace ID,ID,…
    List {
        #[command(flatten)]
        list: ListArgs,
    },
    /// One project.
    Get {
        project_id: String,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Rename a project (1 to 100 characters; letters, numbers, spaces and - _ . ' · & ( ) [ ] | , ! :).
    Rename {
        project_id: String,
        name: String,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Set who may open the project in the editor.
    SetVisibility {
        project_id: String,
        #[arg(value_parser = wire::<Visibility>())]
        visibility: Visibility,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Take the published app offline (succeeds when already offline). Prints
    /// `{id, result}` only when --format is given.
    Unpublish {
        project_id: String,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Publish the project; prints the deployment.
    Publish {
        project_id: String,
        /// Who may open the published app [default: the project's current setting].
        #[arg(long, value_name = "AUDIENCE", value_parser = wire::<PublishAudience>())]
        audience: Option<PublishAudience>,
        /// Follow the deployment until it completes or fails (exit 1 on failure).
        #[arg(long)]
        wait: bool,
        /// With --wait: give up after this long, e.g. 90s, 10m (exit 1).
        #[arg(long, value_name = "DURATION", default_value = "10m",
              value_parser = parse_duration, requires = "wait")]
        timeout: std::time::Duration,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Set who may open the published app: public, workspace, or custom with
    /// targets (they replace the group and user grants). Prints the settings.
    SetAudience {
        project_id: String,
        #[arg(value_parser = wire::<PublishAudience>())]
        audience: PublishAudience,
        /// A group or user of a custom audience; repeat for several.
        #[arg(long = "target", value_name = "group:ID|user:ID",
              value_parser = crate::api::model::parse_audience_target)]
        targets: Vec<AudienceTarget>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Create a URL that embeds the app in a page of one https origin; valid one hour.
    EmbedUrl {
        project_id: String,
        /// The embedding page's origin: https://host[:port], no path.
        #[arg(long, value_name = "ORIGIN")]
        origin: String,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Delete a project. Asks to type the project id unless --yes. Prints
    /// `{id, result}` only when --format is given.
    Delete {
        project_id: String,
        /// Do not ask for confirmation (required when stdin is not a terminal).
        #[arg(long, short = 'y')]
        yes: bool,
        #[command(flatten)]
        output: OutputArgs,
    },
}

#[derive(Args, Debug, Clone)]
pub struct PiiArgs {
    pub project_id: String,
    #[command(flatten)]
    pub list: ListArgs,
}

#[derive(Subcommand, Debug, Clone)]
pub enum AnalyticsCommand {
    /// Visitors of the last 30 minutes and those active in the last 5.
    Realtime {
        project_id: String,
        /// Refresh until Ctrl-C (or --count refreshes).
        #[arg(long)]
        watch: bool,
        /// Seconds between refreshes with --watch.
        #[arg(long, value_name = "SECONDS", default_value_t = 10, requires = "watch",
              value_parser = clap::value_parser!(u64).range(1..))]
        interval: u64,
        /// Stop after N refreshes with --watch.
        #[arg(long, value_name = "N", requires = "watch",
              value_parser = clap::value_parser!(u64).range(1..))]
        count: Option<u64>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Top countries, devices, pages and sources over whole UTC dates.
    Breakdowns {
        project_id: String,
        /// First day: YYYY-MM-DD (UTC) or an RFC 3339 timestamp.
        #[arg(long, value_name = "DATE", value_parser = parse_instant)]
        from: OffsetDateTime,
        /// Last day (included): YYYY-MM-DD (UTC) or an RFC 3339 timestamp.
        #[arg(long, value_name = "DATE", value_parser = parse_instant)]
        to: OffsetDateTime,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Visitors, pageviews, pageviews per visit, session duration and bounce rate over time.
    Traffic(super::traffic::TrafficArgs),
}
