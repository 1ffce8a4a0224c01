//! Reading files without ever writing them, and without SIGBUS.
//!
//! kseg reads with positioned reads (`pread`) into one reusable buffer by default. A live
//! broker truncates segments (follower truncation, index trimming at roll) and deletes them
//! (retention); a memory map of such a file raises SIGBUS on the next touch of a vanished page,
//! which no mapping mode prevents. A short `pread` is just an error value, so reads are the
//! safe default. `--mmap` opts into mapping for offline copies (a disk image, a backup), where
//! it is faster when the page cache holds the data in large folios.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use kseg_format::log::ByteSource;

/// Bytes read per refill when a caller asks for less: large enough for sequential throughput,
/// small enough to keep memory flat on multi-GiB segments.
pub const READ_CHUNK: usize = 1 << 20;

/// Opens a regular file for reading only (never created, never truncated, never written).
///
/// The open itself cannot block (`O_NONBLOCK`: a FIFO named like a segment would otherwise hang
/// in `open` until a writer appears) and the type is checked on the opened descriptor, not the
/// path (no race with a rename): a FIFO, socket or device (a symlink to `/dev/zero` reports a
/// length of 0 and never ends) is refused with its kind. `O_NONBLOCK` is cleared again before
/// the descriptor is used.
pub fn open_read_only(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    use std::os::unix::io::AsRawFd;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a directory"
        } else if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_char_device() {
            "a character device"
        } else if kind.is_block_device() {
            "a block device"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "a special file"
        };
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{what}, not a regular file"),
        ));
    }
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns; no memory is passed.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
    Ok(file)
}

/// Reads a whole small file (indexes, snapshots, checkpoints) with a size guard.
pub fn read_small(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_read_only(path)?;
    let len = file.metadata()?.len();
    if len > limit {
        return Err(io::Error::other(format!(
            "file is {len} bytes, above the {limit}-byte limit for this kind of file"
        )));
    }
    let mut out = Vec::with_capacity(len as usize);
    io::Read::read_to_end(&mut io::Read::take(file, limit + 1), &mut out)?;
    Ok(out)
}

/// A file read through one sliding buffer with positioned reads.
pub struct FileSource {
    file: File,
    len: u64,
    buf: Vec<u8>,
    buf_start: u64,
    /// How large a read a miss issues.
    refill: Refill,
    /// Bytes read from the file so far (for benchmarks and `--explain`-style reports).
    pub bytes_read: u64,
}

/// How a [`FileSource`] refills its buffer on a miss.
#[derive(Debug, Clone, Copy)]
enum Refill {
    /// At least this many bytes (a caller asking for more gets what it asks for).
    Chunk(usize),
    /// [`FileSource::sparse`]: by how far this ask is from the last one, `last`.
    Sparse { last: u64 },
}

/// [`FileSource::sparse`]: a miss within this many bytes of the last ask reads a block of
/// [`SPARSE_BLOCK`] bytes; a farther one reads only what it asks for.
const SPARSE_NEAR: u64 = 4096;
const SPARSE_BLOCK: usize = 64 * 1024;

impl FileSource {
    pub fn open(path: &Path) -> io::Result<FileSource> {
        FileSource::with_chunk(path, READ_CHUNK)
    }

    /// Like [`FileSource::open`], with refills of at least `chunk` bytes instead of 1 MiB: an
    /// index-guided lookup that touches two or three batches then reads only a few pages.
    pub fn with_chunk(path: &Path, chunk: usize) -> io::Result<FileSource> {
        let file = open_read_only(path)?;
        let len = file.metadata()?.len();
        Ok(FileSource {
            file,
            len,
            buf: Vec::new(),
            buf_start: 0,
            refill: Refill::Chunk(chunk.max(1)),
            bytes_read: 0,
        })
    }

