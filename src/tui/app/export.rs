//! `ctrl-s` on a list the screen does not export itself: the App asks the
//! screen what its rows are (`Screen::export_rows`), writes them into the
//! export directory, and says on the status line where they went, the path
//! whole (a cut one keeps its file name and extension).

use super::App;
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Slot, Turn};
use crate::tui::keymap::key_of;
use crate::tui::ops::{ExportList, Exported};

/// `ctrl-s` on another list (`tui/export.rs`): the App says where it went.
pub const LIST_EXPORT: Slot = Slot::new("app", "list export");

/// A list's export written, or why not.
#[derive(Debug)]
pub struct ListExported(pub Result<Exported, ErrorInfo>);

impl App {
    /// Exports the current list, or says why there is nothing to export.
    pub(super) fn export_list(&mut self, turn: &mut Turn<'_>) -> bool {
        let Some(rows) = self.screen().export_rows() else {
            let title = self.screen().title();
            turn.cx(&mut self.next_token).notify(format!(
                "nothing to export on {title}: {} writes the inventory, the members, \
                 the changes, personal data and a scan's findings",
                key_of(Action::Export)
            ));
            return true;
        };
        let path = self.settings.export_dir.join(rows.file_name(turn.now));
        let noun = rows.noun();
        let mut cx = turn.cx(&mut self.next_token);
        let token = cx.request(LIST_EXPORT, ExportList { rows, path }, ListExported);
        self.list_export = Some((token, noun));
        cx.notify(format!("exporting the {noun}s of this view…"));
        true
    }

    /// An export's answer: where it went, or why it failed.
    pub(super) fn list_exported(
        &mut self,
        token: u64,
        ListExported(written): ListExported,
        cx: &mut Cx,
    ) -> bool {
        let Some((_, noun)) = self.list_export.take_if(|(pending, _)| *pending == token) else {
            return false;
        };
        match written {
            Ok(Exported {
                path,
                count,
                left_out: 0,
            }) => cx.notify(format!(
                "exported {} to {}",
                crate::tui::widgets::count(count as i64, noun),
                path.display()
            )),
            Ok(Exported {
                path,
                count,
                left_out,
            }) => cx.notify(format!(
                "exported {} to {} ({left_out} without name and e-mail: the request budget ran low; ctrl-s again later for them)",
                crate::tui::widgets::count(count as i64, noun),
                path.display()
            )),
            Err(error) => cx.notify(format!("export failed: {}", error.summary)),
        }
        true
    }
}
