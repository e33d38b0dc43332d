//! The App's side of the policies: the live rows the inventory loaded (kept
//! by project, whatever its filters hide since), whether the input changed
//! since the last evaluation, and one evaluation in flight at a time: a
//! change while one runs waits for it, and any number of changes meanwhile
//! make one more (coalesced). What the screens are shown is shared from here.

use std::collections::HashMap;
use std::sync::Arc;

use super::App;
use crate::tui::effect::{Cx, ErrorInfo, Slot};
use crate::tui::policies::{EvaluatePolicies, Evaluated, LiveRow, PolicyShown, SnapshotBase};

/// The evaluation: one in flight at a time.
pub const EVALUATE_POLICIES: Slot = Slot::new("policies", "evaluate");

/// The answer to an evaluation.
#[derive(Debug)]
pub enum PolicyMsg {
    Evaluated(Result<Evaluated, ErrorInfo>),
}

#[derive(Debug, Default)]
pub struct PolicyState {
    /// Every live row the inventory loaded, by project.
    rows: HashMap<String, LiveRow>,
    /// The newest snapshot's part, as the last evaluation read it.
    base: Option<Arc<SnapshotBase>>,
    /// The evaluation in flight: its token.
    pending: Option<u64>,
    /// The input changed since the evaluation in flight (or the last) began.
    stale: bool,
    /// What the screens show.
    pub shown: Arc<PolicyShown>,
}

impl App {
    /// The input changed (a page, a write, a mark, a waiver, a snapshot):
    /// evaluate again once this message is handled.
    pub(super) fn policy_input_changed(&mut self) {
        self.policies.stale = true;
    }

    /// Takes the inventory's live rows in; the input changed when one is
    /// new or differs from what was taken. The snapshot's rows shown before
    /// the first live page (of no read time) are the snapshot's, read by the
    /// evaluation itself.
    pub(super) fn take_inventory_rows(&mut self) {
        let Some(read_at) = self.inventory.list.loaded_at else {
            return;
        };
        let mut changed = false;
        for item in &self.inventory.list.rows {
            if self
                .policies
                .rows
                .get(&item.id)
                .is_some_and(|row| row.item == *item)
            {
                continue;
            }
            self.policies.rows.insert(
                item.id.clone(),
                LiveRow {
                    item: item.clone(),
                    read_at,
                },
            );
            changed = true;
        }
        if changed {
            self.policy_input_changed();
        }
    }

    /// A project deleted here leaves the input.
    pub(super) fn forget_policy_row(&mut self, project_id: &str) {
        if self.policies.rows.remove(project_id).is_some() {
            self.policy_input_changed();
        }
    }

    /// Asks for an evaluation when the input changed and none is in flight.
    pub(super) fn evaluate_policies(&mut self, cx: &mut Cx) {
        if !self.policies.stale || self.policies.pending.is_some() {
            return;
        }
        self.policies.stale = false;
        let mut live: Vec<LiveRow> = self.policies.rows.values().cloned().collect();
        live.sort_by(|a, b| a.item.id.cmp(&b.item.id));
        let token = cx.request(
            EVALUATE_POLICIES,
            EvaluatePolicies {
                live: Arc::new(live),
                config_file: self.settings.config_file.clone(),
                base: self.policies.base.clone(),
            },
            PolicyMsg::Evaluated,
        );
        self.policies.pending = Some(token);
        let shown = Arc::make_mut(&mut self.policies.shown);
        shown.evaluating = true;
        self.share_policies(cx);
    }

    /// An evaluation's answer: shown everywhere; a failure (a policy that
    /// does not compile names its file and line) on the status line too.
    pub(super) fn policies_answered(&mut self, token: u64, msg: PolicyMsg, cx: &mut Cx) -> bool {
        if self.policies.pending != Some(token) {
            return false;
        }
        self.policies.pending = None;
        let PolicyMsg::Evaluated(answer) = msg;
        let shown = Arc::make_mut(&mut self.policies.shown);
        shown.evaluating = false;
        match answer {
            Ok(evaluated) => {
                if shown.error.is_some() {
                    // The failure's notice gives way to its end.
                    cx.notify(format!(
                        "policies: {} evaluated again without error",
                        evaluated.evaluation.policies.len()
                    ));
                }
                self.policies.base = evaluated.base;
                shown.evaluation = Some(evaluated.evaluation);
                shown.over = Some(evaluated.over);
                shown.error = None;
            }
            Err(error) => {
                cx.notify(error.summary.clone());
                shown.error = Some(error);
            }
        }
        self.share_policies(cx);
        // What changed while this one ran.
        self.evaluate_policies(cx);
        true
    }

    /// What the screens show of the policies, shared.
    fn share_policies(&mut self, cx: &mut Cx) {
        let shown = self.policies.shown.clone();
        self.inventory.set_policies(shown.clone(), cx);
        self.policy.set_policies(shown.clone());
        if let Some(project) = &mut self.project {
            project.policies = shown;
        }
    }

    /// The project screen just opened: it shows what is known.
    pub(super) fn share_policies_with_project(&mut self) {
        if let Some(project) = &mut self.project {
            project.policies = self.policies.shown.clone();
        }
    }
}
