//! What a declaration means: the one evaluator that says whether a release's dependency or
//! incompatibility holds against what another product runs, and if not, why (as the finding
//! code of SPEC section 7). `validate` turns its verdicts into findings, the planning model into
//! violations and compatibility, explanations into clauses; none of them judges a range itself.

use crate::finding::Code;
use crate::manifest::{Dependency, Incompatibility};
use crate::range::Placement;
use crate::version::Version;

/// Whether one declaration holds against one instance (or against nothing running).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    /// A required dependency with nothing running.
    Missing,
    TooLow,
    TooHigh,
    /// The running version cannot be ordered, so no range holds it.
    Unordered,
    /// An incompatible release is running.
    Incompatible,
}

impl Verdict {
    /// How a finding says it: `below the minimum`, ...
    #[must_use]
    pub fn why(self) -> &'static str {
        match self {
            Verdict::Holds => "it holds",
            Verdict::Missing => "which is not installed",
            Verdict::TooLow => "below the minimum",
            Verdict::TooHigh => "above the maximum",
            Verdict::Unordered => "a version that cannot be ordered",
            Verdict::Incompatible => "an incompatible release",
        }
    }

    /// The finding code of a broken declaration; `None` when it holds.
    #[must_use]
    pub fn code(self) -> Option<Code> {
        match self {
            Verdict::Holds => None,
            Verdict::Missing => Some(Code::MissingDependency),
            Verdict::TooLow => Some(Code::VersionTooLow),
            Verdict::TooHigh => Some(Code::VersionTooHigh),
            Verdict::Unordered => Some(Code::NonOrderableVersion),
            Verdict::Incompatible => Some(Code::IncompatibleRelease),
        }
    }
}

/// A dependency against one running version.
#[must_use]
pub fn dependency_on(d: &Dependency, running: &Version) -> Verdict {
    match d.range.place(running) {
        Placement::Inside => Verdict::Holds,
        Placement::BelowMinimum => Verdict::TooLow,
        Placement::AboveMaximum => Verdict::TooHigh,
        Placement::Unordered => Verdict::Unordered,
    }
}

/// A dependency when its product runs nothing: only an optional one holds.
#[must_use]
pub fn dependency_absent(d: &Dependency) -> Verdict {
    if d.optional {
        Verdict::Holds
    } else {
        Verdict::Missing
    }
}

/// A dependency against every version its product runs (all must be inside; nothing running
/// is [`dependency_absent`]).
#[must_use]
pub fn dependency_holds<'v>(
    d: &Dependency,
    running: impl IntoIterator<Item = &'v Version>,
) -> bool {
    let mut any = false;
    for v in running {
        any = true;
        if dependency_on(d, v) != Verdict::Holds {
            return false;
        }
    }
    any || dependency_absent(d) == Verdict::Holds
}

/// An incompatibility against one running version.
#[must_use]
pub fn incompatibility_on(c: &Incompatibility, running: &Version) -> Verdict {
    if c.range.contains(running) {
        Verdict::Incompatible
    } else {
        Verdict::Holds
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::manifest;

    fn declarations(optional: bool) -> (Dependency, Incompatibility) {
        let text = format!(
            "manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\nproduct-version: 1.0.0\n\
             extensions:\n  product-dependencies:\n    - product-group: g\n      product-name: b\n\
             \u{20}     minimum-version: 1.2.0\n      maximum-version: 1.x.x\n      optional: {optional}\n\
             \u{20} product-incompatibilities:\n    - product-group: g\n      product-name: c\n\
             \u{20}     minimum-version: 2.0.0\n      maximum-version: 2.x.x\n"
        );
        let m = manifest::parse(&text, &Arc::from("a.yml"))
            .unwrap()
            .remove(0);
        (m.dependencies[0].clone(), m.incompatibilities[0].clone())
    }

    #[test]
    fn verdicts_follow_the_range_and_the_optional_flag() {
        let v = |s: &str| Version::parse(s).unwrap();
        let (required, incompatible) = declarations(false);
        let (optional, _) = declarations(true);
        let table = [
            ("1.1.9", Verdict::TooLow),
            ("1.2.0", Verdict::Holds),
            ("1.9.9", Verdict::Holds),
            ("2.0.0", Verdict::TooHigh),
            ("1.5.0-branch", Verdict::Unordered),
        ];
        for (running, verdict) in table {
            assert_eq!(dependency_on(&required, &v(running)), verdict, "{running}");
            assert_eq!(dependency_on(&optional, &v(running)), verdict, "{running}");
        }
        assert_eq!(dependency_absent(&required), Verdict::Missing);
        assert_eq!(dependency_absent(&optional), Verdict::Holds);
        assert!(!dependency_holds(&required, []));
        assert!(dependency_holds(&optional, []));
        assert!(!dependency_holds(&required, [&v("1.2.0"), &v("2.0.0")]));
        assert!(dependency_holds(&required, [&v("1.2.0"), &v("1.3.0")]));
        assert_eq!(
            incompatibility_on(&incompatible, &v("2.1.0")),
            Verdict::Incompatible
        );
        assert_eq!(
            incompatibility_on(&incompatible, &v("1.9.0")),
            Verdict::Holds
        );
        assert_eq!(Verdict::TooHigh.code(), Some(Code::VersionTooHigh));
        assert_eq!(Verdict::Holds.code(), None);
    }
}
