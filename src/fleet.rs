//! Fleets: many environments checked against one catalog in one run (`validate ENV...`,
//! `upgrades ENV...`, `--envs DIR`), and what they say together.
//!
//! Invariants:
//! - each environment's result is exactly what a run on it alone gives: the catalog a fleet
//!   reads holds at least what each environment's own scope reads, and nothing a validation
//!   or an upgrade row looks up depends on what else is in it;
//! - environments are checked in parallel and collected in the order given (the CLI sorts
//!   the files of a directory); summaries sort everything they list.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rayon::prelude::*;

use crate::accept::AllowList;
use crate::catalog::Catalog;
use crate::diagnostic::{FileLocation, InputError, Location};
use crate::environment::Environment;
use crate::finding::Severity;
use crate::plan::{Counter, ProgressSink};
use crate::product::ProductId;
use crate::solve::Engine;
use crate::solve::explain::Reload;
use crate::upgrade::{self, Upgrade};
use crate::validate::{self, Validation};
use crate::version::Version;

/// How many of the releases most often involved in findings a summary lists.
pub const TOP_RELEASES: usize = 10;

/// One environment's validation, with the file it came from.
#[derive(Clone, Debug)]
pub struct Member {
    pub file: Arc<str>,
    pub validation: Validation,
    /// Where each entity's entry starts in the file, by entity name: a fleet's reports locate
    /// an entity's findings there, so they say which environment they are about.
    pub entities: BTreeMap<String, Location>,
}

impl Member {
    /// Where `entity`'s entry is in the environment file.
    #[must_use]
    pub fn entity_location(&self, entity: &str) -> Option<FileLocation> {
        self.entities.get(entity).map(|&location| FileLocation {
            file: Arc::clone(&self.file),
            location,
        })
    }
}

/// A fleet's validations, in the order the environments were given, and their summary.
#[derive(Clone, Debug)]
pub struct FleetValidation {
    pub members: Vec<Member>,
    pub summary: Summary,
}

/// What a fleet's validations say together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// One verdict per environment, in member order.
    pub environments: Vec<Verdict>,
    pub valid: usize,
    /// Findings not accepted, as each environment counts them.
    pub errors: usize,
    pub warnings: usize,
    /// Findings an allow rule accepts (counted in neither `errors` nor `warnings`).
    pub accepted: usize,
    /// The releases most often involved in findings that are not accepted (at most
    /// [`TOP_RELEASES`]): most findings first, then most environments, then by product and
    /// version.
    pub releases: Vec<Involved>,
}

/// One environment's line in a summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub environment: String,
    pub file: Arc<str>,
    pub valid: bool,
    pub errors: usize,
    pub warnings: usize,
}

/// A release and how often findings involve it: as the release that declares the broken
/// constraint (or the unknown one), or as the release found breaking it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Involved {
    pub product: ProductId,
    pub version: String,
    pub findings: usize,
    pub environments: usize,
}

impl FleetValidation {
    /// True when every environment passes.
    #[must_use]
    pub fn passes(&self) -> bool {
        self.summary.valid == self.members.len()
    }
}

/// Validates each environment against `catalog` as `compat validate` does alone (with the
/// `invalid-manifest` findings of the catalog files left out unread, the hints of unknown
/// releases, and the findings `allow` accepts marked), in parallel, and sums up.
#[must_use]
pub fn validate(
    envs: &[Environment],
    catalog: &Catalog,
    unreadable: &[InputError],
    allow: &AllowList,
    fail_on: Severity,
) -> FleetValidation {
    let members: Vec<Member> = envs
        .par_iter()
        .map(|env| {
            let mut validation = validate::validate(env, catalog);
            validation.add_unreadable(unreadable);
            validation.add_hints(catalog);
            allow.apply(validation.findings_mut());
            Member {
                file: Arc::clone(&env.file),
                validation,
                entities: env
                    .entities
                    .iter()
                    .map(|e| (e.name.clone(), e.location))
                    .collect(),
            }
        })
        .collect();
    let summary = summarize(&members, fail_on);
    FleetValidation { members, summary }
}

