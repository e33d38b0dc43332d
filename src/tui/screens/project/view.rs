//! How the project screen draws: the head line, every field of the project, the
//! inventory facts of its row, and its activity.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use time::OffsetDateTime;

use super::{ProjectScreen, WriteAccess};
use crate::api::model::{
    ActivityGroup, DeploymentStatus, InventoryItem, PublishAudience, ReviewPriority,
};
use crate::formats::row::Row;
use crate::history::ProjectState;
use crate::text::{display_width, fit, sanitize_multiline};
use crate::tui::action::Action;
use crate::tui::effect::Gate;
use crate::tui::facts::Source;
use crate::tui::screens::{ScreenView, error_text};
use crate::tui::theme::priority_label;
use crate::tui::widgets::cell::{CellView, fact_value};
use crate::tui::widgets::{ago, thousands};

/// "2026-11-20 09:30 UTC · 2 d ago", or "—".
pub(super) fn when(at: Option<OffsetDateTime>, now: OffsetDateTime) -> String {
    let Some(at) = at else {
        return "—".into();
    };
    let stamp = crate::timefmt::date_time(at);
    format!("{stamp} UTC · {}", ago((now - at).whole_seconds()))
}

/// Words to lines of at most `width` cells, at most `max_lines` of them.
pub(super) fn wrap_words(text: &str, width: usize, max_lines: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        let needed =
            display_width(&current) + usize::from(!current.is_empty()) + display_width(word);
        if needed > width && !current.is_empty() {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    if lines.len() > max_lines {
        let rest = lines[max_lines - 1..].join(" ");
        lines.truncate(max_lines - 1);
        lines.push(rest);
    }
    lines.into_iter().map(|line| fit(&line, width)).collect()
}

impl ProjectScreen {
    pub(super) fn draw_head(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        // The name as last known (a snapshot's, a row's) before "(unnamed)".
        let known = self.known_name();
        let name = known
            .as_ref()
            .map_or("(unnamed)", |(name, _)| name.as_str());
        let mut spans = vec![
            Span::styled(fit(name, area.width as usize / 2), theme.title),
            Span::styled(format!("  {}", fit(&self.target.id, 40)), theme.dim),
        ];
        if self.gone.is_some() {
            spans.push(Span::styled(
                " · gone, or not visible to this key",
                theme.warn,
            ));
        }
        if self.load_pending.is_some() {
            spans.push(Span::styled(" · loading…", theme.dim));
        }
        if let Some(kind) = self.write_pending() {
            spans.push(Span::styled(format!(" · {}", kind.doing()), theme.warn));
        }
        if self.access == WriteAccess::ReadOnly {
            spans.push(Span::styled(" · read-only", theme.dim));
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }

    /// The Project's fields, values cut to `width` cells with their labels.
    pub(super) fn project_lines(&self, view: &ScreenView, width: usize) -> Vec<Line<'static>> {
        let theme = view.theme;
        if let Some(lines) = self.gone_lines(theme, width) {
            return lines;
        }
        let Some(project) = &self.project else {
            return match &self.error {
                Some(error) => error_text(error, theme),
                None => vec![Line::from(Span::styled("Loading the project…", theme.dim))],
            };
        };
        const LABEL: usize = 15;
        let width = width.saturating_sub(LABEL).max(10);
        let row = |label: &str, value: String, style: Style| {
            Line::from(vec![
                Span::styled(format!("{label:<LABEL$}"), theme.dim),
                Span::styled(value, style),
            ])
        };
        let text = |value: Option<&str>| value.map_or_else(|| "—".to_owned(), |v| fit(v, width));
        // URLs and the audience are shown whole up to three rows: the pane
        // wraps them under their label.
        let long = |value: &str| fit(value, width * 3);
        let url = |value: Option<&str>| value.map_or_else(|| "—".to_owned(), long);
        let mut lines = vec![row(
            "Name",
            project
                .name
                .as_deref()
                .map_or_else(|| "(unnamed)".into(), |n| fit(n, width)),
            theme.title,
        )];
        let description = project
            .description
            .as_deref()
            .map(|d| sanitize_multiline(d).replace('\n', " "));
        match description {
            Some(description) => {
                for (index, line) in wrap_words(&description, width, 3).into_iter().enumerate() {
                    let label = if index == 0 { "Description" } else { "" };
                    lines.push(row(label, line, theme.base));
                }
            }
            None => lines.push(row(
                "Description",
                "none yet (the agent writes it)".into(),
                theme.dim,
            )),
        }
        let owner_name = self
            .facts
            .item()
            .and_then(|item| item.owner.display_name.as_ref())
            .or_else(|| {
                let (state, _) = self.facts.snapshot.as_ref()?;
                state.owner.as_ref()
            });
        let owner = match (owner_name, &project.owner_id) {
            (Some(name), Some(id)) => format!("{} · {}", fit(name, 30), fit(id, 40)),
            (Some(name), None) => fit(name, 30),
            (None, Some(id)) => fit(id, 40),
            (None, None) => "—".into(),
        };
        lines.push(row("Owner", fit(&owner, width), theme.base));
        lines.push(row("Workspace", fit(&project.workspace_id, 40), theme.base));
        lines.push(row(
            "Created",
            when(project.created_at, view.now),
            theme.base,
        ));
        lines.push(row(
            "Last edited",
            when(project.last_edited_at, view.now),
            theme.base,
        ));
        lines.push(row(
            "Latest commit",
            text(project.latest_commit_sha.as_deref()),
            theme.base,
        ));
        lines.push(row(
            "Screenshot",
            url(project.latest_screenshot_url.as_deref()),
            theme.accent,
        ));
        lines.push(row(
            "Preview",
            url(project.preview_url.as_deref()),
            theme.accent,
        ));
        lines.push(row(
            "Visibility",
            project
                .visibility
                .as_ref()
                .map_or_else(|| "not set".into(), |v| fit(v.as_str(), 30)),
            theme.base,
        ));
        let published = if project.is_published {
            match &project.publish_audience {
                Some(audience) => format!("yes · audience {}", fit(audience.as_str(), 30)),
                None => "yes".into(),
            }
        } else {
            "no (offline)".into()
        };
        lines.push(row(
            "Published",
            published,
            if project.is_published {
                theme.ok
            } else {
                theme.base
            },
        ));
        // Who may open the published app, in words: the targets only mean
        // something for a custom audience (the contract lists none otherwise).
        let listed = || {
            project
                .publish_audience_targets
                .iter()
                .map(|t| format!("{} {}", fit(&t.kind, 12), fit(&t.id, 40)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let targets = match &project.publish_audience {
            _ if !project.publish_audience_targets.is_empty() => listed(),
            Some(PublishAudience::Public) => "anyone with the link".to_owned(),
            Some(PublishAudience::Workspace) => "every member of the workspace".to_owned(),
            Some(PublishAudience::Custom) => "no group or user listed".to_owned(),
            Some(PublishAudience::Unknown(_)) => "—".to_owned(),
            None => "not shown while the app is offline".to_owned(),
        };
        lines.push(row("Granted to", long(&targets), theme.base));
        lines
    }

    /// The inventory's facts of the project, under the line that says where
    /// they come from and how old they are; without a row, why not and the
    /// key that loads them (never a made-up zero).
    pub(super) fn fact_lines(&self, view: &ScreenView) -> Vec<Line<'static>> {
        let theme = view.theme;
        const LABEL: usize = 15;
        let row = |label: &str, value: String| {
            Line::from(vec![
                Span::styled(format!("{label:<LABEL$}"), theme.dim),
                Span::raw(value),
            ])
        };
        if let (None, Some((state, taken_at))) = (&self.facts.row, &self.facts.snapshot) {
            return snapshot_lines(state, *taken_at, view);
        }
        let Some((item, source)) = &self.facts.row else {
            return vec![
                Line::from(vec![
                    Span::styled(format!("{:<LABEL$}", "Source"), theme.dim),
                    Span::styled("not loaded", theme.warn),
                ]),
                Line::from(Span::styled(self.facts.why_not_loaded(), theme.dim)),
                Line::from(vec![
                    Span::styled(view.keymap.key_for(Action::Refresh), theme.key),
                    Span::styled(" searches again", theme.dim),
                ]),
            ];
        };
        let mut lines = vec![
            Line::from(vec![
                Span::styled(format!("{:<LABEL$}", "Source"), theme.dim),
                Span::styled(source.describe(view.now), theme.dim),
            ]),
            Line::from(vec![
                Span::styled(format!("{:<LABEL$}", "Review"), theme.dim),
                Span::styled(
                    priority_label(&item.review_priority),
                    theme.priority(&item.review_priority),
                ),
            ]),
        ];
        let activity = match &item.activity_group {
            ActivityGroup::Last14Days => "edited in the last 14 days".to_owned(),
            ActivityGroup::Last60Days => "edited in the last 60 days".to_owned(),
            ActivityGroup::Older => "older".to_owned(),
            ActivityGroup::Unknown(raw) => fit(raw, 30),
        };
        lines.push(row("Activity", activity));
        lines.push(row(
            "Edits",
            format!(
                "{} / {} / {} (24h/7d/30d) · {} total",
                thousands(item.edits_24h),
                thousands(item.edits_7d),
                thousands(item.edits_30d),
                thousands(item.edit_count)
            ),
        ));
        lines.push(row(
            "Visitors",
            format!(
                "{} / {} / {} (24h/7d/30d)",
                thousands(item.visitors_24h),
                thousands(item.visitors_7d),
                thousands(item.visitors_30d)
            ),
        ));
        // The item's other facts, each declared with its field (`formats`).
        let fact_view = CellView {
            theme,
            width: 80,
            now: view.now,
        };
        for (label, value) in <InventoryItem as Row>::FIELDS
            .iter()
            .filter_map(|field| field.fact_of(item))
        {
            if let Some(value) = fact_value(value, &fact_view) {
                lines.push(Line::from(vec![
                    Span::styled(format!("{label:<LABEL$}"), theme.dim),
                    value,
                ]));
            }
        }
        if let Some(reason) = &item.matched_reason {
            let v = &reason.values;
            lines.push(row(
                "Counts",
                format!(
                    "open PII {} · secrets {} · shared users {} · errors {} · warnings {}",
                    v.open_pii_finding_count,
                    v.secret_count,
                    v.shared_user_count,
                    v.error_count,
                    v.warning_count
                ),
            ));
        }
        for reason in &item.review_priority_explanation {
            lines.push(Line::from(vec![
                Span::styled(
                    format!("{} ", priority_label(&reason.review_priority)),
                    theme.priority(&reason.review_priority),
                ),
                Span::raw(fit(&format!("{}: {}", reason.label, reason.detail), 90)),
            ]));
        }
        lines
    }

    /// The last write and the deployment being followed, newest facts first.
    pub(super) fn activity_lines(&self, view: &ScreenView) -> Vec<Line<'static>> {
        let theme = view.theme;
        let mut lines = Vec::new();
        if let Some(why) = self.refusal()
            && self.access != WriteAccess::ReadOnly
        {
            lines.push(Line::from(Span::styled(why, theme.warn)));
        }
        if let Some(watch) = &self.deployment {
            let deployment = &watch.deployment;
            let mut spans = vec![
                Span::styled("Deployment ", theme.dim),
                Span::raw(fit(&deployment.id, 40)),
                Span::styled(" · ", theme.dim),
            ];
            let status = fit(deployment.status.as_str(), 20);
            match &deployment.status {
                DeploymentStatus::Completed => {
                    spans.push(Span::styled(format!("✓ {status}"), theme.ok));
                    if let Some(url) = &deployment.url {
                        spans.push(Span::styled(" · ", theme.dim));
                        spans.push(Span::styled(fit(url, 80), theme.accent));
                    }
                }
                DeploymentStatus::Error => {
                    spans.push(Span::styled(format!("✗ {status}"), theme.error));
                    if let Some(class) = &deployment.error_class {
                        spans.push(Span::styled(
                            format!(" ({})", fit(class.as_str(), 20)),
                            theme.error,
                        ));
                    }
                    if let Some(message) = &deployment.error_message {
                        spans.push(Span::styled(": ", theme.dim));
                        spans.push(Span::raw(fit(message, 100)));
                    }
                }
                _ if watch.stopped.is_some() => {
                    let stopped = watch.stopped.as_deref().unwrap_or_default();
                    spans.push(Span::styled(format!("? {status}"), theme.warn));
                    spans.push(Span::styled(
                        format!(" · {}", fit(stopped, 100)),
                        theme.warn,
                    ));
                }
                _ => {
                    spans.push(Span::styled(format!("… {status}"), theme.warn));
                    // Nothing redraws on a tick, so no countdown: the interval.
                    let every = watch.interval.as_secs_f64();
                    spans.push(Span::styled(
                        format!(" · checks every {every:.0} s ({} so far)", watch.polls),
                        theme.dim,
                    ));
                }
            }
            lines.push(Line::from(spans));
            if let Some(error) = &watch.last_error {
                lines.push(Line::from(Span::styled(
                    fit(
                        &format!("last check failed: {} {}", error.kind_str(), error.summary),
                        150,
                    ),
                    theme.error,
                )));
            }
        }
        if let Some(done) = &self.last_write {
            lines.push(Line::from(Span::styled(format!("✓ {done}"), theme.ok)));
        }
        if let Some(embed) = &self.embed {
            let expired = embed.expires_at <= view.now;
            lines.push(Line::from(vec![
                Span::styled("Embed URL ", theme.dim),
                Span::styled(fit(&embed.embed_url, 100), theme.accent),
                Span::styled(
                    format!(
                        " · {} {} UTC",
                        if expired { "expired" } else { "expires" },
                        crate::timefmt::date_time(embed.expires_at)
                    ),
                    if expired { theme.error } else { theme.dim },
                ),
            ]));
        }
        if let Some(error) = &self.write_error {
            // A refusal of the name is shown on the field instead.
            let on_field = self.is_renaming()
                && matches!(&error.gate, Some(Gate::Fields(fields))
                    if fields.iter().any(|f| f.location.as_deref() == Some("body.name")));
            if !on_field {
                lines.extend(error_text(error, theme));
            }
        }
        lines
    }
}

/// The newest snapshot's state of the project, under its source and age: the
/// fields the state keeps, and "unknown" for those it does not (edits,
/// visitors, messages, last scan), never a zero or `never`.
fn snapshot_lines(
    state: &ProjectState,
    taken_at: OffsetDateTime,
    view: &ScreenView,
) -> Vec<Line<'static>> {
    let theme = view.theme;
    const LABEL: usize = 15;
    let row = |label: &str, value: String, style: Style| {
        Line::from(vec![
            Span::styled(format!("{label:<LABEL$}"), theme.dim),
            Span::styled(value, style),
        ])
    };
    let unknown = || "unknown (a snapshot does not keep it)".to_owned();
    let listed = |values: &[String]| {
        if values.is_empty() {
            "none".to_owned()
        } else {
            fit(&values.join(", "), 80)
        }
    };
    let priority = ReviewPriority::parse(&state.review_priority);
    let pii = match state.pii_open {
        Some(count) => thousands(count),
        None => "? unknown".to_owned(),
    };
    let mut lines = vec![
        row(
            "Source",
            Source::Snapshot(taken_at).describe(view.now),
            theme.dim,
        ),
        row(
            "Review",
            priority_label(&priority),
            theme.priority(&priority),
        ),
        row("Edits", unknown(), theme.dim),
        row("Visitors", unknown(), theme.dim),
        row("Messages", unknown(), theme.dim),
        row("Last scan", unknown(), theme.dim),
        row("Connectors", listed(&state.connectors), theme.base),
        row("Functions", listed(&state.edge_functions), theme.base),
        row("Open PII", pii, theme.base),
    ];
    if !state.finding_types.is_empty() {
        lines.push(row("Reasons", listed(&state.finding_types), theme.base));
    }
    lines
}
