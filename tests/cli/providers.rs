//! `catalog list`, `catalog providers` and `plan --allow-install` (which adds capability
//! providers: the catalog's closure follows capabilities to them) on section 9 data answer
//! the same from a SQLite catalog as from the directory it was imported from: every run below
//! must print, byte for byte, what the directory's trycmd case records (so the SQLite answers
//! are held to the same expected files, and their JSON to the same schemas). So do the
//! explanations that name a capability's providers (an uninstalled one found through the
//! catalog's index, offered with `--allow-install`), exit code included.

use std::fs;

use super::{assert_succeeded, compat, scratch};

/// The trycmd cases (`testdata/cli/NAME.toml`) run again on the SQLite copy of their catalog.
const CASES: [&str; 13] = [
    "catalog-list-capabilities",
    "catalog-list-capabilities-json",
    "catalog-list-capabilities-product",
    "catalog-providers",
    "catalog-providers-range-json",
    "catalog-providers-unversioned",
    "catalog-providers-unversioned-bounded",
    "capabilities-plan-new-install",
    "capabilities-plan-new-install-json",
    "capabilities-plan-legacy-pinned",
    "capabilities-plan-legacy-pinned-json",
    "capabilities-plan-no-install",
    "capabilities-upgrades-legacy",
];

const CATALOG: &str = "testdata/examples/capabilities/catalog";

#[test]
fn a_sqlite_catalog_lists_section_9_and_providers_as_its_directory_does() {
    let dir = scratch("providers");
    let db = dir.join("c.db");
    let db = db.to_str().unwrap();
    assert_succeeded(&compat(&["catalog", "import", CATALOG, "--db", db]));
    for case in CASES {
        let toml = fs::read_to_string(format!("testdata/cli/{case}.toml")).unwrap();
        let line = toml.lines().find(|l| l.starts_with("args = ")).unwrap();
        let args: Vec<String> = serde_json::from_str(&line["args = ".len()..]).unwrap();
        assert!(args.iter().any(|a| a == CATALOG), "{case}");
        let args: Vec<&str> = args
            .iter()
            .map(|a| if a == CATALOG { db } else { a.as_str() })
            .collect();
        let out = compat(&args);
        let status = toml
            .lines()
            .find_map(|l| l.strip_prefix("status.code = "))
            .map_or(0, |code| code.parse().unwrap());
        assert_eq!(
            out.status.code(),
            Some(status),
            "{case}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let expected = fs::read_to_string(format!("testdata/cli/{case}.stdout")).unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), expected, "{case}");
    }
    let _ = fs::remove_dir_all(&dir);
}
