//! Decoding the records of Kafka's internal topics for display, in the shapes Kafka 4.x's
//! DumpLogSegments prints: `{"type":"1","data":{...}}` keys, `{"version":"3","data":{...}}`
//! values, `<DELETE>` for tombstones, `{"type":"TOPIC_RECORD","version":0,"data":{...}}` for
//! KRaft metadata. Unknown record types and versions come back undecoded (the printers show
//! them raw, in hex) and never abort a dump. No text is made here: see `print/coordinator.rs`.

use super::coordinator::{
    decode_metadata_record, decode_remote_log_metadata_record, Coordinator, CoordinatorKey,
    CoordinatorValue, Error, MetadataRecord, Result,
};

/// The topics Kafka keeps for itself and refuses to let clients produce into
/// (`Topic.INTERNAL_TOPICS`, `Topic.isInternal`).
pub const INTERNAL_TOPICS: [&str; 3] = [
    "__consumer_offsets",
    "__transaction_state",
    "__share_group_state",
];

/// `Topic.isInternal`.
pub fn is_internal_topic(topic: &str) -> bool {
    INTERNAL_TOPICS.contains(&topic)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InternalDecoder {
    /// `__consumer_offsets` (group coordinator records).
    Offsets,
    /// `__transaction_state`.
    TransactionLog,
    /// `__cluster_metadata` and KRaft snapshots.
    ClusterMetadata,
    /// `__share_group_state`.
    ShareGroupState,
    /// `__remote_log_metadata` (tiered storage).
    RemoteLogMetadata,
}

impl InternalDecoder {
    /// The decoder Kafka's topic name calls for.
    pub fn for_topic(topic: &str) -> Option<InternalDecoder> {
        match topic {
            "__consumer_offsets" => Some(InternalDecoder::Offsets),
            "__transaction_state" => Some(InternalDecoder::TransactionLog),
            "__cluster_metadata" => Some(InternalDecoder::ClusterMetadata),
            "__share_group_state" => Some(InternalDecoder::ShareGroupState),
            "__remote_log_metadata" => Some(InternalDecoder::RemoteLogMetadata),
            _ => None,
        }
    }
}

/// A record of an internal topic, decoded: what the printers show (`print/coordinator.rs`
/// writes it as Kafka's text or as NDJSON, whichever was asked for).
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded<'a> {
    /// A coordinator record; `value` is `None` for a tombstone (Kafka prints `<DELETE>`).
    Record {
        key: CoordinatorKey<'a>,
        value: Option<CoordinatorValue<'a>>,
    },
    /// A framed record (KRaft metadata, tiered-storage metadata).
    Framed(MetadataRecord<'a>),
    /// Not decoded: the printers show the raw bytes and why, and the dump goes on.
    Undecoded {
        /// The key's first two bytes, when it has them.
        record_type: Option<i16>,
        problem: Problem,
    },
}

/// Why a record was not decoded.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// A coordinator record without a key.
    MissingKey,
    /// A framed record without a value.
    MissingValue { framing: Framing },
    /// A framed record that did not decode.
    Framed { framing: Framing, error: Error },
    /// A coordinator key or value that did not decode (unknown record types included).
    Record(Error),
}

/// Which framed-record parser: their messages differ as Kafka's two parsers' do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `__cluster_metadata` (`Error at <offset>, skipping.`).
    ClusterMetadata,
    /// `__remote_log_metadata` (`Error at offset <offset>, skipping.`).
    RemoteLogMetadata,
}

pub fn decode_record<'a>(
    decoder: InternalDecoder,
    key: Option<&'a [u8]>,
    value: Option<&'a [u8]>,
) -> Decoded<'a> {
    let undecoded = |record_type, problem| Decoded::Undecoded {
        record_type,
        problem,
    };
    // Framed metadata records: no key, the whole value is the record.
    let framed = match decoder {
        InternalDecoder::ClusterMetadata => {
            Some((decode_metadata_record as Framed, Framing::ClusterMetadata))
        }
        InternalDecoder::RemoteLogMetadata => Some((
            decode_remote_log_metadata_record as Framed,
            Framing::RemoteLogMetadata,
        )),
        _ => None,
    };
    if let Some((decode, framing)) = framed {
        return match value.map(decode) {
            Some(Ok(v)) => Decoded::Framed(v),
            Some(Err(error)) => undecoded(None, Problem::Framed { framing, error }),
            None => undecoded(None, Problem::MissingValue { framing }),
        };
    }
    let Some(key) = key else {
        return undecoded(None, Problem::MissingKey);
    };
    let coordinator = match decoder {
        InternalDecoder::Offsets => Coordinator::Group,
        InternalDecoder::TransactionLog => Coordinator::Transaction,
        InternalDecoder::ShareGroupState => Coordinator::Share,
        InternalDecoder::ClusterMetadata | InternalDecoder::RemoteLogMetadata => {
            unreachable!("handled above")
        }
    };
    let record_type = (key.len() >= 2).then(|| i16::from_be_bytes([key[0], key[1]]));
    let key = match coordinator.decode_key(key) {
        Ok(k) => k,
        Err(e) => return undecoded(record_type, Problem::Record(e)),
    };
    match value.map(|v| coordinator.decode_value(key.record_type, v)) {
        None => Decoded::Record { key, value: None },
        Some(Ok(v)) => Decoded::Record {
            key,
            value: Some(v),
        },
        Some(Err(e)) => undecoded(record_type, Problem::Record(e)),
    }
}

type Framed = for<'b> fn(&'b [u8]) -> Result<MetadataRecord<'b>>;
