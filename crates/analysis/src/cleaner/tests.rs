//! The cleaner's choice and pass over partitions written here: range, bounds, ratio, map end,
//! grouping and keep/drop decisions.

use std::fs;
use std::path::Path;

use kseg_format::encode::{encode_batch, NewBatch, NewRecord};
use kseg_storage::discover::discover;

use super::*;
use crate::topic_configs::ConfigFlags;

const NOW: i64 = 1_750_000_000_000;
const HOUR: i64 = 3_600_000;

/// One batch: producer fields and (key, value) records; a marker when `marker` is set
/// (`Some(true)` COMMIT, `Some(false)` ABORT).
#[derive(Clone)]
struct B {
    records: Vec<(Option<&'static str>, Option<&'static str>)>,
    pid: i64,
    epoch: i16,
    txn: bool,
    marker: Option<bool>,
    ts: i64,
}

fn plain(records: &[(Option<&'static str>, Option<&'static str>)]) -> B {
    B {
        records: records.to_vec(),
        pid: -1,
        epoch: -1,
        txn: false,
        marker: None,
        ts: NOW - 48 * HOUR,
    }
}

fn kv(k: &'static str, v: &'static str) -> (Option<&'static str>, Option<&'static str>) {
    (Some(k), Some(v))
}

/// Writes `dir/t-0` with one segment per entry of `segs`; returns the log end offset.
fn write(dir: &Path, segs: &[Vec<B>]) -> i64 {
    let p = dir.join("t-0");
    fs::create_dir_all(&p).unwrap();
    let mut offset = 0i64;
    for s in segs {
        let base = offset;
        let mut log = Vec::new();
        for b in s {
            let marker_key;
            let records: Vec<NewRecord> = if let Some(commit) = b.marker {
                marker_key = [0u8, 0, 0, u8::from(commit)];
                vec![NewRecord {
                    timestamp: b.ts,
                    key: Some(&marker_key),
                    value: Some(&[0, 0, 0, 0, 0, 0]),
                    headers: &[],
                }]
            } else {
                b.records
                    .iter()
                    .map(|(k, v)| NewRecord {
                        timestamp: b.ts,
                        key: k.map(str::as_bytes),
                        value: v.map(str::as_bytes),
                        headers: &[],
                    })
                    .collect()
            };
            encode_batch(
                &mut log,
                &NewBatch {
                    base_offset: offset,
                    transactional: b.txn,
                    control: b.marker.is_some(),
                    producer_id: b.pid,
                    producer_epoch: b.epoch,
                    base_sequence: if b.pid >= 0 { 0 } else { -1 },
                    ..NewBatch::default()
                },
                &records,
                &mut Vec::new(),
            );
            offset += records.len() as i64;
        }
        fs::write(p.join(format!("{base:020}.log")), &log).unwrap();
    }
    offset
}

fn plan_of(dir: &Path, flags: &[&str]) -> CompactionReport {
    let set = discover(&[dir.to_path_buf()]).unwrap();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let flags = ConfigFlags::parse(&s(flags), &s(&["t:cleanup.policy=compact"])).unwrap();
    plan(&set, &flags, NOW)
}

fn only(r: &CompactionReport) -> &PartitionCompaction {
    assert_eq!(r.partitions.len(), 1);
    &r.partitions[0]
}

