//! Flags declared once and read in two places: by the script commands on
//! the command line, and by the dashboard's palette and saved views from a
//! line of words (`:filter --has-pii true`). The enum value parsers
//! (declared beside `WireEnum`, for the client's parameters too), the
//! words of a line (split and quoted as a shell does), and what a
//! declaration offers for completion. Imports `api` only.

pub(crate) mod inventory;

pub use crate::api::model::{wire, wire_subset};
pub use inventory::InventoryFilterArgs;

/// One flag of a declaration, as completion offers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagSpec {
    /// `--has-pii`.
    pub flag: String,
    pub help: String,
    /// The values clap accepts, when it knows them (enums, booleans).
    pub values: Vec<String>,
}

/// The long flags of `command`, in declaration order, for completion.
pub fn flag_specs(command: &clap::Command) -> Vec<FlagSpec> {
    command
        .get_arguments()
        .filter(|arg| !arg.is_hide_set())
        .filter_map(|arg| {
            let long = arg.get_long()?;
            Some(FlagSpec {
                flag: format!("--{long}"),
                help: arg.get_help().map(ToString::to_string).unwrap_or_default(),
                values: arg
                    .get_possible_values()
                    .iter()
                    .map(|value| value.get_name().to_owned())
                    .collect(),
            })
        })
        .collect()
}

/// clap's error on one line, as a status line shows it: what was wrong
/// (naming the flag and the value), and its tip or the values it takes.
pub fn one_line(error: &clap::Error) -> String {
    let text = error.to_string();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|line| !line.starts_with("Usage:") && !line.starts_with("For more"))
        .filter(|line| !line.is_empty())
        .map(|line| {
            line.strip_prefix("error: ")
                .or_else(|| line.strip_prefix("tip: "))
                .unwrap_or(line)
        })
        .collect();
    lines.join("; ")
}

/// Why a line of words could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WordsError(pub String);

/// The words of `line` as a shell splits them: blanks separate words;
/// `'…'` keeps everything, `"…"` keeps all but `\"` and `\\`, and a
/// backslash outside quotes keeps the next character.
pub fn split_words(line: &str) -> Result<Vec<String>, WordsError> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(ch) = chars.next() {
        match ch {
            ch if ch.is_whitespace() => {
                if let Some(done) = word.take() {
                    words.push(done);
                }
            }
            '\'' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(inner) => current.push(inner),
                        None => return Err(WordsError("a ' is not closed".into())),
                    }
                }
            }
            '"' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(escaped @ ('"' | '\\')) => current.push(escaped),
                            Some(other) => {
                                current.push('\\');
                                current.push(other);
                            }
                            None => return Err(WordsError("a \" is not closed".into())),
                        },
                        Some(inner) => current.push(inner),
                        None => return Err(WordsError("a \" is not closed".into())),
                    }
                }
            }
            '\\' => {
                let current = word.get_or_insert_with(String::new);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            other => word.get_or_insert_with(String::new).push(other),
        }
    }
    words.extend(word);
    Ok(words)
}

/// `word` as [`split_words`] reads it back: bare when it can be, else quoted.
pub fn quote_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|ch| ch.is_alphanumeric() || "-_.,:/@+=".contains(ch));
    if plain {
        return word.to_owned();
    }
    if !word.contains('\'') {
        return format!("'{word}'");
    }
    let escaped = word.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"{escaped}\"")
}

/// `words` as one line that [`split_words`] reads back as the same words.
pub fn join_words(words: &[String]) -> String {
    words
        .iter()
        .map(|word| quote_word(word))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_as_a_shell_splits_them() {
        let words = split_words(r#"--query "support studio" --x 'a "b"' c\ d  e"#).unwrap();
        assert_eq!(
            words,
            ["--query", "support studio", "--x", "a \"b\"", "c d", "e"]
        );
        assert!(split_words("--query 'open").is_err());
        assert!(split_words("--query \"open").is_err());
        assert_eq!(split_words("  ").unwrap(), Vec::<String>::new());
        assert_eq!(split_words("''").unwrap(), [""]);
    }

    #[test]
    fn quoted_words_read_back_the_same() {
        for word in [
            "needs_review",
            "a b",
            "it's",
            "say \"hi\" \\ it's",
            "",
            "ünïcode",
        ] {
            let line = join_words(&[word.to_owned(), "x".to_owned()]);
            assert_eq!(split_words(&line).unwrap(), [word, "x"], "{line}");
        }
        assert_eq!(quote_word("needs_review,unscored"), "needs_review,unscored");
    }
}
