//! The Kafka oracle: a real Apache Kafka broker (KRaft, one node as broker and controller) and
//! the real Java clients and tools, installed by `oracle/setup` from Maven Central, started here
//! on ephemeral loopback ports. Each pinned version runs the workload of `oracle/src/KsegOracle.java`
//! once per test process; the tests compare kseg with what Kafka wrote and answered.
//!
//! Outside CI a missing JDK or oracle install skips the tests, saying what is missing; with
//! `CI=true` it fails them.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

// The time-limited runner and the binary's path are the mini-broker tests' own.
#[path = "../mini_broker_support/mod.rs"]
pub mod mini_broker_support;
pub use mini_broker_support::{kseg_bin, run};

pub fn oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle")
}

/// The pinned versions, newest first (`oracle/versions`); `KSEG_ORACLE_VERSIONS=4.4.0,...`
/// narrows them while working (never under CI).
pub fn versions() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in targets() {
        if !out.contains(&t.version) {
            out.push(t.version);
        }
    }
    out
}

/// How a broker keeps its metadata: a KRaft quorum (`__cluster_metadata`, formatted by
/// StorageTool) or ZooKeeper (3.9 is the last release that has it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    Kraft,
    ZooKeeper,
}

/// One version in one mode: a scenario of its own, a work dir of its own.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Target {
    pub version: String,
    pub mode: Mode,
}

impl Target {
    pub fn kraft(version: &str) -> Target {
        Target {
            version: version.to_string(),
            mode: Mode::Kraft,
        }
    }

    /// Its name in work dirs and `KSEG_ORACLE_VERSIONS`: `3.9.1` (KRaft), `3.9.1-zk`.
    pub fn key(&self) -> String {
        match self.mode {
            Mode::Kraft => self.version.clone(),
            Mode::ZooKeeper => format!("{}-zk", self.version),
        }
    }

    pub fn zk(&self) -> bool {
        self.mode == Mode::ZooKeeper
    }

    /// The version is `major.minor` or later.
    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        version_at_least(&self.version, major, minor)
    }
}

/// `version` (`3.6.2`) is `major.minor` or later.
pub fn version_at_least(version: &str, major: u32, minor: u32) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (a, b) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (a, b) >= (major, minor)
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = match self.mode {
            Mode::Kraft => "KRaft",
            Mode::ZooKeeper => "ZooKeeper",
        };
        write!(f, "{} ({mode})", self.version)
    }
}

/// Every version in every mode `oracle/versions` pins (`VERSION MODES [maven flags]`, MODES
/// `kraft`, `zk` or `kraft,zk`), newest first, KRaft before ZooKeeper. `KSEG_ORACLE_VERSIONS`
/// (never under CI) narrows them: `3.9.1` names both modes, `3.9.1-zk` one.
pub fn targets() -> Vec<Target> {
    let only = std::env::var("KSEG_ORACLE_VERSIONS")
        .ok()
        .filter(|_| !in_ci());
    let mut out = Vec::new();
    for line in fs::read_to_string(oracle_dir().join("versions"))
        .expect("oracle/versions")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let mut words = line.split_whitespace();
        let version = words.next().unwrap();
        let modes = words.next().unwrap_or("kraft");
        for mode in modes.split(',') {
            let mode = match mode {
                "kraft" => Mode::Kraft,
                "zk" => Mode::ZooKeeper,
                m => panic!("oracle/versions: {version}: unknown mode {m:?} (kraft, zk)"),
            };
            let t = Target {
                version: version.to_string(),
                mode,
            };
            let wanted = only
                .as_ref()
                .is_none_or(|o| o.split(',').any(|x| x == t.version || x == t.key()));
            if wanted {
                out.push(t);
            }
        }
    }
    out
}

pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

pub fn libs(version: &str) -> PathBuf {
    oracle_dir().join(format!("target/kafka-{version}/libs"))
}

/// Why the oracle cannot run here, if it cannot.
fn missing() -> Option<String> {
    let java = Command::new("java")
        .arg("-version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !java.is_ok_and(|s| s.success()) {
        return Some("java (a JDK 17+) is not on PATH".into());
    }
    for v in versions() {
        if !libs(&v).join(format!("kafka_2.13-{v}.jar")).exists() {
            return Some(format!(
                "Kafka {v} is not installed in {} (run oracle/setup)",
                libs(&v).display()
            ));
        }
    }
    if !oracle_dir()
        .join("target/classes/KsegOracle.class")
        .exists()
    {
        return Some("the oracle workload is not compiled (run oracle/setup)".into());
    }
    None
}

/// False when the oracle is installed; otherwise the test fails, saying what is missing. Every
/// oracle test is `#[ignore = "needs Kafka: run oracle/setup ..."]`: plain `cargo test` lists
/// them as ignored, `--include-ignored` (.ci/run) runs them, and none passes without Kafka.
pub fn skip() -> bool {
    if let Some(why) = missing() {
        panic!("the Kafka oracle is not installed: {why}");
    }
    prebuild_scenarios();
    false
}

/// In a full CI run, every version's scenario is built in the background from the first
/// oracle test on, beside the tests that run before the parity tests need them: a scenario is
/// mostly waiting (for the broker, the cleaner, retention), and built on first use the two
/// were built one after the other while the second test thread waited. Not in a filtered run,
/// which may not need them (and would end while they still ran a broker).
const PREBUILD_THREADS: usize = 2;