#[test]
fn dedupes_below_the_active_segment_and_drops_keyless_records() {
    let d = tempfile::tempdir().unwrap();
    let leo = write(
        d.path(),
        &[
            vec![
                plain(&[kv("a", "1"), kv("b", "1")]),
                plain(&[kv("a", "2"), (None, Some("x"))]),
            ],
            vec![plain(&[kv("c", "1")])],
        ],
    );
    let r = plan_of(d.path(), &[]);
    let p = only(&r);
    assert_eq!(
        (p.first_dirty_offset, p.dirty_start),
        (0, DirtyStart::NoCheckpoint)
    );
    assert_eq!(p.bound, Bound::ActiveSegment);
    assert_eq!((p.first_uncleanable_offset, p.log_end_offset), (4, leo));
    assert!(p.will_clean(), "{:?}", p.idle);
    assert_eq!(p.order, Some(1));
    let pass = p.pass.as_ref().unwrap();
    assert_eq!((pass.keys, pass.end_offset, pass.full_at), (2, 4, None));
    let s = &pass.stats;
    // a=1 superseded, the keyless record dropped; b=1 and a=2 kept (two rebuilt batches).
    assert_eq!((s.messages_read, s.messages_written), (4, 2));
    assert_eq!((s.superseded_removed, s.keyless_removed), (1, 1));
    assert_eq!(s.batches_rebuilt, 2);
    assert_eq!(pass.groups, vec![vec![0]]);
    assert!(pass.bytes_after < p.bytes);
}

#[test]
fn tombstones_are_stamped_first_and_removed_after_the_horizon() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        &[
            vec![plain(&[kv("a", "1"), (Some("a"), None)])],
            vec![plain(&[kv("c", "1")])],
        ],
    );
    let r = plan_of(d.path(), &[]);
    let pass = only(&r).pass.clone().unwrap();
    assert_eq!(pass.stats.batches_stamped, 1);
    assert_eq!(pass.stats.tombstones_removed, 0);
    assert_eq!(pass.horizon, NOW + 86_400_000);
}

#[test]
fn an_open_transaction_pins_the_last_stable_offset() {
    let d = tempfile::tempdir().unwrap();
    let txn = B {
        records: vec![kv("t", "1")],
        pid: 42,
        epoch: 3,
        txn: true,
        marker: None,
        ts: NOW - HOUR,
    };
    write(
        d.path(),
        &[
            vec![plain(&[kv("a", "1"), kv("a", "2")])],
            vec![txn, plain(&[kv("b", "1")])],
            vec![plain(&[kv("c", "1")])],
        ],
    );
    let r = plan_of(d.path(), &[]);
    let p = only(&r);
    assert_eq!(p.last_stable_offset, 2);
    match &p.bound {
        Bound::OpenTransaction(t) => {
            assert_eq!(
                (t.producer_id, t.producer_epoch, t.first_offset),
                (42, 3, 2)
            )
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(p.first_uncleanable_offset, 2);
    assert_eq!(p.pass.as_ref().unwrap().end_offset, 2);
}

#[test]
fn a_low_dirty_ratio_idles_and_max_lag_forces() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        &[
            vec![plain(&[
                kv("a", "1"),
                kv("b", "1"),
                kv("c", "1"),
                kv("d", "1"),
            ])],
            vec![plain(&[kv("a", "2")])],
            vec![plain(&[kv("z", "1")])],
        ],
    );
    fs::write(d.path().join("cleaner-offset-checkpoint"), "0\n1\nt 0 4\n").unwrap();
    // Clean: segment 0 (4 records); dirty: segment 4 (one record): ratio ~ 0.4.
    let r = plan_of(d.path(), &["min.cleanable.dirty.ratio=0.6"]);
    let p = only(&r);
    assert_eq!(
        (p.first_dirty_offset, p.dirty_start),
        (4, DirtyStart::Checkpoint)
    );
    assert!(
        p.dirty_ratio < 0.6 && p.dirty_ratio > 0.2,
        "{}",
        p.dirty_ratio
    );
    assert_eq!(p.idle, Some(Idle::RatioBelowMinimum));
    assert!(p.pass.is_none());
    // The dirty segment's first batch is 48 hours old: a one-hour max lag forces the pass.
    let r = plan_of(
        d.path(),
        &[
            "min.cleanable.dirty.ratio=0.6",
            "log.cleaner.max.compaction.lag.ms=3600000",
        ],
    );
    let p = only(&r);
    assert!(p.compaction_delay_ms > 0);
    assert_eq!(p.idle, None);
    assert_eq!(p.pass.as_ref().unwrap().stats.superseded_removed, 1);
}

