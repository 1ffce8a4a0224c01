//! What `LogLoader.load` does to a partition directory's files before it recovers anything:
//! stray `.deleted` and `.cleaned` files go, an interrupted compaction or split is completed or
//! abandoned through its `.swap` files, and index files without a log go. The checks then run on
//! the files as Kafka will see them.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

use kseg_format::log::{BatchInfo, LogEntry, RecordScratch};
use kseg_scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use kseg_storage::discover::DataFile;
use kseg_storage::layout::{base_offset_of, FileKind};
use kseg_storage::source::open_log;

/// Why Kafka's load removes or renames a file (worded by `print::words::LoadWords`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum LoadReason {
    /// A `.deleted` file: a deletion that had not finished.
    StrayDeleted,
    /// A `.cleaned` file: the log cleaner's output of an interrupted cleaning.
    CleanerOutput,
    /// A `.swap` file at or above the smallest `.cleaned` offset: part of an incomplete split.
    SplitSwapAboveCleaned { min_cleaned: i64 },
    /// A segment inside the offsets `first..end` the swapped-in segments cover.
    ReplacedBySwap { first: i64, end: i64 },
    /// A file of the name its `.swap` file is renamed to.
    OverwrittenByRename,
    /// A `.swap` file completed by its rename to `target`.
    SwapRenamed { target: String },
    /// An index file whose `.log` is gone.
    OrphanIndex,
}

/// One file operation of Kafka's load, with its reason.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LoadAction {
    pub path: PathBuf,
    pub reason: LoadReason,
    /// Completing or abandoning an interrupted compaction or split (segments change), as
    /// opposed to removing leftovers.
    pub replaces_data: bool,
}

