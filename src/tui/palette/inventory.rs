//! The palette's inventory verbs: `filter` takes `vantage inventory`'s own
//! flags (read by the same clap declaration, [`InventoryFilterArgs`]),
//! `sort FIELD [asc|desc]`, and saved views (`view NAME`, `view save NAME`,
//! `view delete NAME`). What they parse to, and what Tab offers while they
//! are typed.

use super::Candidate;
use crate::api::model::{InventorySortBy, SortOrder};
use crate::flags::{FlagSpec, InventoryFilterArgs, join_words, split_words};

/// A saved view's command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewCommand {
    /// Show the view's filters, sort and columns.
    Apply(String),
    /// Keep what is on screen under this name.
    Save(String),
    Delete(String),
}

/// `filter FLAGS`.
pub fn parse_filter(rest: &str) -> Result<InventoryFilterArgs, String> {
    let words = split_words(rest).map_err(|error| format!("filter: {error}"))?;
    if words.is_empty() {
        return Err(
            "filter: give vantage inventory's flags, e.g. filter --has-pii true (tab completes)"
                .into(),
        );
    }
    InventoryFilterArgs::parse_words(&words).map_err(|error| format!("filter: {error}"))
}

/// `sort FIELD [asc|desc]`, or `sort default` (neither).
pub fn parse_sort(rest: &str) -> Result<(Option<InventorySortBy>, Option<SortOrder>), String> {
    let words = split_words(rest).map_err(|error| format!("sort: {error}"))?;
    let (field, order) = match words.as_slice() {
        [field] => (field, None),
        [field, order] => (field, Some(order)),
        _ => return Err("sort: FIELD [asc|desc] (tab lists the fields), or sort default".into()),
    };
    if field == "default" && order.is_none() {
        return Ok((None, None));
    }
    let mut flags = vec!["--sort-by".to_owned(), field.clone()];
    if let Some(order) = order {
        flags.extend(["--sort-order".to_owned(), order.clone()]);
    }
    let args =
        InventoryFilterArgs::parse_words(&flags).map_err(|error| format!("sort: {error}"))?;
    Ok((args.service.sort_by, args.service.sort_order))
}

/// `view NAME`, `view save NAME`, `view delete NAME`.
pub fn parse_view(rest: &str) -> Result<ViewCommand, String> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let named = |name: &str| {
        crate::config::check_view_name(name)
            .map(|()| name.to_owned())
            .map_err(|why| format!("view: {why}"))
    };
    match words.as_slice() {
        ["save", name] => Ok(ViewCommand::Save(named(name)?)),
        ["delete", name] => Ok(ViewCommand::Delete(named(name)?)),
        ["save" | "delete"] => Err(format!("view {}: give a name", words[0])),
        [name] => Ok(ViewCommand::Apply(named(name)?)),
        _ => Err("view: NAME, save NAME or delete NAME (tab lists the saved views)".into()),
    }
}

/// What Tab offers while `filter …` is typed (`args` is all after `filter`):
/// the flags not given yet, or the values of the flag before the cursor
/// (the finding types known for `--finding-type-id`).
pub fn filter_candidates(args: &str, finding_types: &[String]) -> Vec<Candidate> {
    let Ok(mut words) = split_words(args) else {
        return Vec::new();
    };
    let typing = if args.is_empty() || args.ends_with(char::is_whitespace) {
        String::new()
    } else {
        words.pop().unwrap_or_default()
    };
    let flags = InventoryFilterArgs::flags();
    let line = |more: &str| {
        let mut all = words.clone();
        all.push(more.to_owned());
        format!("filter {}", join_words(&all))
    };
    let before = words
        .last()
        .and_then(|word| flags.iter().find(|f| f.flag == *word));
    if let Some(flag) = before.filter(|_| !typing.starts_with("--")) {
        // Several values of one flag are comma-joined: complete the last.
        let (done, part) = match typing.rsplit_once(',') {
            Some((done, part)) => (format!("{done},"), part),
            None => (String::new(), typing.as_str()),
        };
        let values: Vec<String> = if flag.flag == "--finding-type-id" {
            finding_types.to_vec()
        } else {
            flag.values.clone()
        };
        return values
            .iter()
            .filter(|value| value.starts_with(part))
            .map(|value| Candidate {
                // A value ends the word: enter runs the line.
                text: line(&format!("{done}{value}")),
                help: format!("{} {}", flag.flag, first_sentence(flag)),
            })
            .collect();
    }
    flags
        .iter()
        .filter(|flag| flag.flag.starts_with(typing.as_str()))
        .filter(|flag| !words.contains(&flag.flag))
        .map(|flag| Candidate {
            text: format!("{} ", line(&flag.flag)),
            help: first_sentence(flag),
        })
        .collect()
}

fn first_sentence(flag: &FlagSpec) -> String {
    let help = flag.help.split(" (").next().unwrap_or(&flag.help);
    help.trim_end_matches('.').to_owned()
}

/// What Tab offers while `sort …` is typed: the fields, then the directions.
pub fn sort_candidates(args: &str) -> Vec<Candidate> {
    let words: Vec<&str> = args.split_whitespace().collect();
    let ended = args.is_empty() || args.ends_with(char::is_whitespace);
    match (words.as_slice(), ended) {
        ([], _) | ([_], false) => {
            let typed = words.first().copied().unwrap_or("");
            std::iter::once("default")
                .chain(InventorySortBy::KNOWN.iter().map(|field| field.as_str()))
                .filter(|field| field.starts_with(typed) || field.contains(typed))
                .map(|field| Candidate {
                    text: format!("sort {field}"),
                    help: match field {
                        "default" => "the service's order: recently edited first".to_owned(),
                        _ => "sort the inventory".to_owned(),
                    },
                })
                .collect()
        }
        ([field], true) | ([field, _], false) => {
            let typed = words.get(1).copied().unwrap_or("");
            SortOrder::KNOWN
                .iter()
                .map(|order| order.as_str())
                .filter(|order| order.starts_with(typed))
                .map(|order| Candidate {
                    text: format!("sort {field} {order}"),
                    help: "direction".into(),
                })
                .collect()
        }
        _ => Vec::new(),
    }
}

