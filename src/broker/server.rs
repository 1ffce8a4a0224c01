//! The Kafka wire protocol over tokio: framing, request decoding with `kafka-protocol`'s
//! broker-side messages, and one handler per API.
//!
//! Untrusted input rules: a frame shorter than a request header (8 bytes), a Produce frame
//! longer than `socket.request.max.bytes` (100 MiB) or any other frame longer than 1 MiB closes
//! the connection before anything is decoded (decoding small-element arrays grows memory by two
//! orders of magnitude over the wire size, so only Produce, whose bulk is record bytes, gets the
//! large cap); frames being read, decoded and handled at once share a budget (like Kafka's
//! `queued.max.request.bytes`, weighted by how much decoding can amplify them), so many
//! connections cannot multiply that memory; the
//! header's api key and version are checked by hand before the generated decoders run (which
//! are vendored with a clamp on array capacities, see `vendor/kafka-protocol/PATCHED.md`); any
//! decoding error closes that connection only. Requests of one connection are answered in order,
//! one at a time, as Kafka does.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol::messages::*;
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use kafka_protocol::ResponseError;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore};

use super::core::{Broker, OFFSETS_TOPIC, TRANSACTION_TOPIC};
use super::group::{CommitPartition, CoordinatorRecord, JoinRequest, Pending};
use super::handlers::{self, CLUSTER_OPERATIONS, GROUP_OPERATIONS, TOPIC_OPERATIONS};
use super::{now_ms, BrokerError};

/// Kafka's `socket.request.max.bytes`: the cap for Produce frames.
pub const MAX_FRAME: i32 = 100 * 1024 * 1024;
/// The cap for frames of every other API.
pub const MAX_OTHER_FRAME: i32 = 1024 * 1024;
/// The budget of request memory in flight at once (`queued.max.request.bytes`), counted with
/// [`request_cost`]; each piece of a frame's body waits for its share as it arrives.
pub const REQUEST_BUDGET: usize = 256 * 1024 * 1024;
/// The longest the rest of a frame may take to arrive once its budget share is granted.
const FRAME_READ_TIMEOUT: Duration = Duration::from_secs(60);
/// How much more than its wire size a non-Produce request may take once decoded and answered
/// (DescribeGroups with 1-byte group ids was measured at ~275x; most are far below that).
const DECODE_WEIGHT: usize = 64;

/// The frame cap for `api_key`.
fn max_frame(api_key: i16) -> i32 {
    if api_key == ApiKey::Produce as i16 {
        MAX_FRAME
    } else {
        MAX_OTHER_FRAME
    }
}

/// What a frame of `len` bytes for `api_key` counts against [`REQUEST_BUDGET`].
fn request_cost(api_key: i16, len: i32) -> u32 {
    let len = len.max(0) as usize;
    let cost = if api_key == ApiKey::Produce as i16 {
        len
    } else {
        len.saturating_mul(DECODE_WEIGHT)
    };
    cost.clamp(1, REQUEST_BUDGET) as u32
}
/// Kafka's `fetch.max.bytes` default: the most one fetch response carries (but for a first
/// batch larger than that).
pub const FETCH_MAX_BYTES: usize = 55 * 1024 * 1024;
/// api key, api version and correlation id: the smallest request header.
pub const MIN_FRAME: i32 = 8;

#[derive(Debug, Clone)]
pub struct ServerOptions {
    pub listen: SocketAddr,
    pub advertised_host: String,
}

/// The APIs and versions this broker answers (what ApiVersions advertises).
pub const SUPPORTED: &[(ApiKey, i16, i16)] = &[
    (ApiKey::Produce, 3, 12),
    (ApiKey::Fetch, 4, 17),
    (ApiKey::ListOffsets, 1, 10),
    (ApiKey::Metadata, 0, 12),
    (ApiKey::OffsetCommit, 2, 9),
    (ApiKey::OffsetFetch, 1, 9),
    (ApiKey::FindCoordinator, 0, 6),
    (ApiKey::JoinGroup, 0, 9),
    (ApiKey::Heartbeat, 0, 4),
    (ApiKey::LeaveGroup, 0, 5),
    (ApiKey::SyncGroup, 0, 5),
    (ApiKey::DescribeGroups, 0, 5),
    (ApiKey::ListGroups, 0, 5),
    (ApiKey::ApiVersions, 0, 4),
    (ApiKey::CreateTopics, 2, 7),
    (ApiKey::InitProducerId, 0, 4),
    (ApiKey::OffsetForLeaderEpoch, 2, 4),
    (ApiKey::AddPartitionsToTxn, 0, 3),
    (ApiKey::AddOffsetsToTxn, 0, 3),
    (ApiKey::EndTxn, 0, 4),
    (ApiKey::TxnOffsetCommit, 0, 3),
];

fn supported(key: ApiKey, version: i16) -> bool {
    SUPPORTED
        .iter()
        .chain(handlers::SUPPORTED)
        .any(|(k, lo, hi)| *k == key && (*lo..=*hi).contains(&version))
}

pub(super) struct Shared {
    broker: Mutex<Broker>,
    /// Woken on every append, for fetches waiting for data.
    pub(super) appended: Notify,
    pub(super) host: String,
    pub(super) port: i32,
    pub(super) node_id: i32,
    pub(super) cluster_id: String,
    /// `KSEG_BROKER_DEBUG=1`: log every request.
    debug: bool,
    /// [`REQUEST_BUDGET`] in permits of one byte.
    budget: Semaphore,
}

impl Shared {
    pub(super) fn broker(&self) -> Result<MutexGuard<'_, Broker>, String> {
        let guard = self.broker.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_closed() {
            return Err("the broker is shutting down".into());
        }
        Ok(guard)
    }
}

/// Runs the broker until SIGINT or SIGTERM, then shuts it down cleanly.
pub fn run(broker: Broker, opts: ServerOptions) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(serve(broker, opts))
}

async fn serve(broker: Broker, opts: ServerOptions) -> anyhow::Result<()> {
    let listener = TcpListener::bind(opts.listen)
        .await
        .with_context(|| format!("cannot listen on {}", opts.listen))?;
    let addr = listener.local_addr()?;
    let dir = broker.config.log_dir.clone();
    let shared = Arc::new(Shared {
        node_id: broker.config.node_id,
        cluster_id: broker.meta.cluster_id.clone(),
        broker: Mutex::new(broker),
        appended: Notify::new(),
        host: opts.advertised_host,
        port: addr.port() as i32,
        debug: std::env::var_os("KSEG_BROKER_DEBUG").is_some_and(|v| v != "0"),
        budget: Semaphore::new(REQUEST_BUDGET),
    });
    // The signal handlers exist before "listening" is printed: a SIGTERM right after that line
    // is a clean stop, not the default action's death.
    let mut sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut sigint = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "kseg mini-broker listening on {addr} (log dir {})",
            dir.display()
        )?;
        out.flush()?;
    }
    let ticker = {
        let shared = shared.clone();
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(Duration::from_millis(100));
            let mut last_hw_checkpoint = Instant::now();
            let mut last_offsets_checkpoint = Instant::now();
            loop {
                interval.tick().await;
                let Ok(mut b) = shared.broker() else { return };
                if let Err(e) = b.tick() {
                    eprintln!(
                        "kseg mini-broker: periodic work failed: {}",
                        crate::print::escape::escaped(&e.to_string())
                    );
                }
                // Kafka's cadences: high watermarks every 5 s, recovery points and log start
                // offsets every 60 s.
                let hw = last_hw_checkpoint.elapsed() >= Duration::from_secs(5);
                let offsets = last_offsets_checkpoint.elapsed() >= Duration::from_secs(60);
                if hw {
                    last_hw_checkpoint = Instant::now();
                }
                if offsets {
                    last_offsets_checkpoint = Instant::now();
                }
                if hw || offsets {
                    if let Err(e) = b.write_some_checkpoints(offsets, hw) {
                        eprintln!("kseg mini-broker: writing checkpoints failed: {e}");
                    }
                }
                drop(b);
                shared.appended.notify_waiters();
            }
        })
    };
    let mut last_accept_log: Option<Instant> = None;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                match accepted {
                    Ok((stream, peer)) => {
                        let _ = stream.set_nodelay(true);
                        tokio::spawn(connection(shared.clone(), stream, peer));
                    }
                    Err(e) => {
                        // EMFILE, ENFILE, ENOBUFS...: the error repeats at once until a
                        // descriptor frees up, so back off instead of spinning, logging at most
                        // once a second.
                        if last_accept_log.is_none_or(|t: Instant| t.elapsed() >= Duration::from_secs(1)) {
                            eprintln!("kseg mini-broker: accept failed: {e} (retrying in 100 ms)");
                            last_accept_log = Some(Instant::now());
                        }
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            }
            _ = sigint.recv() => break,
            _ = sigterm.recv() => break,
        }
    }
    ticker.abort();
    let mut b = shared.broker.lock().unwrap_or_else(|e| e.into_inner());
    b.shutdown()?;
    eprintln!("kseg mini-broker: stopped cleanly ({})", dir.display());
    Ok(())
}

