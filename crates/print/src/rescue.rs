//! `kseg rescue`'s words: the plan and report tables (and their NDJSON), what was left out and
//! where records went, the target check's findings, the state file's mismatches, verification,
//! and the `--groups` translation. Nothing here decides anything: the values come from
//! `analysis::rescue` and `analysis::rescue_map`.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde_json::json;

use crate::escape::escaped as esc;
use crate::table::{col, Col, Column, Grid, Layout};
use crate::words::translation_why;
use kseg_analysis::rescue::check::{Future, Refusal, RefusedAhead, SourceCheck, TooOld};
use kseg_analysis::rescue::topics::{ConfigNote, NewTopic};
use kseg_analysis::rescue::verify::{Difference, Verified};
use kseg_analysis::rescue::{PlanError, SendReport, StateMismatch, Tally};
use kseg_analysis::rescue_map::{
    GroupOffset, GroupTranslation, MapFault, MapRange, RescueMap, Translated,
};

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

fn offset_cell(o: Option<i64>) -> String {
    o.map_or("-".into(), |o| o.to_string())
}

fn time(ms: i64) -> String {
    kseg_time::rfc3339_ms(ms)
}

// ---- the plan (a dry run) -------------------------------------------------------------------

/// One source partition of a dry run.
pub struct PlanRow<'a> {
    pub source: &'a str,
    pub target: &'a str,
    pub tally: &'a Tally,
    /// Target partition -> records that would go there.
    pub to: &'a BTreeMap<i32, u64>,
}

