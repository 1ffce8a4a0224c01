//! The retention plan over log dirs written here: which segments go, why the rest stay, what
//! blocks, and how few `.log` bytes it takes.

use std::fs;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use kseg_format::encode::{encode_batch, NewBatch, NewRecord};
use kseg_storage::discover::discover;

use super::*;
use crate::topic_configs::ConfigFlags;

const DAY: i64 = 86_400_000;
const NOW: i64 = 1_750_000_000_000;

/// One segment: its base offset and its records' timestamps (one record per batch, three
/// batches of `n` records each when given as `n` timestamps per batch).
struct Seg {
    base: i64,
    batches: Vec<Vec<i64>>,
    time_index: bool,
}

fn seg(base: i64, batches: &[&[i64]]) -> Seg {
    Seg {
        base,
        batches: batches.iter().map(|b| b.to_vec()).collect(),
        time_index: true,
    }
}

/// Writes `dir/<topic>-0` with the segments; returns the log end offset.
fn write_partition(dir: &Path, topic: &str, segs: &[Seg]) -> i64 {
    let p = dir.join(format!("{topic}-0"));
    fs::create_dir_all(&p).unwrap();
    let mut end = 0;
    let value = vec![b'v'; 200];
    for s in segs {
        let mut log = Vec::new();
        let mut offset = s.base;
        let mut max: Option<(i64, i64)> = None;
        for b in &s.batches {
            let records: Vec<NewRecord> = b
                .iter()
                .map(|&t| NewRecord {
                    timestamp: t,
                    key: Some(b"k"),
                    value: Some(&value),
                    headers: &[],
                })
                .collect();
            encode_batch(
                &mut log,
                &NewBatch {
                    base_offset: offset,
                    ..NewBatch::default()
                },
                &records,
                &mut Vec::new(),
            );
            let last = offset + b.len() as i64 - 1;
            let batch_max = *b.iter().max().unwrap();
            if max.is_none_or(|(t, _)| batch_max > t) {
                max = Some((batch_max, last));
            }
            offset = last + 1;
        }
        end = offset;
        let name = |ext: &str| p.join(format!("{:020}.{ext}", s.base));
        fs::write(name("log"), &log).unwrap();
        fs::write(name("index"), []).unwrap();
        if s.time_index {
            let mut t = Vec::new();
            if let Some((ts, off)) = max {
                t.extend_from_slice(&ts.to_be_bytes());
                t.extend_from_slice(&((off - s.base) as i32).to_be_bytes());
            }
            fs::write(name("timeindex"), &t).unwrap();
        }
    }
    end
}

fn checkpoint(dir: &Path, file: &str, entries: &[(&str, i64)]) {
    let mut text = format!("0\n{}\n", entries.len());
    for (tp, o) in entries {
        let (t, p) = tp.rsplit_once('-').unwrap();
        text.push_str(&format!("{t} {p} {o}\n"));
    }
    fs::write(dir.join(file), text).unwrap();
}

fn plan_of(dir: &Path, flags: &[&str], topic_flags: &[&str]) -> RetentionReport {
    let set = discover(&[dir.to_path_buf()]).unwrap();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let flags = ConfigFlags::parse(&s(flags), &s(topic_flags)).unwrap();
    plan(&set, &flags, NOW)
}

fn clean_dir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    fs::write(
        d.path().join(".kafka_cleanshutdown"),
        "{\"version\":0,\"brokerEpoch\":7}",
    )
    .unwrap();
    fs::write(
        d.path().join("meta.properties"),
        "version=1\nnode.id=1\ncluster.id=x\n",
    )
    .unwrap();
    d
}

fn part<'r>(r: &'r RetentionReport, topic: &str) -> &'r PartitionRetention {
    r.partitions.iter().find(|p| p.topic == topic).unwrap()
}

