//! Golden tests: kafka-dump-log-compatible text output and the NDJSON of `--json`, pinned byte
//! for byte (every object type `dump-log --json` prints, under every `--encoding`).
//! Regenerate after an intended change with `KSEG_UPDATE_GOLDEN=1 cargo test --test cli golden`
//! and review the diff against the Kafka 4.3+ layout (README, format digest §6).

use crate::common::*;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// (golden name, arguments; `@` is replaced by the repository root, `%` by the corpus dir).
const CASES: &[(&str, &[&str])] = &[
    ("v0-none-deep", &["dump-log", "--deep-iteration", "@/testdata/kafka-python/v0-none.log"]),
    ("v1-gzip-print-data", &["dump-log", "--print-data-log", "@/testdata/kafka-python/v1-gzip.log"]),
    ("v2-none-print-data", &["dump-log", "--print-data-log", "@/testdata/kafka-python/v2-none.log"]),
    ("v2-txn-markers-deep", &["dump-log", "--deep-iteration", "@/testdata/kafka-python/v2-txn-markers.log"]),
    ("v2-skip-metadata", &["dump-log", "--print-data-log", "--skip-record-metadata", "@/testdata/kafka-python/v2-snappy.log"]),
    ("payments-partition", &["dump-log", "--deep-iteration", "@/testdata/example-datadir/payments-0"]),
    ("orders-index", &["dump-log", "@/testdata/example-datadir/orders-1/00000000000000000000.index", "@/testdata/example-datadir/orders-1/00000000000000000000.timeindex"]),
    ("orders-index-sanity", &["dump-log", "--index-sanity-check", "@/testdata/example-datadir/orders-1/00000000000000000000.index"]),
    ("kraft-snapshot", &["dump-log", "--deep-iteration", "%/Danielowo2000__BigDataTechnologies-Version-2/kafka_2.13-3.5.0/kraft-combined-logs/__cluster_metadata-0/00000000000000017073-0000000004.checkpoint"]),
    ("kraft-leader-change", &["dump-log", "--deep-iteration", "--max-messages", "3", "%/codecrafters-io__kafka-tester/e856b9a/kraft-combined-logs/__cluster_metadata-0/00000000000000000000.log"]),
    ("bootstrap-checkpoint", &["dump-log", "--deep-iteration", "%/codecrafters-io__kafka-tester/e856b9a/kraft-combined-logs/bootstrap.checkpoint"]),
    // Every file kind of the example log dir, and every fixture of kafka-python (all codecs).
    ("example-datadir-print-data", &["dump-log", "--deep-iteration", "--print-data-log", "@/testdata/example-datadir"]),
    ("example-datadir-shallow", &["dump-log", "@/testdata/example-datadir"]),
    ("kafka-python-print-data", &["dump-log", "--print-data-log", "@/testdata/kafka-python/*.log"]),
    ("kafka-python-skip-metadata", &["dump-log", "--print-data-log", "--skip-record-metadata", "@/testdata/kafka-python/*.log"]),
    ("transaction-state-print-data", &["dump-log", "--print-data-log", "%/ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/kafka-data/__transaction_state-44"]),
    ("consumer-offsets-print-data", &["dump-log", "--print-data-log", "%/ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/kafka-data/__consumer_offsets-29"]),
    ("kraft-log-print-data", &["dump-log", "--print-data-log", "--max-messages", "40", "%/Danielowo2000__BigDataTechnologies-Version-2/kafka_2.13-3.5.0/kraft-combined-logs/__cluster_metadata-0"]),
    // NDJSON: every object type `dump-log --json` prints, under each --encoding.
    ("json-example-datadir", &["dump-log", "--json", "--deep-iteration", "@/testdata/example-datadir"]),
    ("json-example-datadir-shallow", &["dump-log", "--json", "@/testdata/example-datadir"]),
    ("json-example-datadir-hex", &["dump-log", "--json", "--deep-iteration", "--encoding", "hex", "@/testdata/example-datadir"]),
    ("json-kafka-python", &["dump-log", "--json", "--deep-iteration", "@/testdata/kafka-python/*.log"]),
    ("json-kafka-python-hex", &["dump-log", "--json", "--deep-iteration", "--encoding", "hex", "@/testdata/kafka-python/*.log"]),
    ("json-kafka-python-base64", &["dump-log", "--json", "--deep-iteration", "--encoding", "base64", "@/testdata/kafka-python/*.log"]),
    ("json-kafka-python-utf8", &["dump-log", "--json", "--deep-iteration", "--encoding", "utf8", "@/testdata/kafka-python/*.log"]),
    ("json-index-sanity", &["dump-log", "--json", "--index-sanity-check", "@/testdata/example-datadir/orders-1/00000000000000000000.index", "@/testdata/example-datadir/orders-1/00000000000000000000.timeindex"]),
    ("json-kraft-snapshot", &["dump-log", "--json", "--deep-iteration", "%/Danielowo2000__BigDataTechnologies-Version-2/kafka_2.13-3.5.0/kraft-combined-logs/__cluster_metadata-0/00000000000000017073-0000000004.checkpoint"]),
    ("json-kraft-log", &["dump-log", "--json", "--deep-iteration", "--max-messages", "40", "%/Danielowo2000__BigDataTechnologies-Version-2/kafka_2.13-3.5.0/kraft-combined-logs/__cluster_metadata-0"]),
    ("json-kraft-leader-change", &["dump-log", "--json", "--deep-iteration", "--max-messages", "3", "%/codecrafters-io__kafka-tester/e856b9a/kraft-combined-logs/__cluster_metadata-0/00000000000000000000.log"]),
    ("json-bootstrap-checkpoint", &["dump-log", "--json", "--deep-iteration", "%/codecrafters-io__kafka-tester/e856b9a/kraft-combined-logs/bootstrap.checkpoint"]),
    ("json-transaction-state", &["dump-log", "--json", "--deep-iteration", "%/ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/kafka-data/__transaction_state-44"]),
    ("json-consumer-offsets", &["dump-log", "--json", "--deep-iteration", "%/ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/kafka-data/__consumer_offsets-29"]),
    ("json-offset-range", &["dump-log", "--json", "--deep-iteration", "--from-offset", "20", "--to-offset", "40", "@/testdata/example-datadir/orders-0"]),
    // A damaged copy of orders-1 and a log with gaps, binary keys and markers, built by
    // `damaged_dir` below (`$` is replaced by its path).
    ("damaged-print-data", &["dump-log", "--deep-iteration", "--print-data-log", "$"]),
    ("json-damaged", &["dump-log", "--json", "--deep-iteration", "$"]),
    ("json-damaged-hex", &["dump-log", "--json", "--deep-iteration", "--encoding", "hex", "$"]),
];

