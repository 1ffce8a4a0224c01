//! The command line: every subcommand and flag, defined once. The same definitions drive
//! `--help`, `kseg man` and `kseg completions`.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand};

use crate::format::compression::DEFAULT_MAX_DECOMPRESSED;

/// How keys, values and header values appear in JSON (`--encoding`); `cmd` maps it to
/// `print::escape::Encoding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Encoding {
    /// A JSON string when the bytes are valid UTF-8, else `{"base64":"..."}`: lossless.
    Auto,
    /// Always a string; invalid UTF-8 is replaced by U+FFFD (lossy).
    Utf8,
    /// Lowercase hex string.
    Hex,
    /// Standard Base64 with padding.
    Base64,
}

/// `kseg grep --txn-state`: a record's transactional state; `cmd` maps it to
/// `analysis::transactions::TxnState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TxnStateArg {
    /// In a transaction its COMMIT marker ended
    Committed,
    /// In a transaction Kafka's fetch reports aborted (the .txnindex)
    Aborted,
    /// In a transaction with no COMMIT or ABORT marker after it
    Open,
    /// Not in a transaction
    NonTransactional,
}

/// `kseg grep --partitioner`: the producer's partitioner that placed keyed records; `cmd` maps
/// it to `analysis::partitioner::Partitioner`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KeyPartitioner {
    /// murmur2: the Java producer's default (and librdkafka's murmur2_random)
    Murmur2,
    /// CRC-32: librdkafka's default, consistent_random (confluent-kafka, kcat, and the other
    /// librdkafka clients)
    Crc32,
    /// FNV-1a: sarama's default hash partitioner (and librdkafka's fnv1a_random)
    Fnv1a,
}

/// `--format`: how tables are written (`--json` is separate); `cmd` maps it to
/// `print::table::Format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Box-drawn tables, fitted to the terminal when stdout is one.
    #[default]
    Table,
    /// Tab-separated values: a header line, then one line per row; no other text.
    Tsv,
}

#[derive(Debug, Parser)]
#[command(
    name = "kseg",
    version,
    long_version = concat!(
        env!("CARGO_PKG_VERSION"),
        " (",
        env!("KSEG_BUILD"),
        ")\nproved against ",
        env!("KSEG_PROVED")
    ),
    about = "Offline forensics for Apache Kafka data directories",
    max_term_width = 100,
    long_about = "Offline forensics for Apache Kafka data directories: decode segments, indexes, \
                  snapshots and checkpoints without a JVM or a running cluster. kseg never writes \
                  to what it reads.\n\nExit codes: 0 success, 1 the data has problems (an error \
                  under the severity policy: bad CRCs, damage Kafka keeps, ...), 2 kseg could not do what was asked (usage, unreadable path)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// Never draw a progress bar (it is drawn on stderr only when stderr is a terminal)
    #[arg(long, global = true)]
    pub no_progress: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Decode segment, index, snapshot and checkpoint files like kafka-dump-log.sh
    DumpLog(DumpLogArgs),
    /// One row per topic-partition: segments, offsets, records, timestamps, codecs, checkpoints
    Summary(SummaryArgs),
    /// Check logs and indexes after a crash; preview what Kafka's recovery would do
    VerifyIndex(VerifyIndexArgs),
    /// Write a repaired copy of a partition: truncated like Kafka's recovery, indexes rebuilt
    Recover(RecoverArgs),
    /// Produce the records of partitions or log dirs into a running Kafka cluster, exactly and
    /// resumably
    Rescue(Box<RescueArgs>),
    /// Rebuild every consumer group's committed offsets and state from __consumer_offsets
    Groups(GroupsArgs),
    /// Transactional ids from __transaction_state, and open or hanging transactions in the data
    Transactions(TransactionsArgs),
    /// Replicas of the same partitions side by side: common prefix, divergence point, the
    /// records only one broker holds (what an unclean leader election lost)
    Diff(DiffArgs),
    /// Which __consumer_offsets (or __transaction_state) partition an id lives in
    FindGroupPartition(FindGroupPartitionArgs),
    /// Offsets by timestamp, offset, earliest/latest or leader epoch, as the broker answers them
    Lookup(LookupArgs),
    /// What Kafka's next retention check deletes, and what blocks retention (a future
    /// timestamp, the high watermark, a disabled cleaner, fresh mtimes), from indexes alone
    Retention(RetentionArgs),
    /// The log cleaner's next pass over compacted partitions, previewed as Kafka 4.4 chooses
    /// and performs it: range, bound, dirty ratio, order, offset map end, what is removed
    Compact(CompactArgs),
    /// Find records by value, key, header, time, offset or producer, pruning batches from their
    /// headers before anything is decompressed
    Grep(Box<GrepArgs>),
    /// Write records, batches and consumer-group offsets as a Parquet, Arrow or NDJSON dataset
    /// (Spark's Kafka source schema) that DuckDB, Spark, Polars and Trino read
    Export(Box<ExportArgs>),
    /// Run an embedded single-node Kafka broker writing real segment files (or script one with
    /// `produce` and `commit`, no client needed)
    MiniBroker(Box<MiniBrokerArgs>),
    /// Print a shell completion script
    Completions(CompletionsArgs),
    /// Print the man page (roff)
    Man,
}

#[derive(Debug, Args, Clone)]
pub struct ReadArgs {
    /// Memory-map log files instead of reading them. Faster on offline copies; never use it on
    /// a live broker's data dir (a concurrent truncation kills kseg with SIGBUS)
    #[arg(long)]
    pub mmap: bool,

    /// Largest decompressed size accepted for one batch; larger batches are reported as errors
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_DECOMPRESSED)]
    pub max_decompressed_bytes: usize,
}

/// `--tz`, on every command that takes a time; `cmd` reads it with `time::Zone::parse`.
#[derive(Debug, Args, Clone, Default)]
pub struct TzArg {
    /// The zone a time given without an offset is read in (2024-03-09T14:00:00 --tz
    /// Asia/Shanghai): local (the machine's), UTC, an offset (+08:00) or a zone name; grep also
    /// shows the records' times in it [default: none: such a time is refused; times shown in
    /// UTC]
    #[arg(long, value_name = "ZONE", allow_hyphen_values = true)]
    pub tz: Option<String>,
}

const DUMP_LOG_HELP: &str = "Examples:
  kseg dump-log /var/lib/kafka/data/orders-0/00000000000000023801.log
  kseg dump-log --print-data-log --from-offset 23801 --to-offset 23810 orders-0
  kseg dump-log --from-timestamp 2024-03-09T09:00:00Z --to-timestamp 2024-03-09T09:05:00Z orders-0

