//! Input limits: how much a run accepts before it refuses with a clear error (exit 3), so
//! hostile or broken files cannot exhaust memory or time. The defaults fit real use with a
//! wide margin; the command line can raise every one of them.
//!
//! The limits are set once, by the command line, before anything is read, and read where the
//! input is: the loader (file size), the YAML reader (documents, nesting, nodes, which also
//! bounds alias expansion: each use of an alias counts its whole value again), the
//! environment reader (entities), the catalog database (how long to wait for a lock).

use std::sync::OnceLock;

/// Every input limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes in one input file.
    pub file_bytes: u64,
    /// YAML documents in one file.
    pub documents: usize,
    /// Nesting depth of one YAML document.
    pub depth: usize,
    /// YAML nodes (scalars, sequences, mappings) in one file, aliases expanded.
    pub nodes: usize,
    /// Entities in one environment.
    pub entities: usize,
    /// How long to wait for another process's lock on a catalog database, in milliseconds.
    pub lock_wait_ms: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            file_bytes: 64 * 1024 * 1024,
            documents: 100_000,
            depth: 64,
            nodes: 5_000_000,
            entities: 1_000_000,
            lock_wait_ms: 10_000,
        }
    }
}

static LIMITS: OnceLock<Limits> = OnceLock::new();

/// Sets the limits for this process; only the first call counts.
pub fn set(limits: Limits) {
    let _ = LIMITS.set(limits);
}

/// The limits in force.
#[must_use]
pub fn get() -> Limits {
    LIMITS.get().copied().unwrap_or_default()
}
