//! `kseg retention` output: the verdict per log dir first, then one row per partition, one per
//! run of segments that share a fate, and the configs assumed; `--json` objects keep the names
//! scripts rely on (`deleteSegments`, `logStartOffsetAfter`, `bytesFreed`, `blockedBy`).

use std::io::{self, Write};

use serde_json::{json, Map, Value};

use super::table::{col, Col, Column, Grid, Layout};
use super::words::{config_source, human_bytes, human_span, long_span, thousands};
use kseg_analysis::retention::{
    BlockReason, Blocker, CheckedBy, Deletable, Deletion, DirState, Kept, KeptReason, Largest,
    LogDirRetention, LogStartSource, NotChecked, PartitionRetention, RetentionNote,
    RetentionReport, Rule, TimestampSource,
};
use kseg_analysis::topic_configs::{
    BrokerLogConfig, ConfigEntry, ConfigSource, ConfigValue, EffectiveLogConfig,
};
use kseg_time::rfc3339_ms;

pub(crate) fn escape(s: &str) -> String {
    let mut v = Vec::new();
    let _ = kseg_escape::write_escaped(&mut v, s.as_bytes());
    String::from_utf8_lossy(&v).into_owned()
}

/// The topic configs the retention rules use.
const TOPIC_CONFIGS: [&str; 6] = [
    "cleanup.policy",
    "retention.ms",
    "retention.bytes",
    "message.timestamp.after.max.ms",
    "file.delete.delay.ms",
    "remote.storage.enable",
];

/// The broker configs deciding who runs the rules and when.
const BROKER_CONFIGS: [&str; 5] = [
    "log.retention.check.interval.ms",
    "log.initial.task.delay.ms",
    "log.cleaner.enable",
    "log.cleaner.backoff.ms",
    "remote.log.storage.system.enable",
];

fn chosen(entries: Vec<ConfigEntry>, names: &[&str]) -> Vec<ConfigEntry> {
    names
        .iter()
        .filter_map(|n| entries.iter().find(|e| e.name == *n).cloned())
        .collect()
}

fn topic_entries(c: &EffectiveLogConfig) -> Vec<ConfigEntry> {
    chosen(c.entries(), &TOPIC_CONFIGS)
}

fn broker_entries(b: &BrokerLogConfig) -> Vec<ConfigEntry> {
    chosen(b.entries(), &BROKER_CONFIGS)
}

fn value_text(v: &ConfigValue) -> String {
    match v {
        ConfigValue::Number(n) => n.to_string(),
        ConfigValue::Ratio(r) => r.to_string(),
        ConfigValue::Flag(b) => b.to_string(),
        ConfigValue::Text(t) => t.clone(),
    }
}

/// `retention.ms=604800000 (Kafka's default)`, `retention.ms=3600000 (--config
/// log.retention.hours)`.
pub(crate) fn entry_text(e: &ConfigEntry) -> String {
    let via = e.via.map(|v| format!(" {v}")).unwrap_or_default();
    format!(
        "{}={} ({}{via})",
        e.name,
        escape(&value_text(&e.value)),
        config_source(e.source)
    )
}

fn configs_json(entries: &[ConfigEntry]) -> Value {
    let mut m = Map::new();
    for e in entries {
        m.insert(
            e.name.to_string(),
            json!({"value": e.value, "source": e.source, "via": e.via}),
        );
    }
    Value::Object(m)
}

fn rule_words(r: Rule) -> &'static str {
    match r {
        Rule::LogStartOffset => "below the log start offset",
        Rule::RetentionSize => "retention.bytes",
        Rule::RetentionTime => "retention.ms",
    }
}

fn source_words(s: TimestampSource) -> &'static str {
    match s {
        TimestampSource::TimeIndex => "time index",
        TimestampSource::Batches => "batches",
        TimestampSource::ModifiedTime => ".log mtime",
    }
}

