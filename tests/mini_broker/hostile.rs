//! Hostile input: frames of length 0, 3, 2^31-1 and negative, unknown api keys, truncated
//! headers, and requests whose arrays claim 2^31-1 (or 2^32-2) elements close that connection
//! only. The broker keeps serving a connection opened before them and new ones after them.

use crate::mini_broker_support;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::mini_broker_support::BrokerProcess;

fn connect(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut f = (body.len() as i32).to_be_bytes().to_vec();
    f.extend_from_slice(body);
    f
}

/// A request header v1 (api key, version, correlation id, client id "t").
fn header(api_key: i16, version: i16, correlation: i32) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(&api_key.to_be_bytes());
    h.extend_from_slice(&version.to_be_bytes());
    h.extend_from_slice(&correlation.to_be_bytes());
    h.extend_from_slice(&1i16.to_be_bytes());
    h.push(b't');
    h
}

/// ApiVersions v0 on `s`: the answer must carry our correlation id and error 0.
fn api_versions_ok(s: &mut TcpStream, correlation: i32) {
    s.write_all(&frame(&header(18, 0, correlation))).unwrap();
    let mut len = [0u8; 4];
    s.read_exact(&mut len).expect("a response");
    let mut body = vec![0u8; i32::from_be_bytes(len) as usize];
    s.read_exact(&mut body).unwrap();
    assert_eq!(
        i32::from_be_bytes(body[0..4].try_into().unwrap()),
        correlation
    );
    assert_eq!(i16::from_be_bytes(body[4..6].try_into().unwrap()), 0);
}

/// The broker closed the connection: a read ends (or is reset) instead of timing out.
fn assert_closed(mut s: TcpStream, what: &str) {
    let mut buf = [0u8; 64];
    match s.read(&mut buf) {
        Ok(0) => {}
        Err(e)
            if e.kind() != std::io::ErrorKind::WouldBlock
                && e.kind() != std::io::ErrorKind::TimedOut => {}
        other => panic!("{what}: the connection is still open ({other:?})"),
    }
}

fn uvarint(mut v: u32, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[test]
fn hostile_frames_close_only_their_connection() {
    let t = tempfile::tempdir().unwrap();
    let mut broker = BrokerProcess::start(&t.path().join("data"), &[]);
    let port = broker.port;
    let mut good = connect(port);
    api_versions_ok(&mut good, 1);

    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("length 0", 0i32.to_be_bytes().to_vec()),
        ("length 3", {
            let mut f = 3i32.to_be_bytes().to_vec();
            f.extend_from_slice(&[0, 18, 0]);
            f
        }),
        ("length 2^31-1", {
            let mut f = i32::MAX.to_be_bytes().to_vec();
            f.extend_from_slice(&[0; 32]);
            f
        }),
        ("negative length", (-1i32).to_be_bytes().to_vec()),
        ("unknown api key", frame(&header(999, 0, 5))),
        ("truncated header", frame(&[0, 3, 0, 4, 0, 0, 0, 9])),
        ("unsupported version", frame(&header(3, 99, 5))),
    ];
    // MetadataRequest v4: topics array of 2^31-1 elements in 5 bytes.
    let mut m = header(3, 4, 10);
    m.extend_from_slice(&i32::MAX.to_be_bytes());
    m.push(1);
    cases.push(("Metadata v4 array 2^31-1", frame(&m)));
    // MetadataRequest v12 (flexible): compact array length 2^32-1 (= 2^32-2 elements).
    let mut m = header(3, 12, 11);
    m.push(0); // header tagged fields
    uvarint(u32::MAX, &mut m);
    cases.push(("Metadata v12 compact array", frame(&m)));
    // JoinGroup v5: protocols array of 2^31-1 elements.
    let mut j = header(11, 5, 12);
    j.extend_from_slice(&1i16.to_be_bytes());
    j.push(b'g');
    j.extend_from_slice(&10_000i32.to_be_bytes());
    j.extend_from_slice(&30_000i32.to_be_bytes());
    j.extend_from_slice(&0i16.to_be_bytes());
    j.extend_from_slice(&(-1i16).to_be_bytes());
    j.extend_from_slice(&8i16.to_be_bytes());
    j.extend_from_slice(b"consumer");
    j.extend_from_slice(&i32::MAX.to_be_bytes());
    cases.push(("JoinGroup v5 protocols 2^31-1", frame(&j)));
    // Produce v9 (flexible): topic_data of 2^32-2 elements.
    let mut p = header(0, 9, 13);
    p.push(0);
    p.push(0); // null transactional id
    p.extend_from_slice(&1i16.to_be_bytes());
    p.extend_from_slice(&30_000i32.to_be_bytes());
    uvarint(u32::MAX, &mut p);
    cases.push(("Produce v9 topic_data 2^32-2", frame(&p)));
    // Produce v8: a partition whose record bytes claim 2^31-1 bytes.
    let mut p = header(0, 8, 14);
    p.extend_from_slice(&(-1i16).to_be_bytes());
    p.extend_from_slice(&1i16.to_be_bytes());
    p.extend_from_slice(&30_000i32.to_be_bytes());
    p.extend_from_slice(&1i32.to_be_bytes());
    p.extend_from_slice(&1i16.to_be_bytes());
    p.push(b't');
    p.extend_from_slice(&1i32.to_be_bytes());
    p.extend_from_slice(&0i32.to_be_bytes());
    p.extend_from_slice(&i32::MAX.to_be_bytes());
    cases.push(("Produce v8 records 2^31-1 bytes", frame(&p)));

    for (i, (what, bytes)) in cases.into_iter().enumerate() {
        let mut s = connect(port);
        // The peer may close while we are still writing: that is the expected outcome.
        let _ = s.write_all(&bytes);
        assert_closed(s, what);
        assert!(broker.is_running(), "the broker died on {what}");
        api_versions_ok(&mut good, 100 + i as i32);
        api_versions_ok(&mut connect(port), 200 + i as i32);
    }
    let err = broker.stop();
    assert!(err.contains("closing the connection"), "{err}");
}

