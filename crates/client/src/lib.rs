//! A Kafka client for `kseg rescue`: librdkafka (built from its bundled source by the `rdkafka`
//! crate) as an idempotent producer, a consumer reading partitions back, and the admin calls
//! (metadata, topic configs, topic creation). TLS and SASL (PLAIN, SCRAM-SHA-256/512) are
//! librdkafka's own; this module only turns kseg's options into its configuration and its
//! answers into plain values.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, ResourceSpecifier, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::message::{Header, Headers, Message, OwnedHeaders, Timestamp};
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::util::Timeout;
use rdkafka::{ClientContext, Offset, TopicPartitionList};

/// How to reach and authenticate to the cluster.
#[derive(Debug, Clone, Default)]
pub struct Connection {
    pub bootstrap: String,
    /// `plaintext`, `ssl`, `sasl_plaintext` or `sasl_ssl`.
    pub security_protocol: Option<String>,
    /// `PLAIN`, `SCRAM-SHA-256` or `SCRAM-SHA-512`.
    pub sasl_mechanism: Option<String>,
    pub sasl_username: Option<String>,
    pub sasl_password: Option<String>,
    /// PEM file of the CA certificates that sign the brokers' certificates.
    pub ssl_ca: Option<String>,
    /// PEM files of a client certificate and its key (mutual TLS).
    pub ssl_certificate: Option<String>,
    pub ssl_key: Option<String>,
    /// Any other librdkafka property (`--client-config KEY=VALUE`).
    pub extra: Vec<(String, String)>,
}

impl Connection {
    fn config(&self) -> ClientConfig {
        let mut c = ClientConfig::new();
        c.set("bootstrap.servers", &self.bootstrap)
            .set("client.id", "kseg-rescue")
            .set("log_level", "3");
        let mut set = |k: &str, v: &Option<String>| {
            if let Some(v) = v {
                c.set(k, v);
            }
        };
        set("security.protocol", &self.security_protocol);
        set("sasl.mechanism", &self.sasl_mechanism);
        set("sasl.username", &self.sasl_username);
        set("sasl.password", &self.sasl_password);
        set("ssl.ca.location", &self.ssl_ca);
        set("ssl.certificate.location", &self.ssl_certificate);
        set("ssl.key.location", &self.ssl_key);
        for (k, v) in &self.extra {
            c.set(k, v);
        }
        c
    }
}

/// One partition's delivery report.
#[derive(Debug)]
pub enum Delivery {
    Acknowledged {
        ticket: usize,
        offset: i64,
    },
    Failed {
        ticket: usize,
        error: String,
        /// The broker refused this record for what it is (too large, a timestamp out of range,
        /// no key on a compacted topic, a policy): sending it again changes nothing until the
        /// target's config does. Otherwise the run failed (a timeout, the cluster, a login).
        refused: bool,
    },
}

/// Errors with which a broker refuses one record (or its batch) for its content
/// (`Errors.MESSAGE_TOO_LARGE`, `RECORD_LIST_TOO_LARGE`, `INVALID_TIMESTAMP`, `INVALID_RECORD`,
/// `CORRUPT_MESSAGE`, `POLICY_VIOLATION`); librdkafka reports a record over its own
/// `message.max.bytes` as MSG_SIZE_TOO_LARGE too.
fn refuses_the_record(code: RDKafkaErrorCode) -> bool {
    matches!(
        code,
        RDKafkaErrorCode::MessageSizeTooLarge
            | RDKafkaErrorCode::MessageBatchTooLarge
            | RDKafkaErrorCode::InvalidTimestamp
            | RDKafkaErrorCode::InvalidRecord
            | RDKafkaErrorCode::InvalidMessage
            | RDKafkaErrorCode::InvalidMessageSize
            | RDKafkaErrorCode::PolicyViolation
    )
}

/// Collects delivery reports; they are handed out by [`RescueProducer::poll`].
#[derive(Default)]
pub struct Reports {
    deliveries: Mutex<Vec<Delivery>>,
    /// A fatal or authentication error the library reported outside a delivery.
    error: Mutex<Option<String>>,
    /// Why the brokers could not be reached (resolve, connect, TLS), in plain words.
    transport: Mutex<Option<String>>,
}

