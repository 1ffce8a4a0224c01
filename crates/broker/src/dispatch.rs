//! Dispatch: the request header is decoded and checked against [`SUPPORTED`], the body is
//! decoded with `kafka-protocol`'s broker-side messages and handed to its handler
//! ([`super::handlers`]), whose response is framed ([`super::frame::encode`]).

use std::net::SocketAddr;

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::*;
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use kafka_protocol::ResponseError;

use super::frame::{encode, encode_repeated, Repeated};
use super::handlers::{
    cluster, configs, consumer_group, fetch, groups, offsets, produce, topics, txn, txn_admin,
};
use super::server::Shared;

/// The APIs and versions this broker answers, in the order ApiVersions advertises them.
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
    (ApiKey::DeleteTopics, 1, 6),
    (ApiKey::DeleteRecords, 0, 2),
    (ApiKey::DescribeConfigs, 1, 4),
    (ApiKey::AlterConfigs, 0, 2),
    (ApiKey::DescribeLogDirs, 1, 5),
    (ApiKey::CreatePartitions, 0, 3),
    (ApiKey::DeleteGroups, 0, 2),
    (ApiKey::IncrementalAlterConfigs, 0, 1),
    (ApiKey::OffsetDelete, 0, 0),
    (ApiKey::DescribeQuorum, 0, 2),
    (ApiKey::UpdateFeatures, 0, 2),
    (ApiKey::DescribeCluster, 0, 2),
    (ApiKey::DescribeProducers, 0, 0),
    (ApiKey::DescribeTransactions, 0, 0),
    (ApiKey::ListTransactions, 0, 2),
    (ApiKey::ConsumerGroupHeartbeat, 0, 1),
    (ApiKey::ConsumerGroupDescribe, 0, 1),
];

fn supported(key: ApiKey, version: i16) -> bool {
    SUPPORTED
        .iter()
        .any(|(k, lo, hi)| *k == key && (*lo..=*hi).contains(&version))
}

/// Why a request closes its connection (the line logged; the client gets no answer).
#[derive(Debug, thiserror::Error)]
pub(super) enum RequestError {
    #[error("unknown api key {0}")]
    UnknownApiKey(i16),
    #[error("undecodable request header: {0}")]
    Header(anyhow::Error),
    #[error("unsupported {key:?} version {version}")]
    UnsupportedVersion { key: ApiKey, version: i16 },
    #[error("unsupported api {0:?}")]
    UnsupportedApi(ApiKey),
    /// The message types are named after their api key (`ApiKey::Metadata`:
    /// `MetadataRequest`).
    #[error("undecodable {key:?}Request: {source}")]
    Undecodable { key: ApiKey, source: anyhow::Error },
    #[error("encoding the response header: {0}")]
    EncodeHeader(anyhow::Error),
    #[error("encoding a {key:?} v{version} response: {source}")]
    Encode {
        key: ApiKey,
        version: i16,
        source: anyhow::Error,
    },
    #[error("the broker is shutting down")]
    ShuttingDown,
    /// A classic group's join or sync whose answer the coordinator dropped.
    #[error("the group coordinator dropped a {0}")]
    Dropped(&'static str),
}

/// What a handler gives back: its response, or an error that closes the connection (Kafka
/// errors are in the response).
pub(super) type Handled<T> = Result<T, RequestError>;

/// The decoded header of one request: how to decode its body and frame its response.
struct Head {
    key: ApiKey,
    version: i16,
    correlation_id: i32,
}

impl Head {
    fn decode<T: Decodable>(&self, body: &mut Bytes) -> Handled<T> {
        T::decode(body, self.version).map_err(|source| RequestError::Undecodable {
            key: self.key,
            source,
        })
    }

    fn answer<'s, R: Encodable>(&self, response: &R) -> Handled<Option<Reply<'s>>> {
        encode(self.key, self.version, self.correlation_id, response)
            .map(|bytes| Some(Reply::one(bytes, None)))
    }