#[test]
fn an_unknown_api_versions_version_gets_a_v0_answer_to_fall_back_on() {
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &[]);
    let mut s = connect(broker.port);
    // ApiVersions v99 from a future client: header v2 (tagged fields), body unknown.
    let mut req = header(18, 99, 42);
    req.extend_from_slice(&[0, 0xde, 0xad]);
    s.write_all(&frame(&req)).unwrap();
    let mut len = [0u8; 4];
    s.read_exact(&mut len).unwrap();
    let mut body = vec![0u8; i32::from_be_bytes(len) as usize];
    s.read_exact(&mut body).unwrap();
    assert_eq!(i32::from_be_bytes(body[0..4].try_into().unwrap()), 42);
    assert_eq!(
        i16::from_be_bytes(body[4..6].try_into().unwrap()),
        35,
        "UNSUPPORTED_VERSION"
    );
    // v0 body: the api keys array follows; ApiVersions itself is listed with max version 4.
    let n = i32::from_be_bytes(body[6..10].try_into().unwrap()) as usize;
    let keys: Vec<(i16, i16, i16)> = (0..n)
        .map(|i| {
            let at = 10 + i * 6;
            let f = |o: usize| i16::from_be_bytes(body[at + o..at + o + 2].try_into().unwrap());
            (f(0), f(2), f(4))
        })
        .collect();
    assert!(keys.contains(&(18, 0, 4)), "{keys:?}");
    assert!(
        keys.contains(&(0, 0, 12)),
        "Produce advertised from v0, as Kafka 4.0 does: {keys:?}"
    );
    // The connection stays usable: the client retries with a version we support.
    api_versions_ok(&mut s, 43);
    broker.stop();
}

/// DescribeGroups v5 with `n` one-byte group ids (each decodes into a full group description).
fn describe_groups_v5(correlation: i32, n: u32) -> Vec<u8> {
    let mut d = header(15, 5, correlation);
    d.push(0); // header tagged fields
    uvarint(n + 1, &mut d);
    for _ in 0..n {
        d.extend_from_slice(&[2, b'g']);
    }
    d.push(0); // include_authorized_operations
    d.push(0); // tagged fields
    d
}

