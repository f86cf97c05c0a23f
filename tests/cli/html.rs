//! The HTML report in a real browser: headless Chromium renders `compat report`'s page; the
//! screenshot must not be blank and must show the severity colours, the DOM must have every
//! section, and the browser must log no console error. `.ci/run` installs Chromium from
//! Debian's packages; without it a test says why it skips, and with `CI=true` it fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::scratch;

/// The browser to drive, or `None` (said on stderr) when there is none outside CI.
#[allow(clippy::print_stderr)] // tell the developer why nothing was checked
fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but no Chromium is installed: .ci/run installs it (`apt-get install \
             chromium`) for the HTML report tests"
        );
        eprintln!("skipping the browser test of the HTML report: no chromium binary found");
    }
    found
}

/// Runs headless Chromium on `page` with `args`, its profile in `dir`.
fn browse(browser: &str, dir: &Path, page: &Path, args: &[&str]) -> Output {
    let profile = dir.join("profile");
    let out = Command::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--hide-scrollbars",
            &format!("--user-data-dir={}", profile.display()),
        ])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Writes the report of `env` on the examples' catalog to `dir/report.html`.
fn report(dir: &Path, env: &str) -> PathBuf {
    let page = dir.join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_compat"))
        .args([
            "report",
            env,
            "--catalog",
            "testdata/examples/catalog",
            "-o",
        ])
        .arg(&page)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.is_empty(),
        "with -o the page goes to the file only"
    );
    std::fs::canonicalize(page).unwrap()
}

/// The pixels of an RGB(A) PNG as `[r, g, b]`.
fn pixels(png_file: &Path) -> (Vec<[u8; 3]>, u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png_file).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("unexpected screenshot colour type {other:?}"),
    };
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let data = &buf[..info.buffer_size()];
    let px = data
        .chunks_exact(channels)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (px, info.width, info.height)
}

/// The lines of a Chromium log (`--enable-logging=stderr --v=0`) that report console
/// messages or uncaught errors of the page.
fn console_messages(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
        .collect()
}

/// How much of a screenshot is inked (darker than light grey), as a fraction.
fn inked(px: &[[u8; 3]]) -> f64 {
    #[allow(clippy::cast_precision_loss)] // pixel counts, far below 2^52
    let fraction =
        px.iter().filter(|p| p.iter().any(|&c| c < 200)).count() as f64 / px.len() as f64;
    fraction
}

#[test]
fn the_browser_checks_can_see_a_broken_page() {
    // controls for the checks below: a script error reaches the log, a blank page is blank
    let Some(browser) = chromium() else { return };
    let dir = scratch("html-controls");
    let page = dir.join("bad.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>",
    )
    .unwrap();
    let shot = dir.join("bad.png");
    let run = browse(
        browser,
        &dir,
        &page,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=400,300",
            "--enable-logging=stderr",
            "--v=0",
        ],
    );
    let log = String::from_utf8_lossy(&run.stderr);
    assert!(
        console_messages(&log)
            .iter()
            .any(|l| l.contains("undefinedFunction")),
        "the script error is not in the log:\n{log}"
    );
    let (px, _, _) = pixels(&shot);
    assert!(inked(&px) < 0.001, "a blank page counts as blank");
}

#[test]
fn the_html_report_renders_in_a_browser_with_its_sections_and_colours() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("html-report");
    let page = report(&dir, "testdata/examples/env-broken.yml");

    // the DOM the browser built: every section, and the graph drawn as SVG inside the page
    let dom = browse(browser, &dir, &page, &["--dump-dom"]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    for id in ["summary", "findings", "upgrades", "plan", "graph"] {
        assert!(
            dom.contains(&format!("id=\"{id}\"")),
            "no #{id} section in:\n{dom}"
        );
    }
    assert!(dom.contains("<svg width="), "no graph drawing");
    assert!(
        dom.contains("class=\"node managed\""),
        "managed entities are marked"
    );
    assert!(dom.contains("version-too-low"), "findings are listed");

    // the screenshot: not blank, and the error colour is on it
    let shot = dir.join("shot.png");
    let run = browse(
        browser,
        &dir,
        &page,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,2000",
            "--enable-logging=stderr",
            "--v=0",
        ],
    );
    let log = String::from_utf8_lossy(&run.stderr);
    let messages = console_messages(&log);
    assert!(messages.is_empty(), "the page logged: {messages:#?}");
    let (px, width, height) = pixels(&shot);
    assert_eq!((width, height), (1280, 2000));
    let inked = inked(&px);
    assert!(
        inked > 0.01,
        "the screenshot is nearly blank: {inked:.4} inked"
    );
    let luma: Vec<f64> = px
        .iter()
        .map(|p| 0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]))
        .collect();
    #[allow(clippy::cast_precision_loss)] // a pixel count, far below 2^52
    let n = luma.len() as f64;
    let mean = luma.iter().sum::<f64>() / n;
    let variance = luma.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / n;
    assert!(
        variance > 100.0,
        "the screenshot is flat (variance {variance:.1})"
    );
    // the `invalid` card and the error badges are red (#c62828 and its tints)
    let red = px
        .iter()
        .filter(|p| p[0] > 150 && p[1] < 90 && p[2] < 90)
        .count();
    assert!(red > 200, "no error colour on the page ({red} red pixels)");
}

