//! What a build without the default features pulls in: no librdkafka, no OpenSSL, no cmake — so
//! `cargo build --no-default-features` needs no C toolchain for `rescue`'s producer.

use std::process::Command;

fn dependency_tree(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "-e",
            "normal,build",
            "--prefix",
            "none",
            "-p",
            "kseg",
        ])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn has_crate(tree: &str, name: &str) -> bool {
    tree.lines()
        .any(|l| l.split_whitespace().next() == Some(name))
}

#[test]
fn without_default_features_no_rdkafka_openssl_or_cmake_is_built() {
    let lean = dependency_tree(&["--no-default-features"]);
    for name in [
        "rdkafka",
        "rdkafka-sys",
        "openssl-sys",
        "openssl-src",
        "cmake",
    ] {
        assert!(!has_crate(&lean, name), "{name} in the lean build:\n{lean}");
    }
    // The check can fail: the default build does have the producer.
    let full = dependency_tree(&[]);
    assert!(has_crate(&full, "rdkafka-sys"), "{full}");
}

#[test]
fn the_portable_feature_links_openssl_and_zlib_statically() {
    // `cargo tree --features portable` would download OpenSSL's sources; the lock file and the
    // feature's definition say the same without the network.
    let root = env!("CARGO_MANIFEST_DIR");
    let manifest = std::fs::read_to_string(format!("{root}/Cargo.toml")).unwrap();
    let portable = manifest
        .lines()
        .find(|l| l.starts_with("portable = "))
        .expect("a `portable` feature");
    for needed in ["\"rescue\"", "kseg-client/portable"] {
        assert!(portable.contains(needed), "{portable}");
    }
    // The client crate, the one that links librdkafka, builds OpenSSL and zlib in for it.
    let client = std::fs::read_to_string(format!("{root}/crates/client/Cargo.toml")).unwrap();
    let portable = client
        .lines()
        .find(|l| l.starts_with("portable = "))
        .expect("kseg-client has a `portable` feature");
    for needed in ["rdkafka/ssl-vendored", "rdkafka/libz-static"] {
        assert!(portable.contains(needed), "{portable}");
    }
    let lock = std::fs::read_to_string(format!("{root}/Cargo.lock")).unwrap();
    assert!(
        lock.contains("name = \"openssl-src\""),
        "Cargo.lock has no openssl-src"
    );
}
