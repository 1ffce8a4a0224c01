//! The layer rules the compiler cannot check. Each layer below `cmd` is its own crate
//! (`crates/<layer>`), so an arrow its `Cargo.toml` does not declare is a compile error; what
//! is left is checked here against the layer table in ARCHITECTURE.md, the one place the
//! allowed arrows are written down:
//! - each crate's `Cargo.toml` declares only the kseg crates and external crates its row allows;
//! - no layer names a standard-library module its row forbids (`std::fs` in `format`, ...);
//! - inside the root crate (`cli`, `cmd`, `fuzzing`, `main`/`lib`), which share one crate, every
//!   path to another kseg module (`crate::…`, `kseg_…::`, `super::…`, `use` groups,
//!   fully-qualified paths) or external crate is allowed by its row.
//!
//! Comments and string literals are skipped. A forbidden arrow fails with
//! `FILE:LINE: LAYER -> PATH is not allowed`; an exception in the table's exception list that no
//! longer matches anything fails too, so the list only shrinks.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

// ---------------------------------------------------------------------------------------------
// The table

struct Layer {
    name: String,
    /// `src/format/` (a folder) or `src/scan.rs` (one file).
    files: Vec<String>,
    /// kseg paths this layer may name, as module-path prefixes: `format`, `print::escape`.
    uses: Vec<Vec<String>>,
    /// External crates this layer may name (`*`: any).
    crates: Vec<String>,
    /// Standard-library paths this layer must not name: `std::fs`.
    no_std: Vec<Vec<String>>,
}

struct Exception {
    file: String,
    target: Vec<String>,
    used: std::cell::Cell<bool>,
}

fn cells(line: &str) -> Vec<String> {
    let t = line.trim().trim_start_matches('|').trim_end_matches('|');
    t.split('|').map(|c| c.trim().replace('`', "")).collect()
}

fn list(cell: &str) -> Vec<String> {
    if cell == "-" || cell.is_empty() {
        return Vec::new();
    }
    cell.split(',').map(|s| s.trim().to_string()).collect()
}

fn segs(p: &str) -> Vec<String> {
    p.split("::").map(str::to_string).collect()
}

/// The rows of the markdown table that follows `marker` in ARCHITECTURE.md.
fn table_after(doc: &str, marker: &str) -> Vec<Vec<String>> {
    let start = doc
        .find(marker)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md lacks the marker {marker:?}"));
    let mut rows = Vec::new();
    let mut seen_table = false;
    for line in doc[start + marker.len()..].lines() {
        let l = line.trim();
        if l.starts_with('|') {
            seen_table = true;
            let c = cells(l);
            if c.iter()
                .all(|x| x.len() >= 3 && x.chars().all(|ch| ch == '-' || ch == ':'))
            {
                continue;
            }
            rows.push(c);
        } else if seen_table {
            break;
        }
    }
    assert!(
        rows.len() > 1,
        "no table after {marker:?} in ARCHITECTURE.md"
    );
    rows.remove(0); // the header
    rows
}

fn load_table() -> (Vec<Layer>, Vec<Exception>) {
    let doc = fs::read_to_string(Path::new(ROOT).join("ARCHITECTURE.md")).unwrap();
    let layers = table_after(&doc, "<!-- layer table: checked by tests/cli/layers.rs -->")
        .into_iter()
        .map(|c| {
            assert_eq!(c.len(), 5, "a layer row has 5 cells: {c:?}");
            Layer {
                name: c[0].clone(),
                files: list(&c[1]),
                uses: list(&c[2]).iter().map(|p| segs(p)).collect(),
                crates: list(&c[3]),
                no_std: list(&c[4]).iter().map(|p| segs(p)).collect(),
            }
        })
        .collect();
    let exceptions = table_after(
        &doc,
        "<!-- layer exceptions: checked by tests/cli/layers.rs -->",
    )
    .into_iter()
    .filter(|c| c[0] != "-")
    .map(|c| {
        assert_eq!(c.len(), 3, "an exception row has 3 cells: {c:?}");
        Exception {
            file: c[0].clone(),
            target: segs(&c[1]),
            used: std::cell::Cell::new(false),
        }
    })
    .collect();
    (layers, exceptions)
}

