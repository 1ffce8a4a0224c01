//! `kseg compact` against Kafka 4.4's own log cleaner (issue 40, incidents 3 to 5): the real
//! broker writes the cp-* topics with its cleaner off (per codec: an expired idempotent
//! producer's records with tombstones and keyless records, committed and aborted transactions,
//! an active producer; a partition pinned by a transaction left open; one under a high
//! min.cleanable.dirty.ratio), stops cleanly, and starts again with the cleaner on. kseg reads a
//! copy taken before the restart; for every partition the cleaner's log says it cleaned, kseg's
//! preview of that pass must give the same dirty section and the same start and end message
//! counts, and kseg must have said which partitions the cleaner takes, in which order, and why
//! the others stay. The size of the partition after the pass is compared too: equal for
//! uncompressed partitions; per codec, the closing note says whether kseg's re-encoding of the
//! rebuilt batches matched Kafka's bytes.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::harness::*;

/// One "cleaned log" report of Kafka's cleaner: dirty section, start and end message counts.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cleaned {
    from: i64,
    to: i64,
    start_messages: u64,
    end_messages: u64,
}

fn number(s: &str) -> u64 {
    s.chars()
        .filter(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap()
}

/// The cleaner's reports in the order it wrote them: (partition, report).
fn kafka_cleanings(log: &str) -> Vec<(String, Cleaned)> {
    let lines: Vec<&str> = log.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(rest) = l.split("cleaned log ").nth(1) else {
            continue;
        };
        let (name, section) = rest.split_once(" (dirty section = [").unwrap();
        let (from, to) = section.trim_end_matches("])").split_once(", ").unwrap();
        let count = |label: &str| {
            lines[i..]
                .iter()
                .find_map(|x| x.trim().strip_prefix(label))
                .map(|x| number(x.split('(').nth(1).unwrap()))
                .unwrap()
        };
        out.push((
            name.to_string(),
            Cleaned {
                from: from.parse().unwrap(),
                to: to.parse().unwrap(),
                start_messages: count("Start size:"),
                end_messages: count("End size:"),
            },
        ));
    }
    out
}

fn log_bytes(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            name.ends_with(".log").then(|| e.metadata().unwrap().len())
        })
        .sum()
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn kseg_previews_the_passes_kafkas_log_cleaner_makes() {
    if skip() {
        return;
    }
    let version = versions()
        .into_iter()
        .find(|v| v.starts_with("4.4"))
        .expect("Kafka 4.4 among oracle/versions");
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("oracle-compact");
    let _ = fs::remove_dir_all(&root);
    let mut broker = Broker::format_and_start(
        &version,
        &root.join("broker"),
        &["log.cleaner.enable=false"],
    );
    broker.workload(&["compact"], Duration::from_secs(240));
    broker.stop();
    let data = broker.data.clone();
    let before = root.join("before");
    copy_dir(&data, &before);

    let mut broker = Broker::reopen(&version, &root.join("broker"), &[]);
    let t0 = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let from_line = broker.spawn();
    broker.wait_started(from_line).unwrap();

    let now = t0.to_string();
    let o = kseg(&["compact", "--json", "--now", &now, before.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let said: BTreeMap<String, serde_json::Value> = ndjson(&String::from_utf8_lossy(&o.stdout))
        .into_iter()
        .map(|v| {
            (
                format!("{}-{}", v["topic"].as_str().unwrap(), v["partition"]),
                v,
            )
        })
        .collect();
    let expected: Vec<&String> = said
        .iter()
        .filter(|(_, v)| v["willClean"] == true)
        .map(|(k, _)| k)
        .collect();
    assert!(
        expected.len() >= 6,
        "kseg expects too few passes: {expected:?}"
    );
    let log_since = |b: &Broker| -> String {
        b.server_log()
            .lines()
            .skip(from_line)
            .collect::<Vec<_>>()
            .join("\n")
    };
    wait_for(
        "the cleaner's first passes",
        Duration::from_secs(60),
        || {
            let log = log_since(&broker);
            let done = kafka_cleanings(&log);
            expected.iter().all(|p| done.iter().any(|(n, _)| n == *p))
        },
    );
    // Backoff is 500 ms: anything else the cleaner wanted to clean it has cleaned by now.
    std::thread::sleep(Duration::from_secs(3));
    let kafka = kafka_cleanings(&log_since(&broker));

    let mut first: BTreeMap<String, (usize, Cleaned)> = BTreeMap::new();
    for (i, (name, c)) in kafka.iter().enumerate() {
        first.entry(name.clone()).or_insert((i, c.clone()));
    }
    // Which partitions, and in which order (filthiest first).
    let kafka_set: Vec<&String> = first.keys().collect();
    assert_eq!(
        kafka_set, expected,
        "kseg's willClean against the partitions Kafka cleaned"
    );
    // Filthiest first: along Kafka's order, kseg's dirty ratios never rise (among equal ratios
    // Kafka takes them in its ConcurrentHashMap's order, which kseg does not model).
    let mut kafka_order: Vec<(&usize, &String)> = first.iter().map(|(n, (i, _))| (i, n)).collect();
    kafka_order.sort();
    let ratios: Vec<f64> = kafka_order
        .iter()
        .map(|(_, n)| said[*n]["dirtyRatio"].as_f64().unwrap())
        .collect();
    assert!(
        ratios.windows(2).all(|w| w[0] >= w[1]),
        "the cleaner's order {kafka_order:?} against kseg's ratios {ratios:?}"
    );
    let mut sizes = Vec::new();
    for (name, (_, c)) in &first {
        let v = &said[name];
        let pass = &v["pass"];
        assert_eq!(
            (v["firstDirtyOffset"].as_i64(), v["endOffset"].as_i64()),
            (Some(c.from), Some(c.to)),
            "{name}: the dirty section\n{v:#}"
        );
        assert_eq!(
            (
                pass["messagesRead"].as_u64(),
                pass["messagesWritten"].as_u64()
            ),
            (Some(c.start_messages), Some(c.end_messages)),
            "{name}: start and end messages\n{v:#}"
        );
        assert_eq!(
            v["recordsRemoved"].as_u64(),
            Some(c.start_messages - c.end_messages)
        );
        let after = log_bytes(&data.join(name));
        sizes.push((name.clone(), v["bytesAfter"].as_u64().unwrap(), after));
        if !name.starts_with("cp-gzip")
            && !name.starts_with("cp-snappy")
            && !name.starts_with("cp-lz4")
            && !name.starts_with("cp-zstd")
        {
            assert_eq!(
                v["bytesAfter"].as_u64(),
                Some(after),
                "{name}: bytes after the pass"
            );
        }
    }
    // The partitions left alone, and why.
    let hanging = &said["cp-hanging-0"];
    assert_eq!(
        hanging["boundBy"]["reason"], "openTransaction",
        "{hanging:#}"
    );
    assert_eq!(
        hanging["boundBy"]["transactionalId"], "cp-hanging-open",
        "{hanging:#}"
    );
    let low = &said["cp-lowratio-0"];
    assert_eq!(low["notCleanedBecause"], "ratioBelowMinimum", "{low:#}");
    broker.stop();
    for (name, kseg_bytes, kafka_bytes) in &sizes {
        eprintln!(
            "{name}: after the pass kseg {kseg_bytes} bytes, Kafka {kafka_bytes} bytes{}",
            if kseg_bytes == kafka_bytes {
                " (equal)"
            } else {
                ""
            }
        );
    }
    let _ = fs::remove_dir_all(&root);
}
