//! Project name rules: a table over HTTP, and properties of the validator.

use proptest::prelude::*;
use reqwest::Method;
use serde_json::{Value, json};
use vantage::api::model::{NameError, validate_project_name};

use crate::common::*;
use crate::server::support::*;

const TOO_LONG_101: &str = "name is 101 characters long; at most 100 are allowed";
const LINK: &str = "name must not contain a link, domain name or IP address";

fn disallowed(shown: &str) -> String {
    format!("name contains a character that is not allowed: {shown}")
}

/// `Ok(())` for accepted names, else the field error's message.
fn name_table() -> Vec<(&'static str, String, Result<(), String>)> {
    let ok = Ok(());
    let err = |message: &str| Err(message.to_owned());
    let s = |text: &str| text.to_owned();
    vec![
        ("plain", s("Budget tracker"), ok.clone()),
        ("one letter", s("x"), ok.clone()),
        ("spaces around are kept", s("  Spaced  "), ok.clone()),
        ("100 ASCII letters", "a".repeat(100), ok.clone()),
        ("100 two-byte code points", "é".repeat(100), ok.clone()),
        ("100 four-byte code points", "𝒜".repeat(100), ok.clone()),
        ("ZWNJ and ZWJ", s("a\u{200C}b\u{200D}c"), ok.clone()),
        (
            "curly single quotes",
            s("\u{2018}Tom\u{2019}s app\u{2019}"),
            ok.clone(),
        ),
        ("middle dot", s("Café · Menü"), ok.clone()),
        (
            "every listed punctuation",
            s("a-b_c.d'e·f&g(h)i[j]k|l,m!n:o"),
            ok.clone(),
        ),
        ("combining mark", s("e\u{301}te\u{301}"), ok.clone()),
        ("Devanagari", s("नमस्ते दुनिया"), ok.clone()),
        (
            "CJK with ideographic space",
            s("日本語\u{3000}アプリ"),
            ok.clone(),
        ),
        ("Arabic", s("تطبيق عربي"), ok.clone()),
        ("letter and other numbers", s("Ⅻ ½ ٣"), ok.clone()),
        ("a version number", s("version 1.2"), ok.clone()),
        ("a dot without a known domain", s("notes.final"), ok.clone()),
        ("empty", s(""), err("name must not be empty")),
        (
            "only spaces",
            s("   "),
            err("name must contain a non-whitespace character"),
        ),
        (
            "only ideographic spaces",
            s("\u{3000}\u{3000}"),
            err("name must contain a non-whitespace character"),
        ),
        ("101 code points", "a".repeat(101), err(TOO_LONG_101)),
        (
            "101 two-byte code points",
            "é".repeat(101),
            err(TOO_LONG_101),
        ),
        ("emoji", s("rocket 🚀"), err(&disallowed("'🚀' (U+1F680)"))),
        ("tab", s("tab\there"), err(&disallowed("U+0009"))),
        ("newline", s("line\nbreak"), err(&disallowed("U+000A"))),
        ("carriage return", s("cr\rhere"), err(&disallowed("U+000D"))),
        ("escape", s("\u{1b}[31mred"), err(&disallowed("U+001B"))),
        (
            "right-to-left override, shown only by number",
            s("evil\u{202E}gnp.exe"),
            err(&disallowed("U+202E")),
        ),
        (
            "zero-width space, shown only by number",
            s("zero\u{200B}width"),
            err(&disallowed("U+200B")),
        ),
        (
            "link",
            s("https://example.com"),
            err(&disallowed("'/' (U+002F)")),
        ),
        ("at sign", s("me@example"), err(&disallowed("'@' (U+0040)"))),
        (
            "double curly quote",
            s("\u{201C}quoted\u{201D}"),
            err(&disallowed("'\u{201C}' (U+201C)")),
        ),
        (
            "em dash",
            s("one \u{2014} two"),
            err(&disallowed("'\u{2014}' (U+2014)")),
        ),
        ("hash", s("app #1"), err(&disallowed("'#' (U+0023)"))),
        ("domain", s("example.com"), err(LINK)),
        (
            "domain in a sentence",
            s("visit WWW.Example.COM today"),
            err(LINK),
        ),
        ("domain with a port", s("example.com:8080"), err(LINK)),
        (
            "domain in curly quotes",
            s("\u{2018}example.com\u{2019}"),
            err(LINK),
        ),
        ("domain after a dash", s("-example.com"), err(LINK)),
        ("domain after an underscore", s("my_example.com"), err(LINK)),
        ("domain after a middle dot", s("a·example.com"), err(LINK)),
        (
            "domain split by a joiner",
            s("exam\u{200C}ple.com"),
            err(LINK),
        ),
        ("IPv4 address", s("192.168.0.1"), err(LINK)),
        ("IPv4 with a port", s("server 10.0.0.1:8080"), err(LINK)),
        ("IPv6 address", s("[::1]"), err(LINK)),
    ]
}

