//! The inventory's filters and sort as flags: `vantage inventory` takes them
//! on its command line, the dashboard's palette (`:filter`, `:sort`) and its
//! saved views read them from a line of words, through this one declaration.

use clap::{Args, CommandFactory, Parser};

use super::FlagSpec;
use crate::api::InventoryParams;
use crate::api::model::{InventorySortBy, SortOrder};
use crate::api::page::to_query;

/// The inventory's search, sort and filters: the client's parameters (their
/// one declaration, [`InventoryParams`], but the page size) and the filter
/// the service does not know, `--violates`.
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct InventoryFilterArgs {
    /// What the service filters and sorts by.
    #[command(flatten)]
    pub service: InventoryParams,
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
        let service = &self.service;
        InventoryParams {
            limit,
            sort_order: (service.sort_order.clone())
                .or_else(|| service.sort_by.as_ref().map(first_order)),
            ..service.clone()
        }
    }

    /// The flags that ask for `params` (its page size aside); none of the
    /// filters the service does not know (`--violates`).
    pub fn from_params(params: &InventoryParams) -> Self {
        Self {
            service: InventoryParams {
                limit: None,
                ..params.clone()
            },
            violates: Vec::new(),
        }
    }

    /// The words that [`Self::parse_words`] reads back as these flags, in
    /// the declaration's order; several values of one flag comma-joined.
    /// Read from the query the client would send: a flag is its wire name
    /// with dashes, as both are the field's name.
    pub fn to_words(&self) -> Vec<String> {
        // The service's part as given: no page size, no first direction.
        let service = InventoryParams {
            limit: None,
            ..self.service.clone()
        };
        let mut pairs = to_query(&service, None).into_pairs();
        pairs.extend((self.violates.iter()).map(|id| ("violates".to_owned(), id.clone())));
        let mut words: Vec<String> = Vec::new();
        let mut last_flag = None;
        for (name, value) in pairs {
            match words.last_mut() {
                Some(values) if last_flag.as_ref() == Some(&name) => {
                    values.push(',');
                    values.push_str(&value);
                }
                _ => {
                    words.push(format!("--{}", name.replace('_', "-")));
                    words.push(value);
                    last_flag = Some(name);
                }
            }
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::{ActivityGroup, PublishAudience, ReviewPriority, Visibility};

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
        assert_eq!(
            parsed.service.review_priority,
            [ReviewPriority::NeedsReview]
        );
        assert_eq!(parsed.service.is_published, Some(true));
        assert_eq!(parsed.service.publish_audience, [PublishAudience::Public]);
        assert_eq!(parsed.service.has_pii, Some(true));
        assert_eq!(
            parsed.service.sort_by,
            Some(InventorySortBy::OpenPiiFindingCount)
        );
        assert_eq!(parsed.service.sort_order, None);
        // Back to words and read again: the same flags.
        let again = InventoryFilterArgs::parse_words(&parsed.to_words()).unwrap();
        assert_eq!(again, parsed);
        let several = InventoryFilterArgs::parse_words(&words(
            "--visibility restricted,workspace_view --query 'support studio'",
        ))
        .unwrap();
        assert_eq!(several.service.visibility.len(), 2);
        assert_eq!(several.service.query.as_deref(), Some("support studio"));
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
    fn every_filter_goes_to_words_and_back() {
        // Every flag, in the declaration's order, several values comma-joined.
        let line = [
            "--query",
            "support, studio",
            "--sort-by",
            "name",
            "--sort-order",
            "desc",
            "--activity-group",
            "last_14_days,older",
            "--is-published",
            "true",
            "--visibility",
            "restricted",
            "--has-pii",
            "false",
            "--has-connectors",
            "true",
            "--publish-audience",
            "public,custom",
            "--review-priority",
            "unscored",
            "--finding-type-id",
            "inactive_owner,public_pii_exposure",
            "--violates",
            "stale_scan",
        ]
        .map(String::from);
        let every = InventoryFilterArgs::parse_words(&line).unwrap();
        let service = &every.service;
        assert_eq!(service.query.as_deref(), Some("support, studio"));
        assert_eq!(
            service.activity_group,
            [ActivityGroup::Last14Days, ActivityGroup::Older]
        );
        assert_eq!(service.has_pii, Some(false));
        assert_eq!(service.has_connectors, Some(true));
        assert_eq!(service.visibility, [Visibility::Restricted]);
        assert_eq!(service.finding_type_id.len(), 2);
        assert_eq!(every.violates, ["stale_scan"]);
        assert_eq!(every.to_words(), line);
        assert!(InventoryFilterArgs::default().to_words().is_empty());
        // A sort without a direction is sent with its first one.
        let by_name = InventoryFilterArgs::parse_words(&["--sort-by".into(), "name".into()]);
        let params = by_name.unwrap().params(Some(20));
        assert_eq!(
            (params.limit, params.sort_order),
            (Some(20), Some(SortOrder::Asc))
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
