//! Tests of the internal-topic JSON: the shapes of Kafka's `DumpLogSegmentsTest` and of its
//! JSON converters, the typed decoder and encoder round trips, and the typed parsers, all
//! checked through the printed JSON (`print/coordinator.rs`).

use base64::Engine;
use serde_json::{json, Value};

use super::*;
use kseg_format::coordinator::decode::read_message;
use kseg_format::coordinator::encode::encode_message;
use kseg_format::coordinator::schema::Message;
use kseg_format::coordinator::tables::*;
use kseg_format::coordinator::*;
use kseg_format::reader::Reader;
use testing::{encode_json, sample_message, Rng};

fn render(f: impl FnOnce(&mut JsonLine<'_>)) -> String {
    let mut out = Vec::new();
    f(&mut JsonLine(&mut out));
    String::from_utf8(out).unwrap()
}

fn ks(k: &CoordinatorKey<'_>) -> String {
    render(|l| write_key(l, k))
}

fn vs(v: &CoordinatorValue<'_>) -> String {
    render(|l| write_coordinator_value(l, v))
}

fn ms(m: &MetadataRecord<'_>) -> String {
    render(|l| write_metadata_record(l, m))
}

fn sj(s: &StructValue<'_>) -> Value {
    serde_json::from_str(&render(|l| write_struct(l, s))).unwrap()
}

fn kj(k: &CoordinatorKey<'_>) -> Value {
    serde_json::from_str(&ks(k)).unwrap()
}

fn vj(v: &CoordinatorValue<'_>) -> Value {
    serde_json::from_str(&vs(v)).unwrap()
}

fn mj(m: &MetadataRecord<'_>) -> Value {
    serde_json::from_str(&ms(m)).unwrap()
}

/// The text of a decoded key or value, whichever it is.
trait Shown {
    fn shown(&self) -> String;
}

impl Shown for CoordinatorKey<'_> {
    fn shown(&self) -> String {
        ks(self)
    }
}

impl Shown for CoordinatorValue<'_> {
    fn shown(&self) -> String {
        vs(self)
    }
}

fn vs_any(x: &impl Shown) -> String {
    x.shown()
}

fn hex(s: &str) -> Vec<u8> {
    hex::decode(s.replace(' ', "")).unwrap()
}

#[test]
fn digest_vector_v6_offset_commit() {
    let bytes_78 = hex("0001 0001 67 0001 74 00000000");
    let k = decode_offsets_key(&bytes_78).unwrap();
    assert_eq!(k.record_type, 1);
    assert_eq!(
        vs_any(&k),
        r#"{"type":"1","data":{"group":"g","topic":"t","partition":0}}"#
    );
    let v3 = hex("0003 000000000000002a 00000000 0000 0000018bcfe56800");
    let v = decode_offsets_value(1, &v3).unwrap();
    assert_eq!(
        vs_any(&v),
        r#"{"version":"3","data":{"offset":42,"leaderEpoch":0,"metadata":"","commitTimestamp":1700000000000}}"#
    );
    let v4 = hex("0004 000000000000002a 00000000 01 0000018bcfe56800 00");
    let v = decode_offsets_value(1, &v4).unwrap();
    assert_eq!(
        vs_any(&v),
        r#"{"version":"4","data":{"offset":42,"leaderEpoch":0,"metadata":"","commitTimestamp":1700000000000}}"#
    );
    // v4 with a topic id (tag 0): shown; a zero topic id is the default and is not.
    let mut with_id = v4.clone();
    with_id.pop();
    with_id.extend_from_slice(&[1, 0, 16]);
    let id = kseg_format::protocol::parse_uuid("Uj5wn_FqTXirEASvVZRY1w").unwrap();
    with_id.extend_from_slice(&id);
    let v = decode_offsets_value(1, &with_id).unwrap();
    assert_eq!(vj(&v)["data"]["topicId"], "Uj5wn_FqTXirEASvVZRY1w");
    let typed = parse_offset_commit(&hex("0001 0001 67 0001 74 00000000"), &with_id)
        .unwrap()
        .value;
    assert_eq!(typed.offset, 42);
    assert_eq!(typed.leader_epoch, Some(0));
    assert_eq!(typed.topic_id, Some(id));
    let mut zero_id = v4.clone();
    zero_id.pop();
    zero_id.extend_from_slice(&[1, 0, 16]);
    zero_id.extend_from_slice(&[0; 16]);
    let v = decode_offsets_value(1, &zero_id).unwrap();
    assert!(vj(&v)["data"].get("topicId").is_none());
}

