//! Driving a log scan: frames entries with the [`LogWalker`], decodes them and hands batches,
//! records and problems to a [`LogSink`]. Like ripgrep's searcher, it never formats anything;
//! printers, summaries and checks are sinks.

use std::io;

use kseg_format::batch::TimestampType;
use kseg_format::compression::Codec;
use kseg_format::control::{decode_control, ControlRecord};
use kseg_format::log::{
    for_each_record, legacy_wrapper_extent, v2_record_bytes, BatchInfo, ByteSource, FrameProblem,
    LogEntry, LogRecord, LogWalker, RecordScratch, TailKind, WalkEvent,
};
use kseg_format::reader::{DecodeError, DecodeResult};

/// Whether the scan should go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
    /// Answered by [`LogSink::batch`] in a deep scan: go on with the next batch without
    /// decoding this one's records (a sink that wants the records of some batches only).
    /// Anywhere else it means [`Flow::Continue`].
    SkipRecords,
}

/// Something wrong in a log, with absolute byte positions.
#[derive(Debug)]
pub enum LogProblem<'a> {
    /// Bytes framing no valid batch; the walk resumed at `position + length`.
    Corrupt {
        position: u64,
        length: u64,
        reason: &'a FrameProblem,
    },
    /// The walk ended `length` bytes before the end of the file.
    Tail {
        position: u64,
        length: u64,
        kind: &'a TailKind,
    },
    /// A framed entry whose header or records cannot be decoded.
    BadEntry {
        batch_position: u64,
        error: &'a DecodeError,
    },
}

impl LogProblem<'_> {
    pub fn position(&self) -> u64 {
        match self {
            LogProblem::Corrupt { position, .. } | LogProblem::Tail { position, .. } => *position,
            LogProblem::BadEntry { error, .. } => error.position,
        }
    }
    pub fn length(&self) -> u64 {
        match self {
            LogProblem::Corrupt { length, .. } | LogProblem::Tail { length, .. } => *length,
            LogProblem::BadEntry { .. } => 0,
        }
    }
    pub fn message(&self) -> String {
        self.to_fault().message()
    }

    /// The problem owned, to keep after the scan.
    pub fn to_fault(&self) -> LogFault {
        match self {
            LogProblem::Corrupt {
                position,
                length,
                reason,
            } => LogFault::Corrupt {
                position: *position,
                length: *length,
                reason: **reason,
            },
            LogProblem::Tail {
                position,
                length,
                kind,
            } => LogFault::Tail {
                position: *position,
                length: *length,
                kind: (*kind).clone(),
            },
            LogProblem::BadEntry {
                batch_position,
                error,
            } => LogFault::BadEntry {
                batch_position: *batch_position,
                error: (*error).clone(),
            },
        }
    }
}

/// A [`LogProblem`] owned: what a sink keeps of one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogFault {
    Corrupt {
        position: u64,
        length: u64,
        reason: FrameProblem,
    },
    Tail {
        position: u64,
        length: u64,
        kind: TailKind,
    },
    BadEntry {
        batch_position: u64,
        error: DecodeError,
    },
}

impl LogFault {
    /// The problem borrowed again, to hand to a sink (a problem kept, then replayed).
    pub fn as_problem(&self) -> LogProblem<'_> {
        match self {
            LogFault::Corrupt {
                position,
                length,
                reason,
            } => LogProblem::Corrupt {
                position: *position,
                length: *length,
                reason,
            },
            LogFault::Tail {
                position,
                length,
                kind,
            } => LogProblem::Tail {
                position: *position,
                length: *length,
                kind,
            },
            LogFault::BadEntry {
                batch_position,
                error,
            } => LogProblem::BadEntry {
                batch_position: *batch_position,
                error,
            },
        }
    }

    pub fn position(&self) -> u64 {
        match self {
            LogFault::Corrupt { position, .. } | LogFault::Tail { position, .. } => *position,
            LogFault::BadEntry { error, .. } => error.position,
        }
    }

    pub fn message(&self) -> String {
        match self {
            LogFault::Corrupt {
                position,
                length,
                reason,
            } => format!(
                "{length} invalid bytes ({reason}); the next valid batch starts at byte {}",
                position + length
            ),
            LogFault::Tail { length, kind, .. } => kind.describe(*length),
            LogFault::BadEntry {
                batch_position,
                error,
            } => {
                format!("batch at byte {batch_position}: {}", error.message)
            }
        }
    }
}

