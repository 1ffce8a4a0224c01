//! The classic group protocol's refusals (`GroupMetadataManager`'s classic group paths): a
//! member the group does not know, a generation it is not at, a group that is not there.

use kafka_protocol::messages::delete_groups_request::DeleteGroupsRequest;
use kafka_protocol::messages::join_group_request::JoinGroupRequestProtocol;
use kafka_protocol::messages::leave_group_request::MemberIdentity;
use kafka_protocol::messages::{
    HeartbeatRequest, JoinGroupRequest, LeaveGroupRequest, SyncGroupRequest,
};
use kafka_protocol::ResponseError;

use super::{code, create_topic, find_coordinator, join_classic_group, subscription};
use crate::testing::{text, TestBroker};

fn join(
    group: &str,
    member: &str,
    protocol_type: &str,
    session_timeout_ms: i32,
) -> JoinGroupRequest {
    JoinGroupRequest::default()
        .with_group_id(text(group).into())
        .with_session_timeout_ms(session_timeout_ms)
        .with_rebalance_timeout_ms(30_000)
        .with_member_id(text(member))
        .with_protocol_type(text(protocol_type))
        .with_protocols(vec![JoinGroupRequestProtocol::default()
            .with_name(text("range"))
            .with_metadata(subscription(&["orders"]))])
}

fn heartbeat(broker: &mut TestBroker, group: &str, member: &str, generation: i32) -> i16 {
    let request = HeartbeatRequest::default()
        .with_group_id(text(group).into())
        .with_generation_id(generation)
        .with_member_id(text(member));
    broker.ask(4, &request).error_code
}

fn sync(broker: &mut TestBroker, group: &str, member: &str, generation: i32) -> i16 {
    let request = SyncGroupRequest::default()
        .with_group_id(text(group).into())
        .with_generation_id(generation)
        .with_member_id(text(member))
        .with_protocol_type(Some(text("consumer")))
        .with_protocol_name(Some(text("range")));
    broker.ask(5, &request).error_code
}

/// A broker with `orders` and the group `g` of one member: its id and generation.
fn broker_with_group() -> (TestBroker, String, i32) {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    let (member, generation) = join_classic_group(&mut broker, "g", &["orders"]);
    (broker, member, generation)
}

#[test]
fn join_group_errors() {
    let (mut broker, _, _) = broker_with_group();
    let unknown = code(ResponseError::UnknownMemberId);
    // A member id the group never gave, to the group and to a group that is not there.
    let answer = broker.ask(5, &join("g", "ghost", "consumer", 30_000));
    assert_eq!(answer.error_code, unknown, "{answer:?}");
    let answer = broker.ask(5, &join("nowhere", "ghost", "consumer", 30_000));
    assert_eq!(answer.error_code, unknown, "{answer:?}");
    // group.min.session.timeout.ms is 6 s, group.max.session.timeout.ms 30 min.
    for timeout in [5_999, 1_800_001] {
        let answer = broker.ask(5, &join("g", "", "consumer", timeout));
        assert_eq!(
            answer.error_code,
            code(ResponseError::InvalidSessionTimeout),
            "{answer:?}"
        );
    }
    let answer = broker.ask(5, &join("g", "", "connect", 30_000));
    assert_eq!(
        answer.error_code,
        code(ResponseError::InconsistentGroupProtocol),
        "{answer:?}"
    );
    let answer = broker.ask(5, &join("", "", "consumer", 30_000));
    assert_eq!(
        answer.error_code,
        code(ResponseError::InvalidGroupId),
        "{answer:?}"
    );
}

#[test]
fn sync_group_errors() {
    let (mut broker, member, generation) = broker_with_group();
    let unknown = code(ResponseError::UnknownMemberId);
    assert_eq!(sync(&mut broker, "g", "ghost", generation), unknown);
    assert_eq!(sync(&mut broker, "nowhere", &member, generation), unknown);
    assert_eq!(
        sync(&mut broker, "g", &member, generation + 1),
        code(ResponseError::IllegalGeneration)
    );
    // A protocol type or name other than the group's (`ClassicGroup.isInSameProtocol…`).
    let request = SyncGroupRequest::default()
        .with_group_id(text("g").into())
        .with_generation_id(generation)
        .with_member_id(text(&member))
        .with_protocol_type(Some(text("connect")))
        .with_protocol_name(Some(text("range")));
    assert_eq!(
        broker.ask(5, &request).error_code,
        code(ResponseError::InconsistentGroupProtocol)
    );
    let request = request
        .with_protocol_type(Some(text("consumer")))
        .with_protocol_name(Some(text("roundrobin")));
    assert_eq!(
        broker.ask(5, &request).error_code,
        code(ResponseError::InconsistentGroupProtocol)
    );
    assert_eq!(sync(&mut broker, "g", &member, generation), 0);
}

