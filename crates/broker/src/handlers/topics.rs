//! CreateTopics, DeleteTopics, CreatePartitions and DeleteRecords.

use kafka_protocol::messages::*;
use kafka_protocol::ResponseError;

use std::collections::{BTreeSet, HashSet};

use super::{coded, str_bytes, topic_name, uuid};
use crate::core::{Broker, NewPartitions, PartitionBudget, MAX_PARTITIONS_PER_REQUEST};
use crate::dispatch::Handled;
use crate::server::Shared;
use crate::{now_ms, BrokerError, BrokerResult};

/// The metadata log's topic (`Topic.CLUSTER_METADATA_TOPIC_NAME`): never a client's to create.
const CLUSTER_METADATA_TOPIC: &str = "__cluster_metadata";

/// DeleteTopics: each topic is removed from the served ones under the broker lock (its
/// RemoveTopicRecord, the group offset tombstones), then its partition dirs are renamed
/// `-delete` and the checkpoints written without it, as Kafka's brokers do when they apply the
/// record (`LogManager.asyncDelete`), not on a request handler's thread.
pub(crate) async fn delete_topics(
    shared: &Shared,
    req: DeleteTopicsRequest,
    version: i16,
) -> Handled<DeleteTopicsResponse> {
    // Admin requests run one at a time: a topic created again under the same name (CreateTopics,
    // auto-creation) makes its dirs only after these are renamed.
    let _admin = shared.admin.lock().await;
    // v6 names topics by name or id; earlier versions by name only.
    let wanted: Vec<(Option<String>, [u8; 16])> = if version >= 6 {
        req.topics
            .iter()
            .map(|t| {
                (
                    t.name.as_ref().map(|n| n.as_str().to_string()),
                    *t.topic_id.as_bytes(),
                )
            })
            .collect()
    } else {
        req.topic_names
            .iter()
            .map(|n| (Some(n.as_str().to_string()), [0; 16]))
            .collect()
    };
    let now = now_ms();
    let mut responses = Vec::new();
    // (answer index, the topic's partitions to rename)
    let mut deleted = Vec::new();
    {
        let mut b = shared.broker()?;
        for (name, id) in wanted {
            let mut r = delete_topics_response::DeletableTopicResult::default();
            let name = match name {
                Some(n) => Some(n),
                None => b.topic_by_id(&id).map(|t| t.name.clone()),
            };
            let Some(name) = name else {
                r.topic_id = uuid(id);
                r.error_code = ResponseError::UnknownTopicId.code();
                r.error_message = Some(str_bytes("This server does not host this topic ID."));
                responses.push(r);
                continue;
            };
            r.name = Some(TopicName(str_bytes(&name)));
            match b.remove_topic(&name, now) {
                Ok((id, partitions)) => {
                    r.topic_id = uuid(id);
                    deleted.push((responses.len(), partitions));
                }
                Err(e) => (r.error_code, r.error_message) = coded(&e),
            }
            responses.push(r);
        }
    }
    if deleted.is_empty() {
        return Ok(DeleteTopicsResponse::default().with_responses(responses));
    }
    let (renamed, failed) = shared
        .off_lock(move || {
            let mut renamed = Vec::new();
            let mut failed = Vec::new();
            for (answer, partitions) in deleted {
                let (dirs, result) = partitions.rename();
                renamed.extend(dirs);
                if let Err(e) = result {
                    failed.push((answer, BrokerError::from(e)));
                }
            }
            (renamed, failed)
        })
        .await?;
    for (answer, e) in &failed {
        let r = &mut responses[*answer];
        (r.error_code, r.error_message) = coded(e);
    }
    let checkpoints = shared.broker()?.finish_topic_deletion(renamed, now);
    if let Err(e) = shared.off_lock(move || checkpoints.write()).await? {
        eprintln!("kseg mini-broker: writing checkpoints failed: {e}");
    }
    Ok(DeleteTopicsResponse::default().with_responses(responses))
}

/// A topic auto-created (Metadata, FindCoordinator) through CreateTopics' path: checked and
/// reserved under the broker lock, its files made without it ([`make_and_publish`]). A topic
/// that exists already is `Ok` at once, without waiting for the admin requests.
pub(crate) async fn auto_create(shared: &Shared, name: &str) -> Handled<BrokerResult<()>> {
    if shared.broker()?.topic(name).is_some() {
        return Ok(Ok(()));
    }
    let _admin = shared.admin.lock().await;
    let plan = {
        let mut b = shared.broker()?;
        if b.topic(name).is_some() {
            return Ok(Ok(()));
        }
        b.prepare_auto_create(name)
    };
    match plan {
        Ok(plan) => make_and_publish(shared, plan).await,
        Err(e) => Ok(Err(e)),
    }
}

