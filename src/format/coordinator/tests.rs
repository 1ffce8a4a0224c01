//! The decoder's typed values and error kinds (the printed JSON shapes are tested in
//! `print/coordinator_tests.rs`).

use super::encode::{encode_message, StructBuilder};
use super::tables::*;
use super::*;

fn hex(s: &str) -> Vec<u8> {
    hex::decode(s.replace(' ', "")).unwrap()
}

#[test]
fn strings_are_borrowed_from_the_record() {
    let key = hex("0001 0001 67 0001 74 00000007");
    let k = decode_offsets_key(&key).unwrap();
    let Some(Value::Str(group)) = k.data.get("group") else {
        panic!("{k:?}");
    };
    assert!(std::ptr::eq(group.as_ptr(), key[4..].as_ptr()));
    assert_eq!(k.data.str("topic").as_deref(), Some("t"));
    assert_eq!(k.data.int("partition"), Some(7));
}

#[test]
fn errors_are_kinds_with_positions() {
    let e = decode_offsets_key(&hex("7fff")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UnknownRecordType(32767));
    assert!(e.is_unknown());
    let e = decode_offsets_value(1, &hex("0005 0000")).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::UnknownVersion {
            version: 5,
            record: "OffsetCommitValue"
        }
    );
    // v3 value cut inside metadata: a read error at the string's bytes.
    let e = decode_offsets_value(1, &hex("0003 000000000000002a 00000000 0005 6869")).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Read { .. }), "{e:?}");
    assert_eq!(e.position, 16);
    assert!(!e.is_unknown());
    // A null group id (not nullable): position of the length.
    let e = decode_offsets_key(&hex("0002 ffff")).unwrap_err();
    assert_eq!(
        (e.position, e.kind),
        (2, ErrorKind::NullNotAllowed { field: "group" })
    );
    // A hostile member count in GroupMetadataValue v0 (after version, "", generation, two
    // null strings: byte 12).
    let e = decode_offsets_value(2, &hex("0000 0000 00000001 ffff ffff 7fffffff")).unwrap_err();
    assert_eq!(
        (e.position, e.kind),
        (
            12,
            ErrorKind::CountTooLarge {
                field: "members",
                count: 0x7fff_ffff,
                left: 0
            }
        )
    );
    let e = decode_metadata_record(&hex("00")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::FrameVersion0);
    // The text is the kind's Display, the same message as before the kinds.
    assert_eq!(
        ErrorKind::UnknownRecordType(9).to_string(),
        "Unknown record type 9"
    );
}

