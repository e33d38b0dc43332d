//! Aligned columns for people. Every cell has its invisible characters made
//! visible (`text::escape_invisible`) and is cut to its column by `text::fit`;
//! flexible columns shrink first when the rows do not fit the width.

use crate::text::{display_width, escape_invisible, fit};

const GAP: &str = "  ";

/// Width of a table written anywhere but a terminal (a pipe, a file).
pub const DEFAULT_WIDTH: usize = 120;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub title: &'static str,
    pub align: Align,
    /// May shrink (with a `…`) when the table is too wide; never below `min`.
    pub flexible: bool,
    pub min: usize,
    /// Among flexible columns, lower gives way first: a name shrinks only
    /// after the columns that matter less are at their minimum.
    pub yields: u8,
    /// May be left out, lowest first, when the table's cells do not fit whole:
    /// a column that matters less goes before names are cut. `None`: always shown.
    pub drop: Option<u8>,
}

impl Column {
    /// A column kept whole: ids, enums, dates.
    pub const fn fixed(title: &'static str) -> Self {
        Self {
            title,
            align: Align::Left,
            flexible: false,
            min: 0,
            yields: 0,
            drop: None,
        }
    }

    /// A right-aligned number.
    pub const fn number(title: &'static str) -> Self {
        Self {
            title,
            align: Align::Right,
            flexible: false,
            min: 0,
            yields: 0,
            drop: None,
        }
    }

    /// Free text (names, quotes) that gives way first.
    pub const fn text(title: &'static str, min: usize) -> Self {
        Self {
            title,
            align: Align::Left,
            flexible: true,
            min,
            yields: 0,
            drop: None,
        }
    }

    /// Gives way (shrinks) in the order of `rank`, lowest first.
    pub const fn yielding(self, rank: u8) -> Self {
        Self {
            yields: rank,
            ..self
        }
    }

    /// May be left out when the cells do not fit whole, lowest `rank` first.
    pub const fn droppable(self, rank: u8) -> Self {
        Self {
            drop: Some(rank),
            ..self
        }
    }
}

