//! The mini-broker's network side over tokio: the listener, the periodic work's thread, clean
//! shutdown, and one task per connection that reads frames (`frame`) and answers them
//! (`dispatch`).
//!
//! Any request error (an undecodable frame, an unsupported version, a broker shutting down)
//! closes that connection only. Requests of one connection are answered in order, one at a
//! time, as Kafka does.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use bytes::Bytes;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use super::core::{Broker, CheckpointFiles, DueDeletions};
use super::dispatch::{self, RequestError};
use super::frame;
use super::metadata::PublishedFeatures;

// The limits and the API table, where they were before the split.
pub use super::dispatch::SUPPORTED;
pub use super::frame::{MAX_FRAME, MAX_OTHER_FRAME, MIN_FRAME, REQUEST_BUDGET, RESPONSE_BUDGET};
pub use super::handlers::fetch::FETCH_MAX_BYTES;

/// Bytes of an answer written at a time.
const WRITE_PIECE: usize = 64 * 1024;
/// The longest a peer may leave an answer unread (no byte taken) before its connection closes.
const WRITE_STALL_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug)]
pub struct ServerOptions {
    /// Bound before the broker opens its log dir, so that the port it registers in the metadata
    /// log is the one clients reach.
    pub listener: std::net::TcpListener,
    pub advertised_host: String,
}

pub(super) struct Shared {
    broker: Mutex<Broker>,
    /// The finalized features ApiVersions answers, read without `broker`.
    pub(super) features: Arc<Mutex<PublishedFeatures>>,
    /// Taken by the requests that add partitions (CreateTopics, CreatePartitions) for their
    /// whole run, so that they run one at a time, as Kafka's controller handles them, while
    /// their files are made without `broker`.
    pub(super) admin: tokio::sync::Mutex<()>,
    pub(super) host: String,
    pub(super) port: i32,
    pub(super) node_id: i32,
    pub(super) cluster_id: String,
    /// Holds requests' disk work at its start, for the tests that answer another request
    /// meanwhile ([`crate::testing::IoGate`]).
    #[cfg(test)]
    pub(super) io_gate: Mutex<Option<Arc<crate::testing::IoGate>>>,
    /// `KSEG_BROKER_DEBUG=1`: log every request.
    pub(super) debug: bool,
    /// [`REQUEST_BUDGET`] in permits of one byte.
    pub(super) budget: Semaphore,
    /// [`RESPONSE_BUDGET`] in permits of one byte: the records of fetch answers not yet
    /// written to their sockets.
    pub(super) responses: Semaphore,
}

impl Shared {
    pub(super) fn new(broker: Broker, host: String, port: i32, debug: bool) -> Self {
        Shared {
            node_id: broker.config.node_id,
            cluster_id: broker.meta.cluster_id.clone(),
            features: broker.metadata.published(),
            admin: tokio::sync::Mutex::new(()),
            broker: Mutex::new(broker),
            host,
            port,
            #[cfg(test)]
            io_gate: Mutex::new(None),
            debug,
            budget: Semaphore::new(REQUEST_BUDGET),
            responses: Semaphore::new(RESPONSE_BUDGET),
        }
    }

    /// The broker, handed back when no connection is left.
    pub(super) fn into_broker(self) -> Broker {
        self.broker.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `work` (disk work a request decided under the broker lock) on a
    /// blocking thread, without the lock, so that other connections' requests are answered
    /// meanwhile; a runtime shutting down closes the request's connection.
    pub(super) async fn off_lock<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, RequestError> {
        #[cfg(test)]
        let gate = self
            .io_gate
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let joined = tokio::task::spawn_blocking(move || {
            #[cfg(test)]
            {
                if let Some(gate) = gate {
                    gate.pass();
                }
            }
            work()
        })
        .await;
        match joined {
            Ok(done) => Ok(done),
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => Err(RequestError::ShuttingDown),
        }
    }

    /// The broker, unless it is shut down (then the request closes its connection).
    pub(super) fn broker(&self) -> Result<MutexGuard<'_, Broker>, RequestError> {
        let guard = self.broker.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_closed() {
            return Err(RequestError::ShuttingDown);
        }
        Ok(guard)
    }
}

/// Runs the broker until SIGINT or SIGTERM, then shuts it down cleanly.
pub fn run(broker: Broker, opts: ServerOptions) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(serve(broker, opts))
}

async fn serve(broker: Broker, opts: ServerOptions) -> anyhow::Result<()> {
    opts.listener.set_nonblocking(true)?;
    let listener = TcpListener::from_std(opts.listener).context("listening")?;
    let addr = listener.local_addr()?;
    let dir = broker.config.log_dir.clone();
    let debug = std::env::var_os("KSEG_BROKER_DEBUG").is_some_and(|v| v != "0");
    let port = addr.port() as i32;
    let shared = Arc::new(Shared::new(broker, opts.advertised_host, port, debug));
    // The signal handlers exist before "listening" is printed: a SIGTERM right after that line
    // is a clean stop, not the default action's death.
    let mut sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut sigint = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "kseg mini-broker listening on {addr} (log dir {})",
            dir.display()
        )?;
        out.flush()?;
    }
    let stop_scheduler = Arc::new(AtomicBool::new(false));
    let scheduler = start_scheduler(shared.clone(), stop_scheduler.clone())?;
    let mut last_accept_log: Option<Instant> = None;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                match accepted {
                    Ok((stream, peer)) => {
                        let _ = stream.set_nodelay(true);
                        tokio::spawn(connection(shared.clone(), stream, peer));
                    }
                    Err(e) => {
                        // EMFILE, ENFILE, ENOBUFS...: the error repeats at once until a
                        // descriptor frees up, so back off instead of spinning, logging at most
                        // once a second.
                        if last_accept_log.is_none_or(|t: Instant| t.elapsed() >= Duration::from_secs(1)) {
                            eprintln!("kseg mini-broker: accept failed: {e} (retrying in 100 ms)");
                            last_accept_log = Some(Instant::now());
                        }
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            }
            _ = sigint.recv() => break,
            _ = sigterm.recv() => break,
        }
    }
    stop_scheduler.store(true, Ordering::SeqCst);
    scheduler.thread().unpark();
    // Its removals and checkpoint writes under way finish first.
    let _ = scheduler.join();
    let mut b = shared.broker.lock().unwrap_or_else(|e| e.into_inner());
    b.shutdown()?;
    eprintln!("kseg mini-broker: stopped cleanly ({})", dir.display());
    Ok(())
}

