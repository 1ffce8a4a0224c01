//! Typed views of the coordinator records that analyses replay over whole partitions (offset
//! commits, classic group metadata, transaction log values), read straight into structs.
//!
//! A hand-written fast path over the same tables (the message and version checks come from
//! `tables.rs`): filling these structs from the schema-driven decoder's values was measured at
//! 1.5x the CPU time of `kseg groups` over 1,000,000 commits (BENCHMARKS.md, "Internal topics
//! without a `Value` tree"), so the replay keeps this reader. The property test
//! `typed_parsers_agree_with_json` (print/coordinator_tests.rs) checks it against the schema
//! decoder on random messages of every version.

use super::error::ErrorKind;
use super::schema::Message;
use super::tables::{GROUP_RECORDS, TRANSACTION_RECORDS};
use super::{find, transaction_state_name, unknown_version, Coordinator};
use crate::format::reader::{DecodeError, DecodeResult, Reader};

// ---------------------------------------------------------------------------------------------
// Typed helpers

/// Whether a `__consumer_offsets` record type is one this table knows. Kafka's loader skips a
/// record of an unknown type with a warning (a newer Kafka's record, or a leftover of an aborted
/// upgrade) and goes on.
pub fn is_known_group_record_type(record_type: i16) -> bool {
    Coordinator::Group.knows(record_type)
}

/// Whether a `__transaction_state` key version is one this table knows (Kafka's
/// TransactionStateManager skips an unknown one with a warning and goes on).
pub fn is_known_transaction_record_type(record_type: i16) -> bool {
    Coordinator::Transaction.knows(record_type)
}

/// Record type and group id of a `__consumer_offsets` key, without allocating. `None` for an
/// unknown record type or a key that does not start with a valid group id string.
pub fn group_of_key(key: &[u8]) -> Option<(i16, &str)> {
    let mut r = Reader::new(key);
    let record_type = r.i16("record type").ok()?;
    GROUP_RECORDS.iter().find(|(t, ..)| *t == record_type)?;
    let group = r.nullable_string("group").ok()??;
    Some((record_type, group))
}

/// The key of an offset commit (record types 0 and 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetCommitKey {
    pub record_type: i16,
    pub group: String,
    pub topic: String,
    pub partition: i32,
}

/// An offset commit: key and value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetCommit {
    pub key: OffsetCommitKey,
    pub value: OffsetCommitValue,
}

/// OffsetCommitValue (record types 0 and 1): a committed offset as the coordinator stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetCommitValue {
    /// Value version (0–4).
    pub version: i16,
    pub offset: i64,
    /// v3+; `None` when absent or -1 (no epoch).
    pub leader_epoch: Option<i32>,
    pub metadata: String,
    pub commit_timestamp: i64,
    /// v1 only; `None` when absent or -1.
    pub expire_timestamp: Option<i64>,
    /// v4+ tagged field; `None` when absent or zero.
    pub topic_id: Option<[u8; 16]>,
}

/// A topic with partitions (consumer protocol, transaction partitions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicPartitions {
    pub topic: String,
    pub partitions: Vec<i32>,
}

/// ConsumerProtocolSubscription (a classic consumer group member's subscription).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerSubscription {
    pub version: i16,
    pub topics: Vec<String>,
    pub user_data: Option<Vec<u8>>,
    /// v1+.
    pub owned_partitions: Vec<TopicPartitions>,
    /// v2+ (default -1).
    pub generation_id: i32,
    /// v3+.
    pub rack_id: Option<String>,
}

/// ConsumerProtocolAssignment (what the leader assigned to a member).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerAssignment {
    pub version: i16,
    pub partitions: Vec<TopicPartitions>,
    pub user_data: Option<Vec<u8>>,
}

/// A member of a classic group (GroupMetadataValue).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMember {
    pub member_id: String,
    /// v3+.
    pub group_instance_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    /// v1+.
    pub rebalance_timeout: Option<i32>,
    pub session_timeout: i32,
    pub subscription_bytes: Vec<u8>,
    pub assignment_bytes: Vec<u8>,
    /// Decoded when the group's protocol type is `consumer` and the bytes decode.
    pub subscription: Option<ConsumerSubscription>,
    pub assignment: Option<ConsumerAssignment>,
}

