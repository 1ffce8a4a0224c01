//! `kseg groups` output: the `kafka-consumer-groups --describe` table plus forensic columns,
//! group state, the commit history; and their NDJSON forms.

use std::io::{self, Write};

use serde_json::{json, Value};

use super::coordinator::{write_coordinator_value, write_key};
use super::ndjson::JsonLine;
use super::table::{col, Col, Column, Grid, Layout, Measure};
use super::words::human_span;
use kseg_analysis::expiry::{Expiry, NeverBecause};
use kseg_analysis::fault::UndecodableWhy;
use kseg_analysis::group_report::{GroupRebalances, GroupsReport, OffsetRow};
use kseg_analysis::groups::{CommitEvent, ConsumerGroupView, GroupState};
use kseg_analysis::rebalances::{Generation, RebalanceVerdict};
use kseg_time::rfc3339_ms;

fn esc(s: &str) -> String {
    let mut v = Vec::new();
    let _ = kseg_escape::write_escaped(&mut v, s.as_bytes());
    String::from_utf8_lossy(&v).into_owned()
}

fn opt(v: Option<i64>) -> String {
    v.map_or("-".into(), |x| x.to_string())
}

pub(crate) fn human_ms(ms: i64) -> String {
    let s = ms / 1000;
    match s {
        s if s < 120 => format!("{}.{:03}s", ms / 1000, ms % 1000),
        s if s < 7200 => format!("{}m{}s", s / 60, s % 60),
        s if s < 172_800 => format!("{}h{}m", s / 3600, (s % 3600) / 60),
        s => format!("{}d{}h", s / 86400, (s % 86400) / 3600),
    }
}

const OFFSET_COLUMNS: [Column; 12] = [
    col("GROUP", Col::Id, 0).key(),
    col("TOPIC", Col::Id, 0).key(),
    col("PARTITION", Col::Num, 0).key(),
    col("CURRENT-OFFSET", Col::Num, 0),
    col("LOG-END-OFFSET", Col::Num, 1),
    col("LAG", Col::Num, 0),
    col("LEADER-EPOCH", Col::Num, 4),
    col("COMMITTED-AT", Col::Time, 0),
    col("METADATA", Col::Id, 5),
    col("OLDEST-UNCONSUMED-AGE", Col::Num, 0),
    col("EXPIRES-AT", Col::Time, 0),
    col("FLAGS", Col::Text, 0),
];

/// The whole text (or TSV) output of `kseg groups`.
pub fn text_report(
    out: &mut impl Write,
    report: &GroupsReport<'_>,
    history: bool,
    rebalances: bool,
    at_given: bool,
    layout: Layout,
) -> io::Result<()> {
    let replay = &report.replay;
    if layout == Layout::Tsv {
        // One table: the offsets, or with --history the commits, or with --rebalances the
        // generations.
        if rebalances {
            return rebalances_text(out, report, layout);
        } else if history {
            return history_table(out, &replay.history, layout);
        }
        return offsets_table(out, report, layout);
    }
    if report.offsets == 0 {
        writeln!(
            out,
            "No committed offsets in the {} __consumer_offsets partitions read.",
            report.coordinator_partitions
        )?;
    } else {
        offsets_table(out, report, layout)?;
        never_expires(out, report)?;
        // Which instant "expired" is judged at: a data dir from months ago is all expired
        // against now, and that should be visibly a choice.
        writeln!(
            out,
            "Expiry as of {} ({})\nand offsets.retention.minutes={} (--offsets-retention-minutes N).",
            rfc3339_ms(report.now()),
            if at_given {
                "--at"
            } else {
                "now; --at TIME sets another instant"
            },
            report.retention_ms() / 60_000
        )?;
    }
    for (group, state) in &replay.groups {
        group_state(out, group, state, report.views.get(group), layout)?;
    }
    if history {
        history_table(out, &replay.history, layout)?;
    }
    if rebalances {
        rebalances_text(out, report, layout)?;
    }
    Ok(())
}

/// Why an offset never expires, in words.
pub fn never_because(why: NeverBecause) -> &'static str {
    match why {
        NeverBecause::Subscribed => "a member subscribes to the topic",
        NeverBecause::HasMembers => "the group has members (not Empty)",
        NeverBecause::PendingTransactionalCommit => {
            "a transactional commit of the partition is pending"
        }
    }
}

/// Offsets listed to name them under the table; the others are counted.
const NEVER_LISTED: usize = 5;