#[test]
fn a_future_timestamp_shields_every_later_segment_and_names_its_record() {
    let d = clean_dir();
    let old = NOW - 9 * DAY;
    let future = NOW + 5 * 365 * DAY;
    // Segment 3 holds one record stamped five years ahead, in the middle of its batch.
    let leo = write_partition(
        d.path(),
        "t",
        &[
            seg(0, &[&[old, old], &[old]]),
            seg(3, &[&[old], &[old, future, old]]),
            seg(7, &[&[old, old]]),
            seg(9, &[&[NOW - DAY]]),
        ],
    );
    checkpoint(d.path(), "replication-offset-checkpoint", &[("t-0", leo)]);
    let r = plan_of(d.path(), &[], &[]);
    let p = part(&r, "t");
    assert_eq!(p.checked_by, CheckedBy::RetentionCheck);
    assert_eq!(p.delete_segments(), [0]);
    assert_eq!(p.deletions[0].rule, Rule::RetentionTime);
    assert_eq!(p.log_start_offset_after, 3);
    let b = &p.blocked_by[0];
    assert_eq!(
        (b.reason, b.segment, b.offset, b.timestamp, b.problem),
        (
            BlockReason::FutureTimestamp,
            Some(3),
            Some(5),
            Some(future),
            true
        )
    );
    // Segment 7 is expired but behind segment 3; its bytes are the blocked ones.
    let seven = p.kept.iter().find(|k| k.segment == 7).unwrap();
    assert_eq!(seven.reason, KeptReason::Behind { segment: 3 });
    assert_eq!(b.bytes, seven.log_bytes);
    assert_eq!(
        seven.deletable,
        Deletable::At(future + 7 * DAY + 1),
        "deletable only once the future record is past retention"
    );
    let three = &p.kept[0];
    assert_eq!(three.reason, KeptReason::FutureTimestamp);
    assert!(r.problem());
    // Only the blocking record's batch was read (the log end was not needed).
    assert!(
        p.log_bytes_read > 0 && p.log_bytes_read < 4096,
        "{}",
        p.log_bytes_read
    );
    assert_eq!(p.log_end_offset, None);
}

#[test]
fn nothing_expired_reads_no_log_byte() {
    let d = clean_dir();
    let leo = write_partition(
        d.path(),
        "t",
        &[seg(0, &[&[NOW - 2 * DAY]]), seg(1, &[&[NOW - DAY]])],
    );
    checkpoint(d.path(), "replication-offset-checkpoint", &[("t-0", leo)]);
    let r = plan_of(d.path(), &[], &[]);
    let p = part(&r, "t");
    assert!(p.deletions.is_empty() && p.blocked_by.is_empty());
    assert_eq!(p.log_bytes_read, 0);
    assert_eq!(p.kept[0].reason, KeptReason::WithinRetention);
    assert_eq!(
        p.kept[0].deletable,
        Deletable::At(NOW - 2 * DAY + 7 * DAY + 1)
    );
    assert_eq!(
        p.kept[1].deletable,
        Deletable::NotBefore(NOW - DAY + 7 * DAY + 1)
    );
    assert!(!r.problem());
}

#[test]
fn every_segment_expired_deletes_the_active_one_after_a_roll_at_the_log_end() {
    let d = clean_dir();
    let old = NOW - 30 * DAY;
    let leo = write_partition(d.path(), "t", &[seg(0, &[&[old]]), seg(1, &[&[old, old]])]);
    checkpoint(d.path(), "replication-offset-checkpoint", &[("t-0", leo)]);
    let r = plan_of(d.path(), &[], &[]);
    let p = part(&r, "t");
    assert_eq!(p.delete_segments(), [0, 1]);
    assert_eq!((p.rolled_at, p.log_start_offset_after), (Some(3), 3));
    assert!(p.kept.is_empty());
    // The high watermark one short of the log end keeps the active segment.
    checkpoint(
        d.path(),
        "replication-offset-checkpoint",
        &[("t-0", leo - 1)],
    );
    let r = plan_of(d.path(), &[], &[]);
    let p = part(&r, "t");
    assert_eq!(p.delete_segments(), [0]);
    assert_eq!(
        p.kept[0].reason,
        KeptReason::HighWatermark {
            high_watermark: 2,
            upper: Some(3)
        }
    );
    assert_eq!(p.blocked_by[0].reason, BlockReason::HighWatermark);
    assert_eq!(p.blocked_by[0].offset, Some(2));
    assert!(!r.problem());
}

#[test]
fn compact_delete_with_the_cleaner_disabled_is_never_checked() {
    let d = clean_dir();
    let old = NOW - 30 * DAY;
    let leo = write_partition(d.path(), "cd", &[seg(0, &[&[old]]), seg(1, &[&[NOW]])]);
    checkpoint(d.path(), "replication-offset-checkpoint", &[("cd-0", leo)]);
    let r = plan_of(
        d.path(),
        &["log.cleaner.enable=false"],
        &["cd:cleanup.policy=compact,delete"],
    );
    let p = part(&r, "cd");
    assert_eq!(p.checked_by, CheckedBy::Nobody(NotChecked::CleanerDisabled));
    assert!(p.deletions.is_empty());
    assert_eq!(p.log_start_offset_after, 0);
    assert_eq!(p.blocked_by[0].reason, BlockReason::CleanerDisabled);
    assert_eq!(p.blocked_by[0].segment, Some(0));
    assert!(p.kept.iter().all(|k| k.reason == KeptReason::NotChecked));
    // With the cleaner on, its thread runs the same rules.
    let r = plan_of(d.path(), &[], &["cd:cleanup.policy=compact,delete"]);
    let p = part(&r, "cd");
    assert_eq!(p.checked_by, CheckedBy::Cleaner);
    assert_eq!(p.delete_segments(), [0]);
    // compact alone never deletes by time.
    let r = plan_of(d.path(), &[], &["cd:cleanup.policy=compact"]);
    let p = part(&r, "cd");
    assert!(p.deletions.is_empty());
    assert_eq!(p.kept[0].reason, KeptReason::NoDeletePolicy);
    assert_eq!(p.kept[0].deletable, Deletable::Never);
}

