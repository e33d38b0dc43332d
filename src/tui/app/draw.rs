//! How the App draws: header, tabs, the current screen, status line, footer of
//! key hints, and the help and error-log overlays. Reads the state, never changes it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Tabs, Wrap};
use time::OffsetDateTime;

use super::wake::NOTICE_SHOWN_FOR;
use super::{App, MIN_HEIGHT, MIN_WIDTH, Overlay};
use crate::text::{fit, fit_middle, sanitize_line};
use crate::tui::action::Action;
use crate::tui::nav::Tab;
use crate::tui::palette::view as palette;
use crate::tui::screens::{ScreenView, error_text};
use crate::tui::widgets::scroll::wrap_lines;
use crate::tui::widgets::{ago, centered};

/// An error in one line: its type once, then what is missing (a scope, a plan).
fn status_error_text(error: &crate::tui::effect::ErrorInfo) -> String {
    use crate::tui::effect::Gate;
    let kind = error.kind_str();
    let mut text = if error.summary.starts_with(kind) {
        error.summary.clone()
    } else {
        format!("{kind}: {}", error.summary)
    };
    match &error.gate {
        Some(Gate::Scopes(scopes)) if !scopes.iter().any(|scope| text.contains(scope.as_str())) => {
            text.push_str(&format!(": the API key lacks {}", scopes.join(" or ")));
        }
        Some(Gate::Plan(plan)) if !text.contains(plan.as_str()) => {
            text.push_str(&format!(": needs the {plan} plan"))
        }
        _ => {}
    }
    sanitize_line(&text).into_owned()
}

/// " · " between two parts of the status line, once, never at its start.
fn separate(spans: &mut Vec<Span<'static>>, theme: &crate::tui::theme::Theme) {
    if spans.last().is_some_and(|last| last.content != " · ") {
        spans.push(Span::styled(" · ", theme.dim));
    }
}

impl App {
    /// From the first 403 `insufficient_scope` on, the footer of every screen
    /// says which scope the key lacks, in few words so the hints stay.
    fn writes_disabled_short(&self) -> Option<String> {
        let scopes = self.missing_write_scope.as_ref()?;
        Some(format!("key lacks {}", scopes.join("|")))
    }

