//! `kseg rescue` across reruns into the mini-broker (issue 45, items 6–8): the scenarios of
//! `tests/mini_broker_support/rescue_scenarios.rs` (run against Kafka 4.4 by tests/oracle too),
//! and a `--state` taken to another cluster.
#![cfg(feature = "rescue")]

use crate::mini_broker_support::rescue_scenarios::*;
use crate::mini_broker_support::BrokerProcess;

#[test]
fn a_state_file_is_tied_to_its_cluster_and_topics() {
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("target"), &[]);
    let target = Target::new(&broker.bootstrap());
    let state = state_reused_after_the_topic_was_recreated(&target, t.path());
    // The same state against another cluster: said, not taken for a resume.
    let other = BrokerProcess::start(&t.path().join("other"), &[]);
    let o = rescue(&[
        t.path().join("dead-broker").to_str().unwrap(),
        "--bootstrap",
        &other.bootstrap(),
        "--topic-map",
        "ledger:ledger-again",
        "--create-topics",
        "--groups",
        "--state",
        state.to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("it was written for cluster") && err.contains("--bootstrap reaches cluster"),
        "{err}"
    );
    other.stop();
    broker.stop();
}

#[test]
fn a_refused_record_stops_its_partition_and_the_rerun_resumes_from_it() {
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("target"), &[]);
    refused_record_stops_its_partition(&Target::new(&broker.bootstrap()), t.path());
    broker.stop();
}

#[test]
fn group_offsets_are_checked_against_the_map_and_the_target() {
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("target"), &[]);
    groups_check_the_map_against_the_target(&Target::new(&broker.bootstrap()), t.path());
    broker.stop();
}

/// A record stamped two hours ahead: Kafka 4's `message.timestamp.after.max.ms` (one hour)
/// refuses it (INVALID_TIMESTAMP). The run says so before sending (with the records stamped in
/// the future), sends the record alone, and its partition stops there: the record before it
/// is in the target, the one after is not (issue 44 item 16, issue 45 item 7).
#[test]
fn a_record_stamped_too_far_ahead_stops_its_partition() {
    use crate::common::{batch, rec, write, BatchSpec};
    let t = tempfile::tempdir().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let at = |offset: i64, ts: i64, v: &str| {
        let spec = BatchSpec {
            base_offset: offset,
            base_timestamp: ts,
            ..Default::default()
        };
        batch(spec, &[rec("k", v)])
    };
    let src = t.path().join("dead-broker");
    write(
        &src.join("clock-0/00000000000000000000.log"),
        &[
            &at(0, now - 60_000, "before"),
            &at(1, now + 2 * 3_600_000, "ahead"),
            &at(2, now - 30_000, "after"),
        ],
    );
    let broker = BrokerProcess::start(&t.path().join("target"), &[]);
    let target = Target::new(&broker.bootstrap());
    let o = rescue(&[
        src.to_str().unwrap(),
        "--bootstrap",
        &broker.bootstrap(),
        "--create-topics",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("1 records of clock-0 are stamped in the future")
            && err.contains("clock-0 offset 1: its timestamp 20")
            && err.contains(
                "is more than target topic clock's message.timestamp.after.max.ms=3600000 ahead \
                 (INVALID_TIMESTAMP): the target will refuse it, and clock-0 stops there"
            )
            && err.contains("clock-0 stopped at offset 1: the target refused the record"),
        "{err}"
    );
    assert_eq!(
        target.records("clock", 0),
        [("k".to_string(), "before".to_string())]
    );
    broker.stop();
}
