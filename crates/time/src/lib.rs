//! Kafka timestamps (epoch milliseconds) as RFC 3339 text and back: the one home of that
//! formatting, for the analyses that word a finding and the printers, and of reading a time
//! given on the command line ([`parse_time`], with the zone of `--tz`: [`Zone`]).

use std::fmt;

use jiff::civil::DateTime;
use jiff::tz::{AmbiguousOffset, Offset, TimeZone};

/// `2024-05-29T16:26:40.123Z`, or `None` outside jiff's range (years -9999 to 9999).
pub fn rfc3339(ms: i64) -> Option<String> {
    jiff::Timestamp::from_millisecond(ms)
        .ok()
        .map(|t| format!("{t:.3}"))
}

/// Epoch milliseconds as RFC 3339 UTC, or the number itself when out of range.
pub fn rfc3339_ms(ms: i64) -> String {
    rfc3339(ms).unwrap_or_else(|| ms.to_string())
}

/// Epoch milliseconds as RFC 3339 UTC, or `<ms> ms` when out of range (lookup's wording).
pub fn rfc3339_or_ms(ms: i64) -> String {
    rfc3339(ms).unwrap_or_else(|| format!("{ms} ms"))
}

/// The zone of `--tz`: where a time given without an offset is read, and the offset times are
/// shown with. `local` is the machine's zone (`TZ`, else `/etc/localtime`); a name is looked up
/// in the system's time zone database (a copy is built in for machines without one); a fixed
/// offset (`+08:00`) and `UTC` are taken as they are.
#[derive(Debug, Clone, PartialEq)]
pub struct Zone {
    tz: TimeZone,
    /// How the zone is named back to the user (`Asia/Shanghai`, `local (Europe/Paris)`).
    label: String,
}

impl Default for Zone {
    fn default() -> Self {
        Zone::utc()
    }
}

impl Zone {
    pub fn utc() -> Zone {
        Zone {
            tz: TimeZone::UTC,
            label: "UTC".into(),
        }
    }

    /// `local`, `UTC`/`Z`, a fixed offset (`+08:00`, `-0530`) or an IANA name.
    pub fn parse(text: &str) -> Result<Zone, ZoneError> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("local") {
            let tz = TimeZone::try_system().map_err(|e| ZoneError::NoLocal(e.to_string()))?;
            let label = match tz.iana_name() {
                Some(name) => format!("local ({name})"),
                None => "local".into(),
            };
            return Ok(Zone { tz, label });
        }
        if t.eq_ignore_ascii_case("z") || t.eq_ignore_ascii_case("utc") {
            return Ok(Zone::utc());
        }
        if let Some(offset) = parse_offset(t) {
            return Ok(Zone {
                tz: TimeZone::fixed(offset),
                label: t.into(),
            });
        }
        match TimeZone::get(t) {
            Ok(tz) => Ok(Zone {
                label: tz.iana_name().unwrap_or(t).to_string(),
                tz,
            }),
            Err(_) => Err(ZoneError::Unknown(t.into())),
        }
    }

    /// How the zone is named back to the user.
    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn is_utc(&self) -> bool {
        self.tz == TimeZone::UTC
    }

    /// Appends `ms` as RFC 3339 with three fraction digits in this zone
    /// (`2024-05-29T16:26:40.123Z`, `2024-05-30T00:26:40.123+08:00`); false (nothing appended)
    /// outside jiff's range. Written digit by digit: a printer calls it once per record.
    pub fn push_rfc3339(&self, out: &mut Vec<u8>, ms: i64) -> bool {
        let Ok(ts) = jiff::Timestamp::from_millisecond(ms) else {
            return false;
        };
        let offset = if self.is_utc() {
            Offset::UTC
        } else {
            self.tz.to_offset(ts)
        };
        let dt = offset.to_datetime(ts);
        let year = dt.year();
        if year < 0 {
            out.push(b'-');
        }
        push_digits(out, u32::from(year.unsigned_abs()), 4);
        out.push(b'-');
        push_digits(out, dt.month() as u32, 2);
        out.push(b'-');
        push_digits(out, dt.day() as u32, 2);
        out.push(b'T');
        push_digits(out, dt.hour() as u32, 2);
        out.push(b':');
        push_digits(out, dt.minute() as u32, 2);
        out.push(b':');
        push_digits(out, dt.second() as u32, 2);
        out.push(b'.');
        push_digits(out, dt.millisecond() as u32, 3);
        let seconds = offset.seconds();
        if seconds == 0 && self.is_utc() {
            out.push(b'Z');
            return true;
        }
        out.push(if seconds < 0 { b'-' } else { b'+' });
        let s = seconds.unsigned_abs();
        push_digits(out, s / 3600, 2);
        out.push(b':');
        push_digits(out, s / 60 % 60, 2);
        if s % 60 != 0 {
            out.push(b':');
            push_digits(out, s % 60, 2);
        }
        true
    }

    /// [`Zone::push_rfc3339`] as a string, or the number itself when out of range.
    pub fn rfc3339(&self, ms: i64) -> String {
        let mut out = Vec::new();
        if self.push_rfc3339(&mut out, ms) {
            String::from_utf8(out).expect("ASCII")
        } else {
            ms.to_string()
        }
    }
}

