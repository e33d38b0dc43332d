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

/// `[tui] theme`.
impl crate::config::keys::KeyValue for ThemeName {
    fn kind() -> String {
        "`dark` or `light`".into()
    }

    fn shown(&self) -> Option<String> {
        Some(
            match self {
                Self::Dark => "dark",
                Self::Light => "light",
            }
            .into(),
        )
    }
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
    /// The terminal's depth the colours were chosen for: a theme switched
    /// later (`:theme`) is built for it too.
    pub depth: ColorDepth,
}

/// How many colours the terminal shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorDepth {
    TrueColor,
    Ansi256,
    Ansi16,
    /// `NO_COLOR`, or `TERM=dumb`: bold, dim and reverse only.
    None,
}

impl ColorDepth {
    /// From the environment: `NO_COLOR`, `TERM` and `COLORTERM`.
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok();
        Self::detect(
            var("NO_COLOR").as_deref(),
            var("TERM").as_deref(),
            var("COLORTERM").as_deref(),
        )
    }

    /// The depth for these values of `NO_COLOR`, `TERM` and `COLORTERM`.
    pub fn detect(no_color: Option<&str>, term: Option<&str>, colorterm: Option<&str>) -> Self {
        if no_color.is_some_and(|value| !value.is_empty()) {
            return Self::None;
        }
        let term = term.unwrap_or_default();
        if term == "dumb" {
            return Self::None;
        }
        if matches!(colorterm, Some("truecolor" | "24bit")) {
            return Self::TrueColor;
        }
        if term.contains("256color") {
            return Self::Ansi256;
        }
        Self::Ansi16
    }
}

impl Theme {
    /// The theme for a terminal of `depth` colours: 24-bit colours become the
    /// nearest of the 256 or 16 the terminal has.
    pub fn for_terminal(name: ThemeName, depth: ColorDepth) -> Self {
        let mut theme = Self::new(name, depth == ColorDepth::None);
        theme.depth = depth;
        match depth {
            ColorDepth::TrueColor | ColorDepth::None => theme,
            ColorDepth::Ansi256 | ColorDepth::Ansi16 => theme.map_colors(|color| match color {
                Color::Rgb(r, g, b) if depth == ColorDepth::Ansi256 => {
                    Color::Indexed(rgb_to_256(r, g, b))
                }
                Color::Rgb(r, g, b) => rgb_to_16(r, g, b),
                other => other,
            }),
        }
    }

    fn map_colors(mut self, f: impl Fn(Color) -> Color) -> Self {
        for style in [
            &mut self.base,
            &mut self.header,
            &mut self.tab,
            &mut self.tab_active,
            &mut self.title,
            &mut self.dim,
            &mut self.selected,
            &mut self.border,
            &mut self.accent,
            &mut self.error,
            &mut self.warn,
            &mut self.ok,
            &mut self.critical,
            &mut self.key,
        ] {
            style.fg = style.fg.map(&f);
            style.bg = style.bg.map(&f);
        }
        self
    }

    /// The theme on a truecolor terminal, or without colours; only
    /// [`Theme::for_terminal`] builds one, for the terminal's depth.
    fn new(name: ThemeName, no_color: bool) -> Self {
        if no_color {
            return Self::monochrome();
        }
        match name {
            ThemeName::Dark => Self::dark(),
            ThemeName::Light => Self::light(),
        }
    }

