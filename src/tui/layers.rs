//! The dashboard's layers (ARCHITECTURE.md, "The layers inside `tui`"), held
//! against its imports: a part of `src/tui` (a file, or a folder as one)
//! imports only the parts below it, so no import runs up and none makes a
//! circle. A new part takes its place in [`LAYERS`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every part of `src/tui`, the top first.
const LAYERS: &[&str] = &[
    "launch",
    "runtime",
    "app",
    "palette",
    "settings",
    "screens",
    "facts",
    "review",
    "policies",
    "ops",
    "export",
    "effect",
    "nav",
    "request",
    "services",
    "workspace_picker",
    "widgets",
    "keymap",
    "action",
    "registry",
    "notice_box",
    "focus",
    "vocab",
    "watchlist",
    "signals",
    "terminal",
    "anchored",
    "sgr16",
    "theme",
    "cursor_addressing",
];

/// This check itself, and the module that declares the parts.
const NOT_PARTS: &[&str] = &["layers", "mod"];

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/tui is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

/// The parts of `tui` that `code` names: `crate::tui::PART`, and `PART`
/// after each prefix that reaches `tui` from the file's own module.
fn named_parts(code: &str, prefixes: &[&str]) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    for prefix in ["crate::tui::"].iter().chain(prefixes) {
        for (at, _) in code.match_indices(prefix) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|ch| ch.is_alphanumeric() || ch == '_' || ch == ':') {
                continue;
            }
            let part: String = code[at + prefix.len()..]
                .chars()
                .take_while(|ch| ch.is_alphanumeric() || *ch == '_')
                .collect();
            if LAYERS.contains(&part.as_str()) {
                named.insert(part);
            }
        }
    }
    named
}

#[test]
fn every_import_inside_the_dashboard_runs_down_its_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let rank = |part: &str| LAYERS.iter().position(|layer| *layer == part);
    let mut upward = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&root).expect("under src/tui");
        let segments: Vec<String> = relative
            .with_extension("")
            .iter()
            .map(|segment| segment.to_string_lossy().into_owned())
            .collect();
        let part = segments[0].clone();
        if NOT_PARTS.contains(&part.as_str()) {
            continue;
        }
        let Some(own) = rank(&part) else {
            panic!("src/tui/{part} has no place in LAYERS: give it one");
        };
        // `super::` reaches `tui` from a top-level file or a folder's
        // `mod.rs`; `super::super::` from a file one folder down.
        let prefixes: &[&str] = match segments.as_slice() {
            [_] => &["super::"],
            [_, last] if last == "mod" => &["super::"],
            [_, _] => &["super::super::"],
            _ => &[],
        };
        let text = std::fs::read_to_string(&file).expect("a source file");
        // A file's own tests may build whatever they drive; a doc link is
        // no import.
        let code: String = text
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or("")
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for named in named_parts(&code, prefixes) {
            let theirs = rank(&named).expect("named parts are in LAYERS");
            if named != part && theirs <= own {
                upward.push(format!("{} imports {named}", relative.display()));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports that run up the layers: {upward:#?}"
    );
}

#[test]
fn the_check_sees_an_import_that_runs_up() {
    let code = "use crate::tui::app::App;\nuse super::effect::Cx;\n";
    let named = named_parts(code, &["super::"]);
    assert_eq!(
        named.into_iter().collect::<Vec<_>>(),
        ["app".to_owned(), "effect".to_owned()]
    );
}