    /// For a few bytes here and there (the frame headers a cutter reads): each read asks for
    /// what it needs when the asks are far apart (one `pread` of 17 bytes every 15 KiB costs
    /// less than faulting in mapped pages), and for a block when they come close together
    /// (small frames, many to a page).
    pub fn sparse(path: &Path) -> io::Result<FileSource> {
        let mut src = FileSource::with_chunk(path, 1)?;
        src.refill = Refill::Sparse { last: 0 };
        Ok(src)
    }
}

impl ByteSource for FileSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn another(&self) -> Option<io::Result<Box<dyn ByteSource + Send>>> {
        Some(self.file.try_clone().map(|file| {
            Box::new(FileSource {
                file,
                len: self.len,
                buf: Vec::new(),
                buf_start: 0,
                refill: Refill::Chunk(READ_CHUNK),
                bytes_read: 0,
            }) as Box<dyn ByteSource + Send>
        }))
    }

    fn bytes_read(&self) -> Option<u64> {
        Some(self.bytes_read)
    }

    fn read_at(&mut self, pos: u64, len: usize) -> io::Result<&[u8]> {
        // The least a miss reads, and the buffer size usual for this source.
        let (chunk, usual) = match &mut self.refill {
            Refill::Chunk(chunk) => (*chunk, *chunk),
            Refill::Sparse { last } => {
                let near = pos.abs_diff(std::mem::replace(last, pos)) <= SPARSE_NEAR;
                (if near { SPARSE_BLOCK } else { 1 }, SPARSE_BLOCK)
            }
        };
        let buf_end = self.buf_start + self.buf.len() as u64;
        let wanted_end = pos.saturating_add(len as u64).min(self.len);
        if pos >= self.buf_start && wanted_end <= buf_end && pos <= wanted_end {
            let from = (pos - self.buf_start) as usize;
            let to = (wanted_end - self.buf_start) as usize;
            return Ok(&self.buf[from..to]);
        }
        if pos >= self.len {
            return Ok(&[]);
        }
        let want = (len.max(chunk) as u64).min(self.len - pos) as usize;
        // A large frame read once must not pin its buffer for the rest of the file.
        if want <= usual && self.buf.capacity() > 4 * usual {
            self.buf = Vec::new();
        }
        self.buf.resize(want, 0);
        self.buf_start = pos;
        let mut filled = 0usize;
        while filled < want {
            match self
                .file
                .read_at(&mut self.buf[filled..], pos + filled as u64)
            {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        self.bytes_read += filled as u64;
        if filled < want {
            // The file shrank since it was opened: believe the file, not the old length.
            self.len = pos + filled as u64;
        }
        self.buf.truncate(filled);
        Ok(&self.buf[..filled.min(len)])
    }
}

/// A read-only memory map (`--mmap`), for data that no broker is writing.
pub struct MmapSource {
    /// Shared by the sources [`ByteSource::another`] gives.
    map: Option<std::sync::Arc<memmap2::Mmap>>,
}

impl MmapSource {
    pub fn open(path: &Path) -> io::Result<MmapSource> {
        let file = open_read_only(path)?;
        if file.metadata()?.len() == 0 {
            return Ok(MmapSource { map: None });
        }
        // SAFETY: the map is read-only and private to this process. Its one hazard is another
        // process truncating the file (SIGBUS), which is why mapping is opt-in (`--mmap`) and
        // documented as unsafe for a live broker's data dir.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(MmapSource {
            map: Some(std::sync::Arc::new(map)),
        })
    }
}

impl ByteSource for MmapSource {
    fn len(&self) -> u64 {
        self.map.as_ref().map_or(0, |m| m.len() as u64)
    }
    fn another(&self) -> Option<io::Result<Box<dyn ByteSource + Send>>> {
        Some(Ok(Box::new(MmapSource {
            map: self.map.clone(),
        })))
    }
    fn read_at(&mut self, pos: u64, len: usize) -> io::Result<&[u8]> {
        let data: &[u8] = self.map.as_deref().map_or(&[], |m| &m[..]);
        let start = (pos as usize).min(data.len());
        let end = start.saturating_add(len).min(data.len());
        Ok(&data[start..end])
    }
}