fn push_digits(out: &mut Vec<u8>, n: u32, width: usize) {
    let mut buf = [b'0'; 10];
    let mut i = buf.len();
    let mut n = n;
    while n > 0 {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    let start = i.min(buf.len() - width);
    out.extend_from_slice(&buf[start..]);
}

/// `+08:00`, `-05:30`, `+0800`, `+08`: a fixed offset.
fn parse_offset(t: &str) -> Option<Offset> {
    let (sign, rest) = match t.as_bytes().first()? {
        b'+' => (1, &t[1..]),
        b'-' => (-1, &t[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|&c| c != ':').collect();
    if !digits.bytes().all(|b| b.is_ascii_digit()) || !matches!(digits.len(), 2 | 4) {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = digits.get(2..).map_or(Some(0), |m| m.parse().ok())?;
    if hours > 23 || minutes > 59 {
        return None;
    }
    Offset::from_seconds(sign * (hours * 3600 + minutes * 60)).ok()
}

/// Why `--tz` was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZoneError {
    /// No zone of that name in the time zone database.
    Unknown(String),
    /// The machine's zone could not be found (`TZ` unset or invalid, no `/etc/localtime`).
    NoLocal(String),
}

impl fmt::Display for ZoneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZoneError::Unknown(name) => write!(
                f,
                "no time zone {name:?}: give local, UTC, an offset (+08:00) or a name \
                 (Asia/Shanghai)"
            ),
            ZoneError::NoLocal(why) => write!(
                f,
                "the machine's time zone could not be found ({why}): give a name (Asia/Shanghai) \
                 or an offset (+08:00)"
            ),
        }
    }
}

/// Why a time given on the command line was refused. Its `Display` is the whole refusal, two
/// short lines: what is wrong, then what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeRefused {
    /// The flag (`--from-time`).
    pub flag: String,
    /// The text given, trimmed.
    pub text: String,
    pub why: TimeError,
}

/// What is wrong with a time given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeError {
    /// A civil date or date-time without a zone or offset (`civil`, as jiff prints it), and no
    /// `--tz`: its meaning depends on the machine that reads it.
    NoZone { civil: String },
    /// A civil time that the `--tz` zone (`zone`) skips (a gap) or passes twice (a fold) at a
    /// change of offset: the offsets `before` and `after` it.
    Ambiguous {
        civil: String,
        zone: String,
        gap: bool,
        before: String,
        after: String,
    },
    /// Neither an integer nor a time jiff reads.
    Unrecognised,
}

