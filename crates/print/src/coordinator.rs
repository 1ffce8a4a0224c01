//! Internal-topic records as Kafka 4.4+ `kafka-dump-log` decoders print them, written straight
//! from the decoded value (`format::coordinator`) into the output buffer: no JSON tree, and
//! only the form asked for (NDJSON fields for `--json`, the same JSON as text for
//! `--print-data-log`, which the text printer then escapes for the terminal).
//!
//! The JSON is byte for byte what Kafka's generated `*JsonConverter` output looks like through
//! `serde_json` (the shapes are described in `format/coordinator/mod.rs`): names as in the
//! schema, int64 as numbers, uuid as URL-safe unpadded Base64, bytes as standard Base64,
//! `records` as `""`, NaN and infinities as strings.

use std::ops::Range;

use super::ndjson::{push_hex, JsonLine};
use kseg_format::coordinator::{
    CoordinatorKey, CoordinatorValue, ErrorKind, MetadataRecord, StructValue, Value,
};
use kseg_format::internal::{Decoded, Framing, Problem};

/// Writes a struct as a JSON object, fields in schema order.
pub fn write_struct(l: &mut JsonLine<'_>, s: &StructValue<'_>) {
    l.raw(b"{");
    for (i, (f, v)) in s.fields.iter().enumerate() {
        if i > 0 {
            l.raw(b",");
        }
        l.plain(f.name);
        l.raw(b":");
        write_value(l, v);
    }
    l.raw(b"}");
}

/// Writes one field value as JSON.
pub fn write_value(l: &mut JsonLine<'_>, v: &Value<'_>) {
    match v {
        Value::Null => l.raw(b"null"),
        Value::Bool(b) => l.bool(*b),
        Value::Int(n) => l.int(*n),
        Value::Float(x) => l.float(*x),
        Value::Uuid(u) => {
            l.raw(b"\"");
            uuid(l, u);
            l.raw(b"\"");
        }
        Value::Str(b) => l.str(&String::from_utf8_lossy(b)),
        Value::Bytes(b) => {
            l.raw(b"\"");
            l.base64(b);
            l.raw(b"\"");
        }
        Value::Records(_) => l.raw(b"\"\""),
        Value::Struct(s) => write_struct(l, s),
        Value::Array(items) => {
            l.raw(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    l.raw(b",");
                }
                write_value(l, item);
            }
            l.raw(b"]");
        }
        Value::Embedded(e) => write_struct(l, &e.data),
        Value::Named {
            name: Some(name), ..
        } => l.plain(name),
        Value::Named { id, name: None } => {
            l.raw(b"\"");
            l.int(*id);
            l.raw(b"\"");
        }
    }
}

/// Kafka's `Uuid.toString()`: URL-safe Base64 without padding (22 characters).
fn uuid(l: &mut JsonLine<'_>, u: &[u8; 16]) {
    use base64::Engine;
    let start = l.0.len();
    l.0.resize(start + 22, 0);
    let n = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode_slice(u, &mut l.0[start..])
        .expect("22 bytes hold 16 in Base64");
    l.0.truncate(start + n);
}

/// `{"<label>":"<n>","data":{...}}`: a coordinator key or value.
fn write_numbered(l: &mut JsonLine<'_>, label: &[u8], n: i16, data: &StructValue<'_>) {
    l.raw(b"{\"");
    l.raw(label);
    l.raw(b"\":\"");
    l.int(n);
    l.raw(b"\",\"data\":");
    write_struct(l, data);
    l.raw(b"}");
}

/// `{"type":"<record type>","data":{...}}`
pub fn write_key(l: &mut JsonLine<'_>, k: &CoordinatorKey<'_>) {
    write_numbered(l, b"type", k.record_type, &k.data);
}

/// `{"version":"<version>","data":{...}}`
pub fn write_coordinator_value(l: &mut JsonLine<'_>, v: &CoordinatorValue<'_>) {
    write_numbered(l, b"version", v.version, &v.data);
}

/// `{"type":"<MetadataRecordType name>","version":<int>,"data":{...}}`
pub fn write_metadata_record(l: &mut JsonLine<'_>, m: &MetadataRecord<'_>) {
    l.raw(b"{\"type\":");
    l.plain(m.name);
    l.raw(b",\"version\":");
    l.int(m.version);
    l.raw(b",\"data\":");
    write_struct(l, &m.data);
    l.raw(b"}");
}

/// Which of the two printed slots a text goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Key,
    Value,
}

