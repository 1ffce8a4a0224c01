//! Generated data dirs for the scaling tests (`tests/segment_scaling.rs`,
//! `tests/memory_scaling.rs`) and the scaling benchmark's data (`examples/gen_scaling.rs`,
//! `bench/scaling.sh`): one generator per shape, included by each with `#[path]`.
#![allow(dead_code)] // each includer uses some of the generators

use std::path::Path;

use kseg::broker::records::consumer_group::{
    current_assignment_key, current_assignment_value, group_key, group_value, member_key,
    member_value, CurrentAssignment, MemberMetadata, TopicPartitions,
};
use kseg::broker::records::{group_metadata_key, group_metadata_value};
use kseg::format::coordinator::{GroupMember, GroupMetadata};
use kseg::format::encode::{encode_batch, NewBatch, NewRecord};

/// A v2 batch at `base_offset` holding `records`.
fn batch(base_offset: i64, records: &[NewRecord<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    let batch = NewBatch {
        base_offset,
        ..NewBatch::default()
    };
    encode_batch(&mut out, &batch, records, &mut Vec::new());
    out
}

/// Writes `records` to `log` in batches of 500 (as a coordinator writes a large group).
fn write_in_batches(log: &Path, kv: &[(Vec<u8>, Vec<u8>)], timestamp: i64) {
    let mut out = Vec::new();
    for (b, chunk) in kv.chunks(500).enumerate() {
        let records: Vec<NewRecord> = chunk
            .iter()
            .map(|(k, v)| NewRecord {
                timestamp,
                key: Some(k),
                value: Some(v),
                headers: &[],
            })
            .collect();
        out.extend(batch((b * 500) as i64, &records));
    }
    std::fs::write(log, out).unwrap();
}

/// A log dir's `meta.properties` and its `__consumer_offsets-0` dir; returns the partition dir.
fn offsets_partition(log_dir: &Path) -> std::path::PathBuf {
    let dir = log_dir.join("__consumer_offsets-0");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(log_dir.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    dir
}

/// A partition dir of `n` segments of one batch (one record) each, with their index files as a
/// rolled segment leaves them: one batch is under the index interval, so both are empty.
pub fn one_batch_segments(dir: &Path, n: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for i in 0..n as i64 {
        let record = NewRecord {
            timestamp: 1_700_000_000_000 + i,
            key: Some(b"k"),
            value: Some(b"v"),
            headers: &[],
        };
        let name = format!("{i:020}");
        std::fs::write(dir.join(format!("{name}.log")), batch(i, &[record])).unwrap();
        std::fs::write(dir.join(format!("{name}.index")), b"").unwrap();
        std::fs::write(dir.join(format!("{name}.timeindex")), b"").unwrap();
    }
}

/// A broker's log dir of `n` empty partitions (`orders-0` ..), every one listed in its
/// checkpoints.
pub fn empty_partitions(log_dir: &Path, n: usize) {
    std::fs::create_dir_all(log_dir).unwrap();
    std::fs::write(log_dir.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    let mut checkpoint = format!("0\n{n}\n");
    for i in 0..n {
        let p = log_dir.join(format!("orders-{i}"));
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(p.join("00000000000000000000.log"), b"").unwrap();
        std::fs::write(p.join("00000000000000000000.index"), b"").unwrap();
        checkpoint.push_str(&format!("orders {i} 0\n"));
    }
    for f in [
        "recovery-point-offset-checkpoint",
        "log-start-offset-checkpoint",
        "replication-offset-checkpoint",
        "cleaner-offset-checkpoint",
    ] {
        std::fs::write(log_dir.join(f), &checkpoint).unwrap();
    }
}

/// ConsumerProtocolAssignment v0 of one partition of `orders`.
fn assignment(partition: i32) -> Vec<u8> {
    let mut b = vec![0, 0];
    b.extend_from_slice(&1i32.to_be_bytes());
    b.extend_from_slice(&6i16.to_be_bytes());
    b.extend_from_slice(b"orders");
    b.extend_from_slice(&1i32.to_be_bytes());
    b.extend_from_slice(&partition.to_be_bytes());
    b.extend_from_slice(&(-1i32).to_be_bytes());
    b
}

/// A log dir whose `__consumer_offsets-0` holds classic group `big` of `n` members over two
/// generations, in which every member's assignment moves.
pub fn classic_group(log_dir: &Path, n: usize) {
    let dir = offsets_partition(log_dir);
    let key = group_metadata_key("big");
    let kv: Vec<(Vec<u8>, Vec<u8>)> = (1..=2)
        .map(|generation| {
            let members = (0..n)
                .map(|i| GroupMember {
                    member_id: format!("consumer-{i}-0f8e2b6a"),
                    group_instance_id: None,
                    client_id: format!("consumer-{i}"),
                    client_host: "/10.0.0.1".into(),
                    rebalance_timeout: Some(300_000),
                    session_timeout: 45_000,
                    subscription_bytes: Vec::new(),
                    assignment_bytes: assignment(((i + generation) % n) as i32),
                    subscription: None,
                    assignment: None,
                })
                .collect();
            let value = group_metadata_value(&GroupMetadata {
                version: 3,
                protocol_type: "consumer".into(),
                generation: generation as i32,
                protocol: Some("range".into()),
                leader: Some("consumer-0-0f8e2b6a".into()),
                current_state_timestamp: Some(1_717_000_000_000),
                members,
            });
            (key.clone(), value)
        })
        .collect();
    // One generation to a batch, a second apart.
    let mut log = Vec::new();
    for (i, (k, v)) in kv.iter().enumerate() {
        let record = NewRecord {
            timestamp: 1_717_000_000_000 + i as i64,
            key: Some(k),
            value: Some(v),
            headers: &[],
        };
        log.extend(batch(i as i64, &[record]));
    }
    std::fs::write(dir.join("00000000000000000000.log"), log).unwrap();
}

/// A log dir whose `__consumer_offsets-0` holds KIP-848 group `big` of `n` members as Kafka
/// 4.4 writes it: each member's metadata (type 5), the group epoch (type 3), then each member's
/// current assignment (type 8), 500 records to a batch.
pub fn kip848_group(log_dir: &Path, n: usize) {
    let dir = offsets_partition(log_dir);
    let mut kv: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for i in 0..n {
        let m = MemberMetadata {
            instance_id: None,
            rack_id: None,
            client_id: format!("consumer-{i}"),
            client_host: "/10.0.0.1".into(),
            subscribed_topic_names: vec!["orders".into()],
            subscribed_topic_regex: None,
            rebalance_timeout_ms: 45_000,
            server_assignor: Some("uniform".into()),
        };
        kv.push((member_key("big", &format!("m{i}")), member_value(&m)));
    }
    kv.push((group_key("big"), group_value(1, 0)));
    for i in 0..n {
        let a = CurrentAssignment {
            member_epoch: 1,
            previous_member_epoch: 0,
            state: 0,
            assigned: vec![TopicPartitions {
                topic_id: [7; 16],
                partitions: vec![i as i32],
                assignment_epochs: None,
            }],
            pending_revocation: vec![],
        };
        kv.push((
            current_assignment_key("big", &format!("m{i}")),
            current_assignment_value(&a),
        ));
    }
    write_in_batches(
        &dir.join("00000000000000000000.log"),
        &kv,
        1_717_000_000_000,
    );
}

/// A log dir whose `__consumer_offsets-0` holds `n` offset commits (OffsetCommitValue v3) of
/// group `billing`, to partitions 0..n of `orders` (so none replaces another), 500 to a batch.
pub fn offset_commits(log_dir: &Path, n: usize) {
    use kseg::broker::records::{offset_commit_key, offset_commit_value};
    use kseg::format::coordinator::OffsetCommitValue;
    let dir = offsets_partition(log_dir);
    let kv: Vec<(Vec<u8>, Vec<u8>)> = (0..n)
        .map(|i| {
            let value = OffsetCommitValue {
                version: 3,
                offset: i as i64,
                leader_epoch: Some(0),
                metadata: String::new(),
                commit_timestamp: 1_717_000_000_000,
                expire_timestamp: None,
                topic_id: None,
            };
            (
                offset_commit_key("billing", "orders", i as i32),
                offset_commit_value(&value),
            )
        })
        .collect();
    write_in_batches(
        &dir.join("00000000000000000000.log"),
        &kv,
        1_717_000_000_000,
    );
}

/// `kseg retention`'s benchmark and scaling data: a log dir shut down cleanly, of `n` segments
/// in 100 partitions (fewer when `n` is small), each segment one batch of four 256-byte records
/// with its time index's entry; the first 30% of each partition's segments stamped ten days
/// before [`RETENTION_NOW`], the rest an hour before, so that the check at it deletes those and
/// stops inside the partition (no log end offset needed).
pub fn retention_log_dir(log_dir: &Path, n: usize) {
    let partitions = n.clamp(1, 100);
    let per = n / partitions;
    let value = [b'v'; 256];
    let mut hw = String::new();
    for p in 0..partitions {
        let dir = log_dir.join(format!("orders{p}-0"));
        std::fs::create_dir_all(&dir).unwrap();
        for j in 0..per as i64 {
            let base = j * 4;
            let ts = if j < per as i64 * 3 / 10 {
                RETENTION_NOW - 10 * 86_400_000 + j
            } else {
                RETENTION_NOW - 3_600_000 + j
            };
            let records: Vec<NewRecord> = (0..4)
                .map(|_| NewRecord {
                    timestamp: ts,
                    key: Some(b"k"),
                    value: Some(&value),
                    headers: &[],
                })
                .collect();
            let name = format!("{base:020}");
            std::fs::write(dir.join(format!("{name}.log")), batch(base, &records)).unwrap();
            std::fs::write(dir.join(format!("{name}.index")), b"").unwrap();
            let mut t = ts.to_be_bytes().to_vec();
            t.extend_from_slice(&3i32.to_be_bytes());
            std::fs::write(dir.join(format!("{name}.timeindex")), t).unwrap();
        }
        hw.push_str(&format!("orders{p} 0 {}\n", per * 4));
    }
    std::fs::write(
        log_dir.join("replication-offset-checkpoint"),
        format!("0\n{partitions}\n{hw}"),
    )
    .unwrap();
    std::fs::write(
        log_dir.join(".kafka_cleanshutdown"),
        "{\"version\":0,\"brokerEpoch\":1}",
    )
    .unwrap();
    std::fs::write(log_dir.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
}

/// The instant [`retention_log_dir`]'s data is judged at: 2026-01-01T00:00:00Z.
pub const RETENTION_NOW: i64 = 1_767_225_600_000;
