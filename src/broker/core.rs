//! The broker's state: the log dir, its topics and partition logs, and the two coordinators.
//! Every operation here is synchronous and network-free, so `kseg mini-broker produce` and
//! `commit` use the very same code as the wire protocol.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::PathBuf;

use kafka_protocol::ResponseError;

use super::consumer_group::{
    ConsumerGroupConfig, ConsumerGroups, Heartbeat, HeartbeatOutcome, TopicMeta,
};
use super::files::{
    clean_shutdown_text, offset_checkpoint_text, read_offset_checkpoint, write_atomically, DirLock,
    MetaProperties, CLEAN_SHUTDOWN, LOG_START_CHECKPOINT, META_PROPERTIES,
    RECOVERY_POINT_CHECKPOINT, REPLICATION_CHECKPOINT,
};
use super::group::{CommitPartition, CoordinatorRecord, GroupCoordinator};
use super::log::{AppendInfo, LogConfig, PartitionLog};
use super::records::{
    decode_group_value, decode_offset_value, decode_offsets_key, decode_transaction_value,
    transactional_id_of_key, OffsetsKey,
};
use super::topic_config;
use super::txn::{EndPlan, TxnCoordinator};
use super::{now_ms, BrokerError, BrokerResult};
use crate::analysis::partition_for::partition_for;
use crate::format::batch::BatchHeader;
use crate::format::control::{decode_control, ControlType};
use crate::format::coordinator;
use crate::format::encode::NewRecord;
use crate::storage::layout::{parse_partition_dir, PartitionState};

mod admin;

pub const OFFSETS_TOPIC: &str = "__consumer_offsets";
pub const TRANSACTION_TOPIC: &str = "__transaction_state";
/// `offsets.topic.segment.bytes` / `transaction.state.log.segment.bytes`.
pub const INTERNAL_SEGMENT_BYTES: u64 = 100 * 1024 * 1024;

/// The most partitions one request may create (Kafka's controller refuses more than 10,000
/// records per operation: "Excessively large number of partitions per request").
pub const MAX_PARTITIONS_PER_REQUEST: i32 = 10_000;
/// Descriptors a new partition holds: its active segment's log, offset index and time index.
pub const FILES_PER_PARTITION: u64 = 3;
/// Descriptors kept free for connections, checkpoints and snapshots.
const FILES_RESERVE: u64 = 256;

/// Refuses to create `partitions` partitions when their files would not fit under the process's
/// open-file limit (`ulimit -n`), before any file is made, instead of failing part way with
/// EMFILE.
fn check_open_files(partitions: i32) -> BrokerResult<()> {
    let Some(limit) = open_file_limit() else {
        return Ok(());
    };
    let open = fs::read_dir("/proc/self/fd").map_or(0, |d| d.count() as u64);
    let needed = partitions as u64 * FILES_PER_PARTITION;
    if open + needed + FILES_RESERVE > limit {
        return Err(BrokerError::new(
            ResponseError::PolicyViolation,
            format!(
                "{partitions} partitions need {needed} more open files; {open} of the limit of {limit} are in use (raise ulimit -n)"
            ),
        ));
    }
    Ok(())
}

/// The soft `RLIMIT_NOFILE`, `None` when unlimited or unknown.
pub fn open_file_limit() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct passed.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } != 0
        || r.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    Some(r.rlim_cur)
}

/// Raises the soft open-file limit to the hard one, as the JVM does for Kafka
/// (`-XX:+MaxFDLimit`, on by default): a broker holds several files per partition.
pub fn raise_open_file_limit() {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) == 0 && r.rlim_cur < r.rlim_max {
            r.rlim_cur = r.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &r);
        }
    }
}

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
    /// Topic config overrides by topic ([`topic_config`]).
    topic_configs: BTreeMap<String, BTreeMap<String, String>>,
    /// Partition dirs renamed `-delete` by topic deletion, with when they may go.
    deleting_dirs: Vec<(i64, PathBuf)>,
    /// When the next retention check runs.
    next_retention_check: i64,
}

