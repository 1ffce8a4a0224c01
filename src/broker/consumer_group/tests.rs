use super::*;

const T: [u8; 16] = [1; 16];

fn topics(name: &str) -> Option<TopicMeta> {
    (name == "t").then(|| TopicMeta {
        name: "t".into(),
        id: T,
        partitions: 4,
    })
}

fn hb(member: &str, epoch: i32, owned: Option<&[i32]>) -> Heartbeat {
    Heartbeat {
        version: 1,
        group_id: "g".into(),
        member_id: member.into(),
        member_epoch: epoch,
        rebalance_timeout_ms: if epoch == 0 { 300_000 } else { -1 },
        subscribed_topic_names: (epoch == 0).then(|| vec!["t".into()]),
        owned: owned.map(|o| {
            let mut a = Assignment::new();
            if !o.is_empty() {
                a.insert(T, o.iter().copied().collect());
            }
            a
        }),
        client_id: member.into(),
        client_host: "/127.0.0.1".into(),
        ..Default::default()
    }
}

fn parts(o: &HeartbeatOutcome) -> Vec<i32> {
    o.assignment
        .as_ref()
        .map(|a| a.iter().flat_map(|(_, p)| p.clone()).collect())
        .unwrap_or_default()
}

#[test]
fn two_members_split_through_revocation_and_one_leaves() {
    let config = ConsumerGroupConfig {
        assignment_interval_ms: 0,
        ..Default::default()
    };
    let mut c = ConsumerGroups::new(config);
    let mut r = Vec::new();
    let a = c.heartbeat(hb("a", 0, Some(&[])), &topics, 1, &mut r);
    assert_eq!(
        (a.error, a.member_epoch, parts(&a)),
        (0, 2, vec![0, 1, 2, 3])
    );
    let types: Vec<i16> = r
        .iter()
        .map(|(k, _)| i16::from_be_bytes([k[0], k[1]]))
        .collect();
    assert_eq!(types, [5, 3, 7, 6, 8]);
    let b = c.heartbeat(hb("b", 0, Some(&[])), &topics, 2, &mut r);
    // b's partitions are still a's: b is at epoch 3 with nothing yet.
    assert_eq!((b.member_epoch, parts(&b)), (3, vec![]));
    assert_eq!(c.group("g").unwrap().state(), "Reconciling");
    let a = c.heartbeat(hb("a", 2, Some(&[0, 1, 2, 3])), &topics, 3, &mut r);
    assert_eq!((a.member_epoch, parts(&a)), (2, vec![0, 1]));
    // a acknowledges the revocation.
    let a = c.heartbeat(hb("a", 2, Some(&[0, 1])), &topics, 4, &mut r);
    assert_eq!(a.member_epoch, 3);
    let b = c.heartbeat(hb("b", 3, Some(&[])), &topics, 5, &mut r);
    assert_eq!((b.member_epoch, parts(&b)), (3, vec![2, 3]));
    assert_eq!(c.group("g").unwrap().state(), "Stable");
    // A stale epoch is fenced; the commit check answers STALE_MEMBER_EPOCH.
    assert_eq!(
        c.heartbeat(hb("b", 7, Some(&[2, 3])), &topics, 6, &mut r)
            .error,
        ResponseError::FencedMemberEpoch.code()
    );
    // b's partitions 2 and 3 were assigned at epoch 3: an epoch-2 commit of them is stale,
    // a newer epoch is refused whole, the current one passes.
    assert_eq!(
        c.validate_commit("g", "b", 2, 9, &[(Some(T), 2)]),
        Some(Ok(vec![Some(ResponseError::StaleMemberEpoch)]))
    );
    assert_eq!(
        c.validate_commit("g", "b", 4, 9, &[(Some(T), 2)]),
        Some(Err(ResponseError::StaleMemberEpoch))
    );
    assert_eq!(
        c.validate_commit("g", "b", 3, 8, &[(Some(T), 2)]),
        Some(Err(ResponseError::UnsupportedVersion))
    );
    assert_eq!(
        c.validate_commit("g", "b", 3, 9, &[(Some(T), 2)]),
        Some(Ok(vec![None]))
    );
    assert_eq!(
        c.validate_fetch("g", "b", 2),
        Err(ResponseError::StaleMemberEpoch)
    );
    assert_eq!(c.validate_fetch("g", "", -1), Ok(()));
    assert_eq!(
        c.validate_fetch("g", "x", 3),
        Err(ResponseError::UnknownMemberId)
    );
    let left = c.heartbeat(hb("b", LEAVE_EPOCH, None), &topics, 7, &mut r);
    assert_eq!((left.error, left.member_epoch), (0, -1));
    let a = c.heartbeat(hb("a", 3, Some(&[0, 1])), &topics, 8, &mut r);
    assert_eq!((a.member_epoch, parts(&a)), (4, vec![0, 1, 2, 3]));
    // Session timeout fences a; the group is empty at epoch 5 = assignment epoch.
    c.tick(8 + 45_000, &topics, &mut r);
    let g = c.group("g").unwrap();
    assert_eq!((g.state(), g.epoch, g.assignment_epoch), ("Empty", 5, 5));
}