async fn connection(shared: Arc<Shared>, stream: TcpStream, peer: SocketAddr) {
    let (rd, wr) = stream.into_split();
    serve_stream(&shared, rd, wr, peer).await;
}

/// Fuzzing entry (`fuzz/fuzz_targets/broker.rs`): `input` as everything one client sent on a
/// connection, framed, budgeted and answered exactly as a TCP connection is (responses are
/// discarded), against `broker`, which is handed back. A request still waiting after 50 ms (a
/// fetch's long poll) ends the connection.
#[doc(hidden)]
pub fn fuzz_connection(broker: Broker, input: &[u8]) -> Broker {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime");
    let shared = Shared {
        node_id: broker.config.node_id,
        cluster_id: broker.meta.cluster_id.clone(),
        broker: Mutex::new(broker),
        appended: Notify::new(),
        host: "127.0.0.1".into(),
        port: 9092,
        debug: false,
        budget: Semaphore::new(REQUEST_BUDGET),
    };
    let peer: SocketAddr = "127.0.0.1:1".parse().expect("an address");
    let session = serve_stream(&shared, input, tokio::io::sink(), peer);
    let _ = rt.block_on(async { tokio::time::timeout(Duration::from_millis(50), session).await });
    shared
        .broker
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
}

/// Reads frames from `rd` and answers them on `wr` until the peer goes or misbehaves.
async fn serve_stream<R, W>(shared: &Shared, mut rd: R, mut wr: W, peer: SocketAddr)
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    loop {
        let mut len = [0u8; 4];
        if rd.read_exact(&mut len).await.is_err() {
            return;
        }
        let n = i32::from_be_bytes(len);
        if !(MIN_FRAME..=MAX_FRAME).contains(&n) {
            eprintln!("kseg mini-broker: {peer}: frame length {n} is outside [{MIN_FRAME}, {MAX_FRAME}]: closing the connection");
            return;
        }
        // The api key and version come first: the cap depends on the api.
        let mut frame = vec![0u8; 4];
        if rd.read_exact(&mut frame).await.is_err() {
            return;
        }
        let api_key = i16::from_be_bytes([frame[0], frame[1]]);
        let cap = max_frame(api_key);
        if n > cap {
            eprintln!("kseg mini-broker: {peer}: frame length {n} for api key {api_key} is over its cap {cap}: closing the connection");
            return;
        }
        // A peer that stops sending mid-frame must not hold its share of the budget forever.
        let read = read_body(shared, &mut rd, &mut frame, api_key, n);
        let _permit = match tokio::time::timeout(FRAME_READ_TIMEOUT, read).await {
            Ok(Some(permit)) => permit,
            Ok(None) => return,
            Err(_) => {
                eprintln!("kseg mini-broker: {peer}: a {n}-byte frame did not arrive within {FRAME_READ_TIMEOUT:?}: closing the connection");
                return;
            }
        };
        match request(shared, Bytes::from(frame), peer).await {
            Ok(Some(response)) => {
                if wr.write_all(&response).await.is_err() {
                    return;
                }
            }
            Ok(None) => {}
            Err(e) => {
                // Client bytes (names, strings) may be in the message: one line, escaped.
                eprintln!(
                    "kseg mini-broker: {peer}: {}: closing the connection",
                    crate::print::escape::escaped(&e)
                );
                return;
            }
        }
    }
}

/// Bytes of a frame body read per budget reservation.
const BODY_CHUNK: usize = 64 * 1024;

/// Reads the rest of an `n`-byte frame into `frame` (which holds its first 4 bytes), reserving
/// budget for each piece as it arrives rather than for the declared size up front: peers that
/// announce large frames and trickle them hold only what they sent, so a small request on
/// another connection is not starved. `None`: the peer went away.
async fn read_body<'s, R: tokio::io::AsyncRead + Unpin>(
    shared: &'s Shared,
    rd: &mut R,
    frame: &mut Vec<u8>,
    api_key: i16,
    n: i32,
) -> Option<tokio::sync::SemaphorePermit<'s>> {
    let total = n as usize;
    // Address space only: pages are touched as bytes arrive.
    frame.reserve_exact(total - frame.len());
    let mut permit = shared
        .budget
        .acquire_many(request_cost(api_key, 4))
        .await
        .ok()?;
    while frame.len() < total {
        let piece = (total - frame.len()).min(BODY_CHUNK);
        permit.merge(
            shared
                .budget
                .acquire_many(request_cost(api_key, piece as i32))
                .await
                .ok()?,
        );
        let at = frame.len();
        frame.resize(at + piece, 0);
        rd.read_exact(&mut frame[at..]).await.ok()?;
    }
    Some(permit)
}

pub(super) fn encode<R: Encodable>(
    key: ApiKey,
    version: i16,
    correlation_id: i32,
    response: &R,
) -> Result<BytesMut, String> {
    let mut buf = BytesMut::with_capacity(256);
    buf.put_i32(0);
    ResponseHeader::default()
        .with_correlation_id(correlation_id)
        .encode(&mut buf, key.response_header_version(version))
        .map_err(|e| format!("encoding the response header: {e}"))?;
    response
        .encode(&mut buf, version)
        .map_err(|e| format!("encoding a {key:?} v{version} response: {e}"))?;
    let len = (buf.len() - 4) as i32;
    buf[0..4].copy_from_slice(&len.to_be_bytes());
    Ok(buf)
}

macro_rules! decode {
    ($t:ty, $buf:expr, $v:expr) => {
        <$t>::decode(&mut $buf, $v).map_err(|e| format!("undecodable {}: {e}", stringify!($t)))?
    };
}

pub(super) fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_string())
}

fn topic_name(v: &str) -> TopicName {
    TopicName(s(v))
}

pub(super) fn uuid(id: [u8; 16]) -> uuid::Uuid {
    uuid::Uuid::from_bytes(id)
}