fn not_checked_words(n: NotChecked) -> &'static str {
    match n {
        NotChecked::CleanerDisabled => {
            "nobody: compact in cleanup.policy and log.cleaner.enable=false (only the cleaner \
             runs retention on compacted topics)"
        }
        NotChecked::TieredStorage => "tiered storage: its rules need the remote log (not modelled)",
        NotChecked::PendingDelete => "nobody: the topic was deleted, the whole dir goes",
        NotChecked::Stray => "nobody: a stray log, no longer this broker's",
        NotChecked::ClusterMetadata => "nobody: KRaft's metadata log, trimmed by its snapshots",
    }
}

fn checked_by_words(c: CheckedBy) -> &'static str {
    match c {
        CheckedBy::RetentionCheck => "the retention check",
        CheckedBy::Cleaner => "the log cleaner's threads, after their cleaning",
        CheckedBy::Nobody(n) => not_checked_words(n),
    }
}

fn block_words(r: BlockReason) -> &'static str {
    match r {
        BlockReason::FutureTimestamp => "a future timestamp",
        BlockReason::HighWatermark => "the high watermark",
        BlockReason::ModifiedTime => "a segment judged by its .log mtime",
        BlockReason::NotExpired => "an older segment inside retention.ms",
        BlockReason::CleanerDisabled => "the disabled log cleaner",
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn name(p: &PartitionRetention) -> String {
    escape(&format!("{}-{}", p.topic, p.partition))
}

fn time_or_dash(t: Option<i64>) -> String {
    t.map_or("-".into(), rfc3339_ms)
}

/// One blocker in a sentence.
fn blocker_text(p: &PartitionRetention, b: &Blocker, now: i64) -> String {
    let held = if b.bytes > 0 {
        format!("holds back {} of expired segments", human_bytes(b.bytes))
    } else {
        "holds nothing expired back yet".to_string()
    };
    let segment = b.segment.map_or(String::new(), |s| format!("segment {s}"));
    match b.reason {
        BlockReason::FutureTimestamp => {
            let t = b.timestamp.unwrap_or_default();
            let until = p
                .kept
                .iter()
                .find(|k| Some(k.segment) == b.segment)
                .and_then(|k| match k.deletable {
                    Deletable::At(t) | Deletable::NotBefore(t) => Some(rfc3339_ms(t)),
                    Deletable::Never => None,
                })
                .map(|t| format!(", until {t}"))
                .unwrap_or_default();
            let from_mtime = p.kept.iter().any(|k| {
                Some(k.segment) == b.segment && k.largest.source == TimestampSource::ModifiedTime
            });
            if from_mtime {
                // No timestamp in the segment: Kafka's largest timestamp is the .log's mtime.
                format!(
                    "the .log of {segment} has no timestamp and was modified at {} ({} ahead) {held}{until}",
                    rfc3339_ms(t),
                    long_span(t.saturating_sub(now)),
                )
            } else {
                format!(
                    "a record stamped {} ({} ahead; offset {}, {segment}) {held}{until}",
                    rfc3339_ms(t),
                    long_span(t.saturating_sub(now)),
                    b.offset.map_or("?".into(), |o| o.to_string()),
                )
            }
        }
        BlockReason::HighWatermark => format!(
            "the high watermark {} is below the end of {segment}: it {held} until replication \
             catches up",
            b.offset.map_or("?".into(), |o| o.to_string())
        ),
        BlockReason::ModifiedTime => format!(
            "{segment} has no timestamp in its time index and is judged by its .log mtime {} \
             (a copied or restored file has a fresh one): it {held}",
            time_or_dash(b.timestamp)
        ),
        BlockReason::NotExpired => format!(
            "{segment} is inside retention.ms (largest timestamp {}, offset {}): it {held} \
             stamped earlier",
            time_or_dash(b.timestamp),
            b.offset.map_or("?".into(), |o| o.to_string())
        ),
        BlockReason::CleanerDisabled => format!(
            "log.cleaner.enable=false: nothing runs retention on this compacted topic; the \
             check would delete from {segment} ({})",
            human_bytes(b.bytes)
        ),
    }
}

/// A blocker in one short note (`kseg summary`'s NOTES).
pub fn blocker_note(b: &Blocker) -> String {
    let at = |what: &str| {
        let mut parts = Vec::new();
        if let Some(s) = b.segment {
            parts.push(format!("segment {s}"));
        }
        if let Some(o) = b.offset {
            parts.push(format!("{what} {o}"));
        }
        if let Some(t) = b.timestamp {
            parts.push(rfc3339_ms(t));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        }
    };
    let held = if b.bytes > 0 {
        format!(", holding back {}", human_bytes(b.bytes))
    } else {
        String::new()
    };
    let what = match b.reason {
        BlockReason::FutureTimestamp => format!("a future timestamp{}", at("offset")),
        BlockReason::HighWatermark => format!("the high watermark{}", at("at")),
        BlockReason::ModifiedTime => format!("a segment judged by its .log mtime{}", at("offset")),
        BlockReason::NotExpired => format!("an older segment inside retention.ms{}", at("offset")),
        BlockReason::CleanerDisabled => {
            format!(
                "log.cleaner.enable=false on a compacted topic{}",
                at("offset")
            )
        }
    };
    format!(
        "{}retention blocked by {what}{held} (kseg retention)",
        if b.problem { "PROBLEM: " } else { "" }
    )
}

fn state_words(s: DirState) -> &'static str {
    match s {
        DirState::Clean => "shut down cleanly",
        DirState::Live => "a broker holds it: its memory may be seconds ahead of the checkpoints",
        DirState::Crashed => {
            "not shut down cleanly: Kafka recovers it first (kseg verify-index says how)"
        }
        DirState::Unknown => "outside a log dir",
    }
}

