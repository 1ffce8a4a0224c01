#![doc = include_str!("../README.md")]
//!
//! # More examples
//!
//! Walk a segment: [`log::LogWalker`] frames batches one after the other over any
//! [`log::ByteSource`], reports corrupt stretches and the torn tail a crash leaves, and
//! resynchronises after damage.
//!
//! ```
//! use kseg_format::encode::{encode_batch, NewBatch, NewRecord};
//! use kseg_format::log::{LogWalker, SliceSource, WalkEvent};
//!
//! let mut segment = Vec::new();
//! let record = NewRecord { timestamp: 0, key: None, value: Some(b"v"), headers: &[] };
//! for base_offset in [0, 1] {
//!     let batch = NewBatch { base_offset, ..NewBatch::default() };
//!     encode_batch(&mut segment, &batch, &[record], &mut Vec::new());
//! }
//! segment.extend_from_slice(&[0, 0, 0]); // a torn write
//!
//! let mut source = SliceSource(&segment);
//! let mut walker = LogWalker::new(segment.len() as u64);
//! let (mut batches, mut torn) = (0, 0);
//! while let Some(event) = walker.next(&mut source)? {
//!     match event {
//!         WalkEvent::Entry { .. } => batches += 1,
//!         WalkEvent::Corrupt { .. } => unreachable!(),
//!         WalkEvent::Tail { length, .. } => torn = length,
//!     }
//! }
//! assert_eq!((batches, torn), (2, 3));
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! Read an offset index: [`index::OffsetIndex::lookup`] answers as Kafka's `OffsetIndex.lookup`
//! does (the entry with the largest offset at or below the target).
//!
//! ```
//! use kseg_format::index::OffsetIndex;
//!
//! // Two 8-byte entries (relative offset, byte position) in a segment based at offset 1000.
//! let mut bytes = Vec::new();
//! for (relative, position) in [(10i32, 4096i32), (20, 8192)] {
//!     bytes.extend_from_slice(&relative.to_be_bytes());
//!     bytes.extend_from_slice(&position.to_be_bytes());
//! }
//! let index = OffsetIndex::new(1000, &bytes);
//! assert_eq!(index.entries().count(), 2);
//! let entry = index.lookup(1015);
//! assert_eq!((entry.offset, entry.position), (1010, 4096));
//! assert!(index.sanity_check().is_ok());
//! ```
//!
//! Decode a `__consumer_offsets` record: a committed offset from its key and value.
//!
//! ```
//! use kseg_format::coordinator::parse_offset_commit;
//!
//! fn string(out: &mut Vec<u8>, s: &str) {
//!     out.extend_from_slice(&(s.len() as i16).to_be_bytes());
//!     out.extend_from_slice(s.as_bytes());
//! }
//! // Key: record type 1, group, topic, partition.
//! let mut key = 1i16.to_be_bytes().to_vec();
//! string(&mut key, "billing");
//! string(&mut key, "orders");
//! key.extend_from_slice(&3i32.to_be_bytes());
//! // Value v3: offset, leader epoch, metadata, commit timestamp.
//! let mut value = 3i16.to_be_bytes().to_vec();
//! value.extend_from_slice(&4711i64.to_be_bytes());
//! value.extend_from_slice(&7i32.to_be_bytes());
//! string(&mut value, "");
//! value.extend_from_slice(&1_700_000_000_000i64.to_be_bytes());
//!
//! let commit = parse_offset_commit(&key, &value)?;
//! assert_eq!((commit.key.group.as_str(), commit.key.topic.as_str()), ("billing", "orders"));
//! assert_eq!((commit.key.partition, commit.value.offset), (3, 4711));
//! assert_eq!(commit.value.leader_epoch, Some(7));
//!
//! // A truncated value is an error with its byte position and kind, never a panic.
//! let error = parse_offset_commit(&key, &value[..5]).unwrap_err();
//! assert_eq!(error.kind, kseg_format::reader::DecodeErrorKind::Truncated);
//! # Ok::<(), kseg_format::reader::DecodeError>(())
//! ```

pub mod batch;
pub mod compression;
pub mod control;
pub mod coordinator;
pub mod encode;
pub mod index;
pub mod internal;
pub mod java_order;
pub mod json_text;
pub mod legacy;
pub mod log;
pub mod producer_snapshot;
pub mod protocol;
pub mod reader;
pub mod text_files;
pub mod txn_index;