Exit codes: 0 read cleanly (a crash's torn or zero-filled active tail, which Kafka's recovery
truncates, is reported but is not an error); 1 the data has problems (bad CRCs, bytes framing
no batch, a torn tail Kafka keeps, undecodable records or files); 2 could not run (usage, an
unreadable path, nothing Kafka's under it).";

#[derive(Debug, Args)]
#[command(after_help = DUMP_LOG_HELP)]
pub struct DumpLogArgs {
    /// Files, partition dirs or log dirs (any mix; several log dirs = JBOD)
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Comma-separated files, as kafka-dump-log.sh takes them
    #[arg(long, value_delimiter = ',', value_name = "FILE,...")]
    pub files: Vec<PathBuf>,

    /// One line per record after each batch line
    #[arg(long)]
    pub deep_iteration: bool,

    /// Print record keys and values (implies --deep-iteration)
    #[arg(long)]
    pub print_data_log: bool,

    /// Do not print per-record metadata (and so no control-record details)
    #[arg(long)]
    pub skip_record_metadata: bool,

    /// Only read batches lying completely inside the first N bytes of each log
    #[arg(long, value_name = "N", default_value_t = i32::MAX as u64)]
    pub max_bytes: u64,

    /// Stop after N records (with --deep-iteration) or N batches of each log file
    #[arg(long, value_name = "N")]
    pub max_messages: Option<u64>,

    /// Only batches and records with offsets >= N
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub from_offset: Option<i64>,

    /// Only batches and records with offsets <= N
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub to_offset: Option<i64>,

    /// Only records whose timestamp is at or after T (epoch ms, or RFC 3339: with an offset,
    /// or in the zone of --tz); v2 batches whose maxTimestamp is below T are skipped from their
    /// header
    #[arg(long, value_name = "T")]
    pub from_timestamp: Option<String>,

    /// Only records whose timestamp is at or before T (epoch ms, or RFC 3339: with an offset, or
    /// in the zone of --tz)
    #[arg(long, value_name = "T")]
    pub to_timestamp: Option<String>,

    #[command(flatten)]
    pub tz: TzArg,

    /// With an offset or time range on a dir: dump every file of it (indexes, snapshots,
    /// checkpoints, segments outside the range), not only the segments that can hold the range
    #[arg(long)]
    pub all_files: bool,

    /// NDJSON output, one object per line
    #[arg(long)]
    pub json: bool,

    /// How --json shows keys, values and header values: auto is a string when valid UTF-8 and
    /// {"base64": ...} otherwise (lossless)
    #[arg(long, value_enum, default_value_t = Encoding::Auto)]
    pub encoding: Encoding,

    /// For .index/.timeindex: check without printing entries
    #[arg(long)]
    pub verify_index_only: bool,

    /// For .index/.timeindex: run only Kafka's index sanity check
    #[arg(long)]
    pub index_sanity_check: bool,

    /// Decode records as __consumer_offsets (group coordinator) records
    #[arg(long)]
    pub offsets_decoder: bool,

    /// Decode records as __transaction_state records
    #[arg(long)]
    pub transaction_log_decoder: bool,

    /// Decode records as KRaft __cluster_metadata records
    #[arg(long)]
    pub cluster_metadata_decoder: bool,

    /// Decode records as __share_group_state records
    #[arg(long)]
    pub share_group_state_decoder: bool,

    /// Decode records as __remote_log_metadata records (tiered storage, written by
    /// TopicBasedRemoteLogMetadataManager)
    #[arg(long)]
    pub remote_log_metadata_decoder: bool,

    /// Do not decode internal topics automatically from the partition directory name
    #[arg(long)]
    pub raw: bool,

    /// Kafka compatibility: accepted; keys and values print as text
    #[arg(long, hide = true, num_args = 0..=1)]
    pub key_decoder_class: Option<Option<String>>,
    #[arg(long, hide = true, num_args = 0..=1)]
    pub value_decoder_class: Option<Option<String>>,

    #[command(flatten)]
    pub read: ReadArgs,

    #[command(flatten)]
    pub threads: ThreadsArg,

    /// With --threads above 1, `.log` files larger than this are dumped in pieces of about this
    /// size, cut at batch boundaries [default: 2 MiB with records, 32 MiB headers only]
    #[arg(long, value_name = "BYTES", hide = true)]
    pub split_bytes: Option<u64>,
}

/// `kseg grep`'s examples, for `--help`.
const GREP_EXAMPLES: &str = "Examples:
  kseg grep -F customer-4711 /var/lib/kafka/data       value contains the text
  kseg grep --key customer-4711 /var/lib/kafka/data    key is exactly customer-4711
  kseg grep --key-hex 00000000002a DIR                 a binary key, in hex
  kseg grep --key k --partitioner crc32 DIR            only where librdkafka puts k
  kseg grep --header traceparent=00-4bf9-01 DIR        a header with that value
  kseg grep --from-time 2024-03-09T09:00 --tz local DIR
  kseg grep -c -F ERROR DIR                            matches per partition

Each match is a line `topic-partition:offset`, the record's time (RFC 3339, in UTC or the zone
of --tz), then the record as `kseg dump-log --print-data-log --raw` prints it, with its
headers' values (keys, values and headers escaped the same way). Filters combine with AND.
A first argument that names an existing file or dir is a PATH when a filter (--key, --header,
--from-time, ...) is given; give a pattern that is also a path with -e.
Exit status: 0 something matched, 1 nothing matched, 2 trouble (an unreadable path, a bad
pattern, or data problems, reported on stderr as dump-log reports them).";

#[derive(Debug, Args)]
#[command(after_help = GREP_EXAMPLES)]
pub struct GrepArgs {
    /// [PATTERN] PATH...: a regex over record values, then files, partition dirs or log dirs
    /// (as dump-log takes them). With -e or --value-hex every argument is a PATH; with another
    /// filter, so is a first argument that names an existing file or dir
    #[arg(value_name = "PATTERN|PATH", required = true)]
    pub args: Vec<std::ffi::OsString>,

    #[command(flatten)]
    pub filter: RecordFilterArgs,

    /// With --key or --key-hex: search only the partition this partitioner maps the key to,
    /// over the topic's partition count (--partitions, else the log dir's __cluster_metadata).
    /// Records placed by another partitioner, an explicit partition or an older partition count
    /// are then missed [default: every partition is searched]
    #[arg(long, value_enum, value_name = "NAME")]
    pub partitioner: Option<KeyPartitioner>,

    /// The partition count --partitioner maps the key over, for every topic searched
    /// [default: each topic's count in the log dir's __cluster_metadata]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          requires = "partitioner")]
    pub partitions: Option<u32>,

    /// Print only a count of matches per partition, for the partitions with a match
    #[arg(short = 'c', long)]
    pub count: bool,

    /// With -c, also the partitions searched without a match (a count of 0)
    #[arg(long, requires = "count")]
    pub include_zero: bool,

    /// Stop after N matches per partition
    #[arg(short = 'm', long, value_name = "N")]
    pub max_count: Option<u64>,

    /// Print only the segment files holding a match
    #[arg(short = 'l', long, conflicts_with = "count")]
    pub files_with_matches: bool,

    /// Print the batch line (dump-log's) before the first match of each batch
    #[arg(long)]
    pub print_batch: bool,

    /// NDJSON: dump-log's "record" objects plus "topic" and "partition", then a "summary"
    #[arg(long)]
    pub json: bool,

    /// How --json shows keys, values and header values
    #[arg(long, value_enum, default_value_t = Encoding::Auto)]
    pub encoding: Encoding,

    /// Decode every batch instead of skipping those whose header rules out a match
    #[arg(long)]
    pub no_prune: bool,

    /// Counts on stderr at the end: matches, batches searched and pruned, records searched
    #[arg(long)]
    pub stats: bool,

    #[command(flatten)]
    pub threads: ThreadsArg,

    /// With --threads above 1, segments larger than this are searched in pieces of about this
    /// size, cut at batch boundaries
    #[arg(long, value_name = "BYTES", default_value_t = 32 << 20, hide = true)]
    pub split_bytes: u64,

    #[command(flatten)]
    pub read: ReadArgs,
}

const EXPORT_HELP: &str = "Examples:
  kseg export /var/lib/kafka/data --out /tmp/broker1
  kseg export --topic orders --from-time 2024-03-09T02:00:00Z --to-time 2024-03-09T02:30:00Z \\
      --committed /var/lib/kafka/data --out /tmp/orders
  duckdb -c \"SELECT topic, count(*) FROM read_parquet('/tmp/broker1/records/**/*.parquet',
      hive_partitioning = true) GROUP BY topic\"

