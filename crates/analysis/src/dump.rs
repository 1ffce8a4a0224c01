//! A segment's batches and records, ready to print: [`DumpFeed`] is the [`LogSink`] between
//! the scan and a dump printer (`kseg dump-log`, the records `kseg diff` shows). It follows the
//! offsets ([`OffsetGaps`]) and decodes what a printer shows — an internal topic's key and value
//! (`format::internal`); control records arrive decoded from the scan — and hands the printer
//! ([`DumpRecords`]) each batch, record, gap and problem as borrowed views. Printers format;
//! they never decode and never follow offsets.
//!
//! Nothing is allocated or formatted here per record: the views borrow the scan's bytes (an
//! internal topic's decoded value is built by `format::internal::decode_record`, as before).

use std::io;
use std::path::Path;

use crate::gaps::OffsetGaps;
use kseg_format::control::ControlRecord;
use kseg_format::internal::{decode_record, Decoded, InternalDecoder};
use kseg_format::log::{BatchInfo, LogEntry, LogRecord};
use kseg_format::reader::DecodeResult;
use kseg_scan::{Flow, LogProblem, LogSink};

/// One record with everything decoded that a printer shows.
#[derive(Debug, Clone, Copy)]
pub struct RecordView<'a> {
    /// The byte position of the record's batch.
    pub batch_position: u64,
    pub batch: &'a BatchInfo,
    pub record: &'a LogRecord<'a>,
    /// A control batch's record, decoded (a transaction marker or a KRaft control message).
    pub control: Option<&'a DecodeResult<ControlRecord>>,
    /// An internal topic's record (never a control batch's), decoded, when the file has a
    /// decoder and the printer shows keys and values ([`DumpRecords::shows_payloads`]).
    pub decoded: Option<&'a Decoded<'a>>,
}

