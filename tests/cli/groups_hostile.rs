//! `kseg groups` on hostile commits (issue 14 item 13): a group id that is not UTF-8 is named
//! as such (where, and escaped), and a committed offset of i64::MIN does not wrap the lag.

use kseg::format::encode::{encode_batch, NewBatch, NewRecord};

fn s16(out: &mut Vec<u8>, s: &[u8]) {
    out.extend_from_slice(&(s.len() as i16).to_be_bytes());
    out.extend_from_slice(s);
}

fn commit(group: &[u8], topic: &str, offset: i64) -> (Vec<u8>, Vec<u8>) {
    let mut key = vec![0, 1];
    s16(&mut key, group);
    s16(&mut key, topic.as_bytes());
    key.extend_from_slice(&0i32.to_be_bytes());
    let mut value = vec![0, 3];
    value.extend_from_slice(&offset.to_be_bytes());
    value.extend_from_slice(&0i32.to_be_bytes());
    s16(&mut value, b"");
    value.extend_from_slice(&1_717_000_000_000i64.to_be_bytes());
    (key, value)
}

#[test]
fn a_non_utf8_group_id_and_an_i64_min_offset() {
    let t = tempfile::tempdir().unwrap();
    let ld = t.path();
    std::fs::write(ld.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    std::fs::create_dir_all(ld.join("__consumer_offsets-0")).unwrap();
    std::fs::create_dir_all(ld.join("orders-0")).unwrap();
    // The data partition: 3 records, log end offset 3.
    let mut data = Vec::new();
    let recs: Vec<NewRecord> = (0..3)
        .map(|i| NewRecord {
            timestamp: 1_717_000_000_000 + i,
            key: None,
            value: Some(b"v"),
            headers: &[],
        })
        .collect();
    encode_batch(&mut data, &NewBatch::default(), &recs, &mut Vec::new());
    std::fs::write(ld.join("orders-0/00000000000000000000.log"), &data).unwrap();
    let bad = commit(b"bad\xffgroup\x1b", "orders", 1);
    let min = commit(b"g-min", "orders", i64::MIN);
    let recs = [&bad, &min].map(|(k, v)| NewRecord {
        timestamp: 1_717_000_000_000,
        key: Some(k),
        value: Some(v),
        headers: &[],
    });
    let mut log = Vec::new();
    encode_batch(&mut log, &NewBatch::default(), &recs, &mut Vec::new());
    std::fs::write(
        ld.join("__consumer_offsets-0/00000000000000000000.log"),
        &log,
    )
    .unwrap();
    let out = assert_cmd::Command::cargo_bin("kseg")
        .unwrap()
        .args(["groups", "--format", "tsv", ld.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Undecodable record: exit 1.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains("undecodable record"))
        .expect("the bad group id is reported");
    assert!(
        line.contains("the group id is not valid UTF-8: invalid byte at byte 7 of the record key"),
        "{line}"
    );
    assert!(
        line.contains("00000000000000000000.log at byte 0"),
        "{line}"
    );
    assert!(line.contains(r#""bad\xffgroup\x1b""#), "{line}");
    assert!(!line.contains("too short"), "{line}");
    assert!(!stderr.contains('\x1b'), "raw ESC: {stderr:?}");
    // LAG saturates: 3 - i64::MIN is i64::MAX, not a negative number.
    let row = stdout
        .lines()
        .find(|l| l.starts_with("g-min\t"))
        .expect("g-min's row");
    let cells: Vec<&str> = row.split('\t').collect();
    assert_eq!(cells[3], i64::MIN.to_string(), "{row}");
    assert_eq!(cells[5], i64::MAX.to_string(), "{row}");
}

/// A group whose records are in two coordinator partitions (an offset in one, its tombstone in
/// the next): the parallel replay must give what the one-after-another replay gives (the
/// tombstone, read last, wins), so `--threads 2` falls back to it.
#[test]
fn a_group_in_two_coordinator_partitions_replays_as_one_thread_does() {
    let t = tempfile::tempdir().unwrap();
    let ld = t.path();
    std::fs::write(ld.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    let write = |partition: i32, records: &[(Vec<u8>, Option<Vec<u8>>)]| {
        let dir = ld.join(format!("__consumer_offsets-{partition}"));
        std::fs::create_dir_all(&dir).unwrap();
        let recs: Vec<NewRecord> = records
            .iter()
            .map(|(k, v)| NewRecord {
                timestamp: 1_717_000_000_000,
                key: Some(k),
                value: v.as_deref(),
                headers: &[],
            })
            .collect();
        let mut log = Vec::new();
        encode_batch(&mut log, &NewBatch::default(), &recs, &mut Vec::new());
        std::fs::write(dir.join("00000000000000000000.log"), &log).unwrap();
    };
    let (k, v) = commit(b"g", "orders", 5);
    let (other_k, other_v) = commit(b"h", "orders", 7);
    write(0, &[(k.clone(), Some(v)), (other_k, Some(other_v))]);
    write(1, &[(k, None)]);
    let run = |threads: &str| {
        let out = assert_cmd::Command::cargo_bin("kseg")
            .unwrap()
            .args([
                "groups",
                "--json",
                "--threads",
                threads,
                ld.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let one = run("1");
    assert!(!one.contains(r#""group":"g""#), "{one}");
    assert!(one.contains(r#""group":"h""#), "{one}");
    assert_eq!(one, run("2"));
}
