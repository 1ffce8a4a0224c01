//! Issue 23's "no request waits for another's disk I/O", measured.

use crate::mini_broker_support::{wire, BrokerProcess};

/// Issue 23, measured (`cargo test --release --test mini_broker measure_stall -- --ignored
/// --nocapture`; BENCHMARKS.md): connection A sends a CreateTopics of 2,000 partitions (four
/// topics of 500); about 100 ms later connection B sends an ApiVersions, then a Produce (acks
/// -1) and a Fetch (`max_wait_ms` 0) to a topic that already exists, and goes on sending the
/// three until A is answered. Prints B's first latencies, the longest of each while A ran, and
/// A's duration.
#[test]
#[ignore = "a measurement, not a check: run it by name with --ignored --nocapture"]
fn measure_stall_behind_a_create_topics_of_2000_partitions() {
    use kafka_protocol::messages::create_topics_request::CreatableTopic;
    use kafka_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
    use kafka_protocol::messages::{
        ApiKey, ApiVersionsRequest, ApiVersionsResponse, CreateTopicsRequest, CreateTopicsResponse,
        FetchRequest, FetchResponse, TopicName,
    };
    use kafka_protocol::protocol::StrBytes;
    use std::time::{Duration, Instant};
    // Current timestamps: retention (7 days) leaves the records alone.
    let now_ms = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64
    };
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &[]);
    let bootstrap = broker.bootstrap();
    assert_eq!(wire::create_topic_with(&bootstrap, "existing", 1), 0);
    let mut b = wire::Conn::connect(&bootstrap);
    let batch = wire::producer_batch_of((-1, -1), -1, &[b"warm"], now_ms());
    assert_eq!(wire::produce(&mut b, None, "existing", 0, batch), 0);
    let create = CreateTopicsRequest::default()
        .with_topics(
            (0..4)
                .map(|i| {
                    CreatableTopic::default()
                        .with_name(TopicName(StrBytes::from_string(format!("wide-{i}"))))
                        .with_num_partitions(500)
                        .with_replication_factor(1)
                })
                .collect(),
        )
        .with_timeout_ms(120_000);
    let mut a = wire::Conn::connect(&bootstrap);
    a.stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .unwrap();
    let a_done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let a_flag = a_done.clone();
    let a_thread = std::thread::spawn(move || {
        let start = Instant::now();
        let answer: CreateTopicsResponse = a
            .ask(ApiKey::CreateTopics, 7, &create)
            .response("CreateTopics");
        assert!(
            answer.topics.iter().all(|t| t.error_code == 0),
            "{answer:?}"
        );
        let took = start.elapsed();
        a_flag.store(true, std::sync::atomic::Ordering::SeqCst);
        took
    });
    std::thread::sleep(Duration::from_millis(100));
    b.stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .unwrap();
    let fetch_request = FetchRequest::default()
        .with_replica_id((-1).into())
        .with_max_wait_ms(0)
        .with_min_bytes(1)
        .with_max_bytes(1024 * 1024)
        .with_topics(vec![FetchTopic::default()
            .with_topic(TopicName(StrBytes::from_static_str("existing")))
            .with_partitions(vec![FetchPartition::default()
                .with_partition(0)
                .with_fetch_offset(0)
                .with_partition_max_bytes(1024 * 1024)])]);
    // (ApiVersions, Produce, Fetch) of each round while A runs.
    let mut rounds: Vec<[Duration; 3]> = Vec::new();
    loop {
        let a_was_done = a_done.load(std::sync::atomic::Ordering::SeqCst);
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
        if a_was_done {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let longest = |i: usize| rounds.iter().map(|r| r[i]).max().unwrap();
    let first = rounds[0];
    let create = a_thread.join().unwrap();
    println!(
        "B (100 ms after A): ApiVersions {:.1} ms, Produce {:.1} ms, Fetch {:.1} ms; \
         longest of {} rounds while A ran: {:.1} / {:.1} / {:.1} ms; \
         A: CreateTopics of 2,000 partitions {:.2} s",
        ms(first[0]),
        ms(first[1]),
        ms(first[2]),
        rounds.len(),
        ms(longest(0)),
        ms(longest(1)),
        ms(longest(2)),
        create.as_secs_f64()
    );
    broker.stop();
}
