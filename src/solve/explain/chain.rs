//! A proven conflict as a chain of sentences: what was asked first, then the declarations in
//! the order a derivation reads, alike declarations merged over version spans, and the
//! missing steps ("no release in range", "can run only") where they belong.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use super::{Explanation, Kind, Link};
use crate::constraint::{span_text, term_text};
use crate::diagnostic::FileLocation;
use crate::manifest::Atom;
use crate::product::ProductId;
use crate::range::Placement;
use crate::solve::conflict::{Cause, Conflict, Declaration, declared};
use crate::solve::cycles::{Nogood, Refusal};
use crate::solve::model::{Exclusion, Model, Value};

/// The chain of sentences for `conflict` (no fixes yet).
#[must_use]
pub fn chain(model: &Model<'_>, conflict: &Conflict) -> Explanation {
    Explanation {
        chain: walk(model, parts(model, conflict)),
        fixes: Vec::new(),
        minimal: conflict.minimal,
        beyond: None,
    }
}

/// Declarations alike across releases of one product: declarer, kind, product it is about,
/// range, optional.
type Key = (usize, Kind, ProductId, String, bool);

/// A conflict's parts, sorted for the walk.
#[derive(Default)]
struct Parts {
    /// Declarations, merged across releases.
    groups: BTreeMap<Key, Group>,
    /// Products asked for or held: where the walk starts.
    starts: BTreeSet<usize>,
    /// Links about one product alone (asked, held, excluded).
    own: BTreeMap<usize, Vec<Link>>,
    /// Products that may not be installed.
    missing: BTreeMap<ProductId, Link>,
    /// Products the policy pins (a part of the conflict).
    pinned: BTreeSet<usize>,
    /// Learnt nogoods (data cycles, inputs from capabilities left unfed).
    learnt: Vec<Nogood>,
    /// The policy rules the conflict was found with lifted ([`Conflict::lifted`]).
    lifted: Vec<Exclusion>,
}

fn parts(model: &Model<'_>, conflict: &Conflict) -> Parts {
    let mut parts = Parts {
        pinned: conflict
            .causes
            .iter()
            .filter_map(|c| match c {
                Cause::Excluded {
                    product,
                    rule: Exclusion::Pinned,
                } => Some(*product),
                _ => None,
            })
            .collect(),
        lifted: conflict.lifted.clone(),
        ..Parts::default()
    };
    for cause in &conflict.causes {
        match cause {
            Cause::Asked { product, values } => {
                parts.starts.insert(*product);
                parts
                    .own
                    .entry(*product)
                    .or_default()
                    .push(asked_link(model, *product, values));
            }
            Cause::Held { product, value } => {
                parts.starts.insert(*product);
                parts
                    .own
                    .entry(*product)
                    .or_default()
                    .push(held_link(model, *product, *value));
            }
            Cause::Excluded { product, rule } => {
                parts
                    .own
                    .entry(*product)
                    .or_default()
                    .push(excluded_link(model, *product, *rule));
            }
            Cause::Missing { product } => {
                parts.missing.insert(product.clone(), missing_link(product));
            }
            Cause::Learnt(nogood) => parts.learnt.push(nogood.clone()),
            Cause::Declares {
                product,
                release,
                declaration,
            } => declares_part(model, &mut parts, *product, *release, *declaration),
        }
    }
    parts
}

