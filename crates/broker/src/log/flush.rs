//! The flush of a rolled segment, off the append path, as Kafka's `UnifiedLog.roll` does it: the
//! roll itself (seal, new segment, producer snapshot written unsynced) runs under the caller's
//! lock, and a "flush-log" task on the scheduler fsyncs the sealed segments and the snapshot,
//! then moves the recovery point (`flushUptoOffsetExclusive`, `flushProducerStateSnapshot`).
//!
//! The same thread writes the `leader-epoch-checkpoint` a log start offset change cuts
//! (`LeaderEpochFileCache.truncateFromStartAsyncFlush`, whose "leader-epoch-cache-flush" task
//! spares DeleteRecords and retention an fsync per partition under the log's lock).
//!
//! Here the scheduler is one thread for the process: jobs run in the order they were queued, so
//! a log's recovery point only moves forward, past segments that are on disk. Nothing waits for
//! a job but a clean close ([`FlushProgress::wait_idle`]); an acknowledged produce never did
//! (Kafka's neither: with `flush.messages` unset, acks count appends to the page cache).

use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// How far a log's flushes have gone, shared with its queued jobs.
#[derive(Debug)]
pub(crate) struct FlushProgress {
    state: Mutex<Progress>,
    idle: Condvar,
}

#[derive(Debug)]
struct Progress {
    queued: usize,
    /// Every offset below this is on disk: the recovery point the flushes reached.
    flushed_upto: i64,
}

impl FlushProgress {
    pub(super) fn new(recovery_point: i64) -> Arc<Self> {
        Arc::new(FlushProgress {
            state: Mutex::new(Progress {
                queued: 0,
                flushed_upto: recovery_point,
            }),
            idle: Condvar::new(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Progress> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn flushed_upto(&self) -> i64 {
        self.lock().flushed_upto
    }

    /// Waits for the log's queued flushes (a clean close flushes after them).
    pub(super) fn wait_idle(&self) {
        let mut state = self.lock();
        while state.queued > 0 {
            state = self.idle.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The files of the segments a roll sealed and the snapshot taken at the roll (handles of their
/// own: a deletion or rename meanwhile changes nothing), and the recovery point they make.
pub(super) struct FlushJob {
    pub(super) files: Vec<File>,
    pub(super) snapshot: Option<File>,
    /// The recovery point the files make (`i64::MIN`: none, an epoch file only).
    pub(super) upto: i64,
    pub(super) epochs: Option<EpochWrite>,
    pub(super) progress: Arc<FlushProgress>,
    /// `<topic>-<partition>`, for the error line.
    pub(super) name: String,
}

impl FlushJob {
    fn run(self) {
        let synced = self
            .files
            .iter()
            .try_for_each(File::sync_data)
            .and_then(|()| self.snapshot.as_ref().map_or(Ok(()), File::sync_all));
        if let Some(epochs) = &self.epochs {
            // LeaderEpochCheckpointFile.writeIfDirExists: a partition deleted meanwhile is no
            // error.
            match epochs
                .file
                .write(&epochs.path, &epochs.text, epochs.generation)
            {
                Err(e) if e.kind() != io::ErrorKind::NotFound => eprintln!(
                    "kseg mini-broker: {}: writing {} failed: {e}",
                    self.name,
                    epochs.path.display()
                ),
                _ => {}
            }
        }
        let mut state = self.progress.lock();
        state.queued -= 1;
        match synced {
            Ok(()) => state.flushed_upto = state.flushed_upto.max(self.upto),
            // The recovery point stays: a crash now recovers these segments.
            Err(e) => eprintln!(
                "kseg mini-broker: {}: flushing the segments below offset {} failed: {e}",
                self.name, self.upto
            ),
        }
        drop(state);
        self.progress.idle.notify_all();
    }
}

/// A log's `leader-epoch-checkpoint`, written in place (`LeaderEpochFileCache.assign`) or by
/// the flush thread, one write at a time (they share `<name>.tmp`), never older contents over
/// newer ones.
#[derive(Debug, Default)]
pub(crate) struct EpochFile {
    /// The generation of the contents last written.
    written: Mutex<u64>,
}

impl EpochFile {
    pub(super) fn write(
        &self,
        path: &std::path::Path,
        text: &str,
        generation: u64,
    ) -> io::Result<()> {
        let mut written = self.written.lock().unwrap_or_else(|e| e.into_inner());
        if *written > generation {
            return Ok(());
        }
        crate::files::write_atomically(path, text.as_bytes())?;
        *written = generation;
        Ok(())
    }
}

/// The epoch file's contents as the cache had them, for the flush thread.
pub(super) struct EpochWrite {
    pub(super) file: Arc<EpochFile>,
    pub(super) path: PathBuf,
    pub(super) text: String,
    pub(super) generation: u64,
}

/// Queues `job` on the flush thread (started with the first job).
pub(super) fn schedule(job: FlushJob) {
    static FLUSHER: OnceLock<Mutex<Sender<FlushJob>>> = OnceLock::new();
    job.progress.lock().queued += 1;
    let sender = FLUSHER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<FlushJob>();
        let spawned = std::thread::Builder::new()
            .name("kseg-flush-log".into())
            .spawn(move || {
                for job in rx {
                    job.run();
                }
            });
        if let Err(e) = spawned {
            eprintln!("kseg mini-broker: no flush thread ({e}): rolled segments flush in place");
        }
        Mutex::new(tx)
    });
    let sent = sender.lock().unwrap_or_else(|e| e.into_inner()).send(job);
    // No thread to take it: flushed here, as before.
    if let Err(mpsc::SendError(job)) = sent {
        job.run();
    }
}
