//! The broker's side of the group and transaction coordinators: where their records go (the
//! internal topics' partitions), offset commits, KIP-848 heartbeats, producer ids and the
//! markers that end a transaction.

use kafka_protocol::ResponseError;

use super::{topic_meta, Broker, OFFSETS_TOPIC, TRANSACTION_TOPIC};
use crate::consumer_group::{Heartbeat, HeartbeatOutcome};
use crate::group::{CommitPartition, CoordinatorRecord};
use crate::log::AppendInfo;
use crate::txn::EndPlan;
use crate::{now_ms, records, BrokerError, BrokerResult};
use kseg_analysis::partition_for::partition_for;
use kseg_format::encode::NewRecord;

impl Broker {
    /// The partition of internal `topic` that holds `key`'s records (by the topic's real
    /// partition count), the topic made when it does not exist yet.
    fn internal_partition(&mut self, topic: &str, key: &str) -> BrokerResult<i32> {
        let n = self.topic_or_create(topic)?.partitions.len() as u32;
        Ok(partition_for(key, n) as i32)
    }

    /// Appends `key`'s records to its partition of internal `topic`.
    fn write_internal(
        &mut self,
        topic: &str,
        key: &str,
        records: &[CoordinatorRecord],
    ) -> BrokerResult<()> {
        if records.is_empty() {
            return Ok(());
        }
        let p = self.internal_partition(topic, key)?;
        self.append_coordinator(topic, p, records, None)?;
        Ok(())
    }

    /// The `__consumer_offsets` partition of a group.
    pub fn group_partition(&mut self, group: &str) -> BrokerResult<i32> {
        self.internal_partition(OFFSETS_TOPIC, group)
    }

    /// The `__transaction_state` partition of a transactional id.
    pub fn transaction_partition(&mut self, id: &str) -> BrokerResult<i32> {
        self.internal_partition(TRANSACTION_TOPIC, id)
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
        self.write_internal(OFFSETS_TOPIC, group, records)
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
        // OffsetMetadataManager.validateOffsetCommit: a generation for a group that is not
        // there is GROUP_ID_NOT_FOUND from v9 (ILLEGAL_GENERATION before).
        if verdict.is_none()
            && generation >= 0
            && version >= 9
            && self.groups.group(group).is_none()
        {
            return Err(BrokerError::new(
                ResponseError::GroupIdNotFound,
                format!("offset commit for group {group}"),
            ));
        }
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

    /// OffsetDelete (`KafkaApis.handleOffsetDeleteRequest`, then
    /// `OffsetMetadataManager.deleteOffsets`): a group-level refusal (INVALID_GROUP_ID,
    /// GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP for a classic group with members that does not use
    /// the consumer protocol) is the error of the whole request; otherwise one code per
    /// partition, in order: UNKNOWN_TOPIC_OR_PARTITION for a partition that does not exist,
    /// GROUP_SUBSCRIBED_TO_TOPIC for a topic the group consumes, else NONE, with a tombstone
    /// for each offset the group had. The tombstones are written before the answer.
    pub fn delete_offsets(
        &mut self,
        group: &str,
        topics: &[(String, Vec<i32>)],
    ) -> BrokerResult<Vec<Vec<i16>>> {
        let refuse =
            |e: ResponseError| BrokerError::new(e, format!("offset delete for group {group}"));
        if group.is_empty() {
            return Err(refuse(ResponseError::InvalidGroupId));
        }
        let p = self.group_partition(group)?;
        let subscribed: Vec<bool> = match self.consumer_groups.group(group) {
            // A KIP-848 group: `validateOffsetDelete` accepts any state.
            Some(g) => topics.iter().map(|(t, _)| g.is_subscribed_to(t)).collect(),
            None => {
                let g = self
                    .groups
                    .group(group)
                    .ok_or_else(|| refuse(ResponseError::GroupIdNotFound))?;
                g.validate_offset_delete().map_err(refuse)?;
                topics.iter().map(|(t, _)| g.is_subscribed_to(t)).collect()
            }
        };
        let mut records = Vec::new();
        let mut codes = Vec::with_capacity(topics.len());
        for ((topic, partitions), subscribed) in topics.iter().zip(subscribed) {
            let count = self.topic(topic).map_or(0, |t| t.partitions.len());
            let mut topic_codes = Vec::with_capacity(partitions.len());
            for &partition in partitions {
                let exists = usize::try_from(partition).is_ok_and(|i| i < count);
                topic_codes.push(if !exists {
                    ResponseError::UnknownTopicOrPartition.code()
                } else if subscribed {
                    ResponseError::GroupSubscribedToTopic.code()
                } else {
                    self.groups
                        .delete_offset(group, topic, partition, &mut records);
                    0
                });
            }
            codes.push(topic_codes);
        }
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
                    records.push((records::group_metadata_key(&group), None));
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

    /// The next producer id (a new block recorded in the metadata log when it starts one).
    pub fn allocate_producer_id(&mut self) -> BrokerResult<i64> {
        let id = self.next_producer_id;
        self.next_producer_id += 1;
        self.reserve_producer_ids()?;
        Ok(id)
    }

    /// Records the producer id block the ids handed out so far reach into.
    pub(super) fn reserve_producer_ids(&mut self) -> BrokerResult<()> {
        self.metadata
            .reserve_producer_ids(self.next_producer_id, now_ms())
    }

    /// InitProducerId for a transactional id: fences an open transaction of the previous
    /// producer (aborting it) and returns the producer id and bumped epoch.
    pub fn init_transactional_producer(
        &mut self,
        id: &str,
        timeout_ms: i32,
        expected: Option<(i64, i16)>,
    ) -> BrokerResult<(i64, i16)> {
        self.transaction_partition(id)?;
        for _ in 0..3 {
            let mut records = Vec::new();
            let mut next = self.next_producer_id;
            let result = self.txns.init_producer_id(
                id,
                timeout_ms,
                expected,
                now_ms(),
                &mut || {
                    next += 1;
                    next - 1
                },
                &mut records,
            );
            self.next_producer_id = next;
            self.reserve_producer_ids()?;
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
        self.write_internal(TRANSACTION_TOPIC, id, records)
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
}
