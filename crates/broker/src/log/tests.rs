//! Tests of the partition log as a whole (appends, rolls, reloads, recovery, transactions).

use std::fs::{self, OpenOptions};

use kafka_protocol::ResponseError;

use super::scratch::{SCRATCH, SCRATCH_KEEP};
use super::segment::now_ms;
use super::*;
use kseg_format::batch::BatchHeader;
use kseg_format::compression::Codec;
use kseg_format::encode::{encode_batch, NewBatch, NewRecord};
use kseg_format::txn_index::ABORTED_TXN_SIZE;
use kseg_storage::layout::offset_file_name;

pub(crate) fn client_batch(n: usize, value_len: usize, ts: i64) -> Vec<u8> {
    let value = vec![b'v'; value_len];
    let records: Vec<NewRecord> = (0..n)
        .map(|i| NewRecord {
            timestamp: ts + i as i64,
            key: Some(b"k"),
            value: Some(&value),
            headers: &[],
        })
        .collect();
    let mut out = Vec::new();
    encode_batch(
        &mut out,
        &NewBatch {
            partition_leader_epoch: -1,
            ..Default::default()
        },
        &records,
        &mut Vec::new(),
    );
    out
}

/// One record from producer `producer_id` (epoch 0) at sequence `seq`.
fn producer_batch_bytes(producer_id: i64, seq: i32, transactional: bool, ts: i64) -> Vec<u8> {
    let records = [NewRecord {
        timestamp: ts,
        key: None,
        value: Some(b"x"),
        headers: &[],
    }];
    let mut out = Vec::new();
    encode_batch(
        &mut out,
        &NewBatch {
            transactional,
            producer_id,
            producer_epoch: 0,
            base_sequence: seq,
            ..Default::default()
        },
        &records,
        &mut Vec::new(),
    );
    out
}

/// Issue 14 item 2: a large zstd batch appended to many partitions leaves no decompression
/// state per partition; the one shared scratch is released after the batch.
#[test]
fn decompression_scratch_is_shared_and_released() {
    let dir = tempfile::tempdir().unwrap();
    let value = vec![b'z'; 1 << 20];
    let records: Vec<NewRecord> = (0..8)
        .map(|i| NewRecord {
            timestamp: 1_700_000_000_000 + i,
            key: None,
            value: Some(&value),
            headers: &[],
        })
        .collect();
    let mut batch = Vec::new();
    encode_batch(
        &mut batch,
        &NewBatch {
            partition_leader_epoch: -1,
            codec: Codec::Zstd,
            ..Default::default()
        },
        &records,
        &mut Vec::new(),
    );
    assert!(
        batch.len() < 64 * 1024,
        "8 MiB compresses to {}",
        batch.len()
    );
    let config = LogConfig::default();
    let mut logs: Vec<PartitionLog> = (0..4)
        .map(|p| PartitionLog::create(dir.path(), "z", p, [7; 16], config.clone(), 0).unwrap())
        .collect();
    for log in &mut logs {
        log.append_client(batch.clone(), now_ms()).unwrap();
    }
    let guard = SCRATCH.lock().unwrap();
    let shared = guard.as_ref().expect("the shared scratch was used");
    assert!(
        shared.buffer.capacity() <= SCRATCH_KEEP,
        "an 8 MiB batch left {} bytes of scratch",
        shared.buffer.capacity()
    );
}

fn config() -> LogConfig {
    LogConfig {
        segment_bytes: 2000,
        index_interval_bytes: 300,
        segment_index_bytes: 1024,
        ..Default::default()
    }
}

#[test]
fn segment_ms_rolls_on_timestamps_like_kafka() {
    // Kafka rolls when the appended max timestamp is more than segment.ms past the first
    // batch's: timestamps now-10d, now-9d (1 day later: same segment), now (9 days: roll).
    let dir = tempfile::tempdir().unwrap();
    let mut c = config();
    c.segment_bytes = 1 << 30;
    c.segment_ms = 7 * 86_400_000;
    let mut log = PartitionLog::create(dir.path(), "t", 0, [1; 16], c, 0).unwrap();
    let now = 1_700_000_000_000;
    let day = 86_400_000;
    for ts in [now - 10 * day, now - 9 * day, now] {
        log.append_client(client_batch(1, 10, ts), now).unwrap();
    }
    assert_eq!(log.segment_bases(), vec![0, 2]);
}