/// The answer first: per log dir, what the next check frees and what blocks.
pub fn verdict_text(out: &mut impl Write, r: &RetentionReport, now_given: bool) -> io::Result<()> {
    writeln!(
        out,
        "Retention at {}{}",
        rfc3339_ms(r.now),
        if now_given {
            ""
        } else {
            " (the wall clock; --now T for another instant)"
        }
    )?;
    for d in &r.log_dirs {
        let mine: Vec<&PartitionRetention> = r
            .partitions
            .iter()
            .filter(|p| p.log_dir.as_deref() == Some(d.path.as_path()))
            .collect();
        dir_verdict(out, d, &mine, r.now)?;
    }
    let loose: Vec<&PartitionRetention> = r
        .partitions
        .iter()
        .filter(|p| p.log_dir.is_none())
        .collect();
    if !loose.is_empty() {
        let freed: u64 = loose.iter().map(|p| p.bytes_freed).sum();
        let n: usize = loose.iter().map(|p| p.deletions.len()).sum();
        writeln!(
            out,
            "{} partition dir{} outside a log dir: the next check deletes {n} segment{} ({})",
            loose.len(),
            plural(loose.len()),
            plural(n),
            human_bytes(freed)
        )?;
        problems(out, &loose, r.now)?;
    }
    Ok(())
}

fn dir_verdict(
    out: &mut impl Write,
    d: &LogDirRetention,
    mine: &[&PartitionRetention],
    now: i64,
) -> io::Result<()> {
    let broker = d
        .node_id
        .map(|n| format!("broker {n}, "))
        .unwrap_or_default();
    writeln!(
        out,
        "{} ({broker}{}): the next check deletes {} segment{} of {} partition{}, freeing {} of {}",
        escape(&d.path.display().to_string()),
        state_words(d.state),
        thousands(d.segments_deleted as u64),
        plural(d.segments_deleted),
        d.partitions_deleting,
        plural(d.partitions_deleting),
        human_bytes(d.bytes_freed),
        human_bytes(d.bytes),
    )?;
    if d.zookeeper_mode {
        writeln!(
            out,
            "  ZooKeeper mode (meta.properties version 0): topic configs are not in this dir; \
             each topic is judged by --topic-config or --topic-configs-file, else --config, \
             else Kafka 4.4's defaults (below)"
        )?;
    }
    if d.blocked.is_empty() {
        writeln!(out, "  nothing blocks retention")?;
    } else {
        let parts: Vec<String> = d
            .blocked
            .iter()
            .map(|(r, (bytes, n))| {
                format!(
                    "{} by {} ({n} partition{})",
                    human_bytes(*bytes),
                    block_words(*r),
                    plural(*n)
                )
            })
            .collect();
        writeln!(out, "  blocked: {}", parts.join("; "))?;
    }
    let check = &d.broker.retention_check_interval_ms;
    let cleaner = &d.broker.cleaner_enable;
    writeln!(
        out,
        "  checks every {} (log.retention.check.interval.ms: {}); log cleaner {} \
         (log.cleaner.enable: {})",
        human_span(check.value),
        config_source(check.source),
        if cleaner.value { "on" } else { "OFF" },
        config_source(cleaner.source)
    )?;
    if d.pending_deletion > 0 {
        writeln!(
            out,
            "  {} of segments already deleted wait out file.delete.delay.ms (.deleted files)",
            human_bytes(d.pending_deletion)
        )?;
    }
    problems(out, mine, now)
}

