//! `kseg rescue`: the records of source partitions produced into a running cluster, exactly
//! (key, value, headers, CreateTime, partition) and resumably (`--state`). What to send and the
//! resume bookkeeping are [`crate::analysis::rescue`]'s; the network is [`crate::client`]'s.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::json;

use super::rescue_groups::{self, internal_partitions, GroupsRun};
use super::{discover_inputs, Outcome, Reads};
use crate::analysis::groups::{partition_facts, PartitionFacts, Replay};
use crate::analysis::rescue::{
    content_digest, internal_target, parse_topic_map, record_bytes, record_digest, sent_timestamp,
    Partitioning, ResumeState, Selection, Source, Tail, Tally, TargetProgress, Ticket, Tracker,
};
use crate::analysis::rescue_map::{RescueMap, SourceView};
use crate::analysis::summary::log_dir_facts;
use crate::analysis::topic_configs::topic_configs;
use crate::cli::{RescueArgs, RescueCompression, RescuePartitioner};
use crate::client::{
    Admin, Connection, Delivery, NewTopicSpec, Outgoing, ProducerSettings, ReadRecord, Reader,
    RescueProducer,
};
use crate::format::log::RecordScratch;
use crate::print::progress::{self, RecordProgress};
use crate::print::table::{col, Col, Column, Grid, Layout};
use crate::scan::Flow;
use crate::storage::discover::{DataSet, PartitionDir};
use crate::storage::layout::PartitionState;
use crate::storage::source::read_small;

const COLUMNS: [Column; 9] = [
    col("SOURCE", Col::Id, 0).key(),
    col("TARGET", Col::Id, 0).key(),
    col("SENT", Col::Num, 0),
    col("RESUMED", Col::Num, 2),
    col("FIRST-OFFSET", Col::Num, 3),
    col("LAST-OFFSET", Col::Num, 3),
    col("ABORTED", Col::Num, 1),
    col("OPEN", Col::Num, 1),
    col("TARGET-PARTITIONS", Col::Text, 4),
];

fn esc(s: &str) -> String {
    let mut v = Vec::new();
    let _ = crate::print::escape::write_escaped(&mut v, s.as_bytes());
    String::from_utf8_lossy(&v).into_owned()
}

fn timestamp_arg(
    times: &super::TimeFlags,
    flag: &str,
    v: &Option<String>,
    default: i64,
) -> Result<i64> {
    match times.read(flag, v.as_deref())? {
        None => Ok(default),
        Some(ms) if ms < 0 => bail!("{flag} {ms}: a negative timestamp is not a time"),
        Some(ms) => Ok(ms),
    }
}

fn connection(args: &RescueArgs) -> Result<Connection> {
    let path = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let password = match &args.sasl_password_file {
        // A regular file of at most 64 KiB: a FIFO or /dev/zero given by mistake is refused.
        Some(f) => Some(
            String::from_utf8(
                read_small(f, 64 << 10).with_context(|| format!("reading {}", f.display()))?,
            )
            .map_err(|_| anyhow::anyhow!("{}: the password is not UTF-8", f.display()))?
            .trim_end_matches(['\n', '\r'])
            .to_string(),
        ),
        None => std::env::var("KSEG_SASL_PASSWORD").ok(),
    };
    let mut extra = Vec::new();
    for kv in &args.client_config {
        let Some((k, v)) = kv.split_once('=') else {
            bail!("--client-config wants KEY=VALUE, not {kv:?}");
        };
        extra.push((k.to_string(), v.to_string()));
    }
    Ok(Connection {
        bootstrap: args.bootstrap.clone(),
        security_protocol: args.security_protocol.clone(),
        sasl_mechanism: args.sasl_mechanism.clone(),
        sasl_username: args.sasl_username.clone(),
        sasl_password: password,
        ssl_ca: path(&args.ssl_ca),
        ssl_certificate: path(&args.ssl_certificate),
        ssl_key: path(&args.ssl_key),
        extra,
    })
}

/// The target partitions and their indexes in the tracker.
struct Targets {
    index: HashMap<(String, i32), u32>,
    names: Vec<(String, i32)>,
}

impl Targets {
    fn of(&self, topic: &str, partition: i32) -> u32 {
        self.index[&(topic.to_string(), partition)]
    }
}

/// Delivery reports folded into the tracker; the resume file saved at most every 200 ms, or
/// ten times as long as the last save took (a large offset map costs at most a tenth of the
/// time in saves).
struct Service<'a> {
    state_path: Option<&'a Path>,
    plan: &'a str,
    last_save: Instant,
    save_every: Duration,
    failed: Option<String>,
    acknowledged: u64,
}

impl Service<'_> {
    fn serve(
        &mut self,
        producer: &mut RescueProducer,
        tracker: &mut Tracker,
        wait: Duration,
        force_save: bool,
    ) -> Result<()> {
        let reports = match producer.poll(wait) {
            Ok(r) => r,
            Err(e) => {
                self.failed.get_or_insert(e.to_string());
                Vec::new()
            }
        };
        for d in reports {
            match d {
                Delivery::Acknowledged { ticket, offset } => {
                    self.acknowledged += 1;
                    tracker.acknowledged(Ticket::unpack(ticket), offset);
                }
                Delivery::Failed { ticket, error } => {
                    let t = Ticket::unpack(ticket);
                    self.failed.get_or_insert(format!(
                        "a record was not delivered: {error} (source #{})",
                        t.source
                    ));
                }
            }
        }
        if let Some(path) = self.state_path {
            if force_save || self.last_save.elapsed() >= self.save_every {
                let began = Instant::now();
                tracker
                    .state(self.plan)
                    .save(path)
                    .with_context(|| format!("saving {}", path.display()))?;
                self.last_save = Instant::now();
                self.save_every = Duration::from_millis(200).max(began.elapsed() * 10);
            }
        }
        Ok(())
    }
}

