//! `kseg rescue` against the real Kafka (tests/oracle): a source written by the Java clients
//! (three partitions, every codec, committed, aborted and open transactions) is read back by the
//! Java consumer (read_committed) while its broker runs; its data dir, one partition of it first
//! repaired by `kseg recover`, is then rescued into a broker, killed mid-run and resumed with the
//! same `--state`; the Java consumer must read back exactly the source's records, per partition,
//! in order, with headers and timestamps. On the same target broker: `--groups` translates the
//! source's two groups through the offset map (Kafka's `kafka-consumer-groups --describe` reads
//! back what the dry run said), a group with a member is refused, and `--create-topics` carries
//! the source topic's configs (Kafka's `kafka-configs --describe` lists them) into a topic whose
//! retention would delete the records, which is refused.
#![cfg(feature = "rescue")]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::harness::*;

/// A record as the Java consumer gives it: key, value and header values base64, timestamp and
/// its type. Offsets are left out: the target numbers records its own way.
type Rec = (
    serde_json::Value,
    serde_json::Value,
    serde_json::Value,
    i64,
    String,
);

/// Partition -> records in offset order.
type ByPartition = BTreeMap<i64, Vec<Rec>>;

fn consume(bootstrap: &str, topic: &str, out: &Path) -> ByPartition {
    run_ok(
        workload_command(&["consume", bootstrap, topic, out.to_str().unwrap()]),
        Duration::from_secs(180),
    );
    let mut by: ByPartition = BTreeMap::new();
    let mut last: BTreeMap<i64, i64> = BTreeMap::new();
    for v in ndjson(&fs::read_to_string(out).unwrap()) {
        let p = v["partition"].as_i64().unwrap();
        let o = v["offset"].as_i64().unwrap();
        assert!(
            last.insert(p, o).is_none_or(|prev| prev < o),
            "offsets in order"
        );
        by.entry(p).or_default().push((
            v["key"].clone(),
            v["value"].clone(),
            v["headers"].clone(),
            v["timestamp"].as_i64().unwrap(),
            v["timestampType"].as_str().unwrap().to_string(),
        ));
    }
    by
}

/// The source: data dir copy after a clean stop, and what a read_committed consumer was given.
struct SourceData {
    root: PathBuf,
    data: PathBuf,
    expected: ByPartition,
}

fn source() -> &'static SourceData {
    static SOURCE: OnceLock<SourceData> = OnceLock::new();
    SOURCE.get_or_init(|| {
        let version = versions()[0].clone();
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oracle-rescue");
        let mut broker = Broker::format_and_start(&version, &root.join("source-broker"), &[]);
        broker.workload(&["rescue-source"], Duration::from_secs(300));
        let expected = consume(&broker.bootstrap(), "rs", &root.join("source.ndjson"));
        broker.stop();
        let data = root.join("source");
        copy_dir(&broker.data, &data);
        // 2 rounds x 5 codecs x (120 records x 3 partitions + 2 committed transactions of 12).
        let total: usize = expected.values().map(Vec::len).sum();
        assert_eq!(
            total,
            2 * 5 * (360 + 24),
            "the source workload's committed records"
        );
        assert_eq!(expected.len(), 3);
        SourceData {
            root,
            data,
            expected,
        }
    })
}

