//! Admin operations on the broker's topics, as Kafka's controller and `LogManager` carry them
//! out: topic creation with configs, deletion (partition dirs renamed `<tp>.<uuid>-delete`,
//! removed after `file.delete.delay.ms`, the group offsets of the topic tombstoned), new
//! partitions, DeleteRecords and the periodic retention check.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::PathBuf;

use kafka_protocol::ResponseError;

use super::deferred::{CheckpointFiles, DeletedPartitions, DueDeletions};
use super::{
    topic_log_config, unknown_partition, Broker, NewPartitions, PartitionBudget, Topic,
    OFFSETS_TOPIC, TRANSACTION_TOPIC,
};
use crate::topic_config;
use crate::{BrokerError, BrokerResult};
use kseg_storage::layout::{parse_partition_dir, PartitionState};

fn internal(topic: &str) -> bool {
    topic == OFFSETS_TOPIC || topic == TRANSACTION_TOPIC
}

impl Broker {
    /// CreateTopics with configs: validated as Kafka's `LogConfig.validate` (INVALID_CONFIG with
    /// Kafka's message), honoured when the mini-broker implements them. `validate_only` checks
    /// everything and creates nothing.
    pub fn create_topic_with_configs(
        &mut self,
        name: &str,
        partitions: i32,
        configs: &[(String, Option<String>)],
        validate_only: bool,
    ) -> BrokerResult<Option<&Topic>> {
        let Some(plan) =
            self.prepare_topic_with_configs(name, partitions, 1, configs, validate_only)?
        else {
            return Ok(None);
        };
        let made = plan.make();
        self.publish(plan, made)?;
        Ok(self.topics.get(name))
    }

    /// [`Self::create_topic_with_configs`] up to the files: the checks, and the plan whose
    /// files [`NewPartitions::make`] creates (`None` for `validate_only`). The checks run in the
    /// order of Kafka's `ReplicationControlManager.createTopics` (name, existence, configs,
    /// replication factor, partition count), `validate_only` included.
    pub(crate) fn prepare_topic_with_configs(
        &mut self,
        name: &str,
        partitions: i32,
        replication_factor: i16,
        configs: &[(String, Option<String>)],
        validate_only: bool,
    ) -> BrokerResult<Option<NewPartitions>> {
        super::validate_topic_name(name)?;
        if self.topics.contains_key(name) || self.creating.contains_key(name) {
            return Err(super::topic_exists(name));
        }
        // Metric names do not tell '.' from '_' (`Topic.hasCollisionChars`).
        let unified = |t: &str| t.replace('.', "_");
        if name.contains(['.', '_']) {
            if let Some(other) = self.topics.keys().find(|t| unified(t) == unified(name)) {
                return Err(BrokerError::new(
                    ResponseError::InvalidTopicException,
                    format!("Topic '{name}' collides with existing topic: {other}"),
                ));
            }
        }
        let overrides = topic_config::validate(configs)?;
        if replication_factor == 0 || replication_factor < -1 {
            return Err(BrokerError::new(
                ResponseError::InvalidReplicationFactor,
                "Replication factor must be larger than 0, or -1 to use the default value.",
            ));
        }
        if partitions <= 0 {
            return Err(super::invalid_partition_count());
        }
        if replication_factor > 1 {
            // StripedReplicaPlacer, with the one registered broker.
            return Err(BrokerError::new(
                ResponseError::InvalidReplicationFactor,
                format!(
                    "Unable to replicate the partition {replication_factor} time(s): The target \
                     replication factor of {replication_factor} cannot be reached because only 1 \
                     broker(s) are registered."
                ),
            ));
        }
        if validate_only {
            return Ok(None);
        }
        let overrides: Vec<(String, String)> = overrides.into_iter().collect();
        self.prepare_topic(name, partitions, &overrides).map(Some)
    }

    /// The config overrides of a topic (its ConfigRecords in the metadata log).
    pub fn topic_overrides(&self, name: &str) -> BTreeMap<String, String> {
        self.metadata
            .image
            .topic_configs(name)
            .cloned()
            .unwrap_or_default()
    }

