//! Numbers, spans of time and other values more than one printer words.

use std::fmt;

use kseg_analysis::load::LoadReason;
use kseg_analysis::lookup::EpochCacheChange;
use kseg_analysis::producer_load::StaleAbort;
use kseg_analysis::rescue_map::{NotSent, Translated, Untranslatable};
use kseg_analysis::topic_configs::{ConfigSource, TopicLogConfig};
use kseg_format::text_files::EpochEntry;

/// `1,204`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A span of milliseconds as `45s`, `12m3s` or `5h20m` (the two largest units that say it).
pub fn human_span(ms: i64) -> String {
    let s = ms / 1000;
    match s {
        s if s < 120 => format!("{s}s"),
        s if s < 7200 => format!("{}m{}s", s / 60, s % 60),
        s => format!("{}h{}m", s / 3600, (s % 3600) / 60),
    }
}

/// A span of milliseconds that may be long: [`human_span`] below two days, else `12d5h`.
pub fn long_span(ms: i64) -> String {
    let h = ms / 3_600_000;
    if h < 48 {
        human_span(ms)
    } else {
        format!("{}d{}h", h / 24, h % 24)
    }
}

/// Bytes for people: `512 B`, `1.5 KiB`, `3.2 GiB` (binary units, one decimal).
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// What loading a leader-epoch cache changed, in words: `--explain` shows it among lookup's
/// steps, `verify-index` in its findings.
pub struct EpochCacheWords<'a>(pub &'a EpochCacheChange);

impl fmt::Display for EpochCacheWords<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list(f: &mut fmt::Formatter<'_>, entries: &[EpochEntry]) -> fmt::Result {
            for (k, e) in entries.iter().enumerate() {
                let sep = if k == 0 { "" } else { ", " };
                write!(f, "{sep}{} {}", e.epoch, e.start_offset)?;
            }
            Ok(())
        }
        match self.0 {
            EpochCacheChange::Invalid(e) => write!(
                f,
                "entry ({}, {}) is invalid: Kafka refuses it and fails to load the log",
                e.epoch, e.start_offset
            ),
            EpochCacheChange::Conflicts { entry, removed } => {
                write!(
                    f,
                    "entry ({}, {}) removes the earlier entries it conflicts with: ",
                    entry.epoch, entry.start_offset
                )?;
                list(f, removed)
            }
            EpochCacheChange::DroppedAtLogEnd { log_end, dropped } => {
                write!(
                    f,
                    "entries starting at or after the log end offset {log_end} are dropped when \
                     the log is loaded: "
                )?;
                list(f, dropped)?;
                f.write_str(" (normal when a leader was elected and nothing appended since)")
            }
            EpochCacheChange::FoldedIntoLogStart { log_start, epoch } => write!(
                f,
                "entries at or before the log start offset {log_start} fold into ({epoch}, \
                 {log_start})"
            ),
        }
    }
}

/// Why Kafka's load removes or renames a file, in words: `verify-index`'s findings and
/// `recover`'s report share them.
pub struct LoadWords<'a>(pub &'a LoadReason);

impl fmt::Display for LoadWords<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            LoadReason::StrayDeleted => {
                f.write_str("stray file marked for deletion: Kafka deletes it at load")
            }
            LoadReason::CleanerOutput => f.write_str(
                "log cleaner output of an interrupted cleaning: Kafka deletes it at load",
            ),
            LoadReason::SplitSwapAboveCleaned { min_cleaned } => write!(
                f,
                "swap file at or above the smallest .cleaned offset {min_cleaned}: part of an \
                 incomplete segment split, Kafka deletes it at load"
            ),
            LoadReason::ReplacedBySwap { first, end } => write!(
                f,
                "replaced by the swap files of an interrupted compaction or split (offsets \
                 {first}..{end}): Kafka deletes it at load"
            ),
            LoadReason::OverwrittenByRename => {
                f.write_str("overwritten by the rename of its .swap file at load")
            }
            LoadReason::SwapRenamed { target } => write!(
                f,
                "swap file of an interrupted compaction or split: Kafka completes it by renaming \
                 it to {target} at load"
            ),
            LoadReason::OrphanIndex => {
                f.write_str("index file without its .log: Kafka deletes it at load")
            }
        }
    }
}

