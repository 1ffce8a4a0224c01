//! Pure decoders: bytes in, typed values (and `DecodeError`s with their byte position) out. No
//! I/O, no printing, no panics on any input. (coordinator, internal and schema still return
//! JSON values: branch coord.)

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
