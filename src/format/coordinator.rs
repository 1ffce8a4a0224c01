//! Record keys and values of Kafka's internal topics: `__consumer_offsets` (group coordinator),
//! `__transaction_state`, `__share_group_state`, and the KRaft metadata records of
//! `__cluster_metadata` and `.checkpoint` snapshots.
//!
//! The JSON follows Kafka 4.4+ `kafka-dump-log` decoders (`--offsets-decoder`,
//! `--transaction-log-decoder`, `--share-group-state-decoder`, `--cluster-metadata-decoder`):
//! - a coordinator key is `{"type":"<record type>","data":{...}}` and a value
//!   `{"version":"<value version>","data":{...}}` (both numbers as strings); a null value is a
//!   tombstone, which the caller prints (Kafka prints `<DELETE>`);
//! - GroupMetadataValue members of a `"consumer"` group show their subscription and assignment
//!   decoded as ConsumerProtocolSubscription / ConsumerProtocolAssignment, or the Base64 string
//!   when those bytes do not decode;
//! - TransactionLogValue shows `transactionStatus` as the state name (Kafka 4.4);
//! - a metadata record is `{"type":"<METADATA_RECORD_TYPE name>","version":<int>,"data":{...}}`.
//!
//! **Unknown record types and versions** are errors whose message starts with
//! [`UNKNOWN_RECORD_TYPE`] (`Unknown record type <t>`) or [`UNKNOWN_VERSION`]
//! (`Unknown version <v> of <Name>`); [`is_unknown`] tells them apart from damaged bytes so a
//! caller can print the raw bytes and go on. Unlike Kafka, a metadata record at a version
//! newer than this table knows is reported as unknown rather than read with the newest layout.
//!
//! Coordinator values, like Kafka's, may carry bytes after the message (they are ignored); a
//! metadata record may not. The few "v0" layouts that Kafka 4.1 changed incompatibly (share
//! group state, ShareGroupMetadataValue, ShareGroupStatePartitionMetadataValue) are decoded with
//! the trunk layout first and with Kafka 4.0's when only that one fits the bytes exactly
//! ([`CoordinatorValue::legacy_layout`]). Record types 9 (ShareGroupPartitionMetadata, Kafka
//! 4.0) and 18 (StreamsGroupPartitionMetadata, pre-release) are decoded although trunk no longer
//! defines them. Record type 0 (LegacyOffsetCommit, written by Kafka 0.8.2 only) takes value
//! version 0 only, as in trunk.
//!
//! The typed helpers ([`group_of_key`], [`parse_offset_commit`], [`parse_group_metadata`],
//! [`parse_transaction_value`], ...) read the same bytes straight into structs, for analyses
//! that scan whole partitions.

use base64::Engine;
use serde_json::{json, Value};

use super::reader::{DecodeError, DecodeResult, Reader};
use super::schema::{read_message, Message};
use tables::{
    CONSUMER_PROTOCOL_ASSIGNMENT, CONSUMER_PROTOCOL_SUBSCRIPTION, GROUP_RECORDS, LEGACY_4_0_VALUES,
    METADATA_RECORDS, REMOTE_LOG_METADATA_RECORDS, SHARE_STATE_RECORDS, TRANSACTION_RECORDS,
};

/// Start of the error message for a record type no table knows.
pub const UNKNOWN_RECORD_TYPE: &str = "Unknown record type ";
/// Start of the error message for a value version outside the record's valid versions.
pub const UNKNOWN_VERSION: &str = "Unknown version ";

/// Whether `error` is "unknown record type" or "unknown version" (as opposed to damaged
/// bytes): the record is probably fine but newer than kseg; print it raw and carry on.
pub fn is_unknown(error: &DecodeError) -> bool {
    error.message.starts_with(UNKNOWN_RECORD_TYPE) || error.message.starts_with(UNKNOWN_VERSION)
}

fn unknown_type(record_type: i16) -> DecodeError {
    DecodeError::new(0, format!("{UNKNOWN_RECORD_TYPE}{record_type}"))
}

fn unknown_version(version: i16, msg: &Message) -> DecodeError {
    DecodeError::new(0, format!("{UNKNOWN_VERSION}{version} of {}", msg.name))
}

/// A decoded coordinator record key.
#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorKey {
    pub record_type: i16,
    /// `{"type":"<record type>","data":{...}}`
    pub json: Value,
}

/// A decoded coordinator record value.
#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorValue {
    pub version: i16,
    /// `{"version":"<version>","data":{...}}`
    pub json: Value,
    /// `Some("4.0")` when the bytes only fit Kafka 4.0's layout of this "v0" value.
    pub legacy_layout: Option<&'static str>,
}

type RecordTable = [(i16, &'static Message, &'static Message)];

fn find(
    table: &RecordTable,
    record_type: i16,
) -> DecodeResult<(&'static Message, &'static Message)> {
    table
        .iter()
        .find(|(t, ..)| *t == record_type)
        .map(|(_, k, v)| (*k, *v))
        .ok_or_else(|| unknown_type(record_type))
}

fn decode_key(table: &RecordTable, key: &[u8]) -> DecodeResult<CoordinatorKey> {
    let mut r = Reader::new(key);
    let record_type = r.i16("record type")?;
    let (msg, _) = find(table, record_type)?;
    let data = read_message(msg, 0, &mut r)?;
    Ok(CoordinatorKey {
        record_type,
        json: json!({"type": record_type.to_string(), "data": data}),
    })
}

fn decode_value(
    table: &RecordTable,
    coordinator: &str,
    record_type: i16,
    value: &[u8],
) -> DecodeResult<CoordinatorValue> {
    let (_, msg) = find(table, record_type)?;
    let mut r = Reader::new(value);
    let version = r.i16("value version")?;
    if !msg.valid.contains(version) {
        return Err(unknown_version(version, msg));
    }
    let mut trunk_reader = r.clone();
    let trunk = read_message(msg, version, &mut trunk_reader);
    let mut legacy_layout = None;
    let data = match trunk {
        Ok(data) if trunk_reader.is_empty() => data,
        trunk => {
            let legacy = LEGACY_4_0_VALUES
                .iter()
                .find(|(c, t, _)| *c == coordinator && *t == record_type)
                .and_then(|(_, _, old)| {
                    let mut lr = r.clone();
                    match read_message(old, version, &mut lr) {
                        Ok(data) if lr.is_empty() => Some(data),
                        _ => None,
                    }
                });
            match legacy {
                Some(data) => {
                    legacy_layout = Some("4.0");
                    data
                }
                None => trunk?,
            }
        }
    };
    Ok(CoordinatorValue {
        version,
        json: json!({"version": version.to_string(), "data": data}),
        legacy_layout,
    })
}

/// Decodes a `__consumer_offsets` record key.
pub fn decode_offsets_key(key: &[u8]) -> DecodeResult<CoordinatorKey> {
    decode_key(GROUP_RECORDS, key)
}

/// Decodes a non-null `__consumer_offsets` record value of the given record type.
pub fn decode_offsets_value(record_type: i16, value: &[u8]) -> DecodeResult<CoordinatorValue> {
    let mut v = decode_value(GROUP_RECORDS, "group", record_type, value)?;
    if record_type == 2 {
        if let Some(data) = v.json.get_mut("data") {
            embed_consumer_protocol(data);
        }
    }
    Ok(v)
}

/// Decodes a `__transaction_state` record key.
pub fn decode_transaction_key(key: &[u8]) -> DecodeResult<CoordinatorKey> {
    decode_key(TRANSACTION_RECORDS, key)
}

/// Decodes a non-null `__transaction_state` record value (record type 0).
pub fn decode_transaction_value(record_type: i16, value: &[u8]) -> DecodeResult<CoordinatorValue> {
    let mut v = decode_value(TRANSACTION_RECORDS, "transaction", record_type, value)?;
    if let Some(status) = v.json.pointer_mut("/data/transactionStatus") {
        if let Some(id) = status.as_i64() {
            *status = match transaction_state_name(id as i8) {
                Some(name) => name.into(),
                None => id.to_string().into(),
            };
        }
    }
    Ok(v)
}

/// Decodes a `__share_group_state` record key (0 = ShareSnapshot, 1 = ShareUpdate).
pub fn decode_share_state_key(key: &[u8]) -> DecodeResult<CoordinatorKey> {
    decode_key(SHARE_STATE_RECORDS, key)
}

/// Decodes a non-null `__share_group_state` record value of the given record type.
pub fn decode_share_state_value(record_type: i16, value: &[u8]) -> DecodeResult<CoordinatorValue> {
    decode_value(SHARE_STATE_RECORDS, "share", record_type, value)
}

/// Kafka's `TransactionState` names by id.
pub fn transaction_state_name(id: i8) -> Option<&'static str> {
    Some(match id {
        0 => "Empty",
        1 => "Ongoing",
        2 => "PrepareCommit",
        3 => "PrepareAbort",
        4 => "CompleteCommit",
        5 => "CompleteAbort",
        6 => "Dead",
        7 => "PrepareEpochFence",
        _ => return None,
    })
}

/// The version-prefixed consumer-protocol bytes as JSON (newer versions read with the newest
/// layout, as Kafka does; bytes after the message are ignored).
fn decode_embedded(msg: &Message, bytes: &[u8]) -> DecodeResult<Value> {
    let mut r = Reader::new(bytes);
    let version = r.i16("version")?;
    read_message(msg, version, &mut r)
}

fn embed_consumer_protocol(data: &mut Value) {
    if data.get("protocolType").and_then(Value::as_str) != Some("consumer") {
        return;
    }
    let Some(members) = data.get_mut("members").and_then(Value::as_array_mut) else {
        return;
    };
    for member in members {
        for (field, msg) in [
            ("subscription", &CONSUMER_PROTOCOL_SUBSCRIPTION),
            ("assignment", &CONSUMER_PROTOCOL_ASSIGNMENT),
        ] {
            let Some(slot) = member.get_mut(field) else {
                continue;
            };
            let Some(Ok(bytes)) = slot
                .as_str()
                .map(|s| base64::engine::general_purpose::STANDARD.decode(s))
            else {
                continue;
            };
            if let Ok(decoded) = decode_embedded(msg, &bytes) {
                *slot = decoded;
            }
        }
    }
}

/// Kafka's `unsignedIntToShort`: an unsigned varint that must fit an int16.
fn uvarint_short(r: &mut Reader<'_>, what: &str) -> DecodeResult<i16> {
    let at = r.position();
    let v = r.uvarint(what)?;
    i16::try_from(v)
        .map_err(|_| DecodeError::new(at, format!("Value for {what} was too large: {v}")))
}

/// Decodes a `__cluster_metadata` (or `.checkpoint`) record value: uvarint frame version (1),
/// uvarint apiKey, uvarint version, then the message, with nothing after it.
pub fn decode_metadata_record(value: &[u8]) -> DecodeResult<Value> {
    decode_framed(value, METADATA_RECORDS)
}

/// Decodes a `__remote_log_metadata` record value (tiered storage): framed like a KRaft
/// metadata record (`AbstractApiMessageSerde`), with the storage module's record types.
pub fn decode_remote_log_metadata_record(value: &[u8]) -> DecodeResult<Value> {
    decode_framed(value, REMOTE_LOG_METADATA_RECORDS)
}

fn decode_framed(value: &[u8], table: &[(i16, &str, &Message)]) -> DecodeResult<Value> {
    let mut r = Reader::new(value);
    let frame = uvarint_short(&mut r, "frame version")?;
    if frame == 0 {
        return Err(DecodeError::new(
            0,
            "Could not deserialize metadata record with frame version 0 \
             (the preview KRaft format of Kafka 2.8)",
        ));
    }
    if frame != 1 {
        return Err(DecodeError::new(
            0,
            format!("unknown metadata frame version {frame} (only frame version 1 is supported)"),
        ));
    }
    let api_key = uvarint_short(&mut r, "type")?;
    let version = uvarint_short(&mut r, "version")?;
    let (name, msg) = table
        .iter()
        .find(|(k, ..)| *k == api_key)
        .map(|(_, n, m)| (*n, *m))
        .ok_or_else(|| unknown_type(api_key))?;
    if !msg.valid.contains(version) {
        return Err(unknown_version(version, msg));
    }
    let data = read_message(msg, version, &mut r)?;
    if !r.is_empty() {
        return Err(r.error(format!(
            "Found {} byte(s) of garbage after {name}",
            r.remaining()
        )));
    }
    Ok(json!({"type": name, "version": version, "data": data}))
}

// ---------------------------------------------------------------------------------------------
// Typed helpers

/// Whether a `__consumer_offsets` record type is one this table knows. Kafka's loader skips a
/// record of an unknown type with a warning (a newer Kafka's record, or a leftover of an aborted
/// upgrade) and goes on.
pub fn is_known_group_record_type(record_type: i16) -> bool {
    GROUP_RECORDS.iter().any(|(t, ..)| *t == record_type)
}

/// Whether a `__transaction_state` key version is one this table knows (Kafka's
/// TransactionStateManager skips an unknown one with a warning and goes on).
pub fn is_known_transaction_record_type(record_type: i16) -> bool {
    TRANSACTION_RECORDS.iter().any(|(t, ..)| *t == record_type)
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
    pub record_type: i16,
    pub group: String,
    pub topic: String,
    pub partition: i32,
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
}

/// Reads fields in classic or compact encoding, as the generated code does.
struct Wire<'a> {
    r: Reader<'a>,
    flexible: bool,
}

