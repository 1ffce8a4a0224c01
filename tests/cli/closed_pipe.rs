//! `kseg ... | head`: a stdout whose reader has gone ends every command quietly with exit 0.
//! Each command runs with its stdout on a pipe whose read end is already closed, so its very
//! first write fails with EPIPE (no race with a reader that closes late). A wide log dir (60
//! partitions, a group committed on all of them) makes the outputs larger than kseg's write
//! buffers, so the failure happens in the middle of the output and not only at the last flush.

use std::io::Write;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A pipe's write end whose read end is closed.
fn closed_pipe() -> OwnedFd {
    let mut fds = [0i32; 2];
    // SAFETY: pipe(2) fills two fresh descriptors, which are then owned here.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    write
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("kseg")
}

/// Runs kseg with stdout on a closed pipe; (exit code, stderr).
fn into_closed_pipe(args: &[&str], stdin: &str) -> (i32, String) {
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::from(closed_pipe()))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(args: &[&str], stdin: &str) {
    let out = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(stdin.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(
        out.status.success(),
        "kseg {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// 3000 records over 60 partitions of `wide`, and group g1 committed on every partition.
fn wide_dir(root: &Path) -> String {
    let dir = root.join("wide-data").display().to_string();
    let lines: String = (0..3000)
        .map(|i| format!("key-{i}:a value of some length to fill the output {i}\n"))
        .collect();
    ok(
        &[
            "mini-broker",
            "produce",
            "--log-dir",
            &dir,
            "--topic",
            "wide",
            "--partitions",
            "60",
            "--key-separator",
            ":",
            "--batch-size",
            "2000",
        ],
        &lines,
    );
    let offsets: Vec<String> = (0..60).map(|p| format!("{p}=latest")).collect();
    let mut commit = vec![
        "mini-broker",
        "commit",
        "--log-dir",
        &dir,
        "--group",
        "g1",
        "--topic",
        "wide",
    ];
    commit.extend(offsets.iter().map(|s| s.as_str()));
    ok(&commit, "");
    dir
}

#[test]
fn every_command_ends_quietly_on_a_closed_stdout() {
    let t = tempfile::tempdir().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/example-datadir")
        .display()
        .to_string();
    let wide = wide_dir(t.path());
    let orders = format!("{example}/orders-0");
    let wide0 = format!("{wide}/wide-0");
    let segment = format!("{orders}/00000000000000000000.log");
    let ids: Vec<String> = (0..2000).map(|i| format!("group-{i}")).collect();
    let mut find_many = vec!["find-group-partition"];
    find_many.extend(ids.iter().map(|s| s.as_str()));
    let commands: Vec<Vec<&str>> = vec![
        vec!["summary", &wide, "--no-progress"],
        vec!["summary", &example],
        vec!["dump-log", &wide, "--deep-iteration", "--print-data-log"],
        vec!["dump-log", &segment],
        vec!["verify-index", &wide],
        vec!["verify-index", &example, "-v"],
        vec!["groups", &wide],
        vec!["groups", &wide, "--history"],
        vec!["groups", &example, "--history"],
        vec!["transactions", &example],
        vec!["transactions", &wide],
        find_many,
        vec![
            "find-group-partition",
            "g1",
            "--partitions",
            "50",
            "--log-dir",
            &wide,
        ],
        vec!["lookup", &wide, "--topic", "wide", "--earliest"],
        vec!["lookup", &wide0, "--timestamp", "0", "--explain", "--scan"],
        vec!["lookup", &orders, "--latest"],
    ];
    let mut runs = 0;
    for c in &commands {
        for json in [false, true] {
            let mut args = c.clone();
            if json {
                args.push("--json");
            }
            let (code, stderr) = into_closed_pipe(&args, "");
            assert_eq!(code, 0, "kseg {}: stderr: {stderr}", args.join(" "));
            // Notes about the data (stderr by design) are not errors about the pipe.
            let errors: Vec<&str> = stderr
                .lines()
                .filter(|l| !l.starts_with("kseg: note: "))
                .collect();
            assert!(errors.is_empty(), "kseg {}: {stderr}", args.join(" "));
            runs += 1;
        }
    }
    for args in [vec!["completions", "bash"], vec!["man"]] {
        let (code, stderr) = into_closed_pipe(&args, "");
        assert_eq!((code, stderr.as_str()), (0, ""), "kseg {}", args.join(" "));
        runs += 1;
    }
    // recover and mini-broker produce write their files before they report: the files are
    // there, the report is not, and the exit is still 0.
    for json in [false, true] {
        let target = t.path().join(format!("copy-{json}"));
        let target = target.display().to_string();
        let mut args = vec!["recover", &wide0, "--out", &target];
        if json {
            args.push("--json");
        }
        let (code, stderr) = into_closed_pipe(&args, "");
        assert_eq!(code, 0, "kseg {}: stderr: {stderr}", args.join(" "));
        assert_eq!(stderr, "", "kseg {}", args.join(" "));
        assert!(Path::new(&target)
            .join("wide-0")
            .join("00000000000000000000.log")
            .exists());
        runs += 1;
    }
    let fresh = t.path().join("fresh").display().to_string();
    let produce = [
        "mini-broker",
        "produce",
        "--log-dir",
        &fresh,
        "--topic",
        "t",
    ];
    let (code, stderr) = into_closed_pipe(&produce, "a\nb\n");
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert!(Path::new(&fresh).join("t-0").is_dir());
    assert_eq!(runs, 2 * 16 + 2 + 2);
}