/// GroupMetadataValue (record type 2): a classic group's state after a rebalance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMetadata {
    pub version: i16,
    pub protocol_type: String,
    pub generation: i32,
    pub protocol: Option<String>,
    pub leader: Option<String>,
    /// v2+; `None` when absent or -1.
    pub current_state_timestamp: Option<i64>,
    pub members: Vec<GroupMember>,
}

/// TransactionLogValue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionLog {
    pub version: i16,
    pub producer_id: i64,
    /// v1+ tagged, default -1.
    pub previous_producer_id: i64,
    /// v1+ tagged, default -1.
    pub next_producer_id: i64,
    pub producer_epoch: i16,
    /// v1+ tagged, default -1.
    pub next_producer_epoch: i16,
    pub timeout_ms: i32,
    pub status: i8,
    /// `None` when written null (state Empty).
    pub partitions: Option<Vec<TopicPartitions>>,
    pub last_update_timestamp: i64,
    pub start_timestamp: i64,
    /// v1+ tagged, default 0.
    pub client_transaction_version: i16,
}

impl TransactionLog {
    pub fn status_name(&self) -> Option<&'static str> {
        transaction_state_name(self.status)
    }

    /// The status as a state (`None` for an id Kafka does not name).
    pub fn state(&self) -> Option<TransactionState> {
        TransactionState::from_id(self.status)
    }
}

/// Kafka's `TransactionState`, by its `TransactionStatus` id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransactionState {
    Empty = 0,
    Ongoing = 1,
    PrepareCommit = 2,
    PrepareAbort = 3,
    CompleteCommit = 4,
    CompleteAbort = 5,
    Dead = 6,
    PrepareEpochFence = 7,
}

impl TransactionState {
    pub fn from_id(id: i8) -> Option<TransactionState> {
        use TransactionState::*;
        [
            Empty,
            Ongoing,
            PrepareCommit,
            PrepareAbort,
            CompleteCommit,
            CompleteAbort,
            Dead,
            PrepareEpochFence,
        ]
        .into_iter()
        .find(|s| *s as i8 == id)
    }

    /// Kafka's name of the state.
    pub fn name(self) -> &'static str {
        match self {
            TransactionState::Empty => "Empty",
            TransactionState::Ongoing => "Ongoing",
            TransactionState::PrepareCommit => "PrepareCommit",
            TransactionState::PrepareAbort => "PrepareAbort",
            TransactionState::CompleteCommit => "CompleteCommit",
            TransactionState::CompleteAbort => "CompleteAbort",
            TransactionState::Dead => "Dead",
            TransactionState::PrepareEpochFence => "PrepareEpochFence",
        }
    }
}

/// Reads fields in classic or compact encoding, as the generated code does.
struct FieldReader<'a> {
    r: Reader<'a>,
    flexible: bool,
}

impl<'a> FieldReader<'a> {
    fn new(r: Reader<'a>, flexible: bool) -> Self {
        FieldReader { r, flexible }
    }

    fn length(&mut self, what: &str, classic16: bool) -> DecodeResult<i32> {
        if self.flexible {
            Ok((self.r.uvarint(what)? as i32).wrapping_sub(1))
        } else if classic16 {
            Ok(self.r.i16(what)? as i32)
        } else {
            self.r.i32(what)
        }
    }

    fn null_error(at: usize, what: &str) -> DecodeError {
        DecodeError::invalid(
            at,
            format!("non-nullable field {what} was serialized as null"),
        )
    }

    fn opt_string(&mut self, what: &str) -> DecodeResult<Option<String>> {
        let at = self.r.position();
        let len = self.length(what, true)?;
        if len < 0 {
            return Ok(None);
        }
        if len > 0x7fff {
            return Err(DecodeError::length(
                at,
                format!("string field {what} had invalid length {len}"),
            ));
        }
        let b = self.r.bytes(len as usize, what)?;
        Ok(Some(String::from_utf8_lossy(b).into_owned()))
    }