The dataset: DIR/records, DIR/batches and DIR/offsets, each laid out as
<table>/topic=<topic>/partition=<partition>/part-<n>.<format>, and DIR/_kseg_export.json (the
inputs, broker ids from meta.properties, the filters, counts and the damaged ranges skipped).
The records table has the columns of Spark's Kafka source (key, value, topic, partition,
offset, timestamp, timestampType, headers), then `kafka` (batch offsets, producer id and epoch,
sequences, leader epoch, transactional and control flags, the transaction's outcome, codec,
magic, checksum validity, delete horizon, segment file and byte position) and `broker`.
The filters are grep's. Exit codes: 0 everything read cleanly; 1 the data has problems
(reported on stderr as dump-log reports them, the rest exported); 2 could not run.";

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Apache Parquet files
    Parquet,
    /// Arrow IPC files (Feather v2)
    Arrow,
    /// One JSON object per line (binary columns in base64)
    Ndjson,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportCompression {
    None,
    Snappy,
    Zstd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportTable {
    /// One row per record
    Records,
    /// One row per batch
    Batches,
    /// Every __consumer_offsets offset commit and tombstone (as `groups --history` sees them)
    Offsets,
}

#[derive(Debug, Args)]
#[command(after_help = EXPORT_HELP)]
pub struct ExportArgs {
    /// Segment files, partition dirs or log dirs (as dump-log takes them); never written
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,

    /// The dataset's directory: created, or empty (never inside an input)
    #[arg(short = 'o', long, value_name = "DIR")]
    pub out: PathBuf,

    /// The tables' file format
    #[arg(long, value_enum, default_value_t = ExportFormat::Parquet)]
    pub format: ExportFormat,

    /// Parquet page compression
    #[arg(long, value_enum, default_value_t = ExportCompression::Snappy)]
    pub compression: ExportCompression,

    /// The tables written (comma-separated or repeated). The offsets table takes --topic and
    /// --partition as the committed topic and partition, and no other filter
    #[arg(long, value_enum, value_delimiter = ',', value_name = "TABLE,...",
          default_values_t = [ExportTable::Records, ExportTable::Batches, ExportTable::Offsets])]
    pub tables: Vec<ExportTable>,

    /// Largest row group (Parquet) or record batch (Arrow), in rows
    #[arg(long, value_name = "N", default_value_t = 1 << 20,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub row_group_rows: u64,

    /// Largest row group, in MiB of buffered data: what bounds the memory an export takes
    #[arg(long, value_name = "MIB", default_value_t = 128,
          value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub row_group_mib: u64,

    #[command(flatten)]
    pub filter: RecordFilterArgs,

    /// Decode every batch instead of skipping those whose header rules out a match
    #[arg(long)]
    pub no_prune: bool,

    #[command(flatten)]
    pub read: ReadArgs,
}

/// The record filters of `kseg grep` and `kseg export` (`cmd::grep::filter_of` reads them into
/// an `analysis::grep::Filter`).
#[derive(Debug, Args, Clone, Default)]
pub struct RecordFilterArgs {
    /// The value pattern (for a pattern starting with '-', or to give only paths)
    #[arg(
        short = 'e',
        long = "regexp",
        value_name = "PATTERN",
        allow_hyphen_values = true
    )]
    pub regexp: Option<String>,

    /// The value pattern is a fixed string (memchr::memmem), not a regex
    #[arg(short = 'F', long)]
    pub fixed_strings: bool,

    /// The value contains these bytes, given in hex (`-F` for binary: "1b5b33316d"; blanks,
    /// ':' and a leading 0x are ignored)
    #[arg(long, value_name = "HEX", conflicts_with = "regexp")]
    pub value_hex: Option<String>,

    /// Only records whose key is exactly K (the bytes of its UTF-8 text)
    #[arg(long, value_name = "K", allow_hyphen_values = true)]
    pub key: Option<String>,

    /// Only records whose key is exactly these bytes, given in hex (a binary key:
    /// "00000000002a"; blanks, ':' and a leading 0x are ignored)
    #[arg(long, value_name = "HEX", conflicts_with = "key")]
    pub key_hex: Option<String>,

    /// Only records whose key matches the regex R
    #[arg(long, value_name = "R", allow_hyphen_values = true)]
    pub key_regex: Option<String>,

    /// Only records with a header NAME, or NAME with exactly VALUE (repeatable: all must hold)
    #[arg(long, value_name = "NAME[=VALUE]", allow_hyphen_values = true)]
    pub header: Vec<String>,

    /// Only records with a header NAME whose value is exactly these bytes, given in hex
    /// (repeatable: all must hold)
    #[arg(long, value_name = "NAME=HEX", allow_hyphen_values = true)]
    pub header_hex: Vec<String>,

    /// Only records whose value is a JSON document with the field PATH (names and array
    /// indexes separated by '.') equal to VALUE: a string equal to its text, or VALUE read as
    /// JSON (repeatable: all must hold)
    #[arg(long, value_name = "PATH=VALUE", allow_hyphen_values = true)]
    pub json_field: Vec<String>,

    /// Only topics matching the glob ('*', '?', '[a-z]'; repeatable: any of them)
    #[arg(long, value_name = "GLOB")]
    pub topic: Vec<String>,

    /// Only these partition numbers (comma-separated or repeated)
    #[arg(long, value_delimiter = ',', value_name = "N,...")]
    pub partition: Vec<i32>,

    /// Only records whose timestamp is at or after T (epoch ms, or RFC 3339: with an offset,
    /// or in the zone of --tz)
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub from_time: Option<String>,

    /// Only records whose timestamp is before T (half-open: [--from-time, --to-time))
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub to_time: Option<String>,

    #[command(flatten)]
    pub tz: TzArg,

    /// Only records with offsets >= N
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub from_offset: Option<i64>,

    /// Only records with offsets <= N
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub to_offset: Option<i64>,

    /// Only records of batches written by this producer id (-1: without one)
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub producer_id: Option<i64>,

    /// Only records of batches with this producer epoch (-1: without a producer id)
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub producer_epoch: Option<i16>,

    /// Only what a read_committed consumer is given: no aborted or open transaction, no control
    /// record, nothing at or after the last stable offset (the first open transaction)
    #[arg(long, conflicts_with = "control")]
    pub committed: bool,

    /// Only records in these transactional states (comma-separated or repeated)
    #[arg(long, value_enum, value_delimiter = ',', value_name = "STATE,...")]
    pub txn_state: Vec<TxnStateArg>,

    /// Only control records (transaction markers, KRaft control messages)
    #[arg(long, conflicts_with = "no_control")]
    pub control: bool,

    /// No control records
    #[arg(long)]
    pub no_control: bool,
}

/// `--threads N`.
#[derive(Debug, Args, Clone, Copy)]
pub struct ThreadsArg {
    /// Worker threads (files or partitions read in parallel; the output is the same as with
    /// --threads 1, which reads one at a time; at most 256) [default: the number of cores]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: Option<u16>,
}

impl ThreadsArg {
    pub fn count(&self) -> usize {
        match self.threads {
            Some(n) => n as usize,
            None => std::thread::available_parallelism().map_or(1, |n| n.get().min(256)),
        }
    }
}

