//! The mini-broker's request framing and dispatch: the input is everything one client sent on
//! a connection (length-prefixed frames, headers, request bodies), served against one broker
//! kept across runs in a temporary log dir. Nothing may panic, abort or allocate without bound.
#![no_main]
use std::sync::Mutex;

use kseg::broker::core::{Broker, BrokerConfig};
use kseg::broker::server::fuzz_connection;
use libfuzzer_sys::fuzz_target;

static BROKER: Mutex<Option<(tempfile::TempDir, Broker)>> = Mutex::new(None);

fuzz_target!(|data: &[u8]| {
    let mut guard = BROKER.lock().unwrap_or_else(|e| e.into_inner());
    let (dir, broker) = guard.take().unwrap_or_else(|| {
        let dir = tempfile::tempdir().expect("a temporary dir");
        let mut config = BrokerConfig::new(dir.path().join("data"));
        config.offsets_topic_partitions = 2;
        config.transaction_topic_partitions = 2;
        let (broker, _) = Broker::open(config).expect("a fresh broker");
        (dir, broker)
    });
    let broker = fuzz_connection(broker, data, std::time::Duration::from_millis(50));
    *guard = Some((dir, broker));
});