    fn string(&mut self, what: &str) -> DecodeResult<String> {
        let at = self.r.position();
        self.opt_string(what)?
            .ok_or_else(|| Self::null_error(at, what))
    }

    fn opt_bytes(&mut self, what: &str) -> DecodeResult<Option<&'a [u8]>> {
        let len = self.length(what, false)?;
        if len < 0 {
            return Ok(None);
        }
        self.r.bytes(len as usize, what).map(Some)
    }

    fn bytes(&mut self, what: &str) -> DecodeResult<&'a [u8]> {
        let at = self.r.position();
        self.opt_bytes(what)?
            .ok_or_else(|| Self::null_error(at, what))
    }

    fn opt_count(&mut self, what: &str, min_element_size: usize) -> DecodeResult<Option<usize>> {
        let at = self.r.position();
        let n = self.length(what, false)?;
        if n < 0 {
            return Ok(None);
        }
        let n = n as usize;
        if n.saturating_mul(min_element_size.max(1)) > self.r.remaining() {
            return Err(DecodeError::length(
                at,
                format!(
                    "{what}: {n} elements cannot fit in the {} bytes left",
                    self.r.remaining()
                ),
            ));
        }
        Ok(Some(n))
    }

    fn count(&mut self, what: &str, min_element_size: usize) -> DecodeResult<usize> {
        let at = self.r.position();
        self.opt_count(what, min_element_size)?
            .ok_or_else(|| Self::null_error(at, what))
    }

    fn i32s(&mut self, what: &str) -> DecodeResult<Vec<i32>> {
        let n = self.count(what, 4)?;
        (0..n).map(|_| self.r.i32(what)).collect()
    }

    fn strings(&mut self, what: &str) -> DecodeResult<Vec<String>> {
        let n = self.count(what, if self.flexible { 1 } else { 2 })?;
        (0..n).map(|_| self.string(what)).collect()
    }

    /// `[]{topic string, partitions []int32}`, not nullable.
    fn required_topic_partitions(&mut self, what: &str) -> DecodeResult<Vec<TopicPartitions>> {
        let at = self.r.position();
        self.topic_partitions(what)?
            .ok_or_else(|| Self::null_error(at, what))
    }

    /// `[]{topic string, partitions []int32}` (nullable array).
    fn topic_partitions(&mut self, what: &str) -> DecodeResult<Option<Vec<TopicPartitions>>> {
        let Some(n) = self.opt_count(what, 1)? else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let topic = self.string("topic")?;
            let partitions = self.i32s("partitions")?;
            self.tags(|_, _| Ok(false))?;
            out.push(TopicPartitions { topic, partitions });
        }
        Ok(Some(out))
    }

    /// A tagged-field section (flexible versions only). `on(tag, reader)` reads a known tag and
    /// returns true, or returns false to skip it; a known tag must use exactly its size.
    fn tags(
        &mut self,
        mut on: impl FnMut(u32, &mut Reader<'a>) -> DecodeResult<bool>,
    ) -> DecodeResult<()> {
        if !self.flexible {
            return Ok(());
        }
        let count = self.r.uvarint("tagged field count")?;
        for _ in 0..count {
            let tag = self.r.uvarint("tag")?;
            let size = self.r.uvarint("tagged field size")? as usize;
            let at = self.r.position();
            let mut sub = Reader::with_origin(self.r.bytes(size, "tagged field")?, at);
            if on(tag, &mut sub)? && !sub.is_empty() {
                return Err(DecodeError::length(
                    sub.position(),
                    format!("tagged field {tag} declares {size} bytes but uses fewer"),
                ));
            }
        }
        Ok(())
    }
}

fn check_version(version: i16, msg: &Message) -> DecodeResult<()> {
    if msg.valid.contains(version) {
        Ok(())
    } else {
        Err(unknown_version(version, msg).into())
    }
}

