//! Rebalance history (`kseg groups --rebalances`): every generation a group went through, from
//! the group-metadata records of `__consumer_offsets` in log order. A classic group's coordinator
//! writes a GroupMetadataValue (record type 2) when a rebalance completes (SyncGroup of the
//! leader) and when the group goes Empty; a KIP-848 consumer group writes its group epoch
//! (ConsumerGroupMetadataValue, type 3) and its members (type 5; a tombstone when one leaves).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io;

use crate::partition_for::coordinator_key_id;
use kseg_format::coordinator::{
    decode_offsets_key, decode_offsets_value, parse_group_metadata, Value,
};
use kseg_format::log::{BatchInfo, LogEntry, LogRecord};
use kseg_format::protocol::uuid_string;
use kseg_scan::{Flow, LogProblem, LogSink};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub member_id: String,
    pub client_id: String,
    pub host: String,
    pub instance_id: Option<String>,
    /// `topic:[partitions]` (the classic consumer protocol's assignment, or a KIP-848 member's
    /// assigned partitions).
    pub assigned: Vec<String>,
    /// KIP-848: the member epoch of its current assignment.
    pub member_epoch: Option<i64>,
}

/// One generation (classic) or group epoch (KIP-848), as the coordinator recorded it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Generation {
    pub group: String,
    /// `classic` or `consumer`.
    pub kind: &'static str,
    /// The classic generation id, or the KIP-848 group epoch.
    pub generation: i64,
    pub record_timestamp: i64,
    pub state_timestamp: Option<i64>,
    pub coordinator_partition: i32,
    pub record_offset: i64,
    pub protocol_type: Option<String>,
    pub protocol: Option<String>,
    pub leader: Option<String>,
    pub members: Vec<Member>,
    pub joined: Vec<String>,
    pub left: Vec<String>,
    /// Members present before and after whose assignment changed.
    pub assignment_moved: Vec<String>,
}

/// Collects the generations from a coordinator partition's records (fed by
/// `analysis::groups::replay`, in the same pass as the offsets replay).
pub struct GenerationSink<'a> {
    out: &'a mut Vec<Generation>,
    partition: i32,
    filter: &'a [String],
    /// KIP-848 members per group: member id -> member.
    consumer_members: BTreeMap<String, BTreeMap<String, Member>>,
    last: BTreeMap<String, Vec<Member>>,
    /// The members of the generation before the last, per group.
    prev: BTreeMap<String, Vec<Member>>,
    /// Per group, its latest KIP-848 generation in `out` and its members by id: a member's
    /// assignment record (type 8) updates it in place, in constant time, and what moved is
    /// worked out once, when the group's next generation comes or the log ends (it was a scan of
    /// every generation and every member per record: quadratic in members).
    open: HashMap<String, OpenGeneration>,
    topic_names: &'a HashMap<String, String>,
}

struct OpenGeneration {
    index: usize,
    members: HashMap<String, usize>,
    /// Assignments changed since `last` and `assignment_moved` were worked out.
    changed: bool,
}

/// Members compared by [`moved`] and looked up by [`summarize`] so far in this process: the
/// work `--rebalances` does per generation, counted so that tests assert its growth (linear in
/// members), never its time.
static MOVED_WORK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The members [`moved`] has compared so far in this process.
pub fn rebalance_work() -> u64 {
    MOVED_WORK.load(std::sync::atomic::Ordering::Relaxed)
}

/// Members of `now` also in `before` with another assignment (looked up by member id: a
/// generation of 40k members is not 1.6 billion comparisons).
fn moved(before: &[Member], now: &[Member]) -> Vec<String> {
    MOVED_WORK.fetch_add(
        (before.len() + now.len()) as u64,
        std::sync::atomic::Ordering::Relaxed,
    );
    let mut by_id: HashMap<&str, Vec<&Member>> = HashMap::with_capacity(before.len());
    for b in before {
        by_id.entry(b.member_id.as_str()).or_default().push(b);
    }
    now.iter()
        .filter(|m| {
            by_id
                .get(m.member_id.as_str())
                .is_some_and(|bs| bs.iter().any(|b| b.assigned != m.assigned))
        })
        .map(|m| m.member_id.clone())
        .collect()
}

