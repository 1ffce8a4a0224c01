//! The references of `bench/run.sh` for the record decoder, timed inside the process:
//! `deep_decode FILE` walks every batch of a segment and decodes every record (CRC checked,
//! nothing printed): what `dump-log --deep-iteration` does before it prints anything.
//! `deep_decode --codec-only FILE` walks the same batches and only decompresses each payload
//! with the same codec code (no record decoded): the floor for a compressed deep decode.
//! Prints `SECONDS BYTES RECORDS`.

use kseg::format::compression::Codec;
use kseg::format::log::{for_each_record, LogEntry, LogWalker, RecordScratch, WalkEvent};
use kseg::storage::source::FileSource;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let codec_only = args.iter().any(|a| a == "--codec-only");
    let path = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .expect("usage: deep_decode [--codec-only] FILE");
    let mut src = FileSource::open(std::path::Path::new(path))?;
    let mut scratch = RecordScratch::with_cap(1 << 30);
    let mut out = Vec::new();
    let mut walker = LogWalker::new(u64::MAX);
    let (mut bytes, mut records, mut sum) = (0u64, 0u64, 0i64);
    let start = std::time::Instant::now();
    while let Some(event) = walker.next(&mut src)? {
        let WalkEvent::Entry { bytes: b, .. } = event else {
            continue;
        };
        bytes += b.len() as u64;
        let Ok(entry) = LogEntry::parse(b) else {
            continue;
        };
        if codec_only {
            if let LogEntry::V2(batch) = &entry {
                let codec = batch.header.codec();
                if codec != Codec::None {
                    scratch
                        .decompressor
                        .decompress(codec, 2, batch.payload(), &mut out)
                        .expect("decompresses");
                    sum = sum.wrapping_add(out.len() as i64);
                }
                records += batch.header.records_count.max(0) as u64;
            }
            continue;
        }
        let n = for_each_record(&entry, &mut scratch, |r| {
            sum = sum
                .wrapping_add(r.offset)
                .wrapping_add(r.value.map_or(0, |v| v.len() as i64))
                .wrapping_add(r.headers.iter().count() as i64);
        })
        .expect("decodes");
        records += n as u64;
    }
    let secs = start.elapsed().as_secs_f64();
    // `sum` keeps the work from being optimised away.
    println!("{secs:.4} {bytes} {records} {}", sum & 1);
    Ok(())
}