#[test]
fn a_segment_without_a_time_index_is_judged_by_its_mtime() {
    let d = clean_dir();
    let old = NOW - 30 * DAY;
    let mut restored = seg(0, &[&[old]]);
    restored.time_index = false;
    let leo = write_partition(
        d.path(),
        "m",
        &[restored, seg(1, &[&[old]]), seg(2, &[&[NOW]])],
    );
    checkpoint(d.path(), "replication-offset-checkpoint", &[("m-0", leo)]);
    let log = d.path().join("m-0/00000000000000000000.log");
    let set_mtime = |ms: i64| {
        fs::File::options()
            .write(true)
            .open(&log)
            .unwrap()
            .set_modified(UNIX_EPOCH + Duration::from_millis(ms as u64))
            .unwrap()
    };
    // A fresh mtime (a restored copy): the old records are kept, and hold back segment 1.
    set_mtime(NOW - 1000);
    let r = plan_of(d.path(), &[], &[]);
    let p = part(&r, "m");
    assert!(p.deletions.is_empty());
    assert_eq!(p.kept[0].largest.source, TimestampSource::ModifiedTime);
    assert_eq!(p.kept[0].largest.timestamp, NOW - 1000);
    assert_eq!(
        (p.blocked_by[0].reason, p.blocked_by[0].offset),
        (BlockReason::ModifiedTime, None)
    );
    assert!(p
        .notes
        .iter()
        .any(|n| matches!(n, RetentionNote::ModifiedTimes { segments: 1, .. })));
    // An old mtime: deleted by it.
    set_mtime(NOW - 8 * DAY);
    let r = plan_of(d.path(), &[], &[]);
    let p = part(&r, "m");
    assert_eq!(p.delete_segments(), [0, 1]);
    assert_eq!(
        p.deletions[0].largest.as_ref().map(|l| l.source),
        Some(TimestampSource::ModifiedTime)
    );
}

#[test]
fn size_retention_deletes_only_whole_segments_the_excess_covers() {
    let d = clean_dir();
    let t = NOW - DAY;
    let leo = write_partition(
        d.path(),
        "s",
        &[
            seg(0, &[&[t]]),
            seg(1, &[&[t]]),
            seg(2, &[&[t]]),
            seg(3, &[&[t]]),
        ],
    );
    checkpoint(d.path(), "replication-offset-checkpoint", &[("s-0", leo)]);
    let size = fs::metadata(d.path().join("s-0/00000000000000000000.log"))
        .unwrap()
        .len() as i64;
    // The excess is 1.5 segments: one goes.
    let limit = 4 * size - size * 3 / 2;
    let r = plan_of(d.path(), &[], &[&format!("s:retention.bytes={limit}")]);
    let p = part(&r, "s");
    assert_eq!(p.delete_segments(), [0]);
    assert_eq!(p.deletions[0].rule, Rule::RetentionSize);
    assert_eq!(p.log_start_offset_after, 1);
    assert_eq!(p.log_bytes_read, 0);
}

#[test]
fn log_start_offset_rule_with_the_checkpoint() {
    let d = clean_dir();
    let t = NOW - DAY;
    let leo = write_partition(
        d.path(),
        "l",
        &[seg(0, &[&[t]]), seg(1, &[&[t]]), seg(2, &[&[t]])],
    );
    checkpoint(d.path(), "replication-offset-checkpoint", &[("l-0", leo)]);
    checkpoint(d.path(), "log-start-offset-checkpoint", &[("l-0", 2)]);
    let r = plan_of(d.path(), &[], &[]);
    let p = part(&r, "l");
    assert_eq!(p.log_start_source, LogStartSource::Checkpoint);
    assert_eq!(p.delete_segments(), [0, 1]);
    assert!(p.deletions.iter().all(|d| d.rule == Rule::LogStartOffset));
}

