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

/// The broker's resident set in bytes.
fn rss(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmRSS");
    kb * 1024
}

/// A Fetch v12 of `topic`-0 from offset 0 for up to 55 MiB, its frame.
fn big_fetch(topic: &str) -> Vec<u8> {
    use bytes::BytesMut;
    use kafka_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
    use kafka_protocol::messages::{ApiKey, FetchRequest, RequestHeader, TopicName};
    use kafka_protocol::protocol::{Encodable, HeaderVersion, StrBytes};
    let request = FetchRequest::default()
        .with_replica_id((-1).into())
        .with_max_wait_ms(500)
        .with_min_bytes(1)
        .with_max_bytes(55 * 1024 * 1024)
        .with_topics(vec![FetchTopic::default()
            .with_topic(TopicName(StrBytes::from_string(topic.to_string())))
            .with_partitions(vec![FetchPartition::default()
                .with_partition(0)
                .with_fetch_offset(0)
                .with_partition_max_bytes(55 * 1024 * 1024)])]);
    let mut body = BytesMut::new();
    RequestHeader::default()
        .with_request_api_key(ApiKey::Fetch as i16)
        .with_request_api_version(12)
        .with_correlation_id(1)
        .encode(&mut body, FetchRequest::header_version(12))
        .unwrap();
    request.encode(&mut body, 12).unwrap();
    let mut frame = (body.len() as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(&body);
    frame
}

/// Issue 26: each connection that sent a Fetch and never read its answer pinned the whole
/// answer (up to 55 MiB; 120 of them aborted the broker). The records of unread answers are now
/// held within the 256 MiB response budget: with 8 such connections on a partition of 64 MiB,
/// the broker's resident set grows by less than the budget and a slack (it grew by 8 x 55 MiB),
/// and it keeps answering.
#[test]
fn fetch_answers_nobody_reads_stay_within_the_response_budget() {
    use std::io::Write;
    // kseg::broker::server::RESPONSE_BUDGET, written out: the bound must not move with it.
    const RESPONSE_BUDGET: u64 = 256 * 1024 * 1024;
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &[]);
    let bootstrap = broker.bootstrap();
    assert_eq!(wire::create_topic_with(&bootstrap, "big", 1), 0);
    let mut conn = wire::Conn::connect(&bootstrap);
    let value: Vec<u8> = (0..1_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    for i in 0..64 {
        let batch = wire::producer_batch_of((-1, -1), -1, &[&value], 1_700_000_000_000 + i);
        assert_eq!(wire::produce(&mut conn, None, "big", 0, batch), 0);
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    let before = rss(broker.pid());
    let mut hogs = Vec::new();
    for _ in 0..8 {
        let mut s = std::net::TcpStream::connect(&bootstrap).unwrap();
        s.write_all(&big_fetch("big")).unwrap();
        hogs.push(s);
    }
    // Every fetch has answered (or waited out its 500 ms for budget) by now.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let grown = rss(broker.pid()).saturating_sub(before);
    let slack = 48 * 1024 * 1024;
    assert!(
        grown < RESPONSE_BUDGET + slack,
        "8 unread fetch answers grew the broker by {} MiB",
        grown >> 20
    );
    let mut other = wire::Conn::connect(&bootstrap);
    assert_eq!(wire::create_topic_with(&bootstrap, "still-answering", 1), 0);
    let batch = wire::producer_batch((-1, -1), -1, false, 1, 1_700_000_000_000);
    assert_eq!(
        wire::produce(&mut other, None, "still-answering", 0, batch),
        0
    );
    drop(hogs);
    broker.stop();
}

#[test]
fn metadata_answers_a_repeated_topic_once() {
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &[]);
    wire::metadata_answers_a_repeated_topic_once(&broker.bootstrap(), "repeated");
    broker.stop();
}

/// The broker's peak resident set in bytes.
fn peak(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmHWM");
    kb * 1024
}

/// Issue 26: OffsetFetch repeating a group and DescribeConfigs repeating a topic are answered
/// in full each time, as Kafka answers them (the same functions ask Kafka 4.4 in the oracle
/// tests), but each answer is built once: 20,000 repeats of a 50-offset group (a 25 MB answer)
/// and of a topic's configs (50 MB) leave the broker's peak memory within 32 MiB of where it
/// was (it built every copy: ~150 MB and ~250 MB more).
#[test]
fn repeated_groups_and_topics_are_answered_without_building_each_copy() {
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &[]);
    let bootstrap = broker.bootstrap();
    wire::repeated_groups_and_configs_answered_each_time(&bootstrap, "small", "small-group");
    assert_eq!(wire::create_topic_with(&bootstrap, "wide", 50), 0);
    wire::wait_for_coordinator(&bootstrap, "wide-group");
    let offsets: Vec<(&str, i32, i64)> = (0..50).map(|p| ("wide", p, p as i64)).collect();
    let codes = wire::commit_many(&bootstrap, "wide-group", ("", -1), &offsets);
    assert!(codes.iter().all(|c| c.2 == 0), "{codes:?}");
    let slack = 32 * 1024 * 1024;
    let before = peak(broker.pid());
    let groups = wire::fetch_group_repeated(&bootstrap, "wide-group", 20_000);
    assert_eq!(groups.len(), 20_000);
    assert_eq!(groups[19_999].2.len(), 50);
    drop(groups);
    let grown = peak(broker.pid()).saturating_sub(before);
    assert!(grown < slack, "OffsetFetch: peak grew {} MiB", grown >> 20);
    let before = peak(broker.pid());
    let described = wire::describe_topic_repeated(&bootstrap, "wide", 20_000);
    assert_eq!(described.len(), 20_000);
    assert_eq!(described[0], described[19_999]);
    drop(described);
    let grown = peak(broker.pid()).saturating_sub(before);
    assert!(
        grown < slack,
        "DescribeConfigs: peak grew {} MiB",
        grown >> 20
    );
    broker.stop();
}

