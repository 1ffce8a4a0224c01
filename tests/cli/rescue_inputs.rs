//! `kseg rescue`'s own inputs (issue 26): the `--state` file and `--sasl-password-file` are
//! regular files of bounded size, and a `--state` inside a source is refused before anything is
//! read or written. None of these needs a broker: each is refused before a connection.

use crate::common::*;
use std::path::Path;
use std::time::Duration;

/// A log dir holding `orders-0` with one batch.
fn source(root: &Path) -> std::path::PathBuf {
    let dir = root.join("logs");
    let b = batch(BatchSpec::default(), &[rec("k", "v")]);
    write(&dir.join("orders-0/00000000000000000000.log"), &[&b]);
    dir
}

fn listing(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = walk(dir);
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p.display().to_string());
    }
    out
}

/// kseg with a deadline: a FIFO read would block forever, and that is the failure.
fn kseg_within(args: &[&str]) -> Run {
    let out = assert_cmd::Command::cargo_bin("kseg")
        .unwrap()
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn a_state_file_inside_the_source_is_refused_and_nothing_is_written() {
    let t = tempfile::tempdir().unwrap();
    let src = source(t.path());
    let before = listing(&src);
    let state = src.join("orders-0/rescue-state.json");
    let run = kseg_within(&[
        "rescue",
        src.to_str().unwrap(),
        "--bootstrap",
        "127.0.0.1:1",
        "--state",
        state.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("is inside the source"),
        "{}",
        run.stderr
    );
    assert_eq!(listing(&src), before, "rescue wrote into its source");
}

#[test]
fn a_fifo_or_device_as_state_or_password_file_is_refused_not_read() {
    let t = tempfile::tempdir().unwrap();
    let src = source(t.path());
    let fifo = t.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    for (flag, path) in [
        ("--state", fifo.as_path()),
        ("--sasl-password-file", fifo.as_path()),
        ("--state", Path::new("/dev/zero")),
        ("--sasl-password-file", Path::new("/dev/zero")),
    ] {
        let run = kseg_within(&[
            "rescue",
            src.to_str().unwrap(),
            "--bootstrap",
            "127.0.0.1:1",
            flag,
            path.to_str().unwrap(),
        ]);
        assert_ne!(run.code, 0, "{flag} {}: {}", path.display(), run.stderr);
        assert_ne!(
            run.code,
            -1,
            "{flag} {}: killed (it read forever)",
            path.display()
        );
        assert!(
            run.stderr.contains("not a regular file")
                || run.stderr.contains("a FIFO")
                || run.stderr.contains("a character device"),
            "{flag} {}: {}",
            path.display(),
            run.stderr
        );
    }
}

/// A port nothing listens on (bound, then closed).
fn closed_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    drop(l);
    addr
}

/// `--dry-run` needs no cluster: with nothing listening it plans from the source (exit 0) and
/// says once, plainly, that the cluster could not be reached.
#[test]
fn a_dry_run_works_with_no_cluster_reachable() {
    let t = tempfile::tempdir().unwrap();
    let dir = source(t.path());
    let addr = closed_port();
    let r = kseg_within(&[
        "rescue",
        "--dry-run",
        dir.join("orders-0").to_str().unwrap(),
        "--bootstrap",
        &addr,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("dry run: 1 records would be sent; nothing was sent"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("orders-0"), "{}", r.stdout);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", r.stderr);
    assert!(
        lines[0].contains(&format!("cannot reach the cluster at {addr}"))
            && lines[0].contains("refused"),
        "{}",
        r.stderr
    );
}

/// A rescue that cannot connect says so in one plain line — the address and what failed — not
/// in librdkafka's internal names; exit 2.
#[test]
fn a_connection_failure_is_one_plain_line() {
    let t = tempfile::tempdir().unwrap();
    let dir = source(t.path());
    let addr = closed_port();
    let r = kseg_within(&[
        "rescue",
        dir.join("orders-0").to_str().unwrap(),
        "--bootstrap",
        &addr,
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr.trim(),
        format!(
            "kseg: error: cannot reach the cluster at {addr} (--bootstrap): connection refused \
             (nothing listens there)"
        )
    );
    for internal in ["BrokerTransportFailure", "Local:", "ipv4#", "state CONNECT"] {
        assert!(!r.stderr.contains(internal), "{}", r.stderr);
    }
}

/// Issue 26: Kafka refuses clients' records for its internal topics, so rescue refuses to send
/// any there — through `--topic-map` or an internal partition dir given by name — before it
/// connects (the bootstrap here accepts nothing).
#[test]
fn an_internal_topic_is_refused_as_a_target() {
    let t = tempfile::tempdir().unwrap();
    let src = source(t.path());
    for internal in ["__consumer_offsets", "__transaction_state"] {
        let map = format!("orders:{internal}");
        let run = kseg_within(&[
            "rescue",
            src.to_str().unwrap(),
            "--bootstrap",
            "127.0.0.1:1",
            "--topic-map",
            &map,
        ]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("{internal} is a Kafka internal topic")),
            "{}",
            run.stderr
        );
    }
    let b = batch(BatchSpec::default(), &[rec("k", "v")]);
    let offsets = t.path().join("logs/__consumer_offsets-3");
    write(&offsets.join("00000000000000000000.log"), &[&b]);
    let run = kseg_within(&[
        "rescue",
        offsets.to_str().unwrap(),
        "--bootstrap",
        "127.0.0.1:1",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("internal topic"), "{}", run.stderr);
}

/// `--topic GLOB` / `--exclude-topic GLOB` choose the source topics (issue 44 item 16); a
/// choice leaving none is refused naming the topics there are.
#[test]
fn topic_globs_choose_the_source_topics() {
    let t = tempfile::tempdir().unwrap();
    let dir = source(t.path());
    let b = batch(BatchSpec::default(), &[rec("k", "v")]);
    for topic in ["payments", "audit"] {
        write(
            &dir.join(format!("{topic}-0/00000000000000000000.log")),
            &[&b],
        );
    }
    let addr = closed_port();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "rescue",
            "--dry-run",
            dir.to_str().unwrap(),
            "--bootstrap",
            &addr,
        ];
        args.extend_from_slice(extra);
        kseg_within(&args)
    };
    let r = run(&[
        "--topic",
        "o*",
        "--topic",
        "pay[a-z]*",
        "--exclude-topic",
        "payments",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("orders-0"), "{}", r.stdout);
    assert!(
        !r.stdout.contains("payments-0") && !r.stdout.contains("audit-0"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("dry run: 1 records would be sent"),
        "{}",
        r.stdout
    );
    let r = run(&["--topic", "nothing-*"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "no partition to rescue: --topic/--exclude-topic leave none of the source topics \
             (audit, orders, payments)"
        ),
        "{}",
        r.stderr
    );
}

/// Records stamped in the future are said before anything is sent, also by a dry run without
/// a cluster: the target keeps their segments until then, whatever its retention.
#[test]
fn records_stamped_in_the_future_are_said() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("logs");
    let spec = BatchSpec {
        base_timestamp: 4_102_444_800_000, // 2100-01-01
        ..Default::default()
    };
    let b = batch(spec, &[rec("k", "v"), rec("k2", "v2")]);
    write(&dir.join("orders-0/00000000000000000000.log"), &[&b]);
    let r = kseg_within(&[
        "rescue",
        "--dry-run",
        dir.to_str().unwrap(),
        "--bootstrap",
        &closed_port(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "kseg: 2 records of orders-0 are stamped in the future (the latest \
             2100-01-01T00:00:00.000Z): target topic orders keeps the segments holding them \
             until then whatever its retention.ms"
        ),
        "{}",
        r.stderr
    );
}
