//! Tables for people and for scripts. On a terminal a table fits its width (`COLUMNS`, else the
//! terminal's size): numbers and timestamps stay whole, long ids are cut in the middle with an
//! ellipsis, free text wraps, and the least important columns are left out (and named) when even
//! that does not fit. Anywhere else (a pipe, a file) tables are full width, and `--format tsv`
//! gives one tab-separated line per row with a header line, for `awk` and `cut`.

use std::io::{self, IsTerminal, Write};

use comfy_table::{
    presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ColumnConstraint, ContentArrangement, Table,
    Width,
};

/// `--format`: how tables are written (`--json` is separate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Box-drawn tables, fitted to the terminal when stdout is one.
    #[default]
    Table,
    /// Tab-separated values: a header line, then one line per row; no other text.
    Tsv,
}

/// How a run lays its tables out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// As wide as the content (stdout is not a terminal).
    Full,
    /// At most this many columns (stdout is a terminal).
    Fit(usize),
    /// Tab-separated values.
    Tsv,
}

impl Layout {
    /// `--format tsv`; else the terminal's width when stdout is a terminal (`COLUMNS` first, as
    /// shells export it); else full width. `--json` output is never fitted: its lines are data.
    pub fn detect(format: impl Into<Format>, json: bool) -> Layout {
        let format = format.into();
        if json {
            return Layout::Full;
        }
        if format == Format::Tsv {
            return Layout::Tsv;
        }
        if !io::stdout().is_terminal() {
            return Layout::Full;
        }
        let columns = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse::<usize>().ok())
            .filter(|&c| c > 0);
        match columns.or_else(|| Table::new().width().map(usize::from).filter(|&w| w > 0)) {
            Some(w) => Layout::Fit(w.max(MIN_WIDTH)),
            None => Layout::Full,
        }
    }

    /// Whether prose (headings, notes, summaries) belongs in the output: not in TSV, where
    /// stdout holds the rows alone.
    pub fn prose(self) -> bool {
        self != Layout::Tsv
    }

    /// A writer that breaks prose lines longer than the width (tables already fit).
    pub fn writer<W: Write>(self, inner: W) -> FitWidth<W> {
        FitWidth {
            inner,
            width: match self {
                Layout::Fit(w) => Some(w),
                _ => None,
            },
            line: Vec::new(),
        }
    }
}

/// Narrower terminals are treated as this wide.
const MIN_WIDTH: usize = 40;
/// Ids are never cut below this many characters (unless their header is narrower).
const ID_MIN: usize = 16;
/// Ids this long are worth keeping whole rather than showing one more column.
const ROOMY_ID: usize = 24;
/// Free text is never wrapped narrower than this.
const TEXT_MIN: usize = 12;

/// What a column may do to fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Col {
    /// A number: whole, right-aligned.
    Num,
    /// Whole and left-aligned (timestamps, severities, check ids).
    Whole,
    /// An identifier (topic, group, member, file): cut in the middle with an ellipsis.
    Id,
    /// Free text (messages, notes, flags): wraps.
    Text,
}

/// A column: header, kind, and how early it is left out when the table cannot fit (0: never;
/// higher numbers go first).
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub header: &'static str,
    pub kind: Col,
    pub drop: u8,
}

pub const fn col(header: &'static str, kind: Col, drop: u8) -> Column {
    Column { header, kind, drop }
}

/// A table's columns and rows (cells already escaped for the terminal).
pub struct Grid {
    columns: Vec<Column>,
    rows: Vec<Vec<String>>,
    /// Streaming ([`Grid::stream`]): the widest cell of each column over every row, measured
    /// beforehand, so that the layout does not depend on the rows held.
    measured: Option<Measure>,
}

/// Rows rendered at a time by [`Grid::stream`].
const STREAM_CHUNK: usize = 1024;

/// The widths of a table's cells measured in a first pass over its rows ([`Grid::stream`]):
/// characters per column (what fitting uses) and the display widths comfy-table gives the
/// cells (what a full-width table is laid out by).
#[derive(Debug, Clone)]
pub struct Measure {
    columns: Vec<Column>,
    chars: Vec<usize>,
    display: Vec<u16>,
    /// Rows waiting to be measured by comfy-table (a chunk at a time).
    pending: Vec<Vec<String>>,
    rows: usize,
}

impl Measure {
    pub fn new(columns: &[Column]) -> Measure {
        Measure {
            columns: columns.to_vec(),
            chars: vec![0; columns.len()],
            display: vec![0; columns.len()],
            pending: Vec::new(),
            rows: 0,
        }
    }