/// A declaration of the conflict, merged into the group of declarations alike.
fn declares_part(
    model: &Model<'_>,
    parts: &mut Parts,
    product: usize,
    release: usize,
    declaration: Declaration,
) {
    let (m, on) = declared(model, product, release, declaration);
    let on = on.unwrap_or(&model.vars[product].product);
    let (kind, range, optional, location, unmet) = match declaration {
        Declaration::Dependency(i) => {
            let d = &m.dependencies[i];
            // no release of the dependency at all lies in the range
            let unmet = model.index.get(on).is_some_and(|&q| {
                !model.vars[q]
                    .releases
                    .iter()
                    .any(|r| d.range.place(&r.version) == Placement::Inside)
            });
            let range = d.range.to_string();
            (Kind::Needs, range, d.optional, d.location, unmet)
        }
        Declaration::Incompatibility(i) => {
            let c = &m.incompatibilities[i];
            (Kind::Refuses, c.range.to_string(), false, c.location, false)
        }
        Declaration::Requirement(i) => {
            let r = &m.facets().requires[i];
            let served = model
                .facets()
                .map(|index| index.serving_words(product, release, i))
                .unwrap_or_default();
            let words = format!("capability {}{}{served}", r.name, span_text(&r.range));
            (Kind::Constrains, words, r.optional, r.location, false)
        }
        Declaration::Constraint(i) => {
            let t = &m.facets().constraints[i];
            let quoted = t
                .description
                .as_ref()
                .map(|d| format!(" `{d}`"))
                .unwrap_or_default();
            let words = format!("constraint{quoted}: {}", term_text(t));
            (Kind::Constrains, words, false, t.location, false)
        }
        Declaration::Input(i) => {
            let input = &m.facets().inputs[i];
            let words = match &input.output {
                Some(output) => format!("output `{output}` (input {})", input.name),
                None => format!("readiness (input {})", input.name),
            };
            // no release of the source declares the output
            let unmet = input.output.as_ref().is_some_and(|output| {
                model.index.get(on).is_some_and(|&q| {
                    !model.vars[q]
                        .releases
                        .iter()
                        .any(|r| r.facets().outputs.contains(output))
                })
            });
            (Kind::Reads, words, input.optional, input.location, unmet)
        }
    };
    let entry = parts
        .groups
        .entry((product, kind, on.clone(), range, optional))
        .or_default();
    entry.releases.insert(release);
    entry.unmet = unmet;
    entry.capabilities = needed_capabilities(m, declaration);
    entry.products = named_products(m, declaration);
    entry.rules = has_rule(m, declaration);
    entry.location.get_or_insert_with(|| FileLocation {
        file: Arc::clone(&m.file),
        location,
    });
}

/// The links in derivation order: breadth first from what was asked along the declarations,
/// each product's own links, then its declarations, each followed by what it leads to (a
/// product that may not be installed, no release in range); parts no walk reaches (a
/// conflict among held products) follow in product order.
fn walk(model: &Model<'_>, mut parts: Parts) -> Vec<Link> {
    let mut queue: VecDeque<usize> = parts.starts.iter().copied().collect();
    let mut seen: BTreeSet<usize> = parts.starts.clone();
    let mut chain: Vec<Link> = Vec::new();
    let mut said: BTreeSet<(ProductId, String)> = BTreeSet::new();
    let mut rest: BTreeSet<usize> = parts.groups.keys().map(|k| k.0).collect();
    rest.extend(parts.own.keys().copied());
    let mut rest = rest.into_iter();
    while let Some(p) = queue
        .pop_front()
        .or_else(|| rest.find(|p| !seen.contains(p)))
    {
        seen.insert(p);
        chain.extend(parts.own.remove(&p).unwrap_or_default());
        // a learnt nogood naming p, said where the walk first reaches one of its products,
        // the walk going on from the others
        let (here, later): (Vec<_>, Vec<_>) = std::mem::take(&mut parts.learnt)
            .into_iter()
            .partition(|n| n.values.iter().any(|&(q, _)| q == p));
        parts.learnt = later;
        for nogood in here {
            chain.push(learnt_link(model, p, &nogood));
            for (q, _) in nogood.values {
                if seen.insert(q) {
                    queue.push_back(q);
                }
            }
        }
        let mine: Vec<(Key, Group)> = parts
            .groups
            .iter()
            .filter(|(k, _)| k.0 == p)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if mine.len() > 1 && !parts.starts.contains(&p) {
            // several releases each rule something out: say which ones there are to choose
            chain.push(choices_link(model, p, &parts.lifted));
        }
        for (key, group) in mine {
            chain.push(declaration_link(model, &key, &group));
            for name in &group.capabilities {
                let providers = provider_links(model, p, name, &mut parts);
                for q in providers.walked {
                    if seen.insert(q) {
                        queue.push_back(q);
                    }
                }
                if let Some((words, provider)) = providers.merged
                    && let Some(last) = chain.last_mut()
                {
                    last.text.push_str(&words);
                    last.dependency = Some(provider);
                }
                chain.extend(providers.links);
            }
            let (_, _, on, range, _) = key;
            if let Some(link) = parts.missing.remove(&on) {
                chain.push(link);
            }
            if let Some(&q) = model.index.get(&on) {
                // a product with no release at all is said once; else once per range
                let said_as = if model.vars[q].releases.is_empty() {
                    String::new()
                } else {
                    range.clone()
                };
                if group.unmet && said.insert((on.clone(), said_as)) {
                    chain.push(no_release_link(model, q, &range));
                }
                if seen.insert(q) {
                    queue.push_back(q);
                }
            }
        }
    }
    chain.extend(parts.missing.into_values());
    chain.extend(
        parts
            .learnt
            .into_iter()
            .map(|nogood| learnt_link(model, nogood.values[0].0, &nogood)),
    );
    chain
}

