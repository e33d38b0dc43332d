//! The project screen's answers: the read of the project, a write's
//! answer, a deployment's poll, and the facts' and the Security part's own,
//! each taken only while its token is the one the screen waits for.

use super::{Msg, ProjectScreen};
use crate::api::model::{Deployment, Project};
use crate::tui::effect::{Cx, ErrorInfo, answers};
use crate::tui::nav::{Nav, ProjectNav, ProjectWrite};

impl ProjectScreen {
    /// An answer to one of the screen's requests; true when anything
    /// changed (a stale answer changes nothing).
    pub fn update(&mut self, token: u64, msg: Msg, cx: &mut Cx) -> bool {
        match msg {
            Msg::Loaded(result) if answers(&mut self.load_pending, token) => {
                self.on_loaded(result, cx);
            }
            Msg::Loaded(_) => return false,
            Msg::Wrote(result) => {
                let Some((pending, kind)) = self.write else {
                    return false;
                };
                if pending != token {
                    return false;
                }
                self.write = None;
                self.on_write_reply(kind, result, cx);
            }
            Msg::Deployment(result) => return self.on_deployment_reply(token, result, cx),
            Msg::Facts(msg) => {
                let changed = self.facts.on_reply(&self.target.id, token, msg, cx.now);
                // Not in the snapshot: the search by name, once the name is known.
                if changed && self.current_name().is_some() {
                    self.find_facts(false, cx);
                }
                return changed;
            }
            Msg::Security(msg) => {
                return self
                    .security
                    .as_mut()
                    .is_some_and(|part| part.update(token, msg, cx));
            }
        }
        true
    }

    /// The project read: shown, and its facts looked for by its name.
    fn on_loaded(&mut self, result: Result<Project, ErrorInfo>, cx: &mut Cx) {
        match result {
            Ok(project) => {
                if std::mem::take(&mut self.reread_after_write) {
                    cx.navigate(Nav::Project(ProjectNav::Wrote(ProjectWrite::Updated(
                        Box::new(project.clone()),
                    ))));
                }
                if self.gone.take().is_some() {
                    cx.navigate(Nav::Project(ProjectNav::Found(project.id.clone())));
                }
                self.project = Some(project);
                self.error = None;
                self.loaded_at = Some(cx.now);
                self.find_facts(false, cx);
            }
            Err(error) if super::gone::is_gone(&error) => self.went(error, cx),
            Err(error) => self.error = Some(error),
        }
    }

    /// A poll's answer; true unless it was stale. A deployment that ended has
    /// the project read again (its answer goes to the inventory too).
    fn on_deployment_reply(
        &mut self,
        token: u64,
        result: Result<Deployment, ErrorInfo>,
        cx: &mut Cx,
    ) -> bool {
        let Some(watch) = &mut self.deployment else {
            return false;
        };
        let Some(ended) = watch.on_reply(token, result, cx.now) else {
            return false;
        };
        if ended {
            self.reread_after_write = true;
            self.load(cx);
        }
        true
    }
}
