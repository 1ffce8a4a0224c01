//! Work per segment stays flat as a partition grows: finding a segment's index files is not a
//! scan of the whole partition (issue 26). The counts are of work done (file entries examined
//! by sibling look-ups), never of wall time. One test function: the counter is process-wide.

mod common;
use common::*;
use kseg::analysis::verify::{verify_partition, VerifyOptions};
use kseg::cli::{Cli, Command};
use kseg::storage::discover::{discover, sibling_work, PartitionDir};
use std::path::Path;

/// A partition dir of `n` one-batch segments, each with its `.index` and `.timeindex`.
fn partition(root: &Path, n: i64) -> PartitionDir {
    let dir = root.join(format!("t{n}-0"));
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..n {
        let b = batch(
            BatchSpec {
                base_offset: i,
                base_timestamp: 1_700_000_000_000 + i,
                ..Default::default()
            },
            &[rec("k", "v")],
        );
        write(&dir.join(format!("{i:020}.log")), &[&b]);
        write(&dir.join(format!("{i:020}.index")), &[]);
        write(&dir.join(format!("{i:020}.timeindex")), &[]);
    }
    let set = discover(&[dir]).unwrap();
    set.partitions.into_iter().next().unwrap()
}

/// The sibling work `f` does.
fn work(f: impl FnOnce()) -> u64 {
    let before = sibling_work();
    f();
    sibling_work() - before
}

fn recover(p: &PartitionDir, out: &Path) {
    let cli = <Cli as clap::Parser>::try_parse_from([
        "kseg".as_ref(),
        "recover".as_ref(),
        "--json".as_ref(),
        p.path.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ])
    .unwrap();
    let Command::Recover(args) = cli.command else {
        unreachable!()
    };
    kseg::cmd::recover::run(args).unwrap();
}

#[test]
fn sibling_lookups_are_linear_in_segments() {
    let t = tempfile::tempdir().unwrap();
    let small = partition(t.path(), 250);
    let large = partition(t.path(), 1000);
    let opts = VerifyOptions::default();

    let (v1, v4) = (
        work(|| drop(verify_partition(&small, None, &opts))),
        work(|| drop(verify_partition(&large, None, &opts))),
    );
    assert!(v1 > 0, "verify looks up no siblings");
    assert!(
        v4 <= 5 * v1,
        "verify-index: 4x the segments, {v4} vs {v1} entries examined"
    );

    let (r1, r4) = (
        work(|| recover(&small, &t.path().join("r1"))),
        work(|| recover(&large, &t.path().join("r4"))),
    );
    assert!(r1 > 0, "recover looks up no siblings");
    assert!(
        r4 <= 5 * r1,
        "recover: 4x the segments, {r4} vs {r1} entries examined"
    );
}

/// A log dir whose `__consumer_offsets-0` holds one KIP-848 group of `n` members as Kafka 4.4
/// writes it: each member's metadata (type 5), the group epoch (type 3), then each member's
/// current assignment (type 8).
fn kip848_group(root: &Path, n: usize) -> std::path::PathBuf {
    use kseg::broker::records::consumer_group::{
        current_assignment_key, current_assignment_value, group_key, group_value, member_key,
        member_value, CurrentAssignment, MemberMetadata, TopicPartitions,
    };
    use kseg::format::encode::{encode_batch, NewBatch, NewRecord};
    let dir = root.join(format!("g{n}"));
    std::fs::create_dir_all(dir.join("__consumer_offsets-0")).unwrap();
    std::fs::write(dir.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    let mut kv: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for i in 0..n {
        let m = MemberMetadata {
            instance_id: None,
            rack_id: None,
            client_id: format!("c{i}"),
            client_host: "/127.0.0.1".into(),
            subscribed_topic_names: vec!["orders".into()],
            subscribed_topic_regex: None,
            rebalance_timeout_ms: 45_000,
            server_assignor: Some("uniform".into()),
        };
        kv.push((member_key("g", &format!("m{i}")), member_value(&m)));
    }
    kv.push((group_key("g"), group_value(1, 0)));
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
            current_assignment_key("g", &format!("m{i}")),
            current_assignment_value(&a),
        ));
    }
    let mut log = Vec::new();
    for (b, chunk) in kv.chunks(500).enumerate() {
        let recs: Vec<NewRecord> = chunk
            .iter()
            .map(|(k, v)| NewRecord {
                timestamp: 1_717_000_000_000,
                key: Some(k),
                value: Some(v),
                headers: &[],
            })
            .collect();
        let batch = NewBatch {
            base_offset: (b * 500) as i64,
            ..NewBatch::default()
        };
        encode_batch(&mut log, &batch, &recs, &mut Vec::new());
    }
    std::fs::write(
        dir.join("__consumer_offsets-0/00000000000000000000.log"),
        &log,
    )
    .unwrap();
    dir
}

/// `groups --rebalances` over a KIP-848 generation compares each member a bounded number of
/// times: each member's assignment record was a scan of the generation's members and a
/// recomputation of what moved (quadratic in members: 16x the work for 4x the members).
#[test]
fn rebalance_history_is_linear_in_members() {
    use kseg::analysis::rebalances::rebalance_work;
    let t = tempfile::tempdir().unwrap();
    let rebalances = |dir: &Path| {
        let cli = <Cli as clap::Parser>::try_parse_from([
            "kseg".as_ref(),
            "groups".as_ref(),
            "--rebalances".as_ref(),
            "--json".as_ref(),
            "--threads".as_ref(),
            "1".as_ref(),
            dir.as_os_str(),
        ])
        .unwrap();
        let Command::Groups(args) = cli.command else {
            unreachable!()
        };
        let before = rebalance_work();
        kseg::cmd::groups::run(args).unwrap();
        rebalance_work() - before
    };
    let (small, large) = (kip848_group(t.path(), 500), kip848_group(t.path(), 2_000));
    let (w1, w4) = (rebalances(&small), rebalances(&large));
    assert!(w1 > 0, "--rebalances compares no members");
    assert!(
        w4 <= 5 * w1,
        "--rebalances: 4x the members, {w4} vs {w1} members compared"
    );
}
