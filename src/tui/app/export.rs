//! `ctrl-s` on a list the screen does not export itself: the App asks the
//! screen what its rows are (`Screen::export_rows`), writes them into the
//! export directory, and says on the status line where they went, the path
//! whole (a cut one keeps its file name and extension).

use super::App;
use crate::tui::effect::{Cx, ErrorInfo, Reply, Request, Slot, Turn};

impl App {
    /// Exports the current list; false when it has nothing to export.
    pub(super) fn export_list(&mut self, turn: &mut Turn<'_>) -> bool {
        let Some(rows) = self.screen().export_rows() else {
            return false;
        };
        let path = self.settings.export_dir.join(rows.file_name(turn.now));
        let noun = rows.noun();
        let mut cx = turn.cx(&mut self.next_token);
        self.list_export = Some((
            cx.fetch(Slot::ListExport, Request::ExportRows { rows, path }),
            noun,
        ));
        cx.notify(format!("exporting the {noun}s of this view…"));
        true
    }

    /// An export's reply: where it went, or why it failed.
    pub(super) fn list_exported(
        &mut self,
        token: u64,
        reply: Result<Reply, ErrorInfo>,
        cx: &mut Cx,
    ) -> bool {
        let Some((_, noun)) = self.list_export.take_if(|(pending, _)| *pending == token) else {
            return false;
        };
        match reply {
            Ok(Reply::Exported { path, count }) => cx.notify(format!(
                "exported {} to {}",
                crate::tui::widgets::count(count as i64, noun),
                path.display()
            )),
            Ok(_) => return false,
            Err(error) => cx.notify(format!("export failed: {}", error.summary)),
        }
        true
    }
}
