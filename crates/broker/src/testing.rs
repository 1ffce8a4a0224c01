//! The in-process test seam: a broker on a temp dir, asked typed requests through the very
//! dispatch a connection uses (header decoded, version checked, body decoded, answer framed),
//! with no socket and no process. Requests are encoded and answers decoded with kafka-protocol's
//! client-side messages, so a test speaks the wire at any version, as a client would.
//!
//! [`TestBroker::restart`] stops the broker cleanly and opens the same dir again (what was kept
//! on disk), [`TestBroker::restart_after_crash`] without the clean stop; [`TestBroker::broker`]
//! hands the broker itself to a test that wants to look inside or set a state up directly;
//! [`TestBroker::ask_during`] answers a request while another's disk work is held ([`IoGate`]).

use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use kafka_protocol::messages::{ApiKey, RequestHeader, ResponseHeader};
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion, Request, StrBytes};

use crate::core::{Broker, BrokerConfig};
use crate::dispatch;
use crate::server::Shared;

/// What a request got: its framed answer, none (acks=0), or a closed connection.
#[derive(Debug)]
pub(crate) enum Outcome {
    Answer(Bytes),
    NoAnswer,
    Closed(String),
}

pub(crate) struct TestBroker {
    /// Removed with the broker.
    _dir: tempfile::TempDir,
    config: BrokerConfig,
    shared: Option<Shared>,
    runtime: tokio::runtime::Runtime,
    correlation: i32,
}

impl TestBroker {
    /// A broker with the defaults a test wants: one partition per internal topic (Kafka's 50
    /// would only make files), everything else as `mini-broker` starts.
    pub(crate) fn start() -> TestBroker {
        Self::start_with(|_| {})
    }

    /// A broker whose config `adjust` changes first.
    pub(crate) fn start_with(adjust: impl FnOnce(&mut BrokerConfig)) -> TestBroker {
        let dir = tempfile::tempdir().expect("a temp dir");
        let mut config = BrokerConfig::new(dir.path().join("data"));
        config.offsets_topic_partitions = 1;
        config.transaction_topic_partitions = 1;
        config.listener = Some(("127.0.0.1".into(), 9092));
        adjust(&mut config);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a current-thread runtime");
        let mut test = TestBroker {
            _dir: dir,
            config,
            shared: None,
            runtime,
            correlation: 0,
        };
        test.open();
        test
    }

    fn open(&mut self) {
        let (broker, _) = Broker::open(self.config.clone()).expect("the broker opens");
        self.shared = Some(Shared::new(broker, "127.0.0.1".into(), 9092, false));
    }

    fn shared(&self) -> &Shared {
        self.shared.as_ref().expect("the broker is open")
    }

