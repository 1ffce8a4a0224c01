//! The broker's one decompression scratch, shared by every partition.

use std::sync::Mutex;

use kseg_format::log::RecordScratch;

/// Largest decompressed batch the validator will look into (as kseg's readers).
const MAX_DECOMPRESSED: usize = 128 << 20;

/// The decompression buffer above this is released after use: one 128 MiB batch must not pin
/// 128 MiB for the broker's lifetime.
pub(super) const SCRATCH_KEEP: usize = 4 << 20;

/// The broker's one decompression scratch (output buffer and zstd context), shared by every
/// partition: memory for decompression does not grow with the partition count.
pub(super) static SCRATCH: Mutex<Option<RecordScratch>> = Mutex::new(None);

/// Runs `f` with the shared scratch (a temporary one if it is in use: a nested call), then
/// releases what a large batch made it grow to.
pub(super) fn with_scratch<R>(f: impl FnOnce(&mut RecordScratch) -> R) -> R {
    match SCRATCH.try_lock() {
        Ok(mut guard) => {
            let scratch = guard.get_or_insert_with(|| RecordScratch::with_cap(MAX_DECOMPRESSED));
            let r = f(scratch);
            trim_scratch(scratch);
            r
        }
        Err(_) => f(&mut RecordScratch::with_cap(MAX_DECOMPRESSED)),
    }
}

/// Releases `scratch`'s buffer and zstd context (whose window is as large as the batch's) when
/// the buffer grew past [`SCRATCH_KEEP`].
fn trim_scratch(scratch: &mut RecordScratch) {
    if scratch.buffer.capacity() > SCRATCH_KEEP {
        scratch.buffer = Vec::new();
        scratch.decompressor.release();
    }
}
