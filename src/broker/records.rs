//! Coordinator record bytes: what Kafka 4.x's group coordinator writes to `__consumer_offsets`
//! (key type 1 OffsetCommit with value v4, or v1 with an expire timestamp; key type 2
//! GroupMetadata with value v3) and what its transaction coordinator writes to
//! `__transaction_state` (key type 0, TransactionLogValue v1), plus decoders to reload them.
//! Keys are non-flexible; value v4 / v1 are flexible (compact strings, tagged fields).

pub mod consumer_group;

use crate::format::reader::{put_uvarint, DecodeResult, Reader};

pub(crate) fn put_string(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as i16).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn put_nullable_string(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => put_string(out, s),
        None => out.extend_from_slice(&(-1i16).to_be_bytes()),
    }
}

fn put_bytes32(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as i32).to_be_bytes());
    out.extend_from_slice(b);
}

pub(crate) fn put_compact_string(out: &mut Vec<u8>, s: &str) {
    put_uvarint(out, s.len() as u32 + 1);
    out.extend_from_slice(s.as_bytes());
}

/// OffsetCommitKey (type 1): group, topic, partition.
pub fn offset_commit_key(group: &str, topic: &str, partition: i32) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + group.len() + topic.len());
    out.extend_from_slice(&1i16.to_be_bytes());
    put_string(&mut out, group);
    put_string(&mut out, topic);
    out.extend_from_slice(&partition.to_be_bytes());
    out
}

/// A committed offset as the coordinator stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetValue {
    pub offset: i64,
    pub leader_epoch: i32,
    pub metadata: String,
    pub commit_timestamp: i64,
    pub expire_timestamp: Option<i64>,
    pub topic_id: Option<[u8; 16]>,
}

/// OffsetCommitValue as Kafka 4.1+ writes it: v4 (flexible, tagged topic id) normally, v1
/// when the commit carries an expire timestamp.
pub fn offset_commit_value(v: &OffsetValue) -> Vec<u8> {
    let mut out = Vec::with_capacity(48 + v.metadata.len());
    if let Some(expire) = v.expire_timestamp {
        out.extend_from_slice(&1i16.to_be_bytes());
        out.extend_from_slice(&v.offset.to_be_bytes());
        put_string(&mut out, &v.metadata);
        out.extend_from_slice(&v.commit_timestamp.to_be_bytes());
        out.extend_from_slice(&expire.to_be_bytes());
        return out;
    }
    out.extend_from_slice(&4i16.to_be_bytes());
    out.extend_from_slice(&v.offset.to_be_bytes());
    out.extend_from_slice(&v.leader_epoch.to_be_bytes());
    put_compact_string(&mut out, &v.metadata);
    out.extend_from_slice(&v.commit_timestamp.to_be_bytes());
    match v.topic_id.filter(|id| *id != [0; 16]) {
        Some(id) => {
            put_uvarint(&mut out, 1);
            put_uvarint(&mut out, 0);
            put_uvarint(&mut out, 16);
            out.extend_from_slice(&id);
        }
        None => put_uvarint(&mut out, 0),
    }
    out
}

/// GroupMetadataKey (type 2): the group id.
pub fn group_metadata_key(group: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + group.len());
    out.extend_from_slice(&2i16.to_be_bytes());
    put_string(&mut out, group);
    out
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberValue {
    pub member_id: String,
    pub group_instance_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub rebalance_timeout: i32,
    pub session_timeout: i32,
    pub subscription: Vec<u8>,
    pub assignment: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupValue {
    pub protocol_type: String,
    pub generation: i32,
    pub protocol: Option<String>,
    pub leader: Option<String>,
    pub current_state_timestamp: i64,
    pub members: Vec<MemberValue>,
}

/// GroupMetadataValue v3, the version Kafka 4.x writes.
pub fn group_metadata_value(g: &GroupValue) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(&3i16.to_be_bytes());
    put_string(&mut out, &g.protocol_type);
    out.extend_from_slice(&g.generation.to_be_bytes());
    put_nullable_string(&mut out, g.protocol.as_deref());
    put_nullable_string(&mut out, g.leader.as_deref());
    out.extend_from_slice(&g.current_state_timestamp.to_be_bytes());
    out.extend_from_slice(&(g.members.len() as i32).to_be_bytes());
    for m in &g.members {
        put_string(&mut out, &m.member_id);
        put_nullable_string(&mut out, m.group_instance_id.as_deref());
        put_string(&mut out, &m.client_id);
        put_string(&mut out, &m.client_host);
        out.extend_from_slice(&m.rebalance_timeout.to_be_bytes());
        out.extend_from_slice(&m.session_timeout.to_be_bytes());
        put_bytes32(&mut out, &m.subscription);
        put_bytes32(&mut out, &m.assignment);
    }
    out
}

