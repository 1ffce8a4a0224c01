//! `kseg lookup` holds a bounded number of files open whatever the segment count (issue 26):
//! run under a descriptor limit well below the number of segments, every query still answers.

use crate::common::*;
use std::path::Path;
use std::process::Command;

/// The descriptor limit the lookups run under; the partition has several times more segments.
const NOFILE: u32 = 40;
const SEGMENTS: i64 = 150;

fn partition(dir: &Path) {
    for i in 0..SEGMENTS {
        let b = batch(
            BatchSpec {
                base_offset: i,
                base_timestamp: 1_700_000_000_000 + i * 1000,
                ..Default::default()
            },
            &[rec("k", "v")],
        );
        write(&dir.join(format!("{i:020}.log")), &[&b]);
        // A sealed segment's one index entry (relative offset 0, position 0) and time entry.
        write(&dir.join(format!("{i:020}.index")), &[&[0u8; 8]]);
        let mut t = (1_700_000_000_000 + i * 1000).to_be_bytes().to_vec();
        t.extend_from_slice(&[0u8; 4]);
        write(&dir.join(format!("{i:020}.timeindex")), &[&t]);
    }
}

fn lookup_limited(dir: &Path, query: &[&str]) -> (i32, String, String) {
    let out = Command::new("prlimit")
        .arg(format!("--nofile={NOFILE}:{NOFILE}"))
        .arg(env!("CARGO_BIN_EXE_kseg"))
        .arg("lookup")
        .arg(dir)
        .args(query)
        .arg("--json")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
#[ignore = "needs prlimit (util-linux)"]
fn lookup_under_a_low_descriptor_limit() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        return tool_missing("prlimit", "lookup under a descriptor limit");
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("t-0");
    partition(&dir);
    let after_newest = (1_700_000_000_000 + SEGMENTS * 1000 + 1).to_string();
    for query in [
        vec!["--max-timestamp"],
        vec!["--timestamp", after_newest.as_str()],
        vec!["--timestamp", "1700000000500", "--scan"],
        vec!["--offset", "3", "--scan"],
        vec!["--max-timestamp", "--scan"],
    ] {
        let (code, stdout, stderr) = lookup_limited(&dir, &query);
        assert_eq!(code, 0, "{query:?} under {NOFILE} descriptors: {stderr}");
        assert!(
            !stderr.contains("Too many open files"),
            "{query:?}: {stderr}"
        );
        let lines = json_lines(&stdout);
        assert!(!lines.is_empty(), "{query:?}: no answer");
        if query[0] == "--max-timestamp" {
            assert_eq!(lines[0]["offset"], SEGMENTS - 1, "{query:?}: {stdout}");
        }
    }
}
