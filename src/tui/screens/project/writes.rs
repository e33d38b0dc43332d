//! The write flow of the project screen: rename, visibility, unpublish, publish
//! and delete, each behind one confirm flow, and what their replies change.

use super::audience::{AudienceEditor, EmbedPrompt, PublishConfirm, risk_lines};
use super::deploy::DeploymentWatch;
use super::{Mode, Msg, ProjectScreen, RenameField, WRITE, WriteAccess};
use super::{WriteKind, Written};
use crate::api::model::{AudienceSettings, Deployment, EmbedUrl, Project};
use crate::api::model::{ErrorType, ProjectUpdate, validate_project_name};
use crate::text::{fit, sanitize_line};
use crate::tui::effect::{Cx, ErrorInfo, Gate};
use crate::tui::nav::{Nav, ProjectNav, ProjectWrite};
use crate::tui::ops::{DeleteProject, Unpublish, UpdateProject};
use crate::tui::request::Operation;
use crate::tui::widgets::DialogOutcome;
use crate::tui::widgets::confirm::{Confirm, Confirmation};
use crate::tui::widgets::input::TextField;
use crate::tui::widgets::menu::MenuOutcome;
use crate::tui::widgets::visibility;

impl ProjectScreen {
    /// Starts a write action, or says why it cannot start.
    pub(super) fn begin(&mut self, kind: WriteKind, cx: &mut Cx) {
        if let Some(why) = self.refusal() {
            cx.notify(why);
            return;
        }
        if let Some(pending) = self.write_pending() {
            cx.notify(format!(
                "wait: {} is still in progress",
                pending.doing().trim_end_matches('…')
            ));
            return;
        }
        let Some(project) = &self.project else {
            cx.notify(if self.failed_to_load() {
                "the project could not be read: there is nothing to change".into()
            } else {
                "wait for the project to load".into()
            });
            return;
        };
        let name = project
            .name
            .as_deref()
            .map_or_else(|| "(unnamed)".to_owned(), |n| fit(n, 60));
        self.mode = match kind {
            WriteKind::Rename => {
                let field = TextField::new(project.name.clone().unwrap_or_default());
                let problem = validate_project_name(field.value())
                    .err()
                    .map(|e| e.to_string());
                Mode::Rename(RenameField {
                    field,
                    problem,
                    refused: None,
                })
            }
            WriteKind::Visibility => Mode::Visibility(visibility::picker(
                "Visibility in the editor",
                project.visibility.as_ref(),
            )),
            WriteKind::Unpublish => {
                let mut lines = vec![format!("Take {name} offline?")];
                lines.push(if project.is_published {
                    "Its audience and visibility are kept for the next publish.".into()
                } else {
                    "It is not published now; this changes nothing.".into()
                });
                Mode::Confirm(
                    Box::new(Confirm::new("Unpublish", lines, Confirmation::Yes)),
                    kind,
                )
            }
            WriteKind::Publish => Mode::Publish(PublishConfirm::new(
                name,
                project.publish_audience.clone(),
                risk_lines(self.facts.item()),
            )),
            WriteKind::Audience => Mode::Audience(Box::new(AudienceEditor::new(
                project.publish_audience.clone(),
                project.publish_audience_targets.clone(),
                project.is_published,
                risk_lines(self.facts.item()),
            ))),
            WriteKind::EmbedUrl => Mode::Embed(EmbedPrompt::default()),
            WriteKind::Delete => {
                // The name must be typed; a project without a printable name is
                // confirmed by its id instead.
                let expected = match project.name.as_deref() {
                    Some(n) if !n.trim().is_empty() && sanitize_line(n) == n => n.to_owned(),
                    _ => project.id.clone(),
                };
                let lines = vec![
                    format!("Delete {name} ({})?", fit(&project.id, 40)),
                    "Where the workspace has trash it can be restored from the editor;".into(),
                    "otherwise it is gone for good and custom domains disconnect at once.".into(),
                ];
                Mode::Confirm(
                    Box::new(Confirm::new(
                        "Delete project",
                        lines,
                        Confirmation::Type(expected),
                    )),
                    kind,
                )
            }
        };
    }

    /// Sends the write `operation` (one at a time); its answer comes back
    /// as [`Msg::Wrote`], made by `wrote`.
    pub(super) fn send<O: Operation>(
        &mut self,
        kind: WriteKind,
        operation: O,
        wrote: fn(Result<O::Output, ErrorInfo>) -> Msg,
        cx: &mut Cx,
    ) {
        self.write_error = None;
        let token = cx.request(WRITE, operation, wrote);
        self.write = Some((token, kind));
    }

