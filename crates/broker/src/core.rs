//! The broker's state: the log dir, its topics and partition logs, and the two coordinators.
//! Every operation here is synchronous and network-free, so `kseg mini-broker produce` and
//! `commit` use the very same code as the wire protocol.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use kafka_protocol::ResponseError;

use super::consumer_group::{ConsumerGroupConfig, ConsumerGroups, TopicMeta};
use super::files::{DirLock, MetaProperties};
use super::group::GroupCoordinator;
use super::log::{AppendInfo, LogConfig, PartitionLog};
use super::metadata::ClusterMetadata;
use super::topic_config;
use super::txn::TxnCoordinator;
use super::{now_ms, BrokerError, BrokerResult};
use kseg_format::batch::BatchHeader;

mod admin;
mod configs;
mod coordinators;
mod deferred;
mod lifecycle;
mod limits;

pub use configs::ConfigChange;
pub use deferred::{CheckpointFiles, DeletedPartitions, DueDeletions};
pub use limits::{
    open_file_limit, raise_open_file_limit, volume_space, PartitionBudget, FILES_PER_PARTITION,
    MAX_PARTITIONS_PER_REQUEST,
};

pub const OFFSETS_TOPIC: &str = "__consumer_offsets";
pub const TRANSACTION_TOPIC: &str = "__transaction_state";
/// `offsets.topic.segment.bytes` / `transaction.state.log.segment.bytes`.
pub const INTERNAL_SEGMENT_BYTES: u64 = 100 * 1024 * 1024;

/// Broker settings (Kafka's names in the comments).
#[derive(Debug, Clone)]
pub struct BrokerConfig {
    pub log_dir: PathBuf,
    /// `node.id`.
    pub node_id: i32,
    /// `num.partitions`: partitions of auto-created topics.
    pub num_partitions: i32,
    /// `log.segment.bytes`, `log.index.interval.bytes`, `log.index.size.max.bytes`,
    /// `log.message.timestamp.type`, `message.max.bytes`.
    pub log: LogConfig,
    /// `offsets.topic.num.partitions`.
    pub offsets_topic_partitions: u32,
    /// `transaction.state.log.num.partitions`.
    pub transaction_topic_partitions: u32,
    /// `auto.create.topics.enable`.
    pub auto_create_topics: bool,
    /// `group.initial.rebalance.delay.ms`.
    pub group_initial_rebalance_delay_ms: i64,
    /// `group.consumer.session.timeout.ms`, `group.consumer.heartbeat.interval.ms`,
    /// `group.consumer.assignment.interval.ms` (KIP-848 groups).
    pub consumer_groups: ConsumerGroupConfig,
    /// `log.retention.check.interval.ms`.
    pub retention_check_interval_ms: i64,
    /// The PLAINTEXT endpoint (advertised host, port) the broker registers in the metadata log
    /// when it starts; `None` when a scripting command (`mini-broker produce`, `commit`) opens
    /// the log dir and no broker serves it.
    pub listener: Option<(String, i32)>,
}

/// A topic as the KIP-848 assignors see it.
fn topic_meta(topics: &BTreeMap<String, Topic>, name: &str) -> Option<TopicMeta> {
    topics.get(name).map(|t| TopicMeta {
        name: t.name.clone(),
        id: t.id,
        partitions: t.partitions.len() as i32,
    })
}

impl BrokerConfig {
    pub fn new(log_dir: PathBuf) -> Self {
        BrokerConfig {
            log_dir,
            node_id: 1,
            num_partitions: 1,
            log: LogConfig::default(),
            offsets_topic_partitions: 50,
            transaction_topic_partitions: 50,
            auto_create_topics: true,
            group_initial_rebalance_delay_ms: 0,
            consumer_groups: ConsumerGroupConfig::default(),
            retention_check_interval_ms: 300_000,
            listener: None,
        }
    }
}

pub struct Topic {
    pub name: String,
    pub id: [u8; 16],
    pub partitions: Vec<PartitionLog>,
}

/// What opening a log dir found, for the broker's log.
#[derive(Debug, Default)]
pub struct OpenReport {
    pub clean_shutdown: bool,
    pub notes: Vec<String>,
}

