//! Validation of an environment against every constraint its installed releases declare
//! (SPEC section 7).
//!
//! Every installed entity gets checks, in this order: its release is in the catalog; its
//! manifest's declarations are well formed; each dependency holds; each incompatibility is
//! absent. A check holds zero or more findings, one per entity that breaks it. Rules:
//! - only `installed` entities count as present, and only their constraints are checked;
//! - a dependency holds only if *every* installed entity of the product satisfies the range;
//! - an entity whose release is unknown still counts as installed at its version for
//!   everyone else's constraints; only its own constraints go unchecked;
//! - an incompatibility never matches the declaring entity itself.
//!
//! Section 9 adds, after those: each required capability, each `constraints` item, each
//! runtime requirement (judged by [`constraint::World`] over every installed entity), then
//! whether policy excludes the release and whether it is deprecated. These checks exist only
//! where a release or the policy declares something, so a catalog without section 9 gets
//! exactly the checks it always had.
//!
//! Invariant: the result depends only on the environment and catalog, never on thread
//! timing: entities are checked in parallel and collected in entity-name order.

use std::fmt::Write;
use std::sync::Arc;

use rayon::prelude::*;

use crate::catalog::Catalog;
use crate::constraint::{self, Running, Verdict, World};
use crate::diagnostic::{FileLocation, InputError, Location};
use crate::environment::{Entity, Environment};
use crate::finding::{Code, Finding, Severity};
use crate::instance::Requirement;
use crate::manifest::{Dependency, Facets, Incompatibility, Manifest};
use crate::policy::Policy;
use crate::product::ProductId;
use crate::serving::{BindingFault, Key};
use crate::suggest;
use crate::version::Version;

mod facets;
#[cfg(test)]
mod serving_tests;
mod wiring;

/// The outcome of validating one environment.
#[derive(Clone, Debug)]
pub struct Validation {
    pub environment: String,
    pub checks: Vec<Check>,
    /// `invalid-manifest` findings for catalog files that could not be read as manifests
    /// (SPEC section 8): what they describe was left out of the catalog. Reported first.
    pub unreadable: Vec<Finding>,
}

/// One checked constraint of one entity, and what broke it.
#[derive(Clone, Debug)]
pub struct Check {
    pub entity: String,
    /// What was checked, in words: `requires org.postgresql:postgresql >=9.3.6, <=9.6.x`.
    pub constraint: String,
    pub findings: Vec<Finding>,
}

impl Validation {
    /// Every finding, in check order (entity name, then the check order above).
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.unreadable
            .iter()
            .chain(self.checks.iter().flat_map(|c| c.findings.iter()))
    }

    /// Adds an `invalid-manifest` finding for each catalog file that could not be read as
    /// manifests, located where the reader stopped, in the order given.
    pub fn add_unreadable<'a>(&mut self, errors: impl IntoIterator<Item = &'a InputError>) {
        for error in errors {
            let reason = error.reason();
            let mut finding = Finding::new(
                Code::InvalidManifest,
                format!(
                    "catalog manifest cannot be read: {reason}; the releases it describes are \
                     left out of the catalog"
                ),
                format!("catalog manifest cannot be read: {reason}"),
            );
            finding.location = error.file_location();
            self.unreadable.push(finding);
        }
    }

    /// Every finding, mutable (to accept some: `accept::AllowList::apply`).
    pub fn findings_mut(&mut self) -> impl Iterator<Item = &mut Finding> {
        self.unreadable
            .iter_mut()
            .chain(self.checks.iter_mut().flat_map(|c| c.findings.iter_mut()))
    }

    /// How many findings not accepted have the given severity.
    #[must_use]
    pub fn count(&self, severity: Severity) -> usize {
        self.findings()
            .filter(|f| f.severity == severity && f.accepted.is_none())
            .count()
    }

    /// How many findings are accepted (module `accept`).
    #[must_use]
    pub fn accepted(&self) -> usize {
        self.findings().filter(|f| f.accepted.is_some()).count()
    }

    /// True when no finding that is not accepted is at or above `fail_on`.
    #[must_use]
    pub fn passes(&self, fail_on: Severity) -> bool {
        self.findings()
            .all(|f| f.severity < fail_on || f.accepted.is_some())
    }
}

