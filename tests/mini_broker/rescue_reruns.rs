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