/// Decodes and answers one request; `Ok(None)` means no response (acks=0).
async fn request(
    shared: &Shared,
    mut buf: Bytes,
    peer: SocketAddr,
) -> Result<Option<BytesMut>, String> {
    let api_key = i16::from_be_bytes([buf[0], buf[1]]);
    let version = i16::from_be_bytes([buf[2], buf[3]]);
    let key = ApiKey::try_from(api_key).map_err(|_| format!("unknown api key {api_key}"))?;
    let header = RequestHeader::decode(&mut buf, key.request_header_version(version))
        .map_err(|e| format!("undecodable request header: {e}"))?;
    let cid = header.correlation_id;
    if shared.debug {
        // The client id is the client's bytes: one line, escaped.
        let client = header.client_id.as_ref().map_or("", |c| c.as_str());
        eprintln!(
            "kseg mini-broker: {peer}: {key:?} v{version} correlation {cid} client id \"{}\"",
            crate::print::escape::escaped(client)
        );
    }
    if key == ApiKey::ApiVersions && !supported(key, version) {
        // Kafka answers an unknown ApiVersions version with v0 and the versions it supports,
        // so the client can retry with one of them.
        let resp = api_versions_response(ResponseError::UnsupportedVersion.code());
        return encode(key, 0, cid, &resp).map(Some);
    }
    if !supported(key, version) {
        return Err(format!("unsupported {key:?} version {version}"));
    }
    let client_id = header
        .client_id
        .as_ref()
        .map(|c| c.as_str().to_string())
        .unwrap_or_default();
    let out = match key {
        ApiKey::ApiVersions => {
            let _ = decode!(ApiVersionsRequest, buf, version);
            encode(key, version, cid, &api_versions_response(0))?
        }
        ApiKey::Metadata => {
            let req = decode!(MetadataRequest, buf, version);
            encode(key, version, cid, &metadata(shared, req, version)?)?
        }
        ApiKey::CreateTopics => {
            let req = decode!(CreateTopicsRequest, buf, version);
            encode(key, version, cid, &create_topics(shared, req)?)?
        }
        ApiKey::Produce => {
            let req = decode!(ProduceRequest, buf, version);
            let acks = req.acks;
            let resp = produce(shared, req)?;
            shared.appended.notify_waiters();
            if acks == 0 {
                return Ok(None);
            }
            encode(key, version, cid, &resp)?
        }
        ApiKey::Fetch => {
            let req = decode!(FetchRequest, buf, version);
            encode(key, version, cid, &fetch(shared, req, version).await?)?
        }
        ApiKey::ListOffsets => {
            let req = decode!(ListOffsetsRequest, buf, version);
            encode(key, version, cid, &list_offsets(shared, req, version)?)?
        }
        ApiKey::OffsetForLeaderEpoch => {
            let req = decode!(OffsetForLeaderEpochRequest, buf, version);
            encode(key, version, cid, &offset_for_leader_epoch(shared, req)?)?
        }
        ApiKey::FindCoordinator => {
            let req = decode!(FindCoordinatorRequest, buf, version);
            encode(key, version, cid, &find_coordinator(shared, req, version)?)?
        }
        ApiKey::JoinGroup => {
            let req = decode!(JoinGroupRequest, buf, version);
            let resp = join_group(shared, req, version, client_id, peer).await?;
            encode(key, version, cid, &resp)?
        }
        ApiKey::SyncGroup => {
            let req = decode!(SyncGroupRequest, buf, version);
            encode(key, version, cid, &sync_group(shared, req).await?)?
        }
        ApiKey::Heartbeat => {
            let req = decode!(HeartbeatRequest, buf, version);
            let mut b = shared.broker()?;
            let fenced = b.groups.is_fenced(
                req.group_id.as_str(),
                req.group_instance_id.as_ref().map(|i| i.as_str()),
                req.member_id.as_str(),
            );
            let code = if fenced {
                ResponseError::FencedInstanceId.code()
            } else {
                b.groups.heartbeat(
                    req.group_id.as_str(),
                    req.member_id.as_str(),
                    req.generation_id,
                    now_ms(),
                )
            };
            drop(b);
            encode(
                key,
                version,
                cid,
                &HeartbeatResponse::default().with_error_code(code),
            )?
        }
        ApiKey::ConsumerGroupHeartbeat => {
            let req = decode!(ConsumerGroupHeartbeatRequest, buf, version);
            let resp = handlers::consumer_group_heartbeat(shared, req, version, client_id, peer)?;
            encode(key, version, cid, &resp)?
        }
        ApiKey::LeaveGroup => {
            let req = decode!(LeaveGroupRequest, buf, version);
            encode(key, version, cid, &leave_group(shared, req, version)?)?
        }
        ApiKey::OffsetCommit => {
            let req = decode!(OffsetCommitRequest, buf, version);
            encode(key, version, cid, &offset_commit(shared, req, version)?)?
        }
        ApiKey::OffsetFetch => {
            let req = decode!(OffsetFetchRequest, buf, version);
            encode(key, version, cid, &offset_fetch(shared, req, version)?)?
        }
        ApiKey::DescribeGroups => {
            let req = decode!(DescribeGroupsRequest, buf, version);
            encode(key, version, cid, &describe_groups(shared, req)?)?
        }
        ApiKey::ListGroups => {
            let req = decode!(ListGroupsRequest, buf, version);
            encode(key, version, cid, &list_groups(shared, req)?)?
        }
        ApiKey::InitProducerId => {
            let req = decode!(InitProducerIdRequest, buf, version);
            encode(key, version, cid, &init_producer_id(shared, req)?)?
        }
        ApiKey::AddPartitionsToTxn => {
            let req = decode!(AddPartitionsToTxnRequest, buf, version);
            encode(key, version, cid, &add_partitions_to_txn(shared, req)?)?
        }
        ApiKey::AddOffsetsToTxn => {
            let req = decode!(AddOffsetsToTxnRequest, buf, version);
            encode(key, version, cid, &add_offsets_to_txn(shared, req)?)?
        }
        ApiKey::TxnOffsetCommit => {
            let req = decode!(TxnOffsetCommitRequest, buf, version);
            encode(key, version, cid, &txn_offset_commit(shared, req)?)?
        }
        ApiKey::EndTxn => {
            let req = decode!(EndTxnRequest, buf, version);
            let resp = end_txn(shared, req)?;
            shared.appended.notify_waiters();
            encode(key, version, cid, &resp)?
        }
        other => match handlers::handle(shared, other, version, cid, buf)? {
            Some(out) => out,
            None => return Err(format!("unsupported api {other:?}")),
        },
    };
    Ok(Some(out))
}

fn api_versions_response(error_code: i16) -> ApiVersionsResponse {
    ApiVersionsResponse::default()
        .with_error_code(error_code)
        .with_api_keys(
            SUPPORTED
                .iter()
                .chain(handlers::SUPPORTED)
                .map(|(k, lo, hi)| {
                    // Like Kafka 4.0 (KAFKA-18659): advertise Produce v0-v2, which are rejected
                    // anyway, because librdkafka before 2.10 only compresses gzip, snappy and
                    // lz4 batches for brokers whose Produce range includes v0.
                    let lo = if *k == ApiKey::Produce { 0 } else { *lo };
                    api_versions_response::ApiVersion::default()
                        .with_api_key(*k as i16)
                        .with_min_version(lo)
                        .with_max_version(*hi)
                })
                .collect(),
        )
}

