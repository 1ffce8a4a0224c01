//! Writes the `.index` and `.timeindex` Kafka would build for a segment, beside it:
//! `cargo run --release --example gen_index -- SEGMENT.log [index.interval.bytes]`.
//!
//! The indexes follow `LogSegment.recover`'s rule (an entry when more than
//! `index.interval.bytes`, default 4096, were appended since the last one; the batch's last
//! offset and start position; the time index takes the max timestamp so far), the same rule
//! `kseg recover` rebuilds with. Used to give `gen_segment`'s 1 GiB log its indexes for the
//! lookup benchmark.

use std::path::Path;

use kseg::analysis::recovery::{analyse_segment, DEFAULT_INDEX_INTERVAL};
use kseg::format::log::RecordScratch;
use kseg::storage::layout::base_offset_of;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let Some(log) = args.get(1) else {
        return Err("usage: gen_index SEGMENT.log [index.interval.bytes]".into());
    };
    let interval: u64 = match args.get(2) {
        Some(s) => s.parse()?,
        None => DEFAULT_INDEX_INTERVAL,
    };
    let log = Path::new(log);
    let name = log
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = base_offset_of(&name).ok_or("the segment's name must be <20 digits>.log")?;
    let mut scratch = RecordScratch::default();
    let seg = analyse_segment(log, base, interval, &mut scratch)?;
    if let Some(at) = seg.truncate_at {
        return Err(format!(
            "{}: byte {at}: {}",
            log.display(),
            seg.truncate_reason
                .map(|r| r.to_string())
                .unwrap_or_default()
        )
        .into());
    }
    let (index, timeindex) = seg.kept_indexes();
    std::fs::write(log.with_extension("index"), &index)?;
    std::fs::write(log.with_extension("timeindex"), &timeindex)?;
    eprintln!(
        "{} batches: {} index entries, {} time-index entries",
        seg.kept.batches,
        index.len() / 8,
        timeindex.len() / 12
    );
    Ok(())
}
