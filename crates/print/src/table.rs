//! Tables for people and for scripts. On a terminal a table fits its width (`COLUMNS`, else the
//! terminal's size). What carries the answer stays: numbers whole, timestamps whole (on two
//! lines, date and time, when narrow), long ids cut in the middle with an ellipsis but never so
//! that two different ids look the same, segment file names by their base offset without the
//! zero padding. To make room, in this order: columns empty in every row are left out, columns
//! with one value in every row are said once above the table, the least important columns are
//! left out (and named under the table); a column of prose (verdicts, findings) that would wrap
//! is printed under the table as numbered notes, wrapped at word boundaries; and when the
//! columns that must stay still do not fit, the table is printed in panels, each repeating the
//! key columns. Anywhere else (a pipe, a file) tables are full width, and `--format tsv` gives one
//! tab-separated line per row with a header line, for `awk` and `cut`.

use std::collections::{BTreeSet, HashMap};
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

/// The width of the terminal stderr is shown on (`COLUMNS` first, as shells export it), for
/// notes wrapped to it; `None` when stderr is not a terminal.
pub fn stderr_width() -> Option<usize> {
    if !io::stderr().is_terminal() {
        return None;
    }
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0);
    columns
        .or_else(|| {
            Table::new()
                .use_stderr()
                .width()
                .map(usize::from)
                .filter(|&w| w > 0)
        })
        .map(|w| w.max(MIN_WIDTH))
}

/// `text` broken at word boundaries into lines of at most `width` characters, the lines after
/// the first indented by two spaces more than its own indent (a note on a terminal).
pub fn wrapped(text: &str, width: usize) -> String {
    let mut out = Layout::Fit(width).writer(Vec::new());
    let _ = out.write_all(text.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
    String::from_utf8_lossy(&out.inner).into_owned()
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
    /// Whole and left-aligned (severities, check ids, offset ranges).
    Whole,
    /// A timestamp (`2024-05-29T18:06:45.000Z`): whole, on two lines (date, time) when narrow.
    Time,
    /// An identifier (topic, group, member, file): cut in the middle with an ellipsis.
    Id,
    /// Free text (flags, lists): wraps.
    Text,
    /// Sentences (verdicts, findings, messages): on a terminal, when they would wrap in their
    /// cell, the cell holds a note number and the sentence goes under the table.
    Prose,
}

/// A column: header, kind, and how early it is left out when the table cannot fit (0: never;
/// higher numbers go first); a key column names the row and is repeated in every panel.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub header: &'static str,
    pub kind: Col,
    pub drop: u8,
    pub key: bool,
}

pub const fn col(header: &'static str, kind: Col, drop: u8) -> Column {
    Column {
        header,
        kind,
        drop,
        key: false,
    }
}

impl Column {
    /// This column names the row: it is repeated in every panel of a table too wide for the
    /// terminal.
    pub const fn key(self) -> Column {
        Column { key: true, ..self }
    }
}

/// A table's columns and rows (cells already escaped for the terminal).
#[derive(Clone)]
pub struct Grid {
    columns: Vec<Column>,
    rows: Vec<Vec<String>>,
    /// Streaming ([`Grid::stream`]): the widest cell of each column over every row, measured
    /// beforehand, so that the layout does not depend on the rows held.
    measured: Option<Measure>,
}

/// Rows rendered at a time by [`Grid::stream`].
const STREAM_CHUNK: usize = 1024;

/// Distinct values of an id column kept to check that cutting them keeps them apart.
const DISTINCT_CAP: usize = 256;

/// What fitting needs to know of each column, over every row.
#[derive(Debug, Clone)]
struct Stats {
    /// Characters of the widest cell.
    chars: Vec<usize>,
    /// Characters of the widest cell when timestamps are on two lines (date, time).
    split: Vec<usize>,
    /// Every cell is empty or `-`.
    empty: Vec<bool>,
    /// The one value of every cell, while there is one.
    constant: Vec<Option<String>>,
    /// `false` once a second value was seen.
    is_constant: Vec<bool>,
    /// Distinct values of id columns (`None` past [`DISTINCT_CAP`]).
    distinct: Vec<Option<BTreeSet<String>>>,
    rows: usize,
}