#[test]
fn a_tagged_field_of_the_wrong_size_is_an_error() {
    // OffsetCommitValue v4 with a topic id tag declaring 17 bytes.
    let mut v = hex("0004 000000000000002a 00000000 01 0000018bcfe56800 01 00 11");
    v.extend_from_slice(&[0; 17]);
    let e = decode_offsets_value(1, &v).unwrap_err();
    assert!(
        matches!(
            e.kind,
            ErrorKind::TagSize {
                tag: 0,
                declared: 17,
                used: 16,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn transaction_status_is_named_and_consumer_bytes_embedded() {
    let v0 =
        hex("0000 000000000000007b 0000 00000000 01 00000000 0000000000000000 0000000000000000");
    let v = decode_transaction_value(0, &v0).unwrap();
    assert_eq!(
        v.data.get("transactionStatus"),
        Some(&Value::Named {
            id: 1,
            name: Some("Ongoing")
        })
    );
    // A consumer group member whose subscription decodes (v0: topics ["t"], userData null).
    let sub = hex("0000 00000001 0001 74 ffffffff");
    let mut g = hex("0000 0008 636f6e73756d6572 00000001 ffff ffff 00000001");
    g.extend_from_slice(&hex("0001 6d 0001 63 0001 68 00000064"));
    g.extend_from_slice(&(sub.len() as i32).to_be_bytes());
    g.extend_from_slice(&sub);
    g.extend_from_slice(&hex("00000000"));
    let v = decode_offsets_value(2, &g).unwrap();
    let members = v.data.get("members").and_then(Value::as_array).unwrap();
    let m = members[0].as_struct().unwrap();
    let Some(Value::Embedded(e)) = m.get("subscription") else {
        panic!("{m:?}");
    };
    assert_eq!((e.version, e.bytes), (0, &sub[..]));
    assert_eq!(
        e.data.get("topics"),
        Some(&Value::Array(vec![Value::Str(b"t")]))
    );
    // The encoder writes the embedded bytes back as they were.
    let mut out = 0i16.to_be_bytes().to_vec();
    encode_message(&GROUP_METADATA_VALUE, 0, &v.data, &mut out).unwrap();
    assert_eq!(out, g);
}

#[test]
fn the_encoder_writes_what_the_decoder_reads() {
    let value = StructBuilder::new(&OFFSET_COMMIT_VALUE)
        .set("offset", Value::Int(42))
        .set("leaderEpoch", Value::Int(-1))
        .set("metadata", Value::Str(b""))
        .set("commitTimestamp", Value::Int(1_700_000_000_000))
        .set("topicId", Value::Uuid([7; 16]))
        .build();
    let mut bytes = 4i16.to_be_bytes().to_vec();
    encode_message(&OFFSET_COMMIT_VALUE, 4, &value, &mut bytes).unwrap();
    let v = decode_offsets_value(1, &bytes).unwrap();
    assert_eq!(v.data, value);
    // A tagged field at its default is not kept by the decoder.
    let at_default = StructBuilder::new(&OFFSET_COMMIT_VALUE)
        .set("offset", Value::Int(42))
        .set("leaderEpoch", Value::Int(-1))
        .set("metadata", Value::Str(b""))
        .set("commitTimestamp", Value::Int(1))
        .set("topicId", Value::Uuid([0; 16]))
        .build();
    let mut bytes = 4i16.to_be_bytes().to_vec();
    encode_message(&OFFSET_COMMIT_VALUE, 4, &at_default, &mut bytes).unwrap();
    let v = decode_offsets_value(1, &bytes).unwrap();
    assert_eq!(v.data.get("topicId"), None);
    // A missing field is the caller's error, not a panic.
    let missing = StructBuilder::new(&OFFSET_COMMIT_VALUE)
        .set("offset", Value::Int(1))
        .build();
    assert!(encode_message(&OFFSET_COMMIT_VALUE, 4, &missing, &mut Vec::new()).is_err());
}

#[test]
fn what_the_wire_cannot_carry_is_an_error_never_a_wrapped_value() {
    // The case: a 40,000-byte group id. Written with a wrapped int16 length it made a
    // key nothing can decode; now the write is refused, and 0x7fff bytes still round-trip.
    let key = |group: &[u8]| {
        let v = StructBuilder::new(&OFFSET_COMMIT_KEY)
            .set("group", Value::Str(group))
            .set("topic", Value::Str(b"t"))
            .set("partition", Value::Int(0))
            .build();
        Coordinator::Group.encode_key(1, &v)
    };
    let long = vec![b'g'; 40_000];
    let err = key(&long).unwrap_err();
    assert_eq!(
        err.message,
        "group: a length of 40000 is over the 32767 the wire can carry"
    );
    let longest = vec![b'g'; encode::MAX_STRING_BYTES];
    let bytes = key(&longest).unwrap();
    let decoded = decode_offsets_key(&bytes).unwrap();
    assert_eq!(decoded.data.get("group"), Some(&Value::Str(&longest[..])));

    // The compact encoding has the same string limit (Kafka's writers check both).
    let value = |metadata: &[u8], leader_epoch: i64| {
        let v = StructBuilder::new(&OFFSET_COMMIT_VALUE)
            .set("offset", Value::Int(1))
            .set("leaderEpoch", Value::Int(leader_epoch))
            .set("metadata", Value::Str(metadata))
            .set("commitTimestamp", Value::Int(1))
            .build();
        Coordinator::Group.encode_value(1, 4, &v)
    };
    assert!(value(&long, -1).is_err());
    assert!(value(&longest, -1).is_ok());
    // An integer outside its field's range is refused, not wrapped (leaderEpoch is int32).
    let err = value(b"", i64::from(i32::MAX) + 1).unwrap_err();
    assert_eq!(
        err.message,
        "leaderEpoch: 2147483648 is outside -2147483648..=2147483647"
    );
    assert!(value(b"", i64::from(i32::MIN)).is_ok());
}

#[test]
fn metadata_records_encode_as_kafka_frames_them() {
    // FeatureLevelRecord v0 metadata.version=33, as `kafka-storage format` of Kafka 4.4 wrote
    // it into the bootstrap checkpoint (23 bytes).
    let feature = StructBuilder::new(&FEATURE_LEVEL_RECORD)
        .set("name", Value::Str(b"metadata.version"))
        .set("featureLevel", Value::Int(33))
        .build();
    let bytes = encode_metadata_record(12, 0, &feature).unwrap();
    assert_eq!(
        bytes,
        hex("01 0c 00 11 6d657461646174612e76657273696f6e 0021 00")
    );
    let back = decode_metadata_record(&bytes).unwrap();
    assert_eq!((back.name, back.version), ("FEATURE_LEVEL_RECORD", 0));
    assert_eq!(back.data, feature);
    // A PartitionRecord v2 with its tagged fields round-trips.
    let b = StructBuilder::new(&PARTITION_RECORD);
    let partition = b
        .set("partitionId", Value::Int(3))
        .set("topicId", Value::Uuid([9; 16]))
        .set("replicas", Value::Array(vec![Value::Int(1)]))
        .set("isr", Value::Array(vec![Value::Int(1)]))
        .set("removingReplicas", Value::Array(vec![]))
        .set("addingReplicas", Value::Array(vec![]))
        .set("leader", Value::Int(1))
        .set("leaderEpoch", Value::Int(4))
        .set("partitionEpoch", Value::Int(2))
        .set("directories", Value::Array(vec![Value::Uuid([5; 16])]))
        .build();
    let bytes = encode_metadata_record(3, 2, &partition).unwrap();
    let back = decode_metadata_record(&bytes).unwrap();
    assert_eq!(back.data, partition);
    // An unknown type or version is refused.
    assert!(encode_metadata_record(99, 0, &feature).is_err());
    assert!(encode_metadata_record(12, 7, &feature).is_err());
}