    /// DeleteTopics: the topic's partition dirs are renamed as `LocalLog.logDeleteDirName` does
    /// and removed after `file.delete.delay.ms`; every group's offsets for the topic get
    /// tombstones (the group coordinator's `onPartitionsDeleted`). Returns the topic id. The
    /// three steps in one call; DeleteTopics runs the renames outside the broker lock
    /// ([`Self::remove_topic`], [`DeletedPartitions::rename`], [`Self::finish_topic_deletion`]).
    pub fn delete_topic(&mut self, name: &str, now: i64) -> BrokerResult<[u8; 16]> {
        let (id, deleted) = self.remove_topic(name, now)?;
        let (renamed, result) = deleted.rename();
        let checkpoints = self.finish_topic_deletion(renamed, now);
        result?;
        checkpoints.write()?;
        Ok(id)
    }

    /// The part of a topic deletion that needs the broker: the checks, the topic gone from the
    /// served ones, its RemoveTopicRecord in the metadata log and the group offset tombstones.
    /// Its partition logs are handed back for their dirs to be renamed.
    pub(crate) fn remove_topic(
        &mut self,
        name: &str,
        now: i64,
    ) -> BrokerResult<([u8; 16], DeletedPartitions)> {
        if internal(name) {
            return Err(BrokerError::new(
                ResponseError::InvalidTopicException,
                format!("kseg mini-broker does not delete the internal topic {name}"),
            ));
        }
        let Some(id) = self.topics.get(name).map(|t| t.id) else {
            return Err(BrokerError::new(
                ResponseError::UnknownTopicOrPartition,
                "This server does not host this topic-partition.",
            ));
        };
        // The record first: a topic it cannot remove stays served.
        self.metadata.remove_topic(id, now)?;
        let topic = self.topics.remove(name).expect("checked above");
        for (group, records) in self.groups.delete_topic_offsets(name) {
            self.write_group_records(&group, &records)?;
        }
        Ok((
            id,
            DeletedPartitions {
                logs: topic.partitions,
            },
        ))
    }

    /// After [`DeletedPartitions::rename`]: the renamed dirs go after `file.delete.delay.ms`
    /// (`LogManager.addLogToBeDeleted`), and the checkpoints no longer list the topic
    /// (`asyncDelete`'s `checkpointRecoveryOffsetsInDir`, `checkpointLogStartOffsetsInDir`).
    pub(crate) fn finish_topic_deletion(
        &mut self,
        renamed: Vec<PathBuf>,
        now: i64,
    ) -> CheckpointFiles {
        let due = now + self.config.log.file_delete_delay_ms.max(0);
        self.deleting_dirs
            .extend(renamed.into_iter().map(|dir| (due, dir)));
        self.checkpoint_files(true, true)
    }

