//! List parameters and pagination.
//!
//! Parameters are typed with the model's enums, and each parameter set is
//! declared once, as a struct whose fields are the wire names: it becomes a
//! query through serde ([`to_query`]). `None` is left out, repeatable parameters
//! are sent as repeated keys, booleans as `true`/`false`. Streams
//! (`stream.rs`) follow `next_cursor` while `has_more` is true, with the same
//! filters and sort; an empty page with `has_more` is not the end. Every walk
//! over pages, streamed or page by page, is bounded by one [`PageWalk`]
//! (`walk.rs`): a hostile service cannot keep it going.

mod pages;
mod stream;
mod walk;

use serde::Serialize;
use serde_json::Value;

use super::model::{
    ActivityGroup, InventorySortBy, MemberSortBy, PublishAudience, ReviewPriority, Role, SortOrder,
    Visibility, wire,
};

pub use pages::{PageShape, Pages};
pub(crate) use stream::{Arrived, Parts, guess_next_cursor, item_stream};
pub use walk::{DEFAULT_MAX_WALK_ITEMS, MAX_CURSOR_BYTES, MAX_EMPTY_PAGES_IN_ROW, PageWalk};

/// Query pairs, in the order added.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Query(pub Vec<(String, String)>);

impl Query {
    pub fn one(&mut self, name: &str, value: Option<impl ToString>) -> &mut Self {
        if let Some(value) = value {
            self.0.push((name.to_owned(), value.to_string()));
        }
        self
    }

    pub fn each<T: ToString>(&mut self, name: &str, values: &[T]) -> &mut Self {
        self.0.extend(
            values
                .iter()
                .map(|value| (name.to_owned(), value.to_string())),
        );
        self
    }

    pub fn cursor(&mut self, cursor: Option<&str>) -> &mut Self {
        self.one("cursor", cursor)
    }

    /// The `limit` asked for, when there is one.
    pub fn limit(&self) -> Option<u32> {
        self.0
            .iter()
            .find(|(name, _)| name == "limit")
            .and_then(|(_, value)| value.parse().ok())
    }

    pub fn into_pairs(self) -> Vec<(String, String)> {
        self.0
    }

    /// One field of a parameter struct: nothing for `null`, a key per item of
    /// a list, the plain text of a scalar.
    fn field(&mut self, name: &str, value: Value) {
        match value {
            Value::Null => {}
            Value::Array(items) => items.into_iter().for_each(|item| self.field(name, item)),
            Value::String(text) => self.0.push((name.to_owned(), text)),
            scalar => self.0.push((name.to_owned(), scalar.to_string())),
        }
    }
}

/// The query of a parameter struct (fields in declaration order), then `cursor`.
pub fn to_query(params: &impl Serialize, cursor: Option<&str>) -> Query {
    let mut query = Query::default();
    // Parameter structs are plain fields of strings, numbers, booleans and
    // enums: they always serialize to an object.
    if let Ok(Value::Object(fields)) = serde_json::to_value(params) {
        for (name, value) in fields {
            query.field(&name, value);
        }
    }
    query.cursor(cursor);
    query
}

/// `limit` alone: the PII, scan findings and workspace project lists.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PageParams {
    /// 1 to 100; the server's default (50) when `None`.
    pub limit: Option<u32>,
}

/// Parameters of `GET /v1/projects`: the workspaces (1 to 10, repeated
/// `workspace_id`) and the page size.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProjectListParams {
    pub workspace_id: Vec<String>,
    pub limit: Option<u32>,
}

/// Parameters of the workspace member list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MemberListParams {
    pub limit: Option<u32>,
    /// Searches display name, username and e-mail.
    pub query: Option<String>,
    /// Matches any given role.
    pub role: Vec<Role>,
    pub sort_by: Option<MemberSortBy>,
    /// Requires `sort_by`.
    pub sort_order: Option<SortOrder>,
    pub scim_managed: Option<bool>,
}

