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
    /// Whether records' keys and values are printed (and an internal topic's are worth
    /// decoding); read once per file.
    fn shows_payloads(&self) -> bool {
        true
    }
}

/// The [`LogSink`] of one scan of one file, feeding a [`DumpRecords`] printer.
pub struct DumpFeed<'p, P: DumpRecords + ?Sized> {
    printer: &'p mut P,
    decoder: Option<InternalDecoder>,
    gaps: OffsetGaps,
}

impl<'p, P: DumpRecords + ?Sized> DumpFeed<'p, P> {
    /// For the records of `file` (its name gives the offset the first is expected at), with
    /// the internal-topic `decoder` its records take, if any.
    pub fn new(printer: &'p mut P, file: &Path, decoder: Option<InternalDecoder>) -> Self {
        let decoder = decoder.filter(|_| printer.shows_payloads());
        DumpFeed {
            printer,
            decoder,
            gaps: OffsetGaps::for_file(file),
        }
    }

    #[inline]
    fn feed(
        &mut self,
        batch_position: u64,
        batch: &BatchInfo,
        record: &LogRecord<'_>,
        control: Option<&DecodeResult<ControlRecord>>,
    ) -> io::Result<Flow> {
        if let Some(previous) = self.gaps.next(record.offset) {
            self.printer.gap(previous, record.offset)?;
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
        self.gaps.skipped_to(last_offset);
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
