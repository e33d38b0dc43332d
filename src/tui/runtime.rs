//! The event loop: one `select!` over terminal events, API replies, client notices
//! and a deadline that exists only while something waits for it. It draws only
//! when something changed, at most 30 frames a second, inside a synchronized update.

use std::collections::HashMap;
use std::io::Write;
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream};
use crossterm::{execute, queue};
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::app::{App, Msg};
use super::effect::{Effect, Slot};
use super::notice_box::NoticeReceiver;
use super::services::ServiceSource;
use super::signals::{EndSignal, Incoming, Signals, is_suspend_key, suspend};
use super::terminal::{self, Tui};
use crate::clock::Clock;
use crate::text::Pasteable;

/// The shortest time between two frames (30 frames a second).
const FRAME: Duration = Duration::from_millis(33);

/// Why the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Quit,
    Signal(EndSignal),
    InputClosed,
}

impl Exit {
    /// The process's exit status: 128 plus the signal's number after a signal,
    /// as shells report a program that a signal ended.
    pub fn code(self) -> u8 {
        match self {
            Self::Quit | Self::InputClosed => 0,
            Self::Signal(signal) => 128 + signal.number(),
        }
    }
}

pub async fn run<E: ServiceSource>(
    terminal: &mut Tui,
    app: &mut App,
    source: E,
    clock: Clock,
    mut notices: NoticeReceiver,
) -> std::io::Result<Exit> {
    let (replies_tx, mut replies) = mpsc::unbounded_channel::<Msg>();
    let mut inflight: HashMap<Slot, JoinHandle<()>> = HashMap::new();
    let mut events = EventStream::new();
    let mut signals = Signals::new()?;
    let start = app.start(clock.now());
    dispatch(start, terminal, &source, &replies_tx, &mut inflight)?;
    let mut last_draw: Option<Instant> = None;
    let exit = loop {
        if app.dirty && last_draw.is_none_or(|at| at.elapsed() >= FRAME) {
            draw(terminal, app, &clock)?;
            app.dirty = false;
            last_draw = Some(Instant::now());
            debug_panic_after_first_frame();
        }
        let redraw_in = app
            .dirty
            .then(|| last_draw.map_or(Duration::ZERO, |at| FRAME.saturating_sub(at.elapsed())));
        let wake_in = app.next_wake().map(|at| {
            let wait = at - clock.now();
            Duration::from_millis(wait.whole_milliseconds().clamp(0, i128::from(u32::MAX)) as u64)
        });
        let msg = tokio::select! {
            event = events.next() => match event {
                Some(Ok(Event::Key(key))) if is_suspend_key(&key) => {
                    let (reader, stopped) = suspend(terminal, events, &mut signals)?;
                    events = reader;
                    app.dirty |= stopped;
                    continue;
                }
                Some(Ok(Event::Key(key))) => Msg::Key(key),
                Some(Ok(Event::Resize(_, _))) => Msg::Resize,
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => break Exit::InputClosed,
            },
            Some(msg) = replies.recv() => msg,
            Some(notice) = notices.recv() => Msg::Client(notice),
            _ = sleep_for(redraw_in), if redraw_in.is_some() => continue,
            _ = sleep_for(wake_in), if wake_in.is_some() => Msg::Wake,
            signal = signals.recv() => match signal {
                Incoming::End(signal) => break Exit::Signal(signal),
                Incoming::Stop => {
                    let (reader, stopped) = suspend(terminal, events, &mut signals)?;
                    events = reader;
                    app.dirty |= stopped;
                    continue;
                }
                Incoming::Continue => {
                    terminal::repaint(terminal)?;
                    app.dirty = true;
                    continue;
                }
            },
        };
        let effects = app.handle(msg, clock.now());
        if dispatch(effects, terminal, &source, &replies_tx, &mut inflight)? {
            break Exit::Quit;
        }
    };
    for (_, task) in inflight {
        task.abort();
    }
    Ok(exit)
}

/// Debug builds only: `VANTAGE_DEBUG_PANIC=1` panics once the first frame is on
/// screen, so tests can check that a panic restores the terminal.
fn debug_panic_after_first_frame() {
    #[cfg(debug_assertions)]
    if std::env::var_os("VANTAGE_DEBUG_PANIC").is_some_and(|value| value == "1") {
        panic!("VANTAGE_DEBUG_PANIC=1: a panic forced after the first frame");
    }
}

async fn sleep_for(duration: Option<Duration>) {
    tokio::time::sleep(duration.unwrap_or(Duration::MAX)).await;
}

/// Carries out effects; true when one of them is Quit.
fn dispatch<E: ServiceSource>(
    effects: Vec<Effect>,
    terminal: &mut Tui,
    source: &E,
    replies: &mpsc::UnboundedSender<Msg>,
    inflight: &mut HashMap<Slot, JoinHandle<()>>,
) -> std::io::Result<bool> {
    let mut quit = false;
    for effect in effects {
        match effect {
            Effect::Fetch { slot, token, job } => {
                // The newest request in a slot wins; the older one is aborted.
                if let Some(previous) = inflight.remove(&slot) {
                    previous.abort();
                }
                // The services of the context on screen now: a request after
                // a switch goes to the new context.
                let services = source.services();
                let replies = replies.clone();
                inflight.insert(
                    slot,
                    tokio::spawn(async move {
                        let answer = job.run(slot, token, services).await;
                        let _ = replies.send(Msg::Answer(answer));
                    }),
                );
            }
            Effect::Copy(text) => copy_osc52(terminal.backend_mut(), &text)?,
            Effect::Quit => quit = true,
        }
    }
    inflight.retain(|_, task| !task.is_finished());
    Ok(quit)
}

fn draw(terminal: &mut Tui, app: &App, clock: &Clock) -> std::io::Result<()> {
    queue!(
        terminal.backend_mut(),
        crossterm::terminal::BeginSynchronizedUpdate
    )?;
    let now = clock.now();
    terminal.draw(|frame| app.draw(frame, now))?;
    execute!(
        terminal.backend_mut(),
        crossterm::terminal::EndSynchronizedUpdate
    )?;
    Ok(())
}

/// Puts text on the clipboard of the terminal, local or over SSH (OSC 52):
/// only text that pastes as it looks (`Pasteable`).
pub fn copy_osc52(out: &mut impl Write, text: &Pasteable) -> std::io::Result<()> {
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_str().as_bytes());
    write!(out, "\u{1b}]52;c;{encoded}\u{7}")?;
    out.flush()
}
