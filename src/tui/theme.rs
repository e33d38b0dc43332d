//! Colours. Meaning is never carried by colour alone: every priority also has a
//! symbol and a word. `NO_COLOR` keeps only bold, dim and reverse.

use ratatui::style::{Color, Modifier, Style};
use serde::{Deserialize, Serialize};

use crate::api::model::ReviewPriority;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThemeName {
    #[default]
    Dark,
    Light,
}

#[derive(Debug, Clone)]
pub struct Theme {
    pub base: Style,
    pub header: Style,
    pub tab: Style,
    pub tab_active: Style,
    pub title: Style,
    pub dim: Style,
    pub selected: Style,
    pub border: Style,
    pub accent: Style,
    pub error: Style,
    pub warn: Style,
    pub ok: Style,
    pub critical: Style,
    pub key: Style,
}

impl Theme {
    /// The theme to use: `NO_COLOR` (any value) wins over the name.
    pub fn new(name: ThemeName, no_color: bool) -> Self {
        if no_color {
            return Self::monochrome();
        }
        match name {
            ThemeName::Dark => Self::dark(),
            ThemeName::Light => Self::light(),
        }
    }

    /// Whether `NO_COLOR` is set to a non-empty value (no-color.org).
    pub fn no_color_from_env() -> bool {
        std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty())
    }

    fn dark() -> Self {
        Self {
            base: Style::default(),
            header: Style::default().fg(Color::White).bg(Color::Rgb(30, 34, 48)),
            tab: Style::default().fg(Color::Gray),
            tab_active: Style::default()
                .fg(Color::Black)
                .bg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
            title: Style::default()
                .fg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
            dim: Style::default().fg(Color::DarkGray),
            selected: Style::default()
                .bg(Color::Rgb(45, 55, 80))
                .add_modifier(Modifier::BOLD),
            border: Style::default().fg(Color::DarkGray),
            accent: Style::default().fg(Color::Cyan),
            error: Style::default().fg(Color::LightRed),
            warn: Style::default().fg(Color::Yellow),
            ok: Style::default().fg(Color::Green),
            critical: Style::default()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD),
            key: Style::default()
                .fg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
        }
    }

    fn light() -> Self {
        Self {
            base: Style::default(),
            header: Style::default()
                .fg(Color::Black)
                .bg(Color::Rgb(220, 226, 240)),
            tab: Style::default().fg(Color::DarkGray),
            tab_active: Style::default()
                .fg(Color::White)
                .bg(Color::Blue)
                .add_modifier(Modifier::BOLD),
            title: Style::default()
                .fg(Color::Blue)
                .add_modifier(Modifier::BOLD),
            dim: Style::default().fg(Color::Gray),
            selected: Style::default()
                .bg(Color::Rgb(200, 215, 245))
                .add_modifier(Modifier::BOLD),
            border: Style::default().fg(Color::Gray),
            accent: Style::default().fg(Color::Blue),
            error: Style::default().fg(Color::Red),
            warn: Style::default().fg(Color::Rgb(160, 100, 0)),
            ok: Style::default().fg(Color::Rgb(0, 120, 0)),
            critical: Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
            key: Style::default()
                .fg(Color::Blue)
                .add_modifier(Modifier::BOLD),
        }
    }

    fn monochrome() -> Self {
        let plain = Style::default();
        Self {
            base: plain,
            header: plain.add_modifier(Modifier::REVERSED),
            tab: plain,
            tab_active: plain.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            title: plain.add_modifier(Modifier::BOLD),
            dim: plain.add_modifier(Modifier::DIM),
            selected: plain.add_modifier(Modifier::REVERSED),
            border: plain,
            accent: plain.add_modifier(Modifier::BOLD),
            error: plain.add_modifier(Modifier::BOLD),
            warn: plain,
            ok: plain,
            critical: plain.add_modifier(Modifier::BOLD),
            key: plain.add_modifier(Modifier::BOLD),
        }
    }

    pub fn priority(&self, priority: &ReviewPriority) -> Style {
        match priority {
            ReviewPriority::NeedsReview => self.critical,
            ReviewPriority::ReviewRecommended => self.warn,
            ReviewPriority::NoReviewNeeded => self.ok,
            ReviewPriority::Unscored | ReviewPriority::Unknown(_) => self.dim,
        }
    }
}

/// A review priority as symbol and words, so it reads without colour.
pub fn priority_label(priority: &ReviewPriority) -> String {
    match priority {
        ReviewPriority::NeedsReview => "▲ needs review".into(),
        ReviewPriority::ReviewRecommended => "● recommended".into(),
        ReviewPriority::NoReviewNeeded => "✓ no review".into(),
        ReviewPriority::Unscored => "· unscored".into(),
        ReviewPriority::Unknown(raw) => format!("? {}", crate::text::sanitize_line(raw)),
    }
}
