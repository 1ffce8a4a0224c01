//! `kseg rescue`: the records of source partitions produced into a running cluster, exactly
//! (key, value, headers, CreateTime, partition) and resumably (`--state`). The wiring of its
//! phases, each with a typed hand-off: the plan from the arguments and sources
//! ([`crate::analysis::rescue::Plan`]), the target survey and its check ([`target`],
//! [`crate::analysis::rescue::check`]), the send ([`send`]), the verification
//! ([`crate::analysis::rescue::verify`]) and the groups ([`groups`]); words in
//! [`crate::print::rescue`], the network in [`crate::client`].

mod dry_run;
mod groups;
mod send;
mod target;

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};

use super::{discover_inputs, Outcome, Reads};
use crate::analysis::grep::Glob;
use crate::analysis::rescue::check::{batch_cap, check_sources, SourceCheck, TopicLimits};
use crate::analysis::rescue::verify::{verify_through_maps, TargetRecord, Verified};
use crate::analysis::rescue::{
    parse_topic_map, Partitioning, Plan, PlanRequest, ResumeState, Selection, SendReport, Source,
    TargetPartitions, Tracker,
};
use crate::analysis::rescue_map::{RescueMap, Written};
use crate::cli::{RescueArgs, RescueCompression, RescuePartitioner};
use crate::client::{Connection, ProducerSettings, Reader};
use crate::format::log::RecordScratch;
use crate::print::escape::escaped as esc;
use crate::print::rescue::{self as words, SentRow};
use crate::print::table::Layout;
use crate::storage::source::read_small;
use groups::{GroupsRun, MapPlace};
use target::Survey;

fn timestamp_arg(
    times: &super::TimeFlags,
    flag: &str,
    v: &Option<String>,
    default: i64,
) -> Result<i64> {
    match times.read(flag, v.as_deref())? {
        None => Ok(default),
        Some(ms) if ms < 0 => bail!("{flag} {ms}: a negative timestamp is not a time"),
        Some(ms) => Ok(ms),
    }
}

fn connection(args: &RescueArgs) -> Result<Connection> {
    let path = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let password = match &args.sasl_password_file {
        // A regular file of at most 64 KiB: a FIFO or /dev/zero given by mistake is refused.
        Some(f) => Some(
            String::from_utf8(
                read_small(f, 64 << 10).with_context(|| format!("reading {}", f.display()))?,
            )
            .map_err(|_| anyhow!("{}: the password is not UTF-8", f.display()))?
            .trim_end_matches(['\n', '\r'])
            .to_string(),
        ),
        None => std::env::var("KSEG_SASL_PASSWORD").ok(),
    };
    let mut extra = Vec::new();
    for kv in &args.client_config {
        let Some((k, v)) = kv.split_once('=') else {
            bail!("--client-config wants KEY=VALUE, not {kv:?}");
        };
        extra.push((k.to_string(), v.to_string()));
    }
    Ok(Connection {
        bootstrap: args.bootstrap.clone(),
        security_protocol: args.security_protocol.clone(),
        sasl_mechanism: args.sasl_mechanism.clone(),
        sasl_username: args.sasl_username.clone(),
        sasl_password: password,
        ssl_ca: path(&args.ssl_ca),
        ssl_certificate: path(&args.ssl_certificate),
        ssl_key: path(&args.ssl_key),
        extra,
    })
}

/// rescue never writes into what it reads: a `--state` or `--offset-map` file inside a source
/// is refused.
fn refuse_files_inside_sources(args: &RescueArgs) -> Result<()> {
    for (flag, file) in [("--state", &args.state), ("--offset-map", &args.offset_map)] {
        let Some(file) = file else {
            continue;
        };
        // Resolved as recover resolves --out: through its nearest existing ancestor, so a
        // path inside a source is caught whether or not its dirs exist yet.
        if let Ok(resolved) = super::resolved_path(file) {
            for source in &args.sources {
                if let Ok(source) = source.canonicalize() {
                    if resolved.starts_with(&source) {
                        bail!(
                            "{flag} {} is inside the source {}: rescue never writes into what \
                             it reads; put the file elsewhere",
                            file.display(),
                            source.display()
                        );
                    }
                }
            }
        }
    }
    Ok(())
}