impl Stats {
    fn new(columns: &[Column]) -> Stats {
        let n = columns.len();
        Stats {
            chars: vec![0; n],
            split: vec![0; n],
            empty: vec![true; n],
            constant: vec![None; n],
            is_constant: vec![true; n],
            distinct: columns
                .iter()
                .map(|c| (c.kind == Col::Id).then(BTreeSet::new))
                .collect(),
            rows: 0,
        }
    }

    fn add(&mut self, cells: &[String]) {
        for (i, c) in cells.iter().enumerate() {
            self.chars[i] = self.chars[i].max(width_of(c));
            self.split[i] = self.split[i].max(split_width(c));
            if !(c.is_empty() || c == "-") {
                self.empty[i] = false;
            }
            if self.is_constant[i] {
                match &self.constant[i] {
                    None if self.rows == 0 => self.constant[i] = Some(c.clone()),
                    Some(v) if v == c => {}
                    _ => {
                        self.is_constant[i] = false;
                        self.constant[i] = None;
                    }
                }
            }
            if let Some(set) = self.distinct[i].as_mut() {
                if !set.contains(c.as_str()) {
                    if set.len() >= DISTINCT_CAP {
                        self.distinct[i] = None;
                    } else {
                        set.insert(c.clone());
                    }
                }
            }
        }
        self.rows += 1;
    }

    fn constant(&self, i: usize) -> Option<&str> {
        self.is_constant[i]
            .then(|| self.constant[i].as_deref())
            .flatten()
    }
}

/// Widest line of a cell with a timestamp put on two lines at its `T`.
fn split_width(s: &str) -> usize {
    s.lines()
        .map(|l| match l.find('T') {
            Some(b) if looks_like_time(l) => {
                (l[..=b].chars().count()).max(l[b + 1..].chars().count())
            }
            _ => l.chars().count(),
        })
        .max()
        .unwrap_or(0)
}

/// `2024-05-29T18:06:45.000Z` and the like: a date, `T`, a time.
fn looks_like_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 11
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[..4].iter().all(u8::is_ascii_digit)
}

/// Kafka's file names carry their base offset zero-padded to 20 digits: on a terminal the
/// number alone (`00000000000000023801.log` becomes `23801.log`).
pub fn unpadded_segment_names(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            let run = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            if run == 20 && b.get(i + 20) == Some(&b'.') && b[i] == b'0' {
                let zeros = b[i..i + 19].iter().take_while(|&&c| c == b'0').count();
                out.push_str(&s[last..i]);
                last = i + zeros;
            }
            i += run;
        } else {
            i += 1;
        }
    }
    out.push_str(&s[last..]);
    out
}

/// The widths of a table's cells measured in a first pass over its rows ([`Grid::stream`]):
/// what fitting uses, and the display widths comfy-table gives the cells (what a full-width
/// table is laid out by).
#[derive(Debug, Clone)]
pub struct Measure {
    columns: Vec<Column>,
    stats: Stats,
    display: Vec<u16>,
    /// Rows waiting to be measured by comfy-table (a chunk at a time).
    pending: Vec<Vec<String>>,
    rows: usize,
}

impl Measure {
    pub fn new(columns: &[Column]) -> Measure {
        Measure {
            columns: columns.to_vec(),
            stats: Stats::new(columns),
            display: vec![0; columns.len()],
            pending: Vec::new(),
            rows: 0,
        }
    }

    /// Measures one row (its cells are not kept past the next chunk).
    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.columns.len());
        self.stats.add(&cells);
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

/// How a table is laid out at a width: the columns shown and their content widths, and what
/// was done to make room.
#[derive(Debug, Clone, Default)]
struct Plan {
    /// Content width of each column shown, `None` for the others.
    widths: Vec<Option<usize>>,
    /// Columns empty in every row, left out.
    empty: Vec<usize>,
    /// Columns with one value in every row, said above the table.
    hoisted: Vec<usize>,
    /// Columns left out for room.
    dropped: Vec<usize>,
    /// Prose columns whose sentences go under the table.
    notes: Vec<bool>,
    /// When the columns that must stay do not fit: the columns of each panel.
    panels: Option<Vec<Vec<usize>>>,
}

