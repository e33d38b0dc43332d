//! Runs the real binary in a pseudo-terminal and reads its screen through the
//! vt100 emulator. Waits poll the parsed screen with a deadline; nothing sleeps
//! for a fixed time.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, ExitStatus, MasterPty, PtySize, native_pty_system};

/// How long any one expectation may take.
const DEADLINE: Duration = Duration::from_secs(15);

pub struct Session {
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    output: mpsc::Receiver<Vec<u8>>,
    parser: vt100::Parser,
    /// Every byte the program wrote, as the terminal received it.
    raw: Vec<u8>,
    /// vantage's process when a shell runs it ([`Session::start_in_shell`]).
    job: Option<u32>,
    _home: tempfile::TempDir,
}

impl Session {
    /// Starts `vantage ARGS` in a `cols` x `rows` terminal, with a throwaway home.
    pub fn start(args: &[&str], cols: u16, rows: u16) -> Self {
        Self::start_with_env(args, &[], cols, rows)
    }

    /// Like [`Session::start`], with extra environment variables.
    pub fn start_with_env(args: &[&str], env: &[(&str, &str)], cols: u16, rows: u16) -> Self {
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_vantage"));
        command.args(args);
        Self::spawn(command, env, cols, rows)
    }

    /// Starts an interactive bash, with job control and without line editing
    /// (so the terminal stays cooked at its prompt), and runs `vantage ARGS` in
    /// it as a job, as a user at a shell does.
    pub fn start_in_shell(args: &[&str], cols: u16, rows: u16) -> Self {
        let mut shell = CommandBuilder::new("bash");
        shell.args(["--norc", "--noprofile", "--noediting", "-i"]);
        shell.env("PS1", "$ ");
        let mut session = Self::spawn(shell, &[], cols, rows);
        session.wait_text("$ ");
        let line = format!("{} {}\r", env!("CARGO_BIN_EXE_vantage"), args.join(" "));
        session.send(&line);
        let deadline = Instant::now() + DEADLINE;
        while session.job.is_none() {
            assert!(Instant::now() < deadline, "the shell started no job");
            session.job = session.shell_child();
            session.pump(Duration::from_millis(20));
        }
        session
    }

