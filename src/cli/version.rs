//! `compat version parse/sort/compare/satisfies/matches`: the version grammar and order of
//! SPEC section 1 at the command line.

use compat::report::layout::{Grid, Layout};
use std::cmp::Ordering;
use std::io::Read;
use std::sync::Arc;

use clap::Subcommand;
use compat::diagnostic::{InputError, InputErrors, Location};
use compat::matcher::Matcher;
use compat::range::Range;
use compat::report::json::to_json;
use compat::version::{Kind, Version};
use serde::Serialize;

use super::{CliError, Format, Outcome, argument, version_arg};

#[derive(Debug, Subcommand)]
pub enum VersionCommand {
    /// Report each version's type and fields, in argument order
    #[command(after_long_help = "\
Example:
  compat version parse 1.2.3 1.2.3-rc1 1.2.3-4-gabcdef1")]
    Parse {
        /// The versions to parse
        #[arg(required = true)]
        versions: Vec<String>,
        /// Output format
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Sort versions read from stdin, one per line, ascending (stable)
    #[command(after_long_help = "\
Example:
  printf '1.10.0\\n1.2.0\\n1.2.0-rc1\\n' | compat version sort")]
    Sort {
        /// Output format
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Print `<`, `=` or `>`
    #[command(after_long_help = "\
Example:
  compat version compare 1.2.0 1.10.0")]
    Compare {
        /// The version on the left
        a: String,
        /// The version on the right
        b: String,
        /// Output format
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Is V inside the range [--min, --max]? (exit 1 when not)
    #[command(after_long_help = "\
Example:
  compat version satisfies 1.4.2 --min 1.2.0 --max 1.x.x")]
    Satisfies {
        /// The version to check
        version: String,
        /// The lowest version of the range, included
        #[arg(long)]
        min: String,
        /// The highest version or matcher of the range (`1.x.x`), included
        #[arg(long)]
        max: String,
        /// Output format
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Does the matcher's membership include V? (exit 1 when not)
    #[command(after_long_help = "\
Example:
  compat version matches 1.2.x 1.2.7")]
    Matches {
        /// A version matcher such as `1.2.x`
        matcher: String,
        /// The version to check
        version: String,
        /// Output format
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
}

fn orderable_arg(what: &str, text: &str) -> Result<Version, InputError> {
    let v = version_arg(what, text)?;
    if v.is_orderable() {
        Ok(v)
    } else {
        Err(argument(
            what,
            format!("expected an orderable version, found non-orderable `{v}`"),
        ))
    }
}

fn matcher_arg(what: &str, text: &str) -> Result<Matcher, InputError> {
    Matcher::parse(text).map_err(|e| argument(what, e))
}

#[derive(Serialize)]
struct ParsedJson<'a> {
    version: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    orderable: bool,
    major: u32,
    minor: u32,
    patch: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    rc: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    commits: Option<u32>,
}

impl<'a> From<&'a Version> for ParsedJson<'a> {
    fn from(v: &'a Version) -> Self {
        let (rc, commits) = match v.kind() {
            Kind::ReleaseCandidate { rc } => (Some(rc), None),
            Kind::ReleaseSnapshot { commits } => (None, Some(commits)),
            Kind::ReleaseCandidateSnapshot { rc, commits } => (Some(rc), Some(commits)),
            Kind::Release | Kind::NonOrderable => (None, None),
        };
        ParsedJson {
            version: v.as_str(),
            kind: v.kind().name(),
            orderable: v.is_orderable(),
            major: v.major(),
            minor: v.minor(),
            patch: v.patch(),
            rc,
            commits,
        }
    }
}

pub fn run(
    command: VersionCommand,
    stdin: &mut dyn Read,
    layout: &Layout,
) -> Result<Outcome, CliError> {
    match command {
        VersionCommand::Parse { versions, format } => version_parse(&versions, format, layout),
        VersionCommand::Sort { format } => version_sort(stdin, format),
        VersionCommand::Compare { a, b, format } => version_compare(&a, &b, format),
        VersionCommand::Satisfies {
            version,
            min,
            max,
            format,
        } => version_satisfies(&version, &min, &max, format),
        VersionCommand::Matches {
            matcher,
            version,
            format,
        } => version_matches(&matcher, &version, format),
    }
}

fn version_parse(
    versions: &[String],
    format: Format,
    layout: &Layout,
) -> Result<Outcome, CliError> {
    let mut parsed = Vec::new();
    let mut errors = Vec::new();
    for (i, text) in versions.iter().enumerate() {
        match version_arg(&format!("argument {}", i + 1), text) {
            Ok(v) => parsed.push(v),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(InputErrors(errors).into());
    }
    let rows: Vec<ParsedJson> = parsed.iter().map(ParsedJson::from).collect();
    let stdout = match format {
        Format::Json => to_json(&rows),
        Format::Human => {
            let mut t = Grid::new(&[
                "Version",
                "Type",
                "Orderable",
                "Major",
                "Minor",
                "Patch",
                "RC",
                "Commits",
            ]);
            let opt = |n: Option<u32>| n.map(|n| n.to_string()).unwrap_or_default();
            for j in &rows {
                t.row(vec![
                    j.version.to_owned(),
                    j.kind.to_owned(),
                    if j.orderable { "yes" } else { "no" }.to_owned(),
                    j.major.to_string(),
                    j.minor.to_string(),
                    j.patch.to_string(),
                    opt(j.rc),
                    opt(j.commits),
                ]);
            }
            format!("{}\n", t.render(layout))
        }
    };
    Ok(Outcome::new(stdout, true))
}

fn version_sort(stdin: &mut dyn Read, format: Format) -> Result<Outcome, CliError> {
    let name: Arc<str> = Arc::from("<stdin>");
    let mut bytes = Vec::new();
    stdin
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::io(&name, &e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = Location::of_offset(e.as_bytes(), e.utf8_error().valid_up_to());
        InputError::malformed(
            &name,
            at,
            "expected UTF-8 text, found a byte that is not UTF-8",
        )
    })?;
    let mut lines = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() {
            continue;
        }
        let at = Location::new(u32::try_from(i + 1).unwrap_or(u32::MAX), 1);
        match Version::parse(line) {
            Ok(v) if v.is_orderable() => lines.push((line, v)),
            Ok(v) => errors.push(InputError::malformed(
                &name,
                at,
                format!("cannot sort non-orderable version `{v}`"),
            )),
            Err(e) => errors.push(InputError::malformed(&name, at, e.to_string())),
        }
    }
    if !errors.is_empty() {
        return Err(InputErrors(errors).into());
    }
    // `sort_by` is stable: equal versions keep their input order.
    lines.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(Ordering::Equal));
    let stdout = match format {
        Format::Json => to_json(&lines.iter().map(|(l, _)| *l).collect::<Vec<_>>()),
        Format::Human => lines.iter().flat_map(|(l, _)| [*l, "\n"]).collect(),
    };
    Ok(Outcome::new(stdout, true))
}

fn version_compare(a: &str, b: &str, format: Format) -> Result<Outcome, CliError> {
    let (va, vb) = collect_pair(
        orderable_arg("argument A", a),
        orderable_arg("argument B", b),
    )?;
    let symbol = match va.partial_cmp(&vb) {
        Some(Ordering::Less) => "<",
        Some(Ordering::Greater) => ">",
        _ => "=",
    };
    let stdout = match format {
        Format::Json => to_json(&serde_json::json!({"a": a, "b": b, "result": symbol})),
        Format::Human => format!("{symbol}\n"),
    };
    Ok(Outcome::new(stdout, true))
}

fn version_satisfies(
    version: &str,
    min: &str,
    max: &str,
    format: Format,
) -> Result<Outcome, CliError> {
    let v = version_arg("argument V", version);
    let minimum = orderable_arg("--min", min);
    let maximum = matcher_arg("--max", max);
    let (v, minimum, maximum) = match (v, minimum, maximum) {
        (Ok(v), Ok(mi), Ok(ma)) => (v, mi, ma),
        (v, mi, ma) => {
            let errors = [v.err(), mi.err(), ma.err()]
                .into_iter()
                .flatten()
                .collect();
            return Err(InputErrors(errors).into());
        }
    };
    let holds = Range::new(minimum, maximum).contains(&v);
    let json = serde_json::json!({"version": version, "min": min, "max": max, "satisfies": holds});
    Ok(Outcome::new(answer(format, holds, &json), holds))
}

fn version_matches(matcher: &str, version: &str, format: Format) -> Result<Outcome, CliError> {
    let (m, v) = collect_pair(
        matcher_arg("argument MATCHER", matcher),
        version_arg("argument V", version),
    )?;
    let holds = m.matches(&v);
    let json = serde_json::json!({"matcher": matcher, "version": version, "matches": holds});
    Ok(Outcome::new(answer(format, holds, &json), holds))
}

fn answer(format: Format, holds: bool, json: &serde_json::Value) -> String {
    match format {
        Format::Json => to_json(json),
        Format::Human => format!("{holds}\n"),
    }
}

fn collect_pair<A, B>(
    a: Result<A, InputError>,
    b: Result<B, InputError>,
) -> Result<(A, B), CliError> {
    match (a, b) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        (a, b) => Err(InputErrors([a.err(), b.err()].into_iter().flatten().collect()).into()),
    }
}
