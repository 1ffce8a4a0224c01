//! Issue 23's "no request waits for another's disk I/O", measured: connection A does something
//! with much disk work, connection B meanwhile sends an ApiVersions, a Produce (acks -1) and a
//! Fetch (`max_wait_ms` 0) to a topic that already exists every 10 ms; the longest of each is
//! what A's work made B wait.
//!
//! `cargo test --release --no-default-features --test mini_broker measure_stall -- --ignored
//! --nocapture --test-threads 1` (BENCHMARKS.md, issue 23).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kafka_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use kafka_protocol::messages::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, FetchRequest, FetchResponse, TopicName,
};
use kafka_protocol::protocol::StrBytes;

use crate::mini_broker_support::{wire, BrokerProcess};

/// Current timestamps: retention (7 days) leaves the records alone.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn name(s: &str) -> TopicName {
    TopicName(StrBytes::from_string(s.to_string()))
}

/// What B saw: its first round (sent 100 ms after A started), the longest of each request over
/// all rounds, how many rounds, and how long A's work took.
struct Stall {
    first: [Duration; 3],
    longest: [Duration; 3],
    /// Rounds whose request took more than the 50 ms.
    over_50_ms: [usize; 3],
    rounds: usize,
    a: Duration,
}

impl Stall {
    fn print(&self, what: &str, after: Duration) {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "{what}: B's first round (100 ms after A): ApiVersions {:.1} ms, Produce {:.1} ms, \
             Fetch {:.1} ms; longest of {} rounds (while A ran and {:.0} s after): {:.1} / {:.1} \
             / {:.1} ms, over 50 ms: {} / {} / {}; A took {:.2} s",
            ms(self.first[0]),
            ms(self.first[1]),
            ms(self.first[2]),
            self.rounds,
            after.as_secs_f64(),
            ms(self.longest[0]),
            ms(self.longest[1]),
            ms(self.longest[2]),
            self.over_50_ms[0],
            self.over_50_ms[1],
            self.over_50_ms[2],
            self.a.as_secs_f64()
        );
    }
}

/// Makes B's topic, with one record, and connects B.
fn connect_b(bootstrap: &str) -> wire::Conn {
    assert_eq!(wire::create_topic_with(bootstrap, "existing", 1), 0);
    let mut b = wire::Conn::connect(bootstrap);
    b.stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .unwrap();
    let batch = wire::producer_batch_of((-1, -1), -1, &[b"warm"], now_ms());
    assert_eq!(wire::produce(&mut b, None, "existing", 0, batch), 0);
    b
}

