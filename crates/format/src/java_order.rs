//! The iteration orders of the JVM hash maps Kafka writes its files from, so that kseg writes
//! the same entries in the same order: Java's `HashMap` and `ConcurrentHashMap`, and Scala 2.13's
//! `mutable.AnyRefMap` (the one Kafka's `ReplicaManager` writes `replication-offset-checkpoint`
//! from). Each works on the keys' Java `hashCode` values in insertion order and returns the
//! positions of the keys in iteration order. Pure arithmetic, no I/O.

/// Java's `String.hashCode`: `31 * h + c` over UTF-16 code units with 32-bit wrap-around.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(c as i32))
}

/// `TopicPartition.hashCode`: `31 * (31 + partition) + topic.hashCode()`.
pub fn topic_partition_hash(topic: &str, partition: i32) -> i32 {
    31i32
        .wrapping_add(partition)
        .wrapping_mul(31)
        .wrapping_add(java_string_hash(topic))
}

/// `HashMap.hash`: the high half folded into the low one.
fn spread(hash: i32) -> u32 {
    let h = hash as u32;
    h ^ (h >> 16)
}

/// A Java `HashMap` that keys are only added to: buckets in index order, each bucket's keys in
/// insertion order (a resize splits a bucket keeping that order). The table starts at 16 slots
/// and doubles when the size passes 3/4 of it, or when a bucket reaches 9 keys while the table
/// has fewer than 64 slots (`treeifyBin`). A bucket of 9 or more keys in a larger table becomes
/// a red-black tree, whose order is not modelled ([`Self::treeified`]).
#[derive(Debug, Clone, Default)]
pub struct JavaHashMapOrder {
    hashes: Vec<i32>,
    capacity: usize,
    bucket_len: Vec<u32>,
    treeified: bool,
}

impl JavaHashMapOrder {
    fn bucket(&self, hash: i32) -> usize {
        spread(hash) as usize & (self.capacity - 1)
    }

    fn resize(&mut self, capacity: usize) {
        self.capacity = capacity;
        self.bucket_len = vec![0; capacity];
        for i in 0..self.hashes.len() {
            let b = self.bucket(self.hashes[i]);
            self.bucket_len[b] += 1;
        }
    }

    /// Adds a key not in the map yet (`HashMap.putVal` of a new key), by its `hashCode`.
    pub fn insert(&mut self, hash: i32) {
        if self.capacity == 0 {
            self.resize(16);
        }
        let b = self.bucket(hash);
        let chain = self.bucket_len[b];
        self.hashes.push(hash);
        self.bucket_len[b] += 1;
        if chain >= 8 {
            if self.capacity < 64 {
                self.resize(self.capacity * 2);
            } else {
                self.treeified = true;
            }
        }
        if self.hashes.len() > self.capacity / 4 * 3 {
            self.resize(self.capacity * 2);
        }
    }

    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The table's size (0 before the first key).
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether a bucket became a tree: the order of its keys is then not Java's.
    pub fn treeified(&self) -> bool {
        self.treeified
    }

    /// The positions (in insertion order) of the keys, as the map iterates them.
    pub fn order(&self) -> Vec<usize> {
        let mut at: Vec<usize> = (0..self.hashes.len()).collect();
        if self.capacity > 0 {
            at.sort_by_key(|i| self.bucket(self.hashes[*i]));
        }
        at
    }
}

/// A Java `ConcurrentHashMap` filled by one thread, keys only added: bins in index order, each
/// bin's keys in insertion order. The table starts at 16 bins and doubles when the count
/// reaches 3/4 of it (`addCount` against `sizeCtl`). A resize (`transfer`) rebuilds a bin's
/// list partly reversed, and concurrent inserters interleave: the order of keys sharing a bin
/// is therefore not modelled (insertion order is assumed).
pub fn concurrent_hash_map_order(hashes: &[i32]) -> Vec<usize> {
    let mut bins = 16usize;
    while hashes.len() >= bins / 4 * 3 {
        bins *= 2;
    }
    let mut at: Vec<usize> = (0..hashes.len()).collect();
    // ConcurrentHashMap.spread also clears the sign bit, which no bin index reaches.
    at.sort_by_key(|i| spread(hashes[*i]) as usize & (bins - 1));
    at
}