pub fn run(args: RescueArgs) -> Result<Outcome> {
    // rescue never writes into what it reads: a --state or --offset-map file inside a source
    // is refused.
    for (flag, file) in [("--state", &args.state), ("--offset-map", &args.offset_map)] {
        let Some(file) = file else {
            continue;
        };
        // Resolved as recover resolves --out: through its nearest existing ancestor, so a
        // path inside a source is caught whether or not its dirs exist yet.
        if let Ok(resolved) = super::resolved_path(file) {
            for source in &args.sources {
                if let Ok(source) = source.canonicalize() {
                    if resolved.starts_with(&source) {
                        bail!(
                            "{flag} {} is inside the source {}: rescue never writes into what \
                             it reads; put the file elsewhere",
                            file.display(),
                            source.display()
                        );
                    }
                }
            }
        }
    }
    if args.groups && args.partitioner == RescuePartitioner::Murmur2 {
        bail!(
            "--groups with --partitioner murmur2: the records of one source partition are spread \
             over every target partition, so a committed offset has no one place in the target; \
             rescue with --partitioner same to translate group offsets"
        );
    }
    let mut extra_configs: BTreeMap<String, String> = BTreeMap::new();
    for kv in &args.topic_config {
        match kv.split_once('=') {
            Some((k, v)) if !k.is_empty() => {
                extra_configs.insert(k.to_string(), v.to_string());
            }
            _ => bail!("--topic-config wants KEY=VALUE, not {kv:?}"),
        }
    }
    // Read before anything connects: a bad state file is the user's to fix first.
    let previous = match &args.state {
        Some(p) => ResumeState::load(p)?,
        None => None,
    };
    let (set, mut outcome) = discover_inputs(&args.sources, "rescue", Reads::DirsOnly)?;
    // Internal topics of a log dir are another cluster's bookkeeping: left out unless given.
    let mut dirs: Vec<&PartitionDir> = set
        .log_dirs
        .iter()
        .flat_map(|d| d.partitions.iter())
        .filter(|p| !p.name.topic.starts_with("__"))
        .chain(set.partitions.iter())
        .filter(|p| p.name.state == PartitionState::Live)
        .collect();
    dirs.sort_by(|a, b| (&a.name.topic, a.name.partition).cmp(&(&b.name.topic, b.name.partition)));
    for w in dirs.windows(2) {
        if w[0].name.topic == w[1].name.topic && w[0].name.partition == w[1].name.partition {
            bail!(
                "{}-{} is given twice ({} and {}): rescue one copy of a partition",
                w[0].name.topic,
                w[0].name.partition,
                w[0].path.display(),
                w[1].path.display()
            );
        }
    }
    if dirs.is_empty() {
        bail!("no partition to rescue in the given paths");
    }
    // The source's groups, read before anything is sent: a missing __consumer_offsets stops
    // the run here.
    let groups: Option<(Replay, usize)> = if args.groups {
        Some(rescue_groups::load(&set, args.read.mmap)?)
    } else {
        None
    };
    if let (Some(prev), true) = (&previous, args.groups) {
        if let Some(name) = prev
            .acknowledged
            .keys()
            .find(|n| !prev.offset_map.contains_key(*n))
        {
            bail!(
                "--groups: the --state file has no offset map for {name} (written by a kseg \
                 that did not keep one), so its offsets in the target are not known"
            );
        }
    }
    let mut map = BTreeMap::new();
    for m in &args.topic_map {
        let (old, new) = parse_topic_map(m).map_err(anyhow::Error::msg)?;
        map.insert(old, new);
    }
    let target_topic = |t: &str| map.get(t).cloned().unwrap_or_else(|| t.to_string());
    // An internal topic's partition given by name goes nowhere unless it is mapped.
    for d in &dirs {
        internal_target(&target_topic(&d.name.topic)).map_err(anyhow::Error::msg)?;
    }
    let times = super::TimeFlags::new(&args.tz)?;
    let sel = Selection {
        offsets: (
            args.from_offset.unwrap_or(i64::MIN),
            args.to_offset.unwrap_or(i64::MAX),
        ),
        timestamps: (
            timestamp_arg(&times, "--from-timestamp", &args.from_timestamp, i64::MIN)?,
            timestamp_arg(&times, "--to-timestamp", &args.to_timestamp, i64::MAX)?,
        ),
    };
    let partitioning = match args.partitioner {
        RescuePartitioner::Same => Partitioning::Same,
        RescuePartitioner::Murmur2 => Partitioning::Murmur2,
    };
    let names: Vec<String> = dirs
        .iter()
        .map(|d| format!("{}-{}", d.name.topic, d.name.partition))
        .collect();
    let plan = format!(
        "sources={} map={:?} partitioner={:?} offsets={:?} timestamps={:?}",
        names.join(","),
        map,
        partitioning,
        sel.offsets,
        sel.timestamps
    );

    // The target topics: they must exist with enough partitions.
    let conn = connection(&args)?;
    let reader = Reader::new(&conn, false)?;
    let mut needed: BTreeMap<String, i32> = BTreeMap::new();
    for d in &dirs {
        let n = needed.entry(target_topic(&d.name.topic)).or_insert(0);
        *n = (*n).max(d.name.partition + 1);
    }
    let topics: Vec<&str> = needed.keys().map(String::as_str).collect();
    // A dry run needs no cluster: unreachable, it plans with the source's partition counts.
    let wait = Duration::from_secs(if args.dry_run { 5 } else { 20 });
    let mut reachable = true;
    let mut counts = match reader.partition_counts(&topics, wait) {
        Ok(c) => c,
        Err(e) if args.dry_run => {
            reachable = false;
            eprintln!(
                "kseg: {e:#}; the dry run plans without it, each target topic taken as having \
                 the source's partitions"
            );
            needed.iter().map(|(t, n)| (t.clone(), Some(*n))).collect()
        }
        Err(e) => return Err(e),
    };
    let missing: Vec<(String, i32)> = needed
        .iter()
        .filter(|(t, _)| counts[*t].is_none())
        .map(|(t, n)| (t.clone(), *n))
        .collect();
    // Target topics known to exist (a dry run takes the missing ones as created).
    let existing: BTreeSet<String> = counts
        .iter()
        .filter(|(_, c)| reachable && c.is_some())
        .map(|(t, _)| t.clone())
        .collect();
    if !missing.is_empty() {
        let list = missing
            .iter()
            .map(|(t, n)| format!("{} ({n} partitions)", esc(t)))
            .collect::<Vec<_>>()
            .join(", ");
        let source_topics: BTreeSet<&str> = dirs.iter().map(|d| d.name.topic.as_str()).collect();
        let specs = new_topic_specs(&args, &set, &source_topics, &missing, &map, &extra_configs);
        if args.dry_run {
            eprintln!("kseg: target topics to create: {list}");
            if args.create_topics {
                for (spec, said) in &specs {
                    eprintln!(
                        "kseg: --create-topics would create {} with {said}",
                        esc(&spec.name)
                    );
                }
            }
            for (t, n) in &missing {
                counts.insert(t.clone(), Some(*n));
            }
        } else if args.create_topics {
            let new: Vec<NewTopicSpec> = specs.iter().map(|(s, _)| s.clone()).collect();
            Admin::new(&conn)?.create_topics(&new).map_err(|e| {
                if new.iter().all(|t| t.configs.is_empty()) {
                    e
                } else {
                    anyhow::anyhow!(
                        "{e:#} (configs: {}): override a config with --topic-config KEY=VALUE \
                         or leave it out with --skip-topic-config KEY",
                        specs
                            .iter()
                            .map(|(_, said)| said.as_str())
                            .collect::<Vec<_>>()
                            .join("; ")
                    )
                }
            })?;
            for (spec, said) in &specs {
                eprintln!(
                    "kseg: created {} ({} partitions) with {said}",
                    esc(&spec.name),
                    spec.partitions
                );
            }
            for _ in 0..100 {
                counts = reader.partition_counts(&topics, wait)?;
                if counts.values().all(Option::is_some) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        } else {
            bail!(
                "the target cluster has no topic {list}: create it (kafka-topics.sh --create \
                 --topic NAME --partitions N) or pass --create-topics"
            );
        }
    }
    let count_of = |t: &str| counts.get(t).copied().flatten().unwrap_or(0);
    for (t, need) in &needed {
        let have = count_of(t);
        if partitioning == Partitioning::Same && have < *need {
            bail!(
                "target topic {} has {have} partitions and the source has partition {}: add \
                 partitions (kafka-topics.sh --alter --topic {} --partitions {need}) or pass \
                 --partitioner murmur2",
                esc(t),
                need - 1,
                esc(t)
            );
        }
    }
    // Target topic -> (retention.ms, the oldest timestamp it keeps): records older are
    // deleted by the broker's next retention check.
    let mut retention: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    // The largest batch every target topic takes: a batch over a topic's max.message.bytes or
    // segment.bytes is refused whole (MESSAGE_TOO_LARGE, RECORD_BATCH_TOO_LARGE).
    let mut batch_bytes = (args.batch_bytes, None::<String>);
    if !args.dry_run {
        let admin = Admin::new(&conn)?;
        for t in needed.keys() {
            match admin.topic_configs(t) {
                Ok(c) => {
                    for key in ["max.message.bytes", "segment.bytes"] {
                        if let Some(n) = c.get(key).and_then(|v| v.parse::<usize>().ok()) {
                            if n > 0 && n < batch_bytes.0 {
                                batch_bytes =
                                    (n, Some(format!("target topic {}'s {key}={n}", esc(t))));
                            }
                        }
                    }
                    if c.get("message.timestamp.type").map(String::as_str) == Some("LogAppendTime")
                    {
                        eprintln!(
                            "kseg: target topic {} uses LogAppendTime: the broker stamps each \
                             record with its own time when it appends it; the source timestamps \
                             are not kept",
                            esc(t)
                        );
                        continue;
                    }
                    if let Some(ms) = c.get("retention.ms").and_then(|v| v.parse::<i64>().ok()) {
                        if ms >= 0 {
                            retention.insert(
                                t.clone(),
                                (ms, crate::broker::now_ms().saturating_sub(ms)),
                            );
                        }
                    }
                }
                Err(e) => eprintln!(
                    "kseg: could not read the configs of target topic {} ({e:#}); if it uses \
                     LogAppendTime, the source timestamps are not kept",
                    esc(t)
                ),
            }
        }
    }

    let mut scratch = RecordScratch::with_cap(args.read.max_decompressed_bytes);
    let sources: Vec<Source<'_>> = dirs
        .iter()
        .map(|d| {
            Source::open(d, &mut scratch).with_context(|| format!("reading {}", d.path.display()))
        })
        .collect::<Result<_>>()?;

    // Records older than the target's retention allows vanish at its next retention check
    // (Kafka deletes a segment once its newest timestamp is older than retention.ms): refused
    // unless asked for.
    if !retention.is_empty() {
        let mut old: Vec<String> = Vec::new();
        for s in &sources {
            let t = target_topic(&s.dir.name.topic);
            let Some(&(ms, keeps_from)) = retention.get(&t) else {
                continue;
            };
            let (mut n, mut newest) = (0u64, i64::MIN);
            // Timestamps 0 and below are stamped with the time of sending by the producer.
            s.select(
                sel,
                acknowledged_before_of(&previous, &s.name()),
                &mut scratch,
                |r| {
                    if r.timestamp > 0 && r.timestamp < keeps_from {
                        n += 1;
                        newest = newest.max(r.timestamp);
                    }
                    Ok(Flow::Continue)
                },
            )?;
            if n > 0 {
                old.push(format!(
                    "{n} records of {} (the newest {}) are older than target topic {}'s \
                     retention.ms={ms} keeps (from {})",
                    esc(&s.name()),
                    crate::time::rfc3339_ms(newest),
                    esc(&t),
                    crate::time::rfc3339_ms(keeps_from)
                ));
            }
        }
        if !old.is_empty() {
            let what = old.join("; ");
            if args.allow_retention_delete {
                eprintln!(
                    "kseg: {what}: sent anyway (--allow-retention-delete); the broker deletes \
                     them at its next retention check"
                );
            } else {
                bail!(
                    "{what}: the broker would delete them at its next retention check. Raise \
                     the target's retention (kafka-configs.sh --alter --entity-type topics \
                     --entity-name TOPIC --add-config retention.ms=-1), or pass \
                     --allow-retention-delete"
                );
            }
        }
    }

    if let (Some(prev), Some(p)) = (&previous, &args.state) {
        if prev.plan != plan {
            bail!(
                "{} belongs to a rescue asked differently ({}); this one is {plan}: give the same \
                 sources and options, or another --state file",
                p.display(),
                prev.plan
            );
        }
    }
    let acknowledged_before = |name: &str| {
        previous
            .as_ref()
            .and_then(|s| s.acknowledged.get(name).copied())
    };

    // Every target partition a record may go to.
    let mut targets = Targets {
        index: HashMap::new(),
        names: Vec::new(),
    };
    for d in &dirs {
        let t = target_topic(&d.name.topic);
        let parts: Vec<i32> = match partitioning {
            Partitioning::Same => vec![d.name.partition],
            Partitioning::Murmur2 => (0..count_of(&t)).collect(),
        };
        for p in parts {
            let key = (t.clone(), p);
            if !targets.index.contains_key(&key) {
                targets
                    .index
                    .insert(key.clone(), targets.names.len() as u32);
                targets.names.push(key);
            }
        }
    }

    let previous_map = |name: &str| {
        previous
            .as_ref()
            .and_then(|s| s.offset_map.get(name).cloned())
            .unwrap_or_default()
    };
    if args.dry_run {
        // Where each target partition's next record would land (the --groups prediction):
        // after what a previous run covered, else the partition's end now (0 unreachable).
        let mut next: HashMap<(String, i32), i64> = HashMap::new();
        if args.groups {
            for (t, p) in &targets.names {
                let at = match previous
                    .as_ref()
                    .and_then(|s| s.targets.get(&format!("{t}-{p}")))
                {
                    Some(progress) => progress.resume_from,
                    None if existing.contains(t) => reader.watermarks(t, *p)?.1,
                    None => 0,
                };
                next.insert((t.clone(), *p), at);
            }
        }
        let starts = next.clone();
        let (outcome, predicted) = dry_run(
            &args,
            &sources,
            &targets,
            sel,
            partitioning,
            &count_of,
            &target_topic,
            &acknowledged_before,
            &mut next,
            &mut scratch,
            outcome,
        )?;
        let Some((replay, _)) = &groups else {
            return Ok(outcome);
        };
        let mut maps: Vec<RescueMap> = Vec::new();
        for (s, p) in sources.iter().zip(&predicted) {
            let mut m = previous_map(&s.name());
            m.append(p);
            maps.push(m);
        }
        let views = source_views(
            &set,
            &sources,
            &maps,
            &target_topic,
            sel,
            replay,
            &mut scratch,
            |s| {
                let name = format!(
                    "{}-{}",
                    target_topic(&s.dir.name.topic),
                    s.dir.name.partition
                );
                let start = previous
                    .as_ref()
                    .and_then(|st| st.targets.get(&name))
                    .map(|p| p.start)
                    .or_else(|| {
                        starts
                            .get(&(target_topic(&s.dir.name.topic), s.dir.name.partition))
                            .copied()
                    });
                let predicted_from =
                    Some(acknowledged_before(&s.name()).map_or(i64::MIN, |a| a + 1));
                (start, predicted_from)
            },
        )?;
        let g = rescue_groups::run(&GroupsRun {
            replay,
            views: &views,
            commit: false,
            conn: reachable.then_some(&conn),
            json: args.json,
            layout: Layout::detect(args.format, args.json),
        })?;
        return Ok(outcome.worst(g));
    }

    let mut tracker = Tracker::default();
    for name in &names {
        tracker.add_source(name.clone(), acknowledged_before(name), previous_map(name));
    }
    for (t, p) in &targets.names {
        let name = format!("{t}-{p}");
        let progress = match previous.as_ref().and_then(|s| s.targets.get(&name)) {
            Some(p) => *p,
            None => {
                let (_, end) = reader.watermarks(t, *p)?;
                TargetProgress {
                    start: end,
                    resume_from: end,
                }
            }
        };
        tracker.add_target(name, *p, progress);
    }
    let state_path = args.state.as_deref();
    if let Some(p) = state_path {
        // Saved before the first record is sent: a stop at any point leaves where the targets
        // ended before this rescue.
        tracker
            .state(&plan)
            .save(p)
            .with_context(|| format!("saving {}", p.display()))?;
    }

    // What landed after the last save of a previous run, to be matched instead of resent.
    let mut tails: Vec<Tail> = targets.names.iter().map(|_| Tail::default()).collect();
    let mut tail_records = 0u64;
    if let Some(prev) = &previous {
        for (i, (t, p)) in targets.names.iter().enumerate() {
            if let Some(progress) = prev.targets.get(&format!("{t}-{p}")) {
                reader.read(t, *p, progress.resume_from, |r| {
                    tails[i]
                        .records
                        .push_back((r.offset, target_digest(r), r.create_time));
                    tail_records += 1;
                    Ok(())
                })?;
            }
        }
    }

    let settings = ProducerSettings {
        batch_bytes: batch_bytes.0,
        linger_ms: args.linger_ms,
        compression: match args.compression {
            RescueCompression::None => "none",
            RescueCompression::Gzip => "gzip",
            RescueCompression::Snappy => "snappy",
            RescueCompression::Lz4 => "lz4",
            RescueCompression::Zstd => "zstd",
        }
        .to_string(),
        delivery_timeout_ms: args.delivery_timeout_ms,
    };
    if let Some(why) = &batch_bytes.1 {
        eprintln!(
            "kseg: batches of at most {} bytes ({why}; --batch-bytes is {})",
            batch_bytes.0, args.batch_bytes
        );
    }
    let mut producer = RescueProducer::new(&conn, &settings)?;
    // The committed records are counted per partition; a selection or a resume sends fewer, and
    // how many is not known before the walk, so the bar then shows no total and no ETA.
    let total: Option<u64> = (sel.is_everything() && previous.is_none()).then(|| {
        sources
            .iter()
            .map(|s| s.outcomes.data_records - s.outcomes.not_committed_records)
            .sum()
    });
    let mut bar = RecordProgress::new(progress::wanted(true, false), total);
    let mut service = Service {
        state_path,
        plan: &plan,
        last_save: Instant::now(),
        save_every: Duration::from_millis(200),
        failed: None,
        acknowledged: 0,
    };
    let started = Instant::now();
    let mut sent_total = 0u64;
    let mut bytes_total = 0u64;
    let mut tallies: Vec<Tally> = Vec::new();
    let mut resumed: Vec<u64> = Vec::new();
    let mut sent_to: Vec<BTreeMap<i32, u64>> = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        let topic = target_topic(&s.dir.name.topic);
        let partitions = count_of(&topic);
        let source_partition = s.dir.name.partition;
        let mut found = 0u64;
        let mut to: BTreeMap<i32, u64> = BTreeMap::new();
        let mut error: Option<anyhow::Error> = None;
        let tally = s.select(sel, acknowledged_before(&names[i]), &mut scratch, |r| {
            let p = partitioning.target(source_partition, r.key, partitions);
            let ti = targets.of(&topic, p);
            let ts = sent_timestamp(r);
            let tail = &mut tails[ti as usize];
            if !tail.records.is_empty() {
                if let Some(at) = tail.take_if(record_digest(r), ts) {
                    tracker.delivered_before(i as u32, r.offset, ti, at);
                    found += 1;
                    return Ok(Flow::Continue);
                }
            }
            let mut headers: Vec<(&str, Option<&[u8]>)> = Vec::new();
            for h in r.headers.iter() {
                match std::str::from_utf8(h.key) {
                    Ok(k) => headers.push((k, h.value)),
                    Err(_) => {
                        error = Some(anyhow::anyhow!(
                            "{}-{source_partition} offset {}: a header key is not UTF-8, which \
                             a Kafka client cannot send",
                            s.dir.name.topic,
                            r.offset
                        ));
                        return Ok(Flow::Stop);
                    }
                }
            }
            let ticket = tracker.sent(i as u32, r.offset, ti);
            if let Err(e) = producer.send(&Outgoing {
                topic: &topic,
                partition: p,
                key: r.key,
                value: r.value,
                headers: &headers,
                timestamp: ts,
                ticket: ticket.pack(),
            }) {
                error = Some(e);
                return Ok(Flow::Stop);
            }
            *to.entry(p).or_default() += 1;
            sent_total += 1;
            let b = record_bytes(r);
            bytes_total += b;
            bar.add(1, b);
            if sent_total.is_multiple_of(512) {
                if let Err(e) = service.serve(&mut producer, &mut tracker, Duration::ZERO, false) {
                    error = Some(e);
                    return Ok(Flow::Stop);
                }
                if service.failed.is_some() {
                    return Ok(Flow::Stop);
                }
            }
            if args.max_records_per_second > 0 {
                let due =
                    Duration::from_secs_f64(sent_total as f64 / args.max_records_per_second as f64);
                while started.elapsed() < due {
                    let _ =
                        service.serve(&mut producer, &mut tracker, Duration::from_millis(5), false);
                }
            }
            Ok(Flow::Continue)
        })?;
        if let Some(e) = error {
            service.failed.get_or_insert(format!("{e:#}"));
        }
        tallies.push(tally);
        resumed.push(found);
        sent_to.push(to);
        if service.failed.is_some() {
            break;
        }
    }
    // Everything sent is acknowledged (or has failed) before the last save.
    let deadline = Instant::now() + Duration::from_millis(args.delivery_timeout_ms + 30_000);
    // The library counts a record until its delivery report (success or failure) is served.
    while producer.in_flight() > 0 && Instant::now() < deadline {
        service.serve(
            &mut producer,
            &mut tracker,
            Duration::from_millis(50),
            false,
        )?;
    }
    service.serve(&mut producer, &mut tracker, Duration::ZERO, true)?;
    drop(bar);
    let elapsed = started.elapsed();
    let unacknowledged = tracker.in_flight();
    if let Some(path) = &args.offset_map {
        let complete = service.failed.is_none() && unacknowledged == 0;
        write_offset_map(path, &sources, &tracker, &target_topic, complete)?;
    }
    let leftover_tail: u64 = tails.iter().map(|t| t.records.len() as u64).sum();

    let stdout = io::stdout();
    let layout = Layout::detect(args.format, args.json);
    let mut out = layout.writer(BufWriter::new(stdout.lock()));
    let mut grid = Grid::new(&COLUMNS);
    for (i, tally) in tallies.iter().enumerate() {
        let s = &sources[i];
        let topic = target_topic(&s.dir.name.topic);
        for msg in &tally.problems {
            crate::print::report_error(&s.dir.path, None, msg);
            outcome = outcome.worst(Outcome::DataProblems);
        }
        if args.json {
            serde_json::to_writer(
                &mut out,
                &json!({"type": "rescued", "source": names[i], "target": topic,
                    "sent": tally.records - resumed[i], "resumed": resumed[i],
                    "acknowledgedBefore": tally.already_acknowledged,
                    "firstOffset": tally.first_offset, "lastOffset": tally.last_offset,
                    "bytes": tally.bytes, "targetPartitions": sent_to[i],
                    "abortedRecords": tally.aborted_records, "openRecords": tally.open_records,
                    "controlBatches": tally.control_batches,
                    "outsideTimestamps": tally.outside_timestamps,
                    "badCrcRecords": tally.bad_crc_records, "problems": tally.problems,
                    "offsetMapRanges": tracker.map(i as u32).ranges().len()}),
            )?;
            writeln!(out)?;
        } else {
            grid.row(vec![
                esc(&names[i]),
                esc(&topic),
                (tally.records - resumed[i]).to_string(),
                (resumed[i] + tally.already_acknowledged).to_string(),
                tally.first_offset.map_or("-".into(), |o| o.to_string()),
                tally.last_offset.map_or("-".into(), |o| o.to_string()),
                tally.aborted_records.to_string(),
                tally.open_records.to_string(),
                sent_to[i]
                    .keys()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            ]);
        }
    }
    if !args.json {
        grid.write(&mut out, layout)?;
        if layout.prose() {
            for (i, tally) in tallies.iter().enumerate() {
                left_out(&mut out, &names[i], tally)?;
                map_line(
                    &mut out,
                    &names[i],
                    &target_topic(&sources[i].dir.name.topic),
                    tracker.map(i as u32),
                )?;
            }
        }
    }
    let rate = sent_total as f64 / elapsed.as_secs_f64().max(1e-9);
    if args.json {
        serde_json::to_writer(
            &mut out,
            &json!({"type": "summary", "sent": sent_total, "bytes": bytes_total,
                "acknowledged": service.acknowledged, "unacknowledged": unacknowledged,
                "resumeMatched": tail_records - leftover_tail, "foreignRecords": leftover_tail,
                "seconds": elapsed.as_secs_f64(), "recordsPerSecond": rate,
                "error": service.failed}),
        )?;
        writeln!(out)?;
    } else if layout.prose() {
        writeln!(
            out,
            "{sent_total} records sent ({bytes_total} bytes of keys, values and headers) in \
             {:.1} s, {rate:.0} records/s; {} acknowledged",
            elapsed.as_secs_f64(),
            service.acknowledged
        )?;
    }
    out.flush()?;
    drop(out);
    if leftover_tail > 0 {
        eprintln!(
            "kseg: {leftover_tail} records in the targets after the resume point are not records \
             of this rescue (another producer wrote there?); they were left as they are"
        );
    }
    if let Some(e) = &service.failed {
        bail!(
            "{e}; {unacknowledged} records not acknowledged{}",
            match state_path {
                Some(p) => format!(
                    "; {} holds what was: rerun with the same --state to go on",
                    p.display()
                ),
                None => String::new(),
            }
        );
    }
    if unacknowledged > 0 {
        bail!("{unacknowledged} records were not acknowledged in time");
    }
    let mut verify_failed = false;
    if args.verify {
        let v = verify(
            &conn,
            &sources,
            &targets,
            &tracker,
            &plan,
            sel,
            partitioning,
            &count_of,
            &target_topic,
            &mut scratch,
        )?;
        let mut out = BufWriter::new(io::stdout().lock());
        for (name, r) in &v {
            if args.json {
                serde_json::to_writer(
                    &mut out,
                    &json!({"type": "verified", "target": name, "matched": r.matched,
                        "mismatched": r.mismatched, "missing": r.missing, "extra": r.extra,
                        "firstMismatch": r.first}),
                )?;
                writeln!(out)?;
            } else {
                writeln!(
                    out,
                    "verify {}: {} records match{}",
                    esc(name),
                    r.matched,
                    if r.ok() {
                        String::new()
                    } else {
                        format!(
                            ", {} differ, {} missing, {} extra; first: {}",
                            r.mismatched,
                            r.missing,
                            r.extra,
                            r.first.clone().unwrap_or_default()
                        )
                    }
                )?;
            }
            if !r.ok() {
                outcome = outcome.worst(Outcome::DataProblems);
                verify_failed = true;
            }
        }
        out.flush()?;
    }
    if let Some((replay, _)) = &groups {
        if verify_failed {
            eprintln!(
                "kseg: --groups: the target does not hold what was rescued (--verify): no group \
                 offset was committed"
            );
            return Ok(outcome.worst(Outcome::Failed));
        }
        let state = tracker.state(&plan);
        let maps: Vec<RescueMap> = (0..sources.len())
            .map(|i| tracker.map(i as u32).clone())
            .collect();
        let views = source_views(
            &set,
            &sources,
            &maps,
            &target_topic,
            sel,
            replay,
            &mut scratch,
            |s| {
                let name = format!(
                    "{}-{}",
                    target_topic(&s.dir.name.topic),
                    s.dir.name.partition
                );
                (state.targets.get(&name).map(|p| p.start), None)
            },
        )?;
        let g = rescue_groups::run(&GroupsRun {
            replay,
            views: &views,
            commit: true,
            conn: Some(&conn),
            json: args.json,
            layout,
        })?;
        outcome = outcome.worst(g);
    }
    Ok(outcome)
}