/// A dry run's table (or NDJSON `plan` objects), what each source leaves out, and the total.
pub fn plan(
    out: &mut impl Write,
    layout: Layout,
    json: bool,
    rows: &[PlanRow<'_>],
) -> io::Result<()> {
    let mut grid = Grid::new(&COLUMNS);
    let mut total = 0u64;
    for r in rows {
        let t = r.tally;
        total += t.records;
        if json {
            serde_json::to_writer(
                &mut *out,
                &json!({"type": "plan", "source": r.source, "target": r.target,
                    "records": t.records, "bytes": t.bytes,
                    "acknowledgedBefore": t.already_acknowledged,
                    "firstOffset": t.first_offset, "lastOffset": t.last_offset,
                    "targetPartitions": r.to,
                    "abortedRecords": t.aborted_records, "openRecords": t.open_records,
                    "controlBatches": t.control_batches,
                    "outsideTimestamps": t.outside_timestamps,
                    "badCrcRecords": t.bad_crc_records, "problems": t.problems}),
            )?;
            writeln!(out)?;
        } else {
            grid.row(vec![
                esc(r.source),
                esc(r.target),
                t.records.to_string(),
                t.already_acknowledged.to_string(),
                offset_cell(t.first_offset),
                offset_cell(t.last_offset),
                t.aborted_records.to_string(),
                t.open_records.to_string(),
                r.to.iter()
                    .map(|(p, n)| format!("{p}:{n}"))
                    .collect::<Vec<_>>()
                    .join(","),
            ]);
        }
    }
    if !json {
        grid.write(out, layout)?;
        if layout.prose() {
            for r in rows {
                left_out(out, r.source, r.tally)?;
            }
            writeln!(
                out,
                "dry run: {total} records would be sent; nothing was sent"
            )?;
        }
    }
    Ok(())
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

// ---- the report ----------------------------------------------------------------------------

/// One source partition of the report.
pub struct SentRow<'a> {
    pub source: &'a str,
    pub target: &'a str,
    pub map: &'a RescueMap,
}

/// The report's table (or NDJSON `rescued` objects), what each source left out, where its
/// records went, and the summary line (NDJSON `summary`).
pub fn report(
    out: &mut impl Write,
    layout: Layout,
    json: bool,
    rows: &[SentRow<'_>],
    r: &SendReport,
) -> io::Result<()> {
    let mut grid = Grid::new(&COLUMNS);
    for (row, s) in rows.iter().zip(&r.sources) {
        let t = &s.tally;
        let sent = t.records - s.resumed;
        if json {
            let mut v = json!({"type": "rescued", "source": row.source, "target": row.target,
                "sent": sent, "resumed": s.resumed,
                "acknowledgedBefore": t.already_acknowledged,
                "firstOffset": t.first_offset, "lastOffset": t.last_offset,
                "bytes": t.bytes, "targetPartitions": s.to,
                "abortedRecords": t.aborted_records, "openRecords": t.open_records,
                "controlBatches": t.control_batches,
                "outsideTimestamps": t.outside_timestamps,
                "badCrcRecords": t.bad_crc_records, "problems": t.problems,
                "offsetMapRanges": row.map.ranges().len()});
            if let Some(refused) = &s.refused {
                v["refused"] = json!({"offset": refused.offset, "error": refused.error,
                    "landedAfter": s.landed_after.len()});
            }
            serde_json::to_writer(&mut *out, &v)?;
            writeln!(out)?;
        } else {
            grid.row(vec![
                esc(row.source),
                esc(row.target),
                sent.to_string(),
                (s.resumed + t.already_acknowledged).to_string(),
                offset_cell(t.first_offset),
                offset_cell(t.last_offset),
                t.aborted_records.to_string(),
                t.open_records.to_string(),
                s.to.keys()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            ]);
        }
    }
    if !json {
        grid.write(out, layout)?;
        if layout.prose() {
            for (row, s) in rows.iter().zip(&r.sources) {
                left_out(out, row.source, &s.tally)?;
                map_line(out, row.source, row.target, row.map)?;
            }
        }
    }
    if json {
        serde_json::to_writer(
            &mut *out,
            &json!({"type": "summary", "sent": r.sent, "bytes": r.bytes,
                "acknowledged": r.acknowledged, "refused": r.refused,
                "unacknowledged": r.unacknowledged,
                "resumeMatched": r.resume_matched, "foreignRecords": r.foreign,
                "seconds": r.seconds, "recordsPerSecond": r.rate(),
                "error": r.error}),
        )?;
        writeln!(out)?;
    } else if layout.prose() {
        writeln!(
            out,
            "{} records sent ({} bytes of keys, values and headers) in {:.1} s, {} records/s; {} \
             acknowledged{}",
            r.sent,
            r.bytes,
            r.seconds,
            r.rate(),
            r.acknowledged,
            if r.refused > 0 {
                format!(", {} refused by the target", r.refused)
            } else {
                String::new()
            }
        )?;
    }
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

/// `--offset-map`'s line for a source partition.
pub struct OffsetMapLine<'a> {
    pub source: &'a str,
    pub topic: &'a str,
    pub partition: i32,
    pub target: &'a str,
    pub acknowledged_through: Option<i64>,
    pub complete: bool,
    pub map: &'a RescueMap,
}

pub fn offset_map_line(out: &mut impl Write, l: &OffsetMapLine<'_>) -> io::Result<()> {
    serde_json::to_writer(
        &mut *out,
        &json!({"source": l.source, "topic": l.topic,
            "partition": l.partition, "target": l.target,
            "acknowledgedThrough": l.acknowledged_through,
            "complete": l.complete, "ranges": l.map}),
    )?;
    writeln!(out)
}

/// Records in the targets past the resume point that are no record of this rescue in order.
pub fn foreign_records(n: u64, after_refusal: bool) -> String {
    if after_refusal {
        format!(
            "{n} records in the targets after the resume point were not matched in order: copies \
             of records that landed after the record the target refused in the last run (or \
             another producer's); left as they are, and the records from the refused one on \
             were sent again after them, in order"
        )
    } else {
        format!(
            "{n} records in the targets after the resume point are not records of this rescue \
             (another producer wrote there?); they were left as they are"
        )
    }
}

// ---- the check -------------------------------------------------------------------------------

/// Why no plan could be made.
pub fn plan_error(e: &PlanError) -> String {
    match e {
        PlanError::GroupsNeedSamePartitions => "--groups with --partitioner murmur2: the records \
             of one source partition are spread over every target partition, so a committed \
             offset has no one place in the target; rescue with --partitioner same to translate \
             group offsets"
            .to_string(),
        PlanError::Twice {
            topic,
            partition,
            first,
            second,
        } => format!(
            "{topic}-{partition} is given twice ({} and {}): rescue one copy of a partition",
            first.display(),
            second.display()
        ),
        PlanError::NoTopicMatched { topics } => format!(
            "no partition to rescue: --topic/--exclude-topic leave none of the source topics ({})",
            esc(&topics.join(", "))
        ),
        PlanError::NothingToRescue => "no partition to rescue in the given paths".to_string(),
        PlanError::InternalTarget(words) => words.clone(),
    }
}

/// A record the target refuses, in words (`a record of 2,000,061 bytes ...`).
pub fn refusal(why: &Refusal, topic: &str) -> String {
    let topic = esc(topic);
    match why {
        Refusal::TooLarge {
            batch_bytes,
            limit,
            config,
        } => format!(
            "a batch of this record alone is {batch_bytes} bytes, over target topic {topic}'s \
             {}={limit} ({})",
            config.name(),
            match config.name() {
                "segment.bytes" => "RECORD_BATCH_TOO_LARGE",
                _ => "MESSAGE_TOO_LARGE",
            }
        ),
        Refusal::TimestampAhead {
            timestamp,
            after_max_ms,
        } => format!(
            "its timestamp {} is more than target topic {topic}'s \
             message.timestamp.after.max.ms={after_max_ms} ahead (INVALID_TIMESTAMP)",
            time(*timestamp)
        ),
        Refusal::TimestampBehind {
            timestamp,
            before_max_ms,
        } => format!(
            "its timestamp {} is more than target topic {topic}'s \
             message.timestamp.before.max.ms={before_max_ms} behind (INVALID_TIMESTAMP)",
            time(*timestamp)
        ),
        Refusal::NoKeyOnCompacted => format!(
            "it has no key and target topic {topic} is compacted (INVALID_RECORD: \"Compacted \
             topic cannot accept message without key\")"
        ),
    }
}

/// How to fix a refusal's cause in the target, when a config does.
fn refusal_fix(why: &Refusal, topic: &str) -> Option<String> {
    let (config, value) = match why {
        Refusal::TooLarge {
            batch_bytes,
            config,
            ..
        } => (config.name(), batch_bytes.to_string()),
        Refusal::TimestampAhead { .. } => (
            "message.timestamp.after.max.ms",
            "9223372036854775807".into(),
        ),
        Refusal::TimestampBehind { .. } => (
            "message.timestamp.before.max.ms",
            "9223372036854775807".into(),
        ),
        Refusal::NoKeyOnCompacted => return None,
    };
    Some(format!(
        "kafka-configs.sh --alter --entity-type topics --entity-name {} --add-config \
         {config}={value}",
        esc(topic)
    ))
}

/// What the walk over a source's records found, one line each (without `kseg: `); `run`: said
/// before a real run sends (else by a dry run).
pub fn source_check(source: &str, target: &str, c: &SourceCheck, run: bool) -> Vec<String> {
    let mut lines = Vec::new();
    let name = esc(source);
    if let Some(TooOld {
        records,
        newest,
        keeps_from,
        retention_ms,
    }) = &c.too_old
    {
        lines.push(format!(
            "{records} records of {name} (the newest {}) are older than target topic {}'s \
             retention.ms={retention_ms} keeps (from {})",
            time(*newest),
            esc(target),
            time(*keeps_from)
        ));
    }
    if let Some(Future { records, latest }) = &c.future {
        lines.push(format!(
            "{records} records of {name} are stamped in the future (the latest {}): target \
             topic {} keeps the segments holding them until then whatever its retention.ms \
             (Kafka deletes a segment by its newest timestamp), as the source did",
            time(*latest),
            esc(target)
        ));
    }
    if let Some(RefusedAhead {
        offset,
        why,
        certain,
    }) = &c.refused
    {
        let fix = refusal_fix(why, target)
            .map(|f| format!("; to take it, raise the limit first ({f})"))
            .unwrap_or_default();
        lines.push(format!(
            "{name} offset {offset}: {}: the target {} refuse it, and {name} {} there (the \
             other partitions go on){fix}",
            refusal(why, target),
            if *certain {
                "will"
            } else {
                "may (compressed, it may fit)"
            },
            if run { "stops" } else { "would stop" }
        ));
    }
    lines
}

/// The refusal of a run whose records the targets' retention would delete.
pub fn retention_refusal(lines: &[String]) -> String {
    format!(
        "{}: the broker would delete them at its next retention check. Raise the target's \
         retention (kafka-configs.sh --alter --entity-type topics --entity-name TOPIC \
         --add-config retention.ms=-1), or pass --allow-retention-delete",
        lines.join("; ")
    )
}

/// Target topics with too few partitions.
pub fn short_topic(topic: &str, has: i32, needs: i32) -> String {
    format!(
        "target topic {} has {has} partitions and the source has partition {}: add partitions \
         (kafka-topics.sh --alter --topic {} --partitions {needs}) or pass --partitioner murmur2",
        esc(topic),
        needs - 1,
        esc(topic)
    )
}

/// What `--create-topics` applies to a new topic (`kseg: created ... with <this>`).
pub fn new_topic_configs(t: &NewTopic) -> String {
    let show = |c: &BTreeMap<String, String>| {
        c.iter()
            .map(|(k, v)| esc(&format!("{k}={v}")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    t.notes
        .iter()
        .map(|n| match n {
            ConfigNote::NoMetadata { source } => format!(
                "no configs of the source topic {} (no __cluster_metadata in the given paths or \
                 beside them: a ZooKeeper cluster's configs are not in its log dirs)",
                esc(source)
            ),
            ConfigNote::Taken { source, configs } => format!(
                "source topic {}'s configs {} (its __cluster_metadata)",
                esc(source),
                show(configs)
            ),
            ConfigNote::NoneTaken { source } => {
                format!("none of source topic {}'s configs", esc(source))
            }
            ConfigNote::LeftOut(keys) => format!("left out: {}", esc(&keys.join(", "))),
            ConfigNote::NoneRecorded { source } => format!(
                "no configs of source topic {} (its __cluster_metadata records none)",
                esc(source)
            ),
            ConfigNote::Differs { source } => format!(
                "source topic {}'s configs differ and were not taken",
                esc(source)
            ),
            ConfigNote::Given(c) => format!("--topic-config {}", show(c)),
            ConfigNote::Defaults => "the target's defaults".to_string(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why a `--state` file does not describe the target, one clause each.
pub fn state_mismatch(m: &StateMismatch) -> String {
    match m {
        StateMismatch::Cluster { recorded, now } => format!(
            "it was written for cluster {}, and --bootstrap reaches cluster {}",
            esc(recorded),
            esc(now)
        ),
        StateMismatch::TopicGone { topic } => format!(
            "target topic {} does not exist any more (deleted since)",
            esc(topic)
        ),
        StateMismatch::TopicId {
            topic,
            recorded,
            now,
        } => format!(
            "target topic {} was deleted and created again since (topic id {} then, {} now)",
            esc(topic),
            esc(recorded),
            esc(now)
        ),
        StateMismatch::LogEnd {
            partition,
            written_to,
            now,
        } => format!(
            "target partition {} ends at offset {now}, before offset {written_to} the rescue had \
             written up to (records it delivered are gone: the topic re-created, or truncated by \
             an unclean leader election)",
            esc(partition)
        ),
    }
}

/// The refusal of a `--state` file that does not describe the target.
pub fn state_refusal(file: &str, mismatches: &[StateMismatch]) -> String {
    format!(
        "{} does not describe this target: {}. Resuming would count records as delivered that \
         the target does not hold (and --groups would commit offsets into them). Pass --resend \
         to send every record again into the target as it is now (the state file starts anew), \
         or give the --bootstrap and --state of the rescue it describes",
        esc(file),
        mismatches
            .iter()
            .map(state_mismatch)
            .collect::<Vec<_>>()
            .join("; ")
    )
}

/// What `--resend` does when the state does not describe the target.
pub fn state_resend(file: &str, mismatches: &[StateMismatch]) -> String {
    format!(
        "{} does not describe this target ({}): --resend sends every record again and starts \
         the state anew",
        esc(file),
        mismatches
            .iter()
            .map(state_mismatch)
            .collect::<Vec<_>>()
            .join("; ")
    )
}

/// A record refused during the run (stderr, and the error at the end).
pub fn refused_in_run(
    source: &str,
    offset: i64,
    error: &str,
    landed_after: &[(String, i64)],
    state: Option<&str>,
) -> String {
    let after = match (landed_after.first(), landed_after.last()) {
        (Some(first), Some(last)) => format!(
            "nothing after it was sent from {} but {} records already on their way, which \
             landed ({} offset {} to {} offset {}): a rerun sends them again after it, in \
             order, so the target holds them twice",
            esc(source),
            landed_after.len(),
            esc(&first.0),
            first.1,
            esc(&last.0),
            last.1
        ),
        _ => format!("nothing after it was sent from {}", esc(source)),
    };
    let resume = match state {
        Some(f) => format!(
            "once the target takes it, rerun with the same --state {}: it resumes there",
            esc(f)
        ),
        None => format!(
            "once the target takes it, rerun for {} with --from-offset {offset} (or use \
             --state to resume)",
            esc(source)
        ),
    };
    format!(
        "{} stopped at offset {offset}: the target refused the record ({}); {after}; {resume}",
        esc(source),
        esc(error)
    )
}

// ---- verification ----------------------------------------------------------------------------

fn difference(d: &Difference, target: &str) -> String {
    match d {
        Difference::Missing {
            source,
            offset,
            at: None,
        } => format!("{source} offset {offset} is not in the target (not in the offset map)"),
        Difference::Missing {
            source,
            offset,
            at: Some(at),
        } => format!(
            "{source} offset {offset} is not in the target (the offset map puts it at {target} \
             offset {at})"
        ),
        Difference::Differs {
            source,
            offset,
            at,
            timestamp,
        } => format!(
            "{source} offset {offset} differs from {target} offset {at} ({})",
            if *timestamp {
                "timestamp"
            } else {
                "key, value or headers"
            }
        ),
        Difference::Extra { at } => {
            format!("{target} offset {at} is not a record of the sources")
        }
    }
}

/// `--verify`'s lines (NDJSON `verified`).
pub fn verified(out: &mut impl Write, json: bool, v: &[Verified]) -> io::Result<()> {
    for r in v {
        let first = r.first.as_ref().map(|d| difference(d, &r.target));
        if json {
            serde_json::to_writer(
                &mut *out,
                &json!({"type": "verified", "target": r.target, "matched": r.matched,
                    "mismatched": r.mismatched, "missing": r.missing, "extra": r.extra,
                    "firstMismatch": first}),
            )?;
            writeln!(out)?;
        } else {
            writeln!(
                out,
                "verify {}: {} records match{}",
                esc(&r.target),
                r.matched,
                if r.ok() {
                    String::new()
                } else {
                    format!(
                        ", {} differ, {} missing, {} extra; first: {}",
                        r.mismatched,
                        r.missing,
                        r.extra,
                        esc(&first.unwrap_or_default())
                    )
                }
            )?;
        }
    }
    Ok(())
}

// ---- groups ----------------------------------------------------------------------------------

const GROUP_COLUMNS: [Column; 7] = [
    col("GROUP", Col::Id, 0).key(),
    col("SOURCE", Col::Id, 0).key(),
    col("OFFSET", Col::Num, 0),
    col("TARGET", Col::Id, 1),
    col("TARGET-OFFSET", Col::Num, 0),
    col("TRANSLATION", Col::Whole, 0),
    col("WHY", Col::Prose, 0),
];

/// A dry run's: whether the target offset is predicted (records not sent yet).
const DRY_RUN_GROUP_COLUMNS: [Column; 8] = [
    col("GROUP", Col::Id, 0).key(),
    col("SOURCE", Col::Id, 0).key(),
    col("OFFSET", Col::Num, 0),
    col("TARGET", Col::Id, 1),
    col("TARGET-OFFSET", Col::Num, 0),
    col("TRANSLATION", Col::Whole, 0),
    col("PREDICTED", Col::Whole, 2),
    col("WHY", Col::Prose, 0),
];

/// The translation of every group's offsets: a table (or NDJSON `groupOffset` objects), the
/// groups' offsets left alone, and what "predicted" means; `commit`: a run (not a dry run);
/// `reached`: the cluster answered.
pub fn group_translation(
    out: &mut impl Write,
    layout: Layout,
    json: bool,
    commit: bool,
    reached: bool,
    t: &GroupTranslation<'_>,
) -> io::Result<()> {
    let mut grid = Grid::new(if commit {
        &GROUP_COLUMNS
    } else {
        &DRY_RUN_GROUP_COLUMNS
    });
    for o in &t.offsets {
        let why = translation_why(&o.translated, o.committed);
        if json {
            serde_json::to_writer(
                &mut *out,
                &json!({"type": "groupOffset", "group": o.group, "topic": o.topic,
                    "partition": o.partition, "sourceOffset": o.committed,
                    "targetTopic": o.target_topic, "targetPartition": o.target_partition,
                    "targetOffset": o.translated.target(), "translation": o.translated.kind(),
                    "predicted": o.translated.predicted(), "why": why,
                    "metadata": o.metadata}),
            )?;
            writeln!(out)?;
        } else {
            grid.row(group_row(o, commit, why));
        }
    }
    if json {
        return Ok(());
    }
    if grid.is_empty() {
        if layout.prose() {
            writeln!(
                out,
                "groups: no group of the source has committed offsets on the rescued partitions"
            )?;
        }
    } else {
        grid.write(out, layout)?;
    }
    if layout.prose() {
        for (group, n) in &t.not_rescued {
            writeln!(
                out,
                "group {}: {n} offsets on partitions this rescue does not cover were left alone",
                esc(group)
            )?;
        }
        if t.offsets.iter().any(|o| o.translated.predicted()) {
            writeln!(
                out,
                "predicted: target offsets of records not sent yet, taken as written after what \
                 each target partition holds now{} and nothing else writing there",
                if reached {
                    ""
                } else {
                    " (the cluster could not be reached: taken as empty)"
                }
            )?;
        }
    }
    Ok(())
}

fn group_row(o: &GroupOffset<'_>, commit: bool, why: Option<String>) -> Vec<String> {
    let mut row = vec![
        esc(o.group),
        esc(&format!("{}-{}", o.topic, o.partition)),
        o.committed.to_string(),
        esc(&format!("{}-{}", o.target_topic, o.target_partition)),
        o.translated
            .target()
            .map_or("-".to_string(), |t| t.to_string()),
        o.translated.kind().to_string(),
    ];
    if !commit {
        row.push(
            if o.translated.predicted() {
                "yes"
            } else {
                "no"
            }
            .to_string(),
        );
    }
    row.push(why.map(|w| esc(&w)).unwrap_or_default());
    row
}

/// Whether any offset was not translated (the exit code says so).
pub fn any_untranslated(t: &GroupTranslation<'_>) -> bool {
    t.offsets
        .iter()
        .any(|o| matches!(o.translated, Translated::NotTranslated(_)))
}

/// One group's outcome as NDJSON.
pub fn group_commit(
    out: &mut impl Write,
    group: &str,
    committed: bool,
    dry_run: bool,
    error: Option<&str>,
) -> io::Result<()> {
    serde_json::to_writer(
        &mut *out,
        &json!({"type": "groupCommit", "group": group, "committed": committed,
            "dryRun": dry_run, "error": error}),
    )?;
    writeln!(out)
}

/// A group with members in the target (DescribeGroups said so before the commit).
pub fn group_active(group: &str, state: &str, members: usize, commit: bool) -> String {
    format!(
        "group {} is active in the target ({state}, {members} members): Kafka refuses offsets \
         committed from outside a group that has members (UNKNOWN_MEMBER_ID){}; stop its \
         consumers (or wait until they have left), then run again with --groups",
        esc(group),
        if commit {
            ", so none was committed"
        } else {
            ": the commit would be refused"
        }
    )
}

/// A commit the coordinator refused because the group has members.
pub fn group_refused_active(group: &str, code: &str) -> String {
    format!(
        "group {} is active in the target: Kafka refused the commit ({code}): it accepts \
         offsets from outside a group only while the group has no members; stop its consumers, \
         then run again with --groups",
        esc(group)
    )
}

/// Offsets read back that are not what was committed.
pub fn group_read_back(group: &str, wrong: &[(String, i32, i64, Option<i64>)]) -> String {
    format!(
        "group {}: the target holds other offsets than were committed: {}",
        esc(group),
        wrong
            .iter()
            .map(|(t, p, want, got)| format!(
                "{}-{p}: {} instead of {want}",
                esc(t),
                got.map_or("none".to_string(), |o| o.to_string())
            ))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The groups step's closing line.
pub fn groups_done(commit: bool, offsets: usize, groups: usize) -> String {
    if commit {
        format!("groups: {offsets} offsets of {groups} groups committed in the target (read back the same)")
    } else {
        format!(
            "dry run: {offsets} offsets of {groups} groups would be committed; nothing was \
             committed"
        )
    }
}

/// Why an offset map does not describe the target.
pub fn map_fault(f: &MapFault) -> String {
    let range = |r: &MapRange| format!("[{}, {}, {}, {}]", r.first, r.last, r.partition, r.target);
    match f {
        MapFault::OtherPartition { range: r, expected } => format!(
            "the offset map's range {} is in target partition {}, not {expected}",
            range(r),
            r.partition
        ),
        MapFault::Backwards { range: r, after } => format!(
            "the offset map's range {} goes back to target offset {} after {after}",
            range(r),
            r.target
        ),
        MapFault::BeforeStart { range: r, start } => format!(
            "the offset map's range {} starts before target offset {start}, where the rescue \
             began writing",
            range(r)
        ),
        MapFault::PastWritten { range: r, end } => format!(
            "the offset map's range {} reaches target offset {}, past offset {} the rescue \
             wrote up to",
            range(r),
            r.target_last(),
            end - 1
        ),
        MapFault::PastAcknowledged {
            range: r,
            acknowledged,
        } => format!(
            "the offset map's range {} reaches source offset {}, past the last acknowledged ({})",
            range(r),
            r.last,
            acknowledged.map_or("none".to_string(), |a| a.to_string())
        ),
        MapFault::PastLogEnd { range: r, log_end } => format!(
            "the offset map's range {} reaches target offset {}, past the target partition's \
             log end {log_end}",
            range(r),
            r.target_last()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kseg_analysis::rescue::check::LimitConfig;

    #[test]
    fn a_state_that_does_not_describe_the_target_is_said_with_the_way_on() {
        let m = [
            StateMismatch::TopicId {
                topic: "orders".into(),
                recorded: "AAA".into(),
                now: "BBB".into(),
            },
            StateMismatch::LogEnd {
                partition: "orders-0".into(),
                written_to: 539,
                now: 0,
            },
        ];
        let s = state_refusal("rescue.state", &m);
        assert!(s.starts_with(
            "rescue.state does not describe this target: target topic orders was deleted and \
             created again since (topic id AAA then, BBB now); target partition orders-0 ends \
             at offset 0, before offset 539"
        ));
        assert!(s.contains("Pass --resend"), "{s}");
    }

    #[test]
    fn a_refusal_names_the_record_the_reason_and_the_fix() {
        let c = SourceCheck {
            refused: Some(RefusedAhead {
                offset: 17,
                why: Refusal::TooLarge {
                    batch_bytes: 20_094,
                    limit: 10_000,
                    config: LimitConfig::MaxMessageBytes,
                },
                certain: true,
            }),
            ..Default::default()
        };
        let lines = source_check("prices-1", "prices", &c, true);
        assert_eq!(
            lines,
            [
                "prices-1 offset 17: a batch of this record alone is 20094 bytes, over target \
              topic prices's max.message.bytes=10000 (MESSAGE_TOO_LARGE): the target will \
              refuse it, and prices-1 stops there (the other partitions go on); to take it, \
              raise the limit first (kafka-configs.sh --alter --entity-type topics \
              --entity-name prices --add-config max.message.bytes=20094)"
            ]
        );
        let s = refused_in_run(
            "prices-1",
            17,
            "Broker: Message size too large",
            &[("prices-1".into(), 14), ("prices-1".into(), 20)],
            Some("r.state"),
        );
        assert_eq!(
            s,
            "prices-1 stopped at offset 17: the target refused the record (Broker: Message size \
             too large); nothing after it was sent from prices-1 but 2 records already on \
             their way, which landed (prices-1 offset 14 to prices-1 offset 20): a rerun sends \
             them again after it, in order, so the target holds them twice; once the target \
             takes it, rerun with the same --state r.state: it resumes there"
        );
    }
}