fn metadata(
    shared: &Shared,
    req: MetadataRequest,
    version: i16,
) -> Result<MetadataResponse, String> {
    let mut b = shared.broker()?;
    // v0: an empty list means all topics; v1+: null means all.
    let requested: Option<Vec<(Option<String>, [u8; 16])>> = match req.topics {
        None => None,
        Some(t) if t.is_empty() && version == 0 => None,
        Some(t) => Some(
            t.into_iter()
                .map(|t| {
                    (
                        t.name.map(|n| n.as_str().to_string()),
                        *t.topic_id.as_bytes(),
                    )
                })
                .collect(),
        ),
    };
    let auto_create = version < 4 || req.allow_auto_topic_creation;
    let mut topics = Vec::new();
    let names: Vec<(Option<String>, [u8; 16])> = match requested {
        None => b.topics().map(|t| (Some(t.name.clone()), t.id)).collect(),
        Some(r) => r,
    };
    for (name, id) in names {
        let name = match name {
            Some(n) => n,
            None => match b.topic_by_id(&id) {
                Some(t) => t.name.clone(),
                None => {
                    topics.push(
                        metadata_response::MetadataResponseTopic::default()
                            .with_error_code(ResponseError::UnknownTopicId.code())
                            .with_topic_id(uuid(id)),
                    );
                    continue;
                }
            },
        };
        let internal = name == OFFSETS_TOPIC || name == TRANSACTION_TOPIC;
        let found = if b.topic(&name).is_some() {
            Ok(())
        } else if auto_create && !internal {
            b.topic_or_create(&name).map(|_| ())
        } else {
            Err(BrokerError::new(
                ResponseError::UnknownTopicOrPartition,
                "unknown topic",
            ))
        };
        let mut t = metadata_response::MetadataResponseTopic::default()
            .with_name(Some(topic_name(&name)))
            .with_is_internal(internal)
            // AuthHelper.authorizedOperations without an authorizer: every supported operation.
            .with_topic_authorized_operations(if req.include_topic_authorized_operations {
                TOPIC_OPERATIONS
            } else {
                i32::MIN
            });
        match found {
            Err(e) => t.error_code = e.code(),
            Ok(()) => {
                let topic = b.topic(&name).expect("exists");
                t.topic_id = uuid(topic.id);
                t.partitions = topic
                    .partitions
                    .iter()
                    .map(|p| {
                        metadata_response::MetadataResponsePartition::default()
                            .with_partition_index(p.partition)
                            .with_leader_id(shared.node_id.into())
                            .with_leader_epoch(p.leader_epoch)
                            .with_replica_nodes(vec![shared.node_id.into()])
                            .with_isr_nodes(vec![shared.node_id.into()])
                    })
                    .collect();
            }
        }
        topics.push(t);
    }
    Ok(MetadataResponse::default()
        .with_brokers(vec![metadata_response::MetadataResponseBroker::default()
            .with_node_id(shared.node_id.into())
            .with_host(s(&shared.host))
            .with_port(shared.port)])
        .with_cluster_id(Some(s(&shared.cluster_id)))
        .with_controller_id(shared.node_id.into())
        .with_cluster_authorized_operations(if req.include_cluster_authorized_operations {
            CLUSTER_OPERATIONS
        } else {
            i32::MIN
        })
        .with_topics(topics))
}

fn create_topics(
    shared: &Shared,
    req: CreateTopicsRequest,
) -> Result<CreateTopicsResponse, String> {
    let mut b = shared.broker()?;
    let mut results = Vec::new();
    // The partitions this request may still create (Kafka's per-operation record cap).
    let mut room = super::core::MAX_PARTITIONS_PER_REQUEST;
    for t in req.topics {
        let name = t.name.as_str().to_string();
        let n = if t.num_partitions < 0 {
            b.config.num_partitions
        } else {
            t.num_partitions
        };
        if n > room {
            results.push(
                create_topics_response::CreatableTopicResult::default()
                    .with_name(t.name.clone())
                    .with_num_partitions(-1)
                    .with_replication_factor(-1)
                    .with_error_code(ResponseError::PolicyViolation.code())
                    .with_error_message(Some(s(&format!(
                        "{n} partitions: excessively large number of partitions per request (the cap is {})",
                        super::core::MAX_PARTITIONS_PER_REQUEST
                    )))),
            );
            continue;
        }
        room -= n.max(0);
        let mut r = create_topics_response::CreatableTopicResult::default()
            .with_name(t.name.clone())
            .with_num_partitions(n)
            .with_replication_factor(1)
            .with_configs(Some(Vec::new()));
        if t.replication_factor > 1 {
            r.error_code = ResponseError::InvalidReplicationFactor.code();
            r.error_message = Some(s("a single-node broker cannot hold more than one replica"));
        } else {
            let configs: Vec<(String, Option<String>)> = t
                .configs
                .iter()
                .map(|c| {
                    (
                        c.name.as_str().to_string(),
                        c.value.as_ref().map(|v| v.as_str().to_string()),
                    )
                })
                .collect();
            match b.create_topic_with_configs(&name, n, &configs, req.validate_only) {
                Ok(topic) => {
                    if let Some(topic) = topic {
                        r.topic_id = uuid(topic.id);
                    }
                    r.configs = Some(handlers::created_topic_configs(&b, &name));
                }
                Err(e) => {
                    r.error_code = e.code();
                    r.error_message = Some(s(&e.to_string()));
                    r.num_partitions = -1;
                    r.replication_factor = -1;
                }
            }
        }
        results.push(r);
    }
    Ok(CreateTopicsResponse::default().with_topics(results))
}

fn produce(shared: &Shared, req: ProduceRequest) -> Result<ProduceResponse, String> {
    let mut b = shared.broker()?;
    let acks_ok = matches!(req.acks, -1..=1);
    let mut responses = Vec::new();
    for t in req.topic_data {
        let name = if t.name.is_empty() {
            b.topic_by_id(t.topic_id.as_bytes())
                .map(|t| t.name.clone())
                .unwrap_or_default()
        } else {
            t.name.as_str().to_string()
        };
        let mut parts = Vec::new();
        for p in t.partition_data {
            let mut r = produce_response::PartitionProduceResponse::default()
                .with_index(p.index)
                .with_base_offset(-1)
                .with_log_append_time_ms(-1)
                .with_log_start_offset(-1);
            let result = if !acks_ok {
                Err(BrokerError::new(
                    ResponseError::InvalidRequiredAcks,
                    "acks must be -1, 0 or 1",
                ))
            } else {
                let records = p.records.map(|r| r.to_vec()).unwrap_or_default();
                b.produce(&name, p.index, records)
            };
            match result {
                Ok(info) => {
                    r.base_offset = info.base_offset;
                    r.log_append_time_ms = info.log_append_time;
                    r.log_start_offset = b
                        .partition(&name, p.index)
                        .map(|l| l.log_start_offset)
                        .unwrap_or(-1);
                }
                Err(e) => {
                    r.error_code = e.code();
                    r.error_message = Some(s(&e.to_string()));
                }
            }
            parts.push(r);
        }
        responses.push(
            produce_response::TopicProduceResponse::default()
                .with_name(t.name)
                .with_topic_id(t.topic_id)
                .with_partition_responses(parts),
        );
    }
    Ok(ProduceResponse::default().with_responses(responses))
}

/// Checks a client's view of the leader epoch (`current_leader_epoch`).
fn epoch_error(current: i32, ours: i32) -> i16 {
    if current < 0 || current == ours {
        0
    } else if current < ours {
        ResponseError::FencedLeaderEpoch.code()
    } else {
        ResponseError::UnknownLeaderEpoch.code()
    }
}

