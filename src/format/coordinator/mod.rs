//! Record keys and values of Kafka's internal topics: `__consumer_offsets` (group coordinator),
//! `__transaction_state`, `__share_group_state`, the KRaft metadata records of
//! `__cluster_metadata` and `.checkpoint` snapshots, and `__remote_log_metadata`.
//!
//! One description per record schema drives everything: the generated tables ([`tables`],
//! from Kafka's JSON message specs), read by the schema-driven decoder ([`decode`]) into typed
//! values over the borrowed bytes ([`value`]), written back by the encoder ([`encode`]), and
//! printed by `print/coordinator.rs` in the shapes of Kafka 4.4+ `kafka-dump-log` decoders
//! (`--offsets-decoder`, `--transaction-log-decoder`, `--share-group-state-decoder`,
//! `--cluster-metadata-decoder`):
//! - a coordinator key is `{"type":"<record type>","data":{...}}` and a value
//!   `{"version":"<value version>","data":{...}}`; a null value is a tombstone (Kafka prints
//!   `<DELETE>`);
//! - GroupMetadataValue members of a `"consumer"` group show their subscription and assignment
//!   decoded as ConsumerProtocolSubscription / ConsumerProtocolAssignment
//!   ([`Value::Embedded`]), or the Base64 string when those bytes do not decode;
//! - TransactionLogValue shows `transactionStatus` as the state name ([`Value::Named`]);
//! - a metadata record is `{"type":"<METADATA_RECORD_TYPE name>","version":<int>,"data":{...}}`.
//!
//! **Unknown record types and versions** are errors of kind [`ErrorKind::UnknownRecordType`]
//! and [`ErrorKind::UnknownVersion`] ([`Error::is_unknown`]), told apart from damaged bytes so
//! a caller can print the raw bytes and go on. Unlike Kafka, a metadata record at a version
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

pub mod decode;
pub mod encode;
pub mod error;
pub mod schema;
#[rustfmt::skip]
pub mod tables;
mod typed;
pub mod value;

#[cfg(test)]
mod tests;

pub use error::{Error, ErrorKind, Result};
pub use typed::*;
pub use value::{Embedded, StructValue, Value};

use decode::read_message;
use schema::Message;
use tables::{
    CONSUMER_PROTOCOL_ASSIGNMENT, CONSUMER_PROTOCOL_SUBSCRIPTION, GROUP_RECORDS, LEGACY_4_0_VALUES,
    METADATA_RECORDS, REMOTE_LOG_METADATA_RECORDS, SHARE_STATE_RECORDS, TRANSACTION_RECORDS,
};

use crate::format::reader::Reader;

/// The coordinators whose records live in an internal topic, each with its record types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coordinator {
    /// `__consumer_offsets`.
    Group,
    /// `__transaction_state`.
    Transaction,
    /// `__share_group_state`.
    Share,
}

type RecordTable = [(i16, &'static Message, &'static Message)];

impl Coordinator {
    fn table(self) -> &'static RecordTable {
        match self {
            Coordinator::Group => GROUP_RECORDS,
            Coordinator::Transaction => TRANSACTION_RECORDS,
            Coordinator::Share => SHARE_STATE_RECORDS,
        }
    }

    fn legacy_name(self) -> &'static str {
        match self {
            Coordinator::Group => "group",
            Coordinator::Transaction => "transaction",
            Coordinator::Share => "share",
        }
    }

    /// Whether a record type is one this table knows. Kafka's loaders skip a record of an
    /// unknown type with a warning (a newer Kafka's record, or a leftover of an aborted
    /// upgrade) and go on.
    pub fn knows(self, record_type: i16) -> bool {
        self.table().iter().any(|(t, ..)| *t == record_type)
    }

    /// Decodes a record key: int16 record type, then the key message at version 0.
    pub fn decode_key(self, key: &[u8]) -> Result<CoordinatorKey<'_>> {
        let mut r = Reader::new(key);
        let record_type = r.i16("record type")?;
        let (message, _) = find(self.table(), record_type)?;
        let data = read_message(message, 0, &mut r)?;
        Ok(CoordinatorKey {
            record_type,
            message,
            data,
        })
    }

    /// Decodes a non-null record value of the given record type: int16 version, then the
    /// value message at that version.
    pub fn decode_value(self, record_type: i16, value: &[u8]) -> Result<CoordinatorValue<'_>> {
        let (_, message) = find(self.table(), record_type)?;
        let mut r = Reader::new(value);
        let version = r.i16("value version")?;
        if !message.valid.contains(version) {
            return Err(unknown_version(version, message));
        }
        let mut trunk_reader = r.clone();
        let trunk = read_message(message, version, &mut trunk_reader);
        let (message, mut data, legacy_layout) = match trunk {
            Ok(data) if trunk_reader.is_empty() => (message, data, None),
            trunk => {
                let legacy = LEGACY_4_0_VALUES
                    .iter()
                    .find(|(c, t, _)| *c == self.legacy_name() && *t == record_type)
                    .and_then(|(_, _, old)| {
                        let mut lr = r.clone();
                        match read_message(old, version, &mut lr) {
                            Ok(data) if lr.is_empty() => Some((*old, data)),
                            _ => None,
                        }
                    });
                match legacy {
                    Some((old, data)) => (old, data, Some("4.0")),
                    None => (message, trunk?, None),
                }
            }
        };
        match (self, record_type) {
            (Coordinator::Group, 2) => embed_consumer_protocol(&mut data),
            (Coordinator::Transaction, _) => name_transaction_status(&mut data),
            _ => {}
        }
        Ok(CoordinatorValue {
            version,
            message,
            data,
            legacy_layout,
        })
    }
}

