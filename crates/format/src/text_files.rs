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
/// file call [`check_checkpoint`] first. The file is read as Kafka reads it
/// ([`read_checkpoint_as_kafka`]); the error says what Kafka says.
pub fn for_each_checkpoint_entry(
    text: &str,
    epoch_entries: bool,
    visit: impl FnMut(CheckpointEntry),
) -> Result<i32, DecodeError> {
    read_checkpoint_as_kafka(text.as_bytes(), epoch_entries, visit)
        .map_err(|e| DecodeError::text(e.position, e.failure.to_string()))
}

/// Why Kafka's `CheckpointFile.read` (4.4: `CheckpointReadBuffer.read` behind a UTF-8
/// `BufferedReader`, with `OffsetCheckpointFile`'s or `LeaderEpochCheckpointFile`'s formatter)
/// fails on a file. What each failure costs depends on the file: see [`CheckpointFailure::class`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckpointFailure {
    /// Bytes that are not UTF-8: the reader's `MalformedInputException`.
    NotUtf8,
    /// A version or count line that is not an `int`, or an entry line whose fields (split on
    /// `\s+`, a leading blank making an empty first field) are not 3 (offset checkpoints) or
    /// 2 (`leader-epoch-checkpoint`); a blank line is one.
    MalformedLine { line: String },
    /// A version other than 0.
    UnrecognisedVersion { version: i32 },
    /// The count line against the entry lines (every line after it, to the end of the file).
    CountMismatch { expected: i32, found: u64 },
    /// A partition, offset or epoch field that `Integer.parseInt` / `Long.parseLong` refuses
    /// (`NumberFormatException`).
    BadNumber { field: String },
    /// `new ArrayList<>(count)` of a negative count (`IllegalArgumentException`).
    NegativeCount { count: i32 },
    /// `new ArrayList<>(count)` the JVM cannot allocate (`OutOfMemoryError`), before any entry is
    /// read: always from [`JVM_MAX_ARRAY_LENGTH`] on, with Kafka's default 1 GiB heap from
    /// [`DEFAULT_HEAP_ARRAY_LENGTH`] on.
    CountBeyondHeap { count: i32 },
}

/// The longest `Object[]` HotSpot allocates: beyond it, "Requested array size exceeds VM
/// limit" whatever the heap.
pub const JVM_MAX_ARRAY_LENGTH: i32 = i32::MAX - 2;
/// An `Object[]` of this many references (4 bytes each, compressed oops) fills the 1 GiB heap
/// `kafka-server-start.sh` gives the broker by default (`-Xmx1G`).
pub const DEFAULT_HEAP_ARRAY_LENGTH: i32 = 1 << 28;

/// What a failure of [`CheckpointFailure`] is to the JVM, which decides what Kafka does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JavaFailureClass {
    /// An `IOException`: `CheckpointFileWithFailureHandler` reports the log dir to the
    /// `LogDirFailureChannel` (the dir goes offline) and throws `KafkaStorageException`.
    IoException,
    /// A `RuntimeException` the failure handler does not see: what happens is the caller's.
    RuntimeException,
    /// An `Error`: nothing in the load catches it.
    OutOfMemoryError,
}

impl CheckpointFailure {
    pub fn class(&self) -> JavaFailureClass {
        match self {
            CheckpointFailure::NotUtf8
            | CheckpointFailure::MalformedLine { .. }
            | CheckpointFailure::UnrecognisedVersion { .. }
            | CheckpointFailure::CountMismatch { .. } => JavaFailureClass::IoException,
            CheckpointFailure::BadNumber { .. } | CheckpointFailure::NegativeCount { .. } => {
                JavaFailureClass::RuntimeException
            }
            CheckpointFailure::CountBeyondHeap { .. } => JavaFailureClass::OutOfMemoryError,
        }
    }

    /// Kafka's own message, `location` being the file's path as Kafka names it.
    pub fn kafka_message(&self, location: &str) -> String {
        match self {
            CheckpointFailure::NotUtf8 => "java.nio.charset.MalformedInputException".into(),
            CheckpointFailure::MalformedLine { line } => format!(
                "Malformed line in checkpoint file [{location}]: {}",
                quoted(line).trim_matches('"')
            ),
            CheckpointFailure::UnrecognisedVersion { version } => format!(
                "Unrecognised version:{version}, expected version: 0 in checkpoint file at: {location}"
            ),
            CheckpointFailure::CountMismatch { expected, found } => format!(
                "Expected [{expected}] entries in checkpoint file [{location}], but found only [{found}]"
            ),
            CheckpointFailure::BadNumber { field } => format!(
                "java.lang.NumberFormatException: For input string: {}",
                quoted(field)
            ),
            CheckpointFailure::NegativeCount { count } => {
                format!("java.lang.IllegalArgumentException: Illegal Capacity: {count}")
            }
            CheckpointFailure::CountBeyondHeap { count } if *count >= JVM_MAX_ARRAY_LENGTH => {
                "java.lang.OutOfMemoryError: Requested array size exceeds VM limit".into()
            }
            CheckpointFailure::CountBeyondHeap { .. } => {
                "java.lang.OutOfMemoryError: Java heap space".into()
            }
        }
    }
}

