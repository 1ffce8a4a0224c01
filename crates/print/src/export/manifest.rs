//! `_kseg_export.json`: what an export read, how, and what it wrote (engines skip files whose
//! names start with `_`).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::sink::Damage;
use super::{TableOut, WriteOptions};

/// One input path and the broker whose `meta.properties` lies beside it.
#[derive(Debug, Clone)]
pub struct Source {
    pub path: PathBuf,
    pub broker: Option<i32>,
}

/// What the manifest says besides the tables.
pub struct ManifestFacts<'a> {
    pub sources: &'a [Source],
    /// The filter flags as given (`--topic orders`, `--committed`, ...).
    pub filters: &'a [String],
    pub options: &'a WriteOptions,
    pub partitions: u64,
    pub segments: u64,
    pub batches_searched: u64,
    pub batches_pruned: u64,
    pub records_searched: u64,
    pub damage: &'a [Damage],
    pub damage_unlisted: u64,
    pub crc_errors: u64,
    /// Everything asked for was read (exit 0).
    pub complete: bool,
}

fn table_json(root: &Path, t: &TableOut) -> Value {
    let files: Vec<Value> = t
        .written
        .iter()
        .map(|p| {
            json!({
                "path": p.path.strip_prefix(root).unwrap_or(&p.path).to_string_lossy(),
                "rows": p.rows,
                "rowGroups": p.row_groups,
                "bytes": p.bytes,
            })
        })
        .collect();
    json!({"rows": t.rows(), "files": files})
}

/// Writes the manifest into `root` (through a temporary name, so a reader never sees half).
pub fn write_manifest(
    root: &Path,
    facts: &ManifestFacts<'_>,
    tables: &[&TableOut],
) -> io::Result<()> {
    let o = facts.options;
    let mut t = serde_json::Map::new();
    for table in tables {
        t.insert(table.table.to_string(), table_json(root, table));
    }
    let manifest = json!({
        "ksegVersion": env!("CARGO_PKG_VERSION"),
        "format": o.format.extension(),
        "compression": o.codec.name(),
        "rowGroupRows": o.batch_rows,
        "rowGroupBytes": o.row_group_bytes,
        "layout": "<table>/topic=<topic>/partition=<partition>/part-<n>",
        "sources": facts.sources.iter().map(|s| json!({
            "path": s.path.to_string_lossy(),
            "broker": s.broker,
        })).collect::<Vec<_>>(),
        "filters": facts.filters,
        "counts": {
            "partitions": facts.partitions,
            "segments": facts.segments,
            "batchesSearched": facts.batches_searched,
            "batchesPruned": facts.batches_pruned,
            "recordsSearched": facts.records_searched,
            "crcErrors": facts.crc_errors,
            "damagedRanges": facts.damage.len() as u64 + facts.damage_unlisted,
        },
        "damage": facts.damage.iter().map(|d| json!({
            "file": d.file.to_string_lossy(),
            "position": d.position,
            "length": d.length,
            "kind": d.kind,
            "message": d.message,
        })).collect::<Vec<_>>(),
        "complete": facts.complete,
        "tables": Value::Object(t),
    });
    let path = root.join("_kseg_export.json");
    let tmp = root.join("._kseg_export.json.tmp");
    let mut f = std::fs::File::create(&tmp)?;
    serde_json::to_writer_pretty(&mut f, &manifest).map_err(io::Error::from)?;
    f.write_all(b"\n")?;
    f.sync_all()?;
    std::fs::rename(&tmp, &path)
}
