//! The monitor's answers: a project's live visitors, the watch list read
//! and written.

use super::live::Live;
use super::{MonitorScreen, Msg, unreachable};
use crate::tui::effect::{Cx, answered_lane, answers};

impl MonitorScreen {
    /// An answer to one of the screen's requests; true when anything changed.
    pub fn update(&mut self, token: u64, msg: Msg, cx: &mut Cx) -> bool {
        match msg {
            Msg::Realtime(reply) => {
                let Some(project_id) = answered_lane(&mut self.lanes, token) else {
                    return false;
                };
                let shown = self.shown().iter().any(|p| p.id == project_id);
                match reply {
                    Ok(realtime) => {
                        self.last_ok = Some(cx.now);
                        if shown {
                            let live = self.live.entry(project_id).or_default();
                            live.update(realtime);
                            live.updated_at = Some(cx.now);
                        }
                    }
                    Err(error) if unreachable(&error) => self.round_unreachable = true,
                    Err(error) => {
                        if shown {
                            let live = self.live.entry(project_id).or_default();
                            *live = Live {
                                error: Some(error),
                                loaded: true,
                                updated_at: Some(cx.now),
                                ..Live::default()
                            };
                        }
                    }
                }
                if !self.busy() {
                    self.round_done(cx.now);
                }
            }
            Msg::WatchlistLoaded(reply) if answers(&mut self.load_pending, token) => match reply {
                Ok(entries) => self.watchlist_loaded(entries, cx),
                Err(error) => self.watch_warning = Some(error.summary),
            },
            Msg::WatchlistSaved(reply) if answers(&mut self.save_pending, token) => {
                if let Err(error) = reply {
                    cx.notify(format!("watch list not saved: {}", error.summary));
                }
            }
            _ => return false,
        }
        true
    }
}
