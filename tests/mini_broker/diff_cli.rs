//! `kseg diff` on log dirs written by `kseg mini-broker produce` (real segment files, checkpoints
//! and leader-epoch histories; every produce run is a broker start with a new leader epoch):
//! identical copies, a follower behind, two copies that went on separately in the same epoch
//! (the leader cannot be told: two candidates), `--leader`, partition dirs given directly,
//! `--print-data-log`, `--json` records and the exit codes.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::mini_broker_support::kseg_bin;

fn produce(dir: &Path, lines: &str) {
    let mut child = Command::new(kseg_bin())
        .args(["mini-broker", "produce", "--topic", "t", "--log-dir"])
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(lines.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn copy(from: &Path, to: &Path) {
    assert!(Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap()
        .success());
}

fn diff(args: &[&Path], flags: &[&str]) -> Output {
    Command::new(kseg_bin())
        .arg("diff")
        .args(flags)
        .args(args)
        .output()
        .unwrap()
}

fn lines(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Lines `k<i>:<tag><i>` (record values, as `mini-broker produce` takes stdin lines).
fn records(n: std::ops::Range<u32>, tag: &str) -> String {
    n.map(|i| format!("k{i}:{tag}{i}\n")).collect()
}

#[test]
fn identical_behind_and_two_candidates() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, c, d) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("c"),
        tmp.path().join("d"),
    );
    produce(&a, &records(0..10, "v"));
    copy(&a, &b);
    copy(&a, &c);
    // a goes on (a new epoch), b stays behind; d, a copy of b, goes on with other records.
    produce(&a, &records(10..15, "v"));
    copy(&b, &d);
    produce(&d, &records(10..13, "x"));

    // Identical copies.
    let o = diff(&[&b, &c], &["--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v = lines(&o);
    let part = v.iter().find(|x| x["type"] == "partition").unwrap();
    assert_eq!(part["verdict"], "identical");
    let text = diff(&[&b, &c], &[]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("identical"));

    // b is behind a: exit 0, nothing lost.
    let o = diff(&[&a, &b], &["--json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v = lines(&o);
    let d1 = v.iter().find(|x| x["type"] == "divergence").unwrap();
    assert_eq!(d1["leader"], "broker-1@a");
    assert_eq!(d1["follower"], "broker-1@b");
    assert_eq!(d1["truncationOffset"], 10);
    assert_eq!(d1["lost"]["records"], 0);
    assert_eq!(d1["onlyOnLeader"]["records"], 5);
    assert_eq!(
        d1["findings"][0],
        "follower behind: broker-1@b lacks 5 records of broker-1@a (offsets 10..14)"
    );

    // a and d share epoch 0 and both started the same newer epoch at 10 with other records:
    // the histories cannot tell the leader; two candidates, both with acknowledged records on
    // one side only: exit 1.
    let o = diff(&[&a, &d], &["--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = lines(&o);
    let ds: Vec<&serde_json::Value> = v.iter().filter(|x| x["type"] == "divergence").collect();
    assert_eq!(ds.len(), 2);
    assert!(ds.iter().all(|x| x["candidate"] == true));
    for x in &ds {
        assert_eq!(x["commonPrefixEnd"], 10, "{x}");
        assert_eq!(x["conflicting"]["acknowledged"]["records"], 3, "{x}");
        assert!(x["findings"][0]
            .as_str()
            .unwrap()
            .starts_with(&format!("if {} leads: ", x["leader"].as_str().unwrap())));
    }
    let d_leads = ds.iter().find(|x| x["leader"] == "broker-1@d").unwrap();
    assert_eq!(d_leads["truncationOffset"], 13);
    assert_eq!(d_leads["lost"]["acknowledged"]["records"], 2);
    // The records a's truncation would remove, as dump-log records from a's files.
    let printed: Vec<&serde_json::Value> = v
        .iter()
        .filter(|x| x["type"] == "record" && x["file"].as_str().unwrap().contains("/a/t-0/"))
        .collect();
    assert_eq!(
        printed
            .iter()
            .map(|x| x["value"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["k13:v13", "k14:v14"]
    );

    // --leader settles it: d follows a; partition dirs given directly read the same.
    let o = diff(
        &[&a.join("t-0"), &d.join("t-0")],
        &["--json", "--leader", a.join("t-0").to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(1));
    let v = lines(&o);
    let ds: Vec<&serde_json::Value> = v.iter().filter(|x| x["type"] == "divergence").collect();
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0]["leader"], "broker-1@a/t-0");
    assert_eq!(ds[0]["candidate"], false);
    assert_eq!(ds[0]["truncationOffset"], 13);
    assert_eq!(ds[0]["lost"]["records"], 0);

    // --print-data-log: d's disagreeing records are not truncated, a's lost ones are printed.
    let o = diff(&[&d, &a], &["--print-data-log"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("payload: k13:v13") && text.contains("payload: k14:v14"),
        "{text}"
    );
    assert!(!text.contains("payload: k9:v9"), "{text}");

    // A path that does not exist, a --leader that is not an input: exit 2.
    let o = Command::new(kseg_bin())
        .args(["diff"])
        .arg(&a)
        .arg(tmp.path().join("nowhere"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = diff(&[&a, &a.join("t-0")], &["--leader", "/elsewhere"]);
    assert_eq!(o.status.code(), Some(2));
}