#[test]
fn a_checkpoint_past_the_log_end_resets_to_the_log_start() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        &[vec![plain(&[kv("a", "1")])], vec![plain(&[kv("a", "2")])]],
    );
    fs::write(d.path().join("cleaner-offset-checkpoint"), "0\n1\nt 0 99\n").unwrap();
    let r = plan_of(d.path(), &[]);
    let p = only(&r);
    assert_eq!(
        (p.first_dirty_offset, p.dirty_start),
        (0, DirtyStart::PastLogEnd(99))
    );
}

#[test]
fn the_pass_stops_where_the_offset_map_is_full() {
    let d = tempfile::tempdir().unwrap();
    let keys = ["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"];
    let recs: Vec<_> = keys.iter().map(|k| kv(k, "v")).collect();
    write(
        d.path(),
        &[vec![plain(&recs)], vec![plain(&[kv("z", "1")])]],
    );
    // 5 slots at 0.9: 4 keys, the pass stops at the fifth distinct key (offset 4).
    let r = plan_of(d.path(), &["log.cleaner.dedupe.buffer.size=120"]);
    let pass = only(&r).pass.clone().unwrap();
    assert_eq!((pass.map_slots, pass.map_limit), (5, 4));
    assert_eq!((pass.keys, pass.full_at, pass.end_offset), (4, Some(4), 4));
}

#[test]
fn an_active_producers_last_batch_stays_empty_and_an_expired_ones_goes() {
    let d = tempfile::tempdir().unwrap();
    let by = |pid: i64, ts: i64| B {
        records: vec![kv("a", "old")],
        pid,
        epoch: 0,
        txn: false,
        marker: None,
        ts,
    };
    write(
        d.path(),
        &[
            vec![
                by(7, NOW - HOUR),
                by(8, NOW - 48 * HOUR),
                plain(&[kv("a", "new")]),
            ],
            vec![plain(&[kv("z", "1")])],
        ],
    );
    let r = plan_of(d.path(), &[]);
    let s = &only(&r).pass.as_ref().unwrap().stats;
    assert_eq!(
        s.empty_kept,
        vec![(0, pass::EmptyReason::ActiveProducer(7))]
    );
    assert_eq!(s.superseded_removed, 2);
    assert_eq!(s.batches_removed, 1);
}

#[test]
fn aborted_data_goes_and_its_marker_stays_until_then() {
    let d = tempfile::tempdir().unwrap();
    let t = |marker: Option<bool>| B {
        records: vec![kv("x", "aborted")],
        pid: 5,
        epoch: 0,
        txn: true,
        marker,
        ts: NOW - 48 * HOUR,
    };
    let leo = write(
        d.path(),
        &[
            vec![t(None), t(Some(false)), plain(&[kv("x", "1")])],
            vec![plain(&[kv("z", "1")])],
        ],
    );
    assert_eq!(leo, 4);
    // The .txnindex entry of the aborted transaction (producer 5, offsets 0..=1).
    let mut idx = Vec::new();
    idx.extend_from_slice(&0i16.to_be_bytes());
    idx.extend_from_slice(&5i64.to_be_bytes());
    idx.extend_from_slice(&0i64.to_be_bytes());
    idx.extend_from_slice(&1i64.to_be_bytes());
    idx.extend_from_slice(&0i64.to_be_bytes());
    fs::write(d.path().join("t-0/00000000000000000000.txnindex"), idx).unwrap();
    let r = plan_of(d.path(), &["producer.id.expiration.ms=1000"]);
    let s = &only(&r).pass.as_ref().unwrap().stats;
    // The aborted batch is removed whole; the ABORT marker is kept (stamped: it ends a
    // transaction whose data went in this pass).
    assert_eq!(s.aborted_records_removed, 1);
    assert_eq!(s.markers_removed, 0);
    assert_eq!(s.batches_stamped, 0);
}
