//! `kseg diff`: replicas of the same partitions, one input path per broker.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use anyhow::Result;
use serde_json::json;

use super::Outcome;
use crate::analysis::diff::{diff_partition, load_replica, segments_from, PartitionDiff};
use crate::analysis::dump::DumpFeed;
use crate::analysis::severity::Nature;
use crate::analysis::summary::{log_dir_facts, LogDirFacts};
use crate::cli::DiffArgs;
use crate::format::log::RecordScratch;
use crate::format::text_files::{parse_checkpoint, parse_properties, CheckpointEntry};
use crate::print::diff as printer;
use crate::print::dump_json::JsonDump;
use crate::print::dump_text::{TextDump, TextStyle};
use crate::print::table::Layout;
use crate::print::{report_error, DumpPrinter};
use crate::scan::{scan_log, ScanOptions};
use crate::storage::discover::{discover, DataFile, LogDir, PartitionDir};
use crate::storage::layout::{classify_file, FileKind, PartitionState};
use crate::storage::source::{open_log, read_small};

/// One input path: a broker's log dirs, or partition dirs given directly.
struct Source {
    path: PathBuf,
    broker_id: Option<i32>,
    /// Partition dirs with their log dir's facts (one copy per log dir, shared by its
    /// partitions) and cleaner checkpoint.
    partitions: Vec<(PartitionDir, Option<Rc<LogDirFacts>>, Option<i64>)>,
}

/// A log dir's `cleaner-offset-checkpoint`, read once: (topic, partition) -> offset (the
/// first entry of a partition listed twice).
fn cleaner_checkpoint(dir: &Path) -> HashMap<(String, i32), i64> {
    let mut out = HashMap::new();
    let Ok(text) = read_small(&dir.join("cleaner-offset-checkpoint"), 64 << 20) else {
        return out;
    };
    let Ok(text) = String::from_utf8(text) else {
        return out;
    };
    let Ok(c) = parse_checkpoint(&text, false) else {
        return out;
    };
    for e in c.entries {
        if let CheckpointEntry::Partition {
            topic,
            partition,
            offset,
        } = e
        {
            out.entry((topic, partition)).or_insert(offset);
        }
    }
    out
}

pub(super) fn node_id(dir: &Path) -> Option<i32> {
    let text = read_small(&dir.join("meta.properties"), 1 << 16).ok()?;
    let text = String::from_utf8(text).ok()?;
    parse_properties(&text)
        .into_iter()
        .find(|(k, _)| k == "node.id" || k == "broker.id")?
        .1
        .parse()
        .ok()
}

/// The log dir holding a partition dir given on its own: its parent's root files.
fn parent_log_dir(parent: &Path) -> Option<LogDir> {
    let files = std::fs::read_dir(parent)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| DataFile {
            kind: classify_file(&e.file_name().to_string_lossy()),
            path: e.path(),
        })
        .collect();
    Some(LogDir {
        path: parent.to_path_buf(),
        files,
        partitions: Vec::new(),
    })
}

/// What a log dir tells about its partitions, read once per log dir.
struct LogDirRead {
    broker_id: Option<i32>,
    facts: Rc<LogDirFacts>,
    cleaned: HashMap<(String, i32), i64>,
}

fn read_log_dir(d: &LogDir) -> LogDirRead {
    LogDirRead {
        broker_id: node_id(&d.path),
        facts: Rc::new(log_dir_facts(d)),
        cleaned: cleaner_checkpoint(&d.path),
    }
}

fn source(path: &Path) -> Result<Source> {
    let set = discover(std::slice::from_ref(&path.to_path_buf()))?;
    let mut s = Source {
        path: path.to_path_buf(),
        broker_id: None,
        partitions: Vec::new(),
    };
    for d in set.log_dirs {
        let read = read_log_dir(&d);
        s.broker_id = s.broker_id.or(read.broker_id);
        for p in d.partitions {
            let cleaned = read
                .cleaned
                .get(&(p.name.topic.clone(), p.name.partition))
                .copied();
            s.partitions
                .push((p, Some(Rc::clone(&read.facts)), cleaned));
        }
    }
    // Partition dirs given directly: their parent is read once, however many share it.
    let mut parents: HashMap<PathBuf, Option<LogDirRead>> = HashMap::new();
    for p in set.partitions {
        let parent = p.path.parent().map(Path::to_path_buf).unwrap_or_default();
        let read = parents
            .entry(parent)
            .or_insert_with_key(|parent| parent_log_dir(parent).as_ref().map(read_log_dir));
        let Some(read) = read else {
            s.partitions.push((p, None, None));
            continue;
        };
        s.broker_id = s.broker_id.or(read.broker_id);
        let cleaned = read
            .cleaned
            .get(&(p.name.topic.clone(), p.name.partition))
            .copied();
        s.partitions
            .push((p, Some(Rc::clone(&read.facts)), cleaned));
    }
    Ok(s)
}

