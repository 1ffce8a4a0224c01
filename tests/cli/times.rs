//! Issue 44: every command that takes a time reads it by one rule (`time::parse_time`): epoch
//! ms, RFC 3339 with an offset, or a civil time in the zone of `--tz local|ZONE`; without `--tz`
//! a time without an offset is refused in two short lines.

use crate::common::*;

fn example(name: &str) -> String {
    format!(
        "{}/testdata/example-datadir/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Each command with a time flag: the refusal of a time without a zone is two lines of at most
/// 80 columns, the same words everywhere; with `--tz` the same time is accepted.
#[test]
fn every_command_refuses_a_time_without_a_zone_in_two_lines_and_takes_tz() {
    let orders = example("orders-0");
    let datadir = example("");
    let t = "2024-05-29T19:11:40";
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "--from-timestamp",
            vec!["dump-log", &orders, "--from-timestamp", t],
        ),
        ("--to-time", vec!["grep", "--to-time", t, &orders]),
        ("--timestamp", vec!["lookup", &orders, "--timestamp", t]),
        ("--at", vec!["groups", &datadir, "--at", t]),
        (
            "--to-timestamp",
            vec![
                "rescue",
                &orders,
                "--bootstrap",
                "127.0.0.1:1",
                "--dry-run",
                "--to-timestamp",
                t,
            ],
        ),
    ];
    for (flag, args) in &cases {
        let r = kseg(args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert_eq!(
            r.stderr,
            format!(
                "kseg: error: {flag} \"{t}\" has no time zone\n  add one ({t}Z, {t}+08:00) or \
                 --tz local|ZONE\n"
            ),
            "{args:?}"
        );
        assert!(r.stderr.lines().all(|l| l.len() <= 80), "{}", r.stderr);
        // With --tz the time is read in that zone (rescue then fails to connect: not a time
        // error).
        let mut with = args.clone();
        with.extend(["--tz", "+02:00"]);
        let r = kseg(&with);
        assert!(!r.stderr.contains("time zone"), "{with:?}: {}", r.stderr);
        if args[0] != "rescue" {
            assert!(r.code <= 1, "{with:?}: {}", r.stderr);
        }
    }
}

/// `--tz local` is the machine's zone (TZ), and the instant is the one the zone gives.
#[test]
fn tz_local_is_the_machines_zone() {
    let orders = example("orders-0");
    let lookup = |t: &str, tz: &str, env: Option<&str>| {
        let mut c = assert_cmd::Command::cargo_bin("kseg").unwrap();
        c.args(["lookup", &orders, "--json", "--timestamp", t, "--tz", tz]);
        if let Some(e) = env {
            c.env("TZ", e);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap())
                .unwrap();
        v["offset"].clone()
    };
    let utc = lookup("2024-05-29T17:11:40.030Z", "UTC", None);
    assert_eq!(
        lookup("2024-05-29T19:11:40.030", "Europe/Berlin", None),
        utc
    );
    assert_eq!(
        lookup("2024-05-29T19:11:40.030", "local", Some("Europe/Berlin")),
        utc
    );
    assert_eq!(lookup("2024-05-29T17:11:40.030", "local", Some("UTC")), utc);
}