/// The frames of a v2 log: (position, size) of each batch.
fn frames(log: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos + 12 <= log.len() {
        let len = i32::from_be_bytes(log[pos + 8..pos + 12].try_into().unwrap()) as usize;
        out.push((pos, 12 + len));
        pos += 12 + len;
    }
    out
}

/// A log dir holding every problem `dump-log` reports: a copy of orders-1 with a flipped bit
/// (CRC), a batch with an unknown magic, trailing garbage, a wrong index entry and time-index
/// timestamp, a producer snapshot with a bad CRC and a stray file; and `gaps-0`, a log with
/// offset gaps, binary and empty keys, headers with null values, invalid UTF-8 with control
/// characters, and a COMMIT marker.
pub(crate) fn damaged_dir(root: &Path) {
    let src = Path::new(ROOT).join("testdata/example-datadir/orders-1");
    let dst = root.join("orders-1");
    std::fs::create_dir_all(&dst).unwrap();
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
    }
    let log_path = dst.join("00000000000000000000.log");
    let mut log = std::fs::read(&log_path).unwrap();
    let f = frames(&log);
    assert!(f.len() >= 6, "orders-1 has {} batches", f.len());
    let (p1, s1) = f[1];
    log[p1 + s1 - 1] ^= 0x10;
    log[f[3].0 + 16] = 9;
    log.extend_from_slice(b"\x00\x00\x00\x00\x00\x00\x00\x07garbage at the end");
    std::fs::write(&log_path, &log).unwrap();
    let index_path = dst.join("00000000000000000000.index");
    let mut index = std::fs::read(&index_path).unwrap();
    assert!(index.len() >= 8);
    index[3] = index[3].wrapping_add(1);
    std::fs::write(&index_path, &index).unwrap();
    let time_path = dst.join("00000000000000000000.timeindex");
    let mut time = std::fs::read(&time_path).unwrap();
    assert!(time.len() >= 12);
    time[7] = time[7].wrapping_add(1);
    std::fs::write(&time_path, &time).unwrap();
    let snap = std::fs::read_dir(&dst)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "snapshot"))
        .unwrap();
    let mut bytes = std::fs::read(&snap).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    std::fs::write(&snap, &bytes).unwrap();
    std::fs::write(dst.join("notes.bin"), b"not kafka").unwrap();

    let binary: &[u8] = &[0xff, 0x00, 0x1b, b'[', b'2', b'J'];
    let control = "tab\there\u{202e}rtl\nline \"quoted\" \\ back";
    let a = batch(
        BatchSpec {
            base_offset: 0,
            producer_id: 7,
            producer_epoch: 0,
            base_sequence: 0,
            attributes: 0x10,
            ..Default::default()
        },
        &[
            Rec {
                key: Some(binary),
                value: Some(control.as_bytes()),
                headers: vec![("h1", Some(b"v1")), ("h2", None), ("bin", Some(binary))],
                ts_delta: 0,
            },
            Rec {
                key: None,
                value: None,
                headers: vec![],
                ts_delta: 5,
            },
            Rec {
                key: Some(b""),
                value: Some("caf\u{e9} \u{1F600}".as_bytes()),
                headers: vec![],
                ts_delta: -3,
            },
        ],
    );
    let b = batch(
        BatchSpec {
            base_offset: 10,
            ..Default::default()
        },
        &[rec("k", "after a gap"), rec("k2", "v2")],
    );
    let m = marker(12, 7, true, 3);
    let c = batch(
        BatchSpec {
            base_offset: 40,
            ..Default::default()
        },
        &[rec("late", "x")],
    );
    write(
        &root.join("gaps-0/00000000000000000000.log"),
        &[&a, &b, &m, &c],
    );
    // A zero-filled (preallocated) offset index, and a time index with an entry that matches,
    // one out of order and one pointing at no batch's last offset.
    write(
        &root.join("gaps-0/00000000000000000000.index"),
        &[&[0u8; 40]],
    );
    let mut time = Vec::new();
    for (ts, rel) in [
        (1_700_000_000_005i64, 2i32),
        (1_700_000_000_000, 11),
        (1_700_000_000_001, 5),
    ] {
        time.extend_from_slice(&ts.to_be_bytes());
        time.extend_from_slice(&rel.to_be_bytes());
    }
    write(
        &root.join("gaps-0/00000000000000000000.timeindex"),
        &[&time],
    );
}

