//! The in-memory model's own work: the facts derived from the records, the
//! lookups the handlers share, and how one write changes it.

use std::collections::HashMap;

use super::records::{Derived, MembershipRec, ProjectRec};
use super::{Change, Data};
use crate::api::model::PiiStatus;
use crate::server::search;

impl Data {
    /// Open personal-data findings of a project.
    pub fn open_pii_count(&self, project_id: &str) -> i64 {
        self.projects
            .get(project_id)
            .map_or(0, |project| project.derived.open_pii)
    }

    /// Works out every project's [`Derived`] facts from the other records.
    pub(super) fn derive(&mut self) {
        let mut owners: HashMap<(&str, &str), (bool, Option<&str>)> = HashMap::new();
        for m in &self.memberships {
            let key = (m.workspace_id.as_str(), m.user_id.as_str());
            let active = m.is_active();
            if owners
                .get(&key)
                .is_some_and(|(kept_active, _)| *kept_active || !active)
            {
                continue;
            }
            owners.insert(key, (active, m.display_name.as_deref()));
        }
        let mut derived: Vec<(String, Derived)> = Vec::with_capacity(self.projects.len());
        for project in self.projects.values() {
            let open_pii = self.pii.get(&project.wire.id).map_or(0, |findings| {
                findings
                    .iter()
                    .filter(|pii| pii.finding.status == PiiStatus::Open)
                    .count() as i64
            });
            let owner_name = project
                .wire
                .owner_id
                .as_deref()
                .and_then(|owner| owners.get(&(project.wire.workspace_id.as_str(), owner)))
                .and_then(|(_, name)| name.map(str::to_owned));
            let owner_name_folded = owner_name.as_deref().map(search::fold);
            derived.push((
                project.wire.id.clone(),
                Derived {
                    open_pii,
                    owner_name,
                    owner_name_folded,
                    name_folded: project.wire.name.as_deref().map(search::fold),
                },
            ));
        }
        for (id, facts) in derived {
            if let Some(project) = self.projects.get_mut(&id) {
                project.derived = facts;
            }
        }
        self.indexes.clear();
    }

    /// Active members of a workspace.
    pub fn active_members<'a>(
        &'a self,
        workspace_id: &'a str,
    ) -> impl Iterator<Item = &'a MembershipRec> + 'a {
        self.memberships
            .iter()
            .filter(move |m| m.workspace_id == workspace_id && m.is_active())
    }

    /// Projects of a workspace, in id order.
    pub fn workspace_projects<'a>(
        &'a self,
        workspace_id: &'a str,
    ) -> impl Iterator<Item = &'a ProjectRec> + 'a {
        self.projects
            .values()
            .filter(move |p| p.wire.workspace_id == workspace_id)
    }

    pub(crate) fn apply(&mut self, change: &Change) {
        match change {
            Change::PutProject(project) => {
                let mut project = (**project).clone();
                // A rename changes what search compares.
                project.derived.name_folded = project.wire.name.as_deref().map(search::fold);
                let id = project.wire.id.clone();
                let workspace = project.wire.workspace_id.clone();
                let old = self.projects.insert(id.clone(), project);
                if let Some(old) = old.filter(|old| old.wire.workspace_id != workspace) {
                    self.indexes
                        .project_changed(&old.wire.workspace_id, self, &id);
                }
                self.indexes.project_changed(&workspace, self, &id);
            }
            Change::DeleteProject { id, .. } => {
                self.pii.remove(id);
                self.scans.remove(id);
                if let Some(old) = self.projects.remove(id) {
                    self.indexes
                        .project_changed(&old.wire.workspace_id, self, id);
                }
            }
            Change::PutDeployment(deployment) => {
                self.deployments
                    .insert(deployment.id.clone(), deployment.clone());
            }
        }
    }
}