fn summarize(members: &[Member], fail_on: Severity) -> Summary {
    let environments: Vec<Verdict> = members
        .iter()
        .map(|m| Verdict {
            environment: m.validation.environment.clone(),
            file: Arc::clone(&m.file),
            valid: m.validation.passes(fail_on),
            errors: m.validation.count(Severity::Error),
            warnings: m.validation.count(Severity::Warning),
        })
        .collect();
    // (product, version) -> (findings, the members whose findings involve it)
    let mut counts: BTreeMap<(&ProductId, &str), (usize, BTreeSet<usize>)> = BTreeMap::new();
    for (i, m) in members.iter().enumerate() {
        for f in m.validation.findings().filter(|f| f.accepted.is_none()) {
            let declarer = f.product.as_ref().zip(f.version.as_deref());
            let breaker = f.dependency.as_ref().zip(f.found.as_deref());
            for release in [declarer, breaker].into_iter().flatten() {
                let (findings, envs) = counts.entry(release).or_default();
                *findings += 1;
                envs.insert(i);
            }
        }
    }
    let mut releases: Vec<Involved> = counts
        .into_iter()
        .map(|((product, version), (findings, envs))| Involved {
            product: product.clone(),
            version: version.to_owned(),
            findings,
            environments: envs.len(),
        })
        .collect();
    releases.sort_by(|a, b| {
        (b.findings, b.environments)
            .cmp(&(a.findings, a.environments))
            .then_with(|| a.product.cmp(&b.product))
            .then_with(|| a.version.cmp(&b.version))
    });
    releases.truncate(TOP_RELEASES);
    Summary {
        valid: environments.iter().filter(|v| v.valid).count(),
        errors: environments.iter().map(|v| v.errors).sum(),
        warnings: environments.iter().map(|v| v.warnings).sum(),
        accepted: members.iter().map(|m| m.validation.accepted()).sum(),
        environments,
        releases,
    }
}

/// One environment's upgrade rows, as `compat upgrades` gives them alone.
#[derive(Clone, Debug)]
pub struct MemberUpgrades {
    pub environment: String,
    pub file: Arc<str>,
    pub upgrades: Vec<Upgrade>,
}

/// A fleet's upgrade picture: each environment's rows, where products are behind, and the
/// upgrades that are safe everywhere.
#[derive(Clone, Debug)]
pub struct FleetUpgrades {
    pub members: Vec<MemberUpgrades>,
    /// Every (product, environment) where something newer than what runs is in the catalog,
    /// by product, then in member order.
    pub behind: Vec<Behind>,
    /// Per product, the newest release that can replace it alone in every environment that
    /// runs it and does not run it already, by product.
    pub everywhere: Vec<Everywhere>,
}

/// A product behind in one environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Behind {
    pub product: ProductId,
    pub environment: String,
    pub file: Arc<str>,
    pub installed: String,
    /// The newest candidate safe there alone, if any.
    pub safe: Option<String>,
    pub latest: String,
}

/// An upgrade safe in every environment that runs the product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Everywhere {
    pub product: ProductId,
    pub version: String,
    /// The environments it moves (the others run it already).
    pub moves: usize,
    /// The environments that run the product.
    pub running: usize,
}

impl FleetUpgrades {
    /// True when every row of every environment is proven (no time limit cut a search).
    #[must_use]
    pub fn proven(&self) -> bool {
        self.members
            .iter()
            .all(|m| m.upgrades.iter().all(|u| u.proven))
    }

    /// True when some environment has a safe upgrade.
    #[must_use]
    pub fn any_safe(&self) -> bool {
        self.members
            .iter()
            .any(|m| m.upgrades.iter().any(|u| u.safe.is_some()))
    }
}