/// The blockers of each partition, problems first.
fn problems(out: &mut impl Write, parts: &[&PartitionRetention], now: i64) -> io::Result<()> {
    for problem in [true, false] {
        for p in parts {
            for b in p.blocked_by.iter().filter(|b| b.problem == problem) {
                writeln!(
                    out,
                    "  {}{}: {}",
                    if problem { "PROBLEM " } else { "" },
                    name(p),
                    escape(&blocker_text(p, b, now))
                )?;
            }
        }
    }
    Ok(())
}

const PARTITION_COLUMNS: [Column; 10] = [
    col("TOPIC", Col::Id, 0).key(),
    col("PART", Col::Num, 0).key(),
    col("POLICY", Col::Whole, 3),
    col("RETENTION.MS", Col::Num, 2),
    col("RETENTION.BYTES", Col::Num, 2),
    col("SEGS", Col::Num, 4),
    col("DELETES", Col::Num, 0),
    col("FREES", Col::Num, 1),
    col("LOG START", Col::Whole, 1),
    col("NOTES", Col::Prose, 0),
];

fn partition_notes(p: &PartitionRetention) -> Vec<String> {
    let mut notes = Vec::new();
    if p.checked_by != CheckedBy::RetentionCheck {
        notes.push(format!("checked by {}", checked_by_words(p.checked_by)));
    }
    if let Some(at) = p.rolled_at {
        notes.push(format!(
            "every segment goes: Kafka first rolls a new empty one at {at}"
        ));
    }
    if let (Some(hw), Some(leo)) = (p.high_watermark, p.log_end_offset) {
        if hw < leo {
            notes.push(format!("high watermark {hw} behind the log end {leo}"));
        }
    }
    for n in &p.notes {
        notes.push(match n {
            RetentionNote::HighWatermarkAssumed => {
                "no replication-offset-checkpoint entry: high watermark taken at the log end"
                    .to_string()
            }
            RetentionNote::ModifiedTimes { segments, newest } => format!(
                "{segments} kept segment{} judged by .log mtime (newest {})",
                if *segments == 1 { "" } else { "s" },
                rfc3339_ms(*newest)
            ),
            RetentionNote::Unreadable { file, error } => {
                format!("cannot read {}: {error}", file.display())
            }
            RetentionNote::PendingDeletion { bytes } => {
                format!("{} in .deleted files", human_bytes(*bytes))
            }
        });
    }
    notes
}

/// One row per partition.
pub fn partitions_table(
    out: &mut impl Write,
    r: &RetentionReport,
    layout: Layout,
) -> io::Result<()> {
    let mut t = Grid::new(&PARTITION_COLUMNS);
    for p in &r.partitions {
        let c = &p.config;
        // Logs the retention rules do not govern show no policy.
        let governed = !matches!(
            p.checked_by,
            CheckedBy::Nobody(
                NotChecked::ClusterMetadata | NotChecked::PendingDelete | NotChecked::Stray
            )
        );
        let shown = |v: String| if governed { v } else { "-".to_string() };
        t.row(vec![
            escape(&p.topic),
            p.partition.to_string(),
            shown(c.cleanup_policy.value.as_str().to_string()),
            shown(c.retention_ms.value.to_string()),
            shown(c.retention_bytes.value.to_string()),
            p.segments.to_string(),
            p.deletions.len().to_string(),
            p.bytes_freed.to_string(),
            if p.log_start_offset_after != p.log_start_offset {
                format!("{} -> {}", p.log_start_offset, p.log_start_offset_after)
            } else {
                p.log_start_offset.to_string()
            },
            escape(&partition_notes(p).join("; ")),
        ]);
    }
    t.write(out, layout)
}