/// The plan's arguments, and `--topic-config`'s.
fn request(args: &RescueArgs) -> Result<(PlanRequest, BTreeMap<String, String>)> {
    let mut extra_configs: BTreeMap<String, String> = BTreeMap::new();
    for kv in &args.topic_config {
        match kv.split_once('=') {
            Some((k, v)) if !k.is_empty() => {
                extra_configs.insert(k.to_string(), v.to_string());
            }
            _ => bail!("--topic-config wants KEY=VALUE, not {kv:?}"),
        }
    }
    let mut topic_map = BTreeMap::new();
    for m in &args.topic_map {
        let (old, new) = parse_topic_map(m).map_err(anyhow::Error::msg)?;
        topic_map.insert(old, new);
    }
    let globs = |flag: &str, v: &[String]| -> Result<Vec<Glob>> {
        v.iter()
            .map(|g| Glob::new(g).with_context(|| format!("{flag} {g:?}")))
            .collect()
    };
    let times = super::TimeFlags::new(&args.tz)?;
    let req = PlanRequest {
        topic_map,
        include: globs("--topic", &args.topics)?,
        exclude: globs("--exclude-topic", &args.exclude_topics)?,
        selection: Selection {
            offsets: (
                args.from_offset.unwrap_or(i64::MIN),
                args.to_offset.unwrap_or(i64::MAX),
            ),
            timestamps: (
                timestamp_arg(&times, "--from-timestamp", &args.from_timestamp, i64::MIN)?,
                timestamp_arg(&times, "--to-timestamp", &args.to_timestamp, i64::MAX)?,
            ),
        },
        partitioning: match args.partitioner {
            RescuePartitioner::Same => Partitioning::Same,
            RescuePartitioner::Murmur2 => Partitioning::Murmur2,
        },
        groups: args.groups,
    };
    Ok((req, extra_configs))
}

/// A `--state` file must come from a rescue asked the same way, and `--groups` needs its maps.
fn check_resume_file(
    args: &RescueArgs,
    fingerprint: &str,
    previous: Option<&ResumeState>,
) -> Result<()> {
    let (Some(prev), Some(p)) = (previous, &args.state) else {
        return Ok(());
    };
    if prev.plan != fingerprint {
        bail!(
            "{} belongs to a rescue asked differently ({}); this one is {fingerprint}: give the \
             same sources and options, or another --state file",
            p.display(),
            prev.plan
        );
    }
    if args.groups {
        if let Some(name) = prev
            .acknowledged
            .keys()
            .find(|n| !prev.offset_map.contains_key(*n))
        {
            bail!(
                "--groups: the --state file has no offset map for {name} (written by a kseg \
                 that did not keep one), so its offsets in the target are not known"
            );
        }
    }
    Ok(())
}

