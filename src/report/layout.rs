//! How human output is laid out for where it goes: a width to fit and whether to colour.
//!
//! The command line decides (is stdout a terminal, how wide, `--color`, `NO_COLOR`) and
//! passes a [`Layout`]; the renderers here do no IO. [`Layout::PLAIN`] (no width, no colour)
//! is the output of a pipe or a file: tables as wide as their content, no escape codes, the
//! same bytes as before the layout existed.
//!
//! With a width, a table is wrapped to it (comfy-table's dynamic arrangement), no column
//! narrower than its longest word (up to [`WORD`] characters); when those columns do not fit,
//! the table becomes a list: one `Header: value` line per cell, a blank line between rows. Colour marks severities and verdicts only
//! (error, warning, valid, invalid, safe, blocked, proven, cut); it never changes the text.

use std::fmt::Write;

use comfy_table::{Cell, ColumnConstraint, ContentArrangement, Width};

/// The longest word a column keeps whole when a table is fitted to a width.
pub const WORD: usize = 16;

/// Where human output goes, as the command line found it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Columns to fit, or `None` for tables as wide as their content.
    pub width: Option<usize>,
    /// ANSI colours for severities and verdicts.
    pub color: bool,
}

/// What a coloured piece of text says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// An error, an invalid verdict, no plan.
    Bad,
    /// A warning, something held back or blocked, a cut search.
    Caution,
    /// Valid, safe, proven.
    Good,
}

impl Tone {
    /// The foreground colour's SGR sequence (the 8 basic colours, which terminal themes
    /// adjust).
    fn sgr(self) -> &'static str {
        match self {
            Tone::Bad => "\x1b[31m",
            Tone::Caution => "\x1b[33m",
            Tone::Good => "\x1b[32m",
        }
    }
}

/// The tone of a severity word.
#[must_use]
pub fn severity_tone(severity: crate::finding::Severity) -> Tone {
    match severity {
        crate::finding::Severity::Error => Tone::Bad,
        crate::finding::Severity::Warning => Tone::Caution,
    }
}

impl Layout {
    /// A pipe or a file: no width, no colour.
    pub const PLAIN: Layout = Layout {
        width: None,
        color: false,
    };

    /// `text` in the tone's colour when colour is on, else `text` unchanged.
    #[must_use]
    pub fn paint(&self, text: &str, tone: Tone) -> String {
        if self.color && !text.is_empty() {
            format!("{}{text}\x1b[39m", tone.sgr())
        } else {
            text.to_owned()
        }
    }
}

/// A table being built: a header and rows of cells, each cell optionally toned.
pub struct Grid {
    header: Vec<String>,
    rows: Vec<Vec<(String, Option<Tone>)>>,
}

