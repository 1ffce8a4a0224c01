//! Test support: a tiny independent writer for v2 batches (to build clean and corrupt logs in
//! tests), and helpers to run the binary.
#![allow(dead_code)]

use std::path::Path;

fn varint(out: &mut Vec<u8>, v: i64) {
    let mut u = ((v << 1) ^ (v >> 63)) as u64;
    while u >= 0x80 {
        out.push((u as u8) | 0x80);
        u >>= 7;
    }
    out.push(u as u8);
}

fn bytes_field(out: &mut Vec<u8>, b: Option<&[u8]>) {
    match b {
        None => varint(out, -1),
        Some(b) => {
            varint(out, b.len() as i64);
            out.extend_from_slice(b);
        }
    }
}

pub struct Rec<'a> {
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    pub headers: Vec<(&'a str, Option<&'a [u8]>)>,
    pub ts_delta: i64,
}

pub fn rec<'a>(key: &'a str, value: &'a str) -> Rec<'a> {
    Rec {
        key: Some(key.as_bytes()),
        value: Some(value.as_bytes()),
        headers: vec![],
        ts_delta: 0,
    }
}

#[derive(Clone, Copy)]
pub struct BatchSpec {
    pub base_offset: i64,
    pub leader_epoch: i32,
    pub attributes: i16,
    pub base_timestamp: i64,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
}

impl Default for BatchSpec {
    fn default() -> Self {
        BatchSpec {
            base_offset: 0,
            leader_epoch: 0,
            attributes: 0,
            base_timestamp: 1_700_000_000_000,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
        }
    }
}

/// An uncompressed v2 batch with a correct CRC-32C.
pub fn batch(spec: BatchSpec, records: &[Rec<'_>]) -> Vec<u8> {
    let mut body = Vec::new();
    let mut max_ts = spec.base_timestamp;
    for (i, r) in records.iter().enumerate() {
        let mut rb = vec![0u8];
        varint(&mut rb, r.ts_delta);
        varint(&mut rb, i as i64);
        bytes_field(&mut rb, r.key);
        bytes_field(&mut rb, r.value);
        varint(&mut rb, r.headers.len() as i64);
        for (k, v) in &r.headers {
            bytes_field(&mut rb, Some(k.as_bytes()));
            bytes_field(&mut rb, *v);
        }
        varint(&mut body, rb.len() as i64);
        body.extend(rb);
        max_ts = max_ts.max(spec.base_timestamp + r.ts_delta);
    }
    let mut after_crc = Vec::new();
    after_crc.extend_from_slice(&spec.attributes.to_be_bytes());
    after_crc.extend_from_slice(&((records.len() as i32 - 1).max(0)).to_be_bytes());
    after_crc.extend_from_slice(&spec.base_timestamp.to_be_bytes());
    after_crc.extend_from_slice(&max_ts.to_be_bytes());
    after_crc.extend_from_slice(&spec.producer_id.to_be_bytes());
    after_crc.extend_from_slice(&spec.producer_epoch.to_be_bytes());
    after_crc.extend_from_slice(&spec.base_sequence.to_be_bytes());
    after_crc.extend_from_slice(&(records.len() as i32).to_be_bytes());
    after_crc.extend(body);
    let crc = crc32c::crc32c(&after_crc);
    let mut out = Vec::new();
    out.extend_from_slice(&spec.base_offset.to_be_bytes());
    out.extend_from_slice(&((after_crc.len() + 9) as i32).to_be_bytes());
    out.extend_from_slice(&spec.leader_epoch.to_be_bytes());
    out.push(2);
    out.extend_from_slice(&crc.to_be_bytes());
    out.extend(after_crc);
    out
}

/// A COMMIT (1) or ABORT (0) marker batch.
pub fn marker(base_offset: i64, producer_id: i64, commit: bool, coordinator_epoch: i32) -> Vec<u8> {
    let key = [0u8, 0, 0, commit as u8];
    let mut value = vec![0u8, 0];
    value.extend_from_slice(&coordinator_epoch.to_be_bytes());
    batch(
        BatchSpec {
            base_offset,
            attributes: 0x30,
            producer_id,
            producer_epoch: 0,
            ..Default::default()
        },
        &[Rec {
            key: Some(&key),
            value: Some(&value),
            headers: vec![],
            ts_delta: 0,
        }],
    )
}

/// Three clean single-record batches at offsets 0, 1, 2.
pub fn three_batches() -> Vec<Vec<u8>> {
    (0..3)
        .map(|i| {
            batch(
                BatchSpec {
                    base_offset: i,
                    base_timestamp: 1_700_000_000_000 + i,
                    ..Default::default()
                },
                &[rec("k", "value-that-is-long-enough")],
            )
        })
        .collect()
}

pub fn write(path: &Path, parts: &[&[u8]]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, parts.concat()).unwrap();
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn kseg(args: &[&str]) -> Run {
    let out = assert_cmd::Command::cargo_bin("kseg")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "kseg panicked: {}",
        run.stderr
    );
    run
}

pub fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}

pub fn of_type<'a>(lines: &'a [serde_json::Value], t: &str) -> Vec<&'a serde_json::Value> {
    lines.iter().filter(|v| v["type"] == t).collect()
}