/// The partition's files after the load's clean-up, and what it did to get there.
#[derive(Debug, Default)]
pub struct LoadPlan {
    /// `.swap` files that take their original's place keep their path, with the kind they will
    /// have once renamed.
    pub files: Vec<DataFile>,
    pub actions: Vec<LoadAction>,
    /// Base offsets of swapped-in segments whose `.index` Kafka creates empty: the first pass
    /// opens the `.log.swap` as a segment and reads its next offset
    /// (`LogLoader.load` → `LogSegment.readNextOffset`), which creates `<base>.index.swap`, then
    /// renames it with the log. Such a segment has an index at load, so it is not recovered for
    /// a missing one.
    pub empty_index_created: HashSet<i64>,
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// The next offset of a segment file: one past its last batch, or its base offset.
fn next_offset(path: &Path, base: i64, scratch: &mut RecordScratch) -> io::Result<i64> {
    struct Last(Option<i64>);
    impl LogSink for Last {
        fn batch(&mut self, _: u64, _: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
            self.0 = Some(b.last_offset);
            Ok(Flow::Continue)
        }
        fn problem(&mut self, _: &LogProblem<'_>) -> io::Result<Flow> {
            Ok(Flow::Continue)
        }
    }
    let mut src = open_log(path, false)?;
    let mut last = Last(None);
    let opts = ScanOptions {
        check_crc: false,
        ..Default::default()
    };
    scan_log(src.as_mut(), &opts, scratch, &mut last)?;
    Ok(last.0.map_or(base, |l| l.saturating_add(1).max(base)))
}

pub fn plan(files: &[DataFile], scratch: &mut RecordScratch) -> LoadPlan {
    let mut out = LoadPlan::default();
    let mut act = |path: &Path, replaces_data: bool, reason: LoadReason| {
        out.actions.push(LoadAction {
            path: path.to_path_buf(),
            reason,
            replaces_data,
        })
    };
    // First pass: stray files, and the swap files an incomplete split leaves (KAFKA-6264: any
    // swap at or above the smallest `.cleaned` offset).
    let min_cleaned = files
        .iter()
        .filter(|f| matches!(f.kind, FileKind::Cleaned(_)))
        .filter_map(|f| base_offset_of(&name_of(&f.path)))
        .min();
    let mut remaining: Vec<&DataFile> = Vec::new();
    let mut swaps: Vec<&DataFile> = Vec::new();
    for f in files {
        let name = name_of(&f.path);
        match &f.kind {
            FileKind::Deleted(_) if !name.ends_with(".checkpoint.deleted") => {
                act(&f.path, false, LoadReason::StrayDeleted)
            }
            FileKind::Cleaned(_) => act(&f.path, false, LoadReason::CleanerOutput),
            FileKind::Swap(_) => {
                let base = base_offset_of(&name);
                if let (Some(base), Some(min)) = (base, min_cleaned) {
                    if base >= min {
                        act(
                            &f.path,
                            true,
                            LoadReason::SplitSwapAboveCleaned { min_cleaned: min },
                        );
                        continue;
                    }
                }
                swaps.push(f);
            }
            _ => remaining.push(f),
        }
    }
    // Second pass: the segments a valid swap replaces (their offsets fall in the swapped log
    // segments' range) are deleted; then the swap files are renamed into place.
    let mut range: Option<(i64, i64)> = None;
    for f in &swaps {
        if !matches!(f.kind, FileKind::Swap(ref inner) if **inner == FileKind::Log) {
            continue;
        }
        let Some(base) = base_offset_of(&name_of(&f.path)) else {
            continue;
        };
        // An unreadable swap log counts as empty: the rename still happens.
        let next = next_offset(&f.path, base, scratch).unwrap_or(base);
        range = Some(range.map_or((base, next), |(lo, hi)| (lo.min(base), hi.max(next))));
    }
    let mut kept: Vec<DataFile> = Vec::new();
    for f in remaining {
        let replaced = range.is_some_and(|(lo, hi)| {
            base_offset_of(&name_of(&f.path)).is_some_and(|o| o >= lo && o < hi)
        });
        if replaced {
            let (lo, hi) = range.unwrap_or_default();
            act(
                &f.path,
                true,
                LoadReason::ReplacedBySwap { first: lo, end: hi },
            );
        } else {
            kept.push(f.clone());
        }
    }
    for f in swaps {
        let FileKind::Swap(inner) = &f.kind else {
            continue;
        };
        // The rename overwrites a file of the final name that is still there.
        let target = name_of(&f.path).trim_end_matches(".swap").to_string();
        if let Some(i) = kept.iter().position(|k| name_of(&k.path) == target) {
            let old = kept.remove(i);
            act(&old.path, true, LoadReason::OverwrittenByRename);
        }
        act(
            &f.path,
            true,
            LoadReason::SwapRenamed {
                target: target.clone(),
            },
        );
        kept.push(DataFile {
            path: f.path.clone(),
            kind: (**inner).clone(),
        });
    }
    // Fourth pass (loading): index files without their log are deleted.
    let logs: HashSet<i64> = kept
        .iter()
        .filter(|f| f.kind == FileKind::Log)
        .filter_map(|f| base_offset_of(&name_of(&f.path)))
        .collect();
    kept.retain(|f| {
        let is_index = matches!(
            f.kind,
            FileKind::OffsetIndex | FileKind::TimeIndex | FileKind::TxnIndex
        );
        let orphan =
            is_index && base_offset_of(&name_of(&f.path)).is_some_and(|base| !logs.contains(&base));
        if orphan {
            act(&f.path, false, LoadReason::OrphanIndex);
        }
        !orphan
    });
    let indexed: HashSet<i64> = kept
        .iter()
        .filter(|f| f.kind == FileKind::OffsetIndex)
        .filter_map(|f| base_offset_of(&name_of(&f.path)))
        .collect();
    let created: HashSet<i64> = kept
        .iter()
        .filter(|f| f.kind == FileKind::Log && name_of(&f.path).ends_with(".swap"))
        .filter_map(|f| base_offset_of(&name_of(&f.path)))
        .filter(|b| !indexed.contains(b))
        .collect();
    kept.sort_by_key(|f| name_of(&f.path).trim_end_matches(".swap").to_string());
    out.files = kept;
    out.empty_index_created = created;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kseg_storage::layout::classify_file;

    fn files(names: &[&str]) -> Vec<DataFile> {
        names
            .iter()
            .map(|n| DataFile {
                path: PathBuf::from("/nonexistent/t-0").join(n),
                kind: classify_file(n),
            })
            .collect()
    }

    fn names(plan: &LoadPlan) -> Vec<String> {
        plan.files.iter().map(|f| name_of(&f.path)).collect()
    }

    #[test]
    fn strays_and_orphans_go() {
        let mut scratch = RecordScratch::default();
        let p = plan(
            &files(&[
                "00000000000000000000.log",
                "00000000000000000000.index",
                "00000000000000000100.log.deleted",
                "00000000000000000100.index.deleted",
                "00000000000000000007-0000000001.checkpoint.deleted",
                "00000000000000000200.index",
                "00000000000000000200.timeindex",
                "leader-epoch-checkpoint",
            ]),
            &mut scratch,
        );
        assert_eq!(
            names(&p),
            [
                "00000000000000000000.index",
                "00000000000000000000.log",
                "00000000000000000007-0000000001.checkpoint.deleted",
                "leader-epoch-checkpoint"
            ]
        );
        assert_eq!(p.actions.len(), 4);
    }

    #[test]
    fn a_swap_at_or_above_a_cleaned_file_is_an_abandoned_split() {
        let mut scratch = RecordScratch::default();
        let p = plan(
            &files(&[
                "00000000000000000000.log",
                "00000000000000000000.log.cleaned",
                "00000000000000000050.log.swap",
            ]),
            &mut scratch,
        );
        assert_eq!(names(&p), ["00000000000000000000.log"]);
        assert_eq!(p.actions.len(), 2);
    }
}
