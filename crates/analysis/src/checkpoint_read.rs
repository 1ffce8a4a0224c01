//! What Kafka 4.4 does when it cannot read one of a log dir's root checkpoint files
//! (`recovery-point-offset-checkpoint`, `log-start-offset-checkpoint`,
//! `replication-offset-checkpoint`): the file's [`CheckpointFailure`] decides it, through the
//! class of Java throwable it is and the caller that reads the file.

use std::path::PathBuf;

use crate::verify::CheckpointKind;
use kseg_format::text_files::{CheckpointError, JavaFailureClass};

/// What Kafka's start does with a root checkpoint file it cannot read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckpointOutcome {
    /// `CheckpointFileWithFailureHandler.read` reports the `IOException` to the
    /// `LogDirFailureChannel`: the log dir goes offline and the broker halts when it is its
    /// only log dir or holds the metadata log (`ReplicaManager.handleLogDirFailure`).
    LogDirOffline,
    /// `LogManager.loadLogs` catches the `RuntimeException`, logs a WARN and goes on without
    /// the file's entries: every recovery point 0 (every segment recovered), every log start
    /// at its first segment's base offset.
    ResetWithWarning,
    /// The `OutOfMemoryError` escapes `LogManager.startup`: "Fatal error during broker
    /// startup", the broker exits.
    BrokerDies,
    /// `replication-offset-checkpoint` is read lazily (`LazyOffsetCheckpoints`), as
    /// `ReplicaManager.applyDelta` makes each partition leader or follower: the exception fails
    /// every partition's transition ("Unable to start fetching ... due to
    /// NumberFormatException"). The broker runs; the log dir's partitions are not served.
    PartitionsNotServed,
}

impl CheckpointOutcome {
    /// Kafka does not serve this log dir.
    pub fn stops_log_dir(self) -> bool {
        self != CheckpointOutcome::ResetWithWarning
    }
}

/// A root checkpoint file Kafka cannot read, and what that makes it do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootCheckpointFailure {
    pub path: PathBuf,
    pub kind: CheckpointKind,
    pub error: CheckpointError,
    pub outcome: CheckpointOutcome,
}

impl RootCheckpointFailure {
    pub fn new(path: PathBuf, kind: CheckpointKind, error: CheckpointError) -> Self {
        let outcome = match (error.failure.class(), kind) {
            (JavaFailureClass::IoException, _) => CheckpointOutcome::LogDirOffline,
            (JavaFailureClass::OutOfMemoryError, _) => CheckpointOutcome::BrokerDies,
            // LogManager.loadLogs: `catch (Exception e)` around both reads.
            (
                JavaFailureClass::RuntimeException,
                CheckpointKind::RecoveryPoint | CheckpointKind::LogStart,
            ) => CheckpointOutcome::ResetWithWarning,
            (JavaFailureClass::RuntimeException, CheckpointKind::HighWatermark) => {
                CheckpointOutcome::PartitionsNotServed
            }
        };
        RootCheckpointFailure {
            path,
            kind,
            error,
            outcome,
        }
    }

    /// Kafka's message, naming the file by its path as Kafka does.
    pub fn kafka_message(&self) -> String {
        self.error
            .failure
            .kafka_message(&self.path.display().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kseg_format::text_files::read_checkpoint_as_kafka;

    fn outcome(text: &str, kind: CheckpointKind) -> Option<CheckpointOutcome> {
        read_checkpoint_as_kafka(text.as_bytes(), false, |_| {})
            .err()
            .map(|e| RootCheckpointFailure::new("x".into(), kind, e).outcome)
    }

    #[test]
    fn outcomes_follow_the_java_throwable_and_the_reader() {
        use CheckpointKind::*;
        use CheckpointOutcome::*;
        assert_eq!(outcome("0\n2\nt 0 5\n", RecoveryPoint), Some(LogDirOffline));
        assert_eq!(outcome("0\n1\nt 0 5\n\n", LogStart), Some(LogDirOffline));
        assert_eq!(
            outcome("0\n1\nt 0 x\n", RecoveryPoint),
            Some(ResetWithWarning)
        );
        assert_eq!(outcome("0\n-1\n", LogStart), Some(ResetWithWarning));
        assert_eq!(outcome("0\n2147483647\n", HighWatermark), Some(BrokerDies));
        assert_eq!(
            outcome("0\n1\nt 0 x\n", HighWatermark),
            Some(PartitionsNotServed)
        );
        assert_eq!(outcome("0\n1\nt 0 5\n", HighWatermark), None);
    }
}
