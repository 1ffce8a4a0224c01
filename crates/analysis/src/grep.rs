//! `kseg grep`'s search: which records match a [`Filter`], and which batches cannot hold one
//! ([`Filter::batch_may_match`], decided from the batch header alone, before anything is
//! decompressed). [`Search`] is the [`LogSink`] that drives it over [`scan_log`](kseg_scan::scan_log)
//! — the one scan loop — and hands the matches to a [`MatchSink`] (a printer); it never formats.
//!
//! Filters combine with AND. Values and keys are matched as bytes: regexes through the `regex`
//! crate's `bytes` API (as ripgrep does), fixed strings through `memchr::memmem`. A null key,
//! value or header value matches no pattern over it.

use std::io;

use memchr::memmem;
use regex::bytes::Regex;

pub use crate::json_field::{JsonField, JsonMatch};
use crate::transactions::{TxnState, TxnView};
use kseg_format::batch::TimestampType;
use kseg_format::control::ControlRecord;
use kseg_format::log::{BatchInfo, LogEntry, LogRecord};
use kseg_format::reader::DecodeResult;
use kseg_scan::{Flow, LogProblem, LogSink};

/// A pattern over bytes: a regex or a fixed string.
#[derive(Debug, Clone)]
pub enum Pattern {
    Regex(Regex),
    Fixed(Box<memmem::Finder<'static>>),
}

impl Pattern {
    /// `text` as a regex (`regex::bytes` syntax), or as a fixed string with `fixed`.
    pub fn new(text: &str, fixed: bool) -> Result<Pattern, regex::Error> {
        Ok(if fixed {
            Pattern::Fixed(Box::new(memmem::Finder::new(text.as_bytes()).into_owned()))
        } else {
            Pattern::Regex(Regex::new(text)?)
        })
    }

    /// A fixed run of bytes (`--value-hex`).
    pub fn fixed_bytes(needle: &[u8]) -> Pattern {
        Pattern::Fixed(Box::new(memmem::Finder::new(needle).into_owned()))
    }

    #[inline]
    pub fn is_match(&self, bytes: &[u8]) -> bool {
        match self {
            Pattern::Regex(r) => r.is_match(bytes),
            Pattern::Fixed(f) => f.find(bytes).is_some(),
        }
    }
}

/// `--header NAME` (a header with that key) or `--header NAME=VALUE` (and exactly that value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderFilter {
    pub name: Vec<u8>,
    pub value: Option<Vec<u8>>,
}

impl HeaderFilter {
    /// `NAME` or `NAME=VALUE`, split at the first `=`.
    pub fn parse(text: &str) -> HeaderFilter {
        match text.split_once('=') {
            Some((n, v)) => HeaderFilter {
                name: n.as_bytes().to_vec(),
                value: Some(v.as_bytes().to_vec()),
            },
            None => HeaderFilter {
                name: text.as_bytes().to_vec(),
                value: None,
            },
        }
    }

    /// `--header-hex NAME=HEX`: the value's bytes given in hex ([`parse_hex`]).
    pub fn parse_hex(text: &str) -> Result<HeaderFilter, String> {
        let Some((name, hex)) = text.split_once('=') else {
            return Err(format!("--header-hex {text:?}: give NAME=HEX"));
        };
        Ok(HeaderFilter {
            name: name.as_bytes().to_vec(),
            value: Some(parse_hex(hex).map_err(|e| format!("--header-hex {text:?}: {e}"))?),
        })
    }
}

/// Bytes given in hex on the command line (`--key-hex`, `--value-hex`, `--header-hex`): pairs
/// of hex digits; blanks, `:` and `-` between them and a leading `0x` are ignored.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let t = text.trim();
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    let digits: Vec<u8> = t
        .bytes()
        .filter(|b| !matches!(b, b' ' | b'\t' | b':' | b'-'))
        .collect();
    if let Some(bad) = digits.iter().find(|b| !b.is_ascii_hexdigit()) {
        return Err(format!("{:?} is not a hex digit", *bad as char));
    }
    if digits.len() % 2 == 1 {
        return Err(format!("{} hex digits: bytes take two each", digits.len()));
    }
    Ok(digits
        .chunks(2)
        .map(|p| {
            let d = |c: u8| (c as char).to_digit(16).expect("checked") as u8;
            d(p[0]) << 4 | d(p[1])
        })
        .collect())
}

/// A shell-style glob over a name (`--topic`): `*` any run of characters, `?` one, `[abc]`,
/// `[a-z]` and `[!a]` a class; anything else itself.
#[derive(Debug, Clone)]
pub struct Glob(regex::Regex);

impl Glob {
    pub fn new(glob: &str) -> Result<Glob, regex::Error> {
        let chars: Vec<char> = glob.chars().collect();
        let mut re = String::from("^(?s:");
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            i += 1;
            // A class runs to the next ']' after its first character; without one, '[' is itself.
            let close = (c == '[')
                .then(|| {
                    let from = i + usize::from(chars.get(i) == Some(&'!'));
                    (from + 1..chars.len()).find(|&j| chars[j] == ']')
                })
                .flatten();
            match (c, close) {
                ('*', _) => re.push_str(".*"),
                ('?', _) => re.push('.'),
                ('[', Some(end)) => {
                    re.push('[');
                    if chars[i] == '!' {
                        re.push('^');
                        i += 1;
                    }
                    for &c in &chars[i..end] {
                        if matches!(c, '\\' | '[' | ']' | '^' | '&' | '~') {
                            re.push('\\');
                        }
                        re.push(c);
                    }
                    re.push(']');
                    i = end + 1;
                }
                (c, _) => re.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
            }
        }
        re.push_str(")$");
        regex::Regex::new(&re).map(Glob)
    }

    pub fn is_match(&self, name: &str) -> bool {
        self.0.is_match(name)
    }
}

/// What a record must satisfy to match: every filter given (AND).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Over the value.
    pub value: Option<Pattern>,
    /// The key, byte for byte.
    pub key: Option<Vec<u8>>,
    pub key_regex: Option<Regex>,
    /// Each must be satisfied by some header of the record.
    pub headers: Vec<HeaderFilter>,
    /// Each must hold of the value read as JSON.
    pub json_fields: Vec<JsonField>,
    /// Half-open `[from, to)` over the record timestamp (epoch ms).
    pub from_time: Option<i64>,
    pub to_time: Option<i64>,
    /// Inclusive.
    pub from_offset: Option<i64>,
    pub to_offset: Option<i64>,
    /// The batch's producer id (-1 for records written without one, legacy ones included).
    pub producer_id: Option<i64>,
    /// The batch's producer epoch (-1 without a producer id).
    pub producer_epoch: Option<i16>,
    /// `Some(true)`: control records only (`--control`); `Some(false)`: none (`--no-control`).
    pub control: Option<bool>,
    /// The transactional states that may match (`--txn-state`); empty: any.
    pub txn_states: Vec<TxnState>,
    /// What a read_committed consumer is given (`--committed`): no aborted or open
    /// transaction, no control record, nothing at or after the last stable offset.
    pub committed: bool,
}

