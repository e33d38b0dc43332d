//! The inventory table's columns: each a value of [`Column`] with its name
//! (what `:columns` and a saved view spell), title, width and how long it
//! stays on a narrow terminal; the set on view (the default, which follows the
//! width, or the one `:columns` chose); and the widths, where the spare goes to
//! Owner and Name.

use serde::{Deserialize, Serialize};

use crate::api::model::InventorySortBy;
use crate::api::model::InventorySortBy as Sort;

use super::cells::{self, CellOf};

/// A column of the inventory table; each is declared once, in this order,
/// in [`COLUMNS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Column {
    Priority,
    Name,
    Id,
    Owner,
    Audience,
    Visibility,
    /// The activity group (14 d, 60 d, older).
    Activity,
    LastEdited,
    Edits24h,
    Edits7d,
    Edits30d,
    Visitors24h,
    Visitors7d,
    Visitors30d,
    /// Open personal-data findings.
    Pii,
    /// The project's policy violations (the waived ones in dim).
    Policy,
    LastScan,
}

/// One column, declared once: what `:columns` and saved views call it, its
/// title, its width (the name's is what is left, the owner's its
/// narrowest), how long it stays when the terminal is narrow (lower goes
/// first; from 9 a column stays), its family (columns of one family show one
/// measure over different windows: a sort by one the table lacks turns a
/// shown one of its family to it; 0: none), the sorts it shows and how its
/// cell is drawn (`cells.rs`).
struct Spec {
    column: Column,
    name: &'static str,
    title: &'static str,
    width: u16,
    keep: u8,
    family: u8,
    sorts: &'static [InventorySortBy],
    cell: CellOf,
}

/// The activity family's, the edits' and the visits' numbers.
const ACTIVITY: u8 = 1;
const EDITS: u8 = 2;
const VISITS: u8 = 3;

/// Every column, in the order `:columns` lists them: the one table the
/// inventory's columns are read from.
#[rustfmt::skip]
const COLUMNS: &[Spec] = &[
    Spec { column: Column::Priority, name: "priority", title: "Priority", width: 15, keep: 9, family: 0, sorts: &[Sort::ReviewPriority, Sort::RiskFactorCount], cell: cells::priority },
    Spec { column: Column::Name, name: "name", title: "Name", width: 0, keep: 10, family: 0, sorts: &[Sort::Name], cell: cells::by_screen },
    Spec { column: Column::Id, name: "id", title: "ID", width: 16, keep: 1, family: 0, sorts: &[], cell: cells::id }, // `prj_` and twelve hex digits
    Spec { column: Column::Owner, name: "owner", title: "Owner", width: OWNER_MIN, keep: 7, family: 0, sorts: &[], cell: |item, cell| cells::text(item.owner.display_name.as_deref(), cell) },
    Spec { column: Column::Audience, name: "audience", title: "Audience", width: 9, keep: 8, family: 0, sorts: &[Sort::PublishAudience, Sort::ExternalAccessRank], cell: cells::audience },
    Spec { column: Column::Visibility, name: "visibility", title: "Visibility", width: 14, keep: 2, family: 0, sorts: &[], cell: |item, cell| cells::text(item.visibility.as_ref().map(|v| v.as_str()), cell) },
    Spec { column: Column::Activity, name: "activity", title: "Activity", width: 8, keep: 3, family: ACTIVITY, sorts: &[], cell: cells::activity },
    Spec { column: Column::LastEdited, name: "last_edited", title: "Edited", width: 8, keep: 3, family: ACTIVITY, sorts: &[Sort::LastEditedAt], cell: cells::last_edited },
    Spec { column: Column::Edits24h, name: "edits_24h", title: "Edits 24h", width: 8, keep: 5, family: EDITS, sorts: &[Sort::Edits24h], cell: cells::edits_24h },
    Spec { column: Column::Edits7d, name: "edits_7d", title: "Edits 7d", width: 8, keep: 5, family: EDITS, sorts: &[Sort::Edits7d], cell: cells::edits_7d },
    Spec { column: Column::Edits30d, name: "edits_30d", title: "Edits 30d", width: 8, keep: 5, family: EDITS, sorts: &[Sort::Edits30d], cell: cells::edits_30d },
    Spec { column: Column::Visitors24h, name: "visitors_24h", title: "Visit 24h", width: 8, keep: 6, family: VISITS, sorts: &[Sort::Visitors24h], cell: cells::visitors_24h },
    Spec { column: Column::Visitors7d, name: "visitors_7d", title: "Visit 7d", width: 8, keep: 6, family: VISITS, sorts: &[Sort::Visitors7d], cell: cells::visitors_7d },
    Spec { column: Column::Visitors30d, name: "visitors_30d", title: "Visit 30d", width: 8, keep: 6, family: VISITS, sorts: &[Sort::Visitors30d], cell: cells::visitors_30d },
    Spec { column: Column::Pii, name: "pii", title: "PII", width: 4, keep: 6, family: 0, sorts: &[Sort::OpenPiiFindingCount], cell: cells::by_screen },
    Spec { column: Column::Policy, name: "policy", title: "Policy", width: 7, keep: 1, family: 0, sorts: &[], cell: cells::by_screen },
    Spec { column: Column::LastScan, name: "last_scan", title: "Last scan", width: 10, keep: 4, family: 0, sorts: &[Sort::LastSecurityScanAt], cell: cells::last_scan },
];

