//! Entering and leaving the terminal's full-screen mode. The terminal is restored
//! on quit, on panic, and on SIGINT, SIGQUIT, SIGTERM and SIGHUP (an SSH drop),
//! whichever comes first, and only once. Ctrl-Z gives the terminal back to the
//! shell while the process is stopped, as vim and htop do.

use std::io::{Stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use super::anchored::Anchored;
use ratatui::layout::Rect;

use super::sgr16::Sgr16;
use super::theme::ColorDepth;

/// Output is held until the frame is done, so that a frame reaches the
/// terminal in one write ([`FrameWriter`]), a 16-colour terminal gets only
/// 16-colour codes (`sgr16.rs`), and each cell lands where the frame has it,
/// whatever width the terminal gives a character (`anchored.rs`).
pub type Tui = Terminal<Anchored<CrosstermBackend<Sgr16<FrameWriter>>>>;

/// Begins and ends a synchronized update (DEC private mode 2026).
pub const BEGIN_SYNCHRONIZED: &[u8] = b"\x1b[?2026h";
pub const END_SYNCHRONIZED: &[u8] = b"\x1b[?2026l";

/// The terminal's bytes, held until ratatui flushes at the end of a frame,
/// then written at once inside a synchronized update (DEC mode 2026: a
/// terminal that knows it shows the frame whole; one that does not ignores
/// it). A fixed buffer flushed when full let the terminal show half a frame
/// (the new head line over the old screen's body) once a frame outgrew it, as
/// one with many non-ASCII cells, each placed by a cursor move, does.
pub struct FrameWriter {
    frame: Vec<u8>,
    out: Stdout,
}

impl FrameWriter {
    fn new(out: Stdout) -> Self {
        Self {
            frame: Vec::with_capacity(64 * 1024),
            out,
        }
    }
}

impl Write for FrameWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.frame.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.frame.is_empty() {
            return self.out.flush();
        }
        let mut out = self.out.lock();
        let written = out
            .write_all(BEGIN_SYNCHRONIZED)
            .and_then(|()| out.write_all(&self.frame))
            .and_then(|()| out.write_all(END_SYNCHRONIZED));
        self.frame.clear();
        written?;
        out.flush()
    }
}

/// Whether the terminal is in full-screen mode now.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Raw mode, the alternate screen, a hidden cursor; mouse capture stays off.
pub fn enter() -> std::io::Result<Tui> {
    install_panic_hook();
    take_over()?;
    let sixteen = ColorDepth::from_env() == ColorDepth::Ansi16;
    let held = FrameWriter::new(std::io::stdout());
    let backend = Anchored::new(CrosstermBackend::new(Sgr16::new(held, sixteen)));
    match Terminal::new(backend) {
        Ok(terminal) => Ok(terminal),
        Err(err) => {
            restore();
            Err(err)
        }
    }
}

fn take_over() -> std::io::Result<()> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    if let Err(err) = execute!(std::io::stdout(), EnterAlternateScreen, cursor::Hide) {
        restore();
        return Err(err);
    }
    Ok(())
}

/// Back to the main screen in cooked mode with the cursor shown. Safe to call more
/// than once, and from a panic hook.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let mut stdout = std::io::stdout();
        let _ = execute!(
            stdout,
            crossterm::terminal::EndSynchronizedUpdate,
            LeaveAlternateScreen,
            cursor::Show
        );
        let _ = disable_raw_mode();
        let _ = stdout.flush();
    }
}

/// Whether a shell with job control can continue this process after a stop:
/// its process group is not the session leader's. Without (`ssh -t host
/// vantage`, `tmux new vantage`, a supervisor), a stopped process would wait
/// for a SIGCONT that nothing sends, with the session frozen.
pub fn job_control() -> bool {
    #[cfg(unix)]
    {
        use nix::unistd::{getpgrp, getsid};
        getsid(None).is_ok_and(|session| session != getpgrp())
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// Ctrl-Z: restores the terminal and stops the process; returns once something
/// (the shell's `fg`, or `kill -CONT`) continues it. The caller then calls
/// [`resume`].
///
/// SIGSTOP, which cannot be caught: SIGTSTP would only come back to the
/// dashboard's own handler.
pub fn suspend() {
    restore();
    #[cfg(unix)]
    if let Err(err) = nix::sys::signal::raise(nix::sys::signal::Signal::SIGSTOP) {
        tracing::warn!("cannot stop the process: {err}");
    }
}

/// After [`suspend`]: full-screen mode again, with the keys typed meanwhile
/// thrown away, and the screen cleared so that the next draw repaints all of it
/// (the shell has written over it).
pub fn resume(terminal: &mut Tui) -> std::io::Result<()> {
    take_over_again()?;
    discard_typeahead();
    repaint_all(terminal)
}

/// On SIGCONT: the process was stopped from outside (its terminal still raw) and
/// whatever ran meanwhile may have written over the screen.
pub fn repaint(terminal: &mut Tui) -> std::io::Result<()> {
    take_over_again()?;
    repaint_all(terminal)
}

fn take_over_again() -> std::io::Result<()> {
    if ACTIVE.load(Ordering::SeqCst) {
        return Ok(());
    }
    take_over()
}

/// Clears the screen and forgets the last frame, so that the next draw writes
/// every cell; picks up a size that changed meanwhile. (`Terminal::clear` would
/// ask the terminal where its cursor is, a round trip over SSH.)
fn repaint_all(terminal: &mut Tui) -> std::io::Result<()> {
    let size = terminal.size()?;
    terminal.resize(Rect::new(0, 0, size.width, size.height))
}

/// Drops input that arrived while the process was stopped (e.g. what was typed
/// to the shell but not read by it), so that none of it acts as a key.
fn discard_typeahead() {
    #[cfg(unix)]
    if let Ok(tty) = std::fs::File::open("/dev/tty") {
        let _ = nix::sys::termios::tcflush(&tty, nix::sys::termios::FlushArg::TCIFLUSH);
    }
    // crossterm keeps the events its reader already took from the terminal.
    // The wait lets a reader that was stopped mid-read hand its lock over.
    while matches!(crossterm::event::poll(Duration::from_millis(50)), Ok(true)) {
        let _ = crossterm::event::read();
    }
}

fn install_panic_hook() {
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

/// Restores the terminal when dropped, so an early return or `?` cannot leave it raw.
pub struct RestoreOnDrop;

impl Drop for RestoreOnDrop {
    fn drop(&mut self) {
        restore();
    }
}
