//! Decoder microbenchmarks (divan): `cargo bench --bench decode`.

use divan::counter::BytesCount;
use divan::Bencher;
use kseg::format::compression::Codec;
use kseg::format::encode::{encode_batch, NewBatch, NewRecord};
use kseg::format::log::{
    for_each_record, LogEntry, LogWalker, RecordScratch, SliceSource, WalkEvent,
};

fn main() {
    divan::main();
}

/// 1,600 batches of 100 records (about 16 MiB uncompressed), whatever the codec, so that
/// throughput below is always counted in uncompressed bytes.
fn segment(codec: Codec) -> Vec<u8> {
    let headers: &[(&[u8], Option<&[u8]>)] = &[(b"trace", Some(b"abc"))];
    let value =
        b"{\"order\":12345,\"amount\":99.5,\"note\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}";
    let mut out = Vec::new();
    let mut scratch = Vec::new();
    let mut offset = 0;
    for _ in 0..1600 {
        let records: Vec<NewRecord> = (0..100)
            .map(|i| NewRecord {
                timestamp: 1_700_000_000_000 + i,
                key: Some(b"customer-17"),
                value: Some(value),
                headers,
            })
            .collect();
        encode_batch(
            &mut out,
            &NewBatch {
                base_offset: offset,
                codec,
                ..Default::default()
            },
            &records,
            &mut scratch,
        );
        offset += 100;
    }
    out
}

#[divan::bench]
fn walk_and_crc(bencher: Bencher) {
    let data = segment(Codec::None);
    bencher.counter(BytesCount::of_slice(&data)).bench(|| {
        let mut src = SliceSource(&data);
        let mut walker = LogWalker::new(data.len() as u64);
        let mut valid = 0usize;
        while let Some(WalkEvent::Entry { bytes, .. }) = walker.next(&mut src).unwrap() {
            valid += LogEntry::parse(bytes).unwrap().info().crc_valid as usize;
        }
        valid
    });
}

#[divan::bench(args = ["none", "gzip", "snappy", "lz4", "zstd"])]
fn walk_and_decode_records(bencher: Bencher, codec: &str) {
    let codec = match codec {
        "gzip" => Codec::Gzip,
        "snappy" => Codec::Snappy,
        "lz4" => Codec::Lz4,
        "zstd" => Codec::Zstd,
        _ => Codec::None,
    };
    let data = segment(codec);
    let uncompressed = segment(Codec::None).len();
    let mut scratch = RecordScratch::default();
    bencher
        .counter(BytesCount::new(uncompressed))
        .bench_local(|| {
            let mut src = SliceSource(&data);
            let mut walker = LogWalker::new(data.len() as u64);
            let mut value_bytes = 0usize;
            while let Some(WalkEvent::Entry { bytes, .. }) = walker.next(&mut src).unwrap() {
                let entry = LogEntry::parse(bytes).unwrap();
                for_each_record(&entry, &mut scratch, |r| {
                    value_bytes += r.value.map_or(0, |v| v.len())
                })
                .unwrap();
            }
            value_bytes
        });
}
