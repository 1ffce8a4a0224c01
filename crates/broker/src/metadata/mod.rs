//! The KRaft metadata log, as a Kafka 4.4 broker+controller (`process.roles=broker,controller`,
//! one voter) keeps it in its log dir: `__cluster_metadata-0` with its segments, the bootstrap
//! snapshot `00000000000000000000-0000000000.checkpoint` that `kafka-storage format` writes,
//! `quorum-state`, `leader-epoch-checkpoint` and `partition.metadata` (the metadata topic id).
//!
//! Every fact the mini-broker keeps about its cluster lives there as Kafka's metadata records,
//! written by the schema-driven encoder of `format::coordinator` and replayed at start:
//! FeatureLevelRecord (the finalized features), TopicRecord / PartitionRecord /
//! PartitionChangeRecord / RemoveTopicRecord (topic ids, partitions, leaders and their epochs),
//! ConfigRecord (topic and broker configs), RegisterBrokerRecord /
//! BrokerRegistrationChangeRecord (the broker's registration, fencing and controlled shutdown)
//! and ProducerIdsRecord (the producer id blocks handed out). The records and their order follow
//! what Kafka 4.4 writes for the same events (see README's mini-broker section for what
//! differs: no RegisterControllerRecord, as the mini-broker has no controller listener, and no
//! NoOpRecords).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use kafka_protocol::ResponseError;

use super::files::{write_atomically, MetaProperties};
use super::log::{LogConfig, PartitionLog};
use super::{BrokerError, BrokerResult};
use kseg_format::compression::Codec;
use kseg_format::control::{decode_control, encode_control_key, encode_control_value, ControlData};
use kseg_format::coordinator::encode::{EncodeError, StructBuilder};
use kseg_format::coordinator::tables::{
    BEGIN_TRANSACTION_RECORD, BROKER_REGISTRATION_CHANGE_RECORD, CLEAR_ELR_RECORD, CONFIG_RECORD,
    END_TRANSACTION_RECORD, FEATURE_LEVEL_RECORD, PARTITION_CHANGE_RECORD, PARTITION_RECORD,
    PRODUCER_IDS_RECORD, REGISTER_BROKER_RECORD, REMOVE_TOPIC_RECORD, TOPIC_RECORD,
};
use kseg_format::coordinator::{
    decode_metadata_record, encode_metadata_record, StructValue, Value,
};
use kseg_format::encode::{encode_batch, NewBatch, NewRecord};
use kseg_format::log::{for_each_record, LogEntry, RecordScratch};
use kseg_format::protocol::parse_uuid;

mod features;
mod image;

pub use features::{supported_features, Feature, FEATURES};
pub use image::{MetadataImage, PartitionImage, TopicImage};

pub const METADATA_TOPIC: &str = "__cluster_metadata";
/// `Topic.CLUSTER_METADATA_TOPIC_ID`: `AAAAAAAAAAAAAAAAAAAAAQ`.
pub const METADATA_TOPIC_ID: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
pub const QUORUM_STATE: &str = "quorum-state";
/// The bootstrap snapshot `kafka-storage format` writes (end offset 0, epoch 0).
pub const BOOTSTRAP_CHECKPOINT: &str = "00000000000000000000-0000000000.checkpoint";

/// `ConfigResource.Type`.
pub const TOPIC_RESOURCE: i8 = 2;
pub const BROKER_RESOURCE: i8 = 4;

/// Kafka's producer id block size (`ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE`).
pub const PRODUCER_ID_BLOCK: i64 = 1000;

/// One record to write: api key, version, value.
pub struct NewMetadataRecord<'a> {
    pub api_key: i16,
    pub version: i16,
    pub value: StructValue<'a>,
}

fn record<'a>(api_key: i16, version: i16, value: StructValue<'a>) -> NewMetadataRecord<'a> {
    NewMetadataRecord {
        api_key,
        version,
        value,
    }
}

fn text(t: &str) -> Value<'_> {
    Value::Str(t.as_bytes())
}

fn int(n: impl Into<i64>) -> Value<'static> {
    Value::Int(n.into())
}

fn ints(v: &[i32]) -> Value<'static> {
    Value::Array(v.iter().map(|n| Value::Int((*n).into())).collect())
}