    pub(super) fn submit_rename(&mut self, cx: &mut Cx) {
        let Mode::Rename(rename) = &mut self.mode else {
            return;
        };
        if self.write.is_some() {
            return;
        }
        let name = rename.field.value().to_owned();
        if let Err(problem) = validate_project_name(&name) {
            rename.problem = Some(problem.to_string());
            return;
        }
        if self.project.as_ref().and_then(|p| p.name.as_deref()) == Some(name.as_str()) {
            self.mode = Mode::View;
            cx.notify("the name is unchanged".into());
            return;
        }
        let request = UpdateProject {
            project_id: self.target.id.clone(),
            update: ProjectUpdate {
                name: Some(name),
                visibility: None,
            },
        };
        self.send(WriteKind::Rename, request, wrote_project, cx);
    }

    /// A dialog's outcome: it stays open (`None`), or it closes, with the
    /// answer for the write it asks for when it was not cancelled.
    pub(super) fn settle<T>(&mut self, outcome: DialogOutcome<T>) -> Option<T> {
        match outcome {
            DialogOutcome::Open => None,
            DialogOutcome::Cancelled => {
                self.mode = Mode::View;
                None
            }
            DialogOutcome::Done(answer) => {
                self.mode = Mode::View;
                Some(answer)
            }
        }
    }

    /// The write a yes to the confirm of `kind` asks for (unpublish and
    /// delete are the ones confirmed so).
    pub(super) fn send_confirmed(&mut self, kind: WriteKind, project_id: String, cx: &mut Cx) {
        match kind {
            WriteKind::Unpublish => self.send(kind, Unpublish { project_id }, wrote_unpublish, cx),
            WriteKind::Delete => self.send(kind, DeleteProject { project_id }, wrote_delete, cx),
            WriteKind::Publish
            | WriteKind::Rename
            | WriteKind::Visibility
            | WriteKind::Audience
            | WriteKind::EmbedUrl => {}
        }
    }

    pub(super) fn on_write_reply(
        &mut self,
        kind: WriteKind,
        reply: Result<Written, ErrorInfo>,
        cx: &mut Cx,
    ) {
        let label = self.current_name().map_or_else(
            || fit(&self.target.id, 40),
            |name| format!("\u{201c}{}\u{201d}", fit(name, 40)),
        );
        match reply {
            // A rename or a visibility change.
            Ok(Written::Project(project)) => {
                // The PATCH answers the project: show it at once.
                self.last_write = Some(match kind {
                    WriteKind::Rename => format!(
                        "renamed to \u{201c}{}\u{201d}",
                        fit(project.name.as_deref().unwrap_or(""), 50)
                    ),
                    _ => format!(
                        "visibility is now {}",
                        project
                            .visibility
                            .as_ref()
                            .map_or("not set", |v| v.as_str())
                    ),
                });
                self.project = Some((*project).clone());
                self.loaded_at = Some(cx.now);
                if kind == WriteKind::Rename {
                    self.mode = Mode::View;
                }
                cx.navigate(Nav::Project(ProjectNav::Wrote(ProjectWrite::Updated(
                    project,
                ))));
            }
            Ok(Written::Unpublished) => {
                // 204 without a body: the contract says what changed; read it back.
                self.last_write = Some(format!("unpublished {label}"));
                if let Some(project) = &mut self.project {
                    project.is_published = false;
                    project.publish_audience = None;
                    project.publish_audience_targets.clear();
                    cx.navigate(Nav::Project(ProjectNav::Wrote(ProjectWrite::Updated(
                        Box::new(project.clone()),
                    ))));
                }
                self.reread_after_write = true;
                self.load(cx);
            }
            Ok(Written::Deployment(deployment)) => {
                self.last_write = Some(format!("deployment {} accepted", fit(&deployment.id, 40)));
                let terminal = deployment.status.is_terminal();
                self.deployment = Some(DeploymentWatch::start(
                    self.target.id.clone(),
                    *deployment,
                    cx.now,
                ));
                if terminal {
                    self.reread_after_write = true;
                    self.load(cx);
                }
            }
            Ok(Written::Audience(settings)) => {
                let audience = settings
                    .audience
                    .as_ref()
                    .map_or("not set", |audience| audience.as_str());
                let published = self.project.as_ref().is_some_and(|p| p.is_published);
                self.last_write = Some(if published {
                    format!("the audience is now {}", fit(audience, 20))
                } else {
                    format!(
                        "the audience will be {} at the next publish",
                        fit(audience, 20)
                    )
                });
                // The answer is the settings, not the project: read it back.
                self.reread_after_write = true;
                self.load(cx);
            }
            Ok(Written::EmbedUrl(embed)) => {
                let copied = if cx.try_copy(&embed.embed_url) {
                    "copy sent (OSC 52)"
                } else {
                    "not copied: it holds a control or invisible character"
                };
                self.last_write = Some(format!(
                    "embed URL created, valid until {} UTC; {copied}",
                    crate::timefmt::date_time(embed.expires_at)
                ));
                self.embed = Some(*embed);
            }
            Ok(Written::Deleted) => self.deleted(format!("deleted {label}"), cx),
            Err(error)
                if kind == WriteKind::Delete && error.is_service(ErrorType::ProjectNotFound) =>
            {
                // Already gone (deleted elsewhere): what the person wanted.
                self.deleted(format!("{label} was already deleted"), cx)
            }
            Err(error) => self.write_refused(error),
        }
    }

