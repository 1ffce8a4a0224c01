//! The target check of `kseg rescue`, on what was learned of the target (no network here): each
//! target topic's limits ([`TopicLimits`]: its configs as DescribeConfigs answers them, or for a
//! topic to be created, the configs it gets over the broker's defaults), the largest batch every
//! target takes, and one walk over the records to send ([`check_sources`]) for those the target
//! would delete at once (older than its retention), keep past its retention (stamped in the
//! future) or refuse (too large, a timestamp out of its range, no key on a compacted topic).

use std::collections::BTreeMap;
use std::io;

use kseg_format::log::{LogRecord, RecordScratch};
use kseg_scan::Flow;

use super::{sent_timestamp, Plan, Source};

/// `DefaultRecordBatch.RECORD_BATCH_OVERHEAD`: a v2 batch's header.
const BATCH_OVERHEAD: usize = 61;

/// How far apart kseg's clock and a broker's may be: a timestamp this close to the edge of what
/// the target accepts is sent alone and waited for (see [`TopicLimits::at_risk`]).
const CLOCK_SKEW_MS: i64 = 5 * 60 * 1000;

/// What a target topic accepts and keeps, from its configs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicLimits {
    /// `max.message.bytes`: a larger batch is refused (MESSAGE_TOO_LARGE).
    pub max_message_bytes: Option<usize>,
    /// `segment.bytes`: a larger batch is refused (RECORD_BATCH_TOO_LARGE).
    pub segment_bytes: Option<usize>,
    /// `retention.ms` (None: -1, kept for ever).
    pub retention_ms: Option<i64>,
    /// `message.timestamp.type=LogAppendTime`: the broker stamps each record itself.
    pub log_append_time: bool,
    /// `message.timestamp.before.max.ms` / `message.timestamp.after.max.ms` (KIP-937; the
    /// latter 1 hour by default since Kafka 4.0): a CreateTime further from the broker's clock
    /// is refused (INVALID_TIMESTAMP, `LogValidator.validateTimestamp`).
    pub timestamp_before_max_ms: Option<i64>,
    pub timestamp_after_max_ms: Option<i64>,
    /// `cleanup.policy` has `compact`: a record without a key is refused (INVALID_RECORD,
    /// `LogValidator.validateKey`).
    pub compacted: bool,
}

/// The broker configs a new topic's configs default to (`ServerTopicConfigSynonyms`), the
/// first set of each list winning; the number multiplies a value into the topic's unit.
const SYNONYMS: [(&str, &[(&str, i64)]); 7] = [
    ("max.message.bytes", &[("message.max.bytes", 1)]),
    ("segment.bytes", &[("log.segment.bytes", 1)]),
    (
        "retention.ms",
        &[
            ("log.retention.ms", 1),
            ("log.retention.minutes", 60_000),
            ("log.retention.hours", 3_600_000),
        ],
    ),
    (
        "message.timestamp.type",
        &[("log.message.timestamp.type", 1)],
    ),
    (
        "message.timestamp.before.max.ms",
        &[("log.message.timestamp.before.max.ms", 1)],
    ),
    (
        "message.timestamp.after.max.ms",
        &[("log.message.timestamp.after.max.ms", 1)],
    ),
    ("cleanup.policy", &[("log.cleanup.policy", 1)]),
];

impl TopicLimits {
    /// A topic's limits from its configs (DescribeConfigs of the topic).
    pub fn of_topic(configs: &BTreeMap<String, String>) -> TopicLimits {
        let int = |k: &str| configs.get(k).and_then(|v| v.trim().parse::<i64>().ok());
        let size = |k: &str| {
            int(k)
                .filter(|n| *n > 0)
                .and_then(|n| usize::try_from(n).ok())
        };
        TopicLimits {
            max_message_bytes: size("max.message.bytes"),
            segment_bytes: size("segment.bytes"),
            retention_ms: int("retention.ms").filter(|ms| *ms >= 0),
            log_append_time: configs.get("message.timestamp.type").map(String::as_str)
                == Some("LogAppendTime"),
            timestamp_before_max_ms: int("message.timestamp.before.max.ms").filter(|v| *v >= 0),
            timestamp_after_max_ms: int("message.timestamp.after.max.ms").filter(|v| *v >= 0),
            compacted: configs
                .get("cleanup.policy")
                .is_some_and(|p| p.split(',').any(|p| p.trim() == "compact")),
        }
    }

