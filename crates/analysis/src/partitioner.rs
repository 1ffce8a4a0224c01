//! The Java producer's default partitioner for keyed records: `toPositive(murmur2(key)) % n`.

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
}
