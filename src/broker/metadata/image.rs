//! The cluster as the replayed metadata records describe it.

use std::collections::BTreeMap;

use super::TOPIC_RESOURCE;
use crate::format::coordinator::{MetadataRecord, StructValue, Value};

/// One partition as the metadata image has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionImage {
    pub leader: i32,
    pub leader_epoch: i32,
    pub partition_epoch: i32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicImage {
    pub id: [u8; 16],
    pub partitions: BTreeMap<i32, PartitionImage>,
}

/// The cluster as the replayed records describe it (Kafka's `MetadataImage`, the parts the
/// mini-broker uses).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetadataImage {
    pub topics: BTreeMap<String, TopicImage>,
    /// Config overrides by resource (type, name): topics by name, brokers by id or `""` (the
    /// cluster default).
    pub configs: BTreeMap<(i8, String), BTreeMap<String, String>>,
    /// Finalized feature levels (level 0 removes a feature).
    pub features: BTreeMap<String, i16>,
    /// The broker epoch of the latest registration (the RegisterBrokerRecord's offset).
    pub broker_epoch: Option<i64>,
    pub fenced: bool,
    /// The end of the last producer id block handed out (ProducerIdsRecord).
    pub next_producer_id: Option<i64>,
    /// The offset of the last record replayed (the finalized features' epoch).
    pub last_offset: i64,
}

fn uuid_of(data: &StructValue<'_>, name: &str) -> Option<[u8; 16]> {
    data.get(name).and_then(Value::as_uuid)
}

fn topic_by_id<'a>(
    topics: &'a mut BTreeMap<String, TopicImage>,
    id: &[u8; 16],
) -> Option<(&'a String, &'a mut TopicImage)> {
    topics.iter_mut().find(|(_, t)| &t.id == id)
}

impl MetadataImage {
    /// Applies one record, as Kafka's image builders replay it.
    pub fn apply(&mut self, node_id: i32, offset: i64, record: &MetadataRecord<'_>) {
        let d = &record.data;
        self.last_offset = offset;
        match record.name {
            "FEATURE_LEVEL_RECORD" => {
                if let (Some(name), Some(level)) = (d.str("name"), d.int("featureLevel")) {
                    if level == 0 {
                        self.features.remove(name.as_ref());
                    } else {
                        self.features.insert(name.into_owned(), level as i16);
                    }
                }
            }
            "TOPIC_RECORD" => {
                if let (Some(name), Some(id)) = (d.str("name"), uuid_of(d, "topicId")) {
                    self.topics.insert(
                        name.into_owned(),
                        TopicImage {
                            id,
                            partitions: BTreeMap::new(),
                        },
                    );
                }
            }
            "PARTITION_RECORD" => {
                let (Some(id), Some(p)) = (uuid_of(d, "topicId"), d.int("partitionId")) else {
                    return;
                };
                if let Some((_, t)) = topic_by_id(&mut self.topics, &id) {
                    t.partitions.insert(
                        p as i32,
                        PartitionImage {
                            leader: d.int("leader").unwrap_or(-1) as i32,
                            leader_epoch: d.int("leaderEpoch").unwrap_or(-1) as i32,
                            partition_epoch: d.int("partitionEpoch").unwrap_or(-1) as i32,
                        },
                    );
                }
            }
            "PARTITION_CHANGE_RECORD" => {
                let (Some(id), Some(p)) = (uuid_of(d, "topicId"), d.int("partitionId")) else {
                    return;
                };
                let Some((_, t)) = topic_by_id(&mut self.topics, &id) else {
                    return;
                };
                let Some(part) = t.partitions.get_mut(&(p as i32)) else {
                    return;
                };
                // PartitionRegistration.merge: a new leader bumps the leader epoch; every change
                // bumps the partition epoch. -2 (the default) leaves the leader as it is.
                let leader = d.int("leader").unwrap_or(-2) as i32;
                if leader != -2 && leader != part.leader {
                    part.leader = leader;
                    part.leader_epoch += 1;
                }
                part.partition_epoch += 1;
            }
            "REMOVE_TOPIC_RECORD" => {
                if let Some(id) = uuid_of(d, "topicId") {
                    let name = topic_by_id(&mut self.topics, &id).map(|(n, _)| n.clone());
                    if let Some(name) = name {
                        self.topics.remove(&name);
                        self.configs.remove(&(TOPIC_RESOURCE, name));
                    }
                }
            }
            "CONFIG_RECORD" => {
                let (Some(kind), Some(resource), Some(name)) =
                    (d.int("resourceType"), d.str("resourceName"), d.str("name"))
                else {
                    return;
                };
                let key = (kind as i8, resource.into_owned());
                match d.str("value") {
                    Some(v) => {
                        self.configs
                            .entry(key)
                            .or_default()
                            .insert(name.into_owned(), v.into_owned());
                    }
                    None => {
                        if let Some(c) = self.configs.get_mut(&key) {
                            c.remove(name.as_ref());
                            if c.is_empty() {
                                self.configs.remove(&key);
                            }
                        }
                    }
                }
            }
            "REGISTER_BROKER_RECORD" if d.int("brokerId") == Some(node_id.into()) => {
                self.broker_epoch = d.int("brokerEpoch");
                self.fenced = !matches!(d.get("fenced"), Some(Value::Bool(false)));
            }
            "BROKER_REGISTRATION_CHANGE_RECORD" if d.int("brokerId") == Some(node_id.into()) => {
                match d.int("fenced") {
                    Some(1) => self.fenced = true,
                    Some(-1) => self.fenced = false,
                    _ => {}
                }
            }
            "PRODUCER_IDS_RECORD" => self.next_producer_id = d.int("nextProducerId"),
            _ => {}
        }
    }

    pub fn topic_configs(&self, topic: &str) -> Option<&BTreeMap<String, String>> {
        self.configs.get(&(TOPIC_RESOURCE, topic.to_string()))
    }
}