/// The default columns, in order; [`Column::Id`] only from [`ID_FROM_WIDTH`].
pub const DEFAULT: &[Column] = &[
    Column::Priority,
    Column::Name,
    Column::Id,
    Column::Owner,
    Column::Audience,
    Column::Visibility,
    Column::Activity,
    Column::Edits7d,
    Column::Visitors7d,
    Column::Pii,
    Column::Policy,
    Column::LastScan,
];

/// From this terminal width the default columns include the project's id.
pub const ID_FROM_WIDTH: u16 = 160;

/// Minimum width of the name column.
pub const NAME_MIN: u16 = 18;
/// The owner column's narrowest, and the most the spare width widens it to.
const OWNER_MIN: u16 = 14;
const OWNER_MAX: u16 = 32;
/// The name keeps at least this much of the spare width (or its longest name
/// on screen, if shorter) before the owner takes any.
const NAME_KEEPS: u16 = 40;

impl Column {
    /// Every column, in the order `:columns` lists them.
    pub fn all() -> impl Iterator<Item = Column> {
        COLUMNS.iter().map(|spec| spec.column)
    }

    /// Its one declaration in [`COLUMNS`], which lists the columns in the
    /// enum's order (`every_column_is_declared_once_in_order`).
    fn spec(self) -> &'static Spec {
        &COLUMNS[self as usize]
    }

    /// What `:columns` and a saved view call it.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn parse(name: &str) -> Option<Column> {
        let name = name.trim().to_lowercase();
        COLUMNS
            .iter()
            .find(|spec| spec.name == name)
            .map(|spec| spec.column)
    }

    pub fn title(self) -> &'static str {
        self.spec().title
    }

    /// Its width; the name's is what is left (at least [`NAME_MIN`]), the
    /// owner's its narrowest.
    fn width(self) -> u16 {
        self.spec().width
    }

    /// Lower goes first when the terminal is narrow; from 9 a column stays.
    fn keep(self) -> u8 {
        self.spec().keep
    }

    fn family(self) -> u8 {
        self.spec().family
    }

    /// How its cell is drawn from an item ([`cells::by_screen`]: the screen
    /// draws it).
    pub fn cell(self) -> CellOf {
        self.spec().cell
    }

    /// The column that shows a sort.
    pub fn for_sort(sort: &InventorySortBy) -> Option<Column> {
        COLUMNS
            .iter()
            .find(|spec| spec.sorts.contains(sort))
            .map(|spec| spec.column)
    }
}

impl TryFrom<String> for Column {
    type Error = String;

    fn try_from(name: String) -> Result<Self, Self::Error> {
        Column::parse(&name).ok_or_else(|| unknown_column(&name))
    }
}

impl From<Column> for String {
    fn from(column: Column) -> Self {
        column.name().to_owned()
    }
}

fn unknown_column(name: &str) -> String {
    let known: Vec<&str> = COLUMNS.iter().map(|spec| spec.name).collect();
    format!(
        "no column {}; known: {}",
        crate::text::fit(name, 24),
        known.join(", ")
    )
}