pub fn run(args: RescueArgs) -> Result<Outcome> {
    refuse_files_inside_sources(&args)?;
    let (req, extra_configs) = request(&args)?;
    // Read before anything connects: a bad state file is the user's to fix first.
    let mut previous = match &args.state {
        Some(p) => ResumeState::load(p)?,
        None => None,
    };
    let (set, mut outcome) = discover_inputs(&args.sources, "rescue", Reads::DirsOnly)?;
    let plan = Plan::new(&set, req).map_err(|e| anyhow!(words::plan_error(&e)))?;
    let fingerprint = plan.fingerprint();
    check_resume_file(&args, &fingerprint, previous.as_ref())?;
    // The source's groups, read before anything is sent: a missing __consumer_offsets stops
    // the run here.
    let replay = match args.groups {
        true => Some(groups::load(&set, args.read.mmap)?),
        false => None,
    };

    let conn = connection(&args)?;
    let reader = Reader::new(&conn, false)?;
    let mut survey = target::survey(&args, &conn, &reader, &plan, &set, &extra_configs)?;
    if let Some(prev) = &previous {
        if survey.reachable && !state_describes_target(&args, &reader, &survey, prev)? {
            // --resend (or a dry run planning as it would): the state starts anew.
            previous = None;
            if args.dry_run {
                outcome = outcome.worst(Outcome::DataProblems);
            }
        }
    }
    let mut scratch = RecordScratch::with_cap(args.read.max_decompressed_bytes);
    let sources: Vec<Source<'_>> = plan
        .sources
        .iter()
        .map(|d| {
            Source::open(d, &mut scratch).with_context(|| format!("reading {}", d.path.display()))
        })
        .collect::<Result<_>>()?;
    let checked = check_target(
        &args,
        &plan,
        &sources,
        &survey,
        previous.as_ref(),
        &mut scratch,
    )?;
    if args.dry_run {
        outcome = outcome.worst(say_dry_run_findings(&args, &survey, &checked));
        let targets = plan.target_partitions(|t| survey.count_of(t));
        let d = dry_run::DryRun {
            args: &args,
            set: &set,
            plan: &plan,
            sources: &sources,
            targets: &targets,
            survey: &survey,
            previous: previous.as_ref(),
            groups: replay.as_ref(),
            conn: &conn,
            reader: &reader,
        };
        return dry_run::run(&d, &mut scratch, outcome);
    }
    refuse_what_the_check_found(&args, &checked)?;
    if !survey.missing.is_empty() {
        target::create_topics(&conn, &reader, &plan, &mut survey)?;
    }

    let targets = plan.target_partitions(|t| survey.count_of(t));
    let mut tracker = send::tracker(
        &plan,
        &targets,
        previous.as_ref(),
        &reader,
        (survey.cluster_id.clone(), survey.known_ids()),
    )?;
    let settings = producer_settings(&args, checked.batch.0, &survey.limits);
    let count_of = |t: &str| survey.count_of(t);
    let sp = send::SendPlan {
        plan: &plan,
        sources: &sources,
        targets: &targets,
        count_of: &count_of,
        limits: &survey.limits,
        previous: previous.as_ref(),
        state_path: args.state.as_deref(),
        fingerprint: &fingerprint,
        settings: &settings,
        max_records_per_second: args.max_records_per_second,
        delivery_timeout_ms: args.delivery_timeout_ms,
    };
    let report = send::send(&sp, &reader, &conn, &mut tracker, &mut scratch)?;
    let complete = report.error.is_none()
        && report.unacknowledged == 0
        && report.sources.iter().all(|s| s.refused.is_none());
    if let Some(path) = &args.offset_map {
        write_offset_map(path, &plan, &tracker, complete)?;
    }
    let layout = Layout::detect(args.format, args.json);
    outcome = outcome.worst(print_report(
        &args, &plan, &sources, &tracker, &report, layout,
    )?);
    if report.foreign > 0 {
        let after_refusal = previous.as_ref().is_some_and(|p| !p.refused.is_empty());
        eprintln!(
            "kseg: {}",
            words::foreign_records(report.foreign, after_refusal)
        );
    }
    stop_unless_complete(&args, &plan, &report)?;

    let mut verify_failed = false;
    if args.verify {
        let v = verify(
            &conn,
            &plan,
            &sources,
            &targets,
            &tracker,
            &fingerprint,
            &mut scratch,
        )?;
        let mut out = BufWriter::new(io::stdout().lock());
        words::verified(&mut out, args.json, &v)?;
        out.flush()?;
        if v.iter().any(|r| !r.ok()) {
            outcome = outcome.worst(Outcome::DataProblems);
            verify_failed = true;
        }
    }
    let Some(replay) = &replay else {
        return Ok(outcome);
    };
    if verify_failed {
        eprintln!(
            "kseg: --groups: the target does not hold what was rescued (--verify): no group \
             offset was committed"
        );
        return Ok(outcome.worst(Outcome::Failed));
    }
    let g = commit_groups(
        &args,
        &set,
        &plan,
        &sources,
        &tracker,
        &fingerprint,
        replay,
        &conn,
        &reader,
        layout,
        &mut scratch,
    )?;
    Ok(outcome.worst(g))
}