/// The library could not reach a broker (resolve, connect, TLS).
fn is_transport(e: &KafkaError) -> bool {
    matches!(
        e.rdkafka_error_code(),
        Some(
            RDKafkaErrorCode::BrokerTransportFailure
                | RDKafkaErrorCode::AllBrokersDown
                | RDKafkaErrorCode::Resolve
                | RDKafkaErrorCode::SSL
        )
    )
}

/// What goes wrong reaching the bootstrap addresses, found by trying them: a name that does not
/// resolve, a refused or timed-out TCP connection, or (the TCP connection made) the handshake.
pub fn diagnose(bootstrap: &str) -> String {
    use std::net::{TcpStream, ToSocketAddrs};
    let mut out = Vec::new();
    for server in bootstrap
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let server = server.rsplit("://").next().unwrap_or(server);
        let addrs = match server.to_socket_addrs() {
            Ok(a) => a.collect::<Vec<_>>(),
            Err(_) => {
                out.push(format!("{server} does not resolve"));
                continue;
            }
        };
        let Some(addr) = addrs.first() else {
            out.push(format!("{server} does not resolve"));
            continue;
        };
        match TcpStream::connect_timeout(addr, Duration::from_secs(3)) {
            Ok(_) => out.push(format!(
                "{server} accepts TCP connections but the Kafka connection failed (TLS or SASL \
                 settings, or not a Kafka listener?)"
            )),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => out.push(format!(
                "connection to {server} refused (nothing listens there)"
            )),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                out.push(format!("connection to {server} timed out"))
            }
            Err(e) => out.push(format!("connection to {server} failed: {e}")),
        }
    }
    out.join("; ")
}

/// A librdkafka transport error's reason (`127.0.0.1:1/bootstrap: Connect to ipv4#127.0.0.1:1
/// failed: Connection refused (after 0ms in state CONNECT)`) in plain words.
pub fn plain_transport_reason(reason: &str) -> String {
    let r = reason.to_ascii_lowercase();
    let known = [
        (
            "connection refused",
            "connection refused (nothing listens there)",
        ),
        ("failed to resolve", "the host name does not resolve"),
        ("timed out", "the connection timed out"),
        ("ssl handshake failed", "the TLS handshake failed"),
        (
            "certificate verify failed",
            "the broker's TLS certificate is not trusted",
        ),
        ("disconnected", "the broker closed the connection"),
        ("network is unreachable", "the network is unreachable"),
        ("no route to host", "no route to the host"),
    ];
    if let Some((_, plain)) = known.iter().find(|(k, _)| r.contains(k)) {
        return (*plain).to_string();
    }
    // Unknown: the library's words without its internal names.
    let mut text = reason.to_string();
    if let Some(i) = text.find(": ") {
        if text[..i].contains("/bootstrap") || text[..i].contains('/') {
            text = text[i + 2..].to_string();
        }
    }
    if let Some(i) = text.find(" (after ") {
        text.truncate(i);
    }
    text.replace("ipv4#", "").replace("ipv6#", "")
}

impl ClientContext for Reports {
    fn error(&self, error: KafkaError, reason: &str) {
        let fatal = matches!(
            error.rdkafka_error_code(),
            Some(
                RDKafkaErrorCode::Fatal
                    | RDKafkaErrorCode::Authentication
                    | RDKafkaErrorCode::SaslAuthenticationFailed
                    | RDKafkaErrorCode::TopicAuthorizationFailed
                    | RDKafkaErrorCode::ClusterAuthorizationFailed
            )
        );
        if fatal {
            let mut e = self.error.lock().unwrap_or_else(|p| p.into_inner());
            e.get_or_insert_with(|| format!("{error}: {reason}"));
        }
        let transport = matches!(
            error.rdkafka_error_code(),
            Some(
                RDKafkaErrorCode::BrokerTransportFailure
                    | RDKafkaErrorCode::AllBrokersDown
                    | RDKafkaErrorCode::Resolve
                    | RDKafkaErrorCode::SSL
            )
        );
        if transport {
            let mut t = self.transport.lock().unwrap_or_else(|p| p.into_inner());
            if t.is_none() && !reason.to_ascii_lowercase().contains("brokers are down") {
                *t = Some(plain_transport_reason(reason));
            }
        }
    }
}

