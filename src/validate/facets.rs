//! The section 9 checks of one entity (SPEC 9.3): required capabilities, `constraints` items,
//! runtime requirements, policy exclusions and deprecation, each judged through
//! [`crate::constraint::World`] and turned into findings here.

use std::sync::Arc;

use crate::constraint::{Need, range_words, requirement_text};
use crate::diagnostic::FileLocation;
use crate::finding::{Code, Finding};
use crate::manifest::{CapabilityRequirement, Manifest, RuntimeRequirement, Term};
use crate::range::Range;

use super::{Check, EntityChecker};

impl EntityChecker<'_> {
    /// A finding about a section 9 entry of `manifest`, with its range.
    fn facet_finding(
        &self,
        manifest: &Manifest,
        code: Code,
        entry: (&str, &Range, crate::diagnostic::Location),
        message: String,
        detail: &str,
    ) -> Finding {
        let (name, range, at) = entry;
        let mut f = self.finding(manifest, code, at, message, detail);
        f.dependency_name = Some(name.to_owned());
        f.minimum = range.minimum.as_ref().map(ToString::to_string);
        f.maximum = range.maximum.as_ref().map(ToString::to_string);
        f
    }

    pub(super) fn capability(&self, manifest: &Manifest, r: &CapabilityRequirement) -> Check {
        let constraint = requirement_text(r);
        let entry = (r.name.as_str(), &r.range, r.location);
        let who = self.who(manifest);
        let mut findings: Vec<Finding> = self
            .binding(manifest, crate::serving::Key::Capability(&r.name))
            .into_iter()
            .collect();
        match self.world.capability_need(&self.entity.name, r) {
            Need::NoProvider => {
                let message = format!("{who} {constraint}, which no installed entity provides");
                let mut f = self.facet_finding(
                    manifest,
                    Code::MissingCapability,
                    entry,
                    message,
                    &constraint,
                );
                f.optional = Some(r.optional);
                findings.push(f);
            }
            Need::OutOfRange(providers) => {
                for (entity, version) in providers {
                    let what = version.map_or_else(
                        || "provides it without a version".to_owned(),
                        |v| format!("provides {v}, outside the range"),
                    );
                    let message = format!("{who} {constraint}; {entity} {what}");
                    let mut f = self.facet_finding(
                        manifest,
                        Code::CapabilityOutOfRange,
                        entry,
                        message,
                        &constraint,
                    );
                    f.optional = Some(r.optional);
                    f.found = version.map(ToString::to_string);
                    f.found_entity = Some(entity.to_owned());
                    findings.push(f);
                }
            }
            _ => {}
        }
        self.check(constraint, findings)
    }

    pub(super) fn constraint(&self, manifest: &Manifest, term: &Term) -> Check {
        let quoted = term
            .description
            .as_ref()
            .map(|d| format!(" `{d}`"))
            .unwrap_or_default();
        let constraint = format!("constraint{quoted}");
        let mut findings = Vec::new();
        if let Some(part) = self.world.term_failure(&self.entity.name, term) {
            let message = format!("{} {constraint} does not hold: {part}", self.who(manifest));
            let detail = format!("{constraint} does not hold: {part}");
            findings.push(self.finding(
                manifest,
                Code::UnsatisfiedConstraint,
                term.location,
                message,
                &detail,
            ));
        }
        self.check(constraint, findings)
    }

    pub(super) fn runtime(&self, manifest: &Manifest, r: &RuntimeRequirement) -> Check {
        let constraint = format!("requires runtime {}{}", r.name, range_words(&r.range));
        let entry = (r.name.as_str(), &r.range, r.location);
        let who = self.who(manifest);
        let mut findings = Vec::new();
        match self.world.runtime_need(r) {
            Need::RuntimeMismatch(found) => {
                let message = format!("{who} {constraint}; the environment runs {found}");
                let mut f = self.facet_finding(
                    manifest,
                    Code::RuntimeMismatch,
                    entry,
                    message,
                    &constraint,
                );
                f.found = Some(found.to_string());
                findings.push(f);
            }
            Need::UnknownRuntime => {
                let message = format!(
                    "{who} {constraint}, which the environment does not declare (add it under \
                     `runtime:`)"
                );
                findings.push(self.facet_finding(
                    manifest,
                    Code::UnknownRuntime,
                    entry,
                    message,
                    &constraint,
                ));
            }
            _ => {}
        }
        self.check(constraint, findings)
    }

    /// A finding about the release the entity runs (`... which is {why}`).
    fn release_finding(&self, code: Code, why: &str) -> Finding {
        self.entity_finding(code, &format!("is {why}"), why)
    }

    pub(super) fn excluded(&self, manifest: &Manifest) -> Check {
        let constraint = "release is allowed by policy".to_owned();
        let findings = self
            .policy
            .exclude
            .iter()
            .find(|e| e.excludes(manifest, &self.entity.version, &self.entity.name))
            .map(|e| {
                let reason = e
                    .reason
                    .as_ref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default();
                let why = format!("excluded by policy{reason} at {}", e.location);
                self.release_finding(Code::ExcludedRelease, &why)
            })
            .into_iter()
            .collect();
        self.check(constraint, findings)
    }

    pub(super) fn deprecated(&self, manifest: &Manifest) -> Check {
        let constraint = "release is not deprecated".to_owned();
        let mut findings = Vec::new();
        if let Some(d) = &manifest.facets().deprecated {
            let why = match &d.reason {
                Some(reason) => format!("deprecated: {reason}"),
                None => "deprecated".to_owned(),
            };
            let mut f = self.release_finding(Code::DeprecatedRelease, &why);
            f.location = Some(FileLocation {
                file: Arc::clone(&manifest.file),
                location: d.location,
            });
            findings.push(f);
        }
        self.check(constraint, findings)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::catalog::Catalog;
    use crate::{environment, manifest, validate};

    fn release(name: &str, version: &str, extensions: &str) -> String {
        format!(
            "manifest-version: '1.0'\nproduct-group: g\nproduct-name: {name}\n\
             product-version: {version}\nextensions:\n{extensions}---\n"
        )
    }

    /// Findings as `entity code dependency found`.
    fn run(catalog: &str, env: &str) -> Vec<String> {
        let manifests = manifest::parse(catalog, &Arc::from("c.yml")).unwrap();
        let catalog = Catalog::from_manifests(manifests).unwrap();
        let env = environment::parse(env, &Arc::from("e.yml"), "e").unwrap();
        validate::validate(&env, &catalog)
            .findings()
            .map(|f| {
                format!(
                    "{} {} {} {}",
                    f.entity.as_deref().unwrap_or("-"),
                    f.code,
                    f.dependency_name.as_deref().unwrap_or("-"),
                    f.found.as_deref().unwrap_or("-")
                )
            })
            .collect()
    }

    #[test]
    fn capabilities_and_runtimes_by_the_rules_of_9_1() {
        let catalog = [
            release(
                "app",
                "1.0.0",
                "  capabilities:\n    requires:\n      - name: sql\n        minimum-version: 8.0.0\n      \
                 - name: queue\n        optional: true\n        minimum-version: 2.0.0\n      \
                 - name: plain\n        minimum-version: 1.0.0\n  runtime-requirements:\n    \
                 - name: kubernetes\n      minimum-version: 1.27.0\n    - name: jvm\n      \
                 minimum-version: 17.0.0\n",
            ),
            release(
                "db",
                "5.7.0",
                "  capabilities:\n    provides:\n      - name: sql\n        version: 5.7.0\n",
            ),
            release(
                "db",
                "8.0.0",
                "  capabilities:\n    provides:\n      - name: sql\n        version: 8.0.0\n",
            ),
            release(
                "mq",
                "1.0.0",
                "  capabilities:\n    provides:\n      - name: queue\n        version: 1.0.0\n      \
                 - name: plain\n",
            ),
        ]
        .concat();
        let env = "runtime:\n  kubernetes: 1.26.0\nentities:\n  - product: g:app\n    version: 1.0.0\n  \
                   - name: db-old\n    product: g:db\n    version: 5.7.0\n  - name: db-new\n    \
                   product: g:db\n    version: 8.0.0\n  - product: g:mq\n    version: 1.0.0\n";
        // sql: one provider in range is enough; queue is optional but provided out of range;
        // `plain` is provided without a version, which no bound admits
        assert_eq!(
            run(&catalog, env),
            [
                "app capability-out-of-range queue 1.0.0",
                "app capability-out-of-range plain -",
                "app runtime-mismatch kubernetes 1.26.0",
                "app unknown-runtime jvm -",
            ]
        );
        let alone = "entities:\n  - product: g:app\n    version: 1.0.0\n";
        assert_eq!(
            run(&catalog, alone),
            [
                "app missing-capability sql -",
                "app missing-capability plain -",
                "app unknown-runtime kubernetes -",
                "app unknown-runtime jvm -",
            ]
        );
    }

    #[test]
    fn a_release_never_provides_to_itself_and_policy_findings_name_the_entity() {
        let catalog = [
            release(
                "web",
                "1.0.0",
                "  capabilities:\n    provides:\n      - name: http\n  constraints:\n    \
                 - capability: http\n  deprecated: true\n",
            ),
            release("cache", "2.1.0", "  {}\n"),
        ]
        .concat();
        let env = "policy:\n  exclude:\n    - product: g:cache\n      maximum-version: 2.3.x\n      \
                   reason: CVE\nentities:\n  - product: g:web\n    version: 1.0.0\n  - product: g:cache\n    \
                   version: 2.1.0\n";
        assert_eq!(
            run(&catalog, env),
            [
                "cache excluded-release - -",
                "web unsatisfied-constraint - -",
                "web deprecated-release - -",
            ]
        );
    }
}
