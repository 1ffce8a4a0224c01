//! Kafka's framing: a 4-byte big-endian length, then the request (header and body) or the
//! response (header and body).
//!
//! Untrusted input rules: a frame shorter than a request header (8 bytes), a Produce frame
//! longer than `socket.request.max.bytes` (100 MiB) or any other frame longer than 1 MiB closes
//! the connection before anything is decoded (decoding small-element arrays grows memory by two
//! orders of magnitude over the wire size, so only Produce, whose bulk is record bytes, gets the
//! large cap); frames being read, decoded and handled at once share a budget (like Kafka's
//! `queued.max.request.bytes`, weighted by how much decoding can amplify them), so many
//! connections cannot multiply that memory; the
//! header's api key and version are checked by hand before the generated decoders run (which
//! are vendored with a clamp on array capacities, see `vendor/kafka-protocol/PATCHED.md`).

use std::net::SocketAddr;
use std::time::Duration;

use bytes::{BufMut, BytesMut};
use kafka_protocol::messages::{ApiKey, ResponseHeader};
use kafka_protocol::protocol::Encodable;
use tokio::io::AsyncReadExt;

use super::dispatch::RequestError;
use super::server::Shared;

/// Kafka's `socket.request.max.bytes`: the cap for Produce frames.
pub const MAX_FRAME: i32 = 100 * 1024 * 1024;

/// The cap for frames of every other API.
pub const MAX_OTHER_FRAME: i32 = 1024 * 1024;

/// The budget of request memory in flight at once (`queued.max.request.bytes`), counted with
/// [`request_cost`]; each piece of a frame's body waits for its share as it arrives.
pub const REQUEST_BUDGET: usize = 256 * 1024 * 1024;

/// The budget of fetched records in answers not yet written (Kafka sends them from the files;
/// the mini-broker holds them in memory until the peer reads them).
pub const RESPONSE_BUDGET: usize = 256 * 1024 * 1024;

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

/// api key, api version and correlation id: the smallest request header.
pub const MIN_FRAME: i32 = 8;

