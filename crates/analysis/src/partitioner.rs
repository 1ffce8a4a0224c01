//! The producers' partitioners for keyed records: which partition a client puts a key in.
//! The Java producer's default is `toPositive(murmur2(key)) % n` ([`partition_for_key`]);
//! librdkafka's default (`consistent_random`: confluent-kafka, kcat, and the other librdkafka
//! clients) is `crc32(key) % n`; sarama's default (`NewHashPartitioner`) is FNV-1a. A search
//! by key is pruned to one partition only when the user names the partitioner ([`Partitioner`]).

/// Kafka's `Utils.murmur2` (MurmurHash2, seed 0x9747b28c) over the key bytes.
pub fn murmur2(data: &[u8]) -> i32 {
    const M: i32 = 0x5bd1_e995;
    const R: u32 = 24;
    let length = data.len() as i32;
    let mut h: i32 = (0x9747_b28c_u32 as i32) ^ length;
    let mut chunks = data.chunks_exact(4);
    for c in chunks.by_ref() {
        let mut k = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(M);
        k ^= ((k as u32) >> R) as i32;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = chunks.remainder();
    if tail.len() == 3 {
        h ^= (tail[2] as i32) << 16;
    }
    if tail.len() >= 2 {
        h ^= (tail[1] as i32) << 8;
    }
    if !tail.is_empty() {
        h ^= tail[0] as i32;
        h = h.wrapping_mul(M);
    }
    h ^= ((h as u32) >> 13) as i32;
    h = h.wrapping_mul(M);
    h ^= ((h as u32) >> 15) as i32;
    h
}

/// `BuiltInPartitioner.partitionForKey`: `Utils.toPositive(murmur2(key)) % numPartitions`.
pub fn partition_for_key(key: &[u8], partitions: u32) -> u32 {
    ((murmur2(key) & 0x7fff_ffff) as u32) % partitions.max(1)
}

/// 32-bit FNV-1a (Go's `hash/fnv` `New32a`, librdkafka's `rd_fnv1a` before its sign fix-up).
pub fn fnv1a_32(data: &[u8]) -> u32 {
    data.iter().fold(0x811c_9dc5_u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// A producer's partitioner for keyed records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Partitioner {
    /// The Java producer's `BuiltInPartitioner` (also librdkafka's `murmur2_random`).
    Murmur2,
    /// librdkafka's `consistent_random`, its default: `rd_crc32(key) % n` (CRC-32/IEEE as
    /// zlib computes it, unsigned), a random partition for an empty key.
    Crc32,
    /// sarama's `NewHashPartitioner`, its default: `int32(fnv1a(key)) % n`, negated when
    /// negative (Go's `%` keeps the dividend's sign); librdkafka's `fnv1a_random` gives the same.
    Fnv1a,
}

impl Partitioner {
    pub const ALL: [Partitioner; 3] =
        [Partitioner::Murmur2, Partitioner::Crc32, Partitioner::Fnv1a];

    /// The name `--partitioner` takes.
    pub fn name(self) -> &'static str {
        match self {
            Partitioner::Murmur2 => "murmur2",
            Partitioner::Crc32 => "crc32",
            Partitioner::Fnv1a => "fnv1a",
        }
    }

    /// The clients whose default it is.
    pub fn default_of(self) -> &'static str {
        match self {
            Partitioner::Murmur2 => "the Java producer's default",
            Partitioner::Crc32 => "librdkafka's default: confluent-kafka, kcat",
            Partitioner::Fnv1a => "sarama's default",
        }
    }

    /// The partition of `partitions` this partitioner gives a record whose key is `key` (not
    /// null), or `None` when it places such a key at random: librdkafka's `consistent_random`
    /// treats an empty key as no key (`keylen == 0`). The Java producer hashes an empty key;
    /// sarama hashes any key that is not nil.
    pub fn partition(self, key: &[u8], partitions: u32) -> Option<u32> {
        let n = partitions.max(1);
        match self {
            Partitioner::Murmur2 => Some(partition_for_key(key, n)),
            Partitioner::Crc32 if key.is_empty() => None,
            Partitioner::Crc32 => Some(crc32fast::hash(key) % n),
            Partitioner::Fnv1a => {
                // Go: int32(h) % int32(n), then the sign dropped; i64 keeps i32::MIN exact.
                let h = i64::from(fnv1a_32(key) as i32);
                Some((h % i64::from(n)).unsigned_abs() as u32)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kafka_utils_test_vectors() {
        // clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java
        assert_eq!(murmur2(b"21"), -973932308);
        assert_eq!(murmur2(b"foobar"), -790332482);
        assert_eq!(murmur2(b"a-little-bit-long-string"), -985981536);
        assert_eq!(murmur2(b"a-little-bit-longer-string"), -1486304829);
        assert_eq!(
            murmur2(b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"),
            -58897971
        );
        assert_eq!(murmur2(b"abc"), 479470107);
        // librdkafka's rdmurmur2.c unit test ("java_murmur2_results").
        assert_eq!(murmur2(b"kafka"), 0xd067cf64_u32 as i32);
        assert_eq!(murmur2(b"giberish123456789"), 0x8f552b0c_u32 as i32);
        assert_eq!(murmur2(b""), 0x106e08d9);
    }

    #[test]
    fn seed_scenario_lands_6_12_12() {
        // 30 records book-{i%5}: one key lands in p0, two in p1, two in p2 (6 records each).
        let mut counts = [0; 3];
        for i in 1..=30 {
            counts[partition_for_key(format!("book-{}", i % 5).as_bytes(), 3) as usize] += 1;
        }
        assert_eq!(counts, [6, 12, 12]);
    }

    /// sarama's `TestConsistentCRCHashPartitioner` (its CRC partitioner is built to agree with
    /// librdkafka's `consistent`): unsigned CRC-32 modulo 100.
    #[test]
    fn crc32_as_librdkafka_places_keys() {
        for (key, partition) in [
            ("abc123def456", 57),
            ("SheetJS", 26),
            ("9e8c7f4cf45857cfff7645d6", 24),
            ("3900446192ff85a5f67da10c", 75),
            ("0f4407b7a67d6d27de372198", 50),
        ] {
            assert_eq!(
                Partitioner::Crc32.partition(key.as_bytes(), 100),
                Some(partition),
                "{key}"
            );
        }
        assert_eq!(Partitioner::Crc32.partition(b"", 100), None);
    }

    /// librdkafka's `rdfnv1a.c` unit test (values from Go's `hash/fnv`, sign dropped as
    /// sarama's `NewHashPartitioner` drops it), and sarama's key whose hash is `i32::MIN`.
    #[test]
    fn fnv1a_as_sarama_places_keys() {
        let abs = |k: &[u8]| (fnv1a_32(k) as i32).unsigned_abs();
        assert_eq!(abs(b"kafka"), 0xd33c4e1);
        assert_eq!(abs(b"giberish123456789"), 0x77a58295);
        assert_eq!(abs(b"1234"), 0x23bdd03);
        assert_eq!(abs(b"234"), 0x2dea3cd2);
        assert_eq!(abs(b"PreAmbleWillBeRemoved,ThePrePartThatIs"), 0x65cbd69c);
        assert_eq!(abs(b""), 0x7ee3623b);
        assert_eq!(fnv1a_32(b"1468509572224"), 0x8000_0000);
        // Go: int32(0x80000000) % 50 = -48, negated.
        assert_eq!(Partitioner::Fnv1a.partition(b"1468509572224", 50), Some(48));
        for key in [&b"kafka"[..], b"giberish123456789", b"1234", b""] {
            let p = Partitioner::Fnv1a.partition(key, 7).unwrap();
            assert_eq!(p, abs(key) % 7, "{key:?}");
        }
    }

    proptest::proptest! {
        /// Every partitioner's answer is a partition of the topic, whatever the key and count.
        #[test]
        fn partitions_are_in_range(key: Vec<u8>, n in 1u32..5000) {
            for p in Partitioner::ALL {
                if let Some(x) = p.partition(&key, n) {
                    proptest::prop_assert!(x < n);
                }
            }
        }
    }
}