impl Filter {
    /// False when no record of the batch can match, from its header alone: the offset range
    /// against base/last offset, the producer id, and the time range against the max
    /// timestamp. Only v2 headers are trusted for time: there `maxTimestamp` is the largest
    /// record timestamp (the broker's `LogValidator` sets it), and with LogAppendTime every
    /// record carries it. The first timestamp is no lower bound (a producer may give later
    /// records earlier timestamps: negative deltas), so the end of the range prunes only
    /// LogAppendTime batches.
    pub fn batch_may_match(&self, b: &BatchInfo) -> bool {
        if let Some(from) = self.from_offset {
            if b.last_offset < from {
                return false;
            }
        }
        if let Some(to) = self.to_offset {
            if b.base_offset > to {
                return false;
            }
        }
        if self.producer_id.is_some_and(|p| b.producer_id != p)
            || self.producer_epoch.is_some_and(|e| b.producer_epoch != e)
            || !self.control_may_match(b)
        {
            return false;
        }
        if b.magic >= 2 {
            if let Some(from) = self.from_time {
                if b.max_timestamp < from {
                    return false;
                }
            }
            if let Some(to) = self.to_time {
                if b.timestamp_type == TimestampType::LogAppendTime && b.max_timestamp >= to {
                    return false;
                }
            }
        }
        true
    }

    /// Whether the batch's control flag is one `--control`, `--no-control` and `--committed`
    /// (which never gives control records) allow.
    #[inline]
    fn control_may_match(&self, b: &BatchInfo) -> bool {
        self.control.is_none_or(|c| b.is_control == c) && !(self.committed && b.is_control)
    }

    /// Whether records in `state` may match `--txn-state` and `--committed`.
    #[inline]
    pub fn state_may_match(&self, state: TxnState) -> bool {
        (self.txn_states.is_empty() || self.txn_states.contains(&state))
            && !(self.committed && matches!(state, TxnState::Aborted | TxnState::Open))
    }

    /// False when an uncompressed v2 batch's record bytes cannot hold a match: a `-F` value or
    /// an exact `--key` is a run of bytes inside them, so a batch whose bytes lack it is
    /// skipped without decoding a record (a memchr pass, as ripgrep searches).
    #[inline]
    pub fn bytes_may_match(&self, entry: &LogEntry<'_>) -> bool {
        let LogEntry::V2(batch) = entry else {
            return true;
        };
        if batch.header.codec() != kseg_format::compression::Codec::None {
            return true;
        }
        self.record_bytes_may_match(batch.payload())
    }

    /// False when a v2 batch's record bytes (decompressed when compressed) cannot hold a match:
    /// the byte pass of [`Filter::bytes_may_match`] over any batch's records.
    #[inline]
    pub fn record_bytes_may_match(&self, bytes: &[u8]) -> bool {
        if let Some(Pattern::Fixed(f)) = &self.value {
            if f.find(bytes).is_none() {
                return false;
            }
        }
        if let Some(k) = &self.key {
            if !k.is_empty() && memmem::find(bytes, k).is_none() {
                return false;
            }
        }
        true
    }

    /// Whether the search needs the open transactions of each partition (a pass over its batch
    /// headers first): to tell committed from open, or for the last stable offset.
    pub fn needs_open_transactions(&self) -> bool {
        self.committed
            || self
                .txn_states
                .iter()
                .any(|s| matches!(s, TxnState::Committed | TxnState::Open))
    }

    /// Whether the record matches every filter but the transactional state (the search's).
    #[inline]
    pub fn record_matches(&self, b: &BatchInfo, r: &LogRecord<'_>) -> bool {
        self.record_test(b, r) == JsonMatch::Yes
    }

    /// [`Filter::record_matches`], telling a value `--json-field` could not compare
    /// ([`JsonMatch::Uncomparable`]: every other filter holds) from one that does not match.
    #[inline]
    pub fn record_test(&self, b: &BatchInfo, r: &LogRecord<'_>) -> JsonMatch {
        use JsonMatch::No;
        if self.from_offset.is_some_and(|f| r.offset < f)
            || self.to_offset.is_some_and(|t| r.offset > t)
            || self.producer_id.is_some_and(|p| b.producer_id != p)
            || self.producer_epoch.is_some_and(|e| b.producer_epoch != e)
            || !self.control_may_match(b)
            || self.from_time.is_some_and(|f| r.timestamp < f)
            || self.to_time.is_some_and(|t| r.timestamp >= t)
        {
            return No;
        }
        if let Some(k) = &self.key {
            if r.key != Some(k.as_slice()) {
                return No;
            }
        }
        if let Some(re) = &self.key_regex {
            if !r.key.is_some_and(|k| re.is_match(k)) {
                return No;
            }
        }
        for h in &self.headers {
            let found = r.headers.iter().any(|x| {
                x.key == h.name.as_slice()
                    && h.value
                        .as_ref()
                        .is_none_or(|v| x.value == Some(v.as_slice()))
            });
            if !found {
                return No;
            }
        }
        if let Some(p) = &self.value {
            if !r.value.is_some_and(|v| p.is_match(v)) {
                return No;
            }
        }
        let mut answer = JsonMatch::Yes;
        if !self.json_fields.is_empty() {
            let Some(v) = r.value else {
                return No;
            };
            for f in &self.json_fields {
                match f.test(v) {
                    JsonMatch::No => return No,
                    JsonMatch::Uncomparable => answer = JsonMatch::Uncomparable,
                    JsonMatch::Yes => {}
                }
            }
        }
        answer
    }
}

/// Where [`Search`] sends what it finds.
pub trait MatchSink {
    /// The batch holding the next match, before its first match (`--print-batch`).
    fn batch(&mut self, position: u64, info: &BatchInfo) -> io::Result<()>;
    /// A matching record; `control` is the decoded key and value of a control record, `state`
    /// its transactional state when known ([`TxnState::Open`] only when open transactions are
    /// known).
    fn record(
        &mut self,
        position: u64,
        info: &BatchInfo,
        record: &LogRecord<'_>,
        control: Option<&DecodeResult<ControlRecord>>,
        state: Option<TxnState>,
    ) -> io::Result<()>;
    /// Something wrong in the data (reported as dump-log reports it).
    fn problem(&mut self, problem: &LogProblem<'_>) -> io::Result<()>;
    /// A batch whose checksum does not match; its records are searched as they are.
    fn bad_checksum(&mut self, position: u64, info: &BatchInfo) -> io::Result<()>;
}

/// Counts of one search.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SearchStats {
    pub matches: u64,
    /// Batches whose records were decoded (decompressed when compressed).
    pub batches_searched: u64,
    /// Batches skipped undecoded: from their header ([`Filter::batch_may_match`]), their
    /// transactional state, or their bytes ([`Filter::bytes_may_match`]).
    pub batches_pruned: u64,
    pub records_searched: u64,
    /// Problems and bad checksums reported.
    pub problems: u64,
    /// Bytes read from segment files and their indexes (not counted with `--mmap`).
    pub bytes_read: u64,
    /// Records every other filter matched whose value `--json-field` could not compare.
    pub uncompared: u64,
}

impl SearchStats {
    pub fn add(&mut self, o: &SearchStats) {
        self.matches += o.matches;
        self.batches_searched += o.batches_searched;
        self.batches_pruned += o.batches_pruned;
        self.records_searched += o.records_searched;
        self.problems += o.problems;
        self.bytes_read += o.bytes_read;
        self.uncompared += o.uncompared;
    }
}

