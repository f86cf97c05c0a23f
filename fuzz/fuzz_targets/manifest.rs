//! Manifests: reading any bytes never panics; every kept dependency has a non-empty range;
//! the fast reader agrees with the full YAML parser wherever it answers.
#![no_main]
use std::sync::Arc;

use compat::manifest;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    compat::limits::set(compat::limits::Limits {
        nodes: 50_000,
        ..compat::limits::Limits::default()
    });
    if let Err(difference) = manifest::cross_check(text) {
        panic!("the two manifest readers disagree:\n{difference}");
    }
    if let Ok(manifests) = manifest::parse(text, &Arc::from("fuzz.yml")) {
        for m in &manifests {
            assert!(m.dependencies.iter().all(|d| !d.range.is_empty()));
        }
    }
});
