//! The schema-driven encoder, the inverse of [`super::decode::read_message`]: writes a
//! [`StructValue`] as `msg` at a version, in Kafka's wire layout (classic or compact encoding,
//! tagged sections sorted by tag). Tagged fields are written when present in the value;
//! every other field present at the version must be there.
//!
//! This is what a writer of coordinator records builds on (the broker's `__consumer_offsets`
//! and `__transaction_state` records: see `broker/records.rs`): build the value with
//! [`StructBuilder`] and encode it, and the bytes follow the same generated tables as the
//! decoder.

use super::schema::{Field, Message, Prim, Struct, Type, Versions, WireVersion};
use super::value::{StructValue, Value};
use crate::reader::put_uvarint;

/// A value that cannot be written as the schema says: a missing field or a wrong type (a bug of
/// the caller), or a value the wire cannot carry (a string over 0x7fff bytes, an integer out of
/// its field's range, a count over the prefix's range), which input can cause: a writer must
/// refuse the write, never store what nothing can read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError {
    pub message: String,
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EncodeError {}

/// The longest string Kafka writes or reads (its generated code refuses longer ones in both
/// the classic and the compact encoding).
pub const MAX_STRING_BYTES: usize = 0x7fff;

fn fail<T>(message: String) -> Result<T, EncodeError> {
    Err(EncodeError { message })
}

/// Encodes `value` as `msg` at `version` (no version prefix).
pub fn encode_message(
    msg: &'static Message,
    version: i16,
    value: &StructValue<'_>,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    write_struct(
        &msg.root,
        msg.valid,
        WireVersion::of(msg, version),
        value,
        out,
    )
}

/// Builds a [`StructValue`] field by field in schema order, by JSON name.
pub struct StructBuilder<'a> {
    schema: &'static Struct,
    value: StructValue<'a>,
}

impl<'a> StructBuilder<'a> {
    pub fn new(msg: &'static Message) -> Self {
        Self::of(&msg.root)
    }

    pub fn of(schema: &'static Struct) -> Self {
        StructBuilder {
            schema,
            value: StructValue::default(),
        }
    }

    /// Sets field `name`. Panics when the schema has no such field (a caller's bug, caught by
    /// its tests).
    pub fn set(mut self, name: &str, v: Value<'a>) -> Self {
        let f = self
            .schema
            .fields
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("{} has no field {name}", self.schema.name));
        self.value.fields.push((f, v));
        self
    }

    /// The struct type of field `name` (a struct or an array of structs), to build its
    /// elements with [`StructBuilder::of`]. Panics like [`StructBuilder::set`].
    pub fn element(&self, name: &str) -> &'static Struct {
        match self
            .schema
            .fields
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.ty)
        {
            Some(Type::Struct(s) | Type::StructArray(s)) => s,
            _ => panic!("{}.{name} is not a struct field", self.schema.name),
        }
    }

    pub fn build(self) -> StructValue<'a> {
        self.value
    }
}

fn find<'v, 'a>(value: &'v StructValue<'a>, f: &Field) -> Option<&'v Value<'a>> {
    value
        .fields
        .iter()
        .find(|(g, _)| std::ptr::eq(*g, f) || g.name == f.name)
        .map(|(_, v)| v)
}

fn write_struct(
    s: &'static Struct,
    parent: Versions,
    ctx: WireVersion,
    value: &StructValue<'_>,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let cur = parent.intersect(s.versions);
    let mut tagged = Vec::new();
    for f in s.fields {
        let v = find(value, f);
        if !f.present(cur, ctx.version) {
            if v.is_some() {
                return fail(format!("{}.{} is absent at this version", s.name, f.name));
            }
            continue;
        }
        if f.tagged_at(cur, ctx) {
            if let Some(v) = v {
                tagged.push((f.tag, f, v));
            }
            continue;
        }
        let Some(v) = v else {
            return fail(format!("{}.{} is missing", s.name, f.name));
        };
        write_field(f, cur, ctx, v, out, false)?;
    }
    if ctx.flexible {
        tagged.sort_by_key(|t| t.0);
        put_uvarint(out, tagged.len() as u32);
        let mut data = Vec::new();
        for (tag, f, v) in tagged {
            data.clear();
            write_field(f, cur, ctx, v, &mut data, true)?;
            put_uvarint(out, tag);
            put_uvarint(out, data.len() as u32);
            out.extend_from_slice(&data);
        }
    }
    Ok(())
}

/// A length or count prefix: compact `n + 1` (0 for null) when flexible, else an i16/i32 (-1
/// for null). A string (`classic16`) is at most [`MAX_STRING_BYTES`] in either encoding, as
/// Kafka's generated writers check; a count is at most `i32::MAX`.
#[doc(hidden)]
pub fn write_length(
    out: &mut Vec<u8>,
    len: Option<usize>,
    flexible: bool,
    classic16: bool,
) -> Result<(), EncodeError> {
    let max = if classic16 {
        MAX_STRING_BYTES
    } else {
        i32::MAX as usize
    };
    if let Some(n) = len.filter(|&n| n > max) {
        return fail(format!(
            "a length of {n} is over the {max} the wire can carry"
        ));
    }
    match (flexible, classic16) {
        (true, _) => put_uvarint(out, len.map_or(0, |n| n as u32 + 1)),
        (false, true) => out.extend_from_slice(&len.map_or(-1, |n| n as i16).to_be_bytes()),
        (false, false) => out.extend_from_slice(&len.map_or(-1, |n| n as i32).to_be_bytes()),
    }
    Ok(())
}

