//! The log cleaner's offset map as Kafka 4.4's `SkimpyOffsetMap` keeps it: one buffer of
//! `memory` bytes cut into 24-byte slots (a key's MD5, then the offset), open addressing that
//! probes the hash's successive big-endian ints, then linearly. Which offset a key maps to
//! equals a plain map of MD5 keys; the buffer is modelled to the byte so that the number of
//! slots, the memory it takes and where a pass stops (`entries >= slots * load factor`) are
//! Kafka's.

use md5::{Digest, Md5};

const HASH_SIZE: usize = 16;
/// `bytesPerEntry`: the hash plus an 8-byte offset.
pub const BYTES_PER_ENTRY: usize = HASH_SIZE + 8;

/// `SkimpyOffsetMap`: MD5 of the key -> the latest offset put for it.
pub struct OffsetMap {
    bytes: Vec<u8>,
    slots: usize,
    entries: usize,
    latest_offset: i64,
    hasher: Md5,
}

/// The map's memory for one cleaner thread (`LogCleaner`: `min(dedupe buffer / threads,
/// Integer.MAX_VALUE)`).
pub fn map_memory(dedupe_buffer_size: i64, threads: i64) -> usize {
    let per_thread = dedupe_buffer_size / threads.max(1);
    per_thread.clamp(0, i32::MAX as i64) as usize
}

/// The number of distinct keys a pass may put before it stops (`maxDesiredMapSize`:
/// `(int) (slots * dupBufferLoadFactor)`).
pub fn max_desired_entries(memory: usize, load_factor: f64) -> usize {
    let slots = memory / BYTES_PER_ENTRY;
    (slots as f64 * load_factor) as usize
}