/// A value the metadata log cannot carry (a config value over 32767 bytes): refused with
/// Kafka's error for a config it cannot store, before anything is written.
fn unwritable(e: EncodeError) -> BrokerError {
    BrokerError::new(
        ResponseError::InvalidConfig,
        format!("cannot be written to the metadata log: {}", e.message),
    )
}

/// `quorum-state` as Kafka 4.4's `FileQuorumStateStore` writes it for the elected leader of a
/// one-voter quorum with static voters.
pub fn quorum_state_text(node_id: i32, epoch: i32) -> String {
    format!(
        "{{\"clusterId\":\"\",\"leaderId\":{node_id},\"leaderEpoch\":{epoch},\"votedId\":-1,\
         \"appliedOffset\":0,\"currentVoters\":[{{\"voterId\":{node_id}}}],\"data_version\":0}}"
    )
}

fn read_quorum_epoch(dir: &Path) -> io::Result<Option<i32>> {
    let text = match fs::read_to_string(dir.join(QUORUM_STATE)) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(super::log::with_path(&dir.join(QUORUM_STATE), e)),
    };
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {e}", dir.join(QUORUM_STATE).display()),
        )
    })?;
    Ok(v["leaderEpoch"]
        .as_i64()
        .and_then(|e| i32::try_from(e).ok()))
}

/// The metadata log's topic config (`KafkaMetadataLog`): 1 GiB segments
/// (`metadata.log.segment.bytes`), nothing deleted by retention (snapshots do that in Kafka;
/// the mini-broker takes none).
fn metadata_log_config() -> LogConfig {
    LogConfig {
        delete: false,
        compact: false,
        ..LogConfig::default()
    }
}

fn features_value(b: &StructBuilder<'_>) -> Value<'static> {
    let f = b.element("features");
    Value::Array(
        supported_features()
            .map(|x| {
                Value::Struct(
                    StructBuilder::of(f)
                        .set("name", Value::Str(x.name.as_bytes()))
                        .set("minSupportedVersion", int(x.min))
                        .set("maxSupportedVersion", int(x.max))
                        .build(),
                )
            })
            .collect(),
    )
}

/// The records of the bootstrap (`BootstrapMetadata`): the finalized features, then the
/// cluster-default `min.insync.replicas` that Kafka 4.x's controller adds with ELR.
fn bootstrap_features() -> Vec<NewMetadataRecord<'static>> {
    FEATURES
        .iter()
        .filter(|f| f.level > 0 && f.name != "kraft.version")
        .map(|f| {
            record(
                12,
                0,
                StructBuilder::new(&FEATURE_LEVEL_RECORD)
                    .set("name", Value::Str(f.name.as_bytes()))
                    .set("featureLevel", int(f.level))
                    .build(),
            )
        })
        .collect()
}

/// A ClearElrRecord for `topic`, which Kafka's controller writes after a topic's
/// `min.insync.replicas` is set.
fn clear_elr(topic: &str) -> NewMetadataRecord<'_> {
    record(
        28,
        0,
        StructBuilder::new(&CLEAR_ELR_RECORD)
            .set("topicName", text(topic))
            .build(),
    )
}

fn encode_records(records: &[NewMetadataRecord<'_>]) -> BrokerResult<Vec<Vec<u8>>> {
    records
        .iter()
        .map(|r| encode_metadata_record(r.api_key, r.version, &r.value).map_err(unwritable))
        .collect()
}

fn metadata_batch(control: bool) -> NewBatch {
    NewBatch {
        base_offset: 0,
        partition_leader_epoch: 0,
        codec: Codec::None,
        log_append_time: None,
        transactional: false,
        control,
        producer_id: -1,
        producer_epoch: -1,
        base_sequence: -1,
    }
}

/// Writes the bootstrap snapshot `kafka-storage format` leaves: a SnapshotHeader control batch,
/// the feature levels, a SnapshotFooter; read-only, as Kafka freezes it.
fn write_bootstrap_checkpoint(dir: &Path, now: i64) -> io::Result<()> {
    let mut out = Vec::new();
    let mut scratch = Vec::new();
    let header = encode_control_value(&ControlData::SnapshotHeader {
        version: 0,
        last_contained_log_timestamp: now,
    });
    let key = encode_control_key(3);
    encode_batch(
        &mut out,
        &metadata_batch(true),
        &[NewRecord {
            timestamp: now,
            key: Some(&key),
            value: Some(&header),
            headers: &[],
        }],
        &mut scratch,
    );
    let values =
        encode_records(&bootstrap_features()).map_err(|e| io::Error::other(e.to_string()))?;
    let records: Vec<NewRecord<'_>> = values
        .iter()
        .map(|v| NewRecord {
            timestamp: now,
            key: None,
            value: Some(v),
            headers: &[],
        })
        .collect();
    encode_batch(
        &mut out,
        &NewBatch {
            base_offset: 1,
            ..metadata_batch(false)
        },
        &records,
        &mut scratch,
    );
    let footer = encode_control_value(&ControlData::SnapshotFooter { version: 0 });
    let key = encode_control_key(4);
    encode_batch(
        &mut out,
        &NewBatch {
            base_offset: 1 + records.len() as i64,
            ..metadata_batch(true)
        },
        &[NewRecord {
            timestamp: now,
            key: Some(&key),
            value: Some(&footer),
            headers: &[],
        }],
        &mut scratch,
    );
    let path = dir.join(BOOTSTRAP_CHECKPOINT);
    write_atomically(&path, &out)?;
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o400))
}

