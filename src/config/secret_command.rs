//! A command that prints a secret (`api_key_command`,
//! `history_password_command`), run with a time limit. It runs in a process
//! group of its own, so a timeout stops everything it started (the shell
//! forks; an orphan would keep running, and keep our stderr open). On the
//! user's terminal in cooked mode (a command at the shell's prompt) that
//! group is handed the terminal's foreground while it runs, as a shell does
//! for a job: a prompt it shows (`pass` asking for a passphrase) can read the
//! terminal, and vantage takes the terminal back when it ends. While the
//! dashboard holds the terminal (raw mode) it is not handed over: the
//! dashboard's reader would then be stopped reading from the background, and
//! a prompt could not show on its screen anyway.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The most of a command's output read: a secret is one short line.
const MAX_OUTPUT: u64 = 64 * 1024;

/// Runs a command that prints a secret: the first line it prints, never
/// shown; a command still running after `timeout` (named by the
/// `timeout_setting` that sets it) is stopped, with every process it started
/// that is still in its group.
pub fn run_secret_command(
    command: &str,
    timeout: Duration,
    timeout_setting: &str,
) -> Result<String, String> {
    let mut shell = if cfg!(windows) {
        let mut shell = Command::new("cmd");
        shell.arg("/C");
        shell
    } else {
        let mut shell = Command::new("sh");
        shell.arg("-c");
        shell
    };
    shell
        .arg(command)
        .stdin(Stdio::inherit())
        .stderr(Stdio::inherit())
        .stdout(Stdio::piped());
    let terminal = group::prepare(&mut shell);
    let mut child = shell
        .spawn()
        .map_err(|error| format!("cannot start it: {error}"))?;
    // Dropped when this function returns, whatever the outcome: the
    // terminal comes back to vantage.
    let _terminal = terminal.map(group::TerminalBack);
    // The output is read on a thread of its own, so the wait below can end.
    let (sender, received) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        std::thread::spawn(move || {
            let mut output = Vec::new();
            let read = stdout.take(MAX_OUTPUT).read_to_end(&mut output);
            let _ = sender.send(read.map(|_| output));
        });
    }
    let deadline = Instant::now() + timeout;
    let hung = |child: &mut std::process::Child| {
        group::stop(child);
        let _ = child.wait();
        format!(
            "`{}` did not finish within {} s ({timeout_setting}) and was stopped, with what it started",
            crate::text::escape_invisible(command),
            timeout.as_secs_f64()
        )
    };
    let stdout = match received.recv_timeout(timeout) {
        Ok(Ok(output)) => output,
        Ok(Err(error)) => return Err(format!("cannot read its output: {error}")),
        Err(_) => return Err(hung(&mut child)),
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Ok(None) => return Err(hung(&mut child)),
            Err(error) => return Err(format!("cannot wait for it: {error}")),
        }
    };
    if !status.success() {
        return Err(format!(
            "it exited with {status} (its error output, if any, is above)"
        ));
    }
    let stdout =
        String::from_utf8(stdout).map_err(|_| "its output is not UTF-8 text".to_owned())?;
    stdout
        .lines()
        .next()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| "it printed nothing on its first line".to_owned())
}