async fn fetch(shared: &Shared, req: FetchRequest, version: i16) -> Result<FetchResponse, String> {
    let deadline = Instant::now() + Duration::from_millis(req.max_wait_ms.clamp(0, 60_000) as u64);
    let committed = req.isolation_level == 1;
    // `fetch.max.bytes` caps what the request asks for (ReplicaManager.fetchMessages).
    let max_bytes = if version >= 3 && req.max_bytes > 0 {
        (req.max_bytes as usize).min(FETCH_MAX_BYTES)
    } else {
        FETCH_MAX_BYTES
    };
    loop {
        let notified = shared.appended.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        // Under the lock: where each partition's bytes lie. The reads happen after it.
        let mut plans = Vec::new();
        let mut errors = false;
        let mut topics = Vec::new();
        {
            let b = shared.broker()?;
            for t in &req.topics {
                let (name, id) = if version >= 13 {
                    match b.topic_by_id(t.topic_id.as_bytes()) {
                        Some(topic) => (Some(topic.name.clone()), t.topic_id),
                        None => (None, t.topic_id),
                    }
                } else {
                    (Some(t.topic.as_str().to_string()), Default::default())
                };
                let mut parts = Vec::new();
                for p in &t.partitions {
                    let mut d = fetch_response::PartitionData::default()
                        .with_partition_index(p.partition)
                        .with_high_watermark(-1)
                        .with_aborted_transactions(None);
                    let Some(name) = &name else {
                        d.error_code = ResponseError::UnknownTopicId.code();
                        errors = true;
                        parts.push(d);
                        continue;
                    };
                    let log = match b.partition(name, p.partition) {
                        Ok(l) => l,
                        Err(e) => {
                            d.error_code = e.code();
                            errors = true;
                            parts.push(d);
                            continue;
                        }
                    };
                    let code = epoch_error(p.current_leader_epoch, log.leader_epoch);
                    if code != 0 {
                        d.error_code = code;
                        errors = true;
                        parts.push(d);
                        continue;
                    }
                    match log.plan_read(p.fetch_offset, committed) {
                        Ok(plan) => plans.push((
                            topics.len(),
                            parts.len(),
                            p.partition_max_bytes.max(0) as usize,
                            plan,
                        )),
                        Err(e) => {
                            d.error_code = e.code();
                            d.high_watermark = log.high_watermark();
                            d.last_stable_offset = log.last_stable_offset();
                            d.log_start_offset = log.log_start_offset;
                            errors = true;
                        }
                    }
                    parts.push(d);
                }
                topics.push(
                    fetch_response::FetchableTopicResponse::default()
                        .with_topic(if version >= 13 {
                            Default::default()
                        } else {
                            t.topic.clone()
                        })
                        .with_topic_id(id)
                        .with_partitions(parts),
                );
            }
        }
        let mut total = 0usize;
        for (ti, pi, partition_max, plan) in plans {
            let d = &mut topics[ti].partitions[pi];
            let budget = partition_max.min(max_bytes.saturating_sub(total));
            // The first batch of the response is returned even when it is larger than the
            // limits (KIP-74).
            let budget = if total == 0 { budget.max(1) } else { budget };
            match plan.execute(budget) {
                Ok(r) => {
                    total += r.records.len();
                    d.records = Some(Bytes::from(r.records));
                    d.high_watermark = r.high_watermark;
                    d.last_stable_offset = r.last_stable_offset;
                    d.log_start_offset = r.log_start_offset;
                    d.aborted_transactions = r.aborted.map(|a| {
                        a.into_iter()
                            .map(|(pid, first)| {
                                fetch_response::AbortedTransaction::default()
                                    .with_producer_id(pid.into())
                                    .with_first_offset(first)
                            })
                            .collect()
                    });
                }
                Err(e) => {
                    eprintln!("kseg mini-broker: reading a fetch failed: {e}");
                    d.error_code = ResponseError::KafkaStorageError.code();
                    errors = true;
                }
            }
        }
        let resp = FetchResponse::default().with_responses(topics);
        let bytes = total;
        let now = Instant::now();
        if errors || bytes >= req.min_bytes.max(1) as usize || now >= deadline {
            return Ok(resp);
        }
        let _ = tokio::time::timeout(deadline - now, notified).await;
    }
}

fn list_offsets(
    shared: &Shared,
    req: ListOffsetsRequest,
    version: i16,
) -> Result<ListOffsetsResponse, String> {
    let mut b = shared.broker()?;
    let committed = req.isolation_level == 1;
    let mut topics = Vec::new();
    for t in req.topics {
        let name = t.name.as_str().to_string();
        let mut parts = Vec::new();
        for p in t.partitions {
            let mut r = list_offsets_response::ListOffsetsPartitionResponse::default()
                .with_partition_index(p.partition_index)
                .with_timestamp(-1)
                .with_offset(-1)
                .with_leader_epoch(-1);
            let log = match b.partition_mut(&name, p.partition_index) {
                Ok(l) => l,
                Err(e) => {
                    r.error_code = e.code();
                    parts.push(r);
                    continue;
                }
            };
            r.error_code = epoch_error(p.current_leader_epoch, log.leader_epoch);
            if r.error_code != 0 {
                parts.push(r);
                continue;
            }
            let latest_epoch = log.epochs().last().map_or(-1, |(e, _)| *e);
            match p.timestamp {
                -1 => {
                    r.offset = if committed {
                        log.last_stable_offset()
                    } else {
                        log.high_watermark()
                    };
                    r.leader_epoch = latest_epoch;
                }
                -2 | -4 => {
                    r.offset = log.log_start_offset;
                    // UnifiedLog.fetchOffsetByTimestamp: the earliest epoch-cache entry, when
                    // it starts at or before the log start (also on an empty partition).
                    r.leader_epoch = log
                        .epochs()
                        .first()
                        .filter(|(_, start)| *start <= log.log_start_offset)
                        .map_or(-1, |(e, _)| *e);
                }
                -5 => {}
                ts => {
                    let found = if ts == -3 {
                        log.max_timestamp_offset()
                    } else {
                        log.offset_for_timestamp(ts)
                    };
                    // ReplicaManager.fetchOffsets: an offset at or past the last fetchable one
                    // (the LSO for read_committed, else the HW) answers "none".
                    let fetchable = if committed {
                        log.last_stable_offset()
                    } else {
                        log.high_watermark()
                    };
                    match found {
                        Ok(Some((offset, timestamp, epoch))) if offset < fetchable => {
                            r.offset = offset;
                            r.timestamp = timestamp;
                            r.leader_epoch = epoch;
                        }
                        Ok(_) => {}
                        Err(e) => r.error_code = BrokerError::Io(e).code(),
                    }
                }
            }
            if version < 4 {
                r.leader_epoch = -1;
            }
            parts.push(r);
        }
        topics.push(
            list_offsets_response::ListOffsetsTopicResponse::default()
                .with_name(t.name)
                .with_partitions(parts),
        );
    }
    Ok(ListOffsetsResponse::default().with_topics(topics))
}

fn offset_for_leader_epoch(
    shared: &Shared,
    req: OffsetForLeaderEpochRequest,
) -> Result<OffsetForLeaderEpochResponse, String> {
    let b = shared.broker()?;
    let topics = req
        .topics
        .into_iter()
        .map(|t| {
            let name = t.topic.as_str().to_string();
            let parts = t
                .partitions
                .into_iter()
                .map(|p| {
                    let mut r = offset_for_leader_epoch_response::EpochEndOffset::default()
                        .with_partition(p.partition)
                        .with_leader_epoch(-1)
                        .with_end_offset(-1);
                    match b.partition(&name, p.partition) {
                        Err(e) => r.error_code = e.code(),
                        Ok(log) => {
                            r.error_code = epoch_error(p.current_leader_epoch, log.leader_epoch);
                            if r.error_code == 0 {
                                let (epoch, end) = log.end_offset_for_epoch(p.leader_epoch);
                                r.leader_epoch = epoch;
                                r.end_offset = end;
                            }
                        }
                    }
                    r
                })
                .collect();
            offset_for_leader_epoch_response::OffsetForLeaderTopicResult::default()
                .with_topic(t.topic)
                .with_partitions(parts)
        })
        .collect();
    Ok(OffsetForLeaderEpochResponse::default().with_topics(topics))
}