/// CreatePartitions as Kafka 4.4's `ControllerApis.createPartitions` and
/// `ReplicationControlManager.createPartitions` answer it: a name asked twice gets one
/// INVALID_REQUEST "Duplicate topic name." (first) and nothing else; more than
/// [`MAX_PARTITIONS_PER_REQUEST`] new partitions over the whole request refuse every topic
/// with POLICY_VIOLATION before anything is made; then each topic on its own.
///
/// The new partitions' files are made outside the broker lock ([`make_and_publish`]).
pub(crate) async fn create_partitions(
    shared: &Shared,
    req: CreatePartitionsRequest,
) -> Handled<CreatePartitionsResponse> {
    let _admin = shared.admin.lock().await;
    let (mut results, topics, too_many) = {
        let b = shared.broker()?;
        let mut seen = HashSet::new();
        let mut duplicated = BTreeSet::new();
        for t in &req.topics {
            if !seen.insert(t.name.as_str()) {
                duplicated.insert(t.name.as_str());
            }
        }
        let results: Vec<_> = duplicated
            .iter()
            .map(|name| {
                create_partitions_response::CreatePartitionsTopicResult::default()
                    .with_name(topic_name(name))
                    .with_error_code(ResponseError::InvalidRequest.code())
                    .with_error_message(Some(str_bytes("Duplicate topic name.")))
            })
            .collect();
        let topics: Vec<_> = req
            .topics
            .iter()
            .filter(|t| !duplicated.contains(t.name.as_str()))
            .collect();
        let added = b.additional_partitions(topics.iter().map(|t| (t.name.as_str(), t.count)));
        let too_many = (added > MAX_PARTITIONS_PER_REQUEST as i64).then(|| {
            BrokerError::new(
                ResponseError::PolicyViolation,
                "Excessively large number of additional partitions per request.",
            )
        });
        (results, topics, too_many)
    };
    for t in topics {
        let mut r = create_partitions_response::CreatePartitionsTopicResult::default()
            .with_name(t.name.clone());
        let assigned_elsewhere = t.assignments.as_ref().is_some_and(|a| {
            a.iter().any(|p| {
                p.broker_ids.iter().any(|id| id.0 != shared.node_id) || p.broker_ids.len() > 1
            })
        });
        let plan = {
            let mut b = shared.broker()?;
            if b.topic(t.name.as_str()).is_none() {
                // UnknownTopicOrPartitionException() carries no message.
                r.error_code = ResponseError::UnknownTopicOrPartition.code();
                results.push(r);
                continue;
            } else if let Some(e) = &too_many {
                Err(BrokerError::new(
                    ResponseError::PolicyViolation,
                    e.to_string(),
                ))
            } else if assigned_elsewhere {
                Err(BrokerError::new(
                    ResponseError::InvalidReplicaAssignment,
                    format!(
                        "a single-node broker places every replica on node {}",
                        shared.node_id
                    ),
                ))
            } else {
                b.prepare_partitions(t.name.as_str(), t.count, req.validate_only)
            }
        };
        let result = match plan {
            Ok(Some(plan)) => make_and_publish(shared, plan).await?,
            Ok(None) => Ok(()),
            Err(e) => Err(e),
        };
        if let Err(e) = result {
            (r.error_code, r.error_message) = coded(&e);
        }
        results.push(r);
    }
    Ok(CreatePartitionsResponse::default().with_results(results))
}

pub(crate) fn delete_records(
    shared: &Shared,
    req: DeleteRecordsRequest,
) -> Handled<DeleteRecordsResponse> {
    let mut b = shared.broker()?;
    let topics = req
        .topics
        .into_iter()
        .map(|t| {
            let partitions = t
                .partitions
                .iter()
                .map(|p| {
                    let mut r = delete_records_response::DeleteRecordsPartitionResult::default()
                        .with_partition_index(p.partition_index)
                        .with_low_watermark(-1);
                    match b.delete_records(t.name.as_str(), p.partition_index, p.offset) {
                        Ok(low) => r.low_watermark = low,
                        Err(e) => r.error_code = e.code(),
                    }
                    r
                })
                .collect();
            delete_records_response::DeleteRecordsTopicResult::default()
                .with_name(t.name)
                .with_partitions(partitions)
        })
        .collect();
    Ok(DeleteRecordsResponse::default().with_topics(topics))
}