/// The periodic work, every 100 ms, on a thread of its own, as Kafka's scheduler threads
/// (`KafkaScheduler`) run beside its request handlers: waiting for the broker lock never holds a
/// runtime worker that other connections' requests need. The state's part runs under the lock;
/// the files' part (removals whose delay is over, the checkpoint writes) after it.
fn start_scheduler(
    shared: Arc<Shared>,
    stop: Arc<AtomicBool>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    const PERIOD: Duration = Duration::from_millis(100);
    std::thread::Builder::new()
        .name("kseg-scheduler".into())
        .spawn(move || {
            let mut next = Instant::now() + PERIOD;
            let mut last_hw_checkpoint = Instant::now();
            let mut last_offsets_checkpoint = Instant::now();
            loop {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                let now = Instant::now();
                if now < next {
                    std::thread::park_timeout(next - now);
                    continue;
                }
                // A late round is not made up for.
                next = (next + PERIOD).max(now);
                // Kafka's cadences: high watermarks every 5 s, recovery points and log start
                // offsets every 60 s.
                let hw = last_hw_checkpoint.elapsed() >= Duration::from_secs(5);
                let offsets = last_offsets_checkpoint.elapsed() >= Duration::from_secs(60);
                if hw {
                    last_hw_checkpoint = Instant::now();
                }
                if offsets {
                    last_offsets_checkpoint = Instant::now();
                }
                let (due, checkpoints) = {
                    let Ok(mut b) = shared.broker() else { return };
                    let due = b.tick().unwrap_or_else(|e| {
                        eprintln!(
                            "kseg mini-broker: periodic work failed: {}",
                            kseg_escape::escaped(&e.to_string())
                        );
                        DueDeletions::default()
                    });
                    let checkpoints = (hw || offsets).then(|| b.checkpoint_files(offsets, hw));
                    (due, checkpoints)
                };
                if let Err(e) = due.remove() {
                    eprintln!("kseg mini-broker: removing deleted files failed: {e}");
                }
                if let Some(Err(e)) = checkpoints.map(CheckpointFiles::write) {
                    eprintln!("kseg mini-broker: writing checkpoints failed: {e}");
                }
            }
        })
}

async fn connection(shared: Arc<Shared>, stream: TcpStream, peer: SocketAddr) {
    let (rd, wr) = stream.into_split();
    serve_stream(&shared, rd, wr, peer).await;
}

/// Fuzzing entry (`fuzz/fuzz_targets/broker.rs`): `input` as everything one client sent on a
/// connection, framed, budgeted and answered exactly as a TCP connection is (responses are
/// discarded), against `broker`, which is handed back. A connection still open after `budget`
/// (a fetch's long poll, a join waiting for its group) is ended. The budget is wall time and
/// also covers the requests' disk work (CreateTopics makes its files on a blocking thread): a
/// fuzzer wants it short, a replay of seeds on a loaded machine long enough for that work.
#[doc(hidden)]
pub fn fuzz_connection(broker: Broker, input: &[u8], budget: Duration) -> Broker {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime");
    let shared = Shared::new(broker, "127.0.0.1".into(), 9092, false);
    let peer: SocketAddr = "127.0.0.1:1".parse().expect("an address");
    let session = serve_stream(&shared, input, tokio::io::sink(), peer);
    let _ = rt.block_on(async { tokio::time::timeout(budget, session).await });
    shared.into_broker()
}

/// Reads frames from `rd` and answers them on `wr` until the peer goes or misbehaves.
async fn serve_stream<R, W>(shared: &Shared, mut rd: R, mut wr: W, peer: SocketAddr)
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    loop {
        let Some((frame, _permit)) = frame::read(shared, &mut rd, peer).await else {
            return;
        };
        match dispatch::request(shared, Bytes::from(frame), peer).await {
            Ok(Some(reply)) => {
                // The answer is written as the peer reads it; one that takes no byte for
                // WRITE_STALL_TIMEOUT closes the connection (and frees its budget share).
                for piece in reply.pieces.iter().flat_map(|p| p.chunks(WRITE_PIECE)) {
                    match tokio::time::timeout(WRITE_STALL_TIMEOUT, wr.write_all(piece)).await {
                        Ok(Ok(())) => {}
                        Ok(Err(_)) => return,
                        Err(_) => {
                            eprintln!(
                                "kseg mini-broker: {peer}: an answer was not read for {WRITE_STALL_TIMEOUT:?}: closing the connection"
                            );
                            return;
                        }
                    }
                }
            }
            Ok(None) => {}
            Err(e) => {
                // Client bytes (names, strings) may be in the message: one line, escaped.
                eprintln!(
                    "kseg mini-broker: {peer}: {}: closing the connection",
                    kseg_escape::escaped(&e.to_string())
                );
                return;
            }
        }
    }
}