fn find_coordinator(
    shared: &Shared,
    req: FindCoordinatorRequest,
    version: i16,
) -> Result<FindCoordinatorResponse, String> {
    let mut b = shared.broker()?;
    let keys: Vec<String> = if version >= 4 {
        req.coordinator_keys
            .iter()
            .map(|k| k.as_str().to_string())
            .collect()
    } else {
        vec![req.key.as_str().to_string()]
    };
    let mut answers = Vec::new();
    for key in keys {
        let result = match req.key_type {
            0 => b.group_partition(&key).map(|_| ()),
            1 => b.transaction_partition(&key).map(|_| ()),
            _ => Err(BrokerError::new(
                ResponseError::InvalidRequest,
                "unknown key type",
            )),
        };
        let mut c = find_coordinator_response::Coordinator::default()
            .with_key(s(&key))
            .with_node_id(shared.node_id.into())
            .with_host(s(&shared.host))
            .with_port(shared.port);
        if let Err(e) = result {
            c.error_code = e.code();
            c.error_message = Some(s(&e.to_string()));
            c.node_id = (-1).into();
            c.host = s("");
            c.port = -1;
        }
        answers.push(c);
    }
    if version >= 4 {
        return Ok(FindCoordinatorResponse::default().with_coordinators(answers));
    }
    let c = answers.pop().unwrap_or_default();
    Ok(FindCoordinatorResponse::default()
        .with_error_code(c.error_code)
        .with_error_message(c.error_message)
        .with_node_id(c.node_id)
        .with_host(c.host)
        .with_port(c.port))
}

/// Appends group records for `group`; errors are reported, the group state stands.
fn write_group(b: &mut Broker, group: &str, records: &[CoordinatorRecord]) {
    if let Err(e) = b.write_group_records(group, records) {
        eprintln!(
            "kseg mini-broker: writing group {} state failed: {e}",
            crate::print::escape::escaped(group)
        );
    }
}

async fn join_group(
    shared: &Shared,
    req: JoinGroupRequest,
    version: i16,
    client_id: String,
    peer: SocketAddr,
) -> Result<JoinGroupResponse, String> {
    let group = req.group_id.as_str().to_string();
    let pending = {
        let mut b = shared.broker()?;
        let mut records = Vec::new();
        let now = now_ms();
        let _ = b.group_partition(&group);
        // A KIP-848 group: an empty one gives way (its tombstones, as
        // `maybeDeleteEmptyConsumerGroup`); one with members is refused (no online migration).
        if let Some(Err(_)) = b.consumer_groups.delete_group(&group, &mut records) {
            return Ok(JoinGroupResponse::default()
                .with_error_code(ResponseError::InconsistentGroupProtocol.code())
                .with_generation_id(-1)
                .with_protocol_name((version < 7).then(|| s("")))
                .with_member_id(req.member_id));
        }
        let pending = b.groups.join(
            JoinRequest {
                group_id: group.clone(),
                member_id: req.member_id.as_str().to_string(),
                instance_id: req.group_instance_id.map(|i| i.as_str().to_string()),
                protocol_type: req.protocol_type.as_str().to_string(),
                protocols: req
                    .protocols
                    .iter()
                    .map(|p| (p.name.as_str().to_string(), p.metadata.to_vec()))
                    .collect(),
                session_timeout_ms: req.session_timeout_ms,
                rebalance_timeout_ms: if version >= 1 {
                    req.rebalance_timeout_ms
                } else {
                    req.session_timeout_ms
                },
                client_id,
                client_host: format!("/{}", peer.ip()),
                require_known_member_id: version >= 4,
                supports_skip_assignment: version >= 9,
            },
            now,
            &mut records,
        );
        write_group(&mut b, &group, &records);
        pending
    };
    let outcome = match pending {
        Pending::Now(o) => o,
        Pending::Later(rx) => rx
            .await
            .map_err(|_| "the group coordinator dropped a join")?,
    };
    let name_required = version < 7;
    Ok(JoinGroupResponse::default()
        .with_error_code(outcome.error)
        .with_generation_id(outcome.generation)
        .with_protocol_type(outcome.protocol_type.map(|p| s(&p)))
        .with_protocol_name(match outcome.protocol_name {
            Some(p) => Some(s(&p)),
            None if name_required => Some(s("")),
            None => None,
        })
        .with_leader(s(&outcome.leader))
        .with_skip_assignment(outcome.skip_assignment)
        .with_member_id(s(&outcome.member_id))
        .with_members(
            outcome
                .members
                .into_iter()
                .map(|(id, instance, meta)| {
                    join_group_response::JoinGroupResponseMember::default()
                        .with_member_id(s(&id))
                        .with_group_instance_id(instance.map(|i| s(&i)))
                        .with_metadata(Bytes::from(meta))
                })
                .collect(),
        ))
}

async fn sync_group(shared: &Shared, req: SyncGroupRequest) -> Result<SyncGroupResponse, String> {
    let group = req.group_id.as_str().to_string();
    let pending = {
        let mut b = shared.broker()?;
        if b.groups.is_fenced(
            &group,
            req.group_instance_id.as_ref().map(|i| i.as_str()),
            req.member_id.as_str(),
        ) {
            return Ok(SyncGroupResponse::default()
                .with_error_code(ResponseError::FencedInstanceId.code()));
        }
        let mut records = Vec::new();
        let pending = b.groups.sync(
            &group,
            req.generation_id,
            req.member_id.as_str(),
            req.assignments
                .iter()
                .map(|a| (a.member_id.as_str().to_string(), a.assignment.to_vec()))
                .collect(),
            now_ms(),
            &mut records,
        );
        write_group(&mut b, &group, &records);
        pending
    };
    let outcome = match pending {
        Pending::Now(o) => o,
        Pending::Later(rx) => rx
            .await
            .map_err(|_| "the group coordinator dropped a sync")?,
    };
    Ok(SyncGroupResponse::default()
        .with_error_code(outcome.error)
        .with_protocol_type(outcome.protocol_type.map(|p| s(&p)))
        .with_protocol_name(outcome.protocol_name.map(|p| s(&p)))
        .with_assignment(Bytes::from(outcome.assignment)))
}

fn leave_group(
    shared: &Shared,
    req: LeaveGroupRequest,
    version: i16,
) -> Result<LeaveGroupResponse, String> {
    let mut b = shared.broker()?;
    let group = req.group_id.as_str().to_string();
    let ids: Vec<String> = if version >= 3 {
        req.members
            .iter()
            .map(|m| m.member_id.as_str().to_string())
            .collect()
    } else {
        vec![req.member_id.as_str().to_string()]
    };
    let mut records = Vec::new();
    let result = b.groups.leave(&group, &ids, now_ms(), &mut records);
    write_group(&mut b, &group, &records);
    Ok(match result {
        Err(e) => LeaveGroupResponse::default().with_error_code(e.code()),
        Ok(codes) => {
            let error = if version < 3 { codes[0] } else { 0 };
            LeaveGroupResponse::default()
                .with_error_code(error)
                .with_members(if version >= 3 {
                    req.members
                        .into_iter()
                        .zip(codes)
                        .map(|(m, code)| {
                            leave_group_response::MemberResponse::default()
                                .with_member_id(m.member_id)
                                .with_group_instance_id(m.group_instance_id)
                                .with_error_code(code)
                        })
                        .collect()
                } else {
                    Vec::new()
                })
        }
    })
}

