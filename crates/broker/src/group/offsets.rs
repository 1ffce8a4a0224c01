//! Committed offsets: OffsetCommit, TxnOffsetCommit (pending until the transaction's marker),
//! OffsetFetch, their reload, and the tombstones of a deleted topic's offsets.

use super::*;

impl GroupCoordinator {
    /// OffsetCommit. Returns one error code per partition (in order).
    #[allow(clippy::too_many_arguments)]
    pub fn commit(
        &mut self,
        group_id: &str,
        member_id: &str,
        generation: i32,
        partitions: &[CommitPartition],
        expire_timestamp: Option<i64>,
        now: i64,
        records: &mut Vec<CoordinatorRecord>,
    ) -> Result<Vec<i16>, ResponseError> {
        if group_id.is_empty() {
            return Err(ResponseError::InvalidGroupId);
        }
        let group = match self.groups.get_mut(group_id) {
            Some(g) => g,
            None if generation < 0 => self
                .groups
                .entry(group_id.to_string())
                .or_insert_with(|| Group::new(group_id, now)),
            None => return Err(ResponseError::IllegalGeneration),
        };
        // ClassicGroup.validateOffsetCommit: no generation commits to an empty group whoever
        // sends it; a member or a generation is checked; neither, to a group with members, is
        // refused.
        let to_empty_group = generation < 0 && group.state == GroupState::Empty;
        if !to_empty_group && generation < 0 && member_id.is_empty() {
            return Err(ResponseError::UnknownMemberId);
        } else if !to_empty_group {
            if group.member_mut(member_id).is_none() {
                return Err(ResponseError::UnknownMemberId);
            }
            if generation != group.generation {
                return Err(ResponseError::IllegalGeneration);
            }
            if group.state == GroupState::CompletingRebalance {
                return Err(ResponseError::RebalanceInProgress);
            }
            if let Some(m) = group.member_mut(member_id) {
                m.heartbeat_deadline = now + m.session_timeout_ms as i64;
            }
        }
        let mut codes = Vec::with_capacity(partitions.len());
        for p in partitions {
            let metadata = p.metadata.clone().unwrap_or_default();
            if metadata.len() > MAX_METADATA_BYTES {
                codes.push(ResponseError::OffsetMetadataTooLarge.code());
                continue;
            }
            let value = p.record(group_id, metadata, now, expire_timestamp, records);
            group.offsets.insert((p.topic.clone(), p.partition), value);
            codes.push(0);
        }
        Ok(codes)
    }

    /// TxnOffsetCommit: the offsets wait for the transaction's marker.
    pub fn txn_commit(
        &mut self,
        group_id: &str,
        producer_id: i64,
        partitions: &[CommitPartition],
        now: i64,
        records: &mut Vec<CoordinatorRecord>,
    ) -> Vec<i16> {
        let group = self
            .groups
            .entry(group_id.to_string())
            .or_insert_with(|| Group::new(group_id, now));
        let pending = group.pending_txn.entry(producer_id).or_default();
        partitions
            .iter()
            .map(|p| {
                let metadata = p.metadata.clone().unwrap_or_default();
                let value = p.record(group_id, metadata, now, None, records);
                pending.insert((p.topic.clone(), p.partition), value);
                0
            })
            .collect()
    }

    /// A transaction marker reached the offsets partition: apply or drop the producer's
    /// pending commits in every group.
    pub fn complete_txn(&mut self, producer_id: i64, commit: bool) {
        for group in self.groups.values_mut() {
            if let Some(pending) = group.pending_txn.remove(&producer_id) {
                if commit {
                    group.offsets.extend(pending);
                }
            }
        }
    }

    /// OffsetFetch for one partition: (offset, leader epoch, metadata, error).
    pub fn fetch_offset(
        &self,
        group_id: &str,
        topic: &str,
        partition: i32,
        require_stable: bool,
    ) -> (i64, i32, String, i16) {
        let Some(group) = self.groups.get(group_id) else {
            return (-1, -1, String::new(), 0);
        };
        if require_stable && group.has_pending_txn(topic, partition) {
            return (
                -1,
                -1,
                String::new(),
                ResponseError::UnstableOffsetCommit.code(),
            );
        }
        match group.offsets.get(&(topic.to_string(), partition)) {
            Some(v) => (
                v.offset,
                v.leader_epoch.unwrap_or(-1),
                v.metadata.clone(),
                0,
            ),
            None => (-1, -1, String::new(), 0),
        }
    }

    /// Every committed partition of a group (OffsetFetch with null topics).
    pub fn committed_partitions(&self, group_id: &str) -> Vec<(String, i32)> {
        self.groups
            .get(group_id)
            .map(|g| g.offsets.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Rebuilds state from one `__consumer_offsets` record while loading. `producer` is the
    /// batch's producer id when it is transactional.
    pub fn load_offset(
        &mut self,
        group: &str,
        topic: &str,
        partition: i32,
        value: Option<OffsetCommitValue>,
        producer: Option<i64>,
        now: i64,
    ) {
        let g = self
            .groups
            .entry(group.to_string())
            .or_insert_with(|| Group::new(group, now));
        let key = (topic.to_string(), partition);
        match (value, producer) {
            (Some(v), Some(pid)) => {
                g.pending_txn.entry(pid).or_default().insert(key, v);
            }
            (Some(v), None) => {
                g.offsets.insert(key, v);
            }
            (None, _) => {
                g.offsets.remove(&key);
            }
        }
    }

    /// OffsetDelete of one partition (`OffsetMetadataManager.deleteOffsets`): a tombstone when
    /// the group has a committed or a pending transactional offset for it. Both go, as
    /// Kafka's replay of the tombstone removes both.
    pub fn delete_offset(
        &mut self,
        group_id: &str,
        topic: &str,
        partition: i32,
        records: &mut Vec<CoordinatorRecord>,
    ) {
        let Some(g) = self.groups.get_mut(group_id) else {
            return;
        };
        let key = (topic.to_string(), partition);
        let mut held = g.offsets.remove(&key).is_some();
        for pending in g.pending_txn.values_mut() {
            held |= pending.remove(&key).is_some();
        }
        if held {
            records.push((offset_commit_key(group_id, topic, partition), None));
        }
    }

    /// Tombstones for every group's committed offsets of a deleted topic, by group.
    pub fn delete_topic_offsets(&mut self, topic: &str) -> Vec<(String, Vec<CoordinatorRecord>)> {
        let mut out = Vec::new();
        for g in self.groups.values_mut() {
            let gone: Vec<(String, i32)> = g
                .offsets
                .keys()
                .filter(|(t, _)| t == topic)
                .cloned()
                .collect();
            if gone.is_empty() {
                continue;
            }
            let records = gone
                .iter()
                .map(|(t, p)| (offset_commit_key(&g.id, t, *p), None))
                .collect();
            for k in gone {
                g.offsets.remove(&k);
            }
            out.push((g.id.clone(), records));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}

impl CommitPartition {
    /// The committed value, its OffsetCommit record appended to `records`.
    fn record(
        &self,
        group_id: &str,
        metadata: String,
        now: i64,
        expire_timestamp: Option<i64>,
        records: &mut Vec<CoordinatorRecord>,
    ) -> OffsetCommitValue {
        let value = offset_value(
            self.offset,
            self.leader_epoch,
            metadata,
            now,
            expire_timestamp,
            self.topic_id,
        );
        records.push((
            offset_commit_key(group_id, &self.topic, self.partition),
            Some(offset_commit_value(&value)),
        ));
        value
    }
}
