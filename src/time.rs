//! Kafka timestamps (epoch milliseconds) as RFC 3339 UTC text: the one home of that formatting,
//! for the analyses that word a finding and the printers.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_and_out_of_range() {
        assert_eq!(rfc3339_ms(1_717_000_000_123), "2024-05-29T16:26:40.123Z");
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(i64::MAX), i64::MAX.to_string());
        assert_eq!(rfc3339_or_ms(i64::MIN), format!("{} ms", i64::MIN));
    }
}
