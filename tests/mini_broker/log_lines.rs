//! The mini-broker's stderr holds one line per event however hostile the client's strings
//! (issue 14 item 13): a client id holding a newline and ESC is logged escaped, on one line.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::mini_broker_support::BrokerProcess;

/// ApiVersions v0 with `client_id`, framed.
fn api_versions(correlation: i32, client_id: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&18i16.to_be_bytes());
    body.extend_from_slice(&0i16.to_be_bytes());
    body.extend_from_slice(&correlation.to_be_bytes());
    body.extend_from_slice(&(client_id.len() as i16).to_be_bytes());
    body.extend_from_slice(client_id);
    let mut f = (body.len() as i32).to_be_bytes().to_vec();
    f.extend_from_slice(&body);
    f
}

#[test]
fn a_client_id_with_a_newline_and_esc_is_one_escaped_line() {
    // KSEG_BROKER_DEBUG logs every request with its client id (the child inherits it; this
    // file holds this one test, so no other test sees the variable).
    std::env::set_var("KSEG_BROKER_DEBUG", "1");
    let dir = tempfile::tempdir().unwrap();
    let broker = BrokerProcess::start(dir.path(), &[]);
    let port: u16 = broker
        .bootstrap()
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(&api_versions(7, b"evil\nkseg mini-broker: forged\x1b[31m"))
        .unwrap();
    let mut len = [0u8; 4];
    s.read_exact(&mut len).expect("an answer");
    let mut body = vec![0u8; i32::from_be_bytes(len) as usize];
    s.read_exact(&mut body).unwrap();
    assert_eq!(i32::from_be_bytes(body[0..4].try_into().unwrap()), 7);
    // An unknown api key from the same client: the closing error is one line too.
    let mut bad = api_versions(8, b"x");
    bad[4..6].copy_from_slice(&999i16.to_be_bytes());
    s.write_all(&bad).unwrap();
    let mut buf = [0u8; 16];
    let _ = s.read(&mut buf);
    drop(s);
    let stderr = broker.stop();
    assert!(!stderr.contains('\x1b'), "raw ESC on stderr: {stderr:?}");
    let lines: Vec<&str> = stderr.lines().collect();
    let request: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("correlation 7"))
        .collect();
    assert_eq!(request.len(), 1, "{stderr}");
    assert!(
        request[0].contains(r#"client id "evil\x0akseg mini-broker: forged\x1b[31m""#),
        "{}",
        request[0]
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.starts_with("kseg mini-broker: forged")),
        "a forged line: {stderr}"
    );
    assert!(
        lines.iter().any(|l| l.contains("unknown api key 999")),
        "{stderr}"
    );
}
