//! Writes a large synthetic segment for benchmarks:
//! `cargo run --release --example gen_segment -- OUT.log SIZE_MIB [codec] [records-per-batch]`.

use std::io::Write;

use kseg::format::compression::Codec;
use kseg::format::encode::{encode_batch, NewBatch, NewRecord};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect(
        "usage: gen_segment OUT.log SIZE_MIB [none|gzip|snappy|lz4|zstd] [records-per-batch]",
    );
    let size: u64 = args
        .get(2)
        .map_or(1024, |s| s.parse().expect("size in MiB"))
        << 20;
    let codec = match args.get(3).map(String::as_str).unwrap_or("none") {
        "gzip" => Codec::Gzip,
        "snappy" => Codec::Snappy,
        "lz4" => Codec::Lz4,
        "zstd" => Codec::Zstd,
        _ => Codec::None,
    };
    let per_batch: usize = args
        .get(4)
        .map_or(100, |s| s.parse().expect("records per batch"));
    let mut file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let mut written = 0u64;
    let mut offset = 0i64;
    let mut ts = 1_717_000_000_000i64;
    let mut buf = Vec::new();
    let mut scratch = Vec::new();
    let keys: Vec<String> = (0..per_batch).map(|i| format!("customer-{i}")).collect();
    let values: Vec<String> = (0..per_batch)
        .map(|i| {
            format!(
                "{{\"order\":{i},\"amount\":{},\"note\":\"{}\"}}",
                i * 37 % 1000,
                "x".repeat(40 + i % 20)
            )
        })
        .collect();
    let headers: &[(&[u8], Option<&[u8]>)] =
        &[(b"trace-id", Some(b"0af7651916cd43dd8448eb211c80319c"))];
    while written < size {
        let records: Vec<NewRecord> = (0..per_batch)
            .map(|i| NewRecord {
                timestamp: ts + i as i64,
                key: Some(keys[i].as_bytes()),
                value: Some(values[i].as_bytes()),
                headers,
            })
            .collect();
        buf.clear();
        let batch = NewBatch {
            base_offset: offset,
            codec,
            ..Default::default()
        };
        encode_batch(&mut buf, &batch, &records, &mut scratch);
        file.write_all(&buf)?;
        written += buf.len() as u64;
        offset += per_batch as i64;
        ts += per_batch as i64;
    }
    file.flush()?;
    eprintln!("wrote {written} bytes, {offset} records");
    Ok(())
}
