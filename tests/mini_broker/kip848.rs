//! KIP-848 groups in the mini-broker's core, no network: two members reconcile through a
//! revocation, one commits with its member epoch (an epoch older than the partition's
//! assignment epoch, or newer than the member's, gets STALE_MEMBER_EPOCH), and
//! the broker restarted on its log dir reloads the group from `__consumer_offsets` (epochs,
//! members, target and current assignments) so the members carry on without rejoining.
//! `kseg groups` on that dir shows the live group: members, epochs, assignment, offsets.

use std::collections::BTreeMap;

use crate::mini_broker_support::kseg;
use kseg::broker::consumer_group::{Heartbeat, HeartbeatOutcome};
use kseg::broker::core::{Broker, BrokerConfig};
use kseg::broker::group::CommitPartition;

fn hb(b: &mut Broker, member: &str, epoch: i32, owned: Option<&[i32]>) -> HeartbeatOutcome {
    let id = b.topic("t").unwrap().id;
    let out = b
        .consumer_group_heartbeat(Heartbeat {
            version: 1,
            group_id: "g848".into(),
            member_id: member.into(),
            member_epoch: epoch,
            rebalance_timeout_ms: if epoch == 0 { 300_000 } else { -1 },
            subscribed_topic_names: (epoch == 0).then(|| vec!["t".into()]),
            owned: owned.map(|o| {
                let mut a = BTreeMap::new();
                if !o.is_empty() {
                    a.insert(id, o.iter().copied().collect());
                }
                a
            }),
            client_id: format!("client-{member}"),
            client_host: "/127.0.0.1".into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(out.error, 0, "{member}: {:?}", out.message);
    out
}

fn parts(o: &HeartbeatOutcome) -> Option<Vec<i32>> {
    o.assignment
        .as_ref()
        .map(|a| a.iter().flat_map(|(_, p)| p.clone()).collect())
}

fn config(dir: &std::path::Path) -> BrokerConfig {
    let mut c = BrokerConfig::new(dir.to_path_buf());
    c.consumer_groups.assignment_interval_ms = 0;
    c
}

#[test]
fn a_kip848_group_reconciles_commits_and_survives_a_restart() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let (mut b, _) = Broker::open(config(&dir)).unwrap();
    b.create_topic("t", 4).unwrap();
    assert_eq!(
        parts(&hb(&mut b, "member-a", 0, Some(&[]))),
        Some(vec![0, 1, 2, 3])
    );
    let joined = hb(&mut b, "member-b", 0, Some(&[]));
    assert_eq!((joined.member_epoch, parts(&joined)), (3, Some(vec![])));
    // a must give up two partitions; b gets them once a's heartbeat no longer owns them.
    let a = hb(&mut b, "member-a", 2, Some(&[0, 1, 2, 3]));
    assert_eq!((a.member_epoch, parts(&a)), (2, Some(vec![0, 1])));
    let a = hb(&mut b, "member-a", 2, Some(&[0, 1]));
    assert_eq!(a.member_epoch, 3);
    let bm = hb(&mut b, "member-b", 3, Some(&[]));
    assert_eq!((bm.member_epoch, parts(&bm)), (3, Some(vec![2, 3])));

    let commit = |b: &mut Broker, epoch: i32| {
        let topic_id = b.topic("t").map(|t| t.id);
        b.commit_offsets(
            "g848",
            "member-b",
            epoch,
            &[CommitPartition {
                topic: "t".into(),
                partition: 2,
                offset: 7,
                leader_epoch: 0,
                metadata: None,
                topic_id,
            }],
            None,
            9,
        )
        .map_err(|e| e.code())
    };
    // Partition 2 was assigned to b at epoch 3: an epoch-2 commit of it is STALE_MEMBER_EPOCH
    // (per partition), a newer epoch than b's is refused whole.
    assert_eq!(commit(&mut b, 2), Ok(vec![113]));
    assert_eq!(commit(&mut b, 4), Err(113));
    assert_eq!(commit(&mut b, 3), Ok(vec![0]));
    b.shutdown().unwrap();

    // kseg's own view of the dir: the live group.
    let out = kseg(&["groups", "--json", dir.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let group: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|l| l["type"] == "group")
        .unwrap_or_else(|| panic!("{text}"));
    let cg = &group["consumerGroup"];
    assert_eq!(
        (cg["groupEpoch"].as_i64(), cg["assignmentEpoch"].as_i64()),
        (Some(3), Some(3)),
        "{cg}"
    );
    let members: Vec<(String, i64, String, String)> = cg["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["clientId"].as_str().unwrap_or("").to_string(),
                m["memberEpoch"].as_i64().unwrap_or(-99),
                m["assigned"].to_string(),
                m["target"].to_string(),
            )
        })
        .collect();
    // Topic ids resolved to the name through partition.metadata.
    assert_eq!(
        members,
        [
            (
                "client-member-a".into(),
                3,
                r#"[["t",[0,1]]]"#.into(),
                r#"[["t",[0,1]]]"#.into()
            ),
            (
                "client-member-b".into(),
                3,
                r#"[["t",[2,3]]]"#.into(),
                r#"[["t",[2,3]]]"#.into()
            ),
        ],
        "{cg}"
    );
    assert_eq!(group["committedOffsets"], 1, "{text}");
    let table = kseg(&["groups", dir.to_str().unwrap()]);
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.contains("group epoch 3 assignment epoch 3"),
        "{table}"
    );

    // Restart: the group comes back from __consumer_offsets.
    let (mut b, _) = Broker::open(config(&dir)).unwrap();
    {
        let g = b.consumer_groups.group("g848").expect("reloaded");
        assert_eq!((g.epoch, g.assignment_epoch, g.state()), (3, 3, "Stable"));
        let a = &g.members()["member-a"];
        assert_eq!(
            (a.epoch, a.previous_epoch, a.meta.client_id.as_str()),
            (3, 2, "client-member-a")
        );
        assert_eq!(a.assignment().len(), 1);
        assert_eq!(a.assignment()[0].1, vec![0, 1]);
        assert_eq!(g.members()["member-b"].assignment()[0].1, vec![2, 3]);
    }
    // Members carry on with their epochs: no fence, no rebalance.
    let a = hb(&mut b, "member-a", 3, Some(&[0, 1]));
    assert_eq!((a.member_epoch, parts(&a)), (3, None));
    assert_eq!(commit(&mut b, 3), Ok(vec![0]));
    // b leaves: a gets everything at epoch 4.
    let left = hb(&mut b, "member-b", -1, None);
    assert_eq!(left.member_epoch, -1);
    let a = hb(&mut b, "member-a", 3, Some(&[0, 1]));
    assert_eq!((a.member_epoch, parts(&a)), (4, Some(vec![0, 1, 2, 3])));
    b.shutdown().unwrap();
}