/// `:columns`' argument: `default`, or names separated by commas or spaces.
/// `None` is the default set.
pub fn parse_list(text: &str) -> Result<Option<Vec<Column>>, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("default") {
        return Ok(None);
    }
    let mut columns = Vec::new();
    for name in text
        .split(|ch: char| ch == ',' || ch.is_whitespace())
        .filter(|name| !name.is_empty())
    {
        let column = Column::parse(name).ok_or_else(|| unknown_column(name))?;
        if !columns.contains(&column) {
            columns.push(column);
        }
    }
    if columns.is_empty() {
        return Err("columns: give names (e.g. name,owner,id) or default".into());
    }
    // The name says which project a row is: it is always shown.
    if !columns.contains(&Column::Name) {
        columns.insert(0, Column::Name);
    }
    Ok(Some(columns))
}

impl super::InventoryScreen {
    /// The columns chosen with `:columns`; `None` is the default set, which
    /// follows the terminal's width. A saved view keeps it as it is.
    pub fn columns(&self) -> Option<&[Column]> {
        self.columns.as_deref()
    }

    pub fn set_columns(&mut self, columns: Option<Vec<Column>>) {
        self.columns = columns;
    }
}

/// What the rows on screen would like: their longest name and owner.
#[derive(Debug, Clone, Copy, Default)]
pub struct Wants {
    pub name: u16,
    pub owner: u16,
}

/// The columns on view at `width` and the width of each; the name's is what
/// is left after the others, the owner's grows into the spare width.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub columns: Vec<(Column, u16)>,
    /// The sorted column, shown in every layout (a sort never hides it).
    pub sorted: Option<Column>,
}

