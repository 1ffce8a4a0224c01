//! Empty and non-Kafka inputs get an answer: what was found and what was not, with the exit
//! code the README documents (2: nothing kseg can read was found; 1: a foreign data dir next to
//! Kafka data).

use crate::common::*;
use std::path::{Path, PathBuf};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example-datadir")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn redpanda(root: &Path) -> PathBuf {
    let rp = root.join("rp");
    std::fs::create_dir_all(rp.join("kafka/orders/0_12")).unwrap();
    std::fs::create_dir_all(rp.join("redpanda")).unwrap();
    std::fs::write(rp.join("kafka/orders/0_12/0-1-v1.log"), [0u8; 64]).unwrap();
    rp
}

#[test]
fn an_empty_dir_is_named_by_every_command() {
    let t = tempfile::tempdir().unwrap();
    let empty = t.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let expected = format!("no Kafka log dir or partition under {}", empty.display());
    for cmd in [
        "summary",
        "verify-index",
        "dump-log",
        "groups",
        "transactions",
    ] {
        for json in [false, true] {
            let mut args = vec![cmd, s(&empty)];
            if json {
                args.push("--json");
            }
            let r = kseg(&args);
            assert_eq!(r.code, 2, "{cmd}: {}", r.stderr);
            assert!(r.stderr.contains(&expected), "{cmd}: {}", r.stderr);
            assert_eq!(r.stdout, "", "{cmd}");
        }
    }
}

#[test]
fn a_file_that_is_not_a_segment_is_named() {
    let t = tempfile::tempdir().unwrap();
    let random = t.path().join("random.log");
    let bytes: Vec<u8> = (0..5000u32).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(&random, &bytes).unwrap();
    for cmd in ["summary", "verify-index", "dump-log"] {
        let r = kseg(&[cmd, s(&random)]);
        assert_eq!(r.code, 2, "{cmd}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!(
                "{} is not a Kafka log segment: its name is not a segment's",
                random.display()
            )),
            "{cmd}: {}",
            r.stderr
        );
        assert_eq!(r.stdout, "", "{cmd}");
    }
    // A Kafka file that the command does not read alone says which it is.
    let index = example().join("orders-0/00000000000000000000.index");
    let r = kseg(&["summary", s(&index)]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("is not a Kafka log segment: it is an offset index, which kseg summary"),
        "{}",
        r.stderr
    );
    let r = kseg(&["groups", s(&index)]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("is an offset index, not a Kafka log dir"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_redpanda_dir_alone_exits_2_and_next_to_kafka_data_exits_1() {
    let t = tempfile::tempdir().unwrap();
    let rp = redpanda(t.path());
    for cmd in [
        "summary",
        "verify-index",
        "dump-log",
        "groups",
        "transactions",
    ] {
        let r = kseg(&[cmd, s(&rp)]);
        assert_eq!(r.code, 2, "{cmd}: {}", r.stderr);
        assert!(
            r.stderr.contains("Redpanda data directory"),
            "{cmd}: {}",
            r.stderr
        );
    }
    let example = example();
    for cmd in ["summary", "verify-index", "dump-log"] {
        let r = kseg(&[cmd, s(&example), s(&rp)]);
        assert_eq!(r.code, 1, "{cmd}: {}", r.stderr);
        assert!(
            format!("{}{}", r.stdout, r.stderr).contains("Redpanda data directory"),
            "{cmd}"
        );
    }
}

#[test]
fn one_empty_path_among_good_ones_is_named_and_exits_2_after_the_rest() {
    let t = tempfile::tempdir().unwrap();
    let empty = t.path().join("nothing-here");
    std::fs::create_dir(&empty).unwrap();
    let example = example();
    let r = kseg(&["summary", s(&example), s(&empty), "--json"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no Kafka log dir or partition under"));
    assert_eq!(of_type(&json_lines(&r.stdout), "partition").len(), 6);
}

#[test]
fn the_same_path_given_twice_is_read_once() {
    let example = example();
    let again = example.join("../example-datadir");
    let r = kseg(&["summary", s(&example), s(&again), "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = json_lines(&r.stdout);
    assert_eq!(of_type(&lines, "partition").len(), 6);
    assert_eq!(of_type(&lines, "summary")[0]["records"], 295);
}

#[test]
fn an_empty_log_dir_is_not_called_cleanly_shut_down() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("fresh");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    let r = kseg(&["verify-index", s(&dir)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("clean-shutdown marker;"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("no partitions, nothing for Kafka to recover"),
        "{}",
        r.stdout
    );
    let r = kseg(&["summary", s(&dir)]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("No partitions"), "{}", r.stdout);
    assert!(!r.stdout.contains("TOPIC"), "{}", r.stdout);
}

#[test]
fn groups_says_when_an_asked_group_does_not_exist() {
    let example = example();
    let r = kseg(&["groups", s(&example), "--group", "nosuch"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("no such group: \"nosuch\""),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("No committed offsets"), "{}", r.stdout);
    // Known and unknown together: the known one is answered, the run still exits 2.
    let r = kseg(&[
        "groups",
        s(&example),
        "--group",
        "my-group",
        "--group",
        "nosuch",
        "--json",
    ]);
    assert_eq!(r.code, 2);
    let lines = json_lines(&r.stdout);
    assert_eq!(of_type(&lines, "offset").len(), 5);
    let r = kseg(&["groups", s(&example), "--group", "my-group"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn a_segment_copied_under_another_name_is_still_read() {
    let copied = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/kafka-python/v2-none.log");
    let r = kseg(&["summary", s(&copied), "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        of_type(&json_lines(&r.stdout), "partition")[0]["records"],
        12
    );
}
