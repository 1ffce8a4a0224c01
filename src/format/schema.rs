//! A small data-driven decoder for Kafka message-protocol structs (the `*.json` message specs
//! behind coordinator records, KRaft metadata records and the consumer protocol).
//!
//! A [`Message`] is a static table of [`Field`]s (see `coordinator::tables`, generated from
//! Kafka's JSON specs). [`read_message`] decodes one at a version and returns the JSON that
//! Kafka's generated `*JsonConverter.write(message, version)` prints:
//! - field names are the schema names with the first letter lower-cased;
//! - fields not present at that version are omitted;
//! - tagged fields are written only when present *and* different from their default (Kafka's
//!   converter skips default values, and an absent tagged field has its default);
//! - int64 as JSON numbers, uuid as Kafka's URL-safe unpadded Base64, bytes as standard Base64
//!   with padding, `records` as `""` (what the converter writes), null as `null`;
//! - float64 NaN and infinities as the strings `"NaN"`, `"Infinity"`, `"-Infinity"` (Jackson's
//!   default). Finite doubles are JSON numbers; Java would print large ones as `1.0E7`.
//!
//! Reading follows Kafka's generated `read` methods: classic encoding (int16 string lengths,
//! int32 byte/array lengths) below the message's flexible versions, compact encoding (unsigned
//! varint N+1 lengths) and a tagged-field section after every struct from them on. A negative
//! length means null for a nullable field and is an error otherwise; invalid UTF-8 in strings is
//! replaced by U+FFFD as Java's `new String(bytes, UTF_8)` does. Unknown tags are skipped. A
//! known tag must be consumed exactly by its declared size (Kafka does not check; a mismatch can
//! only come from a damaged or foreign record). Array counts are checked against the bytes left
//! before anything is allocated. Nothing here panics on any input.
//!
//! Version tests reproduce the generated code even outside `validVersions` (which matters for
//! the consumer protocol, whose readers parse newer versions with the newest layout): a field is
//! read unless the version lies below its lowest or above its highest version, where a bound
//! that the message's own version range already implies is not tested.

use base64::Engine;
use serde_json::{Map, Number, Value};

use super::protocol::uuid_string;
use super::reader::{DecodeError, DecodeResult, Reader};

/// A version range; empty when `lowest > highest`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Versions {
    pub lowest: i16,
    pub highest: i16,
}

/// No versions (`"none"`).
pub const VNONE: Versions = Versions {
    lowest: 0,
    highest: -1,
};

/// `"N+"`.
pub const fn vp(lowest: i16) -> Versions {
    Versions {
        lowest,
        highest: i16::MAX,
    }
}

/// `"A-B"` (and `"N"` as `vr(N, N)`).
pub const fn vr(lowest: i16, highest: i16) -> Versions {
    Versions { lowest, highest }
}

impl Versions {
    pub const fn is_empty(self) -> bool {
        self.lowest > self.highest
    }

    pub const fn contains(self, v: i16) -> bool {
        !self.is_empty() && self.lowest <= v && v <= self.highest
    }

    pub fn intersect(self, other: Versions) -> Versions {
        Versions {
            lowest: self.lowest.max(other.lowest),
            highest: self.highest.min(other.highest),
        }
    }

    /// Kafka's generated version test (`VersionConditional`): whether `v` counts as one of these
    /// versions in code generated for the range `within`. Bounds implied by `within` are not
    /// tested, so for `v` inside `within` this is plain [`Versions::contains`].
    pub fn includes(self, within: Versions, v: i16) -> bool {
        if self.intersect(within).is_empty() {
            return false;
        }
        (self.lowest <= within.lowest || v >= self.lowest)
            && (self.highest >= within.highest || v <= self.highest)
    }
}

/// Fixed-width and variable-length scalar types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prim {
    Bool,
    Int8,
    Int16,
    Uint16,
    Uint32,
    Int32,
    Int64,
    Float64,
    String,
    Bytes,
    Uuid,
    Records,
}