fn prebuild_scenarios() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if !in_ci() || filtered_run() {
        return;
    }
    ONCE.call_once(|| {
        // Two at a time, newest first: every version and mode is a broker, a workload and the
        // tools, and CI has two cores (all eight at once starved each other past the timeouts).
        let queue = std::sync::Arc::new(Mutex::new(targets()));
        for _ in 0..PREBUILD_THREADS {
            let queue = queue.clone();
            thread::spawn(move || loop {
                let next = {
                    let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
                    (!q.is_empty()).then(|| q.remove(0))
                };
                let Some(t) = next else { return };
                // A failure is kept in the scenario's slot and reported by the tests using it.
                let _ = std::panic::catch_unwind(|| scenario(&t));
            });
        }
    });
}

/// Whether the test binary was given a name filter (libtest's positional arguments).
fn filtered_run() -> bool {
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--skip" | "--test-threads" | "--format" | "--logfile" | "--color" | "-Z"
            | "--shuffle-seed" => {
                args.next();
            }
            _ if a.starts_with('-') => {}
            _ => return true,
        }
    }
    false
}

fn classpath(version: &str) -> String {
    format!("{}/*", libs(version).display())
}

/// The workload's classpath: its classes and the newest clients. `KSEG_ORACLE_CLASSES` (never
/// under CI) names another build of oracle/src, for working on the workload without oracle/setup.
fn client_classpath() -> String {
    // The clients the workload was compiled against (oracle/setup), whichever versions a run
    // narrows to: an old broker is driven by the newest clients.
    let newest = fs::read_to_string(oracle_dir().join("target/clients-version"))
        .map(|v| v.trim().to_string())
        .unwrap_or_else(|_| versions()[0].clone());
    let newest = &newest;
    let classes = std::env::var("KSEG_ORACLE_CLASSES")
        .ok()
        .filter(|_| !in_ci())
        .map(PathBuf::from)
        .unwrap_or_else(|| oracle_dir().join("target/classes"));
    format!("{}:{}", classes.display(), classpath(newest))
}

pub fn java(classpath: &str) -> Command {
    let mut c = Command::new("java");
    c.args([
        "-Xshare:auto",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-Xmx512m",
    ])
    .arg("-cp")
    .arg(classpath);
    c
}

/// A Kafka tool or class `main` of `version` (DumpLogSegments, GetOffsetShell, ...).
pub fn kafka_tool(version: &str, main: &str) -> Command {
    let mut c = java(&classpath(version));
    c.arg(format!(
        "-Dlog4j2.configurationFile={}",
        oracle_dir().join("log4j2-tools.properties").display()
    ))
    .arg(format!(
        "-Dlog4j.configuration=file:{}",
        oracle_dir().join("log4j-tools.properties").display()
    ))
    .arg(main);
    c
}

/// Kafka's DumpLogSegments of `version`: `kafka.tools.DumpLogSegments` (Scala, to 4.x) or
/// `org.apache.kafka.tools.DumpLogSegments` (its Java rewrite in kafka-tools), whichever the
/// version's jars hold.
pub fn dump_log_segments(version: &str) -> Command {
    let main = tool_class(
        version,
        &[
            "org.apache.kafka.tools.DumpLogSegments",
            "kafka.tools.DumpLogSegments",
        ],
    )
    .expect("DumpLogSegments in Kafka's jars");
    kafka_tool(version, main)
}