    pub fn draw(&self, frame: &mut Frame, now: OffsetDateTime) {
        let area = frame.area();
        if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
            self.draw_too_small(frame, area);
            return;
        }
        let [header, tabs, body, status, footer] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Min(5),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        self.draw_header(frame, header);
        self.draw_tabs(frame, tabs);
        // A tab about the project in focus says first when it is gone.
        let gone = self
            .focused_gone()
            .filter(|_| self.tab != Tab::Inventory && self.screen().about_focused_project());
        let view = ScreenView {
            theme: &self.theme,
            keymap: &self.settings.keymap,
            now,
            gone,
        };
        let screen_body = match gone {
            Some(gone) => {
                let [banner, rest] =
                    Layout::vertical([Constraint::Length(2), Constraint::Min(3)]).areas(body);
                let width = banner.width as usize;
                let lines = vec![
                    Line::from(Span::styled(fit(&gone.headline(), width), self.theme.warn)),
                    Line::from(Span::styled(fit(&gone.known(), width), self.theme.dim)),
                ];
                frame.render_widget(Paragraph::new(lines), banner);
                rest
            }
            None => body,
        };
        self.screen().draw(frame, screen_body, &view);
        self.draw_note(frame, body);
        self.draw_status(frame, status, now);
        self.draw_footer(frame, footer);
        match self.overlay {
            Some(Overlay::Help) => self.draw_help(frame, body),
            Some(Overlay::ErrorLog) => self.draw_error_log(frame, body, now),
            None => {}
        }
        self.draw_context_picker(frame, body);
        if self.palette.is_open() {
            let candidates = self.palette.candidates(&self.inventory.list.rows);
            palette::draw(frame, body, &self.palette, &candidates, &self.theme);
        }
    }

    fn draw_too_small(&self, frame: &mut Frame, area: Rect) {
        let text = format!(
            "Terminal too small: {}x{}. vantage needs at least {MIN_WIDTH}x{MIN_HEIGHT}. Resize, or press {} to quit.",
            area.width,
            area.height,
            self.settings.keymap.key_for(Action::Quit)
        );
        frame.render_widget(
            Paragraph::new(text)
                .wrap(Wrap { trim: true })
                .style(self.theme.warn),
            area,
        );
    }

    /// The header: who, where, and where you are. The breadcrumb (the screen
    /// and its project) always shows; the workspace is shortened first, then
    /// the API version and the plan are left out, as k9s drops header facts
    /// before its view's name.
    fn draw_header(&self, frame: &mut Frame, area: Rect) {
        use crate::text::display_width;
        let id = &self.identity;
        let crumbs: Vec<String> = self.breadcrumbs().iter().map(|c| fit(c, 40)).collect();
        let crumbs = format!(" {} ", fit(&crumbs.join(" › "), 56));
        let mut lead = vec![Span::styled(" vantage ", self.theme.tab_active)];
        if let Some(context) = self.contexts.header_name() {
            lead.push(Span::styled(
                format!(" context {} ", fit(&sanitize_line(context), 24)),
                self.theme.accent,
            ));
        }
        // The plan is the service's word: shown safe and short.
        let plan = format!(
            " plan {} ",
            id.plan.as_deref().map_or("…".into(), |plan| fit(plan, 16))
        );
        let api = format!(" API {} ", fit(&id.api_version, 12));
        let read_only = if id.read_only { " READ-ONLY " } else { "" };
        let width = |spans: &[Span]| -> usize {
            spans.iter().map(|span| display_width(&span.content)).sum()
        };
        const WORKSPACE: &str = " workspace  ";
        // The fewest characters of the workspace worth showing.
        const SHORTEST: usize = 8;
        let mut facts = vec![plan, api];
        let room_for_workspace = |facts: &[String]| -> usize {
            let used = width(&lead)
                + facts.iter().map(|f| display_width(f)).sum::<usize>()
                + display_width(read_only)
                + display_width(&crumbs)
                + display_width(WORKSPACE);
            (area.width as usize).saturating_sub(used)
        };
        while room_for_workspace(&facts) < SHORTEST && facts.pop().is_some() {}
        let room = room_for_workspace(&facts).min(40);
        let mut spans = lead;
        if room >= SHORTEST {
            spans.push(Span::styled(
                format!(" workspace {} ", fit(&id.workspace, room)),
                self.theme.header,
            ));
        }
        for fact in facts {
            spans.push(Span::styled(fact, self.theme.header));
        }
        if id.read_only {
            spans.push(Span::styled(read_only, self.theme.warn));
        }
        let room = (area.width as usize).saturating_sub(width(&spans));
        spans.push(Span::styled(fit(&crumbs, room), self.theme.title));
        frame.render_widget(
            Paragraph::new(Line::from(spans)).style(self.theme.header),
            area,
        );
    }

    fn draw_tabs(&self, frame: &mut Frame, area: Rect) {
        let titles = |title: fn(Tab) -> &'static str| -> Vec<String> {
            Tab::ALL
                .iter()
                .map(|tab| {
                    let key = self.settings.keymap.key_for(Action::ShowTab(*tab));
                    format!("{key} {}", title(*tab))
                })
                .collect()
        };
        // The widest that fits, measured (the registry decides, not a fixed
        // width): full titles, then short ones, each padded by a space on
        // either side; then short ones unpadded; at the narrowest the tab on
        // screen keeps its title and the others their key alone (btop's
        // numbered boxes, gitui's `[1]`). Tabs are divided by one column.
        let width = area.width as usize;
        let fits = |titles: &[String], pad: usize| {
            let cells: usize = titles
                .iter()
                .map(|title| crate::text::display_width(title) + 2 * pad)
                .sum();
            cells + titles.len().saturating_sub(1) <= width
        };
        let full = titles(Tab::title);
        let short = titles(Tab::short_title);
        let (titles, pad) = if fits(&full, 1) {
            (full, 1)
        } else if fits(&short, 1) {
            (short, 1)
        } else if fits(&short, 0) {
            (short, 0)
        } else {
            let keys = Tab::ALL
                .iter()
                .zip(short)
                .map(|(tab, title)| {
                    if *tab == self.tab {
                        title
                    } else {
                        self.settings.keymap.key_for(Action::ShowTab(*tab))
                    }
                })
                .collect();
            (keys, 1)
        };
        let padding = if pad == 1 { " " } else { "" };
        let tabs = Tabs::new(titles)
            .select(self.tab.index())
            .style(self.theme.tab)
            .highlight_style(self.theme.tab_active)
            .padding(padding, padding)
            .divider("│");
        frame.render_widget(tabs, area);
    }

    fn draw_status(&self, frame: &mut Frame, area: Rect, now: OffsetDateTime) {
        let theme = &self.theme;
        let mut spans = self.away_head();
        // The rate and the age: what the line says anyway, again in a moment.
        let mut ambient = Vec::new();
        if let Some((remaining, limit)) = self.status.rate {
            let style = if remaining * 10 < limit {
                theme.warn
            } else {
                theme.dim
            };
            let age = self
                .status
                .rate_at
                .map(|at| (now - at).whole_seconds())
                .filter(|age| *age >= 60)
                .map_or(String::new(), |age| format!(" ({})", ago(age)));
            ambient.push(Span::styled(
                format!("rate {remaining}/{limit}{age}"),
                style,
            ));
            ambient.push(Span::styled(" · ", theme.dim));
        }
        ambient.push(match self.screen().last_loaded() {
            Some(at) => Span::styled(
                format!("updated {}", ago((now - at).whole_seconds())),
                theme.dim,
            ),
            None => Span::styled("not loaded yet", theme.dim),
        });
        let notice = self
            .status
            .notice
            .as_ref()
            .filter(|(_, at)| now < *at + NOTICE_SHOWN_FOR)
            .map(|(text, _)| text);
        // A notice the user just caused wins the space: the rate and the
        // age make way for it when the line cannot hold them all.
        let width = |spans: &[Span]| spans.iter().map(Span::width).sum::<usize>();
        let room_for_all = notice.is_none_or(|text| {
            width(&spans) + width(&ambient) + 3 + crate::text::display_width(text)
                <= area.width as usize
        });
        if room_for_all {
            spans.append(&mut ambient);
        }
        if let Some((wait_ms, since)) = self.status.paced {
            let left = (wait_ms as i64 - (now - since).whole_milliseconds() as i64).max(0);
            separate(&mut spans, theme);
            spans.push(Span::styled(
                format!(
                    "waiting {} s for the rate limit",
                    (left as u64).div_ceil(1000).max(1)
                ),
                theme.warn,
            ));
        }
        if let Some((reason, delay_ms)) = &self.status.retrying {
            separate(&mut spans, theme);
            spans.push(Span::styled(
                format!(
                    "{}, retrying in {} s",
                    fit(reason, 40),
                    delay_ms.div_ceil(1000)
                ),
                theme.warn,
            ));
        }
        if let Some(text) = notice {
            separate(&mut spans, theme);
            // The notice gets the rest of the line. One that ends in a file's
            // path is cut in the middle, keeping the file's name and extension.
            let used: usize = spans.iter().map(Span::width).sum();
            let room = (area.width as usize).saturating_sub(used).max(24);
            let ends_in_path = text
                .rsplit(' ')
                .next()
                .is_some_and(|word| word.contains('/') && word.contains('.'));
            let text = if ends_in_path {
                fit_middle(text, room)
            } else {
                fit(text, room)
            };
            spans.push(Span::styled(text, theme.accent));
        } else if let Some(error) = self.errors.last().filter(|_| self.status.failing) {
            separate(&mut spans, theme);
            let id = error.request_id.as_deref().unwrap_or("-");
            spans.push(Span::styled(
                fit(
                    &format!(
                        "{} [{id}] ({} for log)",
                        status_error_text(error),
                        self.settings.keymap.key_for(Action::ErrorLog)
                    ),
                    area.width as usize / 2,
                ),
                theme.error,
            ));
        }
        spans.extend(self.history_status(now));
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }

    /// Key hints: the screen's first, then refresh, help and quit, which always
    /// stay; screen hints are dropped from the end when the line is too narrow.
    /// A disabled action is shown as such, with the reason once at the end.
    fn draw_footer(&self, frame: &mut Frame, area: Rect) {
        let hint = |action: Action, label: &str| -> [Span<'static>; 2] {
            [
                Span::styled(self.settings.keymap.key_for(action), self.theme.key),
                Span::styled(format!(" {label}  "), self.theme.dim),
            ]
        };
        let disabled = self.theme.dim.add_modifier(Modifier::CROSSED_OUT);
        let actions = self.screen().actions();
        // Refresh, help and quit end every footer: a screen that offers one
        // of them too is not shown it twice.
        let always = [Action::Refresh, Action::Help, Action::Quit];
        let mut screen: Vec<[Span; 2]> = actions
            .iter()
            .filter(|offered| !always.contains(&offered.action))
            .filter_map(|offered| Some((offered, offered.hint?)))
            .map(|(offered, label)| match offered.enabled() {
                true => hint(offered.action, label),
                false => [
                    Span::styled(self.settings.keymap.key_for(offered.action), disabled),
                    Span::styled(format!(" {label}  "), disabled),
                ],
            })
            .collect();
        let width = |hints: &[[Span; 2]]| -> usize {
            hints
                .iter()
                .flatten()
                .map(|span| crate::text::display_width(&span.content))
                .sum()
        };
        let warning = self
            .writes_disabled_short()
            .or_else(|| actions.iter().find_map(|offered| offered.disabled.clone()));
        let warning_width = warning.as_deref().map_or(0, crate::text::display_width);
        let fixed_width = width(&[
            hint(Action::Refresh, "refresh"),
            hint(Action::Help, "help"),
            hint(Action::Quit, "quit"),
        ]);
        let mut dropped = false;
        while !screen.is_empty()
            && width(&screen) + fixed_width + warning_width > area.width as usize
        {
            screen.pop();
            dropped = true;
        }
        // What the footer does not show, the help does: the footer then ends
        // by saying so ("? more" is as wide as "? help", so the fit holds).
        let more = dropped
            || actions
                .iter()
                .any(|offered| offered.enabled() && offered.hint.is_none());
        let fixed = if more {
            vec![
                hint(Action::Refresh, "refresh"),
                hint(Action::Quit, "quit"),
                hint(Action::Help, "more"),
            ]
        } else {
            vec![
                hint(Action::Refresh, "refresh"),
                hint(Action::Help, "help"),
                hint(Action::Quit, "quit"),
            ]
        };
        let mut spans: Vec<Span> = screen.into_iter().chain(fixed).flatten().collect();
        if let Some(why) = warning {
            spans.push(Span::styled(why, self.theme.warn));
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }

    fn draw_help(&self, frame: &mut Frame, area: Rect) {
        let mut lines = vec![Line::from(Span::styled(
            format!("{} — keys", self.screen().title()),
            self.theme.title,
        ))];
        let width = area.width.saturating_sub(4).min(100);
        // The keys in a column; a text that wraps goes on under its text.
        const KEYS: usize = 14;
        let text_width = (width.saturating_sub(2) as usize).saturating_sub(KEYS);
        let actions = self.screen().actions();
        let listed: Vec<Action> = actions.iter().map(|offered| offered.action).collect();
        let disabled = self.theme.dim.add_modifier(Modifier::CROSSED_OUT);
        // Why some keys do nothing now comes first, above the keys.
        let mut whys: Vec<&String> = actions
            .iter()
            .filter_map(|offered| offered.disabled.as_ref())
            .collect();
        whys.dedup();
        if !whys.is_empty() {
            for why in whys {
                lines.push(Line::from(Span::styled(why.clone(), self.theme.warn)));
            }
        } else if let Some(scopes) = &self.missing_write_scope {
            lines.push(Line::from(Span::styled(
                format!(
                    "changes are disabled for this session: the API key lacks {}",
                    scopes.join(" or ")
                ),
                self.theme.warn,
            )));
        }
        let mut row = |action: Action, text: &str, enabled: bool| {
            let wrapped = wrap_lines(vec![Line::raw(text.to_owned())], text_width);
            for (index, part) in wrapped.into_iter().enumerate() {
                let keys = match index {
                    0 => format!("{:>12}  ", self.settings.keymap.keys_for(action).join(" ")),
                    _ => " ".repeat(KEYS),
                };
                let mut spans = vec![Span::styled(keys, self.theme.key)];
                if enabled {
                    spans.extend(part.spans);
                } else {
                    spans.extend(part.spans.into_iter().map(|span| span.style(disabled)));
                }
                lines.push(Line::from(spans));
            }
        };
        for offered in &actions {
            row(offered.action, offered.does, offered.enabled());
        }
        // The keys every screen has, unless the screen listed them in its words.
        let mut row = |action: Action, text: &str| {
            if !listed.contains(&action) {
                row(action, text, true);
            }
        };
        if self.tab == Tab::Inventory && self.review.enabled {
            row(
                Action::MarkReviewed,
                "mark the project reviewed, with a note",
            );
            if self.project.is_none() {
                row(
                    Action::ReviewFilter,
                    "filter the rows loaded: not reviewed, changed since review, all",
                );
            }
        }
        row(Action::NextTab, "next tab");
        row(Action::PrevTab, "previous tab");
        // Every screen of the registry, by its tab key.
        for tab in Tab::ALL {
            row(Action::ShowTab(*tab), &format!("screen: {}", tab.title()));
        }
        if !self.contexts.names.is_empty() {
            row(Action::Contexts, "switch context");
        }
        row(
            Action::Palette,
            "command palette: screens, a project by id or name, actions, filter/sort/view (the inventory)",
        );
        row(Action::NavBack, "back to the previous screen or project");
        row(Action::NavForward, "forward again");
        row(Action::Refresh, "refresh");
        row(Action::ErrorLog, "error log");
        row(Action::Help, "close this help");
        row(Action::Quit, "quit");
        let rows = wrap_lines(lines.clone(), width.saturating_sub(2) as usize).len();
        let popup = centered(area, width, rows as u16 + 2);
        frame.render_widget(Clear, popup);
        // Taller than the screen: it scrolls and says how much is below.
        self.help_pane.draw(
            frame,
            popup,
            Block::default()
                .borders(Borders::ALL)
                .border_style(self.theme.accent),
            lines,
            &self.theme,
            &self.settings.keymap,
        );
    }

    fn draw_error_log(&self, frame: &mut Frame, area: Rect, now: OffsetDateTime) {
        let popup = centered(
            area,
            area.width.saturating_sub(4),
            area.height.saturating_sub(2),
        );
        frame.render_widget(Clear, popup);
        let mut lines = Vec::new();
        if self.errors.is_empty() {
            lines.push(Line::from(Span::styled(
                "No errors so far.",
                self.theme.dim,
            )));
        }
        for error in self.errors.iter().rev() {
            lines.push(Line::from(Span::styled(
                ago((now - error.at).whole_seconds()),
                self.theme.dim,
            )));
            lines.extend(error_text(error, &self.theme));
            if let Some(detail) = &error.detail {
                lines.push(Line::from(Span::styled(
                    sanitize_line(detail).into_owned(),
                    self.theme.dim,
                )));
            }
            lines.push(Line::from(""));
        }
        frame.render_widget(
            Paragraph::new(lines).wrap(Wrap { trim: true }).block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_style(self.theme.accent)
                    .title(Span::styled(
                        format!(
                            " Error log (newest first) — {} closes ",
                            self.settings.keymap.key_for(Action::Back)
                        ),
                        self.theme.title,
                    )),
            ),
            popup,
        );
    }
}