/// Scala 2.13's `mutable.AnyRefMap` built by `put`s of new keys into `new AnyRefMap()`: open
/// addressing over a table of 16 slots, the key's slot found from a MurmurHash3-finalised
/// `hashCode` and probed on collision; the table repacks (doubling, keys re-placed in slot
/// order) when the size passes half of it. It iterates its slots in index order.
pub fn scala_any_ref_map_order(hashes: &[i32]) -> Vec<usize> {
    fn hash_of(h: i32) -> i32 {
        let h = h as u32;
        let i = (h ^ (h >> 16)).wrapping_mul(0x85EB_CA6B);
        let j = ((i ^ (i >> 13)) & 0x7FFF_FFFF) as i32;
        if j == 0 {
            0x4108_1989
        } else {
            j
        }
    }
    fn place(slots: &mut [Option<(i32, usize)>], mask: usize, h: i32, key: usize) {
        let mut e = h as usize & mask;
        let mut x = 0usize;
        while slots[e].is_some() {
            x += 1;
            e = (e + 2 * (x + 1) * x - 3) & mask;
        }
        slots[e] = Some((h, key));
    }
    let mut mask = 15usize;
    let mut slots: Vec<Option<(i32, usize)>> = vec![None; mask + 1];
    for (key, &hash) in hashes.iter().enumerate() {
        place(&mut slots, mask, hash_of(hash), key);
        let size = key + 1;
        // `imbalanced`: size (no vacant slots: nothing is removed) over half the mask.
        if size as f64 > 0.5 * mask as f64 {
            // `repack()`: double when at least half full, then shrink while 8 * size < mask.
            let mut m = mask;
            if size as f64 >= 0.5 * mask as f64 {
                m = ((m << 1) + 1) & 0x3FFF_FFFF;
            }
            while m > 8 && 8 * size < m {
                m >>= 1;
            }
            let old = std::mem::replace(&mut slots, vec![None; m + 1]);
            mask = m;
            for (h, k) in old.into_iter().flatten() {
                place(&mut slots, mask, h, k);
            }
        }
    }
    slots.into_iter().flatten().map(|(_, k)| k).collect()
}

/// The order `LogManager` writes `recovery-point-offset-checkpoint` and
/// `log-start-offset-checkpoint` in: its logs (`currentLogs`, a `ConcurrentHashMap`) copied
/// into a `HashMap` per log dir (`logsByDir`), then collected into another `HashMap`
/// (`Collectors.toMap`) that `OffsetCheckpointFile.write` iterates. Keys are
/// `(topic, partition)`, given in the order the logs were loaded.
pub fn log_manager_checkpoint_order(keys: &[(&str, i32)]) -> Vec<usize> {
    let hashes: Vec<i32> = keys
        .iter()
        .map(|(t, p)| topic_partition_hash(t, *p))
        .collect();
    let mut by_dir = JavaHashMapOrder::default();
    let current = concurrent_hash_map_order(&hashes);
    for &i in &current {
        by_dir.insert(hashes[i]);
    }
    let inserted: Vec<usize> = by_dir.order().into_iter().map(|j| current[j]).collect();
    let mut collected = JavaHashMapOrder::default();
    for &i in &inserted {
        collected.insert(hashes[i]);
    }
    collected.order().into_iter().map(|j| inserted[j]).collect()
}