#[test]
fn heartbeat_errors() {
    let (mut broker, member, generation) = broker_with_group();
    let unknown = code(ResponseError::UnknownMemberId);
    assert_eq!(heartbeat(&mut broker, "g", "ghost", generation), unknown);
    assert_eq!(
        heartbeat(&mut broker, "nowhere", &member, generation),
        unknown
    );
    assert_eq!(
        heartbeat(&mut broker, "g", &member, generation - 1),
        code(ResponseError::IllegalGeneration)
    );
    assert_eq!(heartbeat(&mut broker, "g", &member, generation), 0);
}

#[test]
fn leave_group_unknown_member() {
    let (mut broker, member, _) = broker_with_group();
    let request = LeaveGroupRequest::default()
        .with_group_id(text("g").into())
        .with_members(vec![
            MemberIdentity::default().with_member_id(text("ghost")),
            MemberIdentity::default().with_member_id(text(&member)),
        ]);
    let answer = broker.ask(5, &request);
    assert_eq!(answer.error_code, 0, "{answer:?}");
    let codes: Vec<i16> = answer.members.iter().map(|m| m.error_code).collect();
    assert_eq!(codes, [code(ResponseError::UnknownMemberId), 0]);
}

#[test]
fn delete_groups_errors() {
    let (mut broker, _, _) = broker_with_group();
    find_coordinator(&mut broker, 0, "nowhere");
    let request = DeleteGroupsRequest::default()
        .with_groups_names(vec![text("g").into(), text("nowhere").into()]);
    let answer = broker.ask(2, &request);
    let codes: Vec<(&str, i16)> = answer
        .results
        .iter()
        .map(|r| (r.group_id.as_str(), r.error_code))
        .collect();
    assert_eq!(
        codes,
        [
            ("g", code(ResponseError::NonEmptyGroup)),
            ("nowhere", code(ResponseError::GroupIdNotFound)),
        ]
    );
}

#[test]
fn describe_and_list_groups_of_unknown_things() {
    use kafka_protocol::messages::{DescribeGroupsRequest, ListGroupsRequest};
    let (mut broker, _, _) = broker_with_group();
    // Up to v5, a group that is not there is described Dead, with no error.
    let request = DescribeGroupsRequest::default().with_groups(vec![text("nowhere").into()]);
    let answer = broker.ask(5, &request);
    let described = &answer.groups[0];
    assert_eq!(described.error_code, 0, "{answer:?}");
    assert_eq!(described.group_state.as_str(), "Dead");
    assert!(described.members.is_empty());
    // A state or type filter nobody matches lists nothing.
    let request = ListGroupsRequest::default().with_states_filter(vec![text("Sleeping")]);
    assert!(broker.ask(5, &request).groups.is_empty());
    let request = ListGroupsRequest::default().with_types_filter(vec![text("share")]);
    assert!(broker.ask(5, &request).groups.is_empty());
    assert_eq!(broker.ask(5, &ListGroupsRequest::default()).groups.len(), 1);
}

#[test]
fn leave_group_of_an_unknown_group() {
    let mut broker = TestBroker::start();
    find_coordinator(&mut broker, 0, "nowhere");
    let request = LeaveGroupRequest::default()
        .with_group_id(text("nowhere").into())
        .with_members(vec![MemberIdentity::default().with_member_id(text("ghost"))]);
    let answer = broker.ask(5, &request);
    // The whole request fails (LeaveGroupRequest.getErrorResponse): no members.
    assert_eq!(
        answer.error_code,
        code(ResponseError::UnknownMemberId),
        "{answer:?}"
    );
    assert!(answer.members.is_empty(), "{answer:?}");
}

#[test]
fn an_empty_group_id_is_invalid() {
    use kafka_protocol::messages::offset_commit_request::{
        OffsetCommitRequestPartition, OffsetCommitRequestTopic,
    };
    use kafka_protocol::messages::OffsetCommitRequest;
    let (mut broker, member, generation) = broker_with_group();
    // GroupCoordinatorService: isGroupIdNotEmpty before anything.
    let invalid = code(ResponseError::InvalidGroupId);
    assert_eq!(heartbeat(&mut broker, "", &member, generation), invalid);
    assert_eq!(sync(&mut broker, "", &member, generation), invalid);
    let request = OffsetCommitRequest::default()
        .with_group_id(text("").into())
        .with_generation_id_or_member_epoch(-1)
        .with_topics(vec![OffsetCommitRequestTopic::default()
            .with_name(super::topic("orders"))
            .with_partitions(vec![OffsetCommitRequestPartition::default()
                .with_partition_index(0)
                .with_committed_offset(1)])]);
    let answer = broker.ask(8, &request);
    assert_eq!(answer.topics[0].partitions[0].error_code, invalid);
    let request = LeaveGroupRequest::default()
        .with_group_id(text("").into())
        .with_members(vec![MemberIdentity::default().with_member_id(text(&member))]);
    assert_eq!(broker.ask(5, &request).error_code, invalid);
    // DeleteGroups takes the empty id, for backwards compatibility: no such group.
    let request = DeleteGroupsRequest::default().with_groups_names(vec![text("").into()]);
    assert_eq!(
        broker.ask(2, &request).results[0].error_code,
        code(ResponseError::GroupIdNotFound)
    );
}