/// What ApiVersions reads without the broker lock: the finalized features and their epoch as
/// of the last metadata record, and whether the broker has shut down.
#[derive(Debug, Clone, Default)]
pub struct PublishedFeatures {
    pub epoch: i64,
    pub features: Vec<(String, i16)>,
    pub closed: bool,
}

/// The metadata log of a single-node cluster and its replayed image.
pub struct ClusterMetadata {
    log: PartitionLog,
    pub image: MetadataImage,
    /// The image's features, copied after every change ([`Self::published`]).
    published: Arc<Mutex<PublishedFeatures>>,
    node_id: i32,
    directory_id: [u8; 16],
    /// The raft epoch this run leads (`quorum-state`'s `leaderEpoch`).
    pub raft_epoch: i32,
}

impl ClusterMetadata {
    pub fn dir(log_dir: &Path) -> PathBuf {
        log_dir.join(format!("{METADATA_TOPIC}-0"))
    }

    /// Opens the metadata log of `log_dir` (formatting it when there is none: the bootstrap
    /// snapshot, then the bootstrap records in the log), replays it, and starts a new raft
    /// epoch (`quorum-state`, a LeaderChange control record). Returns whether it was formatted.
    pub fn open(
        log_dir: &Path,
        meta: &MetaProperties,
        clean: bool,
        now: i64,
    ) -> io::Result<(ClusterMetadata, bool)> {
        let dir = Self::dir(log_dir);
        let directory_id = parse_uuid(&meta.directory_id).unwrap_or([0; 16]);
        let formatted = !dir.join(QUORUM_STATE).exists() && !dir.is_dir();
        let (log, epoch) = if formatted {
            let log = PartitionLog::create(
                log_dir,
                METADATA_TOPIC,
                0,
                METADATA_TOPIC_ID,
                metadata_log_config(),
                1,
            )?;
            (log, 1)
        } else {
            let epoch = read_quorum_epoch(&dir)?.unwrap_or(0).saturating_add(1);
            let (log, _) = PartitionLog::load(
                &dir,
                METADATA_TOPIC,
                0,
                metadata_log_config(),
                clean,
                None,
                None,
                Some(epoch),
            )
            .map_err(|e| super::log::with_path(&dir, e))?;
            (log, epoch)
        };
        let mut m = ClusterMetadata {
            log,
            image: MetadataImage::default(),
            published: Arc::default(),
            node_id: meta.node_id,
            directory_id,
            raft_epoch: epoch,
        };
        m.replay()?;
        write_atomically(
            &dir.join(QUORUM_STATE),
            quorum_state_text(m.node_id, epoch).as_bytes(),
        )?;
        m.leader_change(now)
            .map_err(|e| io::Error::other(format!("writing the metadata log: {e}")))?;
        // A new dir, or one whose formatting a crash cut short: the bootstrap records.
        if formatted || !m.image.features.contains_key("metadata.version") {
            if !dir.join(BOOTSTRAP_CHECKPOINT).exists() {
                write_bootstrap_checkpoint(&dir, now)?;
            }
            let mut records = vec![record(
                23,
                0,
                StructBuilder::new(&BEGIN_TRANSACTION_RECORD)
                    .set("name", text("Bootstrap records"))
                    .build(),
            )];
            records.extend(bootstrap_features());
            records.push(Self::config_record(
                BROKER_RESOURCE,
                "",
                "min.insync.replicas",
                Some("1"),
            ));
            records.push(record(
                24,
                0,
                StructBuilder::new(&END_TRANSACTION_RECORD).build(),
            ));
            m.append(&records, now)
                .map_err(|e| io::Error::other(format!("writing the metadata log: {e}")))?;
        }
        m.publish();
        Ok((m, formatted))
    }