impl rdkafka::consumer::ConsumerContext for Reports {}

impl Reports {
    /// The error the library reported outside any call, if any (a refused login, ...).
    fn reported(&self) -> Option<String> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Why the brokers could not be reached, if that is what happened.
    fn unreachable(&self) -> Option<String> {
        self.transport
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

impl ProducerContext for Reports {
    type DeliveryOpaque = usize;
    fn delivery(&self, result: &DeliveryResult<'_>, ticket: usize) {
        let d = match result {
            Ok(m) => Delivery::Acknowledged {
                ticket,
                offset: m.offset(),
            },
            Err((e, _)) => {
                let refused = e.rdkafka_error_code().is_some_and(refuses_the_record);
                Delivery::Failed {
                    ticket,
                    // A refusal in the broker's words ("Broker: Message size too large").
                    error: match e.rdkafka_error_code() {
                        Some(code) if refused => code.to_string(),
                        _ => e.to_string(),
                    },
                    refused,
                }
            }
        };
        self.deliveries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(d);
    }
}

/// Producer settings (`--batch-bytes`, `--linger-ms`, `--compression`).
#[derive(Debug, Clone)]
pub struct ProducerSettings {
    pub batch_bytes: usize,
    pub linger_ms: u64,
    pub compression: String,
    /// How long a record may take to be delivered, retries included.
    pub delivery_timeout_ms: u64,
    /// The largest record the library lets through itself (librdkafka's `message.max.bytes`,
    /// also its largest request): the target's brokers decide about the records below it.
    pub max_record_bytes: usize,
}

/// Whether [`RescueProducer::send`] queued a record.
#[derive(Debug, PartialEq, Eq)]
pub enum Queued {
    Yes,
    /// The library refused it for what it is (larger than `message.max.bytes`).
    Refused(String),
}

/// An idempotent producer with acks=all: no record duplicated or reordered within a run, retries
/// with backoff, the broker's throttling honoured (librdkafka waits out `throttle_time_ms`).
pub struct RescueProducer {
    inner: BaseProducer<Reports>,
    taken: Vec<Delivery>,
    max_record_bytes: usize,
}

/// A record to send, borrowed from the source.
pub struct Outgoing<'a> {
    pub topic: &'a str,
    pub partition: i32,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    pub headers: &'a [(&'a str, Option<&'a [u8]>)],
    pub timestamp: Option<i64>,
    pub ticket: usize,
}

impl RescueProducer {
    pub fn new(conn: &Connection, s: &ProducerSettings) -> Result<RescueProducer> {
        let mut c = conn.config();
        c.set("enable.idempotence", "true")
            .set("acks", "all")
            .set("max.in.flight.requests.per.connection", "5")
            .set("retries", "2147483647")
            .set("retry.backoff.ms", "100")
            .set("retry.backoff.max.ms", "1000")
            .set("batch.size", s.batch_bytes.to_string())
            .set("linger.ms", s.linger_ms.to_string())
            .set("compression.codec", &s.compression)
            .set("message.timeout.ms", s.delivery_timeout_ms.to_string())
            // Records as large as Kafka's largest default message, and batches up to the asked
            // size, fit.
            .set("message.max.bytes", s.max_record_bytes.to_string())
            .set("queue.buffering.max.kbytes", "262144");
        let inner: BaseProducer<Reports> = c
            .create_with_context(Reports::default())
            .context("creating the producer")?;
        Ok(RescueProducer {
            inner,
            taken: Vec::new(),
            max_record_bytes: s.max_record_bytes,
        })
    }

