//! Control records: transaction markers and the KRaft control messages, decoded into typed
//! values (`print::control` gives them the JSON shape of Kafka's generated `*JsonConverter`s).

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
    /// The KRaft message, when there is one.
    pub data: Option<ControlData>,
}

/// The KRaft control messages (fields as Kafka's `*Message` classes name them).
#[derive(Debug, Clone, PartialEq)]
pub enum ControlData {
    LeaderChange {
        version: i16,
        leader_id: i32,
        /// The voters' ids (ControlRecordUtils reads the message at version 0: no directory ids).
        voters: Vec<i32>,
        granting_voters: Vec<i32>,
    },
    SnapshotHeader {
        version: i16,
        last_contained_log_timestamp: i64,
    },
    SnapshotFooter {
        version: i16,
    },
    KRaftVersion {
        version: i16,
        kraft_version: i16,
    },
    KRaftVoters {
        version: i16,
        voters: Vec<Voter>,
    },
}

/// A voter of a `KRaftVersionRecord`-era `VotersRecord`.
#[derive(Debug, Clone, PartialEq)]
pub struct Voter {
    pub voter_id: i32,
    pub directory_id: [u8; 16],
    pub endpoints: Vec<Endpoint>,
    pub min_supported_version: i16,
    pub max_supported_version: i16,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    pub name: String,
    pub host: String,
    pub port: u16,
}

