//! Control records: transaction markers and the KRaft control messages, with the JSON shape
//! that Kafka's generated `*JsonConverter` classes print.

use serde_json::{json, Map, Value};

use super::protocol::uuid_string;
use super::reader::{DecodeError, DecodeResult, Reader};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlType {
    Abort,
    Commit,
    LeaderChange,
    SnapshotHeader,
    SnapshotFooter,
    KRaftVersion,
    KRaftVoters,
    Unknown(i16),
}

impl ControlType {
    pub fn from_id(id: i16) -> ControlType {
        match id {
            0 => ControlType::Abort,
            1 => ControlType::Commit,
            2 => ControlType::LeaderChange,
            3 => ControlType::SnapshotHeader,
            4 => ControlType::SnapshotFooter,
            5 => ControlType::KRaftVersion,
            6 => ControlType::KRaftVoters,
            other => ControlType::Unknown(other),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ControlType::Abort => "ABORT",
            ControlType::Commit => "COMMIT",
            ControlType::LeaderChange => "LEADER_CHANGE",
            ControlType::SnapshotHeader => "SNAPSHOT_HEADER",
            ControlType::SnapshotFooter => "SNAPSHOT_FOOTER",
            ControlType::KRaftVersion => "KRAFT_VERSION",
            ControlType::KRaftVoters => "KRAFT_VOTERS",
            ControlType::Unknown(_) => "UNKNOWN",
        }
    }
}

/// A decoded control record.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlRecord {
    pub type_id: i16,
    pub kind: ControlType,
    /// EndTxnMarker (ABORT/COMMIT) only.
    pub coordinator_epoch: Option<i32>,
    /// The generated-JSON form of the KRaft message, when there is one.
    pub data: Option<Value>,
}

/// Decodes a control record from its key and value.
pub fn decode_control(key: Option<&[u8]>, value: Option<&[u8]>) -> DecodeResult<ControlRecord> {
    let key = key.ok_or_else(|| DecodeError::new(0, "control record without a key"))?;
    if key.len() < 4 {
        return Err(DecodeError::new(
            0,
            format!("control record key of {} bytes, need 4", key.len()),
        ));
    }
    let mut k = Reader::new(key);
    let version = k.i16("control key version")?;
    if version < 0 {
        return Err(DecodeError::new(
            0,
            format!("invalid control key version {version}"),
        ));
    }
    let type_id = k.i16("control type")?;
    let kind = ControlType::from_id(type_id);
    let mut record = ControlRecord {
        type_id,
        kind,
        coordinator_epoch: None,
        data: None,
    };
    let value_of = || value.ok_or_else(|| DecodeError::new(0, "control record without a value"));
    match kind {
        ControlType::Abort | ControlType::Commit => {
            let mut v = Reader::new(value_of()?);
            let version = v.i16("end txn marker version")?;
            if version < 0 {
                return Err(DecodeError::new(
                    0,
                    format!("invalid end txn marker version {version}"),
                ));
            }
            record.coordinator_epoch = Some(v.i32("coordinatorEpoch")?);
        }
        ControlType::LeaderChange => record.data = Some(leader_change(value_of()?)?),
        ControlType::SnapshotHeader => {
            let mut v = Reader::new(value_of()?);
            let version = v.i16("version")?;
            let ts = v.i64("lastContainedLogTimestamp")?;
            v.skip_tagged_fields()?;
            record.data = Some(json!({"version": version, "lastContainedLogTimestamp": ts}));
        }
        ControlType::SnapshotFooter => {
            let mut v = Reader::new(value_of()?);
            let version = v.i16("version")?;
            v.skip_tagged_fields()?;
            record.data = Some(json!({ "version": version }));
        }
        ControlType::KRaftVersion => {
            let mut v = Reader::new(value_of()?);
            let version = v.i16("version")?;
            let kraft = v.i16("kRaftVersion")?;
            v.skip_tagged_fields()?;
            record.data = Some(json!({"version": version, "kRaftVersion": kraft}));
        }
        ControlType::KRaftVoters => record.data = Some(voters(value_of()?)?),
        ControlType::Unknown(_) => {}
    }
    Ok(record)
}