fn write_field(
    f: &Field,
    cur: Versions,
    ctx: WireVersion,
    v: &Value<'_>,
    out: &mut Vec<u8>,
    tagged: bool,
) -> Result<(), EncodeError> {
    let nullable = f.nullable_at(cur, ctx);
    if v.is_null() && !nullable {
        return fail(format!("{} is not nullable", f.name));
    }
    match f.ty {
        Type::Prim(p) => write_prim(p, f.name, v, ctx.flexible, out),
        Type::Struct(s) => {
            if nullable {
                match (v.is_null(), tagged) {
                    (true, true) => {
                        put_uvarint(out, 0);
                        return Ok(());
                    }
                    (true, false) => {
                        out.push(0xff);
                        return Ok(());
                    }
                    (false, true) => put_uvarint(out, 1),
                    (false, false) => out.push(1),
                }
            }
            match v {
                Value::Struct(sv) => write_struct(s, cur, ctx, sv, out),
                _ => fail(format!("{} is a struct", f.name)),
            }
        }
        Type::Array(p) => match v {
            Value::Null => write_length(out, None, ctx.flexible, false),
            Value::Array(items) => {
                write_length(out, Some(items.len()), ctx.flexible, false)?;
                items
                    .iter()
                    .try_for_each(|item| write_prim(p, f.name, item, ctx.flexible, out))
            }
            _ => fail(format!("{} is an array", f.name)),
        },
        Type::StructArray(s) => match v {
            Value::Null => write_length(out, None, ctx.flexible, false),
            Value::Array(items) => {
                write_length(out, Some(items.len()), ctx.flexible, false)?;
                items.iter().try_for_each(|item| match item {
                    Value::Struct(sv) => write_struct(s, cur, ctx, sv, out),
                    _ => fail(format!("{} holds structs", f.name)),
                })
            }
            _ => fail(format!("{} is an array", f.name)),
        },
    }
}

fn write_prim(
    p: Prim,
    name: &str,
    v: &Value<'_>,
    flexible: bool,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    // An integer must fit its field: a wrapped value would be stored as another one.
    let int = |min: i64, max: i64| match v.as_int() {
        Some(n) if (min..=max).contains(&n) => Ok(n),
        Some(n) => fail(format!("{name}: {n} is outside {min}..={max}")),
        None => fail(format!("{name} is an integer")),
    };
    match p {
        Prim::Bool => match v {
            Value::Bool(b) => out.push(*b as u8),
            _ => return fail(format!("{name} is a bool")),
        },
        Prim::Int8 => out.push(int(i8::MIN.into(), i8::MAX.into())? as u8),
        Prim::Int16 => {
            out.extend_from_slice(&(int(i16::MIN.into(), i16::MAX.into())? as u16).to_be_bytes())
        }
        Prim::Uint16 => out.extend_from_slice(&(int(0, u16::MAX.into())? as u16).to_be_bytes()),
        Prim::Int32 => {
            out.extend_from_slice(&(int(i32::MIN.into(), i32::MAX.into())? as u32).to_be_bytes())
        }
        Prim::Uint32 => out.extend_from_slice(&(int(0, u32::MAX.into())? as u32).to_be_bytes()),
        Prim::Int64 => out.extend_from_slice(&int(i64::MIN, i64::MAX)?.to_be_bytes()),
        Prim::Float64 => match v {
            Value::Float(x) => out.extend_from_slice(&x.to_bits().to_be_bytes()),
            _ => return fail(format!("{name} is a float")),
        },
        Prim::Uuid => match v {
            Value::Uuid(u) => out.extend_from_slice(u),
            _ => return fail(format!("{name} is a uuid")),
        },
        Prim::String => match v {
            Value::Null => write_length(out, None, flexible, true)?,
            Value::Str(s) => {
                write_length(out, Some(s.len()), flexible, true).map_err(|e| EncodeError {
                    message: format!("{name}: {}", e.message),
                })?;
                out.extend_from_slice(s);
            }
            _ => return fail(format!("{name} is a string")),
        },
        Prim::Bytes | Prim::Records => {
            let b = match v {
                Value::Null => return write_length(out, None, flexible, false),
                Value::Bytes(b) | Value::Records(b) => b,
                Value::Embedded(e) => e.bytes,
                _ => return fail(format!("{name} is bytes")),
            };
            write_length(out, Some(b.len()), flexible, false)?;
            out.extend_from_slice(b);
        }
    }
    Ok(())
}
