//! What a rescue is asked to do, from the arguments and the sources alone (no cluster): which
//! source partitions (one copy each, their topics filtered by `--topic`/`--exclude-topic`),
//! where each goes (`--topic-map`, `--partitioner`), which records (`--from-*`/`--to-*`), and
//! the target topics with the partitions they need.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use kseg_storage::discover::{DataSet, PartitionDir};
use kseg_storage::layout::PartitionState;

use super::{internal_target, Partitioning, Selection};
use crate::grep::Glob;

/// The arguments a plan is made from.
#[derive(Debug, Clone, Default)]
pub struct PlanRequest {
    /// `--topic-map OLD:NEW`.
    pub topic_map: BTreeMap<String, String>,
    /// `--topic GLOB` (any of them; none: every topic).
    pub include: Vec<Glob>,
    /// `--exclude-topic GLOB`.
    pub exclude: Vec<Glob>,
    pub selection: Selection,
    pub partitioning: Partitioning,
    /// `--groups`: committed offsets are translated, so partition numbers must be kept.
    pub groups: bool,
}

/// Why no plan could be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// `--groups` with `--partitioner murmur2`.
    GroupsNeedSamePartitions,
    /// One partition given twice (two copies of it).
    Twice {
        topic: String,
        partition: i32,
        first: PathBuf,
        second: PathBuf,
    },
    /// `--topic`/`--exclude-topic` left none of these source topics.
    NoTopicMatched { topics: Vec<String> },
    /// No live partition in the given paths.
    NothingToRescue,
    /// A target that is a Kafka internal topic (the refusal's words).
    InternalTarget(String),
}

/// A rescue's plan: the source partitions in (topic, partition) order and where they go.
#[derive(Debug, Clone)]
pub struct Plan<'a> {
    pub sources: Vec<&'a PartitionDir>,
    pub topic_map: BTreeMap<String, String>,
    pub selection: Selection,
    pub partitioning: Partitioning,
    /// Target topic → the partitions it needs (the highest source partition sent there + 1).
    pub needed: BTreeMap<String, i32>,
    /// Source topics `--topic`/`--exclude-topic` left out.
    pub left_out: BTreeSet<String>,
}

impl<'a> Plan<'a> {
    /// The plan for `set`: a log dir's internal topics (`__*`, another cluster's bookkeeping) are
    /// left out unless their partition dir is given; `-delete` and `-future` dirs always.
    pub fn new(set: &'a DataSet, req: PlanRequest) -> Result<Plan<'a>, PlanError> {
        if req.groups && req.partitioning == Partitioning::Murmur2 {
            return Err(PlanError::GroupsNeedSamePartitions);
        }
        let found: Vec<&PartitionDir> = set
            .log_dirs
            .iter()
            .flat_map(|d| d.partitions.iter())
            .filter(|p| !p.name.topic.starts_with("__"))
            .chain(set.partitions.iter())
            .filter(|p| p.name.state == PartitionState::Live)
            .collect();
        let wanted = |topic: &str| {
            (req.include.is_empty() || req.include.iter().any(|g| g.is_match(topic)))
                && !req.exclude.iter().any(|g| g.is_match(topic))
        };
        let mut left_out = BTreeSet::new();
        let mut sources: Vec<&PartitionDir> = Vec::new();
        for p in found {
            if wanted(&p.name.topic) {
                sources.push(p);
            } else {
                left_out.insert(p.name.topic.clone());
            }
        }
        sources.sort_by(|a, b| {
            (&a.name.topic, a.name.partition).cmp(&(&b.name.topic, b.name.partition))
        });
        for w in sources.windows(2) {
            if w[0].name.topic == w[1].name.topic && w[0].name.partition == w[1].name.partition {
                return Err(PlanError::Twice {
                    topic: w[0].name.topic.clone(),
                    partition: w[0].name.partition,
                    first: w[0].path.clone(),
                    second: w[1].path.clone(),
                });
            }
        }
        if sources.is_empty() {
            return Err(if left_out.is_empty() {
                PlanError::NothingToRescue
            } else {
                PlanError::NoTopicMatched {
                    topics: left_out.into_iter().collect(),
                }
            });
        }
        let mut plan = Plan {
            sources,
            topic_map: req.topic_map,
            selection: req.selection,
            partitioning: req.partitioning,
            needed: BTreeMap::new(),
            left_out,
        };
        for i in 0..plan.sources.len() {
            let d = plan.sources[i];
            let target = plan.target_topic(&d.name.topic).to_string();
            // An internal topic's partition given by name goes nowhere unless it is mapped.
            internal_target(&target).map_err(PlanError::InternalTarget)?;
            let n = plan.needed.entry(target).or_insert(0);
            *n = (*n).max(d.name.partition + 1);
        }
        Ok(plan)
    }

    /// Where records of source topic `topic` go.
    pub fn target_topic<'t>(&'t self, topic: &'t str) -> &'t str {
        self.topic_map.get(topic).map_or(topic, String::as_str)
    }

    /// The target topic of source `i`.
    pub fn target_of(&self, i: usize) -> &str {
        self.target_topic(&self.sources[i].name.topic)
    }

    /// "topic-partition" of source `i`.
    pub fn source_name(&self, i: usize) -> String {
        let d = self.sources[i];
        format!("{}-{}", d.name.topic, d.name.partition)
    }

    pub fn source_names(&self) -> Vec<String> {
        (0..self.sources.len())
            .map(|i| self.source_name(i))
            .collect()
    }

    /// Source topics, each once, in order.
    pub fn source_topics(&self) -> BTreeSet<&str> {
        self.sources.iter().map(|d| d.name.topic.as_str()).collect()
    }

    /// What was asked, as the `--state` file keeps it: a rerun must ask the same. (Its words are
    /// those of every kseg before, so their state files resume.)
    pub fn fingerprint(&self) -> String {
        format!(
            "sources={} map={:?} partitioner={:?} offsets={:?} timestamps={:?}",
            self.source_names().join(","),
            self.topic_map,
            self.partitioning,
            self.selection.offsets,
            self.selection.timestamps
        )
    }

    /// Target topics with fewer partitions (`count_of`) than a rescue keeping partition numbers
    /// needs: (topic, has, needs). None with `--partitioner murmur2`.
    pub fn short_topics(&self, count_of: impl Fn(&str) -> i32) -> Vec<(String, i32, i32)> {
        if self.partitioning != Partitioning::Same {
            return Vec::new();
        }
        self.needed
            .iter()
            .filter(|(t, need)| count_of(t) < **need)
            .map(|(t, need)| (t.clone(), count_of(t), *need))
            .collect()
    }

    /// Every target partition a record may go to, given the target topics' partition counts.
    pub fn target_partitions(&self, count_of: impl Fn(&str) -> i32) -> TargetPartitions {
        let mut targets = TargetPartitions::default();
        for i in 0..self.sources.len() {
            let topic = self.target_of(i);
            let parts: Vec<i32> = match self.partitioning {
                Partitioning::Same => vec![self.sources[i].name.partition],
                Partitioning::Murmur2 => (0..count_of(topic)).collect(),
            };
            for p in parts {
                targets.add(topic, p);
            }
        }
        targets
    }
}

/// The target partitions of a rescue, each with an index (the tracker's and the tails').
#[derive(Debug, Clone, Default)]
pub struct TargetPartitions {
    index: HashMap<(String, i32), u32>,
    pub names: Vec<(String, i32)>,
}

impl TargetPartitions {
    fn add(&mut self, topic: &str, partition: i32) {
        let key = (topic.to_string(), partition);
        if !self.index.contains_key(&key) {
            self.index.insert(key.clone(), self.names.len() as u32);
            self.names.push(key);
        }
    }