/// Per environment: the catalog its upgrades are worked out on when not the fleet's own
/// (`None`: the fleet's), and where its explanations read more of the catalog.
pub type PerEnvironment<'a> = dyn Fn(&Environment) -> (Option<Catalog>, Option<Reload>) + Sync + 'a;

/// The upgrade rows of each environment (as [`upgrade::upgrades_with`], with the engine,
/// deadline and, per environment, the catalog narrowed to it and where explanations read
/// more of the catalog: `scoped`), in parallel, and what they say together; `progress` is
/// told how many environments are done of how many (stage `examining environments`), at the
/// sink's pace.
#[must_use]
pub fn upgrades(
    envs: &[Environment],
    catalog: &Catalog,
    pre: bool,
    engine: &dyn Engine,
    deadline: Option<std::time::Instant>,
    scoped: &PerEnvironment<'_>,
    progress: Option<ProgressSink>,
) -> FleetUpgrades {
    let counter = progress.map(|sink| Counter::new(sink, "examining environments", envs.len()));
    let members: Vec<(MemberUpgrades, SafeAlone)> = envs
        .par_iter()
        .map(|env| {
            let (narrowed, reload) = scoped(env);
            let rows = upgrade::upgrades_with(
                env,
                narrowed.as_ref().unwrap_or(catalog),
                pre,
                engine,
                deadline,
                reload.as_ref(),
            );
            drop(narrowed);
            let member = MemberUpgrades {
                environment: env.name.clone(),
                file: Arc::clone(&env.file),
                upgrades: rows,
            };
            let safe = upgrade::safe_alone(env, catalog, pre);
            counter.as_ref().map(Counter::one_done);
            (member, safe)
        })
        .collect();
    let (members, safe): (Vec<MemberUpgrades>, Vec<_>) = members.into_iter().unzip();
    let mut behind: Vec<Behind> = members
        .iter()
        .flat_map(|m| {
            m.upgrades.iter().filter_map(|u| {
                Some(Behind {
                    product: u.product.clone(),
                    environment: m.environment.clone(),
                    file: Arc::clone(&m.file),
                    installed: u.installed.clone(),
                    safe: u.safe.clone(),
                    latest: u.latest.clone()?,
                })
            })
        })
        .collect();
    behind.sort_by(|a, b| a.product.cmp(&b.product)); // stable: member order within
    let everywhere = everywhere(&members, &safe);
    FleetUpgrades {
        members,
        behind,
        everywhere,
    }
}

/// [`upgrade::safe_alone`] of one environment.
type SafeAlone = Vec<(ProductId, Vec<Version>)>;

/// What one environment runs of a product (its highest entity), and the candidates safe there.
type Running<'a> = (Option<Version>, &'a [Version]);

