//! Cross-checks `kseg dump-log` against log files written by an independent
//! encoder, kafka-python (see `scripts/gen_kafka_python_fixtures.py` and
//! `testdata/kafka-python/README.md`). Python is not needed at test time: the
//! `.log` files and their expectations are committed.
//!
//! For every `testdata/kafka-python/<name>.log`:
//! * `kseg dump-log --deep-iteration --json --encoding hex <file>` (run on a copy
//!   named as a Kafka segment, see [`SEGMENT_NAME`]) exits 0,
//!   every line is JSON, there is no `"error"` line, the last line is the
//!   `"summary"`, and every `"batch"` line has `"crcValid": true`;
//! * the `"record"` lines equal `<name>.expected.json` one by one (offset,
//!   timestamp, hex key/value, header keys and hex values);
//! * (separate test) the `"batch"` lines carry the header fields listed in
//!   `<name>.expected-batches.json`.
//!
//! All files are checked and all mismatches are reported together.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use assert_cmd::Command;
use serde_json::Value;

/// Mismatches listed per file before the rest are summarised.
const MAX_REPORTS_PER_FILE: usize = 12;

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/kafka-python")
}

fn log_files() -> Vec<PathBuf> {
    let dir = fixture_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    files.sort();
    files
}

fn stem(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

fn sibling(log: &Path, suffix: &str) -> PathBuf {
    log.with_file_name(format!("{}{suffix}", stem(log)))
}

fn load_json_array(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    match serde_json::from_str(&text) {
        Ok(Value::Array(items)) => items,
        Ok(_) => panic!("{} is not a JSON array", path.display()),
        Err(e) => panic!("{} is not valid JSON: {e}", path.display()),
    }
}

/// One run of the binary per fixture, shared by the tests of this file.
struct Run {
    log: PathBuf,
    output: Output,
}

/// Like Kafka's own dump tool, kseg takes a segment's base offset from its file name
/// (`<20-digit base offset>.log`) and does not decode other names, so each fixture (all of
/// which start at offset 0) is run as `00000000000000000000.log` in a temporary directory.
const SEGMENT_NAME: &str = "00000000000000000000.log";

fn runs() -> &'static [Run] {
    static RUNS: OnceLock<Vec<Run>> = OnceLock::new();
    RUNS.get_or_init(|| {
        let files = log_files();
        assert!(
            files.len() >= 14,
            "expected the kafka-python fixtures (v0/v1 x none,gzip,snappy,lz4; v2 x none,gzip,snappy,lz4,zstd) \
             in {}, found {} .log files",
            fixture_dir().display(),
            files.len()
        );
        files
            .into_iter()
            .map(|log| {
                let dir = tempfile::tempdir().expect("temp dir");
                let segment = dir.path().join(SEGMENT_NAME);
                std::fs::copy(&log, &segment)
                    .unwrap_or_else(|e| panic!("cannot copy {}: {e}", log.display()));
                let output = Command::cargo_bin("kseg")
                    .expect("binary kseg is built")
                    .args(["dump-log", "--deep-iteration", "--json", "--encoding", "hex"])
                    .arg(&segment)
                    .output()
                    .unwrap_or_else(|e| panic!("cannot run kseg on {}: {e}", log.display()));
                Run { log, output }
            })
            .collect()
    })
}

/// The parsed NDJSON lines of one run, split by `"type"`.
#[derive(Default)]
struct Parsed {
    batches: Vec<Value>,
    records: Vec<Value>,
    /// `"error"` lines and lines that are not JSON objects with a string `"type"`.
    /// Other types (e.g. a per-file `"file"` line) are ignored.
    problems: Vec<String>,
    last_type: Option<String>,
}

fn parse(stdout: &[u8]) -> Parsed {
    let mut p = Parsed::default();
    let text = String::from_utf8_lossy(stdout);
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                p.problems.push(format!(
                    "stdout line {} is not JSON ({e}): {}",
                    n + 1,
                    clip(line)
                ));
                continue;
            }
        };
        let ty = v.get("type").and_then(Value::as_str).map(str::to_owned);
        match ty.as_deref() {
            Some("batch") => p.batches.push(v),
            Some("record") => p.records.push(v),
            Some("error") => p.problems.push(format!("\"error\" line: {}", clip(line))),
            Some(_) => {}
            None => p.problems.push(format!(
                "stdout line {} has no string \"type\": {}",
                n + 1,
                clip(line)
            )),
        }
        p.last_type = ty;
    }
    p
}

fn clip(s: &str) -> String {
    const MAX: usize = 400;
    if s.len() <= MAX {
        s.to_owned()
    } else {
        let mut end = MAX;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}... ({} bytes)", &s[..end], s.len())
    }
}

/// `"is X, expected Y"`, plus where two differing strings first differ.
fn mismatch(actual: Option<&Value>, expected: Option<&Value>) -> String {
    let mut s = format!("is {}, expected {}", show(actual), show(expected));
    if let (Some(Value::String(a)), Some(Value::String(e))) = (actual, expected) {
        let at = a.bytes().zip(e.bytes()).take_while(|(x, y)| x == y).count();
        let _ = write!(
            s,
            " (lengths {} vs {}, first difference at char {at})",
            a.len(),
            e.len()
        );
    }
    s
}

fn show(v: Option<&Value>) -> String {
    match v {
        None => "<missing>".to_owned(),
        Some(v) => clip(&v.to_string()),
    }
}

/// Collects mismatches of one file, capped for readability.
struct Report {
    lines: Vec<String>,
    dropped: usize,
}