/// Parameters of the security project inventory: the one declaration of its
/// search, sort and filters. The client sends them as the query (serde, the
/// wire names), and they are `vantage inventory`'s flags (clap, flattened by
/// `flags::InventoryFilterArgs`, which the dashboard's `:filter` and saved
/// views read too), so each doc line below is a flag's help.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, clap::Args)]
pub struct InventoryParams {
    /// 1 to 100; the server's default (50) when `None`. Not a filter: the
    /// command's `--page-size`.
    #[arg(skip)]
    pub limit: Option<u32>,
    /// Free text over project name and owner (terms under 3 characters are ignored).
    #[arg(long, value_name = "TEXT")]
    pub query: Option<String>,
    /// Sort key (`relevance` needs --query) [default: most recently edited first].
    #[arg(long, value_name = "KEY", value_parser = wire::<InventorySortBy>())]
    pub sort_by: Option<InventorySortBy>,
    /// Sort direction [default: asc for name, desc for the rest].
    #[arg(long, value_name = "ORDER", requires = "sort_by", value_parser = wire::<SortOrder>())]
    pub sort_order: Option<SortOrder>,
    /// Time since the last edit.
    #[arg(long, value_name = "GROUP", value_delimiter = ',', value_parser = wire::<ActivityGroup>())]
    pub activity_group: Vec<ActivityGroup>,
    /// Only published (true) or unpublished (false) projects.
    #[arg(long, value_name = "BOOL")]
    pub is_published: Option<bool>,
    /// Who may open the project in the editor.
    #[arg(long, value_name = "VISIBILITY", value_delimiter = ',', value_parser = wire::<Visibility>())]
    pub visibility: Vec<Visibility>,
    /// Projects with (true) or without (false) detected personal data.
    #[arg(long, value_name = "BOOL")]
    pub has_pii: Option<bool>,
    // DESIGN.md names the connected-service filter `has_connectors`.
    /// Projects with (true) or without (false) a connected service.
    #[arg(long, value_name = "BOOL")]
    pub has_connectors: Option<bool>,
    /// Audience of the published app (needs --is-published true or none).
    #[arg(long, value_name = "AUDIENCE", value_delimiter = ',',
          value_parser = wire::<PublishAudience>())]
    pub publish_audience: Vec<PublishAudience>,
    /// Review priority of the project.
    #[arg(long, value_name = "PRIORITY", value_delimiter = ',',
          value_parser = wire::<ReviewPriority>())]
    pub review_priority: Vec<ReviewPriority>,
    /// Finding type IDs from `vantage insights` (e.g. public_security_exposure,
    /// public_pii_exposure, external_collaborator_access, inactive_owner).
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub finding_type_id: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeatable_parameters_repeat_and_booleans_are_words() {
        let params = InventoryParams {
            limit: Some(100),
            query: Some("budget app".into()),
            sort_by: Some(InventorySortBy::Visitors7d),
            sort_order: Some(SortOrder::Asc),
            activity_group: vec![ActivityGroup::Last14Days, ActivityGroup::Older],
            is_published: Some(true),
            visibility: vec![Visibility::Restricted],
            has_pii: Some(false),
            has_connectors: Some(true),
            publish_audience: vec![PublishAudience::Public, PublishAudience::Custom],
            review_priority: vec![ReviewPriority::Unscored],
            finding_type_id: vec!["inactive_owner".into()],
        };
        let pairs = to_query(&params, Some("c1")).into_pairs();
        let shown: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(
            shown,
            [
                "limit=100",
                "query=budget app",
                "sort_by=visitors_7d",
                "sort_order=asc",
                "activity_group=last_14_days",
                "activity_group=older",
                "is_published=true",
                "visibility=restricted",
                "has_pii=false",
                "has_connectors=true",
                "publish_audience=public",
                "publish_audience=custom",
                "review_priority=unscored",
                "finding_type_id=inactive_owner",
                "cursor=c1",
            ]
        );
        let members = MemberListParams {
            role: vec![Role::Owner, Role::Unknown("auditor".into())],
            scim_managed: Some(false),
            ..Default::default()
        };
        let shown: Vec<String> = to_query(&members, None)
            .into_pairs()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        assert_eq!(shown, ["role=owner", "role=auditor", "scim_managed=false"]);
        assert!(to_query(&InventoryParams::default(), None).0.is_empty());
    }
}