/// `--config` and `--topic-config`: the log configs a command assumes where the log dir does not
/// record them (a ZooKeeper-era dir keeps them in ZooKeeper, a broker's static config is in its
/// server.properties). `cmd::log_config_flags` checks them against Kafka 4.4's definitions
/// (`analysis::topic_configs::ConfigFlags`).
#[derive(Debug, Args, Clone, Default)]
pub struct LogConfigArgs {
    /// A broker config as server.properties sets it (log.retention.hours=72,
    /// log.retention.bytes=..., log.cleaner.enable=false, log.cleaner.dedupe.buffer.size=...,
    /// producer.id.expiration.ms=...), or a topic config meaning its broker-wide default
    /// (min.cleanable.dirty.ratio=0.1). Repeatable. A dynamic broker config in
    /// __cluster_metadata wins over it, as in Kafka
    #[arg(long = "config", value_name = "KEY=VALUE")]
    pub config: Vec<String>,

    /// One topic's own config (retention.ms, retention.bytes, cleanup.policy, segment.bytes,
    /// delete.retention.ms, min.cleanable.dirty.ratio, min.compaction.lag.ms, ...). Repeatable.
    /// Wins over the topic's config in __cluster_metadata
    #[arg(long = "topic-config", value_name = "TOPIC:KEY=VALUE")]
    pub topic_config: Vec<String>,

    /// Topic configs saved from `kafka-configs.sh --describe --entity-type topics --all`
    /// (`All configs for topic T are:` then `  KEY=VALUE sensitive=... synonyms={...}` lines):
    /// a ZooKeeper-mode cluster keeps them in ZooKeeper, never in a log dir. --topic-config wins
    /// over it. Repeatable
    #[arg(long = "topic-configs-file", value_name = "FILE")]
    pub topic_configs_file: Vec<PathBuf>,
}

const RETENTION_HELP: &str = "Examples:
  kseg retention /var/lib/kafka/data                what the next check deletes, what blocks it
  kseg retention --now 2024-06-01T00:00:00Z orders-3
  kseg retention --config log.retention.hours=72 --topic-config orders:retention.ms=3600000 DIR
  kseg retention --json DIR | jq 'select(.type==\"retention\") | .blockedBy'

The rules are Kafka 4.4's UnifiedLog.deleteOldSegments: segments below the log start offset,
then (cleanup.policy with delete) whole segments while the log exceeds retention.bytes, then
segments whose largest timestamp (the time index's last entry, else the .log mtime) is older
than retention.ms, each walk stopping at the first segment that does not qualify or that
reaches past the high watermark. Topics with compact in their policy are checked only by the
log cleaner, and by nobody with log.cleaner.enable=false. Configs come from __cluster_metadata,
else --config/--topic-config, else Kafka 4.4's defaults; the output says which.
Exit codes: 0 answered; 1 the answer is a problem (a future timestamp holds back expired
segments, or lies further ahead than message.timestamp.after.max.ms); 2 could not run.";

#[derive(Debug, Args)]
#[command(after_help = RETENTION_HELP)]
pub struct RetentionArgs {
    /// Log dirs or partition dirs (a partition dir is judged with its log dir's checkpoints)
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,

    /// The instant of the check: epoch milliseconds, or RFC 3339 (with an offset, or in the zone
    /// of --tz) [default: now]
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub now: Option<String>,
    #[command(flatten)]
    pub tz: TzArg,

    #[command(flatten)]
    pub configs: LogConfigArgs,

    /// NDJSON: one "logDir" object per log dir, one "retention" object per partition, then a
    /// "summary"
    #[arg(long)]
    pub json: bool,

    /// Tables fitted to the terminal (table), or tab-separated values with a header line and no
    /// other text, one row per segment (tsv)
    #[arg(long, value_enum, default_value_t = Format::Table, conflicts_with = "json")]
    pub format: Format,

    #[command(flatten)]
    pub threads: ThreadsArg,
}

const COMPACT_HELP: &str = "Examples:
  kseg compact /var/lib/kafka/data                  what the cleaner does next, and why not more
  kseg compact --now 2024-06-01T00:00:00Z orders-3
  kseg compact --out /tmp/after DIR                 the dir as the pass leaves it (run again on it
                                                    for the pass after)
  kseg compact --config log.cleaner.dedupe.buffer.size=33554432 --config log.cleaner.threads=2 DIR
  kseg compact --json DIR | jq 'select(.type==\"compaction\") | {topic, partition, willClean, dirtyRatio}'

The rules are Kafka 4.4's LogCleanerManager (cleanableOffsets, grabFilthiestCompactedLog) and
Cleaner (buildOffsetMap, groupSegmentsBySize, cleanInto): the first dirty offset from the log
dir's cleaner-offset-checkpoint, the first uncleanable offset from the last stable offset, the
high watermark, the active segment and min.compaction.lag.ms, the dirty ratio against
min.cleanable.dirty.ratio or max.compaction.lag.ms forcing the pass, the offset map of
log.cleaner.dedupe.buffer.size / log.cleaner.threads bytes (24 per key, filled to the load
factor), then what every batch becomes.

Exit codes: 0 answered; 1 a partition the cleaner will give up on (a batch it cannot read in the
range it cleans); 2 the input could not be read.";

#[derive(Debug, Args)]
#[command(after_help = COMPACT_HELP)]
pub struct CompactArgs {
    /// Log dirs or partition dirs (a partition dir is judged with its log dir's checkpoints)
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,

    /// The instant of the pass: epoch milliseconds, or RFC 3339 (with an offset, or in the zone
    /// of --tz) [default: now]
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub now: Option<String>,
    #[command(flatten)]
    pub tz: TzArg,

    #[command(flatten)]
    pub configs: LogConfigArgs,

    /// NDJSON: one "compaction" object per compacted partition
    #[arg(long)]
    pub json: bool,

    /// Write the log dir (one log dir given) as Kafka leaves it after each partition's next
    /// pass into NEWDIR (new or empty): cleaned segments, indexes, mtimes, the
    /// cleaner-offset-checkpoint; the rest copied. The input is only read
    #[arg(long, value_name = "NEWDIR")]
    pub out: Option<PathBuf>,

    #[command(flatten)]
    pub threads: ThreadsArg,
}

const SUMMARY_HELP: &str = "Examples:
  kseg summary /var/lib/kafka/data
  kseg summary --format tsv /var/lib/kafka/data | sort -k7 -n
  kseg summary --json orders-0 orders-1

Exit codes: 0 read cleanly (a crash's torn or zero-filled active tail is reported, not an
error); 1 the data has problems Kafka keeps (bad CRCs, bytes framing no batch); 2 could not run.";

#[derive(Debug, Args)]
#[command(after_help = SUMMARY_HELP)]
pub struct SummaryArgs {
    /// Log dirs, partition dirs or segment files
    #[arg(value_name = "LOGDIR", required = true)]
    pub paths: Vec<PathBuf>,

    /// NDJSON output: one "partition" object per row, then a "summary"
    #[arg(long)]
    pub json: bool,

    /// Tables fitted to the terminal (table), or tab-separated values with a header line and no
    /// other text, for awk and cut (tsv)
    #[arg(long, value_enum, default_value_t = Format::Table, conflicts_with = "json")]
    pub format: Format,

    /// Only topics matching the glob ('*', '?', '[a-z]'; repeatable: any of them)
    #[arg(long = "topic", value_name = "GLOB")]
    pub topics: Vec<String>,

    /// Row order: by topic and partition (name), or largest on disk first (bytes)
    #[arg(long, value_enum, default_value_t = SummarySort::Name)]
    pub sort: SummarySort,

    /// Only the first N rows, after --sort (--sort bytes --top 10: what fills the disk)
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,

    #[command(flatten)]
    pub read: ReadArgs,

    #[command(flatten)]
    pub threads: ThreadsArg,
}

/// `summary --sort`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SummarySort {
    Name,
    Bytes,
}

