//! What `kseg groups` reports: every group's committed offsets joined with the data partitions
//! on disk (lag, the age of the oldest unconsumed record, forensic flags, when the coordinator
//! expires the offset), the groups' state, and with `--rebalances` their generations.
//!
//! Memory: the replayed state (compact per group, see [`OffsetMap`]) plus 16 bytes per offset
//! (the age, which costs a read of the data partition); rows are made on the fly by
//! [`GroupsReport::rows`], as often as a printer needs them (a table measures its columns in a
//! first pass), never kept.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::Path;

use crate::expiry::{offset_expiry, Expiry};
use crate::groups::{
    consumer_group_view, partition_facts, replay, timestamp_at, Committed, ConsumerGroupView,
    GroupState, OffsetKey, PartitionFacts, Replay, ReplayOptions,
};
use crate::rebalances::{self, Generation, RebalanceSummary};
use crate::summary::{log_dir_facts, LogDirFacts};
use kseg_format::text_files::parse_partition_metadata;
use kseg_storage::discover::{DataSet, PartitionDir};
use kseg_storage::layout::{FileKind, PartitionState};
use kseg_storage::source::read_small;

/// The forensic flags of one offset, in the order they are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags {
    bits: u8,
    /// `expired` or `expires-in-1d` ([`Expiry::flag`]).
    expiry: Option<&'static str>,
}

const NOT_ON_DISK: u8 = 1;
const BEYOND_LOG_END: u8 = 2;
const BELOW_LOG_START: u8 = 4;
const TRANSACTIONAL: u8 = 8;

impl Flags {
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        [
            (NOT_ON_DISK, "partition-not-on-disk"),
            (BEYOND_LOG_END, "beyond-log-end"),
            (BELOW_LOG_START, "below-log-start"),
            (TRANSACTIONAL, "transactional"),
        ]
        .into_iter()
        .filter(|(bit, _)| self.bits & bit != 0)
        .map(|(_, name)| name)
        .chain(self.expiry)
    }

    pub fn joined(&self) -> String {
        self.names().collect::<Vec<_>>().join(",")
    }

    pub fn below_log_start(&self) -> bool {
        self.bits & BELOW_LOG_START != 0
    }
}

/// One output row: a group's committed offset on one partition, with the partition's facts.
#[derive(Debug, Clone, Copy)]
pub struct OffsetRow<'a> {
    pub group: &'a str,
    pub topic: &'a str,
    pub partition: i32,
    pub committed: &'a Committed,
    pub facts: Option<PartitionFacts>,
    /// The log end offset minus the committed offset, saturating (a hostile committed offset
    /// of i64::MIN gives i64::MAX, not a wrapped negative number).
    pub lag: Option<i64>,
    pub oldest_unconsumed_age_ms: Option<i64>,
    /// When the coordinator deletes the offset (`analysis::expiry`).
    pub expiry: Expiry,
    pub flags: Flags,
}

/// A group's rebalance verdict and its generations (indexes into
/// [`GroupsReport::generations`], in log order).
pub struct GroupRebalances {
    pub summary: RebalanceSummary,
    pub generations: Vec<usize>,
}

/// What `kseg groups` asks for.
pub struct GroupsQuery<'a> {
    pub filter: &'a [String],
    pub history: bool,
    pub rebalances: bool,
    pub mmap: bool,
    /// Replay the coordinator partitions in parallel (on rayon's current pool).
    pub parallel: bool,
    /// "Now", for the expiry flags (epoch ms).
    pub now: i64,
    pub retention_ms: i64,
}

pub struct GroupsReport<'s> {
    /// The `__consumer_offsets-N` partitions read.
    pub coordinator_partitions: usize,
    pub replay: Replay,
    pub generations: Vec<Generation>,
    pub rebalances: Vec<GroupRebalances>,
    /// KIP-848 groups' assembled view, by group.
    pub views: BTreeMap<String, ConsumerGroupView>,
    /// Committed offsets (rows) in all.
    pub offsets: usize,
    now: i64,
    retention_ms: i64,
    /// Data partitions by topic and partition: index into `dirs` and `facts`.
    data: HashMap<&'s str, HashMap<i32, usize>>,
    /// The data partitions' facts, read once each when a row first needs them.
    facts: Vec<Option<PartitionFacts>>,
    dirs: Vec<&'s PartitionDir>,
    /// Per row, in row order: the age of the oldest unconsumed record.
    ages: Vec<Option<i64>>,
}

