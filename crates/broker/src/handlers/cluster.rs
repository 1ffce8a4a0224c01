//! What the cluster is and where things are: Metadata, FindCoordinator, DescribeCluster
//! (`KafkaApis.handleDescribeCluster` of a broker), DescribeLogDirs and DescribeQuorum.

use kafka_protocol::messages::*;
use kafka_protocol::ResponseError;

use super::{
    coded, str_bytes, topic_name, uuid, CLUSTER_OPERATIONS, INVALID_REQUEST_MESSAGE,
    TOPIC_OPERATIONS,
};
use crate::core::{OFFSETS_TOPIC, TRANSACTION_TOPIC};
use crate::dispatch::Handled;
use crate::metadata::METADATA_TOPIC;
use crate::server::Shared;
use crate::BrokerError;

/// `EndpointType.BROKER`.
const BROKER_ENDPOINT: i8 = 1;

pub(crate) fn describe_cluster(
    shared: &Shared,
    req: DescribeClusterRequest,
) -> DescribeClusterResponse {
    let resp = DescribeClusterResponse::default()
        .with_endpoint_type(BROKER_ENDPOINT)
        .with_cluster_id(str_bytes(&shared.cluster_id))
        .with_cluster_authorized_operations(i32::MIN);
    // v1+: a broker answers for broker endpoints only.
    if req.endpoint_type != BROKER_ENDPOINT {
        return resp
            .with_error_code(ResponseError::MismatchedEndpointType.code())
            .with_error_message(Some(str_bytes(&format!(
                "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type {}",
                if req.endpoint_type == 2 { "CONTROLLER" } else { "UNKNOWN" }
            ))));
    }
    resp.with_controller_id(shared.node_id.into())
        .with_brokers(vec![
            describe_cluster_response::DescribeClusterBroker::default()
                .with_broker_id(shared.node_id.into())
                .with_host(str_bytes(&shared.host))
                .with_port(shared.port),
        ])
        .with_cluster_authorized_operations(if req.include_cluster_authorized_operations {
            CLUSTER_OPERATIONS
        } else {
            i32::MIN
        })
}

/// Metadata. Topics to auto-create are made first, each through CreateTopics' path (its files
/// outside the broker lock); the answer is then built under the lock.
pub(crate) async fn metadata(
    shared: &Shared,
    req: MetadataRequest,
    version: i16,
) -> Handled<MetadataResponse> {
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
    let all_topics = requested.is_none();
    let mut topics = Vec::new();
    let (names, to_create) = {
        let b = shared.broker()?;
        let names: Vec<(Option<String>, [u8; 16])> = match requested {
            None => b.topics().map(|t| (Some(t.name.clone()), t.id)).collect(),
            // KafkaApis.handleTopicMetadataRequest asks for a set of topics: a topic named (or
            // an id given) many times is answered once.
            Some(r) => {
                let mut seen = std::collections::HashSet::new();
                r.into_iter().filter(|t| seen.insert(t.clone())).collect()
            }
        };
        // AutoTopicCreationManager creates an internal topic too (with its coordinator's
        // partitions and configs), when auto.create.topics.enable allows it.
        let creatable = |name: &str| {
            let internal = name == OFFSETS_TOPIC || name == TRANSACTION_TOPIC;
            auto_create && (!internal || b.config.auto_create_topics) && b.topic(name).is_none()
        };
        let to_create: Vec<String> = names
            .iter()
            .filter_map(|(name, _)| name.clone())
            .filter(|name| creatable(name))
            .collect();
        (names, to_create)
    };
    let mut created: std::collections::HashMap<String, crate::BrokerResult<()>> =
        std::collections::HashMap::new();
    for name in to_create {
        let result = super::topics::auto_create(shared, &name).await?;
        created.insert(name, result);
    }
    let b = shared.broker()?;
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
        // All topics were listed under the lock taken before: one deleted since is left out.
        if all_topics && b.topic(&name).is_none() {
            continue;
        }
        let internal = name == OFFSETS_TOPIC || name == TRANSACTION_TOPIC;
        let found = if b.topic(&name).is_some() {
            Ok(())
        } else if let Some(Err(e)) = created.remove(&name) {
            Err(e)
        } else if let Err(e) = crate::core::validate_topic_name(&name) {
            // KafkaApis.getTopicMetadata: an illegal name, auto-creation or not.
            Err(e)
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
            .with_host(str_bytes(&shared.host))
            .with_port(shared.port)])
        .with_cluster_id(Some(str_bytes(&shared.cluster_id)))
        .with_controller_id(shared.node_id.into())
        .with_cluster_authorized_operations(if req.include_cluster_authorized_operations {
            CLUSTER_OPERATIONS
        } else {
            i32::MIN
        })
        .with_topics(topics))
}

