//! Support for the `kseg mini-broker` integration tests: start the broker on an ephemeral
//! loopback port, stop it (SIGTERM) or kill it (SIGKILL), run client programs with a time
//! limit, and say clearly when a client is not installed.
#![allow(dead_code)]

#[cfg(feature = "rescue")]
pub mod rescue_scenarios;
pub mod wire;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

pub fn kseg_bin() -> &'static str {
    env!("CARGO_BIN_EXE_kseg")
}

pub fn clients_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients")
}

/// A running `kseg mini-broker` child process.
pub struct BrokerProcess {
    child: Option<Child>,
    pub port: u16,
    pub dir: PathBuf,
    stderr: Option<thread::JoinHandle<String>>,
}

impl BrokerProcess {
    /// Starts the broker on `127.0.0.1:0` and waits (≤ 30 s) for its "listening on" line.
    pub fn start(dir: &Path, extra: &[&str]) -> BrokerProcess {
        let mut child = Command::new(kseg_bin())
            .arg("mini-broker")
            .arg("--log-dir")
            .arg(dir)
            .args(["--listen", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawning kseg mini-broker");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            if let Some(Ok(line)) = lines.next() {
                let _ = tx.send(line);
            }
            for _ in lines {}
        });
        let mut stderr = child.stderr.take().expect("piped stderr");
        let stderr = thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        let line = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(l) => l,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "kseg mini-broker did not start: {}",
                    stderr.join().unwrap_or_default()
                );
            }
        };
        let port = line
            .split("127.0.0.1:")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        BrokerProcess {
            child: Some(child),
            port,
            dir: dir.to_path_buf(),
            stderr: Some(stderr),
        }
    }

    pub fn bootstrap(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn pid(&self) -> i32 {
        self.child.as_ref().map_or(0, |c| c.id() as i32)
    }

    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    fn signal_and_wait(&mut self, signal: i32) -> (ExitStatus, String) {
        let mut child = self.child.take().expect("broker still owned");
        // SAFETY: sends a signal to our own child process.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Ok(Some(s)) = child.try_wait() {
                break s;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("kseg mini-broker did not exit within 60 s of signal {signal}");
            }
            thread::sleep(Duration::from_millis(50));
        };
        let err = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        (status, err)
    }

    /// SIGTERM: a clean shutdown. Returns the broker's stderr.
    pub fn stop(mut self) -> String {
        let (status, err) = self.signal_and_wait(libc::SIGTERM);
        assert!(status.success(), "mini-broker exited with {status}: {err}");
        err
    }

    /// SIGKILL: a crash.
    pub fn kill9(mut self) -> String {
        self.signal_and_wait(libc::SIGKILL).1
    }
}

impl Drop for BrokerProcess {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Runs a command with a time limit; the child is killed when it runs over.
pub fn run(mut cmd: Command, limit: Duration) -> Output {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("spawning {cmd:?}: {e}"));
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let o = thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let e = thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Ok(Some(s)) = child.try_wait() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let status = child.wait().expect("waiting for a killed child");
            let stderr = String::from_utf8_lossy(&e.join().unwrap_or_default()).into_owned();
            panic!("{cmd:?} ran over {limit:?} and was killed ({status}); stderr: {stderr}");
        }
        thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: o.join().unwrap_or_default(),
        stderr: e.join().unwrap_or_default(),
    }
}

/// Runs kseg with arguments (120 s limit).
pub fn kseg(args: &[&str]) -> Output {
    let mut c = Command::new(kseg_bin());
    c.args(args);
    run(c, Duration::from_secs(120))
}

