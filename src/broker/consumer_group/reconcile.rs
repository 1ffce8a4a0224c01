//! Moving a group towards its target: a new target assignment when the group epoch is ahead
//! (`maybeUpdateTargetAssignment`), each member's next state towards its target
//! (`CurrentAssignmentBuilder`), and removing members (`consumerGroupFenceMembers`).

use super::assignor::assign;
use super::*;

impl ConsumerMember {
    pub(super) fn current_record(&self, group: &str) -> CoordinatorRecord {
        let list = |o: &Owned| -> Vec<TopicPartitions> {
            o.iter()
                .filter(|(_, p)| !p.is_empty())
                .map(|(id, p)| TopicPartitions {
                    topic_id: *id,
                    partitions: p.keys().copied().collect(),
                    assignment_epochs: Some(p.values().copied().collect()),
                })
                .collect()
        };
        (
            rec::current_assignment_key(group, &self.id),
            Some(rec::current_assignment_value(&CurrentAssignment {
                member_epoch: self.epoch,
                previous_member_epoch: self.previous_epoch,
                state: self.state,
                assigned: list(&self.assigned),
                pending_revocation: list(&self.pending_revocation),
            })),
        )
    }
}

impl ConsumerGroup {
    /// Removes members (leave or session timeout: `consumerGroupFenceMembers`): their three
    /// tombstones, the group epoch bump, and, when the group is left empty, the assignment
    /// epoch with it (timestamp 0).
    pub(super) fn fence(
        &mut self,
        ids: &[String],
        topics: &dyn Fn(&str) -> Option<TopicMeta>,
        records: &mut Vec<CoordinatorRecord>,
    ) {
        for id in ids {
            records.push((rec::current_assignment_key(&self.id, id), None));
            records.push((rec::target_member_key(&self.id, id), None));
            records.push((rec::member_key(&self.id, id), None));
            self.take(id);
            self.target.remove(id);
        }
        self.metadata_hash = self.hash(topics);
        self.epoch += 1;
        records.push((
            rec::group_key(&self.id),
            Some(rec::group_value(self.epoch, self.metadata_hash)),
        ));
        if self.members.is_empty() {
            self.assignment_epoch = self.epoch;
            self.assignment_timestamp = 0;
            records.push((
                rec::target_metadata_key(&self.id),
                Some(rec::target_metadata_value(self.epoch, 0)),
            ));
        }
    }

    /// A new target assignment when the group epoch is ahead of it and the assignment
    /// interval allows (`maybeUpdateTargetAssignment`): a record per member whose target
    /// changed, then the assignment epoch.
    pub(super) fn maybe_update_target(
        &mut self,
        topics: &dyn Fn(&str) -> Option<TopicMeta>,
        config: &ConsumerGroupConfig,
        now: i64,
        records: &mut Vec<CoordinatorRecord>,
    ) {
        if self.epoch <= self.assignment_epoch {
            return;
        }
        let interval = config.assignment_interval_ms;
        if self.assignment_timestamp != 0
            && interval != 0
            && now < self.assignment_timestamp + interval
        {
            return;
        }
        let assignor = self.assignor().to_string();
        let new = assign(&assignor, &self.members, &self.target, topics);
        for (id, target) in &new {
            if self.target.get(id) != Some(target) {
                let list: Vec<TopicPartitions> = target
                    .iter()
                    .filter(|(_, p)| !p.is_empty())
                    .map(|(t, p)| TopicPartitions {
                        topic_id: *t,
                        partitions: p.iter().copied().collect(),
                        assignment_epochs: None,
                    })
                    .collect();
                records.push((
                    rec::target_member_key(&self.id, id),
                    Some(rec::target_member_value(&list)),
                ));
            }
        }
        self.target = new;
        self.assignment_epoch = self.epoch;
        self.assignment_timestamp = now;
        records.push((
            rec::target_metadata_key(&self.id),
            Some(rec::target_metadata_value(self.epoch, now)),
        ));
    }

    /// `CurrentAssignmentBuilder.build`: the member's next state towards the target.
    pub(super) fn reconcile(
        &self,
        member: &ConsumerMember,
        owned: Option<&Assignment>,
    ) -> ConsumerMember {
        let target_epoch = self.assignment_epoch;
        let empty = Assignment::new();
        let target = self.target.get(&member.id).unwrap_or(&empty);
        match member.state {
            UNREVOKED_PARTITIONS => {
                // Waits until the member's reported partitions no longer hold any of the
                // revoked ones.
                let still_owned = match owned {
                    None => true,
                    Some(owned) => member.pending_revocation.iter().any(|(t, ps)| {
                        owned
                            .get(t)
                            .is_some_and(|o| ps.keys().any(|p| o.contains(p)))
                    }),
                };
                if still_owned {
                    return member.clone();
                }
                let mut m = member.clone();
                m.pending_revocation.clear();
                self.next_assignment(&m, target_epoch, target)
            }
            UNRELEASED_PARTITIONS if member.epoch == target_epoch => {
                self.next_assignment(member, target_epoch, target)
            }
            _ if member.epoch != target_epoch => self.next_assignment(member, target_epoch, target),
            _ => member.clone(),
        }
    }

    /// `CurrentAssignmentBuilder.computeNextAssignment`.
    fn next_assignment(
        &self,
        member: &ConsumerMember,
        target_epoch: i32,
        target: &Assignment,
    ) -> ConsumerMember {
        let mut keep = Owned::new();
        let mut revoke = Owned::new();
        for (t, ps) in &member.assigned {
            for (p, e) in ps {
                let map = if target.get(t).is_some_and(|tp| tp.contains(p)) {
                    &mut keep
                } else {
                    &mut revoke
                };
                map.entry(*t).or_default().insert(*p, *e);
            }
        }
        let mut m = member.clone();
        // `updateMemberEpoch`: the previous epoch is the one the member had.
        m.previous_epoch = member.epoch;
        if !revoke.is_empty() {
            m.state = UNREVOKED_PARTITIONS;
            m.assigned = keep;
            m.pending_revocation = revoke;
            return m;
        }
        let mut unreleased = false;
        for (t, ps) in target {
            for p in ps {
                if keep.get(t).is_some_and(|k| k.contains_key(p)) {
                    continue;
                }
                if self.owner_epoch(&member.id, t, *p).is_some() {
                    unreleased = true;
                } else {
                    keep.entry(*t).or_default().insert(*p, target_epoch);
                }
            }
        }
        m.state = if unreleased {
            UNRELEASED_PARTITIONS
        } else {
            STABLE
        };
        m.epoch = target_epoch;
        m.assigned = keep;
        m.pending_revocation = Owned::new();
        m
    }
}
