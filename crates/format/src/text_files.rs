//! The small text files of a data dir: offset checkpoints, `leader-epoch-checkpoint`,
//! `partition.metadata`, `meta.properties`, `.kafka_cleanshutdown` and `quorum-state` (the last
//! two JSON, read by [`super::json_text`]).

use super::json_text::{self, JsonValue};
use super::reader::DecodeError;

/// One line of a checkpoint file, with its 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckpointEntry {
    /// `<topic> <partition> <offset>` (recovery point, log start, replication, cleaner).
    Partition {
        topic: String,
        partition: i32,
        offset: i64,
    },
    /// `<epoch> <startOffset>` (leader-epoch-checkpoint).
    Epoch { epoch: i32, start_offset: i64 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub version: i32,
    pub entries: Vec<CheckpointEntry>,
}

/// An entry of a leader-epoch cache (Kafka's `EpochEntry`): `epoch` starts at `start_offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpochEntry {
    pub epoch: i32,
    pub start_offset: i64,
}

/// `(epoch, start offset)`, as a checkpoint line lists them.
impl From<(i32, i64)> for EpochEntry {
    fn from((epoch, start_offset): (i32, i64)) -> EpochEntry {
        EpochEntry {
            epoch,
            start_offset,
        }
    }
}

impl Checkpoint {
    /// The entries of a `leader-epoch-checkpoint`, in file order.
    pub fn epoch_entries(&self) -> Vec<EpochEntry> {
        self.entries
            .iter()
            .filter_map(|e| match e {
                CheckpointEntry::Epoch {
                    epoch,
                    start_offset,
                } => Some(EpochEntry {
                    epoch: *epoch,
                    start_offset: *start_offset,
                }),
                CheckpointEntry::Partition { .. } => None,
            })
            .collect()
    }
}

/// `OffsetCheckpointFile`'s text (`CheckpointFile` version 0): the version, the count, then one
/// `<topic> <partition> <offset>` line per entry, in the order given (Kafka's writers' orders
/// are in [`super::java_order`]).
pub fn encode_offset_checkpoint<'a>(
    entries: impl ExactSizeIterator<Item = (&'a str, i32, i64)>,
) -> String {
    use std::fmt::Write as _;
    let mut out = format!("0\n{}\n", entries.len());
    for (topic, partition, offset) in entries {
        let _ = writeln!(out, "{topic} {partition} {offset}");
    }
    out
}

/// `LeaderEpochCheckpointFile`'s text: version 0, the count, one `<epoch> <startOffset>` a line.
pub fn encode_epoch_checkpoint(entries: &[EpochEntry]) -> String {
    use std::fmt::Write as _;
    let mut out = format!("0\n{}\n", entries.len());
    for e in entries {
        let _ = writeln!(out, "{} {}", e.epoch, e.start_offset);
    }
    out
}

/// `CleanShutdownFileHandler`'s `.kafka_cleanshutdown`: `{"version":0,"brokerEpoch":<n>}`,
/// no newline.
pub fn encode_clean_shutdown(broker_epoch: i64) -> String {
    format!("{{\"version\":0,\"brokerEpoch\":{broker_epoch}}}")
}

/// A line as error messages quote it: its first 40 characters (escaped, as `{:?}` does), then
/// how long it was. A 100 MB line of NULs must not become a 300 MB message.
pub fn quoted(line: &str) -> String {
    const KEEP: usize = 40;
    match line.char_indices().nth(KEEP) {
        None => format!("{line:?}"),
        Some((cut, _)) => format!("{:?}... ({} bytes)", &line[..cut], line.len()),
    }
}

/// Parses Kafka's `CheckpointFile` format. Errors name the line (as a byte position).
pub fn parse_checkpoint(text: &str, epoch_entries: bool) -> Result<Checkpoint, DecodeError> {
    let mut entries = Vec::new();
    let version = check_checkpoint(text, epoch_entries)?;
    for_each_checkpoint_entry(text, epoch_entries, |e| entries.push(e))?;
    Ok(Checkpoint { version, entries })
}

