//! Entering and leaving the terminal's full-screen mode. The terminal is restored
//! on quit, on panic, and on SIGTERM and SIGHUP (an SSH drop), whichever comes first,
//! and only once.

use std::io::{BufWriter, Stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// Output is buffered so that a frame reaches the terminal in one write.
pub type Tui = Terminal<CrosstermBackend<BufWriter<Stdout>>>;

/// Whether the terminal is in full-screen mode now.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Raw mode, the alternate screen, a hidden cursor; mouse capture stays off.
pub fn enter() -> std::io::Result<Tui> {
    install_panic_hook();
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut stdout = std::io::stdout();
    if let Err(err) = execute!(stdout, EnterAlternateScreen, cursor::Hide) {
        restore();
        return Err(err);
    }
    let backend = CrosstermBackend::new(BufWriter::with_capacity(64 * 1024, std::io::stdout()));
    match Terminal::new(backend) {
        Ok(terminal) => Ok(terminal),
        Err(err) => {
            restore();
            Err(err)
        }
    }
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
