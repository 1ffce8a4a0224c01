//! The storage layer: finding files in data dirs and reading them, read-only.

pub mod discover;
pub mod layout;
pub mod paged_index;
pub mod source;