#[cfg(unix)]
// The one place that needs `unsafe` (the crate denies it elsewhere): the
// child must take the terminal's foreground between fork and exec
// (`pre_exec`), and SIGTTOU is ignored around `tcsetpgrp` (`sigaction`).
#[allow(unsafe_code)]
mod group {
    use std::io::IsTerminal;
    use std::os::fd::{AsFd, BorrowedFd};
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command};

    use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, killpg, sigaction};
    use nix::unistd::{Pid, getpgrp, getpid, setpgid, tcgetpgrp, tcsetpgrp};

    /// vantage's own process group, to take the terminal back to.
    pub struct OurGroup(Pid);

    /// Gives the command a process group of its own and, when vantage holds
    /// the terminal's foreground (stdin is that terminal) in cooked mode,
    /// hands the foreground to that group in the child before it runs, so
    /// the command never reads the terminal from the background (which would
    /// stop it).
    pub fn prepare(command: &mut Command) -> Option<OurGroup> {
        let stdin = std::io::stdin();
        let ours = getpgrp();
        let foreground = stdin.is_terminal()
            && tcgetpgrp(stdin.as_fd()).is_ok_and(|group| group == ours)
            && may_hand_over(stdin.as_fd());
        // SAFETY: the closure runs in the child between fork and exec, and
        // calls only async-signal-safe system calls (setpgid, sigaction,
        // tcsetpgrp, getpid); it allocates nothing.
        unsafe {
            command.pre_exec(move || {
                setpgid(Pid::from_raw(0), Pid::from_raw(0))?;
                if foreground {
                    // From a group not yet in the foreground, tcsetpgrp
                    // raises SIGTTOU: ignored for that one call.
                    // fd 0 is the command's stdin: inherited, open.
                    let stdin = BorrowedFd::borrow_raw(0);
                    without_sigttou(|| tcsetpgrp(stdin, getpid()))?;
                }
                Ok(())
            });
        }
        foreground.then_some(OurGroup(ours))
    }

    /// Whether the terminal at `fd` may be handed to the command: cooked
    /// (canonical input: no full-screen program such as the dashboard reads
    /// it key by key), and without `tostop` (vantage, in the background
    /// meanwhile, may still write its progress line).
    pub fn may_hand_over(fd: BorrowedFd<'_>) -> bool {
        use nix::sys::termios::{LocalFlags, tcgetattr};
        tcgetattr(fd).is_ok_and(|termios| {
            termios.local_flags.contains(LocalFlags::ICANON)
                && !termios.local_flags.contains(LocalFlags::TOSTOP)
        })
    }

    /// Runs `call` with SIGTTOU ignored, then puts back what was there.
    fn without_sigttou<T>(call: impl FnOnce() -> nix::Result<T>) -> nix::Result<T> {
        let ignore = SigAction::new(SigHandler::SigIgn, SaFlags::empty(), SigSet::empty());
        // SAFETY: SIG_IGN installs no handler of ours.
        let before = unsafe { sigaction(Signal::SIGTTOU, &ignore) }?;
        let result = call();
        // SAFETY: puts back the disposition that was there.
        let _ = unsafe { sigaction(Signal::SIGTTOU, &before) };
        result
    }

    /// Takes the terminal's foreground back for vantage when dropped.
    pub struct TerminalBack(pub OurGroup);

    impl Drop for TerminalBack {
        fn drop(&mut self) {
            let stdin = std::io::stdin();
            // vantage is in the background now: SIGTTOU would stop it.
            let _ = without_sigttou(|| tcsetpgrp(stdin.as_fd(), self.0.0));
        }
    }

    /// Kills the command's whole process group: what it started too.
    pub fn stop(child: &mut Child) {
        match i32::try_from(child.id()) {
            Ok(pid) if killpg(Pid::from_raw(pid), Signal::SIGKILL).is_ok() => {}
            _ => {
                let _ = child.kill();
            }
        }
    }
}

#[cfg(not(unix))]
mod group {
    use std::process::{Child, Command};

    pub struct OurGroup;

    pub fn prepare(_: &mut Command) -> Option<OurGroup> {
        None
    }

    pub struct TerminalBack(pub OurGroup);

    pub fn stop(child: &mut Child) {
        let _ = child.kill();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::fd::AsFd;

    use nix::sys::termios::{LocalFlags, SetArg, cfmakeraw, tcgetattr, tcsetattr};

    use super::group::may_hand_over;

    #[test]
    fn a_terminal_in_raw_mode_is_never_handed_over() {
        let pty = nix::pty::openpty(None, None).expect("a pseudo-terminal");
        let terminal = pty.slave.as_fd();
        let mut termios = tcgetattr(terminal).unwrap();
        termios.local_flags.insert(LocalFlags::ICANON);
        termios.local_flags.remove(LocalFlags::TOSTOP);
        tcsetattr(terminal, SetArg::TCSANOW, &termios).unwrap();
        assert!(may_hand_over(terminal), "cooked: a shell's command");

        termios.local_flags.insert(LocalFlags::TOSTOP);
        tcsetattr(terminal, SetArg::TCSANOW, &termios).unwrap();
        assert!(!may_hand_over(terminal), "tostop would stop vantage");

        cfmakeraw(&mut termios);
        tcsetattr(terminal, SetArg::TCSANOW, &termios).unwrap();
        assert!(!may_hand_over(terminal), "raw: the dashboard holds it");
    }
}
