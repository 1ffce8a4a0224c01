mod common;
use common::*;

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
    let r = kseg(&[
        "find-group-partition",
        "--json",
        "--log-dir",
        t.path().to_str().unwrap(),
        "my-group",
    ]);
    let v = &json_lines(&r.stdout)[0];
    assert_eq!(v["partition"], 12);
    assert_eq!(v["partitions"], 50);
    assert_eq!(v["onDisk"][0]["partition"], 3);
    assert!(v["warning"]
        .as_str()
        .unwrap()
        .contains("partition count may have changed"));
}
