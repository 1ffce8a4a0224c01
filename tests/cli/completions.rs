//! The shell completions and man page in `completions/` are generated; fail when they are stale.
//! Regenerate with: for s in bash zsh fish; do kseg completions $s > completions/kseg.$s; done;
//! kseg man > completions/kseg.1

use assert_cmd::Command;

fn generated(args: &[&str]) -> Vec<u8> {
    let out = Command::cargo_bin("kseg")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success());
    out.stdout
}

#[test]
fn completions_are_current() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/completions");
    for shell in ["bash", "zsh", "fish"] {
        let committed = std::fs::read(format!("{dir}/kseg.{shell}")).unwrap();
        assert!(
            committed == generated(&["completions", shell]),
            "completions/kseg.{shell} is stale: regenerate it with `kseg completions {shell}`"
        );
    }
    let man = std::fs::read(format!("{dir}/kseg.1")).unwrap();
    assert!(
        man == generated(&["man"]),
        "completions/kseg.1 is stale: regenerate it with `kseg man`"
    );
}

#[test]
fn the_man_page_names_no_page_that_is_not_shipped() {
    let man = String::from_utf8(generated(&["man"])).unwrap();
    // Only kseg.1 is shipped: no kseg-<subcommand>(1) reference.
    assert!(!man.contains("(1)"), "{man}");
    let shipped: Vec<String> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/completions"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".1"))
            .collect();
    assert_eq!(shipped, ["kseg.1"]);
    for sub in [
        "dump\\-log",
        "verify\\-index",
        "find\\-group\\-partition",
        "mini\\-broker",
    ] {
        assert!(man.contains(&format!("\\fBkseg {sub}\\fR")), "{sub}");
        let heading = sub.replace('\\', "").to_uppercase();
        assert!(man.contains(&format!(".SH \"KSEG {heading}\"")), "{sub}");
    }
}

#[test]
fn version_names_the_commit_and_the_kafka_versions_proved_against() {
    let long = String::from_utf8(generated(&["--version"])).unwrap();
    let mut lines = long.lines();
    let first = lines.next().unwrap();
    assert!(
        first.starts_with(&format!("kseg {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{long}"
    );
    let versions =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/oracle/versions")).unwrap();
    let newest = versions
        .lines()
        .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .and_then(|l| l.split_whitespace().next())
        .unwrap();
    let second = lines.next().unwrap_or_default();
    assert!(
        second.starts_with("proved against Apache Kafka ") && second.contains(newest),
        "{long}"
    );
    // -V stays the bare version scripts compare.
    let short = String::from_utf8(generated(&["-V"])).unwrap();
    assert_eq!(short.trim(), format!("kseg {}", env!("CARGO_PKG_VERSION")));
}
