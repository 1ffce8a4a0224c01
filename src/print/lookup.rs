//! `kseg lookup` output: `topic:partition:offset` lines like `kafka-get-offsets.sh`, each followed
//! by indented details, or one NDJSON object per partition.

use std::io::{self, Write};

use serde_json::{json, Value};

use crate::analysis::lookup::{Answer, BatchFacts, LookupReport, Query, Trace};
use crate::time::rfc3339_or_ms as rfc3339;

fn target_text(q: &Query) -> String {
    match *q {
        Query::Offset(o) => format!("offset {o}"),
        Query::Timestamp(t) => format!("timestamp {t} ({})", rfc3339(t)),
        Query::Earliest => "earliest offset".into(),
        Query::Latest => "latest offset".into(),
        Query::MaxTimestamp => "max timestamp".into(),
        Query::EndOffsetForEpoch(e) => format!("end offset of leader epoch {e}"),
    }
}

fn batch_text(b: &BatchFacts) -> String {
    let mut s = format!(
        "batch at byte {}: offsets {}..{}",
        b.position, b.base_offset, b.last_offset
    );
    if let Some(n) = b.count {
        s += &format!(", {n} records");
    }
    s += &format!(
        ", magic {}, {}, {}, maxTimestamp {}",
        b.magic, b.codec, b.timestamp_type, b.max_timestamp
    );
    if b.partition_leader_epoch >= 0 {
        s += &format!(", partitionLeaderEpoch {}", b.partition_leader_epoch);
    }
    if b.is_transactional {
        s += ", transactional";
    }
    if b.is_control {
        s += ", control";
    }
    s
}

fn answer_details(out: &mut impl Write, r: &LookupReport, a: &Answer) -> io::Result<()> {
    if let Some(t) = a.timestamp {
        write!(out, "  timestamp {t} ({})", rfc3339(t))?;
        if let Query::Timestamp(target) = r.query {
            write!(
                out,
                ", {} ms after the target {}",
                t - target,
                rfc3339(target)
            )?;
        }
        writeln!(out)?;
    }
    if let Some(e) = a.leader_epoch {
        writeln!(out, "  leader epoch {e}")?;
    }
    if let Some(seg) = &a.segment {
        writeln!(out, "  segment {}", seg.display())?;
    }
    if let Some(b) = &a.batch {
        writeln!(out, "  {}", batch_text(b))?;
    }
    for n in &a.notes {
        writeln!(out, "  note: {n}")?;
    }
    Ok(())
}

fn trace_text(out: &mut impl Write, title: &str, t: &Trace) -> io::Result<()> {
    writeln!(out, "  {title}:")?;
    for s in &t.steps {
        writeln!(out, "    {s}")?;
    }
    writeln!(
        out,
        "    read {} bytes of .log and {} bytes of .index/.timeindex; {} batches scanned, {} \
         records decoded",
        t.log_bytes_read, t.index_bytes_read, t.batches_scanned, t.records_decoded
    )
}

/// `topic:partition:offset` (empty offset when there is none, as kafka-get-offsets.sh prints
/// it), then the details, indented.
pub fn text(out: &mut impl Write, r: &LookupReport, explain: bool) -> io::Result<()> {
    let shown = r.scan.as_ref().map_or(&r.answer, |s| &s.answer);
    writeln!(
        out,
        "{}:{}:{}",
        r.topic,
        r.partition,
        shown.offset.map_or(String::new(), |o| o.to_string())
    )?;
    if shown.offset.is_none() {
        writeln!(out, "  none for the {}", target_text(&r.query))?;
    }
    answer_details(out, r, shown)?;
    if let Some(s) = &r.scan {
        if s.differs {
            writeln!(
                out,
                "  the index-guided answer differs: {}",
                r.answer
                    .offset
                    .map_or("none".into(), |o| format!("offset {o}"))
            )?;
            if let Some(reason) = &s.reason {
                writeln!(out, "  why: {reason}")?;
            }
        } else {
            writeln!(out, "  the index-guided answer is the same")?;
        }
    }
    if explain {
        writeln!(
            out,
            "  explain ({}; log start offset {}{}):",
            target_text(&r.query),
            r.log_start_offset,
            r.log_end_offset
                .map_or(String::new(), |e| format!(", log end offset {e}"))
        )?;
        trace_text(out, "index-guided lookup", &r.trace)?;
        if let Some(s) = &r.scan {
            if s.differs {
                writeln!(out, "  index-guided answer:")?;
                answer_details(out, r, &r.answer)?;
            }
            trace_text(out, "scan of every record", &s.trace)?;
        }
    }
    Ok(())
}

fn answer_json(a: &Answer) -> Value {
    json!({
        "offset": a.offset,
        "timestamp": a.timestamp,
        "leaderEpoch": a.leader_epoch,
        "segment": a.segment.as_ref().map(|p| p.display().to_string()),
        "position": a.position(),
        "notes": a.notes,
    })
}

fn batch_json(b: &BatchFacts) -> Value {
    json!({
        "position": b.position,
        "baseOffset": b.base_offset,
        "lastOffset": b.last_offset,
        "count": b.count,
        "magic": b.magic,
        "compression": b.codec,
        "timestampType": b.timestamp_type,
        "maxTimestamp": b.max_timestamp,
        "partitionLeaderEpoch": b.partition_leader_epoch,
        "isTransactional": b.is_transactional,
        "isControl": b.is_control,
        "size": b.size,
    })
}

fn trace_json(t: &Trace) -> Value {
    json!({
        "steps": t.steps,
        "logBytesRead": t.log_bytes_read,
        "indexBytesRead": t.index_bytes_read,
        "batchesScanned": t.batches_scanned,
        "recordsDecoded": t.records_decoded,
    })
}

/// One `lookup` object: `{type, topic, partition, target, offset, timestamp, segment,
/// position, ...}`; with a scan, the top-level answer is the scan's and `indexGuided` holds the
/// other.
pub fn json(out: &mut impl Write, r: &LookupReport, explain: bool) -> io::Result<()> {
    let shown = r.scan.as_ref().map_or(&r.answer, |s| &s.answer);
    let mut target = json!({"kind": r.query.kind()});
    if let Some(v) = r.query.value() {
        target["value"] = json!(v);
    }
    let mut v = json!({
        "type": "lookup",
        "topic": r.topic,
        "partition": r.partition,
        "target": target,
        "offset": shown.offset,
        "timestamp": shown.timestamp,
        "segment": shown.segment.as_ref().map(|p| p.display().to_string()),
        "position": shown.position(),
        "leaderEpoch": shown.leader_epoch,
        "logStartOffset": r.log_start_offset,
        "logEndOffset": r.log_end_offset,
        "batch": shown.batch.as_ref().map(batch_json),
        "notes": shown.notes,
    });
    if let Some(s) = &r.scan {
        v["indexGuided"] = answer_json(&r.answer);
        v["scanDiffers"] = json!(s.differs);
        v["scanReason"] = json!(s.reason);
    }
    if explain {
        v["explain"] = trace_json(&r.trace);
        if let Some(s) = &r.scan {
            v["scanExplain"] = trace_json(&s.trace);
        }
    }
    serde_json::to_writer(&mut *out, &v)?;
    writeln!(out)
}