/// A stale producer snapshot's wrong `.txnindex` entry, in words: `verify-index`'s finding and
/// `recover`'s "still damaged" line.
pub struct StaleWords<'a>(pub &'a StaleAbort);

impl fmt::Display for StaleWords<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0;
        write!(
            f,
            "producer {}'s transaction aborted at offset {}: ",
            s.producer_id, s.marker_offset
        )?;
        match s.kafka_first {
            Some(k) => write!(
                f,
                "Kafka's recovery writes its .txnindex entry with first offset {k}"
            )?,
            None => f.write_str("Kafka's recovery writes no .txnindex entry for it")?,
        }
        match s.snapshot {
            Some(o) => write!(f, " (from the producer snapshot at offset {o}), but ")?,
            None => f.write_str(" (from the state at the log start), but ")?,
        }
        match s.true_first {
            Some(t) => write!(f, "the log says the transaction began at offset {t}")?,
            None => f.write_str("the log has no open transaction of that producer there")?,
        }
        if let Some((a, b)) = s.exposed() {
            write!(
                f,
                ": read_committed consumers will see aborted records at offsets {a}..{b}"
            )?;
        }
        if let Some((a, b)) = s.hidden() {
            write!(
                f,
                ": read_committed consumers will skip producer {}'s records at offsets {a}..{b}",
                s.producer_id
            )?;
        }
        Ok(())
    }
}

/// Why a committed offset was not sent, in words (`source offset 7 is ...`).
pub struct NotSentWords<'a> {
    pub why: &'a NotSent,
    pub offset: i64,
}

impl fmt::Display for NotSentWords<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let offset = self.offset;
        match self.why {
            NotSent::Aborted => {
                write!(
                    f,
                    "source offset {offset} is a record of an aborted transaction"
                )
            }
            NotSent::Open => write!(
                f,
                "source offset {offset} is a record of a transaction that never ended (its \
                 coordinator aborts it)"
            ),
            NotSent::Control => {
                write!(
                    f,
                    "source offset {offset} is a control record (a transaction marker)"
                )
            }
            NotSent::BadCrc => {
                write!(
                    f,
                    "source offset {offset} is in a batch failing its checksum"
                )
            }
            NotSent::OutsideTimestamps => write!(
                f,
                "source offset {offset} is a record outside --from-timestamp/--to-timestamp"
            ),
            NotSent::NoRecord => write!(
                f,
                "no record has source offset {offset} (compacted away, or unreadable)"
            ),
            NotSent::BeforeFromOffset(from) => {
                write!(f, "source offset {offset} is before --from-offset {from}")
            }
            NotSent::AfterToOffset(to) => {
                write!(f, "source offset {offset} is past --to-offset {to}")
            }
            NotSent::Unmapped => write!(f, "source offset {offset} is not in the offset map"),
        }
    }
}

/// Why a committed offset's translation is what it is, for anything but a record sent
/// (`rescue --groups`' notes).
pub fn translation_why(t: &Translated, committed: i64) -> Option<String> {
    match t {
        Translated::Exact { .. } => None,
        Translated::End { .. } => Some(format!(
            "source offset {committed} is the source's log end (everything was read): the end of \
             the rescued records"
        )),
        Translated::NextSent {
            why, next_source, ..
        } => {
            let why = NotSentWords {
                why,
                offset: committed,
            };
            Some(match next_source {
                Some(n) => format!(
                    "{why}, not sent; a consumer resumes at the next record sent, source offset {n}"
                ),
                None => format!(
                    "{why}, not sent, and no record after it was: the end of the rescued records"
                ),
            })
        }
        Translated::NotTranslated(u) => Some(match u {
            Untranslatable::BelowLogStart(s) => format!(
                "below the source's log start offset {s} (deleted there): a consumer resets it by \
                 its auto.offset.reset; not committed"
            ),
            Untranslatable::BeyondLogEnd(e) => format!(
                "beyond the source's log end offset {e}: a consumer resets it by its \
                 auto.offset.reset; not committed"
            ),
            Untranslatable::NoTargetPosition => "nothing of this partition was rescued and where \
                 its target partition began is unknown; not committed"
                .to_string(),
            Untranslatable::SharedTarget(other) => format!(
                "the group also has an offset on {other}, which goes to the same target \
                 partition: one offset there cannot stand for both; not committed"
            ),
            Untranslatable::MapFault(f) => format!(
                "{}: the map does not describe the target; not committed",
                crate::rescue::map_fault(f)
            ),
            Untranslatable::BeyondTargetEnd { target, log_end } => format!(
                "the translation, target offset {target}, is past the target partition's log \
                 end {log_end}: the offset map does not describe the target; not committed"
            ),
            Untranslatable::BelowTargetStart { target, log_start } => format!(
                "the translation, target offset {target}, is below the target partition's log \
                 start {log_start} (deleted there by its retention or DeleteRecords): a consumer \
                 resets it by its auto.offset.reset; not committed"
            ),
        }),
    }
}

