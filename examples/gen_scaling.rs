//! Data for `bench/scaling.sh` (issue 26's scaling rows):
//!
//!   gen_scaling segments DIR N     a partition dir of N one-batch segments with their indexes
//!   gen_scaling partitions DIR N   a log dir of N empty partitions, each in its checkpoints
//!   gen_scaling members DIR N      a log dir whose __consumer_offsets-0 holds a classic group
//!                                  of N members over two generations (every assignment moves)
//!   gen_scaling kip848 DIR N       the same with a KIP-848 group: N members' metadata, the
//!                                  group epoch, then each member's current assignment
//!   gen_scaling retention DIR N    a clean log dir of N segments in 100 partitions, 30% of each
//!                                  expired at 2026-01-01T00:00:00Z (`bench/retention.sh`)

use std::path::Path;

#[path = "../tests/scaling_data/mod.rs"]
mod scaling_data;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (mode, dir, n) = match args.as_slice() {
        [_, mode, dir, n] => (
            mode.as_str(),
            Path::new(dir),
            n.parse::<usize>().expect("N"),
        ),
        _ => {
            eprintln!("usage: gen_scaling segments|partitions|members|kip848|retention DIR N");
            std::process::exit(2);
        }
    };
    match mode {
        "segments" => scaling_data::one_batch_segments(dir, n),
        "partitions" => scaling_data::empty_partitions(dir, n),
        "members" => scaling_data::classic_group(dir, n),
        "kip848" => scaling_data::kip848_group(dir, n),
        "retention" => scaling_data::retention_log_dir(dir, n),
        other => {
            eprintln!("unknown mode {other:?}");
            std::process::exit(2);
        }
    }
}