    /// An answer whose last field is an array of (possibly repeated) encoded elements.
    fn answer_repeated<'s>(&self, answer: Repeated) -> Handled<Option<Reply<'s>>> {
        encode_repeated(self.key, self.version, self.correlation_id, answer).map(Some)
    }
}

/// An encoded answer: its pieces in order (a piece repeated in an answer is one buffer,
/// shared), with the share of the response budget it holds until it is written.
pub(super) struct Reply<'s> {
    pub(super) pieces: Vec<Bytes>,
    pub(super) _budget: Option<tokio::sync::SemaphorePermit<'s>>,
}

impl<'s> Reply<'s> {
    pub(super) fn one(bytes: BytesMut, budget: Option<tokio::sync::SemaphorePermit<'s>>) -> Self {
        Reply {
            pieces: vec![bytes.freeze()],
            _budget: budget,
        }
    }
}

/// Decodes and answers one request; `Ok(None)` means no response (acks=0).
pub(super) async fn request<'s>(
    shared: &'s Shared,
    mut body: Bytes,
    peer: SocketAddr,
) -> Handled<Option<Reply<'s>>> {
    let api_key = i16::from_be_bytes([body[0], body[1]]);
    let version = i16::from_be_bytes([body[2], body[3]]);
    let key = ApiKey::try_from(api_key).map_err(|_| RequestError::UnknownApiKey(api_key))?;
    let header = RequestHeader::decode(&mut body, key.request_header_version(version))
        .map_err(RequestError::Header)?;
    let cid = header.correlation_id;
    if shared.debug {
        // The client id is the client's bytes: one line, escaped.
        let client = header.client_id.as_ref().map_or("", |c| c.as_str());
        eprintln!(
            "kseg mini-broker: {peer}: {key:?} v{version} correlation {cid} client id \"{}\"",
            kseg_escape::escaped(client)
        );
    }
    if key == ApiKey::ApiVersions && !supported(key, version) {
        // Kafka answers an unknown ApiVersions version with v0 and the versions it supports,
        // so the client can retry with one of them.
        let resp = api_versions_response(ResponseError::UnsupportedVersion.code());
        return encode(key, 0, cid, &resp).map(|bytes| Some(Reply::one(bytes, None)));
    }
    if !supported(key, version) {
        return Err(RequestError::UnsupportedVersion { key, version });
    }
    let client_id = header
        .client_id
        .as_ref()
        .map(|c| c.as_str().to_string())
        .unwrap_or_default();
    let h = Head {
        key,
        version,
        correlation_id: cid,
    };
    let b = &mut body;
    match key {
        ApiKey::ApiVersions => {
            let _: ApiVersionsRequest = h.decode(b)?;
            // No broker state but the features: answered without the broker lock.
            let features = shared
                .features
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            if features.closed {
                return Err(RequestError::ShuttingDown);
            }
            let resp = with_features(api_versions_response(0), &features, version);
            h.answer(&resp)
        }
        ApiKey::Metadata => h.answer(&cluster::metadata(shared, h.decode(b)?, version).await?),
        ApiKey::DescribeCluster => h.answer(&cluster::describe_cluster(shared, h.decode(b)?)),
        ApiKey::UpdateFeatures => {
            h.answer(&cluster::update_features(shared, h.decode(b)?, version)?)
        }
        ApiKey::DescribeLogDirs => h.answer(&cluster::describe_log_dirs(shared, h.decode(b)?)?),
        ApiKey::DescribeQuorum => {
            h.answer(&cluster::describe_quorum(shared, h.decode(b)?, version)?)
        }
        ApiKey::FindCoordinator => {
            h.answer(&cluster::find_coordinator(shared, h.decode(b)?, version).await?)
        }
        ApiKey::CreateTopics => h.answer(&topics::create_topics(shared, h.decode(b)?).await?),
        ApiKey::DeleteTopics => {
            h.answer(&topics::delete_topics(shared, h.decode(b)?, version).await?)
        }
        ApiKey::CreatePartitions => {
            h.answer(&topics::create_partitions(shared, h.decode(b)?).await?)
        }
        ApiKey::DeleteRecords => h.answer(&topics::delete_records(shared, h.decode(b)?)?),
        ApiKey::DescribeConfigs => {
            h.answer_repeated(configs::describe_configs(shared, h.decode(b)?, version)?)
        }
        ApiKey::AlterConfigs => h.answer(&configs::alter_configs(shared, h.decode(b)?)?),
        ApiKey::IncrementalAlterConfigs => {
            h.answer(&configs::incremental_alter_configs(shared, h.decode(b)?)?)
        }
        ApiKey::Produce => {
            let req: ProduceRequest = h.decode(b)?;
            let acks = req.acks;
            let resp = produce::produce(shared, req)?;
            if acks == 0 {
                return Ok(None);
            }
            h.answer(&resp)
        }
        ApiKey::Fetch => {
            let (resp, budget) = fetch::fetch(shared, h.decode(b)?, version).await?;
            Ok(Some(Reply::one(encode(key, version, cid, &resp)?, budget)))
        }
        ApiKey::ListOffsets => h.answer(&fetch::list_offsets(shared, h.decode(b)?, version)?),
        ApiKey::OffsetForLeaderEpoch => {
            h.answer(&fetch::offset_for_leader_epoch(shared, h.decode(b)?)?)
        }
        ApiKey::JoinGroup => {
            let req = h.decode(b)?;
            h.answer(&groups::join_group(shared, req, version, client_id, peer).await?)
        }
        ApiKey::SyncGroup => h.answer(&groups::sync_group(shared, h.decode(b)?).await?),
        ApiKey::Heartbeat => h.answer(&groups::heartbeat(shared, h.decode(b)?)?),
        ApiKey::LeaveGroup => h.answer(&groups::leave_group(shared, h.decode(b)?, version)?),
        ApiKey::DescribeGroups => h.answer(&groups::describe_groups(shared, h.decode(b)?)?),
        ApiKey::ListGroups => h.answer(&groups::list_groups(shared, h.decode(b)?)?),
        ApiKey::DeleteGroups => h.answer(&groups::delete_groups(shared, h.decode(b)?)?),
        ApiKey::OffsetCommit => h.answer(&offsets::offset_commit(shared, h.decode(b)?, version)?),
        ApiKey::OffsetFetch => match offsets::offset_fetch(shared, h.decode(b)?, version)? {
            Ok(resp) => h.answer(&resp),
            Err(groups) => h.answer_repeated(groups),
        },
        ApiKey::OffsetDelete => h.answer(&offsets::offset_delete(shared, h.decode(b)?)?),
        ApiKey::ConsumerGroupHeartbeat => {
            let req = h.decode(b)?;
            h.answer(&consumer_group::heartbeat(
                shared, req, version, client_id, peer,
            )?)
        }
        ApiKey::ConsumerGroupDescribe => h.answer(&consumer_group::describe(shared, h.decode(b)?)?),
        ApiKey::InitProducerId => h.answer(&txn::init_producer_id(shared, h.decode(b)?, version)?),
        ApiKey::AddPartitionsToTxn => {
            h.answer(&txn::add_partitions_to_txn(shared, h.decode(b)?, version)?)
        }
        ApiKey::AddOffsetsToTxn => {
            h.answer(&txn::add_offsets_to_txn(shared, h.decode(b)?, version)?)
        }
        ApiKey::TxnOffsetCommit => h.answer(&txn::txn_offset_commit(shared, h.decode(b)?)?),
        ApiKey::DescribeProducers => h.answer_repeated(txn_admin::describe_producers(
            shared,
            h.decode(b)?,
            version,
        )?),
        ApiKey::DescribeTransactions => h.answer_repeated(txn_admin::describe_transactions(
            shared,
            h.decode(b)?,
            version,
        )?),
        ApiKey::ListTransactions => h.answer(&txn_admin::list_transactions(shared, h.decode(b)?)?),
        ApiKey::EndTxn => h.answer(&txn::end_txn(shared, h.decode(b)?, version)?),
        other => Err(RequestError::UnsupportedApi(other)),
    }
}

