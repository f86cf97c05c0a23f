//! What changed between two environment files (`compat diff OLD NEW`): entities added,
//! removed and moved (a version or a state changed), each judged safe or not against NEW,
//! Renovate-style.
//!
//! Entities are matched by name (one that changes product is removed and added). Both
//! environments are validated (`validate`, so every declaration is judged by `constraint`);
//! a finding of NEW is *caused* by the changes when OLD has no finding of the same code about
//! the same entities and dependency (`Key`: versions left out, so a finding that merely
//! persists through a move is not new), and a finding of OLD that NEW no longer has is *fixed*.
//! Each caused or fixed finding is attributed to every change it involves: the entity that
//! declares it, the entity it found, or, for `missing-dependency`, an entity of the product
//! it misses. A change is unsafe when it causes a finding at or above the failure level that
//! no allow rule accepts (module `accept`); new findings that involve no change (none can,
//! over one catalog) are kept apart rather than dropped.

use std::collections::BTreeSet;

use crate::accept::AllowList;
use crate::catalog::Catalog;
use crate::environment::{Entity, Environment, State};
use crate::finding::{Code, Finding, Severity};
use crate::product::ProductId;
use crate::validate;
use crate::version::Version;

/// What happened to one entity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Added,
    Removed,
    Upgrade,
    Downgrade,
    /// A version change with no order between the two (a non-orderable version).
    Changed,
    /// The same version, another state (installed or managed).
    State,
}

impl Kind {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Added => "added",
            Kind::Removed => "removed",
            Kind::Upgrade => "upgrade",
            Kind::Downgrade => "downgrade",
            Kind::Changed => "changed",
            Kind::State => "state",
        }
    }
}

/// One entity's version and state on one side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    pub version: Version,
    pub state: State,
}

/// One changed entity, judged.
#[derive(Clone, Debug)]
pub struct Change {
    pub entity: String,
    pub product: ProductId,
    pub kind: Kind,
    pub from: Option<Side>,
    pub to: Option<Side>,
    /// NEW's findings this change is involved in that OLD did not have.
    pub causes: Vec<Finding>,
    /// OLD's findings this change is involved in that NEW no longer has.
    pub fixes: Vec<Finding>,
    /// No caused finding at or above the failure level that is not accepted.
    pub safe: bool,
}

/// The changes between two environments.
#[derive(Clone, Debug)]
pub struct Diff {
    /// OLD's environment name, or its file when both have the same name.
    pub old: String,
    /// NEW's, likewise.
    pub new: String,
    /// By entity name.
    pub changes: Vec<Change>,
    /// New findings that involve no change.
    pub other: Vec<Finding>,
    pub fail_on: Severity,
}

impl Diff {
    /// True when every change is safe (and nothing else got worse).
    #[must_use]
    pub fn safe(&self) -> bool {
        self.changes.iter().all(|c| c.safe) && !self.other.iter().any(|f| fails(f, self.fail_on))
    }
}

fn fails(f: &Finding, fail_on: Severity) -> bool {
    f.severity >= fail_on && f.accepted.is_none()
}

/// What makes two findings the same across the two sides: versions left out.
type Key = (Code, Option<String>, Option<ProductId>, Option<String>);

fn key(f: &Finding) -> Key {
    (
        f.code,
        f.entity.clone(),
        f.dependency.clone(),
        f.found_entity.clone(),
    )
}

/// True when `f` is about the entity `c` changed.
fn involves(c: &Change, f: &Finding) -> bool {
    f.entity.as_deref() == Some(c.entity.as_str())
        || f.found_entity.as_deref() == Some(c.entity.as_str())
        || (f.code == Code::MissingDependency && f.dependency.as_ref() == Some(&c.product))
}

