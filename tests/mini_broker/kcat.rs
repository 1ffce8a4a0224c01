//! kcat (librdkafka) against `kseg mini-broker`: every codec produced by an idempotent producer
//! with keys and headers comes back byte for byte; a balanced consumer group (`kcat -G`)
//! commits, resumes after new records and after a broker restart; the files then pass
//! `kseg verify-index` and `kseg dump-log` shows exactly the produced records.
//! Skipped, with a message, when kcat is not installed.

use crate::mini_broker_support;
use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::mini_broker_support::{
    have_kcat, records, run, skip_without, verify_errors, BrokerProcess,
};
use kseg::analysis::partition_for::partition_for;
use kseg::broker::records::{decode_offset_value, decode_offsets_key, OffsetsKey};

fn kcat_produce(bootstrap: &str, topic: &str, extra: &[&str], lines: &str) {
    let mut child = Command::new("kcat")
        .args(["-b", bootstrap, "-P", "-t", topic, "-K", ":"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kcat");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(lines.as_bytes())
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            assert!(status.success(), "kcat -P failed: {err}");
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "kcat -P ran over 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn kcat(args: &[&str]) -> Vec<String> {
    let mut c = Command::new("kcat");
    c.args(args);
    let out = run(c, Duration::from_secs(60));
    assert!(
        out.status.success(),
        "kcat {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

fn lines(from: usize, to: usize) -> String {
    (from..to)
        .map(|i| format!("key-{i}:value {i} {}\n", "ab\u{e9}c".repeat(i % 9)))
        .collect()
}

#[test]
#[ignore = "needs kcat (apt-get install kcat)"]
fn every_codec_round_trips_byte_for_byte() {
    if skip_without("kcat", have_kcat()) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let broker = BrokerProcess::start(&dir, &["--num-partitions", "3"]);
    let b = broker.bootstrap();
    let codecs = ["none", "gzip", "snappy", "lz4", "zstd"];
    for codec in codecs {
        let topic = format!("kc-{codec}");
        kcat_produce(
            &b,
            &topic,
            &[
                "-z",
                codec,
                "-H",
                "h1=v1",
                "-H",
                "trace=\u{2603}",
                "-X",
                "enable.idempotence=true",
            ],
            &lines(0, 200),
        );
        let got = kcat(&[
            "-b",
            &b,
            "-C",
            "-t",
            &topic,
            "-o",
            "beginning",
            "-e",
            "-f",
            "%k:%s|%h\n",
        ]);
        let mut want: Vec<String> = lines(0, 200)
            .lines()
            .map(|l| format!("{l}|h1=v1,trace=\u{2603}"))
            .collect();
        want.sort();
        assert_eq!(got, want, "{codec}");
    }
    let listing = kcat(&["-b", &b, "-L"]).join("\n");
    assert!(
        listing.contains("topic \"kc-zstd\" with 3 partitions"),
        "{listing}"
    );
    broker.stop();

    let (errors, warnings, list) = verify_errors(&dir);
    assert_eq!((errors, warnings), (0, 0), "{list:?}");
    for codec in codecs {
        let total: usize = (0..3)
            .map(|p| records(&dir.join(format!("kc-{codec}-{p}"))).len())
            .sum();
        assert_eq!(total, 200, "{codec}");
        let out = mini_broker_support::kseg(&[
            "dump-log",
            "--json",
            dir.join(format!("kc-{codec}-0")).to_str().unwrap(),
        ]);
        for batch in String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.contains("\"type\":\"batch\""))
        {
            let v: serde_json::Value = serde_json::from_str(batch).unwrap();
            assert_eq!(v["compression"], codec, "{batch}");
            assert!(
                v["producerId"].as_i64().unwrap() >= 0,
                "idempotent: {batch}"
            );
            assert_eq!(v["crcValid"], true);
        }
    }
}

/// The latest committed offset per (topic, partition) of a group, from its offsets partition.
fn committed(dir: &std::path::Path, group: &str) -> BTreeMap<(String, i32), i64> {
    let p = partition_for(group, 50);
    let mut out = BTreeMap::new();
    for (_, key, value) in records(&dir.join(format!("__consumer_offsets-{p}"))) {
        let key = hex::decode(key.unwrap()).unwrap();
        if let Ok(OffsetsKey::Offset {
            group: g,
            topic,
            partition,
        }) = decode_offsets_key(&key)
        {
            if g == group {
                let v = decode_offset_value(&hex::decode(value.unwrap()).unwrap()).unwrap();
                out.insert((topic, partition), v.offset);
            }
        }
    }
    out
}

#[test]
#[ignore = "needs kcat (apt-get install kcat)"]
fn a_consumer_group_commits_and_resumes_across_a_restart() {
    if skip_without("kcat", have_kcat()) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let broker = BrokerProcess::start(&dir, &["--num-partitions", "3"]);
    let b = broker.bootstrap();
    kcat_produce(&b, "orders", &[], &lines(0, 100));
    let group = |b: &str| -> Vec<String> {
        [
            "-b",
            b,
            "-G",
            "kgroup",
            "orders",
            "-X",
            "auto.offset.reset=earliest",
            "-e",
            "-f",
            "%k\n",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let consume = |b: &str| kcat(&group(b).iter().map(String::as_str).collect::<Vec<_>>());
    let first = consume(&b);
    assert_eq!(first.len(), 100);
    kcat_produce(&b, "orders", &[], &lines(100, 110));
    let second = consume(&b);
    let mut want: Vec<String> = (100..110).map(|i| format!("key-{i}")).collect();
    want.sort();
    assert_eq!(second, want, "the group resumes from its committed offsets");
    broker.stop();

    let offsets = committed(&dir, "kgroup");
    assert_eq!(offsets.len(), 3, "{offsets:?}");
    assert_eq!(offsets.values().sum::<i64>(), 110);

    // After a restart the coordinator reloads the commits from __consumer_offsets.
    let broker = BrokerProcess::start(&dir, &[]);
    let b = broker.bootstrap();
    kcat_produce(&b, "orders", &[], &lines(110, 113));
    let third = consume(&b);
    assert_eq!(third, vec!["key-110", "key-111", "key-112"]);
    broker.stop();
    let groups = mini_broker_support::group_offsets(&dir, "kgroup");
    assert_eq!(groups.iter().map(|g| g.2).sum::<i64>(), 113, "{groups:?}");
    assert!(groups.iter().all(|g| g.3 == 0), "{groups:?}");
    let (errors, warnings, list) = verify_errors(&dir);
    assert_eq!((errors, warnings), (0, 0), "{list:?}");
}
