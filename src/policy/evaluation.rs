//! One evaluation whole: the policies compiled on the evaluation's clock,
//! their violations over one input document, the standing waivers applied.
//! What `vantage check`, `vantage inventory --violates` and the dashboard
//! share, with the look-ups the dashboard draws from (a project's findings,
//! a policy's counts) indexed once.

use std::collections::{HashMap, HashSet};

use time::OffsetDateTime;

use super::engine::{Policy, PolicySet, PolicySource};
use super::input::PolicyInput;
use super::outcome::{Finding, FindingStatus, apply_waivers};
use super::{PolicyError, clock_ext};
use crate::history::waivers::{Waiver, standing};

/// A policy's findings at one evaluation: its violations (failing, waived)
/// and the projects it could not judge, counted apart from both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub failing: usize,
    pub waived: usize,
    /// Not judged (what the policy reads is not in the document): of a
    /// policy, the projects, each once whatever its messages; of a project,
    /// the findings.
    pub unknown: usize,
}

impl Counts {
    /// The violations, failing and waived (never the not judged).
    pub fn total(self) -> usize {
        self.failing + self.waived
    }

    fn add(&mut self, status: FindingStatus) {
        match status {
            FindingStatus::Failing => self.failing += 1,
            FindingStatus::Waived => self.waived += 1,
            FindingStatus::Unknown => self.unknown += 1,
        }
    }
}

/// What one evaluation found.
#[derive(Debug, Clone, Default)]
pub struct Evaluation {
    /// Every policy evaluated, in load order.
    pub policies: Vec<Policy>,
    /// Every finding (violations and projects not judged), by policy (in
    /// load order), then violations first, then project.
    pub findings: Vec<Finding>,
    /// The findings of each project, as indexes into `findings`.
    by_project: HashMap<String, Vec<usize>>,
    /// Each policy's counts, by id.
    counts: HashMap<String, Counts>,
    /// Each policy that could not judge some projects, by id: how many
    /// projects, and its first such finding (an index into `findings`).
    not_judged: HashMap<String, (usize, usize)>,
}

/// The project names the input knows, by id.
fn project_names(input: &PolicyInput) -> HashMap<String, String> {
    input
        .projects
        .iter()
        .filter_map(|project| Some((project.id.clone(), project.name.clone()??)))
        .collect()
}

/// Compiles `sources` on `now`'s clock, evaluates them over `input` and
/// applies the standing waivers among `waivers` (every one recorded).
pub fn evaluate(
    sources: &[PolicySource],
    input: &PolicyInput,
    waivers: Vec<Waiver>,
    now: OffsetDateTime,
) -> Result<Evaluation, PolicyError> {
    let mut set = PolicySet::compile(sources, clock_ext::to_ns(now))?;
    Evaluation::of_set(&mut set, input, waivers, now)
}

impl Evaluation {
    /// Evaluates the compiled `set` over `input` and applies the standing
    /// waivers among `waivers` (every one recorded) at `now`.
    pub fn of_set(
        set: &mut PolicySet,
        input: &PolicyInput,
        waivers: Vec<Waiver>,
        now: OffsetDateTime,
    ) -> Result<Self, PolicyError> {
        let verdicts = set.evaluate(input)?;
        let findings = apply_waivers(
            verdicts,
            set.policies(),
            &standing(waivers),
            &project_names(input),
            now,
        );
        Ok(Self::new(set.policies().to_vec(), findings))
    }

    pub fn new(policies: Vec<Policy>, findings: Vec<Finding>) -> Self {
        let mut by_project: HashMap<String, Vec<usize>> = HashMap::new();
        let mut counts: HashMap<String, Counts> = policies
            .iter()
            .map(|policy| (policy.meta.id.clone(), Counts::default()))
            .collect();
        for (index, finding) in findings.iter().enumerate() {
            by_project
                .entry(finding.project_id.clone())
                .or_default()
                .push(index);
            counts
                .entry(finding.policy.clone())
                .or_default()
                .add(finding.status);
        }
        let mut not_judged: HashMap<String, (usize, usize)> = HashMap::new();
        let mut seen: HashSet<(&str, &str)> = HashSet::new();
        for (index, finding) in findings.iter().enumerate() {
            if finding.status == FindingStatus::Unknown
                && seen.insert((&finding.policy, &finding.project_id))
            {
                not_judged
                    .entry(finding.policy.clone())
                    .or_insert((0, index))
                    .0 += 1;
            }
        }
        for (policy, (projects, _)) in &not_judged {
            counts.entry(policy.clone()).or_default().unknown = *projects;
        }
        Self {
            policies,
            findings,
            by_project,
            counts,
            not_judged,
        }
    }

    /// The project's findings, by policy.
    pub fn of_project<'a>(&'a self, project_id: &str) -> impl Iterator<Item = &'a Finding> + 'a {
        self.by_project
            .get(project_id)
            .into_iter()
            .flatten()
            .filter_map(|&index| self.findings.get(index))
    }

    /// The project's findings, failing, waived and not judged (a policy
    /// that found several things counts once per thing, as `vantage check`
    /// lists them).
    pub fn project_counts(&self, project_id: &str) -> Counts {
        let mut counts = Counts::default();
        for finding in self.of_project(project_id) {
            counts.add(finding.status);
        }
        counts
    }

    /// Each policy that could not judge some projects, in load order: the
    /// policy, how many projects, and the first of its messages.
    pub fn not_judged(&self) -> Vec<(&Policy, usize, &str)> {
        self.policies
            .iter()
            .filter_map(|policy| {
                let (projects, first) = *self.not_judged.get(&policy.meta.id)?;
                Some((policy, projects, self.findings.get(first)?.message.as_str()))
            })
            .collect()
    }

    /// A policy's counts; zero for one that found nothing (or is unknown).
    pub fn policy_counts(&self, policy_id: &str) -> Counts {
        self.counts.get(policy_id).copied().unwrap_or_default()
    }

    /// The policy of this id.
    pub fn policy(&self, policy_id: &str) -> Option<&Policy> {
        self.policies
            .iter()
            .find(|policy| policy.meta.id == policy_id)
    }

    /// Refuses an id no policy has, naming the ones there are.
    pub fn check_ids(&self, ids: &[String]) -> Result<(), PolicyError> {
        match ids.iter().find(|id| self.policy(id).is_none()) {
            None => Ok(()),
            Some(id) => Err(PolicyError::UnknownPolicy {
                id: id.clone(),
                known: self
                    .policies
                    .iter()
                    .map(|policy| policy.meta.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }

    /// Whether the project violates one of `ids` (waived or not): the
    /// `--violates` filter, for the command and the dashboard alike.
    pub fn violates(&self, project_id: &str, ids: &[String]) -> bool {
        self.of_project(project_id)
            .any(|finding| finding.status.is_violation() && ids.contains(&finding.policy))
    }

    /// The projects that violate one of `ids`.
    pub fn violating(&self, ids: &[String]) -> HashSet<&str> {
        self.findings
            .iter()
            .filter(|finding| finding.status.is_violation() && ids.contains(&finding.policy))
            .map(|finding| finding.project_id.as_str())
            .collect()
    }
}