#[test]
fn digest_vector_v6c_keys() {
    let bytes_118 = hex("0002 0005 67726f7570");
    let k = decode_offsets_key(&bytes_118).unwrap();
    assert_eq!(vs_any(&k), r#"{"type":"2","data":{"group":"group"}}"#);
    assert_eq!(
        group_of_key(&hex("0002 0005 67726f7570")),
        Some((2, "group"))
    );
    let bytes_127 = hex("0000 0005 74786e4964");
    let k = decode_transaction_key(&bytes_127).unwrap();
    assert_eq!(
        vs_any(&k),
        r#"{"type":"0","data":{"transactionalId":"txnId"}}"#
    );
    assert_eq!(
        parse_transaction_key(&hex("0000 0005 74786e4964")).unwrap(),
        "txnId"
    );
}

#[test]
fn offset_commit_v1_shows_expire_timestamp() {
    let v1 = hex("0001 0000000000000005 0002 6869 0000018bcfe56800 0000018bcfe56801");
    let v = decode_offsets_value(1, &v1).unwrap();
    assert_eq!(
        vs_any(&v),
        r#"{"version":"1","data":{"offset":5,"metadata":"hi","commitTimestamp":1700000000000,"expireTimestamp":1700000000001}}"#
    );
    let key = hex("0001 0001 67 0001 74 00000003");
    let c = parse_offset_commit(&key, &v1).unwrap();
    assert_eq!(c.value.expire_timestamp, Some(1_700_000_000_001));
    assert_eq!(c.value.leader_epoch, None);
    assert_eq!(
        (c.key.group.as_str(), c.key.topic.as_str(), c.key.partition),
        ("g", "t", 3)
    );
}

#[test]
fn transaction_example_of_dump_log_segments() {
    // TransactionLogValue v0: producerId 123, epoch 0, timeout 0, status 0 (Empty),
    // partitions [], timestamps 0.
    let v0 =
        hex("0000 000000000000007b 0000 00000000 00 00000000 0000000000000000 0000000000000000");
    let v = decode_transaction_value(0, &v0).unwrap();
    assert_eq!(
        vs_any(&v),
        r#"{"version":"0","data":{"producerId":123,"producerEpoch":0,"transactionTimeoutMs":0,"transactionStatus":"Empty","transactionPartitions":[],"transactionLastUpdateTimestampMs":0,"transactionStartTimestampMs":0}}"#
    );
    let t = parse_transaction_value(&v0).unwrap();
    assert_eq!(t.status_name(), Some("Empty"));
    assert_eq!(t.partitions, Some(vec![]));
    // An unknown status id prints as a number string.
    let mut odd = v0.clone();
    odd[16] = 9;
    let v = decode_transaction_value(0, &odd).unwrap();
    assert_eq!(vj(&v)["data"]["transactionStatus"], "9");
}

#[test]
fn transaction_v1_of_dump_log_segments_test() {
    let expected = r#"{"version":"1","data":{"producerId":12,"previousProducerId":11,"nextProducerId":10,"producerEpoch":2,"transactionTimeoutMs":14,"transactionStatus":"Empty","transactionPartitions":[{"topic":"topic1","partitionIds":[0,1,2]},{"topic":"topic2","partitionIds":[3,4,5]}],"transactionLastUpdateTimestampMs":123,"transactionStartTimestampMs":13}}"#;
    let mut data: Value = serde_json::from_str(expected).unwrap();
    data["data"]["transactionStatus"] = 0.into();
    let mut bytes = 1i16.to_be_bytes().to_vec();
    bytes.extend(encode_json(&TRANSACTION_LOG_VALUE, 1, &data["data"]));
    let v = decode_transaction_value(0, &bytes).unwrap();
    assert_eq!(vs_any(&v), expected);
    let t = parse_transaction_value(&bytes).unwrap();
    assert_eq!((t.previous_producer_id, t.next_producer_id), (11, 10));
    assert_eq!(t.next_producer_epoch, -1);
    assert_eq!(t.partitions.unwrap()[1].partitions, vec![3, 4, 5]);
}

fn value_bytes(msg: &'static Message, version: i16, data: &Value) -> Vec<u8> {
    let mut bytes = version.to_be_bytes().to_vec();
    bytes.extend(encode_json(msg, version, data));
    bytes
}

#[test]
fn group_metadata_with_consumer_protocol() {
    // DumpLogSegmentsTest: GroupMetadataValue v4 whose member carries a v3 subscription and
    // a v3 assignment.
    let sub = json!({"topics":["foo"],"userData":null,"ownedPartitions":[{"topic":"foo","partitions":[0]}],"generationId":0,"rackId":"rack"});
    let asg = json!({"assignedPartitions":[{"topic":"foo","partitions":[0]}],"userData":null});
    let b64 = |b: Vec<u8>| base64::engine::general_purpose::STANDARD.encode(b);
    let sub_bytes = value_bytes(&CONSUMER_PROTOCOL_SUBSCRIPTION, 3, &sub);
    let asg_bytes = value_bytes(&CONSUMER_PROTOCOL_ASSIGNMENT, 3, &asg);
    let raw = json!({"protocolType":"consumer","generation":10,"protocol":"range","leader":"member","currentStateTimestamp":-1,"members":[{"memberId":"member","groupInstanceId":"instance","clientId":"client","clientHost":"host","rebalanceTimeout":1000,"sessionTimeout":100,"subscription":b64(sub_bytes.clone()),"assignment":b64(asg_bytes)}]});
    let bytes = value_bytes(&GROUP_METADATA_VALUE, 4, &raw);
    let v = decode_offsets_value(2, &bytes).unwrap();
    assert_eq!(
        vs_any(&v),
        r#"{"version":"4","data":{"protocolType":"consumer","generation":10,"protocol":"range","leader":"member","currentStateTimestamp":-1,"members":[{"memberId":"member","groupInstanceId":"instance","clientId":"client","clientHost":"host","rebalanceTimeout":1000,"sessionTimeout":100,"subscription":{"topics":["foo"],"userData":null,"ownedPartitions":[{"topic":"foo","partitions":[0]}],"generationId":0,"rackId":"rack"},"assignment":{"assignedPartitions":[{"topic":"foo","partitions":[0]}],"userData":null}}]}}"#
    );
    let g = parse_group_metadata(&bytes).unwrap();
    assert_eq!(g.current_state_timestamp, None);
    let m = &g.members[0];
    let s = m.subscription.as_ref().unwrap();
    assert_eq!(
        (s.topics.clone(), s.generation_id, s.rack_id.as_deref()),
        (vec!["foo".to_string()], 0, Some("rack"))
    );
    assert_eq!(m.assignment.as_ref().unwrap().partitions[0].topic, "foo");
    assert_eq!(m.subscription_bytes, sub_bytes);

    // Malformed embedded bytes stay Base64.
    let mut raw2 = raw.clone();
    raw2["members"][0]["subscription"] = b64(b"Subscription".to_vec()).into();
    raw2["members"][0]["assignment"] = b64(b"Assignment".to_vec()).into();
    let bytes_230 = value_bytes(&GROUP_METADATA_VALUE, 4, &raw2);
    let v = decode_offsets_value(2, &bytes_230).unwrap();
    assert_eq!(
        vj(&v)["data"]["members"][0]["subscription"],
        "U3Vic2NyaXB0aW9u"
    );
    assert_eq!(
        vj(&v)["data"]["members"][0]["assignment"],
        "QXNzaWdubWVudA=="
    );
    // Another protocol type: bytes are not interpreted.
    let mut raw3 = raw.clone();
    raw3["protocolType"] = "connect".into();
    let bytes_242 = value_bytes(&GROUP_METADATA_VALUE, 4, &raw3);
    let v = decode_offsets_value(2, &bytes_242).unwrap();
    assert!(vj(&v)["data"]["members"][0]["subscription"].is_string());
    assert!(
        parse_group_metadata(&value_bytes(&GROUP_METADATA_VALUE, 4, &raw3))
            .unwrap()
            .members[0]
            .subscription
            .is_none()
    );
}

#[test]
fn newer_consumer_protocol_versions_use_the_newest_layout() {
    let sub = json!({"topics":["a"],"userData":"AQ==","ownedPartitions":[],"generationId":7,"rackId":null});
    let mut bytes = 9i16.to_be_bytes().to_vec();
    bytes.extend(encode_json(&CONSUMER_PROTOCOL_SUBSCRIPTION, 3, &sub));
    bytes.extend_from_slice(b"future fields");
    assert_eq!(
        sj(&read_message(
            &CONSUMER_PROTOCOL_SUBSCRIPTION,
            9,
            &mut Reader::new(&bytes[2..])
        )
        .unwrap()),
        sub
    );
    let s = parse_consumer_subscription(&bytes).unwrap();
    assert_eq!(
        (s.version, s.generation_id, s.user_data),
        (9, 7, Some(vec![1]))
    );
}

#[test]
fn remote_log_segment_metadata_record_by_hand() {
    // Frame 1, apiKey 0, version 0 (flexible): topic "t" (compact string: length + 1),
    // a topic id and a segment id, partition 3, start 0, end 99, broker 1, max timestamp,
    // event timestamp, one leader epoch (0 at offset 0), size 4096, null custom metadata
    // (compact bytes 0), state 1 (COPY_SEGMENT_FINISHED), then tagged fields: the outer
    // struct has none, the record carries TxnIndexEmpty (tag 0, 1 byte, true).
    let v = hex(concat!(
        "01 00 00",
        "02 74",
        "00000000000000000000000000000001",
        "00000003",
        "00",
        "00000000000000000000000000000002",
        "00",
        "0000000000000000",
        "0000000000000063",
        "00000001",
        "0000019000000000",
        "0000019000000001",
        "02 00000000 0000000000000000 00",
        "00001000",
        "00",
        "01",
        "01 00 01 01",
    ));
    let out = mj(&decode_remote_log_metadata_record(&v).unwrap());
    assert_eq!(out["type"], "REMOTE_LOG_SEGMENT_METADATA_RECORD");
    let d = &out["data"];
    assert_eq!(d["remoteLogSegmentId"]["topicIdPartition"]["name"], "t");
    assert_eq!(d["remoteLogSegmentId"]["topicIdPartition"]["partition"], 3);
    assert_eq!(d["endOffset"], 99);
    assert_eq!(d["segmentLeaderEpochs"][0]["leaderEpoch"], 0);
    assert_eq!(d["segmentSizeInBytes"], 4096);
    assert_eq!(d["customMetadata"], Value::Null);
    assert_eq!(d["remoteLogSegmentState"], 1);
    assert_eq!(d["txnIndexEmpty"], true);
}

#[test]
fn consumer_group_examples_of_dump_log_segments_test() {
    let bytes_311 = hex("0003 0005 67726f7570");
    let k = decode_offsets_key(&bytes_311).unwrap();
    assert_eq!(vs_any(&k), r#"{"type":"3","data":{"groupId":"group"}}"#);
    let bytes_316 = hex("0000 0000000a 00");
    let v = decode_offsets_value(3, &bytes_316).unwrap();
    assert_eq!(vs_any(&v), r#"{"version":"0","data":{"epoch":10}}"#);
    // MetadataHash is tagged (tag 0): shown when not 0.
    let bytes_319 = hex("0000 0000000a 01 00 08 0000000000000007");
    let v = decode_offsets_value(3, &bytes_319).unwrap();
    assert_eq!(
        vs_any(&v),
        r#"{"version":"0","data":{"epoch":10,"metadataHash":7}}"#
    );
}

#[test]
fn share_state_examples_of_dump_log_segments_test() {
    let key = json!({"groupId":"gs1","topicId":"Uj5wn_FqTXirEASvVZRY1w","partition":0});
    for t in [0i16, 1] {
        let (_, k, _) = SHARE_STATE_RECORDS.iter().find(|(x, ..)| *x == t).unwrap();
        let mut bytes = t.to_be_bytes().to_vec();
        bytes.extend(encode_json(k, 0, &key));
        let d = decode_share_state_key(&bytes).unwrap();
        assert_eq!(kj(&d), json!({"type": t.to_string(), "data": key}));
    }
    let ts = 1_700_000_000_000i64;
    let snap = json!({"snapshotEpoch":0,"stateEpoch":0,"leaderEpoch":0,"startOffset":0,"createTimestamp":ts,"writeTimestamp":ts,"stateBatches":[{"firstOffset":0,"lastOffset":4,"deliveryState":2,"deliveryCount":1}]});
    let bytes_338 = value_bytes(&SHARE_SNAPSHOT_VALUE, 0, &snap);
    let v = decode_share_state_value(0, &bytes_338).unwrap();
    assert_eq!(
        vs_any(&v),
        format!(
            r#"{{"version":"0","data":{{"snapshotEpoch":0,"stateEpoch":0,"leaderEpoch":0,"startOffset":0,"createTimestamp":{ts},"writeTimestamp":{ts},"stateBatches":[{{"firstOffset":0,"lastOffset":4,"deliveryState":2,"deliveryCount":1}}]}}}}"#
        )
    );
    assert_eq!(v.legacy_layout, None);
    // The same state written by Kafka 4.0 (uint16 snapshotEpoch, no timestamps).
    let old = json!({"snapshotEpoch":3,"stateEpoch":0,"leaderEpoch":0,"startOffset":0,"stateBatches":[{"firstOffset":0,"lastOffset":4,"deliveryState":2,"deliveryCount":1}]});
    let bytes_349 = value_bytes(&SHARE_SNAPSHOT_VALUE_4_0, 0, &old);
    let v = decode_share_state_value(0, &bytes_349).unwrap();
    assert_eq!(v.legacy_layout, Some("4.0"));
    assert_eq!(vj(&v)["data"], old);
    let upd = json!({"snapshotEpoch":0,"leaderEpoch":0,"startOffset":0,"stateBatches":[{"firstOffset":0,"lastOffset":4,"deliveryState":2,"deliveryCount":1}]});
    let bytes_353 = value_bytes(&SHARE_UPDATE_VALUE, 0, &upd);
    let v = decode_share_state_value(1, &bytes_353).unwrap();
    assert_eq!(vj(&v)["data"], upd);
}

#[test]
fn unknown_types_and_versions_are_flagged() {
    let e = decode_offsets_key(&hex("7fff")).unwrap_err();
    assert_eq!(e.kind.to_string(), "Unknown record type 32767");
    assert!(e.is_unknown());
    let e = decode_offsets_value(1, &hex("0005 0000")).unwrap_err();
    assert_eq!(e.kind.to_string(), "Unknown version 5 of OffsetCommitValue");
    assert!(e.is_unknown());
    let e =
        decode_offsets_value(0, &hex("0001 000000000000002a 0000 0000018bcfe56800")).unwrap_err();
    assert_eq!(
        e.kind.to_string(),
        "Unknown version 1 of LegacyOffsetCommitValue"
    );
    let e = decode_offsets_value(1, &hex("0003 0000")).unwrap_err();
    assert!(!e.is_unknown());
    assert!(decode_transaction_value(0, &hex("0002"))
        .unwrap_err()
        .is_unknown());
    assert!(decode_share_state_key(&hex("0002 0000"))
        .unwrap_err()
        .is_unknown());
    assert!(decode_metadata_record(&hex("01 06 00"))
        .unwrap_err()
        .is_unknown());
    assert!(decode_metadata_record(&hex("01 02 01"))
        .unwrap_err()
        .is_unknown());
    assert_eq!(group_of_key(&hex("7fff 0001 67")), None);
    assert_eq!(group_of_key(&hex("0001 0001")), None);
}

#[test]
fn metadata_records() {
    // TopicRecord v0: name "foo", topic id 1, no tags.
    let mut b = hex("01 02 00 04 666f6f");
    b.extend_from_slice(&[0; 15]);
    b.extend_from_slice(&[1, 0]);
    assert_eq!(
        ms(&decode_metadata_record(&b).unwrap()),
        r#"{"type":"TOPIC_RECORD","version":0,"data":{"name":"foo","topicId":"AAAAAAAAAAAAAAAAAAAAAQ"}}"#
    );
    let mut trailing = b.clone();
    trailing.push(0);
    assert!(decode_metadata_record(&trailing)
        .unwrap_err()
        .kind
        .to_string()
        .contains("garbage after TOPIC_RECORD"));
    let mut frame0 = b.clone();
    frame0[0] = 0;
    assert!(decode_metadata_record(&frame0)
        .unwrap_err()
        .kind
        .to_string()
        .contains("frame version 0"));
    // NoOpRecord, FeatureLevelRecord
    assert_eq!(
        ms(&decode_metadata_record(&hex("01 14 00 00")).unwrap()),
        r#"{"type":"NO_OP_RECORD","version":0,"data":{}}"#
    );
    assert_eq!(
        ms(
            &decode_metadata_record(&hex("01 0c 00 11 6d657461646174612e76657273696f6e 0014 00"))
                .unwrap()
        ),
        r#"{"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":20}}"#
    );
}

/// Every table entry, every valid version: random messages survive encode → decode.
#[test]
fn round_trip_every_record_type_and_version() {
    let mut rng = Rng(7);
    let mut pairs = 0;
    let check = |msg: &'static Message, version: i16, rng: &mut Rng| {
        for _ in 0..40 {
            let data = sample_message(msg, version, rng);
            let bytes = encode_json(msg, version, &data);
            let mut r = Reader::new(&bytes);
            let decoded = read_message(msg, version, &mut r)
                .unwrap_or_else(|e| panic!("{} v{version}: {e}", msg.name));
            assert_eq!(sj(&decoded), data, "{} v{version}", msg.name);
            assert!(r.is_empty(), "{} v{version}", msg.name);
            // The typed encoder writes the decoded value back to the same bytes.
            let mut again = Vec::new();
            encode_message(msg, version, &decoded, &mut again).unwrap();
            assert_eq!(again, bytes, "{} v{version}", msg.name);
        }
    };
    type Decode = fn(&[u8]) -> Result<CoordinatorKey<'_>>;
    type DecodeValue = fn(i16, &[u8]) -> Result<CoordinatorValue<'_>>;
    type Table = [(i16, &'static Message, &'static Message)];
    let coordinators: [(&Table, Decode, DecodeValue); 3] = [
        (GROUP_RECORDS, decode_offsets_key, decode_offsets_value),
        (
            TRANSACTION_RECORDS,
            decode_transaction_key,
            decode_transaction_value,
        ),
        (
            SHARE_STATE_RECORDS,
            decode_share_state_key,
            decode_share_state_value,
        ),
    ];
    for (table, decode_k, decode_v) in coordinators {
        for (t, k, v) in table {
            check(k, 0, &mut rng);
            let key = json!({"type": t.to_string(), "data": sample_message(k, 0, &mut rng)});
            let mut bytes = t.to_be_bytes().to_vec();
            bytes.extend(encode_json(k, 0, &key["data"]));
            assert_eq!(kj(&decode_k(&bytes).unwrap()), key);
            for version in v.valid.lowest..=v.valid.highest {
                check(v, version, &mut rng);
                // Through the public entry point too (GroupMetadata and TransactionLog
                // rewrite fields, so compare the untouched types only).
                let data = sample_message(v, version, &mut rng);
                let bytes_460 = value_bytes(v, version, &data);
                let out = decode_v(*t, &bytes_460).unwrap();
                assert_eq!(out.version, version);
                if !(v.name == "GroupMetadataValue" || v.name == "TransactionLogValue") {
                    assert_eq!(
                        vj(&out),
                        json!({"version": version.to_string(), "data": data})
                    );
                    assert_eq!(out.legacy_layout, None);
                }
                pairs += 1;
            }
        }
    }
    for (_, _, old) in LEGACY_4_0_VALUES {
        check(old, 0, &mut rng);
    }
    type Framed = fn(&[u8]) -> Result<MetadataRecord<'_>>;
    for (table, decode) in [
        (METADATA_RECORDS, decode_metadata_record as Framed),
        (
            REMOTE_LOG_METADATA_RECORDS,
            decode_remote_log_metadata_record,
        ),
    ] {
        for (api_key, name, msg) in table {
            for version in msg.valid.lowest..=msg.valid.highest {
                check(msg, version, &mut rng);
                let data = sample_message(msg, version, &mut rng);
                let mut bytes = vec![1, *api_key as u8, version as u8];
                bytes.extend(encode_json(msg, version, &data));
                assert_eq!(
                    mj(&decode(&bytes).unwrap()),
                    json!({"type": name, "version": version, "data": data})
                );
                pairs += 1;
            }
        }
    }
    for msg in [
        &CONSUMER_PROTOCOL_SUBSCRIPTION,
        &CONSUMER_PROTOCOL_ASSIGNMENT,
    ] {
        for version in 0..=3 {
            check(msg, version, &mut rng);
        }
    }
    assert!(pairs > 60, "{pairs}");
}

/// The typed parsers agree with the schema decoder on random messages.
#[test]
fn typed_parsers_agree_with_json() {
    let mut rng = Rng(99);
    for _ in 0..300 {
        for version in 0..=4 {
            let data = sample_message(&OFFSET_COMMIT_VALUE, version, &mut rng);
            let key = hex("0001 0001 67 0001 74 00000000");
            let c = parse_offset_commit(&key, &value_bytes(&OFFSET_COMMIT_VALUE, version, &data))
                .unwrap()
                .value;
            assert_eq!(json!(c.offset), data["offset"]);
            assert_eq!(json!(c.commit_timestamp), data["commitTimestamp"]);
            assert_eq!(json!(c.metadata), data["metadata"]);
            if version >= 3 {
                assert_eq!(
                    c.leader_epoch.unwrap_or(-1),
                    data["leaderEpoch"].as_i64().unwrap() as i32
                );
            }
            assert_eq!(
                c.topic_id.map(|u| kseg_format::protocol::uuid_string(&u)),
                data.get("topicId")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            );

            let data = sample_message(&GROUP_METADATA_VALUE, version, &mut rng);
            let g =
                parse_group_metadata(&value_bytes(&GROUP_METADATA_VALUE, version, &data)).unwrap();
            assert_eq!(json!(g.protocol_type), data["protocolType"]);
            assert_eq!(json!(g.leader), data["leader"]);
            assert_eq!(g.members.len(), data["members"].as_array().unwrap().len());
            for (m, j) in g.members.iter().zip(data["members"].as_array().unwrap()) {
                assert_eq!(json!(m.member_id), j["memberId"]);
                assert_eq!(json!(m.client_host), j["clientHost"]);
                assert_eq!(json!(m.session_timeout), j["sessionTimeout"]);
                assert_eq!(
                    base64::engine::general_purpose::STANDARD.encode(&m.assignment_bytes),
                    j["assignment"].as_str().unwrap()
                );
                if version >= 3 {
                    assert_eq!(json!(m.group_instance_id), j["groupInstanceId"]);
                }
            }
        }
        for version in 0..=1 {
            let data = sample_message(&TRANSACTION_LOG_VALUE, version, &mut rng);
            let t = parse_transaction_value(&value_bytes(&TRANSACTION_LOG_VALUE, version, &data))
                .unwrap();
            assert_eq!(json!(t.producer_id), data["producerId"]);
            assert_eq!(json!(t.status), data["transactionStatus"]);
            assert_eq!(
                json!(t.start_timestamp),
                data["transactionStartTimestampMs"]
            );
            assert_eq!(
                json!(t.previous_producer_id),
                data.get("previousProducerId").cloned().unwrap_or(json!(-1))
            );
            assert_eq!(
                json!(t.next_producer_epoch),
                data.get("nextProducerEpoch").cloned().unwrap_or(json!(-1))
            );
            assert_eq!(
                json!(t.client_transaction_version),
                data.get("clientTransactionVersion")
                    .cloned()
                    .unwrap_or(json!(0))
            );
            let parts = data["transactionPartitions"].as_array();
            assert_eq!(t.partitions.as_ref().map(Vec::len), parts.map(Vec::len));
        }
        for version in 0..=3 {
            let data = sample_message(&CONSUMER_PROTOCOL_SUBSCRIPTION, version, &mut rng);
            let s = parse_consumer_subscription(&value_bytes(
                &CONSUMER_PROTOCOL_SUBSCRIPTION,
                version,
                &data,
            ))
            .unwrap();
            assert_eq!(json!(s.topics), data["topics"]);
            if version >= 2 {
                assert_eq!(json!(s.generation_id), data["generationId"]);
            }
            let data = sample_message(&CONSUMER_PROTOCOL_ASSIGNMENT, version, &mut rng);
            let a = parse_consumer_assignment(&value_bytes(
                &CONSUMER_PROTOCOL_ASSIGNMENT,
                version,
                &data,
            ))
            .unwrap();
            assert_eq!(
                a.partitions.len(),
                data["assignedPartitions"].as_array().unwrap().len()
            );
        }
    }
}

proptest::proptest! {
    #[test]
    fn decoding_arbitrary_bytes_never_panics(data: Vec<u8>, t in -1i16..25) {
        let _ = decode_offsets_key(&data);
        let _ = decode_offsets_value(t, &data);
        let _ = decode_transaction_key(&data);
        let _ = decode_transaction_value(t, &data);
        let _ = decode_share_state_key(&data);
        let _ = decode_share_state_value(t, &data);
        let _ = decode_metadata_record(&data);
        let _ = group_of_key(&data);
        let _ = parse_offset_commit(&data, &data);
        let _ = parse_group_metadata(&data);
        let _ = parse_transaction_value(&data);
        let _ = parse_consumer_subscription(&data);
        let _ = parse_consumer_assignment(&data);
    }

    /// Valid records with a few bytes flipped or cut: errors, never panics.
    #[test]
    fn damaged_records_never_panic(seed: u64, cut in 0usize..64, flip in 0usize..64, bits: u8) {
        let mut rng = Rng(seed);
        for (t, _, v) in GROUP_RECORDS.iter().chain(TRANSACTION_RECORDS).chain(SHARE_STATE_RECORDS) {
            for version in v.valid.lowest..=v.valid.highest {
                let data = sample_message(v, version, &mut rng);
                let mut bytes = value_bytes(v, version, &data);
                if !bytes.is_empty() {
                    let i = flip % bytes.len();
                    bytes[i] ^= bits;
                }
                bytes.truncate(bytes.len().saturating_sub(cut % 8));
                let _ = decode_offsets_value(*t, &bytes);
                let _ = decode_transaction_value(*t, &bytes);
                let _ = decode_share_state_value(*t, &bytes);
                let _ = parse_group_metadata(&bytes);
                let _ = parse_transaction_value(&bytes);
            }
        }
        for (api_key, _, msg) in METADATA_RECORDS.iter().chain(REMOTE_LOG_METADATA_RECORDS) {
            let data = sample_message(msg, msg.valid.highest, &mut rng);
            let mut bytes = vec![1, *api_key as u8, msg.valid.highest as u8];
            bytes.extend(encode_json(msg, msg.valid.highest, &data));
            let i = flip % bytes.len();
            bytes[i] ^= bits;
            bytes.truncate(bytes.len().saturating_sub(cut % 8));
            let _ = decode_metadata_record(&bytes);
            let _ = decode_remote_log_metadata_record(&bytes);
        }
    }
}

#[path = "coordinator_json_testing.rs"]
pub(crate) mod testing;

fn text_of(
    decoder: kseg_format::internal::InternalDecoder,
    offset: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> (Option<String>, Option<String>) {
    let d = kseg_format::internal::decode_record(decoder, key, value);
    let mut scratch = Vec::new();
    let (k, v) = write_decoded_text(&mut scratch, &d, offset, key, value);
    let s = |r: Option<std::ops::Range<usize>>| {
        r.map(|r| String::from_utf8(scratch[r].to_vec()).unwrap())
    };
    (s(k), s(v))
}

fn json_of(
    decoder: kseg_format::internal::InternalDecoder,
    offset: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> Value {
    let d = kseg_format::internal::decode_record(decoder, key, value);
    let mut out = b"{\"x\":0".to_vec();
    write_decoded_json(&mut out, &d, offset, key, value);
    out.push(b'}');
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn offset_commit_shapes_and_tombstones() {
    use kseg_format::internal::InternalDecoder::Offsets;
    let key = hex("0001 0001 67 0001 74 00000000");
    let value = hex("0003 000000000000002a 00000000 0000 0000018bcfe56800");
    let (k, v) = text_of(Offsets, 7, Some(&key), Some(&value));
    assert_eq!(
        k.as_deref(),
        Some(r#"{"type":"1","data":{"group":"g","topic":"t","partition":0}}"#)
    );
    assert_eq!(
        v.as_deref(),
        Some(
            r#"{"version":"3","data":{"offset":42,"leaderEpoch":0,"metadata":"","commitTimestamp":1700000000000}}"#
        )
    );
    assert_eq!(
        text_of(Offsets, 7, Some(&key), None).1.as_deref(),
        Some("<DELETE>")
    );
    let j = json_of(Offsets, 7, Some(&key), None);
    assert_eq!(j["decodedValue"], "<DELETE>");
    assert_eq!(j["decodedKey"]["data"]["group"], "g");
}

#[test]
fn undecoded_records_are_raw_and_do_not_abort() {
    use kseg_format::internal::InternalDecoder::{ClusterMetadata, Offsets, RemoteLogMetadata};
    let key: &[u8] = &[0x7f, 0xff, 0, 1, 0x41];
    let (k, v) = text_of(Offsets, 0, Some(key), Some(&[1, 2]));
    assert_eq!(
        k.as_deref(),
        Some("Unknown record type 32767 at offset 0, skipping. (key hex: 7fff000141, value hex: 0102)")
    );
    assert_eq!(v, None);
    let j = json_of(Offsets, 0, Some(key), Some(&[1, 2]));
    assert_eq!(
        j["decodedKey"],
        json!({"undecoded": true, "recordType": 32767, "reason": "Unknown record type 32767 at offset 0, skipping.", "keyHex": "7fff000141", "valueHex": "0102"})
    );
    assert!(j.get("decodedValue").is_none());
    // A damaged value: "Error at offset", in the key slot, as Kafka prints it.
    let good_key = hex("0001 0001 67 0001 74 00000000");
    let (k, _) = text_of(Offsets, 3, Some(&good_key), Some(&[0, 9]));
    assert_eq!(
        k.as_deref(),
        Some("Error at offset 3, skipping. Unknown version 9 of OffsetCommitValue (key hex: 000100016700017400000000, value hex: 0009)")
    );
    let (k, _) = text_of(Offsets, 4, None, Some(&[0]));
    assert_eq!(
        k.as_deref(),
        Some("Failed to decode message at offset 4 using the specified decoder (message had a missing key)")
    );
    let (_, v) = text_of(ClusterMetadata, 5, None, Some(&[0]));
    assert_eq!(
        v.as_deref(),
        Some("Error at 5, skipping. Could not deserialize metadata record with frame version 0 (the preview KRaft format of Kafka 2.8) (key hex: null, value hex: 00)")
    );
    let (_, v) = text_of(RemoteLogMetadata, 6, None, None);
    assert_eq!(
        v.as_deref(),
        Some("Error at offset 6, skipping. metadata record without a value")
    );
    let j = json_of(ClusterMetadata, 5, None, Some(&[0]));
    assert_eq!(j["decodedValue"]["recordType"], Value::Null);
    assert_eq!(j["decodedValue"]["valueHex"], "00");
}