/// Whether a read failed because the file is gone: listed by discovery, then deleted before it
/// was opened (a live broker's retention, compaction or segment roll). Not a data problem: the
/// dir simply moved on, and a listing a moment later would not have named the file.
/// A dangling symlink also fails with NotFound, but it is still there: that is not vanished.
pub fn vanished(path: &Path, e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound && std::fs::symlink_metadata(path).is_err()
}

/// The words for a [`vanished`] file, the same in every command.
pub const VANISHED: &str =
    "removed since it was listed (a live broker's retention, compaction or segment roll); skipped";

/// Opens a log for scanning: buffered reads unless `mmap` is asked for. Mapping is refused
/// when the log dir's `.lock` is held (a live broker, which truncates and deletes segments: a
/// mapped page that vanishes kills kseg with SIGBUS).
pub fn open_log(path: &Path, mmap: bool) -> io::Result<Box<dyn ByteSource + Send>> {
    if mmap {
        let lock = path
            .parent()
            .and_then(Path::parent)
            .map(|d| d.join(".lock"));
        if let Some(pid) = lock
            .as_deref()
            .and_then(|l| lock_holders(l).first().copied())
        {
            return Err(io::Error::other(format!(
                "--mmap refused: the log dir's .lock is held by process {pid} (a live broker); \
                 a concurrent truncation would kill kseg with SIGBUS, so read without --mmap"
            )));
        }
    }
    Ok(if mmap {
        Box::new(MmapSource::open(path)?)
    } else {
        Box::new(FileSource::open(path)?)
    })
}

/// Opens a log for reading a few bytes here and there (frame headers, to cut it into pieces):
/// [`FileSource::sparse`], which reads little more than what is asked. (A map touched a page
/// per header costs more in faults, and a live broker's truncation would kill it.)
pub fn open_sparse(path: &Path) -> io::Result<Box<dyn ByteSource + Send>> {
    Ok(Box::new(FileSource::sparse(path)?))
}

/// A segment's offset index, beside its `.log`, read through in order for the positions it
/// gives (cutting the log into pieces): `None` when the log is not named `*.log` or the index
/// cannot be opened.
pub fn open_offset_index_of(log: &Path) -> Option<Box<dyn ByteSource + Send>> {
    if log.extension()? != "log" {
        return None;
    }
    let index = log.with_extension("index");
    Some(Box::new(FileSource::with_chunk(&index, 64 * 1024).ok()?))
}

/// Whether a file's first bytes frame a batch or message whose checksum is valid.
pub fn starts_with_a_batch(path: &Path) -> bool {
    let Ok(mut src) = FileSource::open(path) else {
        return false;
    };
    let Ok(head) = src.read_at(0, 17) else {
        return false;
    };
    if head.len() < 17 {
        return false;
    }
    let size = i32::from_be_bytes([head[8], head[9], head[10], head[11]]);
    if size < 14 || head[16] > 2 {
        return false;
    }
    src.read_at(0, 12 + size as usize)
        .map(kseg_format::log::frame_crc_valid)
        .unwrap_or(false)
}