/// The first of `classes` that `version`'s kafka_2.13 or kafka-tools jar holds (tools moved
/// from Scala's `kafka.admin`/`kafka.tools` to `org.apache.kafka.tools` over 3.x), or `None`
/// when the version has none of them (kafka-transactions.sh came with 3.0).
pub fn tool_class(version: &str, classes: &[&'static str]) -> Option<&'static str> {
    static LISTINGS: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
    let listing = {
        let mut cache = LISTINGS.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(version.to_string())
            .or_insert_with(|| {
                let mut all = String::new();
                for jar in [
                    format!("kafka-tools-{version}.jar"),
                    format!("kafka_2.13-{version}.jar"),
                ] {
                    let out = Command::new("unzip")
                        .arg("-l")
                        .arg(libs(version).join(jar))
                        .output()
                        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                        .unwrap_or_default();
                    all.push_str(&out);
                }
                all
            })
            .clone()
    };
    classes
        .iter()
        .find(|c| listing.contains(&format!("{}.class", c.replace('.', "/"))))
        .copied()
}

/// Runs and insists on success, returning stdout.
pub fn run_ok(cmd: Command, limit: Duration) -> String {
    let desc = format!("{cmd:?}");
    let out = run(cmd, limit);
    assert!(
        out.status.success(),
        "{desc} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

pub fn kseg(args: &[&str]) -> Output {
    let mut c = Command::new(kseg_bin());
    c.args(args);
    run(c, Duration::from_secs(300))
}

/// An ephemeral port no other call in this process has been given: the kernel may hand out a
/// just-released port again at once (CI19 got one port for both a broker's PLAINTEXT and
/// CONTROLLER listeners, three tests in one run, and Kafka refused to start).
fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<std::collections::BTreeSet<u16>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("binding an ephemeral port")
            .port();
        if GIVEN.lock().unwrap_or_else(|e| e.into_inner()).insert(port) {
            return port;
        }
    }
}

/// A real Kafka broker+controller on 127.0.0.1, its log dir `data`.
pub struct Broker {
    pub version: String,
    pub root: PathBuf,
    pub data: PathBuf,
    pub port: u16,
    child: Option<Child>,
    /// Broker overrides (server.properties lines), kept for restarts.
    overrides: Vec<String>,
    /// A node of a multi-node cluster; `None` for the single combined broker+controller.
    node: Option<ClusterNode>,
    /// A second listener, `EXTERNAL`, with this security protocol (SASL_PLAINTEXT, SSL, ...).
    pub external_protocol: Option<String>,
    pub external_port: u16,
    /// Loggers logged at DEBUG (log4j2 versions), for the lines a test waits on.
    pub debug_loggers: Vec<String>,
    /// ZooKeeper mode: the ZooKeeper server beside the broker (kept across restarts).
    pub zookeeper: Option<ZooKeeper>,
}

/// ZooKeeper's own standalone server (`ZooKeeperServerMain PORT DIR`) from a 2.x/3.x Kafka's
/// jars, on a loopback port, its data under the broker's root.
pub struct ZooKeeper {
    pub port: u16,
    child: Child,
}

impl ZooKeeper {
    /// Starts it and waits (≤ 60 s) until it answers on its port.
    pub fn start(version: &str, dir: &Path) -> ZooKeeper {
        fs::create_dir_all(dir).expect("creating the ZooKeeper dir");
        let port = free_port();
        let mut cmd = java(&classpath(version));
        cmd.arg("-Dzookeeper.admin.enableServer=false")
            .arg(format!(
                "-Dlog4j.configuration=file:{}",
                oracle_dir().join("log4j-tools.properties").display()
            ))
            .arg("org.apache.zookeeper.server.ZooKeeperServerMain")
            .arg(port.to_string())
            .arg(dir.join("data"))
            .stdin(Stdio::null())
            .stdout(fs::File::create(dir.join("stdout.log")).expect("zookeeper stdout.log"))
            .stderr(fs::File::create(dir.join("stderr.log")).expect("zookeeper stderr.log"));
        let mut child = cmd.spawn().expect("starting ZooKeeperServerMain");
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = child.try_wait().expect("try_wait") {
                panic!(
                    "ZooKeeper ({version}) exited ({status}): {}",
                    tail(&dir.join("stderr.log"), 40)
                );
            }
            assert!(
                Instant::now() < deadline,
                "ZooKeeper ({version}) did not listen in 60 s"
            );
            thread::sleep(Duration::from_millis(100));
        }
        ZooKeeper { port, child }
    }
}

impl Drop for ZooKeeper {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A node of a multi-node KRaft cluster ([`Cluster`]).
#[derive(Debug, Clone)]
pub struct ClusterNode {
    pub node_id: u32,
    /// A controller only, else a broker only.
    pub controller: bool,
    /// `controller.quorum.voters`.
    pub voters: String,
    /// The controller's listener port (fixed: the brokers' configs name it).
    pub controller_port: u16,
}

pub const CLUSTER_ID: &str = "a3NlZy1vcmFjbGUtMDAwMQ";

impl Broker {
    /// Formats a fresh KRaft log dir under `root` and starts the broker (≤ 120 s to come up).
    pub fn format_and_start(version: &str, root: &Path, overrides: &[&str]) -> Broker {
        Broker::format_and_start_with(version, root, overrides, None, &[])
    }

    /// Like [`Broker::format_and_start`], with a second listener named `EXTERNAL` speaking
    /// `external_protocol` on [`Broker::external_port`], and more `kafka-storage.sh format`
    /// arguments (`--add-scram ...`).
    pub fn format_and_start_with(
        version: &str,
        root: &Path,
        overrides: &[&str],
        external_protocol: Option<&str>,
        format_args: &[&str],
    ) -> Broker {
        let _ = fs::remove_dir_all(root);
        fs::create_dir_all(root).expect("creating the broker root");
        let mut broker = Broker::reopen(version, root, overrides);
        broker.external_protocol = external_protocol.map(str::to_string);
        broker.write_config();
        let mut format = kafka_tool(version, "kafka.tools.StorageTool");
        format
            .args(["format", "-t", CLUSTER_ID, "-c"])
            .arg(root.join("server.properties"))
            .args(format_args);
        run_ok(format, Duration::from_secs(120));
        broker.start();
        broker
    }

    /// A broker over an existing root (`root/data`, formatted before, e.g. a copy of a crashed
    /// broker's dir); not started.
    pub fn reopen(version: &str, root: &Path, overrides: &[&str]) -> Broker {
        Broker {
            version: version.to_string(),
            root: root.to_path_buf(),
            data: root.join("data"),
            port: 0,
            child: None,
            overrides: overrides.iter().map(|s| s.to_string()).collect(),
            node: None,
            external_protocol: None,
            external_port: 0,
            debug_loggers: Vec::new(),
            zookeeper: None,
        }
    }

    /// A fresh broker of `target` under `root`, started: KRaft formatted as
    /// [`Broker::format_and_start`] does; ZooKeeper mode with its ZooKeeper started beside it
    /// (`broker.id`, `zookeeper.connect`, nothing formatted: the broker writes `meta.properties`
    /// version 0 itself).
    pub fn start_target(target: &Target, root: &Path, overrides: &[&str]) -> Broker {
        if !target.zk() {
            return Broker::format_and_start(&target.version, root, overrides);
        }
        let _ = fs::remove_dir_all(root);
        fs::create_dir_all(root).expect("creating the broker root");
        let mut broker = Broker::reopen(&target.version, root, overrides);
        broker.zookeeper = Some(ZooKeeper::start(&target.version, &root.join("zookeeper")));
        broker.start();
        broker
    }

    /// A node of a multi-node cluster under `root`, formatted and not started.
    pub fn format_node(
        version: &str,
        root: &Path,
        node: ClusterNode,
        overrides: &[&str],
    ) -> Broker {
        let _ = fs::remove_dir_all(root);
        fs::create_dir_all(root).expect("creating the node root");
        let mut broker = Broker::reopen(version, root, overrides);
        broker.node = Some(node);
        broker.write_config();
        let mut format = kafka_tool(version, "kafka.tools.StorageTool");
        format
            .args(["format", "-t", CLUSTER_ID, "-c"])
            .arg(root.join("server.properties"));
        run_ok(format, Duration::from_secs(120));
        broker
    }

    fn write_config(&mut self) {
        let (listener, advertised, map) = match &self.external_protocol {
            Some(proto) => {
                self.external_port = free_port();
                let e = self.external_port;
                (
                    format!(",EXTERNAL://127.0.0.1:{e}"),
                    format!(",EXTERNAL://127.0.0.1:{e}"),
                    format!(",EXTERNAL:{proto}"),
                )
            }
            None => Default::default(),
        };
        let node = match &self.node {
            None if self.zookeeper.is_some() => {
                self.port = free_port();
                format!(
                    "broker.id=1\n\
                     zookeeper.connect=127.0.0.1:{zk}\n\
                     zookeeper.session.timeout.ms=6000\n\
                     listeners=PLAINTEXT://127.0.0.1:{port}{listener}\n\
                     advertised.listeners=PLAINTEXT://127.0.0.1:{port}{advertised}\n\
                     inter.broker.listener.name=PLAINTEXT\n",
                    zk = self.zookeeper.as_ref().unwrap().port,
                    port = self.port
                )
            }
            None => {
                self.port = free_port();
                let controller = free_port();
                format!(
                    "process.roles=broker,controller\n\
                     node.id=1\n\
                     controller.quorum.voters=1@127.0.0.1:{controller}\n\
                     listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}{listener}\n\
                     advertised.listeners=PLAINTEXT://127.0.0.1:{port}{advertised}\n\
                     inter.broker.listener.name=PLAINTEXT\n",
                    port = self.port
                )
            }
            Some(n) if n.controller => {
                self.port = n.controller_port;
                format!(
                    "process.roles=controller\nnode.id={}\ncontroller.quorum.voters={}\n\
                     listeners=CONTROLLER://127.0.0.1:{}\n",
                    n.node_id, n.voters, n.controller_port
                )
            }
            Some(n) => {
                self.port = free_port();
                format!(
                    "process.roles=broker\nnode.id={}\ncontroller.quorum.voters={}\n\
                     listeners=PLAINTEXT://127.0.0.1:{port}\n\
                     advertised.listeners=PLAINTEXT://127.0.0.1:{port}\n\
                     inter.broker.listener.name=PLAINTEXT\n",
                    n.node_id,
                    n.voters,
                    port = self.port
                )
            }
        };
        // ZooKeeper mode has no controller listener (3.x refuses one without KRaft roles).
        let controller = if self.zookeeper.is_some() {
            String::new()
        } else {
            "controller.listener.names=CONTROLLER\n".to_string()
        };
        let protocols = if self.zookeeper.is_some() {
            format!("PLAINTEXT:PLAINTEXT{map}")
        } else {
            format!("CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT{map}")
        };
        let mut cfg = format!(
            "{node}\
             {controller}\
             listener.security.protocol.map={protocols}\n\
             log.dirs={data}\n\
             num.partitions=1\n\
             auto.create.topics.enable=false\n\
             offsets.topic.replication.factor=1\n\
             transaction.state.log.replication.factor=1\n\
             transaction.state.log.min.isr=1\n\
             group.initial.rebalance.delay.ms=0\n\
             log.retention.ms=-1\n\
             log.retention.check.interval.ms=2000\n\
             log.cleaner.backoff.ms=500\n\
             log.initial.task.delay.ms=500\n\
             log.flush.start.offset.checkpoint.interval.ms=1000\n\
             share.coordinator.state.topic.replication.factor=1\n\
             share.coordinator.state.topic.min.isr=1\n",
            data = self.data.display(),
        );
        for o in &self.overrides {
            cfg.push_str(o);
            cfg.push('\n');
        }
        fs::write(self.root.join("server.properties"), cfg).expect("writing server.properties");
        let log = self.root.join("server.log");
        fs::write(
            self.root.join("log4j2.properties"),
            format!(
                "appender.file.type=File\nappender.file.name=file\nappender.file.fileName={}\n\
                 appender.file.append=true\n\
                 appender.file.layout.type=PatternLayout\n\
                 appender.file.layout.pattern=[%d] %p %m (%c)%n\n\
                 rootLogger.level=INFO\nrootLogger.appenderRef.file.ref=file\n{}",
                log.display(),
                self.debug_loggers
                    .iter()
                    .enumerate()
                    .map(|(i, l)| format!(
                        "logger.debug{i}.name={l}\nlogger.debug{i}.level=DEBUG\n"
                    ))
                    .collect::<String>()
            ),
        )
        .expect("writing log4j2.properties");
        fs::write(
            self.root.join("log4j.properties"),
            format!(
                "log4j.rootLogger=INFO, file\nlog4j.appender.file=org.apache.log4j.FileAppender\n\
                 log4j.appender.file.File={}\nlog4j.appender.file.Append=true\n\
                 log4j.appender.file.layout=org.apache.log4j.PatternLayout\n\
                 log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n\n",
                log.display()
            ),
        )
        .expect("writing log4j.properties");
    }

    /// Starts the broker (again) and waits until it accepts connections and says it started.
    pub fn start(&mut self) {
        if let Err(why) = self.try_start() {
            panic!("{why}");
        }
    }

    /// Starts the broker; `Err` with its last log lines when it exits before it has started
    /// (Kafka refusing a data dir).
    pub fn try_start(&mut self) -> Result<(), String> {
        let lines_before = self.spawn();
        self.wait_started(lines_before)
    }

    /// Starts the process; returns the server log's line count before it, for [`Self::wait_started`].
    pub fn spawn(&mut self) -> usize {
        assert!(self.child.is_none(), "the broker is already running");
        self.write_config();
        let log = self.root.join("server.log");
        let lines_before = fs::read_to_string(&log)
            .map(|s| s.lines().count())
            .unwrap_or(0);
        let mut cmd = java(&classpath(&self.version));
        cmd.arg("-Xmx1g")
            .arg(format!(
                "-Dlog4j2.configurationFile={}",
                self.root.join("log4j2.properties").display()
            ))
            .arg(format!(
                "-Dlog4j.configuration=file:{}",
                self.root.join("log4j.properties").display()
            ))
            .arg("kafka.Kafka")
            .arg(self.root.join("server.properties"))
            .stdin(Stdio::null())
            .stdout(fs::File::create(self.root.join("stdout.log")).expect("stdout.log"))
            .stderr(fs::File::create(self.root.join("stderr.log")).expect("stderr.log"));
        self.child = Some(cmd.spawn().expect("starting kafka.Kafka"));
        lines_before
    }

    /// Waits until a spawned broker accepts connections and says it started; `Err` when it exits.
    pub fn wait_started(&mut self, lines_before: usize) -> Result<(), String> {
        let log = self.root.join("server.log");
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            // KRaft: KafkaRaftServer's "Kafka Server started"; ZooKeeper mode (2.8, 3.x):
            // KafkaServer's "[KafkaServer id=1] started".
            let started = fs::read_to_string(&log).is_ok_and(|s| {
                s.lines().skip(lines_before).any(|l| {
                    l.contains("Kafka Server started")
                        || l.contains("] started (kafka.server.KafkaServer)")
                })
            });
            if started && TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return Ok(());
            }
            if let Some(status) = self.child.as_mut().unwrap().try_wait().expect("try_wait") {
                self.child = None;
                return Err(format!(
                    "Kafka {} exited before it started ({status}): {}\n{}",
                    self.version,
                    fs::read_to_string(self.root.join("stderr.log")).unwrap_or_default(),
                    tail(&log, 40)
                ));
            }
            assert!(
                Instant::now() < deadline,
                "Kafka {} did not start in 120 s: {}",
                self.version,
                tail(&log, 40)
            );
            thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn bootstrap(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Whether the started broker is still running `after` from now: `false` when it exited
    /// meanwhile (a log dir failing after "Kafka Server started" halts it:
    /// `ReplicaManager.handleLogDirFailure`).
    pub fn stays_up(&mut self, after: Duration) -> bool {
        let deadline = Instant::now() + after;
        while Instant::now() < deadline {
            match self.child.as_mut() {
                None => return false,
                Some(c) => {
                    if c.try_wait().expect("try_wait").is_some() {
                        self.child = None;
                        return false;
                    }
                }
            }
            thread::sleep(Duration::from_millis(100));
        }
        true
    }

    pub fn is_running(&self) -> bool {
        self.child.is_some()
    }

    fn signal(&mut self, signal: i32, limit: Duration) {
        let mut child = self.child.take().expect("the broker is not running");
        let pid = child.id() as i32;
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(pid, signal);
        }
        let deadline = Instant::now() + limit;
        loop {
            if child.try_wait().expect("try_wait").is_some() {
                return;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "Kafka {} did not stop within {limit:?} of signal {signal}: {}",
                    self.version,
                    tail(&self.root.join("server.log"), 40)
                );
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// A clean stop (SIGTERM: controlled shutdown, `.kafka_cleanshutdown`).
    pub fn stop(&mut self) {
        self.signal(libc::SIGTERM, Duration::from_secs(120));
        assert!(
            self.data.join(".kafka_cleanshutdown").exists(),
            "Kafka {} stopped without writing .kafka_cleanshutdown",
            self.version
        );
    }

    /// SIGSTOP: the process stays, frozen (its sessions and timers stop with it).
    pub fn freeze(&self) {
        self.send(libc::SIGSTOP);
    }

    /// SIGCONT after [`Broker::freeze`].
    pub fn thaw(&self) {
        self.send(libc::SIGCONT);
    }

    fn send(&self, signal: i32) {
        let pid = self.child.as_ref().expect("the broker is not running").id() as i32;
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(pid, signal);
        }
    }

    /// A crash: SIGKILL, nothing flushed or closed.
    pub fn kill9(&mut self) {
        self.signal(libc::SIGKILL, Duration::from_secs(30));
    }

    /// The broker's log4j output so far.
    pub fn server_log(&self) -> String {
        fs::read_to_string(self.root.join("server.log")).unwrap_or_default()
    }

    /// Runs the workload program against this broker.
    pub fn workload(&self, args: &[&str], limit: Duration) -> String {
        let bootstrap = self.bootstrap();
        let mut all = vec![args[0], bootstrap.as_str()];
        all.extend(&args[1..]);
        run_ok(workload_command(&all), limit)
    }
}

/// A KRaft cluster on 127.0.0.1: one controller (node 100, never stopped) and brokers 1..=n,
/// each with its own root, ports and log dir.
pub struct Cluster {
    pub controller: Broker,
    pub brokers: Vec<Broker>,
}

impl Cluster {
    /// Formats every node (in parallel) and starts them (≤ 120 s each).
    pub fn format_and_start(version: &str, root: &Path, n: u32, overrides: &[&str]) -> Cluster {
        let mut c = Cluster::format(version, root, n, overrides);
        c.start();
        c
    }

    /// Formats every node (in parallel); nothing started.
    pub fn format(version: &str, root: &Path, n: u32, overrides: &[&str]) -> Cluster {
        let controller_port = free_port();
        let voters = format!("100@127.0.0.1:{controller_port}");
        let node = |node_id: u32, controller: bool| ClusterNode {
            node_id,
            controller,
            voters: voters.clone(),
            controller_port,
        };
        let (controller, brokers) = thread::scope(|s| {
            let c = s.spawn(|| {
                Broker::format_node(
                    version,
                    &root.join("controller"),
                    node(100, true),
                    overrides,
                )
            });
            let bs: Vec<_> = (1..=n)
                .map(|id| {
                    let node = node(id, false);
                    s.spawn(move || {
                        Broker::format_node(
                            version,
                            &root.join(format!("broker-{id}")),
                            node,
                            overrides,
                        )
                    })
                })
                .collect();
            (
                c.join().expect("formatting the controller"),
                bs.into_iter()
                    .map(|b| b.join().expect("formatting a broker"))
                    .collect::<Vec<_>>(),
            )
        });
        Cluster {
            controller,
            brokers,
        }
    }

    /// Starts the controller, then every broker (≤ 120 s each).
    pub fn start(&mut self) {
        self.controller.start();
        let lines: Vec<usize> = self.brokers.iter_mut().map(Broker::spawn).collect();
        for (b, l) in self.brokers.iter_mut().zip(lines) {
            if let Err(why) = b.wait_started(l) {
                panic!("{why}");
            }
        }
    }

    /// Broker `id` (1-based).
    pub fn broker(&mut self, id: u32) -> &mut Broker {
        &mut self.brokers[id as usize - 1]
    }

    /// The running brokers' addresses.
    pub fn bootstrap(&self) -> String {
        self.brokers
            .iter()
            .filter(|b| b.is_running())
            .map(Broker::bootstrap)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The workload against the running brokers (`KsegOracle COMMAND BOOTSTRAP ARGS...`).
    pub fn workload(&self, args: &[&str], limit: Duration) -> String {
        let bootstrap = self.bootstrap();
        let mut all = vec![args[0], bootstrap.as_str()];
        all.extend(&args[1..]);
        run_ok(workload_command(&all), limit)
    }
}

/// The workload program (`KsegOracle COMMAND BOOTSTRAP ARGS...`), not started.
pub fn workload_command(args: &[&str]) -> Command {
    let mut cmd = java(&client_classpath());
    cmd.arg(format!(
        "-Dlog4j2.configurationFile={}",
        oracle_dir().join("log4j2-tools.properties").display()
    ))
    .arg("KsegOracle")
    .args(args);
    cmd
}

impl Drop for Broker {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub fn tail(path: &Path, lines: usize) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// `cp -a`: a byte-exact copy with times and modes, taken before anything else reads the dir.
pub fn copy_dir(from: &Path, to: &Path) {
    let _ = fs::remove_dir_all(to);
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).expect("creating the copy's parent");
    }
    // Sparse: a broker's preallocated index files are mostly holes; CI's disk is small.
    let status = Command::new("cp")
        .args(["-a", "--sparse=always"])
        .arg(from)
        .arg(to)
        .status()
        .expect("cp -a");
    assert!(
        status.success(),
        "cp -a {} {}",
        from.display(),
        to.display()
    );
}

/// Polls `check` until it holds (panics after `limit` naming `what`).
pub fn wait_for(what: &str, limit: Duration, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !check() {
        assert!(
            Instant::now() < deadline,
            "timed out after {limit:?} waiting for {what}"
        );
        thread::sleep(Duration::from_millis(200));
    }
}

/// Every line of a file that parses as a JSON object.
pub fn ndjson(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}

/// Answers by query key ("topic-partition spec"): (offset, timestamp).
pub type Lookups = BTreeMap<String, (i64, i64)>;
/// A kseg command run on the live dir: (command, exit code, stderr).
pub type LiveRun = (String, i32, String);

/// The files of a log dir's partition dirs that `keep` takes, by partition dir then name.
pub fn data_files(data: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for d in dirs {
        let mut files: Vec<PathBuf> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file() && keep(p))
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

/// One version's workload, run once per test process: the data dir as the broker left it at a
/// clean stop, the broker's answers while it ran, and what kseg said of the live dir meanwhile.
pub struct Scenario {
    pub version: String,
    /// The version and mode (KRaft, ZooKeeper) that wrote it.
    pub target: Target,
    /// Copy of the log dir after the clean stop (the tests read this; nothing writes it).
    pub data: PathBuf,
    /// The broker's answers (`KsegOracle query`), NDJSON.
    pub answers: Vec<serde_json::Value>,
    /// The generated group ids whose offsets were committed through the admin client.
    pub group_ids: Vec<String>,
    /// kseg's answers over the live data dir: query key -> (offset, timestamp).
    pub live_lookups: Lookups,
    /// Commands run on the live dir, with their exit codes and stderr.
    pub live_runs: Vec<(String, i32, String)>,
    /// Kafka's command-line tools run against the live broker: name -> stdout.
    pub tools: BTreeMap<String, String>,
}

/// A scenario, or why it could not be run (kept, so that the other tests fail at once).
type Slot = OnceLock<Mutex<Option<Result<&'static Scenario, String>>>>;

fn slots() -> &'static Mutex<BTreeMap<String, &'static Slot>> {
    static SLOTS: OnceLock<Mutex<BTreeMap<String, &'static Slot>>> = OnceLock::new();
    SLOTS.get_or_init(|| Mutex::new(BTreeMap::new()))
}

/// The scenario of `target`, run on first use (the tests of one process share it).
pub fn scenario(target: &Target) -> &'static Scenario {
    let slot: &'static Slot = {
        let mut map = slots().lock().unwrap();
        map.entry(target.key())
            .or_insert_with(|| Box::leak(Box::new(OnceLock::new())))
    };
    let cell = slot.get_or_init(|| Mutex::new(None));
    let mut guard = cell.lock().unwrap_or_else(|p| p.into_inner());
    if guard.is_none() {
        let run = std::panic::catch_unwind(|| run_scenario(target));
        *guard = Some(match run {
            Ok(s) => Ok(&*Box::leak(Box::new(s))),
            Err(e) => Err(e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into())),
        });
    }
    match guard.as_ref().unwrap() {
        Ok(s) => s,
        Err(why) => panic!("the Kafka {target} scenario failed: {why}"),
    }
}

/// A test's working dir: emptied when made, removed when dropped unless the test is failing
/// (a panic) or [`Scratch::keep`] was asked for, so that a failure's files stay to look at.
/// The crash rounds copy whole log dirs four times a case, and CI's disk is small.
pub struct Scratch {
    path: PathBuf,
    keep: std::cell::Cell<bool>,
}

impl Scratch {
    pub fn new(path: PathBuf) -> Scratch {
        let _ = fs::remove_dir_all(&path);
        Scratch {
            path,
            keep: std::cell::Cell::new(false),
        }
    }

    /// Keeps the dir when `differences` is not empty: a round that found differences returns
    /// them to a caller that fails later.
    pub fn keep_if_any(&self, differences: &[String]) {
        if !differences.is_empty() {
            self.keep.set(true);
        }
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.keep.get()
            && !std::thread::panicking()
            && std::env::var_os("KSEG_ORACLE_KEEP").is_none()
        {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

/// Removes one case's dir of a test of many cases when the case found nothing, so that the
/// cases' copies do not pile up on the disk.
pub fn discard_case(case_root: &Path, differences_before: usize, differences: &[String]) {
    if differences.len() == differences_before && std::env::var_os("KSEG_ORACLE_KEEP").is_none() {
        let _ = fs::remove_dir_all(case_root);
    }
}

pub fn work_root(version: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("oracle-{version}"))
}

/// The partitions a query answered for, with their answers (spec -> (offset, timestamp)).
pub fn list_offsets(answers: &[serde_json::Value]) -> Vec<&serde_json::Value> {
    answers
        .iter()
        .filter(|a| a["type"] == "listOffsets")
        .collect()
}

/// With `KSEG_ORACLE_REUSE=1`, a scenario a previous run left complete is read back instead of
/// run again (for working on kseg against the same Kafka output; CI never sets it).
fn reuse(target: &Target) -> Option<Scenario> {
    if std::env::var("KSEG_ORACLE_REUSE").map_or(true, |v| v != "1") {
        return None;
    }
    let version = &target.version;
    let root = work_root(&target.key());
    let saved: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(root.join("scenario.json")).ok()?).ok()?;
    eprintln!(
        "oracle: reusing the Kafka {version} scenario in {}",
        root.display()
    );
    Some(Scenario {
        version: version.to_string(),
        target: target.clone(),
        data: root.join("stopped"),
        answers: ndjson(&fs::read_to_string(root.join("answers.ndjson")).ok()?),
        group_ids: serde_json::from_value(saved["groupIds"].clone()).ok()?,
        live_lookups: serde_json::from_value(saved["liveLookups"].clone()).ok()?,
        live_runs: serde_json::from_value(saved["liveRuns"].clone()).ok()?,
        tools: serde_json::from_value(saved["tools"].clone()).ok()?,
    })
}

fn run_scenario(target: &Target) -> Scenario {
    if let Some(s) = reuse(target) {
        return s;
    }
    let version = &target.version;
    let started = Instant::now();
    let root = work_root(&target.key());
    let mut broker = Broker::start_target(target, &root.join("broker"), &[]);
    broker.workload(&["produce", "1"], Duration::from_secs(300));
    let groups = broker.workload(&["groups", "300"], Duration::from_secs(300));
    let group_ids: Vec<String> = groups.lines().map(str::to_string).collect();
    // A restart: the new leader epoch shows in the batches, checkpoints and snapshots after it.
    broker.stop();
    broker.start();
    broker.workload(&["produce", "2"], Duration::from_secs(300));
    let data = broker.data.clone();
    wait_for(
        "the log cleaner to clean compacted-0",
        Duration::from_secs(120),
        || {
            fs::read_to_string(data.join("cleaner-offset-checkpoint"))
                .is_ok_and(|s| s.lines().any(|l| l.starts_with("compacted 0 ")))
        },
    );
    wait_for(
        "retention to delete the old segments of retention-0",
        Duration::from_secs(120),
        || {
            // The log start offset checkpoint leaves out a log starting at its first segment's
            // base: the first segment's name says it.
            !data.join("retention-0/00000000000000000000.log").exists()
        },
    );
    let answers_path = root.join("answers.ndjson");
    broker.workload(
        &["query", answers_path.to_str().unwrap()],
        Duration::from_secs(600),
    );
    let answers = ndjson(&fs::read_to_string(&answers_path).expect("answers"));

    // kseg on the live data dir, read-only, while the broker holds it.
    let (live_lookups, live_runs) = live_checks(&broker.data, &answers);
    let tools = tool_answers(&broker);

    broker.stop();
    let snapshot = root.join("stopped");
    copy_dir(&broker.data, &snapshot);
    let saved = serde_json::json!({
        "groupIds": group_ids,
        "liveLookups": live_lookups,
        "liveRuns": live_runs,
        "tools": tools,
    });
    fs::write(root.join("scenario.json"), saved.to_string()).expect("writing scenario.json");
    eprintln!(
        "oracle: Kafka {target} scenario ready in {:.0?} ({})",
        started.elapsed(),
        snapshot.display()
    );
    Scenario {
        version: version.to_string(),
        target: target.clone(),
        data: snapshot,
        answers,
        group_ids,
        live_lookups,
        live_runs,
        tools,
    }
}

/// Kafka's own command-line tools against the running broker: kafka-consumer-groups.sh
/// `--describe --all-groups --offsets`, and kafka-transactions.sh `describe-producers` for each
/// partition of the `txn` topic and `find-hanging`.
fn tool_answers(broker: &Broker) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let bootstrap = broker.bootstrap();
    let group_command = tool_class(
        &broker.version,
        &[
            "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
            "kafka.admin.ConsumerGroupCommand",
        ],
    )
    .expect("ConsumerGroupCommand in Kafka's jars");
    let mut groups = kafka_tool(&broker.version, group_command);
    groups.args([
        "--bootstrap-server",
        &bootstrap,
        "--describe",
        "--all-groups",
        "--offsets",
    ]);
    out.insert(
        "consumer-groups".to_string(),
        run_ok(groups, Duration::from_secs(180)),
    );
    // kafka-transactions.sh (KIP-664) came with 3.0: a 2.8 broker has no DescribeProducers.
    let Some(transactions) = tool_class(
        &broker.version,
        &["org.apache.kafka.tools.TransactionsCommand"],
    ) else {
        return out;
    };
    for partition in ["0", "1"] {
        let mut producers = kafka_tool(&broker.version, transactions);
        producers.args([
            "--bootstrap-server",
            &bootstrap,
            "describe-producers",
            "--topic",
            "txn",
            "--partition",
            partition,
        ]);
        out.insert(
            format!("describe-producers txn-{partition}"),
            run_ok(producers, Duration::from_secs(180)),
        );
    }
    let mut hanging = kafka_tool(&broker.version, transactions);
    hanging.args([
        "--bootstrap-server",
        &bootstrap,
        "find-hanging",
        "--broker-id",
        "1",
    ]);
    out.insert(
        "find-hanging".to_string(),
        run_ok(hanging, Duration::from_secs(180)),
    );
    out
}

/// The lookup a `listOffsets` answer corresponds to, as kseg arguments, and its key.
pub fn lookup_args(answer: &serde_json::Value) -> Option<(String, Vec<String>)> {
    let spec = answer["spec"].as_str()?;
    if answer["isolation"] != "READ_UNCOMMITTED" {
        return None;
    }
    let args: Vec<String> = match spec {
        "earliest" => vec!["--earliest".into()],
        "latest" => vec!["--latest".into()],
        "maxTimestamp" => vec!["--max-timestamp".into()],
        s => vec![
            "--timestamp".into(),
            s.strip_prefix("timestamp:")?.to_string(),
        ],
    };
    let key = format!(
        "{}-{} {}",
        answer["topic"].as_str()?,
        answer["partition"],
        spec
    );
    Some((key, args))
}

/// Runs `kseg lookup --json` over `data` for every answer (one run per partition and kind of
/// question, every timestamp of a partition in one run): key -> (offset, timestamp), -1 where
/// kseg says null, as ListOffsets says -1.
pub fn kseg_lookups(data: &Path, answers: &[serde_json::Value]) -> Lookups {
    // partition -> kind flag -> timestamps (for --timestamp)
    let mut asked: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for a in list_offsets(answers) {
        let Some((_, args)) = lookup_args(a) else {
            continue;
        };
        let partition = format!("{}-{}", a["topic"].as_str().unwrap(), a["partition"]);
        let kinds = asked.entry(partition).or_default();
        let values = kinds.entry(args[0].clone()).or_default();
        values.extend(args.get(1).cloned());
    }
    let mut out = BTreeMap::new();
    for (partition, kinds) in asked {
        for (flag, values) in kinds {
            let mut cmd = Command::new(kseg_bin());
            cmd.args(["lookup", "--json", &flag]);
            if !values.is_empty() {
                cmd.arg(values.join(","));
            }
            cmd.arg(data.join(&partition));
            let o = run(cmd, Duration::from_secs(120));
            for v in ndjson(&String::from_utf8_lossy(&o.stdout)) {
                if v["type"] != "lookup" {
                    continue;
                }
                let spec = match v["target"]["kind"].as_str().unwrap_or("") {
                    "timestamp" => format!("timestamp:{}", v["target"]["value"]),
                    k => k.to_string(),
                };
                out.insert(
                    format!("{partition} {spec}"),
                    (
                        v["offset"].as_i64().unwrap_or(-1),
                        v["timestamp"].as_i64().unwrap_or(-1),
                    ),
                );
            }
        }
    }
    out
}

fn live_checks(data: &Path, answers: &[serde_json::Value]) -> (Lookups, Vec<LiveRun>) {
    let lookups = kseg_lookups(data, answers);
    let mut runs = Vec::new();
    let d = data.to_str().unwrap();
    for args in [
        vec!["summary", "--json", d],
        vec!["verify-index", "--json", d],
        vec!["dump-log", "--json", "--deep-iteration", d],
        vec!["groups", "--json", d],
        vec!["transactions", "--json", d],
    ] {
        let o = kseg(&args);
        runs.push((
            args[..args.len() - 1].join(" "),
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        ));
    }
    (lookups, runs)
}
