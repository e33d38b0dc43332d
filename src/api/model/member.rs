use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::rfc3339;
use crate::open_enum;

open_enum! {
    /// Kind of a workspace member.
    pub enum MemberType {
        User => "user",
    }
}

open_enum! {
    /// Workspace roles, declared in the contract's precedence order except that
    /// `collaborator` outranks `viewer`: see [`Role::precedence`].
    pub enum Role {
        Owner => "owner",
        Admin => "admin",
        Member => "member",
        Viewer => "viewer",
        Collaborator => "collaborator",
    }
}

impl Role {
    /// Position in the contract's role precedence: owner, admin, member,
    /// collaborator, viewer.
    pub fn precedence(&self) -> u8 {
        match self {
            Self::Owner => 0,
            Self::Admin => 1,
            Self::Member => 2,
            Self::Collaborator => 3,
            Self::Viewer => 4,
            Self::Unknown(_) => 5,
        }
    }
}

open_enum! {
    /// `sort_by` of the member list.
    pub enum MemberSortBy {
        DisplayName => "display_name",
        JoinedAt => "joined_at",
        Role => "role",
        Relevance => "relevance",
    }
}

/// Item of the member list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberRef {
    pub user_id: String,
    #[serde(rename = "type")]
    pub kind: MemberType,
}

/// A workspace member (detail). `joined_at` and `invited_at` are our choice where
/// the contract says "not shown" (DESIGN.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Member {
    pub user_id: String,
    pub workspace_id: String,
    #[serde(rename = "type")]
    pub kind: MemberType,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, with = "rfc3339::option")]
    pub joined_at: Option<OffsetDateTime>,
    #[serde(default, with = "rfc3339::option")]
    pub invited_at: Option<OffsetDateTime>,
}
