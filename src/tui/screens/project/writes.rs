//! The write flow of the project screen: rename, visibility, unpublish, publish
//! and delete, each behind one confirm flow, and what their replies change.

use super::audience::{AudienceEditor, EmbedPrompt, PublishConfirm, risk_lines};
use super::deploy::DeploymentWatch;
use super::{Mode, ProjectScreen, RenameField, VISIBILITY_CHOICES, WriteAccess, WriteKind};
use crate::api::model::{ErrorType, ProjectUpdate, validate_project_name};
use crate::text::{fit, sanitize_line};
use crate::tui::effect::{Cx, ErrorInfo, Gate, Reply, Request, Slot};
use crate::tui::nav::{Nav, ProjectNav, ProjectWrite};
use crate::tui::widgets::DialogOutcome;
use crate::tui::widgets::confirm::{Confirm, Confirmation};
use crate::tui::widgets::input::TextField;
use crate::tui::widgets::menu::Menu;

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
            WriteKind::Visibility => {
                let items = VISIBILITY_CHOICES
                    .iter()
                    .map(|(v, what)| format!("{:<15} {what}", v.as_str()))
                    .collect();
                let selected = VISIBILITY_CHOICES
                    .iter()
                    .position(|(v, _)| Some(v) == project.visibility.as_ref())
                    .unwrap_or(0);
                Mode::Visibility(Menu::new("Visibility in the editor", items, selected))
            }
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

    pub(super) fn send(&mut self, kind: WriteKind, request: Request, cx: &mut Cx) {
        self.write_error = None;
        let token = cx.fetch(Slot::ProjectWrite, request);
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
        let request = Request::UpdateProject {
            project_id: self.target.id.clone(),
            update: ProjectUpdate {
                name: Some(name),
                visibility: None,
            },
        };
        self.send(WriteKind::Rename, request, cx);
    }

    /// A dialog's outcome: it stays open, or it closes and sends the write
    /// its answer asks for.
    pub(super) fn settle(
        &mut self,
        outcome: DialogOutcome<Option<(WriteKind, Request)>>,
        cx: &mut Cx,
    ) {
        match outcome {
            DialogOutcome::Open => {}
            DialogOutcome::Cancelled => self.mode = Mode::View,
            DialogOutcome::Done(write) => {
                self.mode = Mode::View;
                if let Some((kind, request)) = write {
                    self.send(kind, request, cx);
                }
            }
        }
    }

    pub(super) fn on_write_reply(
        &mut self,
        kind: WriteKind,
        reply: Result<Reply, ErrorInfo>,
        cx: &mut Cx,
    ) {
        let label = self.current_name().map_or_else(
            || fit(&self.target.id, 40),
            |name| format!("\u{201c}{}\u{201d}", fit(name, 40)),
        );
        match (kind, reply) {
            (WriteKind::Rename | WriteKind::Visibility, Ok(Reply::Project(project))) => {
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
            (WriteKind::Unpublish, Ok(_)) => {
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
            (WriteKind::Publish, Ok(Reply::Deployment(deployment))) => {
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
            (WriteKind::Audience, Ok(Reply::AudienceSettings(settings))) => {
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
            (WriteKind::EmbedUrl, Ok(Reply::EmbedUrl(embed))) => {
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
            (WriteKind::Delete, Ok(_)) => self.deleted(format!("deleted {label}"), cx),
            (WriteKind::Delete, Err(error))
                if error.kind.as_deref() == Some(ErrorType::ProjectNotFound.as_str()) =>
            {
                // Already gone (deleted elsewhere): what the person wanted.
                self.deleted(format!("{label} was already deleted"), cx)
            }
            (_, Ok(_)) => {}
            (_, Err(error)) => self.write_refused(error),
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

/// The write a yes to the confirm of `kind` asks for (unpublish and delete
/// are the ones confirmed so).
pub(super) fn confirmed_request(
    kind: WriteKind,
    project_id: String,
) -> Option<(WriteKind, Request)> {
    let request = match kind {
        WriteKind::Unpublish => Request::Unpublish { project_id },
        WriteKind::Delete => Request::DeleteProject { project_id },
        WriteKind::Publish
        | WriteKind::Rename
        | WriteKind::Visibility
        | WriteKind::Audience
        | WriteKind::EmbedUrl => return None,
    };
    Some((kind, request))
}
