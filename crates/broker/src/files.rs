//! The small files of a data dir, written the way Kafka writes them: checkpoints, `partition.metadata`,
//! `meta.properties`, `.kafka_cleanshutdown`, and the `.lock` the running broker holds.
//!
//! Every file is written to `<name>.tmp`, fsynced and renamed over the old one, as Kafka's
//! `CheckpointFile` does, so a crash leaves the old or the new version (or a stray `.tmp`).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::io::AsRawFd;
use std::path::Path;

use kseg_format::protocol::{parse_uuid, uuid_string};
use kseg_format::text_files::{
    encode_clean_shutdown, encode_epoch_checkpoint, encode_offset_checkpoint, parse_checkpoint,
    parse_partition_metadata, parse_properties, CheckpointEntry, EpochEntry,
};

pub const META_PROPERTIES: &str = "meta.properties";
pub const CLEAN_SHUTDOWN: &str = ".kafka_cleanshutdown";
pub const LOCK: &str = ".lock";
pub const RECOVERY_POINT_CHECKPOINT: &str = "recovery-point-offset-checkpoint";
pub const LOG_START_CHECKPOINT: &str = "log-start-offset-checkpoint";
pub const REPLICATION_CHECKPOINT: &str = "replication-offset-checkpoint";
pub const LEADER_EPOCH_CHECKPOINT: &str = "leader-epoch-checkpoint";
pub const PARTITION_METADATA: &str = "partition.metadata";

/// Writes `content` to `path` through `path.tmp`, fsync and rename.
pub fn write_atomically(path: &Path, content: &[u8]) -> io::Result<()> {
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(".tmp");
    let tmp = Path::new(&tmp_name);
    {
        let mut f = File::create(tmp)?;
        f.write_all(content)?;
        f.sync_all()?;
    }
    fs::rename(tmp, path)
}

/// `<version>\n<count>\n<topic> <partition> <offset>\n...` for the log-dir checkpoints.
pub fn offset_checkpoint_text(entries: &[(String, i32, i64)]) -> String {
    encode_offset_checkpoint(entries.iter().map(|(t, p, o)| (t.as_str(), *p, *o)))
}

/// `leader-epoch-checkpoint`: `0\n<count>\n<epoch> <startOffset>\n...`.
pub fn epoch_checkpoint_text(entries: &[EpochEntry]) -> String {
    encode_epoch_checkpoint(entries)
}

