//! The send: every selected record of every source produced into its target partition, in
//! order, with what a previous run delivered matched instead of sent again, acknowledgements
//! folded into the resume state (saved as it goes), and a record the target refuses stopping
//! its source exactly there while the others go on.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::analysis::rescue::check::TopicLimits;
use crate::analysis::rescue::{
    content_digest, record_bytes, record_digest, sent_timestamp, Plan, ResumeState, SendReport,
    Sent, Source, Tail, TargetPartitions, TargetProgress, Ticket, Tracker,
};
use crate::client::{
    Delivery, Outgoing, ProducerSettings, Queued, ReadRecord, Reader, RescueProducer,
};
use crate::format::log::{LogRecord, RecordScratch};
use crate::print::progress::{self, RecordProgress};
use crate::scan::Flow;

/// What the send needs besides the sources.
pub struct SendPlan<'a> {
    pub plan: &'a Plan<'a>,
    pub sources: &'a [Source<'a>],
    pub targets: &'a TargetPartitions,
    /// Target topic -> partitions.
    pub count_of: &'a dyn Fn(&str) -> i32,
    /// Target topic -> its limits, when known: a record it may refuse is sent alone.
    pub limits: &'a BTreeMap<String, TopicLimits>,
    pub previous: Option<&'a ResumeState>,
    pub state_path: Option<&'a Path>,
    pub fingerprint: &'a str,
    pub settings: &'a ProducerSettings,
    pub max_records_per_second: u64,
    pub delivery_timeout_ms: u64,
}

pub fn target_digest(r: &ReadRecord<'_>) -> u64 {
    content_digest(r.key, r.value, r.headers.iter().copied())
}

/// The tracker of a rescue: its sources with what a previous run acknowledged, its target
/// partitions with where the rescue began writing them (a fresh one: their log end now).
pub fn tracker(
    plan: &Plan<'_>,
    targets: &TargetPartitions,
    previous: Option<&ResumeState>,
    reader: &Reader,
    identity: (Option<String>, BTreeMap<String, String>),
) -> Result<Tracker> {
    let mut tracker = Tracker::default();
    for name in plan.source_names() {
        let acknowledged = previous.and_then(|s| s.acknowledged.get(&name).copied());
        let map = previous
            .and_then(|s| s.offset_map.get(&name).cloned())
            .unwrap_or_default();
        tracker.add_source(name, acknowledged, map);
    }
    for (i, (t, p)) in targets.names.iter().enumerate() {
        let name = targets.name(i);
        let progress = match previous.and_then(|s| s.targets.get(&name)) {
            Some(p) => *p,
            None => TargetProgress::fresh(reader.watermarks(t, *p)?.1),
        };
        tracker.add_target(name, *p, progress);
    }
    tracker.set_identity(identity.0, identity.1);
    Ok(tracker)
}

/// Delivery reports folded into the tracker; the resume file saved at most every 200 ms, or
/// ten times as long as the last save took (a large offset map costs at most a tenth of the
/// time in saves).
struct Service<'a> {
    state_path: Option<&'a Path>,
    plan: &'a str,
    last_save: Instant,
    save_every: Duration,
    /// Why the run stopped (not one record's refusal).
    failed: Option<String>,
    acknowledged: u64,
    /// Sources stopped at a record the target refused.
    stopped: Vec<bool>,
}

impl Service<'_> {
    fn serve(
        &mut self,
        producer: &mut RescueProducer,
        tracker: &mut Tracker,
        wait: Duration,
        force_save: bool,
    ) -> Result<()> {
        let reports = match producer.poll(wait) {
            Ok(r) => r,
            Err(e) => {
                self.failed.get_or_insert(e.to_string());
                Vec::new()
            }
        };
        for d in reports {
            match d {
                Delivery::Acknowledged { ticket, offset } => {
                    self.acknowledged += 1;
                    tracker.acknowledged(Ticket::unpack(ticket), offset);
                }
                Delivery::Failed {
                    ticket,
                    error,
                    refused: true,
                } => {
                    let t = Ticket::unpack(ticket);
                    tracker.refused(t, error);
                    self.stopped[t.source as usize] = true;
                }
                Delivery::Failed { ticket, error, .. } => {
                    let t = Ticket::unpack(ticket);
                    self.failed.get_or_insert(format!(
                        "a record was not delivered: {error} (source #{})",
                        t.source
                    ));
                }
            }
        }
        if let Some(path) = self.state_path {
            if force_save || self.last_save.elapsed() >= self.save_every {
                let began = Instant::now();
                tracker
                    .state(self.plan)
                    .save(path)
                    .with_context(|| format!("saving {}", path.display()))?;
                self.last_save = Instant::now();
                self.save_every = Duration::from_millis(200).max(began.elapsed() * 10);
            }
        }
        Ok(())
    }

    /// Serves reports until every record sent is acknowledged or refused (or the run failed,
    /// or `deadline` passed).
    fn settle(
        &mut self,
        producer: &mut RescueProducer,
        tracker: &mut Tracker,
        deadline: Instant,
    ) -> Result<()> {
        while (tracker.in_flight() > 0 || producer.in_flight() > 0)
            && self.failed.is_none()
            && Instant::now() < deadline
        {
            self.serve(producer, tracker, Duration::from_millis(5), false)?;
        }
        Ok(())
    }
}

