//! Issue 23's "no request waits for another's disk I/O", measured.

use crate::mini_broker_support::{wire, BrokerProcess};

/// Issue 23, measured (`cargo test --release --test mini_broker measure_stall -- --ignored
/// --nocapture`; BENCHMARKS.md): connection A sends a CreateTopics of 2,000 partitions (four
/// topics of 500); about 100 ms later connection B sends an ApiVersions, then a Produce (acks
/// -1) and a Fetch (`max_wait_ms` 0) to a topic that already exists. Prints each of B's
/// latencies and A's duration.
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
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &[]);
    let bootstrap = broker.bootstrap();
    assert_eq!(wire::create_topic_with(&bootstrap, "existing", 1), 0);
    let mut b = wire::Conn::connect(&bootstrap);
    let batch = wire::producer_batch_of((-1, -1), -1, &[b"warm"], 1_700_000_000_000);
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
    let a_thread = std::thread::spawn(move || {
        let start = Instant::now();
        let answer: CreateTopicsResponse = a
            .ask(ApiKey::CreateTopics, 7, &create)
            .response("CreateTopics");
        assert!(
            answer.topics.iter().all(|t| t.error_code == 0),
            "{answer:?}"
        );
        start.elapsed()
    });
    std::thread::sleep(Duration::from_millis(100));
    b.stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .unwrap();
    let start = Instant::now();
    let versions: ApiVersionsResponse = b
        .ask(ApiKey::ApiVersions, 3, &ApiVersionsRequest::default())
        .response("ApiVersions");
    assert_eq!(versions.error_code, 0);
    let api_versions = start.elapsed();
    let start = Instant::now();
    let batch = wire::producer_batch_of((-1, -1), -1, &[b"during"], 1_700_000_000_001);
    assert_eq!(wire::produce(&mut b, None, "existing", 0, batch), 0);
    let produce = start.elapsed();
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
    let start = Instant::now();
    let fetched: FetchResponse = b.ask(ApiKey::Fetch, 12, &fetch_request).response("Fetch");
    assert_eq!(fetched.responses[0].partitions[0].error_code, 0);
    let fetch = start.elapsed();
    let create = a_thread.join().unwrap();
    println!(
        "B (100 ms after A): ApiVersions {:.1} ms, Produce {:.1} ms, Fetch {:.1} ms; \
         A: CreateTopics of 2,000 partitions {:.2} s",
        api_versions.as_secs_f64() * 1e3,
        produce.as_secs_f64() * 1e3,
        fetch.as_secs_f64() * 1e3,
        create.as_secs_f64()
    );
    broker.stop();
}