const DIFF_HELP: &str = "Examples:
  kseg diff broker-1/data broker-2/data broker-3/data
  kseg diff --leader broker-2/data --topic orders broker-1/data broker-2/data
  kseg diff --print-data-log before/broker-1 after/broker-1

Exit codes: 0 no acknowledged record is lost (followers merely behind included); 1 an
acknowledged record exists on one replica only (a truncation removes it, or replicas
disagree); 2 could not run (the same dir twice, a --leader not among the paths).";

#[derive(Debug, Args)]
#[command(after_help = DIFF_HELP)]
pub struct DiffArgs {
    /// Two or more log dirs, one per broker (or copies of one broker's taken at different
    /// times), or two or more partition dirs of the same partition
    #[arg(value_name = "PATH", required = true, num_args = 2..)]
    pub paths: Vec<PathBuf>,

    /// The path (as given) of the replica that leads; without it, the replica holding the newest
    /// leader epoch, or two candidate answers when the epochs cannot tell
    #[arg(long, value_name = "PATH")]
    pub leader: Option<PathBuf>,

    /// Only these topics
    #[arg(long, value_name = "TOPIC")]
    pub topic: Vec<String>,

    /// Print the records only one replica holds (like dump-log --print-data-log)
    #[arg(long)]
    pub print_data_log: bool,

    /// NDJSON: "replica", "divergence" and "partition" objects, the one-sided records as
    /// dump-log "batch"/"record" objects, then a "summary"
    #[arg(long)]
    pub json: bool,

    /// How --json shows keys, values and header values
    #[arg(long, value_enum, default_value_t = Encoding::Auto)]
    pub encoding: Encoding,

    /// Tables fitted to the terminal (table), or tab-separated values with a header line and no
    /// other text, for awk and cut (tsv)
    #[arg(long, value_enum, default_value_t = Format::Table, conflicts_with = "json")]
    pub format: Format,

    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

const FIND_GROUP_PARTITION_HELP: &str = "Examples:
  kseg find-group-partition orders-app
  kseg find-group-partition --partitions 100 orders-app
  kseg find-group-partition --transactional-id payments-tx-1

Exit codes: 0 answered; 2 could not run (usage).";

#[derive(Debug, Args)]
#[command(after_help = FIND_GROUP_PARTITION_HELP)]
pub struct FindGroupPartitionArgs {
    /// Group ids (or transactional ids with --transactional-id)
    #[arg(value_name = "ID", required = true)]
    pub ids: Vec<String>,

    /// Partition count of the coordinator topic [default: 50; with --log-dir, what its
    /// __cluster_metadata records]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub partitions: Option<u32>,

    /// Log dirs to look for the ids' records in; their __cluster_metadata gives the partition
    /// count (a broker's partition dirs cannot: it holds only some of them)
    #[arg(long, value_name = "DIR")]
    pub log_dir: Vec<PathBuf>,

    /// The ids are transactional ids: use __transaction_state
    #[arg(long)]
    pub transactional_id: bool,

    /// NDJSON: {id, hashCode, partition, partitions, topic[, onDisk]}
    #[arg(long)]
    pub json: bool,
}

const VERIFY_INDEX_HELP: &str = "Examples:
  kseg verify-index /var/lib/kafka/data        will Kafka start, and what recovery drops
  kseg verify-index -v --format tsv /var/lib/kafka/data
  kseg verify-index --json orders-0 | jq 'select(.type==\"recovery\")'

Exit codes: 0 no error (info and warning findings included); 1 an error: a broker that will
not start, acknowledged records recovery drops; 2 could not run.";

#[derive(Debug, Args)]
#[command(after_help = VERIFY_INDEX_HELP)]
pub struct VerifyIndexArgs {
    /// Files, partition dirs or log dirs
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,

    /// Skip per-batch CRC checks (like kafka-dump-log --verify-index-only)
    #[arg(long)]
    pub index_only: bool,

    /// Only Kafka's own index sanity checks (like --index-sanity-check)
    #[arg(long)]
    pub sanity: bool,

    /// index.interval.bytes for every partition: where the recovery preview rebuilds index
    /// entries (and so whether non-increasing offsets make Kafka empty a segment) [default: each
    /// topic's from __cluster_metadata, else 4096]
    #[arg(long, value_name = "BYTES")]
    pub index_interval_bytes: Option<u64>,

    /// NDJSON: "finding" objects, "recovery" objects, then one "summary"
    #[arg(long)]
    pub json: bool,

    /// Tables fitted to the terminal (table), or tab-separated values with a header line and no
    /// other text, for awk and cut (tsv)
    #[arg(long, value_enum, default_value_t = Format::Table, conflicts_with = "json")]
    pub format: Format,

    /// Also list info findings in the table (always present in --json)
    #[arg(long, short)]
    pub verbose: bool,

    #[command(flatten)]
    pub read: ReadArgs,

    #[command(flatten)]
    pub threads: ThreadsArg,

    /// With --threads above 1, segments larger than this are read in pieces of about this
    /// size on the threads, replayed in order
    #[arg(long, value_name = "BYTES", default_value_t = crate::analysis::verify::SPLIT_BYTES, hide = true)]
    pub split_bytes: u64,
}

const RECOVER_HELP: &str = "Examples:
  kseg recover /var/lib/kafka/data/orders-0 --out /srv/repaired
  kseg recover --salvage orders-0 --out /srv/repaired
  kseg recover /var/lib/kafka/data --out /srv/data-repaired    a whole log dir
  kseg verify-index /srv/repaired              check the copy

For a partition dir, NEWDIR must not exist, be empty, or hold only other repaired partition
dirs; for a log dir, it must not exist or be empty.
Exit codes: 0 the copy is written and repaired; 1 the copy keeps damage Kafka keeps too
(still damaged), or Kafka would not start on the log dir (nothing written unless --force);
2 could not run (NEWDIR holds other files, the copy already exists).";

#[derive(Debug, Args)]
#[command(after_help = RECOVER_HELP)]
pub struct RecoverArgs {
    /// The partition dir or log dir to repair (never modified)
    #[arg(value_name = "PATH")]
    pub partition: PathBuf,

    /// Where to write the repaired copy. A partition dir goes to NEWDIR/<topic>-<partition>,
    /// named as the input's so kseg and Kafka read it as that partition: NEWDIR must not exist,
    /// or be empty, or hold only other partition dirs (earlier repairs). A log dir becomes NEWDIR
    /// itself (a broker's log.dirs): it must not exist, or be empty
    #[arg(long, value_name = "NEWDIR")]
    pub out: PathBuf,

    /// Keep the valid batches found after a corrupt region instead of dropping them (and the
    /// later segments Kafka would delete)
    #[arg(long)]
    pub salvage: bool,

    /// index.interval.bytes used to rebuild the indexes [default: the topic's from the log dir's
    /// __cluster_metadata, else 4096]
    #[arg(long, value_name = "BYTES")]
    pub index_interval_bytes: Option<u64>,

    /// Recover as Kafka does when the log dir has no .kafka_cleanshutdown: from each
    /// partition's recovery point (what it takes when a marker beside damage stops the broker)
    #[arg(long)]
    pub ignore_clean_shutdown: bool,

    /// Write the copy of a log dir even when Kafka would refuse to start on the input (the copy
    /// then keeps the damage that stops it, and the exit code is 1)
    #[arg(long)]
    pub force: bool,

    /// Worker threads for the preview of a log dir's load (the copy is written in one)
    #[command(flatten)]
    pub threads: ThreadsArg,