    /// Replays the newest snapshot (`<end offset>-<epoch>.checkpoint`) and then the log's
    /// records from its end offset on, as Kafka's `MetadataLoader` does; a dir Kafka wrote may
    /// have snapshots and a log that starts after them.
    fn replay(&mut self) -> io::Result<()> {
        let node = self.node_id;
        let mut newest: Option<(i64, PathBuf)> = None;
        for entry in fs::read_dir(&self.log.dir)? {
            let path = entry?.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let end = name
                .strip_suffix(".checkpoint")
                .and_then(|n| n.split_once('-'))
                .and_then(|(o, _)| o.parse::<i64>().ok());
            if let Some(end) = end.filter(|e| newest.as_ref().is_none_or(|(n, _)| e > n)) {
                newest = Some((end, path));
            }
        }
        let mut from = 0;
        if let Some((end, path)) = newest {
            let bytes = fs::read(&path).map_err(|e| super::log::with_path(&path, e))?;
            self.replay_snapshot(&bytes).map_err(|why| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{}: {why}", path.display()),
                )
            })?;
            if end > 0 {
                self.image.last_offset = end - 1;
            }
            from = end;
        }
        let image = &mut self.image;
        let mut bad: Option<String> = None;
        self.log.replay(|h, r| {
            if h.is_control() || bad.is_some() || r.offset < from {
                return;
            }
            let Some(value) = r.value else {
                return;
            };
            match decode_metadata_record(value) {
                Ok(rec) => image.apply(node, r.offset, &rec),
                Err(e) => bad = Some(format!("record at offset {}: {e}", r.offset)),
            }
        })?;
        match bad {
            Some(why) => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {why}", self.log.dir.display()),
            )),
            None => Ok(()),
        }
    }

    /// The records of a snapshot file: its batches, control ones (header, footer) skipped.
    fn replay_snapshot(&mut self, bytes: &[u8]) -> Result<(), String> {
        let mut pos = 0usize;
        let mut scratch = RecordScratch::default();
        while pos + 12 <= bytes.len() {
            let len = i32::from_be_bytes([
                bytes[pos + 8],
                bytes[pos + 9],
                bytes[pos + 10],
                bytes[pos + 11],
            ]);
            let end = usize::try_from(len)
                .ok()
                .and_then(|l| (pos + 12).checked_add(l))
                .filter(|e| *e <= bytes.len())
                .ok_or_else(|| format!("a batch at byte {pos} runs past the end"))?;
            let entry = LogEntry::parse(&bytes[pos..end])
                .map_err(|e| format!("batch at byte {pos}: {}", e.message))?;
            if !entry.info().is_control {
                let mut bad = None;
                let (image, node) = (&mut self.image, self.node_id);
                for_each_record(&entry, &mut scratch, |r| {
                    let Some(value) = r.value else { return };
                    match decode_metadata_record(value) {
                        Ok(rec) => image.apply(node, r.offset, &rec),
                        Err(e) => bad = Some(format!("record {}: {e}", r.offset)),
                    }
                })
                .map_err(|e| format!("batch at byte {pos}: {}", e.message))?;
                if let Some(why) = bad {
                    return Err(why);
                }
            }
            pos = end;
        }
        Ok(())
    }

    /// A LeaderChange control record at the start of this raft epoch.
    fn leader_change(&mut self, now: i64) -> BrokerResult<()> {
        let key = encode_control_key(2);
        let value = encode_control_value(&ControlData::LeaderChange {
            version: 0,
            leader_id: self.node_id,
            voters: vec![self.node_id],
            granting_voters: vec![self.node_id],
        });
        debug_assert!(decode_control(Some(&key), Some(&value)).is_ok());
        self.log.append_batch(
            &metadata_batch(true),
            &[NewRecord {
                timestamp: now,
                key: Some(&key),
                value: Some(&value),
                headers: &[],
            }],
            now,
        )?;
        Ok(())
    }

    /// Appends `records` as one batch and applies them to the image: all or nothing (a record
    /// that cannot be encoded fails the whole append before a byte is written).
    pub fn append(&mut self, records: &[NewMetadataRecord<'_>], now: i64) -> BrokerResult<i64> {
        if records.is_empty() {
            return Ok(self.log.log_end_offset());
        }
        let values = encode_records(records)?;
        let new: Vec<NewRecord<'_>> = values
            .iter()
            .map(|v| NewRecord {
                timestamp: now,
                key: None,
                value: Some(v),
                headers: &[],
            })
            .collect();
        let info = self.log.append_batch(&metadata_batch(false), &new, now)?;
        for (i, v) in values.iter().enumerate() {
            let rec = decode_metadata_record(v).map_err(|e| {
                io::Error::other(format!("a written metadata record does not decode: {e}"))
            })?;
            self.image
                .apply(self.node_id, info.base_offset + i as i64, &rec);
        }
        self.publish();
        Ok(info.base_offset)
    }

    /// The features and epoch ApiVersions answers, kept current by every append: a handle
    /// read without the broker lock.
    pub fn published(&self) -> Arc<Mutex<PublishedFeatures>> {
        self.published.clone()
    }

    fn publish(&self) {
        let features = self
            .image
            .features
            .iter()
            .map(|(name, level)| (name.clone(), *level))
            .collect();
        let mut p = self.published.lock().unwrap_or_else(|e| e.into_inner());
        p.epoch = self.features_epoch();
        p.features = features;
    }

    /// Marks the published view closed (the broker has shut down).
    pub fn publish_closed(&self) {
        self.published
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .closed = true;
    }

    pub fn config_record<'a>(
        resource_type: i8,
        resource: &'a str,
        name: &'a str,
        value: Option<&'a str>,
    ) -> NewMetadataRecord<'a> {
        record(
            4,
            0,
            StructBuilder::new(&CONFIG_RECORD)
                .set("resourceType", int(resource_type))
                .set("resourceName", text(resource))
                .set("name", text(name))
                .set("value", value.map_or(Value::Null, text))
                .build(),
        )
    }

    fn partition_record(
        &self,
        topic_id: [u8; 16],
        partition: i32,
        leader_epoch: i32,
    ) -> NewMetadataRecord<'static> {
        let n = self.node_id;
        record(
            3,
            2,
            StructBuilder::new(&PARTITION_RECORD)
                .set("partitionId", int(partition))
                .set("topicId", Value::Uuid(topic_id))
                .set("replicas", ints(&[n]))
                .set("isr", ints(&[n]))
                .set("removingReplicas", ints(&[]))
                .set("addingReplicas", ints(&[]))
                .set("leader", int(n))
                .set("leaderEpoch", int(leader_epoch))
                .set("partitionEpoch", int(0))
                .set(
                    "directories",
                    Value::Array(vec![Value::Uuid(self.directory_id)]),
                )
                .build(),
        )
    }

    /// CreateTopics: TopicRecord, the topic's ConfigRecords, a PartitionRecord per partition
    /// (this node the only replica and leader), in one batch as Kafka's controller writes them.
    /// `leader_epochs` gives each partition's epoch (0 for a new topic).
    pub fn create_topic(
        &mut self,
        name: &str,
        id: [u8; 16],
        leader_epochs: &[i32],
        configs: &[(String, String)],
        now: i64,
    ) -> BrokerResult<()> {
        let mut records = vec![record(
            2,
            0,
            StructBuilder::new(&TOPIC_RECORD)
                .set("name", text(name))
                .set("topicId", Value::Uuid(id))
                .build(),
        )];
        for (k, v) in configs {
            records.push(Self::config_record(TOPIC_RESOURCE, name, k, Some(v)));
        }
        if configs.iter().any(|(k, _)| k == "min.insync.replicas") {
            records.push(clear_elr(name));
        }
        for (p, epoch) in leader_epochs.iter().enumerate() {
            records.push(self.partition_record(id, p as i32, *epoch));
        }
        self.append(&records, now).map(|_| ())
    }

    /// CreatePartitions: a PartitionRecord for each new partition.
    pub fn add_partitions(&mut self, name: &str, from: i32, to: i32, now: i64) -> BrokerResult<()> {
        let Some(id) = self.image.topics.get(name).map(|t| t.id) else {
            return Ok(());
        };
        let records: Vec<_> = (from..to)
            .map(|p| self.partition_record(id, p, 0))
            .collect();
        self.append(&records, now).map(|_| ())
    }

    /// DeleteTopics: a RemoveTopicRecord (its configs go with it).
    pub fn remove_topic(&mut self, id: [u8; 16], now: i64) -> BrokerResult<()> {
        let r = record(
            9,
            0,
            StructBuilder::new(&REMOVE_TOPIC_RECORD)
                .set("topicId", Value::Uuid(id))
                .build(),
        );
        self.append(&[r], now).map(|_| ())
    }

    /// Config changes of one resource (a null value deletes the override), one batch.
    pub fn alter_configs(
        &mut self,
        resource_type: i8,
        resource: &str,
        changes: &[(String, Option<String>)],
        now: i64,
    ) -> BrokerResult<()> {
        let mut records: Vec<_> = changes
            .iter()
            .map(|(k, v)| Self::config_record(resource_type, resource, k, v.as_deref()))
            .collect();
        // A topic's min.insync.replicas changed: its ELRs are cleared, as Kafka's controller
        // does with eligible.leader.replicas.version 1.
        if resource_type == TOPIC_RESOURCE
            && changes.iter().any(|(k, _)| k == "min.insync.replicas")
        {
            records.push(clear_elr(resource));
        }
        self.append(&records, now).map(|_| ())
    }

    /// The leader epoch of a partition, if the image has it.
    pub fn leader_epoch(&self, topic: &str, partition: i32) -> Option<i32> {
        self.image
            .topics
            .get(topic)?
            .partitions
            .get(&partition)
            .map(|p| p.leader_epoch)
    }

    fn partition_change<'a>(
        &self,
        id: [u8; 16],
        partition: i32,
        leader: bool,
    ) -> NewMetadataRecord<'a> {
        let n = self.node_id;
        let (isr, leader_id, elr): (&[i32], i32, &[i32]) = if leader {
            (&[n], n, &[])
        } else {
            (&[], -1, &[n])
        };
        record(
            5,
            2,
            StructBuilder::new(&PARTITION_CHANGE_RECORD)
                .set("partitionId", int(partition))
                .set("topicId", Value::Uuid(id))
                .set("isr", ints(isr))
                .set("leader", int(leader_id))
                .set("eligibleLeaderReplicas", ints(elr))
                .set("lastKnownElr", ints(elr))
                .build(),
        )
    }

    /// PartitionChangeRecords moving every partition led (`to_leader` false) or not led
    /// (`to_leader` true) by this node, one record per batch as Kafka's controller writes them.
    fn move_leaders(&mut self, to_leader: bool, now: i64) -> BrokerResult<()> {
        let n = self.node_id;
        let mut changes = Vec::new();
        for t in self.image.topics.values() {
            for (p, part) in &t.partitions {
                if (part.leader == n) != to_leader {
                    changes.push((t.id, *p));
                }
            }
        }
        for (id, p) in changes {
            let r = self.partition_change(id, p, to_leader);
            self.append(&[r], now)?;
        }
        Ok(())
    }

    fn registration_change<'a>(
        &self,
        set: &[(&str, Value<'a>)],
        version: i16,
    ) -> NewMetadataRecord<'a> {
        let mut b = StructBuilder::new(&BROKER_REGISTRATION_CHANGE_RECORD)
            .set("brokerId", int(self.node_id))
            .set("brokerEpoch", int(self.image.broker_epoch.unwrap_or(-1)));
        for (k, v) in set {
            b = b.set(k, v.clone());
        }
        record(17, version, b.build())
    }

    /// The broker's start (`BrokerLifecycleManager` and the controller's answers): a
    /// RegisterBrokerRecord with its PLAINTEXT endpoint, the unfencing, and leadership of every
    /// partition. A dir that was not shut down cleanly gets the fencing records first.
    pub fn register(&mut self, host: &str, port: i32, now: i64) -> BrokerResult<()> {
        if self.image.broker_epoch.is_some() && !self.image.fenced {
            let r = self.registration_change(&[("fenced", int(1))], 0);
            self.append(&[r], now)?;
        }
        self.move_leaders(false, now)?;
        let epoch = self.log.log_end_offset();
        let b = StructBuilder::new(&REGISTER_BROKER_RECORD);
        let endpoint = b.element("endPoints");
        let features = features_value(&b);
        let incarnation = super::files::random_uuid();
        let r = record(
            0,
            4,
            b.set("brokerId", int(self.node_id))
                .set("isMigratingZkBroker", Value::Bool(false))
                .set("incarnationId", Value::Uuid(incarnation))
                .set("brokerEpoch", int(epoch))
                .set(
                    "endPoints",
                    Value::Array(vec![Value::Struct(
                        StructBuilder::of(endpoint)
                            .set("name", text("PLAINTEXT"))
                            .set("host", text(host))
                            .set("port", int(port))
                            .set("securityProtocol", int(0))
                            .build(),
                    )]),
                )
                .set("features", features)
                .set("rack", Value::Null)
                .set("fenced", Value::Bool(true))
                .set("inControlledShutdown", Value::Bool(false))
                .set(
                    "logDirs",
                    Value::Array(vec![Value::Uuid(self.directory_id)]),
                )
                .build(),
        );
        self.append(&[r], now)?;
        let r = self.registration_change(&[("cordonedLogDirs", Value::Array(vec![]))], 3);
        self.append(&[r], now)?;
        let r = self.registration_change(&[("fenced", int(-1))], 0);
        self.append(&[r], now)?;
        self.move_leaders(true, now)
    }

    /// A controlled shutdown: `inControlledShutdown`, every partition's leadership given up
    /// (ISR emptied, this node kept as eligible leader replica), then fenced.
    pub fn controlled_shutdown(&mut self, now: i64) -> BrokerResult<()> {
        let registered = self.image.broker_epoch.is_some() && !self.image.fenced;
        if registered {
            let r = self.registration_change(&[("inControlledShutdown", int(1))], 1);
            self.append(&[r], now)?;
        }
        self.move_leaders(false, now)?;
        if registered {
            let r = self.registration_change(&[("fenced", int(1))], 0);
            self.append(&[r], now)?;
        }
        Ok(())
    }

    /// The producer ids up to `next` are handed out: a ProducerIdsRecord for each new block
    /// of [`PRODUCER_ID_BLOCK`] they reach into.
    pub fn reserve_producer_ids(&mut self, next: i64, now: i64) -> BrokerResult<()> {
        while self.image.next_producer_id.unwrap_or(0) < next {
            let end = self.image.next_producer_id.unwrap_or(0) + PRODUCER_ID_BLOCK;
            let r = record(
                15,
                0,
                StructBuilder::new(&PRODUCER_IDS_RECORD)
                    .set("brokerId", int(self.node_id))
                    .set("brokerEpoch", int(self.image.broker_epoch.unwrap_or(-1)))
                    .set("nextProducerId", int(end))
                    .build(),
            );
            self.append(&[r], now)?;
        }
        Ok(())
    }

    /// The finalized features' epoch (`FinalizedFeatures.finalizedFeaturesEpoch`: the offset of
    /// the image).
    pub fn features_epoch(&self) -> i64 {
        self.image.last_offset
    }

    pub fn log_end_offset(&self) -> i64 {
        self.log.log_end_offset()
    }

    /// Clean close of the metadata log (final indexes, producer snapshot).
    pub fn close(&mut self) -> io::Result<()> {
        self.log.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn format_replay_and_restart() {
        let dir = tempfile::tempdir().unwrap();
        let meta = MetaProperties::new(1);
        let (mut m, formatted) = ClusterMetadata::open(dir.path(), &meta, false, 1000).unwrap();
        assert!(formatted);
        assert_eq!(m.raft_epoch, 1);
        assert_eq!(m.image.features.get("metadata.version"), Some(&33));
        assert_eq!(m.image.features.get("share.version"), None);
        assert_eq!(
            m.image.configs.get(&(BROKER_RESOURCE, String::new())),
            Some(&BTreeMap::from([(
                "min.insync.replicas".into(),
                "1".into()
            )]))
        );
        m.register("127.0.0.1", 9092, 1000).unwrap();
        let epoch = m.image.broker_epoch.unwrap();
        assert!(!m.image.fenced);
        m.create_topic(
            "t",
            [7; 16],
            &[0, 0],
            &[("retention.ms".into(), "5".into())],
            1000,
        )
        .unwrap();
        m.alter_configs(
            TOPIC_RESOURCE,
            "t",
            &[
                ("retention.ms".into(), None),
                ("segment.bytes".into(), Some("1048576".into())),
            ],
            1000,
        )
        .unwrap();
        m.reserve_producer_ids(1, 1000).unwrap();
        m.reserve_producer_ids(1000, 1000).unwrap();
        assert_eq!(m.image.next_producer_id, Some(1000));
        m.controlled_shutdown(1000).unwrap();
        assert_eq!(m.leader_epoch("t", 1), Some(1));
        m.close().unwrap();
        let image = m.image.clone();
        drop(m);
        assert_eq!(
            fs::read_to_string(dir.path().join("__cluster_metadata-0/quorum-state")).unwrap(),
            quorum_state_text(1, 1)
        );
        let (mut m, formatted) = ClusterMetadata::open(dir.path(), &meta, true, 2000).unwrap();
        assert!(!formatted);
        assert_eq!(m.raft_epoch, 2);
        assert_eq!(m.image.topics, image.topics);
        assert_eq!(m.image.configs, image.configs);
        assert_eq!(
            m.image.topic_configs("t"),
            Some(&BTreeMap::from([(
                "segment.bytes".into(),
                "1048576".into()
            )]))
        );
        m.register("127.0.0.1", 9092, 2000).unwrap();
        assert!(m.image.broker_epoch.unwrap() > epoch);
        assert_eq!(m.leader_epoch("t", 0), Some(2));
        m.remove_topic([7; 16], 2000).unwrap();
        assert!(m.image.topics.is_empty() && m.image.topic_configs("t").is_none());
        // A value the metadata log cannot carry is refused, and nothing is written.
        let end = m.log_end_offset();
        let long = "x".repeat(40_000);
        let e = m
            .alter_configs(BROKER_RESOURCE, "1", &[("a".into(), Some(long))], 2000)
            .unwrap_err();
        assert_eq!(e.code(), ResponseError::InvalidConfig.code());
        assert_eq!(m.log_end_offset(), end);
    }

    /// A dir Kafka wrote may have a newer snapshot: it is replayed, then the log after it.
    #[test]
    fn the_newest_snapshot_is_replayed_then_the_log_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let meta = MetaProperties::new(1);
        let (mut m, _) = ClusterMetadata::open(dir.path(), &meta, false, 1000).unwrap();
        m.create_topic("before", [1; 16], &[0], &[], 1000).unwrap();
        let end = m.log_end_offset();
        m.close().unwrap();
        drop(m);
        // A snapshot at the log end holding another topic only (as if "before" were deleted).
        let topic = StructBuilder::new(&TOPIC_RECORD)
            .set("name", text("snap"))
            .set("topicId", Value::Uuid([2; 16]))
            .build();
        let value = encode_metadata_record(2, 0, &topic).unwrap();
        let mut bytes = Vec::new();
        encode_batch(
            &mut bytes,
            &metadata_batch(false),
            &[NewRecord {
                timestamp: 1,
                key: None,
                value: Some(&value),
                headers: &[],
            }],
            &mut Vec::new(),
        );
        let md = ClusterMetadata::dir(dir.path());
        fs::write(md.join(format!("{end:020}-{:010}.checkpoint", 1)), &bytes).unwrap();
        let (m, _) = ClusterMetadata::open(dir.path(), &meta, true, 2000).unwrap();
        assert!(m.image.topics.contains_key("snap"));
        assert!(!m.image.topics.contains_key("before"));
        // A damaged snapshot stops the open, naming the file.
        fs::write(
            md.join(format!("{:020}-{:010}.checkpoint", end + 5, 1)),
            [0u8; 20],
        )
        .unwrap();
        let e = ClusterMetadata::open(dir.path(), &meta, true, 3000)
            .err()
            .unwrap();
        assert!(e.to_string().contains(".checkpoint"), "{e}");
    }

    /// A metadata dir a crash left before its bootstrap records gets them at the next open.
    #[test]
    fn a_formatting_cut_short_is_completed() {
        let dir = tempfile::tempdir().unwrap();
        let meta = MetaProperties::new(1);
        let log = PartitionLog::create(
            dir.path(),
            METADATA_TOPIC,
            0,
            METADATA_TOPIC_ID,
            metadata_log_config(),
            1,
        )
        .unwrap();
        drop(log);
        let (m, formatted) = ClusterMetadata::open(dir.path(), &meta, false, 1000).unwrap();
        assert!(!formatted);
        assert_eq!(m.image.features.get("metadata.version"), Some(&33));
        assert!(ClusterMetadata::dir(dir.path())
            .join(BOOTSTRAP_CHECKPOINT)
            .is_file());
    }
}
