//! The inventory's filters and sort as flags: `vantage inventory` takes them
//! on its command line, the dashboard's palette (`:filter`, `:sort`) and its
//! saved views read them from a line of words, through this one declaration.

use clap::{Args, CommandFactory, Parser};

use super::{FlagSpec, wire};
use crate::api::InventoryParams;
use crate::api::model::{
    ActivityGroup, InventorySortBy, PublishAudience, ReviewPriority, SortOrder, Visibility,
    WireEnum,
};

/// The inventory's search, sort and filters (the contract's query parameters
/// but the page size).
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct InventoryFilterArgs {
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
    /// Projects that violate one of these policies (ids from `vantage check`;
    /// waived violations count). The service knows nothing of policies: the
    /// command evaluates them as `vantage check` does, the dashboard keeps
    /// the rows its own evaluation finds.
    #[arg(long, value_name = "POLICY", value_delimiter = ',')]
    pub violates: Vec<String>,
}

/// The direction a sort starts in: names A→Z, as `ls` and k9s do; counts,
/// times and ranks highest (newest, most urgent) first. The command, the
/// dashboard and saved views all send it explicitly, so none leaves the
/// direction to the service and a view and a command copy into each other.
pub fn first_order(sort_by: &InventorySortBy) -> SortOrder {
    match sort_by {
        InventorySortBy::Name => SortOrder::Asc,
        _ => SortOrder::Desc,
    }
}

/// The flags alone, as a line of words gives them (no program name).
#[derive(Parser, Debug)]
#[command(
    name = "filter",
    no_binary_name = true,
    disable_help_flag = true,
    disable_version_flag = true
)]
struct FilterLine {
    #[command(flatten)]
    filters: InventoryFilterArgs,
}

impl InventoryFilterArgs {
    /// Reads flags from `words` as the command line would; the error, on
    /// one line, names the flag or value at fault.
    pub fn parse_words(words: &[String]) -> Result<Self, String> {
        FilterLine::try_parse_from(words)
            .map(|line| line.filters)
            .map_err(|error| super::one_line(&error))
    }