/// Validates `environment` against `catalog`.
#[must_use]
pub fn validate(environment: &Environment, catalog: &Catalog) -> Validation {
    // The data cycles are judged over a graph of their own, beside the checks (one thread
    // for them, the others for the checks: on 5,000 entities with wiring they were a third
    // of `validate`, all on one thread after the checks).
    let (checks, cycles) = rayon::join(
        || {
            let world = world(environment, catalog);
            environment
                .entities
                .par_iter()
                .filter(|e| e.is_installed())
                .flat_map_iter(|entity| {
                    EntityChecker {
                        entity,
                        env_file: &environment.file,
                        world: &world,
                        policy: &environment.policy,
                    }
                    .checks(catalog)
                })
                .collect()
        },
        || wiring::data_cycles(environment, catalog),
    );
    let mut validation = Validation {
        environment: environment.name.clone(),
        checks,
        unreadable: Vec::new(),
    };
    // the checks of each entity are in entity order; a data cycle is its first entity's
    for f in cycles {
        let entity = f.entity.clone().unwrap_or_default();
        let at = validation
            .checks
            .iter()
            .rposition(|c| c.entity == entity)
            .map_or(validation.checks.len(), |i| i + 1);
        validation.checks.insert(
            at,
            Check {
                entity,
                constraint: "no data cycle".into(),
                findings: vec![f],
            },
        );
    }
    validation
}

/// The data wiring findings [`validate`] would report (`missing-output`, `unfed-input`,
/// `data-cycle`), and only those: what the planner checks a planned state for where its model
/// cannot judge wiring pair by pair (inputs wired from capabilities, data cycles).
#[must_use]
pub fn wiring_findings(environment: &Environment, catalog: &Catalog) -> Vec<Finding> {
    let world = world(environment, catalog);
    let mut out: Vec<Finding> = environment
        .entities
        .iter()
        .filter(|e| e.is_installed())
        .filter_map(|entity| {
            let manifest = catalog.release(&entity.product, &entity.version)?;
            let checker = EntityChecker {
                entity,
                env_file: &environment.file,
                world: &world,
                policy: &environment.policy,
            };
            Some(checker.inputs(manifest))
        })
        .flatten()
        .flat_map(|c| c.findings)
        .collect();
    out.extend(wiring::data_cycles(environment, catalog));
    out
}

/// The errors of `after` that `before` does not have: the same problem is the same code,
/// entity, declaring release, constraint, dependency and the entity and version found (a
/// data cycle: the same members). An unsatisfied constraint is the same declaration still
/// failing, whichever of its parts fails now: a move that leaves it failing elsewhere
/// changes its message, not its truth (SPEC 9.3 binds a move only where it can change that).
pub fn new_errors<'a>(
    before: impl IntoIterator<Item = &'a Finding>,
    after: impl IntoIterator<Item = &'a Finding>,
) -> Vec<&'a Finding> {
    type Key<'f> = (
        Code,
        Option<&'f str>,
        Option<&'f str>,
        &'f str,
        Option<&'f ProductId>,
        Option<&'f str>,
        Option<&'f str>,
        Option<&'f str>,
        Option<&'f [String]>,
        Option<&'f FileLocation>,
    );
    let key = |f: &'a Finding| -> Key<'a> {
        let declaration = f
            .location
            .as_ref()
            .filter(|_| f.code == Code::UnsatisfiedConstraint);
        (
            f.code,
            f.entity.as_deref(),
            f.version.as_deref(),
            if declaration.is_some() { "" } else { &f.detail },
            f.dependency.as_ref(),
            f.dependency_name.as_deref(),
            f.found.as_deref(),
            f.found_entity.as_deref(),
            f.cycle.as_deref(),
            declaration,
        )
    };
    let errors = |f: &&Finding| f.severity == Severity::Error;
    let known: std::collections::BTreeSet<Key<'a>> =
        before.into_iter().filter(errors).map(key).collect();
    after
        .into_iter()
        .filter(errors)
        .filter(|f| !known.contains(&key(f)))
        .collect()
}

