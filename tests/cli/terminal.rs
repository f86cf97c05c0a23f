//! Output on a terminal: the binary run under a pseudo-terminal (util-linux `script`), so
//! stdout is a TTY as in an interactive shell. Colour is on by default there, `NO_COLOR` and
//! `--color never` turn it off, and tables fit `COLUMNS`. Pipes are covered by the trycmd
//! cases (`validate-no-color-env`: the same bytes as ever).

use std::process::Command;

/// Runs `compat ARGS` with stdout on a pseudo-terminal, with extra environment variables;
/// returns what the terminal showed (line ends as `\r\n`).
fn on_terminal(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut line = String::from(env!("CARGO_BIN_EXE_compat"));
    for arg in args {
        line.push_str(" '");
        line.push_str(arg);
        line.push('\'');
    }
    let mut command = Command::new("script");
    command
        .args(["-qec", &line, "/dev/null"])
        .env_remove("NO_COLOR")
        .env_remove("COLUMNS");
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command
        .output()
        .expect("util-linux `script` runs (it gives the binary a terminal)");
    String::from_utf8(out.stdout).unwrap()
}

const BROKEN: [&str; 4] = [
    "validate",
    "testdata/examples/env-broken.yml",
    "--catalog",
    "testdata/examples/catalog",
];

#[test]
fn a_terminal_gets_colour_unless_no_color_or_never() {
    let coloured = on_terminal(&BROKEN, &[("COLUMNS", "200")]);
    assert!(coloured.contains("\x1b[31merror"), "{coloured}");
    assert!(coloured.contains("\x1b[31minvalid\x1b[39m"), "{coloured}");

    let no_color = on_terminal(&BROKEN, &[("COLUMNS", "200"), ("NO_COLOR", "1")]);
    assert!(no_color.contains("error"), "{no_color}");
    assert!(!no_color.contains('\x1b'), "{no_color}");

    let never = on_terminal(&[BROKEN.as_slice(), &["--color", "never"]].concat(), &[]);
    assert!(!never.contains('\x1b'), "{never}");

    // `always` is stronger than NO_COLOR
    let always = on_terminal(
        &[BROKEN.as_slice(), &["--color", "always"]].concat(),
        &[("NO_COLOR", "1")],
    );
    assert!(always.contains("\x1b[31merror"), "{always}");
}

#[test]
fn a_terminal_table_fits_its_columns() {
    let wide = on_terminal(&BROKEN, &[("COLUMNS", "300"), ("NO_COLOR", "1")]);
    assert!(wide.contains("│ Entity "), "{wide}");
    let narrow = on_terminal(&BROKEN, &[("COLUMNS", "60"), ("NO_COLOR", "1")]);
    assert!(!narrow.contains('│'), "{narrow}");
    assert!(narrow.contains("Level:       error"), "{narrow}");
    // longer only where one word (a path) is longer than the room left
    let lines: Vec<&str> = narrow.lines().map(str::trim_end).collect();
    for line in &lines[..lines.len() - 1] {
        let words = line
            .split_once(": ")
            .map_or(0, |(_, v)| v.trim().split(' ').count());
        assert!(line.chars().count() <= 60 || words == 1, "{line:?}");
    }
    let list = ["catalog", "list", "--db", "testdata/examples/catalog"];
    let fitted = on_terminal(&list, &[("COLUMNS", "70")]);
    for line in fitted.lines() {
        assert!(line.trim_end().chars().count() <= 70, "{line:?}");
    }
    assert!(fitted.contains("│ Product "), "{fitted}");
}

/// Progress off a terminal: nothing unless `--progress`, then plain lines on stderr (the
/// first report at once; stdout is the same either way).
#[test]
fn progress_lines_only_when_asked_off_a_terminal() {
    use super::compat;
    let plan = [
        "plan",
        "testdata/cases/plan/env.yml",
        "--catalog",
        "testdata/cases/plan/catalog",
        "--target",
        "g:app",
        "--allow-install",
    ];
    let upgrades = [
        "upgrades",
        "testdata/examples/env-broken.yml",
        "--catalog",
        "testdata/examples/catalog",
    ];
    for (args, line) in [
        (plan.as_slice(), "planning: ordering steps ("),
        (upgrades.as_slice(), "upgrades: examining products ("),
    ] {
        let quiet = compat(args);
        assert_eq!(String::from_utf8_lossy(&quiet.stderr), "", "{args:?}");
        let told = compat(&[args, &["--progress"]].concat());
        let stderr = String::from_utf8(told.stderr).unwrap();
        assert!(
            stderr.lines().next().unwrap_or("").starts_with(line),
            "{stderr}"
        );
        assert!(
            stderr.lines().all(|l| l.starts_with(&line[..10])),
            "{stderr}"
        );
        assert_eq!(told.stdout, quiet.stdout, "{args:?}");
        assert_eq!(told.status.code(), quiet.status.code(), "{args:?}");
    }
}
