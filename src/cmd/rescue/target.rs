//! What `kseg rescue` asks the target before it sends anything: whether the target topics
//! exist and with how many partitions, their configs (and for a topic to be created, the
//! configs it would get over the broker's defaults), the cluster's and topics' ids, and the
//! partitions' log ends; then, once every check passed, the topics `--create-topics` makes.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{anyhow, Result};

use crate::analysis::rescue::check::TopicLimits;
use crate::analysis::rescue::topics::{internal_partitions, new_topics, NewTopic};
use crate::analysis::rescue::{Plan, ResumeState, TargetNow};
use crate::cli::RescueArgs;
use crate::client::{Admin, Connection, NewTopicSpec, Reader};
use crate::print::escape::escaped as esc;
use crate::print::rescue as words;
use crate::storage::discover::DataSet;

/// What was learned of the target.
pub struct Survey {
    /// The cluster answered (a dry run plans without it when it does not).
    pub reachable: bool,
    /// Target topic -> partitions (none: it does not exist). A dry run takes a missing topic as
    /// created with the partitions it needs.
    pub counts: BTreeMap<String, Option<i32>>,
    /// Target topics that do not exist, with the partitions they need.
    pub missing: Vec<(String, i32)>,
    /// What `--create-topics` would create.
    pub new_topics: Vec<NewTopic>,
    /// Target topic -> its limits: of its configs, or for a missing topic `--create-topics`
    /// would create, of the configs it would get.
    pub limits: BTreeMap<String, TopicLimits>,
    pub cluster_id: Option<String>,
    pub topic_ids: BTreeMap<String, Option<String>>,
}

impl Survey {
    /// Partitions of a target topic as planned (0: unknown).
    pub fn count_of(&self, topic: &str) -> i32 {
        self.counts.get(topic).copied().flatten().unwrap_or(0)
    }

    /// Topic ids known, for the state file.
    pub fn known_ids(&self) -> BTreeMap<String, String> {
        self.topic_ids
            .iter()
            .filter_map(|(t, id)| Some((t.clone(), id.clone()?)))
            .collect()
    }
}

/// How long the cluster's first answers may take.
pub fn first_wait(dry_run: bool) -> Duration {
    Duration::from_secs(if dry_run { 5 } else { 20 })
}

/// Asks the target about every topic of the plan.
pub fn survey(
    args: &RescueArgs,
    conn: &Connection,
    reader: &Reader,
    plan: &Plan<'_>,
    set: &DataSet,
    extra_configs: &BTreeMap<String, String>,
) -> Result<Survey> {
    let topics: Vec<&str> = plan.needed.keys().map(String::as_str).collect();
    let wait = first_wait(args.dry_run);
    let mut counts = match reader.partition_counts(&topics, wait) {
        Ok(c) => c,
        // A dry run needs no cluster: unreachable, it plans with the source's partition counts.
        Err(e) if args.dry_run => {
            eprintln!(
                "kseg: {e:#}; the dry run plans without it, each target topic taken as having \
                 the source's partitions"
            );
            return Ok(Survey {
                reachable: false,
                counts: plan
                    .needed
                    .iter()
                    .map(|(t, n)| (t.clone(), Some(*n)))
                    .collect(),
                missing: Vec::new(),
                new_topics: Vec::new(),
                limits: BTreeMap::new(),
                cluster_id: None,
                topic_ids: BTreeMap::new(),
            });
        }
        Err(e) => return Err(e),
    };
    let missing: Vec<(String, i32)> = plan
        .needed
        .iter()
        .filter(|(t, _)| counts[*t].is_none())
        .map(|(t, n)| (t.clone(), *n))
        .collect();
    let new = if missing.is_empty() {
        Vec::new()
    } else {
        let metadata = internal_partitions(set, "__cluster_metadata");
        new_topics(
            plan,
            &metadata,
            &missing,
            &args.skip_topic_config,
            extra_configs,
        )
    };
    let admin = Admin::new(conn)?;
    let mut limits = BTreeMap::new();
    for (t, c) in &counts {
        if c.is_none() {
            continue;
        }
        match admin.topic_configs(t) {
            Ok(c) => {
                limits.insert(t.clone(), TopicLimits::of_topic(&c));
            }
            Err(e) => eprintln!(
                "kseg: could not read the configs of target topic {} ({e:#}); if it uses \
                 LogAppendTime, the source timestamps are not kept",
                esc(t)
            ),
        }
    }
    if !new.is_empty() && (args.create_topics || args.dry_run) {
        // A new topic's configs default to the broker's.
        let broker = reader
            .some_broker(&missing[0].0, wait)
            .and_then(|id| admin.broker_configs(id));
        match broker {
            Ok(b) => {
                for t in &new {
                    limits.insert(t.name.clone(), TopicLimits::of_new_topic(&t.configs, &b));
                }
            }
            Err(e) => eprintln!(
                "kseg: could not read the broker's configs ({e:#}): the topics to create are \
                 not checked for what they would refuse"
            ),
        }
    }
    let topic_ids = reader.topic_ids(&topics, wait).unwrap_or_else(|e| {
        eprintln!("kseg: {e:#}: the target topics' ids are not known");
        topics.iter().map(|t| (t.to_string(), None)).collect()
    });
    if args.dry_run {
        // A dry run takes the missing topics as created.
        for (t, n) in &missing {
            counts.insert(t.clone(), Some(*n));
        }
    }
    Ok(Survey {
        reachable: true,
        counts,
        missing,
        new_topics: new,
        limits,
        cluster_id: reader.cluster_id(wait),
        topic_ids,
    })
}