/// `kseg recover` of rs-2: the rescue reads that copy, as an operator would after a crash.
fn recovered(src: &SourceData, dir: &Path) -> PathBuf {
    let _ = fs::remove_dir_all(dir);
    let out = kseg(&[
        "recover",
        src.data.join("rs-2").to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "kseg recover: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("rs-2")
}

fn rescue_args(src: &SourceData, rs2: &Path, bootstrap: &str, state: &Path) -> Vec<String> {
    [
        "rescue",
        src.data.join("rs-0").to_str().unwrap(),
        src.data.join("rs-1").to_str().unwrap(),
        rs2.to_str().unwrap(),
        "--bootstrap",
        bootstrap,
        "--topic-map",
        "rs:rs-copy",
        "--create-topics",
        "--state",
        state.to_str().unwrap(),
        "--json",
        "--no-progress",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Starts a rate-limited rescue, waits until its state file records acknowledged offsets, and
/// kills it with SIGKILL: the run stops in the middle, between two saves of its state.
fn kill_mid_run(args: &[String], state: &Path) -> u64 {
    let mut child = Command::new(kseg_bin())
        .args(args)
        .args(["--max-records-per-second", "800"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting kseg rescue");
    let deadline = Instant::now() + Duration::from_secs(120);
    let acknowledged = loop {
        let acked = fs::read_to_string(state)
            .ok()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
            .map(|v| {
                v["acknowledged"].as_object().map_or(0, |m| {
                    m.values()
                        .filter_map(|o| o.as_i64())
                        .map(|o| o as u64 + 1)
                        .sum()
                })
            })
            .unwrap_or(0);
        if acked >= 600 {
            break acked;
        }
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            panic!("kseg rescue ended before it was killed ({status}): {err}");
        }
        assert!(Instant::now() < deadline, "no progress in the state file");
        std::thread::sleep(Duration::from_millis(50));
    };
    // SAFETY: kill(2) on our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGKILL);
    }
    let status = child.wait().unwrap();
    assert!(!status.success(), "killed");
    acknowledged
}

fn run_json(args: &[String]) -> Vec<serde_json::Value> {
    let mut c = Command::new(kseg_bin());
    c.args(args);
    let out = run(c, Duration::from_secs(300));
    assert_eq!(
        out.status.code(),
        Some(0),
        "kseg {}: {}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    ndjson(&String::from_utf8_lossy(&out.stdout))
}

fn summary(lines: &[serde_json::Value]) -> &serde_json::Value {
    lines
        .iter()
        .find(|l| l["type"] == "summary")
        .expect("a summary line")
}

/// Kill, resume, verify, compare with the Java consumer; then a third run sends nothing.
fn rescue_and_compare(bootstrap: &str, work: &Path) {
    let src = source();
    let _ = fs::remove_dir_all(work);
    fs::create_dir_all(work).unwrap();
    let rs2 = recovered(src, &work.join("recovered"));
    let state = work.join("rescue.state");
    let args = rescue_args(src, &rs2, bootstrap, &state);
    let acked = kill_mid_run(&args, &state);
    let total: u64 = src.expected.values().map(|v| v.len() as u64).sum();
    assert!(
        acked < total,
        "killed mid-run ({acked} of {total} acknowledged)"
    );

    let mut resume = args.clone();
    resume.push("--verify".into());
    let lines = run_json(&resume);
    let s = summary(&lines);
    eprintln!("resumed: {s}");
    assert_eq!(s["unacknowledged"], 0);
    assert_eq!(s["foreignRecords"], 0);
    let verified: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l["type"] == "verified").collect();
    assert_eq!(verified.len(), 3, "{lines:?}");
    for v in &verified {
        assert_eq!(v["mismatched"], 0, "{v}");
        assert_eq!(v["missing"], 0, "{v}");
        assert_eq!(v["extra"], 0, "{v}");
    }
    let matched: u64 = verified
        .iter()
        .map(|v| v["matched"].as_u64().unwrap())
        .sum();
    assert_eq!(matched, total);
    // Every source record is sent by one of the two runs or found delivered: none twice.
    let rescued: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l["type"] == "rescued").collect();
    for r in &rescued {
        assert_eq!(r["abortedRecords"], 2 * 5 * 12 / 3, "{r}");
        assert_eq!(r["openRecords"], 1, "{r}");
    }

    let got = consume(bootstrap, "rs-copy", &work.join("target.ndjson"));
    assert_eq!(got.len(), src.expected.len());
    for (p, want) in &src.expected {
        let have = &got[p];
        assert_eq!(have.len(), want.len(), "partition {p}: record count");
        for (i, (h, w)) in have.iter().zip(want).enumerate() {
            assert_eq!(h, w, "partition {p}, record {i}");
        }
    }

    // Run again: everything is acknowledged, nothing is sent.
    let lines = run_json(&args);
    assert_eq!(summary(&lines)["sent"], 0, "{lines:?}");
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn rescue_into_kafka_is_exact_and_resumes_after_a_kill() {
    if skip() {
        return;
    }
    let src = source();
    let version = versions()[0].clone();
    let mut broker = Broker::format_and_start(&version, &src.root.join("target-broker"), &[]);
    rescue_and_compare(&broker.bootstrap(), &src.root.join("to-kafka"));
    groups_into_kafka(&broker, &src.root.join("to-kafka"));
    configs_and_retention_refusal(&broker);
    reruns_into_kafka(&broker.bootstrap(), &src.root.join("reruns"));
    broker.stop();
}

/// Issue 45 items 6-8 on the same broker: the scenarios the mini-broker's tests run too
/// (tests/mini_broker_support/rescue_scenarios.rs), Kafka 4.4 deleting and re-creating a topic
/// (a new topic id), refusing a record over `max.message.bytes` (MESSAGE_TOO_LARGE) until
/// AlterConfigs raises it, and holding the group offsets kseg commits.
fn reruns_into_kafka(bootstrap: &str, work: &Path) {
    use crate::harness::mini_broker_support::rescue_scenarios::*;
    let _ = fs::remove_dir_all(work);
    let target = Target::new(bootstrap);
    for (name, scenario) in [
        (
            "recreated",
            state_reused_after_the_topic_was_recreated as fn(&Target, &Path) -> PathBuf,
        ),
        ("refused", |t, w| {
            refused_record_stops_its_partition(t, w);
            w.to_path_buf()
        }),
        ("groups", |t, w| {
            groups_check_the_map_against_the_target(t, w);
            w.to_path_buf()
        }),
    ] {
        let dir = work.join(name);
        fs::create_dir_all(&dir).unwrap();
        scenario(&target, &dir);
    }
}

/// `kseg grep --committed` over the source's data dir (issue 24) gives exactly the records the
/// Java read_committed consumer was given, per partition, in order: Kafka's own `.txnindex`
/// aborts, COMMIT and ABORT markers and open transaction (the last stable offset) decide it.
#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn grep_committed_is_what_a_read_committed_consumer_is_given() {
    if skip() {
        return;
    }
    let src = source();
    let grep = |args: &[&str]| {
        let mut all = vec!["grep", "--json", "--encoding", "base64", "--topic", "rs"];
        all.extend_from_slice(args);
        all.push(src.data.to_str().unwrap());
        let out = kseg(&all);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{all:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        ndjson(&String::from_utf8_lossy(&out.stdout))
    };
    let mut got: ByPartition = BTreeMap::new();
    for r in grep(&["--committed"])
        .iter()
        .filter(|v| v["type"] == "record")
    {
        assert_eq!(r["aborted"], false);
        let headers: Vec<serde_json::Value> = r["headers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| serde_json::json!([h["key"], h["value"]]))
            .collect();
        got.entry(r["partition"].as_i64().unwrap())
            .or_default()
            .push((
                r["key"].clone(),
                r["value"].clone(),
                serde_json::Value::Array(headers),
                r["timestamp"].as_i64().unwrap(),
                r["timestampType"].as_str().unwrap().to_string(),
            ));
    }
    assert_eq!(got, src.expected);
    // The aborted transactions (2 rounds x 5 codecs x 12 records) and the open one (a record
    // per partition; aborted instead when its timeout passed before the copy).
    let count = |args: &[&str]| grep(args).iter().filter(|v| v["type"] == "record").count();
    let aborted = count(&["--txn-state", "aborted", "--no-control"]);
    let open = count(&["--txn-state", "open"]);
    assert_eq!(
        (aborted + open, open % 3),
        (2 * 5 * 12 + 3, 0),
        "{aborted} {open}"
    );
}

/// A consumer in `group` on `topic`, polled until it has its partitions: the group is active.
fn active_member(bootstrap: &str, group: &str, topic: &str) -> rdkafka::consumer::BaseConsumer {
    use rdkafka::consumer::Consumer;
    let c: rdkafka::consumer::BaseConsumer = rdkafka::config::ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", group)
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    c.subscribe(&[topic]).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while c.assignment().map(|a| a.count()).unwrap_or(0) == 0 {
        assert!(
            Instant::now() < deadline,
            "the consumer never joined {group}"
        );
        let _ = c.poll(Duration::from_millis(100));
    }
    c
}

/// `--groups` over the rescue `rescue_and_compare` did (same arguments and --state): the source's
/// rs-group-a and rs-group-b (committed by the workload into an aborted transaction, on a
/// record, at the log end, on a COMMIT marker, on the open transaction's record) translated by
/// the dry run, committed, and read back by Kafka's own kafka-consumer-groups --describe.
fn groups_into_kafka(broker: &Broker, work: &Path) {
    let src = source();
    let bootstrap = broker.bootstrap();
    let args = rescue_args(
        src,
        &work.join("recovered/rs-2"),
        &bootstrap,
        &work.join("rescue.state"),
    );
    let with = |extra: &[&str]| -> Vec<String> {
        let mut a = args.clone();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    // (group, partition) -> (source offset, target offset, translation, why)
    type Translations = BTreeMap<(String, i64), (i64, i64, String, String)>;
    let translations = |lines: &[serde_json::Value]| -> Translations {
        lines
            .iter()
            .filter(|l| l["type"] == "groupOffset")
            .map(|l| {
                assert_eq!(l["targetTopic"], "rs-copy", "{l}");
                assert_eq!(
                    l["predicted"], false,
                    "the --state map covers everything: {l}"
                );
                (
                    (
                        l["group"].as_str().unwrap().to_string(),
                        l["targetPartition"].as_i64().unwrap(),
                    ),
                    (
                        l["sourceOffset"].as_i64().unwrap(),
                        l["targetOffset"].as_i64().unwrap(),
                        l["translation"].as_str().unwrap().to_string(),
                        l["why"].as_str().unwrap_or_default().to_string(),
                    ),
                )
            })
            .collect()
    };
    let dry = translations(&run_json(&with(&["--groups", "--dry-run"])));
    // Each partition's 135 offsets per codec and round keep 128 in the target (4 aborted
    // records and 3 markers are not sent): source 300 (270 + 30) is target 256 + 30.
    let expect = [
        (
            ("rs-group-a", 0),
            (126, 124, "next-sent", "aborted transaction"),
        ),
        (("rs-group-a", 1), (300, 286, "exact", "")),
        (("rs-group-a", 2), (1351, 1280, "exact", "log end")),
        (("rs-group-b", 0), (124, 124, "next-sent", "control record")),
        (("rs-group-b", 1), (1350, 1280, "next-sent", "never ended")),
    ];
    assert_eq!(dry.len(), expect.len(), "{dry:?}");
    for ((g, p), (source_offset, target_offset, how, why)) in expect {
        let got = &dry[&(g.to_string(), p)];
        assert_eq!(
            (got.0, got.1, got.2.as_str()),
            (source_offset, target_offset, how),
            "{g} rs-{p}: {got:?}"
        );
        assert!(got.3.contains(why), "{g} rs-{p}: {got:?}");
    }

    let lines = run_json(&with(&["--groups"]));
    assert_eq!(translations(&lines), dry);
    let commits: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["type"] == "groupCommit")
        .collect();
    assert_eq!(commits.len(), 2, "{commits:?}");
    assert!(
        commits.iter().all(|c| c["committed"] == true),
        "{commits:?}"
    );

    // Kafka's reading: GROUP TOPIC PARTITION CURRENT-OFFSET ...
    let mut describe = kafka_tool(
        &broker.version,
        "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
    );
    describe.args([
        "--bootstrap-server",
        &bootstrap,
        "--describe",
        "--all-groups",
    ]);
    let text = run_ok(describe, Duration::from_secs(120));
    let kafka: Translations = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() >= 4 && w[0].starts_with("rs-group-") && w[1] == "rs-copy")
        .map(|w| {
            let key = (w[0].to_string(), w[2].parse().unwrap());
            let d = &dry[&key];
            (key, (d.0, w[3].parse().unwrap(), d.2.clone(), d.3.clone()))
        })
        .collect();
    assert_eq!(kafka, dry, "kafka-consumer-groups --describe:\n{text}");

    // A member in rs-group-a: kseg refuses it, as Kafka would (UNKNOWN_MEMBER_ID).
    let member = active_member(&bootstrap, "rs-group-a", "rs-copy");
    let mut c = Command::new(kseg_bin());
    c.args(with(&["--groups"]));
    let out = run(c, Duration::from_secs(300));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("group rs-group-a is active in the target")
            && err.contains("UNKNOWN_MEMBER_ID"),
        "{err}"
    );
    drop(member);
}

/// `--create-topics` with `--topic-config retention.ms=86400000` (issue 44 item 16): the dry
/// run, the cluster reachable, says a run would refuse (that retention would delete the
/// records, from 2026-01-01) and what it would create (exit 1); the run refuses before it
/// creates any topic (Kafka's kafka-topics --list has no rs-short); with
/// `--allow-retention-delete` the topic is created with the source topic's own configs under
/// the one given (Kafka's kafka-configs --describe lists them).
fn configs_and_retention_refusal(broker: &Broker) {
    let src = source();
    let bootstrap = broker.bootstrap();
    let rescue = |extra: &[&str]| {
        let mut c = Command::new(kseg_bin());
        c.arg("rescue")
            .arg(src.data.join("rs-0"))
            .args(["--bootstrap", &bootstrap, "--topic-map", "rs:rs-short"])
            .args(["--create-topics", "--topic-config", "retention.ms=86400000"])
            .args(["--json", "--no-progress"])
            .args(extra);
        run(c, Duration::from_secs(120))
    };
    let out = rescue(&["--dry-run"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("a run would refuse: 1280 records of rs-0")
            && err.contains("older than target topic rs-short's retention.ms=86400000")
            && err.contains("--create-topics would create rs-short with source topic rs's configs")
            && err.contains("max.message.bytes=2000000"),
        "{err}"
    );

    let out = rescue(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("older than target topic rs-short's retention.ms=86400000")
            && err.contains("--allow-retention-delete"),
        "{err}"
    );
    assert!(!err.contains("created rs-short"), "{err}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("\"summary\""),
        "nothing was sent"
    );
    let mut list = kafka_tool(&broker.version, "org.apache.kafka.tools.TopicCommand");
    list.args(["--bootstrap-server", &bootstrap, "--list"]);
    let topics = run_ok(list, Duration::from_secs(120));
    assert!(
        !topics.lines().any(|t| t.trim() == "rs-short"),
        "no topic is created before the check: {topics}"
    );

    let out = rescue(&["--allow-retention-delete"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("created rs-short (1 partitions) with source topic rs's configs")
            && err.contains("max.message.bytes=2000000")
            && err.contains("--topic-config retention.ms=86400000")
            && err.contains("sent anyway (--allow-retention-delete)"),
        "{err}"
    );
    let mut describe = kafka_tool(&broker.version, "org.apache.kafka.tools.ConfigCommand");
    describe.args([
        "--bootstrap-server",
        &bootstrap,
        "--describe",
        "--entity-type",
        "topics",
        "--entity-name",
        "rs-short",
    ]);
    let text = run_ok(describe, Duration::from_secs(120));
    for config in ["retention.ms=86400000", "max.message.bytes=2000000"] {
        assert!(text.contains(config), "{config}: {text}");
    }
}

/// SASL/SCRAM-SHA-256 on the real broker: a wrong password is refused (exit 2, nothing sent);
/// the right one rescues rs-0 exactly.
#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn rescue_over_sasl_scram() {
    if skip() {
        return;
    }
    let src = source();
    let version = versions()[0].clone();
    let mut broker = Broker::format_and_start_with(
        &version,
        &src.root.join("scram-broker"),
        &[
            "sasl.enabled.mechanisms=SCRAM-SHA-256",
            "listener.name.external.scram-sha-256.sasl.jaas.config=\
             org.apache.kafka.common.security.scram.ScramLoginModule required;",
        ],
        Some("SASL_PLAINTEXT"),
        &[
            "--add-scram",
            "SCRAM-SHA-256=[name=rescuer,password=rescue-secret]",
        ],
    );
    let work = src.root.join("scram");
    let _ = fs::remove_dir_all(&work);
    fs::create_dir_all(&work).unwrap();
    let external = format!("127.0.0.1:{}", broker.external_port);
    let args = |password_file: &Path| -> Vec<String> {
        [
            "rescue",
            src.data.join("rs-0").to_str().unwrap(),
            "--bootstrap",
            &external,
            "--security-protocol",
            "sasl_plaintext",
            "--sasl-mechanism",
            "SCRAM-SHA-256",
            "--sasl-username",
            "rescuer",
            "--sasl-password-file",
            password_file.to_str().unwrap(),
            "--topic-map",
            "rs:rs-scram",
            "--create-topics",
            "--json",
            "--no-progress",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let wrong = work.join("wrong");
    fs::write(&wrong, "not-the-secret\n").unwrap();
    let mut c = Command::new(kseg_bin());
    c.args(args(&wrong));
    let out = run(c, Duration::from_secs(120));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "a wrong password: {err}");
    assert!(
        err.to_lowercase().contains("authentication"),
        "the refusal is named: {err}"
    );

    let right = work.join("right");
    fs::write(&right, "rescue-secret\n").unwrap();
    let lines = run_json(&args(&right));
    assert_eq!(summary(&lines)["sent"], src.expected[&0].len() as u64);
    // Read back over the PLAINTEXT listener.
    let got = consume(&broker.bootstrap(), "rs-scram", &work.join("target.ndjson"));
    assert_eq!(got[&0], src.expected[&0]);
    broker.stop();
}

/// The same rescue, kill and resume into kseg's own mini-broker; the Java consumer reads back.
#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn rescue_into_the_mini_broker_is_exact_and_resumes_after_a_kill() {
    if skip() {
        return;
    }
    let src = source();
    let dir = src.root.join("mini-broker-data");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let broker = mini_broker_support::BrokerProcess::start(&dir, &[]);
    rescue_and_compare(&broker.bootstrap(), &src.root.join("to-mini-broker"));
    broker.stop();
}

/// Legacy messages (magic 0, magic 1 with LogAppendTime, then magic 2: testdata/lookup/legacy-0)
/// rescued into Kafka 4.x, which writes only magic 2: keys and values as Kafka's DumpLogSegments
/// reads them from the source, timestamps kept where the message has one (magic 0 has none: the
/// producer stamps the time of sending).
#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn legacy_messages_are_rescued_into_kafka() {
    if skip() {
        return;
    }
    let version = versions()[0].clone();
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oracle-rescue-legacy");
    let mut broker = Broker::format_and_start(&version, &root.join("broker"), &[]);
    let legacy = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/lookup/legacy-0");
    let mut logs: Vec<String> = fs::read_dir(&legacy)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .map(|p| p.display().to_string())
        .collect();
    logs.sort();
    let mut dump = dump_log_segments(&version);
    dump.args([
        "--deep-iteration",
        "--print-data-log",
        "--files",
        &logs.join(","),
    ]);
    let text = run_ok(dump, Duration::from_secs(120));
    // "| offset: N KIND: T keySize: ... key: K payload: V"
    let want: Vec<(String, i64, String, String)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("| offset: "))
        .map(|l| {
            let mut w = l.split(' ');
            let _offset = w.next().unwrap();
            let kind = w.next().unwrap().trim_end_matches(':').to_string();
            let ts: i64 = w.next().unwrap().parse().unwrap();
            let key = l
                .split(" key: ")
                .nth(1)
                .unwrap()
                .split(" payload: ")
                .next()
                .unwrap();
            let payload = l.split(" payload: ").nth(1).unwrap();
            (kind, ts, key.to_string(), payload.to_string())
        })
        .collect();
    assert!(
        want.iter().any(|w| w.0 == "NoTimestampType"),
        "magic 0 in the fixture"
    );
    assert!(
        want.iter().any(|w| w.0 == "LogAppendTime"),
        "magic 1 LogAppendTime"
    );
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let lines = run_json(
        &[
            "rescue",
            legacy.to_str().unwrap(),
            "--bootstrap",
            &broker.bootstrap(),
            "--topic-map",
            "legacy:legacy-copy",
            "--create-topics",
            "--json",
            "--no-progress",
        ]
        .map(String::from),
    );
    assert_eq!(summary(&lines)["sent"], want.len() as u64);
    let got = consume(
        &broker.bootstrap(),
        "legacy-copy",
        &root.join("target.ndjson"),
    );
    let got = &got[&0];
    assert_eq!(got.len(), want.len());
    use base64::Engine;
    let b64 =
        |s: &str| serde_json::Value::String(base64::engine::general_purpose::STANDARD.encode(s));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.0, b64(&w.2), "record {i}: key");
        assert_eq!(g.1, b64(&w.3), "record {i}: value");
        assert_eq!(g.4, "CreateTime");
        if w.0 == "NoTimestampType" {
            assert!(
                g.3 >= before,
                "record {i}: stamped when sent ({} < {before})",
                g.3
            );
        } else {
            assert_eq!(g.3, w.1, "record {i}: timestamp");
        }
    }
    broker.stop();
}

