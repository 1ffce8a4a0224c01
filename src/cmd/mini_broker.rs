//! `kseg mini-broker`: run the embedded broker, or script its log dir with `produce` and
//! `commit` (same writer, same files, no network client).

use std::io::{self, BufRead, Write};

use anyhow::{bail, Context};

use crate::analysis::partitioner::partition_for_key;
use crate::broker::core::{Broker, BrokerConfig};
use crate::broker::files::{MetaProperties, CLEAN_SHUTDOWN};
use crate::broker::group::CommitPartition;
use crate::broker::log::LogConfig;
use crate::broker::server::{self, ServerOptions};
use crate::broker::{now_ms, BrokerError};
use crate::cli::{
    BrokerArgs, CompressionArg, MiniBrokerAction, MiniBrokerArgs, MiniBrokerCommitArgs,
    MiniBrokerProduceArgs, TimestampTypeArg,
};
use crate::cmd::Outcome;
use crate::format::compression::Codec;
use crate::format::encode::{encode_batch, NewBatch, NewRecord};
use crate::storage::layout::parse_partition_dir;

pub fn run(args: MiniBrokerArgs) -> anyhow::Result<Outcome> {
    match args.action {
        Some(MiniBrokerAction::Produce(p)) => produce(p),
        Some(MiniBrokerAction::Commit(c)) => commit(c),
        None => {
            if !args.listen.ip().is_loopback() {
                eprintln!(
                    "kseg mini-broker: WARNING: listening on {}, which is not a loopback address: \
                     the mini-broker has no authentication, TLS or ACLs, so anyone who can reach \
                     it can read, write and delete its topics",
                    args.listen
                );
            }
            let listener = std::net::TcpListener::bind(args.listen)
                .with_context(|| format!("cannot listen on {}", args.listen))?;
            let port = listener.local_addr()?.port();
            let broker = open(&args.broker, Some((&args.advertised_host, port.into())))?;
            server::run(
                broker,
                ServerOptions {
                    listener,
                    advertised_host: args.advertised_host,
                },
            )?;
            Ok(Outcome::Clean)
        }
    }
}

/// The broker config a command line describes.
pub fn broker_config(a: &BrokerArgs) -> anyhow::Result<BrokerConfig> {
    let Some(dir) = &a.log_dir else {
        bail!("--log-dir is required");
    };
    if a.num_partitions <= 0 || a.offsets_topic_partitions == 0 {
        bail!("partition counts must be at least 1");
    }
    if a.segment_index_bytes < 12 {
        bail!("--segment-index-bytes must hold at least one time-index entry (12 bytes)");
    }
    if a.segment_bytes < 14 {
        bail!("--segment-bytes is too small for any batch");
    }
    let mut c = BrokerConfig::new(dir.clone());
    c.node_id = a.node_id.unwrap_or(1);
    c.num_partitions = a.num_partitions;
    c.log = LogConfig {
        segment_bytes: a.segment_bytes,
        segment_ms: a.segment_ms,
        index_interval_bytes: a.index_interval_bytes,
        segment_index_bytes: a.segment_index_bytes,
        log_append_time: a.message_timestamp_type == TimestampTypeArg::LogAppendTime,
        max_message_bytes: a.max_message_bytes,
        retention_ms: a.retention_ms.max(-1),
        retention_bytes: a.retention_bytes,
        file_delete_delay_ms: a.file_delete_delay_ms.max(0),
        ..LogConfig::default()
    };
    c.retention_check_interval_ms = a.retention_check_interval_ms.max(1);
    c.offsets_topic_partitions = a.offsets_topic_partitions;
    c.transaction_topic_partitions = a.transaction_state_log_num_partitions.max(1);
    c.auto_create_topics = !a.no_auto_create_topics;
    c.group_initial_rebalance_delay_ms = a.group_initial_rebalance_delay_ms.max(0);
    c.consumer_groups = crate::broker::consumer_group::ConsumerGroupConfig {
        session_timeout_ms: a.consumer_session_timeout_ms.max(1),
        heartbeat_interval_ms: a.consumer_heartbeat_interval_ms.max(1),
        assignment_interval_ms: a.consumer_assignment_interval_ms.max(0),
    };
    Ok(c)
}

/// The evidence rules for an existing log dir: a dir without a clean-shutdown marker is not
/// recovered in place unless asked, and a `--node-id` is not silently dropped for the one in
/// `meta.properties`. Returns the node id to run as.
fn check_existing_dir(a: &BrokerArgs, dir: &std::path::Path) -> anyhow::Result<i32> {
    let meta = MetaProperties::read(dir);
    let has_partitions = std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.filter_map(|e| e.ok()).any(|e| {
            e.path().is_dir() && parse_partition_dir(&e.file_name().to_string_lossy()).is_some()
        })
    });
    if (meta.is_some() || has_partitions)
        && !dir.join(CLEAN_SHUTDOWN).exists()
        && !a.recover_in_place
    {
        bail!(
            "{} has no {CLEAN_SHUTDOWN}: the broker that wrote it crashed or is still running. \
             Starting on it would recover it in place (truncate torn segments, rebuild indexes) \
             and change the evidence. Look first (kseg verify-index {0}), repair a copy (kseg \
             recover PARTITION_DIR --out NEWDIR), or pass --recover-in-place",
            dir.display()
        );
    }
    match (meta, a.node_id) {
        (Some(m), Some(id)) if m.node_id != id => bail!(
            "--node-id {id} contradicts node.id={} in {}: a log dir belongs to one broker \
             (leave --node-id out to run as {})",
            m.node_id,
            dir.join("meta.properties").display(),
            m.node_id
        ),
        (Some(m), _) => Ok(m.node_id),
        (None, id) => Ok(id.unwrap_or(1)),
    }
}

