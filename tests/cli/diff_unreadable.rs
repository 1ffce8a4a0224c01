//! `kseg diff` with a segment it cannot read (issue 26): the segment's name does not set the
//! replica's log end, and the problem names the file.

use std::path::Path;

use crate::common::{batch, json_lines, kseg, of_type, rec, write, BatchSpec};

fn replica(root: &Path, node: i32) -> std::path::PathBuf {
    let dir = root.join(format!("broker-{node}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("meta.properties"),
        format!("version=1\nnode.id={node}\n"),
    )
    .unwrap();
    let records: Vec<_> = (0..10).map(|_| rec("k", "v")).collect();
    write(
        &dir.join("orders-0/00000000000000000000.log"),
        &[&batch(BatchSpec::default(), &records)],
    );
    dir
}

#[test]
fn an_unreadable_segment_does_not_set_the_log_end() {
    let t = tempfile::tempdir().unwrap();
    let a = replica(t.path(), 1);
    let b = replica(t.path(), 2);
    // A FIFO where a later segment should be: listed as a segment, not read (only regular
    // files are opened).
    let fifo = b.join("orders-0/00000000000000000100.log");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let run = kseg(&["diff", "--json", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("00000000000000000100.log"),
        "the problem names the file: {}",
        run.stderr
    );
    let lines = json_lines(&run.stdout);
    let ends: Vec<i64> = of_type(&lines, "replica")
        .iter()
        .map(|r| r["logEndOffset"].as_i64().unwrap())
        .collect();
    assert_eq!(ends, [10, 10], "{}", run.stdout);
}