/// Releases of one product that declare the same thing.
#[derive(Clone, Default)]
struct Group {
    releases: BTreeSet<usize>,
    location: Option<FileLocation>,
    /// No release of the product it is about satisfies it.
    unmet: bool,
    /// The capabilities it needs a provider of (a section 9 item).
    capabilities: Vec<String>,
    /// The products its product atoms name (a `constraints` item).
    products: Vec<ProductId>,
    /// It has a rule atom (a `constraints` item).
    rules: bool,
}

/// The capabilities a section 9 item needs a provider of: a requirement's, and those a
/// `constraints` item's capability atoms name.
fn needed_capabilities(m: &crate::manifest::Manifest, declaration: Declaration) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    match declaration {
        Declaration::Requirement(i) => out.push(m.facets().requires[i].name.clone()),
        Declaration::Constraint(i) => {
            for atom in m.facets().constraints[i].atoms() {
                if let Atom::Capability { name, .. } = atom
                    && !out.contains(name)
                {
                    out.push(name.clone());
                }
            }
        }
        _ => {}
    }
    out
}

/// The products a `constraints` item's product atoms name.
fn named_products(m: &crate::manifest::Manifest, declaration: Declaration) -> Vec<ProductId> {
    let mut out: Vec<ProductId> = Vec::new();
    if let Declaration::Constraint(i) = declaration {
        for atom in m.facets().constraints[i].atoms() {
            if let Atom::Product { product, .. } = atom
                && !out.contains(product)
            {
                out.push(product.clone());
            }
        }
    }
    out
}

/// Whether a `constraints` item has a rule atom.
fn has_rule(m: &crate::manifest::Manifest, declaration: Declaration) -> bool {
    match declaration {
        Declaration::Constraint(i) => m.facets().constraints[i]
            .atoms()
            .iter()
            .any(|atom| matches!(atom, Atom::Rule(_))),
        _ => false,
    }
}

/// What follows a section 9 item about the providers of one of its capabilities.
struct Providers {
    /// Words that finish the item's sentence (`; the only provider, P, is pinned at V by
    /// policy`), when its one provider is held by a pin and nothing else; and P.
    merged: Option<(String, ProductId)>,
    /// The providers' own links (pinned, excluded, ...), then the catalog's providers that
    /// may not be installed.
    links: Vec<Link>,
    /// The providers whose links were said here, for the walk to go on from.
    walked: Vec<usize>,
}

/// The parts of the conflict about the providers of capability `name` that `p` needs,
/// taken out of `parts`: the providers among the model's products (other than `p`) with
/// their own links, and the catalog's providers that may not be installed.
fn provider_links(model: &Model<'_>, p: usize, name: &str, parts: &mut Parts) -> Providers {
    // a capability the chain names is some item's, so the model has its index of providers
    let inside: Vec<usize> = model
        .facets()
        .map_or(&[][..], |index| index.providers_of(name))
        .iter()
        .copied()
        .filter(|&q| q != p)
        .collect();
    let open = crate::range::Range {
        minimum: None,
        maximum: None,
    };
    let outside: Vec<ProductId> = model
        .outside_providers(name, &open)
        .into_iter()
        .filter(|q| parts.missing.contains_key(q))
        .collect();
    let mut out = Providers {
        merged: None,
        links: Vec::new(),
        walked: Vec::new(),
    };
    if let [q] = inside[..]
        && parts.pinned.contains(&q)
        && parts.own.get(&q).is_some_and(|own| own.len() == 1)
    {
        parts.own.remove(&q);
        let var = &model.vars[q];
        let at = var
            .installed_version()
            .map_or_else(String::new, |v| format!(" at {v}"));
        let only = if outside.is_empty() {
            "the only provider"
        } else {
            "the only installed provider"
        };
        out.merged = Some((
            format!("; {only}, {}, is pinned{at} by policy", var.product),
            var.product.clone(),
        ));
        out.walked.push(q);
    } else {
        for q in inside {
            if let Some(own) = parts.own.remove(&q) {
                out.links.extend(own);
                out.walked.push(q);
            }
        }
    }
    for q in outside {
        parts.missing.remove(&q);
        let mut link = missing_link(&q);
        link.text = format!(
            "{q} provides capability {name} but is not installed, and installing it needs \
             --allow-install"
        );
        out.links.push(link);
    }
    out
}