/// The processes holding a lock on `path` (`flock`, POSIX `fcntl` or OFD locks), from
/// `/proc/locks`: a running broker holds its log dir's `.lock`. Nothing is locked or opened for
/// writing, so a live broker's lock is never disturbed. Empty where `/proc/locks` is absent.
pub fn lock_holders(path: &Path) -> Vec<u32> {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return Vec::new();
    };
    let Ok(table) = std::fs::read_to_string("/proc/locks") else {
        return Vec::new();
    };
    // The kernel prints the device as MAJOR:MINOR in hex, then the inode in decimal.
    let dev = meta.dev();
    let want = format!(
        "{:02x}:{:02x}:{}",
        libc::major(dev),
        libc::minor(dev),
        meta.ino()
    );
    let mut pids: Vec<u32> = table
        .lines()
        // "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF"; blocked waiters ("->") are not
        // holders.
        .filter(|l| !l.contains("->"))
        .filter_map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let at = fields.iter().position(|f| *f == want)?;
            fields.get(at.checked_sub(1)?)?.parse().ok()
        })
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_file_truncated_while_read_ends_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("00000000000000000000.log");
        let mut f = File::create(&path).unwrap();
        f.write_all(&vec![7u8; 3 * READ_CHUNK]).unwrap();
        let mut src = FileSource::open(&path).unwrap();
        assert_eq!(src.read_at(0, 10).unwrap().len(), 10);
        // A "broker" truncates the file under us; the next read past the cut is short, not fatal.
        f.set_len(READ_CHUNK as u64 + 100).unwrap();
        let got = src.read_at(2 * READ_CHUNK as u64, 100).unwrap();
        assert!(got.is_empty());
        let got = src.read_at(READ_CHUNK as u64, 1000).unwrap();
        assert_eq!(got.len(), 100);
        assert_eq!(src.len(), READ_CHUNK as u64 + 100);
    }

    /// A sparse source reads what is asked when the asks are far apart, a block when they come
    /// close together, and always gives the file's bytes.
    #[test]
    fn a_sparse_source_reads_little_more_than_it_is_asked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("00000000000000000000.log");
        let data: Vec<u8> = (0..4 * SPARSE_BLOCK as u32)
            .map(|i| (i % 251) as u8)
            .collect();
        std::fs::write(&path, &data).unwrap();
        let mut src = FileSource::sparse(&path).unwrap();
        // Far apart: 17 bytes a read.
        let far: Vec<u64> = (1..12).map(|i| i * 20_000).collect();
        for &at in &far {
            let got = src.read_at(at, 17).unwrap();
            assert_eq!(got, &data[at as usize..at as usize + 17]);
        }
        assert_eq!(src.bytes_read, 17 * far.len() as u64);
        // Close together: one block serves many asks.
        let before = src.bytes_read;
        let near = 3 * SPARSE_BLOCK as u64;
        for at in (near..near + 8_000).step_by(100) {
            let got = src.read_at(at, 17).unwrap();
            assert_eq!(got, &data[at as usize..at as usize + 17]);
        }
        assert!(src.bytes_read - before <= (SPARSE_BLOCK + 17) as u64);
        // A large ask is whole, and the end is short, not an error.
        let end = data.len() as u64 - 10;
        assert_eq!(src.read_at(end, 17).unwrap(), &data[end as usize..]);
        assert_eq!(src.read_at(5, 100_000).unwrap(), &data[5..100_005]);
    }

    /// Another reader reads the file first opened, renamed or deleted since (a live broker's
    /// segment going `.deleted`), not whatever the path names now.
    #[test]
    fn another_reader_reads_the_open_file_not_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("00000000000000000000.log");
        std::fs::write(&path, b"first file's bytes").unwrap();
        for mmap in [false, true] {
            let src: Box<dyn ByteSource> = if mmap {
                Box::new(MmapSource::open(&path).unwrap())
            } else {
                Box::new(FileSource::open(&path).unwrap())
            };
            std::fs::rename(&path, dir.path().join("gone.deleted")).unwrap();
            std::fs::write(&path, b"another file").unwrap();
            let mut other = src.another().unwrap().unwrap();
            assert_eq!(other.len(), 18);
            assert_eq!(other.read_at(0, 64).unwrap(), b"first file's bytes");
            std::fs::remove_file(&path).unwrap();
            std::fs::rename(dir.path().join("gone.deleted"), &path).unwrap();
        }
    }

    #[test]
    fn reads_never_modify_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.log");
        std::fs::write(&path, b"abcdef").unwrap();
        let before = std::fs::metadata(&path).unwrap().modified().unwrap();
        let mut src = FileSource::open(&path).unwrap();
        assert_eq!(src.read_at(2, 3).unwrap(), b"cde");
        let mut m = MmapSource::open(&path).unwrap();
        assert_eq!(m.read_at(4, 10).unwrap(), b"ef");
        assert_eq!(std::fs::read(&path).unwrap(), b"abcdef");
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            before
        );
    }
}