/// The [`LogSink`] of a search: prunes batches, matches records, stops when `budget` matches
/// were found (`-m`). Reused across the segments of a partition.
pub struct Search<'a> {
    filter: &'a Filter,
    out: &'a mut dyn MatchSink,
    /// The partition's transactions, walked with it (shared by its segments); without them the
    /// records' transactional states are not known.
    pub txns: Option<&'a mut TxnView>,
    /// The state of the current batch's records.
    state: Option<TxnState>,
    pub stats: SearchStats,
    /// Matches still allowed; `None`: no limit.
    pub budget: Option<u64>,
    /// Decide from batch headers (`--no-prune` turns it off: every batch is decoded).
    pub prune: bool,
    /// Whether the current batch was handed to [`MatchSink::batch`] already.
    batch_sent: bool,
    pub print_batch: bool,
}

impl<'a> Search<'a> {
    pub fn new(filter: &'a Filter, out: &'a mut dyn MatchSink) -> Self {
        Search {
            filter,
            out,
            txns: None,
            state: None,
            stats: SearchStats::default(),
            budget: None,
            prune: true,
            batch_sent: false,
            print_batch: false,
        }
    }

    fn examine(
        &mut self,
        position: u64,
        info: &BatchInfo,
        r: &LogRecord<'_>,
        control: Option<&DecodeResult<ControlRecord>>,
    ) -> io::Result<Flow> {
        self.stats.records_searched += 1;
        let test = self.filter.record_test(info, r);
        if test == JsonMatch::No || !self.state_may_match() || self.beyond_last_stable(r.offset) {
            return Ok(Flow::Continue);
        }
        if test == JsonMatch::Uncomparable {
            self.stats.uncompared += 1;
            return Ok(Flow::Continue);
        }
        if self.print_batch && !self.batch_sent {
            self.batch_sent = true;
            self.out.batch(position, info)?;
        }
        self.out.record(position, info, r, control, self.state)?;
        self.stats.matches += 1;
        Ok(match &mut self.budget {
            Some(n) => {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    Flow::Stop
                } else {
                    Flow::Continue
                }
            }
            None => Flow::Continue,
        })
    }
}

impl Search<'_> {
    /// The transactional state of the batch last shown to [`LogSink::batch`] (when the
    /// partition's transactions are walked).
    pub fn batch_state(&self) -> Option<TxnState> {
        self.state
    }

    /// Whether the batch last shown to [`LogSink::batch`] may hold a match from its header and
    /// transactional state alone (what `kseg export` lists in its batches table).
    pub fn header_may_match(&self, info: &BatchInfo) -> bool {
        self.filter.batch_may_match(info)
            && self.state_may_match()
            && !self.beyond_last_stable(info.base_offset)
    }

    /// `--committed`: at or after the last stable offset, where a read_committed fetch ends.
    #[inline]
    fn beyond_last_stable(&self, offset: i64) -> bool {
        self.filter.committed
            && self
                .txns
                .as_ref()
                .and_then(|t| t.last_stable_offset())
                .is_some_and(|l| offset >= l)
    }

    /// Whether the current batch's state may match; an unknown state only a filter without
    /// `--txn-state` or `--committed`.
    #[inline]
    fn state_may_match(&self) -> bool {
        match self.state {
            Some(s) => self.filter.state_may_match(s),
            None => self.filter.txn_states.is_empty() && !self.filter.committed,
        }
    }
}