/// Release indices of `p` as version spans, consecutive ones merged; and whether they are all
/// of its releases.
fn spans(model: &Model<'_>, p: usize, releases: &BTreeSet<usize>) -> (Vec<String>, bool) {
    let var = &model.vars[p];
    let indices: Vec<usize> = releases.iter().copied().collect();
    let mut out = Vec::new();
    let mut start = 0;
    while start < indices.len() {
        let mut end = start;
        while end + 1 < indices.len() && indices[end + 1] == indices[end] + 1 {
            end += 1;
        }
        let first = &var.releases[indices[start]].version;
        let last = &var.releases[indices[end]].version;
        out.push(if start == end {
            first.to_string()
        } else {
            format!("{first}..{last}")
        });
        start = end + 1;
    }
    let every = releases.len() == var.releases.len() && releases.len() > 1;
    (out, every)
}

fn link(kind: Kind, product: ProductId, text: String) -> Link {
    Link {
        kind,
        product,
        versions: Vec::new(),
        every: false,
        dependency: None,
        range: None,
        optional: false,
        flag: None,
        location: None,
        text,
        capabilities: Vec::new(),
        products: Vec::new(),
        rules: false,
    }
}

fn value_text(model: &Model<'_>, p: usize, v: Value) -> String {
    match v {
        Value::Absent => "nothing (not installed)".to_owned(),
        _ => model.vars[p]
            .version(v)
            .map_or_else(|| "its installed version".to_owned(), ToString::to_string),
    }
}

/// The release indices among `values`.
fn releases(values: &[Value]) -> BTreeSet<usize> {
    values
        .iter()
        .filter_map(|v| match v {
            Value::Release(i) => Some(*i),
            _ => None,
        })
        .collect()
}

/// "`p` can run only ...": the values the policy leaves it, those only `lifted` rules leave
/// out included, in version order (the installed value among the releases: older ones are
/// choices behind `--allow-downgrade`).
fn choices_link(model: &Model<'_>, p: usize, lifted: &[Exclusion]) -> Link {
    let var = &model.vars[p];
    let values: Vec<Value> = model
        .reach(p)
        .values
        .iter()
        .filter(|(_, rules)| rules.iter().all(|rule| lifted.contains(rule)))
        .map(|&(v, _)| v)
        .collect();
    let (versions, tail) = if var.domain[0] == Value::Keep {
        let installed = var.installed_version().filter(|v| v.is_orderable());
        let (older, newer): (BTreeSet<usize>, BTreeSet<usize>) = releases(&values)
            .into_iter()
            .partition(|&i| installed.is_some_and(|v| var.releases[i].version < *v));
        let mut versions = spans(model, p, &older).0;
        versions.push(format!("{} (installed)", value_text(model, p, Value::Keep)));
        versions.extend(spans(model, p, &newer).0);
        (versions, "")
    } else {
        (spans(model, p, &releases(&values)).0, ", or nothing")
    };
    let mut out = link(
        Kind::Choices,
        var.product.clone(),
        format!("{} can run only {}{tail}", var.product, versions.join(", ")),
    );
    out.versions = versions;
    out
}

fn asked_link(model: &Model<'_>, p: usize, values: &[Value]) -> Link {
    let var = &model.vars[p];
    let (mut versions, _) = spans(model, p, &releases(values));
    versions.extend(
        values
            .iter()
            .filter(|v| !matches!(v, Value::Release(_)))
            .map(|&v| value_text(model, p, v)),
    );
    let text = format!("asked for: {} {}", var.product, versions.join(" or "));
    let mut out = link(Kind::Asked, var.product.clone(), text);
    out.versions = versions;
    out
}