#[test]
fn appends_roll_index_and_reload() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = PartitionLog::create(dir.path(), "t", 0, [1; 16], config(), 0).unwrap();
    let now = 1_700_000_000_000;
    for i in 0..30 {
        let info = log
            .append_client(client_batch(2, 50, now + i * 10), now)
            .unwrap();
        assert_eq!(info.base_offset, i * 2);
    }
    assert_eq!(log.log_end_offset(), 60);
    let bases = log.segment_bases();
    assert!(bases.len() > 2, "{bases:?}");
    let pdir = dir.path().join("t-0");
    // Rolled segments: trimmed indexes and a snapshot named by the next base.
    let idx = fs::metadata(pdir.join(offset_file_name(0, "index")))
        .unwrap()
        .len();
    assert_eq!(idx % 8, 0);
    assert!(idx < 1024);
    assert!(pdir.join(offset_file_name(bases[1], "snapshot")).exists());
    // Active segment: preallocated.
    let active = *bases.last().unwrap();
    assert_eq!(
        fs::metadata(pdir.join(offset_file_name(active, "index")))
            .unwrap()
            .len(),
        1024
    );
    assert_eq!(
        fs::metadata(pdir.join(offset_file_name(active, "timeindex")))
            .unwrap()
            .len(),
        1020
    );
    let r = log.read(7, 1 << 20, false).unwrap();
    let first = BatchHeader::parse(&r.records).unwrap();
    assert_eq!(first.base_offset, 6);
    assert_eq!(log.offset_for_timestamp(now + 101).unwrap().unwrap().0, 21);
    log.close().unwrap();
    drop(log);
    let (mut again, report) =
        PartitionLog::load(&pdir, "t", 0, config(), true, Some(60), None, None).unwrap();
    assert_eq!(report.recovered_segments, 0);
    assert_eq!(again.log_end_offset(), 60);
    assert_eq!(again.leader_epoch, 2);
    let epochs: Vec<(i32, i64)> = again
        .epochs()
        .iter()
        .map(|e| (e.epoch, e.start_offset))
        .collect();
    assert_eq!(epochs, [(0, 0), (2, 60)]);
    let info = again.append_client(client_batch(1, 10, now), now).unwrap();
    assert_eq!(info.base_offset, 60);
}

#[test]
fn crash_recovery_truncates_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = PartitionLog::create(dir.path(), "t", 0, [1; 16], config(), 0).unwrap();
    let now = 1_700_000_000_000;
    for _ in 0..5 {
        log.append_client(client_batch(1, 20, now), now).unwrap();
    }
    let pdir = dir.path().join("t-0");
    drop(log);
    let path = pdir.join(offset_file_name(0, "log"));
    let len = fs::metadata(&path).unwrap().len();
    OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(len - 10)
        .unwrap();
    let (log, report) =
        PartitionLog::load(&pdir, "t", 0, config(), false, Some(0), None, None).unwrap();
    assert_eq!(report.recovered_segments, 1);
    assert!(report.truncated_at.is_some());
    assert_eq!(log.log_end_offset(), 4);
}