impl LogSink for Search<'_> {
    fn batch(&mut self, position: u64, entry: &LogEntry<'_>, info: &BatchInfo) -> io::Result<Flow> {
        if self.budget == Some(0) {
            return Ok(Flow::Stop);
        }
        // Every batch, pruned or not: the consumer's walk over the aborted transactions.
        self.state = self.txns.as_deref_mut().map(|t| t.batch_state(entry, info));
        if !info.crc_valid {
            self.stats.problems += 1;
            self.out.bad_checksum(position, info)?;
        }
        if self.prune
            && (!self.filter.batch_may_match(info)
                || !self.state_may_match()
                || self.beyond_last_stable(info.base_offset)
                || !self.filter.bytes_may_match(entry))
        {
            self.stats.batches_pruned += 1;
            return Ok(Flow::SkipRecords);
        }
        self.stats.batches_searched += 1;
        self.batch_sent = false;
        Ok(Flow::Continue)
    }

    /// The byte pass over a compressed batch, once decompressed: no record is decoded when its
    /// bytes lack the `-F` value or the exact key.
    #[inline]
    fn records_may_match(&mut self, _: u64, _: &BatchInfo, records: &[u8]) -> bool {
        if self.prune && !self.filter.record_bytes_may_match(records) {
            self.stats.batches_searched -= 1;
            self.stats.batches_pruned += 1;
            return false;
        }
        true
    }

    #[inline]
    fn record(
        &mut self,
        position: u64,
        info: &BatchInfo,
        record: &LogRecord<'_>,
    ) -> io::Result<Flow> {
        self.examine(position, info, record, None)
    }

    fn control_record(
        &mut self,
        position: u64,
        info: &BatchInfo,
        record: &LogRecord<'_>,
        control: &DecodeResult<ControlRecord>,
    ) -> io::Result<Flow> {
        self.examine(position, info, record, Some(control))
    }

    fn problem(&mut self, problem: &LogProblem<'_>) -> io::Result<Flow> {
        self.stats.problems += 1;
        self.out.problem(problem)?;
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kseg_format::compression::Codec;
    use kseg_format::control::ControlType;
    use kseg_format::encode::{encode_batch, NewBatch, NewRecord};
    use kseg_format::log::{RecordScratch, SliceSource};
    use kseg_scan::{scan_log, ScanOptions};

    #[derive(Default)]
    struct Collect {
        offsets: Vec<i64>,
        states: Vec<TxnState>,
        batches: Vec<u64>,
    }

    impl MatchSink for Collect {
        fn batch(&mut self, position: u64, _: &BatchInfo) -> io::Result<()> {
            self.batches.push(position);
            Ok(())
        }
        fn record(
            &mut self,
            _: u64,
            _: &BatchInfo,
            r: &LogRecord<'_>,
            _: Option<&DecodeResult<ControlRecord>>,
            state: Option<TxnState>,
        ) -> io::Result<()> {
            self.offsets.push(r.offset);
            self.states.extend(state);
            Ok(())
        }
        fn problem(&mut self, _: &LogProblem<'_>) -> io::Result<()> {
            Ok(())
        }
        fn bad_checksum(&mut self, _: u64, _: &BatchInfo) -> io::Result<()> {
            Ok(())
        }
    }

    /// Ten gzip batches of 3 records, batch i at timestamps 1000*i + 0..3, producer 100+i;
    /// value "v<offset>", key "k<offset % 4>", odd offsets with header "h=x".
    fn log() -> Vec<u8> {
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        for i in 0..10i64 {
            let keys: Vec<String> = (0..3).map(|j| format!("k{}", (3 * i + j) % 4)).collect();
            let values: Vec<String> = (0..3).map(|j| format!("v{}", 3 * i + j)).collect();
            let h: &[(&[u8], Option<&[u8]>)] = &[(b"h", Some(b"x"))];
            let recs: Vec<NewRecord> = (0..3)
                .map(|j| NewRecord {
                    timestamp: 1000 * i + j as i64,
                    key: Some(keys[j].as_bytes()),
                    value: Some(values[j].as_bytes()),
                    headers: if (3 * i + j as i64) % 2 == 1 { h } else { &[] },
                })
                .collect();
            let b = NewBatch {
                base_offset: 3 * i,
                codec: Codec::Gzip,
                producer_id: 100 + i,
                producer_epoch: 0,
                base_sequence: 0,
                ..NewBatch::default()
            };
            encode_batch(&mut out, &b, &recs, &mut scratch);
        }
        out
    }

    fn search(filter: &Filter, prune: bool) -> (Vec<i64>, SearchStats, u64) {
        let data = log();
        let mut sink = Collect::default();
        let mut s = Search::new(filter, &mut sink);
        s.prune = prune;
        let mut scratch = RecordScratch::default();
        let opts = ScanOptions {
            deep: true,
            ..ScanOptions::default()
        };
        scan_log(&mut SliceSource(&data), &opts, &mut scratch, &mut s).unwrap();
        let stats = s.stats;
        (sink.offsets, stats, scratch.decompressor.calls)
    }

    #[test]
    fn filters_combine_and_pruned_batches_are_not_decompressed() {
        let f = Filter {
            from_time: Some(7000),
            to_time: Some(8002),
            value: Some(Pattern::new("v2[0-9]", false).unwrap()),
            ..Filter::default()
        };
        let (hits, stats, decompressed) = search(&f, true);
        // Batch 7 holds 21-23 (times 7000-7002), batch 8 holds 24-26 (8000-8002, the last one
        // out of the half-open range); batch 9 cannot be pruned (CreateTime: no lower bound).
        assert_eq!(hits, [21, 22, 23, 24, 25]);
        assert_eq!(stats.batches_pruned, 7);
        assert_eq!(
            decompressed, 3,
            "only the batches not pruned are decompressed"
        );
        let (all, unpruned, decompressed) = search(&f, false);
        assert_eq!(all, hits);
        assert_eq!((unpruned.batches_pruned, decompressed), (0, 10));

        let f = Filter {
            producer_id: Some(104),
            headers: vec![HeaderFilter::parse("h=x")],
            ..Filter::default()
        };
        let (hits, stats, decompressed) = search(&f, true);
        assert_eq!(hits, [13]);
        assert_eq!((stats.batches_pruned, decompressed), (9, 1));

        let f = Filter {
            key: Some(b"k2".to_vec()),
            value: Some(Pattern::new("1", true).unwrap()),
            from_offset: Some(5),
            to_offset: Some(18),
            ..Filter::default()
        };
        let (hits, _, decompressed) = search(&f, true);
        assert_eq!(hits, [10, 14, 18]);
        assert_eq!(decompressed, 6, "batches 1-6 hold offsets 5-18");
        let f = Filter {
            key_regex: Some(Regex::new("^k[13]$").unwrap()),
            headers: vec![HeaderFilter::parse("h")],
            to_offset: Some(8),
            ..Filter::default()
        };
        assert_eq!(search(&f, true).0, [1, 3, 5, 7]);
    }

    #[test]
    fn log_append_time_batches_prune_on_both_ends() {
        let b = |ts_type, max_timestamp| BatchInfo {
            base_offset: 0,
            last_offset: 0,
            count: Some(1),
            magic: 2,
            codec: Codec::None,
            timestamp_type: ts_type,
            max_timestamp,
            first_timestamp: max_timestamp,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            last_sequence: -1,
            partition_leader_epoch: 0,
            is_transactional: false,
            is_control: false,
            delete_horizon_ms: None,
            crc: 0,
            crc_valid: true,
            size: 0,
        };
        let f = Filter {
            from_time: Some(10),
            to_time: Some(20),
            ..Filter::default()
        };
        assert!(!f.batch_may_match(&b(TimestampType::LogAppendTime, 20)));
        assert!(f.batch_may_match(&b(TimestampType::LogAppendTime, 19)));
        assert!(f.batch_may_match(&b(TimestampType::CreateTime, 20)));
        assert!(!f.batch_may_match(&b(TimestampType::CreateTime, 9)));
        let mut legacy = b(TimestampType::CreateTime, 9);
        legacy.magic = 1;
        assert!(f.batch_may_match(&legacy), "legacy headers are not trusted");
    }

    /// One generated record: key and value from a small alphabet (so filters hit), a timestamp
    /// that may go down within a batch (negative deltas), an optional header.
    type GenRecord = (Option<u8>, Option<u8>, i64, Option<(u8, Option<u8>)>);
    /// One generated batch: codec, LogAppendTime or not, producer id, records, kind (0-4 a
    /// plain data batch, 5-7 a transactional one, 8 a COMMIT marker, 9 an ABORT marker: the
    /// transactional kinds only with a producer id), producer epoch.
    type GenBatch = (u8, Option<i64>, i64, Vec<GenRecord>, u8, i16);

    /// A generated header, owned and borrowed.
    type OwnedHeader = (Vec<u8>, Option<Vec<u8>>);
    type HeaderRef<'a> = (&'a [u8], Option<&'a [u8]>);

    fn text(n: u8) -> Vec<u8> {
        format!("t{}", n % 5).into_bytes()
    }

    /// JSON documents some generated values are, for `--json-field` (an escaped key, a float,
    /// arrays, null, a string that is a number).
    const DOCS: [&str; 8] = [
        r#"{"a":1}"#,
        r#"{"a":"1"}"#,
        r#"{"a":{"b":"t1"}}"#,
        r#"{"\u0061":1.0}"#,
        r#"[{"a":2}]"#,
        r#"{"a":[1,"t1"]}"#,
        r#"{"b":1,"a":null}"#,
        r#"{"a":{"b":"t1"},"c":"x"#,
    ];
    /// The `--json-field` specs the property test draws from.
    const FIELDS: [&str; 9] = [
        "a=1",
        "a=\"1\"",
        "a.b=t1",
        "0.a=2",
        "a.1=t1",
        "a=null",
        "b=1",
        "a.0=1",
        "a={\"b\":\"t1\"}",
    ];

    /// A generated value: text for 0-4, a JSON document above.
    fn value_text(n: u8) -> Vec<u8> {
        match n.checked_sub(5) {
            None => text(n),
            Some(i) => DOCS[i as usize % DOCS.len()].as_bytes().to_vec(),
        }
    }

    /// The field of `doc` at `path`, walked naively.
    fn field_at<'v>(doc: &'v serde_json::Value, path: &str) -> Option<&'v serde_json::Value> {
        path.split('.').try_fold(doc, |at, p| match at {
            serde_json::Value::Object(m) => m.get(p),
            serde_json::Value::Array(a) => a.get(p.parse::<usize>().ok()?),
            _ => None,
        })
    }

    fn json_field_holds(value: &[u8], spec: &str) -> bool {
        let (path, want) = spec.split_once('=').unwrap();
        let Ok(doc) = serde_json::from_slice::<serde_json::Value>(value) else {
            return false;
        };
        let Some(got) = field_at(&doc, path) else {
            return false;
        };
        if got.as_str() == Some(want) {
            return true;
        }
        match serde_json::from_str::<serde_json::Value>(want) {
            Ok(w) if w.is_number() && got.is_number() => w.as_f64() == got.as_f64(),
            Ok(w) => w == *got,
            Err(_) => false,
        }
    }

    /// What a generated batch is.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Kind {
        Data,
        Transactional,
        Marker(ControlType),
    }

    fn kind_of(b: &GenBatch) -> Kind {
        match (b.4, b.2 >= 0) {
            (8, true) => Kind::Marker(ControlType::Commit),
            (9, true) => Kind::Marker(ControlType::Abort),
            (5..=7, true) => Kind::Transactional,
            _ => Kind::Data,
        }
    }

    /// The log, and the `.txnindex` entries the broker writes for it: one per ABORT marker,
    /// from the first offset of its producer's transaction (the marker's own offset when the
    /// transaction holds no data) to the marker.
    fn build(batches: &[GenBatch]) -> (Vec<u8>, Vec<kseg_format::txn_index::AbortedTxn>) {
        let mut out = Vec::new();
        let mut index = Vec::new();
        let mut scratch = Vec::new();
        let mut next = 0i64;
        let mut txn_first: std::collections::HashMap<i64, i64> = Default::default();
        for batch in batches {
            let (codec, lat, pid, recs, _, epoch) = batch;
            let kind = kind_of(batch);
            let keys: Vec<Option<Vec<u8>>> = recs.iter().map(|r| r.0.map(text)).collect();
            let values: Vec<Option<Vec<u8>>> = recs.iter().map(|r| r.1.map(value_text)).collect();
            let heads: Vec<Vec<OwnedHeader>> = recs
                .iter()
                .map(|r| r.3.iter().map(|(k, v)| (text(*k), v.map(text))).collect())
                .collect();
            let head_refs: Vec<Vec<HeaderRef>> = heads
                .iter()
                .map(|h| {
                    h.iter()
                        .map(|(k, v)| (k.as_slice(), v.as_deref()))
                        .collect()
                })
                .collect();
            let mut new: Vec<NewRecord> = recs
                .iter()
                .enumerate()
                .map(|(i, r)| NewRecord {
                    timestamp: r.2,
                    key: keys[i].as_deref(),
                    value: values[i].as_deref(),
                    headers: &head_refs[i],
                })
                .collect();
            // EndTxnMarker: key (version 0, type), value (version 0, coordinator epoch 3).
            let marker_key;
            if let Kind::Marker(t) = kind {
                marker_key = [0, 0, 0, u8::from(t == ControlType::Commit)];
                new.truncate(1);
                new[0].key = Some(&marker_key);
                new[0].value = Some(&[0, 0, 0, 0, 0, 3]);
                new[0].headers = &[];
                let first = txn_first.remove(pid).unwrap_or(next);
                if t == ControlType::Abort {
                    index.push(kseg_format::txn_index::AbortedTxn {
                        version: 0,
                        producer_id: *pid,
                        first_offset: first,
                        last_offset: next,
                        last_stable_offset: next + 1,
                    });
                }
            } else if kind == Kind::Transactional {
                txn_first.entry(*pid).or_insert(next);
            }
            let b = NewBatch {
                base_offset: next,
                codec: if matches!(kind, Kind::Marker(_)) {
                    Codec::None
                } else {
                    [
                        Codec::None,
                        Codec::Gzip,
                        Codec::Snappy,
                        Codec::Lz4,
                        Codec::Zstd,
                    ][*codec as usize % 5]
                },
                log_append_time: *lat,
                transactional: kind != Kind::Data,
                control: matches!(kind, Kind::Marker(_)),
                producer_id: *pid,
                producer_epoch: if *pid >= 0 { *epoch } else { -1 },
                ..NewBatch::default()
            };
            encode_batch(&mut out, &b, &new, &mut scratch);
            next += new.len() as i64 + 1; // a gap, as compaction leaves
        }
        (out, index)
    }

    /// Every record decoded, every filter applied naively: what a match is. The transactional
    /// state of a record comes from the markers alone: the next marker of its producer.
    fn reference(data: &[u8], f: &Filter) -> Vec<i64> {
        let mut batches = Vec::new();
        let mut walker = kseg_format::log::LogWalker::new(u64::MAX);
        let mut src = SliceSource(data);
        let mut scratch = RecordScratch::default();
        while let Some(ev) = walker.next(&mut src).unwrap() {
            let kseg_format::log::WalkEvent::Entry { bytes, .. } = ev else {
                panic!("generated data is clean")
            };
            let entry = LogEntry::parse(bytes).unwrap();
            let info = entry.info();
            let mut records = Vec::new();
            kseg_format::log::for_each_record(&entry, &mut scratch, |r| {
                let headers: Vec<OwnedHeader> = r
                    .headers
                    .iter()
                    .map(|h| (h.key.to_vec(), h.value.map(<[u8]>::to_vec)))
                    .collect();
                records.push((
                    r.offset,
                    r.timestamp,
                    r.key.map(<[u8]>::to_vec),
                    r.value.map(<[u8]>::to_vec),
                    headers,
                ));
            })
            .unwrap();
            batches.push((info, records));
        }
        let marker = |i: usize| -> Option<ControlType> {
            let (b, recs) = &batches[i];
            b.is_control
                .then(|| ControlType::from_id(recs[0].2.as_ref().unwrap()[3] as i16))
        };
        let state = |i: usize| -> TxnState {
            let b = &batches[i].0;
            if b.producer_id < 0 || !b.is_transactional {
                return TxnState::NonTransactional;
            }
            if let Some(t) = marker(i) {
                return if t == ControlType::Abort {
                    TxnState::Aborted
                } else {
                    TxnState::Committed
                };
            }
            let ends = (i + 1..batches.len())
                .find(|&j| batches[j].0.producer_id == b.producer_id && batches[j].0.is_control);
            match ends.and_then(marker) {
                Some(ControlType::Abort) => TxnState::Aborted,
                Some(_) => TxnState::Committed,
                None => TxnState::Open,
            }
        };
        let last_stable = (0..batches.len())
            .filter(|&i| state(i) == TxnState::Open)
            .map(|i| batches[i].0.base_offset)
            .min();
        let mut out = Vec::new();
        for (i, (info, records)) in batches.iter().enumerate() {
            let s = state(i);
            for (offset, ts, key, value, headers) in records {
                let ok = f.from_offset.is_none_or(|x| *offset >= x)
                    && f.to_offset.is_none_or(|x| *offset <= x)
                    && f.producer_id.is_none_or(|p| info.producer_id == p)
                    && f.producer_epoch.is_none_or(|e| info.producer_epoch == e)
                    && f.control.is_none_or(|c| info.is_control == c)
                    && (f.txn_states.is_empty() || f.txn_states.contains(&s))
                    && (!f.committed
                        || (!info.is_control
                            && matches!(s, TxnState::NonTransactional | TxnState::Committed)
                            && last_stable.is_none_or(|l| *offset < l)))
                    && f.from_time.is_none_or(|t| *ts >= t)
                    && f.to_time.is_none_or(|t| *ts < t)
                    && f.key.as_ref().is_none_or(|k| key.as_ref() == Some(k))
                    && f.headers.iter().all(|h| {
                        headers.iter().any(|x| {
                            x.0 == h.name
                                && h.value.as_ref().is_none_or(|v| x.1.as_ref() == Some(v))
                        })
                    })
                    && f.json_fields.iter().all(|j| {
                        let spec = format!("{}={}", j.path.join("."), j.text);
                        value.as_ref().is_some_and(|v| json_field_holds(v, &spec))
                    })
                    && f.value.as_ref().is_none_or(|p| match (p, value) {
                        (_, None) => false,
                        (Pattern::Fixed(fx), Some(v)) => {
                            v.windows(fx.needle().len()).any(|w| w == fx.needle())
                        }
                        (Pattern::Regex(re), Some(v)) => re.is_match(v),
                    });
                if ok {
                    out.push(*offset);
                }
            }
        }
        out
    }

    /// The search, as `kseg grep` runs it: the index's aborts, the open transactions when the
    /// filter needs them (here from the reference's own walk of the markers: `OpenSink`).
    fn run(
        data: &[u8],
        index: &[kseg_format::txn_index::AbortedTxn],
        f: &Filter,
        prune: bool,
    ) -> (Vec<i64>, Vec<TxnState>) {
        let open = f.needs_open_transactions().then(|| {
            let mut sink = crate::transactions::OpenSink::default();
            scan_log(
                &mut SliceSource(data),
                &ScanOptions::default(),
                &mut RecordScratch::default(),
                &mut sink,
            )
            .unwrap();
            sink.starts()
        });
        let mut txns = TxnView::new(index.to_vec(), open, i64::MIN);
        let mut sink = Collect::default();
        let mut s = Search::new(f, &mut sink);
        s.txns = Some(&mut txns);
        s.prune = prune;
        let opts = ScanOptions {
            deep: true,
            ..ScanOptions::default()
        };
        scan_log(
            &mut SliceSource(data),
            &opts,
            &mut RecordScratch::default(),
            &mut s,
        )
        .unwrap();
        assert!(txns.unindexed_aborts.is_empty());
        assert!(txns.unended_index_entries().is_empty());
        (sink.offsets, sink.states)
    }

    fn gen_state(n: u8) -> TxnState {
        [
            TxnState::NonTransactional,
            TxnState::Committed,
            TxnState::Aborted,
            TxnState::Open,
        ][n as usize % 4]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// The byte pass (`-F`, `--key`) over uncompressed batches, and over compressed ones
        /// once decompressed, never loses a match.
        #[test]
        fn skipping_batches_by_their_bytes_loses_no_match(
            batches in proptest::collection::vec((
                proptest::collection::vec((
                    proptest::option::weighted(0.9, 0u8..5),
                    proptest::option::weighted(0.9, 0u8..8),
                    0i64..100,
                    proptest::option::weighted(0.3, (0u8..3, proptest::option::of(0u8..3))),
                ), 1..6),
                0u8..10,
                0u8..5,
            ), 0..8),
            key in proptest::option::of(0u8..5),
            value in proptest::option::of(0u8..5),
        ) {
            let batches: Vec<GenBatch> = batches
                .into_iter()
                .map(|(recs, kind, codec)| (codec, None, 1, recs, kind, 0))
                .collect();
            let (data, index) = build(&batches);
            let f = Filter {
                key: key.map(text),
                value: value.map(|v| Pattern::new(&String::from_utf8(text(v)).unwrap(), true).unwrap()),
                ..Filter::default()
            };
            let want = reference(&data, &f);
            proptest::prop_assert_eq!(&run(&data, &index, &f, true).0, &want);
        }
    }

    /// A compressed batch whose decompressed records lack the `-F` value is pruned without a
    /// record decoded (decompressed once, not twice); one holding it is searched.
    #[test]
    fn compressed_batches_are_ruled_out_by_their_decompressed_bytes() {
        let fixed = |v: &str| Filter {
            value: Some(Pattern::new(v, true).unwrap()),
            ..Filter::default()
        };
        let (offsets, stats, decompressions) = search(&fixed("absent"), true);
        assert!(offsets.is_empty());
        assert_eq!(
            (
                stats.batches_pruned,
                stats.batches_searched,
                stats.records_searched
            ),
            (10, 0, 0)
        );
        assert_eq!(decompressions, 10);
        let (offsets, stats, decompressions) = search(&fixed("v17"), true);
        assert_eq!(offsets, vec![17]);
        assert_eq!((stats.batches_pruned, stats.batches_searched), (9, 1));
        assert_eq!(decompressions, 10);
        // Without pruning every batch is searched, and finds the same.
        let (offsets, stats, _) = search(&fixed("v17"), false);
        assert_eq!((offsets, stats.batches_searched), (vec![17], 10));
    }

    #[test]
    fn globs() {
        let g = |glob: &str, name: &str| Glob::new(glob).unwrap().is_match(name);
        assert!(g("orders-*", "orders-eu") && !g("orders-*", "xorders-eu"));
        assert!(g("ord?rs", "orders") && !g("ord?rs", "ordrs"));
        assert!(g("t[0-2]", "t1") && !g("t[!0-2]", "t1") && g("t[!0-2]", "t3"));
        assert!(g("a.b", "a.b") && !g("a.b", "axb"), "a dot is itself");
        assert!(g("[x", "[x"), "an unclosed class is a literal '['");
        assert!(g("__*", "__consumer_offsets") && g("*", ""));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Pruning never loses a match and the search finds exactly the reference's matches.
        #[test]
        fn the_search_is_the_brute_force_reference(
            batches in proptest::collection::vec((
                0u8..5,
                proptest::option::weighted(0.3, 0i64..100),
                -1i64..3,
                proptest::collection::vec((
                    proptest::option::weighted(0.9, 0u8..5),
                    proptest::option::weighted(0.9, 0u8..21),
                    0i64..100,
                    proptest::option::weighted(0.4, (0u8..3, proptest::option::of(0u8..3))),
                ), 1..6),
                0u8..10,
                0i16..2,
            ), 0..10),
            from_time in proptest::option::weighted(0.25, 0i64..100),
            to_time in proptest::option::weighted(0.25, 0i64..100),
            from_offset in proptest::option::weighted(0.25, 0i64..40),
            to_offset in proptest::option::weighted(0.25, 0i64..40),
            producer_id in proptest::option::weighted(0.25, -1i64..3),
            producer_epoch in proptest::option::weighted(0.2, -1i16..2),
            key in proptest::option::weighted(0.25, 0u8..5),
            value in proptest::option::weighted(0.25, (0u8..5, proptest::bool::ANY)),
            header in proptest::option::weighted(0.25, (0u8..3, proptest::option::of(0u8..3))),
            control in proptest::option::weighted(0.2, proptest::bool::ANY),
            states in proptest::option::weighted(0.3, proptest::collection::vec(0u8..4, 1..3)),
            committed in proptest::bool::weighted(0.3),
            json_field in proptest::option::weighted(0.5, 0usize..FIELDS.len()),
        ) {
            let (data, index) = build(&batches);
            let f = Filter {
                from_time, to_time, from_offset, to_offset, producer_id, producer_epoch,
                key: key.map(text),
                value: value.map(|(v, fixed)| {
                    let t = String::from_utf8(text(v)).unwrap();
                    Pattern::new(&if fixed { t } else { format!("^{t}$") }, fixed).unwrap()
                }),
                headers: header
                    .map(|(k, v)| HeaderFilter { name: text(k), value: v.map(text) })
                    .into_iter()
                    .collect(),
                // --committed conflicts with --control.
                control: control.filter(|_| !committed),
                txn_states: states.unwrap_or_default().into_iter().map(gen_state).collect(),
                committed,
                json_fields: json_field
                    .map(|i| JsonField::parse(FIELDS[i]).unwrap())
                    .into_iter()
                    .collect(),
                ..Filter::default()
            };
            let want = reference(&data, &f);
            let (pruned, _) = run(&data, &index, &f, true);
            proptest::prop_assert_eq!(&pruned, &want);
            proptest::prop_assert_eq!(&run(&data, &index, &f, false).0, &want);
            // Aborted records are told apart without asking for states.
            let all = Filter::default();
            let (offsets, states_all) = run(&data, &index, &all, true);
            let aborted = Filter { txn_states: vec![TxnState::Aborted], ..Filter::default() };
            let want_aborted = reference(&data, &aborted);
            let marked: Vec<i64> = offsets
                .iter()
                .zip(&states_all)
                .filter(|(_, s)| **s == TxnState::Aborted)
                .map(|(o, _)| *o)
                .collect();
            proptest::prop_assert_eq!(marked, want_aborted);
        }
    }
}

