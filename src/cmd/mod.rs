//! One module per subcommand, wiring storage, analyses and printers together.

pub mod compact;
pub mod completions;
pub mod diff;
pub mod dump_log;
pub mod export;
pub mod find_group_partition;
pub mod grep;
pub mod groups;
pub mod lookup;
pub mod mini_broker;
mod parallel;
pub mod recover;
#[cfg(feature = "rescue")]
pub mod rescue;
pub mod retention;
/// `kseg rescue` in a build without its producer (`--no-default-features`): the command is still
/// listed, and says how to get it.
#[cfg(not(feature = "rescue"))]
pub mod rescue {
    /// Refuses: this binary has no Kafka producer.
    pub fn run(_args: crate::cli::RescueArgs) -> anyhow::Result<super::Outcome> {
        anyhow::bail!(
            "this kseg was built without the `rescue` feature (no Kafka producer); \
             rebuild with `cargo build --release` (the feature is on by default)"
        )
    }
}
pub mod summary;
pub mod transactions;
pub mod verify_index;

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

use crate::cli;
use crate::print::escape::Encoding;
use crate::print::table::Format;
use crate::storage::discover::{discover, DataSet};
use crate::storage::layout::{classify_file, FileKind};
use crate::storage::source::starts_with_a_batch;

/// The command line's `--encoding` as the printers' encoding.
impl From<cli::Encoding> for Encoding {
    fn from(e: cli::Encoding) -> Encoding {
        match e {
            cli::Encoding::Auto => Encoding::Auto,
            cli::Encoding::Utf8 => Encoding::Utf8,
            cli::Encoding::Hex => Encoding::Hex,
            cli::Encoding::Base64 => Encoding::Base64,
        }
    }
}

/// The command line's `--format` as the table printer's format.
impl From<cli::Format> for Format {
    fn from(f: cli::Format) -> Format {
        match f {
            cli::Format::Table => Format::Table,
            cli::Format::Tsv => Format::Tsv,
        }
    }
}

/// Exit codes shared by every command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything read cleanly.
    Clean = 0,
    /// The data has problems (bad CRCs, torn tails, undecodable files).
    DataProblems = 1,
    /// kseg could not do what was asked (usage, unreadable or non-Kafka path).
    Failed = 2,
}

impl Outcome {
    /// The data's part of the exit code under the one severity policy
    /// (`analysis::severity`): 1 when any finding is an error, else 0.
    pub fn of_findings(
        severities: impl IntoIterator<Item = crate::analysis::severity::Severity>,
    ) -> Outcome {
        match crate::analysis::severity::worst(severities) {
            Some(crate::analysis::severity::Severity::Error) => Outcome::DataProblems,
            _ => Outcome::Clean,
        }
    }

    pub fn worst(self, other: Outcome) -> Outcome {
        if (other as i32) > (self as i32) {
            other
        } else {
            self
        }
    }
}

/// Whether an error (anywhere in its chain) is a closed stdout, as in `kseg ... | head`: an
/// `io::Error` of kind `BrokenPipe`, also when a JSON serializer or another `io::Error` carries it.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(error_is_broken_pipe)
}

fn error_is_broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    if let Some(io) = e.downcast_ref::<io::Error>() {
        return io.kind() == io::ErrorKind::BrokenPipe
            || io
                .get_ref()
                .is_some_and(|inner| error_is_broken_pipe(inner));
    }
    if let Some(json) = e.downcast_ref::<serde_json::Error>() {
        return json.io_error_kind() == Some(io::ErrorKind::BrokenPipe);
    }
    false
}

/// The files a command reads when they are given on their own (log dirs and partition dirs it
/// always reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// Every file kind kseg decodes (`dump-log`).
    AnyKafkaFile,
    /// Segments and KRaft snapshots (`summary`).
    LogData,
    /// Segments and their indexes (`verify-index`).
    LogAndIndexes,
    /// Log dirs and partition dirs only (`groups`, `transactions`).
    DirsOnly,
}

