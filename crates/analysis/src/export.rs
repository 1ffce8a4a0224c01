//! `kseg export`'s walk: grep's [`Search`] (its filters, pruning and transaction walk) hands the
//! matching records to the records table, and every batch whose header and transactional state
//! the filters allow goes to the batches table.

use std::io;

use kseg_format::control::ControlRecord;
use kseg_format::log::{BatchInfo, LogEntry, LogRecord};
use kseg_format::reader::DecodeResult;
use kseg_scan::{Flow, LogProblem, LogSink};

use crate::grep::Search;
use crate::transactions::TxnState;

/// Where the batches of an export go, with their transactional state.
pub trait BatchRows {
    fn batch(&mut self, position: u64, info: &BatchInfo, state: Option<TxnState>)
        -> io::Result<()>;
}

/// The [`LogSink`] of an export over one segment: the search, and the batches beside it.
pub struct ExportWalk<'s, 'a> {
    pub search: &'s mut Search<'a>,
    pub batches: Option<&'s mut dyn BatchRows>,
}

impl LogSink for ExportWalk<'_, '_> {
    fn batch(&mut self, position: u64, entry: &LogEntry<'_>, info: &BatchInfo) -> io::Result<Flow> {
        let flow = self.search.batch(position, entry, info)?;
        if let Some(rows) = self.batches.as_deref_mut() {
            if self.search.header_may_match(info) {
                rows.batch(position, info, self.search.batch_state())?;
            }
        }
        Ok(flow)
    }

    #[inline]
    fn records_may_match(&mut self, position: u64, info: &BatchInfo, records: &[u8]) -> bool {
        self.search.records_may_match(position, info, records)
    }

    #[inline]
    fn record(&mut self, position: u64, info: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        self.search.record(position, info, r)
    }

    fn control_record(
        &mut self,
        position: u64,
        info: &BatchInfo,
        r: &LogRecord<'_>,
        control: &DecodeResult<ControlRecord>,
    ) -> io::Result<Flow> {
        self.search.control_record(position, info, r, control)
    }

    fn problem(&mut self, problem: &LogProblem<'_>) -> io::Result<Flow> {
        self.search.problem(problem)
    }

    fn batch_done(&mut self, position: u64, info: &BatchInfo) -> io::Result<Flow> {
        self.search.batch_done(position, info)
    }

    fn filtered(&mut self, last_offset: i64) {
        self.search.filtered(last_offset);
    }
}