    /// NDJSON report instead of text
    #[arg(long)]
    pub json: bool,
}

const RESCUE_HELP: &str = "Examples:
  kseg rescue --dry-run /mnt/dead-broker/data --bootstrap kafka-1:9092
  kseg rescue /mnt/dead-broker/data/orders-0 --bootstrap kafka-1:9092 --state rescue.json
  kseg rescue --verify --topic-map orders:orders-restored orders-0 --bootstrap kafka-1:9092
  kseg rescue --groups --dry-run /mnt/dead-broker/data --bootstrap kafka-1:9092 --state rescue.json
  kseg rescue --topic 'orders*' --exclude-topic orders-audit /mnt/dead-broker/data --bootstrap kafka-1:9092

Exit codes: 0 everything was acknowledged (and verified, and the groups committed); 1
damaged source data, a verification mismatch, a group offset not translated, or (--dry-run)
something a run would refuse or stop at; 2 could not run (no connection, a refused login, an
undeliverable record or one the target refused: the --state file holds what was
acknowledged; a --state file that does not describe the target; a group active in the
target).";

#[derive(Debug, Args)]
#[command(after_help = RESCUE_HELP)]
pub struct RescueArgs {
    /// Partition dirs or log dirs to read (never modified); internal topics (__*) of a log dir
    /// are left out unless their partition dir is given
    #[arg(value_name = "SOURCE", required = true)]
    pub sources: Vec<PathBuf>,

    /// A broker of the target cluster (HOST:PORT; several comma-separated)
    #[arg(long, value_name = "HOST:PORT")]
    pub bootstrap: String,

    /// Produce topic OLD as NEW (repeatable)
    #[arg(long, value_name = "OLD:NEW")]
    pub topic_map: Vec<String>,

    /// Only source topics matching GLOB (`*`, `?`, `[a-z]`; repeatable: any of them)
    #[arg(long = "topic", value_name = "GLOB")]
    pub topics: Vec<String>,

    /// Leave out source topics matching GLOB (repeatable)
    #[arg(long = "exclude-topic", value_name = "GLOB")]
    pub exclude_topics: Vec<String>,

    /// Where each record goes: the source's partition number, or murmur2 of the key as the Java
    /// client's default partitioner does (records without a key keep their partition)
    #[arg(long, value_enum, default_value_t = RescuePartitioner::Same)]
    pub partitioner: RescuePartitioner,

    /// First source offset to send (inclusive)
    #[arg(long, value_name = "OFFSET")]
    pub from_offset: Option<i64>,

    /// Last source offset to send (inclusive)
    #[arg(long, value_name = "OFFSET")]
    pub to_offset: Option<i64>,

    /// Only records whose timestamp is at or after T (epoch ms, or RFC 3339: with an offset,
    /// or in the zone of --tz)
    #[arg(long, value_name = "T")]
    pub from_timestamp: Option<String>,

    /// Only records whose timestamp is at or before T (epoch ms, or RFC 3339: with an offset,
    /// or in the zone of --tz)
    #[arg(long, value_name = "T")]
    pub to_timestamp: Option<String>,

    #[command(flatten)]
    pub tz: TzArg,

    /// Resume file: per source partition, the last offset the target acknowledged. A rerun with
    /// the same file goes on where the last one stopped, without duplicates
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,

    /// With --state: when the file does not describe the target (another cluster, a target
    /// topic deleted and created again, a partition ending before what was written), send
    /// every record again into the target as it is now instead of refusing; the file starts
    /// anew
    #[arg(long, requires = "state")]
    pub resend: bool,

    /// Print what would be sent (counts, ranges, target partitions) and, when the cluster is
    /// reachable, what its topics would refuse or delete; send nothing
    #[arg(long)]
    pub dry_run: bool,

    /// Create missing target topics with the source's partition count and the source topic's
    /// own configs (retention.ms, cleanup.policy, ...: its ConfigRecords in the __cluster_metadata
    /// of the source's log dir)
    #[arg(long)]
    pub create_topics: bool,

    /// With --create-topics: set KEY=VALUE on the topics created, over the source's (repeatable)
    #[arg(long, value_name = "KEY=VALUE")]
    pub topic_config: Vec<String>,

    /// With --create-topics: leave KEY out of the configs taken from the source (repeatable)
    #[arg(long, value_name = "KEY")]
    pub skip_topic_config: Vec<String>,

    /// Write the source→target offset map (offsets shift in the target: records not sent take
    /// no offset) to FILE: one JSON line per source partition, ranges [first source offset, last
    /// source offset, target partition, first target offset]. --state keeps it too
    #[arg(long, value_name = "FILE", conflicts_with = "dry_run")]
    pub offset_map: Option<PathBuf>,

    /// Translate every consumer group's committed offsets on the rescued partitions (replayed
    /// from the source's __consumer_offsets) through the offset map and commit them in the
    /// target after the records; with --dry-run print the translation only. A group with
    /// members in the target is refused, as Kafka refuses it
    #[arg(long)]
    pub groups: bool,

    /// Send records although the target topic's retention.ms would delete them (their
    /// timestamps are older than it allows): without it such a rescue is refused
    #[arg(long)]
    pub allow_retention_delete: bool,

    /// Read the target back after sending and compare every record with the source
    #[arg(long)]
    pub verify: bool,

    /// Largest batch the producer builds
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20)]
    pub batch_bytes: usize,

    /// How long the producer waits to fill a batch
    #[arg(long, value_name = "MS", default_value_t = 5)]
    pub linger_ms: u64,

    /// Compression of the produced batches
    #[arg(long, value_enum, default_value_t = RescueCompression::None)]
    pub compression: RescueCompression,

    /// At most this many records per second (0: no limit), to spare a busy cluster
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub max_records_per_second: u64,

    /// Give up on a record not acknowledged in this time, retries included
    #[arg(long, value_name = "MS", default_value_t = 120_000)]
    pub delivery_timeout_ms: u64,

    /// plaintext, ssl, sasl_plaintext or sasl_ssl
    #[arg(long, value_name = "PROTOCOL")]
    pub security_protocol: Option<String>,

    /// PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
    #[arg(long, value_name = "MECHANISM")]
    pub sasl_mechanism: Option<String>,

    #[arg(long, value_name = "USER")]
    pub sasl_username: Option<String>,

    /// A file holding the SASL password (or set KSEG_SASL_PASSWORD)
    #[arg(long, value_name = "FILE")]
    pub sasl_password_file: Option<PathBuf>,

    /// PEM file of the CA certificates for the brokers' TLS certificates
    #[arg(long, value_name = "FILE")]
    pub ssl_ca: Option<PathBuf>,

    /// PEM client certificate (mutual TLS)
    #[arg(long, value_name = "FILE")]
    pub ssl_certificate: Option<PathBuf>,

    /// PEM key of the client certificate
    #[arg(long, value_name = "FILE")]
    pub ssl_key: Option<PathBuf>,

    /// Any other librdkafka client property (repeatable)
    #[arg(long, value_name = "KEY=VALUE")]
    pub client_config: Vec<String>,

    /// Tables fitted to the terminal (table), or tab-separated values with a header line and no
    /// other text, for awk and cut (tsv)
    #[arg(long, value_enum, default_value_t = Format::Table, conflicts_with = "json")]
    pub format: Format,

    /// NDJSON report instead of text
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RescuePartitioner {
    Same,
    Murmur2,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RescueCompression {
    None,
    Gzip,
    Snappy,
    Lz4,
    Zstd,
}

const LOOKUP_HELP: &str = "Examples:
  kseg lookup orders-0 --timestamp 2024-03-09T09:00:00Z     offsetsForTimes
  kseg lookup orders-0 --offset 23801 --print-data-log      the record itself
  kseg lookup /var/lib/kafka/data --topic orders --timestamp 1709974800000 --scan

Exit codes: 0 answered (including \"no such offset\"); 1 --scan finds a different answer
than the broker's (a FINDING line), or the data has problems; 2 could not run.";

#[derive(Debug, Args)]
#[command(
    after_help = LOOKUP_HELP,
    override_usage = "kseg lookup [OPTIONS] <TARGET> --offset <O> | --timestamp <T>\n       \
                      | --earliest | --latest | --max-timestamp | --end-offset-for-epoch <E>"
)]
#[command(group(
    ArgGroup::new("query")
        .required(true)
        .args(["offset", "timestamp", "earliest", "latest", "max_timestamp", "end_offset_for_epoch"])
))]
pub struct LookupArgs {
    /// A partition dir, or a log dir with --topic (one answer per partition)
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,