impl Reads {
    fn accepts(self, kind: &FileKind) -> bool {
        match self {
            Reads::AnyKafkaFile => *kind != FileKind::Unknown,
            Reads::LogData => kind.is_log_data(),
            Reads::LogAndIndexes => matches!(
                kind,
                FileKind::Log | FileKind::OffsetIndex | FileKind::TimeIndex | FileKind::TxnIndex
            ),
            Reads::DirsOnly => false,
        }
    }
}

/// What one given path holds that a command cannot read.
enum Lack {
    /// Another system's data dir (Redpanda): named, and a data problem next to Kafka data.
    Foreign(String),
    /// Nothing Kafka's at all.
    Nothing(String),
}

fn lack_of(path: &Path, found: &DataSet, command: &str, reads: Reads) -> Option<Lack> {
    if !found.log_dirs.is_empty()
        || !found.partitions.is_empty()
        || found.files.iter().any(|f| reads.accepts(&f.kind))
    {
        return None;
    }
    if let Some(u) = found
        .unrecognised
        .iter()
        .find(|u| u.foreign_layout.is_some())
    {
        return Some(Lack::Foreign(format!("{}: {}", u.path.display(), u.reason)));
    }
    let shown = path.display();
    if !path.is_dir() {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let kind = classify_file(&name);
        let described = |k: &FileKind| {
            let d = k.describe();
            let article = if d.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            format!("{article} {d}")
        };
        return Some(Lack::Nothing(match (kind, reads) {
            (FileKind::Unknown, _) => format!(
                "{shown} is not a Kafka log segment: its name is not a segment's \
                 (<base offset>.log) nor that of another file Kafka writes"
            ),
            (kind, Reads::DirsOnly) => format!(
                "{shown} is {}, not a Kafka log dir: kseg {command} reads log dirs",
                described(&kind)
            ),
            (kind, _) => format!(
                "{shown} is not a Kafka log segment: it is {}, which kseg {command} does not \
                 read on its own (give its partition dir; kseg dump-log decodes it)",
                described(&kind)
            ),
        }));
    }
    Some(Lack::Nothing(format!(
        "no Kafka log dir or partition under {shown}"
    )))
}

/// Discovers the given paths for a command. A path holding nothing the command reads is named on
/// stderr ("no Kafka log dir or partition under X", "X is not a Kafka log segment: ...") and
/// makes the run end with exit 2 after the others are read; when no path holds anything, that is
/// the error. A path given twice is read once. Returns the data and the outcome so far.
pub fn discover_inputs(
    paths: &[PathBuf],
    command: &str,
    reads: Reads,
) -> anyhow::Result<(DataSet, Outcome)> {
    let mut set = DataSet::default();
    let mut seen = HashSet::new();
    let mut found = 0usize;
    let mut lacking = Vec::new();
    for path in paths {
        if !seen.insert(std::fs::canonicalize(path).unwrap_or_else(|_| path.clone())) {
            continue;
        }
        let mut one = discover(std::slice::from_ref(path))?;
        if !path.is_dir() && reads.accepts(&FileKind::Log) {
            // A file named otherwise (a copied segment, a capture) whose first bytes frame a
            // batch with a valid checksum is read as a segment.
            for f in &mut one.files {
                if f.kind == FileKind::Unknown && starts_with_a_batch(&f.path) {
                    f.kind = FileKind::Log;
                }
            }
        }
        match lack_of(path, &one, command, reads) {
            None => found += 1,
            Some(lack) => lacking.push(lack),
        }
        // A file given on its own that the command does not read has been named here.
        if !path.is_dir() {
            one.files.retain(|f| reads.accepts(&f.kind));
        }
        set.merge(one);
    }
    let message = |l: &Lack| match l {
        Lack::Foreign(m) | Lack::Nothing(m) => m.clone(),
    };
    if found == 0 {
        let all: Vec<String> = lacking.iter().map(message).collect();
        anyhow::bail!("{}", all.join("; "));
    }
    let mut outcome = report_unreadable(&set);
    for l in &lacking {
        // Foreign data dirs are reported by the command itself, in its own output.
        if let Lack::Nothing(m) = l {
            eprintln!("kseg: {m}");
            outcome = Outcome::Failed;
        }
    }
    Ok((set, outcome))
}

