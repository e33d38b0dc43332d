//! Progress on stderr: pages and items fetched, retries and rate-limit waits,
//! from the client's events. Drawn only when stderr is a terminal; warnings
//! (ignored query parameters, a version mismatch, a spent retry budget) are
//! printed either way, since a script's log should keep them.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tokio::sync::broadcast::error::RecvError;

use crate::api::{Client, ClientEvent};
use crate::stderr;
use crate::text::fit;

/// Redraws at most this often, so a fast export does not flood the terminal.
const REDRAW_EVERY: Duration = Duration::from_millis(100);

#[derive(Default)]
struct State {
    label: String,
    items: u64,
    pages: u64,
    /// A retry or a wait in progress.
    note: Option<String>,
    /// Show the label even without items or a note (a long wait).
    waiting: bool,
    /// Whether a progress line is on screen.
    shown: bool,
    /// The command is past its reads: warnings still print, the line never again.
    closed: bool,
    last_draw: Option<Instant>,
}

/// The progress line of one command. Cheap to clone.
#[derive(Clone)]
pub struct Progress {
    state: Arc<Mutex<State>>,
    draw: bool,
    /// Off a terminal, a line for each long wait for the rate limit: a
    /// job that succeeds is silent unless `--verbose`.
    wait_notes: bool,
}

/// Removes the line for good when dropped (so an error is never printed after
/// a stale progress line), and tells the follower to stop once it has taken
/// the events already sent. On the commands' one thread the follower runs only
/// when the command yields, which may be after this drop: stopping it outright
/// would lose the warning about the read that just ended.
pub struct ProgressTask {
    progress: Progress,
    stop: Arc<Notify>,
}

impl Drop for ProgressTask {
    fn drop(&mut self) {
        self.progress.close();
        self.stop.notify_one();
    }
}

impl Progress {
    /// Follows `client`'s events; draws only when `draw` (stderr is a terminal).
    pub fn start(client: &Client, label: &str, draw: bool) -> (Self, ProgressTask) {
        Self::start_job(client, label, draw, true)
    }

    /// As [`Progress::start`], for a job run from cron or a timer: off a
    /// terminal, waits for the rate limit are noted only when `verbose`.
    pub fn start_job(
        client: &Client,
        label: &str,
        draw: bool,
        verbose: bool,
    ) -> (Self, ProgressTask) {
        let progress = Self {
            state: Arc::new(Mutex::new(State {
                label: label.to_owned(),
                ..State::default()
            })),
            draw,
            wait_notes: verbose,
        };
        let mut events = client.subscribe();
        let follower = progress.clone();
        let stop = Arc::new(Notify::new());
        let stopped = stop.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    // Events first: those sent before the stop are still shown.
                    biased;
                    received = events.recv() => match received {
                        Ok(event) => follower.event(&event),
                        Err(RecvError::Lagged(_)) => continue,
                        Err(RecvError::Closed) => break,
                    },
                    () = stopped.notified() => break,
                }
            }
        });
        (progress.clone(), ProgressTask { progress, stop })
    }

    /// A progress line that is never drawn: for lists read from a local file.
    pub fn hidden() -> Self {
        Self {
            state: Arc::default(),
            draw: false,
            wait_notes: false,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn event(&self, event: &ClientEvent) {
        match event {
            ClientEvent::RequestDone {
                status: Some(status),
                ..
            } if (200..300).contains(status) => {
                let mut state = self.lock();
                state.pages += 1;
                state.note = None;
                self.redraw(&mut state, false);
            }
            // No progress line to show a long wait on: a line of its own, as
            // kubectl logs client-side throttling over a second.
            // (A job's notes only with --verbose: the next arm keeps it silent.)
            ClientEvent::Paced { wait, .. }
                if !self.draw && self.wait_notes && *wait >= Duration::from_secs(1) =>
            {
                self.message(&format!("note: {event}"))
            }
            ClientEvent::Retrying { .. } | ClientEvent::Paced { .. } => {
                let mut state = self.lock();
                state.note = Some(event.to_string());
                self.redraw(&mut state, true);
            }
            event if event.is_warning() => self.message(&format!("warning: {event}")),
            _ => {}
        }
    }

    /// Counts items written.
    pub fn items(&self, count: u64) {
        let mut state = self.lock();
        state.items += count;
        self.redraw(&mut state, false);
    }

    /// Shows `label…` until [`Progress::clear`], e.g. while polling.
    pub fn waiting(&self, label: impl Into<String>) {
        let mut state = self.lock();
        state.label = label.into();
        state.waiting = true;
        self.redraw(&mut state, true);
    }

    /// Prints a line on stderr, above the progress line.
    pub fn message(&self, line: &str) {
        let mut state = self.lock();
        if state.shown {
            stderr::clear_line();
            state.shown = false;
        }
        stderr::line(line);
        self.redraw(&mut state, true);
    }

    /// Removes the progress line and never draws it again.
    fn close(&self) {
        self.clear();
        self.lock().closed = true;
    }

    /// Removes the progress line; later events draw it again.
    pub fn clear(&self) {
        let mut state = self.lock();
        if state.shown {
            stderr::clear_line();
            state.shown = false;
        }
        state.waiting = false;
        state.last_draw = None;
    }

    fn redraw(&self, state: &mut State, force: bool) {
        if !self.draw || state.closed {
            return;
        }
        // Counts only for lists (items written); a single read shows only retries and waits.
        if state.items == 0 && state.note.is_none() && !state.waiting {
            if state.shown {
                stderr::clear_line();
                state.shown = false;
            }
            return;
        }
        let now = Instant::now();
        if !force
            && state
                .last_draw
                .is_some_and(|last| now.duration_since(last) < REDRAW_EVERY)
        {
            return;
        }
        let mut line = if state.items > 0 {
            format!(
                "{}: {} items, {} pages",
                state.label, state.items, state.pages
            )
        } else {
            format!("{}…", state.label)
        };
        if let Some(note) = &state.note {
            line.push_str(" — ");
            line.push_str(note);
        }
        let width = crossterm::terminal::size()
            .map(|(columns, _)| usize::from(columns))
            .unwrap_or(80)
            .saturating_sub(1);
        stderr::redraw_line(&fit(&line, width));
        state.shown = true;
        state.last_draw = Some(now);
    }
}