    /// The partitions a CreatePartitions request would add (`validateTotalNumberOfPartitions`:
    /// topics that exist, with a count that is not negative and above their current one).
    pub fn additional_partitions<'a>(&self, counts: impl Iterator<Item = (&'a str, i32)>) -> i64 {
        counts
            .filter(|(_, count)| *count >= 0)
            .filter_map(|(name, count)| {
                let current = self.topics.get(name)?.partitions.len() as i64;
                Some(count as i64 - current)
            })
            .filter(|added| *added > 0)
            .sum()
    }

    /// CreatePartitions: new partitions `count - current`, each a fresh log at leader epoch 0,
    /// refused before any file is made when their files would pass the open-file limit; a
    /// partition that cannot be made removes those made before it (all or nothing). The
    /// request-wide cap is [`Self::additional_partitions`]' caller's.
    pub fn create_partitions(
        &mut self,
        name: &str,
        count: i32,
        validate_only: bool,
    ) -> BrokerResult<()> {
        let Some(plan) = self.prepare_partitions(name, count, validate_only)? else {
            return Ok(());
        };
        let made = plan.make();
        self.publish(plan, made)
    }

    /// [`Self::create_partitions`] up to the files: the checks, and the plan whose files
    /// [`NewPartitions::make`] creates (`None` for `validate_only`).
    pub(crate) fn prepare_partitions(
        &mut self,
        name: &str,
        count: i32,
        validate_only: bool,
    ) -> BrokerResult<Option<NewPartitions>> {
        let config = topic_log_config(
            &self.broker_log_config(),
            name,
            self.metadata.image.topic_configs(name),
        );
        let reserved = self.reserved_partitions();
        let busy = self.creating.contains_key(name);
        let Some(topic) = self.topics.get(name).filter(|_| !busy) else {
            return Err(BrokerError::new(
                ResponseError::UnknownTopicOrPartition,
                "This server does not host this topic-partition.",
            ));
        };
        let current = topic.partitions.len() as i32;
        if count < current {
            return Err(BrokerError::new(
                ResponseError::InvalidPartitions,
                format!("The topic {name} currently has {current} partition(s); {count} would not be an increase."),
            ));
        }
        if count == current {
            return Err(BrokerError::new(
                ResponseError::InvalidPartitions,
                format!("Topic already has {current} partition(s)."),
            ));
        }
        // One request adds at most MAX_PARTITIONS_PER_REQUEST (checked before this call too).
        PartitionBudget::default().take(count - current)?;
        super::limits::check_open_files((count - current).saturating_add(reserved))?;
        if validate_only {
            return Ok(None);
        }
        let plan = NewPartitions {
            log_dir: self.config.log_dir.clone(),
            topic: name.to_string(),
            id: topic.id,
            config,
            first: current,
            end: count,
            new_topic: None,
        };
        self.creating.insert(name.to_string(), count - current);
        Ok(Some(plan))
    }

    /// DeleteRecords on one partition (`Partition.deleteRecordsOnLeader`): -1 means the high
    /// watermark. Returns the new low watermark (the log start offset). Segments wholly before
    /// it go at the next retention check, and `log-start-offset-checkpoint` gets it at the next
    /// checkpoint (every 60 s, and at shutdown), as in Kafka.
    pub fn delete_records(
        &mut self,
        topic: &str,
        partition: i32,
        offset: i64,
    ) -> BrokerResult<i64> {
        if internal(topic) {
            return Err(BrokerError::new(
                ResponseError::InvalidTopicException,
                format!("Cannot delete records of internal topic {topic}"),
            ));
        }
        let log = self
            .partition_mut(topic, partition)
            .map_err(|_| unknown_partition(topic, partition))?;
        if !log.config.delete {
            return Err(BrokerError::new(
                ResponseError::PolicyViolation,
                format!("Records of partition {topic}-{partition} can not be deleted due to the configured policy"),
            ));
        }
        let offset = if offset == -1 {
            log.high_watermark()
        } else {
            offset
        };
        if offset < 0 {
            return Err(BrokerError::new(
                ResponseError::OffsetOutOfRange,
                format!("The offset {offset} for partition {topic}-{partition} is not valid"),
            ));
        }
        log.increment_log_start_offset(offset)?;
        Ok(log.log_start_offset)
    }

    /// `-delete` dirs a previous run left are removed after the delay, as `LogManager` does on
    /// start.
    pub(super) fn schedule_leftover_deletes(&mut self, now: i64) -> io::Result<()> {
        let delay = self.config.log.file_delete_delay_ms.max(0);
        for entry in fs::read_dir(&self.config.log_dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if parse_partition_dir(&name).is_some_and(|p| p.state == PartitionState::PendingDelete)
            {
                self.deleting_dirs.push((now + delay, entry.path()));
            }
        }
        Ok(())
    }

    /// Retention (`LogManager.cleanupLogs` every `log.retention.check.interval.ms`): segments
    /// renamed `.deleted`; and the files and dirs whose deletion delay is over, handed back for
    /// their removal without the broker lock.
    pub(super) fn retention_tick(&mut self, now: i64) -> BrokerResult<DueDeletions> {
        let check = now >= self.next_retention_check;
        if check {
            self.next_retention_check = now + self.config.retention_check_interval_ms.max(1);
            for t in self.topics.values_mut() {
                for log in &mut t.partitions {
                    for (base, why) in log.delete_old_segments(now)? {
                        eprintln!(
                            "kseg mini-broker: {}-{}: deleted segment {base} ({}); log start offset {}",
                            log.topic,
                            log.partition,
                            why.name(),
                            log.log_start_offset
                        );
                    }
                }
            }
        }
        // Taken after the fallible part: a failed check loses none of them.
        let mut due = DueDeletions::default();
        self.deleting_dirs.retain(|(at, path)| {
            if *at <= now {
                due.dirs.push(path.clone());
                false
            } else {
                true
            }
        });
        for t in self.topics.values_mut() {
            for log in &mut t.partitions {
                due.files.extend(log.take_due_deletes(now, false));
            }
        }
        Ok(due)
    }
}