/// Each topic is checked and reserved under the broker lock, its partitions' files made outside
/// it, then published under it ([`make_and_publish`]): another connection's requests do not
/// wait for the files.
pub(crate) async fn create_topics(
    shared: &Shared,
    req: CreateTopicsRequest,
) -> Handled<CreateTopicsResponse> {
    let _admin = shared.admin.lock().await;
    let default_partitions = shared.broker()?.config.num_partitions;
    // ControllerApis.createTopics: a name asked twice, and the metadata log's own topic, are
    // answered INVALID_REQUEST after the others, and nothing else is done for them.
    let mut seen = HashSet::new();
    let mut duplicated = BTreeSet::new();
    for t in &req.topics {
        if !seen.insert(t.name.as_str()) {
            duplicated.insert(t.name.as_str().to_string());
        }
    }
    let invalid_request = |name: &str, message: &str| {
        create_topics_response::CreatableTopicResult::default()
            .with_name(topic_name(name))
            .with_error_code(ResponseError::InvalidRequest.code())
            .with_error_message(Some(str_bytes(message)))
            .with_configs(Some(Vec::new()))
    };
    let mut results = Vec::new();
    let mut budget = PartitionBudget::default();
    let mut metadata_topic = false;
    for t in req.topics {
        let name = t.name.as_str().to_string();
        if duplicated.contains(&name) {
            continue;
        }
        if name == CLUSTER_METADATA_TOPIC {
            metadata_topic = true;
            continue;
        }
        let n = if t.num_partitions == -1 {
            default_partitions
        } else {
            t.num_partitions
        };
        let mut r = create_topics_response::CreatableTopicResult::default()
            .with_name(t.name.clone())
            .with_num_partitions(n)
            .with_replication_factor(1)
            .with_error_message(None)
            .with_configs(Some(Vec::new()));
        // A refused topic answers -1 partitions and replicas.
        let refuse = |r: &mut create_topics_response::CreatableTopicResult, e: &BrokerError| {
            (r.error_code, r.error_message) = coded(e);
            r.num_partitions = -1;
            r.replication_factor = -1;
        };
        if let Err(e) = budget.take(n) {
            refuse(&mut r, &e);
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
            let plan = shared.broker()?.prepare_topic_with_configs(
                &name,
                n,
                t.replication_factor,
                &configs,
                req.validate_only,
            );
            let made = match plan {
                Ok(Some(plan)) => make_and_publish(shared, plan).await?,
                Ok(None) => Ok(()),
                Err(e) => Err(e),
            };
            let b = shared.broker()?;
            match made {
                Ok(()) => {
                    if let Some(topic) = b.topic(&name).filter(|_| !req.validate_only) {
                        r.topic_id = uuid(topic.id);
                    }
                    r.configs = Some(created_configs(&b, &name));
                }
                Err(e) => refuse(&mut r, &e),
            }
        }
        results.push(r);
    }
    for name in &duplicated {
        results.push(invalid_request(name, "Duplicate topic name."));
    }
    if metadata_topic {
        results.push(invalid_request(
            CLUSTER_METADATA_TOPIC,
            "Creation of internal topic __cluster_metadata is prohibited.",
        ));
    }
    Ok(CreateTopicsResponse::default().with_topics(results))
}

/// Makes `plan`'s files on a blocking thread, without the broker lock, then publishes them
/// under it (a broker shut down meanwhile: the made dirs go with the plan).
async fn make_and_publish(shared: &Shared, plan: NewPartitions) -> Handled<BrokerResult<()>> {
    let (plan, made) = shared
        .off_lock(move || {
            let made = plan.make();
            (plan, made)
        })
        .await?;
    Ok(shared.broker()?.publish(plan, made))
}

/// The configs a CreateTopics v5+ response lists for a new topic.
fn created_configs(b: &Broker, topic: &str) -> Vec<create_topics_response::CreatableTopicConfigs> {
    super::configs::described_topic(b, topic)
        .into_iter()
        .map(|d| {
            create_topics_response::CreatableTopicConfigs::default()
                .with_name(str_bytes(d.name))
                .with_value(Some(str_bytes(&d.value)))
                .with_config_source(d.source as i8)
        })
        .collect()
}