fn voter_list(r: &mut Reader<'_>, what: &str, with_directory: bool) -> DecodeResult<Value> {
    let n = r.compact_array_len(what, 5)?.unwrap_or(0);
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let mut m = Map::new();
        m.insert("voterId".into(), r.i32("voterId")?.into());
        if with_directory {
            m.insert(
                "voterDirectoryId".into(),
                uuid_string(&r.uuid("voterDirectoryId")?).into(),
            );
        }
        r.skip_tagged_fields()?;
        out.push(Value::Object(m));
    }
    Ok(Value::Array(out))
}

fn leader_change(value: &[u8]) -> DecodeResult<Value> {
    let mut r = Reader::new(value);
    let version = r.i16("version")?;
    let leader = r.i32("leaderId")?;
    // ControlRecordUtils reads every LeaderChangeMessage at version 0.
    let voters = voter_list(&mut r, "voters", false)?;
    let granting = voter_list(&mut r, "grantingVoters", false)?;
    r.skip_tagged_fields()?;
    Ok(
        json!({"version": version, "leaderId": leader, "voters": voters, "grantingVoters": granting}),
    )
}

fn voters(value: &[u8]) -> DecodeResult<Value> {
    let mut r = Reader::new(value);
    let version = r.i16("version")?;
    let n = r.compact_array_len("voters", 22)?.unwrap_or(0);
    let mut list = Vec::with_capacity(n);
    for _ in 0..n {
        let voter_id = r.i32("voterId")?;
        let dir = uuid_string(&r.uuid("voterDirectoryId")?);
        let m = r.compact_array_len("endpoints", 4)?.unwrap_or(0);
        let mut endpoints = Vec::with_capacity(m);
        for _ in 0..m {
            let name = r.compact_string("name")?;
            let host = r.compact_string("host")?;
            let port = r.u16("port")?;
            r.skip_tagged_fields()?;
            endpoints.push(json!({"name": name, "host": host, "port": port}));
        }
        let min = r.i16("minSupportedVersion")?;
        let max = r.i16("maxSupportedVersion")?;
        r.skip_tagged_fields()?;
        r.skip_tagged_fields()?;
        list.push(json!({
            "voterId": voter_id,
            "voterDirectoryId": dir,
            "endpoints": endpoints,
            "kRaftVersionFeature": {"minSupportedVersion": min, "maxSupportedVersion": max},
        }));
    }
    r.skip_tagged_fields()?;
    Ok(json!({"version": version, "voters": list}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_marker_from_digest_vector_v3() {
        let c = decode_control(Some(&[0, 0, 0, 1]), Some(&[0, 0, 0, 0, 0, 5])).unwrap();
        assert_eq!(c.kind, ControlType::Commit);
        assert_eq!(c.coordinator_epoch, Some(5));
    }

    #[test]
    fn unknown_type_and_future_versions() {
        let c = decode_control(Some(&[0, 0, 0x01, 0x51]), None).unwrap();
        assert_eq!(c.kind, ControlType::Unknown(337));
        assert!(decode_control(Some(&[0xff, 0xff, 0, 1]), Some(&[0, 0, 0, 0, 0, 5])).is_err());
        let future =
            decode_control(Some(&[0, 1, 0, 0, 9, 9]), Some(&[0, 1, 0, 0, 0, 7, 1, 2])).unwrap();
        assert_eq!(future.coordinator_epoch, Some(7));
        assert!(decode_control(Some(&[0, 0]), None).is_err());
    }

    #[test]
    fn leader_change_json_shape() {
        // version 0, leader 1, voters [1], granting [1], no tags.
        let v = [0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 2, 0, 0, 0, 1, 0, 0];
        let c = decode_control(Some(&[0, 0, 0, 2]), Some(&v)).unwrap();
        assert_eq!(
            c.data.unwrap().to_string(),
            r#"{"version":0,"leaderId":1,"voters":[{"voterId":1}],"grantingVoters":[{"voterId":1}]}"#
        );
    }
}