/// Under the offsets table: why the offsets whose EXPIRES-AT is `never` do not expire (JSON's
/// `neverExpiresBecause`), one line per reason.
fn never_expires(out: &mut impl Write, report: &GroupsReport<'_>) -> io::Result<()> {
    let mut reasons: Vec<(NeverBecause, usize, Vec<String>)> = Vec::new();
    for r in report.rows() {
        let Expiry::Never(why) = r.expiry else {
            continue;
        };
        let i = match reasons.iter().position(|(w, _, _)| *w == why) {
            Some(i) => i,
            None => {
                reasons.push((why, 0, Vec::new()));
                reasons.len() - 1
            }
        };
        let (_, n, names) = &mut reasons[i];
        *n += 1;
        if names.len() < NEVER_LISTED {
            names.push(format!("{} {}-{}", esc(r.group), esc(r.topic), r.partition));
        }
    }
    for (why, n, names) in reasons {
        let more = if n > names.len() {
            format!(", and {} more (--json names each)", n - names.len())
        } else {
            String::new()
        };
        writeln!(
            out,
            "EXPIRES-AT never ({n} offset{}): {}: {}{more}.",
            if n == 1 { "" } else { "s" },
            never_because(why),
            names.join(", ")
        )?;
    }
    Ok(())
}

/// The NDJSON output of `kseg groups`.
pub fn json_report(
    out: &mut impl Write,
    report: &GroupsReport<'_>,
    history: bool,
) -> io::Result<()> {
    let replay = &report.replay;
    for r in report.rows() {
        json_offset(out, &r)?;
    }
    for (group, state) in &replay.groups {
        json_group(out, group, state, report.views.get(group))?;
    }
    if history {
        for e in &replay.history {
            json_commit(out, e)?;
        }
    }
    for g in &report.generations {
        json_generation(out, g)?;
    }
    for g in &report.rebalances {
        json_rebalance_summary(out, &g.summary)?;
    }
    for (partition, offset, record_type) in &replay.unknown_types {
        line(
            out,
            &json!({"type": "skippedRecord", "partition": partition, "offset": offset,
                "recordType": record_type, "reason": "unknown record type"}),
        )?;
    }
    line(
        out,
        &json!({"type": "summary", "coordinatorPartitions": report.coordinator_partitions,
            "groups": replay.groups.len(), "offsets": report.offsets, "commitRecords": replay.commits,
            "undecodable": replay.undecodable.len(), "skippedUnknownTypes": replay.unknown_types.len()}),
    )
}

fn offset_cells(r: &OffsetRow<'_>) -> Vec<String> {
    vec![
        esc(r.group),
        esc(r.topic),
        r.partition.to_string(),
        r.committed.offset.to_string(),
        opt(r.facts.and_then(|f| f.log_end_offset)),
        opt(r.lag),
        opt(r.committed.leader_epoch.map(i64::from)),
        rfc3339_ms(r.committed.commit_timestamp),
        esc(&r.committed.metadata),
        r.oldest_unconsumed_age_ms.map_or("-".into(), human_ms),
        match r.expiry {
            Expiry::At { at, .. } => rfc3339_ms(at),
            Expiry::Never(_) => "never".into(),
        },
        r.flags.joined(),
    ]
}

/// The offsets table, streamed: a first pass over the rows measures the columns, the second
/// writes them a chunk at a time (`Grid::stream`), so no row is kept.
pub fn offsets_table(
    out: &mut impl Write,
    report: &GroupsReport<'_>,
    layout: Layout,
) -> io::Result<()> {
    let mut measure = Measure::new(&OFFSET_COLUMNS);
    if layout != Layout::Tsv {
        for r in report.rows() {
            measure.row(offset_cells(&r));
        }
    }
    Grid::stream(
        out,
        measure,
        report.rows().map(|r| offset_cells(&r)),
        layout,
    )
}

