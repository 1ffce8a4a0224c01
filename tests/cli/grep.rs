//! `kseg grep` from the command line: matches, filters, output forms, exit codes.

use crate::common::*;

use std::path::PathBuf;

/// A log dir with `orders-0` (offsets 0-5 in two batches, producer 7 then 8) and `orders-1`
/// (one batch, offsets 0-1).
fn data_dir() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let h: Vec<(&str, Option<&[u8]>)> = vec![("trace", Some(b"abc".as_slice()))];
    let p0a = batch(
        BatchSpec {
            base_offset: 0,
            base_timestamp: 1_000,
            producer_id: 7,
            producer_epoch: 0,
            base_sequence: 0,
            ..Default::default()
        },
        &[
            rec("customer-1", "created order 100"),
            Rec {
                headers: h.clone(),
                ts_delta: 10,
                ..rec("customer-2", "created order 101")
            },
            Rec {
                ts_delta: 20,
                ..rec("customer-1", "paid order 100")
            },
        ],
    );
    let p0b = batch(
        BatchSpec {
            base_offset: 3,
            base_timestamp: 2_000,
            producer_id: 8,
            producer_epoch: 0,
            base_sequence: 0,
            ..Default::default()
        },
        &[
            rec("customer-3", "created order 102"),
            Rec {
                key: None,
                ts_delta: 5,
                ..rec("", "tombstone? no: null key")
            },
            Rec {
                value: Some(b"bin\x1b[31m\xff"),
                ts_delta: 6,
                ..rec("customer-1", "")
            },
        ],
    );
    let p1 = batch(
        BatchSpec {
            base_timestamp: 1_500,
            ..Default::default()
        },
        &[
            Rec {
                headers: h,
                ..rec("customer-9", "shipped order 100")
            },
            rec("customer-1", "created order 200"),
        ],
    );
    write(
        &t.path().join("orders-0/00000000000000000000.log"),
        &[&p0a, &p0b],
    );
    write(&t.path().join("orders-1/00000000000000000000.log"), &[&p1]);
    t
}

fn dir(t: &tempfile::TempDir) -> String {
    t.path().to_str().unwrap().to_string()
}

fn grep(args: &[&str]) -> Run {
    let mut all = vec!["grep"];
    all.extend_from_slice(args);
    kseg(&all)
}

/// The `topic-partition:offset` of each output line.
fn hits(r: &Run) -> Vec<String> {
    r.stdout
        .lines()
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect()
}

#[test]
fn a_value_regex_prints_each_match_as_dump_log_prints_the_record() {
    let t = data_dir();
    let r = grep(&["order 10[01]", &dir(&t)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        hits(&r),
        ["orders-0:0", "orders-0:1", "orders-0:2", "orders-1:0"]
    );
    // The record's time in RFC 3339, then dump-log's record line, keys and values included,
    // with the headers' values.
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "orders-0:0 1970-01-01T00:00:01.000Z | offset: 0 CreateTime: 1000 keySize: 10 \
         valueSize: 17 sequence: 0 headers: [] key: customer-1 payload: created order 100"
    );
    assert_eq!(
        lines[1],
        "orders-0:1 1970-01-01T00:00:01.010Z | offset: 1 CreateTime: 1010 keySize: 10 \
         valueSize: 17 sequence: 1 headers: [trace=abc] key: customer-2 payload: created order \
         101"
    );
    let dump = kseg(&[
        "dump-log",
        "--print-data-log",
        &t.path()
            .join("orders-0/00000000000000000000.log")
            .to_string_lossy(),
    ]);
    for (line, dumped) in [
        (lines[0], "headerKeys: []"),
        (lines[1], "headerKeys: [trace]"),
    ] {
        let (_, record) = line.split_once(" | ").unwrap();
        let as_dumped = format!("| {record}")
            .replace("headers: [trace=abc]", dumped)
            .replace("headers: []", dumped);
        assert!(
            dump.stdout.lines().any(|l| l == as_dumped),
            "{as_dumped}\n{}",
            dump.stdout
        );
    }
}

#[test]
fn fixed_strings_are_not_regexes() {
    let t = data_dir();
    let r = grep(&["-F", "order 10.", &dir(&t)]);
    assert_eq!((r.code, r.stdout.as_str()), (1, ""), "{}", r.stderr);
    let r = grep(&["-F", "? no", &dir(&t)]);
    assert_eq!(hits(&r), ["orders-0:4"]);
}

#[test]
fn filters_combine() {
    let t = data_dir();
    let d = dir(&t);
    assert_eq!(
        hits(&grep(&["--key", "customer-1", &d])),
        ["orders-0:0", "orders-0:2", "orders-0:5", "orders-1:1"]
    );
    assert_eq!(
        hits(&grep(&["--key", "customer-1", "paid", &d])),
        ["orders-0:2"]
    );
    assert_eq!(
        hits(&grep(&["--key-regex", "-[23]$", &d])),
        ["orders-0:1", "orders-0:3"]
    );
    assert_eq!(
        hits(&grep(&["--header", "trace", &d])),
        ["orders-0:1", "orders-1:0"]
    );
    assert_eq!(
        hits(&grep(&["--header", "trace=abc", "--key", "customer-9", &d])),
        ["orders-1:0"]
    );
    assert!(hits(&grep(&["--header", "trace=ab", &d])).is_empty());
    // Half-open time range: 1000 and 1010 are in, 1020 is not.
    assert_eq!(
        hits(&grep(&["--from-time", "1000", "--to-time", "1020", &d])),
        ["orders-0:0", "orders-0:1"]
    );
    assert_eq!(
        hits(&grep(&[
            "--from-time",
            "1970-01-01T00:00:01.500Z",
            "--to-time",
            "1970-01-01T00:00:02.005+00:00",
            &d
        ])),
        ["orders-0:3", "orders-1:0", "orders-1:1"]
    );
    // Inclusive offsets.
    assert_eq!(
        hits(&grep(&[
            "--from-offset",
            "1",
            "--to-offset",
            "3",
            "order",
            &d
        ])),
        ["orders-0:1", "orders-0:2", "orders-0:3", "orders-1:1"]
    );
    assert_eq!(
        hits(&grep(&["--producer-id", "8", &d])),
        ["orders-0:3", "orders-0:4", "orders-0:5"]
    );
    assert_eq!(
        hits(&grep(&["--producer-id", "-1", &d])),
        ["orders-1:0", "orders-1:1"]
    );
}

