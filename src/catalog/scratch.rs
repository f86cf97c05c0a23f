//! Scratch paths for the catalog's unit tests: a file or directory under the system's
//! temporary directory, named after the test and the process, removed when its guard is
//! dropped (a SQLite file together with its `-wal` and `-shm` companions), so test runs
//! leave nothing behind.

use std::path::{Path, PathBuf};

/// A path only one test uses, removed (whatever is there) when dropped.
pub(crate) struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// `compat-{name}-{process id}` under the temporary directory, emptied first.
    pub(crate) fn new(name: &str) -> Scratch {
        let path = std::env::temp_dir().join(format!("compat-{name}-{}", std::process::id()));
        remove(&path);
        Scratch { path }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        remove(&self.path);
    }
}

fn remove(path: &Path) {
    let _ = std::fs::remove_dir_all(path);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_file_and_its_companions_are_removed_when_dropped() {
        let scratch = Scratch::new("scratch-test.db");
        let path = scratch.path().to_owned();
        for suffix in ["", "-wal", "-shm"] {
            std::fs::write(format!("{}{suffix}", path.display()), "x").unwrap();
        }
        drop(scratch);
        for suffix in ["", "-wal", "-shm"] {
            assert!(!Path::new(&format!("{}{suffix}", path.display())).exists());
        }
        let dir = Scratch::new("scratch-test-dir");
        std::fs::create_dir_all(dir.path().join("inner")).unwrap();
        let path = dir.path().to_owned();
        drop(dir);
        assert!(!path.exists());
    }
}
