//! No test passes because what it needs was missing: every test that drives Kafka, a client, a
//! tool or the shared corpus is `#[ignore = "needs ..."]` (plain `cargo test` lists it as ignored,
//! with the reason), and its guard fails it when run without that thing (`--include-ignored`).

use std::path::Path;

const GUARDS: [&str; 4] = [
    "skip()",
    "skip_without(",
    "corpus_missing(",
    "tool_missing(",
];

/// (file, test name) of every `#[test]` whose body calls a guard without being ignored.
fn unguarded(dir: &Path, found: &mut Vec<String>, guarded: &mut usize) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            unguarded(&path, found, guarded);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            if lines[i].trim() != "#[test]" {
                i += 1;
                continue;
            }
            let indent = &lines[i][..lines[i].len() - lines[i].trim_start().len()];
            let mut attrs = String::new();
            let mut j = i;
            while !lines[j].trim_start().starts_with("fn ") {
                attrs.push_str(lines[j]);
                j += 1;
            }
            let name = lines[j].trim_start()[3..]
                .split('(')
                .next()
                .unwrap()
                .to_owned();
            let end = (j..lines.len())
                .find(|&k| lines[k] == format!("{indent}}}"))
                .unwrap_or(lines.len() - 1);
            let body = lines[j..=end].join("\n");
            if GUARDS.iter().any(|g| body.contains(g)) {
                if attrs.contains("#[ignore = \"needs ") {
                    *guarded += 1;
                } else {
                    found.push(format!("{}: {name}", path.display()));
                }
            }
            i = end + 1;
        }
    }
}

#[test]
fn every_test_that_needs_something_missing_is_ignored_with_the_reason() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let (mut found, mut guarded) = (Vec::new(), 0);
    unguarded(&root, &mut found, &mut guarded);
    assert!(
        found.is_empty(),
        "tests that call a guard but are not #[ignore = \"needs ...\"]:\n{}",
        found.join("\n")
    );
    // The scan sees the oracle tests (it can fail): there are dozens.
    assert!(guarded > 20, "only {guarded} guarded tests found");
}

#[test]
fn every_oracle_test_is_ignored_as_needing_kafka() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle");
    let mut tests = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // A file's `mod tests` holds checks of its own helpers (string comparisons), which need
        // nothing and run in plain `cargo test`: only the tests before it drive Kafka.
        let helpers_from = lines
            .iter()
            .position(|l| l.trim() == "mod tests {")
            .unwrap_or(lines.len());
        for (i, line) in lines.iter().enumerate().take(helpers_from) {
            if line.trim() == "#[test]" {
                tests += 1;
                let next = lines.get(i + 1).map_or("", |l| l.trim());
                assert!(
                    next.starts_with("#[ignore = \"needs Kafka"),
                    "{}: the test after line {} is not #[ignore = \"needs Kafka: ...\"]",
                    path.display(),
                    i + 1
                );
            }
        }
    }
    assert!(tests > 20, "only {tests} oracle tests found");
}
