use super::*;

fn join_req(member: &str, client: &str) -> JoinRequest {
    JoinRequest {
        group_id: "g".into(),
        member_id: member.into(),
        instance_id: None,
        protocol_type: "consumer".into(),
        protocols: vec![("range".into(), vec![1]), ("roundrobin".into(), vec![2])],
        session_timeout_ms: 10_000,
        rebalance_timeout_ms: 30_000,
        client_id: client.into(),
        client_host: "/127.0.0.1".into(),
        require_known_member_id: true,
        supports_skip_assignment: true,
    }
}

fn now_outcome<T>(p: Pending<T>) -> T {
    match p {
        Pending::Now(t) => t,
        Pending::Later(mut rx) => rx.try_recv().expect("answered already"),
    }
}

#[test]
fn one_member_joins_syncs_commits_and_leaves() {
    let mut c = GroupCoordinator::default();
    let mut recs = Vec::new();
    let first = now_outcome(c.join(join_req("", "c1"), 0, &mut recs));
    assert_eq!(first.error, ResponseError::MemberIdRequired.code());
    assert_eq!(recs.len(), 1, "the new empty group is persisted");
    let joined = now_outcome(c.join(join_req(&first.member_id, "c1"), 1, &mut recs));
    assert_eq!(joined.error, 0);
    assert_eq!(joined.generation, 1);
    assert_eq!(joined.protocol_name.as_deref(), Some("range"));
    assert_eq!(joined.members.len(), 1);
    let id = joined.member_id.clone();
    let synced = now_outcome(c.sync("g", 1, &id, vec![(id.clone(), vec![9])], 2, &mut recs));
    assert_eq!(synced.assignment, vec![9]);
    assert_eq!(recs.len(), 2);
    assert_eq!(c.heartbeat("g", &id, 1, 3), 0);
    let parts = [CommitPartition {
        topic: "t".into(),
        partition: 0,
        offset: 12,
        leader_epoch: 0,
        metadata: None,
        topic_id: None,
    }];
    assert_eq!(
        c.commit("g", &id, 1, &parts, None, 4, &mut recs).unwrap(),
        vec![0]
    );
    assert_eq!(c.fetch_offset("g", "t", 0, true).0, 12);
    assert_eq!(c.leave("g", &[id], 5, &mut recs).unwrap(), vec![0]);
    let g = c.group("g").unwrap();
    assert_eq!(g.state, GroupState::Empty);
    assert_eq!(g.generation, 2);
    assert_eq!(recs.len(), 4);
}

#[test]
fn second_member_triggers_a_rebalance() {
    let mut c = GroupCoordinator::default();
    let mut recs = Vec::new();
    let mut r = join_req("", "a");
    r.require_known_member_id = false;
    let a = now_outcome(c.join(r, 0, &mut recs));
    let a_id = a.member_id.clone();
    now_outcome(c.sync("g", 1, &a_id, vec![], 1, &mut recs));
    let mut r = join_req("", "b");
    r.require_known_member_id = false;
    let b_pending = c.join(r, 2, &mut recs);
    assert_eq!(
        c.heartbeat("g", &a_id, 1, 3),
        ResponseError::RebalanceInProgress.code()
    );
    // The generation is checked before the state, as Kafka's validateClassicGroupHeartbeat.
    assert_eq!(
        c.heartbeat("g", &a_id, 0, 3),
        ResponseError::IllegalGeneration.code()
    );
    let a2 = now_outcome(c.join(join_req(&a_id, "a"), 4, &mut recs));
    assert_eq!(a2.generation, 2);
    assert_eq!(a2.members.len(), 2, "a stays leader");
    let b = now_outcome(b_pending);
    assert_eq!(b.generation, 2);
    assert!(b.members.is_empty());
}