impl Coordinator {
    /// The key message and the value message of a record type.
    pub fn messages(self, record_type: i16) -> Result<(&'static Message, &'static Message)> {
        find(self.table(), record_type)
    }

    /// A record key: int16 record type, then `key` encoded as the type's key message (v0).
    /// The writer side of [`Coordinator::decode_key`], driven by the same tables.
    pub fn encode_key(
        self,
        record_type: i16,
        key: &StructValue<'_>,
    ) -> std::result::Result<Vec<u8>, encode::EncodeError> {
        let (msg, _) = self
            .messages(record_type)
            .map_err(|e| encode::EncodeError {
                message: e.kind.to_string(),
            })?;
        let mut out = record_type.to_be_bytes().to_vec();
        encode::encode_message(msg, 0, key, &mut out)?;
        Ok(out)
    }

    /// A record value: int16 version, then `value` encoded as the type's value message at
    /// that version. The writer side of [`Coordinator::decode_value`].
    pub fn encode_value(
        self,
        record_type: i16,
        version: i16,
        value: &StructValue<'_>,
    ) -> std::result::Result<Vec<u8>, encode::EncodeError> {
        let (_, msg) = self
            .messages(record_type)
            .map_err(|e| encode::EncodeError {
                message: e.kind.to_string(),
            })?;
        let mut out = version.to_be_bytes().to_vec();
        encode::encode_message(msg, version, value, &mut out)?;
        Ok(out)
    }
}

fn unknown_type(record_type: i16) -> Error {
    Error::new(0, ErrorKind::UnknownRecordType(record_type))
}

fn unknown_version(version: i16, msg: &Message) -> Error {
    Error::new(
        0,
        ErrorKind::UnknownVersion {
            version,
            record: msg.name,
        },
    )
}

/// A decoded coordinator record key.
#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorKey<'a> {
    pub record_type: i16,
    pub message: &'static Message,
    pub data: StructValue<'a>,
}

/// A decoded coordinator record value.
#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorValue<'a> {
    pub version: i16,
    /// The layout the bytes were read with (a Kafka 4.0 one when `legacy_layout` is set).
    pub message: &'static Message,
    pub data: StructValue<'a>,
    /// `Some("4.0")` when the bytes only fit Kafka 4.0's layout of this "v0" value.
    pub legacy_layout: Option<&'static str>,
}

/// A decoded framed record: a KRaft metadata record or a tiered-storage one.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataRecord<'a> {
    pub api_key: i16,
    /// The `MetadataRecordType` name (`TOPIC_RECORD`, ...).
    pub name: &'static str,
    pub version: i16,
    pub message: &'static Message,
    pub data: StructValue<'a>,
}

fn find(table: &RecordTable, record_type: i16) -> Result<(&'static Message, &'static Message)> {
    table
        .iter()
        .find(|(t, ..)| *t == record_type)
        .map(|(_, k, v)| (*k, *v))
        .ok_or_else(|| unknown_type(record_type))
}

/// Decodes a `__consumer_offsets` record key.
pub fn decode_offsets_key(key: &[u8]) -> Result<CoordinatorKey<'_>> {
    Coordinator::Group.decode_key(key)
}

/// Decodes a non-null `__consumer_offsets` record value of the given record type.
pub fn decode_offsets_value(record_type: i16, value: &[u8]) -> Result<CoordinatorValue<'_>> {
    Coordinator::Group.decode_value(record_type, value)
}

/// Decodes a `__transaction_state` record key.
pub fn decode_transaction_key(key: &[u8]) -> Result<CoordinatorKey<'_>> {
    Coordinator::Transaction.decode_key(key)
}

/// Decodes a non-null `__transaction_state` record value (record type 0).
pub fn decode_transaction_value(record_type: i16, value: &[u8]) -> Result<CoordinatorValue<'_>> {
    Coordinator::Transaction.decode_value(record_type, value)
}

/// Decodes a `__share_group_state` record key (0 = ShareSnapshot, 1 = ShareUpdate).
pub fn decode_share_state_key(key: &[u8]) -> Result<CoordinatorKey<'_>> {
    Coordinator::Share.decode_key(key)
}

/// Decodes a non-null `__share_group_state` record value of the given record type.
pub fn decode_share_state_value(record_type: i16, value: &[u8]) -> Result<CoordinatorValue<'_>> {
    Coordinator::Share.decode_value(record_type, value)
}

/// Kafka's `TransactionState` names by id.
pub fn transaction_state_name(id: i8) -> Option<&'static str> {
    TransactionState::from_id(id).map(TransactionState::name)
}