/// For each product: the newest release that is, in every environment running the product,
/// either what runs there (its highest entity) or a candidate safe there alone, and is a
/// move somewhere.
fn everywhere(members: &[MemberUpgrades], safe: &[SafeAlone]) -> Vec<Everywhere> {
    // product -> per running environment: (installed, safe candidates)
    let mut by_product: BTreeMap<&ProductId, Vec<Running<'_>>> = BTreeMap::new();
    for (m, safe) in members.iter().zip(safe) {
        let safe: BTreeMap<&ProductId, &[Version]> =
            safe.iter().map(|(p, v)| (p, v.as_slice())).collect();
        for u in &m.upgrades {
            let candidates = safe.get(&u.product).copied().unwrap_or_default();
            by_product
                .entry(&u.product)
                .or_default()
                .push((Version::parse(&u.installed).ok(), candidates));
        }
    }
    let mut out = Vec::new();
    for (product, running) in by_product {
        // every safe candidate somewhere, newest first
        let mut versions: Vec<&Version> = running.iter().flat_map(|(_, s)| s.iter()).collect();
        versions.sort_by(|a, b| b.display_cmp(a));
        versions.dedup_by(|a, b| a.as_str() == b.as_str());
        let fits = |v: &Version| {
            running
                .iter()
                .all(|(installed, safe)| installed.as_ref() == Some(v) || safe.contains(v))
        };
        if let Some(version) = versions.into_iter().find(|v| fits(v)) {
            out.push(Everywhere {
                product: product.clone(),
                version: version.to_string(),
                moves: running.iter().filter(|(_, s)| s.contains(version)).count(),
                running: running.len(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;

    use super::*;
    use crate::manifest;

    /// `g:lib` 1.0.0, 1.1.0 and 2.0.0; `g:app` 1.0.0 needs `g:lib` 1.x.
    fn catalog() -> Catalog {
        let mut text = String::new();
        for v in ["1.0.0", "1.1.0", "2.0.0"] {
            let _ = write!(
                text,
                "manifest-version: \"1.0\"\nproduct-group: g\nproduct-name: lib\n\
                 product-version: {v}\n---\n"
            );
        }
        text.push_str(
            "manifest-version: \"1.0\"\nproduct-group: g\nproduct-name: app\n\
             product-version: 1.0.0\nextensions:\n  product-dependencies:\n    \
             - product-group: g\n      product-name: lib\n      minimum-version: 1.0.0\n      \
             maximum-version: 1.x.x\n",
        );
        Catalog::from_manifests(manifest::parse(&text, &Arc::from("c.yml")).unwrap()).unwrap()
    }

    fn env(name: &str, entities: &[(&str, &str)]) -> Environment {
        let mut text = format!("environment: {name}\nentities:\n");
        for (product, version) in entities {
            let _ = writeln!(text, "  - {{product: {product}, version: {version}}}");
        }
        crate::environment::parse(&text, &Arc::from(format!("{name}.yml")), name).unwrap()
    }

    fn fleet() -> Vec<Environment> {
        vec![
            env("a", &[("g:app", "1.0.0"), ("g:lib", "1.0.0")]),
            env("b", &[("g:lib", "1.1.0")]),
            env("c", &[("g:app", "1.0.0"), ("g:lib", "2.0.0")]),
            env(
                "d",
                &[("g:app", "1.0.0"), ("g:lib", "2.0.0"), ("g:gone", "1.0.0")],
            ),
        ]
    }

    #[test]
    fn each_environment_is_judged_as_alone_and_summed_up() {
        let (envs, catalog) = (fleet(), catalog());
        let fleet = validate(&envs, &catalog, &[], &AllowList::default(), Severity::Error);
        for (env, member) in envs.iter().zip(&fleet.members) {
            let mut alone = validate::validate(env, &catalog);
            alone.add_hints(&catalog);
            let alone: Vec<_> = alone.findings().collect();
            assert_eq!(member.validation.findings().collect::<Vec<_>>(), alone);
            assert_eq!(member.file, env.file);
        }
        let s = &fleet.summary;
        let verdicts: Vec<(&str, bool, usize)> = s
            .environments
            .iter()
            .map(|v| (v.environment.as_str(), v.valid, v.errors))
            .collect();
        assert_eq!(
            verdicts,
            [
                ("a", true, 0),
                ("b", true, 0),
                ("c", false, 1),
                ("d", false, 2)
            ]
        );
        assert_eq!((s.valid, s.errors, s.warnings), (2, 3, 0));
        assert!(!fleet.passes());
        let releases: Vec<(String, &str, usize, usize)> = s
            .releases
            .iter()
            .map(|r| {
                (
                    r.product.to_string(),
                    r.version.as_str(),
                    r.findings,
                    r.environments,
                )
            })
            .collect();
        assert_eq!(
            releases,
            [
                ("g:app".to_owned(), "1.0.0", 2, 2),
                ("g:lib".to_owned(), "2.0.0", 2, 2),
                ("g:gone".to_owned(), "1.0.0", 1, 1),
            ]
        );
    }

    #[test]
    fn accepted_findings_are_marked_and_count_toward_no_total() {
        use crate::accept::{Rule, Target};
        let (envs, catalog) = (fleet(), catalog());
        let plain = validate(&envs, &catalog, &[], &AllowList::default(), Severity::Error);
        // c's one error, accepted wherever its code occurs
        let code = plain.members[2].validation.findings().next().unwrap().code;
        let allow = AllowList {
            rules: vec![Rule {
                code,
                target: Target::Any,
                reason: "known".to_owned(),
                origin: None,
            }],
        };
        let fleet = validate(&envs, &catalog, &[], &allow, Severity::Error);
        let marked = fleet
            .members
            .iter()
            .flat_map(|m| m.validation.findings())
            .filter(|f| f.accepted.is_some())
            .count();
        assert!(marked >= 1);
        let s = &fleet.summary;
        assert_eq!(s.accepted, marked);
        assert_eq!(plain.summary.accepted, 0);
        assert_eq!(
            s.errors + s.warnings + marked,
            plain.summary.errors + plain.summary.warnings
        );
        assert!(s.environments[2].valid);
        assert_eq!(s.valid, plain.summary.valid + 1);
        let involved = |s: &Summary| s.releases.iter().map(|r| r.findings).sum::<usize>();
        assert!(involved(s) < involved(&plain.summary));
    }

    #[test]
    fn upgrades_report_each_environment_done() {
        use crate::plan::Progress;
        let (envs, catalog) = (fleet(), catalog());
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = {
            let seen = Arc::clone(&seen);
            ProgressSink::new(move |p: &Progress| seen.lock().unwrap().push((p.done, p.total)))
        };
        let as_read = |_: &Environment| (None, None);
        let engine = crate::solve::default_engine();
        let run = |sink| upgrades(&envs, &catalog, false, engine, None, &as_read, sink);
        let quiet = run(None);
        let told = run(Some(sink.every(std::time::Duration::ZERO)));
        assert_eq!(told.members.len(), quiet.members.len());
        assert_eq!(
            told.everywhere, quiet.everywhere,
            "reporting changes no result"
        );
        let seen = seen.lock().unwrap();
        let done: Vec<usize> = seen.iter().map(|&(done, _)| done).collect();
        assert_eq!(done, (1..=envs.len()).collect::<Vec<_>>());
        assert!(seen.iter().all(|&(_, total)| total == envs.len()));
    }

    #[test]
    fn an_upgrade_is_safe_everywhere_only_where_it_fits_every_environment() {
        let catalog = catalog();
        let as_read = |_: &Environment| (None, None);
        let run = |envs: &[Environment]| {
            upgrades(
                envs,
                &catalog,
                false,
                crate::solve::default_engine(),
                None,
                &as_read,
                None,
            )
        };
        let all = fleet();
        // a: lib 1.1.0 is safe (2.0.0 breaks app); b runs 1.1.0 already: 1.1.0 fits both
        let two = run(&all[..2]);
        let everywhere: Vec<(String, &str, usize, usize)> = two
            .everywhere
            .iter()
            .map(|e| {
                (
                    e.product.to_string(),
                    e.version.as_str(),
                    e.moves,
                    e.running,
                )
            })
            .collect();
        assert_eq!(everywhere, [("g:lib".to_owned(), "1.1.0", 1, 2)]);
        let behind: Vec<(&str, &str, Option<&str>, &str)> = two
            .behind
            .iter()
            .map(|b| {
                (
                    b.environment.as_str(),
                    b.installed.as_str(),
                    b.safe.as_deref(),
                    b.latest.as_str(),
                )
            })
            .collect();
        assert_eq!(
            behind,
            [
                ("a", "1.0.0", Some("1.1.0"), "2.0.0"),
                ("b", "1.1.0", Some("2.0.0"), "2.0.0")
            ]
        );
        for (env, member) in all[..2].iter().zip(&two.members) {
            assert_eq!(member.upgrades, upgrade::upgrades(env, &catalog, false));
        }
        assert!(two.any_safe() && two.proven());
        // c runs 2.0.0: 1.1.0 would be a downgrade there, and 2.0.0 is not safe in a
        assert!(run(&all[..3]).everywhere.is_empty());
    }
}