#[test]
fn a_static_member_rejoining_a_stable_group_fences_the_old_one_without_a_rebalance() {
    let mut c = GroupCoordinator::default();
    let mut recs = Vec::new();
    let mut r = join_req("", "a");
    r.instance_id = Some("inst".into());
    let a = now_outcome(c.join(r.clone(), 0, &mut recs));
    assert_eq!(a.error, 0, "a static member gets no MEMBER_ID_REQUIRED");
    assert!(a.member_id.starts_with("inst-"), "{}", a.member_id);
    now_outcome(c.sync(
        "g",
        1,
        &a.member_id,
        vec![(a.member_id.clone(), vec![7])],
        1,
        &mut recs,
    ));
    let before = recs.len();
    let b = now_outcome(c.join(r.clone(), 2, &mut recs));
    assert_eq!(
        (b.error, b.generation),
        (0, 1),
        "same generation: no rebalance"
    );
    assert!(b.skip_assignment, "the leader keeps the assignment");
    assert_eq!(b.leader, b.member_id);
    assert_eq!(
        recs.len(),
        before + 1,
        "the group is persisted with the new member id"
    );
    let g = c.group("g").unwrap();
    assert_eq!(g.state, GroupState::Stable);
    assert_eq!(g.members.len(), 1);
    assert_eq!(g.members[0].assignment, vec![7]);
    assert!(c.is_fenced("g", Some("inst"), &a.member_id));
    assert!(!c.is_fenced("g", Some("inst"), &b.member_id));
    let synced = now_outcome(c.sync("g", 1, &b.member_id, vec![], 3, &mut recs));
    assert_eq!(synced.assignment, vec![7]);
    // The old id, with its instance id, is fenced at join too.
    let mut old = r;
    old.member_id = a.member_id.clone();
    let e = now_outcome(c.join(old, 4, &mut recs));
    assert_eq!(e.error, ResponseError::FencedInstanceId.code());
}

#[test]
fn simple_and_transactional_commits() {
    let mut c = GroupCoordinator::default();
    let mut recs = Vec::new();
    let p = CommitPartition {
        topic: "t".into(),
        partition: 1,
        offset: 5,
        leader_epoch: -1,
        metadata: Some("m".into()),
        topic_id: None,
    };
    assert_eq!(
        c.commit("s", "", -1, std::slice::from_ref(&p), None, 0, &mut recs)
            .unwrap(),
        vec![0]
    );
    c.txn_commit("s", 77, &[CommitPartition { offset: 9, ..p }], 1, &mut recs);
    assert_eq!(
        c.fetch_offset("s", "t", 1, true).3,
        ResponseError::UnstableOffsetCommit.code()
    );
    assert_eq!(c.fetch_offset("s", "t", 1, false).0, 5);
    c.complete_txn(77, true);
    assert_eq!(c.fetch_offset("s", "t", 1, true).0, 9);
}

/// ConsumerProtocolSubscription v0 of `topics`, no user data.
fn subscription(topics: &[&str]) -> Vec<u8> {
    let mut b = 0i16.to_be_bytes().to_vec();
    b.extend_from_slice(&(topics.len() as i32).to_be_bytes());
    for t in topics {
        b.extend_from_slice(&(t.len() as i16).to_be_bytes());
        b.extend_from_slice(t.as_bytes());
    }
    b.extend_from_slice(&(-1i32).to_be_bytes());
    b
}

#[test]
fn offset_delete_is_refused_for_subscribed_topics_and_for_non_consumer_groups_with_members() {
    let mut c = GroupCoordinator::default();
    let mut recs = Vec::new();
    let mut req = join_req("", "c1");
    req.protocols = vec![("range".into(), subscription(&["orders"]))];
    let first = now_outcome(c.join(req.clone(), 0, &mut recs));
    req.member_id = first.member_id;
    assert_eq!(now_outcome(c.join(req, 1, &mut recs)).error, 0);
    let g = c.group("g").unwrap();
    assert_ne!(g.state, GroupState::Empty);
    assert_eq!(g.validate_offset_delete(), Ok(()));
    assert!(g.is_subscribed_to("orders"));
    assert!(!g.is_subscribed_to("payments"));

    let mut req = join_req("", "w1");
    req.group_id = "connect-cluster".into();
    req.protocol_type = "connect".into();
    let first = now_outcome(c.join(req.clone(), 2, &mut recs));
    req.member_id = first.member_id;
    assert_eq!(now_outcome(c.join(req, 3, &mut recs)).error, 0);
    let g = c.group("connect-cluster").unwrap();
    assert_eq!(
        g.validate_offset_delete(),
        Err(ResponseError::NonEmptyGroup)
    );
    assert!(!g.is_subscribed_to("orders"), "not the consumer protocol");
}