/// Parses the key of an offset commit (record types 0 and 1).
pub fn parse_offset_commit_key(key: &[u8]) -> DecodeResult<OffsetCommitKey> {
    let mut w = FieldReader::new(Reader::new(key), false);
    let record_type = w.r.i16("record type")?;
    if record_type != 0 && record_type != 1 {
        return Err(super::Error::new(0, ErrorKind::NotOffsetCommit(record_type)).into());
    }
    Ok(OffsetCommitKey {
        record_type,
        group: w.string("group")?,
        topic: w.string("topic")?,
        partition: w.r.i32("partition")?,
    })
}

/// Parses an offset commit from its key (type 0 or 1) and non-null value.
pub fn parse_offset_commit(key: &[u8], value: &[u8]) -> DecodeResult<OffsetCommit> {
    let key = parse_offset_commit_key(key)?;
    let value = parse_offset_commit_value(key.record_type, value)?;
    Ok(OffsetCommit { key, value })
}

/// Parses a non-null OffsetCommitValue of record type 0 (LegacyOffsetCommit) or 1.
pub fn parse_offset_commit_value(
    record_type: i16,
    value: &[u8],
) -> DecodeResult<OffsetCommitValue> {
    if record_type != 0 && record_type != 1 {
        return Err(super::Error::new(0, ErrorKind::NotOffsetCommit(record_type)).into());
    }
    let (_, msg) = find(GROUP_RECORDS, record_type)?;
    let mut r = Reader::new(value);
    let version = r.i16("value version")?;
    check_version(version, msg)?;
    let mut w = FieldReader::new(r, msg.is_flexible(version));
    let offset = w.r.i64("offset")?;
    let leader_epoch = if version >= 3 {
        Some(w.r.i32("leaderEpoch")?).filter(|e| *e != -1)
    } else {
        None
    };
    let metadata = w.string("metadata")?;
    let commit_timestamp = w.r.i64("commitTimestamp")?;
    let expire_timestamp = if version == 1 {
        Some(w.r.i64("expireTimestamp")?).filter(|t| *t != -1)
    } else {
        None
    };
    let mut topic_id = None;
    w.tags(|tag, sub| {
        if tag != 0 {
            return Ok(false);
        }
        topic_id = Some(sub.uuid("topicId")?).filter(|u| *u != [0; 16]);
        Ok(true)
    })?;
    Ok(OffsetCommitValue {
        version,
        offset,
        leader_epoch,
        metadata,
        commit_timestamp,
        expire_timestamp,
        topic_id,
    })
}

/// Parses version-prefixed ConsumerProtocolSubscription bytes.
pub fn parse_consumer_subscription(bytes: &[u8]) -> DecodeResult<ConsumerSubscription> {
    let mut w = FieldReader::new(Reader::new(bytes), false);
    let version = w.r.i16("version")?;
    let topics = w.strings("topics")?;
    let user_data = w.opt_bytes("userData")?.map(<[u8]>::to_vec);
    let owned_partitions = if version >= 1 {
        w.required_topic_partitions("ownedPartitions")?
    } else {
        Vec::new()
    };
    let generation_id = if version >= 2 {
        w.r.i32("generationId")?
    } else {
        -1
    };
    let rack_id = if version >= 3 {
        w.opt_string("rackId")?
    } else {
        None
    };
    Ok(ConsumerSubscription {
        version,
        topics,
        user_data,
        owned_partitions,
        generation_id,
        rack_id,
    })
}

/// Parses version-prefixed ConsumerProtocolAssignment bytes.
pub fn parse_consumer_assignment(bytes: &[u8]) -> DecodeResult<ConsumerAssignment> {
    let mut w = FieldReader::new(Reader::new(bytes), false);
    let version = w.r.i16("version")?;
    let partitions = w.required_topic_partitions("assignedPartitions")?;
    let user_data = w.opt_bytes("userData")?.map(<[u8]>::to_vec);
    Ok(ConsumerAssignment {
        version,
        partitions,
        user_data,
    })
}