/// A source partition's log start and end offsets (its log dir's checkpoints when it is in a
/// log dir given).
fn source_facts(set: &DataSet, dir: &PartitionDir) -> PartitionFacts {
    let of_dir = set
        .log_dirs
        .iter()
        .find(|l| dir.path.parent() == Some(l.path.as_path()))
        .map(log_dir_facts);
    partition_facts(dir, of_dir.as_ref())
}

/// What the translation needs of each source partition a group committed offsets on: its map,
/// where its target partition began and from which source offset the map is predicted
/// (`start_of`), its log start and end, and why the committed offsets not sent were not.
#[allow(clippy::too_many_arguments)]
fn source_views<'a>(
    set: &DataSet,
    sources: &[Source<'_>],
    maps: &'a [RescueMap],
    target_topic: &dyn Fn(&str) -> String,
    sel: Selection,
    replay: &Replay,
    scratch: &mut RecordScratch,
    start_of: impl Fn(&Source<'_>) -> (Option<i64>, Option<i64>),
) -> Result<HashMap<(String, i32), SourceView<'a>>> {
    let mut committed: HashMap<(&str, i32), BTreeSet<i64>> = HashMap::new();
    for state in replay.groups.values() {
        for (key, c) in state.offsets.iter() {
            committed
                .entry((key.0.as_ref(), key.1))
                .or_default()
                .insert(c.offset);
        }
    }
    let mut views = HashMap::new();
    for (s, map) in sources.iter().zip(maps) {
        let key = (s.dir.name.topic.as_str(), s.dir.name.partition);
        let Some(offsets) = committed.get(&key) else {
            continue;
        };
        let facts = source_facts(set, s.dir);
        let (target_start, predicted_from) = start_of(s);
        let mut view = SourceView {
            name: s.name(),
            map,
            target_topic: target_topic(&s.dir.name.topic),
            target_partition: s.dir.name.partition,
            target_start,
            log_start: facts.log_start_offset,
            log_end: facts.log_end_offset,
            offsets: sel.offsets,
            predicted_from,
            reasons: BTreeMap::new(),
        };
        let needed = view.offsets_needing_reasons(offsets.iter().copied());
        view.reasons = s
            .not_sent(&needed, sel, scratch)
            .with_context(|| format!("reading {}", s.dir.path.display()))?;
        views.insert((key.0.to_string(), key.1), view);
    }
    Ok(views)
}

