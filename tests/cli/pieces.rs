//! `--threads` cuts a large `.log` at its offset index's positions without walking its frames
//! first: each piece's walk must land on its end, and one that does not (a cut off the frame
//! chain, damage before it) goes on to the end of the file, the pieces after it void. The
//! output is one thread's, byte for byte, whatever the index says.

use crate::common::*;

use kseg::format::encode::{encode_batch, NewBatch, NewRecord};
use std::path::Path;

/// Writes `t-0/00000000000000000000.{log,index}`: 16 batches of three records, the values of
/// batch 6 an encoded batch themselves (a frame that passes the framing test, inside a record).
/// The index lists every batch's start, and, when `lying`, the nested frame's position too; with
/// `damaged`, batch 10's magic byte is bad (a corrupt stretch before later cuts).
fn segment(root: &Path, lying: bool, damaged: bool) {
    let mut scratch = Vec::new();
    let record = |value: &'static [u8]| NewRecord {
        timestamp: 1_700_000_000_000,
        key: Some(b"k"),
        value: Some(value),
        headers: &[],
    };
    let mut nested = Vec::new();
    let inner = NewBatch {
        base_offset: 999,
        ..NewBatch::default()
    };
    encode_batch(&mut nested, &inner, &[record(b"inner value")], &mut scratch);
    let nested: &'static [u8] = Box::leak(nested.into_boxed_slice());
    let mut log = Vec::new();
    let mut starts = Vec::new();
    for i in 0..16i64 {
        starts.push(log.len());
        let value: &'static [u8] = if i == 6 { nested } else { b"a plain value" };
        let batch = NewBatch {
            base_offset: 3 * i,
            ..NewBatch::default()
        };
        encode_batch(&mut log, &batch, &[record(value); 3], &mut scratch);
    }
    let inside = starts[6]
        + log[starts[6]..]
            .windows(nested.len())
            .position(|w| w == nested)
            .unwrap();
    if damaged {
        log[starts[10] + 16] = 7;
    }
    let mut entries: Vec<(i64, usize)> = (1..16).map(|i| (3 * i as i64, starts[i])).collect();
    if lying {
        entries.push((19, inside));
        entries.sort_by_key(|e| e.1);
    }
    let mut index = Vec::new();
    for (offset, position) in entries {
        index.extend((offset as u32).to_be_bytes());
        index.extend((position as u32).to_be_bytes());
    }
    let dir = root.join("t-0");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("00000000000000000000.log"), &log).unwrap();
    std::fs::write(dir.join("00000000000000000000.index"), &index).unwrap();
}

#[test]
fn cuts_from_a_lying_index_give_one_threads_bytes() {
    for (lying, damaged) in [(false, false), (true, false), (false, true), (true, true)] {
        let t = tempfile::tempdir().unwrap();
        segment(t.path(), lying, damaged);
        let dir = t.path().join("t-0");
        let dir = dir.to_str().unwrap();
        let cases: [&[&str]; 6] = [
            &["dump-log", dir],
            &["dump-log", "--deep-iteration", "--json", dir],
            &["dump-log", "--print-data-log", dir],
            &["grep", "-e", "value", dir],
            &["grep", "--json", "-F", "inner", dir],
            &["grep", "-c", "-e", "plain", dir],
        ];
        for case in cases {
            let run = |threads: &str| {
                let mut all = vec![case[0], "--threads", threads, "--split-bytes", "1"];
                all.extend_from_slice(&case[1..]);
                kseg(&all)
            };
            let (one, two) = (run("1"), run("2"));
            assert!(!one.stdout.is_empty(), "{case:?}");
            assert_eq!(
                (one.code, &one.stdout, &one.stderr),
                (two.code, &two.stdout, &two.stderr),
                "lying index {lying}, damaged {damaged}: {case:?}"
            );
        }
    }
}

/// `verify-index --threads 2` reads a segment in pieces (`--split-bytes`, a batch or two here)
/// on both threads and replays their entries in order into its one pass: its findings, recovery
/// preview and exit code are one thread's, on clean, damaged, transactional, internal and
/// lying-index data.
#[test]
fn verify_index_in_pieces_gives_one_threads_bytes() {
    let root = env!("CARGO_MANIFEST_DIR");
    let damaged = tempfile::tempdir().unwrap();
    crate::golden::damaged_dir(damaged.path());
    let lying = tempfile::tempdir().unwrap();
    segment(lying.path(), true, true);
    let real = format!("{root}/testdata/real/ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/kafka-data");
    let inputs = [
        format!("{root}/testdata/example-datadir"),
        format!("{root}/testdata/lookup"),
        format!("{real}/__consumer_offsets-29"),
        format!("{real}/__transaction_state-44"),
        damaged.path().to_str().unwrap().to_string(),
        lying.path().join("t-0").to_str().unwrap().to_string(),
    ];
    for input in &inputs {
        for flags in [
            &[][..],
            &["--json"],
            &["--index-only", "--json"],
            &["--mmap", "--json"],
        ] {
            let run = |threads: &str| {
                let mut all = vec!["verify-index", "--threads", threads, "--split-bytes", "1"];
                all.extend_from_slice(flags);
                all.push(input);
                kseg(&all)
            };
            let (one, two) = (run("1"), run("2"));
            assert!(!one.stdout.is_empty(), "{flags:?} {input}");
            assert_eq!(
                (one.code, &one.stdout, &one.stderr),
                (two.code, &two.stdout, &two.stderr),
                "{flags:?} {input}"
            );
        }
    }
}
