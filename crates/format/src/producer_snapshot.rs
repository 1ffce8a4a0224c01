//! Producer-state snapshot files (`<offset>.snapshot`): version 1, CRC-32C, 46-byte entries;
//! the decoder, its encoder (`ProducerStateManager.writeSnapshot`), and the order Kafka writes
//! the entries in (its `HashMap<Long, ProducerStateEntry>`'s iteration order).

use super::java_order::JavaHashMapOrder;
use super::reader::{DecodeError, DecodeErrorKind, DecodeResult, Reader};

pub const ENTRY_SIZE: usize = 46;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerEntry {
    pub producer_id: i64,
    pub epoch: i16,
    pub last_sequence: i32,
    pub last_offset: i64,
    pub offset_delta: i32,
    pub timestamp: i64,
    pub coordinator_epoch: i32,
    pub current_txn_first_offset: i64,
}

impl ProducerEntry {
    /// Kafka keeps batch metadata only for entries with a last offset.
    pub fn has_batch_metadata(&self) -> bool {
        self.last_offset >= 0
    }
    /// Java's `DefaultRecordBatch.decrementSequence`: below zero it wraps to `i32::MAX`.
    pub fn first_sequence(&self) -> i32 {
        if self.last_sequence < self.offset_delta {
            i32::MAX
                .wrapping_sub(self.offset_delta.wrapping_sub(self.last_sequence))
                .wrapping_add(1)
        } else {
            self.last_sequence - self.offset_delta
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerSnapshot {
    pub version: i16,
    pub crc: u32,
    pub crc_valid: bool,
    pub entries: Vec<ProducerEntry>,
}

pub fn parse_producer_snapshot(bytes: &[u8]) -> DecodeResult<ProducerSnapshot> {
    let mut r = Reader::new(bytes);
    let version = r.i16("version")?;
    if version != 1 {
        return Err(DecodeError::unsupported(
            0,
            format!("snapshot version {version} is not the supported version 1"),
        ));
    }
    let crc = r.u32("crc")?;
    let crc_valid = crc32c::crc32c(r.rest()) == crc;
    let count = r.array_len("producer entries", ENTRY_SIZE)?.unwrap_or(0);
    let mut entries = Vec::with_capacity(count);
    for _ in 0..count {
        entries.push(ProducerEntry {
            producer_id: r.i64("producerId")?,
            epoch: r.i16("epoch")?,
            last_sequence: r.i32("lastSequence")?,
            last_offset: r.i64("lastOffset")?,
            offset_delta: r.i32("offsetDelta")?,
            timestamp: r.i64("timestamp")?,
            coordinator_epoch: r.i32("coordinatorEpoch")?,
            current_txn_first_offset: r.i64("currentTxnFirstOffset")?,
        });
    }
    if !r.is_empty() {
        return Err(r.error(
            DecodeErrorKind::Trailing,
            format!("{} bytes after the last producer entry", r.remaining()),
        ));
    }
    Ok(ProducerSnapshot {
        version,
        crc,
        crc_valid,
        entries,
    })
}

/// More entries than the file's INT32 count holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyEntries(pub usize);

impl std::fmt::Display for TooManyEntries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} producer entries do not fit a snapshot's INT32 count",
            self.0
        )
    }
}

impl std::error::Error for TooManyEntries {}

/// The snapshot file `ProducerStateManager.writeSnapshot` writes for `entries`, in the order
/// given: version 1, the CRC-32C of everything after it, the INT32 count and the entries.
pub fn encode_producer_snapshot(entries: &[ProducerEntry]) -> Result<Vec<u8>, TooManyEntries> {
    let count = i32::try_from(entries.len())
        .ok()
        .filter(|n| (*n as usize).checked_mul(ENTRY_SIZE).is_some())
        .ok_or(TooManyEntries(entries.len()))?;
    let mut out = Vec::with_capacity(10 + entries.len() * ENTRY_SIZE);
    out.extend_from_slice(&1i16.to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&count.to_be_bytes());
    for e in entries {
        out.extend_from_slice(&e.producer_id.to_be_bytes());
        out.extend_from_slice(&e.epoch.to_be_bytes());
        out.extend_from_slice(&e.last_sequence.to_be_bytes());
        out.extend_from_slice(&e.last_offset.to_be_bytes());
        out.extend_from_slice(&e.offset_delta.to_be_bytes());
        out.extend_from_slice(&e.timestamp.to_be_bytes());
        out.extend_from_slice(&e.coordinator_epoch.to_be_bytes());
        out.extend_from_slice(&e.current_txn_first_offset.to_be_bytes());
    }
    let crc = crc32c::crc32c(&out[6..]);
    out[2..6].copy_from_slice(&crc.to_be_bytes());
    Ok(out)
}