#[test]
fn unclean_load_keeps_the_recovery_point_and_snapshots_the_log_end() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = PartitionLog::create(dir.path(), "t", 0, [1; 16], config(), 0).unwrap();
    let now = 1_700_000_000_000;
    for i in 0..30 {
        log.append_client(client_batch(2, 50, now + i * 10), now)
            .unwrap();
    }
    let bases = log.segment_bases();
    assert!(bases.len() > 2, "{bases:?}");
    let pdir = dir.path().join("t-0");
    drop(log);
    // A stray snapshot below the last base goes; the rolled segments' ones stay.
    fs::write(pdir.join(offset_file_name(3, "snapshot")), b"").unwrap();
    let (log, report) =
        PartitionLog::load(&pdir, "t", 0, config(), false, Some(bases[1]), None, None).unwrap();
    assert!(report.recovered_segments >= 2);
    assert_eq!(log.log_end_offset(), 60);
    assert_eq!(log.recovery_point, bases[1], "min(checkpoint, log end)");
    let mut snaps = log.snapshot_offsets().unwrap();
    snaps.sort_unstable();
    let mut want: Vec<i64> = bases[1..].to_vec();
    want.push(60);
    assert_eq!(snaps, want);
    drop(log);
    // A checkpoint past the log end is cut to it.
    let (log, _) =
        PartitionLog::load(&pdir, "t", 0, config(), false, Some(1000), None, None).unwrap();
    assert_eq!(log.recovery_point, 60);
}

#[test]
fn client_validation() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = PartitionLog::create(dir.path(), "t", 0, [1; 16], config(), 0).unwrap();
    let now = 1_700_000_000_000;
    let mut bad = client_batch(1, 5, now);
    let last = bad.len() - 1;
    bad[last] ^= 1;
    assert_eq!(
        log.append_client(bad, now).unwrap_err().code(),
        ResponseError::CorruptMessage.code()
    );
    let future = client_batch(1, 5, now + 3_600_001);
    assert_eq!(
        log.append_client(future, now).unwrap_err().code(),
        ResponseError::InvalidTimestamp.code()
    );
    let mut two = client_batch(1, 5, now);
    two.extend(client_batch(1, 5, now));
    assert_eq!(
        log.append_client(two, now).unwrap_err().code(),
        ResponseError::InvalidRecord.code()
    );
}

#[test]
fn transactions_markers_and_read_committed() {
    let dir = tempfile::tempdir().unwrap();
    let mut log =
        PartitionLog::create(dir.path(), "t", 0, [1; 16], LogConfig::default(), 0).unwrap();
    let now = 1_700_000_000_000;
    log.append_client(producer_batch_bytes(5, 0, true, now), now)
        .unwrap();
    assert_eq!(log.last_stable_offset(), 0);
    assert!(log.read(0, 1000, true).unwrap().records.is_empty());
    log.append_marker(5, 0, 0, false, now).unwrap();
    assert_eq!(log.last_stable_offset(), 2);
    let r = log.read(0, 1000, true).unwrap();
    assert_eq!(r.aborted, Some(vec![(5, 0)]));
    let txnindex = fs::read(dir.path().join("t-0").join(offset_file_name(0, "txnindex"))).unwrap();
    assert_eq!(txnindex.len(), ABORTED_TXN_SIZE);
    log.append_client(producer_batch_bytes(5, 1, true, now), now)
        .unwrap();
    log.append_marker(5, 0, 0, true, now).unwrap();
    assert_eq!(log.last_stable_offset(), 4);
    assert_eq!(log.end_offset_for_epoch(0), (0, 4));
}

#[test]
fn a_retried_idempotent_batch_gets_the_original_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut log =
        PartitionLog::create(dir.path(), "t", 0, [1; 16], LogConfig::default(), 0).unwrap();
    let now = 1_700_000_000_000;
    let first = log
        .append_client(producer_batch_bytes(9, 0, false, now - 5), now)
        .unwrap();
    log.append_client(producer_batch_bytes(9, 1, false, now - 4), now)
        .unwrap();
    // A retry of sequence 0: same offsets, nothing written, and (CreateTime) the batch's
    // max timestamp as UnifiedLog.append answers duplicates.
    let retry = log
        .append_client(producer_batch_bytes(9, 0, false, now - 5), now + 100)
        .unwrap();
    assert!(retry.duplicate);
    assert_eq!(
        (retry.base_offset, retry.last_offset),
        (first.base_offset, first.last_offset)
    );
    assert_eq!(retry.log_append_time, now - 5);
    assert_eq!(log.log_end_offset(), 2);
}