    /// Queues one record; waits (serving delivery reports) while the local queue is full.
    pub fn send(&mut self, r: &Outgoing<'_>) -> Result<Queued> {
        loop {
            let mut rec: BaseRecord<'_, [u8], [u8], usize> =
                BaseRecord::with_opaque_to(r.topic, r.ticket).partition(r.partition);
            if !r.headers.is_empty() {
                let mut headers = OwnedHeaders::new_with_capacity(r.headers.len());
                for (k, v) in r.headers {
                    headers = headers.insert(Header { key: k, value: *v });
                }
                rec = rec.headers(headers);
            }
            if let Some(k) = r.key {
                rec = rec.key(k);
            }
            if let Some(v) = r.value {
                rec = rec.payload(v);
            }
            if let Some(ts) = r.timestamp {
                rec = rec.timestamp(ts);
            }
            match self.inner.send(rec) {
                Ok(()) => return Ok(Queued::Yes),
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), _)) => {
                    self.inner.poll(Duration::from_millis(20));
                    self.check()?;
                }
                Err((KafkaError::MessageProduction(code), _)) if refuses_the_record(code) => {
                    return Ok(Queued::Refused(format!(
                        "{code}: the producer's message.max.bytes is {}",
                        self.max_record_bytes
                    )));
                }
                Err((e, _)) => {
                    bail!(
                        "{}-{}: the producer refused a record: {e}",
                        r.topic,
                        r.partition
                    )
                }
            }
        }
    }

    /// Serves callbacks for up to `wait`; returns the delivery reports that came in.
    pub fn poll(&mut self, wait: Duration) -> Result<Vec<Delivery>> {
        self.inner.poll(wait);
        self.check()?;
        let mut d = self
            .inner
            .context()
            .deliveries
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        self.taken.clear();
        std::mem::swap(&mut self.taken, &mut d);
        Ok(std::mem::take(&mut self.taken))
    }

    fn check(&self) -> Result<()> {
        if let Some(e) = self
            .inner
            .context()
            .error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        {
            bail!("{e}");
        }
        Ok(())
    }

    /// Records queued or in flight.
    pub fn in_flight(&self) -> i32 {
        self.inner.in_flight_count()
    }
}

/// A partition's end offsets and the records of a range of it, as a consumer reads them.
pub struct Reader {
    consumer: BaseConsumer<Reports>,
    bootstrap: String,
}

/// One record read back.
pub struct ReadRecord<'a> {
    pub offset: i64,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    pub headers: Vec<(&'a [u8], Option<&'a [u8]>)>,
    /// `Some` for CreateTime, `None` for LogAppendTime (the broker's own time).
    pub create_time: Option<i64>,
}

impl Reader {
    /// `read_committed` reads only what the last stable offset allows.
    pub fn new(conn: &Connection, read_committed: bool) -> Result<Reader> {
        let mut c = conn.config();
        c.set("group.id", "kseg-rescue-reader")
            .set("enable.auto.commit", "false")
            .set("enable.partition.eof", "true")
            .set(
                "isolation.level",
                if read_committed {
                    "read_committed"
                } else {
                    "read_uncommitted"
                },
            );
        Ok(Reader {
            consumer: c
                .create_with_context(Reports::default())
                .context("creating the consumer")?,
            bootstrap: conn.bootstrap.clone(),
        })
    }

    /// The library's own error (a refused login, ...) added to a failed call's.
    fn explain(&self, e: KafkaError, what: String) -> anyhow::Error {
        // A consumer hands the library's errors (a refused login) out of poll.
        let mut seen = self.consumer.context().reported();
        let mut transport = is_transport(&e);
        for _ in 0..100 {
            match self.consumer.poll(Duration::from_millis(5)) {
                Some(Err(e)) if is_transport(&e) => transport = true,
                Some(Err(e)) => {
                    seen.get_or_insert_with(|| e.to_string());
                }
                Some(Ok(_)) => {}
                None => break,
            }
        }
        match seen {
            Some(r) => anyhow!("{what}: {e} ({r})"),
            // One plain line: where, and what failed (not the library's internal names).
            None if transport => {
                let why = self
                    .consumer
                    .context()
                    .unreachable()
                    .unwrap_or_else(|| diagnose(&self.bootstrap));
                anyhow!(
                    "cannot reach the cluster at {} (--bootstrap): {why}",
                    self.bootstrap
                )
            }
            None => anyhow!("{what}: {e}"),
        }
    }

    /// Partition counts of `topics` (`None`: the topic does not exist), each asked for at most
    /// `wait`.
    pub fn partition_counts(
        &self,
        topics: &[&str],
        wait: Duration,
    ) -> Result<BTreeMap<String, Option<i32>>> {
        let mut out = BTreeMap::new();
        for t in topics {
            let md = self
                .consumer
                .fetch_metadata(Some(t), wait)
                .map_err(|e| self.explain(e, format!("metadata of topic {t}")))?;
            let count = md.topics().first().and_then(|m| match m.error() {
                None => Some(m.partitions().len() as i32),
                Some(_) => None,
            });
            out.insert(t.to_string(), count);
        }
        Ok(out)
    }