    fn deleted(&mut self, notice: String, cx: &mut Cx) {
        cx.navigate(Nav::Project(ProjectNav::Wrote(ProjectWrite::Deleted(
            self.target.id.clone(),
        ))));
        cx.navigate(Nav::Project(ProjectNav::Close));
        cx.notify(notice);
    }

    fn write_refused(&mut self, error: ErrorInfo) {
        if let Some(Gate::Scopes(scopes)) = &error.gate {
            // A credential without the write scope: every action is disabled.
            self.access = WriteAccess::MissingScope(scopes.clone());
        }
        if let (Mode::Rename(rename), Some(Gate::Fields(fields))) = (&mut self.mode, &error.gate) {
            let on_name: Vec<&str> = fields
                .iter()
                .filter(|f| f.location.as_deref() == Some("body.name"))
                .map(|f| f.message.as_str())
                .collect();
            if !on_name.is_empty() {
                rename.refused = Some(sanitize_line(&on_name.join("; ")).into_owned());
            }
        }
        self.last_write = None;
        self.write_error = Some(error);
    }
}

/// The messages of the writes' answers, by what each write answers.
pub(super) fn wrote_project(result: Result<Project, ErrorInfo>) -> Msg {
    Msg::Wrote(result.map(|project| Written::Project(Box::new(project))))
}

pub(super) fn wrote_unpublish(result: Result<(), ErrorInfo>) -> Msg {
    Msg::Wrote(result.map(|()| Written::Unpublished))
}

pub(super) fn wrote_delete(result: Result<(), ErrorInfo>) -> Msg {
    Msg::Wrote(result.map(|()| Written::Deleted))
}

pub(super) fn wrote_publish(result: Result<Deployment, ErrorInfo>) -> Msg {
    Msg::Wrote(result.map(|deployment| Written::Deployment(Box::new(deployment))))
}

pub(super) fn wrote_audience(result: Result<AudienceSettings, ErrorInfo>) -> Msg {
    Msg::Wrote(result.map(|settings| Written::Audience(Box::new(settings))))
}

pub(super) fn wrote_embed(result: Result<EmbedUrl, ErrorInfo>) -> Msg {
    Msg::Wrote(result.map(|embed| Written::EmbedUrl(Box::new(embed))))
}

impl ProjectScreen {
    /// The visibility picker's answer: a change is written, the same value
    /// is said to be unchanged, a close leaves it.
    pub(super) fn visibility_outcome(&mut self, outcome: MenuOutcome, cx: &mut Cx) {
        let choice = match outcome {
            MenuOutcome::Open => return,
            MenuOutcome::Closed => {
                self.mode = Mode::View;
                return;
            }
            MenuOutcome::Chosen(choice) => visibility::chosen(choice),
        };
        self.mode = Mode::View;
        if self.project.as_ref().and_then(|p| p.visibility.as_ref()) == Some(&choice) {
            cx.notify("the visibility is unchanged".into());
            return;
        }
        let request = UpdateProject {
            project_id: self.target.id.clone(),
            update: ProjectUpdate {
                name: None,
                visibility: Some(choice),
            },
        };
        self.send(WriteKind::Visibility, request, wrote_project, cx);
    }
}