#[test]
fn a_crashed_dirs_active_segment_is_judged_by_its_batches() {
    let d = tempfile::tempdir().unwrap();
    let old = NOW - 30 * DAY;
    let leo = write_partition(
        d.path(),
        "c",
        &[seg(0, &[&[old]]), seg(1, &[&[old], &[NOW - DAY]])],
    );
    // The active segment's time index still says `old` (its last entry lags the batches).
    let ti = d.path().join("c-0/00000000000000000001.timeindex");
    let mut t = Vec::new();
    t.extend_from_slice(&old.to_be_bytes());
    t.extend_from_slice(&0i32.to_be_bytes());
    fs::write(&ti, t).unwrap();
    checkpoint(d.path(), "replication-offset-checkpoint", &[("c-0", leo)]);
    checkpoint(d.path(), "recovery-point-offset-checkpoint", &[("c-0", 1)]);
    let r = plan_of(d.path(), &[], &[]);
    let p = part(&r, "c");
    assert_eq!(r.log_dirs[0].state, DirState::Crashed);
    assert_eq!(p.delete_segments(), [0]);
    assert_eq!(p.kept[0].largest.timestamp, NOW - DAY);
    assert_eq!(p.kept[0].largest.source, TimestampSource::Batches);
    // Clean: the time index is final, and says `old`.
    fs::write(d.path().join(".kafka_cleanshutdown"), "{}").unwrap();
    let r = plan_of(d.path(), &[], &[]);
    assert_eq!(part(&r, "c").delete_segments(), [0, 1]);
}

#[test]
fn internal_and_special_dirs_are_said_not_checked() {
    let d = clean_dir();
    write_partition(
        d.path(),
        "__consumer_offsets",
        &[seg(0, &[&[NOW - 90 * DAY]])],
    );
    let r = plan_of(d.path(), &[], &[]);
    let p = part(&r, "__consumer_offsets");
    // Compacted by its creation config: checked only by the cleaner, which never deletes by
    // time.
    assert_eq!(p.checked_by, CheckedBy::Cleaner);
    assert!(p.deletions.is_empty());
    assert!(p.notes.contains(&RetentionNote::HighWatermarkAssumed));
}

/// A partition retention emptied keeps only an empty active segment; a copy of the dir gives it
/// a fresh mtime, after an earlier `--now`. Kafka never deletes that segment and it shields
/// nothing: no blocker, no problem (kseg said "a record stamped … holds nothing expired back"
/// and exited 1 on the real corpus's emptied `user-0`).
#[test]
fn an_empty_active_segment_with_a_future_mtime_blocks_nothing() {
    let d = clean_dir();
    let leo = write_partition(d.path(), "emptied", &[seg(2, &[])]);
    checkpoint(
        d.path(),
        "replication-offset-checkpoint",
        &[("emptied-0", leo)],
    );
    let log = d.path().join("emptied-0/00000000000000000002.log");
    fs::File::options()
        .write(true)
        .open(&log)
        .unwrap()
        .set_modified(UNIX_EPOCH + Duration::from_millis((NOW + 400 * DAY) as u64))
        .unwrap();
    let r = plan_of(d.path(), &[], &[]);
    let p = part(&r, "emptied");
    assert!(p.deletions.is_empty());
    assert_eq!(p.kept[0].reason, KeptReason::EmptyActive);
    assert!(p.blocked_by.is_empty(), "{:?}", p.blocked_by);
    assert!(!r.problem());
}

/// A compact-only topic's segments are never judged by time: their mtimes are no note.
#[test]
fn a_compact_only_topics_mtimes_are_no_note() {
    let d = clean_dir();
    let old = NOW - 30 * DAY;
    let mut no_index = seg(0, &[&[old]]);
    no_index.time_index = false;
    let leo = write_partition(d.path(), "c", &[no_index, seg(1, &[&[old]])]);
    checkpoint(d.path(), "replication-offset-checkpoint", &[("c-0", leo)]);
    let r = plan_of(d.path(), &[], &["c:cleanup.policy=compact"]);
    let p = part(&r, "c");
    assert!(
        !p.notes
            .iter()
            .any(|n| matches!(n, RetentionNote::ModifiedTimes { .. })),
        "{:?}",
        p.notes
    );
    // With delete, the same mtime is what the time rule reads: said.
    let r = plan_of(d.path(), &[], &[]);
    assert!(part(&r, "c")
        .notes
        .iter()
        .any(|n| matches!(n, RetentionNote::ModifiedTimes { .. })));
}