impl std::fmt::Display for CheckpointFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckpointFailure::NotUtf8 => f.write_str("not UTF-8 (MalformedInputException)"),
            CheckpointFailure::MalformedLine { line } => {
                write!(f, "Malformed line {}", quoted(line))
            }
            CheckpointFailure::UnrecognisedVersion { version } => {
                write!(f, "Unrecognised version:{version}, expected version: 0")
            }
            CheckpointFailure::CountMismatch { expected, found } => {
                write!(f, "Expected [{expected}] entries, but found only [{found}]")
            }
            CheckpointFailure::BadNumber { field } => {
                write!(
                    f,
                    "NumberFormatException: For input string: {}",
                    quoted(field)
                )
            }
            CheckpointFailure::NegativeCount { count } => {
                write!(f, "IllegalArgumentException: Illegal Capacity: {count}")
            }
            CheckpointFailure::CountBeyondHeap { count } => write!(
                f,
                "OutOfMemoryError: room for {count} entries allocated before reading ({} GiB)",
                (*count as u64 * 4) >> 30
            ),
        }
    }
}

/// A [`CheckpointFailure`] at a byte position of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointError {
    pub position: usize,
    pub failure: CheckpointFailure,
}

/// `BufferedReader.readLine`'s lines: ended by `\n`, `\r` or `\r\n`; no line after a final
/// terminator. Each with its byte position.
fn java_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut at = 0usize;
    std::iter::from_fn(move || {
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .map_or(bytes.len(), |i| start + i);
        at = end + 1;
        if bytes.get(end) == Some(&b'\r') && bytes.get(end + 1) == Some(&b'\n') {
            at += 1;
        }
        Some((start, &text[start..end]))
    })
}