/// The changes from `old` to `new`, each read against its own catalog (`old_catalog` needs
/// OLD's installed releases, `new_catalog` NEW's), judged with `allow` and `fail_on`.
#[must_use]
pub fn diff(
    old: &Environment,
    old_catalog: &Catalog,
    new: &Environment,
    new_catalog: &Catalog,
    allow: &AllowList,
    fail_on: Severity,
) -> Diff {
    let mut before = validate::validate(old, old_catalog);
    let mut after = validate::validate(new, new_catalog);
    allow.apply(before.findings_mut());
    allow.apply(after.findings_mut());
    let keys_before: BTreeSet<Key> = before.findings().map(key).collect();
    let keys_after: BTreeSet<Key> = after.findings().map(key).collect();
    let caused: Vec<&Finding> = after
        .findings()
        .filter(|f| !keys_before.contains(&key(f)))
        .collect();
    let fixed: Vec<&Finding> = before
        .findings()
        .filter(|f| !keys_after.contains(&key(f)))
        .collect();
    let mut changes = entity_changes(old, new);
    for c in &mut changes {
        c.causes = caused
            .iter()
            .filter(|f| involves(c, f))
            .map(|f| (*f).clone())
            .collect();
        c.fixes = fixed
            .iter()
            .filter(|f| involves(c, f))
            .map(|f| (*f).clone())
            .collect();
        c.safe = !c.causes.iter().any(|f| fails(f, fail_on));
    }
    let other = caused
        .into_iter()
        .filter(|f| !changes.iter().any(|c| involves(c, f)))
        .cloned()
        .collect();
    // two versions of one environment often share its name: then the files tell them apart
    let (old_label, new_label) = if old.name == new.name {
        (old.file.to_string(), new.file.to_string())
    } else {
        (old.name.clone(), new.name.clone())
    };
    Diff {
        old: old_label,
        new: new_label,
        changes,
        other,
        fail_on,
    }
}

