//! Test support for `print/coordinator_tests.rs`: a JSON-driven encoder of the schema tables
//! (the inverse of the printed JSON) and a random-message generator in the exact shape the
//! printer writes (every non-tagged field, some tagged fields, never at their default).

use base64::Engine;
use kseg_format::coordinator::encode::write_length;
use kseg_format::coordinator::schema::{
    Field, FieldDefault, Message, Prim, Struct, Type, Versions, WireVersion,
};
use kseg_format::protocol::parse_uuid;
use kseg_format::protocol::uuid_string;
use kseg_format::reader::put_uvarint;
use serde_json::{Map, Number, Value};

/// A length prefix of test data, which always fits.
fn length(out: &mut Vec<u8>, len: Option<usize>, flexible: bool, classic16: bool) {
    write_length(out, len, flexible, classic16).expect("test lengths fit the wire");
}

/// Encodes the JSON of `msg` at `version` (the inverse of [`read_message`]). Tagged fields
/// are written when their key is present. Panics on JSON that does not fit the schema.
pub fn encode_json(msg: &Message, version: i16, value: &Value) -> Vec<u8> {
    let ctx = WireVersion::of(msg, version);
    let mut out = Vec::new();
    write_struct(&msg.root, msg.valid, ctx, value, &mut out);
    out
}

fn write_struct(s: &Struct, parent: Versions, ctx: WireVersion, value: &Value, out: &mut Vec<u8>) {
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

fn write_field(
    f: &Field,
    cur: Versions,
    ctx: WireVersion,
    v: &Value,
    out: &mut Vec<u8>,
    tagged: bool,
) {
    let nullable = f.nullable_at(cur, ctx);
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
            None => length(out, None, ctx.flexible, false),
            Some(items) => {
                length(out, Some(items.len()), ctx.flexible, false);
                for item in items {
                    write_prim(p, item, ctx.flexible, out);
                }
            }
        },
        Type::StructArray(s) => match v.as_array() {
            None => length(out, None, ctx.flexible, false),
            Some(items) => {
                length(out, Some(items.len()), ctx.flexible, false);
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
            None => length(out, None, flexible, true),
            Some(s) => {
                length(out, Some(s.len()), flexible, true);
                out.extend_from_slice(s.as_bytes());
            }
        },
        Prim::Bytes | Prim::Records => match v.as_str() {
            None => length(out, None, flexible, false),
            Some(s) => {
                let b = base64::engine::general_purpose::STANDARD.decode(s).unwrap();
                length(out, Some(b.len()), flexible, false);
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
    let ctx = WireVersion::of(msg, version);
    sample_struct(&msg.root, msg.valid, ctx, rng)
}

fn sample_struct(s: &Struct, parent: Versions, ctx: WireVersion, rng: &mut Rng) -> Value {
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

fn sample_field(f: &Field, cur: Versions, ctx: WireVersion, rng: &mut Rng) -> Value {
    let nullable = f.nullable_at(cur, ctx);
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

fn float_json(x: f64) -> Value {
    match Number::from_f64(x) {
        Some(n) => Value::Number(n),
        None if x.is_nan() => Value::String("NaN".into()),
        None if x > 0.0 => Value::String("Infinity".into()),
        None => Value::String("-Infinity".into()),
    }
}

const ZERO_UUID: &str = "AAAAAAAAAAAAAAAAAAAAAA";

fn default_json(f: &Field, cur: Versions, ctx: WireVersion) -> Value {
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
            Type::Struct(s) => {
                let cur = cur.intersect(s.versions);
                let mut map = Map::new();
                for f in s.fields {
                    if f.present(cur, ctx.version) && !f.tagged_at(cur, ctx) {
                        map.insert(f.name.to_string(), default_json(f, cur, ctx));
                    }
                }
                Value::Object(map)
            }
            Type::Array(_) | Type::StructArray(_) => Value::Array(Vec::new()),
        },
    }
}