/// Checks a checkpoint file whole without keeping its entries; returns its version. A file of
/// millions of lines costs its text and nothing per entry (an entry is 40 bytes, a line as
/// short as 4).
pub fn check_checkpoint(text: &str, epoch_entries: bool) -> Result<i32, DecodeError> {
    for_each_checkpoint_entry(text, epoch_entries, |_| {})
}

/// Calls `visit` for each entry of a checkpoint file in file order, and returns its version.
/// On an error, the entries before it were visited: callers that show entries only of a sound
/// file call [`check_checkpoint`] first.
pub fn for_each_checkpoint_entry(
    text: &str,
    epoch_entries: bool,
    mut visit: impl FnMut(CheckpointEntry),
) -> Result<i32, DecodeError> {
    if text.trim().is_empty() {
        // Kafka reads an empty file as no entries.
        return Ok(0);
    }
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let mut position = 0usize;
    let mut next = |what: &str| -> Result<(usize, &str), DecodeError> {
        let at = position;
        let line = lines
            .next()
            .ok_or_else(|| DecodeError::text(at, format!("missing {what} line")))?;
        position += line.len() + 1;
        Ok((at, line))
    };
    let (at, v) = next("version")?;
    let version: i32 = v
        .trim()
        .parse()
        .map_err(|_| DecodeError::text(at, format!("bad version line {}", quoted(v))))?;
    if version != 0 {
        return Err(DecodeError::text(
            at,
            format!("unrecognised checkpoint version {version}"),
        ));
    }
    let (at, c) = next("entry count")?;
    let count: usize = c
        .trim()
        .parse()
        .map_err(|_| DecodeError::text(at, format!("bad entry count line {}", quoted(c))))?;
    for _ in 0..count {
        let (at, line) = next("entry")?;
        let mut words = line.split_whitespace();
        let fields = [words.next(), words.next(), words.next(), words.next()];
        let bad = || DecodeError::text(at, format!("malformed checkpoint line {}", quoted(line)));
        let entry = match (epoch_entries, fields) {
            (true, [Some(e), Some(o), None, None]) => CheckpointEntry::Epoch {
                epoch: e.parse().map_err(|_| bad())?,
                start_offset: o.parse().map_err(|_| bad())?,
            },
            (false, [Some(t), Some(p), Some(o), None]) => CheckpointEntry::Partition {
                topic: t.to_string(),
                partition: p.parse().map_err(|_| bad())?,
                offset: o.parse().map_err(|_| bad())?,
            },
            _ => return Err(bad()),
        };
        visit(entry);
    }
    if !lines.all(|l| l.trim().is_empty()) {
        return Err(DecodeError::text(
            position,
            format!("expected {count} entries, found more lines"),
        ));
    }
    Ok(version)
}

/// `partition.metadata`: `version: 0` and `topic_id: <uuid>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionMetadata {
    pub version: i32,
    pub topic_id: String,
}

pub fn parse_partition_metadata(text: &str) -> Result<PartitionMetadata, DecodeError> {
    let mut version = None;
    let mut topic_id = None;
    let mut at = 0usize;
    for line in text.lines() {
        if let Some((k, v)) = line.split_once(':') {
            match k.trim() {
                "version" => version = v.trim().parse().ok(),
                "topic_id" => topic_id = Some(v.trim().to_string()),
                _ => {
                    return Err(DecodeError::text(
                        at,
                        format!("unexpected line {}", quoted(line)),
                    ))
                }
            }
        } else if !line.trim().is_empty() {
            return Err(DecodeError::text(
                at,
                format!("malformed line {}", quoted(line)),
            ));
        }
        at += line.len() + 1;
    }
    match (version, topic_id) {
        (Some(version), Some(topic_id)) => Ok(PartitionMetadata { version, topic_id }),
        _ => Err(DecodeError::text(
            0,
            "expected `version:` and `topic_id:` lines",
        )),
    }
}