const SEGMENT_COLUMNS: [Column; 8] = [
    col("TOPIC", Col::Id, 0).key(),
    col("PART", Col::Num, 0).key(),
    col("SEGMENTS", Col::Whole, 0).key(),
    col("BYTES", Col::Num, 2),
    col("LARGEST TIMESTAMP", Col::Time, 1),
    col("FROM", Col::Whole, 3),
    col("NEXT CHECK", Col::Prose, 0),
    col("DELETABLE AT", Col::Time, 0),
];

fn kept_words(p: &PartitionRetention, k: &Kept) -> String {
    let mut s = match k.reason {
        KeptReason::NotChecked => match p.checked_by {
            CheckedBy::Nobody(n) => format!("keep: {}", not_checked_words(n)),
            _ => "keep".to_string(),
        },
        KeptReason::NoDeletePolicy => format!(
            "keep: cleanup.policy={} deletes nothing by time or size",
            p.config.cleanup_policy.value.as_str()
        ),
        KeptReason::NoTimeLimit => {
            "keep: retention.ms=-1 and retention.bytes not exceeded by it".to_string()
        }
        KeptReason::HighWatermark {
            high_watermark,
            upper,
        } => format!(
            "keep: the high watermark {high_watermark} is below its end{}",
            upper.map(|u| format!(" {u}")).unwrap_or_default()
        ),
        KeptReason::EmptyActive => "keep: the empty active segment".to_string(),
        KeptReason::FutureTimestamp => "keep: its largest timestamp is in the future".to_string(),
        KeptReason::WithinRetention => "keep: inside retention.ms".to_string(),
        KeptReason::Behind { segment } => format!("keep: expired, but behind segment {segment}"),
    };
    if !k.largest.exact {
        s.push_str(" (a live or recovered segment: its largest timestamp may be later)");
    }
    if k.segment == p.kept.last().map_or(-1, |l| l.segment)
        && matches!(k.deletable, Deletable::NotBefore(_))
    {
        s.push_str("; the active segment goes only with the high watermark at the log end, later if records arrive");
    }
    s
}

fn deletable_text(d: Deletable) -> String {
    match d {
        Deletable::At(t) | Deletable::NotBefore(t) => rfc3339_ms(t),
        Deletable::Never => "never".into(),
    }
}

fn range_text(first: i64, last: i64, n: usize) -> String {
    if n == 1 {
        first.to_string()
    } else {
        format!("{first}..{last} ({n})")
    }
}

/// A run of segments with one fate, for the table: (first, last, count, bytes, newest largest,
/// its source, words, deletable at of the last).
struct Run {
    first: i64,
    last: i64,
    n: usize,
    bytes: u64,
    largest: Option<Largest>,
    words: String,
    deletable: String,
}

fn runs(p: &PartitionRetention, grouped: bool) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    let mut push =
        |first: i64, bytes: u64, largest: Option<Largest>, words: String, deletable: String| {
            if let Some(r) = out.last_mut().filter(|r| grouped && r.words == words) {
                r.last = first;
                r.n += 1;
                r.bytes += bytes;
                if largest.as_ref().map(|l| l.timestamp) > r.largest.as_ref().map(|l| l.timestamp) {
                    r.largest = largest;
                }
                r.deletable = deletable;
                return;
            }
            out.push(Run {
                first,
                last: first,
                n: 1,
                bytes,
                largest,
                words,
                deletable,
            });
        };
    for d in &p.deletions {
        push(
            d.segment,
            d.log_bytes,
            d.largest.clone(),
            format!("delete: {}", rule_words(d.rule)),
            "-".into(),
        );
    }
    for k in &p.kept {
        push(
            k.segment,
            k.log_bytes,
            Some(k.largest.clone()),
            kept_words(p, k),
            deletable_text(k.deletable),
        );
    }
    out
}

