//! Turning the paths a user gives (files, partition dirs, log dirs, or a tree holding them)
//! into an ordered plan of what to read, reporting everything that is not Kafka's.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::layout::{
    base_offset_of, classify_file, file_order, is_redpanda_file_name, parse_partition_dir,
    FileKind, PartitionName,
};

#[derive(Debug, Clone)]
pub struct DataFile {
    pub path: PathBuf,
    pub kind: FileKind,
}

/// A partition's files by base offset, built once: finding a segment's `.index`,
/// `.timeindex`, `.txnindex` is a binary search, not a scan of every file of the partition.
pub struct Siblings<'f> {
    files: &'f [DataFile],
    /// (base offset, index in `files`), by base offset then file order.
    by_base: Vec<(i64, usize)>,
}

impl<'f> Siblings<'f> {
    pub fn new(files: &'f [DataFile]) -> Self {
        let mut by_base: Vec<(i64, usize)> = files
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let base = f
                    .path
                    .file_name()
                    .and_then(|n| base_offset_of(&n.to_string_lossy()))?;
                Some((base, i))
            })
            .collect();
        by_base.sort_unstable();
        Siblings { files, by_base }
    }

    /// The file of `kind` belonging to the segment with base offset `base` (the first in file
    /// order), whatever suffix the name carries.
    pub fn get(&self, base: i64, kind: &FileKind) -> Option<&'f DataFile> {
        let from = self.by_base.partition_point(|(b, _)| *b < base);
        let steps = (usize::BITS - self.by_base.len().leading_zeros()) as u64;
        SIBLING_WORK.fetch_add(steps, Ordering::Relaxed);
        self.by_base[from..]
            .iter()
            .take_while(|(b, _)| *b == base)
            .map(|(_, i)| &self.files[*i])
            .inspect(|_| {
                SIBLING_WORK.fetch_add(1, Ordering::Relaxed);
            })
            .find(|f| f.kind == *kind)
    }
}

/// File entries examined by sibling look-ups since the process started: the scaling tests
/// assert it grows linearly with the segment count.
static SIBLING_WORK: AtomicU64 = AtomicU64::new(0);

#[doc(hidden)]
pub fn sibling_work() -> u64 {
    SIBLING_WORK.load(Ordering::Relaxed)
}

#[derive(Debug, Clone)]
pub struct PartitionDir {
    pub path: PathBuf,
    pub name: PartitionName,
    /// Files in Kafka's order (by offset, log before its indexes, then the rest by name).
    pub files: Vec<DataFile>,
}

#[derive(Debug, Clone)]
pub struct LogDir {
    pub path: PathBuf,
    /// Root-level files: checkpoints, meta.properties, clean-shutdown marker, bootstrap...
    pub files: Vec<DataFile>,
    pub partitions: Vec<PartitionDir>,
}

/// Something kseg found and will not read, with the reason.
#[derive(Debug, Clone)]
pub struct Unrecognised {
    pub path: PathBuf,
    pub reason: String,
    /// A data dir of another system (Redpanda) rather than a stray file.
    pub foreign_layout: Option<&'static str>,
}

#[derive(Debug, Default)]
pub struct DataSet {
    pub log_dirs: Vec<LogDir>,
    /// Partition dirs given directly (not inside a given log dir).
    pub partitions: Vec<PartitionDir>,
    /// Files given directly.
    pub files: Vec<DataFile>,
    pub unrecognised: Vec<Unrecognised>,
    /// Directories (and entries) below the given paths that could not be read: a partition dir
    /// kseg may not list, a name that is not UTF-8. The rest is read; the command names each
    /// on stderr and its exit code says the input was not all read.
    pub unreadable: Vec<Unreadable>,
}

/// Something below a given path kseg could not read, with why.
#[derive(Debug, Clone)]
pub struct Unreadable {
    pub path: PathBuf,
    pub reason: String,
}

impl DataSet {
    pub fn is_empty(&self) -> bool {
        self.log_dirs.is_empty() && self.partitions.is_empty() && self.files.is_empty()
    }

    /// Adds what another discovery found.
    pub fn merge(&mut self, other: DataSet) {
        self.log_dirs.extend(other.log_dirs);
        self.partitions.extend(other.partitions);
        self.files.extend(other.files);
        self.unrecognised.extend(other.unrecognised);
        self.unreadable.extend(other.unreadable);
    }