#[test]
fn an_oversized_non_produce_frame_is_refused_and_others_are_served() {
    let t = tempfile::tempdir().unwrap();
    let mut broker = BrokerProcess::start(&t.path().join("data"), &[]);
    let port = broker.port;
    let mut good = connect(port);
    api_versions_ok(&mut good, 1);

    // 2 MiB of DescribeGroups: over the 1 MiB cap for everything but Produce.
    let big = frame(&describe_groups_v5(7, 1 << 20));
    assert!(big.len() > 2 << 20);
    let mut s = connect(port);
    let _ = s.write_all(&big);
    assert_closed(s, "2 MiB DescribeGroups");
    assert!(broker.is_running());
    api_versions_ok(&mut good, 2);
    api_versions_ok(&mut connect(port), 3);

    // A small DescribeGroups is still answered on a fresh connection.
    let mut s = connect(port);
    s.write_all(&frame(&describe_groups_v5(8, 2))).unwrap();
    let mut len = [0u8; 4];
    s.read_exact(&mut len).expect("a DescribeGroups response");
    let mut body = vec![0u8; i32::from_be_bytes(len) as usize];
    s.read_exact(&mut body).unwrap();
    assert_eq!(i32::from_be_bytes(body[0..4].try_into().unwrap()), 8);

    let err = broker.stop();
    assert!(err.contains("over its cap"), "{err}");
}

#[test]
fn an_address_in_use_is_named() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let out = assert_cmd::Command::new(mini_broker_support::kseg_bin())
        .arg("mini-broker")
        .arg("--log-dir")
        .arg(tmp.path().join("logs"))
        .args(["--listen", &addr])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot listen on {addr}")),
        "{stderr}"
    );
    assert!(stderr.to_lowercase().contains("in use"), "{stderr}");
    drop(taken);
}

/// CreateTopics v2 for one topic with `partitions` partitions, replication factor 1.
fn create_topics_v2(correlation: i32, name: &str, partitions: i32) -> Vec<u8> {
    let mut c = header(19, 2, correlation);
    c.extend_from_slice(&1i32.to_be_bytes());
    c.extend_from_slice(&(name.len() as i16).to_be_bytes());
    c.extend_from_slice(name.as_bytes());
    c.extend_from_slice(&partitions.to_be_bytes());
    c.extend_from_slice(&1i16.to_be_bytes());
    c.extend_from_slice(&0i32.to_be_bytes()); // assignments
    c.extend_from_slice(&0i32.to_be_bytes()); // configs
    c.extend_from_slice(&30_000i32.to_be_bytes());
    c.push(0); // validate_only
    frame(&c)
}

/// Sends a CreateTopics v2 and returns the one topic's (error code, error message).
fn create_topic(s: &mut TcpStream, correlation: i32, name: &str, partitions: i32) -> (i16, String) {
    s.write_all(&create_topics_v2(correlation, name, partitions))
        .unwrap();
    let mut len = [0u8; 4];
    s.read_exact(&mut len).expect("a CreateTopics response");
    let mut body = vec![0u8; i32::from_be_bytes(len) as usize];
    s.read_exact(&mut body).unwrap();
    assert_eq!(
        i32::from_be_bytes(body[0..4].try_into().unwrap()),
        correlation
    );
    // throttle (4), topics count (4), name, error code, nullable message.
    let name_len = i16::from_be_bytes(body[12..14].try_into().unwrap()) as usize;
    let at = 14 + name_len;
    let code = i16::from_be_bytes(body[at..at + 2].try_into().unwrap());
    let msg_len = i16::from_be_bytes(body[at + 2..at + 4].try_into().unwrap());
    let msg = if msg_len < 0 {
        String::new()
    } else {
        String::from_utf8_lossy(&body[at + 4..at + 4 + msg_len as usize]).into_owned()
    };
    (code, msg)
}