pub trait LogSink {
    fn batch(&mut self, position: u64, entry: &LogEntry<'_>, info: &BatchInfo) -> io::Result<Flow>;
    fn record(
        &mut self,
        _batch_position: u64,
        _info: &BatchInfo,
        _record: &LogRecord<'_>,
    ) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
    /// A record of a control batch, with its key and value decoded (a transaction marker or a
    /// KRaft control message), so that sinks never decode; by default [`LogSink::record`].
    fn control_record(
        &mut self,
        batch_position: u64,
        info: &BatchInfo,
        record: &LogRecord<'_>,
        _control: &DecodeResult<ControlRecord>,
    ) -> io::Result<Flow> {
        self.record(batch_position, info, record)
    }
    fn problem(&mut self, problem: &LogProblem<'_>) -> io::Result<Flow>;
    /// In a deep scan, the record bytes of a compressed v2 batch that [`LogSink::batch`]
    /// answered [`Flow::Continue`] for, decompressed, before any record is decoded: false skips
    /// its records as [`Flow::SkipRecords`] would have (a search ruling the batch out from its
    /// bytes, as it does an uncompressed batch's from its header).
    fn records_may_match(
        &mut self,
        _batch_position: u64,
        _info: &BatchInfo,
        _records: &[u8],
    ) -> bool {
        true
    }
    /// In a deep scan, after the records of a batch that [`LogSink::batch`] answered
    /// [`Flow::Continue`] for (and after the problem, when they could not be decoded), unless
    /// a record or the problem answered [`Flow::Stop`]: whether to go on with the next batch.
    fn batch_done(&mut self, _batch_position: u64, _info: &BatchInfo) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
    /// The data went on to `last_offset` through a batch or a record that the offset range
    /// (`--from-offset`/`--to-offset`) left out: a gap check starts again from there rather
    /// than calling the records not shown a gap.
    fn filtered(&mut self, _last_offset: i64) {}
}

#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// Decode records, not only batch headers.
    pub deep: bool,
    /// Only entries lying completely inside the first `max_bytes` bytes (`--max-bytes`).
    pub max_bytes: u64,
    /// Inclusive offset range; batches entirely outside it are skipped.
    pub offsets: (i64, i64),
    /// Inclusive record-timestamp range (epoch ms); v2 batches whose header rules it out
    /// (maxTimestamp below it; LogAppendTime above it) are skipped undecoded.
    pub timestamps: (i64, i64),
    /// Byte position to start at (an index entry's position); 0 for the whole file.
    pub start_position: u64,
    /// Verify every batch's checksum (`verify-index --index-only` turns it off).
    pub check_crc: bool,
    /// A cut: the next piece of the file starts here (`--threads`). The scan stops on reaching
    /// it through entries alone, each ending at or before it; an entry crossing it, damage or
    /// the file's end before it, and the scan goes on to the end of the file instead, as one
    /// walk over the whole file goes on from `start_position` ([`ScanStats::ran_past_cut`]).
    pub stop_at: Option<u64>,
    /// What a scan that does not land on `stop_at` does.
    pub past_cut: PastCut,
}

/// What a scan that does not land on its cut ([`ScanOptions::stop_at`]) does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PastCut {
    /// Goes on to the end of the file (a piece whose output is printed as it is made).
    #[default]
    GoOn,
    /// Stops before the event that crossed the cut or came before it, at
    /// [`ScanStats::resume_at`]: a walk from there is the whole file's (a piece replayed by
    /// the caller, which goes on itself without holding the rest of the file's entries).
    Stop,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            deep: false,
            max_bytes: u64::MAX,
            offsets: (i64::MIN, i64::MAX),
            timestamps: (i64::MIN, i64::MAX),
            start_position: 0,
            check_crc: true,
            stop_at: None,
            past_cut: PastCut::GoOn,
        }
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct ScanStats {
    pub batches: u64,
    pub records: u64,
    /// Bytes covered by framed entries (Kafka's `validBytes`).
    pub valid_bytes: u64,
    pub invalid_bytes: u64,
    pub crc_errors: u64,
    pub problems: u64,
    pub stopped: bool,
    /// [`ScanOptions::stop_at`] was not landed on: the scan went on to the end of the file
    /// ([`PastCut::GoOn`]), or stopped at [`ScanStats::resume_at`] ([`PastCut::Stop`]).
    pub ran_past_cut: bool,
    /// With [`PastCut::Stop`], where the scan stopped instead of landing on its cut (`None`
    /// when the file ended before the cut).
    pub resume_at: Option<u64>,
}