/// Characters a table needs: a border before each shown column and one at the end, and one
/// space of padding each side.
fn need(bounds: &[(usize, usize)], shown: &[bool]) -> usize {
    1 + bounds
        .iter()
        .zip(shown)
        .filter(|(_, s)| **s)
        .map(|(b, _)| b.0 + 3)
        .sum::<usize>()
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
    /// and the output is the same bytes as one [`Grid`] holding every row would write (on a
    /// terminal, when the table needs panels or notes, each chunk is a table of its own).
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
        // Chunks are whole tables when the plan puts anything between or after them.
        let whole_chunks = match layout {
            Layout::Fit(width) => {
                let p = grid.plan(width);
                p.panels.is_some() || p.notes.iter().any(|&n| n)
            }
            _ => false,
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
            } else if (first && last) || whole_chunks {
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

    /// The statistics fitting works from: measured beforehand when streaming, else over the
    /// rows held.
    fn stats(&self) -> Stats {
        if let Some(m) = &self.measured {
            return m.stats.clone();
        }
        let mut s = Stats::new(&self.columns);
        for r in &self.rows {
            s.add(r);
        }
        s
    }

    /// The narrowest width at which cutting this id column's values in the middle keeps them
    /// apart (their full width when even that would not).
    fn id_floor(stats: &Stats, i: usize) -> usize {
        let Some(set) = &stats.distinct[i] else {
            return 0;
        };
        let full = stats.chars[i];
        (1..full)
            .find(|&w| {
                let cut: BTreeSet<String> = set.iter().map(|v| ellipsize_middle(v, w)).collect();
                cut.len() == set.len()
            })
            .unwrap_or(full)
    }

    /// Narrowest and widest content width of column `i` (padding and borders excluded).
    fn bounds(&self, stats: &Stats, notes: &[bool], floors: &[usize], i: usize) -> (usize, usize) {
        let c = &self.columns[i];
        let head = header_min(c.header);
        if notes[i] {
            // Sentences that fit stay in the cell; the others become note numbers.
            let w = note_ref_width(stats.rows);
            return (w.max(head), stats.chars[i].max(c.header.chars().count()));
        }
        let content = stats.chars[i];
        let full = content.max(c.header.chars().count());
        match c.kind {
            Col::Num | Col::Whole => (content.max(head), full),
            Col::Time => (stats.split[i].max(head), full),
            Col::Id => (content.min(ID_MIN).max(head).max(floors[i].min(full)), full),
            Col::Text | Col::Prose => (content.min(TEXT_MIN).max(head), full),
        }
    }

    /// Content widths for the `allowed` columns at `width`, `None` for those left out (only
    /// columns that may go are), and which were left out.
    fn widths_for(
        &self,
        stats: &Stats,
        notes: &[bool],
        floors: &[usize],
        width: usize,
        allowed: &[bool],
    ) -> (Vec<Option<usize>>, Vec<usize>) {
        let n = self.columns.len();
        let strict: Vec<(usize, usize)> = (0..n)
            .map(|i| self.bounds(stats, notes, floors, i))
            .collect();
        // Ids keep their whole length (up to a point) before any column is left out: the row's
        // identity matters more than one more column.
        let roomy: Vec<(usize, usize)> = strict
            .iter()
            .enumerate()
            .map(|(i, b)| match self.columns[i].kind {
                Col::Id if !notes[i] => (b.1.min(ROOMY_ID).max(b.0), b.1),
                _ => *b,
            })
            .collect();
        let mut shown: Vec<bool> = allowed.to_vec();
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
        let mut dropped: Vec<usize> = (0..n).filter(|&i| allowed[i] && !shown[i]).collect();
        dropped.sort_by_key(|&i| (self.columns[i].drop, std::cmp::Reverse(i)));
        for &i in &dropped {
            shown[i] = true;
            if need(&roomy, &shown) > width {
                shown[i] = false;
            }
        }
        let dropped: Vec<usize> = (0..n).filter(|&i| allowed[i] && !shown[i]).collect();
        let mut bounds = if need(&roomy, &shown) <= width {
            roomy
        } else {
            strict
        };
        let shrinkable = |i: usize| {
            !notes[i] && matches!(self.columns[i].kind, Col::Id | Col::Text | Col::Prose)
        };
        // Still too wide with only the columns that always show: narrow the widest id or text
        // column, one character at a time, down to its header (an id not below the width that
        // keeps its values apart).
        while need(&bounds, &shown) > width {
            let Some(i) = (0..n)
                .filter(|&i| {
                    let floor = match self.columns[i].kind {
                        Col::Id => floors[i].min(bounds[i].1),
                        _ => 0,
                    };
                    shown[i]
                        && shrinkable(i)
                        && bounds[i].0 > header_min(self.columns[i].header).max(4).max(floor)
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
        // A timestamp on one line when there is room for it whole.
        for i in 0..n {
            if self.columns[i].kind == Col::Time {
                if let Some(w) = widths[i].as_mut() {
                    let more = bounds[i].1.saturating_sub(*w);
                    if more <= slack {
                        *w += more;
                        slack -= more;
                    }
                }
            }
        }
        // The room left goes to ids first, then free text: one character at a time to the
        // narrowest column still short of its content, so every id gets its share.
        for kinds in [&[Col::Id][..], &[Col::Text, Col::Prose][..]] {
            while slack > 0 {
                let Some(i) = (0..n)
                    .filter(|&i| {
                        kinds.contains(&self.columns[i].kind)
                            && widths[i].is_some_and(|w| w < bounds[i].1)
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
        (widths, dropped)
    }

    /// How the table is laid out at `width` on a terminal.
    fn plan(&self, width: usize) -> Plan {
        let stats = self.stats();
        let plan = self.plan_with(&stats, width, &vec![false; self.columns.len()]);
        // Prose that would wrap in its cell goes under the table.
        let notes: Vec<bool> = (0..self.columns.len())
            .map(|i| {
                self.columns[i].kind == Col::Prose
                    && !stats.empty[i]
                    && (plan.panels.is_some() || plan.widths[i].is_some_and(|w| w < stats.chars[i]))
            })
            .collect();
        if notes.iter().any(|&n| n) {
            self.plan_with(&stats, width, &notes)
        } else {
            plan
        }
    }

    fn plan_with(&self, stats: &Stats, width: usize, notes: &[bool]) -> Plan {
        let n = self.columns.len();
        let floors: Vec<usize> = (0..n).map(|i| Self::id_floor(stats, i)).collect();
        let bounds: Vec<(usize, usize)> = (0..n)
            .map(|i| self.bounds(stats, notes, &floors, i))
            .collect();
        let roomy: Vec<(usize, usize)> = bounds
            .iter()
            .enumerate()
            .map(|(i, b)| match self.columns[i].kind {
                Col::Id if !notes[i] => (b.1.min(ROOMY_ID).max(b.0), b.1),
                _ => *b,
            })
            .collect();
        let mut plan = Plan {
            notes: notes.to_vec(),
            ..Plan::default()
        };
        let mut allowed = vec![true; n];
        if stats.rows > 0 && need(&roomy, &allowed) > width {
            // Columns that say nothing go first...
            for (i, a) in allowed.iter_mut().enumerate() {
                if stats.empty[i] && !self.columns[i].key {
                    *a = false;
                    plan.empty.push(i);
                }
            }
            // ...then those that say the same in every row are said once, above the table
            // (with one row every column is: then only ids are).
            for i in 0..n {
                if need(&roomy, &allowed) <= width {
                    break;
                }
                let hoist = allowed[i]
                    && stats.constant(i).is_some()
                    && !notes[i]
                    && (stats.rows > 1 || self.columns[i].kind == Col::Id);
                if hoist && allowed.iter().filter(|&&a| a).count() > 1 {
                    allowed[i] = false;
                    plan.hoisted.push(i);
                }
            }
        }
        let (widths, dropped) = self.widths_for(stats, notes, &floors, width, &allowed);
        let shown: Vec<bool> = widths.iter().map(Option::is_some).collect();
        let used = 1 + widths.iter().flatten().map(|w| w + 3).sum::<usize>();
        if used > width {
            // What must stay does not fit: panels, each with the key columns and as many of
            // the others as fit.
            let keys: Vec<usize> = (0..n)
                .filter(|&i| shown[i] && self.columns[i].key)
                .collect();
            let mut panels: Vec<Vec<usize>> = Vec::new();
            let mut cur = keys.clone();
            for i in (0..n).filter(|&i| shown[i] && !self.columns[i].key) {
                let mut with = vec![false; n];
                for &k in cur.iter().chain([&i]) {
                    with[k] = true;
                }
                if cur.len() > keys.len() && need(&bounds, &with) > width {
                    panels.push(std::mem::replace(&mut cur, keys.clone()));
                }
                cur.push(i);
            }
            if cur.len() > keys.len() || panels.is_empty() {
                panels.push(cur);
            }
            if panels.len() > 1 {
                plan.panels = Some(panels);
            }
        }
        plan.widths = widths;
        plan.dropped = dropped;
        plan
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
                if self.measured.is_none() {
                    // Segment files by their base offset, before anything is measured.
                    let mut g = self.clone();
                    for r in &mut g.rows {
                        for (v, c) in r.iter_mut().zip(&self.columns) {
                            if matches!(c.kind, Col::Id | Col::Text | Col::Prose) {
                                *v = unpadded_segment_names(v);
                            }
                        }
                    }
                    return g.write_fit(out, width);
                }
                self.write_fit(out, width)
            }
        }
    }

    fn write_fit(&self, out: &mut impl Write, width: usize) -> io::Result<()> {
        let plan = self.plan(width);
        let stats = self.stats();
        {
            let mut w = Layout::Fit(width).writer(&mut *out);
            for &i in &plan.hoisted {
                writeln!(
                    w,
                    "{}: {} (every row)",
                    self.columns[i].header,
                    stats.constant(i).unwrap_or("-")
                )?;
            }
        }
        let mut notes: Vec<String> = Vec::new();
        match &plan.panels {
            None => self.render(out, width, &plan.widths, &plan.notes, &mut notes)?,
            Some(panels) => {
                // Each panel laid out on its own, its key columns first.
                for (k, panel) in panels.iter().enumerate() {
                    if k > 0 {
                        writeln!(out)?;
                    }
                    let mut allowed = vec![false; self.columns.len()];
                    for &i in panel {
                        allowed[i] = true;
                    }
                    let floors: Vec<usize> = (0..self.columns.len())
                        .map(|i| Self::id_floor(&stats, i))
                        .collect();
                    let (widths, _) =
                        self.widths_for(&stats, &plan.notes, &floors, width, &allowed);
                    self.render(out, width, &widths, &plan.notes, &mut notes)?;
                }
            }
        }
        let mut w = Layout::Fit(width).writer(&mut *out);
        for (k, text) in notes.iter().enumerate() {
            writeln!(w, "[{}] {text}", k + 1)?;
        }
        let hidden: Vec<&str> = plan
            .dropped
            .iter()
            .map(|&i| self.columns[i].header)
            .collect();
        let empty: Vec<&str> = plan.empty.iter().map(|&i| self.columns[i].header).collect();
        if !hidden.is_empty() {
            writeln!(
                w,
                "(not shown at {width} columns: {}; --format tsv or a wider terminal shows them)",
                hidden.join(", ")
            )?;
        }
        if !empty.is_empty() {
            writeln!(w, "(empty in every row, not shown: {})", empty.join(", "))?;
        }
        Ok(())
    }

    /// One table of the shown columns at their widths; prose columns marked in `notes` hold a
    /// note number, the sentence added to `texts` (once however many rows share it).
    fn render(
        &self,
        out: &mut impl Write,
        width: usize,
        widths: &[Option<usize>],
        notes: &[bool],
        texts: &mut Vec<String>,
    ) -> io::Result<()> {
        let shown: Vec<usize> = (0..self.columns.len())
            .filter(|&i| widths[i].is_some())
            .collect();
        let mut numbers: HashMap<String, usize> = texts
            .iter()
            .enumerate()
            .map(|(k, t)| (t.clone(), k + 1))
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
                let w = widths[i].unwrap_or(1);
                let v = if notes[i] && width_of(&r[i]) > w {
                    let k = *numbers.entry(r[i].clone()).or_insert_with(|| {
                        texts.push(r[i].clone());
                        texts.len()
                    });
                    format!("[{k}]")
                } else {
                    match c.kind {
                        Col::Id => ellipsize_middle(&r[i], w),
                        Col::Time if r[i].chars().count() > w && looks_like_time(&r[i]) => {
                            r[i].replacen('T', "T\n", 1)
                        }
                        _ => r[i].clone(),
                    }
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
        writeln!(out, "{t}")
    }
}

/// Characters of a note number cell (`[12]`) in a table of `rows` rows.
fn note_ref_width(rows: usize) -> usize {
    rows.max(1).to_string().len() + 2
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

    fn fitted(g: &Grid, width: usize) -> String {
        let mut out = Vec::new();
        g.write(&mut out, Layout::Fit(width)).unwrap();
        let text = String::from_utf8(out).unwrap();
        for line in text.lines() {
            assert!(line.chars().count() <= width, "{width}: {line}\n{text}");
        }
        text
    }

    /// The header cells of the tables in `text` (first header line of each).
    fn headers(text: &str) -> Vec<Vec<String>> {
        let lines: Vec<&str> = text.lines().collect();
        lines
            .windows(2)
            .filter(|w| w[0].starts_with('┌'))
            .map(|w| {
                w[1].split(['│', '┆'])
                    .map(|c| c.trim().to_string())
                    .filter(|c| !c.is_empty())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn empty_columns_go_first_then_constant_ones_are_said_once() {
        let mut g = Grid::new(&[
            col("GROUP", Col::Id, 0).key(),
            col("TOPIC", Col::Id, 0).key(),
            col("PARTITION", Col::Num, 0).key(),
            col("COMMITTED-AT", Col::Time, 0),
            col("EXPIRES-AT", Col::Time, 0),
            col("METADATA", Col::Id, 5),
            col("NOTES", Col::Prose, 0),
        ]);
        for p in 0..3 {
            g.row(vec![
                format!("the-one-group-{}", "g".repeat(20)),
                format!("topic-{p}-{}", "t".repeat(20)),
                p.to_string(),
                "2024-05-29T18:06:45.000Z".into(),
                "2024-06-05T18:06:45.000Z".into(),
                "-".into(),
                String::new(),
            ]);
        }
        let text = fitted(&g, 80);
        assert!(
            text.starts_with(&format!(
                "GROUP: the-one-group-{} (every row)\n",
                "g".repeat(20)
            )),
            "{text}"
        );
        assert_eq!(
            headers(&text),
            vec![vec!["TOPIC", "PARTITION", "COMMITTED-AT", "EXPIRES-AT"]],
            "{text}"
        );
        assert!(
            !text.contains("2024-05-29T18") && text.contains("18:06:45.000Z"),
            "{text}"
        );
        assert!(
            text.contains("(empty in every row, not shown: METADATA, NOTES)"),
            "{text}"
        );
        // Wide enough: every column as it is, nothing hoisted.
        let wide = fitted(&g, 160);
        assert_eq!(headers(&wide)[0].len(), 7, "{wide}");
        assert!(wide.contains("2024-05-29T18:06:45.000Z"), "{wide}");
    }

    #[test]
    fn prose_that_would_wrap_goes_under_the_table_whole() {
        let sentence = "the follower's log diverges from the leader's at offset 1375: \
                        truncating it loses 12 acknowledged records";
        let mut g = Grid::new(&[
            col("TOPIC", Col::Id, 0).key(),
            col("PARTITION", Col::Num, 0).key(),
            col("VERDICT", Col::Prose, 0),
        ]);
        for p in 0..3 {
            g.row(vec!["orders".into(), p.to_string(), sentence.into()]);
        }
        g.row(vec!["orders".into(), "3".into(), "identical".into()]);
        let text = fitted(&g, 80);
        assert_eq!(
            text.matches("[1]").count(),
            4,
            "one note for the three rows: {text}"
        );
        // A sentence that fits its cell stays there.
        assert!(
            !text.contains("[2]") && text.contains("┆ identical"),
            "{text}"
        );
        // The sentence is under the table, broken only at spaces.
        let notes: String = text
            .lines()
            .skip_while(|l| !l.starts_with("[1] "))
            .take_while(|l| !l.starts_with("[2]"))
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(notes, format!("[1] {sentence}"), "{text}");
        // Piped: the cell holds the sentence.
        let mut out = Vec::new();
        g.write(&mut out, Layout::Full).unwrap();
        assert!(String::from_utf8(out).unwrap().contains(sentence));
    }

    #[test]
    fn too_wide_for_what_must_stay_is_printed_in_panels_with_the_keys() {
        let mut g = Grid::new(&[
            col("TOPIC", Col::Id, 0).key(),
            col("PARTITION", Col::Num, 0).key(),
            col("FIRST-TIMESTAMP", Col::Time, 0),
            col("LAST-TIMESTAMP", Col::Time, 0),
            col("COMMITTED-AT", Col::Time, 0),
            col("EXPIRES-AT", Col::Time, 0),
            col("OPTIONAL", Col::Num, 1),
        ]);
        for p in 0..2 {
            g.row(vec![
                format!("orders-{p}-{}", "x".repeat(20)),
                p.to_string(),
                format!("2024-05-29T18:06:4{p}.000Z"),
                format!("2024-05-29T18:07:4{p}.000Z"),
                format!("2024-05-29T18:08:4{p}.000Z"),
                format!("2024-06-05T18:08:4{p}.000Z"),
                p.to_string(),
            ]);
        }
        let text = fitted(&g, 60);
        let heads = headers(&text);
        assert!(heads.len() >= 2, "{text}");
        for h in &heads {
            assert_eq!(&h[..2], ["TOPIC", "PARTITION"], "{text}");
        }
        let all: Vec<&String> = heads.iter().flat_map(|h| &h[2..]).collect();
        for c in ["FIRST-", "LAST-", "COMMITTED-AT", "EXPIRES-AT"] {
            assert!(all.iter().any(|h| h.starts_with(c)), "{c}: {text}");
        }
    }

    #[test]
    fn ids_cut_in_the_middle_stay_apart_and_segments_lose_their_padding() {
        let mut g = Grid::new(&[
            col("REPLICA", Col::Id, 0).key(),
            col("FILE", Col::Id, 0),
            col("MESSAGE", Col::Text, 0),
        ]);
        let a = format!("broker-0@{}/snapshot-a/data/data", "x".repeat(40));
        let b = format!("broker-0@{}/snapshot-b/data/data", "x".repeat(40));
        g.row(vec![
            a.clone(),
            "00000000000000023801.log".into(),
            "m".repeat(30),
        ]);
        g.row(vec![
            b.clone(),
            "00000000000000000000.index".into(),
            "m".repeat(30),
        ]);
        let text = fitted(&g, 80);
        assert!(
            text.contains("23801.log") && !text.contains("00023801"),
            "{text}"
        );
        assert!(text.contains(" 0.index"), "{text}");
        let cells: Vec<String> = text
            .lines()
            .filter(|l| l.contains("broker-0"))
            .map(|l| l.split('┆').next().unwrap().to_string())
            .collect();
        assert_eq!(cells.len(), 2, "{text}");
        assert_ne!(cells[0], cells[1], "{text}");
        assert_eq!(
            unpadded_segment_names("x/00000000000000000042.timeindex.deleted"),
            "x/42.timeindex.deleted"
        );
        assert_eq!(
            unpadded_segment_names("100000000000000000042.log"),
            "100000000000000000042.log"
        );
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
