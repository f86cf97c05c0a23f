//! `compat`: validate multi-product environments against the version constraints their
//! releases declare, list safe upgrades, plan them, and order installs.
//!
//! The core modules (`version` through `validate`) do no IO and never print; loading files
//! happens in [`loader`], rendering in [`report`], and the command line in [`cli`].

pub mod matcher;
pub mod range;
pub mod version;
