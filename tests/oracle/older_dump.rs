//! DumpLogSegments lines of a Kafka older than 3.x compared field by field with kseg's, which
//! prints them as Kafka 4.x does. Kafka 2.8's text differs in form, not in what it says of the
//! data: `Starting offset:` (4.x `Log starting offset:`), no `deleteHorizonMs` on a batch (it
//! came with KIP-534's record format use in 3.0) nor `lastTimestamp` in a producer snapshot,
//! codec names upper case, Scala `None`/`Some(n)` where 4.x prints `OptionalLong.empty`/
//! `OptionalLong[n]`, the batch's fields repeated on every record line, and the offsets and
//! transaction decoders' keys and values as text (`offset_commit::group=G,partition=T-P`,
//! `transaction_metadata::transactionalId=X`) where 4.x prints JSON. Every field both print
//! must agree; a field only one prints must be one of those listed here; decoded keys and
//! values are compared by what they say (group, partition, offset, metadata; producer id,
//! epoch, state, partitions, timestamps; protocol, generation and each member's assignment).

use serde_json::Value;
use std::collections::BTreeSet;

/// Fields kseg prints (as 4.x) that 2.8's DumpLogSegments does not.
const NEWER_ONLY: &[&str] = &["deleteHorizonMs", "lastTimestamp"];

/// Fields 2.8 prints on every record line that 4.x prints on the batch line only.
const OLDER_ONLY: &[&str] = &[
    "isValid",
    "crc",
    "baseOffset",
    "lastOffset",
    "baseSequence",
    "lastSequence",
    "producerEpoch",
    "partitionLeaderEpoch",
    "batchSize",
    "magic",
    "compressType",
    "position",
];

/// A line as its `name: value` fields, and the decoded key and payload (after ` key: `,
/// ` payload: `) apart.
struct Fields {
    named: Vec<(String, String)>,
    key: Option<String>,
    payload: Option<String>,
}

fn fields(line: &str) -> Fields {
    let line = match line
        .strip_prefix("Starting offset: ")
        .or_else(|| line.strip_prefix("Log starting offset: "))
    {
        Some(rest) => format!("startingOffset: {rest}"),
        None => line.to_string(),
    };
    let (head, key, payload) = match line.find(" key: ") {
        Some(k) => {
            let rest = &line[k + " key: ".len()..];
            match rest.find(" payload: ") {
                Some(p) => (
                    &line[..k],
                    Some(rest[..p].to_string()),
                    Some(rest[p + " payload: ".len()..].to_string()),
                ),
                None => (&line[..k], Some(rest.to_string()), None),
            }
        }
        None => (line.as_str(), None, None),
    };
    let mut named: Vec<(String, String)> = Vec::new();
    for word in head.split(' ') {
        if let Some(n) = word.strip_suffix(':').filter(|n| !n.is_empty()) {
            named.push((n.to_string(), String::new()));
            continue;
        }
        match named.last_mut() {
            Some((_, v)) => {
                if !v.is_empty() {
                    v.push(' ');
                }
                v.push_str(word);
            }
            None => named.push((String::new(), word.to_string())),
        }
    }
    Fields {
        named,
        key,
        payload,
    }
}

/// A value as 4.x prints it: Scala's `None`/`Some(n)` as `OptionalLong.empty`/`OptionalLong[n]`,
/// codec names in lower case.
fn normal(name: &str, value: &str) -> String {
    if value == "None" {
        return "OptionalLong.empty".into();
    }
    if let Some(n) = value
        .strip_prefix("Some(")
        .and_then(|v| v.strip_suffix(')'))
    {
        return format!("OptionalLong[{n}]");
    }
    if name == "compresscodec" || name == "compressType" {
        return value.to_ascii_lowercase();
    }
    value.to_string()
}

/// Whether kseg's line says what an older Kafka's DumpLogSegments line says.
pub fn agrees(kafka: &str, kseg: &str) -> bool {
    let (k, s) = (fields(kafka), fields(kseg));
    for (name, value) in &s.named {
        match k.named.iter().find(|(n, _)| n == name) {
            Some((_, kv)) if normal(name, kv) == normal(name, value) => {}
            Some(_) => return false,
            None if NEWER_ONLY.contains(&name.as_str()) => {}
            None => return false,
        }
    }
    for (name, _) in &k.named {
        if !s.named.iter().any(|(n, _)| n == name) && !OLDER_ONLY.contains(&name.as_str()) {
            return false;
        }
    }
    match (&k.key, &s.key) {
        (None, None) => true,
        (Some(kk), Some(sk)) => {
            // Both must be understood: two keys neither side could read are no agreement.
            let said = (
                decoded(kk, k.payload.as_deref()),
                decoded_json(sk, s.payload.as_deref()),
            );
            matches!(said, (Some(a), Some(b)) if a == b) || (kk == sk && k.payload == s.payload)
        }
        _ => false,
    }
}

