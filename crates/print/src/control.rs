//! Control records as JSON: the shape Kafka's generated `*JsonConverter` classes print, used by
//! the text dump (`LeaderChange: {…}`) and the NDJSON one (`"data"`).

use serde_json::{json, Value};

use kseg_format::control::{ControlData, ControlRecord, ControlType};
use kseg_format::protocol::uuid_string;

/// The `data` of a KRaft control message.
pub fn data_json(d: &ControlData) -> Value {
    let voter_ids =
        |ids: &[i32]| -> Value { ids.iter().map(|id| json!({ "voterId": id })).collect() };
    match d {
        ControlData::LeaderChange {
            version,
            leader_id,
            voters,
            granting_voters,
        } => json!({"version": version, "leaderId": leader_id, "voters": voter_ids(voters),
            "grantingVoters": voter_ids(granting_voters)}),
        ControlData::SnapshotHeader {
            version,
            last_contained_log_timestamp,
        } => json!({"version": version, "lastContainedLogTimestamp": last_contained_log_timestamp}),
        ControlData::SnapshotFooter { version } => json!({ "version": version }),
        ControlData::KRaftVersion {
            version,
            kraft_version,
        } => json!({"version": version, "kRaftVersion": kraft_version}),
        ControlData::KRaftVoters { version, voters } => {
            let list: Vec<Value> = voters
                .iter()
                .map(|v| {
                    let endpoints: Vec<Value> = v
                        .endpoints
                        .iter()
                        .map(|e| json!({"name": e.name, "host": e.host, "port": e.port}))
                        .collect();
                    json!({
                        "voterId": v.voter_id,
                        "voterDirectoryId": uuid_string(&v.directory_id),
                        "endpoints": endpoints,
                        "kRaftVersionFeature": {"minSupportedVersion": v.min_supported_version,
                            "maxSupportedVersion": v.max_supported_version},
                    })
                })
                .collect();
            json!({"version": version, "voters": list})
        }
    }
}

/// A control record's type as the JSON dump and the export name it (`UNKNOWN` for an id Kafka
/// does not define).
pub fn type_name(c: &ControlRecord) -> &'static str {
    match c.kind {
        ControlType::Unknown(_) => "UNKNOWN",
        k => k.name(),
    }
}

/// The `control` object of a control record in `dump-log --json`.
pub fn record_json(c: &ControlRecord) -> Value {
    let mut v = json!({"type": type_name(c), "typeId": c.type_id});
    if let Some(e) = c.coordinator_epoch {
        v["coordinatorEpoch"] = e.into();
    }
    if let Some(d) = &c.data {
        v["data"] = data_json(d);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use kseg_format::control::decode_control;

    #[test]
    fn leader_change_json_shape() {
        // version 0, leader 1, voters [1], granting [1], no tags.
        let v = [0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 2, 0, 0, 0, 1, 0, 0];
        let c = decode_control(Some(&[0, 0, 0, 2]), Some(&v)).unwrap();
        assert_eq!(
            data_json(c.data.as_ref().unwrap()).to_string(),
            r#"{"version":0,"leaderId":1,"voters":[{"voterId":1}],"grantingVoters":[{"voterId":1}]}"#
        );
    }
}
