//! kseg: offline forensics for Apache Kafka data directories.
//!
//! Layers, from the bytes up: [`format`] (pure decoders), [`storage`] and [`scan`] (finding,
//! reading and walking files, read-only), [`analysis`] (summaries and checks over decoded data),
//! [`print`] (text, NDJSON and tables) and [`broker`] (the mini-broker), then [`cmd`] (one module
//! per subcommand wiring the others) and [`cli`] (the command line); [`time`] formats
//! timestamps. The allowed arrows are in ARCHITECTURE.md, checked by `tests/cli/layers.rs`.

pub mod analysis;
pub mod broker;
pub mod cli;
#[cfg(feature = "rescue")]
pub mod client;
pub mod cmd;
pub mod format;
#[doc(hidden)]
pub mod fuzzing;
pub mod print;
pub mod scan;
pub mod storage;
pub mod time;
