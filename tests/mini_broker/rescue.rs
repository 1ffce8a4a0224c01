//! `kseg rescue` into the mini-broker: a rescue whose records the target topic's retention.ms
//! would delete (their timestamps older than it keeps) is refused unless
//! `--allow-retention-delete` says to send them anyway; once the target deleted them, `--verify`
//! names the moved log start offset.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::mini_broker_support::{kseg_bin, BrokerProcess};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn records_the_target_retention_would_delete_are_refused_unless_allowed() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("dead-broker");
    let mut child = Command::new(kseg_bin())
        .args([
            "mini-broker",
            "produce",
            "--retention-ms",
            "-1",
            "--log-dir",
        ])
        .arg(&src)
        .args(["--topic", "orders"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"a\nb\nc\n").unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // The records are now older than the target's one-second retention keeps.
    std::thread::sleep(Duration::from_millis(1500));
    let broker = BrokerProcess::start(
        &t.path().join("target"),
        &[
            "--retention-ms",
            "1000",
            "--retention-check-interval-ms",
            "200",
        ],
    );
    let bootstrap = broker.bootstrap();
    let rescue = |extra: &[&str]| {
        Command::new(kseg_bin())
            .arg("rescue")
            .arg(src.join("orders-0"))
            .args(["--bootstrap", &bootstrap, "--create-topics"])
            .args(extra)
            .output()
            .unwrap()
    };
    let o = rescue(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("3 records of orders-0")
            && err.contains("older than target topic orders's retention.ms=1000")
            && err.contains("--allow-retention-delete"),
        "{err}"
    );
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("records sent"),
        "nothing is sent"
    );
    let state = t.path().join("rescue.state");
    let state = state.to_str().unwrap();
    let o = rescue(&["--allow-retention-delete", "--state", state]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("sent anyway"), "{}", stderr(&o));
    // The broker's retention deletes them; --verify (the same --state: nothing more to send)
    // then names the moved log start offset instead of waiting for records that cannot come.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let o = rescue(&["--allow-retention-delete", "--state", state, "--verify"]);
        let err = stderr(&o);
        if err.contains("the target's log start offset is 3, past offset 0") {
            assert_ne!(o.status.code(), Some(0), "{err}");
            assert!(
                err.contains("offsets 0..2 were deleted in the target"),
                "{err}"
            );
            break;
        }
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(
            std::time::Instant::now() < deadline,
            "the target never deleted the records: {err}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    broker.stop();
}
