//! Writes `__consumer_offsets` partitions full of offset commits, for the `kseg groups`
//! benchmarks: `cargo run --release --example gen_commits -- LOGDIR COMMITS [GROUPS [PARTITIONS]]`.
//!
//! Without GROUPS: 200 groups, each committing 5 partitions of one of 10 topics per request (one
//! batch), all in `__consumer_offsets-0` (the bench RSS row). With GROUPS: commit `i` is group
//! `group-{i % GROUPS}`'s, so `COMMITS = GROUPS` gives every group one offset (issue 14's
//! "1 M distinct groups"); each group goes to the partition Kafka's `partitionFor` picks among
//! PARTITIONS (default 1), five commits to a batch per partition.

use std::io::Write;

use kseg::analysis::partition_for::partition_for;
use kseg::format::encode::{encode_batch, NewBatch, NewRecord};

fn s16(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as i16).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

struct Commit {
    key: Vec<u8>,
    value: Vec<u8>,
    timestamp: i64,
}

fn commit(group: &str, topic: &str, partition: i32, offset: i64, timestamp: i64) -> Commit {
    let mut key = vec![0, 1];
    s16(&mut key, group);
    s16(&mut key, topic);
    key.extend_from_slice(&partition.to_be_bytes());
    let mut value = vec![0, 3];
    value.extend_from_slice(&offset.to_be_bytes());
    value.extend_from_slice(&3i32.to_be_bytes());
    s16(&mut value, "");
    value.extend_from_slice(&timestamp.to_be_bytes());
    Commit {
        key,
        value,
        timestamp,
    }
}

struct Partition {
    file: std::io::BufWriter<std::fs::File>,
    next_offset: i64,
    queued: Vec<Commit>,
}

fn flush(p: &mut Partition, buf: &mut Vec<u8>, scratch: &mut Vec<u8>) -> std::io::Result<()> {
    if p.queued.is_empty() {
        return Ok(());
    }
    let records: Vec<NewRecord> = p
        .queued
        .iter()
        .map(|c| NewRecord {
            timestamp: c.timestamp,
            key: Some(&c.key),
            value: Some(&c.value),
            headers: &[],
        })
        .collect();
    buf.clear();
    encode_batch(
        buf,
        &NewBatch {
            base_offset: p.next_offset,
            ..Default::default()
        },
        &records,
        scratch,
    );
    p.file.write_all(buf)?;
    p.next_offset += records.len() as i64;
    p.queued.clear();
    Ok(())
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: gen_commits LOGDIR COMMITS [GROUPS [PARTITIONS]]";
    let dir = std::path::Path::new(args.get(1).expect(usage));
    let commits: u64 = args
        .get(2)
        .map_or(1_000_000, |s| s.parse().expect("a number"));
    let groups: Option<u64> = args.get(3).map(|s| s.parse().expect("a number"));
    let partitions: u32 = args.get(4).map_or(1, |s| s.parse().expect("a number"));
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("meta.properties"), "version=1\nnode.id=1\n")?;
    let mut parts = Vec::new();
    for p in 0..partitions {
        let pdir = dir.join(format!("__consumer_offsets-{p}"));
        std::fs::create_dir_all(&pdir)?;
        let file = std::fs::File::create(pdir.join("00000000000000000000.log"))?;
        parts.push(Partition {
            file: std::io::BufWriter::with_capacity(1 << 20, file),
            next_offset: 0,
            queued: Vec::new(),
        });
    }
    let mut buf = Vec::new();
    let mut scratch = Vec::new();
    let ts = 1_717_000_000_000i64;
    for n in 0..commits {
        let (group, topic, partition) = match groups {
            // The bench RSS row's layout: 200 groups, 5 partitions of one topic per batch.
            None => (
                format!("group-{}", (n / 5) % 200),
                format!("topic-{}", (n / 1000) % 10),
                (n % 5) as i32,
            ),
            Some(g) => (
                format!("group-{}", n % g.max(1)),
                format!("topic-{}", n % 10),
                ((n / g.max(1)) % 5) as i32,
            ),
        };
        let offset = (n as i64 / 1000) * 10 + i64::from(partition);
        let p = &mut parts[partition_for(&group, partitions) as usize];
        p.queued
            .push(commit(&group, &topic, partition, offset, ts + n as i64));
        if p.queued.len() == 5 {
            flush(p, &mut buf, &mut scratch)?;
        }
    }
    for p in &mut parts {
        flush(p, &mut buf, &mut scratch)?;
        p.file.flush()?;
    }
    eprintln!("wrote {commits} commits");
    Ok(())
}