/// `Pattern.compile("\s+").split(line)`'s fields, up to 4 (more count as 4): a leading blank
/// gives an empty first field, trailing empty fields are dropped, and a line without a blank
/// is its one field (even empty).
fn java_fields(line: &str) -> ([&str; 4], usize) {
    let blank = |c: char| matches!(c, ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r');
    let mut out = [""; 4];
    if !line.contains(blank) {
        out[0] = line;
        return (out, 1);
    }
    let mut n = 0usize;
    for (i, part) in line.split(blank).enumerate() {
        if i > 0 && part.is_empty() {
            continue;
        }
        if n < 4 {
            out[n] = part;
        }
        n += 1;
    }
    // Trailing empty fields: only a leading empty one can remain, alone.
    if n == 1 && out[0].is_empty() {
        n = 0;
    }
    (out, n.min(4))
}

/// Reads a checkpoint file exactly as Kafka 4.4's `CheckpointFile.read` does, calling `visit`
/// per entry (those before a failure were visited), and returns its version (0 for an empty
/// file). An empty file, or one with only its version line, is no entries; every line after
/// the count line is an entry line; the count must match them. Integers are Java's
/// (`Integer.parseInt`: an optional sign and digits; kseg knows ASCII digits only, where Java
/// also takes other scripts' decimal digits, which no Kafka writes).
pub fn read_checkpoint_as_kafka(
    bytes: &[u8],
    epoch_entries: bool,
    mut visit: impl FnMut(CheckpointEntry),
) -> Result<i32, CheckpointError> {
    let fail = |position: usize, failure: CheckpointFailure| CheckpointError { position, failure };
    // The reader decodes ahead of readLine, but hands out the characters before a malformed
    // byte first: the lines before it are read, the one holding it fails.
    let (text, bad_utf8) = match std::str::from_utf8(bytes) {
        Ok(t) => (t, None),
        Err(e) => (
            std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
            Some(e.valid_up_to()),
        ),
    };
    let mut lines = java_lines(text);
    // A line is whole only when a terminator follows it or the file ends there.
    let mut next_line = || -> Result<Option<(usize, &str)>, CheckpointError> {
        match (lines.next(), bad_utf8) {
            (None, Some(at)) => Err(fail(at, CheckpointFailure::NotUtf8)),
            (Some((start, l)), Some(at)) if start + l.len() >= at => {
                Err(fail(at, CheckpointFailure::NotUtf8))
            }
            (l, _) => Ok(l),
        }
    };
    let int = |at: usize, line: &str| -> Result<i32, CheckpointError> {
        line.parse().map_err(|_| {
            fail(
                at,
                CheckpointFailure::MalformedLine {
                    line: line.to_string(),
                },
            )
        })
    };
    let Some((at, line)) = next_line()? else {
        return Ok(0);
    };
    let version = int(at, line)?;
    if version != 0 {
        return Err(fail(at, CheckpointFailure::UnrecognisedVersion { version }));
    }
    let Some((at, line)) = next_line()? else {
        return Ok(version);
    };
    let expected = int(at, line)?;
    if expected < 0 {
        return Err(fail(
            at,
            CheckpointFailure::NegativeCount { count: expected },
        ));
    }
    if expected >= DEFAULT_HEAP_ARRAY_LENGTH {
        return Err(fail(
            at,
            CheckpointFailure::CountBeyondHeap { count: expected },
        ));
    }
    let mut found = 0u64;
    while let Some((at, line)) = next_line()? {
        let (fields, n) = java_fields(line);
        let number = |field: &str| CheckpointFailure::BadNumber {
            field: field.to_string(),
        };
        let entry = match (epoch_entries, n) {
            (true, 2) => CheckpointEntry::Epoch {
                epoch: fields[0].parse().map_err(|_| fail(at, number(fields[0])))?,
                start_offset: fields[1].parse().map_err(|_| fail(at, number(fields[1])))?,
            },
            (false, 3) => CheckpointEntry::Partition {
                topic: fields[0].to_string(),
                partition: fields[1].parse().map_err(|_| fail(at, number(fields[1])))?,
                offset: fields[2].parse().map_err(|_| fail(at, number(fields[2])))?,
            },
            _ => {
                return Err(fail(
                    at,
                    CheckpointFailure::MalformedLine {
                        line: line.to_string(),
                    },
                ))
            }
        };
        visit(entry);
        found += 1;
    }
    if found != expected as u64 {
        return Err(fail(
            text.len(),
            CheckpointFailure::CountMismatch { expected, found },
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

    fn kafka_read(text: &[u8], epochs: bool) -> Result<usize, CheckpointError> {
        let mut n = 0;
        read_checkpoint_as_kafka(text, epochs, |_| n += 1).map(|_| n)
    }

    fn failure(text: &[u8], epochs: bool) -> CheckpointFailure {
        kafka_read(text, epochs).unwrap_err().failure
    }

    /// CheckpointFile.read's rules, case by case (the oracle test `issue_45_checkpoint_reads_
    /// match_kafka` holds the consequences to Kafka 4.4).
    #[test]
    fn read_as_kafka_reads_it() {
        use CheckpointFailure::*;
        // No file content, or only a version line: no entries.
        assert_eq!(kafka_read(b"", false), Ok(0));
        assert_eq!(kafka_read(b"0\n", false), Ok(0));
        // Java's line ends: \n, \r, \r\n.
        assert_eq!(kafka_read(b"0\r1\r\nt 0 5", false), Ok(1));
        // Trailing blanks split away; a leading blank is an empty topic name.
        assert_eq!(kafka_read(b"0\n1\nt\t0  5 \n", false), Ok(1));
        assert_eq!(kafka_read(b"0\n1\n 0 5\n", false), Ok(1));
        assert_eq!(
            failure(b"0\n1\n t 0 5\n", false),
            MalformedLine {
                line: " t 0 5".into()
            }
        );
        // A blank line is an entry line, and a malformed one.
        assert_eq!(
            failure(b"0\n1\nt 0 5\n\n", false),
            MalformedLine { line: "".into() }
        );
        assert_eq!(
            failure(b" 0\n0\n", false),
            MalformedLine { line: " 0".into() }
        );
        assert_eq!(
            failure(b"1\n0\n", false),
            UnrecognisedVersion { version: 1 }
        );
        assert_eq!(
            failure(b"0\n3\nt 0 5\nt 1 5\n", false),
            CountMismatch {
                expected: 3,
                found: 2
            }
        );
        assert_eq!(
            failure(b"0\n0\nt 0 5\n", false),
            CountMismatch {
                expected: 0,
                found: 1
            }
        );
        assert_eq!(
            failure(b"0\n1\nt 0 x\n", false),
            BadNumber { field: "x".into() }
        );
        assert_eq!(
            failure(b"0\n1\nt 99999999999 5\n", false),
            BadNumber {
                field: "99999999999".into()
            }
        );
        assert_eq!(failure(b"0\n-1\n", false), NegativeCount { count: -1 });
        assert_eq!(
            failure(b"0\n2147483647\nt 0 5\n", false),
            CountBeyondHeap { count: i32::MAX }
        );
        assert_eq!(failure(b"0\n1\nt 0 \xff\n", false), NotUtf8);
        // Epoch lines have two fields.
        assert_eq!(kafka_read(b"0\n1\n3 100\n", true), Ok(1));
        assert_eq!(
            failure(b"0\n1\nt 3 100\n", true),
            MalformedLine {
                line: "t 3 100".into()
            }
        );
        assert_eq!(
            failure(b"0\n2\nt 0 5\n", false).class(),
            JavaFailureClass::IoException
        );
        let count = failure(b"0\n3\n", false);
        assert_eq!(
            count.kafka_message("/d/recovery-point-offset-checkpoint"),
            "Expected [3] entries in checkpoint file [/d/recovery-point-offset-checkpoint], but found only [0]"
        );
        assert_eq!(
            CountBeyondHeap { count: i32::MAX }.kafka_message("f"),
            "java.lang.OutOfMemoryError: Requested array size exceeds VM limit"
        );
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