pub struct Broker {
    pub config: BrokerConfig,
    _lock: DirLock,
    pub meta: MetaProperties,
    topics: BTreeMap<String, Topic>,
    pub groups: GroupCoordinator,
    /// KIP-848 consumer groups (their offsets live in `groups`).
    pub consumer_groups: ConsumerGroups,
    pub txns: TxnCoordinator,
    next_producer_id: i64,
    closed: bool,
    /// The KRaft metadata log: topic ids, partitions, configs, features, the registration.
    pub metadata: ClusterMetadata,
    /// Partition dirs renamed `-delete` by topic deletion, with when they may go.
    deleting_dirs: Vec<(i64, PathBuf)>,
    /// When the next retention check runs.
    next_retention_check: i64,
    /// Topics whose new partitions are being made outside the lock ([`NewPartitions`]), with
    /// how many: their names are taken and their files counted against the open-file limit.
    creating: BTreeMap<String, i32>,
    /// Writes the log-dir checkpoints, under the lock or without it, one at a time.
    checkpoints: std::sync::Arc<deferred::CheckpointWriter>,
}

/// New partitions of one topic, checked and reserved under the broker lock, whose dirs and
/// files [`Self::make`] creates (and fsyncs) without the broker, before [`Broker::publish`]
/// makes them part of it.
pub(crate) struct NewPartitions {
    log_dir: PathBuf,
    topic: String,
    id: [u8; 16],
    config: LogConfig,
    first: i32,
    end: i32,
    /// A new topic, with its config overrides; `None`: partitions added to an existing topic.
    new_topic: Option<Vec<(String, String)>>,
}

impl NewPartitions {
    /// Creates the partitions' dirs and files. One that cannot be made removes those made
    /// before it.
    pub(crate) fn make(&self) -> std::io::Result<MadeLogs> {
        let mut made = MadeLogs {
            logs: Vec::with_capacity((self.end - self.first) as usize),
        };
        for p in self.first..self.end {
            match PartitionLog::create(
                &self.log_dir,
                &self.topic,
                p,
                self.id,
                self.config.clone(),
                0,
            ) {
                Ok(log) => made.logs.push(log),
                Err(e) => {
                    let dir = self.log_dir.join(format!("{}-{p}", self.topic));
                    if dir.is_dir() {
                        let _ = fs::remove_dir_all(dir);
                    }
                    return Err(e);
                }
            }
        }
        Ok(made)
    }
}

/// Partition logs made by [`NewPartitions::make`] and not yet published: dropped unpublished
/// (a failure, a broker that closed meanwhile, a request cancelled at shutdown), their dirs
/// are removed, so that a later start does not load partitions nobody created.
pub(crate) struct MadeLogs {
    logs: Vec<PartitionLog>,
}

impl Drop for MadeLogs {
    fn drop(&mut self) {
        for log in self.logs.drain(..) {
            let dir = log.dir.clone();
            drop(log);
            let _ = fs::remove_dir_all(dir);
        }
    }
}

/// Kafka's topic name rule: 1 to 249 of `[a-zA-Z0-9._-]`, not `.` or `..`.
pub fn valid_topic_name(name: &str) -> bool {
    topic_name_problem(name).is_none()
}

/// Why Kafka refuses a topic name (`Topic.detectInvalidTopic`, in its order; the length is
/// Java's, in UTF-16 units), or `None` for a legal name.
pub fn topic_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("the empty string is not allowed".into());
    }
    if name == "." || name == ".." {
        return Some(format!("'{name}' is not allowed"));
    }
    if name.encode_utf16().count() > 249 {
        return Some(format!(
            "the length of '{name}' is longer than the max allowed length 249"
        ));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    {
        return Some(format!(
            "'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
        ));
    }
    None
}

/// INVALID_TOPIC_EXCEPTION for an illegal name, with the message `Topic.validate` gives.
pub fn validate_topic_name(name: &str) -> BrokerResult<()> {
    match topic_name_problem(name) {
        None => Ok(()),
        Some(why) => Err(BrokerError::new(
            ResponseError::InvalidTopicException,
            format!("Topic name is invalid: {why}"),
        )),
    }
}

/// TOPIC_ALREADY_EXISTS, with the message of Kafka's controller.
fn topic_exists(name: &str) -> BrokerError {
    BrokerError::new(
        ResponseError::TopicAlreadyExists,
        format!("Topic '{name}' already exists."),
    )
}

/// INVALID_PARTITIONS for a count below 1, with the message of Kafka's controller.
fn invalid_partition_count() -> BrokerError {
    BrokerError::new(
        ResponseError::InvalidPartitions,
        "Number of partitions was set to an invalid non-positive value.",
    )
}

impl Broker {
    pub fn topics(&self) -> impl Iterator<Item = &Topic> {
        self.topics.values()
    }