/// Names on stderr, one line each with the path escaped, what discovery could not read below the
/// given paths (an unlistable partition dir, a name that is not UTF-8); the rest is read as
/// usual. `Outcome::Failed` (exit 2: not everything asked for was read) when there was any.
pub fn report_unreadable(set: &DataSet) -> Outcome {
    for u in &set.unreadable {
        eprintln!(
            "kseg: {}: {}",
            crate::print::escape::escaped_path(&u.path),
            u.reason
        );
    }
    if set.unreadable.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Failed
    }
}

/// `--config` and `--topic-config`, checked against Kafka 4.4's config definitions (one parser
/// for every command taking them).
pub fn log_config_flags(
    args: &cli::LogConfigArgs,
) -> anyhow::Result<crate::analysis::topic_configs::ConfigFlags> {
    use crate::analysis::topic_configs::{describe_output_topic_configs, ConfigFlags};
    // The files first: --topic-config, later, wins over them.
    let mut topic = Vec::new();
    for file in &args.topic_configs_file {
        let text = std::fs::read_to_string(file)
            .map_err(|e| anyhow::anyhow!("--topic-configs-file {}: {e}", escape_path(file)))?;
        let entries = describe_output_topic_configs(&text);
        if entries.is_empty() {
            anyhow::bail!(
                "--topic-configs-file {}: no topic config found (expected `kafka-configs.sh \
                 --describe --entity-type topics --all` output: `All configs for topic T are:` \
                 then indented KEY=VALUE lines)",
                escape_path(file)
            );
        }
        for entry in entries {
            // A value Kafka 4.4 refuses (2.8's segment.bytes below 1 MiB) is left out, saying so.
            match ConfigFlags::parse(&[], std::slice::from_ref(&entry)) {
                Ok(_) => topic.push(entry),
                Err(why) => eprintln!(
                    "kseg: note: --topic-configs-file {}: {} left out: {}",
                    escape_path(file),
                    crate::escape::escaped(&entry),
                    why.problem
                ),
            }
        }
    }
    topic.extend(args.topic_config.iter().cloned());
    Ok(ConfigFlags::parse(&args.config, &topic)?)
}

fn escape_path(p: &std::path::Path) -> String {
    crate::escape::escaped_path(p)
}

/// Runs `f` (which uses rayon) on a pool of `--threads` workers.
pub fn with_threads<T: Send>(threads: &crate::cli::ThreadsArg, f: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new()
        .num_threads(threads.count())
        .build()
    {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

/// The times of a command's flags, read in the zone of `--tz` (the one rule is
/// `time::parse_time`'s: epoch ms, RFC 3339 with an offset, or a civil time in that zone).
pub struct TimeFlags {
    pub zone: Option<crate::time::Zone>,
}

impl TimeFlags {
    /// `--tz`, refused when it names no zone.
    pub fn new(tz: &cli::TzArg) -> anyhow::Result<TimeFlags> {
        let zone = tz
            .tz
            .as_deref()
            .map(crate::time::Zone::parse)
            .transpose()
            .map_err(|e| anyhow::anyhow!("--tz: {e}"))?;
        Ok(TimeFlags { zone })
    }

    /// The instant of `flag`'s value, if given.
    pub fn read(&self, flag: &str, value: Option<&str>) -> anyhow::Result<Option<i64>> {
        value
            .map(|t| crate::time::parse_time(flag, t, self.zone.as_ref()))
            .transpose()
            .map_err(anyhow::Error::new)
    }

    /// The zone times are shown in: `--tz`'s, else UTC.
    pub fn shown_in(&self) -> crate::time::Zone {
        self.zone.clone().unwrap_or_default()
    }
}

/// `path` made absolute through its nearest existing ancestor (canonicalised), with the rest of
/// its components appended.
pub(crate) fn resolved_path(path: &Path) -> io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => break,
        }
    }
    let mut out = std::fs::canonicalize(existing)?;
    for name in rest.iter().rev() {
        out.push(name);
    }
    Ok(out)
}
