//! What the broker refuses to create: more partitions than one request may make, or more
//! than the open-file limit leaves room for.

use std::fs;

use kafka_protocol::ResponseError;

use crate::broker::{BrokerError, BrokerResult};

/// The most partitions one request may create (Kafka's controller refuses more than 10,000
/// records per operation: "Excessively large number of partitions per request").
pub const MAX_PARTITIONS_PER_REQUEST: i32 = 10_000;
/// Descriptors a new partition holds: its active segment's log, offset index and time index.
pub const FILES_PER_PARTITION: u64 = 3;
/// Descriptors kept free for connections, checkpoints and snapshots.
const FILES_RESERVE: u64 = 256;

/// The partitions one request may still create: [`MAX_PARTITIONS_PER_REQUEST`] shared by the
/// topics of a CreateTopics request (and taken whole by one auto-created topic).
#[derive(Debug)]
pub struct PartitionBudget {
    left: i32,
}

impl Default for PartitionBudget {
    fn default() -> Self {
        PartitionBudget {
            left: MAX_PARTITIONS_PER_REQUEST,
        }
    }
}

impl PartitionBudget {
    /// Takes `partitions` from what is left, or refuses them with POLICY_VIOLATION (taking
    /// nothing).
    pub fn take(&mut self, partitions: i32) -> BrokerResult<()> {
        if partitions > self.left {
            return Err(BrokerError::new(
                ResponseError::PolicyViolation,
                format!(
                    "{partitions} partitions: excessively large number of partitions per request (the cap is {MAX_PARTITIONS_PER_REQUEST})"
                ),
            ));
        }
        self.left -= partitions.max(0);
        Ok(())
    }
}

/// Refuses to create `partitions` partitions when their files would not fit under the process's
/// open-file limit (`ulimit -n`), before any file is made, instead of failing part way with
/// EMFILE.
pub(super) fn check_open_files(partitions: i32) -> BrokerResult<()> {
    let Some(limit) = open_file_limit() else {
        return Ok(());
    };
    let open = fs::read_dir("/proc/self/fd").map_or(0, |d| d.count() as u64);
    let needed = partitions as u64 * FILES_PER_PARTITION;
    if open + needed + FILES_RESERVE > limit {
        return Err(BrokerError::new(
            ResponseError::PolicyViolation,
            format!(
                "{partitions} partitions need {needed} more open files; {open} of the limit of {limit} are in use (raise ulimit -n)"
            ),
        ));
    }
    Ok(())
}

/// The soft `RLIMIT_NOFILE`, `None` when unlimited or unknown.
pub fn open_file_limit() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct passed.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } != 0
        || r.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    Some(r.rlim_cur)
}

/// Raises the soft open-file limit to the hard one, as the JVM does for Kafka
/// (`-XX:+MaxFDLimit`, on by default): a broker holds several files per partition.
pub fn raise_open_file_limit() {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) == 0 && r.rlim_cur < r.rlim_max {
            r.rlim_cur = r.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &r);
        }
    }
}

/// The total and usable bytes of the volume holding `path`, as Java's `FileStore`
/// `getTotalSpace` / `getUsableSpace` give them (blocks and blocks available to an unprivileged
/// user, times the fragment size), with Kafka's `adjustForLargeFileSystems` (an overflow is
/// `i64::MAX`).
pub fn volume_space(path: &std::path::Path) -> std::io::Result<(i64, i64)> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    // SAFETY: an all-zero statvfs is a valid value for statvfs(3) to fill in.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a writable statvfs.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let bytes =
        |blocks: u64| i64::try_from((blocks as u128) * (st.f_frsize as u128)).unwrap_or(i64::MAX);
    Ok((bytes(st.f_blocks as u64), bytes(st.f_bavail as u64)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The topics of one CreateTopics request share the cap; a refused topic takes nothing.
    #[test]
    fn a_request_shares_the_partition_cap() {
        let mut budget = PartitionBudget::default();
        budget.take(6_000).unwrap();
        let e = budget.take(6_000).expect_err("over the cap");
        assert_eq!(e.code(), ResponseError::PolicyViolation.code());
        assert_eq!(
            e.to_string(),
            "6000 partitions: excessively large number of partitions per request (the cap is 10000)"
        );
        budget.take(4_000).unwrap();
        budget.take(1).expect_err("nothing left");
        // A negative count (refused later as INVALID_PARTITIONS) takes nothing.
        let mut budget = PartitionBudget::default();
        budget.take(-3).unwrap();
        budget.take(MAX_PARTITIONS_PER_REQUEST).unwrap();
    }
}