impl GroupsReport<'_> {
    /// The instant the expiry flags are computed for (epoch ms).
    pub fn now(&self) -> i64 {
        self.now
    }

    /// The offsets.retention.minutes the expiry times assume, in ms.
    pub fn retention_ms(&self) -> i64 {
        self.retention_ms
    }
}

/// The `__consumer_offsets-N` partition dirs (live replicas) in `set`.
pub fn coordinator_partitions(set: &DataSet) -> Vec<&PartitionDir> {
    set.all_partitions()
        .filter(|p| p.name.topic == "__consumer_offsets" && p.name.state == PartitionState::Live)
        .collect()
}

/// KIP-848 records name topics by id; partition.metadata files give the names.
fn topic_names(set: &DataSet) -> HashMap<String, String> {
    set.all_partitions()
        .filter_map(|p| {
            let f = p
                .files
                .iter()
                .find(|f| f.kind == FileKind::PartitionMetadata)?;
            let text = String::from_utf8(read_small(&f.path, 1 << 16).ok()?).ok()?;
            let m = parse_partition_metadata(&text).ok()?;
            Some((m.topic_id, p.name.topic.clone()))
        })
        .collect()
}

/// Replays `partitions` (from [`coordinator_partitions`]) and joins the offsets with the data
/// partitions of `set`.
pub fn report<'s>(
    set: &'s DataSet,
    partitions: &[&'s PartitionDir],
    q: &GroupsQuery<'_>,
    segment_read: &(dyn Fn(&Path) + Sync),
) -> io::Result<GroupsReport<'s>> {
    let names = topic_names(set);
    let (replay, generations) = replay(
        partitions,
        &ReplayOptions {
            filter: q.filter,
            history: q.history,
            rebalances: q.rebalances.then_some(&names),
            mmap: q.mmap,
            parallel: q.parallel,
        },
        segment_read,
    )?;
    let log_dirs: Vec<(&Path, LogDirFacts)> = set
        .log_dirs
        .iter()
        .map(|d| (d.path.as_path(), log_dir_facts(d)))
        .collect();
    let mut data: HashMap<&str, HashMap<i32, usize>> = HashMap::new();
    let mut dirs = Vec::new();
    for p in set
        .all_partitions()
        .filter(|p| p.name.state == PartitionState::Live)
    {
        // The last of several replicas of one partition (JBOD) is the one read.
        let slot = data.entry(p.name.topic.as_str()).or_default();
        match slot.get(&p.name.partition) {
            Some(&i) => dirs[i] = p,
            None => {
                slot.insert(p.name.partition, dirs.len());
                dirs.push(p);
            }
        }
    }
    let views = replay
        .groups
        .iter()
        .filter_map(|(g, s)| Some((g.clone(), consumer_group_view(s, &names)?)))
        .collect();
    let rebalances = group_rebalances(&generations);
    let mut report = GroupsReport {
        coordinator_partitions: partitions.len(),
        facts: vec![None; dirs.len()],
        replay,
        generations,
        rebalances,
        views,
        offsets: 0,
        now: q.now,
        retention_ms: q.retention_ms,
        data,
        dirs,
        ages: Vec::new(),
    };
    // One pass to read what the rows need from disk: each data partition's facts once, and the
    // timestamp at each committed offset that lags.
    let mut ages = Vec::new();
    for (group, state) in &report.replay.groups {
        for (key, committed) in state.offsets.iter() {
            let dir = report.data_index(&key.0, key.1);
            if let Some(i) = dir {
                if report.facts[i].is_none() {
                    let d = report.dirs[i];
                    let of_dir = log_dirs
                        .iter()
                        .find(|(dir, _)| d.path.parent() == Some(*dir))
                        .map(|(_, f)| f);
                    report.facts[i] = Some(partition_facts(d, of_dir));
                }
            }
            let row = report.row(group, state, key, committed, None);
            let age = if row.lag.is_some_and(|l| l > 0) && !row.flags.below_log_start() {
                match (row.facts.and_then(|f| f.newest_timestamp), dir) {
                    (Some(newest), Some(i)) => timestamp_at(report.dirs[i], committed.offset)
                        .map(|ts| newest.saturating_sub(ts)),
                    _ => None,
                }
            } else {
                row.oldest_unconsumed_age_ms
            };
            ages.push(age);
        }
    }
    report.offsets = ages.len();
    report.ages = ages;
    Ok(report)
}