    /// The cluster's id (Metadata's `ClusterId`), if it answers one.
    pub fn cluster_id(&self, wait: Duration) -> Option<String> {
        self.consumer.client().fetch_cluster_id(wait)
    }

    /// The id of a broker of the cluster (the one answering Metadata for `topic`).
    pub fn some_broker(&self, topic: &str, wait: Duration) -> Result<i32> {
        let md = self
            .consumer
            .fetch_metadata(Some(topic), wait)
            .map_err(|e| self.explain(e, format!("metadata of topic {topic}")))?;
        Ok(md.brokers().first().map_or(md.orig_broker_id(), |b| b.id()))
    }

    /// Each topic's id (Metadata v10+; `None`: the topic does not exist, or the cluster keeps no
    /// topic ids). Asked with librdkafka's DescribeTopics, which the `rdkafka` crate does not
    /// wrap.
    pub fn topic_ids(
        &self,
        topics: &[&str],
        wait: Duration,
    ) -> Result<BTreeMap<String, Option<String>>> {
        use rdkafka::bindings as rd;
        use std::ffi::{CStr, CString};
        let mut out: BTreeMap<String, Option<String>> =
            topics.iter().map(|t| (t.to_string(), None)).collect();
        if topics.is_empty() {
            return Ok(out);
        }
        let names: Vec<CString> = topics
            .iter()
            .map(|t| CString::new(*t))
            .collect::<Result<_, _>>()
            .context("a topic name holds a NUL byte")?;
        let mut ptrs: Vec<*const std::os::raw::c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let rk = self.consumer.client().native_ptr();
        // SAFETY: every handle made here is destroyed here; `rk` outlives the call (the
        // consumer is borrowed); the C strings outlive the collection made of them, and the
        // strings read back are copied before the event holding them is destroyed.
        unsafe {
            let queue = rd::rd_kafka_queue_new(rk);
            let options = rd::rd_kafka_AdminOptions_new(
                rk,
                rd::rd_kafka_admin_op_t::RD_KAFKA_ADMIN_OP_DESCRIBETOPICS,
            );
            let mut errstr = [0 as std::os::raw::c_char; 256];
            rd::rd_kafka_AdminOptions_set_request_timeout(
                options,
                wait.as_millis().min(i32::MAX as u128) as i32,
                errstr.as_mut_ptr(),
                errstr.len(),
            );
            let collection =
                rd::rd_kafka_TopicCollection_of_topic_names(ptrs.as_mut_ptr(), ptrs.len());
            rd::rd_kafka_DescribeTopics(rk, collection, options, queue);
            let event = rd::rd_kafka_queue_poll(
                queue,
                (wait.as_millis() + 5000).min(i32::MAX as u128) as i32,
            );
            let answer = if event.is_null() {
                Err(anyhow!(
                    "describing topics {}: no answer in time",
                    topics.join(", ")
                ))
            } else if rd::rd_kafka_event_error(event)
                != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
            {
                let why = CStr::from_ptr(rd::rd_kafka_event_error_string(event))
                    .to_string_lossy()
                    .into_owned();
                Err(anyhow!("describing topics {}: {why}", topics.join(", ")))
            } else {
                let result = rd::rd_kafka_event_DescribeTopics_result(event);
                let mut n = 0usize;
                let descs = rd::rd_kafka_DescribeTopics_result_topics(result, &mut n);
                for i in 0..n {
                    let d = *descs.add(i);
                    let err = rd::rd_kafka_TopicDescription_error(d);
                    if !err.is_null()
                        && rd::rd_kafka_error_code(err)
                            != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
                    {
                        continue;
                    }
                    let name = CStr::from_ptr(rd::rd_kafka_TopicDescription_name(d))
                        .to_string_lossy()
                        .into_owned();
                    let uuid = rd::rd_kafka_TopicDescription_topic_id(d);
                    let zero = uuid.is_null()
                        || (rd::rd_kafka_Uuid_most_significant_bits(uuid) == 0
                            && rd::rd_kafka_Uuid_least_significant_bits(uuid) == 0);
                    if !zero {
                        let id = CStr::from_ptr(rd::rd_kafka_Uuid_base64str(uuid))
                            .to_string_lossy()
                            .into_owned();
                        out.insert(name, Some(id));
                    }
                }
                Ok(())
            };
            if !event.is_null() {
                rd::rd_kafka_event_destroy(event);
            }
            rd::rd_kafka_TopicCollection_destroy(collection);
            rd::rd_kafka_AdminOptions_destroy(options);
            rd::rd_kafka_queue_destroy(queue);
            answer?;
        }
        Ok(out)
    }

