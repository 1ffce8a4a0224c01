//! `kseg mini-broker`: an embedded single-node Kafka broker that writes segment files exactly as
//! Kafka lays them out, so real clients can make realistic data dirs without a JVM.
//!
//! Layers: [`log`] (one partition's segments, indexes, snapshots), [`producer_state`]
//! (idempotence and transactions per partition), [`files`] (the small text files),
//! [`metadata`] (the KRaft metadata log: topics, configs, features, the registration),
//! [`records`] (coordinator record bytes), [`group`] and [`txn`] (coordinators), [`core`] (the
//! broker state every request works on, no networking), and the wire protocol: [`server`]
//! (listener and connections), `frame` (framing and the request budget), `dispatch` (request
//! header, versions, one arm per API) and `handlers` (one handler per API, by area).

pub mod broker_config;
pub mod consumer_group;
pub mod core;
mod dispatch;
pub mod files;
mod frame;
pub mod group;
mod handlers;
pub mod log;
pub mod metadata;
pub mod producer_state;
pub mod records;
#[cfg(test)]
mod seam_tests;
pub mod server;
#[cfg(test)]
mod testing;
pub mod topic_config;
pub mod txn;

use std::io;

use kafka_protocol::ResponseError;

/// A failed broker operation: a Kafka error code for the client, or an I/O error (reported to
/// clients as `KAFKA_STORAGE_ERROR`).
#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    #[error("{message}")]
    Kafka { code: i16, message: String },
    #[error("storage: {0}")]
    Io(#[from] io::Error),
}

impl BrokerError {
    pub fn new(error: ResponseError, message: impl Into<String>) -> Self {
        BrokerError::Kafka {
            code: error.code(),
            message: message.into(),
        }
    }

    /// The error code a response carries.
    pub fn code(&self) -> i16 {
        match self {
            BrokerError::Kafka { code, .. } => *code,
            BrokerError::Io(_) => ResponseError::KafkaStorageError.code(),
        }
    }
}

pub type BrokerResult<T> = Result<T, BrokerError>;

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
