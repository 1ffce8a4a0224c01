//! kseg: offline forensics for Apache Kafka data directories.
//!
//! Layers, from the bytes up: [`format`] (pure decoders), [`storage`] (finding and reading files,
//! read-only), [`analysis`] (summaries and checks over decoded data), [`print`] (text, NDJSON and
//! tables) and [`cmd`] (one small module per subcommand wiring the others).

pub mod analysis;
pub mod broker;
pub mod cli;
pub mod client;
pub mod cmd;
pub mod format;
pub mod print;
pub mod scan;
pub mod storage;
pub mod time;