/// The iteration order of a Java `HashMap<Long, V>` that keys are only added to (as
/// `ProducerStateManager.producers` is while a log loads): [`JavaHashMapOrder`] over
/// `Long.hashCode`, the high half folded into the low one.
#[derive(Debug, Clone, Default)]
pub struct JavaLongHashOrder {
    keys: Vec<i64>,
    map: JavaHashMapOrder,
}

impl JavaLongHashOrder {
    /// `Long.hashCode`.
    fn hash(key: i64) -> i32 {
        (key ^ ((key as u64) >> 32) as i64) as i32
    }

    /// Adds a key not in the map yet (`HashMap.putVal` of a new key).
    pub fn insert(&mut self, key: i64) {
        self.keys.push(key);
        self.map.insert(Self::hash(key));
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether a bucket became a tree: the order of its keys is then not Java's.
    pub fn treeified(&self) -> bool {
        self.map.treeified()
    }

    /// The keys as the map iterates them.
    pub fn order(&self) -> Vec<i64> {
        self.map.order().into_iter().map(|i| self.keys[i]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_vector_v10() {
        let b = hex::decode("00018c502c240000000100000000000003e8000000000004000000000000001400000004 0000018bcfe56800ffffffffffffffffffffffff".replace(' ', "")).unwrap();
        let s = parse_producer_snapshot(&b).unwrap();
        assert!(s.crc_valid);
        assert_eq!(s.entries[0].producer_id, 1000);
        assert_eq!(s.entries[0].first_sequence(), 0);
        let mut wrapped = s.entries[0];
        wrapped.last_sequence = 2;
        wrapped.offset_delta = 5;
        // decrementSequence(2, 5) = MAX - 3 + 1 (DefaultRecordBatchTest: decrement(0, 1) = MAX).
        assert_eq!(wrapped.first_sequence(), i32::MAX - 2);
        assert_eq!(s.entries[0].current_txn_first_offset, -1);
    }

    proptest::proptest! {
        #[test]
        fn never_panics(bytes: Vec<u8>) {
            let _ = parse_producer_snapshot(&bytes);
        }

        #[test]
        fn encode_round_trips(raw in proptest::collection::vec(
            (proptest::prelude::any::<(i64, i16, i32, i64)>(), proptest::prelude::any::<(i32, i64, i32, i64)>()),
            0..40,
        )) {
            let entries: Vec<ProducerEntry> = raw
                .iter()
                .map(|&((producer_id, epoch, last_sequence, last_offset), (offset_delta, timestamp, coordinator_epoch, current_txn_first_offset))| ProducerEntry {
                    producer_id, epoch, last_sequence, last_offset, offset_delta, timestamp, coordinator_epoch, current_txn_first_offset,
                })
                .collect();
            let bytes = encode_producer_snapshot(&entries).unwrap();
            let back = parse_producer_snapshot(&bytes).unwrap();
            proptest::prop_assert!(back.crc_valid);
            proptest::prop_assert_eq!(back.entries, entries);
        }
    }

    #[test]
    fn encoder_writes_the_digest_vector() {
        let want = hex::decode(
            "00018c502c240000000100000000000003e800000000000400000000000000140000000400000\
             18bcfe56800ffffffffffffffffffffffff",
        )
        .unwrap();
        let entry = parse_producer_snapshot(&want).unwrap().entries[0];
        assert_eq!(encode_producer_snapshot(&[entry]).unwrap(), want);
        // An empty snapshot is 10 bytes, as in real data dirs.
        let empty = encode_producer_snapshot(&[]).unwrap();
        assert_eq!(empty.len(), 10);
        assert!(parse_producer_snapshot(&empty).unwrap().crc_valid);
    }

    #[test]
    fn java_hash_map_order() {
        let mut m = JavaLongHashOrder::default();
        // Buckets of a 16-slot table: 17 shares 1's bucket and follows it (inserted later);
        // Long.hashCode folds the high half in (1 << 32 hashes as 1).
        for k in [17, 3, 1, 1 << 32, 2] {
            m.insert(k);
        }
        assert_eq!(m.order(), vec![17, 1, 1 << 32, 2, 3]);
        // The 13th key doubles the table to 32: 17 and 1 part ways.
        for k in 100..108 {
            m.insert(k);
        }
        assert_eq!(m.len(), 13);
        let order = m.order();
        let at = |k: i64| order.iter().position(|x| *x == k).unwrap();
        assert!(at(1) < at(2) && at(2) < at(17), "{order:?}");
        // Nine keys in one bucket of a 16-slot table resize it (treeifyBin below 64 slots).
        let mut m = JavaLongHashOrder::default();
        for i in 0..9 {
            m.insert(i * 64);
        }
        assert_eq!(m.map.capacity(), 32);
        assert!(!m.treeified());
    }
}