impl<'a> GenerationSink<'a> {
    pub fn new(
        out: &'a mut Vec<Generation>,
        partition: i32,
        filter: &'a [String],
        topic_names: &'a HashMap<String, String>,
    ) -> Self {
        GenerationSink {
            out,
            partition,
            filter,
            consumer_members: BTreeMap::new(),
            last: BTreeMap::new(),
            prev: BTreeMap::new(),
            open: HashMap::new(),
            topic_names,
        }
    }

    /// Works out what moved in `group`'s open generation after assignment records changed it.
    fn settle(&mut self, group: &str) {
        let Some(open) = self.open.get_mut(group) else {
            return;
        };
        if !std::mem::take(&mut open.changed) {
            return;
        }
        let g = &mut self.out[open.index];
        let before = self.prev.get(group).map_or(&[][..], Vec::as_slice);
        g.assignment_moved = moved(before, &g.members);
        self.last.insert(group.to_string(), g.members.clone());
    }

    /// Settles every group's open generation: call once the partition's log is read.
    pub fn finish(mut self) {
        let groups: Vec<String> = self.open.keys().cloned().collect();
        for g in groups {
            self.settle(&g);
        }
    }

    fn push(&mut self, mut g: Generation) {
        self.settle(&g.group.clone());
        let before = self.last.get(&g.group).cloned().unwrap_or_default();
        let ids = |ms: &[Member]| -> BTreeSet<String> {
            ms.iter().map(|m| m.member_id.clone()).collect()
        };
        let (was, now) = (ids(&before), ids(&g.members));
        g.joined = now.difference(&was).cloned().collect();
        g.left = was.difference(&now).cloned().collect();
        g.assignment_moved = moved(&before, &g.members);
        self.prev.insert(g.group.clone(), before);
        self.last.insert(g.group.clone(), g.members.clone());
        if g.kind == "consumer" {
            let members = g
                .members
                .iter()
                .enumerate()
                .map(|(i, m)| (m.member_id.clone(), i))
                .collect();
            self.open.insert(
                g.group.clone(),
                OpenGeneration {
                    index: self.out.len(),
                    members,
                    changed: false,
                },
            );
        }
        self.out.push(g);
    }
}

