//! Every JSON output of the CLI tests against its JSON Schema in `schemas/`: the recorded
//! outputs of the trycmd cases (which trycmd holds equal to the real ones) and a few runs of
//! the commands no case covers in JSON. The schemas forbid unknown fields, so a field added
//! to an output without its schema fails here, and every schema must be used.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use serde_json::Value;

use super::{assert_succeeded, compat, scratch};

fn schemas() -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir("schemas").unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let schema: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out.insert(name, schema);
    }
    out
}

/// The schema's name for a command line, `None` for the version utilities (plain values
/// and arrays, not reports). `validate` and `upgrades` on a fleet have their own.
fn schema_for(args: &[String]) -> Option<String> {
    match args.first()?.as_str() {
        "version" => None,
        "catalog" => Some(format!("catalog-{}", args.get(1)?)),
        command @ ("validate" | "upgrades") if is_fleet(&args[1..]) => {
            Some(format!("{command}-fleet"))
        }
        "order" if args.iter().any(|a| a == "--by") => Some("order-by".to_owned()),
        command => Some(command.to_owned()),
    }
}

/// Whether `validate`/`upgrades` arguments name a fleet: `--envs`, or more than one
/// environment (the positional arguments: those that are no option nor an option's value).
fn is_fleet(args: &[String]) -> bool {
    // the options of these commands that take a separate value
    const VALUED: [&str; 11] = [
        "--catalog",
        "--policy",
        "-f",
        "--format",
        "--fail-on",
        "--allow",
        "--config",
        "--timeout",
        "--exit-code",
        "-o",
        "--output",
    ];
    let mut envs = 0;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--envs" => return true,
            a if VALUED.contains(&a) || a.starts_with("--max-") => {
                args.next();
            }
            a if a.starts_with('-') && a != "-" => {}
            _ => envs += 1,
        }
    }
    envs > 1
}

fn asks_json(args: &[String]) -> bool {
    args.windows(2)
        .any(|w| (w[0] == "-f" || w[0] == "--format") && w[1] == "json")
}

#[track_caller]
fn check(schemas: &BTreeMap<String, Value>, name: &str, what: &str, text: &str) {
    let schema = schemas
        .get(name)
        .unwrap_or_else(|| panic!("{what}: no schemas/{name}.json"));
    let validator = jsonschema::validator_for(schema).unwrap();
    let instance: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: not JSON: {e}"));
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} against schemas/{name}.json:\n{}",
        errors.join("\n")
    );
}

#[test]
fn every_schema_is_a_valid_2020_12_schema() {
    for (name, schema) in schemas() {
        if let Err(e) = jsonschema::meta::validate(&schema) {
            panic!("schemas/{name}.json: {e}");
        }
    }
}

/// Shared definitions are copied into each schema that uses them (each file stands alone);
/// the copies must not drift apart.
#[test]
fn shared_definitions_are_the_same_everywhere() {
    let mut seen: BTreeMap<String, (String, Value)> = BTreeMap::new();
    for (name, schema) in schemas() {
        let Some(defs) = schema.get("$defs").and_then(Value::as_object) else {
            continue;
        };
        for (def, value) in defs {
            match seen.get(def) {
                Some((first, earlier)) => {
                    assert_eq!(value, earlier, "$defs/{def} differs in {name} and {first}");
                }
                None => {
                    seen.insert(def.clone(), (name.clone(), value.clone()));
                }
            }
        }
    }
}

