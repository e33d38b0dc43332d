//! The signals the dashboard answers, and Ctrl-Z. SIGINT, SIGQUIT, SIGTERM and
//! SIGHUP end it with the terminal restored; SIGTSTP and Ctrl-Z suspend it as
//! vim and htop do (terminal restored, process stopped); SIGCONT repaints.

use crossterm::event::{EventStream, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::terminal::{self, Tui};

/// The signals that end the dashboard, after it restores the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndSignal {
    /// SIGINT: `kill -INT`, a supervisor; Ctrl-C in raw mode is a key (quit).
    Interrupt,
    /// SIGQUIT.
    Quit,
    /// SIGTERM.
    Terminate,
    /// SIGHUP: the terminal went away (an SSH drop).
    Hangup,
}

impl EndSignal {
    /// The signal's number, the same on every Unix for these four.
    pub fn number(self) -> u8 {
        match self {
            Self::Hangup => 1,
            Self::Interrupt => 2,
            Self::Quit => 3,
            Self::Terminate => 15,
        }
    }
}

/// Ctrl-Z, which raw mode delivers as a key rather than as SIGTSTP.
pub(super) fn is_suspend_key(key: &KeyEvent) -> bool {
    key.kind == KeyEventKind::Press
        && key.modifiers.contains(KeyModifiers::CONTROL)
        && matches!(key.code, KeyCode::Char('z' | 'Z'))
}

/// Gives the terminal back and stops until continued, then takes it again and
/// repaints. Returns the key reader to use from now on (a new one: keys typed
/// while stopped never arrive) and whether the process stopped.
///
/// Without job control (see [`terminal::job_control`]) nothing could continue
/// the process, so it does not stop, as the kernel would not stop it for
/// SIGTSTP either.
pub(super) fn suspend(
    terminal: &mut Tui,
    events: EventStream,
    signals: &mut Signals,
) -> std::io::Result<(EventStream, bool)> {
    if !terminal::job_control() {
        tracing::info!("Ctrl-Z ignored: no shell with job control could continue the process");
        return Ok((events, false));
    }
    // Dropped first: its reader thread holds crossterm's input lock, which a new
    // reader would wait for.
    drop(events);
    terminal::suspend();
    signals.resumed_here();
    terminal::resume(terminal)?;
    Ok((EventStream::new(), true))
}

/// What a signal asks of the loop.
#[derive(Clone, Copy)]
pub(super) enum Incoming {
    End(EndSignal),
    /// SIGTSTP (`kill -TSTP`): suspend as Ctrl-Z does.
    Stop,
    /// SIGCONT: repaint the whole screen.
    Continue,
}

/// SIGINT, SIGQUIT, SIGTERM and SIGHUP end the loop, so the terminal is restored
/// on the way out; SIGTSTP suspends and SIGCONT repaints.
pub(super) struct Signals {
    #[cfg(unix)]
    handlers: Vec<(tokio::signal::unix::Signal, Incoming)>,
    /// The SIGCONT that ended our own suspend is on its way; the resume has
    /// repainted already, so it is not one to act on.
    skip_continue: bool,
}

impl Signals {
    pub(super) fn new() -> std::io::Result<Self> {
        #[cfg(unix)]
        {
            use nix::libc;
            use tokio::signal::unix::{SignalKind, signal};
            let kinds = [
                (SignalKind::interrupt(), Incoming::End(EndSignal::Interrupt)),
                (SignalKind::quit(), Incoming::End(EndSignal::Quit)),
                (SignalKind::terminate(), Incoming::End(EndSignal::Terminate)),
                (SignalKind::hangup(), Incoming::End(EndSignal::Hangup)),
                (SignalKind::from_raw(libc::SIGTSTP), Incoming::Stop),
                (SignalKind::from_raw(libc::SIGCONT), Incoming::Continue),
            ];
            let handlers = kinds
                .into_iter()
                .map(|(kind, what)| Ok((signal(kind)?, what)))
                .collect::<std::io::Result<_>>()?;
            Ok(Self {
                handlers,
                skip_continue: false,
            })
        }
        #[cfg(not(unix))]
        {
            Ok(Self {
                skip_continue: false,
            })
        }
    }

    /// The next signal. Never returns once the signal driver is gone.
    /// After [`suspend`]: the next SIGCONT is the one that continued us.
    fn resumed_here(&mut self) {
        self.skip_continue = true;
    }

    pub(super) async fn recv(&mut self) -> Incoming {
        loop {
            let incoming = self.next().await;
            if matches!(incoming, Incoming::Continue) && std::mem::take(&mut self.skip_continue) {
                continue;
            }
            return incoming;
        }
    }

    async fn next(&mut self) -> Incoming {
        #[cfg(unix)]
        {
            let arrivals = self.handlers.iter_mut().map(|(handler, incoming)| {
                let incoming = *incoming;
                Box::pin(async move {
                    match handler.recv().await {
                        Some(()) => incoming,
                        None => std::future::pending().await,
                    }
                })
            });
            futures::future::select_all(arrivals).await.0
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            Incoming::End(EndSignal::Interrupt)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ctrl_z_suspends() {
        let key = |code, modifiers| KeyEvent::new(code, modifiers);
        assert!(is_suspend_key(&key(
            KeyCode::Char('z'),
            KeyModifiers::CONTROL
        )));
        assert!(is_suspend_key(&key(
            KeyCode::Char('Z'),
            KeyModifiers::CONTROL | KeyModifiers::SHIFT
        )));
        assert!(!is_suspend_key(&key(
            KeyCode::Char('z'),
            KeyModifiers::NONE
        )));
        assert!(!is_suspend_key(&key(
            KeyCode::Char('c'),
            KeyModifiers::CONTROL
        )));
    }
}
