//! kseg: offline forensics for Apache Kafka data directories.
//!
//! Layers, from the bytes up, each its own crate (ARCHITECTURE.md): [`format`] (pure decoders
//! and encoders), [`storage`] and [`scan`] (finding, reading and walking files, read-only),
//! [`analysis`] (summaries and checks over decoded data), [`print`] (text, NDJSON and tables)
//! and [`broker`] (the mini-broker); [`time`] and [`escape`] are text policy below them. This
//! crate holds [`cmd`] (one module per subcommand wiring the others) and [`cli`] (the command
//! line), and re-exports each layer under its name.

pub use kseg_analysis as analysis;
pub use kseg_broker as broker;
#[cfg(feature = "rescue")]
pub use kseg_client as client;
pub use kseg_escape as escape;
pub use kseg_format as format;
pub use kseg_print as print;
pub use kseg_scan as scan;
pub use kseg_storage as storage;
pub use kseg_time as time;

pub mod cli;
pub mod cmd;
#[doc(hidden)]
pub mod fuzzing;