/// Reads a log-dir offset checkpoint; a missing or unreadable file is empty.
pub fn read_offset_checkpoint(path: &Path) -> Vec<(String, i32, i64)> {
    let Ok(text) = fs::read_to_string(path) else {
        return Vec::new();
    };
    parse_checkpoint(&text, false)
        .map(|c| {
            c.entries
                .into_iter()
                .filter_map(|e| match e {
                    CheckpointEntry::Partition {
                        topic,
                        partition,
                        offset,
                    } => Some((topic, partition, offset)),
                    CheckpointEntry::Epoch { .. } => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn read_epoch_checkpoint(path: &Path) -> Vec<EpochEntry> {
    let Ok(text) = fs::read_to_string(path) else {
        return Vec::new();
    };
    parse_checkpoint(&text, true)
        .map(|c| c.epoch_entries())
        .unwrap_or_default()
}

/// `partition.metadata`: exactly `version: 0\ntopic_id: <id>`, no trailing newline.
pub fn partition_metadata_text(topic_id: &[u8; 16]) -> String {
    format!("version: 0\ntopic_id: {}", uuid_string(topic_id))
}

pub fn read_partition_metadata(dir: &Path) -> Option<[u8; 16]> {
    let text = fs::read_to_string(dir.join(PARTITION_METADATA)).ok()?;
    parse_uuid(&parse_partition_metadata(&text).ok()?.topic_id)
}

/// A random Kafka `Uuid`: a Java `UUID.randomUUID()` (version 4, IETF variant) that is neither
/// zero, the metadata topic id, nor one whose string form starts with `-`.
pub fn random_uuid() -> [u8; 16] {
    loop {
        let mut b = random_bytes();
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        let mut metadata = [0u8; 16];
        metadata[15] = 1;
        if b != [0; 16] && b != metadata && !uuid_string(&b).starts_with('-') {
            return b;
        }
    }
}

fn random_bytes() -> [u8; 16] {
    let mut b = [0u8; 16];
    if File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .is_ok()
    {
        return b;
    }
    // No /dev/urandom: mix the clock with std's randomly seeded hasher.
    use std::hash::{BuildHasher, Hasher};
    for (i, chunk) in b.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        h.write_usize(i);
        chunk.copy_from_slice(&h.finish().to_be_bytes());
    }
    b
}

/// What `meta.properties` says about this log dir (KRaft, version 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaProperties {
    pub cluster_id: String,
    pub node_id: i32,
    pub directory_id: String,
}

impl MetaProperties {
    pub fn new(node_id: i32) -> Self {
        MetaProperties {
            cluster_id: uuid_string(&random_uuid()),
            node_id,
            directory_id: uuid_string(&random_uuid()),
        }
    }

    /// Java `Properties.store` output: an empty comment, the date comment, then the keys in the
    /// order a Kafka 4.0 broker's file has them.
    pub fn text(&self, now_ms: i64) -> String {
        format!(
            "#\n#{}\nnode.id={}\ndirectory.id={}\nversion=1\ncluster.id={}\n",
            java_date(now_ms),
            self.node_id,
            self.directory_id,
            self.cluster_id
        )
    }

    pub fn read(dir: &Path) -> Option<MetaProperties> {
        let text = fs::read_to_string(dir.join(META_PROPERTIES)).ok()?;
        let props = parse_properties(&text);
        let get = |k: &str| {
            props
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
        };
        Some(MetaProperties {
            cluster_id: get("cluster.id")?,
            node_id: get("node.id").or_else(|| get("broker.id"))?.parse().ok()?,
            directory_id: get("directory.id").unwrap_or_else(|| uuid_string(&random_uuid())),
        })
    }
}

/// Java's `Date.toString()` in UTC: `Thu Jul 17 14:54:17 UTC 2025`.
pub fn java_date(now_ms: i64) -> String {
    let ts = jiff::Timestamp::from_millisecond(now_ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    ts.strftime("%a %b %d %H:%M:%S UTC %Y").to_string()
}

/// `.kafka_cleanshutdown`: `{"version":0,"brokerEpoch":<n>}`.
pub fn clean_shutdown_text(broker_epoch: i64) -> String {
    encode_clean_shutdown(broker_epoch)
}

/// The broker's exclusive lock on a log dir (`.lock`, held with `flock` while running), so two
/// brokers, or a broker and `mini-broker produce`, never write one dir at once.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

impl DirLock {
    pub fn acquire(dir: &Path) -> io::Result<DirLock> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(LOCK))?;
        // SAFETY: flock on a file descriptor we own; it has no memory effects.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            let err = io::Error::last_os_error();
            return Err(io::Error::new(
                err.kind(),
                format!(
                    "{} is locked by another broker (or mini-broker command): {err}",
                    dir.display()
                ),
            ));
        }
        Ok(DirLock { _file: file })
    }

    /// `FileLock.destroy` at a clean shutdown: the lock is released and `.lock` deleted (a
    /// crash leaves the file, unlocked).
    pub fn destroy(dir: &Path) -> io::Result<()> {
        match fs::remove_file(dir.join(LOCK)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(pairs: &[(i32, i64)]) -> Vec<EpochEntry> {
        pairs.iter().copied().map(EpochEntry::from).collect()
    }

    #[test]
    fn texts_match_kafka() {
        assert_eq!(
            offset_checkpoint_text(&[("t".into(), 0, 5), ("__consumer_offsets".into(), 22, 3)]),
            "0\n2\nt 0 5\n__consumer_offsets 22 3\n"
        );
        assert_eq!(
            epoch_checkpoint_text(&entries(&[(0, 0), (2, 4)])),
            "0\n2\n0 0\n2 4\n"
        );
        let mut id = [0u8; 16];
        id[15] = 1;
        assert_eq!(
            partition_metadata_text(&id),
            "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ"
        );
        assert_eq!(java_date(1752764057000), "Thu Jul 17 14:54:17 UTC 2025");
        assert_eq!(
            clean_shutdown_text(11626),
            "{\"version\":0,\"brokerEpoch\":11626}"
        );
    }

    #[test]
    fn files_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(LEADER_EPOCH_CHECKPOINT);
        write_atomically(
            &p,
            epoch_checkpoint_text(&entries(&[(0, 0), (2, 7)])).as_bytes(),
        )
        .unwrap();
        assert_eq!(read_epoch_checkpoint(&p), entries(&[(0, 0), (2, 7)]));
        let id = random_uuid();
        write_atomically(
            &dir.path().join(PARTITION_METADATA),
            partition_metadata_text(&id).as_bytes(),
        )
        .unwrap();
        assert_eq!(read_partition_metadata(dir.path()), Some(id));
        let meta = MetaProperties::new(1);
        write_atomically(&dir.path().join(META_PROPERTIES), meta.text(0).as_bytes()).unwrap();
        assert_eq!(MetaProperties::read(dir.path()), Some(meta));
        let lock = DirLock::acquire(dir.path()).unwrap();
        assert!(DirLock::acquire(dir.path()).is_err());
        drop(lock);
        assert!(DirLock::acquire(dir.path()).is_ok());
    }
}
