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
pub mod environment;
pub mod fleet;
pub mod generate;
pub mod graph;
pub mod grouping;
pub mod lint;
pub mod loader;
pub mod manifest;
pub mod model;
pub mod order;
pub mod plan;
pub mod policy;
pub mod precedence;
pub mod report;
pub mod rule;
pub mod services;
pub mod serving;
pub mod solve;
pub mod suggest;
pub mod upgrade;
pub mod validate;
pub mod wiring;

// The pure definitions live in `model/`; their paths from before the move keep working.
use model::yaml;
pub use model::{diagnostic, finding, instance, limits, matcher, product, range, version};