/// `--offset-map FILE`: one JSON line per source partition — its target topic, the last
/// source offset acknowledged (every one before it too), whether the rescue is complete, and the
/// ranges `[first source offset, last source offset, target partition, first target offset]`;
/// written whole (a temporary file renamed over it).
fn write_offset_map(
    path: &Path,
    sources: &[Source<'_>],
    tracker: &Tracker,
    target_topic: &dyn Fn(&str) -> String,
    complete: bool,
) -> Result<()> {
    let tmp = path.with_extension("kseg-tmp");
    {
        let f =
            std::fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        let mut w = BufWriter::new(f);
        for (i, s) in sources.iter().enumerate() {
            serde_json::to_writer(
                &mut w,
                &json!({"source": s.name(), "topic": s.dir.name.topic,
                    "partition": s.dir.name.partition, "target": target_topic(&s.dir.name.topic),
                    "acknowledgedThrough": tracker.acknowledged_through(i as u32),
                    "complete": complete, "ranges": tracker.map(i as u32)}),
            )?;
            writeln!(w)?;
        }
        w.flush()?;
        w.get_ref().sync_all()?;
    }
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Under the table, for a source: where its records went (the ends of its offset map).
fn map_line(out: &mut impl Write, name: &str, target: &str, map: &RescueMap) -> io::Result<()> {
    let (Some(first), Some(last)) = (map.ranges().first(), map.last()) else {
        return Ok(());
    };
    let one = map.ranges().iter().all(|r| r.partition == first.partition);
    let where_ = if one {
        format!("{}-{}", esc(target), first.partition)
    } else {
        esc(target)
    };
    let n = map.ranges().len();
    writeln!(
        out,
        "{}: source offsets {}..{} are {where_} offsets {}..{} ({n} {}{}; --state and \
         --offset-map keep the whole map)",
        esc(name),
        first.first,
        last.last,
        first.target,
        last.target_last(),
        if n == 1 { "range" } else { "ranges" },
        if one && first.first == first.target && n == 1 {
            ", the same offsets"
        } else {
            ": offsets shift where records were not sent"
        }
    )
}

/// Configs a source topic's ConfigRecords may hold that are never taken into another cluster:
/// the replication throttles name the source cluster's brokers, and `internal.segment.bytes` is
/// Kafka's internal (test) setting, which DescribeConfigs does not list — tiny segments that
/// refuse the rescue's batches.
const NOT_CARRIED: [&str; 3] = [
    "leader.replication.throttled.replicas",
    "follower.replication.throttled.replicas",
    "internal.segment.bytes",
];

/// The topics `--create-topics` creates: each missing target topic with its source topic's
/// own configs (its ConfigRecords in the source's `__cluster_metadata`, less
/// `--skip-topic-config` and [`NOT_CARRIED`]) under `--topic-config`, and how to say so.
fn new_topic_specs(
    args: &RescueArgs,
    set: &DataSet,
    sources: &BTreeSet<&str>,
    missing: &[(String, i32)],
    topic_map: &BTreeMap<String, String>,
    extra: &BTreeMap<String, String>,
) -> Vec<(NewTopicSpec, String)> {
    let metadata = internal_partitions(set, "__cluster_metadata");
    let mut recorded: HashMap<String, BTreeMap<String, String>> = HashMap::new();
    for m in &metadata {
        for (topic, configs) in topic_configs(m) {
            recorded.entry(topic).or_insert(configs);
        }
    }
    let target_of = |t: &str| topic_map.get(t).map_or(t, String::as_str).to_string();
    let show = |c: &BTreeMap<String, String>| {
        c.iter()
            .map(|(k, v)| esc(&format!("{k}={v}")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = Vec::new();
    for (name, partitions) in missing {
        let from: Vec<&str> = sources
            .iter()
            .copied()
            .filter(|s| &target_of(s) == name)
            .collect();
        let mut said: Vec<String> = Vec::new();
        let mut configs: BTreeMap<String, String> = BTreeMap::new();
        if let Some(src) = from.first() {
            match recorded.get(*src) {
                _ if metadata.is_empty() => said.push(format!(
                    "no configs of the source topic {} (no __cluster_metadata in the given paths \
                     or beside them: a ZooKeeper cluster's configs are not in its log dirs)",
                    esc(src)
                )),
                Some(c) => {
                    let mut taken: BTreeMap<String, String> = c.clone();
                    let left: Vec<String> = taken
                        .keys()
                        .filter(|k| {
                            NOT_CARRIED.contains(&k.as_str()) || args.skip_topic_config.contains(k)
                        })
                        .cloned()
                        .collect();
                    for k in &left {
                        taken.remove(k);
                    }
                    if taken.is_empty() {
                        said.push(format!("none of source topic {}'s configs", esc(src)));
                    } else {
                        said.push(format!(
                            "source topic {}'s configs {} (its __cluster_metadata)",
                            esc(src),
                            show(&taken)
                        ));
                    }
                    if !left.is_empty() {
                        said.push(format!("left out: {}", esc(&left.join(", "))));
                    }
                    configs = taken;
                }
                None => said.push(format!(
                    "no configs of source topic {} (its __cluster_metadata records none)",
                    esc(src)
                )),
            }
            for other in &from[1..] {
                if recorded.get(*other) != recorded.get(*src) {
                    said.push(format!(
                        "source topic {}'s configs differ and were not taken",
                        esc(other)
                    ));
                }
            }
        }
        if !extra.is_empty() {
            said.push(format!("--topic-config {}", show(extra)));
            configs.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        if configs.is_empty() {
            said.push("the target's defaults".to_string());
        }
        out.push((
            NewTopicSpec {
                name: name.clone(),
                partitions: *partitions,
                configs,
            },
            said.join("; "),
        ));
    }
    out
}

fn target_digest(r: &ReadRecord<'_>) -> u64 {
    content_digest(r.key, r.value, r.headers.iter().copied())
}

#[allow(clippy::too_many_arguments)]
fn dry_run(
    args: &RescueArgs,
    sources: &[Source<'_>],
    targets: &Targets,
    sel: Selection,
    partitioning: Partitioning,
    count_of: &dyn Fn(&str) -> i32,
    target_topic: &dyn Fn(&str) -> String,
    acknowledged_before: &dyn Fn(&str) -> Option<i64>,
    next: &mut HashMap<(String, i32), i64>,
    scratch: &mut RecordScratch,
    mut outcome: Outcome,
) -> Result<(Outcome, Vec<RescueMap>)> {
    let _ = targets;
    // With --groups (partition numbers kept), where each record would land.
    let mut predicted: Vec<RescueMap> = Vec::new();
    let stdout = io::stdout();
    let layout = Layout::detect(args.format, args.json);
    let mut out = layout.writer(BufWriter::new(stdout.lock()));
    let mut grid = Grid::new(&COLUMNS);
    let mut total = 0u64;
    let mut left: Vec<(String, Tally)> = Vec::new();
    for s in sources {
        let topic = target_topic(&s.dir.name.topic);
        let partitions = count_of(&topic);
        let mut to: BTreeMap<i32, u64> = BTreeMap::new();
        let mut map = RescueMap::default();
        let source_partition = s.dir.name.partition;
        let mut at = next.get(&(topic.clone(), source_partition)).copied();
        let tally = s.select(sel, acknowledged_before(&s.name()), scratch, |r| {
            let tp = partitioning.target(source_partition, r.key, partitions);
            *to.entry(tp).or_default() += 1;
            if let Some(a) = at.as_mut() {
                map.push(r.offset, tp, *a);
                *a += 1;
            }
            Ok(Flow::Continue)
        })?;
        if let Some(a) = at {
            next.insert((topic.clone(), source_partition), a);
        }
        predicted.push(map);
        total += tally.records;
        for msg in &tally.problems {
            crate::print::report_error(&s.dir.path, None, msg);
            outcome = outcome.worst(Outcome::DataProblems);
        }
        if args.json {
            serde_json::to_writer(
                &mut out,
                &json!({"type": "plan", "source": s.name(), "target": topic,
                    "records": tally.records, "bytes": tally.bytes,
                    "acknowledgedBefore": tally.already_acknowledged,
                    "firstOffset": tally.first_offset, "lastOffset": tally.last_offset,
                    "targetPartitions": to,
                    "abortedRecords": tally.aborted_records, "openRecords": tally.open_records,
                    "controlBatches": tally.control_batches,
                    "outsideTimestamps": tally.outside_timestamps,
                    "badCrcRecords": tally.bad_crc_records, "problems": tally.problems}),
            )?;
            writeln!(out)?;
        } else {
            grid.row(vec![
                esc(&s.name()),
                esc(&topic),
                tally.records.to_string(),
                tally.already_acknowledged.to_string(),
                tally.first_offset.map_or("-".into(), |o| o.to_string()),
                tally.last_offset.map_or("-".into(), |o| o.to_string()),
                tally.aborted_records.to_string(),
                tally.open_records.to_string(),
                to.iter()
                    .map(|(p, n)| format!("{p}:{n}"))
                    .collect::<Vec<_>>()
                    .join(","),
            ]);
            left.push((s.name(), tally));
        }
    }
    if !args.json {
        grid.write(&mut out, layout)?;
        if layout.prose() {
            for (name, tally) in &left {
                left_out(&mut out, name, tally)?;
            }
            writeln!(
                out,
                "dry run: {total} records would be sent; nothing was sent"
            )?;
        }
    }
    out.flush()?;
    Ok((outcome, predicted))
}

/// Under the table, for a source: the records not sent and why (JSON's `abortedRecords`,
/// `openRecords`, `controlBatches`, `outsideTimestamps`, `badCrcRecords`) and its problems.
fn left_out(out: &mut impl Write, name: &str, t: &Tally) -> io::Result<()> {
    let mut parts: Vec<String> = Vec::new();
    if t.bad_crc_records > 0 {
        parts.push(format!(
            "{} records of batches failing their checksum",
            t.bad_crc_records
        ));
    }
    if t.aborted_records > 0 {
        parts.push(format!("{} aborted", t.aborted_records));
    }
    if t.open_records > 0 {
        parts.push(format!("{} of open transactions", t.open_records));
    }
    if t.outside_timestamps > 0 {
        parts.push(format!(
            "{} outside --from-timestamp/--to-timestamp",
            t.outside_timestamps
        ));
    }
    if t.control_batches > 0 {
        parts.push(format!(
            "{} control batches (transaction markers)",
            t.control_batches
        ));
    }
    if !parts.is_empty() {
        writeln!(out, "{}: not sent: {}.", esc(name), parts.join(", "))?;
    }
    for p in &t.problems {
        writeln!(out, "{}: problem: {}", esc(name), esc(p))?;
    }
    Ok(())
}

/// The offset a previous run's `--state` says was acknowledged for a source, if any.
fn acknowledged_before_of(previous: &Option<ResumeState>, name: &str) -> Option<i64> {
    previous
        .as_ref()
        .and_then(|s| s.acknowledged.get(name).copied())
}

#[derive(Debug, Default)]
struct Verified {
    matched: u64,
    mismatched: u64,
    missing: u64,
    extra: u64,
    first: Option<String>,
}

impl Verified {
    fn ok(&self) -> bool {
        self.mismatched == 0 && self.missing == 0 && self.extra == 0
    }
}

/// Reads every target partition back from where the rescue began writing it and compares it,
/// record by record, with what the sources send there.
#[allow(clippy::too_many_arguments)]
fn verify(
    conn: &Connection,
    sources: &[Source<'_>],
    targets: &Targets,
    tracker: &Tracker,
    plan: &str,
    sel: Selection,
    partitioning: Partitioning,
    count_of: &dyn Fn(&str) -> i32,
    target_topic: &dyn Fn(&str) -> String,
    scratch: &mut RecordScratch,
) -> Result<Vec<(String, Verified)>> {
    let reader = Reader::new(conn, true)?;
    let state = tracker.state(plan);
    let mut out = Vec::new();
    for (ti, (t, p)) in targets.names.iter().enumerate() {
        let name = format!("{t}-{p}");
        let start = state.targets.get(&name).map_or(0, |g| g.start);
        let mut got: VecDeque<(i64, u64, Option<i64>)> = VecDeque::new();
        reader.read(t, *p, start, |r| {
            got.push_back((r.offset, target_digest(r), r.create_time));
            Ok(())
        })?;
        let mut v = Verified::default();
        for s in sources {
            let topic = target_topic(&s.dir.name.topic);
            if &topic != t {
                continue;
            }
            let partitions = count_of(&topic);
            s.select(sel, None, scratch, |r| {
                let tp = partitioning.target(s.dir.name.partition, r.key, partitions);
                if targets.of(&topic, tp) as usize != ti {
                    return Ok(Flow::Continue);
                }
                match got.pop_front() {
                    None => {
                        v.missing += 1;
                        v.first.get_or_insert_with(|| {
                            format!("{} offset {} is not in the target", s.name(), r.offset)
                        });
                    }
                    Some((at, digest, ts)) => {
                        let want_ts = sent_timestamp(r);
                        let ts_ok = match (ts, want_ts) {
                            (Some(a), Some(b)) => a == b,
                            _ => true,
                        };
                        if digest == record_digest(r) && ts_ok {
                            v.matched += 1;
                        } else {
                            v.mismatched += 1;
                            v.first.get_or_insert_with(|| {
                                format!(
                                    "{} offset {} differs from {name} offset {at} ({})",
                                    s.name(),
                                    r.offset,
                                    if ts_ok {
                                        "key, value or headers"
                                    } else {
                                        "timestamp"
                                    }
                                )
                            });
                        }
                    }
                }
                Ok(Flow::Continue)
            })?;
        }
        v.extra = got.len() as u64;
        if let Some((at, _, _)) = got.front() {
            v.first.get_or_insert_with(|| {
                format!("{name} offset {at} is not a record of the sources")
            });
        }
        out.push((name, v));
    }
    Ok(out)
}
