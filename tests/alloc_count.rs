//! A regression guard that cannot flake: the heap allocations of a deep dump do not grow with
//! the number of records or batches (zero per record, zero per batch) on the text and NDJSON
//! paths, for uncompressed v2 batches. Counted by a global allocator, per thread.

mod common;
use common::*;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io;
use std::path::Path;

use kseg::analysis::dump::DumpFeed;
use kseg::format::log::{RecordScratch, SliceSource};
use kseg::print::dump_json::JsonDump;
use kseg::print::dump_text::{TextDump, TextStyle};
use kseg::print::escape::Encoding;
use kseg::print::DumpPrinter;
use kseg::scan::{scan_log, ScanOptions};
use kseg::storage::layout::FileKind;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the allocator also runs while thread-locals are torn down.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// `batches` uncompressed v2 batches of 100 records, each with a key, a value (ASCII with a
/// quote, a backslash and a tab to escape, or not valid UTF-8) and two headers.
fn segment(batches: usize) -> Vec<u8> {
    let keys: Vec<String> = (0..100).map(|i| format!("customer-{i}")).collect();
    let values: Vec<Vec<u8>> = (0..100)
        .map(|i| {
            if i % 10 == 9 {
                vec![0xff, 0xfe, i as u8, 0x1b]
            } else {
                format!(
                    "{{\"order\":{i},\"note\":\"a \\\"quoted\\\"\ttab {}\"}}",
                    "x".repeat(40)
                )
                .into_bytes()
            }
        })
        .collect();
    let mut out = Vec::new();
    for b in 0..batches {
        let records: Vec<Rec<'_>> = (0..100)
            .map(|i| Rec {
                key: Some(keys[i].as_bytes()),
                value: Some(&values[i]),
                headers: vec![("trace", Some(b"abc".as_slice())), ("empty", None)],
                ts_delta: i as i64,
            })
            .collect();
        out.extend(batch(
            BatchSpec {
                base_offset: (b * 100) as i64,
                producer_id: 5,
                producer_epoch: 0,
                base_sequence: (b * 100) as i32,
                ..Default::default()
            },
            &records,
        ));
    }
    out
}

/// Allocations of one deep scan of `data` through `printer`, fed by the dump's adapter.
fn scan(printer: &mut dyn DumpPrinter, data: &[u8], scratch: &mut RecordScratch) -> u64 {
    let path = Path::new("/data/orders-0/00000000000000000000.log");
    printer.begin_file(path, &FileKind::Log).unwrap();
    let opts = ScanOptions {
        deep: true,
        ..Default::default()
    };
    let before = allocations();
    let mut feed = DumpFeed::new(printer, path, None);
    let stats = scan_log(&mut SliceSource(data), &opts, scratch, &mut feed).unwrap();
    let n = allocations() - before;
    assert_eq!(stats.records, stats.batches * 100);
    assert!(!stats.has_problems());
    n
}

#[test]
fn deep_dumps_allocate_nothing_per_record_or_batch() {
    let small = segment(20);
    let large = segment(60);
    let printers: Vec<(&str, Box<dyn DumpPrinter>)> = vec![
        (
            "json auto",
            Box::new(JsonDump::new(io::sink(), Encoding::Auto)),
        ),
        (
            "json hex",
            Box::new(JsonDump::new(io::sink(), Encoding::Hex)),
        ),
        (
            "json base64",
            Box::new(JsonDump::new(io::sink(), Encoding::Base64)),
        ),
        (
            "text --deep-iteration",
            Box::new(TextDump::new(io::sink(), TextStyle::default())),
        ),
        (
            "text --print-data-log",
            Box::new(TextDump::new(
                io::sink(),
                TextStyle {
                    print_data: true,
                    ..Default::default()
                },
            )),
        ),
    ];
    let mut report = Vec::new();
    for (name, mut printer) in printers {
        let mut scratch = RecordScratch::with_cap(64 << 20);
        // The first scan grows the reused buffers to their size.
        scan(printer.as_mut(), &large, &mut scratch);
        let a = scan(printer.as_mut(), &small, &mut scratch);
        let b = scan(printer.as_mut(), &large, &mut scratch);
        report.push(format!(
            "{name}: {a} allocations for 2,000 records, {b} for 6,000"
        ));
        assert_eq!(
            a, b,
            "{name}: allocations grow with the records ({a} for 20 batches, {b} for 60)"
        );
        // Once the reused buffers have grown, a whole scan allocates nothing at all.
        assert_eq!(b, 0, "{name}: {b} allocations in a warm scan");
    }
    eprintln!("{}", report.join("\n"));
}