/// Issue 26, measured (`cargo test --release --test mini_broker measure_heartbeat -- --ignored
/// --nocapture`; BENCHMARKS.md): the cost of a steady ConsumerGroupHeartbeat (a stable member
/// reporting its partitions) in a group of 250 and of 3,000 members, one partition each. It
/// read every member (assignor, subscriptions, partition holders): ~linear in the members.
#[test]
#[ignore = "a measurement, not a check: run it by name with --ignored --nocapture"]
fn measure_heartbeat_cost_by_group_size() {
    use kseg::broker::consumer_group::{ConsumerGroupConfig, ConsumerGroups, TopicMeta};
    use std::time::Instant;
    for members in [250usize, 3_000] {
        let id = [7u8; 16];
        let topics = move |name: &str| {
            (name == "t").then(|| TopicMeta {
                name: "t".into(),
                id,
                partitions: members as i32,
            })
        };
        let mut c = ConsumerGroups::new(ConsumerGroupConfig {
            assignment_interval_ms: i32::MAX as i64,
            ..Default::default()
        });
        let mut records = Vec::new();
        let join = |m: usize| Heartbeat {
            version: 1,
            group_id: "g".into(),
            member_id: format!("member-{m:05}"),
            member_epoch: 0,
            rebalance_timeout_ms: 300_000,
            subscribed_topic_names: Some(vec!["t".into()]),
            owned: Some(BTreeMap::new()),
            client_id: "bench".into(),
            client_host: "/127.0.0.1".into(),
            ..Default::default()
        };
        let mut state: Vec<(i32, Vec<i32>)> = (0..members)
            .map(|m| {
                (
                    c.heartbeat(join(m), &topics, 1, &mut records).member_epoch,
                    vec![],
                )
            })
            .collect();
        c.config.assignment_interval_ms = 0;
        // Heartbeats until every member is stable with its partition.
        for round in 0..6 {
            for (m, s) in state.iter_mut().enumerate() {
                let mut owned = BTreeMap::new();
                owned.insert(id, s.1.iter().copied().collect());
                let out = c.heartbeat(
                    Heartbeat {
                        member_epoch: s.0,
                        rebalance_timeout_ms: -1,
                        subscribed_topic_names: None,
                        owned: Some(owned),
                        ..join(m)
                    },
                    &topics,
                    2 + round,
                    &mut records,
                );
                assert_eq!(out.error, 0, "{:?}", out.message);
                s.0 = out.member_epoch;
                if let Some(a) = out.assignment {
                    s.1 = a.into_iter().flat_map(|(_, p)| p).collect();
                }
            }
        }
        assert_eq!(c.group("g").unwrap().state(), "Stable");
        records.clear();
        let rounds = 4;
        let start = Instant::now();
        for _ in 0..rounds {
            for (m, s) in state.iter().enumerate() {
                let mut owned = BTreeMap::new();
                owned.insert(id, s.1.iter().copied().collect());
                let out = c.heartbeat(
                    Heartbeat {
                        member_epoch: s.0,
                        rebalance_timeout_ms: -1,
                        subscribed_topic_names: None,
                        owned: Some(owned),
                        ..join(m)
                    },
                    &topics,
                    100,
                    &mut records,
                );
                assert_eq!(out.error, 0);
            }
        }
        let each = start.elapsed() / (rounds * members) as u32;
        println!("{members} members: {each:?} per steady heartbeat");
    }
}
