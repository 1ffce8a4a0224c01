//! Decoding the records of Kafka's internal topics for display, in the shapes Kafka 4.x's
//! DumpLogSegments prints: `{"type":"1","data":{...}}` keys, `{"version":"3","data":{...}}`
//! values, `<DELETE>` for tombstones, `{"type":"TOPIC_RECORD","version":0,"data":{...}}` for
//! KRaft metadata. Unknown record types and versions come back raw (hex) and never abort a dump.

use serde_json::{json, Value};

use super::coordinator::{
    decode_metadata_record, decode_offsets_key, decode_offsets_value,
    decode_remote_log_metadata_record, decode_share_state_key, decode_share_state_value,
    decode_transaction_key, decode_transaction_value, is_unknown, CoordinatorKey, CoordinatorValue,
};
use super::reader::DecodeResult;

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

/// Which rendering of a decoded record the printer asked for: only that one is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Kafka's text (`*_text` fields).
    Text,
    /// JSON values for `--json` (`*_json` fields).
    Json,
}

/// A record's decoded key and value: text as Kafka prints it, or JSON for `--json` (the
/// [`Form`] asked for; the other pair is `None`).
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub key_text: Option<String>,
    pub value_text: Option<String>,
    pub key_json: Option<Value>,
    pub value_json: Option<Value>,
}

fn raw(record_type: Option<i16>, key: Option<&[u8]>, value: Option<&[u8]>, why: &str) -> Value {
    json!({
        "undecoded": true,
        "recordType": record_type,
        "reason": why,
        "keyHex": key.map(hex::encode),
        "valueHex": value.map(hex::encode),
    })
}

fn hex_suffix(key: Option<&[u8]>, value: Option<&[u8]>) -> String {
    format!(
        " (key hex: {}, value hex: {})",
        key.map_or("null".into(), hex::encode),
        value.map_or("null".into(), hex::encode)
    )
}

impl Decoded {
    /// Keeps only the pair `form` asks for: `text` and `json` are built lazily.
    fn of(
        form: Form,
        text: impl FnOnce() -> (Option<String>, Option<String>),
        json: impl FnOnce() -> (Option<Value>, Option<Value>),
    ) -> Decoded {
        let ((key_text, value_text), (key_json, value_json)) = match form {
            Form::Text => (text(), (None, None)),
            Form::Json => ((None, None), json()),
        };
        Decoded {
            key_text,
            value_text,
            key_json,
            value_json,
        }
    }
}