impl OffsetMap {
    /// A map over `memory` bytes (allocated zeroed; pages are touched only where keys land).
    pub fn new(memory: usize) -> OffsetMap {
        let slots = memory / BYTES_PER_ENTRY;
        OffsetMap {
            bytes: vec![0; memory],
            slots,
            entries: 0,
            latest_offset: -1,
            hasher: Md5::new(),
        }
    }

    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Distinct keys put (`size`).
    pub fn len(&self) -> usize {
        self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// `latestOffset`: the last offset put or set.
    pub fn latest_offset(&self) -> i64 {
        self.latest_offset
    }

    /// `updateLatestOffset`.
    pub fn set_latest_offset(&mut self, offset: i64) {
        self.latest_offset = offset;
    }

    /// `utilization`: entries over slots.
    pub fn utilization(&self) -> f64 {
        if self.slots == 0 {
            0.0
        } else {
            self.entries as f64 / self.slots as f64
        }
    }

    fn hash(&mut self, key: &[u8]) -> [u8; HASH_SIZE] {
        self.hasher.update(key);
        self.hasher.finalize_reset().into()
    }

    /// `positionOf`: the hash's int at `min(attempt, 12)`, plus the attempts past 12 (linear
    /// probing), `Utils.abs` (MIN_VALUE is 0) modulo the slots.
    fn position_of(&self, hash: &[u8; HASH_SIZE], attempt: usize) -> usize {
        let at = attempt.min(HASH_SIZE - 4);
        let int = i32::from_be_bytes([hash[at], hash[at + 1], hash[at + 2], hash[at + 3]]);
        let linear = attempt.saturating_sub(HASH_SIZE - 4) as i32;
        let probe = int.wrapping_add(linear);
        let abs = if probe == i32::MIN { 0 } else { probe.abs() };
        (abs as usize % self.slots) * BYTES_PER_ENTRY
    }

    fn is_empty_at(&self, pos: usize) -> bool {
        self.bytes[pos..pos + BYTES_PER_ENTRY]
            .iter()
            .all(|&b| b == 0)
    }

    /// `get`: the offset put for `key`, or -1.
    pub fn get(&mut self, key: &[u8]) -> i64 {
        if self.slots == 0 {
            return -1;
        }
        let hash = self.hash(key);
        let max_attempts = self.slots + HASH_SIZE - 4;
        let mut attempt = 0;
        loop {
            if attempt >= max_attempts {
                return -1;
            }
            let pos = self.position_of(&hash, attempt);
            if self.is_empty_at(pos) {
                return -1;
            }
            attempt += 1;
            if self.bytes[pos..pos + HASH_SIZE] == hash {
                let o = &self.bytes[pos + HASH_SIZE..pos + BYTES_PER_ENTRY];
                return i64::from_be_bytes(o.try_into().expect("8 bytes"));
            }
        }
    }

    /// `put`: maps `key` to `offset` (a new key takes a slot). The caller keeps the map below
    /// its load factor, as the cleaner does; a full map refuses (Kafka throws).
    pub fn put(&mut self, key: &[u8], offset: i64) -> bool {
        if self.entries >= self.slots {
            return false;
        }
        let hash = self.hash(key);
        let mut attempt = 0;
        let mut pos = self.position_of(&hash, attempt);
        while !self.is_empty_at(pos) {
            if self.bytes[pos..pos + HASH_SIZE] == hash {
                self.bytes[pos + HASH_SIZE..pos + BYTES_PER_ENTRY]
                    .copy_from_slice(&offset.to_be_bytes());
                self.latest_offset = offset;
                return true;
            }
            attempt += 1;
            pos = self.position_of(&hash, attempt);
        }
        self.bytes[pos..pos + HASH_SIZE].copy_from_slice(&hash);
        self.bytes[pos + HASH_SIZE..pos + BYTES_PER_ENTRY].copy_from_slice(&offset.to_be_bytes());
        self.latest_offset = offset;
        self.entries += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[test]
    fn md5_is_the_digest_java_computes() {
        let mut m = OffsetMap::new(240);
        // RFC 1321's vector: MD5("abc").
        assert_eq!(
            hex(&m.hash(b"abc")),
            "900150983cd24fb0d6963f7d28e17f72".to_string()
        );
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn sizes_follow_the_cleaner_config() {
        // 128 MiB over one thread: 5,592,405 slots, 5,033,164 keys at 0.9.
        let mem = map_memory(128 << 20, 1);
        assert_eq!(mem / BYTES_PER_ENTRY, 5_592_405);
        assert_eq!(max_desired_entries(mem, 0.9), 5_033_164);
        assert_eq!(map_memory(8 << 30, 1), i32::MAX as usize);
        assert_eq!(map_memory(128 << 20, 4), 32 << 20);
    }

    #[test]
    fn keys_overwrite_and_misses_are_minus_one() {
        let mut m = OffsetMap::new(24 * 10);
        assert!(m.put(b"a", 5));
        assert!(m.put(b"b", 6));
        assert!(m.put(b"a", 7));
        assert_eq!(m.len(), 2);
        assert_eq!(m.get(b"a"), 7);
        assert_eq!(m.get(b"b"), 6);
        assert_eq!(m.get(b"c"), -1);
        assert_eq!(m.latest_offset(), 7);
    }

    proptest! {
        /// Against a plain map of keys with the same capacity: the same offsets, the same
        /// count of distinct keys, and the same stopping point (the first key put once the
        /// distinct keys reach `slots * 0.9`).
        #[test]
        fn agrees_with_a_plain_map(
            keys in proptest::collection::vec(proptest::collection::vec(0u8..12, 0..3), 0..400),
            slots in 1usize..64,
        ) {
            let memory = slots * BYTES_PER_ENTRY + 7;
            let limit = max_desired_entries(memory, 0.9);
            let mut skimpy = OffsetMap::new(memory);
            let mut plain: HashMap<Vec<u8>, i64> = HashMap::new();
            let mut stop_skimpy = None;
            for (offset, k) in keys.iter().enumerate() {
                if skimpy.len() < limit { skimpy.put(k, offset as i64); } else { stop_skimpy = Some(offset); break; }
            }
            let mut stop_plain = None;
            for (offset, k) in keys.iter().enumerate() {
                if plain.len() < limit { plain.insert(k.clone(), offset as i64); } else { stop_plain = Some(offset); break; }
            }
            prop_assert_eq!(stop_skimpy, stop_plain);
            prop_assert_eq!(skimpy.len(), plain.len());
            for k in &keys {
                prop_assert_eq!(skimpy.get(k), plain.get(k).copied().unwrap_or(-1));
            }
        }
    }
}