    pub fn topic(&self, name: &str) -> Option<&Topic> {
        self.topics.get(name)
    }

    pub fn topic_by_id(&self, id: &[u8; 16]) -> Option<&Topic> {
        self.topics.values().find(|t| &t.id == id)
    }

    /// Creates a topic with `partitions` partitions (`CreateTopics`, auto-creation), with the
    /// configs Kafka gives its internal topics.
    pub fn create_topic(&mut self, name: &str, partitions: i32) -> BrokerResult<&Topic> {
        let overrides: Vec<(String, String)> = internal_topic_configs(name)
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        self.create_topic_with(name, partitions, &overrides)
    }

    /// Creates a topic with config overrides (validated before): its partition dirs, then its
    /// records in the metadata log; all or nothing. The three steps in one call; CreateTopics
    /// runs them with the middle one outside the broker lock ([`Self::prepare_topic`],
    /// [`NewPartitions::make`], [`Self::publish`]).
    pub(crate) fn create_topic_with(
        &mut self,
        name: &str,
        partitions: i32,
        overrides: &[(String, String)],
    ) -> BrokerResult<&Topic> {
        let plan = self.prepare_topic(name, partitions, overrides)?;
        let made = plan.make();
        self.publish(plan, made)?;
        Ok(&self.topics[name])
    }

    /// The checks of a new topic, and its name and partitions reserved until
    /// [`Self::publish`]: what [`NewPartitions::make`] needs to make its files without the
    /// broker.
    pub(crate) fn prepare_topic(
        &mut self,
        name: &str,
        partitions: i32,
        overrides: &[(String, String)],
    ) -> BrokerResult<NewPartitions> {
        validate_topic_name(name)?;
        if self.topics.contains_key(name) || self.creating.contains_key(name) {
            return Err(topic_exists(name));
        }
        if partitions <= 0 {
            return Err(invalid_partition_count());
        }
        PartitionBudget::default().take(partitions)?;
        limits::check_open_files(partitions.saturating_add(self.reserved_partitions()))?;
        let map: BTreeMap<String, String> = overrides.iter().cloned().collect();
        let plan = NewPartitions {
            log_dir: self.config.log_dir.clone(),
            topic: name.to_string(),
            id: super::files::random_uuid(),
            config: topic_log_config(&self.broker_log_config(), name, Some(&map)),
            first: 0,
            end: partitions,
            new_topic: Some(overrides.to_vec()),
        };
        self.creating.insert(name.to_string(), partitions);
        Ok(plan)
    }

    /// Partitions reserved by plans not yet published.
    fn reserved_partitions(&self) -> i32 {
        self.creating
            .values()
            .fold(0i32, |sum, n| sum.saturating_add(*n))
    }

    /// Makes the partitions `plan` made (`made`, from [`NewPartitions::make`]) part of the
    /// broker: the new topic's records, or the new partitions' records, in the metadata log,
    /// then the logs served. Releases the plan's reservation; on any failure the made partition
    /// dirs are removed (all or nothing).
    pub(crate) fn publish(
        &mut self,
        plan: NewPartitions,
        made: std::io::Result<MadeLogs>,
    ) -> BrokerResult<()> {
        self.creating.remove(&plan.topic);
        let mut made = made?;
        let name = plan.topic.as_str();
        match &plan.new_topic {
            Some(overrides) => {
                let epochs = vec![0; (plan.end - plan.first) as usize];
                self.metadata
                    .create_topic(name, plan.id, &epochs, overrides, now_ms())?;
                self.topics.insert(
                    name.to_string(),
                    Topic {
                        name: name.to_string(),
                        id: plan.id,
                        partitions: std::mem::take(&mut made.logs),
                    },
                );
            }
            None => {
                // The topic as it was planned (admin requests that change partitions run one at
                // a time, so only a deletion could have come between).
                let unchanged = self
                    .topics
                    .get(name)
                    .is_some_and(|t| t.id == plan.id && t.partitions.len() as i32 == plan.first);
                if !unchanged {
                    return Err(unknown_partition(name, plan.first));
                }
                self.metadata
                    .add_partitions(name, plan.first, plan.end, now_ms())?;
                let topic = self.topics.get_mut(name).expect("checked above");
                topic.partitions.append(&mut made.logs);
            }
        }
        Ok(())
    }