/// The message a dump prints for an undecoded record (an error path: allocating is fine), the
/// slot it goes in and whether the raw bytes follow it in text.
fn problem_text(problem: &Problem, record_type: Option<i16>, offset: i64) -> (Slot, String, bool) {
    let error_at = |framing: Framing| match framing {
        Framing::ClusterMetadata => "Error at",
        Framing::RemoteLogMetadata => "Error at offset",
    };
    match problem {
        Problem::MissingKey => (
            Slot::Key,
            format!(
                "Failed to decode message at offset {offset} using the specified decoder \
                 (message had a missing key)"
            ),
            false,
        ),
        Problem::MissingValue { framing } => (
            Slot::Value,
            format!(
                "{} {offset}, skipping. metadata record without a value",
                error_at(*framing)
            ),
            false,
        ),
        Problem::Framed { framing, error } => (
            Slot::Value,
            format!("{} {offset}, skipping. {}", error_at(*framing), error.kind),
            true,
        ),
        Problem::Record(error) => {
            let text = match error.kind {
                ErrorKind::UnknownRecordType(_) => format!(
                    "Unknown record type {} at offset {offset}, skipping.",
                    record_type.unwrap_or(-1)
                ),
                ref kind => format!("Error at offset {offset}, skipping. {kind}"),
            };
            (Slot::Key, text, true)
        }
    }
}

fn opt_hex(l: &mut JsonLine<'_>, bytes: Option<&[u8]>) {
    match bytes {
        Some(b) => {
            l.raw(b"\"");
            push_hex(l.0, b);
            l.raw(b"\"");
        }
        None => l.raw(b"null"),
    }
}

/// Appends `,"decodedKey":...` and/or `,"decodedValue":...` for one record to a `--json` line.
pub fn write_decoded_json(
    out: &mut Vec<u8>,
    d: &Decoded<'_>,
    offset: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) {
    let mut l = JsonLine(out);
    match d {
        Decoded::Record { key, value } => {
            l.raw(b",\"decodedKey\":");
            write_key(&mut l, key);
            l.raw(b",\"decodedValue\":");
            match value {
                Some(v) => write_coordinator_value(&mut l, v),
                None => l.raw(b"\"<DELETE>\""),
            }
        }
        Decoded::Framed(m) => {
            l.raw(b",\"decodedValue\":");
            write_metadata_record(&mut l, m);
        }
        Decoded::Undecoded {
            record_type,
            problem,
        } => {
            let (slot, text, _) = problem_text(problem, *record_type, offset);
            l.raw(match slot {
                Slot::Key => b",\"decodedKey\":",
                Slot::Value => b",\"decodedValue\":",
            });
            l.raw(b"{\"undecoded\":true,\"recordType\":");
            let shown_type = match problem {
                Problem::Record(_) => *record_type,
                _ => None,
            };
            l.opt_int(shown_type);
            l.raw(b",\"reason\":");
            l.str(&text);
            l.raw(b",\"keyHex\":");
            opt_hex(&mut l, key);
            l.raw(b",\"valueHex\":");
            opt_hex(&mut l, value);
            l.raw(b"}");
        }
    }
}

/// Renders the decoded key and value of one record as Kafka's `--print-data-log` text into
/// `scratch` (cleared first) and returns where each is: the caller escapes them for the
/// terminal and writes `key: ` / `payload: ` before them.
pub fn write_decoded_text(
    scratch: &mut Vec<u8>,
    d: &Decoded<'_>,
    offset: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> (Option<Range<usize>>, Option<Range<usize>>) {
    scratch.clear();
    let mut l = JsonLine(scratch);
    match d {
        Decoded::Record { key, value } => {
            write_key(&mut l, key);
            let k = 0..l.0.len();
            match value {
                Some(v) => write_coordinator_value(&mut l, v),
                None => l.raw(b"<DELETE>"),
            }
            (Some(k.clone()), Some(k.end..l.0.len()))
        }
        Decoded::Framed(m) => {
            write_metadata_record(&mut l, m);
            (None, Some(0..l.0.len()))
        }
        Decoded::Undecoded {
            record_type,
            problem,
        } => {
            let (slot, text, with_hex) = problem_text(problem, *record_type, offset);
            l.raw(text.as_bytes());
            if with_hex {
                l.raw(b" (key hex: ");
                match key {
                    Some(k) => push_hex(l.0, k),
                    None => l.raw(b"null"),
                }
                l.raw(b", value hex: ");
                match value {
                    Some(v) => push_hex(l.0, v),
                    None => l.raw(b"null"),
                }
                l.raw(b")");
            }
            let all = Some(0..l.0.len());
            match slot {
                Slot::Key => (all, None),
                Slot::Value => (None, all),
            }
        }
    }
}

#[cfg(test)]
#[path = "coordinator_tests.rs"]
mod tests;