/// What an older Kafka's decoded key and payload say, as one comparable string.
fn decoded(key: &str, payload: Option<&str>) -> Option<String> {
    let payload = payload.unwrap_or("<DELETE>");
    if let Some(rest) = key.strip_prefix("offset_commit::group=") {
        let (group, partition) = rest.rsplit_once(",partition=")?;
        if payload == "<DELETE>" {
            return Some(format!("offset {group} {partition} deleted"));
        }
        let p = payload.strip_prefix("offset=")?;
        let (offset, metadata) = match p.split_once(",metadata=") {
            Some((o, m)) => (o, m),
            None => (p, ""),
        };
        return Some(format!(
            "offset {group} {partition} offset={offset} metadata={metadata}"
        ));
    }
    if let Some(group) = key.strip_prefix("group_metadata::group=") {
        if payload == "<DELETE>" {
            return Some(format!("group {group} deleted"));
        }
        let v: Value = serde_json::from_str(payload).ok()?;
        let assignment = v["assignment"].as_str().unwrap_or("{}");
        let mut members = BTreeSet::new();
        let inner = assignment.trim_start_matches('{').trim_end_matches('}');
        for m in inner.split("],").filter(|m| !m.is_empty()) {
            let (id, parts) = m.split_once('=')?;
            let mut parts: Vec<&str> = parts
                .trim_matches(|c| c == '[' || c == ']')
                .split(", ")
                .filter(|p| !p.is_empty())
                .collect();
            parts.sort();
            members.insert(format!("{id}={}", parts.join(",")));
        }
        return Some(format!(
            "group {group} protocolType={} protocol={} generation={} members={members:?}",
            v["protocolType"], v["protocol"], v["generationId"]
        ));
    }
    if let Some(id) = key.strip_prefix("transaction_metadata::transactionalId=") {
        if payload == "<DELETE>" {
            return Some(format!("txn {id} deleted"));
        }
        // producerId:P,producerEpoch:E,state=S,partitions=[a,b],txnLastUpdateTimestamp=T,txnTimeoutMs=M
        let field = |name: &str| -> Option<String> {
            let at = payload.find(name)? + name.len() + 1;
            let rest = &payload[at..];
            let end = if rest.starts_with('[') {
                rest.find(']')? + 1
            } else {
                rest.find(',').unwrap_or(rest.len())
            };
            Some(rest[..end].to_string())
        };
        let mut partitions: Vec<String> = field("partitions")?
            .trim_matches(|c| c == '[' || c == ']')
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        partitions.sort();
        return Some(format!(
            "txn {id} producerId={} epoch={} state={} partitions={partitions:?} updated={} timeout={}",
            field("producerId")?,
            field("producerEpoch")?,
            field("state")?,
            field("txnLastUpdateTimestamp")?,
            field("txnTimeoutMs")?
        ));
    }
    None
}