    /// The index of a target partition, if it is one of the plan's.
    pub fn find(&self, topic: &str, partition: i32) -> Option<usize> {
        self.index
            .get(&(topic.to_string(), partition))
            .map(|i| *i as usize)
    }

    /// The index of a target partition of the plan.
    pub fn of(&self, topic: &str, partition: i32) -> u32 {
        self.index[&(topic.to_string(), partition)]
    }

    /// "topic-partition" of target `i`.
    pub fn name(&self, i: usize) -> String {
        let (t, p) = &self.names[i];
        format!("{t}-{p}")
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn set() -> DataSet {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/example-datadir");
        kseg_storage::discover::discover(&[dir]).unwrap()
    }

    #[test]
    fn a_log_dir_gives_its_topics_without_internal_ones_in_order() {
        let set = set();
        let plan = Plan::new(&set, PlanRequest::default()).unwrap();
        let names = plan.source_names();
        assert!(names.iter().all(|n| !n.starts_with("__")), "{names:?}");
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert!(names.contains(&"payments-0".to_string()), "{names:?}");
        assert_eq!(plan.needed["payments"], 1);
        assert!(plan.fingerprint().starts_with("sources="));
        assert!(plan
            .fingerprint()
            .ends_with("map={} partitioner=Same offsets=(-9223372036854775808, 9223372036854775807) timestamps=(-9223372036854775808, 9223372036854775807)"));
    }

    #[test]
    fn topic_globs_choose_and_leave_out_topics() {
        let set = set();
        let req = PlanRequest {
            include: vec![Glob::new("pay*").unwrap(), Glob::new("orders").unwrap()],
            exclude: vec![Glob::new("orders").unwrap()],
            ..Default::default()
        };
        let plan = Plan::new(&set, req).unwrap();
        assert_eq!(plan.source_topics(), BTreeSet::from(["payments"]));
        assert!(plan.left_out.contains("orders"));
        let req = PlanRequest {
            include: vec![Glob::new("nothing-*").unwrap()],
            ..Default::default()
        };
        match Plan::new(&set, req) {
            Err(PlanError::NoTopicMatched { topics }) => {
                assert!(topics.contains(&"payments".to_string()))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn refusals_before_anything_connects() {
        let set = set();
        let req = PlanRequest {
            groups: true,
            partitioning: Partitioning::Murmur2,
            ..Default::default()
        };
        assert_eq!(
            Plan::new(&set, req).unwrap_err(),
            PlanError::GroupsNeedSamePartitions
        );
        let req = PlanRequest {
            topic_map: BTreeMap::from([("payments".to_string(), "__consumer_offsets".to_string())]),
            ..Default::default()
        };
        assert!(matches!(
            Plan::new(&set, req),
            Err(PlanError::InternalTarget(_))
        ));
    }

    #[test]
    fn target_partitions_follow_the_partitioner() {
        let set = set();
        let plan = Plan::new(&set, PlanRequest::default()).unwrap();
        let t = plan.target_partitions(|_| 3);
        assert_eq!(t.len(), plan.sources.len());
        assert_eq!(plan.short_topics(|_| 0).len(), plan.needed.len());
        let req = PlanRequest {
            partitioning: Partitioning::Murmur2,
            ..Default::default()
        };
        let plan = Plan::new(&set, req).unwrap();
        let t = plan.target_partitions(|_| 3);
        assert_eq!(t.len(), plan.needed.len() * 3);
        assert!(plan.short_topics(|_| 0).is_empty());
        assert_eq!(t.name(t.of("payments", 2) as usize), "payments-2");
    }
}