impl<'a> Wire<'a> {
    fn new(r: Reader<'a>, flexible: bool) -> Self {
        Wire { r, flexible }
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
        DecodeError::new(
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
            return Err(DecodeError::new(
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
            return Err(DecodeError::new(
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
                return Err(DecodeError::new(
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
        Err(unknown_version(version, msg))
    }
}

/// Parses the key of an offset commit (record types 0 and 1).
pub fn parse_offset_commit_key(key: &[u8]) -> DecodeResult<OffsetCommitKey> {
    let mut w = Wire::new(Reader::new(key), false);
    let record_type = w.r.i16("record type")?;
    if record_type != 0 && record_type != 1 {
        return Err(DecodeError::new(
            0,
            format!("record type {record_type} is not an offset commit"),
        ));
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
    let k = parse_offset_commit_key(key)?;
    let (_, msg) = find(GROUP_RECORDS, k.record_type)?;
    let mut r = Reader::new(value);
    let version = r.i16("value version")?;
    check_version(version, msg)?;
    let mut w = Wire::new(r, msg.is_flexible(version));
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
    Ok(OffsetCommit {
        record_type: k.record_type,
        group: k.group,
        topic: k.topic,
        partition: k.partition,
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
    let mut w = Wire::new(Reader::new(bytes), false);
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
    let mut w = Wire::new(Reader::new(bytes), false);
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
    let mut w = Wire::new(r, msg.is_flexible(version));
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
    let mut w = Wire::new(Reader::new(key), false);
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
    let mut w = Wire::new(r, msg.is_flexible(version));
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

/// The schema tables, generated from Kafka's JSON message specs.
#[rustfmt::skip]
pub mod tables {
    use crate::format::schema::{field, vp, vr, FieldDefault, Message, Prim, Struct, Type, VNONE};

    // BEGIN GENERATED TABLES
    // Generated by scripts/gen_internal_topic_schemas.py from Kafka's JSON message specs,
    // pinned to Apache Kafka trunk commit d79bd502ec7fa49335afa422f442af80ed0ab8f6 (4.5.0-SNAPSHOT)
    // plus the historical layouts named on each table. Do not edit by hand.

    /// `__consumer_offsets` record types: (type, key, value).
    pub static GROUP_RECORDS: &[(i16, &Message, &Message)] = &[
        (0, &LEGACY_OFFSET_COMMIT_KEY, &LEGACY_OFFSET_COMMIT_VALUE),
        (1, &OFFSET_COMMIT_KEY, &OFFSET_COMMIT_VALUE),
        (2, &GROUP_METADATA_KEY, &GROUP_METADATA_VALUE),
        (3, &CONSUMER_GROUP_METADATA_KEY, &CONSUMER_GROUP_METADATA_VALUE),
        (4, &CONSUMER_GROUP_PARTITION_METADATA_KEY, &CONSUMER_GROUP_PARTITION_METADATA_VALUE),
        (5, &CONSUMER_GROUP_MEMBER_METADATA_KEY, &CONSUMER_GROUP_MEMBER_METADATA_VALUE),
        (6, &CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_KEY, &CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE),
        (7, &CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY, &CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE),
        (8, &CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY, &CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE),
        (9, &SHARE_GROUP_PARTITION_METADATA_KEY, &SHARE_GROUP_PARTITION_METADATA_VALUE),
        (10, &SHARE_GROUP_MEMBER_METADATA_KEY, &SHARE_GROUP_MEMBER_METADATA_VALUE),
        (11, &SHARE_GROUP_METADATA_KEY, &SHARE_GROUP_METADATA_VALUE),
        (12, &SHARE_GROUP_TARGET_ASSIGNMENT_METADATA_KEY, &SHARE_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE),
        (13, &SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY, &SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE),
        (14, &SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY, &SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE),
        (15, &SHARE_GROUP_STATE_PARTITION_METADATA_KEY, &SHARE_GROUP_STATE_PARTITION_METADATA_VALUE),
        (16, &CONSUMER_GROUP_REGULAR_EXPRESSION_KEY, &CONSUMER_GROUP_REGULAR_EXPRESSION_VALUE),
        (17, &STREAMS_GROUP_METADATA_KEY, &STREAMS_GROUP_METADATA_VALUE),
        (18, &STREAMS_GROUP_PARTITION_METADATA_KEY, &STREAMS_GROUP_PARTITION_METADATA_VALUE),
        (19, &STREAMS_GROUP_MEMBER_METADATA_KEY, &STREAMS_GROUP_MEMBER_METADATA_VALUE),
        (20, &STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA_KEY, &STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE),
        (21, &STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY, &STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE),
        (22, &STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY, &STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE),
        (23, &STREAMS_GROUP_TOPOLOGY_KEY, &STREAMS_GROUP_TOPOLOGY_VALUE),
    ];

    /// Kafka 4.0 value layouts that 4.1 changed incompatibly without a version bump:
    /// (coordinator, record type, value), tried when the trunk layout does not fit.
    pub static LEGACY_4_0_VALUES: &[(&str, i16, &Message)] = &[
        ("group", 11, &SHARE_GROUP_METADATA_VALUE_4_0),
        ("group", 15, &SHARE_GROUP_STATE_PARTITION_METADATA_VALUE_4_0),
        ("share", 0, &SHARE_SNAPSHOT_VALUE_4_0),
        ("share", 1, &SHARE_UPDATE_VALUE_4_0),
    ];

    /// `__transaction_state` record types: (type, key, value).
    pub static TRANSACTION_RECORDS: &[(i16, &Message, &Message)] = &[
        (0, &TRANSACTION_LOG_KEY, &TRANSACTION_LOG_VALUE),
    ];

    /// `__share_group_state` record types: (type, key, value).
    pub static SHARE_STATE_RECORDS: &[(i16, &Message, &Message)] = &[
        (0, &SHARE_SNAPSHOT_KEY, &SHARE_SNAPSHOT_VALUE),
        (1, &SHARE_UPDATE_KEY, &SHARE_UPDATE_VALUE),
    ];

    /// `__cluster_metadata` record types: (apiKey, MetadataRecordType name, message).
    pub static METADATA_RECORDS: &[(i16, &str, &Message)] = &[
        (0, "REGISTER_BROKER_RECORD", &REGISTER_BROKER_RECORD),
        (1, "UNREGISTER_BROKER_RECORD", &UNREGISTER_BROKER_RECORD),
        (2, "TOPIC_RECORD", &TOPIC_RECORD),
        (3, "PARTITION_RECORD", &PARTITION_RECORD),
        (4, "CONFIG_RECORD", &CONFIG_RECORD),
        (5, "PARTITION_CHANGE_RECORD", &PARTITION_CHANGE_RECORD),
        (7, "FENCE_BROKER_RECORD", &FENCE_BROKER_RECORD),
        (8, "UNFENCE_BROKER_RECORD", &UNFENCE_BROKER_RECORD),
        (9, "REMOVE_TOPIC_RECORD", &REMOVE_TOPIC_RECORD),
        (10, "DELEGATION_TOKEN_RECORD", &DELEGATION_TOKEN_RECORD),
        (11, "USER_SCRAM_CREDENTIAL_RECORD", &USER_SCRAM_CREDENTIAL_RECORD),
        (12, "FEATURE_LEVEL_RECORD", &FEATURE_LEVEL_RECORD),
        (14, "CLIENT_QUOTA_RECORD", &CLIENT_QUOTA_RECORD),
        (15, "PRODUCER_IDS_RECORD", &PRODUCER_IDS_RECORD),
        (17, "BROKER_REGISTRATION_CHANGE_RECORD", &BROKER_REGISTRATION_CHANGE_RECORD),
        (18, "ACCESS_CONTROL_ENTRY_RECORD", &ACCESS_CONTROL_ENTRY_RECORD),
        (19, "REMOVE_ACCESS_CONTROL_ENTRY_RECORD", &REMOVE_ACCESS_CONTROL_ENTRY_RECORD),
        (20, "NO_OP_RECORD", &NO_OP_RECORD),
        (21, "ZK_MIGRATION_STATE_RECORD", &ZK_MIGRATION_STATE_RECORD),
        (22, "REMOVE_USER_SCRAM_CREDENTIAL_RECORD", &REMOVE_USER_SCRAM_CREDENTIAL_RECORD),
        (23, "BEGIN_TRANSACTION_RECORD", &BEGIN_TRANSACTION_RECORD),
        (24, "END_TRANSACTION_RECORD", &END_TRANSACTION_RECORD),
        (25, "ABORT_TRANSACTION_RECORD", &ABORT_TRANSACTION_RECORD),
        (26, "REMOVE_DELEGATION_TOKEN_RECORD", &REMOVE_DELEGATION_TOKEN_RECORD),
        (27, "REGISTER_CONTROLLER_RECORD", &REGISTER_CONTROLLER_RECORD),
        (28, "CLEAR_ELR_RECORD", &CLEAR_ELR_RECORD),
        (29, "UNREGISTER_CONTROLLER_RECORD", &UNREGISTER_CONTROLLER_RECORD),
    ];

    /// `__remote_log_metadata` record types: (apiKey, record type name, message).
    pub static REMOTE_LOG_METADATA_RECORDS: &[(i16, &str, &Message)] = &[
        (0, "REMOTE_LOG_SEGMENT_METADATA_RECORD", &REMOTE_LOG_SEGMENT_METADATA_RECORD),
        (1, "REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD", &REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD),
        (2, "REMOTE_PARTITION_DELETE_METADATA_RECORD", &REMOTE_PARTITION_DELETE_METADATA_RECORD),
        (3, "REMOTE_LOG_SEGMENT_METADATA_SNAPSHOT_RECORD", &REMOTE_LOG_SEGMENT_METADATA_SNAPSHOT_RECORD),
    ];

    /// `LegacyOffsetCommitKey` (trunk).
    pub static LEGACY_OFFSET_COMMIT_KEY: Message = Message {
        name: "LegacyOffsetCommitKey",
        api_key: 0,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "LegacyOffsetCommitKey",
            versions: vr(0, 0),
            fields: &[
                field("group", Type::Prim(Prim::String), vp(0)),
                field("topic", Type::Prim(Prim::String), vp(0)),
                field("partition", Type::Prim(Prim::Int32), vp(0)),
            ],
        },
    };

    /// `LegacyOffsetCommitValue` (trunk).
    pub static LEGACY_OFFSET_COMMIT_VALUE: Message = Message {
        name: "LegacyOffsetCommitValue",
        api_key: 0,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "LegacyOffsetCommitValue",
            versions: vr(0, 0),
            fields: &[
                field("offset", Type::Prim(Prim::Int64), vr(0, 0)),
                field("metadata", Type::Prim(Prim::String), vr(0, 0)),
                field("commitTimestamp", Type::Prim(Prim::Int64), vr(0, 0)),
            ],
        },
    };

    /// `OffsetCommitKey` (trunk).
    pub static OFFSET_COMMIT_KEY: Message = Message {
        name: "OffsetCommitKey",
        api_key: 1,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "OffsetCommitKey",
            versions: vr(0, 0),
            fields: &[
                field("group", Type::Prim(Prim::String), vp(0)),
                field("topic", Type::Prim(Prim::String), vp(0)),
                field("partition", Type::Prim(Prim::Int32), vp(0)),
            ],
        },
    };

    /// `OffsetCommitValue` (trunk).
    pub static OFFSET_COMMIT_VALUE: Message = Message {
        name: "OffsetCommitValue",
        api_key: 1,
        valid: vr(0, 4),
        flexible: vp(4),
        root: Struct {
            name: "OffsetCommitValue",
            versions: vr(0, 4),
            fields: &[
                field("offset", Type::Prim(Prim::Int64), vp(0)),
                field("leaderEpoch", Type::Prim(Prim::Int32), vp(3)).with_default(FieldDefault::Int(-1)),
                field("metadata", Type::Prim(Prim::String), vp(0)),
                field("commitTimestamp", Type::Prim(Prim::Int64), vp(0)),
                field("expireTimestamp", Type::Prim(Prim::Int64), vr(1, 1)).with_default(FieldDefault::Int(-1)),
                field("topicId", Type::Prim(Prim::Uuid), vp(4)).tagged(vp(4), 0),
            ],
        },
    };

    /// `GroupMetadataKey` (trunk).
    pub static GROUP_METADATA_KEY: Message = Message {
        name: "GroupMetadataKey",
        api_key: 2,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "GroupMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("group", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `GroupMetadataValue` (trunk).
    pub static GROUP_METADATA_VALUE: Message = Message {
        name: "GroupMetadataValue",
        api_key: 2,
        valid: vr(0, 4),
        flexible: vp(4),
        root: Struct {
            name: "GroupMetadataValue",
            versions: vr(0, 4),
            fields: &[
                field("protocolType", Type::Prim(Prim::String), vp(0)),
                field("generation", Type::Prim(Prim::Int32), vp(0)),
                field("protocol", Type::Prim(Prim::String), vp(0)).nullable(vp(0)),
                field("leader", Type::Prim(Prim::String), vp(0)).nullable(vp(0)),
                field("currentStateTimestamp", Type::Prim(Prim::Int64), vp(2)).with_default(FieldDefault::Int(-1)),
                field("members", Type::StructArray(&GROUP_METADATA_VALUE__MEMBER_METADATA), vp(0)),
            ],
        },
    };

    /// `ConsumerGroupMetadataKey` (trunk).
    pub static CONSUMER_GROUP_METADATA_KEY: Message = Message {
        name: "ConsumerGroupMetadataKey",
        api_key: 3,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ConsumerGroupMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ConsumerGroupMetadataValue` (trunk).
    pub static CONSUMER_GROUP_METADATA_VALUE: Message = Message {
        name: "ConsumerGroupMetadataValue",
        api_key: 3,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ConsumerGroupMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("epoch", Type::Prim(Prim::Int32), vp(0)),
                field("metadataHash", Type::Prim(Prim::Int64), vp(0)).tagged(vp(0), 0).with_default(FieldDefault::Int(0)),
            ],
        },
    };

    /// `ConsumerGroupPartitionMetadataKey` (trunk).
    pub static CONSUMER_GROUP_PARTITION_METADATA_KEY: Message = Message {
        name: "ConsumerGroupPartitionMetadataKey",
        api_key: 4,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ConsumerGroupPartitionMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ConsumerGroupPartitionMetadataValue` (trunk).
    pub static CONSUMER_GROUP_PARTITION_METADATA_VALUE: Message = Message {
        name: "ConsumerGroupPartitionMetadataValue",
        api_key: 4,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ConsumerGroupPartitionMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("topics", Type::StructArray(&CONSUMER_GROUP_PARTITION_METADATA_VALUE__TOPIC_METADATA), vp(0)),
            ],
        },
    };

    /// `ConsumerGroupMemberMetadataKey` (trunk).
    pub static CONSUMER_GROUP_MEMBER_METADATA_KEY: Message = Message {
        name: "ConsumerGroupMemberMetadataKey",
        api_key: 5,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ConsumerGroupMemberMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
                field("memberId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ConsumerGroupMemberMetadataValue` (trunk).
    pub static CONSUMER_GROUP_MEMBER_METADATA_VALUE: Message = Message {
        name: "ConsumerGroupMemberMetadataValue",
        api_key: 5,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ConsumerGroupMemberMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("instanceId", Type::Prim(Prim::String), vp(0)).nullable(vp(0)),
                field("rackId", Type::Prim(Prim::String), vp(0)).nullable(vp(0)),
                field("clientId", Type::Prim(Prim::String), vp(0)),
                field("clientHost", Type::Prim(Prim::String), vp(0)),
                field("subscribedTopicNames", Type::Array(Prim::String), vp(0)),
                field("subscribedTopicRegex", Type::Prim(Prim::String), vp(0)).nullable(vp(0)),
                field("rebalanceTimeoutMs", Type::Prim(Prim::Int32), vp(0)).with_default(FieldDefault::Int(-1)),
                field("serverAssignor", Type::Prim(Prim::String), vp(0)).nullable(vp(0)),
                field("classicMemberMetadata", Type::Struct(&CONSUMER_GROUP_MEMBER_METADATA_VALUE__CLASSIC_MEMBER_METADATA), vp(0)).nullable(vp(0)).tagged(vp(0), 0),
            ],
        },
    };

    /// `ConsumerGroupTargetAssignmentMetadataKey` (trunk).
    pub static CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_KEY: Message = Message {
        name: "ConsumerGroupTargetAssignmentMetadataKey",
        api_key: 6,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ConsumerGroupTargetAssignmentMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ConsumerGroupTargetAssignmentMetadataValue` (trunk).
    pub static CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE: Message = Message {
        name: "ConsumerGroupTargetAssignmentMetadataValue",
        api_key: 6,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ConsumerGroupTargetAssignmentMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("assignmentEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("assignmentTimestamp", Type::Prim(Prim::Int64), vp(0)).tagged(vp(0), 0).with_default(FieldDefault::Int(0)),
            ],
        },
    };

    /// `ConsumerGroupTargetAssignmentMemberKey` (trunk).
    pub static CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY: Message = Message {
        name: "ConsumerGroupTargetAssignmentMemberKey",
        api_key: 7,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ConsumerGroupTargetAssignmentMemberKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
                field("memberId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ConsumerGroupTargetAssignmentMemberValue` (trunk).
    pub static CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE: Message = Message {
        name: "ConsumerGroupTargetAssignmentMemberValue",
        api_key: 7,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ConsumerGroupTargetAssignmentMemberValue",
            versions: vr(0, 0),
            fields: &[
                field("topicPartitions", Type::StructArray(&CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE__TOPIC_PARTITION), vp(0)),
            ],
        },
    };

    /// `ConsumerGroupCurrentMemberAssignmentKey` (trunk).
    pub static CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY: Message = Message {
        name: "ConsumerGroupCurrentMemberAssignmentKey",
        api_key: 8,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ConsumerGroupCurrentMemberAssignmentKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
                field("memberId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ConsumerGroupCurrentMemberAssignmentValue` (trunk).
    pub static CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE: Message = Message {
        name: "ConsumerGroupCurrentMemberAssignmentValue",
        api_key: 8,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ConsumerGroupCurrentMemberAssignmentValue",
            versions: vr(0, 0),
            fields: &[
                field("memberEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("previousMemberEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("state", Type::Prim(Prim::Int8), vp(0)),
                field("assignedPartitions", Type::StructArray(&CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE__TOPIC_PARTITIONS), vp(0)),
                field("partitionsPendingRevocation", Type::StructArray(&CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE__TOPIC_PARTITIONS), vp(0)),
            ],
        },
    };

    /// `ShareGroupMemberMetadataKey` (trunk).
    pub static SHARE_GROUP_MEMBER_METADATA_KEY: Message = Message {
        name: "ShareGroupMemberMetadataKey",
        api_key: 10,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ShareGroupMemberMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
                field("memberId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ShareGroupMemberMetadataValue` (trunk).
    pub static SHARE_GROUP_MEMBER_METADATA_VALUE: Message = Message {
        name: "ShareGroupMemberMetadataValue",
        api_key: 10,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ShareGroupMemberMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("rackId", Type::Prim(Prim::String), vp(0)).nullable(vp(0)),
                field("clientId", Type::Prim(Prim::String), vp(0)),
                field("clientHost", Type::Prim(Prim::String), vp(0)),
                field("subscribedTopicNames", Type::Array(Prim::String), vp(0)),
            ],
        },
    };

    /// `ShareGroupMetadataKey` (trunk).
    pub static SHARE_GROUP_METADATA_KEY: Message = Message {
        name: "ShareGroupMetadataKey",
        api_key: 11,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ShareGroupMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ShareGroupMetadataValue` (trunk).
    pub static SHARE_GROUP_METADATA_VALUE: Message = Message {
        name: "ShareGroupMetadataValue",
        api_key: 11,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ShareGroupMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("epoch", Type::Prim(Prim::Int32), vp(0)),
                field("metadataHash", Type::Prim(Prim::Int64), vp(0)),
            ],
        },
    };

    /// `ShareGroupTargetAssignmentMetadataKey` (trunk).
    pub static SHARE_GROUP_TARGET_ASSIGNMENT_METADATA_KEY: Message = Message {
        name: "ShareGroupTargetAssignmentMetadataKey",
        api_key: 12,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ShareGroupTargetAssignmentMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ShareGroupTargetAssignmentMetadataValue` (trunk).
    pub static SHARE_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE: Message = Message {
        name: "ShareGroupTargetAssignmentMetadataValue",
        api_key: 12,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ShareGroupTargetAssignmentMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("assignmentEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("assignmentTimestamp", Type::Prim(Prim::Int64), vp(0)).tagged(vp(0), 0).with_default(FieldDefault::Int(0)),
            ],
        },
    };

    /// `ShareGroupTargetAssignmentMemberKey` (trunk).
    pub static SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY: Message = Message {
        name: "ShareGroupTargetAssignmentMemberKey",
        api_key: 13,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ShareGroupTargetAssignmentMemberKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
                field("memberId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ShareGroupTargetAssignmentMemberValue` (trunk).
    pub static SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE: Message = Message {
        name: "ShareGroupTargetAssignmentMemberValue",
        api_key: 13,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ShareGroupTargetAssignmentMemberValue",
            versions: vr(0, 0),
            fields: &[
                field("topicPartitions", Type::StructArray(&SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE__TOPIC_PARTITION), vp(0)),
            ],
        },
    };

    /// `ShareGroupCurrentMemberAssignmentKey` (trunk).
    pub static SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY: Message = Message {
        name: "ShareGroupCurrentMemberAssignmentKey",
        api_key: 14,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ShareGroupCurrentMemberAssignmentKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
                field("memberId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ShareGroupCurrentMemberAssignmentValue` (trunk).
    pub static SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE: Message = Message {
        name: "ShareGroupCurrentMemberAssignmentValue",
        api_key: 14,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ShareGroupCurrentMemberAssignmentValue",
            versions: vr(0, 0),
            fields: &[
                field("memberEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("previousMemberEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("state", Type::Prim(Prim::Int8), vp(0)),
                field("assignedPartitions", Type::StructArray(&SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE__TOPIC_PARTITIONS), vp(0)),
            ],
        },
    };

    /// `ShareGroupStatePartitionMetadataKey` (trunk).
    pub static SHARE_GROUP_STATE_PARTITION_METADATA_KEY: Message = Message {
        name: "ShareGroupStatePartitionMetadataKey",
        api_key: 15,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ShareGroupStatePartitionMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ShareGroupStatePartitionMetadataValue` (trunk).
    pub static SHARE_GROUP_STATE_PARTITION_METADATA_VALUE: Message = Message {
        name: "ShareGroupStatePartitionMetadataValue",
        api_key: 15,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ShareGroupStatePartitionMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("initializingTopics", Type::StructArray(&SHARE_GROUP_STATE_PARTITION_METADATA_VALUE__TOPIC_PARTITIONS_INFO), vp(0)),
                field("initializedTopics", Type::StructArray(&SHARE_GROUP_STATE_PARTITION_METADATA_VALUE__TOPIC_PARTITIONS_INFO), vp(0)),
                field("deletingTopics", Type::StructArray(&SHARE_GROUP_STATE_PARTITION_METADATA_VALUE__TOPIC_INFO), vp(0)),
            ],
        },
    };

    /// `ConsumerGroupRegularExpressionKey` (trunk).
    pub static CONSUMER_GROUP_REGULAR_EXPRESSION_KEY: Message = Message {
        name: "ConsumerGroupRegularExpressionKey",
        api_key: 16,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ConsumerGroupRegularExpressionKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
                field("regularExpression", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ConsumerGroupRegularExpressionValue` (trunk).
    pub static CONSUMER_GROUP_REGULAR_EXPRESSION_VALUE: Message = Message {
        name: "ConsumerGroupRegularExpressionValue",
        api_key: 16,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ConsumerGroupRegularExpressionValue",
            versions: vr(0, 0),
            fields: &[
                field("topics", Type::Array(Prim::String), vp(0)),
                field("version", Type::Prim(Prim::Int64), vp(0)),
                field("timestamp", Type::Prim(Prim::Int64), vp(0)),
            ],
        },
    };

    /// `StreamsGroupMetadataKey` (trunk).
    pub static STREAMS_GROUP_METADATA_KEY: Message = Message {
        name: "StreamsGroupMetadataKey",
        api_key: 17,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "StreamsGroupMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `StreamsGroupMetadataValue` (trunk).
    pub static STREAMS_GROUP_METADATA_VALUE: Message = Message {
        name: "StreamsGroupMetadataValue",
        api_key: 17,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "StreamsGroupMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("epoch", Type::Prim(Prim::Int32), vp(0)),
                field("metadataHash", Type::Prim(Prim::Int64), vp(0)),
                field("validatedTopologyEpoch", Type::Prim(Prim::Int32), vp(0)).tagged(vp(0), 0).with_default(FieldDefault::Int(-1)),
                field("lastAssignmentConfigs", Type::StructArray(&STREAMS_GROUP_METADATA_VALUE__LAST_ASSIGNMENT_CONFIG), vp(0)).nullable(vp(0)).tagged(vp(0), 1),
                field("storedDescriptionTopologyEpoch", Type::Prim(Prim::Int32), vp(0)).tagged(vp(0), 2).with_default(FieldDefault::Int(-1)),
                field("failedDescriptionTopologyEpoch", Type::Prim(Prim::Int32), vp(0)).tagged(vp(0), 3).with_default(FieldDefault::Int(-1)),
            ],
        },
    };

    /// `StreamsGroupMemberMetadataKey` (trunk).
    pub static STREAMS_GROUP_MEMBER_METADATA_KEY: Message = Message {
        name: "StreamsGroupMemberMetadataKey",
        api_key: 19,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "StreamsGroupMemberMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
                field("memberId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `StreamsGroupMemberMetadataValue` (trunk).
    pub static STREAMS_GROUP_MEMBER_METADATA_VALUE: Message = Message {
        name: "StreamsGroupMemberMetadataValue",
        api_key: 19,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "StreamsGroupMemberMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("instanceId", Type::Prim(Prim::String), vp(0)).nullable(vp(0)),
                field("rackId", Type::Prim(Prim::String), vp(0)).nullable(vp(0)),
                field("clientId", Type::Prim(Prim::String), vp(0)),
                field("clientHost", Type::Prim(Prim::String), vp(0)),
                field("rebalanceTimeoutMs", Type::Prim(Prim::Int32), vp(0)).with_default(FieldDefault::Int(-1)),
                field("topologyEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("processId", Type::Prim(Prim::String), vp(0)),
                field("userEndpoint", Type::Struct(&STREAMS_GROUP_MEMBER_METADATA_VALUE__ENDPOINT), vp(0)).nullable(vp(0)).with_default(FieldDefault::Null),
                field("clientTags", Type::StructArray(&STREAMS_GROUP_MEMBER_METADATA_VALUE__KEY_VALUE), vp(0)),
            ],
        },
    };

    /// `StreamsGroupTargetAssignmentMetadataKey` (trunk).
    pub static STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA_KEY: Message = Message {
        name: "StreamsGroupTargetAssignmentMetadataKey",
        api_key: 20,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "StreamsGroupTargetAssignmentMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `StreamsGroupTargetAssignmentMetadataValue` (trunk).
    pub static STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE: Message = Message {
        name: "StreamsGroupTargetAssignmentMetadataValue",
        api_key: 20,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "StreamsGroupTargetAssignmentMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("assignmentEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("assignmentTimestamp", Type::Prim(Prim::Int64), vp(0)).tagged(vp(0), 0).with_default(FieldDefault::Int(0)),
            ],
        },
    };

    /// `StreamsGroupTargetAssignmentMemberKey` (trunk).
    pub static STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY: Message = Message {
        name: "StreamsGroupTargetAssignmentMemberKey",
        api_key: 21,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "StreamsGroupTargetAssignmentMemberKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
                field("memberId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `StreamsGroupTargetAssignmentMemberValue` (trunk).
    pub static STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE: Message = Message {
        name: "StreamsGroupTargetAssignmentMemberValue",
        api_key: 21,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "StreamsGroupTargetAssignmentMemberValue",
            versions: vr(0, 0),
            fields: &[
                field("activeTasks", Type::StructArray(&STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE__TASK_IDS), vp(0)),
                field("standbyTasks", Type::StructArray(&STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE__TASK_IDS), vp(0)),
                field("warmupTasks", Type::StructArray(&STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE__TASK_IDS), vp(0)),
            ],
        },
    };

    /// `StreamsGroupCurrentMemberAssignmentKey` (trunk).
    pub static STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY: Message = Message {
        name: "StreamsGroupCurrentMemberAssignmentKey",
        api_key: 22,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "StreamsGroupCurrentMemberAssignmentKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
                field("memberId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `StreamsGroupCurrentMemberAssignmentValue` (trunk).
    pub static STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE: Message = Message {
        name: "StreamsGroupCurrentMemberAssignmentValue",
        api_key: 22,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "StreamsGroupCurrentMemberAssignmentValue",
            versions: vr(0, 0),
            fields: &[
                field("memberEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("previousMemberEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("state", Type::Prim(Prim::Int8), vp(0)),
                field("activeTasks", Type::StructArray(&STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE__TASK_IDS), vp(0)),
                field("standbyTasks", Type::StructArray(&STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE__TASK_IDS), vp(0)),
                field("warmupTasks", Type::StructArray(&STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE__TASK_IDS), vp(0)),
                field("activeTasksPendingRevocation", Type::StructArray(&STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE__TASK_IDS), vp(0)),
                field("standbyTasksPendingRevocation", Type::StructArray(&STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE__TASK_IDS), vp(0)),
                field("warmupTasksPendingRevocation", Type::StructArray(&STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE__TASK_IDS), vp(0)),
            ],
        },
    };

    /// `StreamsGroupTopologyKey` (trunk).
    pub static STREAMS_GROUP_TOPOLOGY_KEY: Message = Message {
        name: "StreamsGroupTopologyKey",
        api_key: 23,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "StreamsGroupTopologyKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `StreamsGroupTopologyValue` (trunk).
    pub static STREAMS_GROUP_TOPOLOGY_VALUE: Message = Message {
        name: "StreamsGroupTopologyValue",
        api_key: 23,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "StreamsGroupTopologyValue",
            versions: vr(0, 0),
            fields: &[
                field("epoch", Type::Prim(Prim::Int32), vp(0)),
                field("subtopologies", Type::StructArray(&STREAMS_GROUP_TOPOLOGY_VALUE__SUBTOPOLOGY), vp(0)),
            ],
        },
    };

    /// `ShareGroupPartitionMetadataKey` (Kafka 4.0 only, commit 82ea9d0f).
    pub static SHARE_GROUP_PARTITION_METADATA_KEY: Message = Message {
        name: "ShareGroupPartitionMetadataKey",
        api_key: 9,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ShareGroupPartitionMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ShareGroupPartitionMetadataValue` (Kafka 4.0 only, commit 82ea9d0f).
    pub static SHARE_GROUP_PARTITION_METADATA_VALUE: Message = Message {
        name: "ShareGroupPartitionMetadataValue",
        api_key: 9,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ShareGroupPartitionMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("topics", Type::StructArray(&SHARE_GROUP_PARTITION_METADATA_VALUE__TOPIC_METADATA), vp(0)),
            ],
        },
    };

    /// `StreamsGroupPartitionMetadataKey` (pre-release trunk only, commit df93571f).
    pub static STREAMS_GROUP_PARTITION_METADATA_KEY: Message = Message {
        name: "StreamsGroupPartitionMetadataKey",
        api_key: 18,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "StreamsGroupPartitionMetadataKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `StreamsGroupPartitionMetadataValue` (pre-release trunk only, commit df93571f).
    pub static STREAMS_GROUP_PARTITION_METADATA_VALUE: Message = Message {
        name: "StreamsGroupPartitionMetadataValue",
        api_key: 18,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "StreamsGroupPartitionMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("topics", Type::StructArray(&STREAMS_GROUP_PARTITION_METADATA_VALUE__TOPIC_METADATA), vp(0)),
            ],
        },
    };

    /// `ShareGroupMetadataValue` (Kafka 4.0 layout, branch 4.0 at c6f1e72e).
    pub static SHARE_GROUP_METADATA_VALUE_4_0: Message = Message {
        name: "ShareGroupMetadataValue",
        api_key: 11,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ShareGroupMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("epoch", Type::Prim(Prim::Int32), vp(0)),
            ],
        },
    };

    /// `ShareGroupStatePartitionMetadataValue` (Kafka 4.0 layout, branch 4.0 at c6f1e72e).
    pub static SHARE_GROUP_STATE_PARTITION_METADATA_VALUE_4_0: Message = Message {
        name: "ShareGroupStatePartitionMetadataValue",
        api_key: 15,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ShareGroupStatePartitionMetadataValue",
            versions: vr(0, 0),
            fields: &[
                field("initializedTopics", Type::StructArray(&SHARE_GROUP_STATE_PARTITION_METADATA_VALUE_4_0__TOPIC_PARTITIONS_INFO), vp(0)),
                field("deletingTopics", Type::StructArray(&SHARE_GROUP_STATE_PARTITION_METADATA_VALUE_4_0__TOPIC_INFO), vp(0)),
            ],
        },
    };

    /// `ShareSnapshotValue` (Kafka 4.0 layout, branch 4.0 at c6f1e72e).
    pub static SHARE_SNAPSHOT_VALUE_4_0: Message = Message {
        name: "ShareSnapshotValue",
        api_key: 0,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ShareSnapshotValue",
            versions: vr(0, 0),
            fields: &[
                field("snapshotEpoch", Type::Prim(Prim::Uint16), vr(0, 0)),
                field("stateEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("leaderEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("startOffset", Type::Prim(Prim::Int64), vr(0, 0)),
                field("stateBatches", Type::StructArray(&SHARE_SNAPSHOT_VALUE_4_0__STATE_BATCH), vr(0, 0)),
            ],
        },
    };

    /// `ShareUpdateValue` (Kafka 4.0 layout, branch 4.0 at c6f1e72e).
    pub static SHARE_UPDATE_VALUE_4_0: Message = Message {
        name: "ShareUpdateValue",
        api_key: 1,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ShareUpdateValue",
            versions: vr(0, 0),
            fields: &[
                field("snapshotEpoch", Type::Prim(Prim::Uint16), vr(0, 0)),
                field("leaderEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("startOffset", Type::Prim(Prim::Int64), vr(0, 0)),
                field("stateBatches", Type::StructArray(&SHARE_UPDATE_VALUE_4_0__STATE_BATCH), vr(0, 0)),
            ],
        },
    };

    /// `TransactionLogKey` (trunk).
    pub static TRANSACTION_LOG_KEY: Message = Message {
        name: "TransactionLogKey",
        api_key: 0,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "TransactionLogKey",
            versions: vr(0, 0),
            fields: &[
                field("transactionalId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `TransactionLogValue` (trunk).
    pub static TRANSACTION_LOG_VALUE: Message = Message {
        name: "TransactionLogValue",
        api_key: 0,
        valid: vr(0, 1),
        flexible: vp(1),
        root: Struct {
            name: "TransactionLogValue",
            versions: vr(0, 1),
            fields: &[
                field("producerId", Type::Prim(Prim::Int64), vp(0)),
                field("previousProducerId", Type::Prim(Prim::Int64), vp(1)).tagged(vp(1), 0).with_default(FieldDefault::Int(-1)),
                field("nextProducerId", Type::Prim(Prim::Int64), vp(1)).tagged(vp(1), 1).with_default(FieldDefault::Int(-1)),
                field("producerEpoch", Type::Prim(Prim::Int16), vp(0)),
                field("nextProducerEpoch", Type::Prim(Prim::Int16), vp(1)).tagged(vp(1), 3).with_default(FieldDefault::Int(-1)),
                field("transactionTimeoutMs", Type::Prim(Prim::Int32), vp(0)),
                field("transactionStatus", Type::Prim(Prim::Int8), vp(0)),
                field("transactionPartitions", Type::StructArray(&TRANSACTION_LOG_VALUE__PARTITIONS_SCHEMA), vp(0)).nullable(vp(0)),
                field("transactionLastUpdateTimestampMs", Type::Prim(Prim::Int64), vp(0)),
                field("transactionStartTimestampMs", Type::Prim(Prim::Int64), vp(0)),
                field("clientTransactionVersion", Type::Prim(Prim::Int16), vp(1)).tagged(vp(1), 2).with_default(FieldDefault::Int(0)),
            ],
        },
    };

    /// `ShareSnapshotKey` (trunk).
    pub static SHARE_SNAPSHOT_KEY: Message = Message {
        name: "ShareSnapshotKey",
        api_key: 0,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ShareSnapshotKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
                field("topicId", Type::Prim(Prim::Uuid), vp(0)),
                field("partition", Type::Prim(Prim::Int32), vp(0)),
            ],
        },
    };

    /// `ShareSnapshotValue` (trunk).
    pub static SHARE_SNAPSHOT_VALUE: Message = Message {
        name: "ShareSnapshotValue",
        api_key: 0,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ShareSnapshotValue",
            versions: vr(0, 0),
            fields: &[
                field("snapshotEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("stateEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("leaderEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("startOffset", Type::Prim(Prim::Int64), vp(0)),
                field("deliveryCompleteCount", Type::Prim(Prim::Int32), vp(0)).tagged(vp(0), 0).with_default(FieldDefault::Int(-1)),
                field("createTimestamp", Type::Prim(Prim::Int64), vp(0)),
                field("writeTimestamp", Type::Prim(Prim::Int64), vp(0)),
                field("stateBatches", Type::StructArray(&SHARE_SNAPSHOT_VALUE__STATE_BATCH), vp(0)),
            ],
        },
    };

    /// `ShareUpdateKey` (trunk).
    pub static SHARE_UPDATE_KEY: Message = Message {
        name: "ShareUpdateKey",
        api_key: 1,
        valid: vr(0, 0),
        flexible: VNONE,
        root: Struct {
            name: "ShareUpdateKey",
            versions: vr(0, 0),
            fields: &[
                field("groupId", Type::Prim(Prim::String), vp(0)),
                field("topicId", Type::Prim(Prim::Uuid), vp(0)),
                field("partition", Type::Prim(Prim::Int32), vp(0)),
            ],
        },
    };

    /// `ShareUpdateValue` (trunk).
    pub static SHARE_UPDATE_VALUE: Message = Message {
        name: "ShareUpdateValue",
        api_key: 1,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ShareUpdateValue",
            versions: vr(0, 0),
            fields: &[
                field("snapshotEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("leaderEpoch", Type::Prim(Prim::Int32), vp(0)),
                field("startOffset", Type::Prim(Prim::Int64), vp(0)),
                field("deliveryCompleteCount", Type::Prim(Prim::Int32), vp(0)).tagged(vp(0), 0).with_default(FieldDefault::Int(-1)),
                field("stateBatches", Type::StructArray(&SHARE_UPDATE_VALUE__STATE_BATCH), vp(0)),
            ],
        },
    };

    /// `AbortTransactionRecord` (trunk).
    pub static ABORT_TRANSACTION_RECORD: Message = Message {
        name: "AbortTransactionRecord",
        api_key: 25,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "AbortTransactionRecord",
            versions: vr(0, 0),
            fields: &[
                field("reason", Type::Prim(Prim::String), vp(0)).nullable(vp(0)).tagged(vp(0), 0).with_default(FieldDefault::Null),
            ],
        },
    };

    /// `AccessControlEntryRecord` (trunk).
    pub static ACCESS_CONTROL_ENTRY_RECORD: Message = Message {
        name: "AccessControlEntryRecord",
        api_key: 18,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "AccessControlEntryRecord",
            versions: vr(0, 0),
            fields: &[
                field("id", Type::Prim(Prim::Uuid), vp(0)),
                field("resourceType", Type::Prim(Prim::Int8), vp(0)),
                field("resourceName", Type::Prim(Prim::String), vp(0)),
                field("patternType", Type::Prim(Prim::Int8), vp(0)),
                field("principal", Type::Prim(Prim::String), vp(0)),
                field("host", Type::Prim(Prim::String), vp(0)),
                field("operation", Type::Prim(Prim::Int8), vp(0)),
                field("permissionType", Type::Prim(Prim::Int8), vp(0)),
            ],
        },
    };

    /// `BeginTransactionRecord` (trunk).
    pub static BEGIN_TRANSACTION_RECORD: Message = Message {
        name: "BeginTransactionRecord",
        api_key: 23,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "BeginTransactionRecord",
            versions: vr(0, 0),
            fields: &[
                field("name", Type::Prim(Prim::String), vp(0)).nullable(vp(0)).tagged(vp(0), 0).with_default(FieldDefault::Null),
            ],
        },
    };

    /// `BrokerRegistrationChangeRecord` (trunk).
    pub static BROKER_REGISTRATION_CHANGE_RECORD: Message = Message {
        name: "BrokerRegistrationChangeRecord",
        api_key: 17,
        valid: vr(0, 3),
        flexible: vp(0),
        root: Struct {
            name: "BrokerRegistrationChangeRecord",
            versions: vr(0, 3),
            fields: &[
                field("brokerId", Type::Prim(Prim::Int32), vp(0)),
                field("brokerEpoch", Type::Prim(Prim::Int64), vp(0)),
                field("fenced", Type::Prim(Prim::Int8), vp(0)).tagged(vp(0), 0),
                field("inControlledShutdown", Type::Prim(Prim::Int8), vp(1)).tagged(vp(1), 1),
                field("logDirs", Type::Array(Prim::Uuid), vp(2)).tagged(vp(2), 2),
                field("cordonedLogDirs", Type::Array(Prim::Uuid), vp(3)).nullable(vp(3)).tagged(vp(3), 3).with_default(FieldDefault::Null),
            ],
        },
    };

    /// `ClearElrRecord` (trunk).
    pub static CLEAR_ELR_RECORD: Message = Message {
        name: "ClearElrRecord",
        api_key: 28,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ClearElrRecord",
            versions: vr(0, 0),
            fields: &[
                field("topicName", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `ClientQuotaRecord` (trunk).
    pub static CLIENT_QUOTA_RECORD: Message = Message {
        name: "ClientQuotaRecord",
        api_key: 14,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ClientQuotaRecord",
            versions: vr(0, 0),
            fields: &[
                field("entity", Type::StructArray(&CLIENT_QUOTA_RECORD__ENTITY_DATA), vp(0)),
                field("key", Type::Prim(Prim::String), vp(0)),
                field("value", Type::Prim(Prim::Float64), vp(0)),
                field("remove", Type::Prim(Prim::Bool), vp(0)),
            ],
        },
    };

    /// `ConfigRecord` (trunk).
    pub static CONFIG_RECORD: Message = Message {
        name: "ConfigRecord",
        api_key: 4,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ConfigRecord",
            versions: vr(0, 0),
            fields: &[
                field("resourceType", Type::Prim(Prim::Int8), vp(0)),
                field("resourceName", Type::Prim(Prim::String), vp(0)),
                field("name", Type::Prim(Prim::String), vp(0)),
                field("value", Type::Prim(Prim::String), vp(0)).nullable(vp(0)),
            ],
        },
    };

    /// `DelegationTokenRecord` (trunk).
    pub static DELEGATION_TOKEN_RECORD: Message = Message {
        name: "DelegationTokenRecord",
        api_key: 10,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "DelegationTokenRecord",
            versions: vr(0, 0),
            fields: &[
                field("owner", Type::Prim(Prim::String), vp(0)),
                field("requester", Type::Prim(Prim::String), vp(0)),
                field("renewers", Type::Array(Prim::String), vp(0)),
                field("issueTimestamp", Type::Prim(Prim::Int64), vp(0)),
                field("maxTimestamp", Type::Prim(Prim::Int64), vp(0)),
                field("expirationTimestamp", Type::Prim(Prim::Int64), vp(0)),
                field("tokenId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `EndTransactionRecord` (trunk).
    pub static END_TRANSACTION_RECORD: Message = Message {
        name: "EndTransactionRecord",
        api_key: 24,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "EndTransactionRecord",
            versions: vr(0, 0),
            fields: &[
            ],
        },
    };

    /// `FeatureLevelRecord` (trunk).
    pub static FEATURE_LEVEL_RECORD: Message = Message {
        name: "FeatureLevelRecord",
        api_key: 12,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "FeatureLevelRecord",
            versions: vr(0, 0),
            fields: &[
                field("name", Type::Prim(Prim::String), vp(0)),
                field("featureLevel", Type::Prim(Prim::Int16), vp(0)),
            ],
        },
    };

    /// `FenceBrokerRecord` (trunk).
    pub static FENCE_BROKER_RECORD: Message = Message {
        name: "FenceBrokerRecord",
        api_key: 7,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "FenceBrokerRecord",
            versions: vr(0, 0),
            fields: &[
                field("id", Type::Prim(Prim::Int32), vp(0)),
                field("epoch", Type::Prim(Prim::Int64), vp(0)),
            ],
        },
    };

    /// `NoOpRecord` (trunk).
    pub static NO_OP_RECORD: Message = Message {
        name: "NoOpRecord",
        api_key: 20,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "NoOpRecord",
            versions: vr(0, 0),
            fields: &[
            ],
        },
    };

    /// `PartitionChangeRecord` (trunk).
    pub static PARTITION_CHANGE_RECORD: Message = Message {
        name: "PartitionChangeRecord",
        api_key: 5,
        valid: vr(0, 2),
        flexible: vp(0),
        root: Struct {
            name: "PartitionChangeRecord",
            versions: vr(0, 2),
            fields: &[
                field("partitionId", Type::Prim(Prim::Int32), vp(0)).with_default(FieldDefault::Int(-1)),
                field("topicId", Type::Prim(Prim::Uuid), vp(0)),
                field("isr", Type::Array(Prim::Int32), vp(0)).nullable(vp(0)).tagged(vp(0), 0).with_default(FieldDefault::Null),
                field("leader", Type::Prim(Prim::Int32), vp(0)).tagged(vp(0), 1).with_default(FieldDefault::Int(-2)),
                field("replicas", Type::Array(Prim::Int32), vp(0)).nullable(vp(0)).tagged(vp(0), 2).with_default(FieldDefault::Null),
                field("removingReplicas", Type::Array(Prim::Int32), vp(0)).nullable(vp(0)).tagged(vp(0), 3).with_default(FieldDefault::Null),
                field("addingReplicas", Type::Array(Prim::Int32), vp(0)).nullable(vp(0)).tagged(vp(0), 4).with_default(FieldDefault::Null),
                field("leaderRecoveryState", Type::Prim(Prim::Int8), vp(0)).tagged(vp(0), 5).with_default(FieldDefault::Int(-1)),
                field("directories", Type::Array(Prim::Uuid), vp(1)).nullable(vp(1)).tagged(vp(1), 8).with_default(FieldDefault::Null),
                field("eligibleLeaderReplicas", Type::Array(Prim::Int32), vp(2)).nullable(vp(2)).tagged(vp(2), 6).with_default(FieldDefault::Null),
                field("lastKnownElr", Type::Array(Prim::Int32), vp(2)).nullable(vp(2)).tagged(vp(2), 7).with_default(FieldDefault::Null),
            ],
        },
    };

    /// `PartitionRecord` (trunk).
    pub static PARTITION_RECORD: Message = Message {
        name: "PartitionRecord",
        api_key: 3,
        valid: vr(0, 2),
        flexible: vp(0),
        root: Struct {
            name: "PartitionRecord",
            versions: vr(0, 2),
            fields: &[
                field("partitionId", Type::Prim(Prim::Int32), vp(0)).with_default(FieldDefault::Int(-1)),
                field("topicId", Type::Prim(Prim::Uuid), vp(0)),
                field("replicas", Type::Array(Prim::Int32), vp(0)),
                field("isr", Type::Array(Prim::Int32), vp(0)),
                field("removingReplicas", Type::Array(Prim::Int32), vp(0)),
                field("addingReplicas", Type::Array(Prim::Int32), vp(0)),
                field("leader", Type::Prim(Prim::Int32), vp(0)).with_default(FieldDefault::Int(-1)),
                field("leaderRecoveryState", Type::Prim(Prim::Int8), vp(0)).tagged(vp(0), 0).with_default(FieldDefault::Int(0)),
                field("leaderEpoch", Type::Prim(Prim::Int32), vp(0)).with_default(FieldDefault::Int(-1)),
                field("partitionEpoch", Type::Prim(Prim::Int32), vp(0)).with_default(FieldDefault::Int(-1)),
                field("directories", Type::Array(Prim::Uuid), vp(1)),
                field("eligibleLeaderReplicas", Type::Array(Prim::Int32), vp(2)).nullable(vp(2)).tagged(vp(2), 1).with_default(FieldDefault::Null),
                field("lastKnownElr", Type::Array(Prim::Int32), vp(2)).nullable(vp(2)).tagged(vp(2), 2).with_default(FieldDefault::Null),
            ],
        },
    };

    /// `ProducerIdsRecord` (trunk).
    pub static PRODUCER_IDS_RECORD: Message = Message {
        name: "ProducerIdsRecord",
        api_key: 15,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ProducerIdsRecord",
            versions: vr(0, 0),
            fields: &[
                field("brokerId", Type::Prim(Prim::Int32), vp(0)),
                field("brokerEpoch", Type::Prim(Prim::Int64), vp(0)).with_default(FieldDefault::Int(-1)),
                field("nextProducerId", Type::Prim(Prim::Int64), vp(0)),
            ],
        },
    };

    /// `RegisterBrokerRecord` (trunk).
    pub static REGISTER_BROKER_RECORD: Message = Message {
        name: "RegisterBrokerRecord",
        api_key: 0,
        valid: vr(0, 4),
        flexible: vp(0),
        root: Struct {
            name: "RegisterBrokerRecord",
            versions: vr(0, 4),
            fields: &[
                field("brokerId", Type::Prim(Prim::Int32), vp(0)),
                field("isMigratingZkBroker", Type::Prim(Prim::Bool), vp(2)).with_default(FieldDefault::Bool(false)),
                field("incarnationId", Type::Prim(Prim::Uuid), vp(0)),
                field("brokerEpoch", Type::Prim(Prim::Int64), vp(0)),
                field("endPoints", Type::StructArray(&REGISTER_BROKER_RECORD__BROKER_ENDPOINT), vp(0)),
                field("features", Type::StructArray(&REGISTER_BROKER_RECORD__BROKER_FEATURE), vp(0)),
                field("rack", Type::Prim(Prim::String), vp(0)).nullable(vp(0)),
                field("fenced", Type::Prim(Prim::Bool), vp(0)).with_default(FieldDefault::Bool(true)),
                field("inControlledShutdown", Type::Prim(Prim::Bool), vp(1)).with_default(FieldDefault::Bool(false)),
                field("logDirs", Type::Array(Prim::Uuid), vp(3)).tagged(vp(3), 0),
                field("cordonedLogDirs", Type::Array(Prim::Uuid), vp(4)).nullable(vp(4)).tagged(vp(4), 1).with_default(FieldDefault::Null),
            ],
        },
    };

    /// `RegisterControllerRecord` (trunk).
    pub static REGISTER_CONTROLLER_RECORD: Message = Message {
        name: "RegisterControllerRecord",
        api_key: 27,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "RegisterControllerRecord",
            versions: vr(0, 0),
            fields: &[
                field("controllerId", Type::Prim(Prim::Int32), vp(0)),
                field("incarnationId", Type::Prim(Prim::Uuid), vp(0)),
                field("zkMigrationReady", Type::Prim(Prim::Bool), vp(0)),
                field("endPoints", Type::StructArray(&REGISTER_CONTROLLER_RECORD__CONTROLLER_ENDPOINT), vp(0)),
                field("features", Type::StructArray(&REGISTER_CONTROLLER_RECORD__CONTROLLER_FEATURE), vp(0)),
            ],
        },
    };

    /// `RemoveAccessControlEntryRecord` (trunk).
    pub static REMOVE_ACCESS_CONTROL_ENTRY_RECORD: Message = Message {
        name: "RemoveAccessControlEntryRecord",
        api_key: 19,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "RemoveAccessControlEntryRecord",
            versions: vr(0, 0),
            fields: &[
                field("id", Type::Prim(Prim::Uuid), vp(0)),
            ],
        },
    };

    /// `RemoveDelegationTokenRecord` (trunk).
    pub static REMOVE_DELEGATION_TOKEN_RECORD: Message = Message {
        name: "RemoveDelegationTokenRecord",
        api_key: 26,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "RemoveDelegationTokenRecord",
            versions: vr(0, 0),
            fields: &[
                field("tokenId", Type::Prim(Prim::String), vp(0)),
            ],
        },
    };

    /// `RemoveTopicRecord` (trunk).
    pub static REMOVE_TOPIC_RECORD: Message = Message {
        name: "RemoveTopicRecord",
        api_key: 9,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "RemoveTopicRecord",
            versions: vr(0, 0),
            fields: &[
                field("topicId", Type::Prim(Prim::Uuid), vp(0)),
            ],
        },
    };

    /// `RemoveUserScramCredentialRecord` (trunk).
    pub static REMOVE_USER_SCRAM_CREDENTIAL_RECORD: Message = Message {
        name: "RemoveUserScramCredentialRecord",
        api_key: 22,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "RemoveUserScramCredentialRecord",
            versions: vr(0, 0),
            fields: &[
                field("name", Type::Prim(Prim::String), vp(0)),
                field("mechanism", Type::Prim(Prim::Int8), vp(0)),
            ],
        },
    };

    /// `TopicRecord` (trunk).
    pub static TOPIC_RECORD: Message = Message {
        name: "TopicRecord",
        api_key: 2,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "TopicRecord",
            versions: vr(0, 0),
            fields: &[
                field("name", Type::Prim(Prim::String), vp(0)),
                field("topicId", Type::Prim(Prim::Uuid), vp(0)),
            ],
        },
    };

    /// `UnfenceBrokerRecord` (trunk).
    pub static UNFENCE_BROKER_RECORD: Message = Message {
        name: "UnfenceBrokerRecord",
        api_key: 8,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "UnfenceBrokerRecord",
            versions: vr(0, 0),
            fields: &[
                field("id", Type::Prim(Prim::Int32), vp(0)),
                field("epoch", Type::Prim(Prim::Int64), vp(0)),
            ],
        },
    };

    /// `UnregisterBrokerRecord` (trunk).
    pub static UNREGISTER_BROKER_RECORD: Message = Message {
        name: "UnregisterBrokerRecord",
        api_key: 1,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "UnregisterBrokerRecord",
            versions: vr(0, 0),
            fields: &[
                field("brokerId", Type::Prim(Prim::Int32), vp(0)),
                field("brokerEpoch", Type::Prim(Prim::Int64), vp(0)),
            ],
        },
    };

    /// `UnregisterControllerRecord` (trunk).
    pub static UNREGISTER_CONTROLLER_RECORD: Message = Message {
        name: "UnregisterControllerRecord",
        api_key: 29,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "UnregisterControllerRecord",
            versions: vr(0, 0),
            fields: &[
                field("controllerId", Type::Prim(Prim::Int32), vp(0)),
            ],
        },
    };

    /// `UserScramCredentialRecord` (trunk).
    pub static USER_SCRAM_CREDENTIAL_RECORD: Message = Message {
        name: "UserScramCredentialRecord",
        api_key: 11,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "UserScramCredentialRecord",
            versions: vr(0, 0),
            fields: &[
                field("name", Type::Prim(Prim::String), vp(0)),
                field("mechanism", Type::Prim(Prim::Int8), vp(0)),
                field("salt", Type::Prim(Prim::Bytes), vp(0)),
                field("storedKey", Type::Prim(Prim::Bytes), vp(0)),
                field("serverKey", Type::Prim(Prim::Bytes), vp(0)),
                field("iterations", Type::Prim(Prim::Int32), vp(0)),
            ],
        },
    };

    /// `ZkMigrationStateRecord` (trunk).
    pub static ZK_MIGRATION_STATE_RECORD: Message = Message {
        name: "ZkMigrationStateRecord",
        api_key: 21,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "ZkMigrationStateRecord",
            versions: vr(0, 0),
            fields: &[
                field("zkMigrationState", Type::Prim(Prim::Int8), vp(0)),
            ],
        },
    };

    /// `RemoteLogSegmentMetadataRecord` (trunk).
    pub static REMOTE_LOG_SEGMENT_METADATA_RECORD: Message = Message {
        name: "RemoteLogSegmentMetadataRecord",
        api_key: 0,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "RemoteLogSegmentMetadataRecord",
            versions: vr(0, 0),
            fields: &[
                field("remoteLogSegmentId", Type::Struct(&REMOTE_LOG_SEGMENT_METADATA_RECORD__REMOTE_LOG_SEGMENT_ID_ENTRY), vp(0)),
                field("startOffset", Type::Prim(Prim::Int64), vp(0)),
                field("endOffset", Type::Prim(Prim::Int64), vp(0)),
                field("brokerId", Type::Prim(Prim::Int32), vp(0)),
                field("maxTimestampMs", Type::Prim(Prim::Int64), vp(0)),
                field("eventTimestampMs", Type::Prim(Prim::Int64), vp(0)),
                field("segmentLeaderEpochs", Type::StructArray(&REMOTE_LOG_SEGMENT_METADATA_RECORD__SEGMENT_LEADER_EPOCH_ENTRY), vp(0)),
                field("segmentSizeInBytes", Type::Prim(Prim::Int32), vp(0)),
                field("customMetadata", Type::Prim(Prim::Bytes), vp(0)).nullable(vp(0)).with_default(FieldDefault::Null),
                field("remoteLogSegmentState", Type::Prim(Prim::Int8), vp(0)),
                field("txnIndexEmpty", Type::Prim(Prim::Bool), vp(0)).tagged(vp(0), 0),
            ],
        },
    };

    /// `RemoteLogSegmentMetadataSnapshotRecord` (trunk).
    pub static REMOTE_LOG_SEGMENT_METADATA_SNAPSHOT_RECORD: Message = Message {
        name: "RemoteLogSegmentMetadataSnapshotRecord",
        api_key: 3,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "RemoteLogSegmentMetadataSnapshotRecord",
            versions: vr(0, 0),
            fields: &[
                field("segmentId", Type::Prim(Prim::Uuid), vp(0)),
                field("startOffset", Type::Prim(Prim::Int64), vp(0)),
                field("endOffset", Type::Prim(Prim::Int64), vp(0)),
                field("brokerId", Type::Prim(Prim::Int32), vp(0)),
                field("maxTimestampMs", Type::Prim(Prim::Int64), vp(0)),
                field("eventTimestampMs", Type::Prim(Prim::Int64), vp(0)),
                field("segmentLeaderEpochs", Type::StructArray(&REMOTE_LOG_SEGMENT_METADATA_SNAPSHOT_RECORD__SEGMENT_LEADER_EPOCH_ENTRY), vp(0)),
                field("segmentSizeInBytes", Type::Prim(Prim::Int32), vp(0)),
                field("customMetadata", Type::Prim(Prim::Bytes), vp(0)).nullable(vp(0)).with_default(FieldDefault::Null),
                field("remoteLogSegmentState", Type::Prim(Prim::Int8), vp(0)),
                field("txnIndexEmpty", Type::Prim(Prim::Bool), vp(0)).tagged(vp(0), 0),
            ],
        },
    };

    /// `RemoteLogSegmentMetadataUpdateRecord` (trunk).
    pub static REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD: Message = Message {
        name: "RemoteLogSegmentMetadataUpdateRecord",
        api_key: 1,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "RemoteLogSegmentMetadataUpdateRecord",
            versions: vr(0, 0),
            fields: &[
                field("remoteLogSegmentId", Type::Struct(&REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD__REMOTE_LOG_SEGMENT_ID_ENTRY), vp(0)),
                field("brokerId", Type::Prim(Prim::Int32), vp(0)),
                field("eventTimestampMs", Type::Prim(Prim::Int64), vp(0)),
                field("customMetadata", Type::Prim(Prim::Bytes), vp(0)).nullable(vp(0)).with_default(FieldDefault::Null),
                field("remoteLogSegmentState", Type::Prim(Prim::Int8), vp(0)),
            ],
        },
    };

    /// `RemotePartitionDeleteMetadataRecord` (trunk).
    pub static REMOTE_PARTITION_DELETE_METADATA_RECORD: Message = Message {
        name: "RemotePartitionDeleteMetadataRecord",
        api_key: 2,
        valid: vr(0, 0),
        flexible: vp(0),
        root: Struct {
            name: "RemotePartitionDeleteMetadataRecord",
            versions: vr(0, 0),
            fields: &[
                field("topicIdPartition", Type::Struct(&REMOTE_PARTITION_DELETE_METADATA_RECORD__TOPIC_ID_PARTITION_ENTRY), vp(0)),
                field("brokerId", Type::Prim(Prim::Int32), vp(0)),
                field("eventTimestampMs", Type::Prim(Prim::Int64), vp(0)),
                field("remotePartitionDeleteState", Type::Prim(Prim::Int8), vp(0)),
            ],
        },
    };

    /// `ConsumerProtocolSubscription` (trunk).
    pub static CONSUMER_PROTOCOL_SUBSCRIPTION: Message = Message {
        name: "ConsumerProtocolSubscription",
        api_key: -1,
        valid: vr(0, 3),
        flexible: VNONE,
        root: Struct {
            name: "ConsumerProtocolSubscription",
            versions: vr(0, 3),
            fields: &[
                field("topics", Type::Array(Prim::String), vp(0)),
                field("userData", Type::Prim(Prim::Bytes), vp(0)).nullable(vp(0)).with_default(FieldDefault::Null),
                field("ownedPartitions", Type::StructArray(&CONSUMER_PROTOCOL_SUBSCRIPTION__TOPIC_PARTITION), vp(1)),
                field("generationId", Type::Prim(Prim::Int32), vp(2)).with_default(FieldDefault::Int(-1)),
                field("rackId", Type::Prim(Prim::String), vp(3)).nullable(vp(3)).with_default(FieldDefault::Null),
            ],
        },
    };

    /// `ConsumerProtocolAssignment` (trunk).
    pub static CONSUMER_PROTOCOL_ASSIGNMENT: Message = Message {
        name: "ConsumerProtocolAssignment",
        api_key: -1,
        valid: vr(0, 3),
        flexible: VNONE,
        root: Struct {
            name: "ConsumerProtocolAssignment",
            versions: vr(0, 3),
            fields: &[
                field("assignedPartitions", Type::StructArray(&CONSUMER_PROTOCOL_ASSIGNMENT__TOPIC_PARTITION), vp(0)),
                field("userData", Type::Prim(Prim::Bytes), vp(0)).nullable(vp(0)).with_default(FieldDefault::Null),
            ],
        },
    };

    static GROUP_METADATA_VALUE__MEMBER_METADATA: Struct = Struct {
        name: "MemberMetadata",
        versions: vp(0),
        fields: &[
            field("memberId", Type::Prim(Prim::String), vp(0)),
            field("groupInstanceId", Type::Prim(Prim::String), vp(3)).nullable(vp(3)).with_default(FieldDefault::Null),
            field("clientId", Type::Prim(Prim::String), vp(0)),
            field("clientHost", Type::Prim(Prim::String), vp(0)),
            field("rebalanceTimeout", Type::Prim(Prim::Int32), vp(1)).with_default(FieldDefault::Int(-1)),
            field("sessionTimeout", Type::Prim(Prim::Int32), vp(0)),
            field("subscription", Type::Prim(Prim::Bytes), vp(0)),
            field("assignment", Type::Prim(Prim::Bytes), vp(0)),
        ],
    };

    static CONSUMER_GROUP_PARTITION_METADATA_VALUE__PARTITION_METADATA: Struct = Struct {
        name: "PartitionMetadata",
        versions: vp(0),
        fields: &[
            field("partition", Type::Prim(Prim::Int32), vp(0)),
            field("racks", Type::Array(Prim::String), vp(0)),
        ],
    };

    static CONSUMER_GROUP_PARTITION_METADATA_VALUE__TOPIC_METADATA: Struct = Struct {
        name: "TopicMetadata",
        versions: vp(0),
        fields: &[
            field("topicId", Type::Prim(Prim::Uuid), vp(0)),
            field("topicName", Type::Prim(Prim::String), vp(0)),
            field("numPartitions", Type::Prim(Prim::Int32), vp(0)),
            field("partitionMetadata", Type::StructArray(&CONSUMER_GROUP_PARTITION_METADATA_VALUE__PARTITION_METADATA), vp(0)),
        ],
    };

    static CONSUMER_GROUP_MEMBER_METADATA_VALUE__CLASSIC_PROTOCOL: Struct = Struct {
        name: "ClassicProtocol",
        versions: vp(0),
        fields: &[
            field("name", Type::Prim(Prim::String), vp(0)),
            field("metadata", Type::Prim(Prim::Bytes), vp(0)),
        ],
    };

    static CONSUMER_GROUP_MEMBER_METADATA_VALUE__CLASSIC_MEMBER_METADATA: Struct = Struct {
        name: "ClassicMemberMetadata",
        versions: vp(0),
        fields: &[
            field("sessionTimeoutMs", Type::Prim(Prim::Int32), vp(0)),
            field("supportedProtocols", Type::StructArray(&CONSUMER_GROUP_MEMBER_METADATA_VALUE__CLASSIC_PROTOCOL), vp(0)),
        ],
    };

    static CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE__TOPIC_PARTITION: Struct = Struct {
        name: "TopicPartition",
        versions: vp(0),
        fields: &[
            field("topicId", Type::Prim(Prim::Uuid), vp(0)),
            field("partitions", Type::Array(Prim::Int32), vp(0)),
        ],
    };

    static CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE__TOPIC_PARTITIONS: Struct = Struct {
        name: "TopicPartitions",
        versions: vp(0),
        fields: &[
            field("topicId", Type::Prim(Prim::Uuid), vp(0)),
            field("partitions", Type::Array(Prim::Int32), vp(0)),
            field("assignmentEpochs", Type::Array(Prim::Int32), vp(0)).nullable(vp(0)).tagged(vp(0), 0),
        ],
    };

    static SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE__TOPIC_PARTITION: Struct = Struct {
        name: "TopicPartition",
        versions: vp(0),
        fields: &[
            field("topicId", Type::Prim(Prim::Uuid), vp(0)),
            field("partitions", Type::Array(Prim::Int32), vp(0)),
        ],
    };

    static SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE__TOPIC_PARTITIONS: Struct = Struct {
        name: "TopicPartitions",
        versions: vp(0),
        fields: &[
            field("topicId", Type::Prim(Prim::Uuid), vp(0)),
            field("partitions", Type::Array(Prim::Int32), vp(0)),
        ],
    };

    static SHARE_GROUP_STATE_PARTITION_METADATA_VALUE__TOPIC_PARTITIONS_INFO: Struct = Struct {
        name: "TopicPartitionsInfo",
        versions: vp(0),
        fields: &[
            field("topicId", Type::Prim(Prim::Uuid), vp(0)),
            field("topicName", Type::Prim(Prim::String), vp(0)),
            field("partitions", Type::Array(Prim::Int32), vp(0)),
        ],
    };

    static SHARE_GROUP_STATE_PARTITION_METADATA_VALUE__TOPIC_INFO: Struct = Struct {
        name: "TopicInfo",
        versions: vp(0),
        fields: &[
            field("topicId", Type::Prim(Prim::Uuid), vp(0)),
            field("topicName", Type::Prim(Prim::String), vp(0)),
        ],
    };

    static STREAMS_GROUP_METADATA_VALUE__LAST_ASSIGNMENT_CONFIG: Struct = Struct {
        name: "LastAssignmentConfig",
        versions: vp(0),
        fields: &[
            field("key", Type::Prim(Prim::String), vp(0)),
            field("value", Type::Prim(Prim::String), vp(0)),
        ],
    };

    static STREAMS_GROUP_MEMBER_METADATA_VALUE__ENDPOINT: Struct = Struct {
        name: "Endpoint",
        versions: vp(0),
        fields: &[
            field("host", Type::Prim(Prim::String), vp(0)),
            field("port", Type::Prim(Prim::Uint16), vp(0)),
        ],
    };

    static STREAMS_GROUP_MEMBER_METADATA_VALUE__KEY_VALUE: Struct = Struct {
        name: "KeyValue",
        versions: vp(0),
        fields: &[
            field("key", Type::Prim(Prim::String), vp(0)),
            field("value", Type::Prim(Prim::String), vp(0)),
        ],
    };

    static STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE__TASK_IDS: Struct = Struct {
        name: "TaskIds",
        versions: vp(0),
        fields: &[
            field("subtopologyId", Type::Prim(Prim::String), vp(0)),
            field("partitions", Type::Array(Prim::Int32), vp(0)),
        ],
    };

    static STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE__TASK_IDS: Struct = Struct {
        name: "TaskIds",
        versions: vp(0),
        fields: &[
            field("subtopologyId", Type::Prim(Prim::String), vp(0)),
            field("partitions", Type::Array(Prim::Int32), vp(0)),
            field("assignmentEpochs", Type::Array(Prim::Int32), vp(0)).nullable(vp(0)).tagged(vp(0), 0),
        ],
    };

    static STREAMS_GROUP_TOPOLOGY_VALUE__TOPIC_CONFIG: Struct = Struct {
        name: "TopicConfig",
        versions: vp(0),
        fields: &[
            field("key", Type::Prim(Prim::String), vp(0)),
            field("value", Type::Prim(Prim::String), vp(0)),
        ],
    };

    static STREAMS_GROUP_TOPOLOGY_VALUE__TOPIC_INFO: Struct = Struct {
        name: "TopicInfo",
        versions: vp(0),
        fields: &[
            field("name", Type::Prim(Prim::String), vp(0)),
            field("partitions", Type::Prim(Prim::Int32), vp(0)),
            field("replicationFactor", Type::Prim(Prim::Int16), vp(0)),
            field("topicConfigs", Type::StructArray(&STREAMS_GROUP_TOPOLOGY_VALUE__TOPIC_CONFIG), vp(0)),
        ],
    };

    static STREAMS_GROUP_TOPOLOGY_VALUE__COPARTITION_GROUP: Struct = Struct {
        name: "CopartitionGroup",
        versions: vp(0),
        fields: &[
            field("sourceTopics", Type::Array(Prim::Int16), vp(0)),
            field("sourceTopicRegex", Type::Array(Prim::Int16), vp(0)),
            field("repartitionSourceTopics", Type::Array(Prim::Int16), vp(0)),
        ],
    };

    static STREAMS_GROUP_TOPOLOGY_VALUE__SUBTOPOLOGY: Struct = Struct {
        name: "Subtopology",
        versions: vp(0),
        fields: &[
            field("subtopologyId", Type::Prim(Prim::String), vp(0)),
            field("sourceTopics", Type::Array(Prim::String), vp(0)),
            field("sourceTopicRegex", Type::Array(Prim::String), vp(0)),
            field("stateChangelogTopics", Type::StructArray(&STREAMS_GROUP_TOPOLOGY_VALUE__TOPIC_INFO), vp(0)),
            field("repartitionSinkTopics", Type::Array(Prim::String), vp(0)),
            field("repartitionSourceTopics", Type::StructArray(&STREAMS_GROUP_TOPOLOGY_VALUE__TOPIC_INFO), vp(0)),
            field("copartitionGroups", Type::StructArray(&STREAMS_GROUP_TOPOLOGY_VALUE__COPARTITION_GROUP), vp(0)),
        ],
    };

    static SHARE_GROUP_PARTITION_METADATA_VALUE__PARTITION_METADATA: Struct = Struct {
        name: "PartitionMetadata",
        versions: vp(0),
        fields: &[
            field("partition", Type::Prim(Prim::Int32), vp(0)),
            field("racks", Type::Array(Prim::String), vp(0)),
        ],
    };

    static SHARE_GROUP_PARTITION_METADATA_VALUE__TOPIC_METADATA: Struct = Struct {
        name: "TopicMetadata",
        versions: vp(0),
        fields: &[
            field("topicId", Type::Prim(Prim::Uuid), vp(0)),
            field("topicName", Type::Prim(Prim::String), vp(0)),
            field("numPartitions", Type::Prim(Prim::Int32), vp(0)),
            field("partitionMetadata", Type::StructArray(&SHARE_GROUP_PARTITION_METADATA_VALUE__PARTITION_METADATA), vp(0)),
        ],
    };

    static STREAMS_GROUP_PARTITION_METADATA_VALUE__TOPIC_METADATA: Struct = Struct {
        name: "TopicMetadata",
        versions: vp(0),
        fields: &[
            field("topicId", Type::Prim(Prim::Uuid), vp(0)),
            field("topicName", Type::Prim(Prim::String), vp(0)),
            field("numPartitions", Type::Prim(Prim::Int32), vp(0)),
        ],
    };

    static SHARE_GROUP_STATE_PARTITION_METADATA_VALUE_4_0__TOPIC_PARTITIONS_INFO: Struct = Struct {
        name: "TopicPartitionsInfo",
        versions: vp(0),
        fields: &[
            field("topicId", Type::Prim(Prim::Uuid), vp(0)),
            field("topicName", Type::Prim(Prim::String), vp(0)),
            field("partitions", Type::Array(Prim::Int32), vp(0)),
        ],
    };

    static SHARE_GROUP_STATE_PARTITION_METADATA_VALUE_4_0__TOPIC_INFO: Struct = Struct {
        name: "TopicInfo",
        versions: vp(0),
        fields: &[
            field("topicId", Type::Prim(Prim::Uuid), vp(0)),
            field("topicName", Type::Prim(Prim::String), vp(0)),
        ],
    };

    static SHARE_SNAPSHOT_VALUE_4_0__STATE_BATCH: Struct = Struct {
        name: "StateBatch",
        versions: vr(0, 0),
        fields: &[
            field("firstOffset", Type::Prim(Prim::Int64), vr(0, 0)),
            field("lastOffset", Type::Prim(Prim::Int64), vr(0, 0)),
            field("deliveryState", Type::Prim(Prim::Int8), vr(0, 0)),
            field("deliveryCount", Type::Prim(Prim::Int16), vr(0, 0)),
        ],
    };

    static SHARE_UPDATE_VALUE_4_0__STATE_BATCH: Struct = Struct {
        name: "StateBatch",
        versions: vr(0, 0),
        fields: &[
            field("firstOffset", Type::Prim(Prim::Int64), vr(0, 0)),
            field("lastOffset", Type::Prim(Prim::Int64), vr(0, 0)),
            field("deliveryState", Type::Prim(Prim::Int8), vr(0, 0)),
            field("deliveryCount", Type::Prim(Prim::Int16), vr(0, 0)),
        ],
    };

    static TRANSACTION_LOG_VALUE__PARTITIONS_SCHEMA: Struct = Struct {
        name: "PartitionsSchema",
        versions: vp(0),
        fields: &[
            field("topic", Type::Prim(Prim::String), vp(0)),
            field("partitionIds", Type::Array(Prim::Int32), vp(0)),
        ],
    };

    static SHARE_SNAPSHOT_VALUE__STATE_BATCH: Struct = Struct {
        name: "StateBatch",
        versions: vp(0),
        fields: &[
            field("firstOffset", Type::Prim(Prim::Int64), vp(0)),
            field("lastOffset", Type::Prim(Prim::Int64), vp(0)),
            field("deliveryState", Type::Prim(Prim::Int8), vp(0)),
            field("deliveryCount", Type::Prim(Prim::Int16), vp(0)),
        ],
    };

    static SHARE_UPDATE_VALUE__STATE_BATCH: Struct = Struct {
        name: "StateBatch",
        versions: vp(0),
        fields: &[
            field("firstOffset", Type::Prim(Prim::Int64), vp(0)),
            field("lastOffset", Type::Prim(Prim::Int64), vp(0)),
            field("deliveryState", Type::Prim(Prim::Int8), vp(0)),
            field("deliveryCount", Type::Prim(Prim::Int16), vp(0)),
        ],
    };

    static CLIENT_QUOTA_RECORD__ENTITY_DATA: Struct = Struct {
        name: "EntityData",
        versions: vp(0),
        fields: &[
            field("entityType", Type::Prim(Prim::String), vp(0)),
            field("entityName", Type::Prim(Prim::String), vp(0)).nullable(vp(0)),
        ],
    };

    static REGISTER_BROKER_RECORD__BROKER_ENDPOINT: Struct = Struct {
        name: "BrokerEndpoint",
        versions: vp(0),
        fields: &[
            field("name", Type::Prim(Prim::String), vp(0)),
            field("host", Type::Prim(Prim::String), vp(0)),
            field("port", Type::Prim(Prim::Uint16), vp(0)),
            field("securityProtocol", Type::Prim(Prim::Int16), vp(0)),
        ],
    };

    static REGISTER_BROKER_RECORD__BROKER_FEATURE: Struct = Struct {
        name: "BrokerFeature",
        versions: vp(0),
        fields: &[
            field("name", Type::Prim(Prim::String), vp(0)),
            field("minSupportedVersion", Type::Prim(Prim::Int16), vp(0)),
            field("maxSupportedVersion", Type::Prim(Prim::Int16), vp(0)),
        ],
    };

    static REGISTER_CONTROLLER_RECORD__CONTROLLER_ENDPOINT: Struct = Struct {
        name: "ControllerEndpoint",
        versions: vp(0),
        fields: &[
            field("name", Type::Prim(Prim::String), vp(0)),
            field("host", Type::Prim(Prim::String), vp(0)),
            field("port", Type::Prim(Prim::Uint16), vp(0)),
            field("securityProtocol", Type::Prim(Prim::Int16), vp(0)),
        ],
    };

    static REGISTER_CONTROLLER_RECORD__CONTROLLER_FEATURE: Struct = Struct {
        name: "ControllerFeature",
        versions: vp(0),
        fields: &[
            field("name", Type::Prim(Prim::String), vp(0)),
            field("minSupportedVersion", Type::Prim(Prim::Int16), vp(0)),
            field("maxSupportedVersion", Type::Prim(Prim::Int16), vp(0)),
        ],
    };

    static REMOTE_LOG_SEGMENT_METADATA_RECORD__TOPIC_ID_PARTITION_ENTRY: Struct = Struct {
        name: "TopicIdPartitionEntry",
        versions: vp(0),
        fields: &[
            field("name", Type::Prim(Prim::String), vp(0)),
            field("id", Type::Prim(Prim::Uuid), vp(0)),
            field("partition", Type::Prim(Prim::Int32), vp(0)),
        ],
    };

    static REMOTE_LOG_SEGMENT_METADATA_RECORD__REMOTE_LOG_SEGMENT_ID_ENTRY: Struct = Struct {
        name: "RemoteLogSegmentIdEntry",
        versions: vp(0),
        fields: &[
            field("topicIdPartition", Type::Struct(&REMOTE_LOG_SEGMENT_METADATA_RECORD__TOPIC_ID_PARTITION_ENTRY), vp(0)),
            field("id", Type::Prim(Prim::Uuid), vp(0)),
        ],
    };

    static REMOTE_LOG_SEGMENT_METADATA_RECORD__SEGMENT_LEADER_EPOCH_ENTRY: Struct = Struct {
        name: "SegmentLeaderEpochEntry",
        versions: vp(0),
        fields: &[
            field("leaderEpoch", Type::Prim(Prim::Int32), vp(0)),
            field("offset", Type::Prim(Prim::Int64), vp(0)),
        ],
    };

    static REMOTE_LOG_SEGMENT_METADATA_SNAPSHOT_RECORD__SEGMENT_LEADER_EPOCH_ENTRY: Struct = Struct {
        name: "SegmentLeaderEpochEntry",
        versions: vp(0),
        fields: &[
            field("leaderEpoch", Type::Prim(Prim::Int32), vp(0)),
            field("offset", Type::Prim(Prim::Int64), vp(0)),
        ],
    };

    static REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD__TOPIC_ID_PARTITION_ENTRY: Struct = Struct {
        name: "TopicIdPartitionEntry",
        versions: vp(0),
        fields: &[
            field("name", Type::Prim(Prim::String), vp(0)),
            field("id", Type::Prim(Prim::Uuid), vp(0)),
            field("partition", Type::Prim(Prim::Int32), vp(0)),
        ],
    };

    static REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD__REMOTE_LOG_SEGMENT_ID_ENTRY: Struct = Struct {
        name: "RemoteLogSegmentIdEntry",
        versions: vp(0),
        fields: &[
            field("topicIdPartition", Type::Struct(&REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD__TOPIC_ID_PARTITION_ENTRY), vp(0)),
            field("id", Type::Prim(Prim::Uuid), vp(0)),
        ],
    };

    static REMOTE_PARTITION_DELETE_METADATA_RECORD__TOPIC_ID_PARTITION_ENTRY: Struct = Struct {
        name: "TopicIdPartitionEntry",
        versions: vp(0),
        fields: &[
            field("name", Type::Prim(Prim::String), vp(0)),
            field("id", Type::Prim(Prim::Uuid), vp(0)),
            field("partition", Type::Prim(Prim::Int32), vp(0)),
        ],
    };

    static CONSUMER_PROTOCOL_SUBSCRIPTION__TOPIC_PARTITION: Struct = Struct {
        name: "TopicPartition",
        versions: vp(1),
        fields: &[
            field("topic", Type::Prim(Prim::String), vp(1)),
            field("partitions", Type::Array(Prim::Int32), vp(1)),
        ],
    };

    static CONSUMER_PROTOCOL_ASSIGNMENT__TOPIC_PARTITION: Struct = Struct {
        name: "TopicPartition",
        versions: vp(0),
        fields: &[
            field("topic", Type::Prim(Prim::String), vp(0)),
            field("partitions", Type::Array(Prim::Int32), vp(0)),
        ],
    };
    // END GENERATED TABLES
}

#[cfg(test)]
mod tests {
    use super::tables::*;
    use super::*;
    use crate::format::schema::testing::{encode_message, sample_message, Rng};

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.replace(' ', "")).unwrap()
    }

    #[test]
    fn digest_vector_v6_offset_commit() {
        let k = decode_offsets_key(&hex("0001 0001 67 0001 74 00000000")).unwrap();
        assert_eq!(k.record_type, 1);
        assert_eq!(
            k.json.to_string(),
            r#"{"type":"1","data":{"group":"g","topic":"t","partition":0}}"#
        );
        let v3 = hex("0003 000000000000002a 00000000 0000 0000018bcfe56800");
        let v = decode_offsets_value(1, &v3).unwrap();
        assert_eq!(
            v.json.to_string(),
            r#"{"version":"3","data":{"offset":42,"leaderEpoch":0,"metadata":"","commitTimestamp":1700000000000}}"#
        );
        let v4 = hex("0004 000000000000002a 00000000 01 0000018bcfe56800 00");
        let v = decode_offsets_value(1, &v4).unwrap();
        assert_eq!(
            v.json.to_string(),
            r#"{"version":"4","data":{"offset":42,"leaderEpoch":0,"metadata":"","commitTimestamp":1700000000000}}"#
        );
        // v4 with a topic id (tag 0): shown; a zero topic id is the default and is not.
        let mut with_id = v4.clone();
        with_id.pop();
        with_id.extend_from_slice(&[1, 0, 16]);
        let id = crate::format::protocol::parse_uuid("Uj5wn_FqTXirEASvVZRY1w").unwrap();
        with_id.extend_from_slice(&id);
        let v = decode_offsets_value(1, &with_id).unwrap();
        assert_eq!(v.json["data"]["topicId"], "Uj5wn_FqTXirEASvVZRY1w");
        let typed = parse_offset_commit(&hex("0001 0001 67 0001 74 00000000"), &with_id).unwrap();
        assert_eq!(typed.offset, 42);
        assert_eq!(typed.leader_epoch, Some(0));
        assert_eq!(typed.topic_id, Some(id));
        let mut zero_id = v4.clone();
        zero_id.pop();
        zero_id.extend_from_slice(&[1, 0, 16]);
        zero_id.extend_from_slice(&[0; 16]);
        let v = decode_offsets_value(1, &zero_id).unwrap();
        assert!(v.json["data"].get("topicId").is_none());
    }

    #[test]
    fn digest_vector_v6c_keys() {
        let k = decode_offsets_key(&hex("0002 0005 67726f7570")).unwrap();
        assert_eq!(
            k.json.to_string(),
            r#"{"type":"2","data":{"group":"group"}}"#
        );
        assert_eq!(
            group_of_key(&hex("0002 0005 67726f7570")),
            Some((2, "group"))
        );
        let k = decode_transaction_key(&hex("0000 0005 74786e4964")).unwrap();
        assert_eq!(
            k.json.to_string(),
            r#"{"type":"0","data":{"transactionalId":"txnId"}}"#
        );
        assert_eq!(
            parse_transaction_key(&hex("0000 0005 74786e4964")).unwrap(),
            "txnId"
        );
    }

    #[test]
    fn offset_commit_v1_shows_expire_timestamp() {
        let v1 = hex("0001 0000000000000005 0002 6869 0000018bcfe56800 0000018bcfe56801");
        let v = decode_offsets_value(1, &v1).unwrap();
        assert_eq!(
            v.json.to_string(),
            r#"{"version":"1","data":{"offset":5,"metadata":"hi","commitTimestamp":1700000000000,"expireTimestamp":1700000000001}}"#
        );
        let key = hex("0001 0001 67 0001 74 00000003");
        let c = parse_offset_commit(&key, &v1).unwrap();
        assert_eq!(c.expire_timestamp, Some(1_700_000_000_001));
        assert_eq!(c.leader_epoch, None);
        assert_eq!(
            (c.group.as_str(), c.topic.as_str(), c.partition),
            ("g", "t", 3)
        );
    }

    #[test]
    fn transaction_example_of_dump_log_segments() {
        // TransactionLogValue v0: producerId 123, epoch 0, timeout 0, status 0 (Empty),
        // partitions [], timestamps 0.
        let v0 = hex(
            "0000 000000000000007b 0000 00000000 00 00000000 0000000000000000 0000000000000000",
        );
        let v = decode_transaction_value(0, &v0).unwrap();
        assert_eq!(
            v.json.to_string(),
            r#"{"version":"0","data":{"producerId":123,"producerEpoch":0,"transactionTimeoutMs":0,"transactionStatus":"Empty","transactionPartitions":[],"transactionLastUpdateTimestampMs":0,"transactionStartTimestampMs":0}}"#
        );
        let t = parse_transaction_value(&v0).unwrap();
        assert_eq!(t.status_name(), Some("Empty"));
        assert_eq!(t.partitions, Some(vec![]));
        // An unknown status id prints as a number string.
        let mut odd = v0.clone();
        odd[16] = 9;
        let v = decode_transaction_value(0, &odd).unwrap();
        assert_eq!(v.json["data"]["transactionStatus"], "9");
    }

    #[test]
    fn transaction_v1_of_dump_log_segments_test() {
        let expected = r#"{"version":"1","data":{"producerId":12,"previousProducerId":11,"nextProducerId":10,"producerEpoch":2,"transactionTimeoutMs":14,"transactionStatus":"Empty","transactionPartitions":[{"topic":"topic1","partitionIds":[0,1,2]},{"topic":"topic2","partitionIds":[3,4,5]}],"transactionLastUpdateTimestampMs":123,"transactionStartTimestampMs":13}}"#;
        let mut data: Value = serde_json::from_str(expected).unwrap();
        data["data"]["transactionStatus"] = 0.into();
        let mut bytes = 1i16.to_be_bytes().to_vec();
        bytes.extend(encode_message(&TRANSACTION_LOG_VALUE, 1, &data["data"]));
        let v = decode_transaction_value(0, &bytes).unwrap();
        assert_eq!(v.json.to_string(), expected);
        let t = parse_transaction_value(&bytes).unwrap();
        assert_eq!((t.previous_producer_id, t.next_producer_id), (11, 10));
        assert_eq!(t.next_producer_epoch, -1);
        assert_eq!(t.partitions.unwrap()[1].partitions, vec![3, 4, 5]);
    }

    fn value_bytes(msg: &Message, version: i16, data: &Value) -> Vec<u8> {
        let mut bytes = version.to_be_bytes().to_vec();
        bytes.extend(encode_message(msg, version, data));
        bytes
    }

    #[test]
    fn group_metadata_with_consumer_protocol() {
        // DumpLogSegmentsTest: GroupMetadataValue v4 whose member carries a v3 subscription and
        // a v3 assignment.
        let sub = json!({"topics":["foo"],"userData":null,"ownedPartitions":[{"topic":"foo","partitions":[0]}],"generationId":0,"rackId":"rack"});
        let asg = json!({"assignedPartitions":[{"topic":"foo","partitions":[0]}],"userData":null});
        let b64 = |b: Vec<u8>| base64::engine::general_purpose::STANDARD.encode(b);
        let sub_bytes = value_bytes(&CONSUMER_PROTOCOL_SUBSCRIPTION, 3, &sub);
        let asg_bytes = value_bytes(&CONSUMER_PROTOCOL_ASSIGNMENT, 3, &asg);
        let raw = json!({"protocolType":"consumer","generation":10,"protocol":"range","leader":"member","currentStateTimestamp":-1,"members":[{"memberId":"member","groupInstanceId":"instance","clientId":"client","clientHost":"host","rebalanceTimeout":1000,"sessionTimeout":100,"subscription":b64(sub_bytes.clone()),"assignment":b64(asg_bytes)}]});
        let bytes = value_bytes(&GROUP_METADATA_VALUE, 4, &raw);
        let v = decode_offsets_value(2, &bytes).unwrap();
        assert_eq!(
            v.json.to_string(),
            r#"{"version":"4","data":{"protocolType":"consumer","generation":10,"protocol":"range","leader":"member","currentStateTimestamp":-1,"members":[{"memberId":"member","groupInstanceId":"instance","clientId":"client","clientHost":"host","rebalanceTimeout":1000,"sessionTimeout":100,"subscription":{"topics":["foo"],"userData":null,"ownedPartitions":[{"topic":"foo","partitions":[0]}],"generationId":0,"rackId":"rack"},"assignment":{"assignedPartitions":[{"topic":"foo","partitions":[0]}],"userData":null}}]}}"#
        );
        let g = parse_group_metadata(&bytes).unwrap();
        assert_eq!(g.current_state_timestamp, None);
        let m = &g.members[0];
        let s = m.subscription.as_ref().unwrap();
        assert_eq!(
            (s.topics.clone(), s.generation_id, s.rack_id.as_deref()),
            (vec!["foo".to_string()], 0, Some("rack"))
        );
        assert_eq!(m.assignment.as_ref().unwrap().partitions[0].topic, "foo");
        assert_eq!(m.subscription_bytes, sub_bytes);

        // Malformed embedded bytes stay Base64.
        let mut raw2 = raw.clone();
        raw2["members"][0]["subscription"] = b64(b"Subscription".to_vec()).into();
        raw2["members"][0]["assignment"] = b64(b"Assignment".to_vec()).into();
        let v = decode_offsets_value(2, &value_bytes(&GROUP_METADATA_VALUE, 4, &raw2)).unwrap();
        assert_eq!(
            v.json["data"]["members"][0]["subscription"],
            "U3Vic2NyaXB0aW9u"
        );
        assert_eq!(
            v.json["data"]["members"][0]["assignment"],
            "QXNzaWdubWVudA=="
        );
        // Another protocol type: bytes are not interpreted.
        let mut raw3 = raw.clone();
        raw3["protocolType"] = "connect".into();
        let v = decode_offsets_value(2, &value_bytes(&GROUP_METADATA_VALUE, 4, &raw3)).unwrap();
        assert!(v.json["data"]["members"][0]["subscription"].is_string());
        assert!(
            parse_group_metadata(&value_bytes(&GROUP_METADATA_VALUE, 4, &raw3))
                .unwrap()
                .members[0]
                .subscription
                .is_none()
        );
    }

    #[test]
    fn newer_consumer_protocol_versions_use_the_newest_layout() {
        let sub = json!({"topics":["a"],"userData":"AQ==","ownedPartitions":[],"generationId":7,"rackId":null});
        let mut bytes = 9i16.to_be_bytes().to_vec();
        bytes.extend(encode_message(&CONSUMER_PROTOCOL_SUBSCRIPTION, 3, &sub));
        bytes.extend_from_slice(b"future fields");
        assert_eq!(
            decode_embedded(&CONSUMER_PROTOCOL_SUBSCRIPTION, &bytes).unwrap(),
            sub
        );
        let s = parse_consumer_subscription(&bytes).unwrap();
        assert_eq!(
            (s.version, s.generation_id, s.user_data),
            (9, 7, Some(vec![1]))
        );
    }

    #[test]
    fn remote_log_segment_metadata_record_by_hand() {
        // Frame 1, apiKey 0, version 0 (flexible): topic "t" (compact string: length + 1),
        // a topic id and a segment id, partition 3, start 0, end 99, broker 1, max timestamp,
        // event timestamp, one leader epoch (0 at offset 0), size 4096, null custom metadata
        // (compact bytes 0), state 1 (COPY_SEGMENT_FINISHED), then tagged fields: the outer
        // struct has none, the record carries TxnIndexEmpty (tag 0, 1 byte, true).
        let v = hex(concat!(
            "01 00 00",
            "02 74",
            "00000000000000000000000000000001",
            "00000003",
            "00",
            "00000000000000000000000000000002",
            "00",
            "0000000000000000",
            "0000000000000063",
            "00000001",
            "0000019000000000",
            "0000019000000001",
            "02 00000000 0000000000000000 00",
            "00001000",
            "00",
            "01",
            "01 00 01 01",
        ));
        let out = decode_remote_log_metadata_record(&v).unwrap();
        assert_eq!(out["type"], "REMOTE_LOG_SEGMENT_METADATA_RECORD");
        let d = &out["data"];
        assert_eq!(d["remoteLogSegmentId"]["topicIdPartition"]["name"], "t");
        assert_eq!(d["remoteLogSegmentId"]["topicIdPartition"]["partition"], 3);
        assert_eq!(d["endOffset"], 99);
        assert_eq!(d["segmentLeaderEpochs"][0]["leaderEpoch"], 0);
        assert_eq!(d["segmentSizeInBytes"], 4096);
        assert_eq!(d["customMetadata"], Value::Null);
        assert_eq!(d["remoteLogSegmentState"], 1);
        assert_eq!(d["txnIndexEmpty"], true);
    }

    #[test]
    fn consumer_group_examples_of_dump_log_segments_test() {
        let k = decode_offsets_key(&hex("0003 0005 67726f7570")).unwrap();
        assert_eq!(
            k.json.to_string(),
            r#"{"type":"3","data":{"groupId":"group"}}"#
        );
        let v = decode_offsets_value(3, &hex("0000 0000000a 00")).unwrap();
        assert_eq!(v.json.to_string(), r#"{"version":"0","data":{"epoch":10}}"#);
        // MetadataHash is tagged (tag 0): shown when not 0.
        let v = decode_offsets_value(3, &hex("0000 0000000a 01 00 08 0000000000000007")).unwrap();
        assert_eq!(
            v.json.to_string(),
            r#"{"version":"0","data":{"epoch":10,"metadataHash":7}}"#
        );
    }

    #[test]
    fn share_state_examples_of_dump_log_segments_test() {
        let key = json!({"groupId":"gs1","topicId":"Uj5wn_FqTXirEASvVZRY1w","partition":0});
        for t in [0i16, 1] {
            let (k, _) = find(SHARE_STATE_RECORDS, t).unwrap();
            let mut bytes = t.to_be_bytes().to_vec();
            bytes.extend(encode_message(k, 0, &key));
            let d = decode_share_state_key(&bytes).unwrap();
            assert_eq!(d.json, json!({"type": t.to_string(), "data": key}));
        }
        let ts = 1_700_000_000_000i64;
        let snap = json!({"snapshotEpoch":0,"stateEpoch":0,"leaderEpoch":0,"startOffset":0,"createTimestamp":ts,"writeTimestamp":ts,"stateBatches":[{"firstOffset":0,"lastOffset":4,"deliveryState":2,"deliveryCount":1}]});
        let v = decode_share_state_value(0, &value_bytes(&SHARE_SNAPSHOT_VALUE, 0, &snap)).unwrap();
        assert_eq!(
            v.json.to_string(),
            format!(
                r#"{{"version":"0","data":{{"snapshotEpoch":0,"stateEpoch":0,"leaderEpoch":0,"startOffset":0,"createTimestamp":{ts},"writeTimestamp":{ts},"stateBatches":[{{"firstOffset":0,"lastOffset":4,"deliveryState":2,"deliveryCount":1}}]}}}}"#
            )
        );
        assert_eq!(v.legacy_layout, None);
        // The same state written by Kafka 4.0 (uint16 snapshotEpoch, no timestamps).
        let old = json!({"snapshotEpoch":3,"stateEpoch":0,"leaderEpoch":0,"startOffset":0,"stateBatches":[{"firstOffset":0,"lastOffset":4,"deliveryState":2,"deliveryCount":1}]});
        let v =
            decode_share_state_value(0, &value_bytes(&SHARE_SNAPSHOT_VALUE_4_0, 0, &old)).unwrap();
        assert_eq!(v.legacy_layout, Some("4.0"));
        assert_eq!(v.json["data"], old);
        let upd = json!({"snapshotEpoch":0,"leaderEpoch":0,"startOffset":0,"stateBatches":[{"firstOffset":0,"lastOffset":4,"deliveryState":2,"deliveryCount":1}]});
        let v = decode_share_state_value(1, &value_bytes(&SHARE_UPDATE_VALUE, 0, &upd)).unwrap();
        assert_eq!(v.json["data"], upd);
    }

    #[test]
    fn unknown_types_and_versions_are_flagged() {
        let e = decode_offsets_key(&hex("7fff")).unwrap_err();
        assert_eq!(e.message, "Unknown record type 32767");
        assert!(is_unknown(&e));
        let e = decode_offsets_value(1, &hex("0005 0000")).unwrap_err();
        assert_eq!(e.message, "Unknown version 5 of OffsetCommitValue");
        assert!(is_unknown(&e));
        let e = decode_offsets_value(0, &hex("0001 000000000000002a 0000 0000018bcfe56800"))
            .unwrap_err();
        assert_eq!(e.message, "Unknown version 1 of LegacyOffsetCommitValue");
        let e = decode_offsets_value(1, &hex("0003 0000")).unwrap_err();
        assert!(!is_unknown(&e));
        assert!(is_unknown(
            &decode_transaction_value(0, &hex("0002")).unwrap_err()
        ));
        assert!(is_unknown(
            &decode_share_state_key(&hex("0002 0000")).unwrap_err()
        ));
        assert!(is_unknown(
            &decode_metadata_record(&hex("01 06 00")).unwrap_err()
        ));
        assert!(is_unknown(
            &decode_metadata_record(&hex("01 02 01")).unwrap_err()
        ));
        assert_eq!(group_of_key(&hex("7fff 0001 67")), None);
        assert_eq!(group_of_key(&hex("0001 0001")), None);
    }

    #[test]
    fn metadata_records() {
        // TopicRecord v0: name "foo", topic id 1, no tags.
        let mut b = hex("01 02 00 04 666f6f");
        b.extend_from_slice(&[0; 15]);
        b.extend_from_slice(&[1, 0]);
        assert_eq!(
            decode_metadata_record(&b).unwrap().to_string(),
            r#"{"type":"TOPIC_RECORD","version":0,"data":{"name":"foo","topicId":"AAAAAAAAAAAAAAAAAAAAAQ"}}"#
        );
        let mut trailing = b.clone();
        trailing.push(0);
        assert!(decode_metadata_record(&trailing)
            .unwrap_err()
            .message
            .contains("garbage after TOPIC_RECORD"));
        let mut frame0 = b.clone();
        frame0[0] = 0;
        assert!(decode_metadata_record(&frame0)
            .unwrap_err()
            .message
            .contains("frame version 0"));
        // NoOpRecord, FeatureLevelRecord
        assert_eq!(
            decode_metadata_record(&hex("01 14 00 00"))
                .unwrap()
                .to_string(),
            r#"{"type":"NO_OP_RECORD","version":0,"data":{}}"#
        );
        assert_eq!(
            decode_metadata_record(&hex("01 0c 00 11 6d657461646174612e76657273696f6e 0014 00"))
                .unwrap()
                .to_string(),
            r#"{"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":20}}"#
        );
    }

    /// Every table entry, every valid version: random messages survive encode → decode.
    #[test]
    fn round_trip_every_record_type_and_version() {
        let mut rng = Rng(7);
        let mut pairs = 0;
        let check = |msg: &Message, version: i16, rng: &mut Rng| {
            for _ in 0..40 {
                let data = sample_message(msg, version, rng);
                let bytes = encode_message(msg, version, &data);
                let mut r = Reader::new(&bytes);
                let decoded = read_message(msg, version, &mut r)
                    .unwrap_or_else(|e| panic!("{} v{version}: {e}", msg.name));
                assert_eq!(decoded, data, "{} v{version}", msg.name);
                assert!(r.is_empty(), "{} v{version}", msg.name);
            }
        };
        type Decode = fn(&[u8]) -> DecodeResult<CoordinatorKey>;
        type DecodeValue = fn(i16, &[u8]) -> DecodeResult<CoordinatorValue>;
        let coordinators: [(&RecordTable, Decode, DecodeValue); 3] = [
            (GROUP_RECORDS, decode_offsets_key, decode_offsets_value),
            (
                TRANSACTION_RECORDS,
                decode_transaction_key,
                decode_transaction_value,
            ),
            (
                SHARE_STATE_RECORDS,
                decode_share_state_key,
                decode_share_state_value,
            ),
        ];
        for (table, decode_k, decode_v) in coordinators {
            for (t, k, v) in table {
                check(k, 0, &mut rng);
                let key = json!({"type": t.to_string(), "data": sample_message(k, 0, &mut rng)});
                let mut bytes = t.to_be_bytes().to_vec();
                bytes.extend(encode_message(k, 0, &key["data"]));
                assert_eq!(decode_k(&bytes).unwrap().json, key);
                for version in v.valid.lowest..=v.valid.highest {
                    check(v, version, &mut rng);
                    // Through the public entry point too (GroupMetadata and TransactionLog
                    // rewrite fields, so compare the untouched types only).
                    let data = sample_message(v, version, &mut rng);
                    let out = decode_v(*t, &value_bytes(v, version, &data)).unwrap();
                    assert_eq!(out.version, version);
                    if !(v.name == "GroupMetadataValue" || v.name == "TransactionLogValue") {
                        assert_eq!(
                            out.json,
                            json!({"version": version.to_string(), "data": data})
                        );
                        assert_eq!(out.legacy_layout, None);
                    }
                    pairs += 1;
                }
            }
        }
        for (_, _, old) in LEGACY_4_0_VALUES {
            check(old, 0, &mut rng);
        }
        type Framed = fn(&[u8]) -> DecodeResult<Value>;
        for (table, decode) in [
            (METADATA_RECORDS, decode_metadata_record as Framed),
            (
                REMOTE_LOG_METADATA_RECORDS,
                decode_remote_log_metadata_record,
            ),
        ] {
            for (api_key, name, msg) in table {
                for version in msg.valid.lowest..=msg.valid.highest {
                    check(msg, version, &mut rng);
                    let data = sample_message(msg, version, &mut rng);
                    let mut bytes = vec![1, *api_key as u8, version as u8];
                    bytes.extend(encode_message(msg, version, &data));
                    assert_eq!(
                        decode(&bytes).unwrap(),
                        json!({"type": name, "version": version, "data": data})
                    );
                    pairs += 1;
                }
            }
        }
        for msg in [
            &CONSUMER_PROTOCOL_SUBSCRIPTION,
            &CONSUMER_PROTOCOL_ASSIGNMENT,
        ] {
            for version in 0..=3 {
                check(msg, version, &mut rng);
            }
        }
        assert!(pairs > 60, "{pairs}");
    }

    /// The typed parsers agree with the schema decoder on random messages.
    #[test]
    fn typed_parsers_agree_with_json() {
        let mut rng = Rng(99);
        for _ in 0..300 {
            for version in 0..=4 {
                let data = sample_message(&OFFSET_COMMIT_VALUE, version, &mut rng);
                let key = hex("0001 0001 67 0001 74 00000000");
                let c =
                    parse_offset_commit(&key, &value_bytes(&OFFSET_COMMIT_VALUE, version, &data))
                        .unwrap();
                assert_eq!(json!(c.offset), data["offset"]);
                assert_eq!(json!(c.commit_timestamp), data["commitTimestamp"]);
                assert_eq!(json!(c.metadata), data["metadata"]);
                if version >= 3 {
                    assert_eq!(
                        c.leader_epoch.unwrap_or(-1),
                        data["leaderEpoch"].as_i64().unwrap() as i32
                    );
                }
                assert_eq!(
                    c.topic_id.map(|u| crate::format::protocol::uuid_string(&u)),
                    data.get("topicId")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                );

                let data = sample_message(&GROUP_METADATA_VALUE, version, &mut rng);
                let g = parse_group_metadata(&value_bytes(&GROUP_METADATA_VALUE, version, &data))
                    .unwrap();
                assert_eq!(json!(g.protocol_type), data["protocolType"]);
                assert_eq!(json!(g.leader), data["leader"]);
                assert_eq!(g.members.len(), data["members"].as_array().unwrap().len());
                for (m, j) in g.members.iter().zip(data["members"].as_array().unwrap()) {
                    assert_eq!(json!(m.member_id), j["memberId"]);
                    assert_eq!(json!(m.client_host), j["clientHost"]);
                    assert_eq!(json!(m.session_timeout), j["sessionTimeout"]);
                    assert_eq!(
                        base64::engine::general_purpose::STANDARD.encode(&m.assignment_bytes),
                        j["assignment"].as_str().unwrap()
                    );
                    if version >= 3 {
                        assert_eq!(json!(m.group_instance_id), j["groupInstanceId"]);
                    }
                }
            }
            for version in 0..=1 {
                let data = sample_message(&TRANSACTION_LOG_VALUE, version, &mut rng);
                let t =
                    parse_transaction_value(&value_bytes(&TRANSACTION_LOG_VALUE, version, &data))
                        .unwrap();
                assert_eq!(json!(t.producer_id), data["producerId"]);
                assert_eq!(json!(t.status), data["transactionStatus"]);
                assert_eq!(
                    json!(t.start_timestamp),
                    data["transactionStartTimestampMs"]
                );
                assert_eq!(
                    json!(t.previous_producer_id),
                    data.get("previousProducerId").cloned().unwrap_or(json!(-1))
                );
                assert_eq!(
                    json!(t.next_producer_epoch),
                    data.get("nextProducerEpoch").cloned().unwrap_or(json!(-1))
                );
                assert_eq!(
                    json!(t.client_transaction_version),
                    data.get("clientTransactionVersion")
                        .cloned()
                        .unwrap_or(json!(0))
                );
                let parts = data["transactionPartitions"].as_array();
                assert_eq!(t.partitions.as_ref().map(Vec::len), parts.map(Vec::len));
            }
            for version in 0..=3 {
                let data = sample_message(&CONSUMER_PROTOCOL_SUBSCRIPTION, version, &mut rng);
                let s = parse_consumer_subscription(&value_bytes(
                    &CONSUMER_PROTOCOL_SUBSCRIPTION,
                    version,
                    &data,
                ))
                .unwrap();
                assert_eq!(json!(s.topics), data["topics"]);
                if version >= 2 {
                    assert_eq!(json!(s.generation_id), data["generationId"]);
                }
                let data = sample_message(&CONSUMER_PROTOCOL_ASSIGNMENT, version, &mut rng);
                let a = parse_consumer_assignment(&value_bytes(
                    &CONSUMER_PROTOCOL_ASSIGNMENT,
                    version,
                    &data,
                ))
                .unwrap();
                assert_eq!(
                    a.partitions.len(),
                    data["assignedPartitions"].as_array().unwrap().len()
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn decoding_arbitrary_bytes_never_panics(data: Vec<u8>, t in -1i16..25) {
            let _ = decode_offsets_key(&data);
            let _ = decode_offsets_value(t, &data);
            let _ = decode_transaction_key(&data);
            let _ = decode_transaction_value(t, &data);
            let _ = decode_share_state_key(&data);
            let _ = decode_share_state_value(t, &data);
            let _ = decode_metadata_record(&data);
            let _ = group_of_key(&data);
            let _ = parse_offset_commit(&data, &data);
            let _ = parse_group_metadata(&data);
            let _ = parse_transaction_value(&data);
            let _ = parse_consumer_subscription(&data);
            let _ = parse_consumer_assignment(&data);
        }

        /// Valid records with a few bytes flipped or cut: errors, never panics.
        #[test]
        fn damaged_records_never_panic(seed: u64, cut in 0usize..64, flip in 0usize..64, bits: u8) {
            let mut rng = Rng(seed);
            for (t, _, v) in GROUP_RECORDS.iter().chain(TRANSACTION_RECORDS).chain(SHARE_STATE_RECORDS) {
                for version in v.valid.lowest..=v.valid.highest {
                    let data = sample_message(v, version, &mut rng);
                    let mut bytes = value_bytes(v, version, &data);
                    if !bytes.is_empty() {
                        let i = flip % bytes.len();
                        bytes[i] ^= bits;
                    }
                    bytes.truncate(bytes.len().saturating_sub(cut % 8));
                    let _ = decode_offsets_value(*t, &bytes);
                    let _ = decode_transaction_value(*t, &bytes);
                    let _ = decode_share_state_value(*t, &bytes);
                    let _ = parse_group_metadata(&bytes);
                    let _ = parse_transaction_value(&bytes);
                }
            }
            for (api_key, _, msg) in METADATA_RECORDS.iter().chain(REMOTE_LOG_METADATA_RECORDS) {
                let data = sample_message(msg, msg.valid.highest, &mut rng);
                let mut bytes = vec![1, *api_key as u8, msg.valid.highest as u8];
                bytes.extend(encode_message(msg, msg.valid.highest, &data));
                let i = flip % bytes.len();
                bytes[i] ^= bits;
                bytes.truncate(bytes.len().saturating_sub(cut % 8));
                let _ = decode_metadata_record(&bytes);
                let _ = decode_remote_log_metadata_record(&bytes);
            }
        }
    }
}