    /// The limits a topic created with `configs` gets: each config given, else the broker's
    /// (`broker`: DescribeConfigs of a broker) under its synonyms.
    pub fn of_new_topic(
        configs: &BTreeMap<String, String>,
        broker: &BTreeMap<String, String>,
    ) -> TopicLimits {
        let mut effective = configs.clone();
        for (topic_key, synonyms) in SYNONYMS {
            if effective.contains_key(topic_key) {
                continue;
            }
            let found = synonyms.iter().find_map(|(k, unit)| {
                let v = broker.get(*k)?;
                Some(match v.trim().parse::<i64>() {
                    Ok(n) if *unit != 1 => n.saturating_mul(*unit).to_string(),
                    _ => v.clone(),
                })
            });
            if let Some(v) = found {
                effective.insert(topic_key.to_string(), v);
            }
        }
        TopicLimits::of_topic(&effective)
    }

    /// Why the target refuses `r` sent alone in a batch (its size counted uncompressed) at
    /// broker time `now`, if it does.
    pub fn refusal(&self, r: &LogRecord<'_>, now: i64) -> Option<Refusal> {
        self.refusal_within(r, now, 0)
    }

    /// Whether the target may refuse `r`: [`Self::refusal`] with room for the broker's clock
    /// and for a compressed batch larger than its records. Such a record is sent alone, once
    /// everything before it is acknowledged, and waited for: a refusal then stops its partition
    /// exactly there.
    pub fn at_risk(&self, r: &LogRecord<'_>, now: i64) -> bool {
        self.refusal_within(r, now, CLOCK_SKEW_MS).is_some()
    }

    fn refusal_within(&self, r: &LogRecord<'_>, now: i64, margin_ms: i64) -> Option<Refusal> {
        let bytes = one_record_batch_bytes(r);
        // A compressed batch of incompressible data is a little larger than its records.
        let slack = if margin_ms > 0 { bytes / 64 + 256 } else { 0 };
        for (limit, config) in [
            (self.max_message_bytes, LimitConfig::MaxMessageBytes),
            (self.segment_bytes, LimitConfig::SegmentBytes),
        ] {
            if let Some(limit) = limit.filter(|l| bytes + slack > *l) {
                return Some(Refusal::TooLarge {
                    batch_bytes: bytes,
                    limit,
                    config,
                });
            }
        }
        if self.compacted && r.key.is_none() {
            return Some(Refusal::NoKeyOnCompacted);
        }
        if self.log_append_time {
            return None;
        }
        let ts = sent_timestamp(r)?;
        if let Some(after) = self.timestamp_after_max_ms {
            if ts > now.saturating_add(after).saturating_sub(margin_ms) {
                return Some(Refusal::TimestampAhead {
                    timestamp: ts,
                    after_max_ms: after,
                });
            }
        }
        if let Some(before) = self.timestamp_before_max_ms {
            if ts < now.saturating_sub(before).saturating_add(margin_ms) {
                return Some(Refusal::TimestampBehind {
                    timestamp: ts,
                    before_max_ms: before,
                });
            }
        }
        None
    }
}

/// The config that bounds a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitConfig {
    MaxMessageBytes,
    SegmentBytes,
}

impl LimitConfig {
    pub fn name(self) -> &'static str {
        match self {
            LimitConfig::MaxMessageBytes => "max.message.bytes",
            LimitConfig::SegmentBytes => "segment.bytes",
        }
    }
}

/// Why a target refuses a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Its batch (`batch_bytes` alone, uncompressed) is over the topic's `config` (`limit`):
    /// MESSAGE_TOO_LARGE or RECORD_BATCH_TOO_LARGE.
    TooLarge {
        batch_bytes: usize,
        limit: usize,
        config: LimitConfig,
    },
    /// Its CreateTime is more than `message.timestamp.after.max.ms` ahead of the broker's clock.
    TimestampAhead { timestamp: i64, after_max_ms: i64 },
    /// Its CreateTime is more than `message.timestamp.before.max.ms` behind the broker's clock.
    TimestampBehind { timestamp: i64, before_max_ms: i64 },
    /// No key, and the target topic is compacted.
    NoKeyOnCompacted,
}

/// The size of a v2 batch holding `r` alone, uncompressed (`DefaultRecord.sizeInBytes` plus
/// the batch header): what the broker compares with `max.message.bytes` when the producer
/// sends it alone without compression.
pub fn one_record_batch_bytes(r: &LogRecord<'_>) -> usize {
    fn varint(v: i64) -> usize {
        let mut z = ((v << 1) ^ (v >> 63)) as u64;
        let mut n = 1;
        while z >= 0x80 {
            z >>= 7;
            n += 1;
        }
        n
    }
    let field = |b: Option<&[u8]>| b.map_or(varint(-1), |b| varint(b.len() as i64) + b.len());
    // attributes, timestamp delta 0, offset delta 0
    let mut body = 3 + field(r.key) + field(r.value);
    let mut count = 0i64;
    for h in r.headers.iter() {
        body += varint(h.key.len() as i64) + h.key.len() + field(h.value);
        count += 1;
    }
    body += varint(count);
    BATCH_OVERHEAD + varint(body as i64) + body
}