#[test]
fn a_version_1_join_needs_a_member_id() {
    let mut c = ConsumerGroups::default();
    let out = c.heartbeat(hb("", 0, Some(&[])), &topics, 1, &mut Vec::new());
    assert_eq!(out.error, ResponseError::InvalidRequest.code());
}

#[test]
fn range_static_leave_and_errors() {
    let config = ConsumerGroupConfig {
        assignment_interval_ms: 0,
        ..Default::default()
    };
    let mut c = ConsumerGroups::new(config);
    let mut r = Vec::new();
    let join = |c: &mut ConsumerGroups, id: &str, instance: Option<&str>| {
        let mut h = hb(id, 0, Some(&[]));
        h.server_assignor = Some("range".into());
        h.instance_id = instance.map(str::to_string);
        c.heartbeat(h, &topics, 1, &mut Vec::new())
    };
    join(&mut c, "m1", Some("i1"));
    join(&mut c, "m2", None);
    let g = c.group("g").unwrap();
    assert_eq!(g.assignor(), "range");
    let target = |g: &ConsumerGroup, id: &str| -> Vec<i32> {
        g.target[id].values().flatten().copied().collect()
    };
    assert_eq!((target(g, "m1"), target(g, "m2")), (vec![0, 1], vec![2, 3]));
    // Unknown members and epochs from the future are refused.
    assert_eq!(
        c.heartbeat(hb("nobody", 5, Some(&[])), &topics, 2, &mut r)
            .error,
        ResponseError::UnknownMemberId.code()
    );
    assert_eq!(
        c.heartbeat(hb("m2", 99, Some(&[])), &topics, 2, &mut r)
            .error,
        ResponseError::FencedMemberEpoch.code()
    );
    // A second member of instance i1 waits until the first leaves with epoch -2.
    assert_eq!(
        join(&mut c, "m3", Some("i1")).error,
        ResponseError::UnreleasedInstanceId.code()
    );
    let mut leave = hb("m1", STATIC_LEAVE_EPOCH, None);
    leave.instance_id = Some("i1".into());
    assert_eq!(c.heartbeat(leave, &topics, 3, &mut r).member_epoch, -2);
    assert_eq!(c.group("g").unwrap().members()["m1"].epoch, -2);
    assert_eq!(join(&mut c, "m3", Some("i1")).error, 0);
    let g = c.group("g").unwrap();
    assert!(!g.members.contains_key("m1"));
    assert_eq!(g.members.len(), 2);
    // Unsupported assignors and regular expressions are refused.
    let mut h = hb("m4", 0, Some(&[]));
    h.server_assignor = Some("sticky".into());
    assert_eq!(
        c.heartbeat(h, &topics, 4, &mut r).error,
        ResponseError::UnsupportedAssignor.code()
    );
    let mut h = hb("m4", 0, Some(&[]));
    h.subscribed_topic_regex = Some("t.*".into());
    assert_eq!(
        c.heartbeat(h, &topics, 4, &mut r).error,
        ResponseError::InvalidRequest.code()
    );
}

/// The index a heartbeat reads instead of every member (subscriptions, assignors, partition
/// holders) is the one the members give at every step: joins, a revocation, a static leave and
/// a leave.
#[test]
fn the_member_index_follows_every_change() {
    let config = ConsumerGroupConfig {
        assignment_interval_ms: 0,
        ..Default::default()
    };
    let mut c = ConsumerGroups::new(config);
    let mut r = Vec::new();
    let check = |c: &ConsumerGroups| {
        let g = c.group("g").unwrap();
        assert_eq!(g.index, MemberIndex::of(&g.members));
    };
    let mut first = hb("a", 0, Some(&[]));
    first.server_assignor = Some("range".into());
    c.heartbeat(first, &topics, 1, &mut r);
    check(&c);
    let mut second = hb("b", 0, Some(&[]));
    second.instance_id = Some("static-b".into());
    c.heartbeat(second, &topics, 2, &mut r);
    check(&c);
    assert_eq!(c.group("g").unwrap().assignor(), "range");
    assert!(c.group("g").unwrap().is_subscribed_to("t"));
    c.heartbeat(hb("a", 2, Some(&[0, 1, 2, 3])), &topics, 3, &mut r);
    check(&c);
    c.heartbeat(hb("a", 2, Some(&[0, 1])), &topics, 4, &mut r);
    check(&c);
    let mut away = hb("b", STATIC_LEAVE_EPOCH, None);
    away.instance_id = Some("static-b".into());
    c.heartbeat(away, &topics, 5, &mut r);
    check(&c);
    c.heartbeat(hb("a", LEAVE_EPOCH, None), &topics, 6, &mut r);
    check(&c);
    assert_eq!(c.group("g").unwrap().assignor(), "uniform");
    c.tick(6 + 45_000, &topics, &mut r);
    check(&c);
    assert!(!c.group("g").unwrap().is_subscribed_to("t"));
}
