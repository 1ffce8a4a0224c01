//! The partition a lookup answers for: its segments and the checkpoints that bear on answers.

use std::path::{Path, PathBuf};

use kseg_format::text_files::{parse_checkpoint, Checkpoint, CheckpointEntry};
use kseg_storage::discover::PartitionDir;
use kseg_storage::layout::{base_offset_of, FileKind};
use kseg_storage::source::read_small;

use super::explain::{FileProblem, Step};

/// Largest index or checkpoint file read (a preallocated index is 10 MiB).
const SMALL_FILE_LIMIT: u64 = 1 << 30;

/// One segment: its `.log` and the indexes beside it.
#[derive(Debug, Clone)]
pub struct SegmentFiles {
    pub base_offset: i64,
    pub log: PathBuf,
    pub offset_index: Option<PathBuf>,
    pub time_index: Option<PathBuf>,
}

/// A partition as the lookup sees it: its segments and the checkpoints that bear on answers.
#[derive(Debug, Clone)]
pub struct PartitionTarget {
    pub topic: String,
    pub partition: i32,
    pub path: PathBuf,
    pub segments: Vec<SegmentFiles>,
    /// This partition's entry in the log dir's `log-start-offset-checkpoint`.
    pub log_start_checkpoint: Option<i64>,
    /// This partition's entry in `replication-offset-checkpoint` (the high watermark).
    pub high_watermark: Option<i64>,
    pub leader_epoch_checkpoint: Option<PathBuf>,
    /// Checkpoint files that could not be read ([`Step::CheckpointIgnored`]).
    pub notes: Vec<Step>,
}

/// Reads and decodes a checkpoint file (`epochs`: a `leader-epoch-checkpoint`).
pub(super) fn read_checkpoint(file: &Path, epochs: bool) -> Result<Checkpoint, FileProblem> {
    let bytes = read_small(file, SMALL_FILE_LIMIT).map_err(|e| FileProblem::Io(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|_| FileProblem::NotUtf8)?;
    parse_checkpoint(&text, epochs).map_err(|e| FileProblem::Decode {
        position: e.position,
        message: e.message.into_owned(),
    })
}

impl PartitionTarget {
    /// Builds the target from a discovered partition dir; `log_dir` is the directory holding
    /// the log dir's checkpoint files (the partition dir's parent), when there is one.
    pub fn new(p: &PartitionDir, log_dir: Option<&Path>) -> PartitionTarget {
        let mut segments: Vec<SegmentFiles> = Vec::new();
        let mut leader_epoch_checkpoint = None;
        let base_of = |path: &Path| {
            path.file_name()
                .and_then(|n| base_offset_of(&n.to_string_lossy()))
        };
        for f in &p.files {
            match f.kind {
                FileKind::Log => {
                    if let Some(base) = base_of(&f.path) {
                        segments.push(SegmentFiles {
                            base_offset: base,
                            log: f.path.clone(),
                            offset_index: None,
                            time_index: None,
                        });
                    }
                }
                FileKind::LeaderEpochCheckpoint => leader_epoch_checkpoint = Some(f.path.clone()),
                _ => {}
            }
        }
        segments.sort_by_key(|s| s.base_offset);
        for f in &p.files {
            let Some(base) = base_of(&f.path) else {
                continue;
            };
            // Sorted by base offset (one .log per base): a binary search per file, not a scan.
            if let Ok(i) = segments.binary_search_by_key(&base, |s| s.base_offset) {
                let s = &mut segments[i];
                match f.kind {
                    FileKind::OffsetIndex => s.offset_index = Some(f.path.clone()),
                    FileKind::TimeIndex => s.time_index = Some(f.path.clone()),
                    _ => {}
                }
            }
        }
        let mut target = PartitionTarget {
            topic: p.name.topic.clone(),
            partition: p.name.partition,
            path: p.path.clone(),
            segments,
            log_start_checkpoint: None,
            high_watermark: None,
            leader_epoch_checkpoint,
            notes: Vec::new(),
        };
        if let Some(dir) = log_dir {
            target.log_start_checkpoint =
                target.checkpoint_entry(&dir.join("log-start-offset-checkpoint"));
            target.high_watermark =
                target.checkpoint_entry(&dir.join("replication-offset-checkpoint"));
        }
        target
    }

    fn checkpoint_entry(&mut self, file: &Path) -> Option<i64> {
        if !file.is_file() {
            return None;
        }
        match read_checkpoint(file, false) {
            Ok(c) => c.entries.into_iter().find_map(|e| match e {
                CheckpointEntry::Partition {
                    topic,
                    partition,
                    offset,
                } if topic == self.topic && partition == self.partition => Some(offset),
                _ => None,
            }),
            Err(problem) => {
                self.notes.push(Step::CheckpointIgnored {
                    file: file.to_path_buf(),
                    problem,
                });
                None
            }
        }
    }
}