    /// (log start, high watermark) of a partition.
    pub fn watermarks(&self, topic: &str, partition: i32) -> Result<(i64, i64)> {
        self.consumer
            .fetch_watermarks(topic, partition, Duration::from_secs(30))
            .map_err(|e| self.explain(e, format!("end offset of {topic}-{partition}")))
    }

    /// Every record of `topic-partition` from `from` to the end offset as of now, in order.
    pub fn read(
        &self,
        topic: &str,
        partition: i32,
        from: i64,
        mut visit: impl FnMut(&ReadRecord<'_>) -> Result<()>,
    ) -> Result<()> {
        let (start, end) = self.watermarks(topic, partition)?;
        if from >= end {
            return Ok(());
        }
        let moved = |start: i64, at: i64| {
            anyhow!(
                "{topic}-{partition}: the target's log start offset is {start}, past offset {at} \
                 where the records to verify begin: offsets {at}..{} were deleted in the target \
                 (its retention.ms or retention.bytes, or DeleteRecords), so they cannot be read \
                 back",
                start - 1
            )
        };
        if start > from {
            return Err(moved(start, from));
        }
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset(topic, partition, Offset::Offset(from))?;
        self.consumer.assign(&tpl)?;
        let mut next = from;
        let mut idle = 0u32;
        while next < end {
            match self
                .consumer
                .poll(Timeout::After(Duration::from_millis(500)))
            {
                None => {
                    idle += 1;
                    if idle.is_multiple_of(10) {
                        let (start, _) = self.watermarks(topic, partition)?;
                        if start > next {
                            return Err(moved(start, next));
                        }
                    }
                    if idle > 120 {
                        bail!(
                            "{topic}-{partition}: no record came back from offset {next} in 60 s"
                        );
                    }
                }
                Some(Err(KafkaError::PartitionEOF(_))) => {
                    // Transaction markers and aborted records take offsets up to the end.
                    let pos = self.position(topic, partition)?.unwrap_or(next);
                    if pos >= end {
                        break;
                    }
                }
                Some(Err(e)) => return Err(anyhow!("{topic}-{partition}: {e}")),
                Some(Ok(m)) => {
                    idle = 0;
                    next = m.offset() + 1;
                    let headers = m
                        .headers()
                        .map(|h| {
                            h.iter()
                                .map(|h| (h.key.as_bytes(), h.value))
                                .collect::<Vec<_>>()
                        })
                        .unwrap_or_default();
                    let create_time = match m.timestamp() {
                        Timestamp::CreateTime(t) => Some(t),
                        _ => None,
                    };
                    visit(&ReadRecord {
                        offset: m.offset(),
                        key: m.key(),
                        value: m.payload(),
                        headers,
                        create_time,
                    })?;
                }
            }
        }
        self.consumer.unassign()?;
        Ok(())
    }

    fn position(&self, topic: &str, partition: i32) -> Result<Option<i64>> {
        let pos = self.consumer.position()?;
        Ok(pos
            .find_partition(topic, partition)
            .and_then(|e| match e.offset() {
                Offset::Offset(o) => Some(o),
                _ => None,
            }))
    }
}

/// A topic to create.
#[derive(Debug, Clone)]
pub struct NewTopicSpec {
    pub name: String,
    pub partitions: i32,
    pub configs: BTreeMap<String, String>,
}

/// Admin calls: topic configs and creation.
pub struct Admin {
    admin: AdminClient<DefaultClientContext>,
    runtime: tokio::runtime::Runtime,
}

impl Admin {
    pub fn new(conn: &Connection) -> Result<Admin> {
        Ok(Admin {
            admin: conn
                .config()
                .create()
                .context("creating the admin client")?,
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?,
        })
    }