#[test]
fn with_path_names_the_file_once_by_type_not_by_text() {
    let inner = Path::new("/data/t-0/00000000000000000000.log");
    let outer = Path::new("/data/t-0");
    let e = with_path(
        inner,
        io::Error::new(io::ErrorKind::PermissionDenied, "denied"),
    );
    assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
    // Already naming its file: the partition dir is not added on top.
    let again = with_path(outer, e);
    assert_eq!(again.to_string(), format!("{}: denied", inner.display()));
    // A plain error gets the path, even when its text happens to contain it.
    let plain = io::Error::other(format!("{} is odd", outer.display()));
    assert_eq!(
        with_path(outer, plain).to_string(),
        format!("{0}: {0} is odd", outer.display())
    );
}

#[test]
fn a_path_error_in_an_error_chain_says_its_cause_once() {
    let e = with_path(
        Path::new("/data/t-0/00000000000000000000.index"),
        io::Error::from_raw_os_error(24),
    );
    let chained = format!(
        "{:#}",
        anyhow::Error::from(e).context("opening log dir /data")
    );
    assert_eq!(
        chained.matches("Too many open files").count(),
        1,
        "{chained}"
    );
    assert!(chained.contains("/data/t-0/00000000000000000000.index: Too many open files"));
}

/// Issue 26: an append wakes the fetches registered with its own partition, and only them (it
/// woke every waiting fetch of the broker).
#[test]
fn an_append_wakes_only_the_fetches_waiting_on_its_partition() {
    use std::sync::Arc;
    use tokio::sync::Notify;
    let dir = tempfile::tempdir().unwrap();
    let mut a = PartitionLog::create(dir.path(), "a", 0, [1; 16], LogConfig::default(), 0).unwrap();
    let mut b = PartitionLog::create(dir.path(), "b", 0, [2; 16], LogConfig::default(), 0).unwrap();
    let on_a = Arc::new(Notify::new());
    let on_b = Arc::new(Notify::new());
    a.waiters.add(1, on_a.clone());
    b.waiters.add(2, on_b.clone());
    b.append_client(client_batch(1, 10, 1), 1).unwrap();
    assert!(b.waiters.is_empty(), "b's waiter was woken and forgotten");
    assert_eq!(a.waiters.len(), 1, "a's waiter is still waiting");
    let woke = |n: &Arc<Notify>| {
        let f = n.notified();
        tokio::pin!(f);
        // A stored wake-up completes the first poll.
        f.as_mut().enable()
    };
    assert!(woke(&on_b));
    assert!(!woke(&on_a));
    a.waiters.remove(1);
    assert!(a.waiters.is_empty());
}

/// A roll leaves the fsyncs of the sealed segment and of its producer snapshot to the flush
/// thread (`UnifiedLog.roll`'s "flush-log" task): the recovery point moves once they are done,
/// and a clean close waits for them before flushing the rest.
#[test]
fn a_roll_flushes_in_the_background_then_moves_the_recovery_point() {
    let dir = tempfile::tempdir().unwrap();
    let config = LogConfig {
        segment_bytes: 1000,
        ..Default::default()
    };
    let mut log = PartitionLog::create(dir.path(), "t", 0, [1; 16], config, 0).unwrap();
    let now = now_ms();
    // One ~600-byte batch per 1000-byte segment.
    for _ in 0..3 {
        log.append_client(client_batch(1, 600, now), now).unwrap();
    }
    assert_eq!(log.segment_bases(), vec![0, 1, 2]);
    for base in [1, 2] {
        let snapshot = dir
            .path()
            .join("t-0")
            .join(offset_file_name(base, "snapshot"));
        assert!(snapshot.is_file(), "{}", snapshot.display());
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while log.flushed_recovery_point() < 2 {
        assert!(std::time::Instant::now() < deadline, "no flush in 30 s");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(
        log.flushed_recovery_point(),
        2,
        "never past the sealed segments"
    );
    log.close().unwrap();
    assert_eq!(log.flushed_recovery_point(), 3);
}