/// Java `Properties` text (`meta.properties`): `key=value` lines, `#` comments.
pub fn parse_properties(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim_start)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('!'))
        .filter_map(|l| {
            let split = l.find(['=', ':'])?;
            Some((
                l[..split].trim().to_string(),
                l[split + 1..].trim().to_string(),
            ))
        })
        .collect()
}

/// The members of a single-JSON-object file, in file order. An empty file has none.
fn json_members(text: &str) -> Result<Vec<(String, JsonValue)>, DecodeError> {
    if text.trim().is_empty() {
        // Brokers before 3.5 wrote an empty clean-shutdown marker.
        return Ok(Vec::new());
    }
    match json_text::parse(text)? {
        JsonValue::Object(members) => Ok(members),
        _ => Err(DecodeError::text(0, "expected a JSON object")),
    }
}

fn member<'a>(members: &'a [(String, JsonValue)], name: &str) -> Option<&'a JsonValue> {
    members.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

/// `quorum-state` (KRaft's `QuorumStateData` as `FileQuorumStateStore` writes it): every member
/// in file order, the ones kseg does not know included, with the known ones typed.
#[derive(Debug, Clone, PartialEq)]
pub struct QuorumState {
    pub members: Vec<(String, JsonValue)>,
}

impl QuorumState {
    fn int(&self, name: &str) -> Option<i64> {
        member(&self.members, name).and_then(JsonValue::as_i64)
    }

    pub fn cluster_id(&self) -> Option<&str> {
        member(&self.members, "clusterId").and_then(JsonValue::as_str)
    }

    pub fn leader_id(&self) -> Option<i64> {
        self.int("leaderId")
    }

    pub fn leader_epoch(&self) -> Option<i64> {
        self.int("leaderEpoch")
    }

    /// -1 when the replica voted for nobody.
    pub fn voted_id(&self) -> Option<i64> {
        self.int("votedId")
    }

    pub fn applied_offset(&self) -> Option<i64> {
        self.int("appliedOffset")
    }