/// FindCoordinator. The coordinator's topic, when it does not exist yet, is created first
/// through CreateTopics' path (its files outside the broker lock), as Kafka's
/// `AutoTopicCreationManager` does it for this request.
pub(crate) async fn find_coordinator(
    shared: &Shared,
    req: FindCoordinatorRequest,
    version: i16,
) -> Handled<FindCoordinatorResponse> {
    let keys: Vec<String> = if version >= 4 {
        req.coordinator_keys
            .iter()
            .map(|k| k.as_str().to_string())
            .collect()
    } else {
        vec![req.key.as_str().to_string()]
    };
    let internal_topic = match req.key_type {
        0 => Some(OFFSETS_TOPIC),
        1 => Some(TRANSACTION_TOPIC),
        _ => None,
    };
    // Its error, when the topic could not be made: every key answers it.
    let not_made = match internal_topic.filter(|_| !keys.is_empty()) {
        Some(topic) => super::topics::auto_create(shared, topic)
            .await?
            .err()
            .map(|e| (e.code(), e.to_string())),
        None => None,
    };
    let mut b = shared.broker()?;
    let mut answers = Vec::new();
    for key in keys {
        let result = match (req.key_type, &not_made) {
            (0 | 1, Some((code, message))) => Err(BrokerError::Kafka {
                code: *code,
                message: message.clone(),
            }),
            (0, None) => b.group_partition(&key).map(|_| ()),
            (1, None) => b.transaction_partition(&key).map(|_| ()),
            // CoordinatorType.forId throws: FindCoordinatorRequest.getErrorResponse answers
            // the error's default message.
            _ => Err(BrokerError::new(
                ResponseError::InvalidRequest,
                INVALID_REQUEST_MESSAGE,
            )),
        };
        let mut c = find_coordinator_response::Coordinator::default()
            .with_key(str_bytes(&key))
            .with_node_id(shared.node_id.into())
            .with_host(str_bytes(&shared.host))
            .with_port(shared.port);
        if let Err(e) = result {
            (c.error_code, c.error_message) = coded(&e);
            c.node_id = (-1).into();
            c.host = str_bytes("");
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

/// UpdateFeatures (`QuorumController.updateFeatures`): all updates or none; a refusal is the
/// top-level error with Kafka's prefix; per-feature results only below v2.
pub(crate) fn update_features(
    shared: &Shared,
    req: UpdateFeaturesRequest,
    version: i16,
) -> Handled<UpdateFeaturesResponse> {
    let b = shared.broker()?;
    let updates: Vec<(String, i16, i8)> = req
        .feature_updates
        .iter()
        .map(|u| {
            // v0: allow_downgrade means SAFE_DOWNGRADE (2), else UPGRADE (1).
            let kind = if version == 0 {
                if u.allow_downgrade {
                    2
                } else {
                    1
                }
            } else {
                u.upgrade_type
            };
            (u.feature.as_str().to_string(), u.max_version_level, kind)
        })
        .collect();
    let resp = UpdateFeaturesResponse::default();
    Ok(match b.metadata.update_features(&updates) {
        Err(e) => resp
            .with_error_code(e.code())
            .with_error_message(Some(str_bytes(&format!(
                "The update failed for all features since the following feature had an error: {e}"
            )))),
        Ok(()) if version <= 1 => resp.with_results(
            req.feature_updates
                .iter()
                .map(|u| {
                    update_features_response::UpdatableFeatureResult::default()
                        .with_feature(u.feature.clone())
                })
                .collect(),
        ),
        Ok(()) => resp,
    })
}

/// DescribeLogDirs (`ReplicaManager.describeLogDirs`): the one log dir, by its absolute path,
/// with each partition's size (its segments' bytes), offset lag (the high watermark less the
/// log end offset, 0 for a single replica) and the volume's total and usable bytes. Null topics
/// mean every partition; named partitions that do not exist are left out, and so are topics
/// with none left.
pub(crate) fn describe_log_dirs(
    shared: &Shared,
    req: DescribeLogDirsRequest,
) -> Handled<DescribeLogDirsResponse> {
    let b = shared.broker()?;
    let dir = &b.config.log_dir;
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
    let mut result = describe_log_dirs_response::DescribeLogDirsResult::default()
        .with_log_dir(str_bytes(&absolute.to_string_lossy()));
    let wanted: Option<std::collections::HashSet<(&str, i32)>> = req.topics.as_ref().map(|t| {
        t.iter()
            .flat_map(|t| t.partitions.iter().map(|p| (t.topic.as_str(), *p)))
            .collect()
    });
    match crate::core::volume_space(&absolute) {
        Err(_) => {
            result.error_code = ResponseError::KafkaStorageError.code();
            return Ok(DescribeLogDirsResponse::default().with_results(vec![result]));
        }
        Ok((total, usable)) => {
            result.total_bytes = total;
            result.usable_bytes = usable;
        }
    }
    for topic in b.topics() {
        let partitions: Vec<_> = topic
            .partitions
            .iter()
            .filter(|p| {
                wanted
                    .as_ref()
                    .is_none_or(|w| w.contains(&(topic.name.as_str(), p.partition)))
            })
            .map(|p| {
                describe_log_dirs_response::DescribeLogDirsPartition::default()
                    .with_partition_index(p.partition)
                    .with_partition_size(p.size_in_bytes() as i64)
                    .with_offset_lag((p.high_watermark() - p.log_end_offset()).max(0))
            })
            .collect();
        if !partitions.is_empty() {
            result.topics.push(
                describe_log_dirs_response::DescribeLogDirsTopic::default()
                    .with_name(topic_name(&topic.name))
                    .with_partitions(partitions),
            );
        }
    }
    Ok(DescribeLogDirsResponse::default().with_results(vec![result]))
}

/// DescribeQuorum (`KafkaRaftClient.handleDescribeQuorumRequest`, forwarded to the controller by
/// a broker): exactly `__cluster_metadata-0` may be asked, else UNKNOWN_TOPIC_OR_PARTITION for
/// each partition asked. The mini-broker is the quorum's single voter and leader: its epoch is the
/// raft epoch this run leads and its log end offset and high watermark the end of the metadata
/// log it writes (`__cluster_metadata-0`, [`crate::metadata`]), its fetch and
/// caught-up times now, its directory id the zero uuid (a static voter, as a quorum configured
/// by `controller.quorum.voters` reports it), and no observers. v2 lists the voter's endpoint
/// (`CONTROLLER`: the mini-broker's one listener).
pub(crate) fn describe_quorum(
    shared: &Shared,
    req: DescribeQuorumRequest,
    version: i16,
) -> Handled<DescribeQuorumResponse> {
    let asked_metadata = req.topics.len() == 1
        && req.topics[0].topic_name.as_str() == METADATA_TOPIC
        && req.topics[0].partitions.len() == 1
        && req.topics[0].partitions[0].partition_index == 0;
    if !asked_metadata {
        let error = ResponseError::UnknownTopicOrPartition;
        let topics = req
            .topics
            .into_iter()
            .map(|t| {
                let partitions = t
                    .partitions
                    .iter()
                    .map(|p| {
                        describe_quorum_response::PartitionData::default()
                            .with_partition_index(p.partition_index)
                            .with_error_code(error.code())
                            .with_error_message(Some(str_bytes(UNKNOWN_TOPIC_MESSAGE)))
                    })
                    .collect();
                describe_quorum_response::TopicData::default()
                    .with_topic_name(t.topic_name)
                    .with_partitions(partitions)
            })
            .collect();
        return Ok(DescribeQuorumResponse::default().with_topics(topics));
    }
    // The metadata log this broker writes and leads: each append is a batch written before the
    // request that made it is answered, so the single voter's high watermark is its log end.
    let (leader_epoch, end_offset) = {
        let b = shared.broker()?;
        (b.metadata.raft_epoch, b.metadata.log_end_offset())
    };
    let now = crate::now_ms();
    let voter = describe_quorum_response::ReplicaState::default()
        .with_replica_id(shared.node_id.into())
        .with_log_end_offset(end_offset)
        .with_last_fetch_timestamp(now)
        .with_last_caught_up_timestamp(now);
    let partition = describe_quorum_response::PartitionData::default()
        .with_leader_id(shared.node_id.into())
        .with_leader_epoch(leader_epoch)
        .with_high_watermark(end_offset)
        .with_current_voters(vec![voter]);
    let resp = DescribeQuorumResponse::default().with_topics(vec![
        describe_quorum_response::TopicData::default()
            .with_topic_name(topic_name(METADATA_TOPIC))
            .with_partitions(vec![partition]),
    ]);
    if version < 2 {
        return Ok(resp);
    }
    Ok(
        resp.with_nodes(vec![describe_quorum_response::Node::default()
            .with_node_id(shared.node_id.into())
            .with_listeners(vec![describe_quorum_response::Listener::default()
                .with_name(str_bytes("CONTROLLER"))
                .with_host(str_bytes(&shared.host))
                .with_port(shared.port as u16)])]),
    )
}

/// `Errors.UNKNOWN_TOPIC_OR_PARTITION.message()`.
const UNKNOWN_TOPIC_MESSAGE: &str = "This server does not host this topic-partition.";