    /// The topic, created with the default partition count when auto-creation allows it.
    pub fn topic_or_create(&mut self, name: &str) -> BrokerResult<&Topic> {
        if self.creating.contains_key(name) {
            // Its files are being made outside the lock: retriable, as Kafka answers a topic
            // whose creation is under way.
            let error = if name == OFFSETS_TOPIC || name == TRANSACTION_TOPIC {
                ResponseError::CoordinatorNotAvailable
            } else {
                ResponseError::LeaderNotAvailable
            };
            return Err(BrokerError::new(error, format!("{name} is being created")));
        }
        if !self.topics.contains_key(name) {
            let plan = self.prepare_auto_create(name)?;
            let made = plan.make();
            self.publish(plan, made)?;
        }
        Ok(&self.topics[name])
    }

    /// The checks and the plan of an auto-created topic (`AutoTopicCreationManager`): the
    /// default partition count, or an internal topic's with its coordinator's configs, which
    /// Kafka creates whatever auto.create.topics.enable says. The server makes its files
    /// outside the broker lock, as CreateTopics does.
    pub(crate) fn prepare_auto_create(&mut self, name: &str) -> BrokerResult<NewPartitions> {
        let internal = name == OFFSETS_TOPIC || name == TRANSACTION_TOPIC;
        if !self.config.auto_create_topics && !internal {
            return Err(BrokerError::new(
                ResponseError::UnknownTopicOrPartition,
                format!("unknown topic {name}"),
            ));
        }
        let n = if name == OFFSETS_TOPIC {
            self.config.offsets_topic_partitions as i32
        } else if name == TRANSACTION_TOPIC {
            self.config.transaction_topic_partitions as i32
        } else {
            self.config.num_partitions
        };
        let overrides: Vec<(String, String)> = internal_topic_configs(name)
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        self.prepare_topic(name, n, &overrides)
    }

    pub fn partition(&self, topic: &str, partition: i32) -> BrokerResult<&PartitionLog> {
        self.topics
            .get(topic)
            .and_then(|t| t.partitions.get(usize::try_from(partition).ok()?))
            .ok_or_else(|| unknown_partition(topic, partition))
    }

    pub fn partition_mut(
        &mut self,
        topic: &str,
        partition: i32,
    ) -> BrokerResult<&mut PartitionLog> {
        self.topics
            .get_mut(topic)
            .and_then(|t| t.partitions.get_mut(usize::try_from(partition).ok()?))
            .ok_or_else(|| unknown_partition(topic, partition))
    }

    /// Appends a produced batch as leader. Transactional batches must belong to their
    /// producer's open transaction (AddPartitionsToTxn first), as Kafka verifies; an internal
    /// topic is INVALID_TOPIC_EXCEPTION (after UNKNOWN_TOPIC_OR_PARTITION, as Kafka checks).
    pub fn produce(
        &mut self,
        topic: &str,
        partition: i32,
        records: Vec<u8>,
    ) -> BrokerResult<AppendInfo> {
        if let Ok(h) = BatchHeader::parse(&records) {
            if h.is_transactional()
                && !self
                    .txns
                    .includes(h.producer_id, h.producer_epoch, topic, partition)
            {
                return Err(BrokerError::new(
                    ResponseError::InvalidTxnState,
                    format!(
                        "producer {} epoch {} has no open transaction including {topic}-{partition}",
                        h.producer_id, h.producer_epoch
                    ),
                ));
            }
        }
        let now = now_ms();
        let log = self.partition_mut(topic, partition)?;
        // ReplicaManager.appendToLocalLog: clients never write a coordinator's topic.
        if kseg_format::internal::is_internal_topic(topic) {
            return Err(BrokerError::new(
                ResponseError::InvalidTopicException,
                format!("Cannot append to internal topic {topic}"),
            ));
        }
        log.append_client(records, now)
    }

    pub fn is_closed(&self) -> bool {
        self.closed
    }
}

fn unknown_partition(topic: &str, partition: i32) -> BrokerError {
    BrokerError::new(
        ResponseError::UnknownTopicOrPartition,
        format!("this server does not host {topic}-{partition}"),
    )
}

/// The configs Kafka's coordinators create their topics with (`GroupCoordinator.groupMetadataTopicConfigs`,
/// `TransactionStateManager.transactionTopicConfigs`), in the order Kafka 4.4 writes their
/// ConfigRecords.
pub(crate) fn internal_topic_configs(topic: &str) -> &'static [(&'static str, &'static str)] {
    match topic {
        OFFSETS_TOPIC => &[
            ("compression.type", "producer"),
            ("cleanup.policy", "compact"),
            ("segment.bytes", "104857600"),
        ],
        TRANSACTION_TOPIC => &[
            ("compression.type", "uncompressed"),
            ("cleanup.policy", "compact"),
            ("min.insync.replicas", "1"),
            ("segment.bytes", "104857600"),
            ("unclean.leader.election.enable", "false"),
        ],
        _ => &[],
    }
}

