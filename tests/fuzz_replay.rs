//! CI replays the fuzz seeds and regression inputs (no open-ended fuzzing in CI): every file
//! under fuzz/seeds/broker goes through the mini-broker's framing and dispatch exactly as the
//! `broker` fuzz target feeds it, against one broker, without a panic or abort.

use std::path::Path;

use kseg::broker::core::{Broker, BrokerConfig};
use kseg::broker::server::fuzz_connection;

#[test]
fn broker_seeds_replay_cleanly() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/broker");
    let mut files: Vec<_> = std::fs::read_dir(&seeds)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 5,
        "{} seeds in {}",
        files.len(),
        seeds.display()
    );
    let t = tempfile::tempdir().unwrap();
    let mut config = BrokerConfig::new(t.path().join("data"));
    config.offsets_topic_partitions = 2;
    config.transaction_topic_partitions = 2;
    let (mut broker, _) = Broker::open(config).unwrap();
    for f in &files {
        broker = fuzz_connection(broker, &std::fs::read(f).unwrap());
    }
    // The seeds created topic "t" with 3 partitions and refused the 2^31-1-partition one.
    assert_eq!(broker.topic("t").map(|t| t.partitions.len()), Some(3));
    assert!(broker.topic("h").is_none());
    broker.shutdown().unwrap();
}
