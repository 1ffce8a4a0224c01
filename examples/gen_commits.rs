//! Writes a `__consumer_offsets` partition full of offset commits, for the `kseg groups`
//! benchmark: `cargo run --release --example gen_commits -- LOGDIR COMMITS`.

use std::io::Write;

use kseg::format::encode::{encode_batch, NewBatch, NewRecord};

fn s16(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as i16).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::Path::new(args.get(1).expect("usage: gen_commits LOGDIR COMMITS"));
    let commits: u64 = args
        .get(2)
        .map_or(1_000_000, |s| s.parse().expect("a number"));
    std::fs::create_dir_all(dir.join("__consumer_offsets-0"))?;
    std::fs::write(dir.join("meta.properties"), "version=1\nnode.id=1\n")?;
    let path = dir.join("__consumer_offsets-0/00000000000000000000.log");
    let mut file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    // 200 groups, each committing 5 partitions of one of 10 topics per request (one batch).
    let mut buf = Vec::new();
    let mut scratch = Vec::new();
    let mut offset = 0i64;
    let mut n = 0u64;
    let ts = 1_717_000_000_000i64;
    while n < commits {
        let group = format!("group-{}", (n / 5) % 200);
        let topic = format!("topic-{}", (n / 1000) % 10);
        let keys: Vec<Vec<u8>> = (0..5)
            .map(|p: i32| {
                let mut k = vec![0, 1];
                s16(&mut k, &group);
                s16(&mut k, &topic);
                k.extend_from_slice(&p.to_be_bytes());
                k
            })
            .collect();
        let values: Vec<Vec<u8>> = (0..5)
            .map(|p| {
                let mut v = vec![0, 3];
                v.extend_from_slice(&((n as i64 / 1000) * 10 + p).to_be_bytes());
                v.extend_from_slice(&3i32.to_be_bytes());
                s16(&mut v, "");
                v.extend_from_slice(&(ts + n as i64).to_be_bytes());
                v
            })
            .collect();
        let records: Vec<NewRecord> = (0..5)
            .map(|i| NewRecord {
                timestamp: ts + n as i64,
                key: Some(&keys[i]),
                value: Some(&values[i]),
                headers: &[],
            })
            .collect();
        buf.clear();
        encode_batch(
            &mut buf,
            &NewBatch {
                base_offset: offset,
                ..Default::default()
            },
            &records,
            &mut scratch,
        );
        file.write_all(&buf)?;
        offset += 5;
        n += 5;
    }
    file.flush()?;
    eprintln!("wrote {n} commits");
    Ok(())
}