    /// The shell's child process, once it has one.
    fn shell_child(&self) -> Option<u32> {
        let shell = self.child.process_id()?;
        let children =
            std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).ok()?;
        children.split_whitespace().next()?.parse().ok()
    }

    fn spawn(mut command: CommandBuilder, env: &[(&str, &str)], cols: u16, rows: u16) -> Self {
        let home = tempfile::tempdir().expect("temp home");
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        command.env("HOME", home.path());
        command.env("XDG_CONFIG_HOME", home.path().join("config"));
        command.env("XDG_DATA_HOME", home.path().join("data"));
        command.env("TERM", "xterm-256color");
        command.env_remove("NO_COLOR");
        command.env_remove("SERVICE_API_KEY");
        for (name, value) in env {
            command.env(name, value);
        }
        let child = pair
            .slave
            .spawn_command(command)
            .expect("the program starts");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("pty reader");
        let writer = pair.master.take_writer().expect("pty writer");
        let (tx, output) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buffer) {
                if n == 0 || tx.send(buffer[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Self {
            master: pair.master,
            writer,
            child,
            output,
            parser: vt100::Parser::new(nonzero(rows), nonzero(cols), 0),
            raw: Vec::new(),
            job: None,
            _home: home,
        }
    }

    fn pump(&mut self, wait: Duration) {
        if let Ok(bytes) = self.output.recv_timeout(wait) {
            self.parser.process(&bytes);
            self.raw.extend_from_slice(&bytes);
            while let Ok(more) = self.output.try_recv() {
                self.parser.process(&more);
                self.raw.extend_from_slice(&more);
            }
        }
    }

    /// Whether the program is inside a synchronized update (DEC mode 2026):
    /// a terminal that knows the mode shows nothing of a frame until its end,
    /// so neither does a check here.
    fn mid_frame(&self) -> bool {
        const BEGIN: &[u8] = b"\x1b[?2026h";
        const END: &[u8] = b"\x1b[?2026l";
        let last = |needle: &[u8]| self.raw.windows(needle.len()).rposition(|w| w == needle);
        match (last(BEGIN), last(END)) {
            (Some(begin), Some(end)) => begin > end,
            (Some(_), None) => true,
            _ => false,
        }
    }

    pub fn screen(&self) -> String {
        self.parser.screen().contents()
    }

    /// Waits until `check` holds for the screen's text and returns that screen;
    /// panics with the screen if it does not come.
    pub fn wait_for(&mut self, what: &str, check: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let screen = self.screen();
            if !self.mid_frame() && check(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!(
                    "timed out waiting for {what}; the screen shows:\n{}",
                    self.screen()
                );
            }
            self.pump(Duration::from_millis(50));
        }
    }

    /// Waits until `check` holds for the session (its screen, its terminal modes,
    /// its process), reading output meanwhile; panics with the screen if it
    /// does not come.
    pub fn wait_until(&mut self, what: &str, check: impl Fn(&Self) -> bool) {
        let deadline = Instant::now() + DEADLINE;
        while self.mid_frame() || !check(self) {
            if Instant::now() > deadline {
                panic!(
                    "timed out waiting for {what}; the screen shows:\n{}",
                    self.screen()
                );
            }
            self.pump(Duration::from_millis(50));
        }
    }

    /// The screen with its colours and attributes, to notice any change.
    pub fn screen_formatted(&self) -> String {
        self.parser.screen().contents_formatted()
    }

    /// Waits until the screen, colours and attributes included, differs from
    /// `before`; returns its text.
    pub fn wait_for_change(&mut self, before: &str) -> String {
        let deadline = Instant::now() + DEADLINE;
        while self.mid_frame() || self.screen_formatted() == before {
            if Instant::now() > deadline {
                panic!(
                    "timed out waiting for a change; the screen shows:\n{}",
                    self.screen()
                );
            }
            self.pump(Duration::from_millis(50));
        }
        self.screen()
    }

    /// Waits until the screen shows `text`.
    pub fn wait_text(&mut self, text: &str) -> String {
        self.wait_for(text, |screen| screen.contains(text))
    }

    pub fn send(&mut self, keys: &str) {
        self.writer
            .write_all(keys.as_bytes())
            .expect("keys reach the terminal");
        self.writer.flush().expect("flush keys");
    }

    /// Waits for the process to end, reading what it writes meanwhile.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().expect("child status") {
                self.pump(Duration::from_millis(100));
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("vantage did not exit; the screen shows:\n{}", self.screen());
            }
            self.pump(Duration::from_millis(50));
        }
    }

    /// Every byte the program wrote so far.
    pub fn raw_output(&self) -> &[u8] {
        &self.raw
    }

    pub fn alternate_screen(&self) -> bool {
        self.parser.screen().alternate_screen()
    }

    pub fn cursor_hidden(&self) -> bool {
        self.parser.screen().hide_cursor()
    }

    /// Whether the terminal is in cooked mode: canonical input and echo on.
    pub fn cooked_mode(&self) -> bool {
        use nix::sys::termios::LocalFlags;
        let termios = self.master.get_termios().expect("termios of the pty");
        termios
            .local_flags
            .contains(LocalFlags::ICANON | LocalFlags::ECHO)
    }

    /// vantage's process id (not the shell's, under [`Session::start_in_shell`]).
    pub fn pid(&self) -> Option<u32> {
        self.job.or_else(|| self.child.process_id())
    }

    /// Whether vantage's process is still there (running or stopped).
    pub fn alive(&mut self) -> bool {
        if self.job.is_some() {
            return !matches!(self.process_state(), None | Some('Z' | 'X'));
        }
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The process's state letter from `/proc/PID/stat` (Linux): `R` running,
    /// `S` sleeping, `T` stopped by a signal, ...
    pub fn process_state(&self) -> Option<char> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid()?)).ok()?;
        // The command name in parentheses may hold spaces: the state follows it.
        stat.rsplit_once(") ")?.1.chars().next()
    }

    /// Sends `signal` to the process.
    pub fn signal(&self, signal: nix::sys::signal::Signal) {
        let pid = self.pid().expect("child pid") as i32;
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal).expect("signal sent");
    }
}

fn nonzero(value: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(value.max(1)).unwrap_or(std::num::NonZeroU16::MIN)
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
    }
}