    /// Measures one row (its cells are not kept past the next chunk).
    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.columns.len());
        for (m, c) in self.chars.iter_mut().zip(&cells) {
            *m = (*m).max(width_of(c));
        }
        self.rows += 1;
        self.pending.push(cells);
        if self.pending.len() >= STREAM_CHUNK {
            self.measure_pending();
        }
    }

    fn measure_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut t = Table::new();
        t.set_header(self.columns.iter().map(|c| c.header));
        for r in self.pending.drain(..) {
            t.add_row(r);
        }
        for (m, w) in self.display.iter_mut().zip(t.column_max_content_widths()) {
            *m = (*m).max(w);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }
}

fn width_of(s: &str) -> usize {
    s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// A header's pieces, breakable after a space, `-` or `/`.
fn header_pieces(h: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in h.chars() {
        cur.push(c);
        if matches!(c, ' ' | '-' | '/') {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn header_min(h: &str) -> usize {
    header_pieces(h)
        .iter()
        .map(|p| p.trim_end().chars().count())
        .max()
        .unwrap_or(0)
}

/// The header packed into lines of at most `width` characters.
fn header_lines(h: &str, width: usize) -> String {
    if h.chars().count() <= width {
        return h.to_string();
    }
    let mut lines: Vec<String> = vec![String::new()];
    for piece in header_pieces(h) {
        let last = lines.last_mut().expect("one line");
        if !last.is_empty()
            && last.trim_end().chars().count() + piece.trim_end().chars().count() > width
        {
            lines.push(String::new());
        }
        lines.last_mut().expect("one line").push_str(&piece);
    }
    lines
        .iter()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `s` cut to `width` characters by an ellipsis in the middle, keeping both ends.
pub fn ellipsize_middle(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        return s.to_string();
    }
    if width <= 1 {
        return "…".into();
    }
    let keep = width - 1;
    let head = keep.div_ceil(2);
    let tail = keep - head;
    let chars: Vec<char> = s.chars().collect();
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(chars[n - tail..].iter());
    out
}

/// A TSV field: tabs and line breaks (the separators) become spaces.
fn tsv_field(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

impl Grid {
    pub fn new(columns: &[Column]) -> Grid {
        Grid {
            columns: columns.to_vec(),
            rows: Vec::new(),
            measured: None,
        }
    }

    /// Writes a table of any number of rows holding [`STREAM_CHUNK`] of them at a time: `rows`
    /// must yield the same cells as were given to `measure` (a first pass over the same data),
    /// and the output is the same bytes as one [`Grid`] holding every row would write.
    pub fn stream(
        out: &mut impl Write,
        mut measure: Measure,
        rows: impl Iterator<Item = Vec<String>>,
        layout: Layout,
    ) -> io::Result<()> {
        measure.measure_pending();
        let mut grid = Grid {
            columns: measure.columns.clone(),
            rows: Vec::with_capacity(STREAM_CHUNK.min(measure.rows)),
            measured: Some(measure),
        };
        let mut first = true;
        let mut rows = rows.peekable();
        loop {
            grid.rows.clear();
            while grid.rows.len() < STREAM_CHUNK {
                match rows.next() {
                    Some(r) => grid.rows.push(r),
                    None => break,
                }
            }
            let last = rows.peek().is_none();
            if layout == Layout::Tsv {
                grid.write_tsv(out, first)?;
            } else if first && last {
                grid.write(out, layout)?;
            } else {
                // A whole table per chunk with the same column widths: the first keeps its top
                // border and header, the last its bottom border and notes, and the lines in
                // between are the rows (the condensed style draws no line between rows).
                let mut text = Vec::new();
                grid.write(&mut text, layout)?;
                let text = String::from_utf8_lossy(&text);
                let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
                if !last {
                    let bottom = lines.iter().rposition(|l| l.starts_with('└'));
                    lines.truncate(bottom.unwrap_or(lines.len()));
                }
                let start = if first {
                    0
                } else {
                    lines
                        .iter()
                        .position(|l| l.starts_with('╞'))
                        .map_or(0, |i| i + 1)
                };
                for l in &lines[start..] {
                    out.write_all(l.as_bytes())?;
                }
            }
            first = false;
            if last {
                return Ok(());
            }
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.columns.len());
        self.rows.push(cells);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn max_len(&self, i: usize) -> usize {
        if let Some(m) = &self.measured {
            return m.chars[i];
        }
        self.rows.iter().map(|r| width_of(&r[i])).max().unwrap_or(0)
    }

    fn write_tsv(&self, out: &mut impl Write, header: bool) -> io::Result<()> {
        if header {
            let head: Vec<&str> = self.columns.iter().map(|c| c.header).collect();
            writeln!(out, "{}", head.join("\t"))?;
        }
        for r in &self.rows {
            let cells: Vec<String> = r.iter().map(|c| tsv_field(c)).collect();
            writeln!(out, "{}", cells.join("\t"))?;
        }
        Ok(())
    }

    /// Narrowest and widest content width of column `i` (padding and borders excluded).
    fn bounds(&self, i: usize) -> (usize, usize) {
        let c = &self.columns[i];
        let content = self.max_len(i);
        let head = header_min(c.header);
        let full = content.max(c.header.chars().count());
        match c.kind {
            Col::Num | Col::Whole => (content.max(head), full),
            Col::Id => (content.min(ID_MIN).max(head), full),
            Col::Text => (content.min(TEXT_MIN).max(head), full),
        }
    }

    /// Content widths for the columns shown at `width`, `None` for those left out.
    fn fit(&self, width: usize) -> Vec<Option<usize>> {
        let n = self.columns.len();
        let strict: Vec<(usize, usize)> = (0..n).map(|i| self.bounds(i)).collect();
        // Ids keep their whole length (up to a point) before any column is left out: the row's
        // identity matters more than one more column.
        let roomy: Vec<(usize, usize)> = strict
            .iter()
            .enumerate()
            .map(|(i, b)| match self.columns[i].kind {
                Col::Id => (b.1.min(ROOMY_ID).max(b.0), b.1),
                _ => *b,
            })
            .collect();
        // Borders: one before each shown column and one at the end; padding: one each side.
        let need = |bounds: &[(usize, usize)], shown: &[bool]| -> usize {
            1 + bounds
                .iter()
                .zip(shown)
                .filter(|(_, s)| **s)
                .map(|(b, _)| b.0 + 3)
                .sum::<usize>()
        };
        let mut shown: Vec<bool> = vec![true; n];
        for bounds in [&roomy, &strict] {
            while need(bounds, &shown) > width {
                // The column that goes first: highest drop number, the rightmost among equals.
                let Some(victim) = (0..n)
                    .filter(|&i| shown[i] && self.columns[i].drop > 0)
                    .max_by_key(|&i| (self.columns[i].drop, i))
                else {
                    break;
                };
                shown[victim] = false;
            }
            if need(bounds, &shown) <= width {
                break;
            }
        }
        // Leaving out a wide column may have made room for a narrower one left out before it.
        let mut dropped: Vec<usize> = (0..n).filter(|&i| !shown[i]).collect();
        dropped.sort_by_key(|&i| (self.columns[i].drop, std::cmp::Reverse(i)));
        for i in dropped {
            shown[i] = true;
            if need(&roomy, &shown) > width {
                shown[i] = false;
            }
        }
        let mut bounds = if need(&roomy, &shown) <= width {
            roomy
        } else {
            strict
        };
        let shrinkable = |i: usize| matches!(self.columns[i].kind, Col::Id | Col::Text);
        // Still too wide with only the columns that always show: narrow the widest id or text
        // column, one character at a time, down to its header.
        while need(&bounds, &shown) > width {
            let Some(i) = (0..n)
                .filter(|&i| {
                    shown[i]
                        && shrinkable(i)
                        && bounds[i].0 > header_min(self.columns[i].header).max(4)
                })
                .max_by_key(|&i| (bounds[i].0, std::cmp::Reverse(i)))
            else {
                break;
            };
            bounds[i].0 -= 1;
        }
        let mut widths: Vec<Option<usize>> = bounds
            .iter()
            .zip(&shown)
            .map(|(b, s)| s.then_some(b.0))
            .collect();
        let mut slack = width.saturating_sub(need(&bounds, &shown));
        // The room left goes to ids first, then free text: one character at a time to the
        // narrowest column still short of its content, so every id gets its share.
        for kind in [Col::Id, Col::Text] {
            while slack > 0 {
                let Some(i) = (0..n)
                    .filter(|&i| {
                        self.columns[i].kind == kind && widths[i].is_some_and(|w| w < bounds[i].1)
                    })
                    .min_by_key(|&i| (widths[i], i))
                else {
                    break;
                };
                if let Some(w) = widths[i].as_mut() {
                    *w += 1;
                }
                slack -= 1;
            }
        }
        widths
    }

    pub fn write(&self, out: &mut impl Write, layout: Layout) -> io::Result<()> {
        match layout {
            Layout::Tsv => self.write_tsv(out, true),
            Layout::Full => {
                let mut t = Table::new();
                t.load_style(UTF8_FULL_CONDENSED)
                    .set_content_arrangement(ContentArrangement::Disabled)
                    .set_header(self.columns.iter().map(|c| c.header));
                for r in &self.rows {
                    t.add_row(r.iter().zip(&self.columns).map(|(v, c)| cell(v, c.kind)));
                }
                if let Some(m) = self.measured.as_ref().filter(|m| m.rows > 0) {
                    // Streaming: every chunk laid out at the widths of the whole table.
                    for (k, w) in m.display.iter().enumerate() {
                        if let Some(column) = t.column_mut(k) {
                            column.set_constraint(ColumnConstraint::Absolute(Width::Fixed(
                                w.max(&1).saturating_add(2),
                            )));
                        }
                    }
                }
                writeln!(out, "{t}")
            }
            Layout::Fit(width) => {
                let widths = self.fit(width);
                let shown: Vec<usize> = (0..self.columns.len())
                    .filter(|&i| widths[i].is_some())
                    .collect();
                let mut t = Table::new();
                t.load_style(UTF8_FULL_CONDENSED)
                    .set_content_arrangement(ContentArrangement::Dynamic)
                    .set_width(width.min(u16::MAX as usize) as u16)
                    .set_header(
                        shown
                            .iter()
                            .map(|&i| header_lines(self.columns[i].header, widths[i].unwrap_or(1))),
                    );
                for r in &self.rows {
                    t.add_row(shown.iter().map(|&i| {
                        let c = &self.columns[i];
                        let v = if c.kind == Col::Id {
                            ellipsize_middle(&r[i], widths[i].unwrap_or(1))
                        } else {
                            r[i].clone()
                        };
                        cell(&v, c.kind)
                    }));
                }
                for (k, &i) in shown.iter().enumerate() {
                    if let Some(column) = t.column_mut(k) {
                        let w = widths[i].unwrap_or(1) + 2;
                        column.set_constraint(ColumnConstraint::Absolute(Width::Fixed(
                            w.min(u16::MAX as usize) as u16,
                        )));
                    }
                }
                writeln!(out, "{t}")?;
                let hidden: Vec<&str> = (0..self.columns.len())
                    .filter(|&i| widths[i].is_none())
                    .map(|i| self.columns[i].header)
                    .collect();
                if !hidden.is_empty() {
                    let mut out = Layout::Fit(width).writer(&mut *out);
                    writeln!(
                        out,
                        "(not shown at {width} columns: {}; --format tsv or a wider terminal shows them)",
                        hidden.join(", ")
                    )?;
                }
                Ok(())
            }
        }
    }
}

fn cell(v: &str, kind: Col) -> Cell {
    let c = Cell::new(v);
    if kind == Col::Num {
        c.set_alignment(CellAlignment::Right)
    } else {
        c
    }
}

/// Breaks lines longer than `width` at the last space before it (or at the width), continuing
/// them indented under their first character plus two. Without a width it passes bytes through.
pub struct FitWidth<W: Write> {
    inner: W,
    width: Option<usize>,
    line: Vec<u8>,
}

impl<W: Write> FitWidth<W> {
    fn emit_line(&mut self) -> io::Result<()> {
        let Some(width) = self.width else {
            return Ok(());
        };
        let text = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        let indent = text.chars().take_while(|c| *c == ' ').count();
        let mut rest: &str = &text;
        let mut first = true;
        loop {
            let prefix = if first { 0 } else { indent + 2 };
            let room = width.saturating_sub(prefix).max(1);
            if rest.chars().count() <= room {
                if !first {
                    self.inner.write_all(" ".repeat(prefix).as_bytes())?;
                }
                self.inner.write_all(rest.as_bytes())?;
                return self.inner.write_all(b"\n");
            }
            let cut_byte = rest.char_indices().nth(room).map_or(rest.len(), |(b, _)| b);
            let head = &rest[..cut_byte];
            let at = head
                .rfind(' ')
                .filter(|&b| b > 0 && !head[..b].trim_start().is_empty())
                .unwrap_or(cut_byte);
            if !first {
                self.inner.write_all(" ".repeat(prefix).as_bytes())?;
            }
            self.inner.write_all(rest[..at].trim_end().as_bytes())?;
            self.inner.write_all(b"\n")?;
            rest = rest[at..].trim_start();
            first = false;
            if rest.is_empty() {
                return Ok(());
            }
        }
    }
}

impl<W: Write> Write for FitWidth<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.width.is_none() {
            return self.inner.write(buf);
        }
        for &b in buf {
            if b == b'\n' {
                self.emit_line()?;
            } else {
                self.line.push(b);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // A line not ended yet goes out as it is (output here always ends its lines, so this is
        // only a flush in the middle of one).
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.inner.write_all(&line)?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ellipsis_keeps_both_ends() {
        assert_eq!(ellipsize_middle("abcdefghij", 5), "ab…ij");
        assert_eq!(ellipsize_middle("abc", 5), "abc");
        assert_eq!(ellipsize_middle("abcdef", 1), "…");
    }

    #[test]
    fn headers_break_after_dashes() {
        assert_eq!(header_lines("CURRENT-OFFSET", 8), "CURRENT-\nOFFSET");
        assert_eq!(header_min("OLDEST-UNCONSUMED-AGE"), 11);
    }

    #[test]
    fn a_fitted_table_is_no_wider_than_asked() {
        let mut g = Grid::new(&[
            col("GROUP", Col::Id, 0),
            col("PARTITION", Col::Num, 0),
            col("CURRENT-OFFSET", Col::Num, 0),
            col("COMMITTED-AT", Col::Whole, 2),
            col("MESSAGE", Col::Text, 0),
            col("EXTRA", Col::Num, 3),
        ]);
        g.row(vec![
            "g".repeat(200),
            "12".into(),
            "123456789".into(),
            "2024-05-29T18:06:45.000Z".into(),
            "word ".repeat(40),
            "7".into(),
        ]);
        for width in [60, 80, 120] {
            let mut out = Vec::new();
            g.write(&mut out, Layout::Fit(width)).unwrap();
            let text = String::from_utf8(out).unwrap();
            for line in text.lines() {
                assert!(line.chars().count() <= width, "{width}: {line}");
            }
            assert!(text.contains("123456789"), "{text}");
        }
        let mut out = Vec::new();
        g.write(&mut out, Layout::Tsv).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("GROUP\tPARTITION\tCURRENT-OFFSET\t"));
        assert_eq!(text.lines().count(), 2);
    }

    #[test]
    fn long_prose_lines_wrap_with_an_indent() {
        let mut w = Layout::Fit(20).writer(Vec::new());
        writeln!(w, "  key=value other=thing and-a-very-long-token-indeed").unwrap();
        w.flush().unwrap();
        let text = String::from_utf8(w.inner).unwrap();
        for line in text.lines() {
            assert!(line.chars().count() <= 20, "{line:?}");
        }
        assert!(
            text.starts_with("  key=value\n    other=thing\n"),
            "{text:?}"
        );
    }

    #[test]
    fn a_streamed_table_is_the_same_bytes_as_a_whole_one() {
        let columns = [
            col("GROUP", Col::Id, 0),
            col("PARTITION", Col::Num, 0),
            col("COMMITTED-AT", Col::Whole, 2),
            col("FLAGS", Col::Text, 1),
        ];
        let cells = |i: usize| -> Vec<String> {
            vec![
                // Wide characters and a long id late in the table: the widths are the whole
                // table's, not the first chunk's.
                if i == 2100 {
                    format!("グループ-{}", "x".repeat(60))
                } else {
                    format!("group-{i}")
                },
                (i * 7).to_string(),
                "2024-05-29T18:06:45.000Z".into(),
                if i.is_multiple_of(3) {
                    "below-log-start,transactional".into()
                } else {
                    "-".into()
                },
            ]
        };
        let n = 2 * STREAM_CHUNK + 77;
        for layout in [Layout::Full, Layout::Fit(60), Layout::Fit(100), Layout::Tsv] {
            let mut whole = Grid::new(&columns);
            let mut measure = Measure::new(&columns);
            for i in 0..n {
                whole.row(cells(i));
                measure.row(cells(i));
            }
            let mut a = Vec::new();
            whole.write(&mut a, layout).unwrap();
            let mut b = Vec::new();
            Grid::stream(&mut b, measure, (0..n).map(cells), layout).unwrap();
            assert!(a == b, "{layout:?} differs");
        }
        // No rows: the header alone, as before.
        let mut a = Vec::new();
        Grid::new(&columns).write(&mut a, Layout::Full).unwrap();
        let mut b = Vec::new();
        Grid::stream(
            &mut b,
            Measure::new(&columns),
            std::iter::empty(),
            Layout::Full,
        )
        .unwrap();
        assert_eq!(a, b);
    }
}
