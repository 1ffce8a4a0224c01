//! The broker's life: opening a log dir (loading and recovering every partition, reloading the
//! coordinators from the internal topics), the periodic work, the checkpoints and the clean
//! shutdown.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::PathBuf;

use super::deferred::{CheckpointFiles, DueDeletions};
use super::{
    internal_topic_configs, topic_log_config, topic_meta, Broker, BrokerConfig, OpenReport, Topic,
    OFFSETS_TOPIC, TRANSACTION_TOPIC,
};
use crate::consumer_group::ConsumerGroups;
use crate::files::{
    clean_shutdown_text, offset_checkpoint_text, read_offset_checkpoint, write_atomically, DirLock,
    MetaProperties, CLEAN_SHUTDOWN, LOG_START_CHECKPOINT, META_PROPERTIES,
    RECOVERY_POINT_CHECKPOINT, REPLICATION_CHECKPOINT,
};
use crate::group::{CoordinatorRecord, GroupCoordinator};
use crate::log::PartitionLog;
use crate::metadata::{ClusterMetadata, METADATA_TOPIC};
use crate::records::{
    decode_group_value, decode_offset_value, decode_offsets_key, decode_transaction_value,
    transactional_id_of_key, OffsetsKey,
};
use crate::txn::TxnCoordinator;
use crate::{broker_config, now_ms, topic_config, BrokerResult};
use kseg_format::control::{decode_control, ControlType};
use kseg_format::coordinator;
use kseg_storage::layout::{parse_partition_dir, PartitionState};

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
        let now = now_ms();
        let (mut metadata, _) = ClusterMetadata::open(&dir, &meta, report.clean_shutdown, now)?;
        let io_err = |what: &str, e: crate::BrokerError| io::Error::other(format!("{what}: {e}"));
        if let Some((host, port)) = &config.listener {
            metadata
                .register(host, *port, now)
                .map_err(|e| io_err("registering the broker in the metadata log", e))?;
        }
        // A dir of a mini-broker from before the metadata log: its topic configs file.
        let legacy_configs = topic_config::read_legacy(&dir)?;
        // The broker's log config: its command line with the dynamic broker configs over it.
        let broker_log = topic_config::apply(
            &config.log,
            &broker_config::dynamic_log_overrides(&metadata.image, config.node_id),
        );
        let mut found: BTreeMap<String, BTreeMap<i32, PathBuf>> = BTreeMap::new();
        for entry in fs::read_dir(&dir)? {
            let entry = entry?;
            if !entry.file_type()?.is_dir() {
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(p) = parse_partition_dir(&name) {
                if p.state == PartitionState::Live && p.topic != METADATA_TOPIC {
                    found
                        .entry(p.topic)
                        .or_default()
                        .insert(p.partition, entry.path());
                }
            }
        }
        let mut topics = BTreeMap::new();
        for (name, parts) in found {
            let known = metadata.image.topics.contains_key(&name);
            let overrides = if known {
                metadata.image.topic_configs(&name).cloned()
            } else {
                legacy_configs.get(&name).cloned()
            };
            let log_config = topic_log_config(&broker_log, &name, overrides.as_ref());
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
                    metadata.leader_epoch(&name, p),
                )
                .map_err(|e| crate::log::with_path(&path, e))?;
                if r.recovered_segments > 0 {
                    report.notes.push(format!(
                        "{name}-{p}: recovered {} segment(s) after an unclean shutdown{}{}",
                        r.recovered_segments,
                        r.truncated_at
                            .as_ref()
                            .map(|(f, at, why)| format!(
                                "; truncated {} at byte {at} ({})",
                                f.display(),
                                why.as_ref().map(ToString::to_string).unwrap_or_default()
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
            if !known {
                // Partition dirs the metadata log does not know (a dir written before it
                // existed): their topic is recorded, with its configs from the old file.
                let epochs: Vec<i32> = partitions.iter().map(|l| l.leader_epoch).collect();
                let mut configs: Vec<(String, String)> = internal_topic_configs(&name)
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                for (k, v) in overrides.unwrap_or_default() {
                    configs.retain(|(c, _)| *c != k);
                    configs.push((k, v));
                }
                metadata
                    .create_topic(&name, id, &epochs, &configs, now)
                    .map_err(|e| io_err("recording a topic in the metadata log", e))?;
                report.notes.push(format!(
                    "{name}: recorded in the metadata log ({} partition(s), {} config(s))",
                    epochs.len(),
                    configs.len()
                ));
            }
            topics.insert(
                name.clone(),
                Topic {
                    name,
                    id,
                    partitions,
                },
            );
        }
        // Partitions the metadata log has and the dir lacks are created, as a Kafka broker
        // creates the log of a partition it becomes leader of.
        let missing: Vec<(String, [u8; 16], i32, i32)> = metadata
            .image
            .topics
            .iter()
            .flat_map(|(name, t)| {
                let have = topics
                    .get(name)
                    .map_or(0, |x: &Topic| x.partitions.len() as i32);
                t.partitions
                    .iter()
                    .filter(move |(p, _)| **p >= have)
                    .map(move |(p, part)| (name.clone(), t.id, *p, part.leader_epoch))
            })
            .collect();
        for (name, id, p, epoch) in missing {
            let log_config =
                topic_log_config(&broker_log, &name, metadata.image.topic_configs(&name));
            let log = PartitionLog::create(&dir, &name, p, id, log_config, epoch.max(0))?;
            report
                .notes
                .push(format!("{name}-{p}: created (the metadata log has it)"));
            topics
                .entry(name.clone())
                .or_insert_with(|| Topic {
                    name: name.clone(),
                    id,
                    partitions: Vec::new(),
                })
                .partitions
                .push(log);
        }
        if !legacy_configs.is_empty() || dir.join(topic_config::LEGACY_TOPIC_CONFIGS_FILE).exists()
        {
            topic_config::remove_legacy(&dir)?;
            report.notes.push(format!(
                "{}: topic configs moved into the metadata log; file removed",
                topic_config::LEGACY_TOPIC_CONFIGS_FILE
            ));
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
            metadata,
            deleting_dirs: Vec::new(),
            // LogManager schedules its first retention check 30 s after start.
            next_retention_check: now_ms() + 30_000i64.min(config_retention_interval),
            creating: BTreeMap::new(),
            checkpoints: Default::default(),
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
        // Kafka hands out producer ids in blocks of 1000 (ProducerIdsRecords); a restarted
        // broker gets a new block. A dir without them: the block after the largest id seen.
        let from_logs = if max_pid < 0 {
            0
        } else {
            (max_pid / 1000 + 1) * 1000
        };
        self.next_producer_id = self
            .metadata
            .image
            .next_producer_id
            .unwrap_or(0)
            .max(from_logs);
        Ok(())
    }

    /// Periodic work: group session expiry and rebalance deadlines, transaction timeouts, the
    /// retention check; the files and dirs whose deletion delay is over are handed back, for
    /// the caller to remove without the broker lock ([`DueDeletions::remove`]).
    pub fn tick(&mut self) -> BrokerResult<DueDeletions> {
        let now = now_ms();
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
        self.reserve_producer_ids()?;
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
        self.retention_tick(now)
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
        self.checkpoint_files(offsets, high_watermarks).write()
    }

    /// The contents of [`Self::write_some_checkpoints`]' files as the state is now, to be
    /// written without the broker lock.
    pub fn checkpoint_files(&self, offsets: bool, high_watermarks: bool) -> CheckpointFiles {
        let mut recovery = Vec::new();
        let mut start = Vec::new();
        let mut hw = Vec::new();
        for t in self.topics.values() {
            for log in &t.partitions {
                recovery.push((t.name.clone(), log.partition, log.flushed_recovery_point()));
                hw.push((t.name.clone(), log.partition, log.high_watermark()));
                if log.log_start_offset > log.segment_bases()[0] {
                    start.push((t.name.clone(), log.partition, log.log_start_offset));
                }
            }
        }
        let dir = &self.config.log_dir;
        let mut files = Vec::new();
        if offsets {
            files.push((
                dir.join(RECOVERY_POINT_CHECKPOINT),
                offset_checkpoint_text(&recovery),
            ));
            files.push((
                dir.join(LOG_START_CHECKPOINT),
                offset_checkpoint_text(&start),
            ));
        }
        if high_watermarks {
            files.push((
                dir.join(REPLICATION_CHECKPOINT),
                offset_checkpoint_text(&hw),
            ));
        }
        CheckpointFiles::new(&self.checkpoints, files)
    }

    /// Clean shutdown: closes every log (final index entries, trimmed indexes, producer
    /// snapshots), writes the checkpoints and then `.kafka_cleanshutdown`.
    pub fn shutdown(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let broker_epoch = self.metadata.image.broker_epoch.unwrap_or(0);
        self.metadata
            .controlled_shutdown(now_ms())
            .map_err(|e| io::Error::other(format!("writing the metadata log: {e}")))?;
        for t in self.topics.values_mut() {
            for log in &mut t.partitions {
                log.close()?;
            }
        }
        self.metadata.close()?;
        self.write_checkpoints()?;
        write_atomically(
            &self.config.log_dir.join(CLEAN_SHUTDOWN),
            clean_shutdown_text(broker_epoch).as_bytes(),
        )?;
        // LogManager.shutdown destroys the dir locks: `.lock` is gone after a clean stop (the
        // flock itself goes when the broker is dropped).
        DirLock::destroy(&self.config.log_dir)?;
        self.closed = true;
        self.metadata.publish_closed();
        Ok(())
    }
}