/// `broker-<node.id>`, or the path's name; when two inputs are the same broker (copies taken at
/// different times), `broker-1@before/broker-1`: the shortest tail of the path that tells them
/// apart.
fn labels(sources: &[Source]) -> Vec<String> {
    let tail = |s: &Source, n: usize| {
        let parts: Vec<String> = s
            .path
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        parts[parts.len().saturating_sub(n)..].join("/")
    };
    let base: Vec<String> = sources
        .iter()
        .map(|s| {
            s.broker_id
                .map_or_else(|| tail(s, 1), |id| format!("broker-{id}"))
        })
        .collect();
    let mut out = base.clone();
    for (i, b) in base.iter().enumerate() {
        let twins: Vec<usize> = (0..base.len()).filter(|&j| base[j] == *b).collect();
        if twins.len() < 2 {
            continue;
        }
        let longest = sources[i].path.components().count();
        let n = (1..=longest)
            .find(|&n| {
                twins
                    .iter()
                    .all(|&j| j == i || tail(&sources[j], n) != tail(&sources[i], n))
            })
            .unwrap_or(longest);
        out[i] = if sources[i].broker_id.is_some() {
            format!("{b}@{}", tail(&sources[i], n))
        } else {
            tail(&sources[i], n)
        };
    }
    out
}

/// A replica to read: its input's index, partition dir and log dir facts.
type ReplicaInput<'a> = (
    usize,
    &'a PartitionDir,
    Option<&'a LogDirFacts>,
    Option<i64>,
);

