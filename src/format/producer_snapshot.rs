//! Producer-state snapshot files (`<offset>.snapshot`): version 1, CRC-32C, 46-byte entries.

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
    }
}