/// Fails the test: the shared real-broker corpus is missing. Tests that read it are
/// `#[ignore = "needs ../shared/corpus/real ..."]`, so plain `cargo test` lists them as ignored
/// and `--include-ignored` (.ci/run) runs them; they never pass because their data was absent.
pub fn corpus_missing(what: &str) {
    panic!("the real-broker corpus (../shared/corpus/real, beside the clone) is missing: {what} cannot run");
}

/// Fails the test: a tool it drives is missing (the test is `#[ignore]`d with the tool's name;
/// .ci/run installs it).
pub fn tool_missing(tool: &str, what: &str) {
    panic!("{tool} is not installed: {what} cannot run (.ci/run installs it)");
}

fn uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// KRaft TopicRecord v0 (frame 1, type 2): name, topic id, no tagged fields.
fn topic_record(name: &str, id: [u8; 16]) -> Vec<u8> {
    let mut v = vec![1u8, 2, 0];
    uvarint(&mut v, name.len() as u64 + 1);
    v.extend_from_slice(name.as_bytes());
    v.extend_from_slice(&id);
    v.push(0);
    v
}

/// KRaft PartitionRecord v0 (frame 1, type 3) of topic `id` led by (and only on) `node`.
fn partition_record(partition: i32, id: [u8; 16], node: i32) -> Vec<u8> {
    let mut v = vec![1u8, 3, 0];
    v.extend_from_slice(&partition.to_be_bytes());
    v.extend_from_slice(&id);
    for array in [&[node][..], &[node][..], &[][..], &[][..]] {
        uvarint(&mut v, array.len() as u64 + 1);
        for r in array {
            v.extend_from_slice(&r.to_be_bytes());
        }
    }
    v.extend_from_slice(&node.to_be_bytes()); // leader
    v.extend_from_slice(&0i32.to_be_bytes()); // leaderEpoch
    v.extend_from_slice(&0i32.to_be_bytes()); // partitionEpoch
    v.push(0);
    v
}

/// KRaft ConfigRecord v0 (frame 1, type 4) of a topic (resource type 2): `value` None deletes.
fn config_record(topic: &str, name: &str, value: Option<&str>) -> Vec<u8> {
    resource_config_record(2, topic, name, value)
}

/// KRaft ConfigRecord v0 of any resource: 2 a topic, 4 a broker (`resource` its id, or empty
/// for the cluster-wide default).
fn resource_config_record(kind: u8, resource: &str, name: &str, value: Option<&str>) -> Vec<u8> {
    let mut v = vec![1u8, 4, 0, kind];
    for s in [Some(resource), Some(name), value] {
        match s {
            Some(s) => {
                uvarint(&mut v, s.len() as u64 + 1);
                v.extend_from_slice(s.as_bytes());
            }
            None => v.push(0),
        }
    }
    v.push(0);
    v
}

/// `root/__cluster_metadata-0` with one batch of ConfigRecords: (topic, config, value; None
/// deletes it), in order.
pub fn config_log(root: &Path, configs: &[(&str, &str, Option<&str>)]) {
    let values: Vec<Vec<u8>> = configs
        .iter()
        .map(|(t, k, v)| config_record(t, k, *v))
        .collect();
    let records: Vec<Rec> = values
        .iter()
        .map(|v| Rec {
            key: None,
            value: Some(v),
            headers: vec![],
            ts_delta: 0,
        })
        .collect();
    write(
        &root.join("__cluster_metadata-0/00000000000000000000.log"),
        &[&batch(BatchSpec::default(), &records)],
    );
}

/// `root/__cluster_metadata-0` with one batch of ConfigRecords of any resource: (resource type:
/// 2 topic, 4 broker; resource name; config; value), in order.
pub fn resource_config_log(root: &Path, configs: &[(u8, &str, &str, Option<&str>)]) {
    let values: Vec<Vec<u8>> = configs
        .iter()
        .map(|(kind, r, k, v)| resource_config_record(*kind, r, k, *v))
        .collect();
    let records: Vec<Rec> = values
        .iter()
        .map(|v| Rec {
            key: None,
            value: Some(v),
            headers: vec![],
            ts_delta: 0,
        })
        .collect();
    write(
        &root.join("__cluster_metadata-0/00000000000000000000.log"),
        &[&batch(BatchSpec::default(), &records)],
    );
}

/// `root/__cluster_metadata-0` with one batch recording `topics` (name, partition count),
/// partition p led by node `leader(p)`.
pub fn metadata_log(root: &Path, topics: &[(&str, i32)], leader: fn(i32) -> i32) {
    let mut values = Vec::new();
    for (i, (name, count)) in topics.iter().enumerate() {
        let id = [i as u8 + 7; 16];
        values.push(topic_record(name, id));
        values.extend((0..*count).map(|p| partition_record(p, id, leader(p))));
    }
    let records: Vec<Rec> = values
        .iter()
        .map(|v| Rec {
            key: None,
            value: Some(v),
            headers: vec![],
            ts_delta: 0,
        })
        .collect();
    write(
        &root.join("__cluster_metadata-0/00000000000000000000.log"),
        &[&batch(BatchSpec::default(), &records)],
    );
}
