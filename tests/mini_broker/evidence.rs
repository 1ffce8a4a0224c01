//! The mini-broker keeps evidence: a log dir without a clean-shutdown marker (its broker crashed
//! or still runs) is not recovered in place unless `--recover-in-place` says so, and a
//! `--node-id` that contradicts `meta.properties` is refused rather than silently replaced.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::mini_broker_support::kseg_bin;

fn kseg(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(kseg_bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn produce(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["mini-broker", "produce", "--log-dir", dir.to_str().unwrap()];
    args.extend_from_slice(&["--topic", "orders"]);
    args.extend_from_slice(extra);
    kseg(&args, "a\nb\nc\n")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_crashed_dir_is_refused_unless_recover_in_place() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let o = produce(&dir, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A crash: no clean-shutdown marker, a torn tail on the segment.
    std::fs::remove_file(dir.join(".kafka_cleanshutdown")).unwrap();
    let seg = dir.join("orders-0/00000000000000000000.log");
    let mut bytes = std::fs::read(&seg).unwrap();
    bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0]);
    std::fs::write(&seg, &bytes).unwrap();
    let before = snapshot(&dir);
    // The server, produce and commit all refuse, and nothing changes on disk.
    let server = kseg(
        &[
            "mini-broker",
            "--listen",
            "127.0.0.1:0",
            "--log-dir",
            dir.to_str().unwrap(),
        ],
        "",
    );
    let commit = kseg(
        &[
            "mini-broker",
            "commit",
            "--log-dir",
            dir.to_str().unwrap(),
            "--group",
            "g",
            "--topic",
            "orders",
            "0=1",
        ],
        "",
    );
    for o in [produce(&dir, &[]), server, commit] {
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("has no .kafka_cleanshutdown") && err.contains("--recover-in-place"),
            "{err}"
        );
    }
    assert_eq!(snapshot(&dir), before, "a refused start changed the dir");
    // Asked for: recovered in place (the torn tail cut), and the records appended.
    let o = produce(&dir, &["--recover-in-place"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("recovered"), "{}", stderr(&o));
    assert!(dir.join(".kafka_cleanshutdown").exists());
    // A new, empty dir needs nothing.
    let fresh = t.path().join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    let o = produce(&fresh, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_node_id_contradicting_meta_properties_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let o = produce(&dir, &["--node-id", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let meta = std::fs::read_to_string(dir.join("meta.properties")).unwrap();
    assert!(meta.contains("node.id=3"), "{meta}");
    let o = produce(&dir, &["--node-id", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--node-id 1 contradicts node.id=3"),
        "{}",
        stderr(&o)
    );
    // The same id, or none (the dir's own is used), is fine.
    for extra in [&["--node-id", "3"][..], &[][..]] {
        let o = produce(&dir, extra);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("meta.properties")).unwrap(),
        meta
    );
}
