//! Hostile names and unreadable dirs inside a log dir (issue 14 item 12): a partition dir whose
//! name is not UTF-8, a segment file whose name holds ESC, and a partition dir kseg may not list.
//! Every command that discovers partitions names each one on stderr (one line, the path escaped),
//! still reads the rest, and exits 2 (not everything asked for was read).
//!
//! Unreadable dirs: `chmod 000` stops only a non-root user. Run as root (CI), the test runs kseg
//! in a new user namespace (`unshare -U`, where it is the overflow uid and the mode applies);
//! where user namespaces are not allowed it says so and checks the other two cases only.

use crate::common;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The example data dir plus the hostile entries, world-readable (for the namespace's uid).
fn hostile_log_dir(root: &Path, unreadable: bool) -> PathBuf {
    let ld = root.join("ld");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example-datadir"),
        &ld,
    );
    let bad = ld.join(OsStr::from_bytes(b"bad\xff-0"));
    copy_dir(&ld.join("orders-0"), &bad);
    std::fs::copy(
        ld.join("orders-1/00000000000000000000.log"),
        ld.join("orders-1/0000000000000000001\x1b.log"),
    )
    .unwrap();
    if unreadable {
        copy_dir(&ld.join("orders-0"), &ld.join("locked-0"));
    }
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(0o644)).unwrap();
            }
        }
    }
    if unreadable {
        std::fs::set_permissions(ld.join("locked-0"), std::fs::Permissions::from_mode(0o000))
            .unwrap();
    }
    ld
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// How to run kseg so that `chmod 000` binds: directly as a user, in a user namespace as root;
/// `None` when neither works here.
fn unprivileged() -> Option<Vec<String>> {
    if !is_root() {
        return Some(Vec::new());
    }
    let ok = Command::new("unshare")
        .args(["-U", "true"])
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| vec!["unshare".to_string(), "-U".to_string()])
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn kseg(prefix: &[String], args: &[&str]) -> Run {
    let bin = assert_cmd::cargo::cargo_bin("kseg");
    let mut cmd = match prefix.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(&bin);
            c
        }
        None => Command::new(&bin),
    };
    let out = cmd.args(args).output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
#[ignore = "needs a tool .ci/run installs"]
fn every_discovering_command_names_what_it_cannot_read_and_reads_the_rest() {
    let t = tempfile::tempdir().unwrap();
    let prefix = unprivileged();
    if prefix.is_none() {
        common::tool_missing(
            "user namespaces (`unshare -U`, needed when running as root)",
            "the unreadable-dir case (the other two are checked)",
        );
    }
    let ld = hostile_log_dir(t.path(), prefix.is_some());
    let ld_s = ld.to_str().unwrap();
    let orders1 = ld.join("orders-1");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["dump-log", ld_s], "orders-0/00000000000000000000.log"),
        (vec!["summary", ld_s], "orders"),
        (vec!["verify-index", ld_s], "partitions checked"),
        (vec!["transactions", ld_s], "TRANSACTIONAL-ID"),
        (vec!["groups", ld_s], "CURRENT-OFFSET"),
        (
            vec!["lookup", ld_s, "--topic", "orders", "--earliest"],
            "orders:0:0",
        ),
    ];
    let prefix = prefix.unwrap_or_default();
    for (args, expected) in &cases {
        let run = kseg(&prefix, args);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(
            run.stdout.contains(expected),
            "{args:?}: the readable partitions' result is missing ({expected}):\n{}",
            run.stdout
        );
        let lines: Vec<&str> = run.stderr.lines().collect();
        let named = |what: &str| lines.iter().filter(|l| l.contains(what)).count();
        assert_eq!(
            named("bad\\xff-0: its name is not UTF-8"),
            1,
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(
            named("0000000000000000001\\x1b.log: its name holds control characters"),
            1,
            "{args:?}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains('\x1b'), "{args:?}: raw ESC on stderr");
        if !prefix.is_empty() || !is_root() {
            assert_eq!(
                named("locked-0: cannot list the directory: Permission denied"),
                1,
                "{args:?}: {}",
                run.stderr
            );
        }
    }
    // recover on a partition dir holding the ESC-named file: the repair is made, the file named.
    let out = t.path().join("recovered");
    let run = kseg(
        &prefix,
        &[
            "recover",
            orders1.to_str().unwrap(),
            "--out",
            out.join("orders-1").to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("0000000000000000001\\x1b.log: its name holds control characters"),
        "{}",
        run.stderr
    );
    // Let the temp dir go.
    let _ = std::fs::set_permissions(ld.join("locked-0"), std::fs::Permissions::from_mode(0o755));
}
