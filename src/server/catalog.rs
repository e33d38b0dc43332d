//! Security finding types. The contract shows one ID (`public_security_exposure`);
//! the others are DESIGN.md's choices.

use crate::api::model::{FindingType, ReviewPriority};

/// A finding type, before its project count is known.
#[derive(Debug, Clone)]
pub struct FindingKind {
    pub id: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub category: &'static str,
    pub review_priority: ReviewPriority,
    /// Left out (and gated with 402) when personal-data detection is unavailable.
    pub needs_pii_detection: bool,
}

/// Every finding type, higher review priority first.
pub const FINDING_KINDS: &[FindingKind] = &[
    FindingKind {
        id: "public_security_exposure",
        title: "Publicly published with security issues",
        description: "The app is published to everyone and its latest security scan reports errors or exposed secrets.",
        category: "exposure",
        review_priority: ReviewPriority::NeedsReview,
        needs_pii_detection: false,
    },
    FindingKind {
        id: "public_pii_exposure",
        title: "Publicly published with personal data",
        description: "The app is published to everyone and open personal-data findings were detected in it.",
        category: "data",
        review_priority: ReviewPriority::NeedsReview,
        needs_pii_detection: true,
    },
    FindingKind {
        id: "external_collaborator_access",
        title: "External collaborators can edit",
        description: "People outside the workspace have been invited to the project.",
        category: "exposure",
        review_priority: ReviewPriority::ReviewRecommended,
        needs_pii_detection: false,
    },
    FindingKind {
        id: "inactive_owner",
        title: "Owner is no longer active",
        description: "The project's owner left the workspace or has not edited anything for 180 days.",
        category: "exposure",
        review_priority: ReviewPriority::NoReviewNeeded,
        needs_pii_detection: false,
    },
];

pub fn finding_kind(id: &str) -> Option<&'static FindingKind> {
    FINDING_KINDS.iter().find(|kind| kind.id == id)
}

impl FindingKind {
    pub fn with_count(&self, project_count: i64) -> FindingType {
        FindingType {
            id: self.id.to_owned(),
            title: self.title.to_owned(),
            description: self.description.to_owned(),
            category: self.category.to_owned(),
            review_priority: self.review_priority.clone(),
            project_count,
        }
    }
}
