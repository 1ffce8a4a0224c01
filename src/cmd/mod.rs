//! One small module per subcommand, wiring storage, analyses and printers together.

pub mod completions;
pub mod dump_log;
pub mod find_group_partition;
pub mod groups;
pub mod lookup;
pub mod mini_broker;
pub mod recover;
pub mod summary;
pub mod transactions;
pub mod verify_index;

use std::io;

/// Exit codes shared by every command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything read cleanly.
    Clean = 0,
    /// The data has problems (bad CRCs, torn tails, undecodable files).
    DataProblems = 1,
    /// kseg could not do what was asked (usage, unreadable or non-Kafka path).
    Failed = 2,
}

impl Outcome {
    pub fn worst(self, other: Outcome) -> Outcome {
        if (other as i32) > (self as i32) {
            other
        } else {
            self
        }
    }
}

/// Whether an error (anywhere in its chain) is a closed stdout, as in `kseg ... | head`: an
/// `io::Error` of kind `BrokenPipe`, also when a JSON serializer or another `io::Error` carries it.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(error_is_broken_pipe)
}

fn error_is_broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    if let Some(io) = e.downcast_ref::<io::Error>() {
        return io.kind() == io::ErrorKind::BrokenPipe
            || io
                .get_ref()
                .is_some_and(|inner| error_is_broken_pipe(inner));
    }
    if let Some(json) = e.downcast_ref::<serde_json::Error>() {
        return json.io_error_kind() == Some(io::ErrorKind::BrokenPipe);
    }
    false
}
