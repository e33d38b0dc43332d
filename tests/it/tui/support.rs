//! Helpers shared by the dashboard's state-model tests.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use time::OffsetDateTime;
use time::macros::datetime;
use vantage::api::model::InventoryPage;
use vantage::tui::app::{App, Identity, Msg};
use vantage::tui::effect::{Effect, ErrorInfo, Gate, Slot};

use crate::common::items::inventory_item;
use vantage::tui::request::{Answer, Job, Message, Operation};
use vantage::tui::screens::inventory::bulk::RowOutcome;
use vantage::tui::settings::{AppSettings, TuiSettings};
use vantage::tui::theme::{ColorDepth, ThemeName};

/// The default keys and refresh, `theme` on a terminal of `depth` colours,
/// exports to the temporary directory.
pub fn settings(theme: ThemeName, depth: ColorDepth) -> AppSettings {
    let mut tui = TuiSettings::default();
    tui.tui.theme = theme;
    AppSettings::new(&tui, depth, std::env::temp_dir())
}

/// A fresh App on a workspace without a plan, in the dark theme.
pub fn app() -> App {
    app_with_theme(ThemeName::Dark, ColorDepth::TrueColor)
}

/// A fresh App on a workspace without a plan, in `theme` for `depth`.
pub fn app_with_theme(theme: ThemeName, depth: ColorDepth) -> App {
    App::new(
        Identity {
            workspace: "ws_test".into(),
            workspace_id: "ws_test".into(),
            plan: None,
            api_version: "2026-09-11".into(),
            read_only: false,
        },
        settings(theme, depth),
    )
}

/// A plain character key.
pub fn key(ch: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(ch), KeyModifiers::NONE))
}

/// A key without a character (Enter, Esc, arrows …), no modifiers.
pub fn special(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// One request among effects, as a test looks at it and answers it.
#[derive(Debug, Clone, PartialEq)]
pub struct Fetch {
    pub slot: Slot,
    pub token: u64,
    pub job: Job,
}

impl Fetch {
    /// The operation, when it is an `O`.
    pub fn operation<O: Operation>(&self) -> Option<&O> {
        self.job.operation()
    }

    /// The operation, which must be an `O`.
    #[track_caller]
    pub fn op<O: Operation>(&self) -> &O {
        match self.operation() {
            Some(operation) => operation,
            None => panic!("{:?} is not a {}", self.job, std::any::type_name::<O>()),
        }
    }

    /// The message the runtime would deliver had the operation returned `result`.
    #[track_caller]
    pub fn answer<T: Send + 'static>(&self, result: Result<T, ErrorInfo>) -> Msg {
        match self.job.answer(self.slot, self.token, result) {
            Some(answer) => Msg::Answer(answer),
            None => panic!(
                "{:?} does not answer a {}",
                self.job,
                std::any::type_name::<T>()
            ),
        }
    }

    /// [`Fetch::answer`] with `Ok(value)`.
    #[track_caller]
    pub fn ok<T: Send + 'static>(&self, value: T) -> Msg {
        self.answer(Ok(value))
    }

    /// The message the runtime would deliver had the operation failed with `error`.
    pub fn fail(&self, error: ErrorInfo) -> Msg {
        Msg::Answer(self.job.fail(self.slot, self.token, error))
    }
}

