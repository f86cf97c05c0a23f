//! Versions: parsing never panics, and printing then parsing gives an equal version.
#![no_main]
use compat::version::Version;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(v) = Version::parse(text) {
        let again = Version::parse(&v.to_string()).expect("a printed version parses");
        assert_eq!(again, v);
        assert_eq!(v.partial_cmp(&again), Some(std::cmp::Ordering::Equal));
    }
});