/// What a previous run delivered after its last save, read from each target partition from its
/// resume point, to be matched instead of sent again. Returns the tails and how many records
/// they hold.
fn tails(
    reader: &Reader,
    targets: &TargetPartitions,
    previous: Option<&ResumeState>,
) -> Result<(Vec<Tail>, u64)> {
    let mut tails: Vec<Tail> = targets.names.iter().map(|_| Tail::default()).collect();
    let mut n = 0u64;
    if let Some(prev) = previous {
        for (i, (t, p)) in targets.names.iter().enumerate() {
            if let Some(progress) = prev.targets.get(&targets.name(i)) {
                reader.read(t, *p, progress.resume_from, |r| {
                    tails[i]
                        .records
                        .push_back((r.offset, target_digest(r), r.create_time));
                    n += 1;
                    Ok(())
                })?;
            }
        }
    }
    Ok((tails, n))
}

/// One source's send, and what it needs from the run around it.
struct Sending<'a, 'p> {
    sp: &'a SendPlan<'p>,
    producer: &'a mut RescueProducer,
    tracker: &'a mut Tracker,
    service: &'a mut Service<'p>,
    tails: &'a mut [Tail],
    bar: &'a mut RecordProgress,
    started: Instant,
    sent_total: u64,
    bytes_total: u64,
    error: Option<anyhow::Error>,
}

impl Sending<'_, '_> {
    /// Sends (or matches) one record of source `i`; `Flow::Stop` ends the source.
    fn record(&mut self, i: usize, r: &LogRecord<'_>, sent: &mut Sent) -> Result<Flow> {
        if self.service.stopped[i] || self.service.failed.is_some() {
            return Ok(Flow::Stop);
        }
        let sp = self.sp;
        let topic = sp.plan.target_of(i);
        let source_partition = sp.plan.sources[i].name.partition;
        let p = sp
            .plan
            .partitioning
            .target(source_partition, r.key, (sp.count_of)(topic));
        let ti = sp.targets.of(topic, p);
        let ts = sent_timestamp(r);
        let tail = &mut self.tails[ti as usize];
        if tail.is_open() {
            if let Some(at) = tail.take_if(record_digest(r), ts) {
                self.tracker.delivered_before(i as u32, r.offset, ti, at);
                sent.resumed += 1;
                return Ok(Flow::Continue);
            }
        }
        let mut headers: Vec<(&str, Option<&[u8]>)> = Vec::new();
        for h in r.headers.iter() {
            match std::str::from_utf8(h.key) {
                Ok(k) => headers.push((k, h.value)),
                Err(_) => {
                    anyhow::bail!(
                        "{} offset {}: a header key is not UTF-8, which a Kafka client cannot \
                         send",
                        sp.plan.source_name(i),
                        r.offset
                    );
                }
            }
        }
        // A record the target may refuse goes alone, once everything before it is settled, and
        // is waited for: a refusal then stops the source exactly there, nothing after it sent.
        let now = crate::broker::now_ms();
        let alone = sp.limits.get(topic).is_some_and(|l| l.at_risk(r, now));
        let deadline = Instant::now() + Duration::from_millis(sp.delivery_timeout_ms + 30_000);
        if alone {
            self.service.settle(self.producer, self.tracker, deadline)?;
            if self.service.stopped[i] || self.service.failed.is_some() {
                return Ok(Flow::Stop);
            }
        }
        // Sent, not matched: nothing later in this partition's tail is taken for delivered.
        self.tails[ti as usize].close();
        let ticket = self.tracker.sent(i as u32, r.offset, ti);
        let queued = self.producer.send(&Outgoing {
            topic,
            partition: p,
            key: r.key,
            value: r.value,
            headers: &headers,
            timestamp: ts,
            ticket: ticket.pack(),
        })?;
        if let Queued::Refused(why) = queued {
            self.tracker.refused(ticket, why);
            self.service.stopped[i] = true;
            return Ok(Flow::Stop);
        }
        *sent.to.entry(p).or_default() += 1;
        self.sent_total += 1;
        let b = record_bytes(r);
        self.bytes_total += b;
        self.bar.add(1, b);
        if alone {
            self.service.settle(self.producer, self.tracker, deadline)?;
            if self.service.stopped[i] {
                return Ok(Flow::Stop);
            }
        }
        if self.sent_total.is_multiple_of(512) {
            self.service
                .serve(self.producer, self.tracker, Duration::ZERO, false)?;
            if self.service.failed.is_some() {
                return Ok(Flow::Stop);
            }
        }
        if sp.max_records_per_second > 0 {
            let due =
                Duration::from_secs_f64(self.sent_total as f64 / sp.max_records_per_second as f64);
            while self.started.elapsed() < due {
                let _ = self.service.serve(
                    self.producer,
                    self.tracker,
                    Duration::from_millis(5),
                    false,
                );
            }
        }
        Ok(Flow::Continue)
    }
}

