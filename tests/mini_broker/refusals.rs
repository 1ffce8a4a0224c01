//! Issue 26's mini-broker items: what Kafka refuses is refused with Kafka's error and message
//! (asked with the functions the oracle tests ask Kafka 4.4, `tests/mini_broker_support/wire.rs`),
//! and what a hostile client asks for is bounded.

use crate::mini_broker_support::{wire, BrokerProcess};

#[test]
fn create_partitions_is_capped_per_request_and_creates_nothing_it_refuses() {
    let t = tempfile::tempdir().unwrap();
    let data = t.path().join("data");
    let broker = BrokerProcess::start(&data, &[]);
    wire::create_partitions_refused(&broker.bootstrap(), "grow-a", "grow-b");
    broker.stop();
    let mut dirs: Vec<String> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("grow-"))
        .collect();
    dirs.sort();
    assert_eq!(
        dirs,
        ["grow-a-0", "grow-a-1", "grow-a-2", "grow-b-0", "grow-b-1"]
    );
}

/// Under a low open-file limit, a CreatePartitions that would run out of descriptors is
/// refused before any file is made (as CreateTopics is), and one that fits is made.
#[test]
fn create_partitions_beyond_the_open_file_limit_is_refused_whole() {
    let t = tempfile::tempdir().unwrap();
    let data = t.path().join("data");
    let mut broker = BrokerProcess::start(&data, &[]);
    let bootstrap = broker.bootstrap();
    assert_eq!(wire::create_topic_with(&bootstrap, "wide", 1), 0);
    let limit = libc::rlimit {
        rlim_cur: 400,
        rlim_max: 400,
    };
    // SAFETY: prlimit on our own child; the struct outlives the call.
    let rc = unsafe {
        libc::prlimit(
            broker.pid(),
            libc::RLIMIT_NOFILE,
            &limit,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(rc, 0, "prlimit: {}", std::io::Error::last_os_error());
    let answer = wire::create_partitions(&bootstrap, &[("wide", 301)], false);
    assert_eq!(answer.len(), 1);
    assert_eq!(answer[0].1, 44, "{answer:?}");
    assert!(
        answer[0]
            .2
            .as_deref()
            .unwrap_or_default()
            .contains("open files"),
        "{answer:?}"
    );
    let made = std::fs::read_dir(&data)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("wide-")
        })
        .count();
    assert_eq!(made, 1, "only wide-0");
    assert_eq!(
        wire::create_partitions(&bootstrap, &[("wide", 21)], false),
        vec![("wide".to_string(), 0, None)]
    );
    assert!(broker.is_running());
    broker.stop();
}

#[test]
fn produce_into_an_internal_topic_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &[]);
    wire::internal_topics_refused(&broker.bootstrap(), "refused-group");
    broker.stop();
}

#[test]
fn commits_to_partitions_that_do_not_exist_are_refused_and_not_stored() {
    let t = tempfile::tempdir().unwrap();
    let data = t.path().join("data");
    let broker = BrokerProcess::start(&data, &[]);
    wire::commits_to_missing_partitions_refused(&broker.bootstrap(), "committed", "missing-group");
    broker.stop();
    let broker = BrokerProcess::start(&data, &[]);
    assert_eq!(
        wire::all_committed(&broker.bootstrap(), "missing-group"),
        vec![("committed".to_string(), 0, 5)]
    );
    broker.stop();
}
