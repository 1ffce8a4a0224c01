//! DescribeCluster (`KafkaApis.handleDescribeCluster` of a broker).

use kafka_protocol::messages::*;
use kafka_protocol::ResponseError;

use super::CLUSTER_OPERATIONS;
use crate::broker::server::{s, Shared};

/// `EndpointType.BROKER`.
const BROKER_ENDPOINT: i8 = 1;

pub(super) fn describe_cluster(
    shared: &Shared,
    req: DescribeClusterRequest,
) -> DescribeClusterResponse {
    let resp = DescribeClusterResponse::default()
        .with_endpoint_type(BROKER_ENDPOINT)
        .with_cluster_id(s(&shared.cluster_id))
        .with_cluster_authorized_operations(i32::MIN);
    // v1+: a broker answers for broker endpoints only.
    if req.endpoint_type != BROKER_ENDPOINT {
        return resp
            .with_error_code(ResponseError::MismatchedEndpointType.code())
            .with_error_message(Some(s(&format!(
                "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type {}",
                if req.endpoint_type == 2 { "CONTROLLER" } else { "UNKNOWN" }
            ))));
    }
    resp.with_controller_id(shared.node_id.into())
        .with_brokers(vec![
            describe_cluster_response::DescribeClusterBroker::default()
                .with_broker_id(shared.node_id.into())
                .with_host(s(&shared.host))
                .with_port(shared.port),
        ])
        .with_cluster_authorized_operations(if req.include_cluster_authorized_operations {
            CLUSTER_OPERATIONS
        } else {
            i32::MIN
        })
}
