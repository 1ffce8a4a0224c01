//! Data for `bench/scaling.sh` (issue 26's scaling rows):
//!
//!   gen_scaling segments DIR N     a partition dir of N one-batch segments with their indexes
//!   gen_scaling partitions DIR N   a log dir of N empty partitions, each in its checkpoints
//!   gen_scaling members DIR N      a log dir whose __consumer_offsets-0 holds a classic group
//!                                  of N members over two generations (every assignment moves)
//!   gen_scaling kip848 DIR N       the same with a KIP-848 group: N members' metadata, the
//!                                  group epoch, then each member's current assignment

use std::path::Path;

use kseg::broker::records::{group_metadata_key, group_metadata_value};
use kseg::format::coordinator::{GroupMember, GroupMetadata};
use kseg::format::encode::{encode_batch, NewBatch, NewRecord};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (mode, dir, n) = match args.as_slice() {
        [_, mode, dir, n] => (
            mode.as_str(),
            Path::new(dir),
            n.parse::<usize>().expect("N"),
        ),
        _ => {
            eprintln!("usage: gen_scaling segments|partitions|members DIR N");
            std::process::exit(2);
        }
    };
    match mode {
        "segments" => segments(dir, n),
        "partitions" => partitions(dir, n),
        "members" => members(dir, n),
        "kip848" => kip848(dir, n),
        other => {
            eprintln!("unknown mode {other:?}");
            std::process::exit(2);
        }
    }
}

fn batch(base_offset: i64, records: &[NewRecord<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    let batch = NewBatch {
        base_offset,
        ..NewBatch::default()
    };
    encode_batch(&mut out, &batch, records, &mut Vec::new());
    out
}

fn segments(dir: &Path, n: usize) {
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
        // Index files as a rolled segment leaves them: one entry each would be past the
        // index interval, so none.
        std::fs::write(dir.join(format!("{name}.index")), b"").unwrap();
        std::fs::write(dir.join(format!("{name}.timeindex")), b"").unwrap();
    }
}

fn partitions(root: &Path, n: usize) {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(root.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    let mut checkpoint = format!("0\n{n}\n");
    for i in 0..n {
        let p = root.join(format!("orders-{i}"));
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
        std::fs::write(root.join(f), &checkpoint).unwrap();
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

fn members(root: &Path, n: usize) {
    let dir = root.join("__consumer_offsets-0");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(root.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    let key = group_metadata_key("big");
    let values: Vec<Vec<u8>> = (1..=2)
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
            group_metadata_value(&GroupMetadata {
                version: 3,
                protocol_type: "consumer".into(),
                generation: generation as i32,
                protocol: Some("range".into()),
                leader: Some("consumer-0-0f8e2b6a".into()),
                current_state_timestamp: Some(1_717_000_000_000),
                members,
            })
        })
        .collect();
    let mut log = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let record = NewRecord {
            timestamp: 1_717_000_000_000 + i as i64,
            key: Some(&key),
            value: Some(v),
            headers: &[],
        };
        log.extend(batch(i as i64, &[record]));
    }
    std::fs::write(dir.join("00000000000000000000.log"), log).unwrap();
}

fn kip848(root: &Path, n: usize) {
    use kseg::broker::records::consumer_group::{
        current_assignment_key, current_assignment_value, group_key, group_value, member_key,
        member_value, CurrentAssignment, MemberMetadata, TopicPartitions,
    };
    let dir = root.join("__consumer_offsets-0");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(root.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
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
    let mut log = Vec::new();
    for (b, chunk) in kv.chunks(500).enumerate() {
        let records: Vec<NewRecord> = chunk
            .iter()
            .map(|(k, v)| NewRecord {
                timestamp: 1_717_000_000_000,
                key: Some(k),
                value: Some(v),
                headers: &[],
            })
            .collect();
        log.extend(batch((b * 500) as i64, &records));
    }
    std::fs::write(dir.join("00000000000000000000.log"), log).unwrap();
}