/// Runs `a` on its own connection (a thread); 100 ms later B starts its rounds and goes on until
/// `after` past A's end (work A's request leaves behind: dirs removed after their delay).
fn stall_during(
    bootstrap: &str,
    mut b: wire::Conn,
    after: Duration,
    a: impl FnOnce(wire::Conn) + Send + 'static,
) -> Stall {
    let a_conn = wire::Conn::connect(bootstrap);
    a_conn
        .stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .unwrap();
    let a_done = Arc::new(AtomicBool::new(false));
    let a_flag = a_done.clone();
    let a_thread = std::thread::spawn(move || {
        let start = Instant::now();
        a(a_conn);
        let took = start.elapsed();
        a_flag.store(true, Ordering::SeqCst);
        took
    });
    std::thread::sleep(Duration::from_millis(100));
    let fetch_request = FetchRequest::default()
        .with_replica_id((-1).into())
        .with_max_wait_ms(0)
        .with_min_bytes(1)
        .with_max_bytes(1024 * 1024)
        .with_topics(vec![FetchTopic::default()
            .with_topic(name("existing"))
            .with_partitions(vec![FetchPartition::default()
                .with_partition(0)
                .with_fetch_offset(0)
                .with_partition_max_bytes(1024 * 1024)])]);
    let mut rounds: Vec<[Duration; 3]> = Vec::new();
    let mut a_seen_done: Option<Instant> = None;
    loop {
        if a_seen_done.is_none() && a_done.load(Ordering::SeqCst) {
            a_seen_done = Some(Instant::now());
        }
        let start = Instant::now();
        let versions: ApiVersionsResponse = b
            .ask(ApiKey::ApiVersions, 3, &ApiVersionsRequest::default())
            .response("ApiVersions");
        assert_eq!(versions.error_code, 0);
        let api_versions = start.elapsed();
        let start = Instant::now();
        let batch = wire::producer_batch_of((-1, -1), -1, &[b"during"], now_ms());
        assert_eq!(wire::produce(&mut b, None, "existing", 0, batch), 0);
        let produce = start.elapsed();
        let start = Instant::now();
        let fetched: FetchResponse = b.ask(ApiKey::Fetch, 12, &fetch_request).response("Fetch");
        assert_eq!(fetched.responses[0].partitions[0].error_code, 0);
        let fetch = start.elapsed();
        rounds.push([api_versions, produce, fetch]);
        if a_seen_done.is_some_and(|t| t.elapsed() >= after) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let longest = |i: usize| rounds.iter().map(|r| r[i]).max().unwrap();
    let over = |i: usize| {
        rounds
            .iter()
            .filter(|r| r[i] > Duration::from_millis(50))
            .count()
    };
    Stall {
        first: rounds[0],
        longest: [longest(0), longest(1), longest(2)],
        over_50_ms: [over(0), over(1), over(2)],
        rounds: rounds.len(),
        a: a_thread.join().unwrap(),
    }
}

/// Four topics of 500 partitions.
fn create_2000_partitions(a: &mut wire::Conn) {
    use kafka_protocol::messages::create_topics_request::CreatableTopic;
    use kafka_protocol::messages::{CreateTopicsRequest, CreateTopicsResponse};
    let create = CreateTopicsRequest::default()
        .with_topics(
            (0..4)
                .map(|i| {
                    CreatableTopic::default()
                        .with_name(name(&format!("wide-{i}")))
                        .with_num_partitions(500)
                        .with_replication_factor(1)
                })
                .collect(),
        )
        .with_timeout_ms(120_000);
    let answer: CreateTopicsResponse = a
        .ask(ApiKey::CreateTopics, 7, &create)
        .response("CreateTopics");
    assert!(
        answer.topics.iter().all(|t| t.error_code == 0),
        "{answer:?}"
    );
}

/// Connection A sends a CreateTopics of 2,000 partitions (four topics of 500).
#[test]
#[ignore = "a measurement, not a check: run it by name with --ignored --nocapture"]
fn measure_stall_behind_a_create_topics_of_2000_partitions() {
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &[]);
    let bootstrap = broker.bootstrap();
    let b = connect_b(&bootstrap);
    let stall = stall_during(&bootstrap, b, Duration::ZERO, |mut a| {
        create_2000_partitions(&mut a)
    });
    stall.print("CreateTopics of 2,000 partitions", Duration::ZERO);
    broker.stop();
}

/// Connection A deletes four topics of 500 partitions (made before B starts): their dirs are
/// renamed `-delete`, then removed 1 s later (`--file-delete-delay-ms 1000`) by the periodic
/// work; B goes on for 4 s after A's answer, so that the removal falls in its rounds.
#[test]
#[ignore = "a measurement, not a check: run it by name with --ignored --nocapture"]
fn measure_stall_behind_a_delete_topics_of_2000_partitions() {
    use kafka_protocol::messages::delete_topics_request::DeleteTopicState;
    use kafka_protocol::messages::{DeleteTopicsRequest, DeleteTopicsResponse};
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &["--file-delete-delay-ms", "1000"]);
    let bootstrap = broker.bootstrap();
    let b = connect_b(&bootstrap);
    let mut setup = wire::Conn::connect(&bootstrap);
    setup
        .stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .unwrap();
    create_2000_partitions(&mut setup);
    let after = Duration::from_secs(4);
    let stall = stall_during(&bootstrap, b, after, |mut a| {
        let delete = DeleteTopicsRequest::default()
            .with_topics(
                (0..4)
                    .map(|i| {
                        DeleteTopicState::default().with_name(Some(name(&format!("wide-{i}"))))
                    })
                    .collect(),
            )
            .with_timeout_ms(120_000);
        let answer: DeleteTopicsResponse = a
            .ask(ApiKey::DeleteTopics, 6, &delete)
            .response("DeleteTopics");
        assert!(
            answer.responses.iter().all(|t| t.error_code == 0),
            "{answer:?}"
        );
    });
    stall.print("DeleteTopics of 2,000 partitions", after);
    let left = std::fs::read_dir(t.path().join("data"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("wide-")
        })
        .count();
    println!("  partition dirs of the deleted topics left after B's rounds: {left}");
    broker.stop();
}