#[test]
fn every_json_output_matches_its_schema() {
    let schemas = schemas();
    let mut used = BTreeSet::new();
    let mut cases = 0;
    for entry in fs::read_dir("testdata/cli").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let toml = fs::read_to_string(&path).unwrap();
        // `args = [...]`: a TOML array of double-quoted strings is a JSON array too
        let Some(line) = toml.lines().find(|l| l.starts_with("args = ")) else {
            continue;
        };
        let args: Vec<String> = serde_json::from_str(&line["args = ".len()..]).unwrap();
        if !asks_json(&args) {
            continue;
        }
        let Some(name) = schema_for(&args) else {
            continue;
        };
        let stdout = fs::read_to_string(path.with_extension("stdout")).unwrap();
        if stdout.is_empty() {
            continue; // failed before writing a report (exit 2 or 3)
        }
        check(&schemas, &name, &path.display().to_string(), &stdout);
        used.insert(name);
        cases += 1;
    }
    assert!(cases >= 10, "only {cases} JSON cases found");

    // The JSON outputs no case records.
    let dir = scratch("schemas");
    let db = dir.join("c.db");
    let db = db.to_str().unwrap();
    let catalog = "testdata/examples/catalog";
    let runs: [&[&str]; 6] = [
        &["catalog", "import", catalog, "--db", db, "-f", "json"],
        &["catalog", "list", "--db", catalog, "-f", "json"],
        &[
            "catalog",
            "show",
            "com.example:api@2.0.0-rc1",
            "--db",
            db,
            "-f",
            "json",
        ],
        &["lint", catalog, "-f", "json"],
        &["lint", "testdata/bad/warnings.yml", "-f", "json"],
        // accepted findings in a fleet (no case records one)
        &[
            "validate",
            "--envs",
            "testdata/fleet",
            "--catalog",
            catalog,
            "--allow",
            "below-recommended",
            "-f",
            "json",
        ],
    ];
    for args in runs {
        let out = compat(args);
        if args[0] != "validate" {
            assert_succeeded(&out); // validate's exit 1 is a report too
        }
        assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}");
        let args: Vec<String> = args.iter().map(|&a| a.to_owned()).collect();
        let name = schema_for(&args).unwrap();
        check(
            &schemas,
            &name,
            &args.join(" "),
            &String::from_utf8(out.stdout).unwrap(),
        );
        used.insert(name);
    }
    let unused: Vec<&String> = schemas.keys().filter(|s| !used.contains(*s)).collect();
    assert!(
        unused.is_empty(),
        "schemas no output was checked against: {unused:?}"
    );
    let _ = fs::remove_dir_all(Path::new(&dir));
}

/// The checks above can fail: an output with a field its schema does not know is refused.
#[test]
fn an_unknown_field_is_refused() {
    let schemas = schemas();
    let validator = jsonschema::validator_for(&schemas["catalog-list"]).unwrap();
    let good = serde_json::json!({"schema_version": 1, "products": []});
    assert!(validator.is_valid(&good));
    let extra = serde_json::json!({"schema_version": 1, "products": [], "more": true});
    assert!(!validator.is_valid(&extra));
    let old = serde_json::json!({"schema_version": 2, "products": []});
    assert!(!validator.is_valid(&old));
}

/// Every recorded SARIF log (single environments, fleets, lint): the rules are section 7's
/// ten codes, then only the section 9 codes some result uses, and each result's `ruleIndex`
/// names the rule of its `ruleId`.
#[test]
fn sarif_rule_indices_name_their_rules() {
    let mut logs = 0;
    let mut with_section_9 = 0;
    for entry in fs::read_dir("testdata/cli").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "stdout") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let Ok(log) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        if log["version"] != "2.1.0" {
            continue;
        }
        logs += 1;
        let run = &log["runs"][0];
        let rules: Vec<&str> = run["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        let results = run["results"].as_array().unwrap();
        let used: BTreeSet<&str> = results
            .iter()
            .map(|r| r["ruleId"].as_str().unwrap())
            .collect();
        assert!(rules.len() >= 10, "{}", path.display());
        for extra in &rules[10..] {
            assert!(
                used.contains(extra),
                "{}: unused rule {extra}",
                path.display()
            );
        }
        with_section_9 += usize::from(rules.len() > 10);
        for r in results {
            let index = usize::try_from(r["ruleIndex"].as_u64().unwrap()).unwrap();
            assert_eq!(
                Some(&r["ruleId"].as_str().unwrap()),
                rules.get(index),
                "{}",
                path.display()
            );
        }
    }
    assert!(
        logs >= 2 && with_section_9 >= 2,
        "{logs} logs, {with_section_9} with section 9"
    );
}