#[tokio::test]
async fn names_over_http() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let path = "/v1/projects/prj_70256702db4f";
    let mut current = "Volunteer planner".to_owned();
    for (label, name, expected) in name_table() {
        let body = json!({ "name": name }).to_string();
        let reply = call(Method::PATCH, &base, path)
            .key(ENTERPRISE_ADMIN)
            .json(body)
            .send()
            .await;
        match expected {
            Ok(()) => {
                assert_eq!(reply.status, 200, "{label}: {}", reply.text);
                assert_eq!(reply.json()["name"], Value::from(name.as_str()), "{label}");
                current = name;
            }
            Err(message) => {
                assert_eq!(reply.status, 400, "{label}: {}", reply.text);
                assert_eq!(
                    reply.error()["errors"],
                    json!([{ "message": message, "location": "body.name" }]),
                    "{label}"
                );
            }
        }
        let shown = get(&base, path, ENTERPRISE_ADMIN).await.json();
        assert_eq!(shown["name"], Value::from(current.as_str()), "{label}: GET");
    }
}

/// Letters, marks and numbers of several scripts.
const WORD_CHARS: &[char] = &[
    'a', 'z', 'A', 'Z', 'é', 'ß', 'Ж', 'ж', 'Ω', '日', 'ア', 'ع', 'न', '\u{093F}', '\u{0301}', '0',
    '9', '٣', 'Ⅻ', '½', 'ǅ', 'ʰ',
];
/// Space separators.
const SPACES: &[char] = &[' ', '\u{00A0}', '\u{2003}', '\u{3000}'];
/// Allowed punctuation that can never form a domain or an address.
const SAFE_PUNCTUATION: &[char] = &[
    '-', '_', '\'', '·', '&', '(', ')', '[', ']', '|', ',', '!', '\u{2018}', '\u{2019}',
    '\u{200C}', '\u{200D}',
];
/// The allowed punctuation domains and addresses are made of.
const LINK_PUNCTUATION: &[char] = &['.', ':'];
/// Characters the contract rejects.
const DISALLOWED: &[char] = &[
    '\t',
    '\n',
    '\r',
    '\u{0}',
    '\u{1b}',
    '\u{7f}',
    '\u{85}',
    '/',
    '\\',
    '@',
    '#',
    '$',
    '%',
    '?',
    '"',
    '<',
    '>',
    '+',
    '=',
    '*',
    ';',
    '~',
    '`',
    '^',
    '{',
    '}',
    '\u{200B}',
    '\u{200E}',
    '\u{202E}',
    '\u{2060}',
    '\u{FEFF}',
    '\u{2028}',
    '\u{2029}',
    '\u{201C}',
    '\u{201D}',
    '\u{2014}',
    '\u{2026}',
    '€',
    '©',
    '🚀',
    '😀',
    '\u{1F3FB}',
    '\u{E000}',
    '\u{FFFD}',
    '\u{10FFFF}',
];

fn from(sets: &[&'static [char]]) -> impl Strategy<Value = char> {
    let all: Vec<char> = sets.iter().flat_map(|set| set.iter().copied()).collect();
    prop::sample::select(all)
}

/// A name of 1 to `max` code points from `sets`, with at least one word character.
fn name_from(sets: &'static [&'static [char]], max: usize) -> impl Strategy<Value = String> {
    (
        prop::sample::select(WORD_CHARS),
        prop::collection::vec(from(sets), 0..max),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(word, mut rest, at)| {
            let at = at.index(rest.len() + 1);
            rest.insert(at, word);
            rest.into_iter().collect()
        })
}

const SAFE: &[&[char]] = &[WORD_CHARS, SPACES, SAFE_PUNCTUATION];
const WITH_LINK_PUNCTUATION: &[&[char]] = &[WORD_CHARS, SPACES, SAFE_PUNCTUATION, LINK_PUNCTUATION];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn allowed_characters_make_accepted_names(name in name_from(SAFE, 100)) {
        prop_assert_eq!(validate_project_name(&name), Ok(()));
    }

    #[test]
    fn with_dots_and_colons_only_links_are_refused(name in name_from(WITH_LINK_PUNCTUATION, 100)) {
        match validate_project_name(&name) {
            Ok(()) | Err(NameError::LinkLike) => {}
            Err(other) => prop_assert!(false, "{:?} refused: {:?}", name, other),
        }
    }

    #[test]
    fn one_disallowed_character_refuses_the_name(
        name in name_from(WITH_LINK_PUNCTUATION, 99),
        bad in prop::sample::select(DISALLOWED),
        at in any::<prop::sample::Index>(),
    ) {
        let mut chars: Vec<char> = name.chars().collect();
        chars.insert(at.index(chars.len() + 1), bad);
        let name: String = chars.into_iter().collect();
        prop_assert!(
            matches!(validate_project_name(&name), Err(NameError::DisallowedCharacter(_))),
            "{:?}: {:?}", name, validate_project_name(&name)
        );
    }

    #[test]
    fn arbitrary_strings_never_panic(name in any::<String>(), tail in "\\PC{0,120}") {
        for candidate in [name.clone(), format!("{name}{tail}"), tail.clone()] {
            if validate_project_name(&candidate).is_ok() {
                let count = candidate.chars().count();
                prop_assert!((1..=100).contains(&count), "{:?}", candidate);
            }
        }
    }
}