/// The world an environment is checked in: its installed entities, the managed ones a
/// binding may name, and its runtime.
fn world<'a>(environment: &'a Environment, catalog: &'a Catalog) -> World<'a> {
    let running = |installed: bool| {
        environment
            .entities
            .iter()
            .filter(move |e| e.is_installed() == installed)
            .map(|e| Running {
                entity: &e.name,
                product: &e.product,
                version: &e.version,
                facets: catalog
                    .release(&e.product, &e.version)
                    .map_or(Facets::none(), |m| m.facets()),
                placement: &e.placement,
            })
            .collect()
    };
    World::placed(running(true), running(false), &environment.runtime)
}

impl Validation {
    /// Adds a hint (module `suggest`) to every `unknown-release` finding: the known versions
    /// nearest to the entity's when `catalog` knows the product, close product names when it
    /// does not (`known_product`, `nearest_versions`, `similar_products`, and a sentence after
    /// the message). `compat validate` calls it with a catalog read for the hints
    /// (`Catalog::with_hint_releases`); findings that other commands reuse stay without, so
    /// they do not depend on how much of a catalog those commands read.
    /// When catalog files were left out unread ([`Validation::add_unreadable`], called first),
    /// the hint says one of them may describe the release.
    pub fn add_hints(&mut self, catalog: &Catalog) {
        let unread = match self.unreadable.len() {
            0 => String::new(),
            1 => "; a catalog file that could not be read may describe it".to_owned(),
            n => format!("; one of the {n} catalog files that could not be read may describe it"),
        };
        let unknown = self
            .checks
            .iter_mut()
            .flat_map(|c| c.findings.iter_mut())
            .filter(|f| f.code == Code::UnknownRelease);
        for finding in unknown {
            let (Some(product), Some(Ok(version))) = (
                finding.product.clone(),
                finding.version.as_deref().map(Version::parse),
            ) else {
                continue;
            };
            let hint = hint(finding, catalog, &product, &version) + &unread;
            finding.message = format!("{}; {hint}", finding.message);
            finding.detail = format!("{}; {hint}", finding.detail);
        }
    }
}

/// Fills the hint fields of one `unknown-release` finding and returns the sentence.
fn hint(
    finding: &mut Finding,
    catalog: &Catalog,
    product: &ProductId,
    version: &Version,
) -> String {
    let releases = catalog.releases(product);
    if releases.is_empty() {
        let similar: Vec<ProductId> = suggest::similar_products(product, catalog.products())
            .into_iter()
            .cloned()
            .collect();
        let names: Vec<String> = similar.iter().map(ToString::to_string).collect();
        finding.known_product = Some(false);
        finding.similar_products = Some(similar);
        if names.is_empty() {
            format!("the catalog has no release of {product} at all")
        } else {
            format!(
                "the catalog has no release of {product} at all; did you mean {}?",
                or_list(&names)
            )
        }
    } else {
        let known: Vec<&Version> = releases.iter().map(|m| &m.version).collect();
        let nearest: Vec<String> = suggest::nearest_versions(version, &known)
            .iter()
            .map(|v| v.as_str().to_owned())
            .collect();
        let hint = format!("known versions nearby: {}", nearest.join(", "));
        finding.known_product = Some(true);
        finding.nearest_versions = Some(nearest);
        hint
    }
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[String]) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

struct EntityChecker<'a> {
    entity: &'a Entity,
    env_file: &'a Arc<str>,
    world: &'a World<'a>,
    policy: &'a Policy,
}

