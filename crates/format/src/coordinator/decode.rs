//! The schema-driven decoder: reads a [`Message`] at a version into a [`StructValue`] over the
//! borrowed bytes, following Kafka's generated `read` methods.
//!
//! Classic encoding (int16 string lengths, int32 byte/array lengths) below the message's
//! flexible versions, compact encoding (unsigned varint N+1 lengths) and a tagged-field section
//! after every struct from them on. A negative length means null for a nullable field and is an
//! error otherwise. Unknown tags are skipped. A known tag must be consumed exactly by its
//! declared size (Kafka does not check; a mismatch can only come from a damaged or foreign
//! record). Array counts are checked against the bytes left before anything is allocated.
//! Nothing here panics on any input.
//!
//! Which fields the result holds is what Kafka's `*JsonConverter.write` prints: fields not
//! present at the version are left out, and a tagged field is kept only when written and
//! different from its default ([`is_default`]).

use super::error::{Error, ErrorKind, Result};
use super::schema::{Field, FieldDefault, Message, Prim, Struct, Type, Versions, WireVersion};
use super::value::{StructValue, Value};
use crate::reader::Reader;

/// Decodes `msg` at `version` from `r`, leaving `r` after the message (trailing bytes are the
/// caller's business).
pub fn read_message<'a>(
    msg: &'static Message,
    version: i16,
    r: &mut Reader<'a>,
) -> Result<StructValue<'a>> {
    read_struct(&msg.root, msg.valid, WireVersion::of(msg, version), r)
}

fn read_struct<'a>(
    s: &'static Struct,
    parent: Versions,
    ctx: WireVersion,
    r: &mut Reader<'a>,
) -> Result<StructValue<'a>> {
    let cur = parent.intersect(s.versions);
    let v = ctx.version;
    let mut fields = Vec::with_capacity(s.fields.len());
    for f in s.fields {
        if f.present(cur, v) && !f.tagged_at(cur, ctx) {
            fields.push((f, read_field(f, cur, ctx, r, false)?));
        }
    }
    if ctx.flexible {
        read_tagged_section(s, cur, ctx, r, &mut fields)?;
    }
    Ok(StructValue { fields })
}

fn read_tagged_section<'a>(
    s: &'static Struct,
    cur: Versions,
    ctx: WireVersion,
    r: &mut Reader<'a>,
    fields: &mut Vec<(&'static Field, Value<'a>)>,
) -> Result<()> {
    let count = r.uvarint("tagged field count")?;
    // (schema index, value): the last occurrence of a tag wins, as in Kafka.
    let mut tagged: Vec<(usize, Value<'a>)> = Vec::new();
    for _ in 0..count {
        let tag = r.uvarint("tag")?;
        let size = r.uvarint("tagged field size")? as usize;
        let at = r.position();
        let data = r.bytes(size, "tagged field")?;
        let Some(i) = s.fields.iter().position(|f| f.tag == tag && f.tag_known()) else {
            continue; // an unknown tag: Kafka keeps the raw bytes and prints nothing
        };
        let f = &s.fields[i];
        if !f.tagged_at(cur, ctx) {
            return Err(Error::new(
                at,
                ErrorKind::TagNotValid {
                    record: s.name,
                    tag,
                    version: ctx.version,
                },
            ));
        }
        let mut sub = Reader::with_origin(data, at);
        let value = read_field(f, cur, ctx, &mut sub, true)?;
        if !sub.is_empty() {
            return Err(Error::new(
                sub.position(),
                ErrorKind::TagSize {
                    record: s.name,
                    field: f.name,
                    tag,
                    declared: size,
                    used: size - sub.remaining(),
                },
            ));
        }
        match tagged.iter_mut().find(|(j, _)| *j == i) {
            Some(slot) => slot.1 = value,
            None => tagged.push((i, value)),
        }
    }
    for (i, value) in tagged {
        let f = &s.fields[i];
        if is_default(f, cur, ctx, &value) {
            continue;
        }
        // Before the first field that comes later in the schema.
        let later = &s.fields[i + 1..];
        let at = fields
            .iter()
            .position(|(g, _)| later.iter().any(|l| std::ptr::eq(*g, l)))
            .unwrap_or(fields.len());
        fields.insert(at, (f, value));
    }
    Ok(())
}

fn null_or_error<'a>(name: &'static str, nullable: bool, at: usize) -> Result<Value<'a>> {
    if nullable {
        Ok(Value::Null)
    } else {
        Err(Error::new(at, ErrorKind::NullNotAllowed { field: name }))
    }
}