/// TLS on the real broker: a listener with a certificate of a CA made here; kseg rescue trusts
/// that CA (`--ssl-ca`) and checks the broker's name (127.0.0.1 in the certificate).
#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn rescue_over_tls() {
    if skip() {
        return;
    }
    let src = source();
    let work = src.root.join("tls");
    let _ = fs::remove_dir_all(&work);
    fs::create_dir_all(&work).unwrap();
    let openssl = |args: &[&str]| {
        let mut c = Command::new("openssl");
        c.args(args).current_dir(&work);
        run_ok(c, Duration::from_secs(60));
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=kseg-test-ca",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    fs::write(work.join("san.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "san.ext",
    ]);
    // Kafka's PEM key store: the private key (PKCS#8) and the certificate chain in one file.
    let store = format!(
        "{}{}",
        fs::read_to_string(work.join("server.key")).unwrap(),
        fs::read_to_string(work.join("server.pem")).unwrap()
    );
    fs::write(work.join("keystore.pem"), store).unwrap();
    let keystore = format!(
        "listener.name.external.ssl.keystore.location={}",
        work.join("keystore.pem").display()
    );
    let version = versions()[0].clone();
    let mut broker = Broker::format_and_start_with(
        &version,
        &src.root.join("tls-broker"),
        &["listener.name.external.ssl.keystore.type=PEM", &keystore],
        Some("SSL"),
        &[],
    );
    let external = format!("127.0.0.1:{}", broker.external_port);
    let lines = run_json(
        &[
            "rescue",
            src.data.join("rs-1").to_str().unwrap(),
            "--bootstrap",
            &external,
            "--security-protocol",
            "ssl",
            "--ssl-ca",
            work.join("ca.pem").to_str().unwrap(),
            "--topic-map",
            "rs:rs-tls",
            "--create-topics",
            "--json",
            "--no-progress",
        ]
        .map(String::from),
    );
    assert_eq!(summary(&lines)["sent"], src.expected[&1].len() as u64);
    let got = consume(&broker.bootstrap(), "rs-tls", &work.join("target.ndjson"));
    assert_eq!(got[&1], src.expected[&1]);
    broker.stop();
}