/// What kseg's JSON key and payload say, in [`decoded`]'s terms.
fn decoded_json(key: &str, payload: Option<&str>) -> Option<String> {
    let k: Value = serde_json::from_str(key).ok()?;
    let d = &k["data"];
    let payload = payload.unwrap_or("<DELETE>");
    let v: Option<Value> = if payload == "<DELETE>" || payload == "null" {
        None
    } else {
        Some(serde_json::from_str(payload).ok()?)
    };
    let text = |v: &Value| v.as_str().map(str::to_string).unwrap_or_default();
    match k["type"].as_str()? {
        "0" if d.get("transactionalId").is_some() => {
            let id = text(&d["transactionalId"]);
            let Some(v) = v else {
                return Some(format!("txn {id} deleted"));
            };
            let p = &v["data"];
            let mut partitions = Vec::new();
            for t in p["transactionPartitions"].as_array().into_iter().flatten() {
                for n in t["partitionIds"].as_array().into_iter().flatten() {
                    partitions.push(format!("{}-{n}", text(&t["topic"])));
                }
            }
            partitions.sort();
            Some(format!(
                "txn {id} producerId={} epoch={} state={} partitions={partitions:?} updated={} timeout={}",
                p["producerId"],
                p["producerEpoch"],
                text(&p["transactionStatus"]),
                p["transactionLastUpdateTimestampMs"],
                p["transactionTimeoutMs"]
            ))
        }
        "0" | "1" => {
            let (group, partition) = (
                text(&d["group"]),
                format!("{}-{}", text(&d["topic"]), d["partition"]),
            );
            let Some(v) = v else {
                return Some(format!("offset {group} {partition} deleted"));
            };
            Some(format!(
                "offset {group} {partition} offset={} metadata={}",
                v["data"]["offset"],
                text(&v["data"]["metadata"])
            ))
        }
        "2" => {
            let group = text(&d["group"]);
            let Some(v) = v else {
                return Some(format!("group {group} deleted"));
            };
            let p = &v["data"];
            let mut members = BTreeSet::new();
            for m in p["members"].as_array().into_iter().flatten() {
                let mut parts = Vec::new();
                for t in m["assignment"]["assignedPartitions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    for n in t["partitions"].as_array().into_iter().flatten() {
                        parts.push(format!("{}-{n}", text(&t["topic"])));
                    }
                }
                parts.sort();
                members.insert(format!("{}={}", text(&m["memberId"]), parts.join(",")));
            }
            Some(format!(
                "group {group} protocolType={} protocol={} generation={} members={members:?}",
                p["protocolType"], p["protocol"], p["generation"]
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_28_batch_line_agrees_with_the_4x_line() {
        let kafka = "baseOffset: 0 lastOffset: 0 count: 1 baseSequence: 0 lastSequence: 0 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false position: 0 CreateTime: 1796553451342 size: 130 magic: 2 compresscodec: NONE crc: 3167214092 isvalid: true";
        let kseg = "baseOffset: 0 lastOffset: 0 count: 1 baseSequence: 0 lastSequence: 0 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1796553451342 size: 130 magic: 2 compresscodec: none crc: 3167214092 isvalid: true";
        assert!(agrees(kafka, kseg));
        assert!(!agrees(kafka, &kseg.replace("crc: 3167214092", "crc: 1")));
        assert!(agrees("Starting offset: 5", "Log starting offset: 5"));
        assert!(!agrees("Starting offset: 5", "Log starting offset: 6"));
    }

    #[test]
    fn decoded_keys_agree_by_what_they_say() {
        let head = "| offset: 0 isValid: true crc: null keySize: 37 valueSize: 24 CreateTime: 5 sequence: 0 headerKeys: []";
        let ours = "| offset: 0 CreateTime: 5 keySize: 37 valueSize: 24 sequence: 0 headerKeys: []";
        let kafka = format!(
            "{head} key: offset_commit::group=g,partition=t-0 payload: offset=42,metadata=m"
        );
        let kseg = format!(
            r#"{ours} key: {{"type":"1","data":{{"group":"g","topic":"t","partition":0}}}} payload: {{"version":"3","data":{{"offset":42,"leaderEpoch":-1,"metadata":"m","commitTimestamp":1}}}}"#
        );
        assert!(agrees(&kafka, &kseg));
        assert!(!agrees(&kafka.replace("offset=42", "offset=43"), &kseg));
        let txn = format!("{head} key: transaction_metadata::transactionalId=x payload: producerId:7,producerEpoch:0,state=Ongoing,partitions=[t-1,t-0],txnLastUpdateTimestamp=9,txnTimeoutMs=600000");
        let ours_txn = format!(
            r#"{ours} key: {{"type":"0","data":{{"transactionalId":"x"}}}} payload: {{"version":"0","data":{{"producerId":7,"producerEpoch":0,"transactionTimeoutMs":600000,"transactionStatus":"Ongoing","transactionPartitions":[{{"topic":"t","partitionIds":[0,1]}}],"transactionLastUpdateTimestampMs":9,"transactionStartTimestampMs":9}}}}"#
        );
        assert!(agrees(&txn, &ours_txn));
        assert!(!agrees(
            &txn.replace("state=Ongoing", "state=Empty"),
            &ours_txn
        ));
        // Keys neither side can read never agree.
        assert!(!agrees(
            &format!("{head} key: ? payload: ?"),
            &format!("{ours} key: ! payload: !")
        ));
    }
}
