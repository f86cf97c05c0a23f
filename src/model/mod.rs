//! Pure definitions, no IO: the version grammar and order, matchers and ranges, product
//! identity, finding codes, located input errors, input limits, and the YAML reading every
//! file format shares. Everything else builds on these; they import nothing above them.
//! `lib.rs` re-exports each module at the crate root (`compat::version`, ...).

pub mod diagnostic;
pub mod finding;
pub mod instance;
pub mod limits;
pub mod matcher;
pub mod product;
pub mod range;
pub mod version;
pub(crate) mod yaml;
