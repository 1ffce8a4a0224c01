//! Work per segment stays flat as a partition grows: finding a segment's index files is not a
//! scan of the whole partition (issue 26). The counts are of work done (file entries examined
//! by sibling look-ups), never of wall time. One test function: the counter is process-wide.

#[path = "scaling_data/mod.rs"]
mod scaling_data;
use kseg::analysis::verify::{verify_partition, VerifyOptions};
use kseg::cli::{Cli, Command};
use kseg::storage::discover::{discover, sibling_work, PartitionDir};
use std::path::Path;

/// A partition dir of `n` one-batch segments, each with its `.index` and `.timeindex`.
fn partition(root: &Path, n: usize) -> PartitionDir {
    let dir = root.join(format!("t{n}-0"));
    scaling_data::one_batch_segments(&dir, n);
    let set = discover(&[dir]).unwrap();
    set.partitions.into_iter().next().unwrap()
}

/// The sibling work `f` does.
fn work(f: impl FnOnce()) -> u64 {
    let before = sibling_work();
    f();
    sibling_work() - before
}

fn recover(p: &PartitionDir, out: &Path) {
    let cli = <Cli as clap::Parser>::try_parse_from([
        "kseg".as_ref(),
        "recover".as_ref(),
        "--json".as_ref(),
        p.path.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ])
    .unwrap();
    let Command::Recover(args) = cli.command else {
        unreachable!()
    };
    kseg::cmd::recover::run(args).unwrap();
}

#[test]
fn sibling_lookups_are_linear_in_segments() {
    let t = tempfile::tempdir().unwrap();
    let small = partition(t.path(), 250);
    let large = partition(t.path(), 1000);
    let opts = VerifyOptions::default();

    let (v1, v4) = (
        work(|| drop(verify_partition(&small, None, &opts))),
        work(|| drop(verify_partition(&large, None, &opts))),
    );
    assert!(v1 > 0, "verify looks up no siblings");

    // Every segment is recovered (no clean shutdown): the producer state is rebuilt once per
    // segment, and each rebuild visited every snapshot written so far (100k segments: 47 s).
    let replay = |p: &PartitionDir| {
        let before = kseg::analysis::producer_load::rebuild_work();
        drop(verify_partition(p, None, &opts));
        kseg::analysis::producer_load::rebuild_work() - before
    };
    let (p1, p4) = (replay(&small), replay(&large));
    assert!(p1 > 0, "verify rebuilds no producer state");
    assert!(
        p4 <= 5 * p1,
        "producer-state rebuilds: 4x the segments, {p4} vs {p1} snapshots and segments visited"
    );
    assert!(
        v4 <= 5 * v1,
        "verify-index: 4x the segments, {v4} vs {v1} entries examined"
    );

    let (r1, r4) = (
        work(|| recover(&small, &t.path().join("r1"))),
        work(|| recover(&large, &t.path().join("r4"))),
    );
    assert!(r1 > 0, "recover looks up no siblings");
    assert!(
        r4 <= 5 * r1,
        "recover: 4x the segments, {r4} vs {r1} entries examined"
    );
}

/// `groups --rebalances` over a KIP-848 generation compares each member a bounded number of
/// times: each member's assignment record was a scan of the generation's members and a
/// recomputation of what moved (quadratic in members: 16x the work for 4x the members).
#[test]
fn rebalance_history_is_linear_in_members() {
    use kseg::analysis::rebalances::rebalance_work;
    let t = tempfile::tempdir().unwrap();
    let rebalances = |dir: &Path| {
        let cli = <Cli as clap::Parser>::try_parse_from([
            "kseg".as_ref(),
            "groups".as_ref(),
            "--rebalances".as_ref(),
            "--json".as_ref(),
            "--threads".as_ref(),
            "1".as_ref(),
            dir.as_os_str(),
        ])
        .unwrap();
        let Command::Groups(args) = cli.command else {
            unreachable!()
        };
        let before = rebalance_work();
        kseg::cmd::groups::run(args).unwrap();
        rebalance_work() - before
    };
    let (small, large) = (t.path().join("g500"), t.path().join("g2000"));
    scaling_data::kip848_group(&small, 500);
    scaling_data::kip848_group(&large, 2_000);
    let (w1, w4) = (rebalances(&small), rebalances(&large));
    assert!(w1 > 0, "--rebalances compares no members");
    assert!(
        w4 <= 5 * w1,
        "--rebalances: 4x the members, {w4} vs {w1} members compared"
    );
    // A classic group's summary names who rejoined: each joined member was a search of the
    // generation's members (40k members: 2.6 s against 0.3 s for `groups`).
    let (small, large) = (t.path().join("c500"), t.path().join("c2000"));
    scaling_data::classic_group(&small, 500);
    scaling_data::classic_group(&large, 2_000);
    let (w1, w4) = (rebalances(&small), rebalances(&large));
    assert!(w1 > 0, "--rebalances looks up no classic members");
    assert!(
        w4 <= 5 * w1,
        "--rebalances of a classic group: 4x the members, {w4} vs {w1} members compared"
    );
}
