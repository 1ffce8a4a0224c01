//! `kseg transactions`: coordinator state, and open/hanging transactions in data partitions.

use crate::common::*;

fn s16(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as i16).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// TransactionLogValue v0 for producer 42.
fn txn_value(status: i8, topic: &str) -> Vec<u8> {
    let mut v = vec![0, 0];
    v.extend_from_slice(&42i64.to_be_bytes());
    v.extend_from_slice(&3i16.to_be_bytes());
    v.extend_from_slice(&60000i32.to_be_bytes());
    v.push(status as u8);
    v.extend_from_slice(&1i32.to_be_bytes());
    s16(&mut v, topic);
    v.extend_from_slice(&1i32.to_be_bytes());
    v.extend_from_slice(&0i32.to_be_bytes());
    v.extend_from_slice(&1_700_000_100_000i64.to_be_bytes());
    v.extend_from_slice(&1_700_000_000_000i64.to_be_bytes());
    v
}

pub(crate) fn setup(status: i8) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    std::fs::write(root.join("meta.properties"), "version=1\n").unwrap();
    let mut key = vec![0, 0];
    s16(&mut key, "payments-tx");
    let value = txn_value(status, "payments");
    let rec0 = Rec {
        key: Some(&key),
        value: Some(&value),
        headers: vec![],
        ts_delta: 0,
    };
    write(
        &root.join("__transaction_state-7/00000000000000000000.log"),
        &[&batch(BatchSpec::default(), &[rec0])],
    );
    let txn = |off: i64, pid: i64, ts: i64| {
        batch(
            BatchSpec {
                base_offset: off,
                attributes: 0x10,
                producer_id: pid,
                producer_epoch: 3,
                base_sequence: 0,
                base_timestamp: ts,
                ..Default::default()
            },
            &[rec("k", "v")],
        )
    };
    let data = [
        txn(0, 41, 1_700_000_000_000),
        marker(1, 41, true, 0),
        txn(2, 42, 1_700_000_010_000),
        txn(3, 42, 1_700_000_020_000),
        batch(
            BatchSpec {
                base_offset: 4,
                base_timestamp: 1_700_000_070_000,
                ..Default::default()
            },
            &[rec("k", "plain")],
        ),
    ];
    let refs: Vec<&[u8]> = data.iter().map(|b| b.as_slice()).collect();
    write(&root.join("payments-0/00000000000000000000.log"), &refs);
    t
}

#[test]
fn open_transaction_with_complete_coordinator_state_is_hanging() {
    let t = setup(4); // CompleteCommit
    let r = kseg(&["transactions", "--json", t.path().to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let lines = json_lines(&r.stdout);
    let ids = of_type(&lines, "transactionalId");
    assert_eq!(ids[0]["transactionalId"], "payments-tx");
    assert_eq!(ids[0]["state"], "CompleteCommit");
    assert_eq!(ids[0]["partitions"][0]["topic"], "payments");
    let open = of_type(&lines, "openTransaction");
    assert_eq!(open.len(), 1);
    assert_eq!(open[0]["producerId"], 42);
    assert_eq!(open[0]["firstOffset"], 2);
    assert_eq!(open[0]["lastOffset"], 3);
    // Open from its first timestamp to the newest write in the dir (the coordinator's record
    // at 100 s), not to its own partition's newest record (70 s).
    assert_eq!(open[0]["ageMs"], 90_000);
    assert_eq!(open[0]["hanging"], true);
    // What it blocks, and the command that ends it.
    assert_eq!(open[0]["lastStableOffset"], 2);
    assert_eq!(open[0]["recordsHeld"], 3);
    assert_eq!(open[0]["logEndOffset"], 5);
    assert_eq!(
        open[0]["abortCommand"],
        "kafka-transactions.sh --bootstrap-server BROKER:9092 abort --topic payments \
         --partition 0 --start-offset 2"
    );
}

#[test]
fn ongoing_transaction_is_in_progress() {
    let t = setup(1); // Ongoing
    let r = kseg(&["transactions", t.path().to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Ongoing"));
    assert!(r.stdout.contains("in progress"));
}

/// A `__transaction_state` key version this kseg does not know is skipped, as Kafka's
/// TransactionStateManager skips it: a note names it, the known ids are still read, exit 0.
#[test]
fn unknown_transaction_key_versions_are_noted_and_skipped() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    std::fs::write(root.join("meta.properties"), "version=1\n").unwrap();
    let mut key = vec![0, 0];
    s16(&mut key, "payments-tx");
    let value = txn_value(4, "payments");
    let unknown_key = [0u8, 7, 1, 2, 3];
    let records = [
        Rec {
            key: Some(&unknown_key),
            value: Some(b"from a newer Kafka"),
            headers: vec![],
            ts_delta: 0,
        },
        Rec {
            key: Some(&key),
            value: Some(&value),
            headers: vec![],
            ts_delta: 0,
        },
    ];
    write(
        &root.join("__transaction_state-3/00000000000000000000.log"),
        &[&batch(BatchSpec::default(), &records)],
    );
    let r = kseg(&["transactions", root.to_str().unwrap(), "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("kseg: note: __transaction_state-3: offset 0: unknown record type 7 skipped"),
        "{}",
        r.stderr
    );
    let lines = json_lines(&r.stdout);
    assert_eq!(of_type(&lines, "transactionalId").len(), 1);
    assert_eq!(of_type(&lines, "skippedRecord").len(), 1);
    assert_eq!(of_type(&lines, "summary")[0]["skippedUnknownTypes"], 1);
}
