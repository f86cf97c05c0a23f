//! End-to-end tests of the real binary: each `testdata/cli/NAME.toml` gives the arguments,
//! stdin and exit code; `NAME.stdout` / `NAME.stderr` the exact expected output. Run with
//! `TRYCMD=overwrite` to rewrite the expected files after an intended change, then review the
//! diff.

#[test]
fn cli_cases() {
    trycmd::TestCases::new()
        .register_bin("compat", trycmd::cargo::cargo_bin!("compat"))
        .case("testdata/cli/*.toml");
}
