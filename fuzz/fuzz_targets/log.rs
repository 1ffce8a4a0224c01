//! A whole `.log` file: framing, resynchronisation, batch headers, records, control records.
#![no_main]
use kseg::format::control::decode_control;
use kseg::format::log::{
    for_each_record, LogEntry, LogWalker, RecordScratch, SliceSource, WalkEvent,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut src = SliceSource(data);
    let mut walker = LogWalker::new(data.len() as u64);
    let mut scratch = RecordScratch::with_cap(4 << 20);
    while let Ok(Some(event)) = walker.next(&mut src) {
        if let WalkEvent::Entry { bytes, .. } = event {
            if let Ok(entry) = LogEntry::parse(bytes) {
                let info = entry.info();
                let _ = for_each_record(&entry, &mut scratch, |r| {
                    if info.is_control {
                        let _ = decode_control(r.key, r.value);
                    }
                    for h in r.headers.iter() {
                        let _ = h;
                    }
                });
            }
        }
    }
});
