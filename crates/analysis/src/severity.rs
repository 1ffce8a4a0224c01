//! The one severity policy (README, "Severity policy"): what a finding means for Kafka and the
//! data it serves — its [`Nature`] — decides its [`Severity`], and an `error` among a command's
//! findings makes its exit code 1. `verify-index`, `recover`, `summary`, `dump-log` and `diff`
//! all grade through here.

use serde::Serialize;

use kseg_format::log::TailKind;
use kseg_scan::LogProblem;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// What a finding means for Kafka.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nature {
    /// The normal state of a crashed or running broker, or a fact of how it wrote: no
    /// clean-shutdown marker, preallocated indexes, a zero-filled tail of the active segment
    /// Kafka recovers, gaps in a compacted topic, an index written per multi-batch append.
    Normal,
    /// An inconsistency Kafka's load accepts and that serves nothing wrong: offsets missing
    /// between segments of a topic not compacted, a checkpoint beyond the log, a magic byte no
    /// Kafka writes, an epoch checkpoint behind the batches.
    Tolerated,
    /// Damage Kafka repairs by itself at its next start, nothing acknowledged lost: a torn last
    /// write in a segment it recovers, indexes it rebuilds, a producer snapshot it deletes,
    /// leftovers its load cleans up.
    RepairedAtLoad,
    /// Records below the high watermark (acknowledged) that are lost: dropped by recovery,
    /// or truncated away by another replica.
    AcknowledgedLoss,
    /// Kafka's load throws: the broker does not start.
    BrokerWillNotStart,
    /// Damage Kafka keeps and serves or trusts, or records it cannot read: a CRC-bad batch,
    /// bytes that frame no batch, a torn tail in a segment it does not recover, index damage it
    /// does not rebuild, a wrong aborted-transaction entry.
    DamagedData,
    /// A file kseg could not read.
    Unreadable,
}

impl Nature {
    pub const fn severity(self) -> Severity {
        match self {
            Nature::Normal => Severity::Info,
            Nature::Tolerated | Nature::RepairedAtLoad => Severity::Warning,
            Nature::AcknowledgedLoss
            | Nature::BrokerWillNotStart
            | Nature::DamagedData
            | Nature::Unreadable => Severity::Error,
        }
    }

    /// Damage in a file: repaired when Kafka's load rebuilds or recovers it, else kept.
    pub const fn damage(repaired_at_load: bool) -> Nature {
        if repaired_at_load {
            Nature::RepairedAtLoad
        } else {
            Nature::DamagedData
        }
    }
}

/// What reading a log segment can find wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogDamage {
    /// A batch whose CRC does not match its bytes.
    Crc,
    /// Bytes in the middle of a log that frame no batch.
    InvalidBytes,
    /// The file ends inside a batch (or too short for a header).
    TornTail,
    /// Zeros after the last batch.
    ZeroTail,
}

impl LogDamage {
    /// The damage a problem of a log scan is.
    pub fn of(problem: &LogProblem<'_>) -> LogDamage {
        match problem {
            LogProblem::Tail {
                kind: TailKind::ZeroFilled,
                ..
            } => LogDamage::ZeroTail,
            LogProblem::Tail {
                kind: TailKind::Partial { .. } | TailKind::Short,
                ..
            } => LogDamage::TornTail,
            LogProblem::Corrupt { .. } | LogProblem::Tail { .. } | LogProblem::BadEntry { .. } => {
                LogDamage::InvalidBytes
            }
        }
    }
}

/// The nature of damage found in a log segment: `active` when it is its partition's last
/// segment, `recovered` when Kafka's next load re-validates it (no clean-shutdown marker, from
/// the recovery point on; the KRaft metadata log always). A torn or zero-filled tail of the
/// active segment is what a crash leaves, and recovery truncates it; beside a marker Kafka reads
/// that end instead (`LogSegment.readNextOffset`): a zero size field there throws.
pub const fn log_damage(damage: LogDamage, active: bool, recovered: bool) -> Nature {
    match damage {
        LogDamage::TornTail if active && recovered => Nature::RepairedAtLoad,
        LogDamage::ZeroTail if active && recovered => Nature::Normal,
        LogDamage::ZeroTail if active => Nature::BrokerWillNotStart,
        LogDamage::ZeroTail => Nature::Tolerated,
        LogDamage::TornTail | LogDamage::Crc | LogDamage::InvalidBytes => Nature::DamagedData,
    }
}

/// The worst of some severities (`None` when there are none).
pub fn worst(severities: impl IntoIterator<Item = Severity>) -> Option<Severity> {
    severities.into_iter().max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy() {
        assert_eq!(Nature::Normal.severity(), Severity::Info);
        assert_eq!(Nature::RepairedAtLoad.severity(), Severity::Warning);
        assert_eq!(Nature::AcknowledgedLoss.severity(), Severity::Error);
        assert_eq!(Nature::damage(true), Nature::RepairedAtLoad);
        assert_eq!(Nature::damage(false), Nature::DamagedData);
        // A crash's torn tail is repaired by recovery; the same bytes in a sealed segment, or
        // beside a marker, are served.
        assert_eq!(
            log_damage(LogDamage::TornTail, true, true),
            Nature::RepairedAtLoad
        );
        assert_eq!(
            log_damage(LogDamage::TornTail, true, false),
            Nature::DamagedData
        );
        assert_eq!(log_damage(LogDamage::ZeroTail, true, true), Nature::Normal);
        assert_eq!(
            log_damage(LogDamage::ZeroTail, true, false),
            Nature::BrokerWillNotStart
        );
        assert_eq!(log_damage(LogDamage::Crc, true, true), Nature::DamagedData);
        assert_eq!(
            worst([Severity::Info, Severity::Error, Severity::Warning]),
            Some(Severity::Error)
        );
        assert_eq!(worst([]), None);
    }
}