    /// Every partition, from log dirs and given directly (JBOD: one topic-partition may appear in
    /// several log dirs, e.g. a `-future` replica).
    pub fn all_partitions(&self) -> impl Iterator<Item = &PartitionDir> {
        self.log_dirs
            .iter()
            .flat_map(|d| d.partitions.iter())
            .chain(self.partitions.iter())
    }
}

const ROOT_FILES: [&str; 6] = [
    "meta.properties",
    "recovery-point-offset-checkpoint",
    "log-start-offset-checkpoint",
    "replication-offset-checkpoint",
    ".kafka_cleanshutdown",
    "cleaner-offset-checkpoint",
];

/// How deep to look below a given directory that is neither a log dir nor a partition dir.
const MAX_SEARCH_DEPTH: usize = 6;

pub fn discover(paths: &[PathBuf]) -> io::Result<DataSet> {
    let mut set = DataSet::default();
    for path in paths {
        let meta = fs::metadata(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        if meta.is_file() {
            let name = file_name(path);
            set.files.push(DataFile {
                path: path.clone(),
                kind: classify_file(&name),
            });
        } else {
            // A directory holding nothing Kafka's adds nothing: the commands say so, each knowing
            // what it reads (cmd::discover_inputs).
            visit_dir(path, 0, &mut set)?;
        }
    }
    Ok(set)
}

/// The log dir a partition dir given alone sits in: its parent's root-level files
/// (checkpoints, clean-shutdown marker, `.lock`, `meta.properties`), without its partitions;
/// `None` when the parent holds none of them (the partition dir is not in a log dir). A
/// partition is judged with its log dir's checkpoints wherever it is named from.
pub fn parent_log_dir(p: &PartitionDir) -> Option<LogDir> {
    let parent = p.path.parent()?;
    let mut files = Vec::new();
    for entry in fs::read_dir(parent).ok()?.flatten() {
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let kind = classify_file(&entry.file_name().to_string_lossy());
        if matches!(
            kind,
            FileKind::RecoveryPointCheckpoint
                | FileKind::LogStartOffsetCheckpoint
                | FileKind::ReplicationOffsetCheckpoint
                | FileKind::CleanShutdown
                | FileKind::Lock
                | FileKind::MetaProperties
        ) {
            files.push(DataFile {
                path: entry.path(),
                kind,
            });
        }
    }
    // `.lock` alone (any dir may hold one) does not make a log dir.
    if files.iter().all(|f| f.kind == FileKind::Lock) {
        return None;
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Some(LogDir {
        path: parent.to_path_buf(),
        files,
        partitions: Vec::new(),
    })
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

struct Listing {
    files: Vec<String>,
    dirs: Vec<String>,
}

/// [`list`] for a directory below a given path: one that cannot be listed is recorded in
/// `set.unreadable` (and `None` returned) instead of failing the whole discovery.
fn list_below(dir: &Path, set: &mut DataSet) -> Option<Listing> {
    match list_into(dir, set) {
        Ok(l) => Some(l),
        Err(e) => {
            set.unreadable.push(Unreadable {
                path: dir.to_path_buf(),
                reason: format!("cannot list the directory: {}", io_reason(&e)),
            });
            None
        }
    }
}

/// An I/O error's text without the path [`list`] prefixes (the path is reported separately).
fn io_reason(e: &io::Error) -> String {
    match e.get_ref() {
        Some(inner) => inner
            .to_string()
            .rsplit_once(": ")
            .map_or_else(|| inner.to_string(), |(_, r)| r.to_string()),
        None => e.to_string(),
    }
}

/// Lists `dir`: names that are not UTF-8 (no Kafka file or partition dir is named so) and
/// entries that cannot be read go to `set.unreadable`.
fn list_into(dir: &Path, set: &mut DataSet) -> io::Result<Listing> {
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for entry in fs::read_dir(dir)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?
    {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                set.unreadable.push(Unreadable {
                    path: dir.to_path_buf(),
                    reason: format!("cannot read a directory entry: {e}"),
                });
                continue;
            }
        };
        let Ok(name) = entry.file_name().into_string() else {
            set.unreadable.push(Unreadable {
                path: entry.path(),
                reason: "its name is not UTF-8 (no Kafka file or partition dir is named so); \
                         not read"
                    .into(),
            });
            continue;
        };
        // Follow symlinks: data dirs are often linked into place.
        match fs::metadata(entry.path()) {
            Ok(m) if m.is_dir() => dirs.push(name),
            _ if name.chars().any(char::is_control) => {
                // Kafka names no file so; it is said (escaped) rather than left out unsaid.
                set.unreadable.push(Unreadable {
                    path: entry.path(),
                    reason: "its name holds control characters (no Kafka file is named so); \
                             not read"
                        .into(),
                });
            }
            Ok(_) => files.push(name),
            Err(_) => files.push(name),
        }
    }
    files.sort();
    dirs.sort();
    Ok(Listing { files, dirs })
}

fn looks_like_redpanda(listing: &Listing) -> bool {
    listing.files.iter().any(|f| is_redpanda_file_name(f))
        || (listing.dirs.iter().any(|d| d == "redpanda")
            && listing
                .dirs
                .iter()
                .any(|d| d == "kafka" || d == "kafka_internal"))
}

fn is_partition_content(listing: &Listing) -> bool {
    listing
        .files
        .iter()
        .any(|f| !matches!(classify_file(f), FileKind::Unknown))
}

fn visit_dir(dir: &Path, depth: usize, set: &mut DataSet) -> io::Result<()> {
    let listing = list_into(dir, set)?;
    if looks_like_redpanda(&listing) {
        set.unrecognised.push(Unrecognised {
            path: dir.to_path_buf(),
            reason: "this is a Redpanda data directory (segments named <base>-<term>-v1.log with \
                     little-endian batch headers), not Kafka's on-disk format"
                .into(),
            foreign_layout: Some("redpanda"),
        });
        return Ok(());
    }
    let partition_children: Vec<&String> = listing
        .dirs
        .iter()
        .filter(|d| parse_partition_dir(d).is_some())
        .collect();
    let has_root_files = listing
        .files
        .iter()
        .any(|f| ROOT_FILES.contains(&f.as_str()));
    // A folder of log dirs (`kafka-logs/`, `kafka-logs-1/`, each with its meta.properties, as
    // several brokers or a JBOD broker leave them): each is a log dir, however it is named —
    // `kafka-logs-1` is not partition 1 of a topic `kafka-logs`.
    if !has_root_files
        && depth < MAX_SEARCH_DEPTH
        && listing
            .dirs
            .iter()
            .any(|d| ROOT_FILES.iter().any(|f| dir.join(d).join(f).is_file()))
    {
        for d in &listing.dirs {
            visit_below(&dir.join(d), depth + 1, set);
        }
        return Ok(());
    }
    let is_log_dir = has_root_files
        || (!partition_children.is_empty() && parse_partition_dir(&file_name(dir)).is_none());
    if is_log_dir {
        let log_dir = read_log_dir(dir, listing, set)?;
        set.log_dirs.push(log_dir);
        return Ok(());
    }
    if let Some(name) = parse_partition_dir(&file_name(dir)) {
        // A name like `project-2` is only a partition dir if it holds Kafka files (or nothing);
        // a directory of directories is searched further instead.
        if is_partition_content(&listing) || (listing.files.is_empty() && listing.dirs.is_empty()) {
            let p = read_partition(dir, name, listing, set);
            set.partitions.push(p);
            return Ok(());
        }
    }
    // A plain directory holding segment-like files (copied segments, wire captures): read them.
    for f in &listing.files {
        let kind = classify_file(f);
        if kind.is_log_data() {
            set.files.push(DataFile {
                path: dir.join(f),
                kind,
            });
        }
    }
    if depth >= MAX_SEARCH_DEPTH {
        return Ok(());
    }
    for d in &listing.dirs {
        visit_below(&dir.join(d), depth + 1, set);
    }
    Ok(())
}

/// [`visit_dir`] below a given path: what cannot be read there is recorded, not fatal.
fn visit_below(dir: &Path, depth: usize, set: &mut DataSet) {
    if let Err(e) = visit_dir(dir, depth, set) {
        set.unreadable.push(Unreadable {
            path: dir.to_path_buf(),
            reason: format!("cannot list the directory: {}", io_reason(&e)),
        });
    }
}

fn read_log_dir(dir: &Path, listing: Listing, set: &mut DataSet) -> io::Result<LogDir> {
    let mut files = Vec::new();
    for f in &listing.files {
        let kind = classify_file(f);
        if kind == FileKind::Unknown {
            set.unrecognised.push(Unrecognised {
                path: dir.join(f),
                reason: "unrecognised file in a log dir".into(),
                foreign_layout: None,
            });
        }
        files.push(DataFile {
            path: dir.join(f),
            kind,
        });
    }
    let mut partitions = Vec::new();
    for d in &listing.dirs {
        let path = dir.join(d);
        match parse_partition_dir(d) {
            Some(name) => {
                let Some(inner) = list_below(&path, set) else {
                    continue;
                };
                partitions.push(read_partition(&path, name, inner, set));
            }
            None => {
                let Some(inner) = list_below(&path, set) else {
                    continue;
                };
                let redpanda = looks_like_redpanda(&inner);
                set.unrecognised.push(Unrecognised {
                    path,
                    reason: if redpanda {
                        "a Redpanda data directory, not Kafka's on-disk format".into()
                    } else {
                        "directory whose name is not <topic>-<partition>".into()
                    },
                    foreign_layout: redpanda.then_some("redpanda"),
                });
            }
        }
    }
    partitions.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(LogDir {
        path: dir.to_path_buf(),
        files,
        partitions,
    })
}

fn read_partition(
    dir: &Path,
    name: PartitionName,
    listing: Listing,
    set: &mut DataSet,
) -> PartitionDir {
    let mut names = listing.files;
    // The key once per file, not per comparison (a partition may hold 100k files).
    names.sort_by_cached_key(|n| file_order(n));
    let mut files = Vec::new();
    for f in names {
        let kind = classify_file(&f);
        if kind == FileKind::Unknown {
            set.unrecognised.push(Unrecognised {
                path: dir.join(&f),
                reason: "unrecognised file in a partition dir".into(),
                foreign_layout: None,
            });
        }
        files.push(DataFile {
            path: dir.join(&f),
            kind,
        });
    }
    for d in listing.dirs {
        set.unrecognised.push(Unrecognised {
            path: dir.join(d),
            reason: "unexpected directory inside a partition dir".into(),
            foreign_layout: None,
        });
    }
    PartitionDir {
        path: dir.to_path_buf(),
        name,
        files,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_dir_with_partitions_and_strays() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("data");
        fs::create_dir_all(root.join("orders-1")).unwrap();
        fs::create_dir_all(root.join("orders-0")).unwrap();
        fs::create_dir_all(root.join("lost+found")).unwrap();
        fs::write(root.join("meta.properties"), "version=1\n").unwrap();
        fs::write(root.join("orders-0/00000000000000000000.log"), b"").unwrap();
        fs::write(root.join("orders-0/00000000000000000000.index"), b"").unwrap();
        fs::write(root.join("orders-0/00000000000000000100.log"), b"").unwrap();
        fs::write(root.join("orders-0/notes.txt"), b"x").unwrap();
        let set = discover(std::slice::from_ref(&root)).unwrap();
        assert_eq!(set.log_dirs.len(), 1);
        let parts = &set.log_dirs[0].partitions;
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].name.partition, 0);
        let names: Vec<String> = parts[0].files.iter().map(|f| file_name(&f.path)).collect();
        assert_eq!(names[0], "00000000000000000000.log");
        assert_eq!(names[1], "00000000000000000000.index");
        assert_eq!(names[2], "00000000000000000100.log");
        assert_eq!(set.unrecognised.len(), 2);
    }

    #[test]
    fn redpanda_is_named() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("rp");
        fs::create_dir_all(root.join("kafka/orders/0_12")).unwrap();
        fs::create_dir_all(root.join("redpanda/kvstore")).unwrap();
        fs::write(root.join("kafka/orders/0_12/0-1-v1.log"), b"").unwrap();
        let set = discover(&[root]).unwrap();
        assert!(set.is_empty());
        assert_eq!(set.unrecognised[0].foreign_layout, Some("redpanda"));
    }
}
