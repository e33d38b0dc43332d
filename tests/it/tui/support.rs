//! Helpers shared by the dashboard's state-model tests.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use vantage::tui::app::{App, Identity, Msg};
use vantage::tui::effect::{Effect, ErrorInfo, Slot};
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