fn read_field<'a>(
    f: &'static Field,
    cur: Versions,
    ctx: WireVersion,
    r: &mut Reader<'a>,
    tagged: bool,
) -> Result<Value<'a>> {
    let nullable = f.nullable_at(cur, ctx);
    match f.ty {
        Type::Prim(p) => read_prim(p, f.name, nullable, ctx.flexible, r),
        Type::Struct(s) => {
            if nullable {
                // A tagged struct carries a varint presence marker, an inline one an int8.
                let present = if tagged {
                    (r.uvarint(f.name)? as i32) > 0
                } else {
                    r.i8(f.name)? >= 0
                };
                if !present {
                    return Ok(Value::Null);
                }
            }
            read_struct(s, cur, ctx, r).map(Value::Struct)
        }
        Type::Array(p) => {
            let at = r.position();
            let Some(n) = read_count(r, f.name, ctx.flexible, prim_min_size(p, ctx.flexible))?
            else {
                return null_or_error(f.name, nullable, at);
            };
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                out.push(read_prim(p, f.name, false, ctx.flexible, r)?);
            }
            Ok(Value::Array(out))
        }
        Type::StructArray(s) => {
            let at = r.position();
            let Some(n) = read_count(r, f.name, ctx.flexible, 1)? else {
                return null_or_error(f.name, nullable, at);
            };
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                out.push(Value::Struct(read_struct(s, cur, ctx, r)?));
            }
            Ok(Value::Array(out))
        }
    }
}

/// Smallest encoding of one array element, to bound counts by the bytes left.
pub(crate) fn prim_min_size(p: Prim, flexible: bool) -> usize {
    match p {
        Prim::Bool | Prim::Int8 => 1,
        Prim::Int16 | Prim::Uint16 => 2,
        Prim::Int32 | Prim::Uint32 => 4,
        Prim::Int64 | Prim::Float64 => 8,
        Prim::Uuid => 16,
        Prim::String if !flexible => 2,
        Prim::Bytes | Prim::Records if !flexible => 4,
        Prim::String | Prim::Bytes | Prim::Records => 1,
    }
}

/// A length as Java computes it: int16/int32 in classic encoding, `uvarint - 1` (as an int)
/// in compact encoding. Negative means null.
fn read_length(r: &mut Reader<'_>, what: &str, flexible: bool, classic16: bool) -> Result<i32> {
    Ok(if flexible {
        (r.uvarint(what)? as i32).wrapping_sub(1)
    } else if classic16 {
        r.i16(what)? as i32
    } else {
        r.i32(what)?
    })
}

/// An array count (`None` = null), checked against the bytes left.
fn read_count(
    r: &mut Reader<'_>,
    what: &'static str,
    flexible: bool,
    min_element_size: usize,
) -> Result<Option<usize>> {
    let at = r.position();
    let n = read_length(r, what, flexible, false)?;
    if n < 0 {
        return Ok(None);
    }
    let n = n as usize;
    if n.saturating_mul(min_element_size.max(1)) > r.remaining() {
        return Err(Error::new(
            at,
            ErrorKind::CountTooLarge {
                field: what,
                count: n,
                left: r.remaining(),
            },
        ));
    }
    Ok(Some(n))
}

fn read_prim<'a>(
    p: Prim,
    name: &'static str,
    nullable: bool,
    flexible: bool,
    r: &mut Reader<'a>,
) -> Result<Value<'a>> {
    Ok(match p {
        Prim::Bool => Value::Bool(r.u8(name)? != 0),
        Prim::Int8 => Value::Int(r.i8(name)?.into()),
        Prim::Int16 => Value::Int(r.i16(name)?.into()),
        Prim::Uint16 => Value::Int(r.u16(name)?.into()),
        Prim::Uint32 => Value::Int(r.u32(name)?.into()),
        Prim::Int32 => Value::Int(r.i32(name)?.into()),
        Prim::Int64 => Value::Int(r.i64(name)?),
        Prim::Float64 => Value::Float(f64::from_bits(r.i64(name)? as u64)),
        Prim::Uuid => Value::Uuid(r.uuid(name)?),
        Prim::String => {
            let at = r.position();
            let len = read_length(r, name, flexible, true)?;
            if len < 0 {
                return null_or_error(name, nullable, at);
            }
            if len > 0x7fff {
                return Err(Error::new(at, ErrorKind::StringLength { field: name, len }));
            }
            Value::Str(r.bytes(len as usize, name)?)
        }
        Prim::Bytes | Prim::Records => {
            let at = r.position();
            let len = read_length(r, name, flexible, false)?;
            if len < 0 {
                return null_or_error(name, nullable, at);
            }
            let bytes = r.bytes(len as usize, name)?;
            if p == Prim::Records {
                Value::Records(bytes)
            } else {
                Value::Bytes(bytes)
            }
        }
    })
}

