//! kseg's command-line tests in one binary (one link, shared helpers in tests/common).

mod closed_pipe;
#[path = "../common/mod.rs"]
mod common;
mod completions;
mod corpus;
mod diff_unreadable;
mod dump_log_cli;
mod dump_log_evidence;
mod find_group_partition;
mod fuzz_replay;
mod golden;
mod grep;
mod groups;
mod groups_hostile;
mod honest_tests;
mod hostile_dirs;
mod hostile_files;
mod internal_topics_corpus;
mod kafka_python_roundtrip;
mod layers;
mod live_broker;
mod lookup;
mod lookup_fds;
mod odd_input;
mod pieces;
mod progress;
mod read_once;
mod recover;
mod rescue_inputs;
mod retention;
mod shipping;
mod summary_cli;
mod terminal_width;
mod times;
mod transactions;
mod verify_index;
