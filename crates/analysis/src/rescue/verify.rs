//! `kseg rescue --verify`: the target read back, compared with the sources through the offset
//! map. Each source record sent is looked for where the map says it landed (not at the next
//! position: a record another producer wrote between, or copies left by a stopped run, do not
//! shift the comparison), and every target record the map does not name is counted as extra.

use kseg_format::log::RecordScratch;
use kseg_scan::Flow;

use super::{record_digest, sent_timestamp, Plan, Source, TargetPartitions};
use crate::rescue_map::RescueMap;

/// A record read back from a target partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetRecord {
    pub offset: i64,
    /// [`super::content_digest`] of its key, value and headers.
    pub digest: u64,
    /// Its CreateTime (none for LogAppendTime: the broker's own time).
    pub create_time: Option<i64>,
}

/// The first difference found in a target partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Difference {
    /// Source record `offset` of `source` is not where the map puts it (`at`), or not in the
    /// map at all (`at` none).
    Missing {
        source: String,
        offset: i64,
        at: Option<i64>,
    },
    /// Source record `offset` differs from target offset `at`: in its timestamp, or in key,
    /// value or headers.
    Differs {
        source: String,
        offset: i64,
        at: i64,
        timestamp: bool,
    },
    /// Target offset `at` is no source record's place in the map.
    Extra { at: i64 },
}

/// One target partition compared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verified {
    /// "topic-partition".
    pub target: String,
    pub matched: u64,
    pub mismatched: u64,
    pub missing: u64,
    pub extra: u64,
    pub first: Option<Difference>,
}

impl Verified {
    pub fn ok(&self) -> bool {
        self.mismatched == 0 && self.missing == 0 && self.extra == 0
    }
}

/// Compares each target partition (`read[i]`: its records from where the rescue began writing
/// it, in offset order) with the records the sources send there, through `maps` (one per
/// source).
pub fn verify_through_maps(
    plan: &Plan<'_>,
    sources: &[Source<'_>],
    maps: &[&RescueMap],
    targets: &TargetPartitions,
    read: &[Vec<TargetRecord>],
    scratch: &mut RecordScratch,
) -> std::io::Result<Vec<Verified>> {
    let mut out: Vec<Verified> = (0..targets.len())
        .map(|i| Verified {
            target: targets.name(i),
            ..Default::default()
        })
        .collect();
    let mut seen: Vec<Vec<bool>> = read.iter().map(|r| vec![false; r.len()]).collect();
    for (i, s) in sources.iter().enumerate() {
        let topic = plan.target_of(i);
        let map = maps[i];
        let name = plan.source_name(i);
        s.select(plan.selection, None, scratch, |r| {
            let Some((partition, at)) = map.get(r.offset) else {
                // Not in the map: with `--partitioner same` it would have gone to its own
                // partition; with murmur2 it is counted against none.
                if let Some(ti) = targets.find(topic, s.dir.name.partition) {
                    let v = &mut out[ti];
                    v.missing += 1;
                    v.first.get_or_insert(Difference::Missing {
                        source: name.clone(),
                        offset: r.offset,
                        at: None,
                    });
                }
                return Ok(Flow::Continue);
            };
            let Some(ti) = targets.find(topic, partition) else {
                return Ok(Flow::Continue);
            };
            let v = &mut out[ti];
            let records = &read[ti];
            let Ok(k) = records.binary_search_by_key(&at, |t| t.offset) else {
                v.missing += 1;
                v.first.get_or_insert(Difference::Missing {
                    source: name.clone(),
                    offset: r.offset,
                    at: Some(at),
                });
                return Ok(Flow::Continue);
            };
            seen[ti][k] = true;
            let got = records[k];
            let ts_ok = match (got.create_time, sent_timestamp(r)) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            };
            if got.digest == record_digest(r) && ts_ok {
                v.matched += 1;
            } else {
                v.mismatched += 1;
                v.first.get_or_insert(Difference::Differs {
                    source: name.clone(),
                    offset: r.offset,
                    at,
                    timestamp: !ts_ok,
                });
            }
            Ok(Flow::Continue)
        })?;
    }
    for (ti, v) in out.iter_mut().enumerate() {
        for (k, t) in read[ti].iter().enumerate() {
            if !seen[ti][k] {
                v.extra += 1;
                v.first.get_or_insert(Difference::Extra { at: t.offset });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grep::Glob;
    use crate::rescue::PlanRequest;
    use std::path::Path;

    /// payments-0 of the example data dir sends 0..=4 and 10..=13. In the target another
    /// producer's record sits between them: compared through the map, every record matches and
    /// the foreign one is extra (a comparison by position would call the last four different).
    #[test]
    fn records_are_compared_where_the_map_puts_them() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/example-datadir");
        let set = kseg_storage::discover::discover(&[dir]).unwrap();
        let req = PlanRequest {
            include: vec![Glob::new("payments").unwrap()],
            ..Default::default()
        };
        let plan = Plan::new(&set, req).unwrap();
        let mut scratch = RecordScratch::default();
        let source = Source::open(plan.sources[0], &mut scratch).unwrap();
        let mut sent = Vec::new();
        source
            .select(plan.selection, None, &mut scratch, |r| {
                sent.push((r.offset, record_digest(r), sent_timestamp(r)));
                Ok(Flow::Continue)
            })
            .unwrap();
        assert_eq!(sent.len(), 9);
        let mut map = RescueMap::default();
        let mut read = Vec::new();
        let mut at = 100;
        for (offset, digest, ts) in &sent {
            if *offset == 10 {
                read.push(TargetRecord {
                    offset: at,
                    digest: 7,
                    create_time: None,
                });
                at += 1;
            }
            map.push(*offset, 0, at);
            read.push(TargetRecord {
                offset: at,
                digest: *digest,
                create_time: *ts,
            });
            at += 1;
        }
        let targets = plan.target_partitions(|_| 1);
        let sources = [source];
        let check = |read: &[TargetRecord], map: &RescueMap, scratch: &mut RecordScratch| {
            verify_through_maps(&plan, &sources, &[map], &targets, &[read.to_vec()], scratch)
                .unwrap()
                .remove(0)
        };
        let v = check(&read, &map, &mut scratch);
        assert_eq!((v.matched, v.mismatched, v.missing, v.extra), (9, 0, 0, 1));
        assert_eq!(v.first, Some(Difference::Extra { at: 105 }));
        assert_eq!(v.target, "payments-0");

        // A record changed in the target.
        let mut changed = read.clone();
        changed[7].digest ^= 1;
        let v = check(&changed, &map, &mut scratch);
        assert_eq!((v.matched, v.mismatched), (8, 1));
        assert!(matches!(
            v.first,
            Some(Difference::Differs {
                offset: 11,
                at: 107,
                timestamp: false,
                ..
            })
        ));

        // A map that puts 10..=13 where the target has nothing.
        let mut wrong = RescueMap::default();
        for (i, (offset, _, _)) in sent.iter().enumerate() {
            wrong.push(
                *offset,
                0,
                if *offset < 10 {
                    100 + i as i64
                } else {
                    1000 + i as i64
                },
            );
        }
        let v = check(&read, &wrong, &mut scratch);
        assert_eq!((v.matched, v.missing, v.extra), (5, 4, 5));
        assert!(matches!(
            v.first,
            Some(Difference::Missing {
                offset: 10,
                at: Some(1005),
                ..
            })
        ));
    }
}