pub fn decode_record(
    decoder: InternalDecoder,
    offset: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    form: Form,
) -> Decoded {
    // Framed metadata records: no key, the whole value is the record. The error prefixes are
    // those of Kafka's two parsers.
    type Framed = fn(&[u8]) -> DecodeResult<Value>;
    let framed: Option<(Framed, &str)> = match decoder {
        InternalDecoder::ClusterMetadata => Some((decode_metadata_record, "Error at")),
        InternalDecoder::RemoteLogMetadata => {
            Some((decode_remote_log_metadata_record, "Error at offset"))
        }
        _ => None,
    };
    if let Some((decode, error_at)) = framed {
        return match value.map(decode) {
            Some(Ok(v)) => match form {
                Form::Text => Decoded::of(form, || (None, Some(v.to_string())), || (None, None)),
                Form::Json => Decoded::of(form, || (None, None), || (None, Some(v))),
            },
            Some(Err(e)) => {
                let text = format!("{error_at} {offset}, skipping. {}", e.message);
                Decoded::of(
                    form,
                    || (None, Some(format!("{text}{}", hex_suffix(key, value)))),
                    || (None, Some(raw(None, key, value, &text))),
                )
            }
            None => {
                let text =
                    format!("{error_at} {offset}, skipping. metadata record without a value");
                Decoded::of(
                    form,
                    || (None, Some(text.clone())),
                    || (None, Some(raw(None, key, None, &text))),
                )
            }
        };
    }
    let Some(key) = key else {
        let text = format!("Failed to decode message at offset {offset} using the specified decoder (message had a missing key)");
        return Decoded::of(
            form,
            || (Some(text.clone()), None),
            || (Some(raw(None, None, value, &text)), None),
        );
    };
    let (k, v): (
        DecodeResult<CoordinatorKey>,
        Option<DecodeResult<CoordinatorValue>>,
    ) = match decoder {
        InternalDecoder::Offsets => {
            let k = decode_offsets_key(key);
            let v = k
                .as_ref()
                .ok()
                .and_then(|k| value.map(|v| decode_offsets_value(k.record_type, v)));
            (k, v)
        }
        InternalDecoder::TransactionLog => {
            let k = decode_transaction_key(key);
            let v = k
                .as_ref()
                .ok()
                .and_then(|k| value.map(|v| decode_transaction_value(k.record_type, v)));
            (k, v)
        }
        InternalDecoder::ShareGroupState => {
            let k = decode_share_state_key(key);
            let v = k
                .as_ref()
                .ok()
                .and_then(|k| value.map(|v| decode_share_state_value(k.record_type, v)));
            (k, v)
        }
        InternalDecoder::ClusterMetadata | InternalDecoder::RemoteLogMetadata => {
            unreachable!("handled above")
        }
    };
    let record_type = (key.len() >= 2).then(|| i16::from_be_bytes([key[0], key[1]]));
    let failure = |message: &str, unknown_type: bool| {
        let text = if unknown_type {
            format!(
                "Unknown record type {} at offset {offset}, skipping.",
                record_type.unwrap_or(-1)
            )
        } else {
            format!("Error at offset {offset}, skipping. {message}")
        };
        Decoded::of(
            form,
            || {
                (
                    Some(format!("{text}{}", hex_suffix(Some(key), value))),
                    None,
                )
            },
            || (Some(raw(record_type, Some(key), value, &text)), None),
        )
    };
    match (k, v) {
        (Err(e), _) => failure(
            &e.message,
            is_unknown(&e) && e.message.contains("record type"),
        ),
        (Ok(k), None) => match form {
            Form::Text => Decoded::of(
                form,
                || (Some(k.json.to_string()), Some("<DELETE>".into())),
                || (None, None),
            ),
            Form::Json => Decoded::of(
                form,
                || (None, None),
                || (Some(k.json), Some(Value::String("<DELETE>".into()))),
            ),
        },
        (Ok(k), Some(Ok(v))) => match form {
            Form::Text => Decoded::of(
                form,
                || (Some(k.json.to_string()), Some(v.json.to_string())),
                || (None, None),
            ),
            Form::Json => Decoded::of(form, || (None, None), || (Some(k.json), Some(v.json))),
        },
        (Ok(_), Some(Err(e))) => failure(&e.message, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_commit_shapes() {
        let key = hex::decode("00010001670001740000000000").unwrap();
        let value = hex::decode("0003000000000000002a0000000000000000018bcfe56800").unwrap();
        let d = decode_record(
            InternalDecoder::Offsets,
            7,
            Some(&key[..key.len() - 1]),
            Some(&value),
            Form::Text,
        );
        assert_eq!(
            d.key_text.as_deref(),
            Some(r#"{"type":"1","data":{"group":"g","topic":"t","partition":0}}"#)
        );
        assert_eq!(
            d.value_text.as_deref(),
            Some(
                r#"{"version":"3","data":{"offset":42,"leaderEpoch":0,"metadata":"","commitTimestamp":1700000000000}}"#
            )
        );
        let tomb = decode_record(
            InternalDecoder::Offsets,
            7,
            Some(&key[..key.len() - 1]),
            None,
            Form::Text,
        );
        assert_eq!(tomb.value_text.as_deref(), Some("<DELETE>"));
    }

    #[test]
    fn unknown_types_are_raw_and_do_not_abort() {
        let key: &[u8] = &[0x7f, 0xff, 0, 1, 0x41];
        let d = decode_record(
            InternalDecoder::Offsets,
            0,
            Some(key),
            Some(&[1, 2]),
            Form::Text,
        );
        let text = d.key_text.unwrap();
        assert!(
            text.starts_with("Unknown record type 32767 at offset 0, skipping."),
            "{text}"
        );
        assert!(text.contains("7fff00"), "{text}");
        let j = decode_record(
            InternalDecoder::Offsets,
            0,
            Some(key),
            Some(&[1, 2]),
            Form::Json,
        );
        assert_eq!(j.key_json.unwrap()["undecoded"], true);
        assert_eq!(j.key_text, None);
        let m = decode_record(
            InternalDecoder::ClusterMetadata,
            5,
            None,
            Some(&[0]),
            Form::Text,
        );
        assert!(m.value_text.unwrap().starts_with("Error at 5, skipping."));
    }
}