pub fn have_kcat() -> bool {
    Command::new("kcat")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

pub fn have_python_module(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// False when the client is installed; otherwise the test fails naming it. Tests that drive a
/// client are `#[ignore = "needs ..."]`, run by .ci/run with `--include-ignored`.
pub fn skip_without(what: &str, available: bool) -> bool {
    assert!(
        available,
        "{what} is not installed (.ci/run installs it: apt-get install kcat, \
         pip install -r tests/clients/requirements.txt)"
    );
    false
}

/// `kseg verify-index --json DIR`: (errors, warnings, findings with severity error).
pub fn verify_errors(dir: &Path) -> (u64, u64, Vec<String>) {
    let out = kseg(&["verify-index", "--json", dir.to_str().expect("utf-8 path")]);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut errors = Vec::new();
    let mut summary = (0, 0);
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("NDJSON");
        match v["type"].as_str() {
            Some("finding") if v["severity"] == "error" => errors.push(line.to_string()),
            Some("summary") => {
                summary = (
                    v["errors"].as_u64().unwrap_or(0),
                    v["warnings"].as_u64().unwrap_or(0),
                )
            }
            _ => {}
        }
    }
    (summary.0, summary.1, errors)
}

/// Every record of a partition dir, as (offset, key, value) from `kseg dump-log --json`.
pub fn records(partition_dir: &Path) -> Vec<(i64, Option<String>, Option<String>)> {
    let out = kseg(&[
        "dump-log",
        "--json",
        "--deep-iteration",
        "--encoding",
        "hex",
        partition_dir.to_str().expect("utf-8 path"),
    ]);
    // Exit 1 (data problems, e.g. a torn tail) still lists every readable record.
    assert!(
        out.status.code() != Some(2),
        "dump-log failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "record")
        .map(|v| {
            (
                v["offset"].as_i64().unwrap_or(-1),
                v["key"].as_str().map(str::to_string),
                v["value"].as_str().map(str::to_string),
            )
        })
        .collect()
}

/// `kseg groups --json DIR`: (topic, partition, committed offset, lag) of one group.
pub fn group_offsets(dir: &Path, group: &str) -> Vec<(String, i64, i64, i64)> {
    let out = kseg(&[
        "groups",
        "--json",
        "--group",
        group,
        dir.to_str().expect("utf-8 path"),
    ]);
    assert!(
        out.status.code() != Some(2),
        "kseg groups failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Vec<(String, i64, i64, i64)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "offset" && v["group"] == group)
        .map(|v| {
            (
                v["topic"].as_str().unwrap_or_default().to_string(),
                v["partition"].as_i64().unwrap_or(-1),
                v["offset"].as_i64().unwrap_or(-1),
                v["lag"].as_i64().unwrap_or(-1),
            )
        })
        .collect();
    v.sort();
    v
}

/// `kseg transactions --json DIR`: (transactional id, state) of every id.
pub fn transactional_ids(dir: &Path) -> Vec<(String, String)> {
    let out = kseg(&["transactions", "--json", dir.to_str().expect("utf-8 path")]);
    assert!(
        out.status.code() != Some(2),
        "kseg transactions failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "transactionalId")
        .map(|v| {
            (
                v["transactionalId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                v["state"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The decoded records of a log dir's `__cluster_metadata-0` log (not its snapshots; kseg's `--json` dump, as
/// Kafka's `--cluster-metadata-decoder` decodes them): `{"type":..., "version":..., "data":...}`.
pub fn metadata_records(dir: &Path) -> Vec<serde_json::Value> {
    let path = dir.join("__cluster_metadata-0");
    let out = kseg(&[
        "dump-log",
        "--json",
        "--deep-iteration",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "kseg dump-log {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "record" && v.get("decodedValue").is_some())
        .filter(|v| v["file"].as_str().is_some_and(|f| f.ends_with(".log")))
        .map(|v| v["decodedValue"].clone())
        .collect()
}

/// The topic configs the metadata log of `dir` holds for `topic` after replaying its
/// ConfigRecords (a null value deletes) and RemoveTopicRecords.
pub fn metadata_topic_configs(
    dir: &Path,
    topic: &str,
) -> std::collections::BTreeMap<String, String> {
    let mut configs = std::collections::BTreeMap::new();
    for r in metadata_records(dir) {
        match r["type"].as_str() {
            Some("CONFIG_RECORD")
                if r["data"]["resourceType"] == 2 && r["data"]["resourceName"] == topic =>
            {
                let name = r["data"]["name"].as_str().unwrap().to_string();
                match r["data"]["value"].as_str() {
                    Some(v) => configs.insert(name, v.to_string()),
                    None => configs.remove(&name),
                };
            }
            Some("TOPIC_RECORD") if r["data"]["name"] == topic => configs.clear(),
            _ => {}
        }
    }
    configs
}
