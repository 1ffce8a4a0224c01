//! Numbers and spans of time in words, shared by the printers.

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
}
