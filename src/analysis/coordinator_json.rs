//! Coordinator records as `serde_json` values, for the `groups` analysis that keeps the latest
//! KIP-848/share/streams records of each group as JSON (the same shapes `dump-log` prints:
//! `{"type":"<t>","data":{...}}` keys, `{"version":"<v>","data":{...}}` values). Everything
//! else reads the typed values (`format::coordinator::Value`) directly.

use base64::Engine;
use serde_json::{Map, Number, Value as Json};

use crate::format::coordinator::{CoordinatorKey, CoordinatorValue, StructValue, Value};
use crate::format::protocol::uuid_string;

pub fn key_json(k: &CoordinatorKey<'_>) -> Json {
    let mut m = Map::new();
    m.insert("type".into(), k.record_type.to_string().into());
    m.insert("data".into(), struct_json(&k.data));
    Json::Object(m)
}

pub fn value_json(v: &CoordinatorValue<'_>) -> Json {
    let mut m = Map::new();
    m.insert("version".into(), v.version.to_string().into());
    m.insert("data".into(), struct_json(&v.data));
    Json::Object(m)
}

pub fn struct_json(s: &StructValue<'_>) -> Json {
    Json::Object(
        s.fields
            .iter()
            .map(|(f, v)| (f.name.to_string(), json(v)))
            .collect(),
    )
}

fn json(v: &Value<'_>) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => (*b).into(),
        Value::Int(n) => (*n).into(),
        Value::Float(x) => match Number::from_f64(*x) {
            Some(n) => Json::Number(n),
            None if x.is_nan() => "NaN".into(),
            None if *x > 0.0 => "Infinity".into(),
            None => "-Infinity".into(),
        },
        Value::Uuid(u) => uuid_string(u).into(),
        Value::Str(b) => String::from_utf8_lossy(b).into_owned().into(),
        Value::Bytes(b) => base64::engine::general_purpose::STANDARD.encode(b).into(),
        Value::Records(_) => "".into(),
        Value::Struct(s) => struct_json(s),
        Value::Array(items) => Json::Array(items.iter().map(json).collect()),
        Value::Embedded(e) => struct_json(&e.data),
        Value::Named { name: Some(n), .. } => (*n).into(),
        Value::Named { id, name: None } => id.to_string().into(),
    }
}
