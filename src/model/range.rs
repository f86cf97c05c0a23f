//! Version ranges: an inclusive orderable minimum and a matcher as upper bound (SPEC section 3).
//!
//! A dependency range always has both ends; an incompatibility range may leave either open
//! (absent = no bound). A version is in a range iff it is orderable, `>=` the minimum and under
//! the maximum bound. The one exception is a range with neither end: it holds every version,
//! non-orderable ones included (an incompatibility with "any release" of a product).
//!
//! Invariant: the set of versions under a matcher bound is closed downwards, so a range is
//! empty exactly when its maximum does not admit its minimum; [`Range::intersect`] and
//! [`Range::is_empty`] rely on that.

use std::fmt;

use crate::matcher::Matcher;
use crate::version::Version;

/// Where a version falls relative to a range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    Inside,
    BelowMinimum,
    AboveMaximum,
    /// The version cannot be ordered, so no bounded range holds it.
    Unordered,
}

/// An inclusive version range; either end may be open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    pub minimum: Option<Version>,
    pub maximum: Option<Matcher>,
}

impl Range {
    /// A closed range, as every dependency declares.
    #[must_use]
    pub fn new(minimum: Version, maximum: Matcher) -> Range {
        Range {
            minimum: Some(minimum),
            maximum: Some(maximum),
        }
    }

    /// Where `version` falls; the minimum is checked first.
    #[must_use]
    pub fn place(&self, version: &Version) -> Placement {
        if self.minimum.is_none() && self.maximum.is_none() {
            return Placement::Inside;
        }
        if !version.is_orderable() {
            return Placement::Unordered;
        }
        if let Some(minimum) = &self.minimum
            && version < minimum
        {
            return Placement::BelowMinimum;
        }
        if let Some(maximum) = &self.maximum
            && !maximum.admits(version)
        {
            return Placement::AboveMaximum;
        }
        Placement::Inside
    }

    /// True when `version` satisfies the range.
    #[must_use]
    pub fn contains(&self, version: &Version) -> bool {
        self.place(version) == Placement::Inside
    }

    /// True when no version satisfies the range (its maximum is below its minimum).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        match (&self.minimum, &self.maximum) {
            (Some(minimum), Some(maximum)) => !maximum.admits(minimum),
            _ => false,
        }
    }

    /// The versions both ranges hold: the larger minimum and the smaller matcher.
    #[must_use]
    pub fn intersect(&self, other: &Range) -> Range {
        let minimum = match (&self.minimum, &other.minimum) {
            (Some(a), Some(b)) => Some(if b > a { b.clone() } else { a.clone() }),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        let maximum = match (&self.maximum, &other.maximum) {
            (Some(a), Some(b)) => Some(a.min(b).clone()),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        Range { minimum, maximum }
    }
}

impl fmt::Display for Range {
    /// `>=9.3.6, <=9.6.x`, or `any version` for a range with no ends.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.minimum, &self.maximum) {
            (Some(min), Some(max)) => write!(f, ">={min}, <={max}"),
            (Some(min), None) => write!(f, ">={min}"),
            (None, Some(max)) => write!(f, "<={max}"),
            (None, None) => f.write_str("any version"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(min: &str, max: &str) -> Range {
        Range::new(Version::parse(min).unwrap(), Matcher::parse(max).unwrap())
    }

    #[track_caller]
    fn check(r: &Range, version: &str, expected: Placement) {
        assert_eq!(
            r.place(&Version::parse(version).unwrap()),
            expected,
            "{version} in {r}"
        );
    }

    #[test]
    fn spec_section_3_examples() {
        let r = range("9.3.6", "9.6.x");
        for inside in [
            "9.3.6",
            "9.4.0",
            "9.4.2-rc1",
            "9.6.0-rc1",
            "9.6.1-22-g1a2b3c4",
            "9.3.6-1-gabc",
        ] {
            check(&r, inside, Placement::Inside);
        }
        check(&r, "9.2.0", Placement::BelowMinimum);
        check(&r, "9.3.6-rc1", Placement::BelowMinimum);
        check(&r, "10.0.0", Placement::AboveMaximum);
        check(&r, "11.1.2-rc2", Placement::AboveMaximum);
        check(&r, "9.7.0-1-gabcdef", Placement::AboveMaximum);
        check(&r, "9.5.0-custom-branch", Placement::Unordered);
    }

    #[test]
    fn open_ranges() {
        let any = Range {
            minimum: None,
            maximum: None,
        };
        check(&any, "1.0.0-branch", Placement::Inside);
        let up_to = Range {
            minimum: None,
            maximum: Some(Matcher::parse("1.x.x").unwrap()),
        };
        check(&up_to, "0.0.1", Placement::Inside);
        check(&up_to, "2.0.0", Placement::AboveMaximum);
        check(&up_to, "1.0.0-branch", Placement::Unordered);
        let from = Range {
            minimum: Some(Version::parse("1.0.0").unwrap()),
            maximum: None,
        };
        check(&from, "99.0.0", Placement::Inside);
        check(&from, "1.0.0-rc1", Placement::BelowMinimum);
    }

    #[test]
    fn emptiness() {
        assert!(!range("1.2.3", "1.2.3").is_empty());
        assert!(!range("1.2.3-rc1", "1.2.3").is_empty());
        assert!(range("1.2.3-1-gabc", "1.2.3").is_empty());
        assert!(range("2.0.0", "1.x.x").is_empty());
        assert!(!range("1.9.0", "1.x.x").is_empty());
    }

    #[test]
    fn intersection_takes_larger_minimum_and_smaller_matcher() {
        let both = range("1.0.0", "2.x.x").intersect(&range("1.5.0", "1.x.x"));
        assert_eq!(both, range("1.5.0", "1.x.x"));
        assert_eq!(both.to_string(), ">=1.5.0, <=1.x.x");
        let disjoint = range("1.0.0", "1.x.x").intersect(&range("2.0.0", "2.x.x"));
        assert!(disjoint.is_empty());
        let exact = range("2.6.0", "2.6.x").intersect(&range("2.0.0", "2.6.5"));
        assert_eq!(exact, range("2.6.0", "2.6.5"));
    }
}