/// The order `ReplicaManager.checkpointHighWatermarks` writes `replication-offset-checkpoint`
/// in: the hosted partitions (`allPartitions`, a `ConcurrentHashMap`) put into a Scala
/// `AnyRefMap` per log dir, which the write iterates.
pub fn replica_manager_checkpoint_order(keys: &[(&str, i32)]) -> Vec<usize> {
    let hashes: Vec<i32> = keys
        .iter()
        .map(|(t, p)| topic_partition_hash(t, *p))
        .collect();
    let hosted = concurrent_hash_map_order(&hashes);
    let in_order: Vec<i32> = hosted.iter().map(|&i| hashes[i]).collect();
    scala_any_ref_map_order(&in_order)
        .into_iter()
        .map(|j| hosted[j])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_java_s() {
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("abc"), 96354);
        assert_eq!(
            topic_partition_hash("t", 3),
            31 * (31 + 3) + java_string_hash("t")
        );
    }

    /// `replication-offset-checkpoint` and `recovery-point-offset-checkpoint` as a Kafka 4.4
    /// broker wrote them (the oracle's, after a restart), for `__transaction_state-0..49` and four
    /// topic partitions.
    const REPLICATION: &str = "__transaction_state 48,__transaction_state 6,__transaction_state 18,__transaction_state 30,__transaction_state 31,__transaction_state 32,__transaction_state 10,__transaction_state 29,__transaction_state 20,__transaction_state 5,__transaction_state 34,__transaction_state 49,__transaction_state 7,__transaction_state 47,__transaction_state 9,__transaction_state 35,__transaction_state 27,__transaction_state 42,__transaction_state 45,crash 0,stale-txn 0,__transaction_state 2,__transaction_state 19,__transaction_state 13,__transaction_state 38,__transaction_state 46,__transaction_state 23,__transaction_state 0,__transaction_state 22,__transaction_state 15,__transaction_state 39,__transaction_state 40,__transaction_state 16,__transaction_state 21,__transaction_state 14,__transaction_state 26,__transaction_state 17,__transaction_state 24,__transaction_state 41,__transaction_state 43,crash-txn 0,__transaction_state 37,crash 1,__transaction_state 44,__transaction_state 25,__transaction_state 3,__transaction_state 28,__transaction_state 11,__transaction_state 12,__transaction_state 33,__transaction_state 4,__transaction_state 1,__transaction_state 8,__transaction_state 36";
    const RECOVERY: &str = "__transaction_state 42,crash-txn 0,__transaction_state 13,__transaction_state 46,stale-txn 0,__transaction_state 17,__transaction_state 34,__transaction_state 5,__transaction_state 38,__transaction_state 9,__transaction_state 26,__transaction_state 30,__transaction_state 1,__transaction_state 18,__transaction_state 22,__transaction_state 12,__transaction_state 45,__transaction_state 16,__transaction_state 49,__transaction_state 4,__transaction_state 37,__transaction_state 8,crash 1,__transaction_state 41,__transaction_state 29,__transaction_state 0,__transaction_state 33,__transaction_state 21,__transaction_state 25,crash 0,__transaction_state 11,__transaction_state 44,__transaction_state 15,__transaction_state 48,__transaction_state 3,__transaction_state 36,__transaction_state 7,__transaction_state 40,__transaction_state 28,__transaction_state 32,__transaction_state 20,__transaction_state 24,__transaction_state 10,__transaction_state 43,__transaction_state 14,__transaction_state 47,__transaction_state 2,__transaction_state 35,__transaction_state 6,__transaction_state 39,__transaction_state 27,__transaction_state 31,__transaction_state 19,__transaction_state 23";

    fn keys_of(list: &str) -> Vec<(String, i32)> {
        list.split(',')
            .map(|e| {
                let (t, p) = e.split_once(' ').unwrap();
                (t.to_string(), p.parse().unwrap())
            })
            .collect()
    }

    #[test]
    fn kafka_4_4_checkpoint_orders() {
        // Loaded in name order (the model's input order does not matter but for keys sharing
        // a bucket).
        let mut keys = keys_of(REPLICATION);
        keys.sort();
        let refs: Vec<(&str, i32)> = keys.iter().map(|(t, p)| (t.as_str(), *p)).collect();
        let named = |order: Vec<usize>| -> Vec<(String, i32)> {
            order.into_iter().map(|i| keys[i].clone()).collect()
        };
        assert_eq!(
            named(replica_manager_checkpoint_order(&refs)),
            keys_of(REPLICATION)
        );
        // LogManager's order: by bucket of a 128-slot HashMap; keys sharing one (here
        // `__transaction_state-13` and `crash-txn-0`) follow the order the recovery threads
        // loaded them in.
        let recovery = named(log_manager_checkpoint_order(&refs));
        let bucket = |(t, p): &(String, i32)| spread(topic_partition_hash(t, *p)) & 127;
        assert_eq!(
            recovery.iter().map(bucket).collect::<Vec<_>>(),
            keys_of(RECOVERY).iter().map(bucket).collect::<Vec<_>>()
        );
        let mut sorted = recovery.clone();
        sorted.sort();
        assert_eq!(sorted, keys);
    }

    #[test]
    fn any_ref_map_repacks_at_half() {
        // Eight keys fit a 16-slot table only up to 7: the 8th repacks it to 32 slots, and
        // the order is by slot in the larger table.
        let hashes: Vec<i32> = (0..9).collect();
        let order = scala_any_ref_map_order(&hashes);
        let mut seen = order.clone();
        seen.sort();
        assert_eq!(seen, (0..9).collect::<Vec<_>>());
        assert_eq!(scala_any_ref_map_order(&[]), Vec::<usize>::new());
    }

    #[test]
    fn hash_map_keeps_insertion_order_within_a_bucket() {
        let mut m = JavaHashMapOrder::default();
        // 17 and 1 share a bucket of a 16-slot table; 17 was added first.
        for h in [17, 3, 1, 2] {
            m.insert(h);
        }
        assert_eq!(m.order(), vec![0, 2, 3, 1]);
        assert_eq!(concurrent_hash_map_order(&[17, 3, 1, 2]), vec![0, 2, 3, 1]);
    }
}