fn offset_commit(
    shared: &Shared,
    req: OffsetCommitRequest,
    version: i16,
) -> Result<OffsetCommitResponse, String> {
    let mut b = shared.broker()?;
    let group = req.group_id.as_str().to_string();
    let mut partitions = Vec::new();
    for t in &req.topics {
        for p in &t.partitions {
            partitions.push(CommitPartition {
                topic: t.name.as_str().to_string(),
                partition: p.partition_index,
                offset: p.committed_offset,
                leader_epoch: if version >= 6 {
                    p.committed_leader_epoch
                } else {
                    -1
                },
                metadata: p
                    .committed_metadata
                    .as_ref()
                    .map(|m| m.as_str().to_string()),
                topic_id: b.topic(t.name.as_str()).map(|t| t.id),
            });
        }
    }
    let expire =
        (version <= 4 && req.retention_time_ms >= 0).then(|| now_ms() + req.retention_time_ms);
    let fenced = b.groups.is_fenced(
        &group,
        req.group_instance_id.as_ref().map(|i| i.as_str()),
        req.member_id.as_str(),
    );
    let codes = if fenced {
        vec![ResponseError::FencedInstanceId.code(); partitions.len()]
    } else {
        match b.commit_offsets(
            &group,
            req.member_id.as_str(),
            req.generation_id_or_member_epoch,
            &partitions,
            expire,
            version,
        ) {
            Ok(codes) => codes,
            Err(e) => vec![e.code(); partitions.len()],
        }
    };
    let mut codes = codes.into_iter();
    let topics = req
        .topics
        .into_iter()
        .map(|t| {
            let parts = t
                .partitions
                .iter()
                .map(|p| {
                    offset_commit_response::OffsetCommitResponsePartition::default()
                        .with_partition_index(p.partition_index)
                        .with_error_code(codes.next().unwrap_or(0))
                })
                .collect();
            offset_commit_response::OffsetCommitResponseTopic::default()
                .with_name(t.name)
                .with_partitions(parts)
        })
        .collect();
    Ok(OffsetCommitResponse::default().with_topics(topics))
}

type FetchedOffsets = Vec<(String, Vec<(i32, i64, i32, String, i16)>)>;

/// Committed offsets of one group for the requested topics (None = every committed one).
fn group_offsets(
    b: &Broker,
    group: &str,
    topics: Option<Vec<(String, Vec<i32>)>>,
    stable: bool,
) -> FetchedOffsets {
    let topics = topics.unwrap_or_else(|| {
        let mut by_topic: BTreeMap<String, Vec<i32>> = BTreeMap::new();
        for (t, p) in b.groups.committed_partitions(group) {
            by_topic.entry(t).or_default().push(p);
        }
        by_topic.into_iter().collect()
    });
    topics
        .into_iter()
        .map(|(t, ps)| {
            let parts = ps
                .into_iter()
                .map(|p| {
                    let (offset, epoch, meta, code) = b.groups.fetch_offset(group, &t, p, stable);
                    (p, offset, epoch, meta, code)
                })
                .collect();
            (t, parts)
        })
        .collect()
}

fn offset_fetch(
    shared: &Shared,
    req: OffsetFetchRequest,
    version: i16,
) -> Result<OffsetFetchResponse, String> {
    let b = shared.broker()?;
    if version >= 8 {
        let groups = req
            .groups
            .into_iter()
            .map(|g| {
                // v9: a KIP-848 member's fetch names it and its epoch (`validateOffsetFetch`).
                let member = g.member_id.as_ref().map_or("", |m| m.as_str());
                let refused = b
                    .consumer_groups
                    .validate_fetch(g.group_id.as_str(), member, g.member_epoch);
                if let Err(e) = refused {
                    return offset_fetch_response::OffsetFetchResponseGroup::default()
                        .with_group_id(g.group_id)
                        .with_error_code(e.code());
                }
                let topics = g.topics.map(|ts| {
                    ts.into_iter()
                        .map(|t| (t.name.as_str().to_string(), t.partition_indexes))
                        .collect()
                });
                let fetched = group_offsets(&b, g.group_id.as_str(), topics, req.require_stable);
                offset_fetch_response::OffsetFetchResponseGroup::default()
                    .with_group_id(g.group_id)
                    .with_topics(
                        fetched
                            .into_iter()
                            .map(|(t, ps)| {
                                offset_fetch_response::OffsetFetchResponseTopics::default()
                                    .with_name(topic_name(&t))
                                    .with_partitions(
                                        ps.into_iter()
                                            .map(|(p, o, e, m, c)| {
                                                offset_fetch_response::OffsetFetchResponsePartitions::default()
                                                    .with_partition_index(p)
                                                    .with_committed_offset(o)
                                                    .with_committed_leader_epoch(e)
                                                    .with_metadata(Some(s(&m)))
                                                    .with_error_code(c)
                                            })
                                            .collect(),
                                    )
                            })
                            .collect(),
                    )
            })
            .collect();
        return Ok(OffsetFetchResponse::default().with_groups(groups));
    }
    let topics = req.topics.map(|ts| {
        ts.into_iter()
            .map(|t| (t.name.as_str().to_string(), t.partition_indexes))
            .collect()
    });
    let fetched = group_offsets(
        &b,
        req.group_id.as_str(),
        topics,
        version >= 7 && req.require_stable,
    );
    Ok(OffsetFetchResponse::default().with_topics(
        fetched
            .into_iter()
            .map(|(t, ps)| {
                offset_fetch_response::OffsetFetchResponseTopic::default()
                    .with_name(topic_name(&t))
                    .with_partitions(
                        ps.into_iter()
                            .map(|(p, o, e, m, c)| {
                                offset_fetch_response::OffsetFetchResponsePartition::default()
                                    .with_partition_index(p)
                                    .with_committed_offset(o)
                                    .with_committed_leader_epoch(e)
                                    .with_metadata(Some(s(&m)))
                                    .with_error_code(c)
                            })
                            .collect(),
                    )
            })
            .collect(),
    ))
}

fn describe_groups(
    shared: &Shared,
    req: DescribeGroupsRequest,
) -> Result<DescribeGroupsResponse, String> {
    let b = shared.broker()?;
    let groups = req
        .groups
        .into_iter()
        .map(|id| {
            let mut d = describe_groups_response::DescribedGroup::default()
                .with_group_id(id.clone())
                .with_group_state(s("Dead"))
                .with_authorized_operations(if req.include_authorized_operations {
                    GROUP_OPERATIONS
                } else {
                    i32::MIN
                });
            // A KIP-848 group is no classic group: Kafka answers Dead (an error from v6).
            let classic = b
                .groups
                .group(id.as_str())
                .filter(|_| b.consumer_groups.group(id.as_str()).is_none());
            if let Some(g) = classic {
                d.group_state = s(g.state.name());
                d.protocol_type = s(g.protocol_type.as_deref().unwrap_or(""));
                d.protocol_data = s(g.protocol.as_deref().unwrap_or(""));
                d.members = g
                    .members
                    .iter()
                    .map(|m| {
                        let meta = g
                            .protocol
                            .as_ref()
                            .and_then(|p| m.protocols.iter().find(|(n, _)| n == p))
                            .map(|(_, meta)| meta.clone())
                            .unwrap_or_default();
                        describe_groups_response::DescribedGroupMember::default()
                            .with_member_id(s(&m.id))
                            .with_group_instance_id(m.instance_id.as_ref().map(|i| s(i)))
                            .with_client_id(s(&m.client_id))
                            .with_client_host(s(&m.client_host))
                            .with_member_metadata(Bytes::from(meta))
                            .with_member_assignment(Bytes::from(m.assignment.clone()))
                    })
                    .collect();
            }
            d
        })
        .collect();
    Ok(DescribeGroupsResponse::default().with_groups(groups))
}