/// Renders a header and `rows` within `width` cells, one line each, with a
/// trailing newline. Rows shorter than the columns are padded with blanks.
pub fn render(columns: &[Column], rows: &[Vec<String>], width: usize) -> String {
    let clean: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            (0..columns.len())
                .map(|index| {
                    row.get(index)
                        .map(|cell| escape_invisible(cell).into_owned())
                        .unwrap_or_default()
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(index, column)| {
            clean
                .iter()
                .map(|row| display_width(&row[index]))
                .chain([display_width(column.title)])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let titles: Vec<String> = columns.iter().map(|c| c.title.to_owned()).collect();
    let shown = kept_columns(columns, &widths, width);
    let columns: Vec<Column> = shown.iter().map(|&index| columns[index]).collect();
    let mut widths: Vec<usize> = shown.iter().map(|&index| widths[index]).collect();
    shrink(&columns, &mut widths, width);

    let mut out = String::new();
    for row in std::iter::once(&titles).chain(clean.iter()) {
        let cells: Vec<String> = columns
            .iter()
            .zip(&widths)
            .zip(shown.iter().map(|&index| &row[index]))
            .map(|((column, &width), cell)| pad(&fit(cell, width), width, column.align))
            .collect();
        out.push_str(cells.join(GAP).trim_end());
        out.push('\n');
    }
    out
}

/// The columns shown: droppable ones are left out, lowest rank first, while
/// the flexible columns that give way last (the names) would be cut, the
/// others already at their minimum.
fn kept_columns(columns: &[Column], widths: &[usize], width: usize) -> Vec<usize> {
    let last_to_yield = columns
        .iter()
        .filter(|c| c.flexible)
        .map(|c| c.yields)
        .max();
    let needed = |index: usize| {
        let column = &columns[index];
        match column.flexible && Some(column.yields) != last_to_yield {
            true => widths[index].min(column.min.max(1)),
            false => widths[index],
        }
    };
    let mut shown: Vec<usize> = (0..columns.len()).collect();
    let total = |shown: &[usize]| -> usize {
        shown.iter().map(|&index| needed(index)).sum::<usize>()
            + GAP.len() * shown.len().saturating_sub(1)
    };
    while total(&shown) > width {
        let Some(at) = shown
            .iter()
            .enumerate()
            .filter_map(|(at, &index)| Some((at, columns[index].drop?)))
            .min_by_key(|&(_, rank)| rank)
            .map(|(at, _)| at)
        else {
            break;
        };
        shown.remove(at);
    }
    shown
}

/// Takes cells from the widest flexible column of the lowest `yields` rank
/// until the line fits or every flexible column is at its minimum; wide
/// columns of one rank even out as they shrink.
fn shrink(columns: &[Column], widths: &mut [usize], width: usize) {
    let gaps = GAP.len() * columns.len().saturating_sub(1);
    let floor = |index: usize| columns[index].min.max(1);
    loop {
        let total: usize = widths.iter().sum::<usize>() + gaps;
        if total <= width {
            return;
        }
        let mut shrinkable: Vec<usize> = (0..columns.len())
            .filter(|&index| columns[index].flexible && widths[index] > floor(index))
            .collect();
        shrinkable.sort_by_key(|&index| (columns[index].yields, std::cmp::Reverse(widths[index])));
        let Some(&widest) = shrinkable.first() else {
            return;
        };
        let runner_up = shrinkable
            .get(1)
            .filter(|&&index| columns[index].yields == columns[widest].yields)
            .map_or(0, |&index| widths[index]);
        let step = (total - width)
            .min(widths[widest] - floor(widest))
            .min(widths[widest].saturating_sub(runner_up).max(1));
        widths[widest] -= step;
    }
}

fn pad(text: &str, width: usize, align: Align) -> String {
    let fill = " ".repeat(width.saturating_sub(display_width(text)));
    match align {
        Align::Left => format!("{text}{fill}"),
        Align::Right => format!("{fill}{text}"),
    }
}

/// A two-column FIELD / VALUE listing of one object's flattened fields.
pub fn render_fields(fields: &[(String, String)], width: usize) -> String {
    let rows: Vec<Vec<String>> = fields
        .iter()
        .map(|(name, value)| vec![name.clone(), value.clone()])
        .collect();
    render(
        &[Column::fixed("FIELD"), Column::text("VALUE", 10)],
        &rows,
        width,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|c| (*c).to_owned()).collect()
    }

    #[test]
    fn aligns_numbers_right_and_text_left() {
        let columns = [
            Column::fixed("ID"),
            Column::number("N"),
            Column::text("NAME", 4),
        ];
        let text = render(
            &columns,
            &[row(&["p1", "5", "alpha"]), row(&["p22", "120", "b"])],
            80,
        );
        assert_eq!(text, "ID     N  NAME\np1     5  alpha\np22  120  b\n");
    }

    #[test]
    fn shrinks_flexible_columns_to_the_width() {
        let columns = [
            Column::fixed("ID"),
            Column::text("NAME", 4),
            Column::text("OWNER", 4),
        ];
        let rows = [row(&[
            "p1",
            "a very long project name",
            "someone with a long name",
        ])];
        let text = render(&columns, &rows, 30);
        for line in text.lines() {
            assert!(display_width(line) <= 30, "{line:?}");
        }
        assert!(text.contains('…'));
        assert!(text.starts_with("ID  NAME"));
    }

    #[test]
    fn columns_that_matter_less_give_way_before_names() {
        let columns = [
            Column::text("NAME", 4).yielding(2),
            Column::fixed("SEEN").droppable(0),
            Column::text("WHY", 4),
        ];
        let rows = [row(&[
            "Support studio 17",
            "2026-11-22",
            "Shared with users",
        ])];
        // Whole: 17 + 2 + 10 + 2 + 17 = 48. At 40 the reason gives way.
        let text = render(&columns, &rows, 40);
        assert!(
            text.contains("Support studio 17  2026-11-22  Shared w…"),
            "{text}"
        );
        // At 30 the date goes rather than the name being cut.
        let text = render(&columns, &rows, 30);
        assert!(text.contains("Support studio 17  Shared wit…\n"), "{text}");
        assert!(!text.contains("SEEN"), "{text}");
    }

    #[test]
    fn hostile_cells_show_their_controls_as_escapes() {
        let columns = [Column::text("NAME", 4)];
        let text = render(
            &columns,
            &[row(&["\u{1b}[31mred\u{1b}]0;title\u{7}\nx\u{202e}"])],
            80,
        );
        assert_eq!(text, "NAME\n\\x1b[31mred\\x1b]0;title\\x07\\nx\\u202e\n");
    }
}
