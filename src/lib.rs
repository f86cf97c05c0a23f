//! `compat`: validate multi-product environments against the version constraints their
//! releases declare, list safe upgrades, plan them, and order installs.
//!
//! The core modules (`version` through `validate`) do no IO and never print; loading files
//! happens in [`loader`] and the catalog backends, rendering in [`report`]. The command line
//! is the binary's (`src/cli/`), not part of the library.

pub mod accept;
pub mod catalog;
pub mod changes;
pub mod config;
pub mod constraint;
pub mod dependents;
pub mod diagnostic;
pub mod environment;
pub mod finding;
pub mod fleet;
pub mod generate;
pub mod graph;
pub mod limits;
pub mod lint;
pub mod loader;
pub mod manifest;
pub mod matcher;
pub mod order;
pub mod plan;
pub mod policy;
pub mod precedence;
pub mod product;
pub mod range;
pub mod report;
pub mod rule;
pub mod solve;
pub mod suggest;
pub mod upgrade;
pub mod validate;
pub mod version;
mod yaml;
