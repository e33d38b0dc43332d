//! The theme on the terminal it is drawn for (issue 24): a 16-colour terminal
//! reads only 16-colour codes, and the selected row differs in more than
//! colour in every theme and colour depth.

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use vantage::tui::app::App;
use vantage::tui::sgr16::Sgr16;
use vantage::tui::theme::{ColorDepth, ThemeName};

use crate::tui::inventory_query::inventory_with;
use crate::tui::project_facts::palette;
use crate::tui::support::NOW;
use crate::tui::support::{app_with_theme, drawn};

/// Every byte the App's frame sends to a terminal of `depth` colours.
fn frame_bytes(app: &App, sixteen: bool) -> String {
    let mut bytes = Vec::new();
    {
        let backend = CrosstermBackend::new(Sgr16::new(&mut bytes, sixteen));
        let mut terminal = Terminal::with_options(
            backend,
            ratatui::TerminalOptions {
                viewport: ratatui::Viewport::Fixed(ratatui::layout::Rect::new(0, 0, 120, 35)),
            },
        )
        .unwrap();
        terminal.draw(|frame| app.draw(frame, NOW)).unwrap();
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn assert_sixteen_colour_bytes(bytes: &str) {
    for form in ["38;5;", "48;5;", "38;2;", "48;2;"] {
        assert!(!bytes.contains(form), "{form} sent to a 16-colour terminal");
    }
}

#[test]
fn a_16_colour_terminal_gets_only_16_colour_codes_and_a_reversed_selection() {
    let depth = ColorDepth::detect(None, Some("xterm"), None);
    assert_eq!(depth, ColorDepth::Ansi16);
    let mut app = app_with_theme(ThemeName::Dark, depth);
    inventory_with(&mut app, 3, 3);
    let bytes = frame_bytes(&app, true);
    assert_sixteen_colour_bytes(&bytes);
    assert!(
        bytes.contains("\u{1b}[7m"),
        "the selected row is in reverse video"
    );
    // A theme switched later is built for the terminal's depth too.
    palette(&mut app, "theme light");
    palette(&mut app, "theme dark");
    assert_eq!(app.theme.depth, ColorDepth::Ansi16);
    assert_sixteen_colour_bytes(&frame_bytes(&app, true));
}

#[test]
fn the_selected_row_differs_in_more_than_colour_in_every_theme_and_depth() {
    use ratatui::style::Modifier;
    for name in [ThemeName::Dark, ThemeName::Light] {
        for depth in [
            ColorDepth::TrueColor,
            ColorDepth::Ansi256,
            ColorDepth::Ansi16,
            ColorDepth::None,
        ] {
            let mut app = app_with_theme(name, depth);
            inventory_with(&mut app, 3, 3);
            let frame = drawn(&app, 120, 35, NOW);
            let buffer = frame.buffer();
            // The body only: the header and tabs have reversed parts of their own.
            let reversed_rows: Vec<u16> = (2..buffer.area.height - 2)
                .filter(|&y| {
                    (0..buffer.area.width).any(|x| {
                        buffer[(x, y)].modifier.contains(Modifier::REVERSED)
                            && buffer[(x, y)].symbol() == "P"
                    })
                })
                .collect();
            assert_eq!(
                reversed_rows.len(),
                1,
                "{name:?} {depth:?}: one reversed row, the selection"
            );
        }
    }
}
