//! A decoded message: the fields Kafka's generated `*JsonConverter.write(message, version)`
//! would print, in schema order, over borrowed bytes (strings and bytes are slices of the
//! record, nothing is copied). Printers walk it (`print/coordinator.rs`); analyses read fields
//! by name ([`StructValue::get`]).
//!
//! A struct holds the fields present at the decoded version; a tagged field only when it was
//! written *and* differs from its default (Kafka's converter skips default values, and an
//! absent tagged field has its default).

use std::borrow::Cow;

use super::schema::{Field, Message};

/// One field's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    /// Every integer type (int8 … int64, uint16, uint32).
    Int(i64),
    Float(f64),
    Uuid([u8; 16]),
    /// A string as written: Java decodes it with U+FFFD for invalid UTF-8, and so does
    /// [`Value::as_str`].
    Str(&'a [u8]),
    Bytes(&'a [u8]),
    /// A `records` field (Kafka's converter shows it as empty binary).
    Records(&'a [u8]),
    Struct(StructValue<'a>),
    Array(Vec<Value<'a>>),
    /// Bytes that hold a version-prefixed message and decoded as one (the consumer-protocol
    /// subscription and assignment of a GroupMetadataValue member); `bytes` is the field.
    Embedded(Box<Embedded<'a>>),
    /// An enum id shown by its Kafka name (`TransactionLogValue.transactionStatus`); `None`
    /// for an id Kafka does not name.
    Named {
        id: i64,
        name: Option<&'static str>,
    },
}

/// A message decoded out of a bytes field.
#[derive(Debug, Clone, PartialEq)]
pub struct Embedded<'a> {
    pub bytes: &'a [u8],
    pub message: &'static Message,
    pub version: i16,
    pub data: StructValue<'a>,
}

/// A struct's fields in schema order (see the module doc for which are there).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StructValue<'a> {
    pub fields: Vec<(&'static Field, Value<'a>)>,
}

impl<'a> StructValue<'a> {
    /// The field called `name` (the JSON name), if present.
    pub fn get(&self, name: &str) -> Option<&Value<'a>> {
        self.fields
            .iter()
            .find(|(f, _)| f.name == name)
            .map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut Value<'a>> {
        self.fields
            .iter_mut()
            .find(|(f, _)| f.name == name)
            .map(|(_, v)| v)
    }

    /// A string field, `None` when absent, null or not a string.
    pub fn str(&self, name: &str) -> Option<Cow<'a, str>> {
        self.get(name).and_then(Value::as_str)
    }

    /// An integer field, `None` when absent or not an integer.
    pub fn int(&self, name: &str) -> Option<i64> {
        self.get(name).and_then(Value::as_int)
    }
}

impl<'a> Value<'a> {
    /// A string's text (U+FFFD for invalid UTF-8, borrowed when valid).
    pub fn as_str(&self) -> Option<Cow<'a, str>> {
        match *self {
            Value::Str(b) => Some(String::from_utf8_lossy(b)),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match *self {
            Value::Int(n) | Value::Named { id: n, .. } => Some(n),
            _ => None,
        }
    }

    pub fn as_uuid(&self) -> Option<[u8; 16]> {
        match *self {
            Value::Uuid(u) => Some(u),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value<'a>]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_struct(&self) -> Option<&StructValue<'a>> {
        match self {
            Value::Struct(s) => Some(s),
            Value::Embedded(e) => Some(&e.data),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}