fn layer_of<'a>(layers: &'a [Layer], rel: &str) -> &'a Layer {
    let hits: Vec<&Layer> = layers
        .iter()
        .filter(|l| {
            l.files.iter().any(|f| {
                if f.ends_with('/') {
                    rel.starts_with(f.as_str())
                } else {
                    rel == f
                }
            })
        })
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "{rel} must belong to exactly one layer of ARCHITECTURE.md's table (it is in {})",
        hits.len()
    );
    hits[0]
}

/// The kseg top-level module each layer's files declare (`format`, `scan`, …) from the files
/// column: `src/format/` -> `format`, `src/scan.rs` -> `scan`.
fn module_layers(layers: &[Layer]) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for l in layers {
        for f in &l.files {
            let rest = f.trim_start_matches("src/").trim_start_matches("crates/");
            let module = rest.trim_end_matches('/').trim_end_matches(".rs");
            if module != "main" && module != "lib" {
                m.insert(module.to_string(), l.name.clone());
            }
        }
    }
    m
}

// ---------------------------------------------------------------------------------------------
// A small Rust lexer: identifiers, `::` and punctuation, with comments and literals skipped.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Path, // `::`
    Punct(char),
}

fn lex(src: &str) -> Vec<(Tok, usize)> {
    let b: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0usize, 1usize);
    let n = b.len();
    let at = |i: usize| if i < n { b[i] } else { '\0' };
    while i < n {
        let c = b[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < n && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < n {
                if b[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while i < n && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                if at(i) == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' {
            // A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 3;
                while i < n && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while i < n && (b[i].is_alphanumeric() || b[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            let s = i;
            while i < n && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            let word: String = b[s..i].iter().collect();
            // Raw and byte strings: r"…", r#"…"#, b"…", br"…", c"…"; raw identifiers r#x.
            let raw = matches!(word.as_str(), "r" | "br" | "cr");
            if raw && (at(i) == '#' || at(i) == '"') {
                let mut hashes = 0;
                while at(i + hashes) == '#' {
                    hashes += 1;
                }
                if at(i + hashes) == '"' {
                    i += hashes + 1;
                    loop {
                        if i >= n {
                            break;
                        }
                        if b[i] == '"' && (0..hashes).all(|k| at(i + 1 + k) == '#') {
                            i += 1 + hashes;
                            break;
                        }
                        if b[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                    continue;
                }
                // r#ident
                i += hashes;
                let s = i;
                while i < n && (b[i].is_alphanumeric() || b[i] == '_') {
                    i += 1;
                }
                out.push((Tok::Ident(b[s..i].iter().collect()), line));
                continue;
            }
            if matches!(word.as_str(), "b" | "c") && (at(i) == '"' || at(i) == '\'') {
                continue; // the literal is lexed next round
            }
            out.push((Tok::Ident(word), line));
        } else if c.is_ascii_digit() {
            while i < n && (b[i].is_alphanumeric() || b[i] == '_' || b[i] == '.') {
                if b[i] == '.' && at(i + 1) == '.' {
                    break;
                }
                i += 1;
            }
        } else if c == ':' && at(i + 1) == ':' {
            out.push((Tok::Path, line));
            i += 2;
        } else if c == '$' && at(i + 1).is_alphabetic() {
            // `$crate` and macro variables: not paths of this file.
            i += 1;
            while i < n && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
        } else {
            out.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Paths

/// Every path a file names, with its line: the leaves of `use` trees in full, and every
/// `a::b::c` chain elsewhere. Paths are resolved to `crate::…` through `super::`/`self::`
/// (inline `mod x { … }` blocks included), to the `use` aliases of the file, and from
/// `kseg::` in the binary.
fn paths(
    toks: &[(Tok, usize)],
    file_module: &[String],
    crate_layer: Option<&str>,
    layer_names: &BTreeSet<String>,
) -> Vec<(Vec<String>, usize)> {
    // `crate::x` in a layer crate is `crate::<layer>::x` of the old single crate; `kseg_<layer>`
    // names that layer from anywhere.
    let absolute = |mut path: Vec<String>| -> Vec<String> {
        if let Some(layer) = crate_layer {
            if path.first().map(String::as_str) == Some("crate") {
                path.insert(1, layer.to_string());
                return path;
            }
        }
        if let Some(layer) = path.first().and_then(|p| p.strip_prefix("kseg_")) {
            if layer_names.contains(layer) {
                let layer = layer.to_string();
                path[0] = "crate".into();
                path.insert(1, layer);
            }
        }
        path
    };
    let mut raw: Vec<(Vec<String>, Vec<String>, usize)> = Vec::new(); // (module, path, line)
    let mut aliases: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut mods: Vec<(String, usize)> = Vec::new(); // inline modules: (name, depth)
    let mut depth = 0usize;
    let mut i = 0;
    let ident = |i: usize| match toks.get(i) {
        Some((Tok::Ident(s), _)) => Some(s.as_str()),
        _ => None,
    };
    let is = |i: usize, t: &Tok| toks.get(i).map(|x| &x.0) == Some(t);
    while i < toks.len() {
        let module: Vec<String> = file_module
            .iter()
            .cloned()
            .chain(mods.iter().map(|m| m.0.clone()))
            .collect();
        match &toks[i].0 {
            Tok::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if mods.last().is_some_and(|m| m.1 == depth) {
                    mods.pop();
                }
                i += 1;
            }
            Tok::Ident(w)
                if w == "mod" && ident(i + 1).is_some() && is(i + 2, &Tok::Punct('{')) =>
            {
                mods.push((ident(i + 1).unwrap().to_string(), depth));
                i += 2;
            }
            Tok::Ident(w) if w == "use" => {
                let mut j = i + 1;
                let mut leaves = Vec::new();
                use_tree(toks, &mut j, Vec::new(), &mut leaves);
                for (path, alias, line) in leaves {
                    if let Some(a) = alias {
                        aliases.insert(a, absolute(path.clone()));
                    }
                    raw.push((module.clone(), absolute(path), line));
                }
                i = j;
            }
            Tok::Ident(_) | Tok::Path => {
                let starts = !(i > 0 && is(i - 1, &Tok::Path));
                let mut j = i;
                let mut path = Vec::new();
                if is(j, &Tok::Path) {
                    j += 1; // a leading `::`
                }
                while let Some(w) = ident(j) {
                    path.push(w.to_string());
                    if is(j + 1, &Tok::Path) && ident(j + 2).is_some() {
                        j += 2;
                    } else {
                        j += 1;
                        break;
                    }
                }
                if starts && path.len() > 1 {
                    raw.push((module.clone(), absolute(path), toks[i].1));
                }
                i = j.max(i + 1);
            }
            _ => i += 1,
        }
    }
    raw.into_iter()
        .map(|(module, path, line)| (resolve(&module, path, &aliases), line))
        .collect()
}

/// Reads a `use` tree from `toks[*j]` to its `;`, pushing (full path, alias, line) per leaf.
fn use_tree(
    toks: &[(Tok, usize)],
    j: &mut usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>, usize)>,
) {
    let mut path = prefix.clone();
    let mut line = toks.get(*j).map_or(0, |t| t.1);
    loop {
        let Some((tok, l)) = toks.get(*j) else { return };
        match tok {
            Tok::Ident(w) if w == "as" => {
                *j += 1;
                if let Some((Tok::Ident(a), _)) = toks.get(*j) {
                    if path.last().map(String::as_str) == Some("self") {
                        path.pop();
                    }
                    out.push((path.clone(), Some(a.clone()), line));
                    path = prefix.clone();
                }
                *j += 1;
            }
            Tok::Ident(w) => {
                if path.len() == prefix.len() {
                    line = *l;
                }
                path.push(w.clone());
                *j += 1;
            }
            Tok::Path => *j += 1,
            Tok::Punct('*') => {
                out.push((path.clone(), None, *l));
                path = prefix.clone();
                *j += 1;
            }
            Tok::Punct('{') => {
                *j += 1;
                use_tree(toks, j, path.clone(), out);
                path = prefix.clone();
            }
            Tok::Punct(',') => {
                push_leaf(&path, &prefix, line, out);
                path = prefix.clone();
                *j += 1;
            }
            Tok::Punct('}') => {
                push_leaf(&path, &prefix, line, out);
                *j += 1;
                return;
            }
            Tok::Punct(';') => {
                push_leaf(&path, &prefix, line, out);
                *j += 1;
                return;
            }
            Tok::Punct(_) => *j += 1,
        }
    }
}

fn push_leaf(
    path: &[String],
    prefix: &[String],
    line: usize,
    out: &mut Vec<(Vec<String>, Option<String>, usize)>,
) {
    if path.len() == prefix.len() {
        return; // nothing after a group, or an empty group
    }
    let mut p = path.to_vec();
    if p.last().map(String::as_str) == Some("self") {
        p.pop();
    }
    let alias = p.last().cloned();
    out.push((p, alias, line));
}

fn resolve(
    module: &[String],
    path: Vec<String>,
    aliases: &BTreeMap<String, Vec<String>>,
) -> Vec<String> {
    let mut out: Vec<String> = vec!["crate".into()];
    let mut rest = path.as_slice();
    match rest.first().map(String::as_str) {
        Some("crate") | Some("kseg") => rest = &rest[1..],
        Some("self") => {
            out.extend(module.iter().cloned());
            rest = &rest[1..];
        }
        Some("super") => {
            let mut m = module.to_vec();
            while rest.first().map(String::as_str) == Some("super") {
                m.pop();
                rest = &rest[1..];
            }
            out.extend(m);
        }
        Some(first) => match aliases.get(first) {
            Some(full) if full != &path[..1] => {
                let mut p = full.clone();
                p.extend(rest[1..].iter().cloned());
                return resolve(module, p, &BTreeMap::new());
            }
            _ => return path,
        },
        None => return path,
    }
    out.extend(rest.iter().cloned());
    out
}

// ---------------------------------------------------------------------------------------------

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file, as in the old single crate: src/a/b.rs -> [a, b]; src/a/mod.rs ->
/// [a]; src/lib.rs -> []; crates/format/src/a.rs -> [format, a]; crates/format/src/lib.rs ->
/// [format].
fn file_module(rel: &str) -> Vec<String> {
    let r = match rel.strip_prefix("crates/") {
        Some(c) => c.replacen("/src/", "/", 1),
        None => rel.trim_start_matches("src/").to_string(),
    };
    let r = r.trim_end_matches(".rs");
    let mut m: Vec<String> = r.split('/').map(str::to_string).collect();
    if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        m.pop();
    }
    m
}

/// The dependency crates of a Cargo.toml (the root's, or `crates/<layer>/Cargo.toml`), as Rust
/// names; dev-dependencies separately.
fn dependencies(manifest: &Path) -> (BTreeSet<String>, BTreeSet<String>) {
    let toml = fs::read_to_string(manifest).unwrap();
    let (mut deps, mut dev) = (BTreeSet::new(), BTreeSet::new());
    let mut section = String::new();
    for line in toml.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            section = l.to_string();
        } else if let Some((name, _)) = l.split_once('=') {
            let name = name.trim().trim_end_matches(".workspace").replace('-', "_");
            if l.starts_with('#') || name.contains(' ') {
                continue;
            }
            match section.as_str() {
                "[dependencies]" => deps.insert(name),
                "[dev-dependencies]" => dev.insert(name),
                _ => false,
            };
        }
    }
    (deps, dev)
}

fn starts_with(path: &[String], prefix: &[String]) -> bool {
    path.len() >= prefix.len() && path.iter().zip(prefix).all(|(a, b)| a == b)
}

/// The violations of the table in the files of `src/` (or of `extra`, for the self-test).
fn violations(extra: Option<(&str, &str)>) -> Vec<String> {
    let (layers, exceptions) = load_table();
    let modules = module_layers(&layers);
    let layer_names: BTreeSet<String> = modules.keys().cloned().collect();
    let mut files = Vec::new();
    rust_files(&Path::new(ROOT).join("src"), &mut files);
    for c in fs::read_dir(Path::new(ROOT).join("crates")).unwrap() {
        rust_files(&c.unwrap().path().join("src"), &mut files);
    }
    files.sort();
    let mut sources: Vec<(String, String)> = files
        .iter()
        .map(|p| {
            let rel = p
                .strip_prefix(ROOT)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, fs::read_to_string(p).unwrap())
        })
        .collect();
    if let Some((rel, text)) = extra {
        sources = vec![(rel.to_string(), text.to_string())];
    }
    let mut bad = Vec::new();
    for (rel, text) in &sources {
        let layer = layer_of(&layers, rel);
        let crate_layer = rel
            .strip_prefix("crates/")
            .and_then(|c| c.split('/').next())
            .map(str::to_string);
        let manifest = match &crate_layer {
            Some(c) => Path::new(ROOT).join("crates").join(c).join("Cargo.toml"),
            None => Path::new(ROOT).join("Cargo.toml"),
        };
        let (deps, dev) = dependencies(&manifest);
        let toks = lex(text);
        // One report per file and forbidden target: its first line.
        let mut seen = BTreeSet::new();
        for (path, line) in paths(
            &toks,
            &file_module(rel),
            crate_layer.as_deref(),
            &layer_names,
        ) {
            let first = path[0].as_str();
            let what = path.join("::");
            if first == "crate" {
                let Some(target) = path.get(1) else { continue };
                let Some(target_layer) = modules.get(target) else {
                    continue; // an item of the crate root (none today) or a local name
                };
                if *target_layer == layer.name {
                    continue;
                }
                let p = &path[1..];
                if layer.uses.iter().any(|u| starts_with(p, u)) {
                    continue;
                }
                if let Some(e) = exceptions
                    .iter()
                    .find(|e| e.file == *rel && starts_with(p, &e.target))
                {
                    e.used.set(true);
                    continue;
                }
                if seen.insert(p.join("::")) {
                    bad.push(format!(
                        "{rel}:{line}: {} -> {} is not allowed ({what}; the {} layer may use: {})",
                        layer.name,
                        p.join("::"),
                        layer.name,
                        show(&layer.uses)
                    ));
                }
            } else if matches!(first, "std" | "core" | "alloc") {
                let mut p = path.clone();
                p[0] = "std".into();
                if let Some(n) = layer.no_std.iter().find(|n| starts_with(&p, n)) {
                    if seen.insert(n.join("::")) {
                        bad.push(format!(
                            "{rel}:{line}: {} -> {} is not allowed ({what})",
                            layer.name,
                            n.join("::")
                        ));
                    }
                }
            } else if deps.contains(first) && !dev.contains(first) {
                if layer.crates.iter().any(|c| c == "*" || c == first) {
                    continue;
                }
                if let Some(e) = exceptions
                    .iter()
                    .find(|e| e.file == *rel && e.target.len() == 1 && e.target[0] == first)
                {
                    e.used.set(true);
                    continue;
                }
                if seen.insert(first.to_string()) {
                    bad.push(format!(
                        "{rel}:{line}: {} -> crate {first} is not allowed ({what}; the {} layer may use the crates: {})",
                        layer.name,
                        layer.name,
                        layer.crates.join(", ")
                    ));
                }
            }
        }
    }
    if extra.is_none() {
        for e in &exceptions {
            if !e.used.get() {
                bad.push(format!(
                    "ARCHITECTURE.md: the exception {} -> {} matches nothing any more: remove it",
                    e.file,
                    e.target.join("::")
                ));
            }
        }
    }
    bad
}

fn show(uses: &[Vec<String>]) -> String {
    if uses.is_empty() {
        return "nothing of kseg".into();
    }
    uses.iter()
        .map(|u| u.join("::"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn every_arrow_is_allowed_by_the_layer_table() {
    let bad = violations(None);
    assert!(
        bad.is_empty(),
        "{} forbidden arrow(s) (the table is in ARCHITECTURE.md):\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The checker itself: each way of naming another layer is caught, comments and strings are not.
/// In a layer crate, `crate::x` is the crate's own module and `kseg_<layer>::` another layer.
#[test]
fn the_checker_sees_every_form_of_path() {
    let src = r##"
        //! kseg_print::x in a doc comment
        use std::io::{self, Write};
        use super::reader::Reader;
        use kseg_storage::{source::Source, discover};
        use kseg_print::{self as p, escape::{escaped, Encoding}};
        /* kseg_cmd::x in a block comment */
        fn f() -> kseg_analysis::Summary {
            let s = "kseg_analysis::y in a string";
            let r = r#"kseg_analysis::z"#;
            let c = '"';
            let own = crate::batch::RecordBatch::parse(b"");
            super::super::cli::Cli::new();
            std::fs::read("x");
            io::stdout();
        }
        mod inner {
            use super::super::super::scan::scan_log;
        }
    "##;
    let bad = violations(Some(("crates/format/src/probe.rs", src)));
    let lines: Vec<String> = bad
        .iter()
        .map(|b| b.split(" is not allowed").next().unwrap().to_string())
        .collect();
    assert_eq!(
        lines,
        [
            "crates/format/src/probe.rs:5: format -> storage::source::Source",
            "crates/format/src/probe.rs:5: format -> storage::discover",
            "crates/format/src/probe.rs:6: format -> print",
            "crates/format/src/probe.rs:6: format -> print::escape::escaped",
            "crates/format/src/probe.rs:6: format -> print::escape::Encoding",
            "crates/format/src/probe.rs:8: format -> analysis::Summary",
            "crates/format/src/probe.rs:13: format -> cli::Cli::new",
            "crates/format/src/probe.rs:14: format -> std::fs",
            "crates/format/src/probe.rs:15: format -> std::io::stdout",
            "crates/format/src/probe.rs:18: format -> scan::scan_log",
        ],
        "{bad:#?}"
    );
    // In the root crate, which holds cli and cmd together, arrows and crates are checked here.
    let cli = r##"
        use crate::cmd::run;
        use crate::format::compression::DEFAULT_MAX_DECOMPRESSED;
        fn f() { rayon::join(|| 1, || 2); }
    "##;
    let bad = violations(Some(("src/cli.rs", cli)));
    let lines: Vec<String> = bad
        .iter()
        .map(|b| b.split(" is not allowed").next().unwrap().to_string())
        .collect();
    assert_eq!(
        lines,
        [
            "src/cli.rs:2: cli -> cmd::run",
            "src/cli.rs:4: cli -> crate rayon"
        ],
        "{bad:#?}"
    );
}

/// What Cargo checks only once it is declared: each layer crate's manifest names only the kseg
/// crates and external crates its row of the table allows.
#[test]
fn each_crate_declares_only_what_its_row_allows() {
    let (layers, _) = load_table();
    let mut bad = Vec::new();
    let mut crates = 0;
    for l in &layers {
        for f in &l.files {
            let Some(dir) = f.strip_prefix("crates/") else {
                continue;
            };
            crates += 1;
            let manifest = Path::new(ROOT).join("crates").join(dir).join("Cargo.toml");
            let (deps, _) = dependencies(&manifest);
            for d in &deps {
                if let Some(layer) = d.strip_prefix("kseg_") {
                    if !l.uses.iter().any(|u| u.len() == 1 && u[0] == layer) {
                        bad.push(format!(
                            "{}: {} may not depend on kseg-{layer}",
                            manifest.display(),
                            l.name
                        ));
                    }
                } else if !l
                    .crates
                    .iter()
                    .any(|c| c == "*" || c.replace('-', "_") == *d)
                {
                    bad.push(format!(
                        "{}: {} may not depend on {d}",
                        manifest.display(),
                        l.name
                    ));
                }
            }
        }
    }
    assert!(crates >= 9, "the table names {crates} layer crates");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