    /// The `voterId`s of `currentVoters` (version 0 of the file; KIP-853 keeps them in the log).
    pub fn current_voters(&self) -> Vec<i64> {
        match member(&self.members, "currentVoters") {
            Some(JsonValue::Array(voters)) => voters
                .iter()
                .filter_map(|v| match v {
                    JsonValue::Object(m) => member(m, "voterId").and_then(JsonValue::as_i64),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The file's `data_version` (0 before KIP-853, 1 after).
    pub fn data_version(&self) -> Option<i64> {
        self.int("data_version")
    }
}

/// Parses `quorum-state`: one JSON object.
pub fn parse_quorum_state(text: &str) -> Result<QuorumState, DecodeError> {
    json_members(text).map(|members| QuorumState { members })
}

/// `.kafka_cleanshutdown` (Kafka 3.5+'s `CleanShutdownFileHandler`: `version` and
/// `brokerEpoch`; empty before): every member in file order, the known ones typed.
#[derive(Debug, Clone, PartialEq)]
pub struct CleanShutdown {
    pub members: Vec<(String, JsonValue)>,
}

impl CleanShutdown {
    pub fn version(&self) -> Option<i64> {
        member(&self.members, "version").and_then(JsonValue::as_i64)
    }

    pub fn broker_epoch(&self) -> Option<i64> {
        member(&self.members, "brokerEpoch").and_then(JsonValue::as_i64)
    }
}

/// Parses `.kafka_cleanshutdown`: one JSON object, or an empty file (no members).
pub fn parse_clean_shutdown(text: &str) -> Result<CleanShutdown, DecodeError> {
    json_members(text).map(|members| CleanShutdown { members })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints() {
        let c = parse_checkpoint("0\n2\nfoo 0 5\nbar-baz 3 17\n", false).unwrap();
        assert_eq!(c.entries.len(), 2);
        assert_eq!(
            c.entries[1],
            CheckpointEntry::Partition {
                topic: "bar-baz".into(),
                partition: 3,
                offset: 17
            }
        );
        let e = parse_checkpoint("0\r\n1\r\n0 0\r\n", true).unwrap();
        assert_eq!(
            e.entries,
            vec![CheckpointEntry::Epoch {
                epoch: 0,
                start_offset: 0
            }]
        );
        assert!(parse_checkpoint("1\n0\n", false).is_err());
        assert!(parse_checkpoint("0\n2\nfoo 0 5\n", false).is_err());
        assert!(parse_checkpoint("", false).unwrap().entries.is_empty());
    }

    proptest::proptest! {
        #[test]
        fn checkpoint_encoders_round_trip(
            parts in proptest::collection::vec(("[a-zA-Z0-9._-]{1,20}", 0i32..100_000, proptest::prelude::any::<i64>()), 0..30),
            epochs in proptest::collection::vec((0i32..i32::MAX, proptest::prelude::any::<i64>()), 0..30),
            broker_epoch: i64,
        ) {
            let text = encode_offset_checkpoint(parts.iter().map(|(t, p, o)| (t.as_str(), *p, *o)));
            let back = parse_checkpoint(&text, false).unwrap();
            proptest::prop_assert_eq!(back.version, 0);
            let want: Vec<CheckpointEntry> = parts
                .iter()
                .map(|(t, p, o)| CheckpointEntry::Partition { topic: t.clone(), partition: *p, offset: *o })
                .collect();
            proptest::prop_assert_eq!(back.entries, want);
            let entries: Vec<EpochEntry> = epochs.iter().map(|e| EpochEntry::from(*e)).collect();
            let text = encode_epoch_checkpoint(&entries);
            proptest::prop_assert_eq!(parse_checkpoint(&text, true).unwrap().epoch_entries(), entries);
            let marker = parse_clean_shutdown(&encode_clean_shutdown(broker_epoch)).unwrap();
            proptest::prop_assert_eq!(marker.version(), Some(0));
            proptest::prop_assert_eq!(marker.broker_epoch(), Some(broker_epoch));
        }
    }

    #[test]
    fn partition_metadata_and_properties() {
        let m = parse_partition_metadata("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ").unwrap();
        assert_eq!(m.topic_id, "AAAAAAAAAAAAAAAAAAAAAQ");
        let p = parse_properties("#\n#Thu Aug 01 2024\nnode.id=1\nversion=1\ncluster.id=abc\n");
        assert_eq!(p[0], ("node.id".into(), "1".into()));
    }

    #[test]
    fn json_files_keep_every_member_in_order() {
        let q = parse_quorum_state(
            r#"{"clusterId":"","leaderId":1,"leaderEpoch":5,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1},{"voterId":3}],"data_version":0,"futureField":[1.5]}"#,
        )
        .unwrap();
        assert_eq!(q.cluster_id(), Some(""));
        assert_eq!(
            (q.leader_id(), q.leader_epoch(), q.voted_id()),
            (Some(1), Some(5), Some(-1))
        );
        assert_eq!((q.applied_offset(), q.data_version()), (Some(0), Some(0)));
        assert_eq!(q.current_voters(), [1, 3]);
        assert_eq!(q.members.len(), 8);
        assert_eq!(
            q.members[7],
            (
                "futureField".into(),
                JsonValue::Array(vec![JsonValue::Float(1.5)])
            )
        );
        let c = parse_clean_shutdown(r#"{"version":0,"brokerEpoch":42}"#).unwrap();
        assert_eq!((c.version(), c.broker_epoch()), (Some(0), Some(42)));
        assert!(parse_clean_shutdown("\n").unwrap().members.is_empty());
        assert_eq!(
            parse_clean_shutdown("[1]").unwrap_err().message,
            "expected a JSON object"
        );
        assert!(parse_quorum_state("{\"leaderId\":").is_err());
    }
}