#[test]
fn a_time_without_a_zone_is_refused_in_two_short_lines() {
    let t = data_dir();
    let r = grep(&["--from-time", "2024-03-09T14:00:00", &dir(&t)]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "kseg: error: --from-time \"2024-03-09T14:00:00\" has no time zone\n  add one \
         (2024-03-09T14:00:00Z, 2024-03-09T14:00:00+08:00) or --tz local|ZONE\n"
    );
    assert!(r.stderr.lines().all(|l| l.len() <= 80), "{}", r.stderr);
}

#[test]
fn count_max_count_and_files_with_matches() {
    let t = data_dir();
    let d = dir(&t);
    let r = grep(&["-c", "order", &d]);
    assert_eq!(r.stdout, "orders-0:4\norders-1:2\n");
    let r = grep(&["-m", "1", "order", &d]);
    assert_eq!(hits(&r), ["orders-0:0", "orders-1:0"]);
    let r = grep(&["-c", "-m", "2", "order", &d]);
    assert_eq!(r.stdout, "orders-0:2\norders-1:2\n");
    let r = grep(&["--files-with-matches", "shipped", &d]);
    assert_eq!(
        r.stdout.trim_end(),
        t.path()
            .join("orders-1/00000000000000000000.log")
            .to_str()
            .unwrap()
    );
    // Only the partitions with a match, as ripgrep's --count; --include-zero lists the others.
    let r = grep(&["-c", "shipped", &d]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "orders-1:1\n"));
    let r = grep(&["-c", "--include-zero", "shipped", &d]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "orders-0:0\norders-1:1\n"));
    let r = grep(&["-c", "nothing-like-this", &d]);
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
    let r = grep(&["-c", "--include-zero", "nothing-like-this", &d]);
    assert_eq!((r.code, r.stdout.as_str()), (1, "orders-0:0\norders-1:0\n"));
    let r = grep(&["--json", "-c", "shipped", &d]);
    let counts = json_lines(&r.stdout);
    assert_eq!(of_type(&counts, "count").len(), 1);
}

#[test]
fn print_batch_shows_the_batch_line_once_before_its_matches() {
    let t = data_dir();
    let r = grep(&["--print-batch", "--key", "customer-1", &dir(&t)]);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 7, "{}", r.stdout);
    assert!(lines[0].starts_with("orders-0: baseOffset: 0 lastOffset: 2 count: 3"));
    assert!(lines[1].starts_with("orders-0:0 1970-01-01T00:00:01.000Z | offset: 0"));
    assert!(lines[2].starts_with("orders-0:2 1970-01-01T00:00:01.020Z | offset: 2"));
    assert!(lines[3].starts_with("orders-0: baseOffset: 3 "));
    assert!(lines[5].starts_with("orders-1: baseOffset: 0 "));
}