impl Report {
    fn new() -> Self {
        Report {
            lines: Vec::new(),
            dropped: 0,
        }
    }
    fn push(&mut self, msg: String) {
        if self.lines.len() < MAX_REPORTS_PER_FILE {
            self.lines.push(msg);
        } else {
            self.dropped += 1;
        }
    }
    fn finish(self, name: &str, out: &mut Vec<String>) {
        if self.lines.is_empty() {
            return;
        }
        let mut s = format!("{name}.log:");
        for l in &self.lines {
            let _ = write!(s, "\n    - {l}");
        }
        if self.dropped > 0 {
            let _ = write!(s, "\n    - ... and {} more", self.dropped);
        }
        out.push(s);
    }
}

fn check_process(run: &Run, parsed: &Parsed, r: &mut Report) {
    if !run.output.status.success() {
        r.push(format!(
            "exit status {:?} (expected 0); stderr: {}",
            run.output.status.code(),
            clip(String::from_utf8_lossy(&run.output.stderr).trim())
        ));
    }
    for p in &parsed.problems {
        r.push(p.clone());
    }
    if parsed.last_type.as_deref() != Some("summary") {
        r.push(format!(
            "last stdout line should be the \"summary\" object, got type {:?}",
            parsed.last_type
        ));
    }
}

fn check_records(name: &str, expected: &[Value], actual: &[Value], r: &mut Report) {
    if expected.len() != actual.len() {
        r.push(format!(
            "{} \"record\" lines, expected {} (from {name}.expected.json)",
            actual.len(),
            expected.len()
        ));
    }
    for (i, (exp, act)) in expected.iter().zip(actual).enumerate() {
        let what = format!("record #{i} (expected offset {})", show(exp.get("offset")));
        for field in ["offset", "timestamp", "key", "value"] {
            if act.get(field) != exp.get(field) {
                r.push(format!(
                    "{what}: \"{field}\" {}",
                    mismatch(act.get(field), exp.get(field))
                ));
            }
        }
        // Legacy (v0/v1) messages carry their own CRC; where kseg reports it, it must hold.
        if let Some(valid) = act.get("crcValid") {
            if valid != &Value::Bool(true) {
                r.push(format!(
                    "{what}: record \"crcValid\" is {valid}, expected true"
                ));
            }
        }
        let exp_h = exp["headers"]
            .as_array()
            .expect("expected headers is an array");
        let Some(act_h) = act.get("headers").and_then(Value::as_array) else {
            r.push(format!(
                "{what}: \"headers\" is {}, expected an array",
                show(act.get("headers"))
            ));
            continue;
        };
        if act_h.len() != exp_h.len() {
            r.push(format!(
                "{what}: {} headers, expected {}: got {}, expected {}",
                act_h.len(),
                exp_h.len(),
                show(act.get("headers")),
                show(exp.get("headers"))
            ));
            continue;
        }
        for (j, (eh, ah)) in exp_h.iter().zip(act_h).enumerate() {
            for field in ["key", "value"] {
                if ah.get(field) != eh.get(field) {
                    r.push(format!(
                        "{what}: header #{j} \"{field}\" {}",
                        mismatch(ah.get(field), eh.get(field))
                    ));
                }
            }
        }
    }
}

fn check_crc(batches: &[Value], r: &mut Report) {
    if batches.is_empty() {
        r.push("no \"batch\" lines".to_owned());
    }
    for (i, b) in batches.iter().enumerate() {
        if b.get("crcValid") != Some(&Value::Bool(true)) {
            r.push(format!(
                "batch #{i} at position {}: \"crcValid\" is {}, expected true",
                show(b.get("position")),
                show(b.get("crcValid"))
            ));
        }
    }
}

fn fail_if_any(failures: Vec<String>, total: usize) {
    if !failures.is_empty() {
        panic!(
            "{} of {total} kafka-python fixture files failed:\n  {}",
            failures.len(),
            failures.join("\n  ")
        );
    }
}

/// Exit code, record contents and batch CRCs for every fixture.
#[test]
fn kafka_python_records_roundtrip() {
    let runs = runs();
    let mut failures = Vec::new();
    for run in runs {
        let name = stem(&run.log);
        let expected = load_json_array(&sibling(&run.log, ".expected.json"));
        let parsed = parse(&run.output.stdout);
        let mut r = Report::new();
        check_process(run, &parsed, &mut r);
        check_records(&name, &expected, &parsed.records, &mut r);
        check_crc(&parsed.batches, &mut r);
        r.finish(&name, &mut failures);
    }
    fail_if_any(failures, runs.len());
}

/// Batch-header fields listed in `<name>.expected-batches.json` (only the
/// fields given there are compared; v0/v1 entries list only fields whose
/// meaning is unambiguous for legacy message sets).
#[test]
fn kafka_python_batch_headers() {
    let runs = runs();
    let mut failures = Vec::new();
    for run in runs {
        let name = stem(&run.log);
        let path = sibling(&run.log, ".expected-batches.json");
        let expected = load_json_array(&path);
        let parsed = parse(&run.output.stdout);
        let mut r = Report::new();
        if parsed.batches.len() != expected.len() {
            r.push(format!(
                "{} \"batch\" lines, expected {} (from {name}.expected-batches.json)",
                parsed.batches.len(),
                expected.len()
            ));
        }
        for (i, (exp, act)) in expected.iter().zip(&parsed.batches).enumerate() {
            let fields = exp.as_object().expect("expected batch is an object");
            for (field, want) in fields {
                if act.get(field) != Some(want) {
                    r.push(format!(
                        "batch #{i} at position {}: \"{field}\" is {}, expected {}",
                        show(exp.get("position")),
                        show(act.get(field)),
                        want
                    ));
                }
            }
        }
        r.finish(&name, &mut failures);
    }
    fail_if_any(failures, runs.len());
}
