//! Matchers: parsing never panics; membership implies being under the bound.
#![no_main]
use compat::matcher::Matcher;
use compat::version::Version;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (left, right) = text.split_once(' ').unwrap_or((text, "1.2.3"));
    if let (Ok(m), Ok(v)) = (Matcher::parse(left), Version::parse(right)) {
        if m.matches(&v) {
            assert!(m.admits(&v));
        }
    }
});