/// The largest batch every target topic takes (`asked`, lowered to the smallest
/// `max.message.bytes` or `segment.bytes`), and the topic and config that lowered it.
pub fn batch_cap<'t>(
    asked: usize,
    limits: impl IntoIterator<Item = (&'t str, &'t TopicLimits)>,
) -> (usize, Option<(String, LimitConfig, usize)>) {
    let mut cap = (asked, None);
    for (topic, l) in limits {
        for (n, config) in [
            (l.max_message_bytes, LimitConfig::MaxMessageBytes),
            (l.segment_bytes, LimitConfig::SegmentBytes),
        ] {
            if let Some(n) = n.filter(|n| *n < cap.0) {
                cap = (n, Some((topic.to_string(), config, n)));
            }
        }
    }
    cap
}

/// Records of a source older than its target topic's retention keeps: the broker deletes them
/// at its next retention check (a segment goes once its newest timestamp is older than
/// `retention.ms`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooOld {
    pub records: u64,
    pub newest: i64,
    pub keeps_from: i64,
    pub retention_ms: i64,
}

/// Records of a source stamped after now: the target keeps the segments holding them until
/// then, whatever its `retention.ms`, as the source did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Future {
    pub records: u64,
    pub latest: i64,
}

/// The first record of a source the target refuses (or, compressed, may refuse).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedAhead {
    pub offset: i64,
    pub why: Refusal,
    /// False when only compression could make it fit.
    pub certain: bool,
}

/// What the walk found for one source partition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceCheck {
    pub too_old: Option<TooOld>,
    pub future: Option<Future>,
    pub refused: Option<RefusedAhead>,
}

impl SourceCheck {
    pub fn is_empty(&self) -> bool {
        self.too_old.is_none() && self.future.is_none() && self.refused.is_none()
    }
}

