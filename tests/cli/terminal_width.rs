//! Tables fit the terminal: under a pseudo-terminal with COLUMNS=80 and 120 every line of
//! summary, verify-index, groups (offsets and history), transactions and diff fits, and each
//! keeps the columns that carry its answer (asserted by name; an empty column is not shown, a
//! column with one value in every row is said once above the table); into a pipe the same
//! tables are full width; `--format tsv` is one tab-separated line per row.

use crate::common;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("kseg")
}

fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// stdout of kseg run on a pseudo-terminal (util-linux `script`) with COLUMNS set, stderr
/// discarded; `None` when `script` is not installed.
fn on_terminal(args: &[&str], columns: usize) -> Option<String> {
    let mut line = quote(bin().to_str().unwrap());
    for a in args {
        line.push(' ');
        line.push_str(&quote(a));
    }
    line.push_str(" 2>/dev/null");
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("COLUMNS", columns.to_string())
        .stdin(Stdio::null())
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).replace('\r', ""))
}

fn widest(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// A log dir with a 200-character topic and a 200-character group id committed on it.
fn long_names(root: &Path) -> (String, String, String) {
    let dir = root.join("data").display().to_string();
    let topic = format!("orders-{}", "x".repeat(193));
    let group = format!("group-{}-end", "y".repeat(190));
    let lines: String = (0..20).map(|i| format!("k{i}:value {i}\n")).collect();
    let (code, _, err) = run(
        &[
            "mini-broker",
            "produce",
            "--log-dir",
            &dir,
            "--topic",
            &topic,
            "--key-separator",
            ":",
        ],
        &lines,
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(
        &[
            "mini-broker",
            "commit",
            "--log-dir",
            &dir,
            "--group",
            &group,
            "--topic",
            &topic,
            "0=5",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    (dir, topic, group)
}

/// The header of every table in `text`, each a list of column names (a header broken over
/// lines put back together).
fn table_headers(text: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].starts_with('┌') {
            i += 1;
            continue;
        }
        let mut cols: Vec<String> = Vec::new();
        i += 1;
        while i < lines.len() && !lines[i].starts_with('╞') && !lines[i].starts_with('└') {
            let cells: Vec<&str> = lines[i].split(['│', '┆']).collect();
            let cells = &cells[1..cells.len().saturating_sub(1)];
            if cols.is_empty() {
                cols = vec![String::new(); cells.len()];
            }
            for (c, piece) in cols.iter_mut().zip(cells) {
                let piece = piece.trim();
                if piece.is_empty() {
                    continue;
                }
                if !c.is_empty() && !c.ends_with('-') && !c.ends_with('/') {
                    c.push(' ');
                }
                c.push_str(piece);
            }
            i += 1;
        }
        out.push(cols);
    }
    out
}

/// `name` is a column of one of the tables, or said once above a table (`NAME: value (every
/// row)`) because every row has the same value.
fn shown(text: &str, name: &str) -> bool {
    table_headers(text).iter().flatten().any(|h| h == name)
        || text
            .lines()
            .any(|l| l.starts_with(&format!("{name}:")) && text.contains("(every row)"))
}

#[test]
#[ignore = "needs util-linux `script` (a pseudo-terminal)"]
fn every_table_keeps_the_columns_that_carry_the_answer_at_80_and_120_columns() {
    let t = tempfile::tempdir().unwrap();
    let (dir, topic, group) = long_names(t.path());
    // A second copy of the broker for diff, and a second commit for the history.
    let (code, _, err) = run(
        &[
            "mini-broker",
            "commit",
            "--log-dir",
            &dir,
            "--group",
            &group,
            "--topic",
            &topic,
            "0=9",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let copy = t.path().join("copy").join("data");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    let status = Command::new("cp")
        .args(["-r", &dir, copy.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success());
    let copy = copy.display().to_string();
    // (command, columns that must be shown, columns that must not be)
    let cases: [(&[&str], &[&str], &[&str]); 6] = [
        (
            &["summary", &dir, "--no-progress"],
            &[
                "TOPIC",
                "PART",
                "END",
                "FIRST TIMESTAMP",
                "MAX TIMESTAMP",
                "RECOVERY/HW",
            ],
            &["NOTES"],
        ),
        (
            &["verify-index", &dir, "-v"],
            &["SEVERITY", "CHECK", "MESSAGE"],
            &[],
        ),
        (
            &["groups", &dir],
            &[
                "GROUP",
                "TOPIC",
                "PARTITION",
                "CURRENT-OFFSET",
                "LAG",
                "COMMITTED-AT",
                "OLDEST-UNCONSUMED-AGE",
                "EXPIRES-AT",
            ],
            &["METADATA"],
        ),
        (
            &["groups", &dir, "--group", &group, "--history"],
            &[
                "RECORD-TIME",
                "GROUP",
                "TOPIC",
                "PARTITION",
                "OFFSET",
                "COMMITTED-AT",
            ],
            &["TRANSACTION"],
        ),
        (
            &["transactions", &dir],
            &["TRANSACTIONAL-ID", "STATE", "PRODUCER-ID"],
            &[],
        ),
        (
            &["diff", &dir, &copy],
            &["TOPIC", "PARTITION", "VERDICT"],
            &[],
        ),
    ];
    for width in [80, 120] {
        for (args, keep, gone) in cases {
            let Some(text) = on_terminal(args, width) else {
                common::tool_missing("util-linux `script`", "the pseudo-terminal checks");
                return;
            };
            let what = format!("kseg {} at {width} columns", args.join(" "));
            assert!(text.contains('┌'), "{what}: no table:\n{text}");
            assert!(
                widest(&text) <= width,
                "{what}: a line wider than {width}:\n{text}"
            );
            for c in keep {
                assert!(shown(&text, c), "{what}: {c} not shown:\n{text}");
            }
            for c in gone {
                assert!(
                    !table_headers(&text).iter().flatten().any(|h| h == c),
                    "{what}: the empty column {c} is shown:\n{text}"
                );
            }
            // No cell cut so that a long id looks like another, no timestamp cut: every
            // timestamp shown is whole (on one line, or date and time on two).
            for l in text.lines() {
                if let Some(p) = l.find("20") {
                    let rest = &l[p..];
                    if rest.len() > 11 && rest.as_bytes()[4] == b'-' && rest.as_bytes()[10] == b'T'
                    {
                        assert!(!rest[..11].contains('…'), "{what}: {l}");
                    }
                }
            }
        }
    }
    // The one group and topic of every row are said once above the table, whole (wrapped).
    let text = on_terminal(&["groups", &dir], 120).unwrap();
    let joined = text.replace("\n  ", "");
    assert!(
        joined.contains(&format!("GROUP:{group} (every row)")),
        "{text}"
    );
    assert!(
        joined.contains(&format!("TOPIC:{topic} (every row)")),
        "{text}"
    );
    // Into a pipe: full width, the whole ids on one line, every column.
    for args in [
        &["summary", &dir, "--no-progress"][..],
        &["groups", &dir][..],
    ] {
        let (_, piped, _) = run(args, "");
        let id = if args[0] == "groups" { &group } else { &topic };
        assert!(piped.contains(id.as_str()), "kseg {}: {piped}", args[0]);
        assert!(widest(&piped) > 200);
        if args[0] == "groups" {
            assert!(
                table_headers(&piped)[0].contains(&"METADATA".to_string()),
                "{piped}"
            );
        }
    }
    // Numbers stay whole: the summary row still shows the 20 records and the log end offset.
    let text = on_terminal(&["summary", &dir, "--no-progress"], 80).unwrap();
    let row = text
        .lines()
        .find(|l| l.contains("orders-"))
        .unwrap_or_else(|| panic!("{text}"));
    let cells: Vec<&str> = row.split(['│', '┆']).map(str::trim).collect();
    assert!(cells.contains(&"20"), "{row}");
    // --json on a terminal is data: never wrapped.
    let json = on_terminal(&["summary", &dir, "--json"], 80).unwrap();
    for line in json.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    assert!(widest(&json) > 80);
    // A wider terminal gets more columns.
    let wide = on_terminal(&["summary", &dir, "--no-progress"], 200).unwrap();
    assert!(widest(&wide) <= 200 && widest(&wide) > 80, "{wide}");
    assert!(wide.contains("MAX TIMESTAMP"), "{wide}");
}

#[test]
#[ignore = "needs ../shared/corpus/real (the real-broker corpus beside the clone)"]
fn the_flink_corpus_fits_80_columns() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/real/rjmfernandes__flink-on-prem/data");
    if !corpus.is_dir() {
        common::corpus_missing("the flink corpus 80-column check");
        return;
    }
    let dir = corpus.to_str().unwrap();
    for cmd in ["summary", "verify-index", "groups", "transactions"] {
        let Some(text) = on_terminal(&[cmd, dir], 80) else {
            common::tool_missing("util-linux `script`", "the pseudo-terminal checks");
            return;
        };
        assert!(text.lines().count() > 3, "kseg {cmd}: {text}");
        assert!(
            widest(&text) <= 80,
            "kseg {cmd}: a line wider than 80 columns:\n{text}"
        );
    }
}

#[test]
fn tsv_is_one_tab_separated_line_per_row() {
    let t = tempfile::tempdir().unwrap();
    let (dir, topic, group) = long_names(t.path());
    let (code, out, err) = run(&["summary", &dir, "--format", "tsv"], "");
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("TOPIC\tPART\tSEGS\tBYTES\t"), "{out}");
    let columns = lines[0].split('\t').count();
    assert!(
        lines.iter().all(|l| l.split('\t').count() == columns),
        "{out}"
    );
    let row = lines.iter().find(|l| l.starts_with(&topic)).unwrap();
    assert_eq!(row.split('\t').nth(6), Some("20"));
    assert!(!out.contains('│') && !out.contains("Log dir"), "{out}");

    let (_, out, _) = run(&["groups", &dir, "--format", "tsv"], "");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    let cells: Vec<&str> = lines[1].split('\t').collect();
    assert_eq!(
        (cells[0], cells[1], cells[2], cells[3]),
        (group.as_str(), topic.as_str(), "0", "5")
    );

    let (_, out, _) = run(&["groups", &dir, "--format", "tsv", "--history"], "");
    assert!(out.starts_with("COORDINATOR\tRECORD-OFFSET\t"), "{out}");

    let (_, out, _) = run(&["verify-index", &dir, "--format", "tsv", "-v"], "");
    assert!(out.starts_with("PARTITION\tSEVERITY\tCHECK\t"), "{out}");
    assert!(
        out.lines().skip(1).all(|l| l.split('\t').count() == 7),
        "{out}"
    );

    let (_, out, _) = run(&["transactions", &dir, "--format", "tsv"], "");
    // Both tables: the ids, a blank line, the open transactions.
    let open_header = out.lines().skip_while(|l| !l.is_empty()).nth(1);
    assert_eq!(open_header, Some("TOPIC\tPARTITION\tPRODUCER-ID\tEPOCH\tFIRST-OFFSET\tLAST-OFFSET\tOPEN-FOR\tSTOPS-AT\tHELD\tTRANSACTIONAL-ID\tCOORDINATOR-STATE\tVERDICT"), "{out}");

    // --format and --json exclude each other.
    let (code, _, err) = run(&["summary", &dir, "--format", "tsv", "--json"], "");
    assert_eq!(code, 2, "{err}");
}

/// Every subcommand's --help fits the terminal (80 and 120 columns; at most 100 into a pipe)
/// and ends with examples and its exit codes.
#[test]
#[ignore = "needs util-linux `script` (a pseudo-terminal)"]
fn every_help_fits_the_terminal_and_has_examples_and_exit_codes() {
    let subcommands = [
        "dump-log",
        "summary",
        "verify-index",
        "recover",
        "rescue",
        "groups",
        "transactions",
        "diff",
        "find-group-partition",
        "lookup",
        "grep",
        "mini-broker",
    ];
    for sub in subcommands {
        for width in [80, 120] {
            let Some(text) = on_terminal(&[sub, "--help"], width) else {
                common::tool_missing("util-linux `script`", "the pseudo-terminal checks");
                return;
            };
            // Styles (bold, underline) take no columns.
            let plain = strip_styles(&text);
            assert!(
                widest(&plain) <= width.min(100),
                "kseg {sub} --help at {width} columns:\n{plain}"
            );
            assert!(
                plain.contains("Examples:\n  kseg "),
                "kseg {sub} --help:\n{plain}"
            );
            let examples = plain
                .lines()
                .skip_while(|l| *l != "Examples:")
                .skip(1)
                .take_while(|l| l.starts_with("  "))
                .filter(|l| l.starts_with("  kseg ") || l.starts_with("  seq "))
                .count();
            assert!(
                (2..=7).contains(&examples),
                "kseg {sub}: {examples} examples:\n{plain}"
            );
            assert!(
                plain.contains("Exit codes: 0 ") || plain.contains("Exit status: 0 "),
                "kseg {sub} --help:\n{plain}"
            );
        }
        let (code, piped, err) = run(&[sub, "--help"], "");
        assert_eq!(code, 0, "{err}");
        assert!(widest(&piped) <= 100, "kseg {sub} --help | cat:\n{piped}");
    }
}

fn strip_styles(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Issue 44: `transactions` at 80 and 120 columns keeps TIMEOUT-MS and STARTED (when an
/// Ongoing transaction is aborted) and says, for each open transaction, what it blocks, when
/// it ends, and for one that does not end by itself the whole abort command, filled in;
/// `--format tsv` prints both tables.
#[test]
#[ignore = "needs util-linux `script` (a pseudo-terminal)"]
fn transactions_say_what_they_block_and_when_they_end() {
    let ongoing = crate::transactions::setup(1);
    let hanging = crate::transactions::setup(4);
    for width in [80, 120] {
        let dir = ongoing.path().to_str().unwrap();
        let Some(text) = on_terminal(&["transactions", dir], width) else {
            common::tool_missing("util-linux `script`", "the pseudo-terminal checks");
            return;
        };
        assert!(widest(&text) <= width, "at {width} columns:\n{text}");
        // (A header may wrap at a hyphen: "TIMEOUT-" over "MS".) The timeout, the start.
        for shown in ["TIMEOUT-", "STARTED", "OPEN-", "60000", "22:13:20.000Z"] {
            assert!(text.contains(shown), "{shown} at {width} columns:\n{text}");
        }
        assert!(
            text.contains("1m30.000s") || text.contains("90.000s"),
            "{text}"
        );
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains(
                "blocks: read_committed consumers of payments-0 stop at offset 2; 3 records from \
                 there to the log end (5) are invisible to them"
            ),
            "at {width} columns:\n{text}"
        );
        assert!(
            flat.contains("ends: the coordinator aborts it at 2023-11-14T22:14:20.000Z"),
            "at {width} columns:\n{text}"
        );
        assert!(!text.contains("kafka-transactions.sh"), "{text}");

        let dir = hanging.path().to_str().unwrap();
        let text = on_terminal(&["transactions", dir], width).unwrap();
        assert!(widest(&text) <= width, "at {width} columns:\n{text}");
        assert!(
            text.contains(
                "  kafka-transactions.sh --bootstrap-server BROKER:9092 \\\n    abort --topic \
                 payments --partition 0 --start-offset 2\n"
            ),
            "at {width} columns:\n{text}"
        );
    }
    let (_, out, _) = run(
        &[
            "transactions",
            ongoing.path().to_str().unwrap(),
            "--format",
            "tsv",
        ],
        "",
    );
    let headers: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("TRANSACTIONAL-ID\t") || l.starts_with("TOPIC\t"))
        .collect();
    assert_eq!(headers.len(), 2, "{out}");
    assert!(out.contains("payments-tx\t"), "{out}");
}

/// Issue 44: at 80 and 120 columns `summary` keeps BYTES, and a topic's empty partitions are one
/// line ("5 empty partitions of __consumer_offsets"), not a row each.
#[test]
#[ignore = "needs util-linux `script` (a pseudo-terminal)"]
fn summary_folds_empty_partitions_and_keeps_bytes() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    std::fs::write(root.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    for p in 0..5 {
        common::write(
            &root.join(format!("__consumer_offsets-{p}/00000000000000000000.log")),
            &[],
        );
    }
    let b = common::three_batches();
    common::write(
        &root.join("payments-0/00000000000000000000.log"),
        &[&b[0], &b[1], &b[2]],
    );
    let dir = root.to_str().unwrap();
    for width in [80, 120] {
        let Some(text) = on_terminal(&["summary", dir, "--no-progress"], width) else {
            common::tool_missing("util-linux `script`", "the pseudo-terminal checks");
            return;
        };
        assert!(widest(&text) <= width, "at {width} columns:\n{text}");
        assert!(text.contains("BYTES"), "at {width} columns:\n{text}");
        assert!(text.contains("payments"), "at {width} columns:\n{text}");
        assert!(
            text.contains("5 empty partitions of __consumer_offsets"),
            "at {width} columns:\n{text}"
        );
    }
    // TSV keeps every row.
    let (_, out, _) = run(&["summary", dir, "--format", "tsv"], "");
    assert_eq!(out.lines().count(), 1 + 6, "{out}");
}