/// What Tab offers while `view …` is typed: the saved views, and saving
/// or deleting one.
pub fn view_candidates(args: &str, names: &[String]) -> Vec<Candidate> {
    let words: Vec<&str> = args.split_whitespace().collect();
    let ended = args.is_empty() || args.ends_with(char::is_whitespace);
    let views = |prefix: &str, typed: &str, help: &str| -> Vec<Candidate> {
        names
            .iter()
            .filter(|name| name.starts_with(typed))
            .map(|name| Candidate {
                text: format!("view {prefix}{name}"),
                help: help.to_owned(),
            })
            .collect()
    };
    match (words.as_slice(), ended) {
        ([verb @ ("save" | "delete")], true) | ([verb @ ("save" | "delete"), _], false) => {
            let typed = words.get(1).copied().unwrap_or("");
            let help = if *verb == "save" {
                "replace this saved view with what is on screen"
            } else {
                "delete this saved view"
            };
            views(&format!("{verb} "), typed, help)
        }
        ([], _) | ([_], false) => {
            let typed = words.first().copied().unwrap_or("");
            let mut offered = views("", typed, "saved view: its filters, sort and columns");
            for (verb, help) in [
                ("save", "keep the filters, sort and columns: view save NAME"),
                ("delete", "delete a saved view: view delete NAME"),
            ] {
                if verb.starts_with(typed) {
                    offered.push(Candidate {
                        text: format!("view {verb} "),
                        help: help.into(),
                    });
                }
            }
            offered
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_task_is_one_line_of_the_commands_flags() {
        let line = "--review-priority needs_review --is-published true \
                    --publish-audience public --has-pii true --sort-by open_pii_finding_count";
        let Ok(args) = parse_filter(line) else {
            panic!("parses");
        };
        assert_eq!(args.service.has_pii, Some(true));
        assert_eq!(
            args.service.sort_by,
            Some(InventorySortBy::OpenPiiFindingCount)
        );
        let error = parse_filter("--has-pii yes").unwrap_err();
        assert!(
            error.starts_with("filter: ") && error.contains("yes") && error.contains("--has-pii"),
            "{error}"
        );
        assert!(parse_filter("").is_err());
    }

    #[test]
    fn sort_takes_a_field_and_a_direction() {
        assert_eq!(
            parse_sort("visitors_7d"),
            Ok((Some(InventorySortBy::Visitors7d), None))
        );
        assert_eq!(
            parse_sort("name desc"),
            Ok((Some(InventorySortBy::Name), Some(SortOrder::Desc)))
        );
        assert_eq!(parse_sort("default"), Ok((None, None)));
        let error = parse_sort("visits").unwrap_err();
        assert!(
            error.contains("visits") && error.contains("visitors_7d"),
            "{error}"
        );
        assert!(parse_sort("name up").unwrap_err().contains("up"));
        assert!(parse_sort("").is_err());
    }

    #[test]
    fn views_are_saved_applied_and_deleted_by_name() {
        let view = |command| Ok(command);
        assert_eq!(
            parse_view("triage"),
            view(ViewCommand::Apply("triage".into()))
        );
        assert_eq!(
            parse_view("save triage"),
            view(ViewCommand::Save("triage".into()))
        );
        assert_eq!(
            parse_view("delete triage"),
            view(ViewCommand::Delete("triage".into()))
        );
        assert!(parse_view("save").is_err());
        assert!(parse_view("save a.b").is_err());
        assert!(parse_view("").is_err());
    }

    #[test]
    fn tab_offers_flags_then_their_values() {
        let texts = |candidates: Vec<Candidate>| -> Vec<String> {
            candidates.into_iter().map(|c| c.text).collect()
        };
        let flags = texts(filter_candidates("--has", &[]));
        assert_eq!(
            flags,
            ["filter --has-pii ", "filter --has-connectors "],
            "{flags:?}"
        );
        let values = texts(filter_candidates("--has-pii ", &[]));
        assert_eq!(values, ["filter --has-pii true", "filter --has-pii false"]);
        let partial = texts(filter_candidates("--review-priority needs_review,n", &[]));
        assert_eq!(
            partial,
            [
                "filter --review-priority needs_review,needs_review",
                "filter --review-priority needs_review,no_review_needed"
            ]
        );
        // Given flags are not offered again.
        let next = texts(filter_candidates("--has-pii true ", &[]));
        assert!(
            !next
                .iter()
                .any(|t| t.ends_with("--has-pii true --has-pii "))
        );
        assert!(next.contains(&"filter --has-pii true --is-published ".to_owned()));
        let findings = texts(filter_candidates(
            "--finding-type-id ",
            &["inactive_owner".to_owned()],
        ));
        assert_eq!(findings, ["filter --finding-type-id inactive_owner"]);
        let sorts = texts(sort_candidates("vis"));
        assert!(sorts.contains(&"sort visitors_7d".to_owned()), "{sorts:?}");
        assert_eq!(
            texts(sort_candidates("name ")),
            ["sort name asc", "sort name desc"]
        );
        let views = texts(view_candidates("", &["triage".to_owned()]));
        assert_eq!(views, ["view triage", "view save ", "view delete "]);
        assert_eq!(
            texts(view_candidates("delete t", &["triage".to_owned()])),
            ["view delete triage"]
        );
    }
}
