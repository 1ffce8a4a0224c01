//! Issue 23's admin APIs, asked at the wire with the same functions the oracle tests ask Kafka
//! 4.4 (`tests/mini_broker_support/wire.rs`): DescribeProducers, ListTransactions and
//! DescribeTransactions from the real producer and transaction state, DescribeLogDirs with the
//! real sizes, DescribeQuorum of the single voter.

use crate::mini_broker_support::{wire, BrokerProcess};

#[test]
fn producers_and_transactions_are_described_from_their_state() {
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &[]);
    wire::transactions_described(&broker.bootstrap(), "described");
    broker.stop();
}

#[test]
fn log_dirs_and_the_quorum_are_described() {
    let t = tempfile::tempdir().unwrap();
    let data = t.path().join("data");
    let broker = BrokerProcess::start(&data, &[]);
    wire::log_dirs_described(&broker.bootstrap(), &data, "sized");
    wire::quorum_described(&broker.bootstrap());
    broker.stop();
}