/// Parses a non-null GroupMetadataValue (record type 2).
pub fn parse_group_metadata(value: &[u8]) -> DecodeResult<GroupMetadata> {
    let (_, msg) = find(GROUP_RECORDS, 2)?;
    let mut r = Reader::new(value);
    let version = r.i16("value version")?;
    check_version(version, msg)?;
    let mut w = FieldReader::new(r, msg.is_flexible(version));
    let protocol_type = w.string("protocolType")?;
    let generation = w.r.i32("generation")?;
    let protocol = w.opt_string("protocol")?;
    let leader = w.opt_string("leader")?;
    let current_state_timestamp = if version >= 2 {
        Some(w.r.i64("currentStateTimestamp")?).filter(|t| *t != -1)
    } else {
        None
    };
    let n = w.count("members", 1)?;
    let consumer = protocol_type == "consumer";
    let mut members = Vec::with_capacity(n);
    for _ in 0..n {
        let member_id = w.string("memberId")?;
        let group_instance_id = if version >= 3 {
            w.opt_string("groupInstanceId")?
        } else {
            None
        };
        let client_id = w.string("clientId")?;
        let client_host = w.string("clientHost")?;
        let rebalance_timeout = if version >= 1 {
            Some(w.r.i32("rebalanceTimeout")?)
        } else {
            None
        };
        let session_timeout = w.r.i32("sessionTimeout")?;
        let subscription_bytes = w.bytes("subscription")?;
        let assignment_bytes = w.bytes("assignment")?;
        w.tags(|_, _| Ok(false))?;
        members.push(GroupMember {
            member_id,
            group_instance_id,
            client_id,
            client_host,
            rebalance_timeout,
            session_timeout,
            subscription: consumer
                .then(|| parse_consumer_subscription(subscription_bytes).ok())
                .flatten(),
            assignment: consumer
                .then(|| parse_consumer_assignment(assignment_bytes).ok())
                .flatten(),
            subscription_bytes: subscription_bytes.to_vec(),
            assignment_bytes: assignment_bytes.to_vec(),
        });
    }
    w.tags(|_, _| Ok(false))?;
    Ok(GroupMetadata {
        version,
        protocol_type,
        generation,
        protocol,
        leader,
        current_state_timestamp,
        members,
    })
}

/// Parses a `__transaction_state` key: the transactional id.
pub fn parse_transaction_key(key: &[u8]) -> DecodeResult<String> {
    let mut w = FieldReader::new(Reader::new(key), false);
    let record_type = w.r.i16("record type")?;
    find(TRANSACTION_RECORDS, record_type)?;
    w.string("transactionalId")
}

/// Parses a non-null TransactionLogValue.
pub fn parse_transaction_value(value: &[u8]) -> DecodeResult<TransactionLog> {
    let (_, msg) = find(TRANSACTION_RECORDS, 0)?;
    let mut r = Reader::new(value);
    let version = r.i16("value version")?;
    check_version(version, msg)?;
    let mut w = FieldReader::new(r, msg.is_flexible(version));
    let producer_id = w.r.i64("producerId")?;
    let producer_epoch = w.r.i16("producerEpoch")?;
    let timeout_ms = w.r.i32("transactionTimeoutMs")?;
    let status = w.r.i8("transactionStatus")?;
    let partitions = w.topic_partitions("transactionPartitions")?;
    let last_update_timestamp = w.r.i64("transactionLastUpdateTimestampMs")?;
    let start_timestamp = w.r.i64("transactionStartTimestampMs")?;
    let (mut previous, mut next, mut next_epoch, mut client_version) = (-1, -1, -1, 0);
    w.tags(|tag, sub| {
        match tag {
            0 => previous = sub.i64("previousProducerId")?,
            1 => next = sub.i64("nextProducerId")?,
            2 => client_version = sub.i16("clientTransactionVersion")?,
            3 => next_epoch = sub.i16("nextProducerEpoch")?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(TransactionLog {
        version,
        producer_id,
        previous_producer_id: previous,
        next_producer_id: next,
        producer_epoch,
        next_producer_epoch: next_epoch,
        timeout_ms,
        status,
        partitions,
        last_update_timestamp,
        start_timestamp,
        client_transaction_version: client_version,
    })
}