/// Where the search of one segment starts when `--from-time` or `--from-offset` rules out its
/// beginning, found through its indexes as Kafka positions a fetch
/// (`OffsetIndex.lookup`) and `offsetsForTimes` (`TimeIndex.lookup`) do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Seek {
    /// Byte position of the first batch to read (0: the whole segment).
    pub position: u64,
    /// Bytes of the `.index` and `.timeindex` read to find it, and of the batch headers read
    /// to check what the `.timeindex` said.
    pub index_bytes: u64,
    /// The `.timeindex` said the records before its entry are all earlier than `--from-time`,
    /// and a batch there says otherwise: the search starts at that batch.
    pub stale: Option<StaleTimeEntry>,
}

/// A `.timeindex` entry below the records it covers (issue 45): Kafka writes each entry as the
/// largest timestamp appended so far with its offset (`LogSegment.append`), so no batch up to
/// the entry's offset can carry a later `maxTimestamp`; this one does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaleTimeEntry {
    /// The entry: no record up to `offset` later than `timestamp`, it says.
    pub timestamp: i64,
    pub offset: i64,
    /// The batch that contradicts it: its byte position, offsets and `maxTimestamp`.
    pub batch_position: u64,
    pub base_offset: i64,
    pub last_offset: i64,
    pub max_timestamp: i64,
}