fn name_transaction_status(data: &mut StructValue<'_>) {
    if let Some(status) = data.get_mut("transactionStatus") {
        if let Value::Int(id) = *status {
            *status = Value::Named {
                id,
                name: transaction_state_name(id as i8),
            };
        }
    }
}

/// Version-prefixed consumer-protocol bytes (newer versions read with the newest layout, as
/// Kafka does; bytes after the message are ignored).
fn decode_embedded<'a>(message: &'static Message, bytes: &'a [u8]) -> Result<Embedded<'a>> {
    let mut r = Reader::new(bytes);
    let version = r.i16("version")?;
    let data = read_message(message, version, &mut r)?;
    Ok(Embedded {
        bytes,
        message,
        version,
        data,
    })
}

fn embed_consumer_protocol(data: &mut StructValue<'_>) {
    if data.str("protocolType").as_deref() != Some("consumer") {
        return;
    }
    let Some(Value::Array(members)) = data.get_mut("members") else {
        return;
    };
    for member in members {
        let Value::Struct(member) = member else {
            continue;
        };
        for (field, msg) in [
            ("subscription", &CONSUMER_PROTOCOL_SUBSCRIPTION),
            ("assignment", &CONSUMER_PROTOCOL_ASSIGNMENT),
        ] {
            let Some(slot) = member.get_mut(field) else {
                continue;
            };
            let Value::Bytes(bytes) = *slot else {
                continue;
            };
            if let Ok(decoded) = decode_embedded(msg, bytes) {
                *slot = Value::Embedded(Box::new(decoded));
            }
        }
    }
}

/// Kafka's `unsignedIntToShort`: an unsigned varint that must fit an int16.
fn uvarint_short(r: &mut Reader<'_>, what: &'static str) -> Result<i16> {
    let at = r.position();
    let value = r.uvarint(what)?;
    i16::try_from(value).map_err(|_| Error::new(at, ErrorKind::TooLarge { what, value }))
}

/// Decodes a `__cluster_metadata` (or `.checkpoint`) record value: uvarint frame version (1),
/// uvarint apiKey, uvarint version, then the message, with nothing after it.
pub fn decode_metadata_record(value: &[u8]) -> Result<MetadataRecord<'_>> {
    decode_framed(value, METADATA_RECORDS)
}

/// A `__cluster_metadata` record value, the writer side of [`decode_metadata_record`]: frame
/// version 1, uvarint apiKey, uvarint version, then `value` encoded as the record type's
/// message at that version (`MetadataRecordSerde.write`).
pub fn encode_metadata_record(
    api_key: i16,
    version: i16,
    value: &StructValue<'_>,
) -> std::result::Result<Vec<u8>, encode::EncodeError> {
    let message = METADATA_RECORDS
        .iter()
        .find(|(k, ..)| *k == api_key)
        .map(|(_, _, m)| *m)
        .ok_or_else(|| encode::EncodeError {
            message: format!("unknown metadata record type {api_key}"),
        })?;
    if !message.valid.contains(version) || api_key < 0 || version < 0 {
        return Err(encode::EncodeError {
            message: format!("{} has no version {version}", message.name),
        });
    }
    let mut out = Vec::new();
    crate::format::reader::put_uvarint(&mut out, 1);
    crate::format::reader::put_uvarint(&mut out, api_key as u32);
    crate::format::reader::put_uvarint(&mut out, version as u32);
    encode::encode_message(message, version, value, &mut out)?;
    Ok(out)
}

/// Decodes a `__remote_log_metadata` record value (tiered storage): framed like a KRaft
/// metadata record (`AbstractApiMessageSerde`), with the storage module's record types.
pub fn decode_remote_log_metadata_record(value: &[u8]) -> Result<MetadataRecord<'_>> {
    decode_framed(value, REMOTE_LOG_METADATA_RECORDS)
}

fn decode_framed<'a>(
    value: &'a [u8],
    table: &[(i16, &'static str, &'static Message)],
) -> Result<MetadataRecord<'a>> {
    let mut r = Reader::new(value);
    let frame = uvarint_short(&mut r, "frame version")?;
    if frame == 0 {
        return Err(Error::new(0, ErrorKind::FrameVersion0));
    }
    if frame != 1 {
        return Err(Error::new(0, ErrorKind::FrameVersion(frame)));
    }
    let api_key = uvarint_short(&mut r, "type")?;
    let version = uvarint_short(&mut r, "version")?;
    let (name, message) = table
        .iter()
        .find(|(k, ..)| *k == api_key)
        .map(|(_, n, m)| (*n, *m))
        .ok_or_else(|| unknown_type(api_key))?;
    if !message.valid.contains(version) {
        return Err(unknown_version(version, message));
    }
    let data = read_message(message, version, &mut r)?;
    if !r.is_empty() {
        return Err(Error::new(
            r.position(),
            ErrorKind::Garbage {
                record: name,
                bytes: r.remaining(),
            },
        ));
    }
    Ok(MetadataRecord {
        api_key,
        name,
        version,
        message,
        data,
    })
}
