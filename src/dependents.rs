//! Who requires a product in an environment, and what bounds its upgrade (`compat why`, the
//! question `cargo tree -i` and `npm explain` answer): every declaration the installed
//! entities' releases make about the product (dependencies, optional or not, and
//! incompatibilities), whether each holds today, and the newest release of the product each
//! admits and all admit together.
//!
//! Rules, as `validate`'s: only installed entities declare (a managed entity is not running);
//! an entity whose release is not in the catalog declares nothing known (listed apart); every
//! declaration is judged by `constraint`, never here. Candidates for "newest" are the
//! product's valid releases in the catalog (release candidates and snapshots only with
//! `pre`), the entities already running included. What this answers is the bound the
//! *current* declarations set; whether the product's own newer releases need other upgrades
//! is `upgrades`' and `plan`'s question.

use std::sync::Arc;

use crate::catalog::Catalog;
use crate::constraint::{self, Verdict};
use crate::diagnostic::FileLocation;
use crate::environment::{Entity, Environment, State};
use crate::manifest::{Dependency, Incompatibility, Manifest};
use crate::product::ProductId;
use crate::range::Range;
use crate::version::Version;

/// The answer for one product.
#[derive(Clone, Debug)]
pub struct Dependents {
    pub environment: String,
    pub product: ProductId,
    /// The product's entities (installed and managed), by name.
    pub entities: Vec<Running>,
    /// Every declaration about the product, by declaring entity, then in manifest order.
    pub declarations: Vec<Declaration>,
    /// Installed entities whose release is not in the catalog: what they declare is unknown.
    pub unknown: Vec<String>,
    /// The newest candidate release in the catalog.
    pub newest: Option<Version>,
    /// The newest candidate every declaration admits.
    pub newest_admitted: Option<Version>,
}

/// An entity of the product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Running {
    pub entity: String,
    pub version: Version,
    pub state: State,
}

/// What a declaration says of the product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Requires,
    OptionallyRequires,
    IncompatibleWith,
}

impl Kind {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Requires => "requires",
            Kind::OptionallyRequires => "optionally requires",
            Kind::IncompatibleWith => "is incompatible with",
        }
    }
}

/// What an entity's release declares about the product.
#[derive(Clone, Debug)]
pub enum Declared {
    Dependency(Dependency),
    Incompatibility(Incompatibility),
}

/// One declaration of an installed entity's release about the product.
#[derive(Clone, Debug)]
pub struct Declaration {
    pub entity: String,
    /// The declaring release.
    pub release: Arc<Manifest>,
    pub declared: Declared,
    /// The installed entities of the product it does not hold for, with why (for a required
    /// dependency with nothing installed: one entry with no entity, `Missing`).
    pub breaks: Vec<(Option<String>, Verdict)>,
    /// The newest candidate it admits.
    pub newest_admitted: Option<Version>,
    /// It does not admit the newest candidate: it holds the product back.
    pub caps: bool,
}

impl Declaration {
    #[must_use]
    pub fn kind(&self) -> Kind {
        match &self.declared {
            Declared::Dependency(d) if d.optional => Kind::OptionallyRequires,
            Declared::Dependency(_) => Kind::Requires,
            Declared::Incompatibility(_) => Kind::IncompatibleWith,
        }
    }

    #[must_use]
    pub fn range(&self) -> &Range {
        match &self.declared {
            Declared::Dependency(d) => &d.range,
            Declared::Incompatibility(c) => &c.range,
        }
    }

    /// Where it is declared.
    #[must_use]
    pub fn location(&self) -> FileLocation {
        FileLocation {
            file: Arc::clone(&self.release.file),
            location: match &self.declared {
                Declared::Dependency(d) => d.location,
                Declared::Incompatibility(c) => c.location,
            },
        }
    }

    /// True when it holds for everything installed today.
    #[must_use]
    pub fn holds(&self) -> bool {
        self.breaks.is_empty()
    }

    /// The evaluator's verdict with the product at `version`.
    #[must_use]
    pub fn verdict(&self, version: &Version) -> Verdict {
        match &self.declared {
            Declared::Dependency(d) => constraint::dependency_on(d, version),
            Declared::Incompatibility(c) => constraint::incompatibility_on(c, version),
        }
    }

