//! Analyses over decoded data: summaries now; verification, lookups and group state later.

pub mod groups;
pub mod lookup;
pub mod partition_for;
pub mod recovery;
pub mod summary;
pub mod transactions;
pub mod verify;