fn held_link(model: &Model<'_>, p: usize, value: Value) -> Link {
    let var = &model.vars[p];
    let at = value_text(model, p, value);
    let mut out = link(
        Kind::Held,
        var.product.clone(),
        format!("{} stays at {at} (decided before)", var.product),
    );
    out.versions = vec![at];
    out
}

fn excluded_link(model: &Model<'_>, p: usize, rule: Exclusion) -> Link {
    let var = &model.vars[p];
    let product = &var.product;
    let installed = var
        .installed_version()
        .map_or_else(String::new, ToString::to_string);
    let left_out: BTreeSet<usize> = (0..var.releases.len())
        .filter(|&i| var.exclusions(i, model.policy).contains(&rule))
        .collect();
    let (versions, _) = spans(model, p, &left_out);
    let listed = shortened(&versions, left_out.len());
    let text = match rule {
        Exclusion::NotInstalled => {
            format!("{product} is not installed, and installing it needs --allow-install")
        }
        Exclusion::Prerelease => format!(
            "{product} {listed} {}, left out without --pre",
            if left_out.len() == 1 {
                "is a release candidate or snapshot"
            } else {
                "are release candidates or snapshots"
            }
        ),
        Exclusion::Older => format!(
            "{product} {listed} {} older than the installed {installed}, left out without \
             --allow-downgrade",
            if left_out.len() == 1 { "is" } else { "are" }
        ),
        Exclusion::Invalid | Exclusion::Installed | Exclusion::Unorderable => format!(
            "{product} {listed} break the manifest rules (see `compat lint`) and are never chosen"
        ),
        Exclusion::Pinned => format!("{product} is pinned by policy, so it never moves"),
        Exclusion::Excluded => format!(
            "{product} {listed} {} excluded by policy",
            if left_out.len() == 1 { "is" } else { "are" }
        ),
        Exclusion::Deprecated => format!(
            "{product} {listed} {} deprecated, and the policy does not allow deprecated releases",
            if left_out.len() == 1 { "is" } else { "are" }
        ),
        Exclusion::Runtime => format!(
            "{product} {listed} {} a runtime version the environment does not run ({})",
            if left_out.len() == 1 {
                "requires"
            } else {
                "require"
            },
            runtime_words(model)
        ),
    };
    let mut out = link(Kind::Excluded, product.clone(), text);
    out.versions = versions;
    out.flag = rule.flag();
    out
}

/// The environment's runtime versions in words: `kubernetes 1.29.4, openshift 4.14.0`.
fn runtime_words(model: &Model<'_>) -> String {
    let words: Vec<String> = model
        .runtime
        .iter()
        .map(|(name, v)| format!("{name} {v}"))
        .collect();
    if words.is_empty() {
        "it declares none".to_owned()
    } else {
        format!("it runs {}", words.join(", "))
    }
}

/// Version spans for a sentence: all of them when there are a few, else the first and the
/// last with the count (JSON keeps the whole list).
fn shortened(spans: &[String], releases: usize) -> String {
    match spans {
        [first, .., last] if spans.len() > 3 => format!("{first} ... {last} ({releases} releases)"),
        _ => spans.join(", "),
    }
}

fn missing_link(product: &ProductId) -> Link {
    let mut out = link(
        Kind::Missing,
        product.clone(),
        format!("{product} is not installed, and installing it needs --allow-install"),
    );
    out.flag = Some("--allow-install");
    out
}

/// "These values close a data cycle" or "leave an input unfed" (a learnt nogood): about
/// product `first` (where the walk reached it) at its value, naming every product it holds (a
/// partly read catalog reads them whole).
fn learnt_link(model: &Model<'_>, first: usize, nogood: &Nogood) -> Link {
    let Nogood {
        values,
        reason,
        refusal,
    } = nogood;
    let value = values
        .iter()
        .find(|&&(q, _)| q == first)
        .map_or(Value::Keep, |&(_, v)| v);
    let kind = match *refusal {
        Refusal::Cycle => Kind::Cycle,
        Refusal::Unfed => Kind::Reads,
    };
    let mut out = link(kind, model.vars[first].product.clone(), reason.to_owned());
    out.versions = model.vars[first]
        .version(value)
        .map(ToString::to_string)
        .into_iter()
        .collect();
    out.products = values
        .iter()
        .map(|&(p, _)| model.vars[p].product.clone())
        .collect();
    out
}

