//! DeleteGroups.

use kafka_protocol::messages::*;

use crate::broker::server::Shared;

pub(super) fn delete_groups(
    shared: &Shared,
    req: DeleteGroupsRequest,
) -> Result<DeleteGroupsResponse, String> {
    let mut b = shared.broker()?;
    let mut results = Vec::new();
    for id in req.groups_names {
        let group = id.as_str().to_string();
        let mut records = Vec::new();
        // A KIP-848 group: its offsets' tombstones, then its own (no GroupMetadata record).
        let mut own = Vec::new();
        let consumer = b.consumer_groups.delete_group(&group, &mut own);
        let result = match consumer {
            Some(Err(e)) => Err(e),
            Some(Ok(())) => {
                let mut offsets = Vec::new();
                let _ = b.groups.delete_group(&group, &mut offsets);
                records.extend(
                    offsets
                        .into_iter()
                        .filter(|(k, _)| k[..2] == 1i16.to_be_bytes()),
                );
                records.extend(own);
                Ok(())
            }
            None => b.groups.delete_group(&group, &mut records),
        };
        let code = match result {
            Err(e) => e.code(),
            Ok(()) => match b.write_group_records(&group, &records) {
                Ok(()) => 0,
                Err(e) => e.code(),
            },
        };
        results.push(
            delete_groups_response::DeletableGroupResult::default()
                .with_group_id(id)
                .with_error_code(code),
        );
    }
    Ok(DeleteGroupsResponse::default().with_results(results))
}
