//! Offset gaps in a segment: where a record's offset is not the previous one plus one. Kafka's
//! tool (4.3) starts from -1, so every segment not based at 0 reported a false gap; kseg starts
//! from the base offset in the segment's file name and reports only real gaps.

use std::path::Path;

use kseg_storage::layout::base_offset_of;

/// Follows the offsets of one file's records, in order.
#[derive(Debug, Clone, Copy)]
pub struct OffsetGaps {
    last: i64,
}

impl Default for OffsetGaps {
    fn default() -> Self {
        OffsetGaps { last: -1 }
    }
}

impl OffsetGaps {
    /// For the records of `file`: the first is expected at the base offset of its name (0 when
    /// the name has none).
    pub fn for_file(file: &Path) -> Self {
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        OffsetGaps {
            last: base_offset_of(&name).unwrap_or(0) - 1,
        }
    }

    /// The next record's offset; `Some(previous)` when it does not follow the previous one.
    #[inline]
    pub fn next(&mut self, offset: i64) -> Option<i64> {
        let previous = self.last;
        self.last = offset;
        (offset != previous.wrapping_add(1)).then_some(previous)
    }

    /// The offset the next record is expected to follow.
    pub fn last(&self) -> i64 {
        self.last
    }

    /// Records up to `last_offset` were filtered out: the next one is expected after it.
    pub fn skipped_to(&mut self, last_offset: i64) {
        self.last = last_offset;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_from_the_base_offset() {
        let mut g = OffsetGaps::for_file(Path::new("/d/t-0/00000000000000000100.log"));
        assert_eq!(g.next(100), None);
        assert_eq!(g.next(101), None);
        assert_eq!(g.next(105), Some(101));
        g.skipped_to(200);
        assert_eq!(g.next(201), None);
        assert_eq!(OffsetGaps::for_file(Path::new("x.log")).next(0), None);
    }
}