/// The generations grouped by group (in group order), each group's in log order, with its
/// verdict.
fn group_rebalances(generations: &[Generation]) -> Vec<GroupRebalances> {
    let mut order: Vec<usize> = (0..generations.len()).collect();
    // Stable: each group's generations stay in log order.
    order.sort_by(|&a, &b| generations[a].group.cmp(&generations[b].group));
    let mut out = Vec::new();
    for chunk in order.chunk_by(|&a, &b| generations[a].group == generations[b].group) {
        let gens: Vec<&Generation> = chunk.iter().map(|&i| &generations[i]).collect();
        if let Some(summary) = rebalances::summarize(&gens[0].group, &gens) {
            out.push(GroupRebalances {
                summary,
                generations: chunk.to_vec(),
            });
        }
    }
    out
}

impl GroupsReport<'_> {
    fn data_index(&self, topic: &str, partition: i32) -> Option<usize> {
        self.data.get(topic)?.get(&partition).copied()
    }

    fn row<'a>(
        &'a self,
        group: &'a str,
        state: &'a GroupState,
        key: &'a OffsetKey,
        committed: &'a Committed,
        age: Option<i64>,
    ) -> OffsetRow<'a> {
        let (topic, partition) = (key.0.as_ref(), key.1);
        let facts = self
            .data_index(topic, partition)
            .and_then(|i| self.facts[i]);
        let mut flags = Flags::default();
        let mut lag = None;
        match facts {
            None => flags.bits |= NOT_ON_DISK,
            Some(f) => {
                if let Some(end) = f.log_end_offset {
                    // Saturating: a hostile committed offset (i64::MIN) must not wrap.
                    lag = Some(end.saturating_sub(committed.offset));
                    if committed.offset > end {
                        flags.bits |= BEYOND_LOG_END;
                    }
                }
                if f.log_start_offset.is_some_and(|s| committed.offset < s) {
                    flags.bits |= BELOW_LOG_START;
                }
            }
        }
        if committed.transactional {
            flags.bits |= TRANSACTIONAL;
        }
        let pending = !self.replay.pending_transactional.is_empty()
            && self.replay.pending_transactional.contains(&(
                group.to_string(),
                topic.to_string(),
                partition,
            ));
        let expiry = offset_expiry(state, topic, committed, self.retention_ms, pending);
        flags.expiry = expiry.flag(self.now);
        OffsetRow {
            group,
            topic,
            partition,
            committed,
            facts,
            lag,
            oldest_unconsumed_age_ms: if lag == Some(0) { Some(0) } else { age },
            expiry,
            flags,
        }
    }

    /// Every committed offset, by group, topic and partition.
    pub fn rows(&self) -> impl Iterator<Item = OffsetRow<'_>> + '_ {
        self.replay
            .groups
            .iter()
            .flat_map(|(g, s)| s.offsets.iter().map(move |(k, c)| (g, s, k, c)))
            .zip(&self.ages)
            .map(|((g, s, k, c), age)| self.row(g, s, k, c, *age))
    }

    /// The groups asked for with `--group` that the replay does not know.
    pub fn missing<'q>(&self, asked: &'q [String]) -> Vec<&'q String> {
        asked
            .iter()
            .filter(|g| {
                !self.replay.groups.contains_key(*g)
                    && !self.generations.iter().any(|x| &x.group == *g)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_print_in_their_order() {
        let f = Flags {
            bits: TRANSACTIONAL | NOT_ON_DISK,
            expiry: Some("expired"),
        };
        assert_eq!(f.joined(), "partition-not-on-disk,transactional,expired");
        assert_eq!(Flags::default().joined(), "");
    }
}
