//! README.md's key table and the keymap agree: every default binding of every
//! screen (the palette on `:`, marks and bulk actions, help) is in the table,
//! and every row of the table is a real binding. Other branches add keys: a
//! failure says which key is missing, or wrong, and where.
//!
//! A row's key cell and action cell are lists separated by `, `, one group per
//! action: `| `j` `↓`, `k` `↑` | `down`, `up` | … |`. `…` between two
//! backticked items is a range: `1`…`7` with `tab1`…`tab7`.

use std::collections::BTreeMap;

use vantage::tui::action::Action;
use vantage::tui::keymap::Keymap;

const README: &str = include_str!("../../../README.md");
const TABLE_HEAD: &str = "| key | action name | what it does |";

/// One (key, action name) pair of the table, with its line in README.md.
#[derive(Debug)]
struct Listed {
    key: String,
    action: String,
    line: usize,
}

/// The backticked items of one group, a range `a`…`b` expanded.
fn items(group: &str) -> Result<Vec<String>, String> {
    let ticked: Vec<&str> = group.split('`').skip(1).step_by(2).collect();
    let between: String = group.split('`').step_by(2).collect();
    if !between.contains('…') {
        return Ok(ticked.iter().map(|item| (*item).to_owned()).collect());
    }
    let [first, last] = ticked[..] else {
        return Err(format!("a range takes two items: {group:?}"));
    };
    // The ranges the table uses end in a digit: `1`…`7`, `tab1`…`tab7`.
    let split = |item: &str| -> Option<(String, u32)> {
        let digit = item.chars().last()?.to_digit(10)?;
        Some((item[..item.len() - 1].to_owned(), digit))
    };
    match (split(first), split(last)) {
        (Some((stem, from)), Some((last_stem, to))) if stem == last_stem && from <= to => {
            Ok((from..=to).map(|n| format!("{stem}{n}")).collect())
        }
        _ => Err(format!("cannot read the range {group:?}")),
    }
}

/// The pairs of README's key table.
fn listed() -> Result<Vec<Listed>, String> {
    let start = README
        .lines()
        .position(|line| line.trim() == TABLE_HEAD)
        .ok_or_else(|| format!("README.md has no key table (a line {TABLE_HEAD:?})"))?;
    let mut pairs = Vec::new();
    for (index, line) in README.lines().enumerate().skip(start + 2) {
        let line_number = index + 1;
        let Some(row) = line.trim().strip_prefix('|') else {
            break;
        };
        let cells: Vec<&str> = row.splitn(3, '|').collect();
        let [keys, actions, _] = cells[..] else {
            return Err(format!(
                "README.md:{line_number}: a row of three cells: {line:?}"
            ));
        };
        let key_groups: Vec<&str> = keys.split(", ").collect();
        let action_groups: Vec<&str> = actions.split(", ").collect();
        let key_groups = key_groups
            .iter()
            .map(|group| items(group))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|why| format!("README.md:{line_number}: {why}"))?;
        let action_groups = action_groups
            .iter()
            .map(|group| items(group))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|why| format!("README.md:{line_number}: {why}"))?;
        // A range on both sides: one key to each action.
        let (key_groups, action_names): (Vec<Vec<String>>, Vec<String>) =
            if key_groups.len() == action_groups.len() {
                let mut keys = Vec::new();
                let mut names = Vec::new();
                for (key_group, action_group) in key_groups.into_iter().zip(action_groups) {
                    if action_group.len() == 1 {
                        keys.push(key_group);
                        names.extend(action_group);
                    } else if key_group.len() == action_group.len() {
                        keys.extend(key_group.into_iter().map(|key| vec![key]));
                        names.extend(action_group);
                    } else {
                        return Err(format!(
                            "README.md:{line_number}: the keys {key_group:?} and the actions \
                             {action_group:?} do not pair up"
                        ));
                    }
                }
                (keys, names)
            } else {
                return Err(format!(
                    "README.md:{line_number}: {} key groups for {} actions; separate one group \
                     of keys per action with \", \": {line:?}",
                    key_groups.len(),
                    action_groups.len()
                ));
            };
        for (keys, action) in key_groups.into_iter().zip(action_names) {
            for key in keys {
                pairs.push(Listed {
                    key,
                    action: action.clone(),
                    line: line_number,
                });
            }
        }
    }
    Ok(pairs)
}

#[test]
fn readme_key_table_lists_every_default_binding_and_nothing_else() {
    let listed = listed().unwrap_or_else(|why| panic!("{why}"));
    let bound = Keymap::default().bindings();
    let mut problems = Vec::new();

    // Where each action is listed, to say which row a missing key belongs to.
    let mut rows_of: BTreeMap<&str, usize> = BTreeMap::new();
    for pair in &listed {
        rows_of.entry(pair.action.as_str()).or_insert(pair.line);
    }
    for (key, action) in &bound {
        let name = action.name();
        if listed
            .iter()
            .any(|pair| pair.key == *key && pair.action == name)
        {
            continue;
        }
        problems.push(match rows_of.get(name) {
            Some(line) => format!(
                "README.md:{line}: the key `{key}` of `{name}` is missing: add `{key}` to the \
                 keys of `{name}` in that row"
            ),
            None => format!(
                "README.md's key table has no row for `{name}`: add one such as \
                 | `{key}` | `{name}` | what it does |"
            ),
        });
    }
    let mut seen: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for pair in &listed {
        let line = pair.line;
        let (key, name) = (pair.key.as_str(), pair.action.as_str());
        if Action::from_name(name).is_none() {
            problems.push(format!(
                "README.md:{line}: `{name}` is no action (the [keys] names are those of \
                 `vantage::tui::action::Action::name`)"
            ));
        } else if !bound.iter().any(|(k, a)| k == key && a.name() == name) {
            let actual: Vec<&str> = bound
                .iter()
                .filter(|(k, _)| k == key)
                .map(|(_, a)| a.name())
                .collect();
            problems.push(format!(
                "README.md:{line}: `{key}` is listed for `{name}`, but the keymap binds it to {}",
                if actual.is_empty() {
                    "nothing".to_owned()
                } else {
                    actual.join(" and ")
                }
            ));
        }
        if let Some(first) = seen.insert((key, name), line) {
            problems.push(format!(
                "README.md:{line}: `{key}` `{name}` is listed again (first on line {first})"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "README.md's key table and the keymap disagree:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_table_reader_pairs_groups_and_ranges() {
    assert_eq!(items("`1`…`7`").unwrap().len(), 7);
    assert_eq!(items("`tab1`…`tab7`").unwrap()[6], "tab7");
    assert_eq!(items(" `j` `↓` ").unwrap(), ["j", "↓"]);
    assert!(items("`a`…`b`…`c`").is_err());
}