/// The endpoint a scripted session (`produce`, `commit`: one broker session each, no network)
/// registers in the metadata log: `--listen`'s default.
const SCRIPTED_LISTENER: (&str, i32) = ("127.0.0.1", 9092);

fn open(a: &BrokerArgs, listener: Option<(&str, i32)>) -> anyhow::Result<Broker> {
    let mut config = broker_config(a)?;
    config.listener = listener.map(|(h, p)| (h.to_string(), p));
    let dir = config.log_dir.clone();
    config.node_id = check_existing_dir(a, &dir)?;
    crate::broker::core::raise_open_file_limit();
    let (broker, report) =
        Broker::open(config).with_context(|| format!("opening log dir {}", dir.display()))?;
    for note in &report.notes {
        eprintln!("kseg mini-broker: {note}");
    }
    Ok(broker)
}

fn broker_error(e: BrokerError) -> anyhow::Error {
    anyhow::anyhow!("{e} (Kafka error code {})", e.code())
}

fn codec(c: CompressionArg) -> Codec {
    match c {
        CompressionArg::None => Codec::None,
        CompressionArg::Gzip => Codec::Gzip,
        CompressionArg::Snappy => Codec::Snappy,
        CompressionArg::Lz4 => Codec::Lz4,
        CompressionArg::Zstd => Codec::Zstd,
    }
}

/// One partition's batch being filled, like the Java producer's record accumulator.
#[derive(Default)]
struct Accumulating {
    records: Vec<(Option<Vec<u8>>, Vec<u8>, i64)>,
    bytes: usize,
    sequence: i32,
}

struct Producer<'b> {
    broker: &'b mut Broker,
    topic: String,
    codec: Codec,
    producer_id: i64,
    batches: Vec<Accumulating>,
    counts: Vec<u64>,
}

impl Producer<'_> {
    fn flush(&mut self, partition: usize) -> anyhow::Result<()> {
        let acc = &mut self.batches[partition];
        if acc.records.is_empty() {
            return Ok(());
        }
        let records: Vec<NewRecord> = acc
            .records
            .iter()
            .map(|(k, v, ts)| NewRecord {
                timestamp: *ts,
                key: k.as_deref(),
                value: Some(v),
                headers: &[],
            })
            .collect();
        let idempotent = self.producer_id >= 0;
        let batch = NewBatch {
            base_offset: 0,
            partition_leader_epoch: -1,
            codec: self.codec,
            log_append_time: None,
            transactional: false,
            control: false,
            producer_id: self.producer_id,
            producer_epoch: if idempotent { 0 } else { -1 },
            base_sequence: if idempotent { acc.sequence } else { -1 },
        };
        let mut bytes = Vec::new();
        encode_batch(&mut bytes, &batch, &records, &mut Vec::new());
        let n = records.len();
        self.broker
            .produce(&self.topic, partition as i32, bytes)
            .map_err(broker_error)?;
        acc.sequence = acc.sequence.wrapping_add(n as i32);
        acc.records.clear();
        acc.bytes = 0;
        self.counts[partition] += n as u64;
        Ok(())
    }
}

/// Runs a scripted session's `work` on `broker`, then shuts it down cleanly whether the work
/// succeeded or not: a refused request (an unknown partition, an invalid topic name) leaves
/// the dir as a broker's clean stop does, `.kafka_cleanshutdown` included, not as a crash
/// the next start would refuse.
fn session<T>(
    mut broker: Broker,
    work: impl FnOnce(&mut Broker) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let done = work(&mut broker);
    let closed = broker.shutdown();
    match (done, closed) {
        (Ok(v), Ok(())) => Ok(v),
        (Ok(_), Err(e)) => Err(anyhow::Error::new(e).context("closing the log dir")),
        (Err(e), Ok(())) => Err(e),
        (Err(e), Err(c)) => Err(e.context(format!("(closing the log dir failed too: {c})"))),
    }
}

fn produce(a: MiniBrokerProduceArgs) -> anyhow::Result<Outcome> {
    let broker = open(&a.broker, Some(SCRIPTED_LISTENER))?;
    let counts = session(broker, |broker| produce_stdin(broker, &a))?;
    let total: u64 = counts.iter().sum();
    let per: Vec<String> = counts
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{}-{i}: {c}", a.topic))
        .collect();
    writeln!(
        io::stdout().lock(),
        "produced {total} records ({})",
        per.join(", ")
    )?;
    Ok(Outcome::Clean)
}