/// Walks the records each source would send (after `after(i)`, what a previous run
/// delivered) against its target topic's limits (`limits_of`: none when unknown) at time
/// `now`; `compressed`: the batches are compressed, so a size over a limit is not certain.
pub fn check_sources(
    plan: &Plan<'_>,
    sources: &[Source<'_>],
    limits_of: &dyn Fn(&str) -> Option<TopicLimits>,
    after: &dyn Fn(usize) -> Option<i64>,
    now: i64,
    compressed: bool,
    scratch: &mut RecordScratch,
) -> io::Result<Vec<SourceCheck>> {
    let mut out = Vec::with_capacity(sources.len());
    for (i, s) in sources.iter().enumerate() {
        let limits = limits_of(plan.target_of(i));
        let mut found = SourceCheck::default();
        let appended_now = limits.as_ref().is_some_and(|l| l.log_append_time);
        let keeps_from = limits
            .as_ref()
            .filter(|l| !l.log_append_time)
            .and_then(|l| l.retention_ms.map(|ms| (ms, now.saturating_sub(ms))));
        s.select(plan.selection, after(i), scratch, |r| {
            // Timestamps 0 and below are stamped with the time of sending by the producer.
            let ts = sent_timestamp(r);
            if let (Some(ts), Some((ms, from))) = (ts, keeps_from) {
                if ts < from {
                    let old = found.too_old.get_or_insert(TooOld {
                        records: 0,
                        newest: ts,
                        keeps_from: from,
                        retention_ms: ms,
                    });
                    old.records += 1;
                    old.newest = old.newest.max(ts);
                }
            }
            if let Some(ts) = ts.filter(|ts| *ts > now && !appended_now) {
                let f = found.future.get_or_insert(Future {
                    records: 0,
                    latest: ts,
                });
                f.records += 1;
                f.latest = f.latest.max(ts);
            }
            if found.refused.is_none() {
                if let Some(why) = limits.as_ref().and_then(|l| l.refusal(r, now)) {
                    let certain = !(compressed && matches!(why, Refusal::TooLarge { .. }));
                    found.refused = Some(RefusedAhead {
                        offset: r.offset,
                        why,
                        certain,
                    });
                }
            }
            Ok(Flow::Continue)
        })?;
        out.push(found);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kseg_format::batch::{Headers, TimestampType};

    fn record<'a>(key: Option<&'a [u8]>, value: Option<&'a [u8]>, ts: i64) -> LogRecord<'a> {
        LogRecord {
            offset: 7,
            timestamp: ts,
            timestamp_type: TimestampType::CreateTime,
            key,
            value,
            headers: Headers::empty(),
            sequence: None,
            legacy: None,
        }
    }

    #[test]
    fn a_one_record_batch_is_sized_as_kafka_sizes_it() {
        // DefaultRecordBatch of one record "k"/"v", no headers: 61 + 1 (length) + 8 (body:
        // attributes, two deltas, key length, key, value length, value, header count) = 70.
        assert_eq!(
            one_record_batch_bytes(&record(Some(b"k"), Some(b"v"), 1)),
            70
        );
        // A null key is one byte (-1), a 200-byte value a two-byte length.
        let v = vec![0u8; 200];
        assert_eq!(
            one_record_batch_bytes(&record(None, Some(&v), 1)),
            61 + 2 + (3 + 1 + 2 + 200 + 1)
        );
    }

    #[test]
    fn limits_come_from_the_topic_or_the_brokers_synonyms() {
        let topic = BTreeMap::from([
            ("max.message.bytes".to_string(), "1000".to_string()),
            ("retention.ms".to_string(), "-1".to_string()),
            ("cleanup.policy".to_string(), "compact,delete".to_string()),
        ]);
        let l = TopicLimits::of_topic(&topic);
        assert_eq!(l.max_message_bytes, Some(1000));
        assert_eq!(l.retention_ms, None);
        assert!(l.compacted);
        let broker = BTreeMap::from([
            ("log.retention.hours".to_string(), "168".to_string()),
            ("message.max.bytes".to_string(), "1048588".to_string()),
            (
                "log.message.timestamp.after.max.ms".to_string(),
                "3600000".to_string(),
            ),
        ]);
        let l = TopicLimits::of_new_topic(&BTreeMap::new(), &broker);
        assert_eq!(l.retention_ms, Some(168 * 3_600_000));
        assert_eq!(l.max_message_bytes, Some(1_048_588));
        assert_eq!(l.timestamp_after_max_ms, Some(3_600_000));
        let given = BTreeMap::from([("retention.ms".to_string(), "5".to_string())]);
        assert_eq!(
            TopicLimits::of_new_topic(&given, &broker).retention_ms,
            Some(5)
        );
    }

    #[test]
    fn refusals_follow_kafkas_validation() {
        let now = 1_000_000_000_000;
        let l = TopicLimits {
            max_message_bytes: Some(1000),
            timestamp_after_max_ms: Some(3_600_000),
            compacted: true,
            ..Default::default()
        };
        let big = vec![1u8; 1000];
        assert!(matches!(
            l.refusal(&record(Some(b"k"), Some(&big), now), now),
            Some(Refusal::TooLarge { limit: 1000, .. })
        ));
        // Just under the limit uncompressed: accepted, but compressed it may not be.
        let near = vec![1u8; 900];
        assert_eq!(l.refusal(&record(Some(b"k"), Some(&near), now), now), None);
        assert!(l.at_risk(&record(Some(b"k"), Some(&near), now), now));
        assert_eq!(
            l.refusal(&record(None, Some(b"v"), now), now),
            Some(Refusal::NoKeyOnCompacted)
        );
        let ahead = now + 3_600_001;
        assert_eq!(
            l.refusal(&record(Some(b"k"), Some(b"v"), ahead), now),
            Some(Refusal::TimestampAhead {
                timestamp: ahead,
                after_max_ms: 3_600_000
            })
        );
        // Within the window, but close to its edge: sent alone and waited for.
        let near = now + 3_600_000 - 1000;
        assert_eq!(l.refusal(&record(Some(b"k"), Some(b"v"), near), now), None);
        assert!(l.at_risk(&record(Some(b"k"), Some(b"v"), near), now));
        assert!(!l.at_risk(&record(Some(b"k"), Some(b"v"), now), now));
        // A timestamp of 0 or less is stamped by the producer: never out of range.
        assert_eq!(l.refusal(&record(Some(b"k"), Some(b"v"), 0), now), None);
    }

    #[test]
    fn the_batch_cap_is_the_smallest_limit() {
        let a = TopicLimits {
            max_message_bytes: Some(5000),
            segment_bytes: Some(4000),
            ..Default::default()
        };
        let b = TopicLimits {
            max_message_bytes: Some(9000),
            ..Default::default()
        };
        assert_eq!(
            batch_cap(1 << 20, [("a", &a), ("b", &b)]),
            (
                4000,
                Some(("a".to_string(), LimitConfig::SegmentBytes, 4000))
            )
        );
        assert_eq!(batch_cap(100, [("a", &a)]), (100, None));
    }
}