    /// `message.timestamp.type` of a topic.
    pub fn timestamp_type(&self, topic: &str) -> Result<Option<String>> {
        Ok(self.topic_configs(topic)?.remove("message.timestamp.type"))
    }

    /// A topic's configs as the cluster answers DescribeConfigs (its own and the defaults).
    pub fn topic_configs(&self, topic: &str) -> Result<BTreeMap<String, String>> {
        let opts = AdminOptions::new().request_timeout(Some(Duration::from_secs(30)));
        let spec = [ResourceSpecifier::Topic(topic)];
        let res = self
            .runtime
            .block_on(self.admin.describe_configs(&spec, &opts))
            .with_context(|| format!("configs of topic {topic}"))?;
        Ok(res
            .into_iter()
            .flatten()
            .flat_map(|r| r.entries)
            .filter_map(|e| Some((e.name, e.value?)))
            .collect())
    }

    /// A broker's configs as DescribeConfigs answers them (what a new topic's configs default
    /// to, under their broker names).
    pub fn broker_configs(&self, broker: i32) -> Result<BTreeMap<String, String>> {
        let opts = AdminOptions::new().request_timeout(Some(Duration::from_secs(30)));
        let spec = [ResourceSpecifier::Broker(broker)];
        let res = self
            .runtime
            .block_on(self.admin.describe_configs(&spec, &opts))
            .with_context(|| format!("configs of broker {broker}"))?;
        Ok(res
            .into_iter()
            .flatten()
            .flat_map(|r| r.entries)
            .filter_map(|e| Some((e.name, e.value?)))
            .collect())
    }

    /// Asks the cluster whether it would create `topics` (CreateTopics with validateOnly): a
    /// config or a name it refuses is known before any topic is made.
    pub fn validate_topics(&self, topics: &[NewTopicSpec]) -> Result<()> {
        self.create(topics, true)
    }

    /// Creates topics (name, partitions, configs) with the cluster's default replication.
    pub fn create_topics(&self, topics: &[NewTopicSpec]) -> Result<()> {
        self.create(topics, false)
    }

    fn create(&self, topics: &[NewTopicSpec], validate_only: bool) -> Result<()> {
        let new: Vec<NewTopic<'_>> = topics
            .iter()
            .map(|t| {
                let mut n = NewTopic::new(&t.name, t.partitions, TopicReplication::Fixed(-1));
                for (k, v) in &t.configs {
                    n = n.set(k, v);
                }
                n
            })
            .collect();
        let opts = AdminOptions::new()
            .operation_timeout(Some(Duration::from_secs(60)))
            .validate_only(validate_only);
        let res = self
            .runtime
            .block_on(self.admin.create_topics(&new, &opts))
            .context(if validate_only {
                "checking the topics to create"
            } else {
                "creating topics"
            })?;
        let refused: Vec<String> = res
            .into_iter()
            .filter_map(|r| r.err())
            .filter(|(_, e)| *e != RDKafkaErrorCode::TopicAlreadyExists)
            .map(|(t, e)| format!("topic {t}: {e}"))
            .collect();
        match refused.first() {
            None => Ok(()),
            Some(_) if validate_only => bail!(
                "the target would not create {} (CreateTopics, validateOnly)",
                refused.join("; ")
            ),
            Some(first) => bail!("creating {first}"),
        }
    }
}

/// A consumer group as the target's coordinator describes it (DescribeGroups).
#[derive(Debug, Clone)]
pub struct GroupDescription {
    /// `Empty`, `Stable`, `PreparingRebalance`, ... (empty when the coordinator does not
    /// describe the group this way).
    pub state: String,
    pub members: usize,
}

/// Why a commit was refused.
#[derive(Debug)]
pub enum CommitRefusal {
    /// The group has members (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS,
    /// STALE_MEMBER_EPOCH, NON_EMPTY_GROUP): Kafka accepts offsets from outside a group only
    /// while it is empty.
    Active(String),
    Other(anyhow::Error),
}

/// Offsets committed for a group from outside it, as a consumer that assigns partitions itself
/// (or `kafka-consumer-groups.sh --reset-offsets`) does: OffsetCommit with no member id and
/// generation -1, which the coordinator accepts only while the group has no members.
pub struct GroupCommitter {
    consumer: BaseConsumer<Reports>,
    group: String,
    bootstrap: String,
}

impl GroupCommitter {
    pub fn new(conn: &Connection, group: &str) -> Result<GroupCommitter> {
        let mut c = conn.config();
        c.set("group.id", group)
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false");
        Ok(GroupCommitter {
            consumer: c
                .create_with_context(Reports::default())
                .context("creating the consumer that commits group offsets")?,
            group: group.to_string(),
            bootstrap: conn.bootstrap.clone(),
        })
    }