/// Lays out `chosen` (or the default set) at `width`, sorted by `sort`.
/// Columns go by `keep` when the width is short; a sort never makes a column
/// go that fits without it: its title's extra room comes from the name.
pub fn layout(
    width: u16,
    chosen: Option<&[Column]>,
    sort: Option<&InventorySortBy>,
    wants: Wants,
) -> Layout {
    let mut shown: Vec<Column> = match chosen {
        Some(chosen) => chosen.to_vec(),
        None => DEFAULT
            .iter()
            .copied()
            .filter(|&column| column != Column::Id || width >= ID_FROM_WIDTH)
            .collect(),
    };
    let sorted = sort.and_then(Column::for_sort);
    if let Some(sorted) = sorted
        && !shown.contains(&sorted)
    {
        match shown
            .iter()
            .position(|c| c.family() != 0 && c.family() == sorted.family())
        {
            Some(at) => shown[at] = sorted,
            None => shown.push(sorted),
        }
    }
    let needed = |shown: &[Column]| -> u16 {
        shown.iter().map(|c| c.width() + 1).sum::<u16>() + NAME_MIN + 2
    };
    while needed(&shown) > width {
        let Some(at) = shown
            .iter()
            .enumerate()
            .filter(|(_, c)| c.keep() < 9 && Some(**c) != sorted)
            .min_by_key(|(_, c)| c.keep())
            .map(|(at, _)| at)
        else {
            break;
        };
        shown.remove(at);
    }
    // The sorted column widens for its title and arrow when it must.
    let widen = |column: Column| match sorted {
        Some(s) if s == column && column != Column::Name => {
            (column.title().chars().count() as u16 + 2).saturating_sub(column.width())
        }
        _ => 0,
    };
    let fixed: u16 = shown.iter().map(|&c| c.width() + widen(c) + 1).sum();
    let left = width.saturating_sub(fixed + 4);
    // The owner takes of the spare what its longest name on screen needs,
    // while the name keeps its own longest (up to NAME_KEEPS).
    let name_keeps = wants.name.clamp(NAME_MIN, NAME_KEEPS.max(NAME_MIN));
    let owner_grows = wants
        .owner
        .clamp(OWNER_MIN, OWNER_MAX)
        .saturating_sub(OWNER_MIN)
        .min(left.saturating_sub(name_keeps));
    let name = left.saturating_sub(owner_grows).max(NAME_MIN);
    let columns = shown
        .into_iter()
        .map(|column| {
            let width = match column {
                Column::Name => name,
                Column::Owner => OWNER_MIN + owner_grows,
                other => other.width() + widen(other),
            };
            (column, width)
        })
        .collect();
    Layout { columns, sorted }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(layout: &Layout) -> Vec<&'static str> {
        layout.columns.iter().map(|(c, _)| c.name()).collect()
    }

    #[test]
    fn every_column_has_one_name_that_reads_back() {
        for column in Column::all() {
            assert_eq!(Column::parse(column.name()), Some(column));
            let json = serde_json::to_string(&column).unwrap();
            assert_eq!(json, format!("\"{}\"", column.name()));
            assert_eq!(serde_json::from_str::<Column>(&json).unwrap(), column);
        }
        assert_eq!(Column::all().count(), COLUMNS.len());
        assert!(serde_json::from_str::<Column>("\"nope\"").is_err());
    }

    #[test]
    fn every_column_is_declared_once_in_order() {
        for (at, spec) in COLUMNS.iter().enumerate() {
            assert_eq!(spec.column as usize, at, "{} out of order", spec.name);
        }
        // The last variant is the last declared: a variant added after it
        // must be declared too.
        assert_eq!(COLUMNS.len(), Column::LastScan as usize + 1);
        let names: std::collections::HashSet<&str> = COLUMNS.iter().map(|s| s.name).collect();
        assert_eq!(names.len(), COLUMNS.len(), "a name given twice");
    }

    #[test]
    fn columns_parse_from_names_or_default() {
        assert_eq!(parse_list("default"), Ok(None));
        assert_eq!(
            parse_list("name,owner,id,visitors_7d"),
            Ok(Some(vec![
                Column::Name,
                Column::Owner,
                Column::Id,
                Column::Visitors7d
            ]))
        );
        // The name is always there.
        assert_eq!(
            parse_list("id pii"),
            Ok(Some(vec![Column::Name, Column::Id, Column::Pii]))
        );
        assert!(
            parse_list("name,colour")
                .unwrap_err()
                .contains("no column colour")
        );
        assert!(parse_list(" , ").is_err());
    }

    #[test]
    fn the_id_is_a_default_column_from_160_wide() {
        let at = |width| names(&layout(width, None, None, Wants::default()));
        assert!(!at(159).contains(&"id"));
        assert!(at(160).contains(&"id"));
        assert!(at(200).contains(&"id"));
    }

    /// Issue 27: sorting by open PII dropped Visibility at 120 columns. A
    /// sort by a column on view keeps every column; one by a column the width
    /// left out brings it in, in place of the least needed.
    #[test]
    fn a_sort_never_drops_a_column() {
        for width in [80, 100, 120, 140, 160, 200] {
            let unsorted = names(&layout(width, None, None, Wants::default()));
            for sort in [
                InventorySortBy::OpenPiiFindingCount,
                InventorySortBy::ReviewPriority,
                InventorySortBy::Name,
                InventorySortBy::PublishAudience,
                InventorySortBy::Edits7d,
                InventorySortBy::Visitors7d,
            ] {
                let sorted = names(&layout(width, None, Some(&sort), Wants::default()));
                let column = Column::for_sort(&sort).unwrap().name();
                if unsorted.contains(&column) {
                    assert_eq!(sorted, unsorted, "{width} sorted by {sort:?}");
                } else {
                    assert!(sorted.contains(&column), "{width} sorted by {sort:?}");
                }
            }
        }
    }

    #[test]
    fn a_sort_by_a_column_not_shown_turns_its_family_or_shows_it() {
        let sorted = layout(
            120,
            None,
            Some(&InventorySortBy::Edits30d),
            Wants::default(),
        );
        assert!(names(&sorted).contains(&"edits_30d"));
        assert!(!names(&sorted).contains(&"edits_7d"));
        let scan = layout(
            60,
            None,
            Some(&InventorySortBy::LastSecurityScanAt),
            Wants::default(),
        );
        assert!(names(&scan).contains(&"last_scan"), "{:?}", names(&scan));
    }

    #[test]
    fn the_spare_width_goes_to_the_owner_and_the_name() {
        let wants = Wants {
            name: 30,
            owner: 22,
        };
        let wide = layout(200, None, None, wants);
        let width_of = |layout: &Layout, wanted: Column| {
            layout
                .columns
                .iter()
                .find(|(c, _)| *c == wanted)
                .map(|(_, w)| *w)
        };
        assert_eq!(width_of(&wide, Column::Owner), Some(22));
        assert!(width_of(&wide, Column::Name).unwrap() >= 30);
        // At 120 there is no spare: the owner keeps its narrowest.
        let narrow = layout(120, None, None, wants);
        assert_eq!(width_of(&narrow, Column::Owner), Some(OWNER_MIN));
    }
}