/// A field type. Kafka has no arrays of arrays.
#[derive(Clone, Copy, Debug)]
pub enum Type {
    Prim(Prim),
    Struct(&'static Struct),
    Array(Prim),
    StructArray(&'static Struct),
}

/// A field's default, as the spec gives it. `Zero` is the type's own default: 0, false, `""`,
/// the zero uuid, an empty array, empty bytes, or a struct of defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldDefault {
    Zero,
    Null,
    Int(i64),
    Bool(bool),
    Float(f64),
    Str(&'static str),
}

#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// JSON name: the spec name with its first letter lower-cased.
    pub name: &'static str,
    pub ty: Type,
    pub versions: Versions,
    pub nullable: Versions,
    pub tagged: Versions,
    pub tag: u32,
    pub default: FieldDefault,
}

/// A field present at `versions`, not nullable, not tagged, default zero.
pub const fn field(name: &'static str, ty: Type, versions: Versions) -> Field {
    Field {
        name,
        ty,
        versions,
        nullable: VNONE,
        tagged: VNONE,
        tag: 0,
        default: FieldDefault::Zero,
    }
}

impl Field {
    pub const fn nullable(mut self, versions: Versions) -> Field {
        self.nullable = versions;
        self
    }

    pub const fn tagged(mut self, versions: Versions, tag: u32) -> Field {
        self.tagged = versions;
        self.tag = tag;
        self
    }

    pub const fn with_default(mut self, default: FieldDefault) -> Field {
        self.default = default;
        self
    }
}

#[derive(Debug)]
pub struct Struct {
    pub name: &'static str,
    pub versions: Versions,
    pub fields: &'static [Field],
}

/// A top-level message spec.
#[derive(Debug)]
pub struct Message {
    pub name: &'static str,
    /// The record type / metadata apiKey; -1 for plain data messages.
    pub api_key: i16,
    pub valid: Versions,
    pub flexible: Versions,
    pub root: Struct,
}

impl Message {
    pub fn is_flexible(&self, version: i16) -> bool {
        self.flexible.includes(self.valid, version)
    }
}

#[derive(Clone, Copy)]
struct Ctx {
    version: i16,
    flexible: bool,
}

/// Decodes `msg` at `version` from `r`, leaving `r` after the message (trailing bytes are the
/// caller's business), and returns its generated-JsonConverter JSON object.
pub fn read_message(msg: &Message, version: i16, r: &mut Reader<'_>) -> DecodeResult<Value> {
    let ctx = Ctx {
        version,
        flexible: msg.is_flexible(version),
    };
    read_struct(&msg.root, msg.valid, ctx, r)
}

/// The JSON of `msg` at `version` with every field at its default (what Kafka prints for a
/// freshly constructed message).
pub fn default_message_json(msg: &Message, version: i16) -> Value {
    let ctx = Ctx {
        version,
        flexible: msg.is_flexible(version),
    };
    default_struct_json(&msg.root, msg.valid, ctx)
}

impl Field {
    fn present(&self, cur: Versions, v: i16) -> bool {
        self.versions.includes(cur, v)
    }

    /// Whether the field lives in the tagged-field section at this version.
    fn tagged_at(&self, cur: Versions, ctx: Ctx) -> bool {
        ctx.flexible && self.tagged.includes(cur, ctx.version)
    }