impl LogSink for GenerationSink<'_> {
    fn batch(&mut self, _p: u64, _e: &LogEntry<'_>, _b: &BatchInfo) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }

    fn record(&mut self, _p: u64, b: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        if b.is_control {
            return Ok(Flow::Continue);
        }
        let Some(key) = r.key else {
            return Ok(Flow::Continue);
        };
        let Some((record_type, group)) = coordinator_key_id(key) else {
            return Ok(Flow::Continue);
        };
        if !matches!(record_type, 2 | 3 | 5 | 8)
            || !(self.filter.is_empty() || self.filter.iter().any(|g| g == group))
        {
            return Ok(Flow::Continue);
        }
        let group = group.to_string();
        match (record_type, r.value) {
            (2, Some(v)) => {
                let Ok(m) = parse_group_metadata(v) else {
                    return Ok(Flow::Continue);
                };
                let members = m
                    .members
                    .iter()
                    .map(|x| Member {
                        member_id: x.member_id.clone(),
                        client_id: x.client_id.clone(),
                        host: x.client_host.clone(),
                        instance_id: x.group_instance_id.clone(),
                        assigned: x
                            .assignment
                            .iter()
                            .flat_map(|a| a.partitions.iter())
                            .map(|tp| format!("{}:{:?}", tp.topic, tp.partitions))
                            .collect(),
                        member_epoch: None,
                    })
                    .collect();
                self.push(Generation {
                    group,
                    kind: "classic",
                    generation: i64::from(m.generation),
                    record_timestamp: r.timestamp,
                    state_timestamp: m.current_state_timestamp,
                    coordinator_partition: self.partition,
                    record_offset: r.offset,
                    protocol_type: Some(m.protocol_type.clone()).filter(|p| !p.is_empty()),
                    protocol: m.protocol.clone(),
                    leader: m.leader.clone(),
                    members,
                    joined: Vec::new(),
                    left: Vec::new(),
                    assignment_moved: Vec::new(),
                });
            }
            (5, value) => {
                let Ok(k) = decode_offsets_key(key) else {
                    return Ok(Flow::Continue);
                };
                let id = k.data.str("memberId").unwrap_or_default().into_owned();
                let members = self.consumer_members.entry(group).or_default();
                match value.and_then(|v| decode_offsets_value(5, v).ok()) {
                    None => {
                        members.remove(&id);
                    }
                    Some(val) => {
                        let d = &val.data;
                        let s = |f: &str| d.str(f).unwrap_or_default().into_owned();
                        let m = members.entry(id.clone()).or_insert_with(|| Member {
                            member_id: id,
                            client_id: String::new(),
                            host: String::new(),
                            instance_id: None,
                            assigned: Vec::new(),
                            member_epoch: None,
                        });
                        m.client_id = s("clientId");
                        m.host = s("clientHost");
                        m.instance_id = d.str("instanceId").map(|s| s.into_owned());
                    }
                }
            }
            (8, Some(v)) => {
                // A KIP-848 member's current assignment, written after the group epoch it
                // reconciles to: it completes the latest generation of the group.
                let (Ok(k), Ok(val)) = (decode_offsets_key(key), decode_offsets_value(8, v)) else {
                    return Ok(Flow::Continue);
                };
                let id = k.data.str("memberId").unwrap_or_default().into_owned();
                let d = &val.data;
                let epoch = d.int("memberEpoch");
                let assigned: Vec<String> = d
                    .get("assignedPartitions")
                    .and_then(Value::as_array)
                    .map(|tps| {
                        tps.iter()
                            .filter_map(Value::as_struct)
                            .map(|tp| {
                                let topic = tp
                                    .get("topicId")
                                    .and_then(Value::as_uuid)
                                    .map(|u| uuid_string(&u))
                                    .unwrap_or_default();
                                let name = self
                                    .topic_names
                                    .get(&topic)
                                    .map_or(topic.as_str(), String::as_str);
                                let parts: Vec<i64> = tp
                                    .get("partitions")
                                    .and_then(Value::as_array)
                                    .map(|p| p.iter().filter_map(Value::as_int).collect())
                                    .unwrap_or_default();
                                format!("{name}:{parts:?}")
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                if let Some(m) = self
                    .consumer_members
                    .get_mut(&group)
                    .and_then(|ms| ms.get_mut(&id))
                {
                    m.assigned = assigned.clone();
                    m.member_epoch = epoch;
                }
                if let Some(open) = self.open.get_mut(&group) {
                    open.changed = true;
                    let g = &mut self.out[open.index];
                    if let Some(&i) = open.members.get(&id) {
                        let m = &mut g.members[i];
                        m.assigned = assigned;
                        m.member_epoch = epoch;
                    }
                }
            }
            (3, Some(v)) => {
                let Ok(val) = decode_offsets_value(3, v) else {
                    return Ok(Flow::Continue);
                };
                let members = self
                    .consumer_members
                    .get(&group)
                    .map(|m| m.values().cloned().collect())
                    .unwrap_or_default();
                self.push(Generation {
                    group,
                    kind: "consumer",
                    generation: val.data.int("epoch").unwrap_or(-1),
                    record_timestamp: r.timestamp,
                    state_timestamp: None,
                    coordinator_partition: self.partition,
                    record_offset: r.offset,
                    protocol_type: Some("consumer".into()),
                    protocol: None,
                    leader: None,
                    members,
                    joined: Vec::new(),
                    left: Vec::new(),
                    assignment_moved: Vec::new(),
                });
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }

    fn problem(&mut self, _p: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// What a group's generations say, in short.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RebalanceSummary {
    pub group: String,
    pub generations: usize,
    pub first_timestamp: i64,
    pub last_timestamp: i64,
    pub per_hour: f64,
    /// The longest time between two consecutive generation records (ms), and when it began.
    pub longest_stable_ms: i64,
    pub longest_stable_from: Option<i64>,
    /// Client ids (instance ids for static members) that joined more than once, with the count.
    pub repeated_joins: Vec<(String, usize)>,
    pub static_members: Vec<String>,
    /// Worded by the printer (the NDJSON's `verdict`).
    #[serde(skip)]
    pub verdict: RebalanceVerdict,
}

/// What a group's generations amount to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RebalanceVerdict {
    /// At least 10 generations at [`STORM_PER_HOUR`] or more, between two record timestamps;
    /// with the member that rejoined most and how many times it rejoined.
    Storm {
        generations: usize,
        first_timestamp: i64,
        last_timestamp: i64,
        rejoined: Option<(String, usize)>,
    },
    OneGeneration,
    /// Generations over a span (ms), with the longest time between two of them.
    Calm {
        generations: usize,
        span_ms: i64,
        longest_stable_ms: i64,
    },
}

/// Rebalances per hour at or above which (with at least 10 generations) kseg says "storm".
pub const STORM_PER_HOUR: f64 = 20.0;

pub fn summarize(group: &str, gens: &[&Generation]) -> Option<RebalanceSummary> {
    let first = gens.first()?.record_timestamp;
    let last = gens.last()?.record_timestamp;
    let mut longest = (0, None);
    for w in gens.windows(2) {
        let gap = w[1].record_timestamp - w[0].record_timestamp;
        if gap > longest.0 {
            longest = (gap, Some(w[0].record_timestamp));
        }
    }
    let mut joins: BTreeMap<String, usize> = BTreeMap::new();
    let mut statics = BTreeSet::new();
    for g in gens {
        // By id, so a generation costs its members, not joined × members.
        // The first member of an id, as a search in order would find it.
        MOVED_WORK.fetch_add(
            (g.members.len() + g.joined.len()) as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        let mut by_id: HashMap<&str, &Member> = HashMap::with_capacity(g.members.len());
        for m in &g.members {
            by_id.entry(m.member_id.as_str()).or_insert(m);
        }
        for id in &g.joined {
            if let Some(m) = by_id.get(id.as_str()) {
                let who = m.instance_id.clone().unwrap_or_else(|| m.client_id.clone());
                *joins.entry(who).or_default() += 1;
            }
        }
        for m in &g.members {
            if let Some(i) = &m.instance_id {
                statics.insert(i.clone());
            }
        }
    }
    let mut repeated: Vec<(String, usize)> = joins.into_iter().filter(|(_, n)| *n > 1).collect();
    repeated.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let span = (last - first).max(1);
    let per_hour = gens.len() as f64 * 3_600_000.0 / span as f64;
    let verdict = if gens.len() >= 10 && per_hour >= STORM_PER_HOUR {
        RebalanceVerdict::Storm {
            generations: gens.len(),
            first_timestamp: first,
            last_timestamp: last,
            rejoined: repeated.first().map(|(who, n)| (who.clone(), n - 1)),
        }
    } else if gens.len() == 1 {
        RebalanceVerdict::OneGeneration
    } else {
        RebalanceVerdict::Calm {
            generations: gens.len(),
            span_ms: last - first,
            longest_stable_ms: longest.0,
        }
    };
    Some(RebalanceSummary {
        group: group.to_string(),
        generations: gens.len(),
        first_timestamp: first,
        last_timestamp: last,
        per_hour,
        longest_stable_ms: longest.0,
        longest_stable_from: longest.1,
        repeated_joins: repeated,
        static_members: statics.into_iter().collect(),
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(id: &str, assigned: &[&str]) -> Member {
        Member {
            member_id: id.into(),
            client_id: "c".into(),
            host: "/127.0.0.1".into(),
            instance_id: None,
            assigned: assigned.iter().map(|a| a.to_string()).collect(),
            member_epoch: None,
        }
    }

    #[test]
    fn moved_is_members_kept_with_another_assignment() {
        let before = [
            member("a", &["t:[0]"]),
            member("b", &["t:[1]"]),
            member("c", &[]),
        ];
        let now = [
            member("a", &["t:[0]"]),
            member("b", &["t:[1, 2]"]),
            member("d", &["t:[3]"]),
        ];
        assert_eq!(moved(&before, &now), vec!["b".to_string()]);
        assert!(moved(&[], &now).is_empty());
        // A large generation: every member moves (linear, not one scan of `before` each).
        let n = 40_000;
        let before: Vec<Member> = (0..n)
            .map(|i| member(&format!("m{i}"), &["t:[0]"]))
            .collect();
        let now: Vec<Member> = (0..n)
            .map(|i| member(&format!("m{i}"), &["t:[1]"]))
            .collect();
        assert_eq!(moved(&before, &now).len(), n);
    }

    fn generation(n: i64, ts: i64, members: &[(&str, &str)]) -> Generation {
        Generation {
            group: "g".into(),
            kind: "classic",
            generation: n,
            record_timestamp: ts,
            state_timestamp: Some(ts),
            coordinator_partition: 0,
            record_offset: n,
            protocol_type: Some("consumer".into()),
            protocol: Some("range".into()),
            leader: None,
            members: members
                .iter()
                .map(|(id, client)| Member {
                    member_id: id.to_string(),
                    client_id: client.to_string(),
                    host: "/127.0.0.1".into(),
                    instance_id: None,
                    assigned: Vec::new(),
                    member_epoch: None,
                })
                .collect(),
            joined: Vec::new(),
            left: Vec::new(),
            assignment_moved: Vec::new(),
        }
    }

    #[test]
    fn joins_leaves_and_a_storm() {
        let mut out = Vec::new();
        let names = HashMap::new();
        let mut sink = GenerationSink::new(&mut out, 0, &[], &names);
        // A steady member, and consumer-7 rejoining with a new member id every 10 seconds.
        sink.push(generation(1, 0, &[("a", "steady")]));
        for i in 0..12 {
            let id = format!("b{i}");
            sink.push(generation(
                2 + 2 * i,
                10_000 * (2 * i + 1),
                &[("a", "steady"), (&id, "consumer-7")],
            ));
            sink.push(generation(
                3 + 2 * i,
                10_000 * (2 * i + 2),
                &[("a", "steady")],
            ));
        }
        assert_eq!(out[1].joined, vec!["b0"]);
        assert_eq!(out[2].left, vec!["b0"]);
        let refs: Vec<&Generation> = out.iter().collect();
        let s = summarize("g", &refs).unwrap();
        assert_eq!(s.generations, 25);
        assert_eq!(s.repeated_joins, vec![("consumer-7".to_string(), 12)]);
        assert_eq!(
            s.verdict,
            RebalanceVerdict::Storm {
                generations: 25,
                first_timestamp: 0,
                last_timestamp: 240_000,
                rejoined: Some(("consumer-7".into(), 11)),
            }
        );
        // Calm: three generations a day apart.
        let calm = [
            generation(1, 0, &[("a", "x")]),
            generation(2, 86_400_000, &[("a", "x"), ("b", "y")]),
            generation(3, 90_000_000, &[("a", "x")]),
        ];
        let refs: Vec<&Generation> = calm.iter().collect();
        let s = summarize("g", &refs).unwrap();
        assert_eq!(s.longest_stable_ms, 86_400_000);
        assert_eq!(
            s.verdict,
            RebalanceVerdict::Calm {
                generations: 3,
                span_ms: 90_000_000,
                longest_stable_ms: 86_400_000,
            }
        );
    }
}
