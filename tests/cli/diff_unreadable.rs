//! `kseg diff` with a segment it cannot read (issue 26): the segment's name does not set the
//! replica's log end, and the problem names the file.

use std::path::Path;

use crate::common::{batch, json_lines, kseg, of_type, rec, write, BatchSpec};

fn replica(root: &Path, node: i32) -> std::path::PathBuf {
    let dir = root.join(format!("broker-{node}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("meta.properties"),
        format!("version=1\nnode.id={node}\n"),
    )
    .unwrap();
    let records: Vec<_> = (0..10).map(|_| rec("k", "v")).collect();
    write(
        &dir.join("orders-0/00000000000000000000.log"),
        &[&batch(BatchSpec::default(), &records)],
    );
    dir
}

#[test]
fn an_unreadable_segment_does_not_set_the_log_end() {
    let t = tempfile::tempdir().unwrap();
    let a = replica(t.path(), 1);
    let b = replica(t.path(), 2);
    // A FIFO where a later segment should be: listed as a segment, not read (only regular
    // files are opened).
    let fifo = b.join("orders-0/00000000000000000100.log");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let run = kseg(&["diff", "--json", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("00000000000000000100.log"),
        "the problem names the file: {}",
        run.stderr
    );
    let lines = json_lines(&run.stdout);
    let ends: Vec<i64> = of_type(&lines, "replica")
        .iter()
        .map(|r| r["logEndOffset"].as_i64().unwrap())
        .collect();
    assert_eq!(ends, [10, 10], "{}", run.stdout);
}

/// A replica dir of `orders-0` holding `runs` (first offset, records, leader epoch), one
/// batch each, and the `leader-epoch-checkpoint` `checkpoint` if given.
fn replica_of(
    root: &Path,
    node: i32,
    runs: &[(i64, usize, i32)],
    checkpoint: Option<&str>,
) -> std::path::PathBuf {
    let dir = root.join(format!("broker-{node}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("meta.properties"),
        format!("version=1\nnode.id={node}\n"),
    )
    .unwrap();
    let batches: Vec<Vec<u8>> = runs
        .iter()
        .map(|&(base, n, epoch)| {
            let records: Vec<_> = (0..n).map(|_| rec("k", "v")).collect();
            batch(
                BatchSpec {
                    base_offset: base,
                    leader_epoch: epoch,
                    base_timestamp: 1_700_000_000_000 + base,
                    ..Default::default()
                },
                &records,
            )
        })
        .collect();
    let refs: Vec<&[u8]> = batches.iter().map(|b| b.as_slice()).collect();
    write(&dir.join("orders-0/00000000000000000000.log"), &refs);
    if let Some(c) = checkpoint {
        std::fs::write(dir.join("orders-0/leader-epoch-checkpoint"), c).unwrap();
    }
    dir
}

/// Issue 45: diff reads a non-monotonic `leader-epoch-checkpoint` ("0@0 2@30 1@40 2@30") as
/// Kafka's `LeaderEpochFileCache` loads it (0@0 2@30), the model lookup and verify-index use,
/// not raw. The follower, which wrote 20..49 in epoch 1, asks the leader for epoch 1: the
/// leader's cache answers epoch 0 ending at 30, and the follower's epoch 0 ends at 20, so it
/// truncates to 20 (read raw, the leader answered epoch 1 from the stale 1@40: truncate to 30,
/// keeping ten records that differ from the leader's).
#[test]
fn a_non_monotonic_epoch_checkpoint_is_read_as_kafka_loads_it() {
    let t = tempfile::tempdir().unwrap();
    let leader = replica_of(
        t.path(),
        1,
        &[(0, 30, 0), (30, 30, 2)],
        Some("0\n4\n0 0\n2 30\n1 40\n2 30\n"),
    );
    let follower = replica_of(t.path(), 2, &[(0, 20, 0), (20, 30, 1)], None);
    let run = kseg(&[
        "diff",
        "--json",
        leader.to_str().unwrap(),
        follower.to_str().unwrap(),
    ]);
    let lines = json_lines(&run.stdout);
    let leader_epochs = &of_type(&lines, "replica")[0]["leaderEpochs"];
    assert_eq!(
        leader_epochs.to_string(),
        r#"[{"epoch":0,"startOffset":0},{"epoch":2,"startOffset":30}]"#
    );
    let truncate_to: Vec<i64> = of_type(&lines, "divergence")
        .iter()
        .filter_map(|p| p["truncationOffset"].as_i64())
        .collect();
    assert_eq!(truncate_to, [20], "{}", run.stdout);
}