/// "No release of `q` lies in `range`", saying which releases there are.
fn no_release_link(model: &Model<'_>, q: usize, range: &str) -> Link {
    let var = &model.vars[q];
    let product = &var.product;
    let text = if var.releases.is_empty() {
        format!("{product} has no release in the catalog")
    } else {
        const SHOWN: usize = 5;
        let mut known: Vec<String> = var
            .releases
            .iter()
            .rev()
            .take(SHOWN)
            .rev()
            .map(|m| m.version.to_string())
            .collect();
        if var.releases.len() > SHOWN {
            known.insert(0, "...".to_owned());
        }
        match range.split_once(" (input ") {
            // an input's output (`output `dsn` (input db-url)`)
            Some((output, _)) if range.starts_with("output ") => format!(
                "no {product} release declares {output} (the catalog has {})",
                known.join(", ")
            ),
            _ => format!(
                "no {product} release is in {range} (the catalog has {})",
                known.join(", ")
            ),
        }
    };
    let mut out = link(Kind::NoRelease, product.clone(), text);
    out.range = Some(range.to_owned());
    out
}

fn declaration_link(model: &Model<'_>, key: &Key, group: &Group) -> Link {
    let (p, kind, on, range, optional) = key.clone();
    let releases = &group.releases;
    let location = group.location.clone();
    let product = &model.vars[p].product;
    let (versions, every) = spans(model, p, releases);
    let subject = if every {
        format!("every {product} release ({})", versions.join(", "))
    } else {
        format!("{product} {}", versions.join(", "))
    };
    let plural = releases.len() > 1 && !every;
    if kind == Kind::Constrains {
        // a section 9 item: `range` holds its words (`capability sql 8.0.0..`)
        let (verb, condition) = match (range.starts_with("capability"), plural, optional) {
            (true, false, false) => ("needs", ""),
            (true, true, false) => ("need", ""),
            (true, false, true) => ("needs", " when some entity provides it"),
            (true, true, true) => ("need", " when some entity provides it"),
            (false, _, _) => ("must satisfy", ""),
        };
        return Link {
            kind,
            product: product.clone(),
            versions,
            every,
            dependency: None,
            range: Some(range.clone()),
            optional,
            flag: None,
            location,
            text: format!("{subject} {verb} {range}{condition}"),
            capabilities: group.capabilities.clone(),
            products: group.products.clone(),
            rules: group.rules,
        };
    }
    if kind == Kind::Reads {
        // an input: `range` holds what it reads (`output `dsn` (input db-url)`)
        let condition = if optional {
            " when it is installed"
        } else {
            ""
        };
        let (what, input) = range.split_once(" (").unwrap_or((&range, ""));
        let text = match (what.strip_prefix("output "), plural) {
            (Some(output), false) => format!("{subject} reads output {output} of {on} ({input}"),
            (Some(output), true) => format!("{subject} read output {output} of {on} ({input}"),
            (None, false) => format!("{subject} waits for {on} ({input}"),
            (None, true) => format!("{subject} wait for {on} ({input}"),
        };
        return Link {
            kind,
            product: product.clone(),
            versions,
            every,
            dependency: Some(on.clone()),
            range: Some(range.clone()),
            optional,
            flag: None,
            location,
            text: format!("{text}{condition}"),
            capabilities: Vec::new(),
            products: Vec::new(),
            rules: false,
        };
    }
    let verb = match (kind, plural) {
        (Kind::Refuses, false) => "is incompatible with",
        (Kind::Refuses, true) => "are incompatible with",
        (_, false) => "needs",
        (_, true) => "need",
    };
    let condition = if optional {
        " when it is installed"
    } else {
        ""
    };
    let text = format!("{subject} {verb} {on} {range}{condition}");
    Link {
        kind,
        product: product.clone(),
        versions,
        every,
        dependency: Some(on.clone()),
        range: Some(range),
        optional,
        flag: None,
        location,
        text,
        capabilities: Vec::new(),
        products: Vec::new(),
        rules: false,
    }
}
