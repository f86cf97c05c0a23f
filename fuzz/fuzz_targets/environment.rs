//! Environments: reading any bytes never panics; entity names come out unique and sorted;
//! the fast reader agrees with the full YAML parser wherever it answers.
#![no_main]
use std::sync::Arc;

use compat::environment;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    compat::limits::set(compat::limits::Limits {
        nodes: 50_000,
        ..compat::limits::Limits::default()
    });
    if let Err(difference) = environment::cross_check(text) {
        panic!("the two environment readers disagree:\n{difference}");
    }
    if let Ok(env) = environment::parse(text, &Arc::from("fuzz.yml"), "fuzz") {
        assert!(env.entities.windows(2).all(|w| w[0].name < w[1].name));
    }
});
