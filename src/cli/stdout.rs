//! A list's stdout, written a page at a time.
//!
//! The commands run on one thread, which also carries the request for the next
//! page while this one is written (`api::page`). A reader that stops reading
//! (`vantage inventory | less`) must block only the writing: were the thread
//! itself stuck in `write`, that request's timeout would run out meanwhile. So
//! a pipe or a terminal is written off the runtime's thread; a file or
//! `/dev/null`, which never waits on a reader, directly.

use std::io::{self, Write};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::formats::OutputError;

/// Pages formatted ahead of the writer at most; then `send` waits for it.
const PAGES_AHEAD: usize = 2;

/// The bytes of the page being formatted: the list writers write here, and
/// [`StdoutPages::send`] takes them. Clones share the buffer.
#[derive(Clone, Default)]
pub struct PageBytes(Arc<Mutex<Vec<u8>>>);

impl PageBytes {
    fn buffer(&self) -> MutexGuard<'_, Vec<u8>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What the buffer holds (and empties it).
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.buffer())
    }
}

impl Write for PageBytes {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buffer().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Stdout fed by pages, in order.
pub struct StdoutPages(Destination);

enum Destination {
    /// A file or `/dev/null`: a write never waits on a reader, so it is made
    /// on the runtime's thread, from the page's buffer, which is kept.
    Direct,
    /// A pipe, a terminal or anything else: written by a blocking task of
    /// the runtime.
    Writer {
        pages: mpsc::Sender<Vec<u8>>,
        writer: JoinHandle<io::Result<()>>,
    },
}

impl StdoutPages {
    pub fn start() -> Self {
        if never_waits_on_a_reader() {
            return Self(Destination::Direct);
        }
        let (pages, mut queue) = mpsc::channel::<Vec<u8>>(PAGES_AHEAD);
        let writer = tokio::task::spawn_blocking(move || {
            let mut out = io::stdout().lock();
            while let Some(page) = queue.blocking_recv() {
                out.write_all(&page)?;
                out.flush()?;
            }
            Ok(())
        });
        Self(Destination::Writer { pages, writer })
    }

    /// Hands over what `bytes` holds (and empties it). When the writer has
    /// stopped on an error, that error comes back here.
    pub async fn send(self, bytes: &PageBytes) -> Result<Self, OutputError> {
        let pages = match &self.0 {
            Destination::Direct => {
                let mut page = bytes.buffer();
                let mut out = io::stdout().lock();
                out.write_all(&page)?;
                out.flush()?;
                page.clear();
                return Ok(self);
            }
            Destination::Writer { pages, .. } => pages,
        };
        let page = std::mem::take(&mut *bytes.buffer());
        if page.is_empty() || pages.send(page).await.is_ok() {
            return Ok(self);
        }
        // The queue is closed only when the writer has returned.
        Err(self
            .finish()
            .await
            .err()
            .unwrap_or_else(|| io::Error::other("stdout writer stopped").into()))
    }

    /// Waits until every page handed over is written.
    pub async fn finish(self) -> Result<(), OutputError> {
        let Destination::Writer { pages, writer } = self.0 else {
            return Ok(());
        };
        drop(pages);
        let written = writer.await.unwrap_or_else(|joined| {
            // The writer is ours and never aborted: a join error is its panic.
            std::panic::resume_unwind(joined.into_panic())
        });
        Ok(written?)
    }
}

/// Whether stdout is a regular file or a device that is not a terminal
/// (`/dev/null`): a write there never waits on a reader.
fn never_waits_on_a_reader() -> bool {
    #[cfg(unix)]
    {
        use std::io::IsTerminal;
        use std::os::fd::AsFd;
        use std::os::unix::fs::FileTypeExt;
        let out = io::stdout();
        let Ok(kind) = out
            .as_fd()
            .try_clone_to_owned()
            .and_then(|fd| std::fs::File::from(fd).metadata())
            .map(|metadata| metadata.file_type())
        else {
            return false;
        };
        kind.is_file() || (kind.is_char_device() && !out.is_terminal())
    }
    #[cfg(not(unix))]
    {
        false
    }
}
