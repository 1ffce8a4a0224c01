//! The mini-broker's tests in one binary, with real clients (tests/mini_broker_support).

mod admin;
mod admin_apis;
#[path = "../common/mod.rs"]
mod common;
mod configs;
mod crash;
mod diff_cli;
mod evidence;
mod files;
mod hostile;
mod kcat;
mod kip848;
mod kraft;
mod log_lines;
#[path = "../mini_broker_support/mod.rs"]
mod mini_broker_support;
mod python;
mod refusals;
mod rescue;
mod rescue_groups;
mod rescue_reruns;
mod stall;