impl ScanStats {
    /// Adds the counts of a scan of a later piece of the same file.
    pub fn add(&mut self, o: &ScanStats) {
        self.batches += o.batches;
        self.records += o.records;
        self.valid_bytes += o.valid_bytes;
        self.invalid_bytes += o.invalid_bytes;
        self.crc_errors += o.crc_errors;
        self.problems += o.problems;
    }

    pub fn has_problems(&self) -> bool {
        self.problems > 0 || self.crc_errors > 0
    }
}

/// Decodes a control batch's record for the sink: rare, kept out of the record loop's hot path.
#[cold]
#[inline(never)]
fn control_record(
    sink: &mut (impl LogSink + ?Sized),
    position: u64,
    info: &BatchInfo,
    r: &LogRecord<'_>,
) -> io::Result<Flow> {
    let control = decode_control(r.key, r.value);
    sink.control_record(position, info, r, &control)
}

pub fn scan_log<S: ByteSource + ?Sized>(
    src: &mut S,
    opts: &ScanOptions,
    scratch: &mut RecordScratch,
    sink: &mut dyn LogSink,
) -> io::Result<ScanStats> {
    let mut stats = ScanStats::default();
    let mut walker =
        LogWalker::starting_at(opts.start_position, opts.max_bytes).with_crc_check(opts.check_crc);
    let (from, to) = opts.offsets;
    let (from_time, to_time) = opts.timestamps;
    let timed = opts.timestamps != (i64::MIN, i64::MAX);
    let mut cut = opts.stop_at;
    while let Some(event) = walker.next(src)? {
        if let Some(at) = cut {
            // Where this event starts, and where it ends when it is an entry: a corrupt stretch
            // or a tail before the cut may be judged otherwise by a walk that began earlier
            // (its resynchronisation budget), so the cut is not trusted past one.
            let (position, entry_end) = match &event {
                WalkEvent::Entry { position, bytes } => {
                    (*position, Some(position + bytes.len() as u64))
                }
                WalkEvent::Corrupt { position, .. } | WalkEvent::Tail { position, .. } => {
                    (*position, None)
                }
            };
            if position == at {
                break;
            }
            if entry_end.is_none_or(|end| end > at) {
                cut = None;
                stats.ran_past_cut = true;
                if opts.past_cut == PastCut::Stop {
                    stats.resume_at = Some(position);
                    return Ok(stats);
                }
            }
        }
        let flow = match event {
            WalkEvent::Entry { position, bytes } => {
                stats.valid_bytes += bytes.len() as u64;
                let entry = match LogEntry::parse(bytes) {
                    Ok(e) => e,
                    Err(error) => {
                        stats.problems += 1;
                        let error = error.at(position);
                        sink.problem(&LogProblem::BadEntry {
                            batch_position: position,
                            error: &error,
                        })?;
                        continue;
                    }
                };
                // The walker computed the checksum already (or was told not to: then unchecked
                // batches count as valid).
                let mut info = entry.info_with_crc(Some(walker.last_crc().unwrap_or(true)));
                if !info.crc_valid {
                    stats.crc_errors += 1;
                }
                // A legacy wrapper's base offset and count live inside its compressed value:
                // decompressed here once (the deep walk below reuses it). One that cannot be
                // decoded holds no record we can count, and is a problem.
                let mut wrapper_error = None;
                if let LogEntry::Legacy(m) = &entry {
                    if m.codec() != Codec::None {
                        match legacy_wrapper_extent(m, scratch) {
                            Ok((n, first)) => {
                                info.count = Some(n.min(i32::MAX as usize) as i32);
                                info.base_offset = first;
                            }
                            Err(e) => wrapper_error = Some(e.at(position)),
                        }
                    }
                }
                if info.last_offset < from || info.base_offset > to {
                    sink.filtered(info.last_offset);
                    continue;
                }
                // A v2 header's maxTimestamp is its largest record timestamp (with LogAppendTime,
                // every record's); the first timestamp bounds nothing (deltas may be negative).
                if timed
                    && info.magic >= 2
                    && (info.max_timestamp < from_time
                        || (info.timestamp_type == TimestampType::LogAppendTime
                            && info.max_timestamp > to_time))
                {
                    sink.filtered(info.last_offset);
                    continue;
                }
                stats.batches += 1;
                let mut flow = sink.batch(position, &entry, &info)?;
                let mut records_wanted = opts.deep && flow == Flow::Continue;
                if records_wanted
                    && matches!(&entry, LogEntry::V2(b) if b.header.codec() != Codec::None)
                {
                    // Decompressed once: the record walk below reuses it. One that cannot be
                    // decompressed is reported by that walk.
                    if let Ok(Some(bytes)) = v2_record_bytes(&entry, scratch) {
                        records_wanted = sink.records_may_match(position, &info, bytes);
                    }
                }
                if let Some(error) = wrapper_error {
                    if flow != Flow::Stop {
                        stats.problems += 1;
                        flow = sink.problem(&LogProblem::BadEntry {
                            batch_position: position,
                            error: &error,
                        })?;
                        if records_wanted && flow != Flow::Stop {
                            flow = sink.batch_done(position, &info)?;
                        }
                    }
                } else if records_wanted {
                    // A legacy wrapper counted above is not decompressed a second time.
                    scratch.reuse_wrapper();
                    let mut io_error = None;
                    let mut record_flow = Flow::Continue;
                    let result = for_each_record(&entry, scratch, |r| {
                        if record_flow == Flow::Stop {
                            return;
                        }
                        if r.offset < from
                            || r.offset > to
                            || (timed && (r.timestamp < from_time || r.timestamp > to_time))
                        {
                            sink.filtered(r.offset);
                            return;
                        }
                        stats.records += 1;
                        let flow = if info.is_control {
                            control_record(sink, position, &info, r)
                        } else {
                            sink.record(position, &info, r)
                        };
                        match flow {
                            Ok(f) => record_flow = f,
                            Err(e) => {
                                io_error.get_or_insert(e);
                                record_flow = Flow::Stop;
                            }
                        }
                    });
                    if let Some(e) = io_error {
                        return Err(e);
                    }
                    if let Err(error) = result {
                        stats.problems += 1;
                        let error = error.at(position);
                        if sink.problem(&LogProblem::BadEntry {
                            batch_position: position,
                            error: &error,
                        })? == Flow::Stop
                        {
                            record_flow = Flow::Stop;
                        }
                    }
                    flow = record_flow;
                    if flow != Flow::Stop {
                        flow = sink.batch_done(position, &info)?;
                    }
                } else if flow != Flow::Stop {
                    if let Some(n) = info.count {
                        stats.records += n.max(0) as u64;
                    }
                }
                flow
            }
            WalkEvent::Corrupt {
                position,
                length,
                reason,
            } => {
                stats.problems += 1;
                stats.invalid_bytes += length;
                sink.problem(&LogProblem::Corrupt {
                    position,
                    length,
                    reason: &reason,
                })?
            }
            WalkEvent::Tail {
                position,
                length,
                kind,
            } => {
                if opts.max_bytes != u64::MAX {
                    // Like Kafka, a --max-bytes cut is not reported as invalid bytes.
                    break;
                }
                stats.problems += 1;
                stats.invalid_bytes += length;
                sink.problem(&LogProblem::Tail {
                    position,
                    length,
                    kind: &kind,
                })?
            }
        };
        if flow == Flow::Stop {
            stats.stopped = true;
            return Ok(stats);
        }
    }
    // The file ended before the cut (it is past the end: a file cut shorter since).
    if cut.is_some_and(|at| walker.position() < at) {
        stats.ran_past_cut = true;
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kseg_format::encode::{encode_batch, NewBatch, NewRecord};
    use kseg_format::log::SliceSource;

    /// Three batches of two records each (offsets 0-1, 2-3, 4-5).
    fn three_batches() -> Vec<u8> {
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        for base in [0i64, 2, 4] {
            let r = NewRecord {
                timestamp: 1_000 + base,
                key: None,
                value: Some(b"v"),
                headers: &[],
            };
            let batch = NewBatch {
                base_offset: base,
                ..NewBatch::default()
            };
            encode_batch(&mut out, &batch, &[r, r], &mut scratch);
        }
        out
    }

    /// Answers `SkipRecords` for the batches not in `wanted`, stops after the batch `stop_after`.
    #[derive(Default)]
    struct Picky {
        wanted: Vec<i64>,
        stop_after: Option<i64>,
        events: Vec<String>,
    }

    impl LogSink for Picky {
        fn batch(&mut self, _: u64, _: &LogEntry<'_>, info: &BatchInfo) -> io::Result<Flow> {
            self.events.push(format!("batch {}", info.base_offset));
            Ok(if self.wanted.contains(&info.base_offset) {
                Flow::Continue
            } else {
                Flow::SkipRecords
            })
        }
        fn record(&mut self, _: u64, _: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
            self.events.push(format!("record {}", r.offset));
            Ok(Flow::Continue)
        }
        fn batch_done(&mut self, _: u64, info: &BatchInfo) -> io::Result<Flow> {
            self.events.push(format!("done {}", info.base_offset));
            Ok(if self.stop_after == Some(info.base_offset) {
                Flow::Stop
            } else {
                Flow::Continue
            })
        }
        fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<Flow> {
            self.events.push(format!("problem at {}", p.position()));
            Ok(Flow::Continue)
        }
    }

    /// The events a [`Picky`] sink sees over `data`, and the scan's stats.
    fn events(
        data: &[u8],
        opts: &ScanOptions,
        wanted: &[i64],
        stop_after: Option<i64>,
    ) -> (Vec<String>, ScanStats) {
        let mut sink = Picky {
            wanted: wanted.to_vec(),
            stop_after,
            ..Picky::default()
        };
        let stats = scan_log(
            &mut SliceSource(data),
            opts,
            &mut RecordScratch::default(),
            &mut sink,
        )
        .unwrap();
        (sink.events, stats)
    }

    #[test]
    fn a_deep_scan_decodes_only_the_batches_asked_and_stops_after_one() {
        let data = three_batches();
        let deep = ScanOptions {
            deep: true,
            ..ScanOptions::default()
        };
        let (seen, stats) = events(&data, &deep, &[2], Some(2));
        assert_eq!(
            seen,
            ["batch 0", "batch 2", "record 2", "record 3", "done 2"]
        );
        assert!(stats.stopped);
        assert_eq!((stats.batches, stats.records), (2, 4));
        // Without a stop, on to the end; a shallow scan never calls batch_done.
        let (seen, _) = events(&data, &deep, &[0, 4], None);
        assert_eq!(
            seen,
            [
                "batch 0", "record 0", "record 1", "done 0", "batch 2", "batch 4", "record 4",
                "record 5", "done 4"
            ]
        );
        let (seen, _) = events(&data, &ScanOptions::default(), &[0, 2, 4], None);
        assert_eq!(seen, ["batch 0", "batch 2", "batch 4"]);
    }

    /// Every event a scan shows its sink, by position.
    #[derive(Default)]
    struct Everything(Vec<String>);

    impl LogSink for Everything {
        fn batch(&mut self, at: u64, _: &LogEntry<'_>, info: &BatchInfo) -> io::Result<Flow> {
            self.0.push(format!(
                "batch@{at} {} crc {}",
                info.base_offset, info.crc_valid
            ));
            Ok(Flow::Continue)
        }
        fn record(&mut self, at: u64, _: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
            self.0.push(format!("record@{at} {}", r.offset));
            Ok(Flow::Continue)
        }
        fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<Flow> {
            self.0
                .push(format!("problem@{} {}", p.position(), p.message()));
            Ok(Flow::Continue)
        }
    }

    /// `n` batches of one to three records with values of the lengths given, one in three
    /// compressed.
    fn batches(lengths: &[usize]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        let value = vec![b'v'; lengths.iter().copied().max().unwrap_or(0)];
        for (i, &len) in lengths.iter().enumerate() {
            let r = NewRecord {
                timestamp: 1_000 + i as i64,
                key: None,
                value: Some(&value[..len]),
                headers: &[],
            };
            let batch = NewBatch {
                base_offset: 3 * i as i64,
                codec: if i % 3 == 2 { Codec::Gzip } else { Codec::None },
                ..NewBatch::default()
            };
            encode_batch(&mut out, &batch, &vec![r; 1 + i % 3], &mut scratch);
        }
        out
    }

    /// Pieces walked one after the other, each from the last one's cut to its own, as
    /// `--threads` runs them: up to the first that did not land on its cut, which went on to
    /// the end (the pieces after it void).
    /// With [`PastCut::Stop`], the piece that did not land stops, and a walk from where it
    /// stopped goes on to the end.
    fn pieces(data: &[u8], cuts: &[u64], deep: bool, past_cut: PastCut) -> Vec<String> {
        let mut seen = Everything::default();
        let mut start = 0;
        for end in cuts.iter().map(|&c| Some(c)).chain([None]) {
            let opts = ScanOptions {
                deep,
                start_position: start,
                stop_at: end,
                past_cut,
                ..ScanOptions::default()
            };
            let mut src = SliceSource(data);
            let stats =
                scan_log(&mut src, &opts, &mut RecordScratch::default(), &mut seen).unwrap();
            if let Some(resume) = stats.resume_at {
                let rest = ScanOptions {
                    deep,
                    start_position: resume,
                    ..ScanOptions::default()
                };
                scan_log(&mut src, &rest, &mut RecordScratch::default(), &mut seen).unwrap();
            }
            match end {
                Some(end) if !stats.ran_past_cut => start = end,
                _ => break,
            }
        }
        seen.0
    }

    proptest::proptest! {
        /// Cuts anywhere (a stale or damaged offset index points anywhere): the pieces' scans,
        /// put together, are one scan over the whole file, on clean and damaged data.
        #[test]
        fn cuts_anywhere_scan_as_the_whole(
            lengths in proptest::collection::vec(0usize..300, 1..8),
            flips in proptest::collection::vec((proptest::prelude::any::<proptest::sample::Index>(), proptest::prelude::any::<u8>()), 0..3),
            cut_tail in 0usize..60,
            cuts in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..6),
            on_frames in proptest::prelude::any::<bool>(),
            deep in proptest::prelude::any::<bool>(),
        ) {
            let clean = batches(&lengths);
            let mut data = clean.clone();
            for (at, byte) in flips {
                let i = at.index(data.len());
                data[i] = byte;
            }
            data.truncate(data.len().saturating_sub(cut_tail));
            let len = data.len().max(1);
            // Half the time at frame starts of the clean file (an index that was right once).
            let starts: Vec<u64> = {
                let mut all = Vec::new();
                let mut pos = 0usize;
                while pos + 12 <= clean.len() {
                    all.push(pos as u64);
                    let size = i32::from_be_bytes(clean[pos + 8..pos + 12].try_into().unwrap());
                    pos += 12 + size as usize;
                }
                all
            };
            let mut cuts: Vec<u64> = cuts
                .iter()
                .map(|c| if on_frames { starts[c.index(starts.len())] } else { c.index(len) as u64 })
                .filter(|&c| c > 0)
                .collect();
            cuts.sort_unstable();
            cuts.dedup();
            let deep_opts = ScanOptions { deep, ..ScanOptions::default() };
            let mut whole = Everything::default();
            scan_log(&mut SliceSource(&data), &deep_opts, &mut RecordScratch::default(), &mut whole).unwrap();
            proptest::prop_assert_eq!(&pieces(&data, &cuts, deep, PastCut::GoOn), &whole.0, "cuts {:?}", cuts);
            proptest::prop_assert_eq!(&pieces(&data, &cuts, deep, PastCut::Stop), &whole.0, "stop, cuts {:?}", cuts);
        }
    }

    /// A cut off the frame chain is not landed on: the piece goes on to the end.
    #[test]
    fn a_cut_inside_a_batch_is_run_past() {
        let data = three_batches();
        let third = (data.len() / 3) as u64;
        let opts = |start, stop_at| ScanOptions {
            start_position: start,
            stop_at: Some(stop_at),
            ..ScanOptions::default()
        };
        let scan = |o: &ScanOptions| {
            let mut seen = Everything::default();
            let stats = scan_log(
                &mut SliceSource(&data),
                o,
                &mut RecordScratch::default(),
                &mut seen,
            )
            .unwrap();
            (stats.ran_past_cut, seen.0.len())
        };
        assert_eq!(scan(&opts(0, third)), (false, 1));
        assert_eq!(scan(&opts(0, third + 5)), (true, 3));
        // Past the end of the file: run past.
        assert_eq!(scan(&opts(third, 10 * third)), (true, 2));
    }

    /// A walk from a batch's position (an index entry) starts there: no adapter shifting the
    /// source.
    #[test]
    fn a_scan_starts_at_the_position_given() {
        let data = three_batches();
        let opts = ScanOptions {
            deep: true,
            start_position: (data.len() / 3) as u64,
            ..ScanOptions::default()
        };
        let (seen, _) = events(&data, &opts, &[2], None);
        assert_eq!(
            seen,
            ["batch 2", "record 2", "record 3", "done 2", "batch 4"]
        );
    }
}
