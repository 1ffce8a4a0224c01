//! The progress bar (files and bytes read, on stderr) of summary, verify-index, groups,
//! transactions, lookup --scan, recover, dump-log and grep: never drawn into a pipe, drawn on a
//! terminal's stderr and cleared before the answer, never inside stdout.

use crate::common;
use std::process::{Command, Stdio};

use crate::common::kseg;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/example-datadir");

fn commands(out: &str) -> Vec<Vec<String>> {
    let orders = format!("{EXAMPLE}/orders-0");
    let mut all: Vec<Vec<&str>> = vec![
        vec!["summary", EXAMPLE],
        vec!["verify-index", EXAMPLE],
        vec!["groups", EXAMPLE],
        vec!["transactions", EXAMPLE],
        vec!["lookup", &orders, "--scan", "--earliest"],
        vec!["dump-log", "--deep-iteration", EXAMPLE],
        vec!["grep", "-c", "--committed", EXAMPLE],
        vec!["recover", &orders, "--out", out],
    ];
    let with_json: Vec<Vec<&str>> = all[..7]
        .iter()
        .map(|c| c.iter().copied().chain(["--json"]).collect())
        .collect();
    all.extend(with_json);
    all.into_iter()
        .map(|c| c.into_iter().map(String::from).collect())
        .collect()
}

fn looks_like_progress(text: &str) -> bool {
    // A terminal shows line ends as \r\n; a bar redraws with a bare \r or escapes.
    let text = text.replace("\r\n", "\n");
    text.contains('\r') || text.contains('\u{1b}') || text.contains(" files ")
}

#[test]
fn no_progress_into_pipes() {
    let tmp = tempfile::tempdir().unwrap();
    for (i, c) in commands(tmp.path().to_str().unwrap()).iter().enumerate() {
        let mut c = c.clone();
        if c[0] == "recover" {
            c[3] = tmp.path().join(format!("out{i}")).display().to_string();
        }
        let args: Vec<&str> = c.iter().map(String::as_str).collect();
        let run = kseg(&args);
        assert!(run.code == 0 || run.code == 1, "{args:?}: {}", run.stderr);
        assert!(
            !looks_like_progress(&run.stderr),
            "{args:?}: {:?}",
            run.stderr
        );
        assert!(!looks_like_progress(&run.stdout), "{args:?}");
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// What a terminal shows for `line` run by sh on a pseudo-terminal (util-linux `script`);
/// `None` when `script` is not installed.
fn on_terminal(line: &str) -> Option<String> {
    let out = Command::new("script")
        .args(["-qec", line, "/dev/null"])
        .env("COLUMNS", "120")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    out.status.success().then_some(())?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn bin() -> String {
    quote(assert_cmd::cargo::cargo_bin("kseg").to_str().unwrap())
}

#[test]
#[ignore = "needs util-linux `script` (a pseudo-terminal)"]
fn a_bar_on_the_terminal_never_in_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    for (i, c) in commands(tmp.path().to_str().unwrap()).iter().enumerate() {
        let mut c = c.clone();
        if c[0] == "recover" {
            c[3] = tmp.path().join(format!("out{i}")).display().to_string();
        }
        let file = tmp.path().join(format!("stdout{i}"));
        let mut line = bin();
        for a in &c {
            line.push(' ');
            line.push_str(&quote(a));
        }
        line.push_str(&format!(" > {}", quote(file.to_str().unwrap())));
        let Some(shown) = on_terminal(&line) else {
            common::tool_missing(
                "util-linux `script`",
                "the progress-bar-on-a-terminal check",
            );
            return;
        };
        // stderr is the terminal: the bar (files and bytes) is drawn, then cleared.
        assert!(shown.contains(" files "), "{c:?}: {shown:?}");
        assert!(
            shown.contains("KiB") || shown.contains(" B/"),
            "{c:?}: {shown:?}"
        );
        assert!(shown.contains("\u{1b}[2K"), "{c:?}: {shown:?}");
        let stdout = std::fs::read_to_string(&file).unwrap();
        assert!(!looks_like_progress(&stdout), "{c:?}: {stdout:?}");
        if c.iter().any(|a| a == "--json") {
            for l in stdout.lines() {
                serde_json::from_str::<serde_json::Value>(l).unwrap();
            }
        }
    }
}

#[test]
fn the_bar_is_cleared_before_a_table_on_the_same_terminal() {
    let Some(shown) = on_terminal(&format!("{} verify-index {}", bin(), quote(EXAMPLE))) else {
        return;
    };
    let bar = shown.rfind(" files ").expect("a bar");
    let table = shown.find("partitions checked").expect("the answer");
    assert!(bar < table, "{shown:?}");
    assert!(shown[bar..table].contains("\u{1b}[2K"), "{shown:?}");
}

#[test]
fn a_dump_on_the_terminal_draws_no_bar() {
    // The dump streams to stdout: on the terminal it shows its own progress.
    let Some(shown) = on_terminal(&format!(
        "{} dump-log --deep-iteration {}",
        bin(),
        quote(EXAMPLE)
    )) else {
        return;
    };
    assert!(shown.contains("baseOffset"), "{shown:?}");
    assert!(!shown.contains(" files "), "{shown:?}");
}

#[test]
fn no_progress_turns_the_bar_off_for_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    for (i, c) in commands(tmp.path().to_str().unwrap()).iter().enumerate() {
        let mut c = c.clone();
        if c[0] == "recover" {
            c[3] = tmp.path().join(format!("out{i}")).display().to_string();
        }
        let mut line = bin();
        for a in c.iter().chain([&"--no-progress".to_string()]) {
            line.push(' ');
            line.push_str(&quote(a));
        }
        line.push_str(" > /dev/null");
        let Some(shown) = on_terminal(&line) else {
            return;
        };
        assert!(!looks_like_progress(&shown), "{c:?}: {shown:?}");
    }
}