/// Every request among effects.
pub fn asked(effects: &[Effect]) -> Vec<Fetch> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Fetch { slot, token, job } => Some(Fetch {
                slot: *slot,
                token: *token,
                job: job.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// The requests among effects in `slot` (any lane of it).
pub fn asked_in(effects: &[Effect], slot: Slot) -> Vec<Fetch> {
    asked(effects)
        .into_iter()
        .filter(|fetch| fetch.slot.is(slot))
        .collect()
}

/// The one request among effects in `slot`.
#[track_caller]
pub fn only(effects: &[Effect], slot: Slot) -> Fetch {
    let mut found = asked_in(effects, slot);
    assert_eq!(found.len(), 1, "one {slot:?} request in {effects:?}");
    found.remove(0)
}

/// How each row of the last bulk run ended, in row order.
pub fn bulk_outcomes(app: &App) -> Vec<RowOutcome> {
    app.inventory
        .bulk
        .results()
        .into_iter()
        .map(|(_, outcome)| outcome)
        .collect()
}

/// The message of an answer in `slot` with `token`, made by its owner's
/// `to_message` of `result`, as the runtime would deliver it.
pub fn answer<T, M: Message>(
    slot: Slot,
    token: u64,
    result: Result<T, ErrorInfo>,
    to_message: fn(Result<T, ErrorInfo>) -> M,
) -> Msg {
    Msg::Answer(Answer::of(slot, token, result, to_message))
}

/// The first request among effects in `slot` (any lane of it), if any.
pub fn first_in(effects: &[Effect], slot: Slot) -> Option<Fetch> {
    asked_in(effects, slot).into_iter().next()
}

/// Runs `operation` on the services of `executor`, as the runtime would.
pub async fn run_on<O: Operation>(
    executor: &impl vantage::tui::services::ServiceSource,
    operation: O,
) -> Result<O::Output, ErrorInfo> {
    operation.run(&executor.services()).await
}

// --- The inventory's requests (typed) ------------------------------------------

/// The requests among effects in `slot` whose operation is an `O`: (token,
/// operation), in the order asked.
pub fn inventory_asked<O: Operation>(effects: &[Effect], slot: Slot) -> Vec<(u64, O)> {
    asked_in(effects, slot)
        .into_iter()
        .filter_map(|fetch| Some((fetch.token, fetch.operation::<O>()?.clone())))
        .collect()
}

/// The inventory's page requests among effects: (token, operation).
pub fn inventory_pages(effects: &[Effect]) -> Vec<(u64, vantage::tui::ops::ListInventory)> {
    inventory_asked(effects, vantage::tui::screens::inventory::PAGE)
}

/// The inventory list's page `page`, as the answer to its request `token`.
pub fn answer_inventory_page(token: u64, page: vantage::api::model::InventoryPage) -> Msg {
    use vantage::tui::screens::inventory;
    answer(inventory::PAGE, token, Ok(page), inventory::Msg::Page)
}

/// The inventory's bulk changes among effects, each a visibility set or an
/// unpublish: (token, project id).
#[track_caller]
pub fn inventory_bulk(effects: &[Effect]) -> Vec<(u64, String)> {
    use vantage::tui::ops::{Unpublish, UpdateProject};
    asked_in(effects, vantage::tui::screens::inventory::BULK)
        .into_iter()
        .map(|fetch| {
            let id = match (
                fetch.operation::<UpdateProject>(),
                fetch.operation::<Unpublish>(),
            ) {
                (Some(update), _) => update.project_id.clone(),
                (_, Some(unpublish)) => unpublish.project_id.clone(),
                _ => panic!("not a bulk change: {:?}", fetch.job),
            };
            (fetch.token, id)
        })
        .collect()
}

// --- The App drawn, cut into the parts it lays out ---------------------------------

/// The App drawn at `now` on a `width`×`height` `TestBackend`.
///
/// Snapshot [`Drawn::body`], the screen's own area, unless the subject is the
/// frame around it: then [`Drawn::with_status`] (the status line and the key
/// hints are the point) or [`Drawn::full`]. Adding a tab then changes only the
/// snapshots whose subject is the frame, and the help's, which lists every
/// tab (a replay: 8 of 64). The full frames kept on purpose:
/// - `served_demo::insights_80x24` and `insights_120x35`: the tab bar's short
///   and full titles, and the header as it fits each width;
/// - `contexts::picker_100x24`: the header with a context's name;
/// - `served_demo::inventory_help_120x35`: the help overlay, which lists every
///   tab's key;
/// - `served_demo::too_small_50x10`: the too-small notice, drawn instead of
///   the frame;
/// - `served_demo::narrow_60x16`: the smallest terminal drawn whole, where the
///   header, the tab bar and the footer each give up what they first drop;
/// - `served_demo::insights_light_80x24` and `insights_no_color_80x24`: the
///   themes' styles, of the frame as much as of the screen.
pub fn drawn(app: &App, width: u16, height: u16, now: time::OffsetDateTime) -> Drawn {
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| app.draw(frame, now)).unwrap();
    let backend = terminal.backend();
    Drawn {
        rows: backend.to_string().lines().map(str::to_owned).collect(),
        buffer: backend.buffer().clone(),
    }
}

/// A drawn frame: its rows as `TestBackend` prints them (each quoted, so
/// trailing blanks show) and its cells with their styles.
pub struct Drawn {
    rows: Vec<String>,
    buffer: ratatui::buffer::Buffer,
}

/// The rows above the screen's area: the header and the tab bar.
const ABOVE: usize = 2;
/// The rows below it: the status line and the footer of key hints.
const BELOW: usize = 2;

impl Drawn {
    /// Every row, the frame around the screen included.
    pub fn full(&self) -> String {
        self.join(0..self.rows.len())
    }

    /// The screen's own area: below the tab bar, above the status line.
    #[track_caller]
    pub fn body(&self) -> String {
        self.join(ABOVE..self.chrome_checked() - BELOW)
    }

    /// The screen's area with the status line and the footer of key hints
    /// under it, for a test about a notice, the status or the hints.
    #[track_caller]
    pub fn with_status(&self) -> String {
        self.join(ABOVE..self.chrome_checked())
    }

    /// The header row, quoted.
    #[track_caller]
    pub fn header(&self) -> &str {
        self.chrome_checked();
        &self.rows[0]
    }

    /// The tab bar's row, quoted.
    #[track_caller]
    pub fn tabs(&self) -> &str {
        self.chrome_checked();
        &self.rows[1]
    }

    /// The status line's row, quoted.
    #[track_caller]
    pub fn status(&self) -> &str {
        &self.rows[self.chrome_checked() - BELOW]
    }

    /// The cells, with their styles.
    pub fn buffer(&self) -> &ratatui::buffer::Buffer {
        &self.buffer
    }

    /// The number of rows, after checking the frame was drawn with its
    /// chrome (a terminal too small shows a notice instead).
    #[track_caller]
    fn chrome_checked(&self) -> usize {
        let area = self.buffer.area;
        assert!(
            area.width >= vantage::tui::app::MIN_WIDTH
                && area.height >= vantage::tui::app::MIN_HEIGHT,
            "{}x{} is too small to have a header, tabs and a status line",
            area.width,
            area.height
        );
        self.rows.len()
    }

    fn join(&self, rows: std::ops::Range<usize>) -> String {
        let mut text = self.rows[rows].join("\n");
        text.push('\n');
        text
    }
}

// --- What the screens' state models share (a clock, errors, the inventory) ----------

pub(crate) const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

pub(crate) fn error(status: Option<u16>, kind: Option<&str>, gate: Option<Gate>) -> ErrorInfo {
    ErrorInfo {
        status,
        kind: kind.map(Into::into),
        detail: None,
        request_id: Some("req_test".into()),
        summary: match kind {
            Some(kind) => format!("{kind} (HTTP {})", status.unwrap_or(0)),
            None => "cannot connect to the service".into(),
        },
        gate,
        at: NOW,
    }
}

pub(crate) fn transport_error() -> ErrorInfo {
    error(None, None, None)
}

/// The App drawn at `NOW`.
pub(crate) fn screen(app: &App, width: u16, height: u16) -> Drawn {
    drawn(app, width, height, NOW)
}

/// The whole frame, as text.
pub(crate) fn text(frame: &Drawn) -> String {
    frame.full()
}

// --- Inventory selection ---------------------------------------------------------

pub(crate) fn inventory_page(count: usize) -> InventoryPage {
    let names = [
        "Budget tracker",
        "Clinic portal",
        "Garden map",
        "Fleet planner",
    ];
    let data: Vec<_> = (0..count)
        .map(|n| {
            inventory_item(json!({"id": format!("prj_{n:04}"), "name": names[n % names.len()]}))
        })
        .collect();
    serde_json::from_value(json!({
        "data": data,
        "pagination": {"has_more": false, "next_cursor": null},
        "total": count, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap()
}

/// Loads the inventory with `count` projects; the first one is selected.
pub(crate) fn with_inventory(app: &mut App, count: usize) {
    app.start(NOW);
    show_inventory(app, count);
}

/// Opens the inventory tab and answers its first page with `count` rows.
pub(crate) fn show_inventory(app: &mut App, count: usize) {
    let effects = app.handle(key('2'), NOW);
    let (token, _) = inventory_pages(&effects)[0].clone();
    app.handle(answer_inventory_page(token, inventory_page(count)), NOW);
}
