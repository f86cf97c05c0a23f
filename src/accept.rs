//! Accepting known findings: an allow list of finding codes, each for every finding of the
//! code or only for one product or one entity, each with the reason it is accepted.
//!
//! Accepting marks a finding ([`Finding::accepted`]); it never removes it. Reports keep it in
//! its place with the marker and the reason, and an accepted finding does not count toward
//! `--fail-on` or the exit code (`Validation::passes`).
//!
//! Which rule's reason a finding shows when several match: the most specific (an entity rule,
//! then a product rule, then one for the code alone), among equals the one listed first (the
//! config file's rules come before the command line's).

use std::fmt;

use crate::diagnostic::FileLocation;
use crate::finding::{Accepted, Code, Finding};
use crate::product::ProductId;

/// Which findings of its code a rule accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Every finding of the code.
    Any,
    /// Findings whose release is of this product (the `product` a finding reports: the
    /// release that declares the constraint, or runs the unknown or invalid release).
    Product(ProductId),
    /// Findings of this entity.
    Entity(String),
}

impl Target {
    fn matches(&self, f: &Finding) -> bool {
        match self {
            Target::Any => true,
            Target::Product(p) => f.product.as_ref() == Some(p),
            Target::Entity(e) => f.entity.as_deref() == Some(e.as_str()),
        }
    }

    /// Higher is more specific.
    fn specificity(&self) -> u8 {
        match self {
            Target::Any => 0,
            Target::Product(_) => 1,
            Target::Entity(_) => 2,
        }
    }
}

/// One accepted code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub code: Code,
    pub target: Target,
    pub reason: String,
    /// Where the rule was written (a config file's `[[allow]]`); `None` for `--allow`.
    pub origin: Option<FileLocation>,
}

impl Rule {
    /// `--allow CODE[=PRODUCT]`: a rule from the command line, whose reason says so.
    ///
    /// # Errors
    /// An unknown code or a product that is not `group:name`, as a sentence naming the known
    /// codes.
    pub fn from_flag(text: &str) -> Result<Rule, String> {
        let (code, product) = match text.split_once('=') {
            Some((code, product)) => (code, Some(product)),
            None => (text, None),
        };
        let code = parse_code(code)?;
        let target = match product {
            None => Target::Any,
            Some(p) => Target::Product(ProductId::parse(p)?),
        };
        Ok(Rule {
            code,
            target,
            reason: "given with --allow".to_owned(),
            origin: None,
        })
    }
}

/// A finding code by its stable name, or an error listing the codes.
///
/// # Errors
/// When no code has that name.
pub fn parse_code(text: &str) -> Result<Code, String> {
    Code::parse(text).ok_or_else(|| {
        let known: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        format!(
            "unknown finding code `{text}`; expected one of: {}",
            known.join(", ")
        )
    })
}

impl fmt::Display for Rule {
    /// `lockstep-range`, `lockstep-range for com.example:api`, `... for entity api-1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.target {
            Target::Any => write!(f, "{}", self.code),
            Target::Product(p) => write!(f, "{} for {p}", self.code),
            Target::Entity(e) => write!(f, "{} for entity {e}", self.code),
        }
    }
}

/// The rules in force: a config file's, then the command line's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowList {
    pub rules: Vec<Rule>,
}

impl AllowList {
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The rule that accepts `f`, if any (the most specific, then the first listed).
    #[must_use]
    pub fn rule_for(&self, f: &Finding) -> Option<&Rule> {
        self.rules
            .iter()
            .filter(|r| r.code == f.code && r.target.matches(f))
            // `max_by_key` keeps the last of equals: compare in reverse to keep the first
            .rev()
            .max_by_key(|r| r.target.specificity())
    }

    /// Marks every finding a rule accepts with that rule's reason (and clears the mark of
    /// one no rule accepts); returns how many are accepted.
    pub fn apply<'a>(&self, findings: impl IntoIterator<Item = &'a mut Finding>) -> usize {
        let mut accepted = 0;
        for f in findings {
            f.accepted = self.rule_for(f).map(|r| Accepted {
                reason: r.reason.clone(),
            });
            accepted += usize::from(f.accepted.is_some());
        }
        accepted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(code: Code, entity: &str, product: &str) -> Finding {
        let mut f = Finding::new(code, "m", "d");
        f.entity = Some(entity.to_owned());
        f.product = Some(ProductId::parse(product).unwrap());
        f
    }

    fn rule(code: Code, target: Target, reason: &str) -> Rule {
        Rule {
            code,
            target,
            reason: reason.to_owned(),
            origin: None,
        }
    }

    /// The reason each finding is accepted with, or `-`.
    #[track_caller]
    fn check(rules: Vec<Rule>, findings: &mut [Finding], expected: &[&str]) {
        let list = AllowList { rules };
        let n = list.apply(findings.iter_mut());
        let got: Vec<&str> = findings
            .iter()
            .map(|f| f.accepted.as_ref().map_or("-", |a| a.reason.as_str()))
            .collect();
        assert_eq!(got, expected);
        assert_eq!(n, expected.iter().filter(|r| **r != "-").count());
    }

    #[test]
    fn rules_match_by_code_then_product_or_entity() {
        let mut findings = [
            finding(Code::LockstepRange, "api-1", "g:api"),
            finding(Code::LockstepRange, "web", "g:web"),
            finding(Code::VersionTooLow, "api-1", "g:api"),
        ];
        let product = Target::Product(ProductId::parse("g:api").unwrap());
        check(
            vec![rule(Code::LockstepRange, product.clone(), "p")],
            &mut findings,
            &["p", "-", "-"],
        );
        check(
            vec![rule(Code::LockstepRange, Target::Entity("web".into()), "e")],
            &mut findings,
            &["-", "e", "-"],
        );
        check(
            vec![rule(Code::VersionTooLow, Target::Any, "any")],
            &mut findings,
            &["-", "-", "any"],
        );
        check(vec![], &mut findings, &["-", "-", "-"]);
    }

    #[test]
    fn the_most_specific_rule_gives_the_reason_then_the_first() {
        let mut findings = [finding(Code::LockstepRange, "api-1", "g:api")];
        let product = Target::Product(ProductId::parse("g:api").unwrap());
        check(
            vec![
                rule(Code::LockstepRange, Target::Any, "any"),
                rule(Code::LockstepRange, product.clone(), "first"),
                rule(Code::LockstepRange, product, "second"),
            ],
            &mut findings,
            &["first"],
        );
        check(
            vec![
                rule(Code::LockstepRange, Target::Any, "any"),
                rule(
                    Code::LockstepRange,
                    Target::Entity("api-1".into()),
                    "entity",
                ),
            ],
            &mut findings,
            &["entity"],
        );
    }

    #[test]
    fn flags_name_a_code_and_maybe_a_product() {
        let r = Rule::from_flag("lockstep-range=com.example:api").unwrap();
        assert_eq!(r.to_string(), "lockstep-range for com.example:api");
        assert_eq!(Rule::from_flag("unknown-key").unwrap().target, Target::Any);
        assert!(
            Rule::from_flag("lockstep").unwrap_err().starts_with(
                "unknown finding code `lockstep`; expected one of: missing-dependency"
            )
        );
        assert_eq!(
            Rule::from_flag("unknown-key=api").unwrap_err(),
            "expected a product as `group:name`, found `api`"
        );
    }
}
