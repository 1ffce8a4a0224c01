//! `kseg rescue` across reruns (issue 45, items 6–8), the same scenarios against any target
//! reached at a bootstrap address: `kseg mini-broker` (tests/mini_broker) and Kafka 4.4
//! (tests/oracle). Each source is a dead broker's log dir written by `kseg mini-broker produce`
//! (and `commit`); the target is changed between runs with the Java admin API's operations as
//! librdkafka offers them (DeleteTopics, CreateTopics, AlterConfigs), and read back with a
//! consumer.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use rdkafka::admin::{
    AdminClient, AdminOptions, AlterConfig, NewTopic, ResourceSpecifier, TopicReplication,
};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};

use super::{kseg, kseg_bin, run};

/// A log dir holding `topic` (`partitions` partitions) with `lines` ("key:value") produced as the
/// Java producer partitions them (murmur2 of the key).
pub fn source(dir: &Path, topic: &str, partitions: i32, lines: &[String]) {
    let mut child = Command::new(kseg_bin())
        .args([
            "mini-broker",
            "produce",
            "--retention-ms",
            "-1",
            "--log-dir",
        ])
        .arg(dir)
        .args(["--topic", topic, "--key-separator", ":"])
        .args(["--partitions", &partitions.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut text = lines.join("\n");
    text.push('\n');
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `kseg mini-broker commit`: a group's offset in the source.
pub fn commit(dir: &Path, group: &str, topic: &str, spec: &str) {
    let o = kseg(&[
        "mini-broker",
        "commit",
        "--log-dir",
        dir.to_str().unwrap(),
        "--group",
        group,
        "--topic",
        topic,
        spec,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A source partition's records as (offset, key, value) in offset order.
pub fn source_records(partition_dir: &Path) -> Vec<(i64, String, String)> {
    super::records(partition_dir)
        .into_iter()
        .map(|(o, k, v)| (o, unhex(k), unhex(v)))
        .collect()
}

fn unhex(s: Option<String>) -> String {
    let s = s.unwrap_or_default();
    String::from_utf8(hex::decode(&s).unwrap_or_else(|_| s.clone().into_bytes())).unwrap()
}

/// `kseg rescue` with `args` (5 minutes at most).
pub fn rescue(args: &[&str]) -> Output {
    let mut c = Command::new(kseg_bin());
    c.arg("rescue").args(args).arg("--no-progress");
    run(c, Duration::from_secs(300))
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn lines(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn of_type<'a>(lines: &'a [serde_json::Value], kind: &str) -> Vec<&'a serde_json::Value> {
    lines.iter().filter(|l| l["type"] == kind).collect()
}

fn sent(lines: &[serde_json::Value]) -> u64 {
    of_type(lines, "summary")
        .first()
        .and_then(|s| s["sent"].as_u64())
        .unwrap_or_else(|| panic!("no summary: {lines:?}"))
}

/// The target's admin calls the scenarios make.
pub struct Target {
    pub bootstrap: String,
    admin: AdminClient<DefaultClientContext>,
    runtime: tokio::runtime::Runtime,
}

impl Target {
    pub fn new(bootstrap: &str) -> Target {
        Target {
            bootstrap: bootstrap.to_string(),
            admin: ClientConfig::new()
                .set("bootstrap.servers", bootstrap)
                .create()
                .unwrap(),
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
        }
    }

    fn consumer(&self) -> BaseConsumer {
        ClientConfig::new()
            .set("bootstrap.servers", &self.bootstrap)
            .set("group.id", "rescue-scenarios-reader")
            .set("enable.auto.commit", "false")
            .create()
            .unwrap()
    }

    /// Deletes `topic` and creates it again, empty, with `partitions` (retried while Kafka
    /// still finishes the deletion).
    pub fn recreate(&self, topic: &str, partitions: i32) {
        let opts = AdminOptions::new().operation_timeout(Some(Duration::from_secs(60)));
        let r = self
            .runtime
            .block_on(self.admin.delete_topics(&[topic], &opts))
            .unwrap();
        assert!(r.iter().all(|r| r.is_ok()), "deleting {topic}: {r:?}");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let new = NewTopic::new(topic, partitions, TopicReplication::Fixed(-1));
            let r = self
                .runtime
                .block_on(self.admin.create_topics(&[new], &opts))
                .unwrap();
            if r.iter().all(|r| r.is_ok()) {
                break;
            }
            assert!(Instant::now() < deadline, "creating {topic} again: {r:?}");
            std::thread::sleep(Duration::from_millis(200));
        }
        // Until every broker answers for the new topic.
        let c = self.consumer();
        let deadline = Instant::now() + Duration::from_secs(60);
        while c
            .fetch_watermarks(topic, partitions - 1, Duration::from_secs(5))
            .is_err()
        {
            assert!(Instant::now() < deadline, "{topic} never came back");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Sets a topic config (AlterConfigs: the topic's other dynamic configs are replaced).
    pub fn set_config(&self, topic: &str, key: &str, value: &str) {
        let opts = AdminOptions::new().operation_timeout(Some(Duration::from_secs(60)));
        let change = AlterConfig::new(ResourceSpecifier::Topic(topic)).set(key, value);
        let r = self
            .runtime
            .block_on(self.admin.alter_configs(&[change], &opts))
            .unwrap();
        assert!(r.iter().all(|r| r.is_ok()), "{r:?}");
        // Until the broker applies it.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let got = self
                .runtime
                .block_on(
                    self.admin
                        .describe_configs(&[ResourceSpecifier::Topic(topic)], &opts),
                )
                .unwrap();
            let now = got
                .into_iter()
                .flatten()
                .flat_map(|r| r.entries)
                .find(|e| e.name == key)
                .and_then(|e| e.value);
            if now.as_deref() == Some(value) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{topic}: {key} never became {value}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Every record of a target partition as (key, value), in offset order.
    pub fn records(&self, topic: &str, partition: i32) -> Vec<(String, String)> {
        let c = self.consumer();
        let (_, end) = c
            .fetch_watermarks(topic, partition, Duration::from_secs(30))
            .unwrap();
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset(topic, partition, Offset::Beginning)
            .unwrap();
        c.assign(&tpl).unwrap();
        let mut out = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut next = 0;
        while next < end {
            assert!(
                Instant::now() < deadline,
                "{topic}-{partition}: read to {next} of {end}"
            );
            if let Some(Ok(m)) = c.poll(Duration::from_millis(200)) {
                next = m.offset() + 1;
                let text =
                    |b: Option<&[u8]>| String::from_utf8_lossy(b.unwrap_or_default()).into_owned();
                out.push((text(m.key()), text(m.payload())));
            }
        }
        out
    }

    /// A group's committed offset on a target partition.
    pub fn committed(&self, group: &str, topic: &str, partition: i32) -> Option<i64> {
        let c: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", &self.bootstrap)
            .set("group.id", group)
            .set("enable.auto.commit", "false")
            .create()
            .unwrap();
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition(topic, partition);
        let got = c.committed_offsets(tpl, Duration::from_secs(30)).unwrap();
        match got.find_partition(topic, partition)?.offset() {
            Offset::Offset(o) => Some(o),
            _ => None,
        }
    }
}

/// Issue 45 item 6: a `--state` reused after its target topic was deleted and created again
/// is refused, names what changed and offers `--resend`; nothing is committed into the empty
/// topic; `--resend` sends everything again and commits. (A source of 40 records on two
/// partitions, a group at offset 5 of partition 0.)
pub fn state_reused_after_the_topic_was_recreated(target: &Target, work: &Path) -> PathBuf {
    let src = work.join("dead-broker");
    let input: Vec<String> = (0..40).map(|i| format!("k{}:v{i}", i % 20)).collect();
    source(&src, "ledger", 2, &input);
    commit(&src, "ledger-readers", "ledger", "0=5");
    let state = work.join("ledger.state");
    let args: Vec<String> = [
        src.to_str().unwrap(),
        "--bootstrap",
        &target.bootstrap,
        "--topic-map",
        "ledger:ledger-again",
        "--create-topics",
        "--groups",
        "--json",
        "--state",
        state.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    let with = |extra: &[&str]| -> Vec<String> {
        let mut a = args.clone();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |a: &[String]| rescue(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let first = run(&args);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(sent(&lines(&first)), 40);
    assert_eq!(
        target.committed("ledger-readers", "ledger-again", 0),
        Some(5)
    );

    target.recreate("ledger-again", 2);
    let again = run(&args);
    let err = stderr(&again);
    assert_eq!(again.status.code(), Some(2), "{err}");
    assert!(
        err.contains("does not describe this target")
            && err.contains(
                "target topic ledger-again was deleted and created again since (topic id"
            )
            && err.contains("--resend"),
        "{err}"
    );
    assert!(
        of_type(&lines(&again), "groupCommit").is_empty(),
        "nothing is committed"
    );
    assert!(target.records("ledger-again", 0).is_empty());

    let resent = run(&with(&["--resend", "--verify"]));
    let err = stderr(&resent);
    assert_eq!(resent.status.code(), Some(0), "{err}");
    assert!(err.contains("--resend sends every record again"), "{err}");
    let l = lines(&resent);
    assert_eq!(sent(&l), 40);
    let matched: u64 = of_type(&l, "verified")
        .iter()
        .map(|v| v["matched"].as_u64().unwrap())
        .sum();
    assert_eq!(matched, 40, "{l:?}");
    assert_eq!(
        target.committed("ledger-readers", "ledger-again", 0),
        Some(5)
    );
    state
}

/// Issue 45 item 7: a record the target refuses (over its `max.message.bytes`) stops its
/// partition exactly there — nothing after it is sent, the other partition is sent whole — and
/// says which record and why; once the target takes it, the rerun resumes from it, and the
/// target partition then holds the source's records in the source's order (each key's latest
/// value the source's), `--verify` comparing through the offset map.
pub fn refused_record_stops_its_partition(target: &Target, work: &Path) {
    let src = work.join("dead-broker");
    let mut input: Vec<String> = (0..25).map(|i| format!("k{i}:old-{i}")).collect();
    input.push(format!("k-big:{}", "x".repeat(20_000)));
    input.extend((0..25).map(|i| format!("k{i}:new-{i}")));
    source(&src, "prices", 2, &input);
    let partitions: Vec<Vec<(i64, String, String)>> = (0..2)
        .map(|p| source_records(&src.join(format!("prices-{p}"))))
        .collect();
    let big = partitions
        .iter()
        .position(|p| p.iter().any(|r| r.1 == "k-big"))
        .unwrap() as i32;
    let other = 1 - big;
    let big_at = partitions[big as usize]
        .iter()
        .position(|r| r.1 == "k-big")
        .unwrap();
    let big_offset = partitions[big as usize][big_at].0;
    assert!(
        big_at > 0 && big_at + 1 < partitions[big as usize].len(),
        "records before and after the large one"
    );
    let state = work.join("prices.state");
    let args = [
        src.to_str().unwrap(),
        "--bootstrap",
        &target.bootstrap,
        "--topic-map",
        "prices:prices-small",
        "--create-topics",
        "--topic-config",
        "max.message.bytes=10000",
        "--json",
        "--state",
        state.to_str().unwrap(),
    ];
    // The dry run, the cluster reachable, checks the batches (issue 44 item 16): exit 1.
    let mut dry = args.to_vec();
    dry.push("--dry-run");
    let o = rescue(&dry);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "batches of at most 10000 bytes (target topic prices-small's max.message.bytes=10000"
        ) && err.contains(&format!(
            "prices-{big} offset {big_offset}: a batch of this record alone is"
        )) && err.contains(&format!("prices-{big} would stop there")),
        "{err}"
    );

    let first = rescue(&args);
    let err = stderr(&first);
    assert_eq!(first.status.code(), Some(2), "{err}");
    let kv = |rs: &[(i64, String, String)]| -> Vec<(String, String)> {
        rs.iter().map(|r| (r.1.clone(), r.2.clone())).collect()
    };
    // The refused record's partition ends before it; the other is whole.
    assert_eq!(
        target.records("prices-small", big),
        kv(&partitions[big as usize][..big_at])
    );
    assert_eq!(
        target.records("prices-small", other),
        kv(&partitions[other as usize])
    );
    let name = format!("prices-{big}");
    assert!(
        err.contains(&format!(
            "kseg: {name} offset {big_offset}: a batch of this record alone is"
        )) && err
            .contains("max.message.bytes=10000 (MESSAGE_TOO_LARGE): the target will refuse it"),
        "said before sending: {err}"
    );
    assert!(
        err.contains(&format!(
            "{name} stopped at offset {big_offset}: the target refused the record"
        )) && err.contains("nothing after it was sent")
            && err.contains("rerun with the same --state")
            && err.contains("1 of 2 source partitions stopped"),
        "{err}"
    );
    let rescued = lines(&first);
    let refused: Vec<&serde_json::Value> = of_type(&rescued, "rescued")
        .into_iter()
        .filter(|r| !r["refused"].is_null())
        .collect();
    assert_eq!(refused.len(), 1, "{rescued:?}");
    assert_eq!(refused[0]["refused"]["offset"], big_offset);

    target.set_config("prices-small", "max.message.bytes", "1048588");
    let mut again = args.to_vec();
    again.push("--verify");
    let second = rescue(&again);
    let err = stderr(&second);
    assert_eq!(second.status.code(), Some(0), "{err}");
    let l = lines(&second);
    // The rate is a whole number.
    assert!(
        of_type(&l, "summary")[0]["recordsPerSecond"].is_u64(),
        "{l:?}"
    );
    assert_eq!(
        sent(&l),
        (partitions[big as usize].len() - big_at) as u64,
        "the rerun sends from the refused record on: {l:?}"
    );
    for v in of_type(&l, "verified") {
        assert_eq!(
            (&v["mismatched"], &v["missing"], &v["extra"]),
            (&0.into(), &0.into(), &0.into()),
            "{v}"
        );
    }
    // In the source's order: every key's latest value is the source's.
    let got = target.records("prices-small", big);
    assert_eq!(got, kv(&partitions[big as usize]));
    let latest =
        |rs: &[(String, String)]| -> BTreeMap<String, String> { rs.iter().cloned().collect() };
    assert_eq!(latest(&got), latest(&kv(&partitions[big as usize])));
}

/// Issue 45 item 8: `--groups` checks each translated offset against the map's consistency
/// and the target partition's log. A state whose map puts records at offset 10^15 of a
/// 30-record partition: `--verify` finds them missing and nothing is committed; without it the
/// offset is not translated (exit 1), and the group's offset in the target stays as it was.
pub fn groups_check_the_map_against_the_target(target: &Target, work: &Path) {
    let src = work.join("dead-broker");
    let input: Vec<String> = (0..30).map(|i| format!("a{i}:{i}")).collect();
    source(&src, "acct", 1, &input);
    commit(&src, "acct-readers", "acct", "0=25");
    let state = work.join("acct.state");
    let args = [
        src.to_str().unwrap(),
        "--bootstrap",
        &target.bootstrap,
        "--topic-map",
        "acct:acct-copy",
        "--create-topics",
        "--groups",
        "--json",
        "--state",
        state.to_str().unwrap(),
    ];
    let first = rescue(&args);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(target.committed("acct-readers", "acct-copy", 0), Some(25));

    // The map as a damaged (or hand-edited) state file may hold it.
    let mut st: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    st["offset_map"]["acct-0"] =
        serde_json::json!([[0, 9, 0, 0], [10, 29, 0, 1_000_000_000_000_000i64]]);
    std::fs::write(&state, st.to_string()).unwrap();

    let mut verify = args.to_vec();
    verify.push("--verify");
    let o = rescue(&verify);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let l = lines(&o);
    let v = of_type(&l, "verified");
    assert_eq!(v.len(), 1, "{l:?}");
    assert_eq!(
        (&v[0]["matched"], &v[0]["missing"]),
        (&10.into(), &20.into()),
        "{l:?}"
    );
    assert!(
        v[0]["firstMismatch"]
            .as_str()
            .unwrap()
            .contains("the offset map puts it at acct-copy-0 offset 1000000000000000"),
        "{l:?}"
    );
    assert!(err.contains("no group offset was committed"), "{err}");
    assert!(of_type(&l, "groupCommit").is_empty(), "{l:?}");

    let o = rescue(&args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let l = lines(&o);
    let offsets = of_type(&l, "groupOffset");
    assert_eq!(offsets.len(), 1, "{l:?}");
    assert_eq!(offsets[0]["translation"], "not-translated", "{l:?}");
    let why = offsets[0]["why"].as_str().unwrap();
    assert!(
        why.contains(
            "reaches target offset 1000000000000019, past offset 29 the rescue wrote up to"
        ) && why.contains("not committed"),
        "{why}"
    );
    assert!(of_type(&l, "groupCommit").is_empty(), "{l:?}");
    assert_eq!(target.committed("acct-readers", "acct-copy", 0), Some(25));
}
