//! The Kafka oracle tests in one binary: the real broker, tools and clients (oracle/setup)
//! against kseg. Helpers in harness.rs.

mod admin_apis;
mod checkpoints;
mod compact;
mod configs;
mod crash;
mod diff;
mod grep_keys;
mod group_history;
mod harness;
mod kip848;
mod mini_broker;
mod older_dump;
mod open_transaction;
mod parity;
mod rescue;
mod retention;
mod shape;
