//! The speed floor for `verify-index`: one CRC-32C pass over a whole file, read the same way
//! kseg reads (1 MiB positioned reads). `cargo run --release --example crc_pass -- FILE`.

use std::os::unix::fs::FileExt;

fn main() -> std::io::Result<()> {
    let path = std::env::args().nth(1).expect("usage: crc_pass FILE");
    let file = std::fs::File::open(&path)?;
    let len = file.metadata()?.len();
    let mut buf = vec![0u8; 1 << 20];
    let mut crc = 0u32;
    let mut at = 0u64;
    let start = std::time::Instant::now();
    while at < len {
        let n = file.read_at(&mut buf, at)?;
        if n == 0 {
            break;
        }
        crc = crc32c::crc32c_append(crc, &buf[..n]);
        at += n as u64;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{at} bytes, crc32c {crc:08x}, {secs:.3} s, {:.2} GB/s",
        at as f64 / secs / 1e9
    );
    Ok(())
}