    /// The group as DescribeGroups answers (None: the coordinator knows no such group).
    pub fn describe(&self) -> Result<Option<GroupDescription>> {
        let list = self
            .consumer
            .fetch_group_list(Some(&self.group), Duration::from_secs(30))
            .map_err(|e| self.explain(e, format!("describing group {}", self.group)))?;
        Ok(list
            .groups()
            .iter()
            .find(|g| g.name() == self.group)
            .map(|g| GroupDescription {
                state: g.state().to_string(),
                members: g.members().len(),
            })
            .filter(|d| !(d.state.is_empty() || d.state == "Dead") || d.members > 0))
    }

    fn explain(&self, e: KafkaError, what: String) -> anyhow::Error {
        if is_transport(&e) {
            let why = self
                .consumer
                .context()
                .unreachable()
                .unwrap_or_else(|| diagnose(&self.bootstrap));
            return anyhow!(
                "cannot reach the cluster at {} (--bootstrap): {why}",
                self.bootstrap
            );
        }
        match self.consumer.context().reported() {
            Some(r) => anyhow!("{what}: {e} ({r})"),
            None => anyhow!("{what}: {e}"),
        }
    }

    /// Commits (topic, partition, offset, metadata) for the group.
    pub fn commit(&self, offsets: &[(&str, i32, i64, &str)]) -> Result<(), CommitRefusal> {
        let mut tpl = TopicPartitionList::new();
        for (t, p, o, m) in offsets {
            let mut e = tpl.add_partition(t, *p);
            e.set_offset(Offset::Offset(*o))
                .map_err(|e| CommitRefusal::Other(e.into()))?;
            if !m.is_empty() {
                e.set_metadata(m);
            }
        }
        let active = |code: RDKafkaErrorCode| {
            matches!(
                code,
                RDKafkaErrorCode::UnknownMemberId
                    | RDKafkaErrorCode::IllegalGeneration
                    | RDKafkaErrorCode::RebalanceInProgress
                    | RDKafkaErrorCode::StaleMemberEpoch
                    | RDKafkaErrorCode::NonEmptyGroup
            )
        };
        match self.consumer.commit(&tpl, CommitMode::Sync) {
            Ok(()) => Ok(()),
            Err(KafkaError::ConsumerCommit(code)) if active(code) => Err(CommitRefusal::Active(
                match code {
                    RDKafkaErrorCode::UnknownMemberId => "UNKNOWN_MEMBER_ID",
                    RDKafkaErrorCode::IllegalGeneration => "ILLEGAL_GENERATION",
                    RDKafkaErrorCode::RebalanceInProgress => "REBALANCE_IN_PROGRESS",
                    RDKafkaErrorCode::StaleMemberEpoch => "STALE_MEMBER_EPOCH",
                    _ => "NON_EMPTY_GROUP",
                }
                .to_string(),
            )),
            Err(e) => Err(CommitRefusal::Other(
                self.explain(e, format!("committing offsets of group {}", self.group)),
            )),
        }
    }

    /// The group's committed offsets of `partitions` (None: none committed).
    pub fn committed(&self, partitions: &[(&str, i32)]) -> Result<Vec<Option<i64>>> {
        let mut tpl = TopicPartitionList::new();
        for (t, p) in partitions {
            tpl.add_partition(t, *p);
        }
        let got = self
            .consumer
            .committed_offsets(tpl, Duration::from_secs(30))
            .map_err(|e| self.explain(e, format!("offsets of group {}", self.group)))?;
        Ok(partitions
            .iter()
            .map(|(t, p)| {
                got.find_partition(t, *p).and_then(|e| match e.offset() {
                    Offset::Offset(o) => Some(o),
                    _ => None,
                })
            })
            .collect())
    }
}