/// `--groups` after a run: each group's offsets translated through the map the run holds,
/// checked against the target partitions' logs, and committed.
#[allow(clippy::too_many_arguments)]
fn commit_groups(
    args: &RescueArgs,
    set: &crate::storage::discover::DataSet,
    plan: &Plan<'_>,
    sources: &[Source<'_>],
    tracker: &Tracker,
    fingerprint: &str,
    replay: &crate::analysis::groups::Replay,
    conn: &Connection,
    reader: &Reader,
    layout: Layout,
    scratch: &mut RecordScratch,
) -> Result<Outcome> {
    let state = tracker.state(fingerprint);
    let maps: Vec<RescueMap> = (0..sources.len())
        .map(|i| tracker.map(i as u32).clone())
        .collect();
    let log_of = groups::target_log(Some(reader), |_| true);
    let views = groups::source_views(set, plan, sources, &maps, replay, &log_of, scratch, |i| {
        let name = format!("{}-{}", plan.target_of(i), sources[i].dir.name.partition);
        let progress = state.targets.get(&name);
        MapPlace {
            target_start: progress.map(|p| p.start),
            predicted_from: None,
            checked: Some((
                maps[i].clone(),
                Written {
                    partition: sources[i].dir.name.partition,
                    start: progress.map(|p| p.start),
                    end: progress.and_then(|p| p.end),
                    acknowledged: tracker.acknowledged_through(i as u32),
                    log_end: None,
                },
            )),
        }
    })?;
    groups::run(&GroupsRun {
        replay,
        views: &views,
        commit: true,
        conn: Some(conn),
        json: args.json,
        layout,
    })
}

/// What the target check found, for the dry run to say and the run to refuse.
struct Checked {
    /// Target topics missing, as listed.
    missing: String,
    /// Target topics with too few partitions.
    short: Vec<String>,
    /// Records older than their target's retention keeps, per source.
    too_old: Vec<String>,
    checks: Vec<SourceCheck>,
    /// The largest batch, and what lowered it.
    batch: (
        usize,
        Option<(String, crate::analysis::rescue::check::LimitConfig, usize)>,
    ),
}

/// The target check, for every target topic before any is created: topics missing (refused
/// now without `--create-topics`), too few partitions, records the target would delete at
/// once, refuse, or keep past its retention, and the largest batch it takes. What is no
/// refusal is said here.
fn check_target(
    args: &RescueArgs,
    plan: &Plan<'_>,
    sources: &[Source<'_>],
    survey: &Survey,
    previous: Option<&ResumeState>,
    scratch: &mut RecordScratch,
) -> Result<Checked> {
    let missing = survey
        .missing
        .iter()
        .map(|(t, n)| format!("{} ({n} partitions)", esc(t)))
        .collect::<Vec<_>>()
        .join(", ");
    if !survey.missing.is_empty() && !args.dry_run && !args.create_topics {
        bail!(
            "the target cluster has no topic {missing}: create it (kafka-topics.sh --create \
             --topic NAME --partitions N) or pass --create-topics"
        );
    }
    // A topic to be created gets the partitions it needs.
    let short: Vec<String> = plan
        .short_topics(|t| match survey.counts.get(t) {
            Some(Some(n)) => *n,
            _ => plan.needed.get(t).copied().unwrap_or(0),
        })
        .iter()
        .map(|(t, has, needs)| words::short_topic(t, *has, *needs))
        .collect();
    let names = plan.source_names();
    let checks = check_sources(
        plan,
        sources,
        &|t| survey.limits.get(t).cloned(),
        &|i| previous.and_then(|s| s.acknowledged.get(&names[i]).copied()),
        crate::broker::now_ms(),
        args.compression != RescueCompression::None,
        scratch,
    )?;
    let batch = batch_cap(
        args.batch_bytes,
        survey.limits.iter().map(|(t, l)| (t.as_str(), l)),
    );
    say_limits(args, plan, survey, &checks, batch.0, &batch.1);
    Ok(Checked {
        missing,
        short,
        too_old: too_old_lines(plan, &checks),
        checks,
        batch,
    })
}

/// A dry run says what a run would create, refuse or stop at (a refusal to come is a finding:
/// exit 1).
fn say_dry_run_findings(args: &RescueArgs, survey: &Survey, c: &Checked) -> Outcome {
    if !survey.missing.is_empty() {
        eprintln!("kseg: target topics to create: {}", c.missing);
        if args.create_topics {
            for t in &survey.new_topics {
                eprintln!(
                    "kseg: --create-topics would create {} with {}",
                    esc(&t.name),
                    words::new_topic_configs(t)
                );
            }
        }
    }
    for line in &c.short {
        eprintln!("kseg: a run would refuse: {line}");
    }
    let old_refused = !c.too_old.is_empty() && !args.allow_retention_delete;
    if old_refused {
        eprintln!(
            "kseg: a run would refuse: {}",
            words::retention_refusal(&c.too_old)
        );
    }
    if !c.short.is_empty() || old_refused || c.checks.iter().any(|c| c.refused.is_some()) {
        Outcome::DataProblems
    } else {
        Outcome::Clean
    }
}

/// A run refuses what the check found before anything is created or sent.
fn refuse_what_the_check_found(args: &RescueArgs, c: &Checked) -> Result<()> {
    if let Some(first) = c.short.first() {
        bail!("{first}");
    }
    if !c.too_old.is_empty() {
        if args.allow_retention_delete {
            eprintln!(
                "kseg: {}: sent anyway (--allow-retention-delete); the broker deletes them at \
                 its next retention check",
                c.too_old.join("; ")
            );
        } else {
            bail!("{}", words::retention_refusal(&c.too_old));
        }
    }
    Ok(())
}

/// The producer's settings: batches no larger than every target takes.
fn producer_settings(
    args: &RescueArgs,
    batch_bytes: usize,
    limits: &BTreeMap<String, TopicLimits>,
) -> ProducerSettings {
    ProducerSettings {
        batch_bytes,
        linger_ms: args.linger_ms,
        compression: match args.compression {
            RescueCompression::None => "none",
            RescueCompression::Gzip => "gzip",
            RescueCompression::Snappy => "snappy",
            RescueCompression::Lz4 => "lz4",
            RescueCompression::Zstd => "zstd",
        }
        .to_string(),
        delivery_timeout_ms: args.delivery_timeout_ms,
        max_record_bytes: max_record_bytes(batch_bytes, limits),
    }
}

/// Whether the `--state` file describes the target; when it does not, refused (a run without
/// `--resend`) or said (a dry run, `--resend`).
fn state_describes_target(
    args: &RescueArgs,
    reader: &Reader,
    survey: &Survey,
    prev: &ResumeState,
) -> Result<bool> {
    let now = target::now_for_state(reader, survey, prev)?;
    let check = prev.check(&now);
    let file = args
        .state
        .as_deref()
        .map_or(String::new(), |p| p.display().to_string());
    if check.unidentified {
        eprintln!(
            "kseg: {} was written by a kseg that kept no cluster or topic ids: only the target \
             partitions' log ends are compared with it",
            esc(&file)
        );
    }
    if check.mismatches.is_empty() {
        return Ok(true);
    }
    if args.dry_run {
        eprintln!(
            "kseg: a run would refuse: {}; planned as --resend would send",
            words::state_refusal(&file, &check.mismatches)
        );
    } else if args.resend {
        eprintln!("kseg: {}", words::state_resend(&file, &check.mismatches));
    } else {
        bail!("{}", words::state_refusal(&file, &check.mismatches));
    }
    Ok(false)
}

/// The target check's findings that are no refusal: what lowers the batches, a target that
/// stamps its own times, records stamped in the future, records the target will refuse.
fn say_limits(
    args: &RescueArgs,
    plan: &Plan<'_>,
    survey: &Survey,
    checks: &[SourceCheck],
    batch_bytes: usize,
    lowered_by: &Option<(String, crate::analysis::rescue::check::LimitConfig, usize)>,
) {
    for (t, l) in &survey.limits {
        if l.log_append_time {
            eprintln!(
                "kseg: target topic {} uses LogAppendTime: the broker stamps each record with \
                 its own time when it appends it; the source timestamps are not kept",
                esc(t)
            );
        }
    }
    if let Some((t, config, n)) = lowered_by {
        eprintln!(
            "kseg: batches of at most {batch_bytes} bytes (target topic {}'s {}={n}; \
             --batch-bytes is {})",
            esc(t),
            config.name(),
            args.batch_bytes
        );
    }
    for (i, c) in checks.iter().enumerate() {
        let lines = words::source_check(&plan.source_name(i), plan.target_of(i), c, !args.dry_run);
        // Records too old are said with the refusal (or its override).
        for line in lines.iter().skip(usize::from(c.too_old.is_some())) {
            eprintln!("kseg: {line}");
        }
    }
}

/// The retention findings of every source, one line each.
fn too_old_lines(plan: &Plan<'_>, checks: &[SourceCheck]) -> Vec<String> {
    checks
        .iter()
        .enumerate()
        .filter(|(_, c)| c.too_old.is_some())
        .filter_map(|(i, c)| {
            words::source_check(&plan.source_name(i), plan.target_of(i), c, true)
                .into_iter()
                .next()
        })
        .collect()
}

/// librdkafka's own limit on one record: room for the largest the targets take (their brokers
/// decide about the rest), and for a batch of the asked size.
fn max_record_bytes(batch_bytes: usize, limits: &BTreeMap<String, TopicLimits>) -> usize {
    let largest = limits
        .values()
        .filter_map(|l| l.max_message_bytes)
        .max()
        .unwrap_or(0);
    // librdkafka's range for message.max.bytes ends at 1000000000.
    (batch_bytes.max(1 << 20).max(largest) + (1 << 20)).min(1_000_000_000)
}

/// The report: the table (or NDJSON), each source's problems on stderr.
fn print_report(
    args: &RescueArgs,
    plan: &Plan<'_>,
    sources: &[Source<'_>],
    tracker: &Tracker,
    report: &SendReport,
    layout: Layout,
) -> Result<Outcome> {
    let mut outcome = Outcome::Clean;
    let names = plan.source_names();
    for (s, sent) in sources.iter().zip(&report.sources) {
        for msg in &sent.tally.problems {
            crate::print::report_error(&s.dir.path, None, msg);
            outcome = outcome.worst(Outcome::DataProblems);
        }
    }
    let rows: Vec<SentRow<'_>> = (0..report.sources.len())
        .map(|i| SentRow {
            source: &names[i],
            target: plan.target_of(i),
            map: tracker.map(i as u32),
        })
        .collect();
    let stdout = io::stdout();
    let mut out = layout.writer(BufWriter::new(stdout.lock()));
    words::report(&mut out, layout, args.json, &rows, report)?;
    out.flush()?;
    Ok(outcome)
}

/// A run that did not deliver everything ends here, saying why (exit 2): records the target
/// refused (each source stopped there; the others were sent), a failure, or records not
/// acknowledged in time.
fn stop_unless_complete(args: &RescueArgs, plan: &Plan<'_>, report: &SendReport) -> Result<()> {
    let state = args.state.as_deref().map(|p| p.display().to_string());
    let mut refused = 0usize;
    for (i, s) in report.sources.iter().enumerate() {
        if let Some(r) = &s.refused {
            refused += 1;
            eprintln!(
                "kseg: {}",
                words::refused_in_run(
                    &plan.source_name(i),
                    r.offset,
                    &r.error,
                    &s.landed_after,
                    state.as_deref()
                )
            );
        }
    }
    if let Some(e) = &report.error {
        bail!(
            "{e}; {} records not acknowledged{}",
            report.unacknowledged,
            match &state {
                Some(p) => format!("; {p} holds what was: rerun with the same --state to go on"),
                None => String::new(),
            }
        );
    }
    if report.unacknowledged > 0 {
        bail!(
            "{} records were not acknowledged in time",
            report.unacknowledged
        );
    }
    if refused > 0 {
        bail!(
            "{refused} of {} source partitions stopped at a record the target refused (said \
             above); the others were sent whole{}",
            report.sources.len(),
            if args.groups {
                "; no group offset was committed"
            } else {
                ""
            }
        );
    }
    Ok(())
}

/// Reads every target partition back from where the rescue began writing it and compares it
/// with the sources through the offset map.
fn verify(
    conn: &Connection,
    plan: &Plan<'_>,
    sources: &[Source<'_>],
    targets: &TargetPartitions,
    tracker: &Tracker,
    fingerprint: &str,
    scratch: &mut RecordScratch,
) -> Result<Vec<Verified>> {
    let reader = Reader::new(conn, true)?;
    let state = tracker.state(fingerprint);
    let mut read = Vec::with_capacity(targets.len());
    for (i, (t, p)) in targets.names.iter().enumerate() {
        let start = state.targets.get(&targets.name(i)).map_or(0, |g| g.start);
        let mut records = Vec::new();
        reader.read(t, *p, start, |r| {
            records.push(TargetRecord {
                offset: r.offset,
                digest: send::target_digest(r),
                create_time: r.create_time,
            });
            Ok(())
        })?;
        read.push(records);
    }
    let maps: Vec<&RescueMap> = (0..sources.len()).map(|i| tracker.map(i as u32)).collect();
    Ok(verify_through_maps(
        plan, sources, &maps, targets, &read, scratch,
    )?)
}

/// `--offset-map FILE`: one JSON line per source partition — its target topic, the last
/// source offset acknowledged (every one before it too), whether the rescue is complete, and the
/// ranges `[first source offset, last source offset, target partition, first target offset]`;
/// written whole (a temporary file renamed over it).
fn write_offset_map(path: &Path, plan: &Plan<'_>, tracker: &Tracker, complete: bool) -> Result<()> {
    let tmp = path.with_extension("kseg-tmp");
    {
        let f =
            std::fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        let mut w = BufWriter::new(f);
        for (i, d) in plan.sources.iter().enumerate() {
            words::offset_map_line(
                &mut w,
                &words::OffsetMapLine {
                    source: &plan.source_name(i),
                    topic: &d.name.topic,
                    partition: d.name.partition,
                    target: plan.target_of(i),
                    acknowledged_through: tracker.acknowledged_through(i as u32),
                    complete,
                    map: tracker.map(i as u32),
                },
            )?;
        }
        w.flush()?;
        w.get_ref().sync_all()?;
    }
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