/// Issue 26, measured (`cargo test --release --test mini_broker measure_produce_rate -- --ignored
/// --nocapture`; BENCHMARKS.md): produce rate (acks=1, one 100-byte record per request, one
/// connection) with no fetch waiting, then with 2,000 idle long-polls (Fetch, `max_wait_ms`
/// 30 s) on another topic. Every append used to wake every waiting fetch (and the ticker woke
/// them all every 100 ms), each re-planning under the broker lock.
#[test]
#[ignore = "a measurement, not a check: run it by name with --ignored --nocapture"]
fn measure_produce_rate_with_idle_long_polls() {
    use std::io::Write;
    use std::time::Instant;
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &[]);
    let bootstrap = broker.bootstrap();
    assert_eq!(wire::create_topic_with(&bootstrap, "busy", 1), 0);
    assert_eq!(wire::create_topic_with(&bootstrap, "idle", 1), 0);
    let value = vec![b'x'; 100];
    let rate = |n: usize| {
        let mut conn = wire::Conn::connect(&bootstrap);
        let start = Instant::now();
        for i in 0..n {
            let batch =
                wire::producer_batch_of((-1, -1), -1, &[&value], 1_700_000_000_000 + i as i64);
            assert_eq!(wire::produce(&mut conn, None, "busy", 0, batch), 0);
        }
        n as f64 / start.elapsed().as_secs_f64()
    };
    rate(2_000); // warm-up
    let quiet = rate(5_000);
    let mut polls = Vec::new();
    for _ in 0..2_000 {
        let mut s = std::net::TcpStream::connect(&bootstrap).unwrap();
        s.write_all(&idle_fetch("idle", 30_000)).unwrap();
        polls.push(s);
    }
    std::thread::sleep(std::time::Duration::from_secs(2));
    let busy = rate(5_000);
    println!("produce: {quiet:.0}/s with no fetch waiting, {busy:.0}/s with 2,000 idle long-polls");
    drop(polls);
    broker.stop();
}

/// A Fetch v12 of `topic`-0 at its end (offset 0 of an empty partition), waiting up to
/// `max_wait_ms` for one byte: its frame.
fn idle_fetch(topic: &str, max_wait_ms: i32) -> Vec<u8> {
    use bytes::BytesMut;
    use kafka_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
    use kafka_protocol::messages::{ApiKey, FetchRequest, RequestHeader, TopicName};
    use kafka_protocol::protocol::{Encodable, HeaderVersion, StrBytes};
    let request = FetchRequest::default()
        .with_replica_id((-1).into())
        .with_max_wait_ms(max_wait_ms)
        .with_min_bytes(1)
        .with_max_bytes(1024 * 1024)
        .with_topics(vec![FetchTopic::default()
            .with_topic(TopicName(StrBytes::from_string(topic.to_string())))
            .with_partitions(vec![FetchPartition::default()
                .with_partition(0)
                .with_fetch_offset(0)
                .with_partition_max_bytes(1024 * 1024)])]);
    let mut body = BytesMut::new();
    RequestHeader::default()
        .with_request_api_key(ApiKey::Fetch as i16)
        .with_request_api_version(12)
        .with_correlation_id(1)
        .encode(&mut body, FetchRequest::header_version(12))
        .unwrap();
    request.encode(&mut body, 12).unwrap();
    let mut frame = (body.len() as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(&body);
    frame
}
