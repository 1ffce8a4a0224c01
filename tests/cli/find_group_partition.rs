use crate::common::*;

#[test]
fn one_id_prints_just_the_partition() {
    let r = kseg(&["find-group-partition", "b1.offsets.group"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "22\n");
}

#[test]
fn several_ids_and_json() {
    let r = kseg(&[
        "find-group-partition",
        "b1.proto.consumer.group",
        "my-group",
        "polygenelubricants",
        "𝄞group",
    ]);
    assert_eq!(
        r.stdout,
        "b1.proto.consumer.group\t18\nmy-group\t12\npolygenelubricants\t0\n𝄞group\t47\n"
    );
    let j = kseg(&[
        "find-group-partition",
        "--json",
        "--partitions",
        "10",
        "foo",
    ]);
    let v = &json_lines(&j.stdout)[0];
    assert_eq!(v["partition"], 4);
    assert_eq!(v["hashCode"], 101574);
    assert_eq!(v["partitions"], 10);
    assert_eq!(v["topic"], "__consumer_offsets");
}

#[test]
fn log_dir_confirms_on_disk_and_warns_when_elsewhere() {
    let t = tempfile::tempdir().unwrap();
    // Group "my-group" hashes to 12 of 50, but its commit is written into partition 3.
    let mut key = vec![0u8, 1];
    key.extend_from_slice(&(8i16).to_be_bytes());
    key.extend_from_slice(b"my-group");
    key.extend_from_slice(&(1i16).to_be_bytes());
    key.extend_from_slice(b"t");
    key.extend_from_slice(&0i32.to_be_bytes());
    let r0 = Rec {
        key: Some(&key),
        value: Some(b"\x00\x03"),
        headers: vec![],
        ts_delta: 0,
    };
    for p in 0..50 {
        std::fs::create_dir_all(t.path().join(format!("__consumer_offsets-{p}"))).unwrap();
    }
    std::fs::write(t.path().join("meta.properties"), "version=1\n").unwrap();
    write(
        &t.path()
            .join("__consumer_offsets-3/00000000000000000000.log"),
        &[&batch(BatchSpec::default(), &[r0])],
    );
    // No __cluster_metadata here: the count is given, not guessed from the dirs.
    let r = kseg(&[
        "find-group-partition",
        "--json",
        "--partitions",
        "50",
        "--log-dir",
        t.path().to_str().unwrap(),
        "my-group",
    ]);
    let v = &json_lines(&r.stdout)[0];
    assert_eq!(v["partition"], 12);
    assert_eq!(v["partitions"], 50);
    assert_eq!(v["partitionsFrom"], "--partitions");
    assert_eq!(v["onDisk"][0]["partition"], 3);
    assert!(v["warning"]
        .as_str()
        .unwrap()
        .contains("partition count may have changed"));
}

/// One broker of a cluster whose __consumer_offsets has 22 partitions: it holds partitions
/// `held` and the cluster metadata log.
fn broker(root: &std::path::Path, held: std::ops::Range<i32>) {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(root.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    for p in held {
        std::fs::create_dir_all(root.join(format!("__consumer_offsets-{p}"))).unwrap();
    }
    metadata_log(root, &[("__consumer_offsets", 22)], |p| 1 + p % 3);
}

#[test]
fn the_partition_count_comes_from_the_cluster_metadata_not_the_dirs_present() {
    let t = tempfile::tempdir().unwrap();
    broker(t.path(), 0..8);
    let dir = t.path().to_str().unwrap();
    let r = kseg(&[
        "find-group-partition",
        "--json",
        "--log-dir",
        dir,
        "my-group",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = &json_lines(&r.stdout)[0];
    // The highest dir here is 7; the metadata says 22.
    assert_eq!(v["partitions"], 22);
    assert_eq!(v["partitionsFrom"], "__cluster_metadata");
    let expected = kseg(&["find-group-partition", "--partitions", "22", "my-group"]);
    assert_eq!(r.code, 0);
    assert_eq!(v["partition"].to_string() + "\n", expected.stdout);
    // A broker holding none of the partitions still answers from the metadata.
    let other = tempfile::tempdir().unwrap();
    broker(other.path(), 0..0);
    let r = kseg(&[
        "find-group-partition",
        "--log-dir",
        other.path().to_str().unwrap(),
        "my-group",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, expected.stdout);
    // --partitions against the metadata: the flag wins, with a warning.
    let r = kseg(&[
        "find-group-partition",
        "--partitions",
        "50",
        "--log-dir",
        dir,
        "my-group",
    ]);
    assert_eq!(r.stdout, "12\n");
    assert!(
        r.stderr
            .contains("__cluster_metadata records 22 partitions"),
        "{}",
        r.stderr
    );
}

#[test]
fn without_cluster_metadata_the_count_is_not_guessed() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("meta.properties"), "version=1\n").unwrap();
    for p in 0..8 {
        std::fs::create_dir_all(t.path().join(format!("__consumer_offsets-{p}"))).unwrap();
    }
    let r = kseg(&[
        "find-group-partition",
        "--log-dir",
        t.path().to_str().unwrap(),
        "my-group",
    ]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert!(r.stderr.contains("pass --partitions N"), "{}", r.stderr);
    let r = kseg(&["find-group-partition", "--partitions", "0", "my-group"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
}

#[test]
fn a_folder_of_log_dirs_is_read_as_log_dirs() {
    let t = tempfile::tempdir().unwrap();
    broker(&t.path().join("kafka-logs"), 0..4);
    broker(&t.path().join("kafka-logs-1"), 4..8);
    let r = kseg(&["summary", "--json", t.path().to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = json_lines(&r.stdout);
    let rows = of_type(&lines, "partition");
    // 8 __consumer_offsets partitions and two metadata partitions; no topic "kafka-logs".
    assert_eq!(rows.len(), 10, "{}", r.stdout);
    assert!(rows.iter().all(|r| r["topic"] != "kafka-logs"));
    assert_eq!(of_type(&lines, "summary")[0]["logDirs"], 2);
}