    /// True when it holds with the product at `version`.
    #[must_use]
    pub fn admits(&self, version: &Version) -> bool {
        self.verdict(version) == Verdict::Holds
    }

    /// What it does not hold for among the product's installed entities (`present`): each
    /// one it rejects (an incompatibility never matches its declarer), or, for a required
    /// dependency with nothing installed, `Missing`.
    fn breaks_today(&self, present: &[&Entity]) -> Vec<(Option<String>, Verdict)> {
        let mut breaks: Vec<(Option<String>, Verdict)> = present
            .iter()
            .filter(|other| {
                matches!(self.declared, Declared::Dependency(_)) || other.name != self.entity
            })
            .map(|other| (Some(other.name.clone()), self.verdict(&other.version)))
            .filter(|(_, v)| *v != Verdict::Holds)
            .collect();
        if let Declared::Dependency(d) = &self.declared
            && present.is_empty()
            && constraint::dependency_absent(d) != Verdict::Holds
        {
            breaks.push((None, constraint::dependency_absent(d)));
        }
        breaks
    }
}

/// Who declares what about `product` in `env`, judged against `catalog`.
#[must_use]
pub fn dependents(
    env: &Environment,
    catalog: &Catalog,
    product: &ProductId,
    pre: bool,
) -> Dependents {
    let installed = env.installed_by_product();
    let present: &[&Entity] = installed.get(product).map_or(&[], Vec::as_slice);
    let candidates: Vec<&Version> = catalog
        .releases(product)
        .iter()
        .filter(|m| m.is_valid() && (m.version.is_release() || (pre && m.version.is_orderable())))
        .map(|m| &m.version)
        .collect();
    // releases are in version order: the last candidate is the newest
    let newest = candidates.last().map(|v| (*v).clone());
    let mut declarations = Vec::new();
    let mut unknown = Vec::new();
    for entity in env.entities.iter().filter(|e| e.is_installed()) {
        let Some(release) = catalog.release(&entity.product, &entity.version) else {
            unknown.push(entity.name.clone());
            continue;
        };
        let declared = (release.dependencies.iter())
            .filter(|d| &d.product == product)
            .map(|d| Declared::Dependency(d.clone()))
            .chain(
                (release.incompatibilities.iter())
                    .filter(|c| &c.product == product)
                    .map(|c| Declared::Incompatibility(c.clone())),
            );
        for declared in declared {
            let mut d = Declaration {
                entity: entity.name.clone(),
                release: Arc::clone(release),
                declared,
                breaks: Vec::new(),
                newest_admitted: None,
                caps: false,
            };
            d.breaks = d.breaks_today(present);
            declarations.push(d);
        }
    }
    for d in &mut declarations {
        d.newest_admitted = candidates
            .iter()
            .rev()
            .find(|v| d.admits(v))
            .map(|v| (*v).clone());
        d.caps = newest.as_ref().is_some_and(|n| !d.admits(n));
    }
    let newest_admitted = candidates
        .iter()
        .rev()
        .find(|v| declarations.iter().all(|d| d.admits(v)))
        .map(|v| (*v).clone());
    let entities = env
        .entities
        .iter()
        .filter(|e| &e.product == product)
        .map(|e| Running {
            entity: e.name.clone(),
            version: e.version.clone(),
            state: e.state,
        })
        .collect();
    Dependents {
        environment: env.name.clone(),
        product: product.clone(),
        entities,
        declarations,
        unknown,
        newest,
        newest_admitted,
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;

    use super::*;
    use crate::{environment, manifest};

    fn release(product: &str, version: &str, extensions: &str) -> String {
        let (group, name) = product.split_once(':').unwrap();
        format!(
            "manifest-version: '1.0'\nproduct-group: {group}\nproduct-name: {name}\n\
             product-version: {version}\nextensions:\n{extensions}---\n"
        )
    }

    fn dep(min: &str, max: &str, optional: bool) -> String {
        format!(
            "  product-dependencies:\n    - product-group: g\n      product-name: api\n      \
             minimum-version: {min}\n      maximum-version: {max}\n      optional: {optional}\n"
        )
    }

    /// Each declaration as `entity kind range holds admits caps`, then `newest admitted`.
    fn ask(pre: bool, old: &str, api: &[(&str, &str)]) -> (Vec<String>, String) {
        let mut text = String::new();
        for v in ["1.0.0", "1.1.0", "2.0.0", "2.1.0-rc1"] {
            text.push_str(&release("g:api", v, "  {}\n"));
        }
        text.push_str(&release("g:web", "1.0.0", &dep("1.0.0", "1.x.x", false)));
        text.push_str(&release("g:cli", "1.0.0", &dep("1.1.0", "2.x.x", true)));
        text.push_str(&release(
            "g:old",
            "1.0.0",
            "  product-incompatibilities:\n    - product-group: g\n      product-name: api\n      \
             minimum-version: 2.1.0-rc1\n",
        ));
        let catalog =
            Catalog::from_manifests(manifest::parse(&text, &Arc::from("c.yml")).unwrap()).unwrap();
        let mut env = String::from(
            "entities:\n  - product: g:web\n    version: 1.0.0\n  - product: g:cli\n    \
             version: 1.0.0\n  - product: g:gone\n    version: 1.0.0\n",
        );
        let _ = write!(
            env,
            "  - product: g:old\n    version: 1.0.0\n    state: {old}\n"
        );
        for (name, version) in api {
            let _ = write!(
                env,
                "  - name: {name}\n    product: g:api\n    version: {version}\n"
            );
        }
        let env = environment::parse(&env, &Arc::from("e.yml"), "e").unwrap();
        let product = ProductId::parse("g:api").unwrap();
        let answer = dependents(&env, &catalog, &product, pre);
        assert_eq!(answer.unknown, ["gone"]);
        let rows = answer
            .declarations
            .iter()
            .map(|d| {
                let breaks: Vec<String> = d
                    .breaks
                    .iter()
                    .map(|(e, v)| format!("{}:{v:?}", e.as_deref().unwrap_or("-")))
                    .collect();
                format!(
                    "{} {} {} [{}] {} {}",
                    d.entity,
                    d.kind().as_str(),
                    d.range(),
                    breaks.join(","),
                    d.newest_admitted
                        .as_ref()
                        .map_or("-".into(), ToString::to_string),
                    d.caps
                )
            })
            .collect();
        let summary = format!(
            "{} {}",
            answer
                .newest
                .as_ref()
                .map_or("-".into(), ToString::to_string),
            answer
                .newest_admitted
                .as_ref()
                .map_or("-".into(), ToString::to_string)
        );
        (rows, summary)
    }

    #[test]
    fn declarations_of_installed_entities_are_judged_and_bound_the_upgrade() {
        let (rows, summary) = ask(false, "managed", &[("api-1", "1.0.0"), ("api-2", "1.1.0")]);
        // old is managed: its incompatibility does not count
        assert_eq!(
            rows,
            [
                "cli optionally requires >=1.1.0, <=2.x.x [api-1:TooLow] 2.0.0 false",
                "web requires >=1.0.0, <=1.x.x [] 1.1.0 true",
            ]
        );
        assert_eq!(summary, "2.0.0 1.1.0");
    }

    #[test]
    fn nothing_installed_breaks_only_required_dependencies_and_pre_widens_candidates() {
        let (rows, summary) = ask(true, "managed", &[]);
        assert_eq!(
            rows,
            [
                "cli optionally requires >=1.1.0, <=2.x.x [] 2.1.0-rc1 false",
                "web requires >=1.0.0, <=1.x.x [-:Missing] 1.1.0 true",
            ]
        );
        assert_eq!(summary, "2.1.0-rc1 1.1.0");
    }

    #[test]
    fn an_installed_incompatibility_caps_too() {
        let (rows, summary) = ask(true, "installed", &[("api", "2.1.0-rc1")]);
        assert_eq!(
            rows,
            [
                "cli optionally requires >=1.1.0, <=2.x.x [] 2.1.0-rc1 false",
                "old is incompatible with >=2.1.0-rc1 [api:Incompatible] 2.0.0 true",
                "web requires >=1.0.0, <=1.x.x [api:TooHigh] 1.1.0 true",
            ]
        );
        assert_eq!(summary, "2.1.0-rc1 1.1.0");
    }
}