/// Reads the next frame of a connection (its api key first: the cap depends on the api),
/// holding its share of [`REQUEST_BUDGET`] until the permit is dropped. `None`: the peer went
/// away, or sent a frame that closes the connection (logged).
pub(super) async fn read<'s, R: tokio::io::AsyncRead + Unpin>(
    shared: &'s Shared,
    rd: &mut R,
    peer: SocketAddr,
) -> Option<(Vec<u8>, tokio::sync::SemaphorePermit<'s>)> {
    let mut len = [0u8; 4];
    if rd.read_exact(&mut len).await.is_err() {
        return None;
    }
    let n = i32::from_be_bytes(len);
    if !(MIN_FRAME..=MAX_FRAME).contains(&n) {
        eprintln!("kseg mini-broker: {peer}: frame length {n} is outside [{MIN_FRAME}, {MAX_FRAME}]: closing the connection");
        return None;
    }
    // The api key and version come first: the cap depends on the api.
    let mut frame = vec![0u8; 4];
    if rd.read_exact(&mut frame).await.is_err() {
        return None;
    }
    let api_key = i16::from_be_bytes([frame[0], frame[1]]);
    let cap = max_frame(api_key);
    if n > cap {
        eprintln!("kseg mini-broker: {peer}: frame length {n} for api key {api_key} is over its cap {cap}: closing the connection");
        return None;
    }
    // A peer that stops sending mid-frame must not hold its share of the budget forever.
    let body = read_body(shared, rd, &mut frame, api_key, n);
    match tokio::time::timeout(FRAME_READ_TIMEOUT, body).await {
        Ok(Some(permit)) => Some((frame, permit)),
        Ok(None) => None,
        Err(_) => {
            eprintln!("kseg mini-broker: {peer}: a {n}-byte frame did not arrive within {FRAME_READ_TIMEOUT:?}: closing the connection");
            None
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

/// A response frame: length, header (of `key`'s header version) and `response`.
pub(super) fn encode<R: Encodable>(
    key: ApiKey,
    version: i16,
    correlation_id: i32,
    response: &R,
) -> Result<BytesMut, RequestError> {
    let mut buf = BytesMut::with_capacity(256);
    buf.put_i32(0);
    ResponseHeader::default()
        .with_correlation_id(correlation_id)
        .encode(&mut buf, key.response_header_version(version))
        .map_err(RequestError::EncodeHeader)?;
    response
        .encode(&mut buf, version)
        .map_err(|source| RequestError::Encode {
            key,
            version,
            source,
        })?;
    let len = (buf.len() - 4) as i32;
    buf[0..4].copy_from_slice(&len.to_be_bytes());
    Ok(buf)
}

/// An answer whose fields are the throttle time and then one array, as OffsetFetch v8+,
/// DescribeConfigs, DescribeProducers and DescribeTransactions are: its `count` elements as
/// encoded pieces, in answer order (a request that names the same thing many times gets the
/// same encoded piece many times, built once: the `Bytes` are shared). An element is one piece,
/// or several where it holds an array of its own whose elements repeat (DescribeProducers'
/// partitions within a topic).
pub(super) struct Repeated {
    pub(super) flexible: bool,
    pub(super) count: usize,
    pub(super) elements: Vec<bytes::Bytes>,
}

impl Repeated {
    /// An answer of one piece per element.
    pub(super) fn of(flexible: bool, elements: Vec<bytes::Bytes>) -> Self {
        Repeated {
            flexible,
            count: elements.len(),
            elements,
        }
    }

    /// Encodes `element` at `version`, or repeats the bytes of an equal `key` seen before.
    pub(super) fn element<K, E>(
        cache: &mut std::collections::HashMap<K, bytes::Bytes>,
        key: K,
        version: i16,
        make: impl FnOnce() -> E,
    ) -> anyhow::Result<bytes::Bytes>
    where
        K: std::hash::Hash + Eq,
        E: Encodable,
    {
        if let Some(b) = cache.get(&key) {
            return Ok(b.clone());
        }
        let mut buf = BytesMut::new();
        make().encode(&mut buf, version)?;
        let b = buf.freeze();
        cache.insert(key, b.clone());
        Ok(b)
    }
}

/// Kafka's unsigned varint (`ByteUtils.writeUnsignedVarint`): a compact array's or string's
/// length plus one.
pub(super) fn put_unsigned_varint(buf: &mut BytesMut, mut v: u64) {
    while v >= 0x80 {
        buf.put_u8((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    buf.put_u8(v as u8);
}

/// A [`Repeated`] answer's frame: length, header, throttle time 0, the array's length, its
/// elements (pieces shared between repeats), the (empty) tagged fields of a flexible version.
pub(super) fn encode_repeated<'s>(
    key: ApiKey,
    version: i16,
    correlation_id: i32,
    answer: Repeated,
) -> Result<super::dispatch::Reply<'s>, RequestError> {
    let mut head = BytesMut::with_capacity(32);
    head.put_i32(0);
    ResponseHeader::default()
        .with_correlation_id(correlation_id)
        .encode(&mut head, key.response_header_version(version))
        .map_err(RequestError::EncodeHeader)?;
    head.put_i32(0); // throttle_time_ms
    let n = answer.count;
    if answer.flexible {
        put_unsigned_varint(&mut head, n as u64 + 1);
    } else {
        head.put_i32(n as i32);
    }
    let tail: &[u8] = if answer.flexible { &[0] } else { &[] };
    let total =
        (head.len() - 4) + answer.elements.iter().map(|e| e.len()).sum::<usize>() + tail.len();
    let Ok(total) = i32::try_from(total) else {
        return Err(RequestError::Encode {
            key,
            version,
            source: anyhow::anyhow!("the answer would be {total} bytes, over a frame's 2 GiB"),
        });
    };
    head[0..4].copy_from_slice(&total.to_be_bytes());
    let mut pieces = Vec::with_capacity(answer.elements.len() + 2);
    pieces.push(head.freeze());
    pieces.extend(answer.elements);
    if !tail.is_empty() {
        pieces.push(bytes::Bytes::from_static(&[0]));
    }
    Ok(super::dispatch::Reply {
        pieces,
        _budget: None,
    })
}