#[test]
fn json_is_dump_logs_record_object_with_topic_and_partition() {
    let t = data_dir();
    let r = grep(&["--json", "--print-batch", "shipped", &dir(&t)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = json_lines(&r.stdout);
    let rec = of_type(&lines, "record");
    assert_eq!(rec.len(), 1);
    assert_eq!(rec[0]["topic"], "orders");
    assert_eq!(rec[0]["partition"], 1);
    assert_eq!(rec[0]["offset"], 0);
    assert_eq!(rec[0]["value"], "shipped order 100");
    assert_eq!(rec[0]["headers"][0]["key"], "trace");
    // The same object as dump-log's, but for topic and partition.
    let file = t.path().join("orders-1/00000000000000000000.log");
    let dump = kseg(&[
        "dump-log",
        "--json",
        "--deep-iteration",
        file.to_str().unwrap(),
    ]);
    let dumped = json_lines(&dump.stdout);
    let mut want = of_type(&dumped, "record")[0].clone();
    let mut got = rec[0].clone();
    got.as_object_mut().unwrap().remove("topic");
    got.as_object_mut().unwrap().remove("partition");
    assert_eq!(
        got.as_object_mut().unwrap().remove("time"),
        Some("1970-01-01T00:00:01.500Z".into())
    );
    assert_eq!(
        got.as_object_mut().unwrap().remove("aborted"),
        Some(false.into())
    );
    want["file"] = got["file"].clone();
    assert_eq!(got, want);
    assert_eq!(of_type(&lines, "batch").len(), 1);
    let summary = of_type(&lines, "summary")[0];
    assert_eq!(summary["matches"], 1);
}

#[test]
fn untrusted_bytes_are_escaped_as_dump_log_escapes_them() {
    let t = data_dir();
    let r = grep(&["-F", "bin", &dir(&t)]);
    assert_eq!(hits(&r), ["orders-0:5"]);
    assert!(!r.stdout.contains('\x1b'), "{:?}", r.stdout);
    assert!(
        r.stdout.contains(r"payload: bin\x1b[31m\xff"),
        "{:?}",
        r.stdout
    );
    // A regex over bytes finds the invalid UTF-8 byte.
    assert_eq!(hits(&grep(&[r"(?-u)\xff$", &dir(&t)])), ["orders-0:5"]);
}

#[test]
fn files_and_partition_dirs_are_inputs_too() {
    let t = data_dir();
    let seg = t.path().join("orders-0/00000000000000000000.log");
    let r = grep(&["paid", seg.to_str().unwrap()]);
    assert_eq!(hits(&r), ["orders-0:2"]);
    let r = grep(&["paid", t.path().join("orders-0").to_str().unwrap()]);
    assert_eq!(hits(&r), ["orders-0:2"]);
    // A copy outside any partition dir is named by its path.
    let copy: PathBuf = t.path().join("capture.bin");
    std::fs::copy(&seg, &copy).unwrap();
    let r = grep(&["paid", copy.to_str().unwrap()]);
    assert_eq!(hits(&r), [format!("{}:2", copy.display())]);
    // -e gives the pattern, and then every argument is a path.
    let r = grep(&["-e", "-1", t.path().join("orders-1").to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.stderr);
}

#[test]
fn exit_status_is_greps() {
    let t = data_dir();
    assert_eq!(grep(&["paid", &dir(&t)]).code, 0);
    assert_eq!(grep(&["unpaid", &dir(&t)]).code, 1);
    let r = grep(&["(unclosed", &dir(&t)]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("PATTERN"), "{}", r.stderr);
    let r = grep(&["paid", "/nonexistent/kseg-grep"]);
    assert_eq!(r.code, 2);
    let r = grep(&["paid"]);
    assert_eq!(r.code, 2);
    // Damaged data: the matches still print, the problem goes to stderr as dump-log reports
    // it, and the exit status is 2.
    let seg = t.path().join("orders-0/00000000000000000000.log");
    let mut bytes = std::fs::read(&seg).unwrap();
    let n = bytes.len();
    bytes.truncate(n - 7);
    std::fs::write(&seg, &bytes).unwrap();
    let r = grep(&["paid", &dir(&t)]);
    assert_eq!(r.code, 2);
    assert_eq!(hits(&r), ["orders-0:2"]);
    let dump = kseg(&["dump-log", seg.to_str().unwrap()]);
    let problem = dump.stderr.lines().next().unwrap();
    assert!(r.stderr.contains(problem), "{} vs {}", r.stderr, problem);
}

#[test]
fn pruned_batches_are_counted_and_pruning_changes_no_match() {
    let t = data_dir();
    let d = dir(&t);
    for args in [
        vec!["--producer-id", "8"],
        vec!["--from-time", "2000"],
        vec!["--to-offset", "1", "--from-offset", "1"],
    ] {
        let mut with = vec!["--json"];
        with.extend(&args);
        with.push(&d);
        let pruned = json_lines(&grep(&with).stdout);
        with.insert(0, "--no-prune");
        let all = json_lines(&grep(&with).stdout);
        let recs = |l: &[serde_json::Value]| {
            of_type(l, "record")
                .iter()
                .map(|v| (v["partition"].clone(), v["offset"].clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(recs(&pruned), recs(&all), "{args:?}");
        let s = of_type(&pruned, "summary")[0];
        assert!(s["batchesPruned"].as_u64().unwrap() >= 1, "{args:?}: {s}");
        assert_eq!(of_type(&all, "summary")[0]["batchesPruned"], 0);
    }
}

/// Issue 44: `--key` searches every partition — a key written by librdkafka (CRC-32) or sarama
/// (FNV-1a) is not where the Java producer's murmur2 puts it — and `--partitioner` prunes to
/// the partition the named partitioner maps the key to, saying so; a pruned search that finds
/// nothing says which partitioner it assumed and how to search all. customer-1 (in orders-0 and
/// orders-1) maps to partition 1 of 2 by all three, to 0 of 3 by murmur2 and crc32, to 1 of 3
/// by fnv1a; customer-2 (orders-0) to 0 of 2 by murmur2, 1 of 2 by crc32; customer-3 (orders-0)
/// to 2 of 3 by crc32 (`partitioner.rs` has the clients' test vectors).
#[test]
fn a_key_is_searched_in_every_partition_unless_a_partitioner_is_named() {
    let t = data_dir();
    let d = dir(&t);
    let r = grep(&["--key", "customer-1", &d]);
    assert_eq!(
        hits(&r),
        ["orders-0:0", "orders-0:2", "orders-0:5", "orders-1:1"]
    );
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let r = grep(&[
        "--key",
        "customer-1",
        "--partitioner",
        "murmur2",
        "--partitions",
        "2",
        &d,
    ]);
    assert_eq!(hits(&r), ["orders-1:1"], "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "kseg: note: --partitioner murmur2 (the Java producer's default), over --partitions: \
         the key is searched only in orders-1 (of 2)\n"
    );
    let pruned = |partitioner: &str, n: &str, key: &str| {
        grep(&[
            "--key",
            key,
            "--partitioner",
            partitioner,
            "--partitions",
            n,
            &d,
        ])
    };
    assert_eq!(
        hits(&pruned("crc32", "3", "customer-1")),
        ["orders-0:0", "orders-0:2", "orders-0:5"]
    );
    assert_eq!(hits(&pruned("fnv1a", "3", "customer-1")), ["orders-1:1"]);
    assert_eq!(hits(&pruned("murmur2", "2", "customer-2")), ["orders-0:1"]);
    // Pruned to the wrong partition: nothing, and how to search all.
    let r = pruned("crc32", "2", "customer-2");
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
    assert!(
        r.stderr.contains(
            "kseg: note: nothing matched where crc32 maps the key. A record placed by another \
             partitioner (murmur2: the Java producer; crc32: librdkafka; fnv1a: sarama), an \
             explicit partition or an older partition count is in another partition: leave out \
             --partitioner to search every partition"
        ),
        "{}",
        r.stderr
    );
    // A partition not in the input: nothing of its topic is searched, and said.
    let r = pruned("crc32", "3", "customer-3");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains(
            "the key is searched only where it maps to orders-2 (of 3), not in the input: \
             nothing of that topic is searched"
        ) || r
            .stderr
            .contains("it maps to orders-2 (of 3), not in the input"),
        "{}",
        r.stderr
    );
    // --partitions needs --partitioner; --partitioner needs a key.
    assert_eq!(
        grep(&["--key", "customer-1", "--partitions", "2", &d]).code,
        2
    );
    let r = grep(&["--partitioner", "crc32", "-F", "order", &d]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("give --key or --key-hex"), "{}", r.stderr);

    // The counts recorded in the log dir's __cluster_metadata: without --partitioner, the note
    // says which partitioner places each match where it was found.
    metadata_log(t.path(), &[("orders", 3)], |_| 1);
    let r = grep(&["--key", "customer-1", &d]);
    assert_eq!(
        hits(&r),
        ["orders-0:0", "orders-0:2", "orders-0:5", "orders-1:1"]
    );
    assert_eq!(
        r.stderr,
        "kseg: note: the key was found in orders-0 (where murmur2 (the Java producer's \
         default) and crc32 (librdkafka's default: confluent-kafka, kcat) place it over 3 \
         partitions) and orders-1 (where fnv1a (sarama's default) places it over 3 partitions)\n"
    );
    let r = grep(&["--key", "customer-1", "--partitioner", "fnv1a", &d]);
    assert_eq!(hits(&r), ["orders-1:1"]);
    assert!(
        r.stderr.contains(
            "--partitioner fnv1a (sarama's default), over the partition counts of \
             __cluster_metadata: the key is searched only in orders-1 (of 3)"
        ),
        "{}",
        r.stderr
    );
    // A partition dir given alone: its log dir's metadata is beside it.
    let r = grep(&[
        "--key",
        "customer-1",
        "--partitioner",
        "murmur2",
        &format!("{d}/orders-1"),
    ]);
    assert!(hits(&r).is_empty());
    assert_eq!(r.code, 1);
    // --partitions wins over the recorded count, and says that it differs.
    let r = grep(&[
        "--key",
        "customer-1",
        "--partitioner",
        "murmur2",
        "--partitions",
        "2",
        &d,
    ]);
    assert_eq!(hits(&r), ["orders-1:1"]);
    assert!(
        r.stderr
            .contains("--partitions 2, but __cluster_metadata records orders with 3 partitions"),
        "{}",
        r.stderr
    );
    // In JSON the notes are objects on stdout, before the matches and after them.
    let r = grep(&[
        "--key",
        "customer-2",
        "--partitioner",
        "murmur2",
        "--json",
        &d,
    ]);
    let lines = json_lines(&r.stdout);
    assert_eq!(lines[0]["type"], "note");
    assert_eq!(lines[0]["kind"], "keyPruned");
    assert_eq!(of_type(&lines, "record").len(), 0);
    assert_eq!(of_type(&lines, "note")[1]["kind"], "prunedNothingFound");
    assert_eq!(r.code, 1);
}

/// Issue 45: a binary key, value bytes and header value come in as hex, and a key given so is
/// still placed by --partitioner.
#[test]
fn binary_keys_values_and_headers_are_given_in_hex() {
    let t = tempfile::tempdir().unwrap();
    let key: &[u8] = b"\x00\x00\x00\x00\x00\x2a";
    let h: Vec<(&str, Option<&[u8]>)> = vec![("trace", Some(b"\xff\x00\xfe\x01".as_slice()))];
    let seg = batch(
        BatchSpec::default(),
        &[
            Rec {
                key: Some(key),
                value: Some(b"bin\x1b[31m\xff tail"),
                headers: h,
                ..rec("", "")
            },
            rec("other", "plain"),
        ],
    );
    let n = 4u32;
    let p = kseg::analysis::partitioner::Partitioner::Crc32
        .partition(key, n)
        .unwrap();
    for q in 0..n {
        let parts: Vec<&[u8]> = if q == p { vec![&seg] } else { vec![] };
        write(
            &t.path().join(format!("bin-{q}/00000000000000000000.log")),
            &parts,
        );
    }
    let d = dir(&t);
    let at = format!("bin-{p}:0");
    assert_eq!(
        hits(&grep(&["--key-hex", "00 00 00 00 00 2a", &d])),
        vec![at.clone()]
    );
    assert_eq!(
        hits(&grep(&["--key-hex", "0x00000000002A", &d])),
        vec![at.clone()]
    );
    assert!(hits(&grep(&["--key-hex", "00000000002b", &d])).is_empty());
    let r = grep(&[
        "--key-hex",
        "00:00:00:00:00:2a",
        "--partitioner",
        "crc32",
        "--partitions",
        "4",
        &d,
    ]);
    assert_eq!(hits(&r), vec![at.clone()], "{}", r.stderr);
    assert!(
        r.stderr
            .contains(&format!("searched only in bin-{p} (of 4)")),
        "{}",
        r.stderr
    );
    assert_eq!(
        hits(&grep(&["--value-hex", "1b5b33316dff", &d])),
        vec![at.clone()]
    );
    assert!(hits(&grep(&["--value-hex", "ff1b", &d])).is_empty());
    assert_eq!(
        hits(&grep(&["--header-hex", "trace=ff00fe01", &d])),
        vec![at.clone()]
    );
    assert!(hits(&grep(&["--header-hex", "trace=ff00", &d])).is_empty());
    // The header value is shown, escaped.
    let r = grep(&["--key-hex", "00000000002a", &d]);
    assert!(
        r.stdout
            .contains(r"headers: [trace=\xff\x00\xfe\x01] key: \x00\x00\x00\x00\x00*"),
        "{}",
        r.stdout
    );
    for bad in ["0", "zz", "00 0"] {
        let r = grep(&["--key-hex", bad, &d]);
        assert_eq!(r.code, 2, "{bad}");
        assert!(r.stderr.contains("--key-hex"), "{}", r.stderr);
    }
}

/// Output pinned byte for byte in `testdata/golden/grep-*.txt` (exit code, stdout, stderr, with
/// the repository root as `<repo>`); `KSEG_UPDATE_GOLDEN=1` rewrites them after an intended
/// change.
fn golden(name: &str, args: &[&str]) {
    let root = env!("CARGO_MANIFEST_DIR");
    let args: Vec<String> = args.iter().map(|a| a.replace('@', root)).collect();
    let mut argv = vec!["grep"];
    argv.extend(args.iter().map(String::as_str));
    let run = kseg(&argv);
    let got = format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        run.code, run.stdout, run.stderr
    )
    .replace(root, "<repo>");
    let path = std::path::Path::new(root)
        .join("testdata/golden")
        .join(format!("grep-{name}.txt"));
    if std::env::var_os("KSEG_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(got, want, "{}", path.display());
}

/// The example log dir's payments-0: a committed transaction (0-4, COMMIT at 5), an aborted
/// one (6-8, ABORT at 9, listed in its .txnindex) and idempotent non-transactional records
/// (10-13, zstd).
#[test]
fn transactional_states_of_the_example_partition_match_their_goldens() {
    let p = "@/testdata/example-datadir/payments-0";
    // Every record, the aborted ones (and the ABORT marker) marked.
    golden(
        "payments-all",
        &["--print-batch", "--producer-id", "2000", p],
    );
    golden(
        "payments-states-json",
        &["--json", "--txn-state", "aborted,committed", p],
    );
    // What a read_committed consumer is given, per partition of the log dir.
    golden(
        "datadir-committed-count",
        &["-c", "--committed", "@/testdata/example-datadir"],
    );
}

/// `t-0`: producer 5 commits 0-1 (COMMIT at 2), 3 is not transactional, producer 6 aborts 4-5
/// (ABORT at 6, in the .txnindex), producer 7 leaves 7-8 open, 9 is not transactional.
fn txn_dir() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let txn = |base, pid: i64, values: &[&'static str]| {
        let recs: Vec<Rec> = values.iter().map(|v| rec("k", v)).collect();
        batch(
            BatchSpec {
                base_offset: base,
                attributes: 0x10,
                producer_id: pid,
                producer_epoch: 0,
                base_sequence: 0,
                ..Default::default()
            },
            &recs,
        )
    };
    let plain = |base, v| {
        batch(
            BatchSpec {
                base_offset: base,
                ..Default::default()
            },
            &[rec("k", v)],
        )
    };
    write(
        &t.path().join("t-0/00000000000000000000.log"),
        &[
            &txn(0, 5, &["c0", "c1"]),
            &marker(2, 5, true, 1),
            &plain(3, "n3"),
            &txn(4, 6, &["a4", "a5"]),
            &marker(6, 6, false, 1),
            &txn(7, 7, &["o7", "o8"]),
            &plain(9, "n9"),
        ],
    );
    let mut entry = vec![0u8, 0];
    for v in [6i64, 4, 6, 7] {
        entry.extend_from_slice(&v.to_be_bytes());
    }
    write(
        &t.path().join("t-0/00000000000000000000.txnindex"),
        &[&entry],
    );
    t
}

#[test]
fn transactional_states_committed_and_control_filter_as_kafka_reads_them() {
    let t = txn_dir();
    let d = dir(&t);
    let offsets = |args: &[&str]| {
        let mut all = args.to_vec();
        all.push(&d);
        let r = grep(&all);
        assert!(r.code <= 1, "{}", r.stderr);
        hits(&r)
            .iter()
            .map(|h| h.rsplit(':').next().unwrap().parse::<i64>().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(offsets(&["--txn-state", "committed"]), [0, 1, 2]);
    assert_eq!(offsets(&["--txn-state", "aborted"]), [4, 5, 6]);
    assert_eq!(offsets(&["--txn-state", "open"]), [7, 8]);
    assert_eq!(offsets(&["--txn-state", "non-transactional"]), [3, 9]);
    assert_eq!(
        offsets(&["--txn-state", "open", "--txn-state", "non-transactional"]),
        [3, 7, 8, 9]
    );
    assert_eq!(offsets(&["--control"]), [2, 6]);
    assert_eq!(offsets(&["--no-control"]), [0, 1, 3, 4, 5, 7, 8, 9]);
    assert_eq!(offsets(&["--producer-id", "6", "--no-control"]), [4, 5]);
    assert_eq!(offsets(&["--producer-epoch", "-1"]), [3, 9]);
    // A read_committed consumer: nothing aborted, no marker, nothing from the open
    // transaction on (the non-transactional 9 included), and a note says why.
    let r = grep(&["--committed", &d]);
    assert_eq!(hits(&r), ["t-0:0", "t-0:1", "t-0:3"]);
    assert_eq!(
        r.stderr,
        "kseg: note: --committed: transactions with no COMMIT or ABORT marker hold the last \
         stable offset, and a read_committed consumer is given nothing at or after it: t-0 at \
         offset 7 (producer 7) (--txn-state open shows the open transactions)\n"
    );
    let r = grep(&["--committed", "--control", &d]);
    assert_eq!(r.code, 2, "--committed gives no control record");
    // By default every record, the aborted ones marked.
    let r = grep(&["--no-control", "a", &d]);
    assert_eq!(
        r.stdout
            .lines()
            .map(|l| l.split(" |").next().unwrap())
            .collect::<Vec<_>>(),
        [
            "t-0:4 (aborted) 2023-11-14T22:13:20.000Z",
            "t-0:5 (aborted) 2023-11-14T22:13:20.000Z"
        ]
    );
    let r = grep(&["--json", "--no-control", "--producer-id", "6", &d]);
    let recs = json_lines(&r.stdout);
    assert!(of_type(&recs, "record")
        .iter()
        .all(|r| r["aborted"] == true));
    // The aborted transaction read without pruning gives the same answer.
    assert_eq!(offsets(&["--no-prune", "--committed"]), [0, 1, 3]);
}

/// Kafka's fetch takes the aborted transactions from the .txnindex: without it, a
/// read_committed consumer is given the aborted records, and kseg says so.
#[test]
fn without_its_txnindex_an_abort_is_what_kafkas_fetch_makes_of_it_and_noted() {
    let t = txn_dir();
    std::fs::remove_file(t.path().join("t-0/00000000000000000000.txnindex")).unwrap();
    let r = grep(&["--committed", &dir(&t)]);
    assert_eq!(hits(&r), ["t-0:0", "t-0:1", "t-0:3", "t-0:4", "t-0:5"]);
    assert!(
        r.stderr.contains(
            "kseg: note: ABORT markers that no .txnindex lists: t-0 at offset 6 (producer 6). \
             Kafka's fetch gives their transactions' records to read_committed consumers"
        ),
        "{}",
        r.stderr
    );
    assert_eq!(r.code, 0);
}

#[test]
fn a_json_field_of_the_value_and_topic_and_partition_selection() {
    let p = "@/testdata/example-datadir/payments-0".replace('@', env!("CARGO_MANIFEST_DIR"));
    // payments-0's values are JSON: {"payment_id":...,"order_id":...,"amount":...,...}.
    let r = grep(&["--json-field", "order_id=ord-100012", &p]);
    assert_eq!(hits(&r), ["payments-0:2"], "{}", r.stderr);
    let r = grep(&[
        "--json-field",
        "amount=288.31",
        "--json-field",
        "currency=EUR",
        &p,
    ]);
    assert_eq!(hits(&r), ["payments-0:0"]);
    let r = grep(&["--json-field", "amount=288.3", &p]);
    assert_eq!(r.code, 1);
    let r = grep(&["--json-field", "amount", &p]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("give PATH=VALUE"), "{}", r.stderr);

    let t = data_dir();
    let d = dir(&t);
    assert_eq!(
        hits(&grep(&["--partition", "1", "order", &d])),
        ["orders-1:0", "orders-1:1"]
    );
    assert_eq!(
        hits(&grep(&[
            "--topic",
            "ord*",
            "--partition",
            "0,1",
            "-F",
            "order 100",
            &d
        ])),
        ["orders-0:0", "orders-0:2", "orders-1:0"]
    );
    let r = grep(&["--topic", "payments", "order", &d]);
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
    assert_eq!(
        hits(&grep(&["--topic", "o?ders", "--key", "customer-3", &d])),
        ["orders-0:3"]
    );
}

/// Issue 24: a time window covering the last 1% of a partition reads at most 2% of its bytes
/// and a header per batch skipped — each segment's `.timeindex` and `.index` say where the
/// window can start, and the headers of what they skip are checked (issue 45) — counted by
/// kseg's own reads (the summary's `bytesRead`: segment, index and header bytes), never by
/// time. The answer is the one reading everything gives.
#[test]
fn a_time_window_reads_only_what_the_time_index_leaves() {
    let t = tempfile::tempdir().unwrap();
    let raw = t.path().join("raw/big-0");
    // 4 segments of 500 batches of 40 records (~6 KiB a batch, ~12 MiB in all), timestamps
    // rising by 1 ms a record.
    let value = "v".repeat(120);
    let (segments, batches, per) = (4i64, 500i64, 40i64);
    for s in 0..segments {
        let mut parts = Vec::new();
        for b in 0..batches {
            let base = (s * batches + b) * per;
            let recs: Vec<Rec> = (0..per)
                .map(|i| Rec {
                    ts_delta: i,
                    ..rec("k", &value)
                })
                .collect();
            parts.push(batch(
                BatchSpec {
                    base_offset: base,
                    base_timestamp: 1_000_000 + base,
                    ..Default::default()
                },
                &recs,
            ));
        }
        let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        write(&raw.join(format!("{:020}.log", s * batches * per)), &refs);
    }
    // Kafka's indexes, as its recovery rebuilds them (index.interval.bytes 4096).
    let out = t.path().join("data");
    let r = kseg(&[
        "recover",
        raw.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let part = out.join("big-0");
    let total: u64 = std::fs::read_dir(&part)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .map(|p| p.metadata().unwrap().len())
        .sum();
    let records = segments * batches * per;
    let from = 1_000_000 + records * 99 / 100;
    let summary = |args: &[&str]| {
        let mut all = vec!["--json", "--stats", "-c"];
        all.extend_from_slice(args);
        let p = part.to_str().unwrap().to_string();
        all.push(&p);
        let r = grep(&all);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let lines = json_lines(&r.stdout);
        of_type(&lines, "summary")[0].clone()
    };
    let from_arg = from.to_string();
    let s = summary(&["--from-time", &from_arg]);
    let all = summary(&["--from-time", &from_arg, "--no-prune"]);
    assert_eq!(s["matches"], records - records * 99 / 100);
    assert_eq!(s["matches"], all["matches"]);
    let read = s["bytesRead"].as_u64().unwrap();
    eprintln!("--from-time: {read} bytes read of {total}");
    // What the time index skips is checked from the batch headers (43 bytes each, issue 45):
    // 2% of the bytes for the window and the indexes, and a header per batch skipped.
    let headers = 43 * (segments * batches) as u64;
    assert!(
        read <= total / 50 + headers,
        "{read} bytes read of {total}: more than 2% and the headers for a window of 1%"
    );
    assert!(all["bytesRead"].as_u64().unwrap() >= total);
    // --from-offset seeks the same way (and skips the segments below it).
    let s = summary(&["--from-offset", &(records * 99 / 100).to_string()]);
    assert_eq!(s["matches"], records - records * 99 / 100);
    assert!(s["bytesRead"].as_u64().unwrap() * 50 <= total, "{s}");
}

/// `--threads 2` cuts segments into pieces at batch boundaries (`--split-bytes`, small here)
/// and searches them in parallel: stdout and stderr are byte for byte those of one thread, on
/// clean data, transactions, seeks and damaged segments.
#[test]
fn two_threads_and_pieces_of_segments_give_one_threads_bytes() {
    let root = env!("CARGO_MANIFEST_DIR");
    let example = format!("{root}/testdata/example-datadir");
    let t = txn_dir();
    // A damaged copy of orders-0: a flipped byte in a record (bad CRC) and a torn tail.
    let damaged = tempfile::tempdir().unwrap();
    let dst = damaged.path().join("orders-0");
    std::fs::create_dir_all(&dst).unwrap();
    for e in std::fs::read_dir(format!("{example}/orders-0")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
    }
    let seg = dst.join("00000000000000000000.log");
    let mut bytes = std::fs::read(&seg).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x40;
    bytes.truncate(n - 9);
    std::fs::write(&seg, &bytes).unwrap();
    let cases: Vec<Vec<String>> = [
        vec!["-F", "order", &example],
        vec!["--print-batch", "-e", "a", &example],
        vec!["--json", "--committed", &example],
        vec!["-c", "--txn-state", "aborted,open", &example],
        vec!["--from-offset", "30", "--json", "-e", "1", &example],
        vec!["--from-time", "1717002700030", "-e", "o", &example],
        vec!["--committed", &dir(&t)],
        vec!["--json", "-e", "", damaged.path().to_str().unwrap()],
        vec!["-e", "order", damaged.path().to_str().unwrap()],
    ]
    .iter()
    .map(|c| c.iter().map(|s| s.to_string()).collect())
    .collect();
    for c in &cases {
        let run = |threads: &str| {
            let mut all = vec!["--threads", threads, "--split-bytes", "600"];
            all.extend(c.iter().map(String::as_str));
            grep(&all)
        };
        let (one, two) = (run("1"), run("2"));
        assert!(
            one.code <= 2 && !one.stdout.is_empty() || one.code == 1,
            "{c:?}"
        );
        assert_eq!(
            (one.code, &one.stdout, &one.stderr),
            (two.code, &two.stdout, &two.stderr),
            "{c:?}"
        );
    }
    // The pieces were cut: finding the cuts reads the frames, which one thread does not.
    let bytes = |threads: &str| {
        let r = grep(&[
            "--threads",
            threads,
            "--split-bytes",
            "600",
            "--json",
            "--stats",
            "-c",
            "-e",
            "o",
            &example,
        ]);
        let lines = json_lines(&r.stdout);
        of_type(&lines, "summary")[0]["bytesRead"].as_u64().unwrap()
    };
    assert!(bytes("2") > bytes("1"));
}

/// Issue 44: an optional PATTERN never swallows a path. With a filter given, a first argument
/// naming an existing file or dir is a PATH (`--header content-type -c a-0 b-0` searches both);
/// one naming nothing is the PATTERN, with a note; without a filter, a first argument naming a
/// file or dir is refused (the pattern goes with -e).
#[test]
fn a_pattern_never_swallows_a_path() {
    let t = data_dir();
    let a = t.path().join("orders-0").display().to_string();
    let b = t.path().join("orders-1").display().to_string();
    let r = grep(&["--header", "trace", "-c", &a, &b]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (0, "orders-0:1\norders-1:1\n", "")
    );
    let r = grep(&["--key", "customer-1", &a, &b]);
    assert_eq!(
        hits(&r),
        ["orders-0:0", "orders-0:2", "orders-0:5", "orders-1:1"]
    );
    // A first argument naming nothing is the pattern, and a note says so.
    let r = grep(&["--key", "customer-1", "paid", &a, &b]);
    assert_eq!(hits(&r), ["orders-0:2"]);
    assert_eq!(
        r.stderr,
        "kseg: note: \"paid\" is the value PATTERN, not a PATH: no file or dir has that name \
         (-e PATTERN gives a pattern without this note)\n"
    );
    // Without a filter, a first argument that is a path is refused, not taken as the pattern.
    let r = grep(&[&a, &b]);
    assert_eq!((r.code, r.stdout.as_str()), (2, ""));
    assert!(
        r.stderr.ends_with(
            "names a file or dir: is it the PATTERN or a PATH?\n  give a pattern with -e \
             PATTERN; with a filter (--key, --header, ...) every argument is a PATH\n"
        ),
        "{}",
        r.stderr
    );
    // -e says it: then every argument is a path.
    let r = grep(&["-e", &a, &b]);
    assert_eq!((r.code, r.stderr.as_str()), (1, ""));
    let r = grep(&["--header", "trace", "-e", "shipped", &a, &b]);
    assert_eq!(hits(&r), ["orders-1:0"]);
}

/// `txn_dir`'s partition three times (t-0, t-1, t-2), without its `.txnindex`.
fn three_txn_partitions() -> tempfile::TempDir {
    let t = txn_dir();
    let src = t.path().join("t-0");
    std::fs::remove_file(src.join("00000000000000000000.txnindex")).unwrap();
    for p in 1..3 {
        let dst = t.path().join(format!("t-{p}"));
        std::fs::create_dir_all(&dst).unwrap();
        std::fs::copy(
            src.join("00000000000000000000.log"),
            dst.join("00000000000000000000.log"),
        )
        .unwrap();
    }
    t
}

/// stderr of kseg on a pseudo-terminal (util-linux `script`) with COLUMNS set, stdout
/// discarded; `None` without `script`.
fn stderr_on_terminal(args: &[&str], columns: usize) -> Option<String> {
    let quote = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
    let mut line = quote(assert_cmd::cargo::cargo_bin("kseg").to_str().unwrap());
    for a in ["--no-progress", "grep"].iter().chain(args) {
        line.push(' ');
        line.push_str(&quote(a));
    }
    line.push_str(" >/dev/null");
    let out = std::process::Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("COLUMNS", columns.to_string())
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).replace('\r', ""))
}

/// Issue 44: notes are said once per run, each listing the partitions it concerns, and wrapped
/// to the terminal stderr is shown on (80 and 120 columns); into a pipe a note is one line.
#[test]
#[ignore = "needs util-linux `script` (a pseudo-terminal)"]
fn notes_are_said_once_per_run_and_wrapped_to_the_terminal() {
    let t = three_txn_partitions();
    let d = dir(&t);
    for width in [80, 120] {
        let Some(text) = stderr_on_terminal(&["--committed", &d], width) else {
            tool_missing("util-linux `script`", "the pseudo-terminal checks");
            return;
        };
        assert!(
            text.lines().all(|l| l.chars().count() <= width),
            "at {width} columns:\n{text}"
        );
        for start in [
            "kseg: note: --committed: transactions with no COMMIT",
            "kseg: note: ABORT markers that no .txnindex lists",
        ] {
            assert_eq!(text.matches(start).count(), 1, "{start}:\n{text}");
        }
        assert_eq!(text.matches("kseg: note:").count(), 2, "{text}");
        // Each partition named once in each note; the lines after a note's first indented.
        let flat = text.replace("\n  ", " ");
        for p in ["t-0", "t-1", "t-2"] {
            assert!(
                flat.contains(&format!("{p} at offset 6 (producer 6)")),
                "{p}:\n{text}"
            );
            assert!(
                flat.contains(&format!("{p} at offset 7 (producer 7)")),
                "{p}:\n{text}"
            );
        }
        assert!(
            text.lines()
                .all(|l| l.starts_with("kseg: note: ") || l.starts_with("  ")),
            "{text}"
        );
        assert!(text.lines().count() > 2, "wrapped:\n{text}");
        // A time without a zone: two short lines, at either width.
        let refused = stderr_on_terminal(&["--from-time", "2024-03-09T14:00", &d], width)
            .expect("script ran above");
        assert_eq!(refused.lines().count(), 2, "{refused}");
        assert!(
            refused.lines().all(|l| l.chars().count() <= 80),
            "{refused}"
        );
    }
    // Into a pipe, one line per note.
    let r = grep(&["--committed", &d]);
    assert_eq!(r.stderr.lines().count(), 2, "{}", r.stderr);
}

/// Issue 44: the records' times are shown in RFC 3339, in UTC or the zone of --tz, and a time
/// given without an offset is read in that zone.
#[test]
fn times_are_shown_and_read_in_the_zone_asked_for() {
    let t = data_dir();
    let d = dir(&t);
    let r = grep(&["--tz", "Asia/Shanghai", "shipped", &d]);
    assert!(
        r.stdout
            .starts_with("orders-1:0 1970-01-01T08:00:01.500+08:00 | offset: 0 CreateTime: 1500"),
        "{}",
        r.stdout
    );
    let r = grep(&["--json", "--tz", "-05:30", "shipped", &d]);
    let lines = json_lines(&r.stdout);
    assert_eq!(
        of_type(&lines, "record")[0]["time"],
        "1969-12-31T18:30:01.500-05:30"
    );
    // 1970-01-01T08:00:02 in Shanghai is 2000 ms: the records at 2000 and after.
    let r = grep(&[
        "--from-time",
        "1970-01-01T08:00:02",
        "--tz",
        "Asia/Shanghai",
        &d,
    ]);
    assert_eq!(hits(&r), ["orders-0:3", "orders-0:4", "orders-0:5"]);
    let r = grep(&["--tz", "Mars/Olympus_Mons", "x", &d]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("--tz: no time zone \"Mars/Olympus_Mons\""),
        "{}",
        r.stderr
    );
}

/// Issue 45: one stale `.timeindex` entry — a timestamp below the records it covers — does not
/// make `--from-time` skip matches: the headers of what the index lets the search skip are
/// checked, the search starts at the first batch that can match, and a note names the entry.
#[test]
fn a_stale_time_index_entry_never_hides_a_match() {
    let t = tempfile::tempdir().unwrap();
    let raw = t.path().join("raw/ts-0");
    // 200 batches of 10 records (~1.3 KiB each: Kafka's recovery indexes one batch in about
    // four), timestamps rising by 1 ms a record from 1_000_000 (timestamp = 1_000_000 + offset).
    let value = "v".repeat(120);
    let mut parts = Vec::new();
    for b in 0..200i64 {
        let recs: Vec<Rec> = (0..10)
            .map(|i| Rec {
                ts_delta: i,
                ..rec("k", &value)
            })
            .collect();
        parts.push(batch(
            BatchSpec {
                base_offset: b * 10,
                base_timestamp: 1_000_000 + b * 10,
                ..Default::default()
            },
            &recs,
        ));
    }
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    write(&raw.join("00000000000000000000.log"), &refs);
    let out = t.path().join("data");
    let r = kseg(&[
        "recover",
        raw.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let part = out.join("ts-0");
    let index = part.join("00000000000000000000.timeindex");
    let mut bytes = std::fs::read(&index).unwrap();
    let ts = |b: &[u8], k: usize| i64::from_be_bytes(b[12 * k..12 * k + 8].try_into().unwrap());
    let offset = |b: &[u8], k: usize| {
        i32::from_be_bytes(b[12 * k + 8..12 * k + 12].try_into().unwrap()) as i64
    };
    // Entry 20 made stale: it says entry 19's timestamp (still in order with its neighbours),
    // though the batches it covers after entry 19's offset are later.
    let k = 20;
    let (before, last) = (offset(&bytes, k - 1), offset(&bytes, k));
    assert_eq!(ts(&bytes, k), 1_000_000 + last);
    assert!(last - before >= 30, "entry {k} covers several batches");
    let stale = ts(&bytes, k - 1);
    bytes[12 * k..12 * k + 8].copy_from_slice(&stale.to_be_bytes());
    std::fs::write(&index, &bytes).unwrap();
    // A window from the middle of the first batch entry 20 covers: believing the entry skips
    // to the batch holding its offset, past that batch and the next ones.
    let from_ms = 1_000_000 + before + 5;
    let from = from_ms.to_string();
    let p = part.to_str().unwrap();
    let count = |extra: &[&str]| {
        let mut all = vec!["-c", "--json", "--from-time", from.as_str()];
        all.extend_from_slice(extra);
        all.push(p);
        let r = grep(&all);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let lines = json_lines(&r.stdout);
        (of_type(&lines, "summary")[0]["matches"].clone(), lines)
    };
    let (all, _) = count(&["--no-prune"]);
    assert_eq!(all, 2000 - (before + 5));
    let (seeking, lines) = count(&[]);
    assert_eq!(seeking, all);
    let note = of_type(&lines, "note");
    assert_eq!(note.len(), 1, "{lines:?}");
    assert_eq!(note[0]["kind"], "staleTimeIndex");
    let message = note[0]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "00000000000000000000.timeindex says no record up to offset {last} is later than \
             {stale}, but the batch at byte"
        )) && message.contains(&format!(
            "(offsets {}-{}) has maxTimestamp {}",
            before + 1,
            before + 10,
            1_000_000 + before + 10
        )),
        "{message}"
    );
    // Two threads find the same.
    let (two, _) = count(&["--threads", "2", "--split-bytes", "4096"]);
    assert_eq!(two, all);
}

/// Issue 45: `--json-field` matches values nested 128 or more deep and numbers beyond f64 as jq
/// does, and says when a number cannot be compared exactly.
#[test]
fn json_fields_deep_and_beyond_f64() {
    let t = tempfile::tempdir().unwrap();
    let deep = format!("{}\"x\"{}", r#"{"a":"#.repeat(200), "}".repeat(200));
    let big = r#"{"amount":1e400,"id":"big"}"#;
    let huge = r#"{"amount":1e99999999999999999999999,"id":"huge"}"#;
    let seg = batch(
        BatchSpec::default(),
        &[rec("deep", &deep), rec("big", big), rec("huge", huge)],
    );
    write(&t.path().join("j-0/00000000000000000000.log"), &[&seg]);
    let d = dir(&t);
    let path = vec!["a"; 200].join(".");
    assert_eq!(
        hits(&grep(&["--json-field", &format!("{path}=x"), &d])),
        ["j-0:0"]
    );
    assert_eq!(
        hits(&grep(&["--json-field", "amount=1e400", &d])),
        ["j-0:1"]
    );
    assert_eq!(
        hits(&grep(&["--json-field", "amount=10E399", &d])),
        ["j-0:1"]
    );
    let r = grep(&["--json-field", "amount=1e401", &d]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("--json-field: 1 record(s) matching every other filter hold a number"),
        "{}",
        r.stderr
    );
}

/// A partition whose first segment's matches fill stdout's pipe (kseg blocks writing them while
/// the test does not read) and whose second segment, `later` (200 one-record batches whose
/// values are `late-N`), the test can remove or rename meanwhile: (dir, later's path).
fn live_partition(t: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let part = t.join("live-0");
    // One batch: one piece, however small the pieces of the later segment are cut.
    let value = "x".repeat(120);
    let records: Vec<Rec<'_>> = (0..40_000).map(|_| rec("k", &value)).collect();
    let first = batch(BatchSpec::default(), &records);
    write(&part.join("00000000000000000000.log"), &[&first]);
    let late: Vec<String> = (0..200).map(|i| format!("late-{i}")).collect();
    let second: Vec<Vec<u8>> = late
        .iter()
        .enumerate()
        .map(|(i, v)| {
            batch(
                BatchSpec {
                    base_offset: 40_000 + i as i64,
                    ..Default::default()
                },
                &[rec("k", v)],
            )
        })
        .collect();
    let refs: Vec<&[u8]> = second.iter().map(|b| b.as_slice()).collect();
    let later = part.join("00000000000000040000.log");
    write(&later, &refs);
    (part, later)
}

/// Runs `kseg grep ARGS` with stdout unread until `meanwhile` has run (kseg, blocked writing the
/// first segment's matches, has listed the dir by then): exit code, stdout, stderr.
fn grep_while(args: &[&str], meanwhile: impl FnOnce()) -> (i32, String, String) {
    use std::io::Read;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kseg"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    meanwhile();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Issue 45: a segment a live broker's retention removes between kseg's listing and its
/// reading is noted, as dump-log notes it, not a failure (grep exited 2).
#[test]
fn a_segment_removed_after_listing_is_noted() {
    let t = tempfile::tempdir().unwrap();
    let (part, later) = live_partition(t.path());
    let (code, stdout, stderr) = grep_while(
        &["grep", "--threads", "1", "x|late", part.to_str().unwrap()],
        || std::fs::remove_file(&later).unwrap(),
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("00000000000000040000.log: removed since it was listed"),
        "{stderr}\n{}",
        stdout.len()
    );
    assert_eq!(stdout.lines().filter(|l| l.contains("late-")).count(), 0);
    assert_eq!(stdout.lines().count(), 40_000);
}

/// Issue 45: with --threads, a segment renamed to `.deleted` (Kafka's first step in deleting
/// one) while its pieces are searched is read whole: every piece reads the file opened when
/// the pieces were planned (each reopened it by name: a partial count, and exit 2).
#[test]
fn a_segment_renamed_mid_search_is_read_whole_by_its_pieces() {
    let t = tempfile::tempdir().unwrap();
    let (part, later) = live_partition(t.path());
    let deleted = later.with_extension("log.deleted");
    let args = [
        "grep",
        "--threads",
        "2",
        "--split-bytes",
        "500",
        "x|late",
        part.to_str().unwrap(),
    ];
    let (code, stdout, stderr) = grep_while(&args, || std::fs::rename(&later, &deleted).unwrap());
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout.lines().filter(|l| l.contains("late-")).count(),
        200,
        "{stderr}"
    );
}
