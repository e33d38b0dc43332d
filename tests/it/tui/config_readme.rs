//! README.md's `[tui]` table and `config.example.toml`'s `[tui]` block agree
//! with the table's one declaration (`TuiTable`, `tui/settings.rs`): every
//! key is listed with its values, default and doc line, and nothing else is.
//! A failure says which row to write, or which line to remove, and where.

use vantage::config::keys::DeclaredKey;
use vantage::tui::settings::TuiTable;

const README: &str = include_str!("../../../README.md");
const EXAMPLE: &str = include_str!("../../../config.example.toml");
const TABLE_HEAD: &str = "| `[tui]` key | value | default | what it does |";

/// The row README should have for `key`.
fn row(key: &DeclaredKey) -> String {
    let default = key
        .default
        .as_ref()
        .map_or_else(|| "unset".to_owned(), |value| format!("`{value}`"));
    format!(
        "| `{}` | {} | {default} | {} |",
        key.name, key.kind, key.doc
    )
}

/// README's rows under the head, each with its line number.
fn readme_rows() -> Result<Vec<(usize, String)>, String> {
    let start = README
        .lines()
        .position(|line| line.trim() == TABLE_HEAD)
        .ok_or_else(|| format!("README.md has no [tui] table (a line {TABLE_HEAD:?})"))?;
    Ok(README
        .lines()
        .enumerate()
        .skip(start + 2)
        .map(|(index, line)| (index + 1, line.trim().to_owned()))
        .take_while(|(_, line)| line.starts_with('|'))
        .collect())
}

#[test]
fn readme_tui_table_lists_every_declared_key_and_nothing_else() {
    let rows = readme_rows().unwrap_or_else(|why| panic!("{why}"));
    let declared = TuiTable::keys();
    let mut problems = Vec::new();
    for key in &declared {
        let wanted = row(key);
        let listed = rows
            .iter()
            .find(|(_, line)| line.starts_with(&format!("| `{}` |", key.name)));
        match listed {
            Some((_, line)) if *line == wanted => {}
            Some((number, line)) => problems.push(format!(
                "README.md:{number}: the row of `{}` says {line:?}; the declaration says {wanted:?}",
                key.name
            )),
            None => problems.push(format!(
                "README.md's [tui] table has no row for `{}`: add {wanted:?}",
                key.name
            )),
        }
    }
    for (number, line) in &rows {
        if !declared.iter().any(|key| *line == row(key))
            && !problems
                .iter()
                .any(|p| p.contains(&format!("README.md:{number}:")))
        {
            problems.push(format!(
                "README.md:{number}: {line:?} is no key of [tui] (TuiTable in src/tui/settings.rs)"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "README.md's [tui] table and the declaration disagree:\n{}",
        problems.join("\n")
    );
}

/// The example's `# [tui]` block, uncommented, is a table the dashboard reads,
/// with every declared key.
#[test]
fn the_example_config_shows_every_tui_key_with_a_value_it_takes() {
    let block: String = EXAMPLE
        .lines()
        .skip_while(|line| line.trim() != "# [tui]")
        .skip(1)
        .take_while(|line| line.starts_with("# ") && !line.starts_with("# ["))
        .map(|line| format!("{}\n", &line[2..]))
        .collect();
    let table: toml::Table = toml::from_str(&block)
        .unwrap_or_else(|error| panic!("config.example.toml's [tui] block: {error}\n{block}"));
    let read: Result<TuiTable, _> = toml::Value::Table(table.clone()).try_into();
    if let Err(error) = read {
        panic!("config.example.toml's [tui] block is refused: {error}");
    }
    let shown: Vec<&str> = table.keys().map(String::as_str).collect();
    for key in TuiTable::keys() {
        assert!(
            shown.contains(&key.name),
            "config.example.toml's [tui] block lacks `# {} = …` ({}; its doc: {})",
            key.name,
            key.kind,
            key.doc
        );
    }
}