/// TransactionLogKey (type 0): the transactional id.
pub fn transaction_log_key(transactional_id: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + transactional_id.len());
    out.extend_from_slice(&0i16.to_be_bytes());
    put_string(&mut out, transactional_id);
    out
}

/// Transaction states by their `TransactionStatus` id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnState {
    Empty = 0,
    Ongoing = 1,
    PrepareCommit = 2,
    PrepareAbort = 3,
    CompleteCommit = 4,
    CompleteAbort = 5,
    Dead = 6,
    PrepareEpochFence = 7,
}

impl TxnState {
    pub fn from_id(id: i8) -> Option<TxnState> {
        Some(match id {
            0 => TxnState::Empty,
            1 => TxnState::Ongoing,
            2 => TxnState::PrepareCommit,
            3 => TxnState::PrepareAbort,
            4 => TxnState::CompleteCommit,
            5 => TxnState::CompleteAbort,
            6 => TxnState::Dead,
            7 => TxnState::PrepareEpochFence,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnValue {
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub timeout_ms: i32,
    pub state: TxnState,
    /// Topic → partitions; written null when the state is Empty.
    pub partitions: Vec<(String, Vec<i32>)>,
    pub last_update_timestamp: i64,
    pub start_timestamp: i64,
}

/// TransactionLogValue v1 (flexible), written when the cluster's `transaction.version` is at
/// least 1, as on a Kafka 4.x cluster. Clients older than KIP-890 part 2 leave every tagged
/// field at its default, so the tagged section is empty.
pub fn transaction_log_value(v: &TxnValue) -> Vec<u8> {
    let mut out = Vec::with_capacity(48);
    out.extend_from_slice(&1i16.to_be_bytes());
    out.extend_from_slice(&v.producer_id.to_be_bytes());
    out.extend_from_slice(&v.producer_epoch.to_be_bytes());
    out.extend_from_slice(&v.timeout_ms.to_be_bytes());
    out.push(v.state as u8);
    if v.state == TxnState::Empty {
        put_uvarint(&mut out, 0);
    } else {
        put_uvarint(&mut out, v.partitions.len() as u32 + 1);
        for (topic, ids) in &v.partitions {
            put_compact_string(&mut out, topic);
            put_uvarint(&mut out, ids.len() as u32 + 1);
            for id in ids {
                out.extend_from_slice(&id.to_be_bytes());
            }
            put_uvarint(&mut out, 0);
        }
    }
    out.extend_from_slice(&v.last_update_timestamp.to_be_bytes());
    out.extend_from_slice(&v.start_timestamp.to_be_bytes());
    put_uvarint(&mut out, 0);
    out
}

/// A decoded `__consumer_offsets` key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OffsetsKey {
    Offset {
        group: String,
        topic: String,
        partition: i32,
    },
    Group(String),
    /// A record type this broker does not use (KIP-848, share and streams groups).
    Other(i16),
}

pub fn decode_offsets_key(key: &[u8]) -> DecodeResult<OffsetsKey> {
    let mut r = Reader::new(key);
    let kind = r.i16("record type")?;
    Ok(match kind {
        0 | 1 => OffsetsKey::Offset {
            group: r.string("group")?.to_string(),
            topic: r.string("topic")?.to_string(),
            partition: r.i32("partition")?,
        },
        2 => OffsetsKey::Group(r.string("group")?.to_string()),
        other => OffsetsKey::Other(other),
    })
}

pub fn decode_offset_value(value: &[u8]) -> DecodeResult<OffsetValue> {
    let mut r = Reader::new(value);
    let version = r.i16("version")?;
    let offset = r.i64("offset")?;
    let leader_epoch = if version >= 3 {
        r.i32("leaderEpoch")?
    } else {
        -1
    };
    let metadata = if version >= 4 {
        r.compact_string("metadata")?
    } else {
        r.string("metadata")?
    }
    .to_string();
    let commit_timestamp = r.i64("commitTimestamp")?;
    let expire_timestamp = if version == 1 {
        Some(r.i64("expireTimestamp")?)
    } else {
        None
    };
    let mut topic_id = None;
    if version >= 4 {
        let count = r.uvarint("tagged fields")?;
        for _ in 0..count {
            let tag = r.uvarint("tag")?;
            let size = r.uvarint("size")? as usize;
            if tag == 0 && size == 16 {
                topic_id = Some(r.uuid("topicId")?);
            } else {
                r.skip(size, "tagged field")?;
            }
        }
    }
    Ok(OffsetValue {
        offset,
        leader_epoch,
        metadata,
        commit_timestamp,
        expire_timestamp,
        topic_id,
    })
}

pub fn decode_group_value(value: &[u8]) -> DecodeResult<GroupValue> {
    let mut r = Reader::new(value);
    let version = r.i16("version")?;
    let flexible = version >= 4;
    let string = |r: &mut Reader<'_>, what: &str| -> DecodeResult<Option<String>> {
        Ok(if flexible {
            r.compact_nullable_string(what)?
        } else {
            r.nullable_string(what)?
        }
        .map(str::to_string))
    };
    let protocol_type = string(&mut r, "protocolType")?.unwrap_or_default();
    let generation = r.i32("generation")?;
    let protocol = string(&mut r, "protocol")?;
    let leader = string(&mut r, "leader")?;
    let current_state_timestamp = if version >= 2 {
        r.i64("currentStateTimestamp")?
    } else {
        -1
    };
    let count = if flexible {
        r.compact_array_len("members", 8)?
    } else {
        r.array_len("members", 16)?
    }
    .unwrap_or(0);
    let mut members = Vec::with_capacity(count);
    for _ in 0..count {
        let member_id = string(&mut r, "memberId")?.unwrap_or_default();
        let group_instance_id = if version >= 3 {
            string(&mut r, "groupInstanceId")?
        } else {
            None
        };
        let client_id = string(&mut r, "clientId")?.unwrap_or_default();
        let client_host = string(&mut r, "clientHost")?.unwrap_or_default();
        let rebalance_timeout = if version >= 1 {
            r.i32("rebalanceTimeout")?
        } else {
            -1
        };
        let session_timeout = r.i32("sessionTimeout")?;
        let bytes = |r: &mut Reader<'_>, what: &str| -> DecodeResult<Vec<u8>> {
            Ok(if flexible {
                r.compact_nullable_bytes(what)?
            } else {
                r.nullable_bytes32(what)?
            }
            .unwrap_or_default()
            .to_vec())
        };
        let subscription = bytes(&mut r, "subscription")?;
        let assignment = bytes(&mut r, "assignment")?;
        if flexible {
            r.skip_tagged_fields()?;
        }
        members.push(MemberValue {
            member_id,
            group_instance_id,
            client_id,
            client_host,
            rebalance_timeout,
            session_timeout,
            subscription,
            assignment,
        });
    }
    Ok(GroupValue {
        protocol_type,
        generation,
        protocol,
        leader,
        current_state_timestamp,
        members,
    })
}

/// The transactional id of a `__transaction_state` key.
pub fn decode_transaction_key(key: &[u8]) -> DecodeResult<Option<String>> {
    let mut r = Reader::new(key);
    Ok(match r.i16("record type")? {
        0 => Some(r.string("transactionalId")?.to_string()),
        _ => None,
    })
}

pub fn decode_transaction_value(value: &[u8]) -> DecodeResult<TxnValue> {
    let mut r = Reader::new(value);
    let version = r.i16("version")?;
    let flexible = version >= 1;
    let producer_id = r.i64("producerId")?;
    let producer_epoch = r.i16("producerEpoch")?;
    let timeout_ms = r.i32("transactionTimeoutMs")?;
    let status = r.i8("transactionStatus")?;
    let state = TxnState::from_id(status)
        .ok_or_else(|| r.error(format!("unknown transaction status {status}")))?;
    let count = if flexible {
        r.compact_array_len("transactionPartitions", 2)?
    } else {
        r.array_len("transactionPartitions", 6)?
    }
    .unwrap_or(0);
    let mut partitions = Vec::with_capacity(count);
    for _ in 0..count {
        let topic = if flexible {
            r.compact_string("topic")?
        } else {
            r.string("topic")?
        }
        .to_string();
        let n = if flexible {
            r.compact_array_len("partitionIds", 4)?
        } else {
            r.array_len("partitionIds", 4)?
        }
        .unwrap_or(0);
        let mut ids = Vec::with_capacity(n);
        for _ in 0..n {
            ids.push(r.i32("partitionId")?);
        }
        if flexible {
            r.skip_tagged_fields()?;
        }
        partitions.push((topic, ids));
    }
    Ok(TxnValue {
        producer_id,
        producer_epoch,
        timeout_ms,
        state,
        partitions,
        last_update_timestamp: r.i64("transactionLastUpdateTimestampMs")?,
        start_timestamp: r.i64("transactionStartTimestampMs")?,
    })
}

/// The key of a transaction marker control record: version 0, type 0 (ABORT) or 1 (COMMIT).
pub fn marker_key(commit: bool) -> [u8; 4] {
    [0, 0, 0, commit as u8]
}

/// The EndTxnMarker value: version 0 and the coordinator epoch.
pub fn marker_value(coordinator_epoch: i32) -> [u8; 6] {
    let e = coordinator_epoch.to_be_bytes();
    [0, 0, e[0], e[1], e[2], e[3]]
}

#[cfg(test)]
mod tests {
    use super::*;