/// The target as the `--state` check needs it: ids, and the log end of each partition the state
/// names (of the topics that exist).
pub fn now_for_state(reader: &Reader, survey: &Survey, state: &ResumeState) -> Result<TargetNow> {
    let mut now = TargetNow {
        cluster_id: survey.cluster_id.clone(),
        topic_ids: survey.topic_ids.clone(),
        ..Default::default()
    };
    for (t, c) in &survey.counts {
        let exists = c.is_some() && !survey.missing.iter().any(|(m, _)| m == t);
        now.exists.insert(t.clone(), exists);
    }
    for name in state.targets.keys() {
        let Some((topic, partition)) = name
            .rsplit_once('-')
            .and_then(|(t, p)| Some((t, p.parse::<i32>().ok()?)))
        else {
            continue;
        };
        if now.exists.get(topic) == Some(&true) && partition < survey.count_of(topic) {
            now.log_ends
                .insert(name.clone(), reader.watermarks(topic, partition)?.1);
        }
    }
    Ok(now)
}

/// Creates the missing target topics (`--create-topics`), the cluster asked first whether it
/// would (validateOnly), and says what each was given; then waits until every target topic is
/// known with its partitions.
pub fn create_topics(
    conn: &Connection,
    reader: &Reader,
    plan: &Plan<'_>,
    survey: &mut Survey,
) -> Result<()> {
    let specs: Vec<NewTopicSpec> = survey
        .new_topics
        .iter()
        .map(|t| NewTopicSpec {
            name: t.name.clone(),
            partitions: t.partitions,
            configs: t.configs.clone(),
        })
        .collect();
    let admin = Admin::new(conn)?;
    let explain = |e: anyhow::Error| {
        if specs.iter().all(|t| t.configs.is_empty()) {
            e
        } else {
            anyhow!(
                "{e:#} (configs: {}): override a config with --topic-config KEY=VALUE or leave \
                 it out with --skip-topic-config KEY",
                survey
                    .new_topics
                    .iter()
                    .map(words::new_topic_configs)
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        }
    };
    admin.validate_topics(&specs).map_err(explain)?;
    admin.create_topics(&specs).map_err(explain)?;
    for t in &survey.new_topics {
        eprintln!(
            "kseg: created {} ({} partitions) with {}",
            esc(&t.name),
            t.partitions,
            words::new_topic_configs(t)
        );
    }
    let topics: Vec<&str> = plan.needed.keys().map(String::as_str).collect();
    for _ in 0..100 {
        survey.counts = reader.partition_counts(&topics, first_wait(false))?;
        if survey.counts.values().all(Option::is_some) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // The ids of the topics just made, for the state file.
    if let Ok(ids) = reader.topic_ids(&topics, first_wait(false)) {
        survey.topic_ids = ids;
    }
    // What they were given, as the cluster says it (the send sends alone a record one of them
    // may refuse).
    for t in &survey.new_topics {
        if let Ok(c) = admin.topic_configs(&t.name) {
            survey
                .limits
                .insert(t.name.clone(), TopicLimits::of_topic(&c));
        }
    }
    Ok(())
}
