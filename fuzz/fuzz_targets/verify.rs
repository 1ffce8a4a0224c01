//! The whole of `verify-index` and `recover`'s analysis on one hostile partition: a log, its
//! `.index`, `.timeindex` and `.txnindex`, a leader-epoch checkpoint and a swap/stray file, cut
//! from the input and written to a temporary partition dir.
#![no_main]
use kseg::analysis::recovery::analyse_segment;
use kseg::analysis::verify::{verify_partition, VerifyOptions};
use kseg::format::log::RecordScratch;
use kseg::storage::discover::discover;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Five length bytes split the rest into the files.
    if data.len() < 5 {
        return;
    }
    let (lens, mut rest) = data.split_at(5);
    let mut take = |n: u8| {
        let n = (n as usize * 8).min(rest.len());
        let (a, b) = rest.split_at(n);
        rest = b;
        a.to_vec()
    };
    let index = take(lens[0]);
    let time_index = take(lens[1]);
    let txn_index = take(lens[2]);
    let epochs = take(lens[3]);
    let swap = take(lens[4]);
    let log = rest.to_vec();
    let Ok(t) = tempfile::tempdir() else { return };
    let part = t.path().join("t-0");
    if std::fs::create_dir(&part).is_err() {
        return;
    }
    let files: [(&str, &[u8]); 7] = [
        ("00000000000000000000.log", &log),
        ("00000000000000000000.index", &index),
        ("00000000000000000000.timeindex", &time_index),
        ("00000000000000000000.txnindex", &txn_index),
        ("leader-epoch-checkpoint", &epochs),
        ("00000000000000000000.log.swap", &swap),
        ("00000000000000000007.index", &index),
    ];
    for (name, bytes) in files {
        if std::fs::write(part.join(name), bytes).is_err() {
            return;
        }
    }
    let Ok(set) = discover(&[part.clone()]) else { return };
    for p in &set.partitions {
        for opts in [
            VerifyOptions::default(),
            VerifyOptions {
                index_only: true,
                ..Default::default()
            },
        ] {
            let _ = verify_partition(p, None, &opts);
        }
    }
    let mut scratch = RecordScratch::default();
    let _ = analyse_segment(&part.join("00000000000000000000.log"), 0, 64, &mut scratch);
});
