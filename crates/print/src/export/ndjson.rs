//! `--format ndjson`: each row as one JSON object, the columns' names as keys. Binary columns
//! (keys, values, header values) in base64, as Spark's `to_json` writes binary; timestamps in
//! RFC 3339 UTC with their microseconds.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int16Type, Int32Type, Int64Type, Int8Type, TimestampMicrosecondType, UInt32Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use base64::Engine;
use serde_json::{Map, Value};

/// Appends the rows of `batch` to `out`, one line each.
pub(super) fn write_rows(batch: &RecordBatch, out: &mut Vec<u8>) {
    let schema = batch.schema();
    for row in 0..batch.num_rows() {
        let mut object = Map::new();
        for (field, column) in schema.fields().iter().zip(batch.columns()) {
            object.insert(field.name().clone(), value_at(column.as_ref(), row));
        }
        serde_json::to_writer(&mut *out, &Value::Object(object)).expect("writing to a Vec");
        out.push(b'\n');
    }
}

fn value_at(a: &dyn Array, i: usize) -> Value {
    if a.is_null(i) {
        return Value::Null;
    }
    match a.data_type() {
        DataType::Binary => Value::String(
            base64::engine::general_purpose::STANDARD.encode(a.as_binary::<i32>().value(i)),
        ),
        DataType::Utf8 => Value::String(a.as_string::<i32>().value(i).to_string()),
        DataType::Boolean => Value::Bool(a.as_boolean().value(i)),
        DataType::Int8 => a.as_primitive::<Int8Type>().value(i).into(),
        DataType::Int16 => a.as_primitive::<Int16Type>().value(i).into(),
        DataType::Int32 => a.as_primitive::<Int32Type>().value(i).into(),
        DataType::Int64 => a.as_primitive::<Int64Type>().value(i).into(),
        DataType::UInt32 => a.as_primitive::<UInt32Type>().value(i).into(),
        DataType::Timestamp(..) => {
            let us = a.as_primitive::<TimestampMicrosecondType>().value(i);
            match jiff::Timestamp::from_microsecond(us) {
                Ok(t) => Value::String(format!("{t:.6}")),
                Err(_) => us.into(),
            }
        }
        DataType::List(_) => {
            let list = a.as_list::<i32>();
            let items = list.value(i);
            (0..items.len())
                .map(|j| value_at(items.as_ref(), j))
                .collect()
        }
        DataType::Struct(fields) => {
            let s = a.as_struct();
            let mut object = Map::new();
            for (f, c) in fields.iter().zip(s.columns()) {
                object.insert(f.name().clone(), value_at(c.as_ref(), i));
            }
            Value::Object(object)
        }
        other => unreachable!("no export column is {other}"),
    }
}