/// The entities added, removed and moved, by name, not yet judged.
fn entity_changes(old: &Environment, new: &Environment) -> Vec<Change> {
    let side = |e: &Entity| Side {
        version: e.version.clone(),
        state: e.state,
    };
    let change = |e: &Entity, kind: Kind, from: Option<Side>, to: Option<Side>| Change {
        entity: e.name.clone(),
        product: e.product.clone(),
        kind,
        from,
        to,
        causes: Vec::new(),
        fixes: Vec::new(),
        safe: true,
    };
    let mut changes = Vec::new();
    for e in &old.entities {
        match new.entities.iter().find(|n| n.name == e.name) {
            Some(n) if n.product == e.product => {
                let kind = match e.version.partial_cmp(&n.version) {
                    Some(std::cmp::Ordering::Less) => Kind::Upgrade,
                    Some(std::cmp::Ordering::Greater) => Kind::Downgrade,
                    Some(std::cmp::Ordering::Equal) if e.state == n.state => continue,
                    Some(std::cmp::Ordering::Equal) => Kind::State,
                    None if e.version == n.version && e.state == n.state => continue,
                    None if e.version == n.version => Kind::State,
                    None => Kind::Changed,
                };
                changes.push(change(e, kind, Some(side(e)), Some(side(n))));
            }
            // gone, or the name now runs another product: removed (and added below)
            _ => changes.push(change(e, Kind::Removed, Some(side(e)), None)),
        }
    }
    for n in &new.entities {
        let kept = old
            .entities
            .iter()
            .any(|e| e.name == n.name && e.product == n.product);
        if !kept {
            changes.push(change(n, Kind::Added, None, Some(side(n))));
        }
    }
    // by name; a name that changed product: its removal first
    changes.sort_by(|a, b| {
        (&a.entity, a.kind != Kind::Removed).cmp(&(&b.entity, b.kind != Kind::Removed))
    });
    changes
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{environment, manifest};

    fn catalog() -> Catalog {
        let release = |product: &str, version: &str, extensions: &str| {
            let (group, name) = product.split_once(':').unwrap();
            format!(
                "manifest-version: '1.0'\nproduct-group: {group}\nproduct-name: {name}\n\
                 product-version: {version}\nextensions:\n{extensions}---\n"
            )
        };
        let needs_db = "  product-dependencies:\n    - product-group: g\n      product-name: db\n      \
                        minimum-version: 1.0.0\n      maximum-version: 1.x.x\n";
        let text = [
            release("g:db", "1.0.0", "  {}\n"),
            release("g:db", "2.0.0", "  {}\n"),
            release("g:db", "1.0.0-hotfix", "  {}\n"),
            release("g:app", "1.0.0", needs_db),
            release("g:app", "1.1.0", needs_db),
        ]
        .concat();
        Catalog::from_manifests(manifest::parse(&text, &Arc::from("c.yml")).unwrap()).unwrap()
    }

    fn env(name: &str, entities: &str) -> Environment {
        let text = format!("environment: {name}\nentities:\n{entities}");
        environment::parse(&text, &Arc::from(format!("{name}.yml")), name).unwrap()
    }

    /// Each change as `entity kind safe causes fixes` (finding codes).
    #[track_caller]
    fn check(old: &str, new: &str, allow: &AllowList, expected: &[&str]) {
        let catalog = catalog();
        let d = diff(
            &env("old", old),
            &catalog,
            &env("new", new),
            &catalog,
            allow,
            Severity::Error,
        );
        let codes = |fs: &[Finding]| {
            fs.iter()
                .map(|f| f.code.as_str())
                .collect::<Vec<_>>()
                .join(",")
        };
        let got: Vec<String> = d
            .changes
            .iter()
            .map(|c| {
                format!(
                    "{} {} {} [{}] [{}]",
                    c.entity,
                    c.kind.as_str(),
                    if c.safe { "safe" } else { "unsafe" },
                    codes(&c.causes),
                    codes(&c.fixes)
                )
            })
            .collect();
        assert_eq!(got, expected);
        assert_eq!(d.safe(), expected.iter().all(|c| !c.contains("unsafe")));
        assert!(d.other.is_empty());
    }

    const APP: &str = "  - product: g:app\n    version: 1.0.0\n";

    #[test]
    fn moves_are_named_by_kind_and_judged_by_what_they_cause() {
        let db = |v: &str, state: &str| {
            format!("  - product: g:db\n    version: {v}\n    state: {state}\n")
        };
        let old = format!("{APP}{}", db("1.0.0", "installed"));
        // nothing changed: nothing to report
        check(&old, &old, &AllowList::default(), &[]);
        check(
            &old,
            &format!("{APP}{}", db("2.0.0", "installed")),
            &AllowList::default(),
            &["db upgrade unsafe [version-too-high] []"],
        );
        check(
            &format!("{APP}{}", db("2.0.0", "installed")),
            &old,
            &AllowList::default(),
            &["db downgrade safe [] [version-too-high]"],
        );
        check(
            &old,
            &format!("{APP}{}", db("1.0.0-hotfix", "installed")),
            &AllowList::default(),
            &["db changed unsafe [non-orderable-version] []"],
        );
        check(
            &old,
            &format!("{APP}{}", db("1.0.0", "managed")),
            &AllowList::default(),
            &["db state unsafe [missing-dependency] []"],
        );
        check(
            &old,
            APP,
            &AllowList::default(),
            &["db removed unsafe [missing-dependency] []"],
        );
        check(
            APP,
            &old,
            &AllowList::default(),
            &["db added safe [] [missing-dependency]"],
        );
        // a finding that persists through a move is not caused by it
        check(
            &format!("{APP}{}", db("2.0.0", "installed")),
            &format!(
                "  - product: g:app\n    version: 1.1.0\n{}",
                db("2.0.0", "installed")
            ),
            &AllowList::default(),
            &["app upgrade safe [] []"],
        );
    }

    #[test]
    fn accepted_findings_do_not_make_a_move_unsafe() {
        let allow = AllowList {
            rules: vec![crate::accept::Rule::from_flag("version-too-high=g:app").unwrap()],
        };
        check(
            &format!("{APP}  - product: g:db\n    version: 1.0.0\n"),
            &format!("{APP}  - product: g:db\n    version: 2.0.0\n"),
            &allow,
            &["db upgrade safe [version-too-high] []"],
        );
    }
}
