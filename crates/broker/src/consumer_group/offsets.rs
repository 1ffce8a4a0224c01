//! The offset requests of a KIP-848 group's members, checked against their member epochs
//! (the offsets themselves stay in the classic coordinator's store).

use super::*;

impl ConsumerGroups {
    /// Validates an OffsetCommit for a KIP-848 group (`ConsumerGroup.validateOffsetCommit`):
    /// `None` when the group is not one. A negative epoch commits when the group is empty; else
    /// the member must be known (UNKNOWN_MEMBER_ID), speak OffsetCommit v9+
    /// (UNSUPPORTED_VERSION), and send its epoch (a newer one is STALE_MEMBER_EPOCH); an older
    /// epoch is checked per partition (`createAssignmentEpochValidator`): the partition must be
    /// assigned or pending revocation at an assignment epoch no newer than the one sent. The
    /// per-partition answer is one error (or none) per `(topic id, partition)` given.
    pub fn validate_commit(
        &self,
        group_id: &str,
        member_id: &str,
        epoch: i32,
        version: i16,
        partitions: &[(Option<[u8; 16]>, i32)],
    ) -> Option<Result<Vec<Option<ResponseError>>, ResponseError>> {
        let group = self.groups.get(group_id)?;
        let all_ok = || vec![None; partitions.len()];
        if epoch < 0 && group.members.is_empty() {
            return Some(Ok(all_ok()));
        }
        let Some(m) = group.members.get(member_id) else {
            return Some(Err(ResponseError::UnknownMemberId));
        };
        if version < 9 {
            return Some(Err(ResponseError::UnsupportedVersion));
        }
        if epoch == m.epoch {
            return Some(Ok(all_ok()));
        }
        if epoch > m.epoch {
            return Some(Err(ResponseError::StaleMemberEpoch));
        }
        Some(Ok(partitions
            .iter()
            .map(|(topic, p)| {
                let assigned_at = topic.and_then(|t| {
                    m.assigned
                        .get(&t)
                        .and_then(|ps| ps.get(p))
                        .or_else(|| m.pending_revocation.get(&t).and_then(|ps| ps.get(p)))
                        .copied()
                });
                match assigned_at {
                    Some(at) if epoch >= at => None,
                    _ => Some(ResponseError::StaleMemberEpoch),
                }
            })
            .collect()))
    }

    /// OffsetFetch v9 from a member of a KIP-848 group (`ConsumerGroup.validateOffsetFetch`):
    /// an admin's fetch (no member, negative epoch) always passes; a member must be known
    /// (UNKNOWN_MEMBER_ID) and at its epoch (STALE_MEMBER_EPOCH).
    pub fn validate_fetch(
        &self,
        group_id: &str,
        member_id: &str,
        epoch: i32,
    ) -> Result<(), ResponseError> {
        let Some(group) = self.groups.get(group_id) else {
            return Ok(());
        };
        if epoch < 0 && member_id.is_empty() {
            return Ok(());
        }
        match group.members.get(member_id) {
            None => Err(ResponseError::UnknownMemberId),
            Some(m) if m.epoch != epoch => Err(ResponseError::StaleMemberEpoch),
            Some(_) => Ok(()),
        }
    }
}