#[test]
fn the_html_report_is_self_contained() {
    // no browser needed: nothing in the page is fetched when it is viewed
    let dir = scratch("html-self-contained");
    for env in [
        "testdata/examples/env-broken.yml",
        "testdata/examples/env-valid.yml",
    ] {
        let html = std::fs::read_to_string(report(&dir, env)).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(!html.contains("<script"), "{env}: the page needs no script");
        for attr in ["src=", "<link", "url(http", "@import"] {
            assert!(
                !html.contains(attr),
                "{env}: `{attr}` would reach outside the page"
            );
        }
        // the only URL is the SVG namespace, which is a name, not a fetch
        assert_eq!(
            html.matches("http").count(),
            html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count(),
            "{env}"
        );
    }
}

#[test]
fn a_graph_too_large_to_draw_is_said_so_instead() {
    let dir = scratch("html-large");
    let generated = Command::new(env!("CARGO_BIN_EXE_compat"))
        .args([
            "generate",
            "--products",
            "160",
            "--releases",
            "2",
            "--seed",
            "7",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(generated.status.success());
    let out = Command::new(env!("CARGO_BIN_EXE_compat"))
        .arg("report")
        .arg(dir.join("env.yml"))
        .arg("--catalog")
        .arg(dir.join("catalog"))
        .output()
        .unwrap();
    let html = String::from_utf8_lossy(&out.stdout);
    assert!(
        html.contains("164 entities are too many to draw here (at most 150)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!html.contains("<svg width="), "no drawing");
    assert!(
        html.contains("id=\"upgrades\""),
        "the rest of the report is there"
    );
}

#[test]
fn the_html_report_applies_a_policy_file() {
    // no browser needed: the policy's findings are in the page as `validate` gives them
    let page = |policy: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_compat"))
            .args([
                "report",
                "testdata/examples/capabilities/env-prod.yml",
                "--catalog",
                "testdata/examples/capabilities/catalog",
            ])
            .args(policy)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(!page(&[]).contains("excluded-release"));
    let with_policy = page(&["--policy", "testdata/examples/capabilities/policy.yml"]);
    assert!(
        with_policy.contains("excluded by policy (uncertified build)"),
        "{with_policy}"
    );
}

#[test]
fn the_html_graph_draws_capability_edges_apart_named_by_the_capability() {
    // no browser needed: the edges' classes and labels are in the page
    let page = |env: &str, catalog: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_compat"))
            .args(["report", env, "--catalog", catalog])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let html = page(
        "testdata/cases/order-capabilities/env.yml",
        "testdata/cases/order-capabilities/catalog",
    );
    // web -> db (sql) and ledger -> bus (events); mariadb provides sql out of range: no edge
    assert_eq!(html.matches("class=\"edge capability\"").count(), 2);
    assert!(
        html.contains("\">sql</tspan>") && html.contains("\">events</tspan>"),
        "named"
    );
    assert!(
        html.contains("capability (named on the edge)"),
        "in the legend"
    );
    assert_eq!(html.matches("class=\"edge required\"").count(), 2);
    // a graph without capability edges keeps its legend as it was
    let plain = page(
        "testdata/examples/env-valid.yml",
        "testdata/examples/catalog",
    );
    assert!(!plain.contains("capability (named on the edge)"));
}