/// The arguments with `@`, `%` and `$` replaced; `DIR/*.log` becomes the sorted `.log` files.
fn expand(args: &[&str], corpus: &str, damaged: &str) -> Vec<String> {
    let mut out = Vec::new();
    for arg in args {
        let arg = arg
            .replace('@', ROOT)
            .replace('%', corpus)
            .replace('$', damaged);
        if let Some(dir) = arg.strip_suffix("/*.log") {
            let mut logs: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path().to_string_lossy().into_owned())
                .filter(|p| p.ends_with(".log"))
                .collect();
            logs.sort();
            out.extend(logs);
        } else {
            out.push(arg);
        }
    }
    out
}

#[test]
fn text_output_matches_goldens() {
    // The corpus files the cases read are copied into the repository (testdata/README.md).
    let corpus = format!("{ROOT}/testdata/real");
    let update = std::env::var_os("KSEG_UPDATE_GOLDEN").is_some();
    let tmp = tempfile::tempdir().unwrap();
    let damaged = tmp.path().join("damaged");
    damaged_dir(&damaged);
    let damaged = damaged.to_string_lossy().into_owned();
    let mut failures = Vec::new();
    for (name, args) in CASES {
        let args = expand(args, &corpus, &damaged);
        // Every dump is checked on one thread and on two (files in parallel, written in order):
        // the same golden for both.
        for threads in ["1", "2"] {
            let mut argv: Vec<&str> = args.iter().map(String::as_str).collect();
            argv.splice(1..1, ["--threads", threads]);
            let run = kseg(&argv);
            // Paths in the output are made relative to the repository/corpus/temporary root.
            let got = format!(
                "exit: {}\n--- stdout\n{}--- stderr\n{}",
                run.code, run.stdout, run.stderr
            )
            .replace(&corpus, "<corpus>")
            .replace(&damaged, "<damaged>")
            .replace(ROOT, "<repo>");
            let golden = Path::new(ROOT)
                .join("testdata/golden")
                .join(format!("{name}.txt"));
            if update {
                std::fs::write(&golden, &got).unwrap();
                break;
            }
            let want = std::fs::read_to_string(&golden)
                .unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
            if want != got {
                let first = want.lines().zip(got.lines()).position(|(a, b)| a != b);
                failures.push(format!(
                    "{name} (--threads {threads}): first differing line {:?}\n  want: {:?}\n  got:  {:?}",
                    first.map(|i| i + 1),
                    first.and_then(|i| want.lines().nth(i)),
                    first.and_then(|i| got.lines().nth(i))
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "golden mismatches (KSEG_UPDATE_GOLDEN=1 to regenerate):\n{}",
        failures.join("\n")
    );
}

/// The field layout of each line kind, checked against the Kafka 4.3+ DumpLogSegments format
/// independently of the goldens.
#[test]
fn line_layouts_follow_kafka() {
    let r = kseg(&[
        "dump-log",
        "--deep-iteration",
        &format!("{ROOT}/testdata/kafka-python/v2-txn-markers.log"),
    ]);
    let batch = regex_like(
        r.stdout
            .lines()
            .find(|l| l.starts_with("baseOffset:"))
            .unwrap(),
        &[
            "baseOffset",
            "lastOffset",
            "count",
            "baseSequence",
            "lastSequence",
            "producerId",
            "producerEpoch",
            "partitionLeaderEpoch",
            "isTransactional",
            "isControl",
            "deleteHorizonMs",
            "position",
            "CreateTime",
            "size",
            "magic",
            "compresscodec",
            "crc",
            "isvalid",
        ],
    );
    assert!(batch, "batch line layout");
    let record = r
        .stdout
        .lines()
        .find(|l| l.starts_with("| offset:"))
        .unwrap();
    assert!(
        regex_like(
            &record[2..],
            &[
                "offset",
                "CreateTime",
                "keySize",
                "valueSize",
                "sequence",
                "headerKeys"
            ]
        ),
        "{record}"
    );
    let marker = r
        .stdout
        .lines()
        .find(|l| l.contains("endTxnMarker"))
        .unwrap();
    assert!(
        marker.contains(" endTxnMarker: COMMIT coordinatorEpoch: ")
            || marker.contains(" endTxnMarker: ABORT coordinatorEpoch: ")
    );
    let legacy = kseg(&[
        "dump-log",
        "--deep-iteration",
        &format!("{ROOT}/testdata/kafka-python/v1-none.log"),
    ]);
    let line = legacy
        .stdout
        .lines()
        .find(|l| l.starts_with("offset:"))
        .unwrap();
    assert!(
        regex_like(
            line,
            &[
                "offset",
                "position",
                "CreateTime",
                "size",
                "magic",
                "compresscodec",
                "crc",
                "isvalid"
            ]
        ),
        "{line}"
    );
    let rec = legacy
        .stdout
        .lines()
        .find(|l| l.starts_with("| offset:"))
        .unwrap();
    assert!(
        regex_like(
            &rec[2..],
            &[
                "offset",
                "CreateTime",
                "keySize",
                "valueSize",
                "isValid",
                "crc"
            ]
        ),
        "{rec}"
    );
    assert!(
        !rec.ends_with('}'),
        "Kafka 4.3 dropped the stray brace after crc"
    );
}

/// True when `line` is `name: value` pairs with exactly these names in this order.
fn regex_like(line: &str, names: &[&str]) -> bool {
    let mut rest = line;
    for (i, name) in names.iter().enumerate() {
        let Some(after) = rest.strip_prefix(&format!("{name}: ")) else {
            return false;
        };
        if i + 1 == names.len() {
            return !after.contains(": ");
        }
        let Some(sp) = after.find(&format!(" {}: ", names[i + 1])) else {
            return false;
        };
        if after[..sp].contains(' ') && *name != "headerKeys" {
            return false;
        }
        rest = &after[sp + 1..];
    }
    true
}