/// Connection A asks Metadata for a topic that does not exist; the broker auto-creates it with
/// `--num-partitions 2000`.
#[test]
#[ignore = "a measurement, not a check: run it by name with --ignored --nocapture"]
fn measure_stall_behind_a_metadata_auto_creating_2000_partitions() {
    use kafka_protocol::messages::metadata_request::MetadataRequestTopic;
    use kafka_protocol::messages::{MetadataRequest, MetadataResponse};
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &["--num-partitions", "2000"]);
    let bootstrap = broker.bootstrap();
    // B's topic gets one partition, as connect_b makes it with CreateTopics.
    let b = connect_b(&bootstrap);
    let stall = stall_during(&bootstrap, b, Duration::ZERO, |mut a| {
        let request = MetadataRequest::default()
            .with_topics(Some(vec![
                MetadataRequestTopic::default().with_name(Some(name("auto")))
            ]))
            .with_allow_auto_topic_creation(true);
        let answer: MetadataResponse = a.ask(ApiKey::Metadata, 12, &request).response("Metadata");
        assert_eq!(answer.topics[0].error_code, 0, "{answer:?}");
        assert_eq!(answer.topics[0].partitions.len(), 2000);
    });
    stall.print("Metadata auto-creating 2,000 partitions", Duration::ZERO);
    broker.stop();
}

/// Connection A's FindCoordinator makes `__consumer_offsets`, here of 2,000 partitions
/// (`--offsets-topic-partitions 2000`; Kafka's default is 50).
#[test]
#[ignore = "a measurement, not a check: run it by name with --ignored --nocapture"]
fn measure_stall_behind_find_coordinator_creating_the_offsets_topic() {
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(
        &t.path().join("data"),
        &["--offsets-topic-partitions", "2000"],
    );
    let bootstrap = broker.bootstrap();
    let b = connect_b(&bootstrap);
    let stall = stall_during(&bootstrap, b, Duration::ZERO, |mut a| {
        let answer = wire::find_coordinator(&mut a, "stall-group").response("FindCoordinator");
        assert_eq!(answer.coordinators[0].error_code, 0, "{answer:?}");
    });
    stall.print(
        "FindCoordinator making __consumer_offsets of 2,000 partitions",
        Duration::ZERO,
    );
    broker.stop();
}

/// Connection A produces 120 batches of 512 KiB (acks -1) to another topic, with
/// `--segment-bytes 1048576`: a segment roll every other batch, each flushing the segment it
/// sealed.
#[test]
#[ignore = "a measurement, not a check: run it by name with --ignored --nocapture"]
fn measure_stall_behind_another_connections_segment_rolls() {
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &["--segment-bytes", "1048576"]);
    let bootstrap = broker.bootstrap();
    assert_eq!(wire::create_topic_with(&bootstrap, "rolling", 1), 0);
    let b = connect_b(&bootstrap);
    let stall = stall_during(&bootstrap, b, Duration::ZERO, |mut a| {
        let value = vec![b'r'; 512 * 1024];
        for _ in 0..120 {
            let batch = wire::producer_batch_of((-1, -1), -1, &[&value[..]], now_ms());
            assert_eq!(wire::produce(&mut a, None, "rolling", 0, batch), 0);
        }
    });
    stall.print(
        "120 produces of 512 KiB rolling 1 MiB segments",
        Duration::ZERO,
    );
    let segments = std::fs::read_dir(t.path().join("data/rolling-0"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".log")
        })
        .count();
    println!("  segments of the rolled partition: {segments}");
    broker.stop();
}