impl Grid {
    #[must_use]
    pub fn new(header: &[&str]) -> Self {
        Grid {
            header: header.iter().map(|&h| h.to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// A row of plain cells.
    pub fn row(&mut self, cells: Vec<String>) -> &mut Self {
        self.rows
            .push(cells.into_iter().map(|c| (c, None)).collect());
        self
    }

    /// A row where some cells carry a tone.
    pub fn toned_row(&mut self, cells: Vec<(String, Option<Tone>)>) -> &mut Self {
        self.rows.push(cells);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table as text, without a final newline: the house table, wrapped to the width
    /// when one is given, or a list when even the headers do not fit in it.
    #[must_use]
    pub fn render(&self, layout: &Layout) -> String {
        let floors = self.floors();
        if let Some(width) = layout.width
            && floors.iter().sum::<usize>() + 3 * floors.len() + 1 > width
        {
            return self.list(layout, width);
        }
        let header: Vec<&str> = self.header.iter().map(String::as_str).collect();
        let mut t = super::human::table(&header);
        if let Some(width) = layout.width {
            t.set_content_arrangement(ContentArrangement::Dynamic)
                .set_width(u16::try_from(width).unwrap_or(u16::MAX));
            for (column, floor) in t.column_iter_mut().zip(&floors) {
                let floor = u16::try_from(*floor).unwrap_or(u16::MAX);
                column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(floor)));
            }
        }
        for row in &self.rows {
            // the colour is in the text; comfy-table measures and wraps it as text
            t.add_row(row.iter().map(|(text, tone)| match tone {
                Some(tone) => Cell::new(layout.paint(text, *tone)),
                None => Cell::new(text),
            }));
        }
        t.to_string()
    }

    /// The narrowest each column may be: its longest word, header included, up to
    /// [`WORD`] characters.
    fn floors(&self) -> Vec<usize> {
        let longest = |text: &str| text.split_whitespace().map(|w| w.chars().count()).max();
        (0..self.header.len())
            .map(|i| {
                let cells = self.rows.iter().filter_map(|row| row.get(i));
                cells
                    .filter_map(|(text, _)| longest(text))
                    .chain(longest(&self.header[i]))
                    .max()
                    .unwrap_or(0)
                    .min(WORD)
            })
            .collect()
    }

    /// One `Header: value` line per non-empty cell, values wrapped at spaces to the width
    /// and aligned, a blank line between rows.
    fn list(&self, layout: &Layout, width: usize) -> String {
        let label = self
            .header
            .iter()
            .map(|h| h.chars().count())
            .max()
            .unwrap_or(0)
            + 2;
        let room = width.saturating_sub(label).max(20);
        let mut out = String::new();
        for (i, row) in self.rows.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            for (header, (text, tone)) in self.header.iter().zip(row) {
                if text.is_empty() {
                    continue;
                }
                for (j, line) in wrap(text, room).iter().enumerate() {
                    let head = if j == 0 {
                        format!("{header}:")
                    } else {
                        String::new()
                    };
                    let line = match tone {
                        Some(tone) => layout.paint(line, *tone),
                        None => line.clone(),
                    };
                    let _ = writeln!(out, "{head:label$}{line}");
                }
            }
        }
        out.pop(); // no final newline, as a table
        out
    }
}

/// `text` in lines of at most `room` characters, broken at spaces (a longer word stands on
/// a line of its own); the text's own line breaks are kept.
fn wrap(text: &str, room: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for paragraph in text.lines() {
        let mut line = String::new();
        for word in paragraph.split(' ') {
            let needed =
                line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
            if !line.is_empty() && needed > room {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_wrap(text: &str, room: usize, expected: &[&str]) {
        assert_eq!(wrap(text, room), expected);
    }

    #[test]
    fn wraps_at_spaces() {
        check_wrap("a bb ccc dddd", 6, &["a bb", "ccc", "dddd"]);
        check_wrap("averyverylongword x", 4, &["averyverylongword", "x"]);
        check_wrap("one\ntwo three", 20, &["one", "two three"]);
    }

    fn grid() -> Grid {
        let mut g = Grid::new(&["Name", "Level"]);
        g.toned_row(vec![
            ("web".to_owned(), None),
            ("error".to_owned(), Some(Tone::Bad)),
        ]);
        g
    }

    #[test]
    fn plain_is_the_house_table_without_escapes() {
        let mut t = super::super::human::table(&["Name", "Level"]);
        t.add_row(vec!["web", "error"]);
        assert_eq!(grid().render(&Layout::PLAIN), t.to_string());
    }

    #[test]
    fn narrow_widths_give_a_list() {
        let narrow = Layout {
            width: Some(10),
            color: false,
        };
        assert_eq!(grid().render(&narrow), "Name:  web\nLevel: error");
        let coloured = Layout {
            color: true,
            ..narrow
        };
        assert_eq!(
            grid().render(&coloured),
            "Name:  web\nLevel: \x1b[31merror\x1b[39m"
        );
    }

    #[test]
    fn colour_marks_the_toned_cells_only() {
        let on = Layout {
            width: None,
            color: true,
        };
        let text = grid().render(&on);
        assert!(text.contains("error"), "{text}");
        assert!(text.contains('\x1b'), "{text}");
        assert!(text.contains("\x1b[31merror"), "{text}");
        assert!(!text.contains("m web"), "{text}");
    }

    #[test]
    fn paint_is_a_no_op_without_colour() {
        assert_eq!(Layout::PLAIN.paint("valid", Tone::Good), "valid");
        let on = Layout {
            width: None,
            color: true,
        };
        assert_eq!(on.paint("valid", Tone::Good), "\x1b[32mvalid\x1b[39m");
    }
}