/// Sends every source's records; the tracker ends holding what was acknowledged.
pub fn send(
    sp: &SendPlan<'_>,
    reader: &Reader,
    conn: &crate::client::Connection,
    tracker: &mut Tracker,
    scratch: &mut RecordScratch,
) -> Result<SendReport> {
    if let Some(p) = sp.state_path {
        // Saved before the first record is sent: a stop at any point leaves where the targets
        // ended before this rescue.
        tracker
            .state(sp.fingerprint)
            .save(p)
            .with_context(|| format!("saving {}", p.display()))?;
    }
    let (mut tails, tail_records) = tails(reader, sp.targets, sp.previous)?;
    let mut producer = RescueProducer::new(conn, sp.settings)?;
    // The committed records are counted per partition; a selection or a resume sends fewer, and
    // how many is not known before the walk, so the bar then shows no total and no ETA.
    let total: Option<u64> =
        (sp.plan.selection.is_everything() && sp.previous.is_none()).then(|| {
            sp.sources
                .iter()
                .map(|s| s.outcomes.data_records - s.outcomes.not_committed_records)
                .sum()
        });
    let mut bar = RecordProgress::new(progress::wanted(true, false), total);
    let mut service = Service {
        state_path: sp.state_path,
        plan: sp.fingerprint,
        last_save: Instant::now(),
        save_every: Duration::from_millis(200),
        failed: None,
        acknowledged: 0,
        stopped: vec![false; sp.sources.len()],
    };
    let started = Instant::now();
    let mut report = SendReport::default();
    let mut s = Sending {
        sp,
        producer: &mut producer,
        tracker,
        service: &mut service,
        tails: &mut tails,
        bar: &mut bar,
        started,
        sent_total: 0,
        bytes_total: 0,
        error: None,
    };
    for (i, source) in sp.sources.iter().enumerate() {
        let mut sent = Sent::default();
        let after = s.tracker.acknowledged_through(i as u32);
        let tally = source.select(sp.plan.selection, after, scratch, |r| {
            match s.record(i, r, &mut sent) {
                Ok(flow) => Ok(flow),
                Err(e) => {
                    s.error = Some(e);
                    Ok(Flow::Stop)
                }
            }
        })?;
        sent.tally = tally;
        report.sources.push(sent);
        if let Some(e) = s.error.take() {
            s.service.failed.get_or_insert(format!("{e:#}"));
        }
        if s.service.failed.is_some() {
            break;
        }
    }
    let (sent_total, bytes_total) = (s.sent_total, s.bytes_total);
    // Everything sent is acknowledged (or has failed) before the last save.
    let deadline = Instant::now() + Duration::from_millis(sp.delivery_timeout_ms + 30_000);
    // The library counts a record until its delivery report (success or failure) is served.
    while producer.in_flight() > 0 && Instant::now() < deadline {
        service.serve(&mut producer, tracker, Duration::from_millis(50), false)?;
    }
    service.serve(&mut producer, tracker, Duration::ZERO, true)?;
    drop(bar);
    for (i, sent) in report.sources.iter_mut().enumerate() {
        sent.refused = tracker.refusal(i as u32).cloned();
        sent.landed_after = tracker
            .landed_after_refusal(i as u32)
            .into_iter()
            .map(|(ti, at)| (sp.targets.name(ti as usize), at))
            .collect();
    }
    let leftover: u64 = tails.iter().map(|t| t.records.len() as u64).sum();
    report.sent = sent_total;
    report.bytes = bytes_total;
    report.acknowledged = service.acknowledged;
    report.refused = report
        .sources
        .iter()
        .filter(|s| s.refused.is_some())
        .count() as u64;
    report.unacknowledged = tracker.in_flight();
    report.resume_matched = tail_records - leftover;
    report.foreign = leftover;
    report.seconds = started.elapsed().as_secs_f64();
    report.error = service.failed;
    Ok(report)
}