/// Kafka's topic name rule: 1 to 249 of `[a-zA-Z0-9._-]`, not `.` or `..`.
pub fn valid_topic_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 249
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

impl Broker {
    /// Opens (or creates) a log dir: takes its lock, loads every partition (recovering them
    /// like Kafka when there is no clean-shutdown marker), removes the marker, and reloads
    /// group and transaction state from the internal topics.
    pub fn open(config: BrokerConfig) -> io::Result<(Broker, OpenReport)> {
        let dir = config.log_dir.clone();
        fs::create_dir_all(&dir)?;
        let lock = DirLock::acquire(&dir)?;
        let meta = match MetaProperties::read(&dir) {
            Some(m) => m,
            None => {
                let m = MetaProperties::new(config.node_id);
                write_atomically(&dir.join(META_PROPERTIES), m.text(now_ms()).as_bytes())?;
                m
            }
        };
        let mut report = OpenReport {
            clean_shutdown: dir.join(CLEAN_SHUTDOWN).exists(),
            notes: Vec::new(),
        };
        let recovery: BTreeMap<(String, i32), i64> =
            read_offset_checkpoint(&dir.join(RECOVERY_POINT_CHECKPOINT))
                .into_iter()
                .map(|(t, p, o)| ((t, p), o))
                .collect();
        let log_start: BTreeMap<(String, i32), i64> =
            read_offset_checkpoint(&dir.join(LOG_START_CHECKPOINT))
                .into_iter()
                .map(|(t, p, o)| ((t, p), o))
                .collect();
        let mut found: BTreeMap<String, BTreeMap<i32, PathBuf>> = BTreeMap::new();
        for entry in fs::read_dir(&dir)? {
            let entry = entry?;
            if !entry.file_type()?.is_dir() {
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(p) = parse_partition_dir(&name) {
                if p.state == PartitionState::Live {
                    found
                        .entry(p.topic)
                        .or_default()
                        .insert(p.partition, entry.path());
                }
            }
        }
        let topic_configs = topic_config::read(&dir)?;
        let mut topics = BTreeMap::new();
        for (name, parts) in found {
            let log_config = topic_log_config(&config, &name, topic_configs.get(&name));
            let mut partitions = Vec::new();
            for (i, (p, path)) in parts.into_iter().enumerate() {
                if p != i as i32 {
                    report.notes.push(format!(
                        "{name}: partition {i} is missing on disk; {name}-{p} and later partitions are not loaded"
                    ));
                    break;
                }
                let key = (name.clone(), p);
                let (log, r) = PartitionLog::load(
                    &path,
                    &name,
                    p,
                    log_config.clone(),
                    report.clean_shutdown,
                    recovery.get(&key).copied(),
                    log_start.get(&key).copied(),
                    None,
                )
                .map_err(|e| {
                    if e.to_string().contains(&*path.to_string_lossy()) {
                        e
                    } else {
                        super::log::with_path(&path, e)
                    }
                })?;
                if r.recovered_segments > 0 {
                    report.notes.push(format!(
                        "{name}-{p}: recovered {} segment(s) after an unclean shutdown{}{}",
                        r.recovered_segments,
                        r.truncated_at
                            .as_ref()
                            .map(|(f, at, why)| format!(
                                "; truncated {} at byte {at} ({why})",
                                f.display()
                            ))
                            .unwrap_or_default(),
                        if r.deleted_segments.is_empty() {
                            String::new()
                        } else {
                            format!("; deleted segments {:?}", r.deleted_segments)
                        }
                    ));
                }
                partitions.push(log);
            }
            if partitions.is_empty() {
                continue;
            }
            let id = partitions[0].topic_id;
            topics.insert(
                name.clone(),
                Topic {
                    name,
                    id,
                    partitions,
                },
            );
        }
        if report.clean_shutdown {
            fs::remove_file(dir.join(CLEAN_SHUTDOWN))?;
        }
        let config_retention_interval = config.retention_check_interval_ms.max(1);
        let mut broker = Broker {
            groups: GroupCoordinator::new(config.group_initial_rebalance_delay_ms),
            consumer_groups: ConsumerGroups::new(config.consumer_groups),
            config,
            _lock: lock,
            meta,
            topics,
            txns: TxnCoordinator::default(),
            next_producer_id: 0,
            closed: false,
            topic_configs,
            deleting_dirs: Vec::new(),
            // LogManager schedules its first retention check 30 s after start.
            next_retention_check: now_ms() + 30_000i64.min(config_retention_interval),
        };
        broker.load_coordinators()?;
        broker.schedule_leftover_deletes(now_ms())?;
        // Transactions a crash left between Prepare and Complete get their markers now.
        for plan in broker.txns.pending_ends() {
            broker
                .complete_transaction(&plan, now_ms())
                .map_err(|e| io::Error::other(format!("completing transaction: {e}")))?;
        }
        broker.write_checkpoints()?;
        Ok((broker, report))
    }

    fn load_coordinators(&mut self) -> io::Result<()> {
        let now = now_ms();
        let mut max_pid = -1i64;
        for topic in self.topics.values() {
            for log in &topic.partitions {
                if let Some(p) = log.producers.producers().map(|e| e.producer_id).max() {
                    max_pid = max_pid.max(p);
                }
            }
        }
        let groups = &mut self.groups;
        let consumer_groups = &mut self.consumer_groups;
        if let Some(topic) = self.topics.get_mut(OFFSETS_TOPIC) {
            for log in &mut topic.partitions {
                log.replay(|h, r| {
                    if h.is_control() {
                        if let Ok(c) = decode_control(r.key, r.value) {
                            match c.kind {
                                ControlType::Commit => groups.complete_txn(h.producer_id, true),
                                ControlType::Abort => groups.complete_txn(h.producer_id, false),
                                _ => {}
                            }
                        }
                        return;
                    }
                    let Some(Ok(key)) = r.key.map(decode_offsets_key) else {
                        return;
                    };
                    let producer = h.is_transactional().then_some(h.producer_id);
                    match key {
                        OffsetsKey::Offset {
                            group,
                            topic,
                            partition,
                        } => {
                            let value = r.value.map(decode_offset_value);
                            if let Some(Err(_)) = value {
                                return;
                            }
                            groups.load_offset(
                                &group,
                                &topic,
                                partition,
                                value.and_then(Result::ok),
                                producer,
                                now,
                            );
                        }
                        OffsetsKey::Group(id) => {
                            let value = r.value.map(decode_group_value);
                            if let Some(Err(_)) = value {
                                return;
                            }
                            groups.load_group(&id, value.and_then(Result::ok), now);
                        }
                        OffsetsKey::Other(kind @ 3..=8) => {
                            // KIP-848 records, through kseg's own coordinator decoder.
                            let Some(key) =
                                r.key.and_then(|k| coordinator::decode_offsets_key(k).ok())
                            else {
                                return;
                            };
                            let value = match r.value {
                                None => None,
                                Some(v) => match coordinator::decode_offsets_value(kind, v) {
                                    Ok(v) => Some(v),
                                    Err(_) => return,
                                },
                            };
                            consumer_groups.load(
                                kind,
                                &key.data,
                                value.as_ref().map(|v| &v.data),
                                now,
                            );
                        }
                        OffsetsKey::Other(_) => {}
                    }
                })?;
            }
        }
        let txns = &mut self.txns;
        if let Some(topic) = self.topics.get_mut(TRANSACTION_TOPIC) {
            for log in &mut topic.partitions {
                log.replay(|_, r| {
                    let Some(Ok(Some(id))) = r.key.map(transactional_id_of_key) else {
                        return;
                    };
                    match r.value.map(decode_transaction_value) {
                        Some(Ok(v)) => {
                            max_pid = max_pid.max(v.producer_id);
                            txns.load(&id, Some(v));
                        }
                        None => txns.load(&id, None),
                        Some(Err(_)) => {}
                    }
                })?;
            }
        }
        // Kafka hands out producer ids in blocks of 1000; a restarted broker gets a new block.
        self.next_producer_id = if max_pid < 0 {
            0
        } else {
            (max_pid / 1000 + 1) * 1000
        };
        Ok(())
    }

    pub fn topics(&self) -> impl Iterator<Item = &Topic> {
        self.topics.values()
    }

    pub fn topic(&self, name: &str) -> Option<&Topic> {
        self.topics.get(name)
    }

    pub fn topic_by_id(&self, id: &[u8; 16]) -> Option<&Topic> {
        self.topics.values().find(|t| &t.id == id)
    }

    /// Creates a topic with `partitions` partitions (`CreateTopics`, auto-creation).
    pub fn create_topic(&mut self, name: &str, partitions: i32) -> BrokerResult<&Topic> {
        if !valid_topic_name(name) {
            return Err(BrokerError::new(
                ResponseError::InvalidTopicException,
                format!("{name:?} is not a legal topic name"),
            ));
        }
        if self.topics.contains_key(name) {
            return Err(BrokerError::new(
                ResponseError::TopicAlreadyExists,
                format!("topic {name} already exists"),
            ));
        }
        if partitions <= 0 {
            return Err(BrokerError::new(
                ResponseError::InvalidPartitions,
                format!("{partitions} is not a valid partition count"),
            ));
        }
        if partitions > MAX_PARTITIONS_PER_REQUEST {
            return Err(BrokerError::new(
                ResponseError::PolicyViolation,
                format!(
                    "{partitions} partitions: excessively large number of partitions per request (the cap is {MAX_PARTITIONS_PER_REQUEST})"
                ),
            ));
        }
        check_open_files(partitions)?;
        let id = super::files::random_uuid();
        let config = topic_log_config(&self.config, name, self.topic_configs.get(name));
        let mut logs = Vec::new();
        for p in 0..partitions {
            match PartitionLog::create(&self.config.log_dir, name, p, id, config.clone(), 0) {
                Ok(log) => logs.push(log),
                Err(e) => {
                    // All or nothing: a topic that failed part way leaves no partition dir
                    // behind (a later start would load a topic nobody created).
                    drop(logs);
                    for q in 0..=p {
                        let dir = self.config.log_dir.join(format!("{name}-{q}"));
                        if dir.is_dir() {
                            let _ = fs::remove_dir_all(dir);
                        }
                    }
                    return Err(e.into());
                }
            }
        }
        self.topics.insert(
            name.to_string(),
            Topic {
                name: name.to_string(),
                id,
                partitions: logs,
            },
        );
        Ok(&self.topics[name])
    }

    /// The topic, created with the default partition count when auto-creation allows it.
    pub fn topic_or_create(&mut self, name: &str) -> BrokerResult<&Topic> {
        if !self.topics.contains_key(name) {
            // Kafka creates its internal topics whatever auto.create.topics.enable says.
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
            self.create_topic(name, n)?;
        }
        Ok(&self.topics[name])
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
    /// producer's open transaction (AddPartitionsToTxn first), as Kafka verifies.
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
        self.partition_mut(topic, partition)?
            .append_client(records, now)
    }

    /// The `__consumer_offsets` partition of a group (by the topic's real partition count).
    pub fn group_partition(&mut self, group: &str) -> BrokerResult<i32> {
        let n = self.topic_or_create(OFFSETS_TOPIC)?.partitions.len() as u32;
        Ok(partition_for(group, n) as i32)
    }

    /// The `__transaction_state` partition of a transactional id.
    pub fn transaction_partition(&mut self, id: &str) -> BrokerResult<i32> {
        let n = self.topic_or_create(TRANSACTION_TOPIC)?.partitions.len() as u32;
        Ok(partition_for(id, n) as i32)
    }

    /// Appends coordinator records as one batch.
    pub fn append_coordinator(
        &mut self,
        topic: &str,
        partition: i32,
        records: &[CoordinatorRecord],
        producer: Option<(i64, i16)>,
    ) -> BrokerResult<Option<AppendInfo>> {
        if records.is_empty() {
            return Ok(None);
        }
        let now = now_ms();
        let new: Vec<NewRecord> = records
            .iter()
            .map(|(k, v)| NewRecord {
                timestamp: now,
                key: Some(k),
                value: v.as_deref(),
                headers: &[],
            })
            .collect();
        self.partition_mut(topic, partition)?
            .append_records(&new, producer, now)
            .map(Some)
    }

    /// Appends records of one group to its offsets partition.
    pub fn write_group_records(
        &mut self,
        group: &str,
        records: &[CoordinatorRecord],
    ) -> BrokerResult<()> {
        if records.is_empty() {
            return Ok(());
        }
        let p = self.group_partition(group)?;
        self.append_coordinator(OFFSETS_TOPIC, p, records, None)?;
        Ok(())
    }

    /// A simple offset commit (no group member), as `kafka-consumer-groups --reset-offsets` or a
    /// consumer with `assign()` makes: one OffsetCommit record per partition.
    #[allow(clippy::too_many_arguments)]
    pub fn commit_offsets(
        &mut self,
        group: &str,
        member_id: &str,
        generation: i32,
        partitions: &[CommitPartition],
        expire_timestamp: Option<i64>,
        version: i16,
    ) -> BrokerResult<Vec<i16>> {
        let p = self.group_partition(group)?;
        let mut records = Vec::new();
        // A KIP-848 group checks the member and its epoch; the offsets go to the one store.
        let keys: Vec<(Option<[u8; 16]>, i32)> = partitions
            .iter()
            .map(|c| (c.topic_id, c.partition))
            .collect();
        let verdict = self
            .consumer_groups
            .validate_commit(group, member_id, generation, version, &keys);
        let codes = match verdict {
            None => self
                .groups
                .commit(
                    group,
                    member_id,
                    generation,
                    partitions,
                    expire_timestamp,
                    now_ms(),
                    &mut records,
                )
                .map_err(|e| BrokerError::new(e, format!("offset commit for group {group}")))?,
            Some(Err(e)) => {
                return Err(BrokerError::new(
                    e,
                    format!("offset commit for group {group}"),
                ))
            }
            Some(Ok(refused)) => {
                let passed: Vec<CommitPartition> = partitions
                    .iter()
                    .zip(&refused)
                    .filter(|(_, r)| r.is_none())
                    .map(|(c, _)| c.clone())
                    .collect();
                let mut stored = self
                    .groups
                    .commit(
                        group,
                        "",
                        -1,
                        &passed,
                        expire_timestamp,
                        now_ms(),
                        &mut records,
                    )
                    .map_err(|e| BrokerError::new(e, format!("offset commit for group {group}")))?
                    .into_iter();
                refused
                    .iter()
                    .map(|r| match r {
                        Some(e) => e.code(),
                        None => stored.next().unwrap_or(0),
                    })
                    .collect()
            }
        };
        self.append_coordinator(OFFSETS_TOPIC, p, &records, None)?;
        Ok(codes)
    }

    /// ConsumerGroupHeartbeat: the KIP-848 coordinator's answer, its records appended first.
    /// A group id held by a classic group with members is refused as Kafka refuses it without
    /// an online upgrade; an empty classic group gives way (its GroupMetadata tombstone).
    pub fn consumer_group_heartbeat(&mut self, req: Heartbeat) -> BrokerResult<HeartbeatOutcome> {
        let group = req.group_id.clone();
        let mut records = Vec::new();
        if self.consumer_groups.group(&group).is_none() {
            if let Some(classic) = self.groups.group(&group) {
                if !classic.members.is_empty() || req.member_epoch != 0 {
                    return Ok(HeartbeatOutcome {
                        error: ResponseError::GroupIdNotFound.code(),
                        message: Some(format!("Group {group} is not a consumer group.")),
                        ..Default::default()
                    });
                }
                if self.groups.forget_classic_metadata(&group) {
                    records.push((super::records::group_metadata_key(&group), None));
                }
            }
        }
        if !group.is_empty() {
            self.group_partition(&group)?;
        }
        let topics = &self.topics;
        let lookup = |name: &str| topic_meta(topics, name);
        let out = self
            .consumer_groups
            .heartbeat(req, &lookup, now_ms(), &mut records);
        self.write_group_records(&group, &records)?;
        Ok(out)
    }

    /// The next producer id.
    pub fn allocate_producer_id(&mut self) -> i64 {
        let id = self.next_producer_id;
        self.next_producer_id += 1;
        id
    }

    /// InitProducerId for a transactional id: fences an open transaction of the previous
    /// producer (aborting it) and returns the producer id and bumped epoch.
    pub fn init_transactional_producer(
        &mut self,
        id: &str,
        timeout_ms: i32,
    ) -> BrokerResult<(i64, i16)> {
        self.transaction_partition(id)?;
        for _ in 0..3 {
            let mut records = Vec::new();
            let mut next = self.next_producer_id;
            let result = self.txns.init_producer_id(
                id,
                timeout_ms,
                now_ms(),
                &mut || {
                    next += 1;
                    next - 1
                },
                &mut records,
            );
            self.next_producer_id = next;
            self.write_txn_records(id, &records)?;
            match result.map_err(|e| BrokerError::new(e, format!("InitProducerId for {id}")))? {
                Ok(answer) => return Ok(answer),
                Err(plan) => self.complete_transaction(&plan, now_ms())?,
            }
        }
        Err(BrokerError::new(
            ResponseError::ConcurrentTransactions,
            format!("transaction {id} is still completing"),
        ))
    }

    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The coordinator epoch of a transactional id: its `__transaction_state` partition's
    /// leader epoch.
    pub fn coordinator_epoch(&mut self, id: &str) -> BrokerResult<i32> {
        let p = self.transaction_partition(id)?;
        Ok(self.partition(TRANSACTION_TOPIC, p)?.leader_epoch)
    }

    /// Writes transaction records for an id to its `__transaction_state` partition.
    pub fn write_txn_records(
        &mut self,
        id: &str,
        records: &[CoordinatorRecord],
    ) -> BrokerResult<()> {
        if records.is_empty() {
            return Ok(());
        }
        let p = self.transaction_partition(id)?;
        self.append_coordinator(TRANSACTION_TOPIC, p, records, None)?;
        Ok(())
    }

    /// Writes the markers of a transaction that is ending, then its Complete record.
    pub fn complete_transaction(&mut self, plan: &EndPlan, now: i64) -> BrokerResult<()> {
        let coordinator_epoch = self.coordinator_epoch(&plan.transactional_id)?;
        for (topic, partition) in &plan.partitions {
            let log = match self.partition_mut(topic, *partition) {
                Ok(log) => log,
                Err(_) => continue,
            };
            log.append_marker(
                plan.producer_id,
                plan.epoch,
                coordinator_epoch,
                plan.commit,
                now,
            )?;
            if topic == OFFSETS_TOPIC {
                self.groups.complete_txn(plan.producer_id, plan.commit);
            }
        }
        let mut records = Vec::new();
        self.txns
            .complete_end(&plan.transactional_id, now, &mut records);
        self.write_txn_records(&plan.transactional_id, &records)
    }

    /// Periodic work: group session expiry and rebalance deadlines, transaction timeouts, the
    /// retention check and delayed file deletion.
    pub fn tick(&mut self) -> BrokerResult<()> {
        let now = now_ms();
        self.retention_tick(now)?;
        let mut records = Vec::new();
        self.groups.tick(now, &mut records);
        let topics = &self.topics;
        let lookup = |name: &str| topic_meta(topics, name);
        self.consumer_groups.tick(now, &lookup, &mut records);
        for (key, value) in records {
            // Group records name their group in the key (GroupMetadataKey, the KIP-848 keys).
            let Some((_, group)) = coordinator::group_of_key(&key) else {
                continue;
            };
            let group = group.to_string();
            self.write_group_records(&group, &[(key, value)])?;
        }
        let mut next = self.next_producer_id;
        let mut txn_records = Vec::new();
        let plans = self.txns.expire(
            now,
            &mut || {
                next += 1;
                next - 1
            },
            &mut txn_records,
        );
        self.next_producer_id = next;
        for plan in plans {
            let mine: Vec<CoordinatorRecord> = txn_records
                .iter()
                .filter(|(k, _)| {
                    transactional_id_of_key(k).ok().flatten().as_deref()
                        == Some(plan.transactional_id.as_str())
                })
                .cloned()
                .collect();
            self.write_txn_records(&plan.transactional_id, &mine)?;
            self.complete_transaction(&plan, now)?;
        }
        Ok(())
    }

    /// Writes the three log-dir checkpoints: recovery points, log start offsets (only those
    /// above their first segment, as Kafka writes them) and high watermarks.
    pub fn write_checkpoints(&self) -> io::Result<()> {
        self.write_some_checkpoints(true, true)
    }

    /// Kafka writes the high watermarks every 5 s (`replica.high.watermark.checkpoint.interval.ms`)
    /// but recovery points and log start offsets every 60 s
    /// (`log.flush.offset.checkpoint.interval.ms`, `log.flush.start.offset.checkpoint.interval.ms`).
    pub fn write_some_checkpoints(&self, offsets: bool, high_watermarks: bool) -> io::Result<()> {
        let mut recovery = Vec::new();
        let mut start = Vec::new();
        let mut hw = Vec::new();
        for t in self.topics.values() {
            for log in &t.partitions {
                recovery.push((t.name.clone(), log.partition, log.recovery_point));
                hw.push((t.name.clone(), log.partition, log.high_watermark()));
                if log.log_start_offset > log.segment_bases()[0] {
                    start.push((t.name.clone(), log.partition, log.log_start_offset));
                }
            }
        }
        let dir = &self.config.log_dir;
        if offsets {
            write_atomically(
                &dir.join(RECOVERY_POINT_CHECKPOINT),
                offset_checkpoint_text(&recovery).as_bytes(),
            )?;
            write_atomically(
                &dir.join(LOG_START_CHECKPOINT),
                offset_checkpoint_text(&start).as_bytes(),
            )?;
        }
        if high_watermarks {
            write_atomically(
                &dir.join(REPLICATION_CHECKPOINT),
                offset_checkpoint_text(&hw).as_bytes(),
            )?;
        }
        Ok(())
    }

    /// Clean shutdown: closes every log (final index entries, trimmed indexes, producer
    /// snapshots), writes the checkpoints and then `.kafka_cleanshutdown`.
    pub fn shutdown(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let mut broker_epoch = 0i64;
        for t in self.topics.values_mut() {
            for log in &mut t.partitions {
                log.close()?;
                broker_epoch = broker_epoch.max(log.leader_epoch as i64);
            }
        }
        self.write_checkpoints()?;
        write_atomically(
            &self.config.log_dir.join(CLEAN_SHUTDOWN),
            clean_shutdown_text(broker_epoch).as_bytes(),
        )?;
        // LogManager.shutdown destroys the dir locks: `.lock` is gone after a clean stop (the
        // flock itself goes when the broker is dropped).
        DirLock::destroy(&self.config.log_dir)?;
        self.closed = true;
        Ok(())
    }
}

fn unknown_partition(topic: &str, partition: i32) -> BrokerError {
    BrokerError::new(
        ResponseError::UnknownTopicOrPartition,
        format!("this server does not host {topic}-{partition}"),
    )
}

/// Topic configs: the broker defaults, with Kafka's 100 MiB segments for internal topics.
/// Internal topics are compacted (`cleanup.policy=compact`), so retention never deletes them.
pub(crate) fn topic_log_config(
    config: &BrokerConfig,
    topic: &str,
    overrides: Option<&BTreeMap<String, String>>,
) -> LogConfig {
    let mut c = config.log.clone();
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