    /// Where a fetch from offset O starts: segment, index entry, batch
    #[arg(long, value_name = "O", allow_negative_numbers = true)]
    pub offset: Option<i64>,

    /// The first offset whose timestamp is >= T (offsetsForTimes): epoch milliseconds, or RFC
    /// 3339 with an offset (2024-03-09T14:00:00+08:00) or in the zone of --tz; -1/-2/-3 =
    /// latest/earliest/max timestamp. Several (T1,T2,... or the option repeated): one answer
    /// per partition and timestamp
    #[arg(
        long,
        value_name = "T",
        allow_negative_numbers = true,
        value_delimiter = ','
    )]
    pub timestamp: Vec<String>,

    #[command(flatten)]
    pub tz: TzArg,

    /// The log start offset (ListOffsets EARLIEST)
    #[arg(long)]
    pub earliest: bool,

    /// The log end offset (ListOffsets LATEST)
    #[arg(long)]
    pub latest: bool,

    /// The record with the largest timestamp (ListOffsets MAX_TIMESTAMP)
    #[arg(long)]
    pub max_timestamp: bool,

    /// The end offset of leader epoch E (OffsetForLeaderEpoch), from leader-epoch-checkpoint
    /// checked against the batches' partition leader epochs
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    pub end_offset_for_epoch: Option<i32>,

    /// With a log dir as TARGET: the topic whose partitions to answer for
    #[arg(long, value_name = "NAME")]
    pub topic: Option<String>,

    /// NDJSON: one {topic, partition, target, offset, timestamp, segment, position} per partition
    #[arg(long)]
    pub json: bool,

    /// Show the path taken: segment chosen and why, index entries, bytes and batches read
    #[arg(long)]
    pub explain: bool,

    /// Also answer by scanning every record, ignoring the indexes. The answer shown stays the
    /// broker's; a different scan answer is a finding (`scanOffset`, exit 1)
    #[arg(long)]
    pub scan: bool,

    /// Also print the record found (its batch line and record line, as `dump-log
    /// --deep-iteration --print-data-log` prints them; a `batch` and a `match` object with
    /// --json)
    #[arg(long)]
    pub print_data_log: bool,

    /// Largest decompressed size accepted for one batch
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_DECOMPRESSED)]
    pub max_decompressed_bytes: usize,
}

const GROUPS_HELP: &str = "Examples:
  kseg groups /var/lib/kafka/data
  kseg groups --group orders-app --history /var/lib/kafka/data
  kseg groups --at 2024-03-09T09:00:00Z --rebalances /var/lib/kafka/data

Expiry is judged at now unless --at gives the instant (say, when the broker died).
Exit codes: 0 read cleanly; 1 the data has problems; 2 could not run (--group G has no
records).";

#[derive(Debug, Args)]
#[command(after_help = GROUPS_HELP)]
pub struct GroupsArgs {
    /// Log dirs holding __consumer_offsets (and the topics' partitions, for the log end offsets)
    #[arg(value_name = "LOGDIR", required = true)]
    pub paths: Vec<PathBuf>,

    /// Only these groups
    #[arg(long, value_name = "GROUP")]
    pub group: Vec<String>,

    /// Every commit in log order, with the commit record's own offset and timestamp
    #[arg(long)]
    pub history: bool,

    /// Every generation each group went through (group-metadata records in log order), what
    /// changed, and a verdict
    #[arg(long)]
    pub rebalances: bool,

    /// The broker's offsets.retention.minutes, for EXPIRES-AT
    #[arg(long, value_name = "MINUTES", default_value_t = crate::analysis::expiry::DEFAULT_RETENTION_MINUTES,
          value_parser = clap::value_parser!(i64).range(1..))]
    pub offsets_retention_minutes: i64,

    /// The instant the expired/expires-in-1d flags are computed for (epoch milliseconds, or RFC
    /// 3339: with an offset, or in the zone of --tz) [default: now]
    #[arg(long, value_name = "TIME")]
    pub at: Option<String>,

    #[command(flatten)]
    pub tz: TzArg,

    /// NDJSON: "offset" and "group" objects ("commit" with --history, "generation" and
    /// "rebalanceSummary" with --rebalances), then a "summary"
    #[arg(long)]
    pub json: bool,

    /// Tables fitted to the terminal (table), or tab-separated values with a header line and no
    /// other text, for awk and cut (tsv)
    #[arg(long, value_enum, default_value_t = Format::Table, conflicts_with = "json")]
    pub format: Format,

    #[command(flatten)]
    pub read: ReadArgs,

    #[command(flatten)]
    pub threads: ThreadsArg,
}

const MINI_BROKER_HELP: &str = "Examples:
  kseg mini-broker --log-dir /tmp/kafka-data --listen 127.0.0.1:9092
  seq 10 | kseg mini-broker produce --log-dir /tmp/kafka-data --topic orders
  kseg mini-broker commit --log-dir /tmp/kafka-data --group g --topic orders 0=5

A log dir without .kafka_cleanshutdown (its broker crashed) is refused unless
--recover-in-place; a --node-id other than meta.properties' node.id is refused.
Exit codes: 0 stopped cleanly; 2 could not run (the dir is refused or locked, the port is
taken).";

#[derive(Debug, Args)]
#[command(after_help = MINI_BROKER_HELP)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    long_about = "Runs an embedded single-node Kafka broker on loopback that real clients (kcat, \
                  librdkafka, confluent-kafka, kafka-python) produce into, consume from and commit \
                  offsets to. It writes its log dir exactly as Kafka lays it out. SIGINT/SIGTERM \
                  stop it cleanly (.kafka_cleanshutdown); kill -9 leaves a real crash state, which \
                  the next start recovers like Kafka. `produce` and `commit` write the same files \
                  without a network client."
)]
pub struct MiniBrokerArgs {
    #[command(subcommand)]
    pub action: Option<MiniBrokerAction>,

    #[command(flatten)]
    pub broker: BrokerArgs,

    /// Address to listen on; port 0 picks a free one (the chosen address is printed)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9092")]
    pub listen: std::net::SocketAddr,

    /// Host advertised to clients in Metadata and FindCoordinator
    #[arg(long, value_name = "HOST", default_value = "127.0.0.1")]
    pub advertised_host: String,
}

#[derive(Debug, Subcommand)]
pub enum MiniBrokerAction {
    /// Append stdin lines as records, partitioned like the Java producer (murmur2 of the key)
    Produce(MiniBrokerProduceArgs),
    /// Commit a group's offsets (a simple commit, as an assign()-ing consumer makes)
    Commit(MiniBrokerCommitArgs),
}

