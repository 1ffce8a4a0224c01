//! `.txnindex`: one 34-byte entry per aborted transaction whose ABORT marker is in the segment.

use super::reader::{DecodeError, Reader};

pub const ABORTED_TXN_SIZE: usize = 34;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbortedTxn {
    pub version: i16,
    pub producer_id: i64,
    pub first_offset: i64,
    pub last_offset: i64,
    pub last_stable_offset: i64,
}

/// Decodes every whole entry. A partial trailing entry is ignored by Kafka's reader; it is
/// returned here as the second element (its byte position) so callers can report it.
pub fn parse_txn_index(bytes: &[u8]) -> (Vec<Result<AbortedTxn, DecodeError>>, Option<usize>) {
    let whole = bytes.len() / ABORTED_TXN_SIZE;
    let entries = (0..whole)
        .map(|i| {
            let at = i * ABORTED_TXN_SIZE;
            let mut r = Reader::with_origin(&bytes[at..at + ABORTED_TXN_SIZE], at);
            let version = r.i16("version")?;
            let entry = AbortedTxn {
                version,
                producer_id: r.i64("producerId")?,
                first_offset: r.i64("firstOffset")?,
                last_offset: r.i64("lastOffset")?,
                last_stable_offset: r.i64("lastStableOffset")?,
            };
            if version != 0 {
                return Err(DecodeError::unsupported(
                    at,
                    format!("unsupported aborted transaction version {version}"),
                ));
            }
            Ok(entry)
        })
        .collect();
    let partial =
        (!bytes.len().is_multiple_of(ABORTED_TXN_SIZE)).then_some(whole * ABORTED_TXN_SIZE);
    (entries, partial)
}

impl AbortedTxn {
    /// A version-0 entry, as `TransactionIndex.append` writes it.
    pub fn new(producer_id: i64, first_offset: i64, last_offset: i64, lso: i64) -> Self {
        AbortedTxn {
            version: 0,
            producer_id,
            first_offset,
            last_offset,
            last_stable_offset: lso,
        }
    }

    /// The entry's 34 bytes (the inverse of [`parse_txn_index`] for one entry).
    pub fn encode(&self) -> [u8; ABORTED_TXN_SIZE] {
        let mut out = [0u8; ABORTED_TXN_SIZE];
        out[0..2].copy_from_slice(&self.version.to_be_bytes());
        out[2..10].copy_from_slice(&self.producer_id.to_be_bytes());
        out[10..18].copy_from_slice(&self.first_offset.to_be_bytes());
        out[18..26].copy_from_slice(&self.last_offset.to_be_bytes());
        out[26..34].copy_from_slice(&self.last_stable_offset.to_be_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn encode_round_trips(e in proptest::prelude::any::<(i64, i64, i64, i64)>()) {
            let entry = AbortedTxn::new(e.0, e.1, e.2, e.3);
            let (back, partial) = parse_txn_index(&entry.encode());
            proptest::prop_assert_eq!(partial, None);
            proptest::prop_assert_eq!(back, vec![Ok(entry)]);
        }
    }

    #[test]
    fn digest_vector_v9() {
        let b = hex::decode("000000000000000003e8000000000000000a00000000000000140000000000000015")
            .unwrap();
        let (e, partial) = parse_txn_index(&b);
        assert_eq!(partial, None);
        assert_eq!(
            e[0],
            Ok(AbortedTxn {
                version: 0,
                producer_id: 1000,
                first_offset: 10,
                last_offset: 20,
                last_stable_offset: 21
            })
        );
        let (e, partial) = parse_txn_index(&b[..40.min(b.len())]);
        assert_eq!(e.len(), 1);
        assert_eq!(partial, None);
        let mut longer = b.clone();
        longer.extend_from_slice(&[0, 0, 1]);
        assert_eq!(parse_txn_index(&longer).1, Some(34));
    }
}