    fn tag_known(&self) -> bool {
        !self.versions.intersect(self.tagged).is_empty()
    }
}

fn read_struct(s: &Struct, parent: Versions, ctx: Ctx, r: &mut Reader<'_>) -> DecodeResult<Value> {
    let cur = parent.intersect(s.versions);
    let v = ctx.version;
    let mut slots: Vec<Option<Value>> = vec![None; s.fields.len()];
    for (slot, f) in slots.iter_mut().zip(s.fields) {
        if f.present(cur, v) && !f.tagged_at(cur, ctx) {
            *slot = Some(read_field(f, cur, ctx, r, false)?);
        }
    }
    if ctx.flexible {
        read_tagged_section(s, cur, ctx, r, &mut slots)?;
    }
    let mut map = Map::new();
    for (slot, f) in slots.iter_mut().zip(s.fields) {
        if !f.present(cur, v) {
            continue;
        }
        let value = slot.take();
        if f.tagged_at(cur, ctx) {
            if let Some(value) = value {
                if value != default_json(f, cur, ctx) {
                    map.insert(f.name.to_string(), value);
                }
            }
        } else {
            map.insert(f.name.to_string(), value.unwrap_or(Value::Null));
        }
    }
    Ok(Value::Object(map))
}

fn read_tagged_section(
    s: &Struct,
    cur: Versions,
    ctx: Ctx,
    r: &mut Reader<'_>,
    slots: &mut [Option<Value>],
) -> DecodeResult<()> {
    let count = r.uvarint("tagged field count")?;
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
            return Err(DecodeError::new(
                at,
                format!(
                    "{}: tag {tag} is not valid for version {}",
                    s.name, ctx.version
                ),
            ));
        }
        let mut sub = Reader::with_origin(data, at);
        let value = read_field(f, cur, ctx, &mut sub, true)?;
        if !sub.is_empty() {
            return Err(DecodeError::new(
                sub.position(),
                format!(
                    "{}: tagged field {} (tag {tag}) declares {size} bytes but uses {}",
                    s.name,
                    f.name,
                    size - sub.remaining()
                ),
            ));
        }
        slots[i] = Some(value);
    }
    Ok(())
}

fn null_or_error(f_name: &str, nullable: bool, at: usize) -> DecodeResult<Value> {
    if nullable {
        Ok(Value::Null)
    } else {
        Err(DecodeError::new(
            at,
            format!("non-nullable field {f_name} was serialized as null"),
        ))
    }
}

fn read_field(
    f: &Field,
    cur: Versions,
    ctx: Ctx,
    r: &mut Reader<'_>,
    tagged: bool,
) -> DecodeResult<Value> {
    let nullable = f.nullable.includes(cur, ctx.version);
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
            read_struct(s, cur, ctx, r)
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
                out.push(read_struct(s, cur, ctx, r)?);
            }
            Ok(Value::Array(out))
        }
    }
}