/// Issue 14 item 1: a ~60-byte CreateTopics asking for 2^31-1 partitions is refused with
/// POLICY_VIOLATION; nothing is allocated for it and the broker keeps serving.
#[test]
fn create_topics_with_2_31_partitions_is_refused_and_the_broker_lives() {
    let t = tempfile::tempdir().unwrap();
    let mut broker = BrokerProcess::start(&t.path().join("data"), &[]);
    let mut s = connect(broker.port);
    let req = create_topics_v2(3, "huge", i32::MAX);
    assert!(req.len() < 64, "{} bytes", req.len());
    let (code, msg) = create_topic(&mut s, 3, "huge", i32::MAX);
    assert_eq!(code, 44, "POLICY_VIOLATION: {msg}");
    assert!(msg.contains("excessively large"), "{msg}");
    assert!(broker.is_running());
    api_versions_ok(&mut s, 4);
    assert!(!t.path().join("data/huge-0").exists());
    // A topic within the cap is still created.
    assert_eq!(create_topic(&mut s, 5, "fine", 3).0, 0);
    broker.stop();
}

/// Issue 14 item 10: three connections that announce 100 MiB Produce frames and send nothing
/// more hold only what they sent; a fresh ApiVersions is answered at once (it used to wait for
/// the 60 s frame timeout behind them).
#[test]
fn trickled_large_frames_do_not_starve_a_small_request() {
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &[]);
    let mut hogs = Vec::new();
    for i in 0..3 {
        let mut s = connect(broker.port);
        let mut f = (100i32 * 1024 * 1024).to_be_bytes().to_vec();
        f.extend_from_slice(&header(0, 8, 50 + i));
        s.write_all(&f).unwrap();
        hogs.push(s);
    }
    std::thread::sleep(Duration::from_millis(300));
    let mut s = connect(broker.port);
    // connect() sets a 10 s read timeout: far below the 60 s the hogs can hold a frame open.
    api_versions_ok(&mut s, 60);
    drop(hogs);
    broker.stop();
}

