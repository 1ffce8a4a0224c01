//! Analyses over decoded data: summaries, verification and recovery, lookups, group and
//! transaction state.

pub mod diff;
pub mod dump;
pub mod expiry;
pub mod fault;
pub mod gaps;
pub mod grep;
pub mod group_records;
pub mod group_report;
pub mod groups;
pub mod index_check;
pub mod load;
pub mod log_dir_load;
pub mod lookup;
pub mod partition_for;
pub mod partitioner;
pub mod producer_load;
pub mod rebalances;
pub mod recovery;
pub mod rescue;
pub mod rescue_map;
pub mod severity;
pub mod summary;
pub mod topic_configs;
pub mod transactions;
pub mod verify;