#[cfg(test)]
mod tests {
    use super::super::BrokerConfig;
    use super::*;

    #[test]
    fn configs_persist_topics_delete_and_records_go() {
        let dir = tempfile::tempdir().unwrap();
        let config = BrokerConfig::new(dir.path().join("data"));
        let (mut b, _) = Broker::open(config.clone()).unwrap();
        let configs = [("retention.ms".to_string(), Some("1000".to_string()))];
        b.create_topic_with_configs("t", 2, &configs, false)
            .unwrap();
        let bad = [("compression.type".to_string(), Some("gzip".to_string()))];
        let Err(e) = b.create_topic_with_configs("u", 1, &bad, false) else {
            panic!("compression.type=gzip was accepted");
        };
        assert_eq!(e.code(), ResponseError::InvalidConfig.code());
        assert!(b.topic("u").is_none());
        assert!(b
            .create_topic_with_configs("v", 1, &[], true)
            .unwrap()
            .is_none());
        assert!(b.topic("v").is_none(), "validate_only creates nothing");
        b.create_topic("gone", 1).unwrap();
        let log = b.partition_mut("t", 0).unwrap();
        for _ in 0..3 {
            log.append_client(crate::log::tests::client_batch(2, 10, 1), 1)
                .unwrap();
        }
        assert_eq!(b.delete_records("t", 0, 4).unwrap(), 4);
        let e = b.delete_records("t", 0, 7).unwrap_err();
        assert_eq!(e.code(), ResponseError::OffsetOutOfRange.code());
        assert_eq!(
            b.delete_records("t", 0, -1).unwrap(),
            6,
            "-1 is the high watermark"
        );
        b.create_partitions("t", 3, false).unwrap();
        assert_eq!(
            b.create_partitions("t", 3, false).unwrap_err().code(),
            ResponseError::InvalidPartitions.code()
        );
        b.delete_topic("gone", 0).unwrap();
        let names: Vec<String> = fs::read_dir(&config.log_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("gone-0"))
            .collect();
        assert_eq!(names.len(), 1);
        assert!(
            names[0].starts_with("gone-0.") && names[0].ends_with("-delete"),
            "{names:?}"
        );
        b.shutdown().unwrap();
        drop(b);
        let text = fs::read_to_string(config.log_dir.join("log-start-offset-checkpoint")).unwrap();
        assert_eq!(text, "0\n1\nt 0 6\n");
        let (mut b, _) = Broker::open(config.clone()).unwrap();
        assert_eq!(
            b.partition("t", 0).unwrap().config.retention_ms,
            1000,
            "configs persist"
        );
        assert_eq!(b.partition("t", 0).unwrap().log_start_offset, 6);
        assert_eq!(b.topic("t").unwrap().partitions.len(), 3);
        assert!(b.topic("gone").is_none());
        // The leftover -delete dir goes once file.delete.delay.ms has passed.
        b.retention_tick(crate::now_ms() + 60_000)
            .unwrap()
            .remove()
            .unwrap();
        assert!(!fs::read_dir(&config.log_dir).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("gone-0")));
    }
}
