//! Kafka timestamps (epoch milliseconds) as RFC 3339 UTC text and back: the one home of that
//! formatting, for the analyses that word a finding and the printers, and of reading a time
//! given on the command line.

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

/// Why a text is not an instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstantError {
    /// A civil date or date-time without a zone (`civil`, as jiff prints it): its meaning
    /// depends on the machine that reads it. `as_utc_ms`: the instant it would be in UTC.
    NoZone {
        civil: String,
        as_utc_ms: Option<i64>,
    },
    /// Neither an integer nor an RFC 3339 time.
    Unrecognised,
}

/// A time as given on a command line: epoch milliseconds (any integer, negative included:
/// callers give negative values their meaning), or RFC 3339 with a zone. Surrounding blanks are
/// ignored. A time without a zone is refused ([`InstantError::NoZone`]).
pub fn parse_instant(text: &str) -> Result<i64, InstantError> {
    let t = text.trim();
    if let Ok(ms) = t.parse::<i64>() {
        return Ok(ms);
    }
    if let Ok(ts) = t.parse::<jiff::Timestamp>() {
        return Ok(ts.as_millisecond());
    }
    let civil = t.parse::<jiff::civil::DateTime>().ok().or_else(|| {
        t.parse::<jiff::civil::Date>()
            .ok()
            .map(|d| d.to_datetime(jiff::civil::Time::midnight()))
    });
    match civil {
        Some(dt) => Err(InstantError::NoZone {
            civil: dt.to_string(),
            as_utc_ms: jiff::tz::Offset::UTC
                .to_timestamp(dt)
                .map(|t| t.as_millisecond())
                .ok(),
        }),
        None => Err(InstantError::Unrecognised),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_need_a_zone() {
        assert_eq!(parse_instant(" 1717000000000 "), Ok(1_717_000_000_000));
        assert_eq!(parse_instant("-3"), Ok(-3));
        assert_eq!(
            parse_instant("2024-03-09T14:00:00+08:00"),
            Ok(1_709_964_000_000)
        );
        assert_eq!(
            parse_instant("2024-03-09T06:00:00.250Z"),
            Ok(1_709_964_000_250)
        );
        assert_eq!(
            parse_instant("2024-03-09"),
            Err(InstantError::NoZone {
                civil: "2024-03-09T00:00:00".into(),
                as_utc_ms: Some(1_709_942_400_000)
            })
        );
        assert_eq!(parse_instant("yesterday"), Err(InstantError::Unrecognised));
    }

    #[test]
    fn in_and_out_of_range() {
        assert_eq!(rfc3339_ms(1_717_000_000_123), "2024-05-29T16:26:40.123Z");
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(i64::MAX), i64::MAX.to_string());
        assert_eq!(rfc3339_or_ms(i64::MIN), format!("{} ms", i64::MIN));
    }
}
