//! Fleets through the real binary: each environment's part of a fleet report is what the
//! environment gets alone, from a directory and from a database catalog alike.

use serde_json::Value;

use super::{compat, scratch};

const CATALOG: &str = "testdata/examples/catalog";

/// Environments over the example catalog: valid, invalid, warnings only, unknown releases
/// (whose hints read more of a database catalog).
const FLEET: [&str; 6] = [
    "testdata/examples/env-broken.yml",
    "testdata/examples/env-valid.yml",
    "testdata/cases/unknown-release/env.yml",
    "testdata/fleet/dev/laptop.json",
    "testdata/fleet/prod-us.yml",
    "testdata/fleet/prod-eu.yml",
];

fn json(args: &[&str]) -> Value {
    let out = compat(args);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A fleet run's JSON against one run per environment, on `catalog`, `validate` with the
/// `allow` flags.
fn check_parts(catalog: &str, allow: &[&str]) {
    let mut args = vec!["validate", "-f", "json", "--catalog", catalog];
    args.extend(allow);
    args.extend(FLEET);
    let fleet = json(&args);
    assert_eq!(fleet["schema_version"], 1);
    let mut upgrade_args = vec!["upgrades", "-f", "json", "--catalog", catalog];
    upgrade_args.extend(FLEET);
    let upgrades = json(&upgrade_args);
    for (i, env) in FLEET.iter().enumerate() {
        let mut part = fleet["environments"][i].clone();
        assert_eq!(part["file"], *env);
        part.as_object_mut().unwrap().remove("file");
        // the document says its version once, not each part
        let mut alone_args = vec!["validate", env, "-f", "json", "--catalog", catalog];
        alone_args.extend(allow);
        let mut alone = json(&alone_args);
        assert_eq!(
            alone.as_object_mut().unwrap().remove("schema_version"),
            Some(1.into())
        );
        assert_eq!(part, alone, "validate {env} on {catalog} {allow:?}");
        let alone = json(&["upgrades", env, "-f", "json", "--catalog", catalog]);
        assert_eq!(
            upgrades["environments"][i]["upgrades"], alone["upgrades"],
            "upgrades {env} on {catalog}"
        );
    }
    let invalid = fleet["environments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["valid"] == false)
        .count();
    assert_eq!(fleet["summary"]["invalid"], invalid);
    assert_eq!(fleet["valid"], invalid == 0);
    // accepted findings are in no total, as in each environment's own summary
    let parts = fleet["environments"].as_array().unwrap();
    for key in ["errors", "warnings", "accepted"] {
        let sum: u64 = parts
            .iter()
            .map(|p| p["summary"][key].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(fleet["summary"][key].as_u64().unwrap_or(0), sum, "{key}");
    }
}

#[test]
fn each_environment_of_a_fleet_reports_as_it_does_alone() {
    check_parts(CATALOG, &[]);
    let dir = scratch("fleet");
    let db = dir.join("c.db");
    let db = db.to_str().unwrap();
    let imported = compat(&["catalog", "import", CATALOG, "--db", db]);
    assert_eq!(imported.status.code(), Some(0));
    check_parts(db, &[]);
}

#[test]
fn a_fleet_accepts_findings_as_each_environment_does() {
    let allow = [
        "--allow",
        "version-too-high",
        "--allow",
        "below-recommended",
    ];
    check_parts(CATALOG, &allow);
    let mut args = vec!["validate", "-f", "json", "--catalog", CATALOG];
    args.extend(allow);
    args.extend(FLEET);
    let accepted = json(&args)["summary"]["accepted"].as_u64().unwrap_or(0);
    assert!(
        accepted > 0,
        "the example fleet has findings of these codes"
    );
}

#[test]
fn a_fleet_exits_with_its_worst_environment() {
    let code = |envs: &[&str]| {
        let mut args = vec!["validate", "--catalog", CATALOG];
        args.extend(envs);
        compat(&args).status.code()
    };
    let (valid, warnings, invalid) = (FLEET[1], FLEET[3], FLEET[0]);
    assert_eq!(code(&[valid, warnings]), Some(0));
    assert_eq!(code(&[valid, warnings, "--fail-on", "warning"]), Some(1));
    assert_eq!(code(&[valid, invalid]), Some(1));
    // a malformed environment is exit 3 whatever the others say, and nothing reaches stdout
    let out = compat(&[
        "validate",
        "--catalog",
        CATALOG,
        valid,
        invalid,
        "testdata/bad/env-bad-version.yml",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stdout.is_empty());
    assert_eq!(code(&["-", "-"]), Some(2));
}

#[test]
fn a_policy_file_applies_to_every_environment_of_a_fleet() {
    const SECTION_9: &str = "testdata/examples/capabilities/catalog";
    const ENVS: [&str; 2] = [
        "testdata/examples/capabilities/env-prod.yml",
        "testdata/examples/capabilities/env-staging.yml",
    ];
    let dir = scratch("fleet-policy");
    let policy = dir.join("policy.yml");
    std::fs::write(
        &policy,
        "policy:\n  exclude:\n    - product: com.example:mysql\n      minimum-version: 8.0.0\n      maximum-version: 8.x.x\n      reason: not certified here\n  colour: blue\n",
    )
    .unwrap();
    let policy = policy.to_str().unwrap();
    for command in ["validate", "upgrades"] {
        let mut args = vec![command, "-f", "json", "--catalog", SECTION_9];
        args.extend(["--policy", policy]);
        args.extend(ENVS);
        let out = compat(&args);
        // the policy file's warning reaches stderr, once for the run
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.matches("unknown key `colour` in `policy`").count(),
            1,
            "{command}: {stderr}"
        );
        let fleet: Value = serde_json::from_slice(&out.stdout).unwrap();
        for (i, env) in ENVS.iter().enumerate() {
            let alone = json(&[
                command,
                env,
                "-f",
                "json",
                "--catalog",
                SECTION_9,
                "--policy",
                policy,
            ]);
            let key = if command == "validate" {
                "findings"
            } else {
                "upgrades"
            };
            assert_eq!(
                fleet["environments"][i][key], alone[key],
                "{command} {env} with --policy"
            );
        }
    }
    // staging runs the excluded mysql 8.0.0, and prod may no longer move to it
    let validated = json(&[
        "validate",
        "-f",
        "json",
        "--catalog",
        SECTION_9,
        "--policy",
        policy,
        ENVS[0],
        ENVS[1],
    ]);
    let staging = validated["environments"][1]["findings"].to_string();
    assert!(staging.contains("excluded-release"), "{staging}");
    let upgrades = json(&[
        "upgrades",
        "-f",
        "json",
        "--catalog",
        SECTION_9,
        "--policy",
        policy,
        ENVS[0],
        ENVS[1],
    ]);
    let mysql = upgrades["environments"][0]["upgrades"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["product"] == "com.example:mysql")
        .unwrap();
    assert_eq!(mysql["installed"], "5.7.0");
    assert_eq!(mysql["safe"], Value::Null);
}
