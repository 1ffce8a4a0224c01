//! Produce: appends as leader (the checks are [`crate::core::Broker::produce`]'s).

use kafka_protocol::messages::*;
use kafka_protocol::ResponseError;

use super::coded;
use crate::dispatch::Handled;
use crate::server::Shared;
use crate::BrokerError;

pub(crate) fn produce(shared: &Shared, req: ProduceRequest) -> Handled<ProduceResponse> {
    let mut b = shared.broker()?;
    let acks_ok = matches!(req.acks, -1..=1);
    let mut responses = Vec::new();
    for t in req.topic_data {
        let name = if t.name.is_empty() {
            b.topic_by_id(t.topic_id.as_bytes())
                .map(|t| t.name.clone())
                .unwrap_or_default()
        } else {
            t.name.as_str().to_string()
        };
        let mut parts = Vec::new();
        for p in t.partition_data {
            let mut r = produce_response::PartitionProduceResponse::default()
                .with_index(p.index)
                .with_base_offset(-1)
                .with_log_append_time_ms(-1)
                .with_log_start_offset(-1);
            let result = if acks_ok {
                let records = p.records.map(|r| r.to_vec()).unwrap_or_default();
                b.produce(&name, p.index, records)
            } else {
                // KafkaApis answers an unknown partition before ReplicaManager looks at acks.
                b.partition(&name, p.index).and_then(|_| {
                    Err(BrokerError::new(
                        ResponseError::InvalidRequiredAcks,
                        "acks must be -1, 0 or 1",
                    ))
                })
            };
            match result {
                Ok(info) => {
                    r.base_offset = info.base_offset;
                    r.log_append_time_ms = info.log_append_time;
                    r.log_start_offset = b
                        .partition(&name, p.index)
                        .map(|l| l.log_start_offset)
                        .unwrap_or(-1);
                }
                Err(e) => {
                    (r.error_code, r.error_message) = coded(&e);
                    // LogAppendResult.errorMessage: Kafka answers a message only for a record
                    // that fails validation (RecordValidationException).
                    let validation = [
                        ResponseError::InvalidRecord.code(),
                        ResponseError::InvalidTimestamp.code(),
                    ];
                    if !validation.contains(&r.error_code) {
                        r.error_message = None;
                    }
                }
            }
            parts.push(r);
        }
        responses.push(
            produce_response::TopicProduceResponse::default()
                .with_name(t.name)
                .with_topic_id(t.topic_id)
                .with_partition_responses(parts),
        );
    }
    Ok(ProduceResponse::default().with_responses(responses))
}