/// Where a log config's value came from.
pub fn config_source(source: ConfigSource) -> &'static str {
    match source {
        ConfigSource::Default => "Kafka's default",
        ConfigSource::ClusterDefault => "cluster default in __cluster_metadata",
        ConfigSource::Topic => "topic config in __cluster_metadata",
        ConfigSource::Flag => "command line",
        ConfigSource::BrokerDefault => "broker config in __cluster_metadata",
        ConfigSource::InternalTopic => "the internal topic's creation config",
        ConfigSource::ConfigFlag => "--config",
        ConfigSource::TopicConfigFlag => "--topic-config",
    }
}

/// `name=value (source)` for the topic's log configs that are not Kafka's defaults.
pub fn log_config_overrides(c: &TopicLogConfig) -> String {
    let mut out = Vec::new();
    let mut add = |name: &str, value: String, source: ConfigSource| {
        if source != ConfigSource::Default {
            out.push(format!("{name}={value} ({})", config_source(source)));
        }
    };
    add(
        "index.interval.bytes",
        c.index_interval_bytes.value.to_string(),
        c.index_interval_bytes.source,
    );
    add(
        "segment.bytes",
        c.segment_bytes.value.to_string(),
        c.segment_bytes.source,
    );
    add(
        "message.timestamp.type",
        c.message_timestamp_type.value.clone(),
        c.message_timestamp_type.source,
    );
    add(
        "preallocate",
        c.preallocate.value.to_string(),
        c.preallocate.source,
    );
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1204), "1,204");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn spans_in_two_units() {
        assert_eq!(human_span(119_999), "119s");
        assert_eq!(human_span(120_000), "2m0s");
        assert_eq!(human_span(7_199_000), "119m59s");
        assert_eq!(human_span(90_000_000), "25h0m");
    }

    #[test]
    fn epoch_cache_changes_in_words() {
        let e = |epoch, start_offset| EpochEntry {
            epoch,
            start_offset,
        };
        let words = |c: EpochCacheChange| EpochCacheWords(&c).to_string();
        assert_eq!(
            words(EpochCacheChange::Conflicts {
                entry: e(1, 60),
                removed: vec![e(2, 50)]
            }),
            "entry (1, 60) removes the earlier entries it conflicts with: 2 50"
        );
        assert_eq!(
            words(EpochCacheChange::Invalid(e(-1, 3))),
            "entry (-1, 3) is invalid: Kafka refuses it and fails to load the log"
        );
        assert_eq!(
            words(EpochCacheChange::DroppedAtLogEnd {
                log_end: 55,
                dropped: vec![e(1, 60)]
            }),
            "entries starting at or after the log end offset 55 are dropped when the log is \
             loaded: 1 60 (normal when a leader was elected and nothing appended since)"
        );
        assert_eq!(
            words(EpochCacheChange::FoldedIntoLogStart {
                log_start: 8,
                epoch: 2
            }),
            "entries at or before the log start offset 8 fold into (2, 8)"
        );
    }

    #[test]
    fn a_stale_snapshot_names_the_exposed_aborted_records() {
        let stale = StaleAbort {
            segment_base: 4,
            producer_id: 7,
            marker_offset: 2,
            kafka_first: Some(2),
            true_first: Some(0),
            snapshot: Some(4),
        };
        assert_eq!(
            StaleWords(&stale).to_string(),
            "producer 7's transaction aborted at offset 2: Kafka's recovery writes its .txnindex \
             entry with first offset 2 (from the producer snapshot at offset 4), but the log says \
             the transaction began at offset 0: read_committed consumers will see aborted \
             records at offsets 0..1"
        );
    }
}