/// One row per run of segments sharing a fate (`grouped`), or per segment (TSV).
pub fn segments_table(out: &mut impl Write, r: &RetentionReport, layout: Layout) -> io::Result<()> {
    let grouped = layout != Layout::Tsv;
    let mut t = Grid::new(&SEGMENT_COLUMNS);
    for p in &r.partitions {
        for run in runs(p, grouped) {
            t.row(vec![
                escape(&p.topic),
                p.partition.to_string(),
                range_text(run.first, run.last, run.n),
                run.bytes.to_string(),
                time_or_dash(run.largest.as_ref().map(|l| l.timestamp)),
                run.largest
                    .as_ref()
                    .map_or("-", |l| source_words(l.source))
                    .to_string(),
                escape(&run.words),
                run.deletable,
            ]);
        }
    }
    t.write(out, layout)
}

/// The configs the answer assumed: the broker's, then each topic's that are not all Kafka's
/// defaults.
pub fn configs_text(out: &mut impl Write, r: &RetentionReport) -> io::Result<()> {
    let mut brokers: Vec<(String, &BrokerLogConfig)> = r
        .log_dirs
        .iter()
        .map(|d| (escape(&d.path.display().to_string()), &d.broker))
        .collect();
    if r.partitions.iter().any(|p| p.log_dir.is_none()) {
        brokers.push(("partition dirs outside a log dir".into(), &r.loose_broker));
    }
    for (what, b) in brokers {
        let e: Vec<String> = broker_entries(b).iter().map(entry_text).collect();
        writeln!(out, "Broker configs for {what}: {}", e.join(", "))?;
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut defaults_only = Vec::new();
    for p in &r.partitions {
        if !seen.insert(p.topic.clone()) {
            continue;
        }
        let e = topic_entries(&p.config);
        if e.iter().all(|e| e.source == ConfigSource::Default) {
            defaults_only.push(escape(&p.topic));
            continue;
        }
        let shown: Vec<String> = e.iter().map(entry_text).collect();
        writeln!(out, "Topic {}: {}", escape(&p.topic), shown.join(", "))?;
    }
    if !defaults_only.is_empty() {
        writeln!(
            out,
            "Kafka 4.4's defaults (retention.ms=604800000, retention.bytes=-1, \
             cleanup.policy=delete) for: {}",
            defaults_only.join(", ")
        )?;
    }
    for t in &r.unmatched_topic_flags {
        writeln!(
            out,
            "--topic-config {}: no partition of it was read",
            escape(t)
        )?;
    }
    Ok(())
}

fn largest_json(l: &Largest) -> Value {
    json!({"timestamp": l.timestamp, "source": l.source, "batchLastOffset": l.offset, "exact": l.exact})
}

fn deletion_json(d: &Deletion) -> Value {
    json!({"segment": d.segment, "rule": d.rule, "logBytes": d.log_bytes, "bytes": d.bytes,
        "largestTimestamp": d.largest.as_ref().map(largest_json)})
}

fn kept_json(k: &Kept) -> Value {
    let (deletable_at, not_before) = match k.deletable {
        Deletable::At(t) => (Some(t), false),
        Deletable::NotBefore(t) => (Some(t), true),
        Deletable::Never => (None, false),
    };
    json!({"segment": k.segment, "logBytes": k.log_bytes, "largestTimestamp": largest_json(&k.largest),
        "reason": k.reason, "deletableAt": deletable_at, "deletableAtLeast": not_before})
}

fn blocker_json(b: &Blocker) -> Value {
    json!({"reason": b.reason, "segment": b.segment, "offset": b.offset, "timestamp": b.timestamp,
        "bytes": b.bytes, "problem": b.problem})
}

fn note_json(n: &RetentionNote) -> Value {
    match n {
        RetentionNote::HighWatermarkAssumed => json!({"kind": "highWatermarkAssumed"}),
        RetentionNote::ModifiedTimes { segments, newest } => {
            json!({"kind": "modifiedTimes", "segments": segments, "newest": newest})
        }
        RetentionNote::Unreadable { file, error } => {
            json!({"kind": "unreadable", "file": file.display().to_string(), "error": error})
        }
        RetentionNote::PendingDeletion { bytes } => {
            json!({"kind": "pendingDeletion", "bytes": bytes})
        }
    }
}

/// `{"type": "retention", ...}`: one partition.
pub fn json_partition(out: &mut impl Write, p: &PartitionRetention) -> io::Result<()> {
    let v = json!({
        "type": "retention",
        "topic": p.topic,
        "partition": p.partition,
        "path": p.path.display().to_string(),
        "logDir": p.log_dir.as_ref().map(|d| d.display().to_string()),
        "checkedBy": p.checked_by,
        "configs": configs_json(&topic_entries(&p.config)),
        "logStartOffset": p.log_start_offset,
        "logStartOffsetSource": match p.log_start_source {
            LogStartSource::Checkpoint => "checkpoint",
            LogStartSource::FirstSegment => "firstSegment",
        },
        "highWatermark": p.high_watermark,
        "logEndOffset": p.log_end_offset,
        "segments": p.segments,
        "bytes": p.bytes,
        "deleteSegments": p.delete_segments(),
        "deletions": p.deletions.iter().map(deletion_json).collect::<Vec<_>>(),
        "rolledAt": p.rolled_at,
        "logStartOffsetAfter": p.log_start_offset_after,
        "bytesFreed": p.bytes_freed,
        "kept": p.kept.iter().map(kept_json).collect::<Vec<_>>(),
        "blockedBy": p.blocked_by.iter().map(blocker_json).collect::<Vec<_>>(),
        "notes": p.notes.iter().map(note_json).collect::<Vec<_>>(),
        "logBytesRead": p.log_bytes_read,
    });
    serde_json::to_writer(&mut *out, &v).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// `{"type": "logDir", ...}`: one log dir's totals (printed first: the verdict).
pub fn json_log_dir(out: &mut impl Write, d: &LogDirRetention) -> io::Result<()> {
    let blocked: Map<String, Value> = d
        .blocked
        .iter()
        .map(|(r, (bytes, n))| {
            (
                serde_json::to_value(r)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                json!({"bytes": bytes, "partitions": n}),
            )
        })
        .collect();
    let v = json!({
        "type": "logDir",
        "path": d.path.display().to_string(),
        "nodeId": d.node_id,
        "zookeeperMode": d.zookeeper_mode,
        "state": d.state,
        "partitions": d.partitions,
        "bytes": d.bytes,
        "bytesFreed": d.bytes_freed,
        "segmentsDeleted": d.segments_deleted,
        "partitionsDeleting": d.partitions_deleting,
        "blocked": blocked,
        "pendingDeletion": d.pending_deletion,
        "configs": configs_json(&broker_entries(&d.broker)),
    });
    serde_json::to_writer(&mut *out, &v).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// `{"type": "summary", ...}`: the instant, the totals and whether the answer is a problem.
pub fn json_summary(out: &mut impl Write, r: &RetentionReport) -> io::Result<()> {
    let v = json!({
        "type": "summary",
        "now": r.now,
        "partitions": r.partitions.len(),
        "segmentsDeleted": r.partitions.iter().map(|p| p.deletions.len()).sum::<usize>(),
        "bytesFreed": r.partitions.iter().map(|p| p.bytes_freed).sum::<u64>(),
        "blocked": r.partitions.iter().filter(|p| !p.blocked_by.is_empty()).count(),
        "problems": r.partitions.iter().filter(|p| p.problem()).count(),
        "logBytesRead": r.partitions.iter().map(|p| p.log_bytes_read).sum::<u64>(),
        "unmatchedTopicConfigs": r.unmatched_topic_flags,
    });
    serde_json::to_writer(&mut *out, &v).map_err(io::Error::from)?;
    out.write_all(b"\n")
}
