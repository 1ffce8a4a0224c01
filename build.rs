//! Stamps `kseg --version` with the commit it was built from and the Kafka versions its oracle
//! tests prove it against (oracle/versions), so a binary found on a broker host says what it is.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

fn main() {
    println!("cargo:rerun-if-changed=oracle/versions");
    println!("cargo:rerun-if-changed=build.rs");
    // Rebuild the stamp when HEAD moves: HEAD itself, the branch it names, packed refs.
    for path in ["HEAD", "packed-refs"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git(&["rev-parse", "--git-path", &branch]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }

    // A crate built from a package (no git) says so instead of guessing.
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());

    let versions = std::fs::read_to_string("oracle/versions").unwrap_or_default();
    let kafka: Vec<&str> = versions
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let proved = if kafka.is_empty() {
        String::from("no Kafka version recorded (oracle/versions missing)")
    } else {
        format!("Apache Kafka {}", kafka.join(", "))
    };

    let features = if std::env::var_os("CARGO_FEATURE_RESCUE").is_some() {
        "rescue"
    } else {
        "no rescue"
    };
    // rustc-env values are one line each; the CLI joins them into `--version`'s two lines.
    println!("cargo:rustc-env=KSEG_BUILD=commit {commit}; {features}");
    println!("cargo:rustc-env=KSEG_PROVED={proved} by the oracle tests (tests/oracle)");
}