/// Topic configs: the broker defaults, with Kafka's 100 MiB segments for internal topics.
/// Internal topics are compacted (`cleanup.policy=compact`), so retention never deletes them.
pub(crate) fn topic_log_config(
    broker: &LogConfig,
    topic: &str,
    overrides: Option<&BTreeMap<String, String>>,
) -> LogConfig {
    let mut c = broker.clone();
    if topic == OFFSETS_TOPIC || topic == TRANSACTION_TOPIC {
        c.segment_bytes = INTERNAL_SEGMENT_BYTES;
        c.delete = false;
        c.compact = true;
    }
    match overrides {
        Some(o) => topic_config::apply(&c, o),
        None => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::CLEAN_SHUTDOWN;
    use crate::group::CommitPartition;

    /// Issue 14 item 1: a partition count from the wire sizes nothing before it is checked.
    #[test]
    fn a_huge_partition_count_is_refused_before_anything_is_made() {
        let dir = tempfile::tempdir().unwrap();
        let (mut b, _) = Broker::open(BrokerConfig::new(dir.path().join("data"))).unwrap();
        let e = b.create_topic("huge", i32::MAX).err().expect("refused");
        assert_eq!(e.code(), ResponseError::PolicyViolation.code());
        assert!(e.to_string().contains("excessively large"), "{e}");
        assert!(!dir.path().join("data/huge-0").exists());
        assert!(b.topic("huge").is_none());
    }

    /// Issue 14 item 11: a topic whose creation fails part way leaves no partition dir, so the
    /// broker starts again on its log dir.
    #[test]
    fn a_topic_that_fails_part_way_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let config = BrokerConfig::new(dir.path().join("data"));
        let (mut b, _) = Broker::open(config.clone()).unwrap();
        // A regular file where partition 5's directory must go.
        fs::write(config.log_dir.join("t-5"), b"in the way").unwrap();
        let e = b.create_topic("t", 10).err().expect("creation fails");
        assert!(
            e.to_string().contains("t-5"),
            "the error names the path: {e}"
        );
        for p in 0..5 {
            assert!(
                !config.log_dir.join(format!("t-{p}")).exists(),
                "t-{p} left behind"
            );
        }
        assert!(
            config.log_dir.join("t-5").is_file(),
            "a file not ours is kept"
        );
        assert!(b.topic("t").is_none());
        b.shutdown().unwrap();
        drop(b);
        fs::remove_file(config.log_dir.join("t-5")).unwrap();
        let (b, _) = Broker::open(config).unwrap();
        assert!(b.topic("t").is_none());
    }

    #[test]
    fn open_create_commit_shutdown_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = BrokerConfig::new(dir.path().join("data"));
        config.offsets_topic_partitions = 50;
        let (mut b, report) = Broker::open(config.clone()).unwrap();
        assert!(!report.clean_shutdown);
        b.create_topic("t", 3).unwrap();
        let codes = b
            .commit_offsets(
                "b1.offsets.group",
                "",
                -1,
                &[CommitPartition {
                    topic: "t".into(),
                    partition: 1,
                    offset: 12,
                    leader_epoch: 0,
                    metadata: None,
                    topic_id: None,
                }],
                None,
                9,
            )
            .unwrap();
        assert_eq!(codes, vec![0]);
        assert_eq!(b.partition(OFFSETS_TOPIC, 22).unwrap().log_end_offset(), 1);
        assert!(
            DirLock::acquire(&config.log_dir).is_err(),
            "the dir is locked while open"
        );
        b.shutdown().unwrap();
        drop(b);
        assert!(config.log_dir.join(CLEAN_SHUTDOWN).exists());
        let (b, report) = Broker::open(config.clone()).unwrap();
        assert!(report.clean_shutdown);
        assert!(!config.log_dir.join(CLEAN_SHUTDOWN).exists());
        assert_eq!(
            b.groups.fetch_offset("b1.offsets.group", "t", 1, true).0,
            12
        );
        assert_eq!(b.topic("t").unwrap().partitions.len(), 3);
    }
}
