//! The features (KIP-584) the mini-broker supports and finalizes, and UpdateFeatures.

use kafka_protocol::ResponseError;

use super::ClusterMetadata;
use crate::BrokerError;

/// One feature: its name, the level a fresh mini-broker dir finalizes, and the range Kafka
/// 4.4.0 supports (`ApiVersions`' supported features, RegisterBrokerRecord's features).
pub struct Feature {
    pub name: &'static str,
    pub level: i16,
    pub min: i16,
    pub max: i16,
}

/// The features of Kafka 4.4.0 (`Feature.PRODUCTION_FEATURES` and `metadata.version`) with its
/// supported ranges, in the order `kafka-storage format` writes them, finalized at the levels of
/// what the mini-broker implements — as `kafka-storage format --feature transaction.version=1
/// --feature share.version=0 --feature streams.version=0` leaves a Kafka dir: metadata.version
/// 4.4-IV2 (33), eligible.leader.replicas.version 1 and group.version 1 (KIP-848 consumer
/// groups) as Kafka's default; transaction.version 1, not 2 (KIP-890's per-transaction epoch
/// bump is not implemented, and a client seeing level 2 would rely on it); share.version and
/// streams.version 0 (no share or streams groups). kraft.version is the quorum's (0: static
/// voters), never a FeatureLevelRecord. UpdateFeatures refuses any other level.
pub const FEATURES: &[Feature] = &[
    Feature {
        name: "metadata.version",
        level: 33,
        min: 7,
        max: 33,
    },
    Feature {
        name: "eligible.leader.replicas.version",
        level: 1,
        min: 0,
        max: 1,
    },
    Feature {
        name: "group.version",
        level: 1,
        min: 0,
        max: 1,
    },
    Feature {
        name: "share.version",
        level: 0,
        min: 0,
        max: 2,
    },
    Feature {
        name: "streams.version",
        level: 0,
        min: 0,
        max: 1,
    },
    Feature {
        name: "transaction.version",
        level: 1,
        min: 0,
        max: 2,
    },
    Feature {
        name: "kraft.version",
        level: 0,
        min: 0,
        max: 1,
    },
];

/// The features the mini-broker supports: those whose maximum is above 0, as
/// `BrokerFeatures.defaultSupportedFeatureMap` lists them (ApiVersions, RegisterBrokerRecord).
pub fn supported_features() -> impl Iterator<Item = &'static Feature> {
    FEATURES.iter().filter(|f| f.max > 0)
}

impl ClusterMetadata {
    /// UpdateFeatures (`FeatureControlManager.updateFeatures`): each update checked as Kafka
    /// checks it (upgrade type, Kafka 4.4's supported range, downgrade needs a downgrade type,
    /// no metadata.version downgrade), then, as the mini-broker implements one level of each
    /// feature, a change to another level is refused, and an update to the level in force
    /// changes nothing and appends nothing, as in Kafka. `Err` is the message of the first
    /// update refused (INVALID_UPDATE_VERSION).
    pub fn update_features(&self, updates: &[(String, i16, i8)]) -> Result<(), BrokerError> {
        let node = self.node_id;
        let refuse = |feature: &str, version: i16, why: String| {
            BrokerError::new(
                ResponseError::InvalidUpdateVersion,
                format!("Invalid update version {version} for feature {feature}. {why}"),
            )
        };
        for (feature, version, upgrade_type) in updates {
            let (feature, version) = (feature.as_str(), *version);
            if !(1..=3).contains(upgrade_type) {
                return Err(refuse(
                    feature,
                    version,
                    "The controller does not support the given upgrade type.".into(),
                ));
            }
            let current = self.image.features.get(feature).copied().unwrap_or(0);
            if version < 0 {
                return Err(refuse(
                    feature,
                    version,
                    "A feature version cannot be less than 0.".into(),
                ));
            }
            match supported_features().find(|f| f.name == feature) {
                None => {
                    return Err(refuse(
                        feature,
                        version,
                        format!("Local controller {node} does not support this feature."),
                    ))
                }
                Some(f) if !(f.min..=f.max).contains(&version) => {
                    return Err(refuse(
                        feature,
                        version,
                        format!(
                            "Local controller {node} only supports versions {}-{}",
                            f.min, f.max
                        ),
                    ))
                }
                Some(_) => {}
            }
            if version < current && *upgrade_type == 1 {
                return Err(refuse(
                    feature,
                    version,
                    "Can't downgrade the version of this feature without setting the upgrade \
                     type to either safe or unsafe downgrade."
                        .into(),
                ));
            }
            if version > current && *upgrade_type != 1 {
                return Err(refuse(
                    feature,
                    version,
                    "Can't downgrade to a newer version.".into(),
                ));
            }
            if feature == "metadata.version" && version < current {
                return Err(BrokerError::new(
                    ResponseError::InvalidUpdateVersion,
                    format!(
                        "Unsupported metadata.version downgrade from {current} to {version}. {}",
                        if *upgrade_type == 3 {
                            "Unsafe metadata downgrade is not supported in this version."
                        } else {
                            "Refusing to perform the requested downgrade because it might delete \
                             metadata information."
                        }
                    ),
                ));
            }
            if version != current {
                return Err(refuse(
                    feature,
                    version,
                    format!("kseg mini-broker implements {feature} at level {current} only."),
                ));
            }
            // An update to the level in force: FeatureControlManager.updateFeature writes no
            // FeatureLevelRecord for it, so the metadata log does not grow with its repeats.
        }
        Ok(())
    }
}
