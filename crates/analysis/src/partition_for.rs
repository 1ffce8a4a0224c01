//! Which coordinator partition a group id or transactional id lives in: Kafka's
//! `Utils.abs(id.hashCode()) % partitionCount`.

pub use kseg_format::java_order::java_string_hash;

/// Kafka's `Utils.abs`: like `Math.abs`, except that `Integer.MIN_VALUE` maps to 0.
pub fn kafka_abs(n: i32) -> i32 {
    if n == i32::MIN {
        0
    } else {
        n.abs()
    }
}

/// The id a coordinator record key is about, whatever its record type: every group-coordinator
/// key and the transaction-log key are an int16 record type followed by the id as an
/// int16-length string.
pub fn coordinator_key_id(key: &[u8]) -> Option<(i16, &str)> {
    let mut r = kseg_format::reader::Reader::new(key);
    let record_type = r.i16("record type").ok()?;
    let id = r.string("id").ok()?;
    Some((record_type, id))
}

pub fn partition_for(id: &str, partitions: u32) -> u32 {
    (kafka_abs(java_string_hash(id)) as u32) % partitions.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vectors() {
        assert_eq!(java_string_hash("b1.offsets.group"), 1463411122);
        assert_eq!(partition_for("b1.offsets.group", 50), 22);
        assert_eq!(java_string_hash("b1.proto.consumer.group"), -1396975668);
        assert_eq!(partition_for("b1.proto.consumer.group", 50), 18);
        assert_eq!(partition_for("my-group", 50), 12);
        assert_eq!(java_string_hash("polygenelubricants"), i32::MIN);
        assert_eq!(partition_for("polygenelubricants", 50), 0);
        assert_eq!(partition_for("𝄞group", 50), 47);
        assert_eq!(partition_for("foo", 10), 4);
        assert_eq!(partition_for("😀", 50), 49);
        assert_eq!(partition_for("group-😀", 50), 7);
        assert_eq!(partition_for("", 50), 0);
        assert_eq!(partition_for("a", 2), 1);
        assert_eq!(partition_for("b", 2), 0);
        assert_eq!(partition_for("default_", 50), 44);
    }

    /// An independent model of Java semantics: i64 arithmetic reduced mod 2^32 at the end,
    /// with surrogate pairs computed by hand.
    fn model(s: &str) -> i32 {
        let mut h: i64 = 0;
        for ch in s.chars() {
            let cp = ch as u32;
            let units: Vec<u32> = if cp >= 0x10000 {
                let v = cp - 0x10000;
                vec![0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)]
            } else {
                vec![cp]
            };
            for u in units {
                h = (h * 31 + u as i64).rem_euclid(1 << 32);
            }
        }
        h as u32 as i32
    }

    proptest::proptest! {
        #[test]
        fn matches_java_model(s: String, n in 1u32..200) {
            let h = model(&s);
            proptest::prop_assert_eq!(java_string_hash(&s), h);
            let abs = if h == i32::MIN { 0 } else { (h as i64).abs() };
            proptest::prop_assert_eq!(partition_for(&s, n) as i64, abs % n as i64);
        }
    }
}
