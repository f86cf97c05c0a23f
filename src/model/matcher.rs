//! Version matchers such as `9.6.x` (SPEC section 2) and their two different jobs.
//!
//! - **Membership** ([`Matcher::matches`]): a plain *release* whose fields equal every non-`x`
//!   field. Release candidates and snapshots never match, not even `x.x.x`.
//! - **Upper bound** ([`Matcher::admits`], used by `maximum-version`): a fully numeric matcher
//!   admits every version `<=` it in version order (`1.2.3` admits `1.2.3-rc4`, not
//!   `1.2.3-4-gabc`); otherwise only the non-`x` fields are compared, left to right, and the
//!   version is admitted unless the first difference makes it larger (`9.6.x` admits
//!   `9.6.1-22-g1a2b3c4` and `9.6.0-rc1`, rejects `9.7.0-rc1`).
//!
//! Matchers are totally ordered field by field with `x` above every number
//! (`2.6.5 < 2.6.x < 2.7.x < 2.x.x < x.x.x`); the smaller of two bounds is their intersection.
//! Leading zeros are read as numbers, so `01.2.x == 1.2.x`; the text is kept for display.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use nom::Parser;
use nom::branch::alt;
use nom::character::complete::char;
use nom::combinator::{all_consuming, map, value};
use nom::sequence::preceded;

use crate::version::{OrderKey, Version, number, oversized_number};

/// A three-field matcher; `None` is an `x`.
#[derive(Clone, Debug)]
pub struct Matcher {
    text: Box<str>,
    fields: [Option<u32>; 3],
}

/// Why a string is not a matcher.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MatcherError {
    #[error(
        "expected a version matcher like `1.2.x`, found `{0}` (a number may not follow an `x`)"
    )]
    NumberAfterX(String),
    #[error("version number `{number}` in `{text}` is larger than {max}", max = crate::version::MAX_NUMBER)]
    TooLarge { text: String, number: String },
    #[error("expected a version matcher like `1.2.x`, found `{0}`")]
    Invalid(String),
}

fn field(input: &str) -> nom::IResult<&str, Option<u32>> {
    alt((value(None, char('x')), map(number, Some))).parse(input)
}

impl Matcher {
    /// Parses a matcher; the text is kept as given.
    ///
    /// # Errors
    /// When `text` is not three dot-separated fields of numbers or `x`, with no number to the
    /// right of an `x`.
    pub fn parse(text: &str) -> Result<Matcher, MatcherError> {
        let parsed = all_consuming((
            field,
            preceded(char('.'), field),
            preceded(char('.'), field),
        ))
        .parse(text);
        let Ok((_, (a, b, c))) = parsed else {
            if let Some(number) = oversized_number(text.split('.')) {
                return Err(MatcherError::TooLarge {
                    text: text.to_owned(),
                    number,
                });
            }
            return Err(MatcherError::Invalid(text.to_owned()));
        };
        let fields = [a, b, c];
        if fields.windows(2).any(|w| w[0].is_none() && w[1].is_some()) {
            return Err(MatcherError::NumberAfterX(text.to_owned()));
        }
        Ok(Matcher {
            text: text.into(),
            fields,
        })
    }

    /// The text exactly as it was given.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The three fields, `None` for `x`.
    #[must_use]
    pub fn fields(&self) -> [Option<u32>; 3] {
        self.fields
    }

    /// Membership: `version` is a release whose fields equal every non-`x` field.
    #[must_use]
    pub fn matches(&self, version: &Version) -> bool {
        version.is_release()
            && self
                .fields
                .iter()
                .zip(core(version))
                .all(|(f, v)| f.is_none_or(|f| f == v))
    }

    /// Upper bound: `version` is under this matcher used as a `maximum-version`.
    /// Non-orderable versions are under no bound.
    #[must_use]
    pub fn admits(&self, version: &Version) -> bool {
        let Some(key) = version.order_key() else {
            return false;
        };
        if let [Some(major), Some(minor), Some(patch)] = self.fields {
            return key <= OrderKey::release(major, minor, patch);
        }
        for (bound, actual) in self.fields.iter().zip(core(version)) {
            match bound {
                None => return true,
                Some(bound) => match actual.cmp(bound) {
                    Ordering::Less => return true,
                    Ordering::Greater => return false,
                    Ordering::Equal => {}
                },
            }
        }
        true
    }
}

fn core(version: &Version) -> [u32; 3] {
    [version.major(), version.minor(), version.patch()]
}

/// Orders one field with `x` above every number.
fn field_rank(field: Option<u32>) -> u64 {
    field.map_or(u64::MAX, u64::from)
}

impl Ord for Matcher {
    fn cmp(&self, other: &Self) -> Ordering {
        self.fields
            .map(field_rank)
            .cmp(&other.fields.map(field_rank))
    }
}