impl EntityChecker<'_> {
    fn checks(&self, catalog: &Catalog) -> Vec<Check> {
        let entity = self.entity;
        let Some(manifest) = catalog.release(&entity.product, &entity.version) else {
            let finding = self.entity_finding(
                Code::UnknownRelease,
                "has no manifest in the catalog",
                "release has no manifest in the catalog",
            );
            return vec![self.check("release is in the catalog".into(), vec![finding])];
        };
        let mut checks = vec![self.check("release is in the catalog".into(), Vec::new())];
        let issues = manifest
            .issues
            .iter()
            .map(|issue| {
                let message = format!("{}: {}", self.who(manifest), issue.message);
                let mut f = self.finding(
                    manifest,
                    issue.code,
                    issue.location,
                    message,
                    &issue.message,
                );
                f.dependency.clone_from(&issue.dependency);
                f.dependency_name.clone_from(&issue.subject);
                f
            })
            .collect();
        checks.push(self.check("manifest declarations are valid".into(), issues));
        for dependency in &manifest.dependencies {
            checks.push(self.dependency(manifest, dependency));
        }
        for incompatibility in &manifest.incompatibilities {
            checks.push(self.incompatibility(manifest, incompatibility));
        }
        let facets = manifest.facets();
        for requirement in &facets.requires {
            checks.push(self.capability(manifest, requirement));
        }
        for term in &facets.constraints {
            checks.push(self.constraint(manifest, term));
        }
        for requirement in &facets.runtime {
            checks.push(self.runtime(manifest, requirement));
        }
        checks.extend(self.inputs(manifest));
        checks.extend(self.stray_bindings(manifest));
        if !self.policy.exclude.is_empty() {
            checks.push(self.excluded(manifest));
        }
        if facets.deprecated.is_some() {
            checks.push(self.deprecated(manifest));
        }
        checks
    }

    /// A finding about the entity itself (`web-1 runs com.example:web 2.3.0, which
    /// {which}`), located at its entry in the environment file.
    fn entity_finding(&self, code: Code, which: &str, detail: &str) -> Finding {
        let entity = self.entity;
        let mut f = Finding::new(
            code,
            format!(
                "{} runs {} {}, which {which}",
                entity.name, entity.product, entity.version
            ),
            detail,
        );
        f.entity = Some(entity.name.clone());
        f.product = Some(entity.product.clone());
        f.version = Some(entity.version.to_string());
        f.location = Some(FileLocation {
            file: Arc::clone(self.env_file),
            location: entity.location,
        });
        f
    }

    fn check(&self, constraint: String, findings: Vec<Finding>) -> Check {
        Check {
            entity: self.entity.name.clone(),
            constraint,
            findings,
        }
    }

    /// `web-1 (com.example:web 2.3.0)`: who declares a constraint.
    fn who(&self, manifest: &Manifest) -> String {
        format!(
            "{} ({} {})",
            self.entity.name, manifest.product, self.entity.version
        )
    }

    /// A finding about a constraint that `manifest`, run by this entity, declares at `at`.
    fn finding(
        &self,
        manifest: &Manifest,
        code: Code,
        at: Location,
        message: String,
        detail: &str,
    ) -> Finding {
        let mut f = Finding::new(code, message, detail);
        f.entity = Some(self.entity.name.clone());
        f.product = Some(manifest.product.clone());
        // The entity's own text: what the user wrote in the environment (`1.0.0` may be
        // stored as `01.0.0` in the catalog).
        f.version = Some(self.entity.version.to_string());
        f.location = Some(FileLocation {
            file: Arc::clone(&manifest.file),
            location: at,
        });
        f
    }

    fn dependency(&self, manifest: &Manifest, dep: &Dependency) -> Check {
        let verb = if dep.optional {
            "optionally requires"
        } else {
            "requires"
        };
        let constraint = format!("{verb} {} {}", dep.product, dep.range);
        let base = |code: Code, message: String| {
            let message = format!("{} {constraint}{message}", self.who(manifest));
            let mut f = self.finding(manifest, code, dep.location, message, &constraint);
            f.dependency = Some(dep.product.clone());
            f.minimum = dep.range.minimum.as_ref().map(ToString::to_string);
            f.maximum = dep.range.maximum.as_ref().map(ToString::to_string);
            f.recommended = dep.recommended.as_ref().map(ToString::to_string);
            f.optional = Some(dep.optional);
            f
        };
        let mut findings: Vec<Finding> = self
            .binding(manifest, Key::Product(&dep.product))
            .into_iter()
            .collect();
        let present = self.world.serving_product(
            &self.entity.name,
            &dep.product,
            manifest.facets().instances.get(&dep.product),
        );
        if present.is_empty() && constraint::dependency_absent(dep) == Verdict::Missing {
            let why = if self.world.running(&dep.product).next().is_some() {
                ", which no installed entity it can see serves"
            } else {
                ", which is not installed"
            };
            findings.push(base(Code::MissingDependency, why.into()));
        }
        for other in present {
            let verdict = constraint::dependency_on(dep, other.version);
            let (code, why) = match (verdict.code(), &dep.recommended) {
                (Some(code), _) => (code, verdict.why()),
                // the recommendation is validate's own warning, not part of what holds
                (None, Some(r)) if other.version < r => {
                    (Code::BelowRecommended, "below the recommended version")
                }
                (None, _) => continue,
            };
            let mut f = base(
                code,
                format!("; {} runs {}, {why}", other.entity, other.version),
            );
            if code == Code::BelowRecommended
                && let Some(r) = &dep.recommended
            {
                let _ = write!(f.message, " {r}");
                let _ = write!(f.detail, " (recommended {r})");
            }
            f.found = Some(other.version.to_string());
            f.found_entity = Some(other.entity.to_owned());
            findings.push(f);
        }
        self.check(constraint, findings)
    }

    /// `invalid-binding` when the entity binds requirement `key` of its release to an entity
    /// that does not exist or cannot serve it (section 10), located where the binding is written.
    fn binding(&self, manifest: &Manifest, key: Key<'_>) -> Option<Finding> {
        let (bound, fault) = self.world.binding_fault(&self.entity.name, key)?;
        let requirement = key.requirement();
        let why = match (fault, key) {
            (BindingFault::NoEntity, _) => "no entity has that name".to_owned(),
            (BindingFault::CannotServe, Key::Product(p)) => format!("it does not run {p}"),
            (BindingFault::CannotServe, Key::Capability(c)) => {
                format!("its release does not provide capability {c}")
            }
        };
        let detail = format!("binds {requirement} to {bound}, but {why}");
        let message = format!("{} {detail}", self.who(manifest));
        let mut f = self.binding_finding(&requirement, message, &detail);
        f.product = Some(manifest.product.clone());
        f.version = Some(self.entity.version.to_string());
        f.found = Some(bound);
        f.requirement(requirement);
        Some(f)
    }

    /// `invalid-binding` for each binding of a requirement the entity's release does not
    /// declare that names no entity (a declared one is judged with its requirement,
    /// [`Self::binding`]): another release may declare it, but no entity of that name
    /// serves anything. Without the release's version, so the finding stays the same
    /// finding when the entity moves to another release that does not declare it either.
    fn stray_bindings(&self, manifest: &Manifest) -> Option<Check> {
        let stray: Vec<(&Requirement, &String)> = self
            .entity
            .placement
            .bindings
            .iter()
            .filter(|(r, _)| !manifest.declares(r))
            .collect();
        if stray.is_empty() {
            return None;
        }
        let findings = stray
            .into_iter()
            .filter(|(_, bound)| !self.world.names_entity(bound))
            .map(|(requirement, bound)| {
                let detail = format!("binds {requirement} to {bound}, but no entity has that name");
                let mut f = self.binding_finding(
                    requirement,
                    format!(
                        "{} {detail} ({} {} does not require it)",
                        self.entity.name, manifest.product, self.entity.version
                    ),
                    &detail,
                );
                f.product = Some(manifest.product.clone());
                f.found = Some(bound.clone());
                f.requirement(requirement.clone());
                f
            })
            .collect();
        Some(self.check("bindings name entities".into(), findings))
    }

    /// An `invalid-binding` finding about this entity's binding of `requirement`, located
    /// where the binding is written (at the entity's entry when that is not known).
    fn binding_finding(&self, requirement: &Requirement, message: String, detail: &str) -> Finding {
        let mut f = Finding::new(Code::InvalidBinding, message, detail);
        f.entity = Some(self.entity.name.clone());
        let at = self.entity.binding_locations.get(requirement);
        f.location = Some(FileLocation {
            file: Arc::clone(self.env_file),
            location: at.copied().unwrap_or(self.entity.location),
        });
        f
    }

    fn incompatibility(&self, manifest: &Manifest, inc: &Incompatibility) -> Check {
        let constraint = format!("is incompatible with {} {}", inc.product, inc.range);
        let reason = inc
            .reason
            .as_ref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        let present = self.world.visible(&self.entity.name, &inc.product);
        let findings = present
            .iter()
            .filter(|other| {
                other.entity != self.entity.name
                    && constraint::incompatibility_on(inc, other.version) == Verdict::Incompatible
            })
            .map(|other| {
                let message = format!(
                    "{} {constraint}{reason}; {} runs {}",
                    self.who(manifest),
                    other.entity,
                    other.version
                );
                let detail = format!("{constraint}{reason}");
                let mut f = self.finding(
                    manifest,
                    Code::IncompatibleRelease,
                    inc.location,
                    message,
                    &detail,
                );
                f.dependency = Some(inc.product.clone());
                f.found = Some(other.version.to_string());
                f.found_entity = Some(other.entity.to_owned());
                f.minimum = inc.range.minimum.as_ref().map(ToString::to_string);
                f.maximum = inc.range.maximum.as_ref().map(ToString::to_string);
                f
            })
            .collect();
        self.check(constraint, findings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{environment, manifest};

    /// A manifest of `product@version` with `extensions` YAML (already indented).
    fn release(product: &str, version: &str, extensions: &str) -> String {
        let (group, name) = product.split_once(':').unwrap();
        format!(
            "manifest-version: '1.0'\nproduct-group: {group}\nproduct-name: {name}\n\
             product-version: {version}\nextensions:\n{extensions}---\n"
        )
    }

    fn dep(product: &str, min: &str, max: &str, optional: bool) -> String {
        let (group, name) = product.split_once(':').unwrap();
        format!(
            "    - product-group: {group}\n      product-name: {name}\n      \
             minimum-version: {min}\n      maximum-version: {max}\n      optional: {optional}\n"
        )
    }

    /// Findings as `entity code dependency found`.
    fn run(catalog: &str, entities: &[(&str, &str, &str, &str)]) -> Vec<String> {
        let manifests = manifest::parse(catalog, &Arc::from("c.yml")).unwrap();
        let catalog = Catalog::from_manifests(manifests).unwrap();
        let mut env = String::from("entities:\n");
        for (name, product, version, state) in entities {
            let _ = write!(
                env,
                "  - name: {name}\n    product: {product}\n    version: {version}\n    state: {state}\n"
            );
        }
        let env = environment::parse(&env, &Arc::from("e.yml"), "e").unwrap();
        validate(&env, &catalog)
            .findings()
            .map(|f| {
                format!(
                    "{} {} {} {}",
                    f.entity.as_deref().unwrap_or("-"),
                    f.code,
                    f.dependency
                        .as_ref()
                        .map_or("-".into(), ToString::to_string),
                    f.found.as_deref().unwrap_or("-")
                )
            })
            .collect()
    }

    /// A constraint that still fails after a move, in another part, is no new error: the
    /// same declaration, whichever part its message names. Another constraint failing is.
    #[test]
    fn a_constraint_failing_in_another_part_is_the_same_error() {
        let atom =
            |p: &str| format!("            - product: {p}\n              minimum-version: 2.0.0\n");
        let mut catalog = release(
            "g:a",
            "1.0.0",
            &format!(
                "  constraints:\n    - all-of:\n{}{}    - none-of:\n{}",
                atom("g:b").replace("            ", "        "),
                atom("g:c").replace("            ", "        "),
                atom("g:d").replace("            ", "        "),
            ),
        );
        for (p, v) in [
            ("g:b", "1.0.0"),
            ("g:b", "2.0.0"),
            ("g:c", "1.0.0"),
            ("g:d", "1.0.0"),
            ("g:d", "2.0.0"),
        ] {
            catalog.push_str(&release(p, v, "  properties: {}\n"));
        }
        let catalog =
            Catalog::from_manifests(manifest::parse(&catalog, &Arc::from("c.yml")).unwrap())
                .unwrap();
        let judge = |b: &str, d: &str| {
            let env = format!(
                "entities:\n  - {{name: a, product: g:a, version: 1.0.0}}\n  \
                 - {{name: b, product: g:b, version: {b}}}\n  \
                 - {{name: c, product: g:c, version: 1.0.0}}\n  \
                 - {{name: d, product: g:d, version: {d}}}\n"
            );
            validate(
                &environment::parse(&env, &Arc::from("e.yml"), "e").unwrap(),
                &catalog,
            )
        };
        let today = judge("1.0.0", "1.0.0");
        let moved = judge("2.0.0", "1.0.0");
        let both =
            |v: &Validation| -> Vec<String> { v.findings().map(|f| f.detail.clone()).collect() };
        assert_eq!(both(&today).len(), 1);
        assert_ne!(
            both(&today),
            both(&moved),
            "the failing part it names changed"
        );
        assert!(new_errors(today.findings(), moved.findings()).is_empty());
        let also = judge("1.0.0", "2.0.0");
        let added: Vec<&str> = new_errors(today.findings(), also.findings())
            .iter()
            .map(|f| f.detail.as_str())
            .collect();
        assert_eq!(added.len(), 1, "{added:?}");
    }

    #[test]
    fn unknown_releases_still_count_as_installed_for_others() {
        let catalog = release(
            "g:web",
            "1.0.0",
            &format!(
                "  product-dependencies:\n{}",
                dep("g:api", "1.0.0", "1.x.x", false)
            ),
        );
        let found = run(
            &catalog,
            &[
                ("web", "g:web", "1.0.0", "installed"),
                ("api", "g:api", "2.0.0", "installed"),
            ],
        );
        assert_eq!(
            found,
            [
                "api unknown-release - -",
                "web version-too-high g:api 2.0.0"
            ]
        );
    }

    #[test]
    fn managed_entities_are_absent_and_unchecked() {
        let catalog = release(
            "g:web",
            "1.0.0",
            &format!(
                "  product-dependencies:\n{}{}",
                dep("g:api", "1.0.0", "1.x.x", false),
                dep("g:metrics", "1.0.0", "1.x.x", true)
            ),
        );
        let found = run(
            &catalog,
            &[
                ("web", "g:web", "1.0.0", "installed"),
                ("api", "g:api", "1.5.0", "managed"),
                ("metrics", "g:metrics", "9.0.0", "managed"),
                ("ghost", "g:ghost", "1.0.0", "managed"),
            ],
        );
        // api is only managed: missing; metrics is optional and not installed: fine;
        // ghost is unknown but managed: no finding of its own
        assert_eq!(found, ["web missing-dependency g:api -"]);
    }

    #[test]
    fn every_installed_entity_of_a_dependency_must_satisfy() {
        let mut catalog = release(
            "g:web",
            "1.0.0",
            &format!(
                "  product-dependencies:\n{}",
                dep("g:api", "1.2.0", "1.x.x", true)
            ),
        );
        for v in ["1.1.0", "1.3.0", "2.0.0"] {
            catalog.push_str(&release("g:api", v, "  {}\n"));
        }
        catalog.push_str(&release("g:api", "1.3.0-branch", "  {}\n"));
        let found = run(
            &catalog,
            &[
                ("web", "g:web", "1.0.0", "installed"),
                ("api-a", "g:api", "1.1.0", "installed"),
                ("api-b", "g:api", "1.3.0", "installed"),
                ("api-c", "g:api", "2.0.0", "installed"),
                ("api-d", "g:api", "1.3.0-branch", "installed"),
            ],
        );
        assert_eq!(
            found,
            [
                "web version-too-low g:api 1.1.0",
                "web version-too-high g:api 2.0.0",
                "web non-orderable-version g:api 1.3.0-branch",
            ]
        );
    }

    #[test]
    fn incompatibilities_match_other_entities_in_range_only() {
        let catalog = format!(
            "{}{}{}",
            release(
                "g:cache",
                "2.0.0",
                "  product-incompatibilities:\n    - product-group: g\n      \
                 product-name: cache\n      maximum-version: 1.x.x\n    \
                 - product-group: g\n      product-name: legacy\n",
            ),
            release("g:cache", "1.5.0", "  {}\n"),
            release("g:legacy", "0.1.0-branch", "  {}\n"),
        );
        let found = run(
            &catalog,
            &[
                ("new", "g:cache", "2.0.0", "installed"),
                ("old", "g:cache", "1.5.0", "installed"),
                ("legacy", "g:legacy", "0.1.0-branch", "installed"),
            ],
        );
        // the open range matches even a non-orderable version; the declarer never matches itself
        assert_eq!(
            found,
            [
                "new incompatible-release g:cache 1.5.0",
                "new incompatible-release g:legacy 0.1.0-branch",
            ]
        );
    }

    #[test]
    fn fail_level_decides_validity() {
        let catalog = release(
            "g:web",
            "1.0.0",
            "  product-dependencies:\n    - product-group: g\n      product-name: api\n      \
             minimum-version: 1.0.0\n      maximum-version: 1.0.0\n      optional: true\n",
        );
        let manifests = manifest::parse(&catalog, &Arc::from("c.yml")).unwrap();
        let catalog = Catalog::from_manifests(manifests).unwrap();
        let env = environment::parse(
            "entities:\n  - product: g:web\n    version: 1.0.0\n",
            &Arc::from("e.yml"),
            "e",
        )
        .unwrap();
        let result = validate(&env, &catalog);
        assert_eq!(result.count(Severity::Warning), 1);
        assert!(result.passes(Severity::Error));
        assert!(!result.passes(Severity::Warning));
    }

    #[test]
    fn unknown_releases_get_hints_and_unreadable_files_become_findings() {
        let text = release("g:web", "1.0.0", "") + &release("g:web", "2.0.0", "");
        let manifests = manifest::parse(&text, &Arc::from("c.yml")).unwrap();
        let catalog = Catalog::from_manifests(manifests).unwrap();
        let env = "entities:\n  - product: g:web\n    version: 1.5.0\n  - product: g:wbe\n    version: 1.0.0\n";
        let env = environment::parse(env, &Arc::from("e.yml"), "e").unwrap();
        let mut result = validate(&env, &catalog);
        let unreadable = InputError::malformed(&Arc::from("bad.yml"), Location::new(2, 3), "oops");
        result.add_unreadable([&unreadable]);
        result.add_hints(&catalog);
        let messages: Vec<&str> = result.findings().map(|f| f.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "catalog manifest cannot be read: oops; the releases it describes are left out \
                 of the catalog",
                "wbe runs g:wbe 1.0.0, which has no manifest in the catalog; the catalog has no \
                 release of g:wbe at all; did you mean g:web?; a catalog file that could not be \
                 read may describe it",
                "web runs g:web 1.5.0, which has no manifest in the catalog; known versions \
                 nearby: 1.0.0, 2.0.0; a catalog file that could not be read may describe it",
            ]
        );
        let first = result.findings().next().unwrap();
        assert_eq!(first.location.as_ref().unwrap().to_string(), "bad.yml:2:3");
        let wbe = result.findings().nth(1).unwrap();
        assert_eq!(wbe.known_product, Some(false));
        assert_eq!(wbe.similar_products.as_ref().unwrap().len(), 1);
    }
}
