//! Issue 44: what `kseg transactions` says an open transaction blocks, and the command it gives
//! to end it, against Kafka 4.4 itself: the rescue source's workload leaves one transaction
//! (`rs-open`, timeout 10 minutes) open at offset 1350 of each partition of `rs`; twenty plain
//! records follow it on one partition. With the broker stopped, kseg reads the dir; restarted,
//! a read_committed consumer must stop where kseg says (no offset at or past 1350), and the
//! `kafka-transactions.sh abort` command kseg printed, run as printed (the bootstrap put in),
//! must unblock that partition: the twenty records become visible, the open one aborted.

use std::fs;
use std::path::Path;
use std::time::Duration;

use crate::harness::{
    kafka_tool, kseg, ndjson, run, run_ok, skip, versions, workload_command, Broker,
};

/// (partition, offset, value as base64) of each record a read_committed consumer is given.
fn read_committed(bootstrap: &str, out: &Path) -> Vec<(i64, i64, String)> {
    run_ok(
        workload_command(&["consume", bootstrap, "rs", out.to_str().unwrap()]),
        Duration::from_secs(180),
    );
    ndjson(&fs::read_to_string(out).unwrap())
        .iter()
        .map(|v| {
            (
                v["partition"].as_i64().unwrap(),
                v["offset"].as_i64().unwrap(),
                v["value"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
#[ignore = "needs Kafka (oracle/setup) and java"]
fn an_open_transaction_blocks_what_kseg_says_and_its_abort_command_unblocks_it() {
    if skip() {
        return;
    }
    let version = versions()[0].clone();
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oracle-open-transaction");
    let _ = fs::remove_dir_all(&root);
    let mut broker = Broker::format_and_start(&version, &root.join("broker"), &[]);
    broker.workload(&["rescue-source"], Duration::from_secs(300));
    let bootstrap = broker.bootstrap();
    let lines: String = (0..20).map(|i| format!("late:late-{i}\n")).collect();
    let input = root.join("late.txt");
    fs::write(&input, lines).unwrap();
    let mut producer = kafka_tool(&version, "org.apache.kafka.tools.ConsoleProducer");
    producer
        .args(["--bootstrap-server", &bootstrap, "--topic", "rs"])
        .args([
            "--property",
            "parse.key=true",
            "--property",
            "key.separator=:",
        ])
        .stdin(fs::File::open(&input).unwrap());
    let out = run(producer, Duration::from_secs(120));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    broker.stop();

    let out = kseg(&["transactions", "--json", broker.data.to_str().unwrap()]);
    let rows = ndjson(&String::from_utf8_lossy(&out.stdout));
    let open: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| r["type"] == "openTransaction")
        .collect();
    assert_eq!(open.len(), 3, "{rows:?}");
    for o in &open {
        assert_eq!(o["transactionalId"], "rs-open", "{o}");
        assert_eq!(o["coordinatorState"], "Ongoing", "{o}");
        assert_eq!(o["hanging"], false, "{o}");
        assert_eq!(o["firstOffset"], 1350, "{o}");
        assert_eq!(o["lastStableOffset"], 1350, "{o}");
        assert_eq!(o["timeoutMs"], 600_000, "{o}");
        assert!(o["abortedAt"].as_i64().is_some(), "{o}");
    }
    let late: Vec<&&serde_json::Value> =
        open.iter().filter(|o| o["logEndOffset"] == 1371).collect();
    assert_eq!(
        late.len(),
        1,
        "the twenty late records on one partition: {open:?}"
    );
    let late = late[0];
    // The open record and the twenty after it.
    assert_eq!(late["recordsHeld"], 21, "{late}");
    let partition = late["partition"].as_i64().unwrap();
    for o in open.iter().filter(|o| o["partition"] != partition) {
        assert_eq!(o["recordsHeld"], 1, "{o}");
    }

    broker.start();
    let bootstrap = broker.bootstrap();
    let before = read_committed(&bootstrap, &root.join("before.ndjson"));
    assert!(!before.is_empty());
    assert!(
        before.iter().all(|r| r.1 < 1350),
        "read_committed went past the last stable offset kseg gave: {:?}",
        before.iter().filter(|r| r.1 >= 1350).collect::<Vec<_>>()
    );
    // The command as kseg printed it, the bootstrap put in.
    let command = late["abortCommand"]
        .as_str()
        .unwrap()
        .replace("BROKER:9092", &bootstrap);
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words[0], "kafka-transactions.sh", "{command}");
    let mut abort = kafka_tool(&version, "org.apache.kafka.tools.TransactionsCommand");
    abort.args(&words[1..]);
    run_ok(abort, Duration::from_secs(120));
    let after = read_committed(&bootstrap, &root.join("after.ndjson"));
    let unblocked: Vec<&(i64, i64, String)> = after
        .iter()
        .filter(|r| r.0 == partition && r.1 >= 1350)
        .collect();
    assert_eq!(unblocked.len(), 20, "{unblocked:?}");
    assert!(unblocked.iter().all(|r| r.1 > 1350), "{unblocked:?}");
    // The other partitions stay held where kseg said.
    assert!(after.iter().all(|r| r.0 == partition || r.1 < 1350));
    broker.stop();
    drop(broker);
    fs::remove_dir_all(&root).unwrap();
}
