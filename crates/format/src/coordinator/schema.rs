//! The description of a Kafka message-protocol struct (the `*.json` message specs behind
//! coordinator records, KRaft metadata records and the consumer protocol): a [`Message`] is a
//! static table of [`Field`]s with their versions, nullability, tags and defaults. The tables
//! themselves are generated (`tables.rs`); the decoder (`decode.rs`), the encoder (`encode.rs`)
//! and the NDJSON/text printer (`print/coordinator.rs`) walk them.
//!
//! Version tests reproduce Kafka's generated code even outside `validVersions` (which matters
//! for the consumer protocol, whose readers parse newer versions with the newest layout): a
//! field is read unless the version lies below its lowest or above its highest version, where a
//! bound that the message's own version range already implies is not tested.

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

/// Fields and messages are static table entries: the same entry is the same field.
impl PartialEq for Field {
    fn eq(&self, other: &Field) -> bool {
        std::ptr::eq(self, other)
    }
}

impl PartialEq for Message {
    fn eq(&self, other: &Message) -> bool {
        std::ptr::eq(self, other)
    }
}

/// The version being read or written and whether it is a flexible one.
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub struct WireVersion {
    pub version: i16,
    pub flexible: bool,
}

impl WireVersion {
    pub fn of(msg: &Message, version: i16) -> WireVersion {
        WireVersion {
            version,
            flexible: msg.is_flexible(version),
        }
    }
}

impl Field {
    /// Whether the field exists at this version (in code generated for `cur`).
    #[doc(hidden)]
    pub fn present(&self, cur: Versions, v: i16) -> bool {
        self.versions.includes(cur, v)
    }

    /// Whether the field lives in the tagged-field section at this version.
    #[doc(hidden)]
    pub fn tagged_at(&self, cur: Versions, ctx: WireVersion) -> bool {
        ctx.flexible && self.tagged.includes(cur, ctx.version)
    }

    /// Whether the field is ever tagged (so its tag can be looked up).
    pub(crate) fn tag_known(&self) -> bool {
        !self.versions.intersect(self.tagged).is_empty()
    }

    #[doc(hidden)]
    pub fn nullable_at(&self, cur: Versions, ctx: WireVersion) -> bool {
        self.nullable.includes(cur, ctx.version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