/// Smallest encoding of one array element, to bound counts by the bytes left.
fn prim_min_size(p: Prim, flexible: bool) -> usize {
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
fn read_length(
    r: &mut Reader<'_>,
    what: &str,
    flexible: bool,
    classic16: bool,
) -> DecodeResult<i32> {
    if flexible {
        Ok((r.uvarint(what)? as i32).wrapping_sub(1))
    } else if classic16 {
        Ok(r.i16(what)? as i32)
    } else {
        r.i32(what)
    }
}

/// An array count (`None` = null), checked against the bytes left.
fn read_count(
    r: &mut Reader<'_>,
    what: &str,
    flexible: bool,
    min_element_size: usize,
) -> DecodeResult<Option<usize>> {
    let at = r.position();
    let n = read_length(r, what, flexible, false)?;
    if n < 0 {
        return Ok(None);
    }
    let n = n as usize;
    if n.saturating_mul(min_element_size.max(1)) > r.remaining() {
        return Err(DecodeError::new(
            at,
            format!(
                "{what}: {n} elements cannot fit in the {} bytes left",
                r.remaining()
            ),
        ));
    }
    Ok(Some(n))
}

fn float_json(x: f64) -> Value {
    match Number::from_f64(x) {
        Some(n) => Value::Number(n),
        None if x.is_nan() => Value::String("NaN".into()),
        None if x > 0.0 => Value::String("Infinity".into()),
        None => Value::String("-Infinity".into()),
    }
}

fn read_prim(
    p: Prim,
    name: &str,
    nullable: bool,
    flexible: bool,
    r: &mut Reader<'_>,
) -> DecodeResult<Value> {
    Ok(match p {
        Prim::Bool => Value::Bool(r.u8(name)? != 0),
        Prim::Int8 => r.i8(name)?.into(),
        Prim::Int16 => r.i16(name)?.into(),
        Prim::Uint16 => r.u16(name)?.into(),
        Prim::Uint32 => r.u32(name)?.into(),
        Prim::Int32 => r.i32(name)?.into(),
        Prim::Int64 => r.i64(name)?.into(),
        Prim::Float64 => float_json(f64::from_bits(r.i64(name)? as u64)),
        Prim::Uuid => uuid_string(&r.uuid(name)?).into(),
        Prim::String => {
            let at = r.position();
            let len = read_length(r, name, flexible, true)?;
            if len < 0 {
                return null_or_error(name, nullable, at);
            }
            if len > 0x7fff {
                return Err(DecodeError::new(
                    at,
                    format!("string field {name} had invalid length {len}"),
                ));
            }
            let bytes = r.bytes(len as usize, name)?;
            Value::String(String::from_utf8_lossy(bytes).into_owned())
        }
        Prim::Bytes | Prim::Records => {
            let at = r.position();
            let len = read_length(r, name, flexible, false)?;
            if len < 0 {
                return null_or_error(name, nullable, at);
            }
            let bytes = r.bytes(len as usize, name)?;
            if p == Prim::Records {
                // The converter prints a records field as empty binary.
                Value::String(String::new())
            } else {
                Value::String(base64::engine::general_purpose::STANDARD.encode(bytes))
            }
        }
    })
}

const ZERO_UUID: &str = "AAAAAAAAAAAAAAAAAAAAAA";

fn default_json(f: &Field, cur: Versions, ctx: Ctx) -> Value {
    match f.default {
        FieldDefault::Null => Value::Null,
        FieldDefault::Int(n) => n.into(),
        FieldDefault::Bool(b) => b.into(),
        FieldDefault::Float(x) => float_json(x),
        FieldDefault::Str(s) => s.into(),
        FieldDefault::Zero => match f.ty {
            Type::Prim(p) => match p {
                Prim::Bool => false.into(),
                Prim::Float64 => float_json(0.0),
                Prim::String | Prim::Bytes => "".into(),
                Prim::Uuid => ZERO_UUID.into(),
                Prim::Records => Value::Null,
                _ => 0.into(),
            },
            Type::Struct(s) => default_struct_json(s, cur, ctx),
            Type::Array(_) | Type::StructArray(_) => Value::Array(Vec::new()),
        },
    }
}

fn default_struct_json(s: &Struct, parent: Versions, ctx: Ctx) -> Value {
    let cur = parent.intersect(s.versions);
    let mut map = Map::new();
    for f in s.fields {
        if f.present(cur, ctx.version) && !f.tagged_at(cur, ctx) {
            map.insert(f.name.to_string(), default_json(f, cur, ctx));
        }
    }
    Value::Object(map)
}

/// Schema-driven encoder and random-message generator, for round-trip tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::format::protocol::parse_uuid;
    use crate::format::reader::put_uvarint;

    /// Encodes the JSON of `msg` at `version` (the inverse of [`read_message`]). Tagged fields
    /// are written when their key is present. Panics on JSON that does not fit the schema.
    pub fn encode_message(msg: &Message, version: i16, value: &Value) -> Vec<u8> {
        let ctx = Ctx {
            version,
            flexible: msg.is_flexible(version),
        };
        let mut out = Vec::new();
        write_struct(&msg.root, msg.valid, ctx, value, &mut out);
        out
    }

    fn write_struct(s: &Struct, parent: Versions, ctx: Ctx, value: &Value, out: &mut Vec<u8>) {
        let cur = parent.intersect(s.versions);
        let obj = value.as_object().expect("struct JSON is an object");
        let mut tagged = Vec::new();
        for f in s.fields {
            if !f.present(cur, ctx.version) {
                assert!(
                    !obj.contains_key(f.name),
                    "{} absent at this version",
                    f.name
                );
                continue;
            }
            if f.tagged_at(cur, ctx) {
                if let Some(v) = obj.get(f.name) {
                    tagged.push((f.tag, f, v));
                }
                continue;
            }
            let v = obj
                .get(f.name)
                .unwrap_or_else(|| panic!("missing {}", f.name));
            write_field(f, cur, ctx, v, out, false);
        }
        if ctx.flexible {
            tagged.sort_by_key(|t| t.0);
            put_uvarint(out, tagged.len() as u32);
            for (tag, f, v) in tagged {
                let mut data = Vec::new();
                write_field(f, cur, ctx, v, &mut data, true);
                put_uvarint(out, tag);
                put_uvarint(out, data.len() as u32);
                out.extend_from_slice(&data);
            }
        }
    }

    fn write_length(out: &mut Vec<u8>, len: Option<usize>, flexible: bool, classic16: bool) {
        match (flexible, classic16) {
            (true, _) => put_uvarint(out, len.map_or(0, |n| n as u32 + 1)),
            (false, true) => out.extend_from_slice(&len.map_or(-1, |n| n as i16).to_be_bytes()),
            (false, false) => out.extend_from_slice(&len.map_or(-1, |n| n as i32).to_be_bytes()),
        }
    }

    fn write_field(f: &Field, cur: Versions, ctx: Ctx, v: &Value, out: &mut Vec<u8>, tagged: bool) {
        let nullable = f.nullable.includes(cur, ctx.version);
        match f.ty {
            Type::Prim(p) => write_prim(p, v, ctx.flexible, out),
            Type::Struct(s) => {
                if nullable {
                    match (v.is_null(), tagged) {
                        (true, true) => return put_uvarint(out, 0),
                        (true, false) => return out.push(0xff),
                        (false, true) => put_uvarint(out, 1),
                        (false, false) => out.push(1),
                    }
                }
                write_struct(s, cur, ctx, v, out)
            }
            Type::Array(p) => match v.as_array() {
                None => write_length(out, None, ctx.flexible, false),
                Some(items) => {
                    write_length(out, Some(items.len()), ctx.flexible, false);
                    for item in items {
                        write_prim(p, item, ctx.flexible, out);
                    }
                }
            },
            Type::StructArray(s) => match v.as_array() {
                None => write_length(out, None, ctx.flexible, false),
                Some(items) => {
                    write_length(out, Some(items.len()), ctx.flexible, false);
                    for item in items {
                        write_struct(s, cur, ctx, item, out);
                    }
                }
            },
        }
    }

    fn write_prim(p: Prim, v: &Value, flexible: bool, out: &mut Vec<u8>) {
        let int = || {
            v.as_i64()
                .unwrap_or_else(|| panic!("{v} is not an integer"))
        };
        match p {
            Prim::Bool => out.push(v.as_bool().unwrap() as u8),
            Prim::Int8 => out.push(int() as u8),
            Prim::Int16 | Prim::Uint16 => out.extend_from_slice(&(int() as u16).to_be_bytes()),
            Prim::Int32 | Prim::Uint32 => out.extend_from_slice(&(int() as u32).to_be_bytes()),
            Prim::Int64 => out.extend_from_slice(&int().to_be_bytes()),
            Prim::Float64 => out.extend_from_slice(&v.as_f64().unwrap().to_bits().to_be_bytes()),
            Prim::Uuid => out.extend_from_slice(&parse_uuid(v.as_str().unwrap()).unwrap()),
            Prim::String => match v.as_str() {
                None => write_length(out, None, flexible, true),
                Some(s) => {
                    write_length(out, Some(s.len()), flexible, true);
                    out.extend_from_slice(s.as_bytes());
                }
            },
            Prim::Bytes | Prim::Records => match v.as_str() {
                None => write_length(out, None, flexible, false),
                Some(s) => {
                    let b = base64::engine::general_purpose::STANDARD.decode(s).unwrap();
                    write_length(out, Some(b.len()), flexible, false);
                    out.extend_from_slice(&b);
                }
            },
        }
    }

    /// A tiny deterministic PRNG (xorshift64*).
    pub struct Rng(pub u64);

    impl Rng {
        pub fn next(&mut self) -> u64 {
            let mut x = self.0 | 1;
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            self.0 = x;
            x.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        pub fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        pub fn chance(&mut self, one_in: u64) -> bool {
            self.below(one_in) == 0
        }
    }

    /// A random JSON message of `msg` at `version`, in the exact shape [`read_message`]
    /// returns: every non-tagged field, some tagged fields (never at their default).
    pub fn sample_message(msg: &Message, version: i16, rng: &mut Rng) -> Value {
        let ctx = Ctx {
            version,
            flexible: msg.is_flexible(version),
        };
        sample_struct(&msg.root, msg.valid, ctx, rng)
    }

    fn sample_struct(s: &Struct, parent: Versions, ctx: Ctx, rng: &mut Rng) -> Value {
        let cur = parent.intersect(s.versions);
        let mut map = Map::new();
        for f in s.fields {
            if !f.present(cur, ctx.version) {
                continue;
            }
            if f.tagged_at(cur, ctx) {
                if rng.chance(3) {
                    continue;
                }
                let default = default_json(f, cur, ctx);
                // Retry until the value differs from the default (bools flip at once).
                for _ in 0..20 {
                    let v = sample_field(f, cur, ctx, rng);
                    if v != default {
                        map.insert(f.name.to_string(), v);
                        break;
                    }
                }
            } else {
                map.insert(f.name.to_string(), sample_field(f, cur, ctx, rng));
            }
        }
        Value::Object(map)
    }

    fn sample_field(f: &Field, cur: Versions, ctx: Ctx, rng: &mut Rng) -> Value {
        let nullable = f.nullable.includes(cur, ctx.version);
        if nullable && rng.chance(4) {
            return Value::Null;
        }
        match f.ty {
            Type::Prim(p) => sample_prim(p, rng),
            Type::Struct(s) => sample_struct(s, cur, ctx, rng),
            Type::Array(p) => {
                let n = rng.below(4);
                Value::Array((0..n).map(|_| sample_prim(p, rng)).collect())
            }
            Type::StructArray(s) => {
                let n = rng.below(3);
                Value::Array((0..n).map(|_| sample_struct(s, cur, ctx, rng)).collect())
            }
        }
    }

    fn sample_prim(p: Prim, rng: &mut Rng) -> Value {
        let x = rng.next();
        match p {
            Prim::Bool => (x & 1 == 1).into(),
            Prim::Int8 => (x as i8).into(),
            Prim::Int16 => (x as i16).into(),
            Prim::Uint16 => (x as u16).into(),
            Prim::Uint32 => (x as u32).into(),
            Prim::Int32 => (x as i32).into(),
            Prim::Int64 => (x as i64).into(),
            Prim::Float64 => float_json((x as i32) as f64 / 8.0),
            Prim::Uuid => {
                let mut u = [0u8; 16];
                u[..8].copy_from_slice(&x.to_be_bytes());
                u[8..].copy_from_slice(&rng.next().to_be_bytes());
                uuid_string(&u).into()
            }
            Prim::String => {
                const PARTS: [&str; 6] = ["a", "topic", "-", "é", "😀", "group.1"];
                let n = rng.below(4);
                (0..n)
                    .map(|_| PARTS[rng.below(PARTS.len() as u64) as usize])
                    .collect::<String>()
                    .into()
            }
            Prim::Bytes => {
                let n = rng.below(6) as usize;
                let b: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                base64::engine::general_purpose::STANDARD.encode(b).into()
            }
            Prim::Records => "".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use serde_json::json;

    static INNER: Struct = Struct {
        name: "Inner",
        versions: vp(0),
        fields: &[
            field("name", Type::Prim(Prim::String), vp(0)),
            field("ids", Type::Array(Prim::Int32), vp(1)),
        ],
    };

    static TEST: Message = Message {
        name: "Test",
        api_key: 99,
        valid: vr(0, 2),
        flexible: vp(2),
        root: Struct {
            name: "Test",
            versions: vr(0, 2),
            fields: &[
                field("id", Type::Prim(Prim::Int64), vp(0)),
                field("old", Type::Prim(Prim::Int16), vr(0, 0)),
                field("label", Type::Prim(Prim::String), vp(0)).nullable(vp(1)),
                field("blob", Type::Prim(Prim::Bytes), vp(0)),
                field("topicId", Type::Prim(Prim::Uuid), vp(2)).tagged(vp(2), 0),
                field("epoch", Type::Prim(Prim::Int32), vp(2))
                    .tagged(vp(2), 1)
                    .with_default(FieldDefault::Int(-1)),
                field("inner", Type::StructArray(&INNER), vp(0)),
                field("opt", Type::Struct(&INNER), vp(1)).nullable(vp(1)),
            ],
        },
    };

    fn decode(version: i16, bytes: &[u8]) -> DecodeResult<Value> {
        read_message(&TEST, version, &mut Reader::new(bytes))
    }

    #[test]
    fn classic_version_0() {
        let mut b = vec![];
        b.extend_from_slice(&7i64.to_be_bytes());
        b.extend_from_slice(&3i16.to_be_bytes());
        b.extend_from_slice(&[0, 2, b'h', b'i']);
        b.extend_from_slice(&[0, 0, 0, 3, 1, 2, 3]);
        b.extend_from_slice(&[0, 0, 0, 1, 0, 1, b'x']);
        assert_eq!(
            decode(0, &b).unwrap(),
            json!({"id":7,"old":3,"label":"hi","blob":"AQID","inner":[{"name":"x"}]})
        );
        // A null label is an error at v0 (not nullable there).
        let mut n = b.clone();
        n[10..14].copy_from_slice(&[0xff, 0xff, 0, 0]);
        assert!(decode(0, &n[..12])
            .unwrap_err()
            .message
            .contains("non-nullable"));
    }

    #[test]
    fn flexible_with_tags_in_schema_order() {
        let mut b = vec![];
        b.extend_from_slice(&1i64.to_be_bytes());
        b.push(0); // label null (nullable from v1)
        b.push(1); // blob empty
        b.push(1); // inner: 0 elements
        b.push(0xff); // opt null
                      // tags: epoch (1) then topicId (0), out of order on purpose, plus unknown tag 9
        b.extend_from_slice(&[3, 1, 4, 0, 0, 0, 5, 9, 1, 0xaa, 0, 16]);
        b.extend_from_slice(&[0; 15]);
        b.push(1);
        let v = decode(2, &b).unwrap();
        assert_eq!(
            v.to_string(),
            r#"{"id":1,"label":null,"blob":"","topicId":"AAAAAAAAAAAAAAAAAAAAAQ","epoch":5,"inner":[],"opt":null}"#
        );
        // A tag whose value is the default is not printed.
        let mut d = b.clone();
        let len = d.len();
        d.truncate(len - 28); // drop the tag section
        d.extend_from_slice(&[1, 1, 4, 0xff, 0xff, 0xff, 0xff]);
        assert_eq!(
            decode(2, &d).unwrap(),
            json!({"id":1,"label":null,"blob":"","inner":[],"opt":null})
        );
        // Size mismatch on a known tag is an error.
        let mut bad = d.clone();
        let n = bad.len();
        bad[n - 5] = 5;
        bad.push(0);
        assert!(decode(2, &bad).is_err());
    }

    #[test]
    fn version_tests_follow_generated_code() {
        let v = vr(1, 3);
        assert!(v.includes(vr(0, 3), 1));
        assert!(!v.includes(vr(0, 3), 0));
        // Above the message's range: the upper bound is implied, so it is not tested.
        assert!(v.includes(vr(0, 3), 7));
        assert!(vp(0).includes(vr(0, 3), -1));
        assert!(!vr(1, 1).includes(vr(0, 4), 2));
        assert!(!VNONE.includes(vr(0, 4), 2));
    }

    #[test]
    fn hostile_counts_and_lengths() {
        // inner count 0x7fffffff in classic encoding
        let mut b = vec![];
        b.extend_from_slice(&0i64.to_be_bytes());
        b.extend_from_slice(&[0, 0, 0, 0, 0, 0]); // label "", blob empty
        b.extend_from_slice(&[0x7f, 0xff, 0xff, 0xff]);
        assert!(decode(1, &b).unwrap_err().message.contains("cannot fit"));
    }

    #[test]
    fn round_trip_every_version() {
        let mut rng = Rng(42);
        for version in 0..=2 {
            for _ in 0..200 {
                let v = sample_message(&TEST, version, &mut rng);
                let bytes = encode_message(&TEST, version, &v);
                let mut r = Reader::new(&bytes);
                assert_eq!(read_message(&TEST, version, &mut r).unwrap(), v);
                assert!(r.is_empty());
            }
        }
    }

    #[test]
    fn defaults() {
        assert_eq!(
            default_message_json(&TEST, 2),
            json!({"id":0,"label":"","blob":"","inner":[],"opt":{"name":"","ids":[]}})
        );
    }

    proptest::proptest! {
        #[test]
        fn never_panics(data: Vec<u8>, version in -2i16..5) {
            let _ = read_message(&TEST, version, &mut Reader::new(&data));
        }
    }
}