fn api_versions_response(error_code: i16) -> ApiVersionsResponse {
    ApiVersionsResponse::default()
        .with_error_code(error_code)
        .with_api_keys(
            SUPPORTED
                .iter()
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

/// The features of an ApiVersions v3+ response (`ApiVersionsResponse.Builder`): the supported
/// ranges (below v4 without those whose minimum is 0, KAFKA-17492), the finalized levels from
/// the metadata log (level 0 left out) and their epoch.
fn with_features(
    resp: ApiVersionsResponse,
    published: &crate::metadata::PublishedFeatures,
    version: i16,
) -> ApiVersionsResponse {
    use crate::metadata::supported_features;
    resp.with_supported_features(
        supported_features()
            .filter(|f| version >= 4 || f.min != 0)
            .map(|f| {
                api_versions_response::SupportedFeatureKey::default()
                    .with_name(StrBytes::from_static_str(f.name))
                    .with_min_version(f.min)
                    .with_max_version(f.max)
            })
            .collect(),
    )
    .with_finalized_features_epoch(published.epoch)
    .with_finalized_features(
        published
            .features
            .iter()
            .filter(|(_, level)| *level != 0)
            .map(|(name, level)| {
                api_versions_response::FinalizedFeatureKey::default()
                    .with_name(StrBytes::from_string(name.clone()))
                    .with_min_version_level(*level)
                    .with_max_version_level(*level)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Broker, BrokerConfig};

    /// A request without its length prefix: api key, version, correlation id 7, a null client
    /// id (request header v1), then `body`.
    fn request_bytes(api_key: i16, version: i16, body: &[u8]) -> Bytes {
        let mut b = Vec::new();
        b.extend_from_slice(&api_key.to_be_bytes());
        b.extend_from_slice(&version.to_be_bytes());
        b.extend_from_slice(&7i32.to_be_bytes());
        b.extend_from_slice(&(-1i16).to_be_bytes());
        b.extend_from_slice(body);
        Bytes::from(b)
    }

    fn answer(shared: &Shared, frame: Bytes) -> Handled<Option<BytesMut>> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(request(shared, frame, "127.0.0.1:1".parse().unwrap()))
            .map(|r| r.map(|r| BytesMut::from(&r.pieces.concat()[..])))
    }

    /// The errors that close a connection are logged with the text they had when they were
    /// strings (the fuzz runs and FUZZING.md quote them).
    #[test]
    fn connection_errors_keep_their_text() {
        let dir = tempfile::tempdir().unwrap();
        let (broker, _) = Broker::open(BrokerConfig::new(dir.path().join("data"))).unwrap();
        let shared = Shared::new(broker, "127.0.0.1".into(), 9092, false);
        let text = |frame| answer(&shared, frame).expect_err("refused").to_string();
        assert_eq!(text(request_bytes(999, 0, &[])), "unknown api key 999");
        // (v99 has a flexible header: its tagged fields, none, end it.)
        assert_eq!(
            text(request_bytes(3, 99, &[0])),
            "unsupported Metadata version 99"
        );
        // Metadata v1: an array length cut short.
        let e = text(request_bytes(3, 1, &[0, 0]));
        assert!(e.starts_with("undecodable MetadataRequest: "), "{e}");
        let e = text(Bytes::from_static(&[0, 18, 0, 0, 0]));
        assert!(e.starts_with("undecodable request header: "), "{e}");
        assert_eq!(
            RequestError::Dropped("join").to_string(),
            "the group coordinator dropped a join"
        );
        // ApiVersions v0 is answered: the frame length, then correlation id 7.
        let out = answer(&shared, request_bytes(18, 0, &[])).unwrap().unwrap();
        assert_eq!(&out[4..8], &7i32.to_be_bytes());
        shared.broker().unwrap().shutdown().unwrap();
        assert_eq!(
            text(request_bytes(3, 1, &(-1i32).to_be_bytes())),
            "the broker is shutting down"
        );
    }
}