    const TS: i64 = 1_700_000_000_000;

    #[test]
    fn digest_vectors_v6() {
        assert_eq!(
            hex::encode(offset_commit_key("g", "t", 0)),
            "0001000167000174".to_string() + "00000000"
        );
        let v = OffsetValue {
            offset: 42,
            leader_epoch: 0,
            metadata: String::new(),
            commit_timestamp: TS,
            expire_timestamp: None,
            topic_id: None,
        };
        // V6b: OffsetCommitValue v4, no topic id.
        assert_eq!(
            hex::encode(offset_commit_value(&v)),
            "0004000000000000002a00000000010000018bcfe5680000"
        );
        assert_eq!(decode_offset_value(&offset_commit_value(&v)).unwrap(), v);
        assert_eq!(
            hex::encode(group_metadata_key("group")),
            "0002000567726f7570"
        );
        assert_eq!(
            hex::encode(transaction_log_key("txnId")),
            "0000000574786e4964"
        );
        let with_id = OffsetValue {
            topic_id: Some([7; 16]),
            ..v.clone()
        };
        assert_eq!(
            decode_offset_value(&offset_commit_value(&with_id)).unwrap(),
            with_id
        );
        let expiring = OffsetValue {
            expire_timestamp: Some(TS + 1),
            leader_epoch: -1,
            ..v
        };
        assert_eq!(
            decode_offset_value(&offset_commit_value(&expiring)).unwrap(),
            expiring
        );
    }

