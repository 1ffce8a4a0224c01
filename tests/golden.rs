//! Golden tests: kafka-dump-log-compatible text output, pinned line for line.
//! Regenerate after an intended change with `KSEG_UPDATE_GOLDEN=1 cargo test --test golden`
//! and review the diff against the Kafka 4.3+ layout (README, format digest §6).

mod common;
use common::*;
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
];

fn expand(arg: &str, corpus: &str) -> String {
    arg.replace('@', ROOT).replace('%', corpus)
}

#[test]
fn text_output_matches_goldens() {
    let corpus = format!("{ROOT}/../shared/corpus/real");
    let have_corpus = Path::new(&corpus).exists();
    let update = std::env::var_os("KSEG_UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for (name, args) in CASES {
        if args.iter().any(|a| a.starts_with('%')) && !have_corpus {
            common::corpus_missing(name);
            continue;
        }
        let args: Vec<String> = args.iter().map(|a| expand(a, &corpus)).collect();
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = kseg(&argv);
        // Paths in the output are made relative to the repository/corpus root.
        let got = format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            run.code, run.stdout, run.stderr
        )
        .replace(&corpus, "<corpus>")
        .replace(ROOT, "<repo>");
        let golden = Path::new(ROOT)
            .join("testdata/golden")
            .join(format!("{name}.txt"));
        if update {
            std::fs::write(&golden, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&golden)
            .unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
        if want != got {
            let first = want.lines().zip(got.lines()).position(|(a, b)| a != b);
            failures.push(format!(
                "{name}: first differing line {:?}\n  want: {:?}\n  got:  {:?}",
                first.map(|i| i + 1),
                first.and_then(|i| want.lines().nth(i)),
                first.and_then(|i| got.lines().nth(i))
            ));
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