pub fn run(args: DiffArgs) -> Result<Outcome> {
    let mut outcome = Outcome::Clean;
    let mut sources = Vec::new();
    for path in &args.paths {
        let s = source(path)?;
        if s.partitions.is_empty() {
            eprintln!(
                "kseg: no Kafka log dir or partition under {}",
                path.display()
            );
            outcome = Outcome::Failed;
        }
        sources.push(s);
    }
    // The same dir twice would compare a replica with itself under two equal labels.
    for (i, s) in sources.iter().enumerate() {
        let real = std::fs::canonicalize(&s.path).unwrap_or_else(|_| s.path.clone());
        if let Some(j) = sources[..i]
            .iter()
            .position(|o| std::fs::canonicalize(&o.path).unwrap_or_else(|_| o.path.clone()) == real)
        {
            anyhow::bail!(
                "{} and {} are the same directory: give each replica once",
                sources[j].path.display(),
                s.path.display()
            );
        }
    }
    let labels = labels(&sources);
    let given_leader = match &args.leader {
        None => None,
        Some(l) => {
            let want = std::fs::canonicalize(l).unwrap_or_else(|_| l.clone());
            let found = sources.iter().position(|s| {
                std::fs::canonicalize(&s.path).unwrap_or_else(|_| s.path.clone()) == want
            });
            match found {
                Some(i) => Some(i),
                None => anyhow::bail!("--leader {} is not one of the paths given", l.display()),
            }
        }
    };
    // (topic, partition) -> (source, partition dir, facts). The metadata log is Raft's, not
    // replicated by the fetcher's rules; JBOD `-future` and deleted dirs are not replicas.
    let mut by_partition: BTreeMap<(String, i32), Vec<ReplicaInput>> = BTreeMap::new();
    for (i, s) in sources.iter().enumerate() {
        for (p, f, cleaned) in &s.partitions {
            if p.name.state != PartitionState::Live || p.name.topic == "__cluster_metadata" {
                continue;
            }
            if !args.topic.is_empty() && !args.topic.contains(&p.name.topic) {
                continue;
            }
            let list = by_partition
                .entry((p.name.topic.clone(), p.name.partition))
                .or_default();
            if list.iter().all(|(j, _, _, _)| *j != i) {
                list.push((i, p, f.as_deref(), *cleaned));
            }
        }
    }
    by_partition.retain(|_, v| v.len() > 1);
    if by_partition.is_empty() {
        anyhow::bail!(
            "no partition is present in more than one of the {} paths given",
            args.paths.len()
        );
    }
    let mut parts: Vec<PartitionDiff> = Vec::new();
    for ((topic, partition), list) in &by_partition {
        let replicas = list
            .iter()
            .map(|(i, p, f, cleaned)| {
                let mut r = load_replica(
                    p,
                    *f,
                    labels[*i].clone(),
                    sources[*i].broker_id,
                    args.read.mmap,
                );
                r.cleaned_to = *cleaned;
                r
            })
            .collect::<Vec<_>>();
        for r in &replicas {
            for problem in &r.problems {
                eprintln!("kseg: {}", printer::Problem(problem));
                outcome = outcome.worst(Outcome::of_findings([Nature::DamagedData.severity()]));
            }
        }
        let leader = given_leader.and_then(|g| list.iter().position(|(i, _, _, _)| *i == g));
        parts.push(diff_partition(
            topic,
            *partition,
            replicas,
            leader,
            args.read.mmap,
        )?);
    }
    let stdout = io::stdout();
    let layout = Layout::detect(args.format, args.json);
    let mut out = layout.writer(BufWriter::new(stdout.lock()));
    if args.json {
        for p in &parts {
            printer::json_partition(&mut out, p)?;
        }
        let mut dump = JsonDump::new(&mut out, args.encoding.into());
        for p in &parts {
            one_sided_records(&mut dump, p, &args)?;
        }
        drop(dump);
        let v = json!({"type": "summary", "partitions": parts.len(),
            "identical": parts.iter().filter(|p| p.identical()).count(),
            "losingAcknowledged": parts.iter().filter(|p| p.loses_acknowledged()).count(),
            "acknowledgedLost": parts.iter().flat_map(|p| &p.pairs).map(|d| d.lost.acknowledged.records).sum::<u64>()});
        serde_json::to_writer(&mut out, &v)?;
        out.write_all(b"\n")?;
    } else {
        printer::verdict_table(&mut out, &parts, layout)?;
        if layout.prose() {
            let paths: Vec<(String, String)> = labels
                .iter()
                .zip(&sources)
                .map(|(l, s)| (l.clone(), s.path.display().to_string()))
                .collect();
            printer::legend(&mut out, &paths, &parts, given_leader.is_some())?;
            for p in parts.iter().filter(|p| !p.identical()) {
                printer::details(&mut out, p, layout)?;
            }
            if args.print_data_log {
                let mut dump = TextDump::new(
                    &mut out,
                    TextStyle {
                        print_data: true,
                        ..Default::default()
                    },
                );
                for p in &parts {
                    one_sided_records(&mut dump, p, &args)?;
                }
            }
        }
    }
    out.flush()?;
    // Acknowledged records a truncation removes are the error; a follower behind, or records
    // only the leader never acknowledged, are what replication normally leaves.
    Ok(outcome.worst(Outcome::of_findings(
        parts
            .iter()
            .filter(|p| p.loses_acknowledged())
            .map(|_| Nature::AcknowledgedLoss.severity()),
    )))
}

/// The records a truncation removes, through a dump printer (batches and records from the
/// truncation offset on, in each affected segment of the follower).
fn one_sided_records(
    printer: &mut dyn DumpPrinter,
    p: &PartitionDiff,
    args: &DiffArgs,
) -> Result<()> {
    let mut scratch = RecordScratch::with_cap(args.read.max_decompressed_bytes);
    let mut seen: Vec<(usize, i64)> = Vec::new();
    for d in p.pairs.iter().filter(|d| d.lost.records() > 0) {
        // One replica may be compared twice (two candidates); its tail is printed once.
        if seen.contains(&(d.follower, d.truncation.offset)) {
            continue;
        }
        seen.push((d.follower, d.truncation.offset));
        let r = &p.replicas[d.follower];
        let opts = ScanOptions {
            deep: true,
            offsets: (d.truncation.offset, i64::MAX),
            ..Default::default()
        };
        for path in segments_from(r, d.truncation.offset) {
            printer.begin_file(path, &FileKind::Log)?;
            match open_log(path, args.read.mmap) {
                Ok(mut src) => {
                    let mut feed = DumpFeed::new(&mut *printer, path, None);
                    scan_log(src.as_mut(), &opts, &mut scratch, &mut feed)?;
                }
                Err(e) => report_error(path, None, &format!("cannot read: {e}")),
            }
        }
    }
    Ok(())
}