    /// The selected row, in every theme and depth: reverse video of the
    /// terminal's own colours (as htop and mutt do), readable whatever its
    /// palette, and bold, so that it differs in more than colour. A fixed
    /// background went unseen where it equals the text's colour (issue 24).
    const SELECTED: Style = Style::new().add_modifier(Modifier::REVERSED.union(Modifier::BOLD));

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
            selected: Self::SELECTED,
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
            depth: ColorDepth::TrueColor,
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
            selected: Self::SELECTED,
            border: Style::default().fg(Color::Gray),
            accent: Style::default().fg(Color::Blue),
            error: Style::default().fg(Color::Red),
            warn: Style::default().fg(Color::Rgb(160, 100, 0)),
            ok: Style::default().fg(Color::Rgb(0, 120, 0)),
            critical: Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
            key: Style::default()
                .fg(Color::Blue)
                .add_modifier(Modifier::BOLD),
            depth: ColorDepth::TrueColor,
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
            selected: Self::SELECTED,
            border: plain,
            accent: plain.add_modifier(Modifier::BOLD),
            error: plain.add_modifier(Modifier::BOLD),
            warn: plain,
            ok: plain,
            critical: plain.add_modifier(Modifier::BOLD),
            key: plain.add_modifier(Modifier::BOLD),
            depth: ColorDepth::None,
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

/// The nearest colour of the xterm 256-colour cube (16 to 231) or grey ramp.
fn rgb_to_256(r: u8, g: u8, b: u8) -> u8 {
    let level = |v: u8| -> u8 {
        if v < 48 {
            0
        } else if v < 115 {
            1
        } else {
            (v - 35) / 40
        }
    };
    if r == g && g == b {
        return match r {
            0..=7 => 16,
            249..=255 => 231,
            v => 232 + (v - 8) / 10,
        };
    }
    16 + 36 * level(r) + 6 * level(g) + level(b)
}

/// The nearest of the 16 named colours, by brightness and hue.
fn rgb_to_16(r: u8, g: u8, b: u8) -> Color {
    let max = r.max(g).max(b);
    let bright = max > 170;
    let on = |v: u8| u16::from(v) * 2 > u16::from(max) && max > 60;
    // Each hue as (normal, bright).
    let (normal, light) = match (on(r), on(g), on(b)) {
        (false, false, false) if max < 60 => return Color::Black,
        (false, false, false) => return Color::DarkGray,
        (true, true, true) => (Color::Gray, Color::White),
        (true, false, false) => (Color::Red, Color::LightRed),
        (false, true, false) => (Color::Green, Color::LightGreen),
        (false, false, true) => (Color::Blue, Color::LightBlue),
        (true, true, false) => (Color::Yellow, Color::LightYellow),
        (true, false, true) => (Color::Magenta, Color::LightMagenta),
        (false, true, true) => (Color::Cyan, Color::LightCyan),
    };
    if bright { light } else { normal }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_the_terminal() {
        use ColorDepth::*;
        assert_eq!(
            ColorDepth::detect(Some("1"), Some("xterm-256color"), Some("truecolor")),
            None
        );
        assert_eq!(
            ColorDepth::detect(Option::None, Some("dumb"), Some("truecolor")),
            None
        );
        assert_eq!(
            ColorDepth::detect(Some(""), Some("xterm"), Some("24bit")),
            TrueColor
        );
        assert_eq!(
            ColorDepth::detect(Option::None, Some("screen-256color"), Option::None),
            Ansi256
        );
        assert_eq!(
            ColorDepth::detect(Option::None, Some("xterm"), Option::None),
            Ansi16
        );
        let no_rgb = |theme: &Theme| {
            [theme.header, theme.selected, theme.warn]
                .iter()
                .flat_map(|s| [s.fg, s.bg])
                .flatten()
                .all(|c| !matches!(c, Color::Rgb(..)))
        };
        for name in [ThemeName::Dark, ThemeName::Light] {
            assert!(no_rgb(&Theme::for_terminal(name, Ansi256)));
            assert!(no_rgb(&Theme::for_terminal(name, Ansi16)));
            let mono = Theme::for_terminal(name, None);
            assert!(mono.header.fg.is_none() && mono.header.bg.is_none());
        }
        assert_eq!(rgb_to_256(30, 34, 48), 17);
        assert_eq!(rgb_to_256(255, 255, 255), 231);
        assert_eq!(rgb_to_16(160, 100, 0), Color::Yellow);
    }
}
