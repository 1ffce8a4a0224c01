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
        let code = match b.groups.delete_group(&group, &mut records) {
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