impl PartialOrd for Matcher {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        self.fields == other.fields
    }
}

impl Eq for Matcher {}

impl fmt::Display for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for Matcher {
    type Err = MatcherError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Matcher::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(text: &str) -> Matcher {
        Matcher::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn v(text: &str) -> Version {
        Version::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[track_caller]
    fn check_matches(matcher: &str, version: &str, expected: bool) {
        assert_eq!(
            m(matcher).matches(&v(version)),
            expected,
            "{matcher} matches {version}"
        );
    }

    #[track_caller]
    fn check_admits(matcher: &str, version: &str, expected: bool) {
        assert_eq!(
            m(matcher).admits(&v(version)),
            expected,
            "{matcher} admits {version}"
        );
    }

    #[test]
    fn parses_valid_matchers() {
        for text in [
            "x.x.x",
            "1.x.x",
            "1.2.x",
            "1.2.3",
            "01.002.x",
            "2147483647.x.x",
        ] {
            assert_eq!(m(text).to_string(), text);
        }
        assert_eq!(m("1.2.x").fields(), [Some(1), Some(2), None]);
    }

    #[test]
    fn rejects_invalid_matchers() {
        for (text, message) in [
            (
                "x.2.x",
                "expected a version matcher like `1.2.x`, found `x.2.x` (a number may not follow an `x`)",
            ),
            (
                "1.x.3",
                "expected a version matcher like `1.2.x`, found `1.x.3` (a number may not follow an `x`)",
            ),
            (
                "1.x",
                "expected a version matcher like `1.2.x`, found `1.x`",
            ),
            (
                "1.2.3-rc1",
                "expected a version matcher like `1.2.x`, found `1.2.3-rc1`",
            ),
            (
                "X.x.x",
                "expected a version matcher like `1.2.x`, found `X.x.x`",
            ),
            (
                "1.2.*",
                "expected a version matcher like `1.2.x`, found `1.2.*`",
            ),
            ("", "expected a version matcher like `1.2.x`, found ``"),
            (
                " 1.2.x",
                "expected a version matcher like `1.2.x`, found ` 1.2.x`",
            ),
            (
                "1.2.x.x",
                "expected a version matcher like `1.2.x`, found `1.2.x.x`",
            ),
            (
                "2147483648.x.x",
                "version number `2147483648` in `2147483648.x.x` is larger than 2147483647",
            ),
        ] {
            assert_eq!(
                Matcher::parse(text).unwrap_err().to_string(),
                message,
                "{text}"
            );
        }
    }

    #[test]
    fn membership_takes_releases_only() {
        check_matches("x.x.x", "2.3.4", true);
        check_matches("x.x.x", "2.3.4-rc5", false);
        check_matches("x.x.x", "2.3.4-1-gabc", false);
        check_matches("x.x.x", "2.3.4-branch", false);
        check_matches("1.2.x", "1.2.9", true);
        check_matches("1.2.x", "01.02.9", true);
        check_matches("1.2.x", "1.3.0", false);
        check_matches("1.x.x", "1.0.0", true);
        check_matches("1.x.x", "2.0.0", false);
        check_matches("1.2.3", "1.2.3", true);
        check_matches("1.2.3", "1.2.4", false);
        check_matches("1.2.3", "1.2.3-rc1", false);
    }

    #[test]
    fn upper_bound_follows_spec_section_2() {
        check_admits("1.2.3", "1.2.3", true);
        check_admits("1.2.3", "1.2.3-rc4", true);
        check_admits("1.2.3", "1.2.3-4-gabc", false);
        check_admits("1.2.3", "1.2.4-rc1", false);
        check_admits("1.2.3", "1.2.2-9-gabc", true);
        check_admits("9.6.x", "9.6.1-22-g1a2b3c4", true);
        check_admits("9.6.x", "9.6.0-rc1", true);
        check_admits("9.6.x", "9.7.0-rc1", false);
        check_admits("9.6.x", "9.5.99", true);
        check_admits("9.6.x", "10.0.0", false);
        check_admits("9.6.x", "8.99.0", true);
        check_admits("1.x.x", "1.99.99-5-gabc", true);
        check_admits("1.x.x", "2.0.0-rc1", false);
        check_admits("x.x.x", "999.0.0-1-gabc", true);
        check_admits("x.x.x", "1.0.0-branch", false);
    }

    #[test]
    fn matchers_order_with_x_above_numbers() {
        let chain = [
            "0.0.0", "2.6.5", "2.6.x", "2.7.0", "2.7.x", "2.x.x", "3.0.0", "x.x.x",
        ];
        for (i, a) in chain.iter().enumerate() {
            for b in &chain[i + 1..] {
                assert!(m(a) < m(b), "{a} < {b}");
            }
        }
        assert_eq!(m("01.2.x"), m("1.2.x"));
    }
}