/// Decodes a control record from its key and value.
pub fn decode_control(key: Option<&[u8]>, value: Option<&[u8]>) -> DecodeResult<ControlRecord> {
    let key = key.ok_or_else(|| DecodeError::invalid(0, "control record without a key"))?;
    if key.len() < 4 {
        return Err(DecodeError::length(
            0,
            format!("control record key of {} bytes, need 4", key.len()),
        ));
    }
    let mut k = Reader::new(key);
    let version = k.i16("control key version")?;
    if version < 0 {
        return Err(DecodeError::unsupported(
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
    let value_of =
        || value.ok_or_else(|| DecodeError::invalid(0, "control record without a value"));
    match kind {
        ControlType::Abort | ControlType::Commit => {
            let mut v = Reader::new(value_of()?);
            let version = v.i16("end txn marker version")?;
            if version < 0 {
                return Err(DecodeError::unsupported(
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
            record.data = Some(ControlData::SnapshotHeader {
                version,
                last_contained_log_timestamp: ts,
            });
        }
        ControlType::SnapshotFooter => {
            let mut v = Reader::new(value_of()?);
            let version = v.i16("version")?;
            v.skip_tagged_fields()?;
            record.data = Some(ControlData::SnapshotFooter { version });
        }
        ControlType::KRaftVersion => {
            let mut v = Reader::new(value_of()?);
            let version = v.i16("version")?;
            let kraft = v.i16("kRaftVersion")?;
            v.skip_tagged_fields()?;
            record.data = Some(ControlData::KRaftVersion {
                version,
                kraft_version: kraft,
            });
        }
        ControlType::KRaftVoters => record.data = Some(voters(value_of()?)?),
        ControlType::Unknown(_) => {}
    }
    Ok(record)
}

fn voter_list(r: &mut Reader<'_>, what: &str) -> DecodeResult<Vec<i32>> {
    let n = r.compact_array_len(what, 5)?.unwrap_or(0);
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(r.i32("voterId")?);
        r.skip_tagged_fields()?;
    }
    Ok(out)
}

fn leader_change(value: &[u8]) -> DecodeResult<ControlData> {
    let mut r = Reader::new(value);
    let version = r.i16("version")?;
    let leader_id = r.i32("leaderId")?;
    // ControlRecordUtils reads every LeaderChangeMessage at version 0.
    let voters = voter_list(&mut r, "voters")?;
    let granting_voters = voter_list(&mut r, "grantingVoters")?;
    r.skip_tagged_fields()?;
    Ok(ControlData::LeaderChange {
        version,
        leader_id,
        voters,
        granting_voters,
    })
}

fn voters(value: &[u8]) -> DecodeResult<ControlData> {
    let mut r = Reader::new(value);
    let version = r.i16("version")?;
    let n = r.compact_array_len("voters", 22)?.unwrap_or(0);
    let mut voters = Vec::with_capacity(n);
    for _ in 0..n {
        let voter_id = r.i32("voterId")?;
        let directory_id = r.uuid("voterDirectoryId")?;
        let m = r.compact_array_len("endpoints", 4)?.unwrap_or(0);
        let mut endpoints = Vec::with_capacity(m);
        for _ in 0..m {
            let name = r.compact_string("name")?.to_string();
            let host = r.compact_string("host")?.to_string();
            let port = r.u16("port")?;
            r.skip_tagged_fields()?;
            endpoints.push(Endpoint { name, host, port });
        }
        let min_supported_version = r.i16("minSupportedVersion")?;
        let max_supported_version = r.i16("maxSupportedVersion")?;
        r.skip_tagged_fields()?;
        r.skip_tagged_fields()?;
        voters.push(Voter {
            voter_id,
            directory_id,
            endpoints,
            min_supported_version,
            max_supported_version,
        });
    }
    r.skip_tagged_fields()?;
    Ok(ControlData::KRaftVoters { version, voters })
}

/// A control record key: version 0, then the type id (`ControlRecordType.recordKey`).
pub fn encode_control_key(type_id: i16) -> [u8; 4] {
    let t = type_id.to_be_bytes();
    [0, 0, t[0], t[1]]
}

fn put_voter_list(out: &mut Vec<u8>, ids: &[i32]) {
    crate::format::reader::put_uvarint(out, ids.len() as u32 + 1);
    for id in ids {
        out.extend_from_slice(&id.to_be_bytes());
        out.push(0); // no tagged fields
    }
}

/// A KRaft control record's value, the writer side of [`decode_control`] for the messages a
/// single-node quorum writes (`LeaderChangeMessage`, `SnapshotHeaderRecord`,
/// `SnapshotFooterRecord`, all at version 0, flexible).
pub fn encode_control_value(data: &ControlData) -> Vec<u8> {
    let mut out = Vec::new();
    match data {
        ControlData::LeaderChange {
            version,
            leader_id,
            voters,
            granting_voters,
        } => {
            out.extend_from_slice(&version.to_be_bytes());
            out.extend_from_slice(&leader_id.to_be_bytes());
            put_voter_list(&mut out, voters);
            put_voter_list(&mut out, granting_voters);
        }
        ControlData::SnapshotHeader {
            version,
            last_contained_log_timestamp,
        } => {
            out.extend_from_slice(&version.to_be_bytes());
            out.extend_from_slice(&last_contained_log_timestamp.to_be_bytes());
        }
        ControlData::SnapshotFooter { version } => out.extend_from_slice(&version.to_be_bytes()),
        ControlData::KRaftVersion {
            version,
            kraft_version,
        } => {
            out.extend_from_slice(&version.to_be_bytes());
            out.extend_from_slice(&kraft_version.to_be_bytes());
        }
        ControlData::KRaftVoters { version, voters } => {
            out.extend_from_slice(&version.to_be_bytes());
            crate::format::reader::put_uvarint(&mut out, voters.len() as u32 + 1);
            for v in voters {
                out.extend_from_slice(&v.voter_id.to_be_bytes());
                out.extend_from_slice(&v.directory_id);
                crate::format::reader::put_uvarint(&mut out, v.endpoints.len() as u32 + 1);
                for e in &v.endpoints {
                    for s in [&e.name, &e.host] {
                        crate::format::reader::put_uvarint(&mut out, s.len() as u32 + 1);
                        out.extend_from_slice(s.as_bytes());
                    }
                    out.extend_from_slice(&e.port.to_be_bytes());
                    out.push(0);
                }
                out.extend_from_slice(&v.min_supported_version.to_be_bytes());
                out.extend_from_slice(&v.max_supported_version.to_be_bytes());
                out.push(0); // the KRaftVersionFeature's tagged fields
                out.push(0); // the voter's
            }
        }
    }
    out.push(0); // the message's tagged fields
    out
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
    fn leader_change() {
        // version 0, leader 1, voters [1], granting [1], no tags.
        let v = [0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 2, 0, 0, 0, 1, 0, 0];
        let c = decode_control(Some(&[0, 0, 0, 2]), Some(&v)).unwrap();
        assert_eq!(
            c.data,
            Some(ControlData::LeaderChange {
                version: 0,
                leader_id: 1,
                voters: vec![1],
                granting_voters: vec![1],
            })
        );
    }

    #[test]
    fn kraft_control_records_round_trip() {
        let key = encode_control_key(2);
        assert_eq!(key, [0, 0, 0, 2]);
        for data in [
            ControlData::LeaderChange {
                version: 0,
                leader_id: 1,
                voters: vec![1],
                granting_voters: vec![1],
            },
            ControlData::SnapshotHeader {
                version: 0,
                last_contained_log_timestamp: 1_796_405_109_420,
            },
            ControlData::SnapshotFooter { version: 0 },
            ControlData::KRaftVersion {
                version: 0,
                kraft_version: 1,
            },
            ControlData::KRaftVoters {
                version: 0,
                voters: vec![Voter {
                    voter_id: 1,
                    directory_id: [7; 16],
                    endpoints: vec![Endpoint {
                        name: "CONTROLLER".into(),
                        host: "127.0.0.1".into(),
                        port: 9093,
                    }],
                    min_supported_version: 0,
                    max_supported_version: 1,
                }],
            },
        ] {
            let type_id = match data {
                ControlData::LeaderChange { .. } => 2,
                ControlData::SnapshotHeader { .. } => 3,
                ControlData::SnapshotFooter { .. } => 4,
                ControlData::KRaftVersion { .. } => 5,
                ControlData::KRaftVoters { .. } => 6,
            };
            let value = encode_control_value(&data);
            let c = decode_control(Some(&encode_control_key(type_id)), Some(&value)).unwrap();
            assert_eq!(c.data, Some(data));
        }
        // The sizes Kafka 4.4 writes (kafka-dump-log's valueSize): 19, 11, 3.
        let lc = ControlData::LeaderChange {
            version: 0,
            leader_id: 1,
            voters: vec![1],
            granting_voters: vec![1],
        };
        assert_eq!(encode_control_value(&lc).len(), 19);
    }
}
