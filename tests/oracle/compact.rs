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

/// Gives every file of `to` the mtime of the same file in `from` (the cleaner stamps cleaned
/// segments with their sources' mtimes).
fn keep_mtimes(from: &Path, to: &Path) {
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            keep_mtimes(&src, &dst);
        } else if dst.is_file() {
            let t = fs::metadata(&src).unwrap().modified().unwrap();
            fs::File::options()
                .write(true)
                .open(&dst)
                .unwrap()
                .set_modified(t)
                .unwrap();
        }
    }
}

/// The instant of the pass that stamped a delete horizon in `dir` (the horizon less
/// delete.retention.ms, one day).
fn pass_instant(dir: &Path) -> Option<i64> {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "log") {
            continue;
        }
        let bytes = fs::read(&p).unwrap();
        for b in batch_slices(&bytes) {
            if b.len() >= 61 && i16::from_be_bytes([b[21], b[22]]) & 0x40 != 0 {
                let base = i64::from_be_bytes(b[27..35].try_into().unwrap());
                return Some(base - 86_400_000);
            }
        }
    }
    None
}

/// The batches of a `.log`, by their length fields.
fn batch_slices(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 12 <= bytes.len() {
        let len = i32::from_be_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        let end = (at + 12 + len).min(bytes.len());
        out.push(&bytes[at..end]);
        at = end;
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
    keep_mtimes(&data, &before);

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

    // kseg compact --out of the dir before the pass against Kafka's dir after it, file by file,
    // each partition at the instant of its pass (read back from the delete horizon Kafka
    // stamped: now + delete.retention.ms).
    let out_at = |name: &str| -> PathBuf {
        let at = pass_instant(&data.join(name)).unwrap_or(t0).to_string();
        let out = root.join(format!("out-{name}"));
        let _ = fs::remove_dir_all(&out);
        let o = kseg(&[
            "compact",
            "--now",
            &at,
            "--out",
            out.to_str().unwrap(),
            before.to_str().unwrap(),
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        out
    };
    let out = out_at("cp-none-0");
    let mut notes = Vec::new();
    for name in first.keys() {
        let own = out_at(name);
        let (ours, theirs) = (own.join(name), data.join(name));
        let files = |d: &Path| -> Vec<String> {
            let mut v: Vec<String> = fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| {
                    [".log", ".index", ".timeindex", ".txnindex", ".snapshot"]
                        .iter()
                        .any(|x| n.ends_with(x))
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            files(&ours),
            files(&theirs),
            "{name}: the files after the pass"
        );
        let compressed = ["cp-gzip", "cp-snappy", "cp-lz4", "cp-zstd"]
            .iter()
            .any(|c| name.starts_with(c));
        let (mut same, mut batches) = (0, 0);
        for f in files(&theirs) {
            let (a, b) = (
                fs::read(ours.join(&f)).unwrap(),
                fs::read(theirs.join(&f)).unwrap(),
            );
            if f.ends_with(".log") {
                let (x, y) = (batch_slices(&a), batch_slices(&b));
                assert_eq!(x.len(), y.len(), "{name}/{f}: batches");
                batches += y.len();
                same += x.iter().zip(&y).filter(|(p, q)| p == q).count();
                let mt = |p: &Path| fs::metadata(p).unwrap().modified().unwrap();
                assert_eq!(
                    mt(&ours.join(&f)),
                    mt(&theirs.join(&f)),
                    "{name}/{f}: mtime"
                );
            }
            if !compressed {
                assert!(
                    a == b,
                    "{name}/{f}: {} bytes against Kafka's {}",
                    a.len(),
                    b.len()
                );
            } else if f.ends_with(".txnindex") {
                assert!(a == b, "{name}/{f}");
            }
        }
        notes.push(format!(
            "{name}: {same} of {batches} batches byte-identical"
        ));
    }
    let checkpoint = |d: &Path| {
        let mut l: Vec<String> = fs::read_to_string(d.join("cleaner-offset-checkpoint"))
            .unwrap()
            .lines()
            .skip(2)
            .map(str::to_string)
            .collect();
        l.sort();
        l
    };
    assert_eq!(
        checkpoint(&out),
        checkpoint(&data),
        "cleaner-offset-checkpoint entries"
    );
    for n in &notes {
        eprintln!("{n}");
    }
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