impl fmt::Display for TimeRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (flag, text) = (&self.flag, &self.text);
        match &self.why {
            TimeError::NoZone { civil } => write!(
                f,
                "{flag} {text:?} has no time zone\n  add one ({civil}Z, {civil}+08:00) or \
                 --tz local|ZONE"
            ),
            TimeError::Ambiguous {
                civil,
                zone,
                gap,
                before,
                after,
            } => {
                let what = if *gap {
                    "does not exist"
                } else {
                    "happens twice"
                };
                write!(
                    f,
                    "{flag} {text:?} {what} in {zone} (a change of offset)\n  add the offset: \
                     {civil}{before} or {civil}{after}"
                )
            }
            TimeError::Unrecognised => write!(
                f,
                "{flag} {text:?} is not a time\n  give epoch milliseconds or RFC 3339 \
                 (2024-03-09T14:00:00Z, 2024-03-09T14:00:00+08:00)"
            ),
        }
    }
}

impl std::error::Error for TimeRefused {}

/// A time given to `flag` on the command line: epoch milliseconds (any integer, negative
/// included: callers give negative values their meaning), an RFC 3339 time with an offset, an
/// RFC 9557 time with a zone name (`2024-03-09T14:00:00[Asia/Shanghai]`), or a civil date or
/// date-time read in `zone` (`--tz`). Without `--tz` a civil time is refused: the same text names
/// a different instant on every machine whose zone differs (kafka-consumer-groups.sh
/// --to-datetime reads it in the JVM's default zone). A civil time the zone skips or passes
/// twice is refused too. Surrounding blanks are ignored.
pub fn parse_time(flag: &str, text: &str, zone: Option<&Zone>) -> Result<i64, Box<TimeRefused>> {
    let t = text.trim();
    let refused = |why| {
        Box::new(TimeRefused {
            flag: flag.to_string(),
            text: t.to_string(),
            why,
        })
    };
    if let Ok(ms) = t.parse::<i64>() {
        return Ok(ms);
    }
    if let Ok(ts) = t.parse::<jiff::Timestamp>() {
        return Ok(ts.as_millisecond());
    }
    if t.ends_with(']') {
        if let Ok(z) = t.parse::<jiff::ZonedDateTime>() {
            return Ok(z.timestamp().as_millisecond());
        }
    }
    let Some(civil) = civil_of(t) else {
        return Err(refused(TimeError::Unrecognised));
    };
    let Some(zone) = zone else {
        return Err(refused(TimeError::NoZone {
            civil: civil.to_string(),
        }));
    };
    let ambiguous = zone.tz.to_ambiguous_timestamp(civil);
    let (gap, before, after) = match ambiguous.offset() {
        AmbiguousOffset::Unambiguous { offset } => {
            return offset
                .to_timestamp(civil)
                .map(|ts| ts.as_millisecond())
                .map_err(|_| refused(TimeError::Unrecognised));
        }
        AmbiguousOffset::Gap { before, after } => (true, before, after),
        AmbiguousOffset::Fold { before, after } => (false, before, after),
    };
    Err(refused(TimeError::Ambiguous {
        civil: civil.to_string(),
        zone: zone.label.clone(),
        gap,
        before: offset_text(before),
        after: offset_text(after),
    }))
}

/// An offset as RFC 3339 writes it (`-05:00`).
fn offset_text(offset: Offset) -> String {
    let s = offset.seconds();
    let a = s.unsigned_abs();
    let sign = if s < 0 { '-' } else { '+' };
    format!("{sign}{:02}:{:02}", a / 3600, a / 60 % 60)
}