    /// The broker itself, for a test that sets a state up or looks at one directly.
    pub(crate) fn broker(&self) -> MutexGuard<'_, Broker> {
        self.shared()
            .broker()
            .unwrap_or_else(|e| panic!("the broker: {e}"))
    }

    /// Shuts the broker down cleanly and opens the same log dir again.
    pub(crate) fn restart(&mut self) {
        let shared = self.shared.take().expect("the broker is open");
        let mut broker = shared.into_broker();
        broker.shutdown().expect("a clean shutdown");
        drop(broker);
        self.open();
    }

    /// Drops the broker without its clean shutdown (as a killed process leaves the dir: no
    /// clean-shutdown marker, no last checkpoints) and opens the same log dir again.
    pub(crate) fn restart_after_crash(&mut self) {
        let shared = self.shared.take().expect("the broker is open");
        drop(shared.into_broker());
        self.open();
    }

    /// Sends `request` at `version` and decodes the answer; panics when the broker closes the
    /// connection or does not answer.
    pub(crate) fn ask<R: Request>(&mut self, version: i16, request: &R) -> R::Response {
        let key = ApiKey::try_from(R::KEY).expect("a known api key");
        match self.send(key, version, version, request) {
            Outcome::Answer(bytes) => self.decode::<R::Response>(key, version, bytes),
            other => panic!("{key:?} v{version}: no answer: {other:?}"),
        }
    }

    /// Sends `request` at `version`: the answer decoded, the bytes its pieces hold (a piece
    /// shared between repeats counted once) and the answer's length on the wire.
    pub(crate) fn ask_held<R: Request>(
        &mut self,
        version: i16,
        request: &R,
    ) -> (R::Response, usize, usize) {
        let key = ApiKey::try_from(R::KEY).expect("a known api key");
        let frame = self.frame(key, version, version, request);
        let shared = self.shared.as_ref().expect("the broker is open");
        let reply = match self
            .runtime
            .block_on(dispatch::request(shared, frame, peer()))
        {
            Ok(Some(reply)) => reply,
            _ => panic!("{key:?} v{version}: no answer"),
        };
        let mut seen = std::collections::HashSet::new();
        let held = reply
            .pieces
            .iter()
            .filter(|p| seen.insert((p.as_ptr(), p.len())))
            .map(|p| p.len())
            .sum();
        let bytes = Bytes::from(reply.pieces.concat());
        let length = bytes.len();
        (self.decode(key, version, bytes), held, length)
    }

    /// Sends `request`, encoded at `body_version`, in a header saying `header_version`: what
    /// became of it, undecoded.
    pub(crate) fn send<R: Encodable + HeaderVersion>(
        &mut self,
        key: ApiKey,
        header_version: i16,
        body_version: i16,
        request: &R,
    ) -> Outcome {
        let frame = self.frame(key, header_version, body_version, request);
        let shared = self.shared.as_ref().expect("the broker is open");
        let answer = self
            .runtime
            .block_on(dispatch::request(shared, frame, peer()));
        outcome(answer)
    }

    /// `request` framed with the next correlation id.
    fn frame<R: Encodable + HeaderVersion>(
        &mut self,
        key: ApiKey,
        header_version: i16,
        body_version: i16,
        request: &R,
    ) -> Bytes {
        self.correlation += 1;
        let header = RequestHeader::default()
            .with_request_api_key(key as i16)
            .with_request_api_version(header_version)
            .with_correlation_id(self.correlation)
            .with_client_id(Some(StrBytes::from_static_str("kseg-seam")));
        let mut frame = BytesMut::new();
        header
            .encode(&mut frame, R::header_version(body_version))
            .expect("a request header");
        request
            .encode(&mut frame, body_version)
            .expect("a request body");
        frame.freeze()
    }

    /// Sends `first`; once its disk work is on a blocking thread, held there by an [`IoGate`]
    /// (the broker lock free), sends `second`, whose answer must come while the first waits;
    /// then lets the first's work through. Both answers, decoded.
    pub(crate) fn ask_during<A: Request, B: Request>(
        &mut self,
        first_version: i16,
        first: &A,
        second_version: i16,
        second: &B,
    ) -> (A::Response, B::Response) {
        let first_key = ApiKey::try_from(A::KEY).expect("a known api key");
        let second_key = ApiKey::try_from(B::KEY).expect("a known api key");
        let first_frame = self.frame(first_key, first_version, first_version, first);
        let first_correlation = self.correlation;
        let second_frame = self.frame(second_key, second_version, second_version, second);
        let second_correlation = self.correlation;
        let gate = Arc::new(IoGate::default());
        let shared = self.shared.as_ref().expect("the broker is open");
        *shared.io_gate.lock().unwrap() = Some(gate.clone());
        let (first_answer, second_answer) = self.runtime.block_on(async {
            let first = dispatch::request(shared, first_frame, peer());
            tokio::pin!(first);
            tokio::select! {
                biased;
                done = &mut first => panic!(
                    "{first_key:?} was answered without disk work to hold: {:?}",
                    done.map(|r| r.is_some())
                ),
                () = gate.arrived.notified() => {}
            }
            let second = tokio::time::timeout(
                Duration::from_secs(10),
                dispatch::request(shared, second_frame, peer()),
            )
            .await
            .unwrap_or_else(|_| panic!("{second_key:?} waited for {first_key:?}'s disk work"));
            gate.open();
            (first.await, second)
        });
        *shared.io_gate.lock().unwrap() = None;
        let answer = |outcome: Outcome, key: ApiKey| match outcome {
            Outcome::Answer(bytes) => bytes,
            other => panic!("{key:?}: no answer: {other:?}"),
        };
        let second_bytes = answer(outcome(second_answer), second_key);
        let first_bytes = answer(outcome(first_answer), first_key);
        (
            decode_answer(first_key, first_version, first_bytes, first_correlation),
            decode_answer(second_key, second_version, second_bytes, second_correlation),
        )
    }

    /// A framed answer to the request sent last, decoded as `T` at `version`.
    pub(crate) fn decode<T: Decodable + HeaderVersion>(
        &self,
        key: ApiKey,
        version: i16,
        bytes: Bytes,
    ) -> T {
        decode_answer(key, version, bytes, self.correlation)
    }
}

/// A framed answer to the request with `correlation`, decoded as `T` at `version`.
fn decode_answer<T: Decodable + HeaderVersion>(
    key: ApiKey,
    version: i16,
    mut bytes: Bytes,
    correlation: i32,
) -> T {
    let length = bytes.get_i32();
    assert_eq!(length as usize, bytes.remaining(), "{key:?}: frame length");
    let header = ResponseHeader::decode(&mut bytes, T::header_version(version)).expect("a header");
    assert_eq!(header.correlation_id, correlation, "{key:?}: correlation");
    let response = T::decode(&mut bytes, version).expect("a response");
    assert_eq!(bytes.remaining(), 0, "{key:?} v{version}: bytes left over");
    response
}

fn peer() -> SocketAddr {
    "127.0.0.1:1".parse().expect("an address")
}

fn outcome(answer: dispatch::Handled<Option<dispatch::Reply<'_>>>) -> Outcome {
    match answer {
        Ok(Some(reply)) => Outcome::Answer(Bytes::from(reply.pieces.concat())),
        Ok(None) => Outcome::NoAnswer,
        Err(e) => Outcome::Closed(e.to_string()),
    }
}

/// Holds the disk work requests hand to blocking threads (`Shared::off_lock`) at its start,
/// until [`Self::open`]: what lets a test answer a request while another's I/O is pending,
/// deterministically.
#[derive(Default)]
pub(crate) struct IoGate {
    open: Mutex<bool>,
    opened: Condvar,
    /// Told when a piece of disk work reaches the gate.
    arrived: tokio::sync::Notify,
}

impl IoGate {
    /// On the blocking thread: reports the work, and waits for the gate to open.
    pub(crate) fn pass(&self) {
        self.arrived.notify_one();
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }
}

impl Drop for TestBroker {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            let _ = shared.into_broker().shutdown();
        }
    }
}

/// A Kafka name from text.
pub(crate) fn text(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}