    #[test]
    fn group_value_v3_matches_a_kafka_4_broker() {
        // From a Kafka 4.0 data dir: the empty group after its last member left.
        let want = "00030008636f6e73756d65720000000fffffffff000001985c1d55af00000000";
        let g = GroupValue {
            protocol_type: "consumer".into(),
            generation: 15,
            protocol: None,
            leader: None,
            current_state_timestamp: 0x0198_5c1d_55af,
            members: vec![],
        };
        assert_eq!(hex::encode(group_metadata_value(&g)), want);
        assert_eq!(decode_group_value(&hex::decode(want).unwrap()).unwrap(), g);
        let with_member = GroupValue {
            members: vec![MemberValue {
                member_id: "m-1".into(),
                group_instance_id: None,
                client_id: "c".into(),
                client_host: "/127.0.0.1".into(),
                rebalance_timeout: 300000,
                session_timeout: 45000,
                subscription: vec![0, 3, 1],
                assignment: vec![0, 3],
            }],
            ..g
        };
        assert_eq!(
            decode_group_value(&group_metadata_value(&with_member)).unwrap(),
            with_member
        );
    }

    #[test]
    fn transaction_values_round_trip_and_read_v0() {
        let v = TxnValue {
            producer_id: 1000,
            producer_epoch: 2,
            timeout_ms: 60000,
            state: TxnState::Ongoing,
            partitions: vec![
                ("t".into(), vec![0, 2]),
                ("__consumer_offsets".into(), vec![22]),
            ],
            last_update_timestamp: TS,
            start_timestamp: TS - 5,
        };
        assert_eq!(
            decode_transaction_value(&transaction_log_value(&v)).unwrap(),
            v
        );
        let empty = TxnValue {
            state: TxnState::Empty,
            partitions: vec![],
            start_timestamp: -1,
            ..v
        };
        assert_eq!(
            decode_transaction_value(&transaction_log_value(&empty)).unwrap(),
            empty
        );
        // A v0 value from a Confluent 7.7 broker: CompleteCommit with an empty partition list.
        let v0 = hex::decode(
            "0000000000000000000000000000ea60040000000000000192764aefdf00000192764aef33",
        )
        .unwrap();
        let d = decode_transaction_value(&v0).unwrap();
        assert_eq!(d.state, TxnState::CompleteCommit);
        assert_eq!(d.timeout_ms, 60000);
        assert_eq!(
            decode_transaction_key(&hex::decode("0000000864656661756c745f").unwrap()).unwrap(),
            Some("default_".into())
        );
    }
}
