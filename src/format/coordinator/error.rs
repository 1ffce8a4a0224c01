//! Typed decoding errors of internal-topic records: a kind and the byte position. The text of
//! each kind (its `Display`) is the message Kafka-style dumps print; callers decide on the
//! kind, never on the text.

use std::borrow::Cow;
use std::fmt;

use crate::format::reader::{DecodeError, DecodeErrorKind};

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The bytes ran out or a varint was malformed: the byte reader's kind and message.
    Read {
        kind: DecodeErrorKind,
        message: Cow<'static, str>,
    },
    /// A null length for a field that is not nullable at this version.
    NullNotAllowed { field: &'static str },
    /// A string length above 0x7fff.
    StringLength { field: &'static str, len: i32 },
    /// An array count that cannot fit in the bytes left.
    CountTooLarge {
        field: &'static str,
        count: usize,
        left: usize,
    },
    /// A known tag in a version where the field is not tagged.
    TagNotValid {
        record: &'static str,
        tag: u32,
        version: i16,
    },
    /// A known tagged field that does not use exactly its declared size.
    TagSize {
        record: &'static str,
        field: &'static str,
        tag: u32,
        declared: usize,
        used: usize,
    },
    /// A record type (or metadata apiKey) no table knows: probably a newer Kafka's record.
    UnknownRecordType(i16),
    /// A version outside the record's valid versions: probably a newer Kafka's record.
    UnknownVersion { version: i16, record: &'static str },
    /// Metadata frame version 0 (the preview KRaft format of Kafka 2.8).
    FrameVersion0,
    /// A metadata frame version other than 1.
    FrameVersion(i16),
    /// An unsigned varint that must fit an int16 (Kafka's `unsignedIntToShort`).
    TooLarge { what: &'static str, value: u32 },
    /// Bytes after a metadata record.
    Garbage { record: &'static str, bytes: usize },
    /// A key whose record type is not the one a typed parser reads.
    NotOffsetCommit(i16),
}

/// A decoding failure at a byte position relative to the decoded key or value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub position: u64,
    pub kind: ErrorKind,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(position: usize, kind: ErrorKind) -> Error {
        Error {
            position: position as u64,
            kind,
        }
    }

    /// "Unknown record type" or "unknown version", as opposed to damaged bytes: the record
    /// is probably fine but newer than kseg; print it raw and carry on.
    pub fn is_unknown(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::UnknownRecordType(_) | ErrorKind::UnknownVersion { .. }
        )
    }
}

impl ErrorKind {
    /// The byte decoders' kind this kind falls under (what a [`DecodeError`] made from it
    /// carries).
    pub fn decode_kind(&self) -> DecodeErrorKind {
        match self {
            ErrorKind::Read { kind, .. } => *kind,
            ErrorKind::NullNotAllowed { .. }
            | ErrorKind::TagNotValid { .. }
            | ErrorKind::TooLarge { .. }
            | ErrorKind::NotOffsetCommit(_) => DecodeErrorKind::Invalid,
            ErrorKind::StringLength { .. }
            | ErrorKind::CountTooLarge { .. }
            | ErrorKind::TagSize { .. } => DecodeErrorKind::Length,
            ErrorKind::UnknownRecordType(_)
            | ErrorKind::UnknownVersion { .. }
            | ErrorKind::FrameVersion0
            | ErrorKind::FrameVersion(_) => DecodeErrorKind::Unsupported,
            ErrorKind::Garbage { .. } => DecodeErrorKind::Trailing,
        }
    }
}

impl From<DecodeError> for Error {
    fn from(e: DecodeError) -> Error {
        Error {
            position: e.position,
            kind: ErrorKind::Read {
                kind: e.kind,
                message: e.message,
            },
        }
    }
}

impl From<Error> for DecodeError {
    fn from(e: Error) -> DecodeError {
        let kind = e.kind.decode_kind();
        let message = match e.kind {
            ErrorKind::Read { message, .. } => message,
            kind => Cow::Owned(kind.to_string()),
        };
        DecodeError {
            position: e.position,
            kind,
            message,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Read { message, .. } => f.write_str(message),
            ErrorKind::NullNotAllowed { field } => {
                write!(f, "non-nullable field {field} was serialized as null")
            }
            ErrorKind::StringLength { field, len } => {
                write!(f, "string field {field} had invalid length {len}")
            }
            ErrorKind::CountTooLarge { field, count, left } => {
                write!(
                    f,
                    "{field}: {count} elements cannot fit in the {left} bytes left"
                )
            }
            ErrorKind::TagNotValid {
                record,
                tag,
                version,
            } => write!(f, "{record}: tag {tag} is not valid for version {version}"),
            ErrorKind::TagSize {
                record,
                field,
                tag,
                declared,
                used,
            } => write!(
                f,
                "{record}: tagged field {field} (tag {tag}) declares {declared} bytes but uses {used}"
            ),
            ErrorKind::UnknownRecordType(t) => write!(f, "Unknown record type {t}"),
            ErrorKind::UnknownVersion { version, record } => {
                write!(f, "Unknown version {version} of {record}")
            }
            ErrorKind::FrameVersion0 => f.write_str(
                "Could not deserialize metadata record with frame version 0 \
                 (the preview KRaft format of Kafka 2.8)",
            ),
            ErrorKind::FrameVersion(v) => write!(
                f,
                "unknown metadata frame version {v} (only frame version 1 is supported)"
            ),
            ErrorKind::TooLarge { what, value } => {
                write!(f, "Value for {what} was too large: {value}")
            }
            ErrorKind::Garbage { record, bytes } => {
                write!(f, "Found {bytes} byte(s) of garbage after {record}")
            }
            ErrorKind::NotOffsetCommit(t) => {
                write!(f, "record type {t} is not an offset commit")
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.position, self.kind)
    }
}

impl std::error::Error for Error {}