fn list_groups(shared: &Shared, req: ListGroupsRequest) -> Result<ListGroupsResponse, String> {
    let b = shared.broker()?;
    let listed = |id: &str, protocol_type: &str, state: &str, kind: &str| {
        list_groups_response::ListedGroup::default()
            .with_group_id(GroupId(s(id)))
            .with_protocol_type(s(protocol_type))
            .with_group_state(s(state))
            .with_group_type(s(kind))
    };
    // The classic entries of KIP-848 groups only hold their offsets.
    let mut groups: Vec<_> = b
        .groups
        .groups()
        .filter(|g| b.consumer_groups.group(&g.id).is_none())
        .map(|g| {
            listed(
                &g.id,
                g.protocol_type.as_deref().unwrap_or(""),
                g.state.name(),
                "classic",
            )
        })
        .chain(
            b.consumer_groups
                .groups()
                .map(|g| listed(&g.id, "consumer", g.state(), "consumer")),
        )
        .filter(|g| {
            (req.states_filter.is_empty()
                || req
                    .states_filter
                    .iter()
                    .any(|f| f.eq_ignore_ascii_case(&g.group_state)))
                && (req.types_filter.is_empty()
                    || req
                        .types_filter
                        .iter()
                        .any(|f| f.eq_ignore_ascii_case(&g.group_type)))
        })
        .collect();
    groups.sort_by(|a, b| a.group_id.as_str().cmp(b.group_id.as_str()));
    Ok(ListGroupsResponse::default().with_groups(groups))
}

fn init_producer_id(
    shared: &Shared,
    req: InitProducerIdRequest,
) -> Result<InitProducerIdResponse, String> {
    let mut b = shared.broker()?;
    let resp = InitProducerIdResponse::default()
        .with_producer_id((-1).into())
        .with_producer_epoch(-1);
    // TransactionCoordinator.handleInitProducerId: without a transactional id, always a new
    // producer id at epoch 0; an empty one is INVALID_REQUEST.
    let Some(id) = req
        .transactional_id
        .as_ref()
        .map(|t| t.as_str().to_string())
    else {
        let pid = b.allocate_producer_id();
        return Ok(resp.with_producer_id(pid.into()).with_producer_epoch(0));
    };
    if id.is_empty() {
        return Ok(resp.with_error_code(ResponseError::InvalidRequest.code()));
    }
    match b.init_transactional_producer(&id, req.transaction_timeout_ms) {
        Ok((pid, epoch)) => {
            shared.appended.notify_waiters();
            Ok(resp.with_producer_id(pid.into()).with_producer_epoch(epoch))
        }
        Err(e) => Ok(resp.with_error_code(e.code())),
    }
}

fn add_partitions_to_txn(
    shared: &Shared,
    req: AddPartitionsToTxnRequest,
) -> Result<AddPartitionsToTxnResponse, String> {
    let mut b = shared.broker()?;
    let id = req.v3_and_below_transactional_id.as_str().to_string();
    let mut wanted = Vec::new();
    let mut unknown = false;
    for t in &req.v3_and_below_topics {
        for p in &t.partitions {
            if b.partition(t.name.as_str(), *p).is_err() {
                unknown = true;
            }
            wanted.push((t.name.as_str().to_string(), *p));
        }
    }
    let code = if unknown {
        None
    } else {
        let mut records = Vec::new();
        let r = b.txns.add_partitions(
            &id,
            req.v3_and_below_producer_id.0,
            req.v3_and_below_producer_epoch,
            &wanted,
            now_ms(),
            &mut records,
        );
        Some(
            match r
                .map_err(|e| e.code())
                .and_then(|_| b.write_txn_records(&id, &records).map_err(|e| e.code()))
            {
                Ok(()) => 0,
                Err(c) => c,
            },
        )
    };
    let results = req
        .v3_and_below_topics
        .into_iter()
        .map(|t| {
            let results = t
                .partitions
                .iter()
                .map(|p| {
                    let c = code.unwrap_or_else(|| {
                        if b.partition(t.name.as_str(), *p).is_err() {
                            ResponseError::UnknownTopicOrPartition.code()
                        } else {
                            ResponseError::OperationNotAttempted.code()
                        }
                    });
                    add_partitions_to_txn_response::AddPartitionsToTxnPartitionResult::default()
                        .with_partition_index(*p)
                        .with_partition_error_code(c)
                })
                .collect();
            add_partitions_to_txn_response::AddPartitionsToTxnTopicResult::default()
                .with_name(t.name)
                .with_results_by_partition(results)
        })
        .collect();
    Ok(AddPartitionsToTxnResponse::default().with_results_by_topic_v3_and_below(results))
}

fn add_offsets_to_txn(
    shared: &Shared,
    req: AddOffsetsToTxnRequest,
) -> Result<AddOffsetsToTxnResponse, String> {
    let mut b = shared.broker()?;
    let id = req.transactional_id.as_str().to_string();
    let code = match b.group_partition(req.group_id.as_str()) {
        Err(e) => e.code(),
        Ok(p) => {
            let mut records = Vec::new();
            match b.txns.add_partitions(
                &id,
                req.producer_id.0,
                req.producer_epoch,
                &[(OFFSETS_TOPIC.to_string(), p)],
                now_ms(),
                &mut records,
            ) {
                Err(e) => e.code(),
                Ok(()) => match b.write_txn_records(&id, &records) {
                    Ok(()) => 0,
                    Err(e) => e.code(),
                },
            }
        }
    };
    Ok(AddOffsetsToTxnResponse::default().with_error_code(code))
}

fn txn_offset_commit(
    shared: &Shared,
    req: TxnOffsetCommitRequest,
) -> Result<TxnOffsetCommitResponse, String> {
    let mut b = shared.broker()?;
    let group = req.group_id.as_str().to_string();
    let pid = req.producer_id.0;
    let mut partitions = Vec::new();
    for t in &req.topics {
        for p in &t.partitions {
            partitions.push(CommitPartition {
                topic: t.name.as_str().to_string(),
                partition: p.partition_index,
                offset: p.committed_offset,
                leader_epoch: p.committed_leader_epoch,
                metadata: p
                    .committed_metadata
                    .as_ref()
                    .map(|m| m.as_str().to_string()),
                topic_id: b.topic(t.name.as_str()).map(|t| t.id),
            });
        }
    }
    let code = match b.group_partition(&group) {
        Err(e) => e.code(),
        Ok(p) if !b.txns.includes(pid, req.producer_epoch, OFFSETS_TOPIC, p) => {
            ResponseError::InvalidTxnState.code()
        }
        Ok(p) => {
            let mut records = Vec::new();
            b.groups
                .txn_commit(&group, pid, &partitions, now_ms(), &mut records);
            match b.append_coordinator(OFFSETS_TOPIC, p, &records, Some((pid, req.producer_epoch)))
            {
                Ok(_) => 0,
                Err(e) => e.code(),
            }
        }
    };
    let topics = req
        .topics
        .into_iter()
        .map(|t| {
            let parts = t
                .partitions
                .iter()
                .map(|p| {
                    txn_offset_commit_response::TxnOffsetCommitResponsePartition::default()
                        .with_partition_index(p.partition_index)
                        .with_error_code(code)
                })
                .collect();
            txn_offset_commit_response::TxnOffsetCommitResponseTopic::default()
                .with_name(t.name)
                .with_partitions(parts)
        })
        .collect();
    Ok(TxnOffsetCommitResponse::default().with_topics(topics))
}

fn end_txn(shared: &Shared, req: EndTxnRequest) -> Result<EndTxnResponse, String> {
    let mut b = shared.broker()?;
    let id = req.transactional_id.as_str().to_string();
    let mut records = Vec::new();
    let now = now_ms();
    let code = match b.txns.begin_end(
        &id,
        req.producer_id.0,
        req.producer_epoch,
        req.committed,
        now,
        &mut records,
    ) {
        Err(e) => e.code(),
        Ok(plan) => match b.write_txn_records(&id, &records) {
            Err(e) => e.code(),
            Ok(()) => match plan {
                None => 0,
                Some(plan) => match b.complete_transaction(&plan, now) {
                    Ok(()) => 0,
                    Err(e) => e.code(),
                },
            },
        },
    };
    Ok(EndTxnResponse::default().with_error_code(code))
}