/// The start of the search of the segment `log` (named `<base offset>.log`, its indexes beside
/// it). A `.timeindex` entry `(T, O)` says that no record of the segment up to offset `O` has
/// a timestamp above `T` (T is the largest timestamp appended so far when the entry was
/// written); the last entry with `T < from_time` lets the search start at the batch holding
/// offset `O + 1`, found through the `.index` floor. With `from_offset` the floor of that
/// offset. The position is used only when the batch there frames and ends at the entry's
/// offset, as the index says (else the whole segment is read); missing indexes give 0.
///
/// A time index can lie (a stale entry, a copy from another generation of the segment), and a
/// search must not lose a record by believing it: what a time seek skips is checked batch by
/// batch from the headers alone (each v2 header's `maxTimestamp`, 43 bytes read per batch, no
/// record decoded), and the search starts at the first batch that may hold a match — with a
/// [`StaleTimeEntry`] when the index said otherwise — or where the headers stop being v2
/// batches framed one after the other.
pub fn seek_in_segment(
    log: &std::path::Path,
    from_time: Option<i64>,
    from_offset: Option<i64>,
) -> Seek {
    use kseg_format::index::{Offsets, Times};
    use kseg_storage::layout::{base_offset_of, offset_file_name};
    use kseg_storage::paged_index::PagedIndex;
    let mut seek = Seek::default();
    let name = log.file_name().unwrap_or_default().to_string_lossy();
    let Some(base) = base_offset_of(&name) else {
        return seek;
    };
    let mut target = from_offset.filter(|&o| o > base);
    let mut time_entry = None;
    if let Some(t) = from_time.filter(|&t| t > i64::MIN) {
        if let Ok(mut times) = PagedIndex::<Times>::open(
            &log.with_file_name(offset_file_name(base, "timeindex")),
            base,
        ) {
            let found = times.lookup(t - 1);
            seek.index_bytes += times.bytes_read();
            if let Ok((entry, Some(_))) = found {
                if entry.timestamp < t {
                    let after = entry.offset.saturating_add(1);
                    if target.is_none_or(|o| o < after) {
                        target = Some(after);
                        time_entry = Some((entry, t));
                    }
                }
            }
        }
    }
    let Some(target) = target else {
        return seek;
    };
    let Ok(mut offsets) =
        PagedIndex::<Offsets>::open(&log.with_file_name(offset_file_name(base, "index")), base)
    else {
        return seek;
    };
    let found = offsets.lookup(target);
    seek.index_bytes += offsets.bytes_read();
    let Ok((entry, Some(_))) = found else {
        return seek;
    };
    // Verified by framing: the batch at the position ends at the entry's offset.
    let position = entry.position as u64;
    let mut head = [0u8; kseg_format::batch::LAST_OFFSET_PREFIX];
    let Ok(file) = kseg_storage::source::open_read_only(log) else {
        return seek;
    };
    use std::os::unix::fs::FileExt;
    let framed = file.read_exact_at(&mut head, position).is_ok()
        && kseg_format::batch::entry_last_offset(&head) == Some(entry.offset);
    if !framed {
        return seek;
    }
    seek.position = position;
    if let Some((entry, from_time)) = time_entry {
        let (start, stale, read) = check_time_skip(&file, position, from_time, from_offset);
        seek.index_bytes += read;
        seek.position = start;
        seek.stale = stale.map(|(batch_position, (base, last, max))| StaleTimeEntry {
            timestamp: entry.timestamp,
            offset: entry.offset,
            batch_position,
            base_offset: base,
            last_offset: last,
            max_timestamp: max,
        });
    }
    seek
}