    /// Every flag, for completion.
    pub fn flags() -> &'static [FlagSpec] {
        // Read once: the palette asks on every frame while a line is typed.
        static FLAGS: std::sync::LazyLock<Vec<FlagSpec>> =
            std::sync::LazyLock::new(|| super::flag_specs(&FilterLine::command()));
        &FLAGS
    }

    /// The client's parameters, `limit` items a page; a sort without a
    /// direction gets its first one ([`first_order`]).
    pub fn params(&self, limit: Option<u32>) -> InventoryParams {
        let Self {
            query,
            sort_by,
            sort_order,
            activity_group,
            is_published,
            visibility,
            has_pii,
            has_connectors,
            publish_audience,
            review_priority,
            finding_type_id,
            violates: _,
        } = self.clone();
        InventoryParams {
            limit,
            query,
            sort_order: sort_order.or_else(|| sort_by.as_ref().map(first_order)),
            sort_by,
            activity_group,
            is_published,
            visibility,
            has_pii,
            has_connectors,
            publish_audience,
            review_priority,
            finding_type_id,
        }
    }

    /// The flags that ask for `params` (its page size aside); none of the
    /// filters the service does not know (`--violates`).
    pub fn from_params(params: &InventoryParams) -> Self {
        let params = params.clone();
        Self {
            query: params.query,
            sort_by: params.sort_by,
            sort_order: params.sort_order,
            activity_group: params.activity_group,
            is_published: params.is_published,
            visibility: params.visibility,
            has_pii: params.has_pii,
            has_connectors: params.has_connectors,
            publish_audience: params.publish_audience,
            review_priority: params.review_priority,
            finding_type_id: params.finding_type_id,
            violates: Vec::new(),
        }
    }

    /// The words that [`Self::parse_words`] reads back as these flags, in
    /// the declaration's order; several values of one flag comma-joined.
    pub fn to_words(&self) -> Vec<String> {
        let mut words = Vec::new();
        let mut push = |flag: &str, value: String| {
            words.push(format!("--{flag}"));
            words.push(value);
        };
        fn joined<T: WireEnum>(values: &[T]) -> Option<String> {
            (!values.is_empty()).then(|| {
                values
                    .iter()
                    .map(|value| value.wire().to_owned())
                    .collect::<Vec<_>>()
                    .join(",")
            })
        }
        if let Some(query) = &self.query {
            push("query", query.clone());
        }
        if let Some(sort_by) = &self.sort_by {
            push("sort-by", sort_by.wire().to_owned());
        }
        if let Some(order) = &self.sort_order {
            push("sort-order", order.wire().to_owned());
        }
        if let Some(groups) = joined(&self.activity_group) {
            push("activity-group", groups);
        }
        if let Some(published) = self.is_published {
            push("is-published", published.to_string());
        }
        if let Some(visibility) = joined(&self.visibility) {
            push("visibility", visibility);
        }
        if let Some(pii) = self.has_pii {
            push("has-pii", pii.to_string());
        }
        if let Some(connectors) = self.has_connectors {
            push("has-connectors", connectors.to_string());
        }
        if let Some(audience) = joined(&self.publish_audience) {
            push("publish-audience", audience);
        }
        if let Some(priority) = joined(&self.review_priority) {
            push("review-priority", priority);
        }
        if !self.finding_type_id.is_empty() {
            push("finding-type-id", self.finding_type_id.join(","));
        }
        if !self.violates.is_empty() {
            push("violates", self.violates.join(","));
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        crate::flags::split_words(line).unwrap()
    }

    #[test]
    fn a_line_reads_as_the_command_line_does() {
        let parsed = InventoryFilterArgs::parse_words(&words(
            "--review-priority needs_review --is-published true --publish-audience public \
             --has-pii true --sort-by open_pii_finding_count",
        ))
        .unwrap();
        assert_eq!(parsed.review_priority, [ReviewPriority::NeedsReview]);
        assert_eq!(parsed.is_published, Some(true));
        assert_eq!(parsed.publish_audience, [PublishAudience::Public]);
        assert_eq!(parsed.has_pii, Some(true));
        assert_eq!(parsed.sort_by, Some(InventorySortBy::OpenPiiFindingCount));
        assert_eq!(parsed.sort_order, None);
        // Back to words and read again: the same flags.
        let again = InventoryFilterArgs::parse_words(&parsed.to_words()).unwrap();
        assert_eq!(again, parsed);
        let several = InventoryFilterArgs::parse_words(&words(
            "--visibility restricted,workspace_view --query 'support studio'",
        ))
        .unwrap();
        assert_eq!(several.visibility.len(), 2);
        assert_eq!(several.query.as_deref(), Some("support studio"));
        assert_eq!(
            InventoryFilterArgs::parse_words(&several.to_words()).unwrap(),
            several
        );
        let policies =
            InventoryFilterArgs::parse_words(&words("--violates stale_scan,review_current"))
                .unwrap();
        assert_eq!(policies.violates, ["stale_scan", "review_current"]);
        assert_eq!(
            InventoryFilterArgs::parse_words(&policies.to_words()).unwrap(),
            policies
        );
    }

    #[test]
    fn errors_name_the_flag_and_the_value() {
        let bad_value = InventoryFilterArgs::parse_words(&words("--has-pii maybe")).unwrap_err();
        assert!(
            bad_value.contains("maybe") && bad_value.contains("--has-pii"),
            "{bad_value}"
        );
        assert!(!bad_value.contains('\n'), "{bad_value}");
        let bad_flag = InventoryFilterArgs::parse_words(&words("--has-pi true")).unwrap_err();
        assert!(
            bad_flag.contains("--has-pi") && bad_flag.contains("--has-pii"),
            "{bad_flag}"
        );
        let bad_enum =
            InventoryFilterArgs::parse_words(&words("--review-priority urgent")).unwrap_err();
        assert!(
            bad_enum.contains("urgent") && bad_enum.contains("needs_review"),
            "{bad_enum}"
        );
        let order_alone = InventoryFilterArgs::parse_words(&words("--sort-order asc")).unwrap_err();
        assert!(order_alone.contains("--sort-by"), "{order_alone}");
    }

    #[test]
    fn completion_knows_every_flag_and_its_values() {
        let flags = InventoryFilterArgs::flags();
        let pii = flags.iter().find(|f| f.flag == "--has-pii").unwrap();
        assert_eq!(pii.values, ["true", "false"]);
        let priority = flags
            .iter()
            .find(|f| f.flag == "--review-priority")
            .unwrap();
        assert!(priority.values.contains(&"needs_review".to_owned()));
        assert!(flags.iter().any(|f| f.flag == "--finding-type-id"));
        assert!(!flags.iter().any(|f| f.flag == "--help"));
    }
}
