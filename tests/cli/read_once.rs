//! A full scan reads each byte of a segment about once (no re-reads at buffer boundaries).

use crate::common::*;
use kseg::format::log::RecordScratch;
use kseg::scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use kseg::storage::source::FileSource;

struct Nothing;
impl LogSink for Nothing {
    fn batch(
        &mut self,
        _: u64,
        _: &kseg::format::log::LogEntry<'_>,
        _: &kseg::format::log::BatchInfo,
    ) -> std::io::Result<Flow> {
        Ok(Flow::Continue)
    }
    fn problem(&mut self, _: &LogProblem<'_>) -> std::io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

#[test]
fn a_scan_reads_the_file_once() {
    let t = tempfile::tempdir().unwrap();
    let value = "x".repeat(3000);
    let batches: Vec<Vec<u8>> = (0..2000)
        .map(|i| {
            batch(
                BatchSpec {
                    base_offset: i,
                    ..Default::default()
                },
                &[rec("k", &value)],
            )
        })
        .collect();
    let refs: Vec<&[u8]> = batches.iter().map(|b| b.as_slice()).collect();
    let path = t.path().join("00000000000000000000.log");
    write(&path, &refs);
    let len = std::fs::metadata(&path).unwrap().len();
    for check_crc in [true, false] {
        let mut src = FileSource::open(&path).unwrap();
        let opts = ScanOptions {
            check_crc,
            ..Default::default()
        };
        let stats = scan_log(&mut src, &opts, &mut RecordScratch::default(), &mut Nothing).unwrap();
        assert_eq!(stats.batches, 2000);
        assert!(
            src.bytes_read <= len + (len / 100),
            "read {} bytes of a {len}-byte file",
            src.bytes_read
        );
    }
}