/// The record timestamp type of a topic (`log.message.timestamp.type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TimestampTypeArg {
    #[value(name = "CreateTime")]
    CreateTime,
    #[value(name = "LogAppendTime")]
    LogAppendTime,
}

/// Broker settings, named after Kafka's configs.
#[derive(Debug, Args, Clone)]
pub struct BrokerArgs {
    /// The log dir (log.dirs); created when missing
    #[arg(long, value_name = "DIR", required = true)]
    pub log_dir: Option<PathBuf>,

    /// Partitions of auto-created topics (num.partitions)
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub num_partitions: i32,

    /// Segment size before a roll (log.segment.bytes)
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 30)]
    pub segment_bytes: u64,

    /// Roll a segment once its newest timestamp is this far past its first batch's
    /// (log.roll.ms / segment.ms; 7 days)
    #[arg(long, value_name = "MS", default_value_t = 604_800_000)]
    pub segment_ms: i64,

    /// Bytes between offset-index entries (log.index.interval.bytes)
    #[arg(long, value_name = "BYTES", default_value_t = 4096)]
    pub index_interval_bytes: u64,

    /// Preallocated size of an active segment's indexes (log.index.size.max.bytes)
    #[arg(long, value_name = "BYTES", default_value_t = 10 * 1024 * 1024)]
    pub segment_index_bytes: u64,

    /// Record timestamps: the producer's, or the broker's append time
    #[arg(long, value_enum, default_value_t = TimestampTypeArg::CreateTime)]
    pub message_timestamp_type: TimestampTypeArg,

    /// Partitions of __consumer_offsets when it is created (offsets.topic.num.partitions)
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub offsets_topic_partitions: u32,

    /// Partitions of __transaction_state (transaction.state.log.num.partitions)
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub transaction_state_log_num_partitions: u32,

    /// Largest record batch accepted (message.max.bytes)
    #[arg(long, value_name = "BYTES", default_value_t = 1024 * 1024 + 12)]
    pub max_message_bytes: usize,

    /// Delete segments whose newest record is older than this (log.retention.ms; 7 days; -1:
    /// no limit); topics override it with retention.ms
    #[arg(
        long,
        value_name = "MS",
        default_value_t = 604_800_000,
        allow_negative_numbers = true
    )]
    pub retention_ms: i64,

    /// Delete the oldest segments while a partition stays above this size (log.retention.bytes;
    /// -1: no limit); topics override it with retention.bytes
    #[arg(long, value_name = "BYTES", default_value_t = -1, allow_negative_numbers = true)]
    pub retention_bytes: i64,

    /// How often retention runs (log.retention.check.interval.ms; the first check comes at
    /// most 30 s after start)
    #[arg(long, value_name = "MS", default_value_t = 300_000)]
    pub retention_check_interval_ms: i64,

    /// How long deleted segments and partition dirs wait as .deleted/-delete before they go
    /// (log.segment.delete.delay.ms / file.delete.delay.ms)
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    pub file_delete_delay_ms: i64,

    /// Wait before the first rebalance of a new group (group.initial.rebalance.delay.ms; Kafka's
    /// default is 3000)
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub group_initial_rebalance_delay_ms: i64,

    /// KIP-848 groups: fence a member silent this long (group.consumer.session.timeout.ms)
    #[arg(long, value_name = "MS", default_value_t = 45_000)]
    pub consumer_session_timeout_ms: i32,

    /// KIP-848 groups: the heartbeat interval given to members
    /// (group.consumer.heartbeat.interval.ms)
    #[arg(long, value_name = "MS", default_value_t = 5_000)]
    pub consumer_heartbeat_interval_ms: i32,

    /// KIP-848 groups: the least time between two target assignments
    /// (group.consumer.assignment.interval.ms)
    #[arg(long, value_name = "MS", default_value_t = 1_000)]
    pub consumer_assignment_interval_ms: i64,

    /// This broker's id (node.id): 1 for a new log dir; an existing one keeps the node.id of
    /// its meta.properties, and a different ID is refused
    #[arg(long, value_name = "ID")]
    pub node_id: Option<i32>,

    /// Start on a log dir without a clean-shutdown marker (.kafka_cleanshutdown: its broker
    /// crashed or is still running), recovering it in place like Kafka: torn segments are
    /// truncated and indexes rebuilt. Without it such a dir is refused, to keep the evidence
    /// (copy it first, or repair a copy with `kseg recover`)
    #[arg(long)]
    pub recover_in_place: bool,

    /// Refuse to create topics on Metadata/Produce requests (auto.create.topics.enable=false)
    #[arg(long)]
    pub no_auto_create_topics: bool,
}

/// A compression codec for `mini-broker produce` (compression.type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompressionArg {
    None,
    Gzip,
    Snappy,
    Lz4,
    Zstd,
}

#[derive(Debug, Args)]
pub struct MiniBrokerProduceArgs {
    #[command(flatten)]
    pub broker: BrokerArgs,

    /// Topic to produce to
    #[arg(long, value_name = "NAME")]
    pub topic: String,

    /// Partitions of the topic if it has to be created [default: --num-partitions]
    #[arg(long, value_name = "N")]
    pub partitions: Option<i32>,

    /// Split each line at the first SEP into key and value (kafka-console-producer's
    /// parse.key/key.separator); without it records have no key (sticky partitioning)
    #[arg(long, value_name = "SEP")]
    pub key_separator: Option<String>,

    /// Compression of each batch (compression.type)
    #[arg(long, value_enum, default_value_t = CompressionArg::None)]
    pub compression: CompressionArg,

    /// Most record bytes in one batch (batch.size)
    #[arg(long, value_name = "BYTES", default_value_t = 16384)]
    pub batch_size: usize,

    /// Write batches without a producer id (enable.idempotence=false); the Java producer is
    /// idempotent by default
    #[arg(long)]
    pub no_idempotence: bool,
}

#[derive(Debug, Args)]
pub struct MiniBrokerCommitArgs {
    #[command(flatten)]
    pub broker: BrokerArgs,

    /// Group id
    #[arg(long, value_name = "ID")]
    pub group: String,

    /// Topic of the offsets
    #[arg(long, value_name = "NAME")]
    pub topic: String,

    /// Offsets to commit: PARTITION=OFFSET, where OFFSET may also be `earliest` or `latest`
    #[arg(value_name = "PARTITION=OFFSET", required = true)]
    pub offsets: Vec<String>,

    /// Metadata string stored with each offset
    #[arg(long, value_name = "TEXT")]
    pub metadata: Option<String>,
}

const TRANSACTIONS_HELP: &str = "Examples:
  kseg transactions /var/lib/kafka/data
  kseg transactions --json /var/lib/kafka/data | jq 'select(.type==\"openTransaction\")'

Exit codes: 0 no hanging transaction; 1 a hanging transaction (it holds back the last
stable offset of read_committed consumers) or damaged data; 2 could not run.";

#[derive(Debug, Args)]
#[command(after_help = TRANSACTIONS_HELP)]
pub struct TransactionsArgs {
    /// Log dirs holding __transaction_state and the data partitions
    #[arg(value_name = "LOGDIR", required = true)]
    pub paths: Vec<PathBuf>,

    /// NDJSON: "transactionalId" and "openTransaction" objects, then a "summary"
    #[arg(long)]
    pub json: bool,

    /// Tables fitted to the terminal (table), or tab-separated values with a header line and no
    /// other text, for awk and cut (tsv)
    #[arg(long, value_enum, default_value_t = Format::Table, conflicts_with = "json")]
    pub format: Format,
}
