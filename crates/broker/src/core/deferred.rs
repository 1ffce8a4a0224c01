//! Disk work decided under the broker lock and done without it, as Kafka does it on its
//! scheduler threads rather than on a request's: the log-dir checkpoints (contents computed
//! with the state, written after; `LogManager.checkpointLogRecoveryOffsets`,
//! `ReplicaManager.checkpointHighWatermarks`), the removal of files and partition dirs whose
//! deletion delay is over (`LogManager.deleteLogs`, the segments' "delete-file" task), and the
//! renames of a deleted topic's partition dirs (`LogManager.asyncDelete`).

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::files::write_atomically;
use crate::log::PartitionLog;

/// Writes the log-dir checkpoints one at a time (they share `<name>.tmp`), never replacing a
/// file with contents older than those it has.
#[derive(Debug, Default)]
pub(crate) struct CheckpointWriter {
    /// Handed out as contents are computed (under the broker lock, so in the state's order).
    next_generation: AtomicU64,
    /// The generation each file was last written with.
    written: Mutex<HashMap<PathBuf, u64>>,
}

/// Checkpoint files and their contents as the broker state had them; [`Self::write`] writes
/// them without the broker.
#[must_use = "computed checkpoints are written by `write`"]
pub struct CheckpointFiles {
    files: Vec<(PathBuf, String)>,
    generation: u64,
    writer: Arc<CheckpointWriter>,
}

impl CheckpointFiles {
    pub(crate) fn new(writer: &Arc<CheckpointWriter>, files: Vec<(PathBuf, String)>) -> Self {
        CheckpointFiles {
            files,
            generation: writer.next_generation.fetch_add(1, Ordering::SeqCst),
            writer: writer.clone(),
        }
    }

    /// Writes each file (through `.tmp`, fsync, rename), unless newer contents were written
    /// meanwhile.
    pub fn write(self) -> io::Result<()> {
        let mut written = self
            .writer
            .written
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for (path, text) in &self.files {
            if written.get(path).is_some_and(|g| *g > self.generation) {
                continue;
            }
            write_atomically(path, text.as_bytes())?;
            written.insert(path.clone(), self.generation);
        }
        Ok(())
    }
}

/// Files and partition dirs whose deletion delay is over, taken from the broker's lists;
/// [`Self::remove`] removes them without the broker.
#[derive(Debug, Default)]
#[must_use = "due deletions are carried out by `remove`"]
pub struct DueDeletions {
    pub(crate) dirs: Vec<PathBuf>,
    pub(crate) files: Vec<PathBuf>,
}

impl DueDeletions {
    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty() && self.files.is_empty()
    }

    pub fn remove(self) -> io::Result<()> {
        for file in &self.files {
            match fs::remove_file(file) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        for dir in &self.dirs {
            match fs::remove_dir_all(dir) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        Ok(())
    }
}

/// The partition logs of a deleted topic, out of the broker: [`Self::rename`] renames their dirs
/// `<topic>-<partition>.<uuid>-delete` (`UnifiedLog.logDeleteDirName`) without the broker, then
/// [`crate::core::Broker::finish_topic_deletion`] schedules their removal and gives the
/// checkpoints without them.
#[must_use = "a deleted topic's dirs are renamed by `rename`"]
pub struct DeletedPartitions {
    pub(crate) logs: Vec<PartitionLog>,
}

impl DeletedPartitions {
    /// Renames every partition dir; the renamed paths, in order. A rename that fails leaves the
    /// later dirs as they are (a restart finds them with no topic in the metadata log).
    pub fn rename(self) -> (Vec<PathBuf>, io::Result<()>) {
        let mut renamed = Vec::with_capacity(self.logs.len());
        for log in self.logs {
            let dir = log.dir.clone();
            let to = dir.with_file_name(delete_dir_name(&log.topic, log.partition));
            // The log's files close before their dir moves.
            drop(log);
            if let Err(e) = fs::rename(&dir, &to) {
                return (renamed, Err(e));
            }
            renamed.push(to);
        }
        (renamed, Ok(()))
    }
}

/// `LocalLog.logDeleteDirName`: `<topic>-<partition>.<uuid without dashes>-delete`, the topic
/// part cut so the name stays within 255 bytes (`logDirNameWithSuffixCappedLength`).
fn delete_dir_name(topic: &str, partition: i32) -> String {
    let unique = hex::encode(crate::files::random_uuid());
    let mut base = format!("{topic}-{partition}");
    let suffix = format!(".{unique}-delete");
    base.truncate(255 - suffix.len());
    format!("{base}{suffix}")
}
