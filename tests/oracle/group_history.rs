//! `kseg groups` offset expiry and `--rebalances` against a real broker: a broker with
//! `offsets.retention.minutes=1` and a one-second retention check deletes the offsets of groups
//! that went Empty, of a KIP-848 group whose member left and of a standalone consumer; kseg's
//! EXPIRES-AT, predicted before, must match the tombstones the broker wrote. A classic group made
//! to rebalance repeatedly: kseg's generations against every client's onPartitionsAssigned.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::harness::{copy_dir, kseg, ndjson, skip, versions, wait_for, Broker, Scratch};

const CHECK_INTERVAL_MS: i64 = 1000;
/// Scheduling slack of the broker's periodic cleanup (its timer and the coordinator's event loop).
const SLACK_MS: i64 = 3000;

fn groups_json(data: &Path, extra: &[&str]) -> Vec<serde_json::Value> {
    let d = data.to_str().unwrap();
    let mut args = vec!["groups", "--json", "--offsets-retention-minutes", "1"];
    args.extend(extra);
    args.push(d);
    let o = kseg(&args);
    assert!(
        o.status.code() == Some(0),
        "kseg {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    ndjson(&String::from_utf8_lossy(&o.stdout))
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn expiry_predictions_and_rebalance_history_match_the_broker() {
    if skip() {
        return;
    }
    let version = &versions()[0];
    let root =
        Scratch::new(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("oracle-group-history"));
    let mut broker = Broker::format_and_start(
        version,
        &root.join("broker"),
        &[
            "offsets.retention.minutes=1",
            &format!("offsets.retention.check.interval.ms={CHECK_INTERVAL_MS}"),
        ],
    );
    let events = root.join("expiry.ndjson");
    let callbacks = root.join("rebalance.ndjson");
    broker.workload(
        &[
            "rebalance",
            "rebalance-group",
            "4",
            callbacks.to_str().unwrap(),
        ],
        Duration::from_secs(300),
    );
    broker.workload(
        &["expiry", events.to_str().unwrap()],
        Duration::from_secs(180),
    );
    // Predictions from the live dir, before anything expired (the first commit is < 1 min old:
    // the workload takes ~20 s).
    let predicted: BTreeMap<String, serde_json::Value> = groups_json(&broker.data, &[])
        .into_iter()
        .filter(|v| v["type"] == "offset" && v["topic"] == "expiry-src")
        .map(|v| (v["group"].as_str().unwrap().to_string(), v))
        .collect();
    let wanted = ["expiry-classic", "expiry-consumer", "expiry-standalone"];
    for g in wanted {
        assert!(
            predicted.contains_key(g),
            "no offset of {g}: {predicted:#?}"
        );
    }
    // --at: the flags just before and at the predicted instant.
    let standalone_at = predicted["expiry-standalone"]["expiresAt"]
        .as_i64()
        .unwrap();
    for (at, flag) in [
        (standalone_at - 1, "expires-in-1d"),
        (standalone_at, "expired"),
    ] {
        let at = at.to_string();
        let v = groups_json(&broker.data, &["--at", &at, "--group", "expiry-standalone"]);
        let row = v
            .iter()
            .find(|v| v["type"] == "offset")
            .expect("the offset");
        assert!(
            row["flags"].as_array().unwrap().iter().any(|f| f == flag),
            "--at {at}: {row}"
        );
    }
    // Wait for the broker's tombstones.
    let tombstones = |data: &Path| -> BTreeMap<String, i64> {
        groups_json(data, &["--history"])
            .into_iter()
            .filter(|v| {
                v["type"] == "commit" && v["offset"].is_null() && v["topic"] == "expiry-src"
            })
            .map(|v| {
                (
                    v["group"].as_str().unwrap().to_string(),
                    v["recordTimestamp"].as_i64().unwrap(),
                )
            })
            .collect()
    };
    let data = broker.data.clone();
    wait_for(
        "the broker to expire the three groups' offsets",
        Duration::from_secs(150),
        || tombstones(&data).len() == wanted.len(),
    );
    broker.stop();
    let stopped = root.join("stopped");
    copy_dir(&broker.data, &stopped);
    let deleted = tombstones(&stopped);

    let event_at = |group: &str, event: &str| -> i64 {
        ndjson(&fs::read_to_string(&events).unwrap())
            .into_iter()
            .find(|v| v["group"] == group && v["event"] == event)
            .and_then(|v| v["at"].as_i64())
            .unwrap_or_else(|| panic!("no {event} event of {group}"))
    };
    for g in wanted {
        let p = &predicted[g];
        let expires = p["expiresAt"].as_i64().unwrap_or_else(|| panic!("{p}"));
        let at = deleted[g];
        // Deleted at the first check at or after the predicted instant, not before it.
        assert!(
            expires <= at && at - expires <= CHECK_INTERVAL_MS + SLACK_MS,
            "{g}: kseg predicted {expires}, the broker deleted at {at} ({p})"
        );
    }
    // The bases: the classic group from when it became Empty (8 s after its commit), the others
    // from their commits.
    let classic = &predicted["expiry-classic"];
    assert_eq!(classic["expiryBasis"], "groupEmptySince", "{classic}");
    let commit = classic["commitTimestamp"].as_i64().unwrap();
    let expires = classic["expiresAt"].as_i64().unwrap();
    assert!(expires - commit >= 60_000 + 7_000, "{classic}");
    assert!(expires - 60_000 <= event_at("expiry-classic", "left") + 1000);
    for g in ["expiry-consumer", "expiry-standalone"] {
        assert_eq!(
            predicted[g]["expiryBasis"], "commitTimestamp",
            "{}",
            predicted[g]
        );
        assert_eq!(
            predicted[g]["expiresAt"].as_i64().unwrap(),
            predicted[g]["commitTimestamp"].as_i64().unwrap() + 60_000
        );
    }
    // Rebalances: every generation a client saw, with its members, is in kseg's list.
    let mut seen: BTreeMap<i64, BTreeSet<String>> = BTreeMap::new();
    for v in ndjson(&fs::read_to_string(&callbacks).unwrap()) {
        seen.entry(v["generation"].as_i64().unwrap())
            .or_default()
            .insert(v["memberId"].as_str().unwrap().to_string());
    }
    assert_eq!(
        seen.len(),
        9,
        "2 * 4 + 1 generations seen by the clients: {seen:?}"
    );
    let out = groups_json(&stopped, &["--rebalances", "--group", "rebalance-group"]);
    let mut listed: BTreeMap<i64, BTreeSet<String>> = BTreeMap::new();
    for v in out.iter().filter(|v| v["type"] == "generation") {
        let members = v["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["memberId"].as_str().unwrap().to_string())
            .collect();
        listed.insert(v["generation"].as_i64().unwrap(), members);
    }
    for (g, members) in &seen {
        assert_eq!(listed.get(g), Some(members), "generation {g}: {listed:#?}");
    }
    // Beyond what the clients saw: only the final Empty generation(s) the coordinator wrote.
    for (g, members) in &listed {
        assert!(
            seen.contains_key(g) || members.is_empty(),
            "generation {g} no client saw: {members:?}"
        );
    }
    let summary = out
        .iter()
        .find(|v| v["type"] == "rebalanceSummary")
        .expect("a rebalance summary");
    assert_eq!(
        summary["generations"].as_u64().unwrap() as usize,
        listed.len()
    );
}