pub fn group_state(
    out: &mut impl Write,
    group: &str,
    s: &GroupState,
    view: Option<&ConsumerGroupView>,
    layout: Layout,
) -> io::Result<()> {
    write!(out, "\nGROUP {}", esc(group))?;
    if let Some(p) = s.coordinator_partition {
        write!(out, " (coordinator partition __consumer_offsets-{p})")?;
    }
    writeln!(out)?;
    if let Some(m) = &s.classic {
        writeln!(
            out,
            "  classic group: protocolType={} generation={} protocol={} leader={} stateTimestamp={}",
            esc(&m.protocol_type),
            m.generation,
            esc(m.protocol.as_deref().unwrap_or("-")),
            esc(m.leader.as_deref().unwrap_or("-")),
            m.current_state_timestamp.map_or("-".into(), rfc3339_ms)
        )?;
        if m.members.is_empty() {
            writeln!(out, "  no members (group Empty)")?;
        } else {
            let mut t = Grid::new(&[
                col("MEMBER-ID", Col::Id, 0).key(),
                col("INSTANCE-ID", Col::Id, 3),
                col("CLIENT-ID", Col::Id, 2),
                col("HOST", Col::Id, 1),
                col("SESSION-MS", Col::Num, 4),
                col("REBALANCE-MS", Col::Num, 4),
                col("SUBSCRIBED", Col::Text, 0),
                col("ASSIGNED", Col::Text, 0),
            ]);
            for mem in &m.members {
                let subscribed = mem
                    .subscription
                    .as_ref()
                    .map_or("-".into(), |s| s.topics.join(","));
                let assigned = mem.assignment.as_ref().map_or("-".into(), |a| {
                    a.partitions
                        .iter()
                        .map(|tp| format!("{}:{:?}", tp.topic, tp.partitions))
                        .collect::<Vec<_>>()
                        .join(" ")
                });
                t.row(vec![
                    esc(&mem.member_id),
                    esc(mem.group_instance_id.as_deref().unwrap_or("-")),
                    esc(&mem.client_id),
                    esc(&mem.client_host),
                    mem.session_timeout.to_string(),
                    mem.rebalance_timeout.map_or("-".into(), |r| r.to_string()),
                    esc(&subscribed),
                    esc(&assigned),
                ]);
            }
            t.write(out, layout)?;
        }
    } else if s.classic_deleted {
        writeln!(out, "  classic group metadata deleted (tombstone)")?;
    }
    if let Some(v) = view {
        writeln!(
            out,
            "  consumer group (KIP-848): group epoch {} assignment epoch {}",
            v.group_epoch.map_or("-".into(), |e| e.to_string()),
            v.assignment_epoch.map_or("-".into(), |e| e.to_string())
        )?;
        if !v.members.is_empty() {
            let fmt = |tps: &[(String, Vec<i64>)]| {
                if tps.is_empty() {
                    "-".to_string()
                } else {
                    tps.iter()
                        .map(|(t, p)| format!("{t}:{p:?}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            };
            let mut t = Grid::new(&[
                col("MEMBER-ID", Col::Id, 0).key(),
                col("INSTANCE-ID", Col::Id, 3),
                col("CLIENT-ID", Col::Id, 2),
                col("HOST", Col::Id, 1),
                col("MEMBER-EPOCH", Col::Num, 4),
                col("SUBSCRIBED", Col::Text, 0),
                col("ASSIGNED", Col::Text, 0),
                col("TARGET", Col::Text, 5),
                col("PENDING-REVOCATION", Col::Text, 5),
            ]);
            for m in &v.members {
                let subscribed = match &m.subscribed_regex {
                    Some(r) => format!("{} /{r}/", m.subscribed_topics.join(",")),
                    None => m.subscribed_topics.join(","),
                };
                t.row(vec![
                    esc(&m.member_id),
                    esc(m.instance_id.as_deref().unwrap_or("-")),
                    esc(m.client_id.as_deref().unwrap_or("-")),
                    esc(m.client_host.as_deref().unwrap_or("-")),
                    m.member_epoch.map_or("-".into(), |e| e.to_string()),
                    esc(&subscribed),
                    esc(&fmt(&m.assigned)),
                    esc(&fmt(&m.target)),
                    esc(&fmt(&m.pending_revocation)),
                ]);
            }
            t.write(out, layout)?;
        }
    }
    for ((record_type, _), record) in &s.records {
        if view.is_some() && matches!(record_type, 3 | 5 | 6 | 7 | 8) {
            continue;
        }
        let Some((key, value)) = record.decoded() else {
            continue;
        };
        let (mut k, mut v) = (Vec::new(), Vec::new());
        write_key(&mut JsonLine(&mut k), &key);
        write_coordinator_value(&mut JsonLine(&mut v), &value);
        writeln!(
            out,
            "  record type {record_type}: key {} value {}",
            esc(&String::from_utf8_lossy(&k)),
            esc(&String::from_utf8_lossy(&v))
        )?;
    }
    writeln!(out, "  committed offsets: {}", s.offsets.len())
}

const HISTORY_COLUMNS: [Column; 9] = [
    col("COORDINATOR", Col::Id, 2),
    col("RECORD-OFFSET", Col::Num, 3),
    col("RECORD-TIME", Col::Time, 0).key(),
    col("GROUP", Col::Id, 0).key(),
    col("TOPIC", Col::Id, 0).key(),
    col("PARTITION", Col::Num, 0).key(),
    col("OFFSET", Col::Num, 0),
    col("COMMITTED-AT", Col::Time, 0),
    col("TRANSACTION", Col::Text, 1),
];

fn history_cells(e: &CommitEvent) -> Vec<String> {
    vec![
        format!("__consumer_offsets-{}", e.coordinator_partition),
        e.record_offset.to_string(),
        rfc3339_ms(e.record_timestamp),
        esc(&e.group),
        esc(&e.topic),
        e.partition.to_string(),
        e.offset.map_or("<DELETE>".into(), |o| o.to_string()),
        e.commit_timestamp.map_or("-".into(), rfc3339_ms),
        e.transactional
            .map_or("-".into(), |(pid, outcome)| format!("pid {pid}: {outcome}")),
    ]
}

/// The commit history, streamed as the offsets table is: a first pass measures the columns,
/// the second writes the rows a chunk at a time, so no row is kept (300k commits held as
/// rendered rows took 1.2 GB).
pub fn history_table(
    out: &mut impl Write,
    events: &[CommitEvent],
    layout: Layout,
) -> io::Result<()> {
    if layout.prose() {
        writeln!(out, "\nCommit history (log order):")?;
    }
    let mut measure = Measure::new(&HISTORY_COLUMNS);
    if layout != Layout::Tsv {
        for e in events {
            measure.row(history_cells(e));
        }
    }
    Grid::stream(out, measure, events.iter().map(history_cells), layout)
}

fn line(out: &mut impl Write, v: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, v).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

pub fn json_offset(out: &mut impl Write, r: &OffsetRow<'_>) -> io::Result<()> {
    line(
        out,
        &json!({"type": "offset", "group": r.group, "topic": r.topic, "partition": r.partition,
            "offset": r.committed.offset, "leaderEpoch": r.committed.leader_epoch, "metadata": r.committed.metadata,
            "commitTimestamp": r.committed.commit_timestamp, "expireTimestamp": r.committed.expire_timestamp,
            "logStartOffset": r.facts.and_then(|f| f.log_start_offset), "logEndOffset": r.facts.and_then(|f| f.log_end_offset),
            "lag": r.lag, "oldestUnconsumedAgeMs": r.oldest_unconsumed_age_ms, "flags": r.flags.names().collect::<Vec<_>>(),
            "expiresAt": r.expiry.at(),
            "expiryBasis": match r.expiry { Expiry::At { basis, .. } => Some(basis.name()), Expiry::Never(_) => None },
            "neverExpiresBecause": match r.expiry { Expiry::Never(why) => Some(never_because(why)), Expiry::At { .. } => None },
            "coordinatorPartition": r.committed.coordinator_partition, "commitRecordOffset": r.committed.record_offset}),
    )
}

pub fn json_group(
    out: &mut impl Write,
    group: &str,
    s: &GroupState,
    view: Option<&ConsumerGroupView>,
) -> io::Result<()> {
    let mut v = json!({"type": "group", "group": group, "coordinatorPartition": s.coordinator_partition,
        "committedOffsets": s.offsets.len(), "classicDeleted": s.classic_deleted});
    if let Some(m) = &s.classic {
        let members: Vec<Value> = m
            .members
            .iter()
            .map(|mem| {
                json!({"memberId": mem.member_id, "groupInstanceId": mem.group_instance_id, "clientId": mem.client_id,
                    "host": mem.client_host, "sessionTimeoutMs": mem.session_timeout, "rebalanceTimeoutMs": mem.rebalance_timeout,
                    "subscribedTopics": mem.subscription.as_ref().map(|s| s.topics.clone()),
                    "assignedPartitions": mem.assignment.as_ref().map(|a| a.partitions.iter()
                        .map(|tp| json!({"topic": tp.topic, "partitions": tp.partitions})).collect::<Vec<_>>())})
            })
            .collect();
        v["protocolType"] = json!(m.protocol_type);
        v["generation"] = json!(m.generation);
        v["protocol"] = json!(m.protocol);
        v["leader"] = json!(m.leader);
        v["stateTimestamp"] = json!(m.current_state_timestamp);
        v["members"] = Value::Array(members);
    }
    if let Some(view) = view {
        v["consumerGroup"] = serde_json::to_value(view).map_err(io::Error::from)?;
    }
    if s.records.is_empty() {
        return line(out, &v);
    }
    // `"records"` comes last: the object as serde_json writes it, then the records written
    // straight from their decoded values.
    let mut buf = serde_json::to_vec(&v).map_err(io::Error::from)?;
    buf.pop(); // the object's closing brace
    buf.extend_from_slice(b",\"records\":[");
    let mut first = true;
    for ((t, _), record) in &s.records {
        let Some((key, value)) = record.decoded() else {
            continue;
        };
        if !first {
            buf.push(b',');
        }
        first = false;
        let mut l = JsonLine(&mut buf);
        l.raw(b"{\"recordType\":");
        l.int(*t);
        l.raw(b",\"key\":");
        write_key(&mut l, &key);
        l.raw(b",\"value\":");
        write_coordinator_value(&mut l, &value);
        l.raw(b"}");
    }
    buf.extend_from_slice(b"]}\n");
    out.write_all(&buf)
}

pub fn json_commit(out: &mut impl Write, e: &CommitEvent) -> io::Result<()> {
    line(
        out,
        &json!({"type": "commit", "group": e.group, "topic": e.topic, "partition": e.partition, "offset": e.offset,
            "commitTimestamp": e.commit_timestamp, "recordTimestamp": e.record_timestamp,
            "coordinatorPartition": e.coordinator_partition, "recordOffset": e.record_offset,
            "transactional": e.transactional.map(|(pid, outcome)| json!({"producerId": pid, "outcome": outcome}))}),
    )
}

/// Why a coordinator record could not be decoded (or its segment read), in words.
pub fn undecodable(why: &UndecodableWhy) -> String {
    let at = |at: &Option<(std::path::PathBuf, u64)>| match at {
        Some((f, position)) => format!(" (in {} at byte {position})", kseg_escape::escaped_path(f)),
        None => String::new(),
    };
    match why {
        UndecodableWhy::Decode(e) => e.message.to_string(),
        UndecodableWhy::Schema(kind) => kind.to_string(),
        UndecodableWhy::KeyTooShort { len, at: where_ } => format!(
            "record key too short for a coordinator key ({len} bytes){}",
            at(where_)
        ),
        UndecodableWhy::IdNotUtf8 {
            byte,
            id,
            at: where_,
        } => {
            let mut v = Vec::new();
            kseg_escape::push_escaped(&mut v, id);
            format!(
                "the group id is not valid UTF-8: invalid byte at byte {byte} of the record \
                 key{}; the id, escaped: \"{}\"",
                at(where_),
                String::from_utf8_lossy(&v)
            )
        }
        UndecodableWhy::CannotRead { file, error } => {
            format!("cannot read {}: {error}", file.display())
        }
    }
}

/// A group's rebalance verdict in words.
pub fn rebalance_verdict(v: &RebalanceVerdict) -> String {
    match v {
        RebalanceVerdict::Storm {
            generations,
            first_timestamp,
            last_timestamp,
            rejoined,
        } => {
            let mut text = format!(
                "rebalance storm: {generations} generations between {} and {}",
                rfc3339_ms(*first_timestamp),
                rfc3339_ms(*last_timestamp)
            );
            if let Some((who, n)) = rejoined {
                text.push_str(&format!(", member {who} rejoined {n} times"));
            }
            text
        }
        RebalanceVerdict::OneGeneration => "one generation".into(),
        RebalanceVerdict::Calm {
            generations,
            span_ms,
            longest_stable_ms,
        } => format!(
            "{generations} generations over {}; longest stable stretch {}",
            human_span(*span_ms),
            human_span(*longest_stable_ms)
        ),
    }
}

/// `--rebalances`: one table of generations per group after its verdict (in TSV one table of
/// every group's generations, with no other text).
fn rebalances_text(
    out: &mut impl Write,
    report: &GroupsReport<'_>,
    layout: Layout,
) -> io::Result<()> {
    rebalances(out, &report.generations, &report.rebalances, layout)
}

pub fn rebalances(
    out: &mut impl Write,
    gens: &[Generation],
    groups: &[GroupRebalances],
    layout: Layout,
) -> io::Result<()> {
    if !layout.prose() {
        return generation_grid(gens.iter()).write(out, layout);
    }
    for g in groups {
        let s = &g.summary;
        writeln!(
            out,
            "\nREBALANCES {}: {}",
            esc(&s.group),
            esc(&rebalance_verdict(&s.verdict))
        )?;
        let joins: Vec<String> = s
            .repeated_joins
            .iter()
            .map(|(who, n)| format!("{} x{n}", esc(who)))
            .collect();
        writeln!(
            out,
            "  {} generations, {:.1} per hour; longest stable stretch {} from {}; static members: \
             {}; joined more than once: {}",
            s.generations,
            s.per_hour,
            human_ms(s.longest_stable_ms),
            s.longest_stable_from.map_or("-".into(), rfc3339_ms),
            if s.static_members.is_empty() {
                "-".into()
            } else {
                esc(&s.static_members.join(", "))
            },
            if joins.is_empty() {
                "-".into()
            } else {
                joins.join(", ")
            }
        )?;
        generation_grid(g.generations.iter().map(|&i| &gens[i])).write(out, layout)?;
    }
    Ok(())
}

fn generation_grid<'a>(gens: impl Iterator<Item = &'a Generation>) -> Grid {
    let mut t = Grid::new(&[
        col("GROUP", Col::Id, 6),
        col("GENERATION", Col::Num, 0).key(),
        col("TIME", Col::Time, 0),
        col("PROTOCOL", Col::Id, 4),
        col("LEADER", Col::Id, 5),
        col("MEMBERS", Col::Text, 1),
        col("JOINED", Col::Text, 2),
        col("LEFT", Col::Text, 2),
        col("ASSIGNMENT-MOVED", Col::Text, 3),
    ]);
    let list = |v: &[String]| {
        if v.is_empty() {
            "-".to_string()
        } else {
            v.join(" ")
        }
    };
    for g in gens {
        let members: Vec<String> = g
            .members
            .iter()
            .map(|m| {
                let mut x = format!("{} ({}", m.member_id, m.client_id);
                if let Some(i) = &m.instance_id {
                    x.push_str(&format!(", static {i}"));
                }
                if let Some(e) = m.member_epoch {
                    x.push_str(&format!(", member epoch {e}"));
                }
                x.push(')');
                x
            })
            .collect();
        t.row(vec![
            esc(&g.group),
            g.generation.to_string(),
            rfc3339_ms(g.record_timestamp),
            esc(g
                .protocol
                .as_deref()
                .or(g.protocol_type.as_deref())
                .unwrap_or("-")),
            esc(g.leader.as_deref().unwrap_or("-")),
            if members.is_empty() {
                "(Empty)".into()
            } else {
                esc(&members.join(" "))
            },
            esc(&list(&g.joined)),
            esc(&list(&g.left)),
            esc(&list(&g.assignment_moved)),
        ]);
    }
    t
}

pub fn json_generation(out: &mut impl Write, g: &Generation) -> io::Result<()> {
    let mut v = serde_json::to_value(g).map_err(io::Error::from)?;
    v["type"] = "generation".into();
    line(out, &v)
}

pub fn json_rebalance_summary(
    out: &mut impl Write,
    s: &kseg_analysis::rebalances::RebalanceSummary,
) -> io::Result<()> {
    let mut v = serde_json::to_value(s).map_err(io::Error::from)?;
    v["verdict"] = rebalance_verdict(&s.verdict).into();
    v["type"] = "rebalanceSummary".into();
    line(out, &v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebalance_verdicts_in_words() {
        assert_eq!(
            rebalance_verdict(&RebalanceVerdict::Storm {
                generations: 25,
                first_timestamp: 0,
                last_timestamp: 240_000,
                rejoined: Some(("consumer-7".into(), 11)),
            }),
            "rebalance storm: 25 generations between 1970-01-01T00:00:00.000Z and \
             1970-01-01T00:04:00.000Z, member consumer-7 rejoined 11 times"
        );
        assert_eq!(
            rebalance_verdict(&RebalanceVerdict::Calm {
                generations: 3,
                span_ms: 90_000_000,
                longest_stable_ms: 86_400_000,
            }),
            "3 generations over 25h0m; longest stable stretch 24h0m"
        );
        assert_eq!(
            rebalance_verdict(&RebalanceVerdict::OneGeneration),
            "one generation"
        );
    }
}