/// Appends stdin's lines to `a.topic` (created if missing): the records per partition.
fn produce_stdin(broker: &mut Broker, a: &MiniBrokerProduceArgs) -> anyhow::Result<Vec<u64>> {
    let partitions = match broker.topic(&a.topic) {
        Some(t) => t.partitions.len(),
        None => {
            let n = a.partitions.unwrap_or(a.broker.num_partitions);
            broker
                .create_topic(&a.topic, n)
                .map_err(broker_error)?
                .partitions
                .len()
        }
    };
    let producer_id = if a.no_idempotence {
        -1
    } else {
        broker.allocate_producer_id().map_err(broker_error)?
    };
    let mut p = Producer {
        broker,
        topic: a.topic.clone(),
        codec: codec(a.compression),
        producer_id,
        batches: (0..partitions).map(|_| Accumulating::default()).collect(),
        counts: vec![0; partitions],
    };
    let mut sticky = 0usize;
    // Streamed a line at a time: what is held is the batches being filled, not all of stdin.
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    let mut n = 0usize;
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf).context("reading stdin")? == 0 {
            break;
        }
        {
            let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let (key, value) = match &a.key_separator {
                Some(sep) => {
                    let sep = sep.as_bytes();
                    let at = line
                        .windows(sep.len().max(1))
                        .position(|w| w == sep)
                        .with_context(|| {
                            format!(
                                "line {}: no key separator {:?} found",
                                n + 1,
                                a.key_separator
                            )
                        })?;
                    (Some(line[..at].to_vec()), line[at + sep.len()..].to_vec())
                }
                None => (None, line.to_vec()),
            };
            let partition = match &key {
                Some(k) => partition_for_key(k, partitions as u32) as usize,
                None => sticky,
            };
            let size = key.as_ref().map_or(0, |k| k.len()) + value.len() + 16;
            if p.batches[partition].bytes + size > a.batch_size
                && !p.batches[partition].records.is_empty()
            {
                p.flush(partition)?;
                if key.is_none() {
                    // The sticky partitioner moves on when a batch is full.
                    sticky = (sticky + 1) % partitions;
                }
            }
            let acc = &mut p.batches[if key.is_none() { sticky } else { partition }];
            acc.bytes += size;
            acc.records.push((key, value, now_ms()));
        }
        n += 1;
    }
    for i in 0..partitions {
        p.flush(i)?;
    }
    Ok(p.counts)
}

fn commit(a: MiniBrokerCommitArgs) -> anyhow::Result<Outcome> {
    let broker = open(&a.broker, Some(SCRIPTED_LISTENER))?;
    let (partitions, codes, coordinator) = session(broker, |broker| commit_offsets(broker, &a))?;
    let mut out = io::stdout().lock();
    for (p, code) in partitions.iter().zip(codes) {
        if code != 0 {
            writeln!(out, "{}-{}: error code {code}", p.topic, p.partition)?;
        }
    }
    writeln!(
        out,
        "committed {} offsets of group {} to __consumer_offsets-{coordinator}",
        partitions.len(),
        a.group
    )?;
    Ok(Outcome::Clean)
}

/// Commits `a.offsets` for `a.group`: what was committed, each partition's error code and the
/// group's coordinator partition.
#[allow(clippy::type_complexity)]
fn commit_offsets(
    broker: &mut Broker,
    a: &MiniBrokerCommitArgs,
) -> anyhow::Result<(Vec<CommitPartition>, Vec<i16>, i32)> {
    let topic = broker
        .topic(&a.topic)
        .with_context(|| format!("topic {} does not exist in the log dir", a.topic))?;
    let topic_id = topic.id;
    let mut partitions = Vec::new();
    for spec in &a.offsets {
        let (p, o) = spec
            .split_once('=')
            .with_context(|| format!("{spec:?}: expected PARTITION=OFFSET"))?;
        let partition: i32 = p
            .trim()
            .parse()
            .with_context(|| format!("{spec:?}: bad partition"))?;
        let log = broker
            .partition(&a.topic, partition)
            .map_err(broker_error)?;
        let offset = match o.trim() {
            "earliest" => log.log_start_offset,
            "latest" => log.log_end_offset(),
            n => n.parse().with_context(|| format!("{spec:?}: bad offset"))?,
        };
        // A consumer commits the leader epoch of the last record it consumed.
        let leader_epoch = if offset > 0 {
            log.epoch_of_offset(offset - 1).unwrap_or(-1)
        } else {
            -1
        };
        partitions.push(CommitPartition {
            topic: a.topic.clone(),
            partition,
            offset,
            leader_epoch,
            metadata: a.metadata.clone(),
            topic_id: Some(topic_id),
        });
    }
    let codes = broker
        .commit_offsets(&a.group, "", -1, &partitions, None, 9)
        .map_err(broker_error)?;
    let coordinator = broker.group_partition(&a.group).map_err(broker_error)?;
    Ok((partitions, codes, coordinator))
}