/// Issue 14 item 11: under a low open-file limit, a CreateTopics that would run out of
/// descriptors is refused before any file is made (no orphan partition dirs); the broker
/// restarts on its log dir, and a topic that fits is created.
#[test]
fn a_topic_beyond_the_open_file_limit_is_refused_whole() {
    let t = tempfile::tempdir().unwrap();
    let data = t.path().join("data");
    let mut broker = BrokerProcess::start(&data, &[]);
    let limit = libc::rlimit {
        rlim_cur: 400,
        rlim_max: 400,
    };
    // SAFETY: prlimit on our own child; the struct outlives the call.
    let rc = unsafe {
        libc::prlimit(
            broker.pid(),
            libc::RLIMIT_NOFILE,
            &limit,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(rc, 0, "prlimit: {}", std::io::Error::last_os_error());
    let mut s = connect(broker.port);
    let (code, msg) = create_topic(&mut s, 1, "wide", 300);
    assert_eq!(code, 44, "{msg}");
    assert!(msg.contains("open files"), "{msg}");
    let orphans: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("wide-"))
        .collect();
    assert!(orphans.is_empty(), "{} orphan dirs", orphans.len());
    assert_eq!(create_topic(&mut s, 2, "narrow", 20).0, 0);
    assert!(broker.is_running());
    broker.stop();
    let broker = BrokerProcess::start(&data, &[]);
    let mut s = connect(broker.port);
    api_versions_ok(&mut s, 3);
    broker.stop();
}

/// Issue 14 item 2, measured (`cargo test --release --test mini_broker hostile -- --ignored
/// --nocapture`): one zstd batch of 8 MiB of records produced to each of 400 partitions; prints
/// the broker's resident set afterwards (it kept a zstd window and buffer per partition: ~2.3 MB
/// each by default, ~117 MiB each for a large window).
#[test]
#[ignore = "a measurement, not a check: run it by name with --ignored --nocapture"]
fn measure_rss_after_zstd_batches_to_400_partitions() {
    use kseg::format::compression::Codec;
    use kseg::format::encode::{encode_batch, NewBatch, NewRecord};
    let t = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(&t.path().join("data"), &[]);
    let mut s = connect(broker.port);
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    assert_eq!(create_topic(&mut s, 1, "z", 400).0, 0);
    let value: Vec<u8> = (0..1 << 20).map(|i: u32| (i % 251) as u8).collect();
    let records: Vec<NewRecord> = (0..8)
        .map(|i| NewRecord {
            timestamp: 1_700_000_000_000 + i,
            key: None,
            value: Some(&value),
            headers: &[],
        })
        .collect();
    let mut batch = Vec::new();
    encode_batch(
        &mut batch,
        &NewBatch {
            partition_leader_epoch: -1,
            codec: Codec::Zstd,
            ..Default::default()
        },
        &records,
        &mut Vec::new(),
    );
    for p in 0..400 {
        let mut r = header(0, 3, 100 + p);
        r.extend_from_slice(&(-1i16).to_be_bytes());
        r.extend_from_slice(&1i16.to_be_bytes());
        r.extend_from_slice(&30_000i32.to_be_bytes());
        r.extend_from_slice(&1i32.to_be_bytes());
        r.extend_from_slice(&1i16.to_be_bytes());
        r.push(b'z');
        r.extend_from_slice(&1i32.to_be_bytes());
        r.extend_from_slice(&p.to_be_bytes());
        r.extend_from_slice(&(batch.len() as i32).to_be_bytes());
        r.extend_from_slice(&batch);
        s.write_all(&frame(&r)).unwrap();
        let mut len = [0u8; 4];
        s.read_exact(&mut len).unwrap();
        let mut body = vec![0u8; i32::from_be_bytes(len) as usize];
        s.read_exact(&mut body).unwrap();
        // correlation, topics (4), name (2+1), partitions (4), index (4), error code.
        let code = i16::from_be_bytes(body[19..21].try_into().unwrap());
        assert_eq!(code, 0, "produce to z-{p}");
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", broker.pid())).unwrap();
    for line in status
        .lines()
        .filter(|l| l.starts_with("VmRSS") || l.starts_with("VmHWM"))
    {
        println!(
            "400 partitions x one 8 MiB zstd batch ({} bytes): {line}",
            batch.len()
        );
    }
    broker.stop();
}

/// Issue 23: a 40,000-byte group id was acknowledged and lost at restart. Now the request is
/// refused as Kafka refuses it (the connection closed: the oracle test
/// `group_ids_over_32767_bytes_are_refused_as_kafka_refuses_them` asks Kafka the same bytes),
/// and the longest id Kafka accepts is committed, kept across a restart and read by `groups`.
#[test]
fn a_group_id_over_32767_bytes_is_refused_and_the_longest_one_is_kept() {
    use crate::mini_broker_support::{group_offsets, wire};
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let broker = BrokerProcess::start(&dir, &[]);
    wire::oversized_group_ids(&broker.bootstrap(), "t");
    let mut other = connect(broker.port);
    api_versions_ok(&mut other, 99);
    broker.stop();
    let longest = wire::longest_group_id();
    let broker = BrokerProcess::start(&dir, &[]);
    assert_eq!(wire::committed(&broker.bootstrap(), &longest, "t"), 7);
    broker.stop();
    let offsets = group_offsets(&dir, &longest);
    assert_eq!(offsets.len(), 1, "{offsets:?}");
    assert_eq!(
        (offsets[0].0.as_str(), offsets[0].1, offsets[0].2),
        ("t", 0, 7)
    );
}

#[test]
fn offset_delete_tombstones_a_committed_offset_and_refuses_what_does_not_exist() {
    use crate::mini_broker_support::{group_offsets, wire};
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let broker = BrokerProcess::start(&dir, &[]);
    wire::offset_delete(&broker.bootstrap(), "t");
    broker.stop();
    let broker = BrokerProcess::start(&dir, &[]);
    assert_eq!(
        wire::committed(&broker.bootstrap(), wire::OFFSET_DELETE_GROUP, "t"),
        -1
    );
    broker.stop();
    let offsets = group_offsets(&dir, wire::OFFSET_DELETE_GROUP);
    assert!(offsets.is_empty(), "{offsets:?}");
}