/// The first bytes of a v2 batch header that say what a time seek must check, up to the end of
/// `maxTimestamp` (`DefaultRecordBatch`: baseOffset 0, length 8, magic 16, lastOffsetDelta 23,
/// maxTimestamp 35).
const TIME_CHECK_PREFIX: usize = 43;

/// A v2 batch's facts for a time check, from [`TIME_CHECK_PREFIX`] bytes: base offset, frame
/// length, last offset, `maxTimestamp`; `None` for another magic or an impossible length.
fn time_check_facts(h: &[u8; TIME_CHECK_PREFIX]) -> Option<(i64, u64, i64, i64)> {
    use kseg_format::batch::{LOG_OVERHEAD, V2_HEADER_SIZE};
    let i64_at = |at: usize| i64::from_be_bytes(h[at..at + 8].try_into().expect("8 bytes"));
    let i32_at = |at: usize| i32::from_be_bytes(h[at..at + 4].try_into().expect("4 bytes"));
    let length = u64::try_from(i32_at(8)).ok()?;
    if h[16] != 2 || length < (V2_HEADER_SIZE - LOG_OVERHEAD) as u64 {
        return None;
    }
    let base = i64_at(0);
    let last = base.checked_add(i64::from(i32_at(23)))?;
    Some((base, LOG_OVERHEAD as u64 + length, last, i64_at(35)))
}

