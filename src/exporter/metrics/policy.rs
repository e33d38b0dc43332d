//! The team's policies (`exporter/policy.rs`): violations not waived by
//! policy and severity, waived ones by policy, the projects each policy
//! could not judge (a snapshot lacks what it reads), when the figures were made
//! and from a snapshot taken when (timestamps, not ages: the rules compute
//! the age), and the evaluations that failed. Absent while none succeeded;
//! the last figures stay on show through a failure, as a source's do.

use super::Scope;
use super::families::Families;

const VIOLATIONS: (&str, &str) = (
    "policy_violations",
    "Violations of each policy that no standing waiver covers, in the review history's newest snapshot; cached from the policy evaluation",
);
const WAIVED: (&str, &str) = (
    "policy_waived",
    "Violations of each policy that a standing waiver covers, in the review history's newest snapshot; cached from the policy evaluation",
);
const UNKNOWN: (&str, &str) = (
    "policy_unknown",
    "Projects each policy could not judge (a field it reads is not in the snapshot), neither passing nor violating, in the review history's newest snapshot; cached from the policy evaluation",
);
const EVALUATED: (&str, &str) = (
    "policy_evaluation_timestamp_seconds",
    "When the policies were last evaluated, in seconds since the Unix epoch",
);
const INPUT: (&str, &str) = (
    "policy_input_timestamp_seconds",
    "When the snapshot the policies were evaluated on was taken, in seconds since the Unix epoch",
);
const ERRORS: (&str, &str) = (
    "policy_evaluation_errors",
    "Policy evaluations that failed (no history or snapshot, a policy that does not compile)",
);

fn seconds(at: time::OffsetDateTime) -> f64 {
    (at.unix_timestamp_nanos() / 1_000_000) as f64 / 1000.0
}

/// Family by family, so each family's samples stay together whatever the
/// number of contexts.
pub(super) fn add_policies(families: &mut Families, scopes: &[Scope<'_>]) {
    let tallies = || {
        scopes
            .iter()
            .filter_map(|scope| Some((scope, scope.snapshot.policy.as_ref()?)))
    };
    for (scope, tally) in tallies() {
        for count in &tally.policies {
            let labels = scope.labels(&[("policy", &count.policy), ("severity", count.severity)]);
            families.gauge(VIOLATIONS.0, VIOLATIONS.1, labels, count.failing);
        }
    }
    for (scope, tally) in tallies() {
        for count in &tally.policies {
            let labels = scope.labels(&[("policy", &count.policy)]);
            families.gauge(WAIVED.0, WAIVED.1, labels, count.waived);
        }
    }
    for (scope, tally) in tallies() {
        for count in &tally.policies {
            let labels = scope.labels(&[("policy", &count.policy)]);
            families.gauge(UNKNOWN.0, UNKNOWN.1, labels, count.unknown);
        }
    }
    for (scope, tally) in tallies() {
        let at = seconds(tally.evaluated_at);
        families.float(EVALUATED.0, EVALUATED.1, scope.labels(&[]), at);
    }
    for (scope, tally) in tallies() {
        if let Some(taken_at) = tally.snapshot_taken_at {
            families.float(INPUT.0, INPUT.1, scope.labels(&[]), seconds(taken_at));
        }
    }
    for scope in scopes
        .iter()
        .filter(|scope| scope.snapshot.policies_evaluated)
    {
        let errors = scope.snapshot.policy_errors;
        families.counter(ERRORS.0, ERRORS.1, scope.labels(&[]), errors);
    }
}