/// What a dump printer receives from a log: everything already decoded.
pub trait DumpRecords {
    fn batch(&mut self, position: u64, batch: &BatchInfo) -> io::Result<()>;
    fn record(&mut self, record: &RecordView<'_>) -> io::Result<()>;
    /// The record at `offset` does not follow `previous` (the offset before it, or the one
    /// the file's name starts at, less one).
    fn gap(&mut self, previous: i64, offset: i64) -> io::Result<()>;
    fn problem(&mut self, problem: &LogProblem<'_>) -> io::Result<()>;
    /// Writes out what the printer holds (before a [`DumpFeed`]'s seam is announced).
    fn flush_out(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// Whether records' keys and values are printed (and an internal topic's are worth
    /// decoding); read once per file.
    fn shows_payloads(&self) -> bool {
        true
    }
}

/// Called with the first record's offset of a piece that starts mid-file, the printer flushed
/// ([`DumpFeed::mid_file`]).
pub type SeamHook<'h> = &'h mut dyn FnMut(i64) -> io::Result<()>;

/// The [`LogSink`] of one scan of one file, or of one piece of it, feeding a [`DumpRecords`]
/// printer.
pub struct DumpFeed<'p, P: DumpRecords + ?Sized> {
    printer: &'p mut P,
    decoder: Option<InternalDecoder>,
    /// `None` in a piece that starts mid-file, until its first record or filtered batch: the
    /// offset before it is the previous piece's.
    gaps: Option<OffsetGaps>,
    seam: Option<SeamHook<'p>>,
}

impl<'p, P: DumpRecords + ?Sized> DumpFeed<'p, P> {
    /// For the records of `file` (its name gives the offset the first is expected at), with
    /// the internal-topic `decoder` its records take, if any.
    pub fn new(printer: &'p mut P, file: &Path, decoder: Option<InternalDecoder>) -> Self {
        let decoder = decoder.filter(|_| printer.shows_payloads());
        DumpFeed {
            printer,
            decoder,
            gaps: Some(OffsetGaps::for_file(file)),
            seam: None,
        }
    }

    /// For the records of a piece of a file that starts mid-file (`--threads`): whether its
    /// first record follows the one before it is not known here, so instead of a gap the
    /// printer is flushed and `seam` is told that record's offset, for whoever puts the pieces
    /// together ([`Self::last_offset`] of the piece before).
    pub fn mid_file(
        printer: &'p mut P,
        decoder: Option<InternalDecoder>,
        seam: SeamHook<'p>,
    ) -> Self {
        let decoder = decoder.filter(|_| printer.shows_payloads());
        DumpFeed {
            printer,
            decoder,
            gaps: None,
            seam: Some(seam),
        }
    }

    /// The offset the next record is expected to follow: the last record's, or the last one
    /// left out by the offset range (`None`: none yet in a piece fed [`Self::mid_file`]).
    pub fn last_offset(&self) -> Option<i64> {
        self.gaps.map(|g| g.last())
    }

    #[inline]
    fn feed(
        &mut self,
        batch_position: u64,
        batch: &BatchInfo,
        record: &LogRecord<'_>,
        control: Option<&DecodeResult<ControlRecord>>,
    ) -> io::Result<Flow> {
        match &mut self.gaps {
            Some(gaps) => {
                if let Some(previous) = gaps.next(record.offset) {
                    self.printer.gap(previous, record.offset)?;
                }
            }
            None => {
                let mut gaps = OffsetGaps::default();
                gaps.skipped_to(record.offset);
                self.gaps = Some(gaps);
                self.printer.flush_out()?;
                if let Some(seam) = self.seam.as_mut() {
                    seam(record.offset)?;
                }
            }
        }
        let decoded = match self.decoder {
            Some(d) if !batch.is_control => Some(decode_record(d, record.key, record.value)),
            _ => None,
        };
        self.printer.record(&RecordView {
            batch_position,
            batch,
            record,
            control,
            decoded: decoded.as_ref(),
        })?;
        Ok(Flow::Continue)
    }
}

impl<P: DumpRecords + ?Sized> LogSink for DumpFeed<'_, P> {
    fn batch(
        &mut self,
        position: u64,
        _entry: &LogEntry<'_>,
        info: &BatchInfo,
    ) -> io::Result<Flow> {
        self.printer.batch(position, info)?;
        Ok(Flow::Continue)
    }

    #[inline]
    fn record(&mut self, position: u64, info: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        self.feed(position, info, r, None)
    }

    fn control_record(
        &mut self,
        position: u64,
        info: &BatchInfo,
        r: &LogRecord<'_>,
        control: &DecodeResult<ControlRecord>,
    ) -> io::Result<Flow> {
        self.feed(position, info, r, Some(control))
    }

    fn filtered(&mut self, last_offset: i64) {
        self.gaps
            .get_or_insert_with(OffsetGaps::default)
            .skipped_to(last_offset);
    }

    fn problem(&mut self, problem: &LogProblem<'_>) -> io::Result<Flow> {
        self.printer.problem(problem)?;
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kseg_format::control::ControlType;
    use kseg_format::encode::{encode_batch, NewBatch, NewRecord};
    use kseg_format::log::{RecordScratch, SliceSource};
    use kseg_scan::{scan_log, ScanOptions};

    /// What a printer was handed, in order.
    #[derive(Debug, PartialEq)]
    enum Seen {
        Batch(i64),
        Record {
            offset: i64,
            control: Option<ControlType>,
            decoded: bool,
        },
        Gap(i64, i64),
    }

    struct Collect {
        seen: Vec<Seen>,
        payloads: bool,
    }

    impl DumpRecords for Collect {
        fn batch(&mut self, _: u64, b: &BatchInfo) -> io::Result<()> {
            self.seen.push(Seen::Batch(b.base_offset));
            Ok(())
        }
        fn record(&mut self, v: &RecordView<'_>) -> io::Result<()> {
            if let Some(d) = v.decoded {
                // A key that is no coordinator key: decoded as undecoded, never skipped.
                assert!(matches!(d, Decoded::Undecoded { .. }), "{d:?}");
            }
            self.seen.push(Seen::Record {
                offset: v.record.offset,
                control: v.control.map(|c| c.as_ref().unwrap().kind),
                decoded: v.decoded.is_some(),
            });
            Ok(())
        }
        fn gap(&mut self, previous: i64, offset: i64) -> io::Result<()> {
            self.seen.push(Seen::Gap(previous, offset));
            Ok(())
        }
        fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<()> {
            panic!("no problem expected: {}", p.message())
        }
        fn shows_payloads(&self) -> bool {
            self.payloads
        }
    }

    /// Offsets 10, 11; 15; then a commit marker at 16.
    fn log() -> Vec<u8> {
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        let rec = |value: &'static [u8]| NewRecord {
            timestamp: 1,
            key: Some(b"k"),
            value: Some(value),
            headers: &[],
        };
        let plain = |base_offset| NewBatch {
            base_offset,
            ..NewBatch::default()
        };
        encode_batch(&mut out, &plain(10), &[rec(b"a"), rec(b"b")], &mut scratch);
        encode_batch(&mut out, &plain(15), &[rec(b"c")], &mut scratch);
        // ControlRecordType COMMIT (key: version 0, type 1); EndTransactionMarker v0, epoch 3.
        let marker = NewRecord {
            timestamp: 1,
            key: Some(&[0, 0, 0, 1]),
            value: Some(&[0, 0, 0, 0, 0, 3]),
            headers: &[],
        };
        let control = NewBatch {
            base_offset: 16,
            transactional: true,
            control: true,
            producer_id: 7,
            producer_epoch: 0,
            ..NewBatch::default()
        };
        encode_batch(&mut out, &control, &[marker], &mut scratch);
        out
    }

    fn feed(from: i64, decoder: Option<InternalDecoder>, payloads: bool) -> Vec<Seen> {
        let data = log();
        let mut printer = Collect {
            seen: Vec::new(),
            payloads,
        };
        let file = Path::new("/d/t-0/00000000000000000010.log");
        let mut feed = DumpFeed::new(&mut printer, file, decoder);
        let opts = ScanOptions {
            deep: true,
            offsets: (from, i64::MAX),
            ..ScanOptions::default()
        };
        let mut scratch = RecordScratch::default();
        scan_log(&mut SliceSource(&data), &opts, &mut scratch, &mut feed).unwrap();
        printer.seen
    }

    fn record(offset: i64, decoded: bool) -> Seen {
        Seen::Record {
            offset,
            control: None,
            decoded,
        }
    }

    const COMMIT: Seen = Seen::Record {
        offset: 16,
        control: Some(ControlType::Commit),
        decoded: false,
    };

    #[test]
    fn gaps_from_the_file_name_and_control_records_decoded() {
        assert_eq!(
            feed(i64::MIN, None, true),
            [
                Seen::Batch(10),
                record(10, false),
                record(11, false),
                Seen::Batch(15),
                Seen::Gap(11, 15),
                record(15, false),
                Seen::Batch(16),
                COMMIT,
            ]
        );
    }

    #[test]
    fn records_left_out_by_the_offset_range_are_no_gap() {
        // 10 to 15 are left out: 16 follows them (not 9, the offset before the file's base).
        assert_eq!(feed(16, None, true), [Seen::Batch(16), COMMIT]);
        // The gap after 11 is real whether or not 11 is shown.
        assert_eq!(
            feed(12, None, true),
            [
                Seen::Batch(15),
                Seen::Gap(11, 15),
                record(15, false),
                Seen::Batch(16),
                COMMIT
            ]
        );
    }

    #[test]
    fn a_piece_from_mid_file_reports_its_seam_not_a_gap() {
        let data = log();
        // The second batch (offset 15) starts the piece.
        let start = kseg_format::log::batch_cuts(&mut SliceSource(&data), 0, 1)
            .unwrap()
            .at[0];
        let mut printer = Collect {
            seen: Vec::new(),
            payloads: true,
        };
        let mut seams = Vec::new();
        let mut seam = |offset| {
            seams.push(offset);
            Ok(())
        };
        let mut feed = DumpFeed::mid_file(&mut printer, None, &mut seam);
        let opts = ScanOptions {
            deep: true,
            start_position: start,
            ..ScanOptions::default()
        };
        let mut scratch = RecordScratch::default();
        scan_log(&mut SliceSource(&data), &opts, &mut scratch, &mut feed).unwrap();
        assert_eq!(feed.last_offset(), Some(16));
        assert_eq!(seams, [15]);
        assert_eq!(
            printer.seen,
            [Seen::Batch(15), record(15, false), Seen::Batch(16), COMMIT]
        );
    }

    #[test]
    fn internal_records_decoded_only_for_a_printer_showing_them() {
        let offsets = Some(InternalDecoder::Offsets);
        // Never a control batch's record.
        assert_eq!(feed(16, offsets, true)[..], [Seen::Batch(16), COMMIT]);
        let seen = feed(15, offsets, true);
        assert_eq!(seen[2], record(15, true));
        assert_eq!(feed(15, offsets, false)[2], record(15, false));
        assert_eq!(feed(15, None, true)[2], record(15, false));
    }
}
