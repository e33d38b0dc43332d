use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use unicode_general_category::GeneralCategory as Gc;

use super::rfc3339;
use crate::open_enum;
use crate::text::general_category;

open_enum! {
    /// Who may open the published app.
    pub enum PublishAudience {
        Public => "public",
        Workspace => "workspace",
        Custom => "custom",
    }
}

open_enum! {
    /// Who may open the project in the editor.
    pub enum Visibility {
        Restricted => "restricted",
        WorkspaceEdit => "workspace_edit",
        WorkspaceView => "workspace_view",
    }
}

/// A group or user who may open a `custom`-audience app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AudienceTarget {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
}

/// Declares a resource and its summary from one list of fields, in the
/// wire's order: a field marked `[both]` is in each (with `summary:` an
/// attribute only the summary's field takes), `[full]` in the resource
/// alone. The summary is made from the resource by `From`.
macro_rules! resource_and_summary {
    (
        $(#[$full_meta:meta])* pub struct $full:ident;
        $(#[$summary_meta:meta])* pub struct $summary:ident;
        $($fields:tt)*
    ) => {
        resource_and_summary!(@field
            [[$(#[$full_meta])*] $full [$(#[$summary_meta])*] $summary] [] [] []
            $($fields)*);
    };
    (@field $structs:tt [$($full:tt)*] [$($summary:tt)*] [$($shared:ident)*]
        [both $(, summary: $only:meta)?] $(#[$meta:meta])* $name:ident: $ty:ty,
        $($rest:tt)*
    ) => {
        resource_and_summary!(@field $structs
            [$($full)* $(#[$meta])* pub $name: $ty,]
            [$($summary)* $(#[$meta])* $(#[$only])? pub $name: $ty,]
            [$($shared)* $name]
            $($rest)*);
    };
    (@field $structs:tt [$($full:tt)*] $summary:tt $shared:tt
        [full] $(#[$meta:meta])* $name:ident: $ty:ty,
        $($rest:tt)*
    ) => {
        resource_and_summary!(@field $structs
            [$($full)* $(#[$meta])* pub $name: $ty,] $summary $shared
            $($rest)*);
    };
    (@field [[$(#[$full_meta:meta])*] $full:ident [$(#[$summary_meta:meta])*] $summary:ident]
        [$($full_fields:tt)*] [$($summary_fields:tt)*] [$($shared:ident)*]
    ) => {
        $(#[$full_meta])*
        pub struct $full { $($full_fields)* }

        $(#[$summary_meta])*
        pub struct $summary { $($summary_fields)* }

        /// The summary: the same fields, less those it leaves out.
        impl From<$full> for $summary {
            fn from(full: $full) -> Self {
                Self { $($shared: full.$shared),* }
            }
        }
    };
}

resource_and_summary! {
    /// The Project resource.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Project;

    /// Item of `GET /v1/projects?workspace_id=W`: the project summary of 11
    /// fields (no `latest_commit_sha`, `preview_url` or
    /// `publish_audience_targets`).
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    pub struct ProjectSummary;

    [both] id: String,
    [both] #[serde(default, deserialize_with = "bounded_name")] name: Option<String>,
    [both] #[serde(default)] description: Option<String>,
    [both] #[serde(default, with = "rfc3339::option")] created_at: Option<OffsetDateTime>,
    [both] #[serde(default, with = "rfc3339::option")] last_edited_at: Option<OffsetDateTime>,
    [full] #[serde(default)] latest_commit_sha: Option<String>,
    [both] #[serde(default)] latest_screenshot_url: Option<String>,
    [both] #[serde(default)] owner_id: Option<String>,
    [both] workspace_id: String,
    [both, summary: serde(default)] is_published: bool,
    [full] #[serde(default)] preview_url: Option<String>,
    [both] #[serde(default)] publish_audience: Option<PublishAudience>,
    [full] #[serde(default)] publish_audience_targets: Vec<AudienceTarget>,
    [both] #[serde(default)] visibility: Option<Visibility>,
}

/// Body of `PATCH /v1/projects/{id}`; omitted fields keep their value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProjectUpdate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Visibility>,
}

/// The longest project name, in Unicode code points.
pub const PROJECT_NAME_MAX_CHARS: usize = 100;

/// Why a project name breaks the contract's rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("name must not be empty")]
    Empty,
    #[error("name is {0} characters long; at most 100 are allowed")]
    TooLong(usize),
    #[error("name must contain a non-whitespace character")]
    OnlyWhitespace,
    #[error("name contains a character that is not allowed: {0}")]
    DisallowedCharacter(String),
    #[error("name must not contain a link, domain name or IP address")]
    LinkLike,
}

/// Punctuation the contract allows in a name, besides the curly single quotes.
const ALLOWED_PUNCTUATION: &[char] = &[
    '-', '_', '.', '\'', '·', '&', '(', ')', '[', ']', '|', ',', '!', ':', '\u{2018}', '\u{2019}',
];

/// Top-level domains recognised as making a word a domain name. The contract does
/// not list them; these cover the common generic and country domains.
const RECOGNIZED_TLDS: &[&str] = &[
    "com", "net", "org", "io", "dev", "app", "ai", "co", "gov", "edu", "info", "biz", "me", "xyz",
    "site", "online", "tech", "cloud", "page", "link", "us", "uk", "de", "fr", "nl", "se", "no",
    "es", "it", "ru", "cn", "jp", "in", "br", "au", "ca", "ch", "eu", "tv", "ly", "gg", "sh", "so",
    "to", "fm", "gl", "pl", "be", "at", "dk", "fi", "ie", "nz", "za", "mx", "ar", "kr", "tw", "hk",
    "sg", "shop", "store", "blog", "news", "zip", "mov", "lovable",
];

/// A project name as read from the service, cut to the contract's
/// [`PROJECT_NAME_MAX_CHARS`] code points (the last one `…`) when longer:
/// a service that sends megabytes of name must not have them shown, diffed
/// and stored in the history (issue 22). Cut, not refused: one bad name does
/// not make a whole list unreadable.
pub fn bounded_name<'de, D, S>(deserializer: D) -> Result<Option<S>, D::Error>
where
    D: serde::Deserializer<'de>,
    S: super::ItemText + Deserialize<'de>,
{
    Ok(Option::<S>::deserialize(deserializer)?.map(S::bounded_name))
}

/// `name` as [`bounded_name`] reads it.
pub fn cut_name(name: String) -> String {
    if name.chars().nth(PROJECT_NAME_MAX_CHARS).is_none() {
        return name;
    }
    let mut cut: String = name.chars().take(PROJECT_NAME_MAX_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// Validates a project name by every rule of the contract's `PATCH` operation.
pub fn validate_project_name(name: &str) -> Result<(), NameError> {
    let count = name.chars().count();
    if count == 0 {
        return Err(NameError::Empty);
    }
    if count > PROJECT_NAME_MAX_CHARS {
        return Err(NameError::TooLong(count));
    }
    for ch in name.chars() {
        let allowed = match general_category(ch) {
            Gc::UppercaseLetter
            | Gc::LowercaseLetter
            | Gc::TitlecaseLetter
            | Gc::ModifierLetter
            | Gc::OtherLetter
            | Gc::NonspacingMark
            | Gc::SpacingMark
            | Gc::EnclosingMark
            | Gc::DecimalNumber
            | Gc::LetterNumber
            | Gc::OtherNumber
            | Gc::SpaceSeparator => true,
            _ => ALLOWED_PUNCTUATION.contains(&ch) || ch == '\u{200C}' || ch == '\u{200D}',
        };
        if !allowed {
            return Err(NameError::DisallowedCharacter(describe_char(ch)));
        }
    }
    if !name
        .chars()
        .any(|ch| !ch.is_whitespace() && ch != '\u{200C}' && ch != '\u{200D}')
    {
        return Err(NameError::OnlyWhitespace);
    }
    if looks_like_link(name) {
        return Err(NameError::LinkLike);
    }
    Ok(())
}

/// Names a refused character. Only visible punctuation and symbols are echoed:
/// an invisible or direction-changing character (e.g. U+202E) in the message
/// would garble whatever displays it.
fn describe_char(ch: char) -> String {
    let visible = matches!(
        general_category(ch),
        Gc::ConnectorPunctuation
            | Gc::DashPunctuation
            | Gc::OpenPunctuation
            | Gc::ClosePunctuation
            | Gc::InitialPunctuation
            | Gc::FinalPunctuation
            | Gc::OtherPunctuation
            | Gc::MathSymbol
            | Gc::CurrencySymbol
            | Gc::ModifierSymbol
            | Gc::OtherSymbol
    );
    if visible {
        format!("'{ch}' (U+{:04X})", ch as u32)
    } else {
        format!("U+{:04X}", ch as u32)
    }
}

/// Links, recognised domain names and IP addresses. Slashes are already refused by
/// the character rules, so a link shows up here as a domain or an address.
///
/// Words break at spaces and at every allowed punctuation mark a host name cannot
/// contain, so `my_example.com`, `‘example.com’` and `example.com:8080` are caught;
/// the invisible joiners are dropped first so they cannot hide a domain.
fn looks_like_link(name: &str) -> bool {
    let visible: String = name
        .chars()
        .filter(|ch| !matches!(ch, '\u{200C}' | '\u{200D}'))
        .collect();
    let breaks_word = |ch: char| {
        ch.is_whitespace() || (ALLOWED_PUNCTUATION.contains(&ch) && !matches!(ch, '.' | '-' | ':'))
    };
    // A sentence's full stop or a leading dash is not part of a host.
    fn trim(word: &str) -> &str {
        word.trim_matches(|ch: char| matches!(ch, '.' | '-'))
    }
    visible.split(breaks_word).map(trim).any(|word| {
        is_ipv6(word)
            || word
                .split(':')
                .map(trim)
                .any(|host| is_ipv4(host) || is_domain(host))
    })
}

fn is_ipv4(word: &str) -> bool {
    let host = word.split(':').next().unwrap_or(word);
    let parts: Vec<&str> = host.split('.').collect();
    parts.len() == 4
        && parts
            .iter()
            .all(|part| !part.is_empty() && part.len() <= 3 && part.parse::<u8>().is_ok())
}

fn is_ipv6(word: &str) -> bool {
    word.contains("::") && word.parse::<std::net::Ipv6Addr>().is_ok()
        || word.matches(':').count() >= 2 && word.parse::<std::net::Ipv6Addr>().is_ok()
}

fn is_domain(word: &str) -> bool {
    let labels: Vec<&str> = word.split('.').collect();
    if labels.len() < 2 {
        return false;
    }
    let tld = labels[labels.len() - 1].to_lowercase();
    let well_formed = labels.iter().all(|label| {
        !label.is_empty()
            && label.chars().all(|ch| ch.is_alphanumeric() || ch == '-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    });
    well_formed && RECOGNIZED_TLDS.contains(&tld.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_and_its_summary_keep_the_wire_order() {
        let keys = |value: serde_json::Value| -> Vec<String> {
            value.as_object().unwrap().keys().cloned().collect()
        };
        let wire = serde_json::json!({
            "id": "prj_1", "name": "ledger", "description": null, "created_at": null,
            "last_edited_at": null, "latest_commit_sha": "abc", "latest_screenshot_url": null,
            "owner_id": "usr_1", "workspace_id": "ws_1", "is_published": true,
            "preview_url": null, "publish_audience": "custom",
            "publish_audience_targets": [{"id": "grp_1", "type": "group"}],
            "visibility": "restricted",
        });
        let project: Project = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(keys(serde_json::to_value(&project).unwrap()), keys(wire));
        let summary = super::super::ProjectSummary::from(project.clone());
        assert_eq!(
            keys(serde_json::to_value(&summary).unwrap()),
            [
                "id",
                "name",
                "description",
                "created_at",
                "last_edited_at",
                "latest_screenshot_url",
                "owner_id",
                "workspace_id",
                "is_published",
                "publish_audience",
                "visibility",
            ]
        );
        assert_eq!((summary.id, summary.is_published), (project.id, true));
        // The summary may leave `is_published` out; the resource may not.
        let bare = serde_json::json!({"id": "prj_1", "workspace_id": "ws_1"});
        assert!(serde_json::from_value::<Project>(bare.clone()).is_err());
        let bare: super::super::ProjectSummary = serde_json::from_value(bare).unwrap();
        assert!(!bare.is_published);
    }

    #[test]
    fn names_beyond_the_contract_are_cut_as_they_are_read() {
        let read = |name: &str| {
            let json = serde_json::json!({"id": "prj_1", "name": name, "is_published": false, "workspace_id": "ws_1"});
            let summary: super::super::ProjectSummary = serde_json::from_value(json).unwrap();
            summary.name.unwrap()
        };
        let long = "é".repeat(10_000_000);
        let cut = read(&long);
        assert_eq!(cut.chars().count(), PROJECT_NAME_MAX_CHARS);
        assert!(cut.ends_with('…') && cut.starts_with("éé"));
        let exact = "n".repeat(PROJECT_NAME_MAX_CHARS);
        assert_eq!(read(&exact), exact);
        let item: super::super::InventoryItem = serde_json::from_str(&format!(
            r#"{{"id":"p","name":"{}","is_published":true,"publish_audience":"public","visibility":"workspace_edit","activity_group":"older","connectors":[],"edge_functions":[],"edit_count":0,"message_count":0,"edits_24h":0,"edits_7d":0,"edits_30d":0,"visitors_24h":0,"visitors_7d":0,"visitors_30d":0,"last_edited_at":null,"last_security_scan_at":null,"owner":{{"display_name":"a"}},"review_priority":"unscored","review_priority_explanation":[],"matched_reason":null}}"#,
            "x".repeat(1000)
        ))
        .unwrap();
        assert_eq!(item.name.unwrap().chars().count(), PROJECT_NAME_MAX_CHARS);
    }

    #[test]
    fn accepts_contract_examples() {
        for name in [
            "Budget tracker",
            "  spaced  ",
            "Café · Menü",
            "naïve (v2) [beta] | ok, go! now: yes",
            "Tom\u{2019}s app",
            "नमस्ते",
            "عربي",
            "a\u{200C}b\u{200D}c",
            "x",
            "version 1.2",
            "e\u{301}",
        ] {
            assert_eq!(validate_project_name(name), Ok(()), "{name:?}");
        }
    }

    #[test]
    fn rejects_what_the_contract_rejects() {
        type Expect = fn(&NameError) -> bool;
        let cases: &[(&str, Expect)] = &[
            ("", |e| matches!(e, NameError::Empty)),
            ("   ", |e| matches!(e, NameError::OnlyWhitespace)),
            ("tab\there", |e| {
                matches!(e, NameError::DisallowedCharacter(_))
            }),
            ("line\nbreak", |e| {
                matches!(e, NameError::DisallowedCharacter(_))
            }),
            ("rocket 🚀", |e| {
                matches!(e, NameError::DisallowedCharacter(_))
            }),
            ("https://evil.example", |e| {
                matches!(e, NameError::DisallowedCharacter(_))
            }),
            ("visit example.com now", |e| {
                matches!(e, NameError::LinkLike)
            }),
            ("host 10.0.0.1", |e| matches!(e, NameError::LinkLike)),
            ("at@sign", |e| {
                matches!(e, NameError::DisallowedCharacter(_))
            }),
            ("\u{1b}[31mred", |e| {
                matches!(e, NameError::DisallowedCharacter(_))
            }),
        ];
        for (name, expected) in cases {
            let err = validate_project_name(name).expect_err(name);
            assert!(expected(&err), "{name:?} gave {err:?}");
        }
        let long = "a".repeat(101);
        assert_eq!(validate_project_name(&long), Err(NameError::TooLong(101)));
        assert_eq!(validate_project_name(&"é".repeat(100)), Ok(()));
    }
}