/// Whether `v` equals the field's default the way Kafka's converter (and the JSON it writes)
/// compares them: a tagged field at its default is not printed.
pub(crate) fn is_default(f: &Field, cur: Versions, ctx: WireVersion, v: &Value<'_>) -> bool {
    use base64::Engine;
    let str_eq = |s: &str| match *v {
        Value::Str(b) => String::from_utf8_lossy(b) == s,
        Value::Uuid(u) => crate::protocol::uuid_string(&u) == s,
        Value::Bytes(b) => base64::engine::general_purpose::STANDARD.encode(b) == s,
        Value::Records(_) => s.is_empty(),
        _ => false,
    };
    let float_eq = |x: f64| matches!(*v, Value::Float(y) if x == y || (x.is_nan() && y.is_nan()));
    match f.default {
        FieldDefault::Null => v.is_null(),
        FieldDefault::Int(n) => matches!(*v, Value::Int(i) if i == n),
        FieldDefault::Bool(b) => matches!(*v, Value::Bool(x) if x == b),
        FieldDefault::Float(x) => float_eq(x),
        FieldDefault::Str(s) => str_eq(s),
        FieldDefault::Zero => match f.ty {
            Type::Prim(p) => match p {
                Prim::Bool => matches!(*v, Value::Bool(false)),
                Prim::Float64 => float_eq(0.0),
                Prim::String | Prim::Bytes => str_eq(""),
                Prim::Uuid => matches!(*v, Value::Uuid(u) if u == [0; 16]),
                Prim::Records => v.is_null(),
                _ => matches!(*v, Value::Int(0)),
            },
            Type::Struct(s) => {
                let cur = cur.intersect(s.versions);
                match v {
                    Value::Struct(sv) => sv
                        .fields
                        .iter()
                        .all(|(g, x)| !g.tagged_at(cur, ctx) && is_default(g, cur, ctx, x)),
                    _ => false,
                }
            }
            Type::Array(_) | Type::StructArray(_) => {
                matches!(v, Value::Array(items) if items.is_empty())
            }
        },
    }
}

/// A struct of defaults: what Kafka prints for a freshly constructed message.
pub fn default_message(msg: &'static Message, version: i16) -> StructValue<'static> {
    default_struct(&msg.root, msg.valid, WireVersion::of(msg, version))
}

fn default_struct(s: &'static Struct, parent: Versions, ctx: WireVersion) -> StructValue<'static> {
    let cur = parent.intersect(s.versions);
    let fields = s
        .fields
        .iter()
        .filter(|f| f.present(cur, ctx.version) && !f.tagged_at(cur, ctx))
        .map(|f| (f, default_value(f, cur, ctx)))
        .collect();
    StructValue { fields }
}

fn default_value(f: &'static Field, cur: Versions, ctx: WireVersion) -> Value<'static> {
    match f.default {
        FieldDefault::Null => Value::Null,
        FieldDefault::Int(n) => Value::Int(n),
        FieldDefault::Bool(b) => Value::Bool(b),
        FieldDefault::Float(x) => Value::Float(x),
        FieldDefault::Str(s) => match f.ty {
            Type::Prim(Prim::Uuid) => {
                Value::Uuid(crate::protocol::parse_uuid(s).unwrap_or_default())
            }
            _ => Value::Str(s.as_bytes()),
        },
        FieldDefault::Zero => match f.ty {
            Type::Prim(p) => match p {
                Prim::Bool => Value::Bool(false),
                Prim::Float64 => Value::Float(0.0),
                Prim::String => Value::Str(b""),
                Prim::Bytes => Value::Bytes(b""),
                Prim::Uuid => Value::Uuid([0; 16]),
                Prim::Records => Value::Null,
                _ => Value::Int(0),
            },
            Type::Struct(s) => Value::Struct(default_struct(s, cur, ctx)),
            Type::Array(_) | Type::StructArray(_) => Value::Array(Vec::new()),
        },
    }
}
