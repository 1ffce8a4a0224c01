//! A log dir's own checkpoint files as Kafka 4.4 leaves them after it loads the dir and stops
//! cleanly (`kseg recover LOGDIR`): `recovery-point-offset-checkpoint` and
//! `log-start-offset-checkpoint` (`LogManager.shutdown` → `checkpointRecoveryOffsetsInDir`,
//! `checkpointLogStartOffsetsInDir`) and `replication-offset-checkpoint`
//! (`ReplicaManager.checkpointHighWatermarks`), with their entries in the orders those write them.

use kseg_format::java_order::{log_manager_checkpoint_order, replica_manager_checkpoint_order};
use kseg_format::text_files::encode_offset_checkpoint;

/// One partition's log as Kafka's load leaves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedLog {
    pub topic: String,
    pub partition: i32,
    /// `LogLoader.load`'s log start offset: the checkpointed one, at least the first segment's
    /// base offset.
    pub log_start: i64,
    /// The base offset of the first segment after the load.
    pub first_segment_base: i64,
    pub log_end: i64,
    /// The partition's entry in the input's `replication-offset-checkpoint`.
    pub high_watermark_checkpoint: Option<i64>,
    /// Its replicas, as `__cluster_metadata` records them (`None`: no record of it).
    pub replicas: Option<usize>,
}

impl LoadedLog {
    /// The high watermark the restarted broker writes at its clean stop. A partition this
    /// broker alone replicates gets the log end (`Partition.makeLeader` → ISR of one →
    /// `maybeIncrementLeaderHW`); otherwise the checkpoint's, within the log
    /// (`UnifiedLog.updateHighWatermark`), since where the followers' fetches would move it is
    /// known only at runtime ([`Self::high_watermark_is_runtime`]).
    pub fn high_watermark_after_restart(&self) -> i64 {
        if self.replicas == Some(1) {
            self.log_end
        } else {
            self.high_watermark_checkpoint
                .unwrap_or(0)
                .max(self.log_start)
                .min(self.log_end)
        }
    }

    /// Whether the high watermark depends on other replicas (the value written may then
    /// differ from the one a running broker writes).
    pub fn high_watermark_is_runtime(&self) -> bool {
        self.replicas != Some(1)
    }
}

/// The three checkpoint files' texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogDirCheckpoints {
    pub recovery_points: String,
    pub log_starts: String,
    pub high_watermarks: String,
}

/// The checkpoint files of a log dir holding `logs` (in the order the load found them), after
/// a clean stop: every log's recovery point is its log end (`LogManager.shutdown` flushes each
/// log first: `UnifiedLog.flush(true)`); a log start offset is listed where it is above the
/// first segment's base offset; the high watermarks as [`LoadedLog::high_watermark_after_restart`].
pub fn checkpoints_after_restart(logs: &[LoadedLog]) -> LogDirCheckpoints {
    let keys: Vec<(&str, i32)> = logs
        .iter()
        .map(|l| (l.topic.as_str(), l.partition))
        .collect();
    let log_manager = log_manager_checkpoint_order(&keys);
    let entry = |i: usize, offset: i64| (logs[i].topic.as_str(), logs[i].partition, offset);
    let recovery_points =
        encode_offset_checkpoint(log_manager.iter().map(|&i| entry(i, logs[i].log_end)));
    let starts: Vec<(&str, i32, i64)> = log_manager
        .iter()
        .filter(|&&i| logs[i].log_start > logs[i].first_segment_base)
        .map(|&i| entry(i, logs[i].log_start))
        .collect();
    let log_starts = encode_offset_checkpoint(starts.into_iter());
    let high_watermarks = encode_offset_checkpoint(
        replica_manager_checkpoint_order(&keys)
            .into_iter()
            .map(|i| entry(i, logs[i].high_watermark_after_restart())),
    );
    LogDirCheckpoints {
        recovery_points,
        log_starts,
        high_watermarks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(topic: &str, partition: i32, start: i64, base: i64, end: i64) -> LoadedLog {
        LoadedLog {
            topic: topic.into(),
            partition,
            log_start: start,
            first_segment_base: base,
            log_end: end,
            high_watermark_checkpoint: Some(3),
            replicas: Some(1),
        }
    }

    #[test]
    fn checkpoints_of_a_clean_stop() {
        let mut logs = vec![
            log("orders", 0, 0, 0, 10),
            log("orders", 1, 7, 5, 9),
            log("audit", 0, 4, 4, 4),
        ];
        logs[2].replicas = Some(3);
        logs[2].high_watermark_checkpoint = Some(2);
        let c = checkpoints_after_restart(&logs);
        let lines = |s: &str| {
            let mut v: Vec<String> = s.lines().skip(2).map(str::to_string).collect();
            v.sort();
            v
        };
        assert!(c.recovery_points.starts_with("0\n3\n"));
        assert_eq!(
            lines(&c.recovery_points),
            ["audit 0 4", "orders 0 10", "orders 1 9"]
        );
        // Only a log start above the first segment's base is listed.
        assert_eq!(c.log_starts, "0\n1\norders 1 7\n");
        // A partition of three replicas keeps its checkpoint, raised to its log start.
        assert_eq!(
            lines(&c.high_watermarks),
            ["audit 0 4", "orders 0 10", "orders 1 9"]
        );
        let none = checkpoints_after_restart(&[]);
        assert_eq!(none.recovery_points, "0\n0\n");
    }
}
