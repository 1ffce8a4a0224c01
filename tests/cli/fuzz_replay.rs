//! CI replays the fuzz corpora and regression inputs (no open-ended fuzzing in CI): every file
//! under `fuzz/seeds/<target>/` goes through the same entry point its fuzz target calls
//! (`kseg::fuzzing`, or the mini-broker's `fuzz_connection`), without a panic, abort or hang.
//! The corpora are the libFuzzer runs of FUZZING.md, minimised (`-merge=1 -max_len=4096`).

use std::path::{Path, PathBuf};

use kseg::broker::core::{Broker, BrokerConfig};
use kseg::broker::server::fuzz_connection;

/// The files of one target's corpus, sorted; a corpus that went missing fails the test.
fn corpus(target: &str, at_least: usize) -> Vec<PathBuf> {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&seeds)
        .unwrap_or_else(|e| panic!("{}: {e}", seeds.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(
        files.len() >= at_least,
        "{} inputs in {}, expected at least {at_least}",
        files.len(),
        seeds.display()
    );
    files
}

fn replay(target: &str, at_least: usize, run: impl Fn(&[u8])) {
    for f in corpus(target, at_least) {
        run(&std::fs::read(&f).unwrap());
    }
}

#[test]
fn log_corpus_replays_cleanly() {
    replay("log", 100, kseg::fuzzing::log);
}

#[test]
fn indexes_corpus_replays_cleanly() {
    replay("indexes", 20, kseg::fuzzing::indexes);
}

#[test]
fn small_files_corpus_replays_cleanly() {
    replay("small_files", 100, kseg::fuzzing::small_files);
}

#[test]
fn codecs_corpus_replays_cleanly() {
    replay("codecs", 100, kseg::fuzzing::codecs);
}

#[test]
fn coordinator_corpus_replays_cleanly() {
    replay("coordinator", 100, kseg::fuzzing::coordinator);
}

#[test]
fn verify_corpus_replays_cleanly() {
    let t = tempfile::tempdir().unwrap();
    replay("verify", 100, |data| kseg::fuzzing::verify(data, t.path()));
}

#[test]
fn broker_seeds_replay_cleanly() {
    let files = corpus("broker", 5);
    let t = tempfile::tempdir().unwrap();
    let mut config = BrokerConfig::new(t.path().join("data"));
    config.offsets_topic_partitions = 2;
    config.transaction_topic_partitions = 2;
    let (mut broker, _) = Broker::open(config).unwrap();
    for f in &files {
        // A generous budget: the seeds' CreateTopics make files on a blocking thread, which a
        // loaded machine may take longer than a fuzzer's 50 ms for.
        broker = fuzz_connection(
            broker,
            &std::fs::read(f).unwrap(),
            std::time::Duration::from_secs(10),
        );
    }
    // The seeds created topic "t" with 3 partitions and refused the 2^31-1-partition one.
    assert_eq!(broker.topic("t").map(|t| t.partitions.len()), Some(3));
    assert!(broker.topic("h").is_none());
    broker.shutdown().unwrap();
}