/// Walks the batch headers of `[0, position)` of a segment: the position of the first batch
/// that may hold a record at or after `from_time` (and at or after `from_offset`), with its
/// facts when the time index should have ruled it out, else `position`; and the bytes read (43
/// per batch). A header that is not a v2 batch's, or frames that do not lead to `position`,
/// stop the walk there: the search starts at that byte and reads on as the scan does.
#[allow(clippy::type_complexity)]
fn check_time_skip(
    file: &std::fs::File,
    position: u64,
    from_time: i64,
    from_offset: Option<i64>,
) -> (u64, Option<(u64, (i64, i64, i64))>, u64) {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; TIME_CHECK_PREFIX];
    let (mut at, mut last) = (0u64, 0u64);
    let mut read = 0u64;
    while at < position {
        last = at;
        if file.read_exact_at(&mut head, at).is_err() {
            return (at, None, read);
        }
        read += TIME_CHECK_PREFIX as u64;
        let Some((base, size, last_offset, max_timestamp)) = time_check_facts(&head) else {
            return (at, None, read);
        };
        if max_timestamp >= from_time && from_offset.is_none_or(|f| last_offset >= f) {
            return (at, Some((at, (base, last_offset, max_timestamp))), read);
        }
        at += size;
    }
    // Frames that step over `position` do not lead to it: from the batch that crosses it.
    (if at == position { at } else { last }, None, read)
}

/// A partition as grep names it: topic and number, or (a file outside a partition dir) the
/// file's path in `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub topic: Option<String>,
    pub partition: Option<i32>,
    pub name: String,
}

/// What a search says besides its matches: typed here, worded by `print::grep` (stderr in text,
/// once per run, each kind gathering its partitions; `note` objects in JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrepNote {
    /// With a filter given, the first argument was read as the value pattern: no file or dir
    /// has that name.
    PatternNotAPath { pattern: String },
    /// `--partitioner`: where the key is searched in each topic (`held`: the partition it maps
    /// to is among the inputs).
    KeyPruned {
        partitioner: Partitioner,
        topics: Vec<(KeyPlacement, bool)>,
    },
    /// `--partitions` differs from the counts `__cluster_metadata` records.
    PartitionsDiffer {
        given: u32,
        recorded: Vec<(String, u32)>,
    },
    /// A search pruned by `--partitioner` found nothing.
    PrunedNothingFound { partitioner: Partitioner },
    /// Without `--partitioner`: the partitions the key was found in, with their partition count
    /// and the partitioners that place the key there.
    KeyFound {
        places: Vec<(String, i32, u32, Vec<Partitioner>)>,
    },
    /// ABORT markers no `.txnindex` lists: (partition, marker offset, producer).
    UnindexedAborts(Vec<(Place, i64, i64)>),
    /// `.txnindex` entries no ABORT marker of their producer ended: (partition, producer,
    /// last offset).
    UnendedIndexEntries(Vec<(Place, i64, i64)>),
    /// `--committed`: the open transactions holding each partition's last stable offset:
    /// (partition, producer, first offset).
    LastStable(Vec<(Place, i64, i64)>),
    /// `.timeindex` entries below the records they cover, each with its segment.
    StaleTimeIndex(Vec<(std::path::PathBuf, StaleTimeEntry)>),
    /// Records whose value `--json-field` could not compare (a number with an exponent beyond
    /// 64 bits): not counted as matches.
    Uncompared { records: u64 },
}

/// Where a partition count came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountedBy {
    /// `--partitions`.
    Flag,
    /// The topic's partition records in `__cluster_metadata`.
    Metadata,
}

/// Where `--key` is searched in one topic when `--partitioner` names the partitioner that placed
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPlacement {
    pub topic: String,
    /// The topic's partition count, and where it came from; `None`: not known, and every
    /// partition of the topic is searched.
    pub count: Option<(u32, CountedBy)>,
    /// The partition the partitioner gives the key; `None` (with a count): it places this key
    /// at random (librdkafka's `consistent_random` with an empty key), every partition is
    /// searched.
    pub partition: Option<i32>,
}

/// Whether a topic's records are placed by the producer's partitioner: Kafka's internal
/// topics (`__consumer_offsets`, `__transaction_state`, `__cluster_metadata`,
/// `__share_group_state`, ...) are placed by their coordinators or are a single partition.
pub fn placed_by_partitioner(topic: &str) -> bool {
    !topic.starts_with("__")
}

/// The partition count of `topic`: `given` (the `--partitions` flag) for every topic, else the
/// count `recorded` in `__cluster_metadata`.
pub fn partition_count(
    topic: &str,
    given: Option<u32>,
    recorded: &std::collections::HashMap<String, u32>,
) -> Option<(u32, CountedBy)> {
    match (given, recorded.get(topic)) {
        (Some(n), _) => Some((n, CountedBy::Flag)),
        (None, Some(&m)) => Some((m, CountedBy::Metadata)),
        (None, None) => None,
    }
}

/// The placement of `key` by `partitioner` in each of `topics` its producer places.
pub fn key_placements<'t>(
    key: &[u8],
    partitioner: Partitioner,
    topics: impl IntoIterator<Item = &'t str>,
    given: Option<u32>,
    recorded: &std::collections::HashMap<String, u32>,
) -> Vec<KeyPlacement> {
    topics
        .into_iter()
        .filter(|t| placed_by_partitioner(t))
        .map(|topic| {
            let count = partition_count(topic, given, recorded);
            KeyPlacement {
                topic: topic.to_string(),
                count,
                partition: count
                    .and_then(|(n, _)| partitioner.partition(key, n))
                    .map(|p| p as i32),
            }
        })
        .collect()
}

/// Which of the built-in partitioners give `key` partition `partition` of `partitions`: what
/// may have placed a record found there.
pub fn placed_there(key: &[u8], partition: i32, partitions: u32) -> Vec<Partitioner> {
    Partitioner::ALL
        .into_iter()
        .filter(|p| p.partition(key, partitions) == Some(partition as u32))
        .collect()
}

use crate::partitioner::Partitioner;

#[cfg(test)]
mod placement_tests {
    use super::*;

    #[test]
    fn a_key_is_placed_as_the_partitioner_named_places_it() {
        let recorded = [
            ("orders".to_string(), 3u32),
            ("__consumer_offsets".to_string(), 50),
        ]
        .into_iter()
        .collect();
        let p = key_placements(
            b"book-1",
            Partitioner::Murmur2,
            ["orders", "__consumer_offsets", "unknown"],
            None,
            &recorded,
        );
        assert_eq!(
            p,
            vec![
                KeyPlacement {
                    topic: "orders".into(),
                    count: Some((3, CountedBy::Metadata)),
                    partition: Some(crate::partitioner::partition_for_key(b"book-1", 3) as i32),
                },
                KeyPlacement {
                    topic: "unknown".into(),
                    count: None,
                    partition: None,
                }
            ]
        );
        // --partitions applies to every topic the partitioner places, known or not.
        let p = key_placements(
            b"book-1",
            Partitioner::Crc32,
            ["orders", "unknown"],
            Some(7),
            &recorded,
        );
        assert!(p.iter().all(|p| p.count == Some((7, CountedBy::Flag))
            && p.partition == Some((crc32fast::hash(b"book-1") % 7) as i32)));
        // librdkafka places an empty key at random: no partition to prune to.
        let p = key_placements(b"", Partitioner::Crc32, ["orders"], None, &recorded);
        assert_eq!(p[0].partition, None);
        assert_eq!(
            placed_there(b"book-1", p_of(b"book-1", 3), 3)[0],
            Partitioner::Murmur2
        );
    }

    fn p_of(key: &[u8], n: u32) -> i32 {
        crate::partitioner::partition_for_key(key, n) as i32
    }
}