/// A civil date-time, or a date (at midnight).
fn civil_of(t: &str) -> Option<DateTime> {
    t.parse::<DateTime>().ok().or_else(|| {
        t.parse::<jiff::civil::Date>()
            .ok()
            .map(|d| d.to_datetime(jiff::civil::Time::midnight()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(name: &str) -> Zone {
        Zone::parse(name).unwrap()
    }

    #[test]
    fn instants_need_a_zone() {
        let p = |t: &str| parse_time("--t", t, None);
        assert_eq!(p(" 1717000000000 "), Ok(1_717_000_000_000));
        assert_eq!(p("-3"), Ok(-3));
        assert_eq!(p("2024-03-09T14:00:00+08:00"), Ok(1_709_964_000_000));
        assert_eq!(p("2024-03-09T06:00:00.250Z"), Ok(1_709_964_000_250));
        assert_eq!(
            p("2024-03-09T14:00:00[Asia/Shanghai]"),
            Ok(1_709_964_000_000)
        );
        let e = p("2024-03-09").unwrap_err();
        assert_eq!(
            e.why,
            TimeError::NoZone {
                civil: "2024-03-09T00:00:00".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "--t \"2024-03-09\" has no time zone\n  add one (2024-03-09T00:00:00Z, \
             2024-03-09T00:00:00+08:00) or --tz local|ZONE"
        );
        assert!(e.to_string().lines().all(|l| l.len() < 80));
        assert_eq!(p("yesterday").unwrap_err().why, TimeError::Unrecognised);
    }

    #[test]
    fn a_civil_time_is_read_in_the_zone_asked_for() {
        let at = |t: &str, z: &str| parse_time("--t", t, Some(&zone(z)));
        assert_eq!(
            at("2024-03-09T14:00:00", "Asia/Shanghai"),
            Ok(1_709_964_000_000)
        );
        assert_eq!(at("2024-03-09T14:00:00", "+08:00"), Ok(1_709_964_000_000));
        assert_eq!(at("2024-03-09T06:00:00", "UTC"), Ok(1_709_964_000_000));
        // An explicit offset wins over the zone.
        assert_eq!(
            at("2024-03-09T06:00:00Z", "Asia/Shanghai"),
            Ok(1_709_964_000_000)
        );
        // 02:30 does not exist in New York on 2024-03-10; 01:30 happens twice on 2024-11-03.
        let gap = at("2024-03-10T02:30:00", "America/New_York").unwrap_err();
        assert!(matches!(gap.why, TimeError::Ambiguous { gap: true, .. }));
        assert_eq!(
            gap.to_string(),
            "--t \"2024-03-10T02:30:00\" does not exist in America/New_York (a change of \
             offset)\n  add the offset: 2024-03-10T02:30:00-05:00 or 2024-03-10T02:30:00-04:00"
        );
        let fold = at("2024-11-03T01:30:00", "America/New_York").unwrap_err();
        assert!(matches!(fold.why, TimeError::Ambiguous { gap: false, .. }));
        assert!(Zone::parse("Mars/Olympus_Mons").is_err());
        assert!(Zone::parse("+25:00").is_err());
    }

    #[test]
    fn times_are_shown_in_the_zone() {
        let mut out = Vec::new();
        assert!(Zone::utc().push_rfc3339(&mut out, 1_717_000_000_123));
        assert_eq!(out, b"2024-05-29T16:26:40.123Z");
        assert_eq!(
            zone("Asia/Shanghai").rfc3339(1_717_000_000_123),
            "2024-05-30T00:26:40.123+08:00"
        );
        assert_eq!(
            zone("America/New_York").rfc3339(1_717_000_000_123),
            "2024-05-29T12:26:40.123-04:00"
        );
        assert_eq!(zone("-05:30").rfc3339(0), "1969-12-31T18:30:00.000-05:30");
        assert_eq!(Zone::utc().rfc3339(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(Zone::utc().rfc3339(i64::MAX), i64::MAX.to_string());
        // The same text as jiff's own formatting, over the range.
        for ms in [0i64, 1, 999, 86_399_999, 951_782_400_000, 4_102_444_800_000] {
            assert_eq!(Zone::utc().rfc3339(ms), rfc3339(ms).unwrap(), "{ms}");
        }
    }

    #[test]
    fn in_and_out_of_range() {
        assert_eq!(rfc3339_ms(1_717_000_000_123), "2024-05-29T16:26:40.123Z");
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(i64::MAX), i64::MAX.to_string());
        assert_eq!(rfc3339_or_ms(i64::MIN), format!("{} ms", i64::MIN));
    }
}
