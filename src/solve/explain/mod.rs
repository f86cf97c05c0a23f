//! Why a question has no answer, in the user's terms: a proven
//! [`Conflict`](super::Conflict) as a short chain of sentences, and the flags that would lift
//! it, each checked by solving again.
//!
//! The chain starts from what was asked (the targets, the products held) and follows the
//! declarations from release to release, as a derivation reads. Declarations that several
//! releases of one product make alike are merged into one sentence over version spans
//! ("every foo release (1.0.0..5.0.0) needs bar ..."). Only parts of the conflict appear, and
//! each of them is needed (when the conflict is minimal), so nothing in the chain is a guess.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

mod chain;

pub use chain::chain;

use super::Inheritance;
use super::conflict::Explained;
use super::cycles::Learnt;
use super::model::{Model, Policy, Releases, Value};
use super::{Engine, Query};
use crate::catalog::Catalog;
use crate::diagnostic::FileLocation;
use crate::environment::Environment;
use crate::product::ProductId;

/// What a link of the chain says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// The question asks for these releases (a target).
    Asked,
    /// The product stays where it was decided.
    Held,
    /// Releases need a dependency in a range.
    Needs,
    /// Releases are incompatible with a range.
    Refuses,
    /// The policy leaves releases out.
    Excluded,
    /// A product is not installed and may not be.
    Missing,
    /// No release of a product satisfies a declaration (or it has none at all).
    NoRelease,
    /// The values a product can take, when several of them each rule something out.
    Choices,
    /// Releases declare a section 9 item: a capability requirement or a `constraints` item.
    Constrains,
    /// Releases wire an input from a product dependency (section 10): its source must declare
    /// the output, and a required input needs its source present.
    Reads,
    /// Values that together close a data cycle (section 10), learnt from an answer.
    Cycle,
}

impl Kind {
    /// The name in JSON.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Asked => "asked",
            Kind::Held => "held",
            Kind::Needs => "needs",
            Kind::Refuses => "refuses",
            Kind::Excluded => "excluded",
            Kind::Missing => "missing",
            Kind::NoRelease => "no-release",
            Kind::Choices => "choices",
            Kind::Constrains => "constrains",
            Kind::Reads => "reads",
            Kind::Cycle => "cycle",
        }
    }
}

/// One sentence of the chain, with its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub kind: Kind,
    pub product: ProductId,
    /// The releases it is about, consecutive ones merged (`1.0.0..2.0.0`).
    pub versions: Vec<String>,
    /// True when `versions` covers every release of the product in the catalog.
    pub every: bool,
    /// The product a declaration is about.
    pub dependency: Option<ProductId>,
    pub range: Option<String>,
    pub optional: bool,
    /// The policy rule, for `excluded`: the flag that lifts it, if any.
    pub flag: Option<&'static str>,
    /// Where the (first) declaration is written.
    pub location: Option<FileLocation>,
    pub text: String,
    /// The capabilities a section 9 item needs a provider of: a partly read catalog reads
    /// their providers for the next round of [`explain_all`].
    pub capabilities: Vec<String>,
    /// The products a `constraints` item's product atoms name: a partly read catalog reads
    /// them whole for the next round (their other releases can make it hold).
    pub products: Vec<ProductId>,
    /// A `constraints` item with a rule atom, which reads the release of every visible
    /// entity (SPEC 9.1): any product's other releases can make it hold, so a partly read
    /// catalog reads every product whole for the next round.
    pub rules: bool,
}

/// A relaxation that makes the question answerable, checked by solving it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub flags: Vec<&'static str>,
    pub text: String,
    /// How many steps the plan with these flags has, when a planner sized it (`plan` does
    /// for its own infeasible targets; `None` elsewhere, or when the sizing plan was cut).
    pub plan_size: Option<usize>,
}

impl Fix {
    /// This fix with the size of the plan its flags give, said in its text too.
    #[must_use]
    pub fn sized(flags: Vec<&'static str>, steps: Option<usize>) -> Fix {
        let size = match steps {
            Some(1) => "; a plan of 1 step".to_owned(),
            Some(n) => format!("; a plan of {n} steps"),
            None => String::new(),
        };
        let text = format!(
            "fix: with {} a valid state exists (checked{size})",
            flags.join(" and ")
        );
        Fix {
            flags,
            text,
            plan_size: steps,
        }
    }
}

/// The chain and the fixes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    pub chain: Vec<Link>,
    pub fixes: Vec<Fix>,
    /// False when a time limit cut the search (a link may be spare, a fix missing).
    pub minimal: bool,
    /// When the flags that lift parts of the chain do not make the question answerable: the
    /// next conflict, with those flags on.
    pub beyond: Option<(Vec<&'static str>, Box<Explanation>)>,
}

impl Explanation {
    /// Whether a time limit cut this explanation, or one beyond it, short: a fix may be
    /// missing, so what it answers is not proven.
    #[must_use]
    pub fn cut(&self) -> bool {
        !self.minimal || self.beyond.as_ref().is_some_and(|(_, next)| next.cut())
    }

    /// Whether `why`, the explanation of an answer with no valid state, leaves that answer
    /// not proven: cut short, or missing once the time limit `passed` (a proven conflict
    /// always has one). `plan` and `upgrades` both mark their answers by it.
    #[must_use]
    pub fn unfinished(why: Option<&Explanation>, passed: bool) -> bool {
        why.map_or(passed, Explanation::cut)
    }

    /// Every product the chain names, here and beyond.
    fn named(&self, out: &mut BTreeSet<ProductId>) {
        for link in &self.chain {
            out.insert(link.product.clone());
            out.extend(link.dependency.iter().cloned());
            out.extend(link.products.iter().cloned());
        }
        if let Some((_, next)) = &self.beyond {
            next.named(out);
        }
    }

    /// Whether an item of the chain, here or beyond, has a rule atom ([`Link::rules`]).
    fn rules(&self) -> bool {
        self.chain.iter().any(|link| link.rules)
            || self.beyond.as_ref().is_some_and(|(_, next)| next.rules())
    }

    /// Every capability the chain's items need a provider of, here and beyond.
    fn capabilities(&self, out: &mut BTreeSet<String>) {
        for link in &self.chain {
            out.extend(link.capabilities.iter().cloned());
        }
        if let Some((_, next)) = &self.beyond {
            next.capabilities(out);
        }
    }

    /// The sentences, chain then fixes, as human output prints them.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self.chain.iter().map(|l| l.text.clone()).collect();
        out.extend(self.fixes.iter().map(|f| f.text.clone()));
        if !self.minimal {
            out.push(
                "(the time limit cut this explanation short: a part may be spare, a fix missing)"
                    .to_owned(),
            );
        }
        if let Some((flags, next)) = &self.beyond {
            out.push(format!("even with {}:", flags.join(" and ")));
            out.extend(next.lines().into_iter().map(|l| format!("  {l}")));
        }
        out
    }
}

/// One value a question asks a product to take, independent of any model (models built from
/// different catalogs number products and releases differently).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Every entity as it is.
    Keep,
    /// Every entity on this release.
    Version(crate::version::Version),
    /// Not installed.
    Absent,
}

impl Pick {
    /// `value` of product `p` in `model`.
    #[must_use]
    pub fn of(model: &Model<'_>, p: usize, value: Value) -> Pick {
        match value {
            Value::Keep => Pick::Keep,
            Value::Release(i) => Pick::Version(model.vars[p].releases[i].version.clone()),
            Value::Absent => Pick::Absent,
        }
    }

    /// The value in `model` of product `p`, if the model has it.
    fn value(&self, model: &Model<'_>, p: usize) -> Option<Value> {
        match self {
            Pick::Keep => Some(Value::Keep),
            Pick::Absent => Some(Value::Absent),
            Pick::Version(v) => model.vars[p]
                .releases
                .iter()
                .position(|m| m.version == *v)
                .map(Value::Release),
        }
    }
}

/// What a question asked, by product, so it can be asked again of a model built from another
/// catalog or under another policy.
pub type Asked = Vec<(ProductId, Vec<Pick>)>;

/// Reads more of the catalog when the one at hand was read only as far as the command's
/// policy needs (a database catalog): `policy(p)` the releases a relaxed policy reaches,
/// `whole(products)` every release of those products, `providers(capability)` the products
/// that provide a capability (those not installed are read only for an explanation that
/// names the capability). `None` from any means the catalog at hand holds them all.
#[derive(Clone)]
pub struct Reload {
    policy: Arc<PolicyLoader>,
    whole: Arc<WholeLoader>,
    providers: Arc<ProvidersLoader>,
}

type PolicyLoader = dyn Fn(Policy) -> Option<Arc<Catalog>> + Send + Sync;
type WholeLoader = dyn Fn(&[ProductId]) -> Option<Catalog> + Send + Sync;
type ProvidersLoader = dyn Fn(&str) -> Option<Vec<ProductId>> + Send + Sync;

impl Reload {
    pub fn new(
        policy: impl Fn(Policy) -> Option<Arc<Catalog>> + Send + Sync + 'static,
        whole: impl Fn(&[ProductId]) -> Option<Catalog> + Send + Sync + 'static,
        providers: impl Fn(&str) -> Option<Vec<ProductId>> + Send + Sync + 'static,
    ) -> Self {
        Reload {
            policy: Arc::new(policy),
            whole: Arc::new(whole),
            providers: Arc::new(providers),
        }
    }

    /// Reading more through `reread` (a database's locations, or a catalog held whole in
    /// memory): each policy's scope, products whole, capability providers.
    #[must_use]
    pub fn rereading(reread: crate::catalog::Reread) -> Self {
        let reread = Arc::new(reread);
        let (whole, providers) = (Arc::clone(&reread), Arc::clone(&reread));
        Reload::new(
            move |policy| reread.upgrades(policy.allow_downgrade, policy.allow_install),
            move |products| whole.products(products),
            move |capability| providers.providers(capability),
        )
    }

    /// A catalog held whole (`whole`) read as a database is: narrowed to `scope` (the
    /// command's, over `env` with these `--target` products), with the reading of more of it
    /// in the explanations' rounds. The answers are those over every release; most questions
    /// are asked of a model over fewer.
    #[must_use]
    pub fn narrowing(
        whole: Arc<Catalog>,
        env: &Environment,
        targets: &[ProductId],
        scope: &crate::catalog::Scope,
    ) -> (Catalog, Self) {
        let narrowed = whole.scoped(scope);
        let reread = crate::catalog::Reread::in_memory(whole, env, targets);
        (narrowed, Reload::rereading(reread))
    }

    /// The releases `policy` reaches; `None` when the catalog at hand holds them all.
    #[must_use]
    pub fn load(&self, policy: Policy) -> Option<Arc<Catalog>> {
        (self.policy)(policy)
    }

    fn whole(&self, products: &[ProductId]) -> Option<Catalog> {
        (self.whole)(products)
    }

    fn providers(&self, capability: &str) -> Option<Vec<ProductId>> {
        (self.providers)(capability)
    }
}

impl std::fmt::Debug for Reload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reload")
    }
}

/// Everything needed to ask a question again under a relaxed policy.
pub struct Context<'c> {
    pub env: &'c Environment,
    pub catalog: &'c Catalog,
    pub engine: &'c dyn Engine,
    pub deadline: Option<Instant>,
    /// Where a relaxed question finds releases the catalog at hand lacks.
    pub reload: Option<&'c Reload>,
}

/// Why no state gives the products of `asked` one of their values, with fixes checked; `None`
/// when there is such a state or the engine could not say in time. The conflict can only
/// name releases `model` knows: see [`explain_all`] for a catalog read in part.
#[must_use]
pub fn why(context: &Context<'_>, model: &Model<'_>, asked: &Asked) -> Option<Explanation> {
    explain_in(context, model, asked, 2, &|_, _| true).map(|a| a.explanation)
}

/// The products a question's search encodes from which [`explain_all`] reads everything
/// before asking it again: one such search costs far more than reading every product whole
/// (on the instances family with capabilities at 5,000, an infeasible `plan --target ...
/// --allow-downgrade` encoded 3,740 products in each of its three rounds, 19-45 s each,
/// against 1.2 s to read 3,500 products whole; reading everything after its first round
/// took it from 130 s to 82 s). The rounds of the generated families' questions that read
/// in part encode at most about 400 products each.
const COSTLY_AT: usize = 1_000;

/// How many rounds [`explain_all`] reads named products in, at most, before it reads
/// everything (with 8, the hard family with capabilities at 5,000 read 3,083 products whole in
/// the last one, for one question whose chain ended a round later on one more product; since
/// values an atom reads wait in groups too, its chains end in round 14 there, and
/// [`slow_to_settle`] reads everything long before).
const ROUNDS: usize = 16;

/// Rounds in a row (past the first, which every question is asked again after) in which no
/// question settled, after which [`explain_all`] reads everything. [`slow_to_settle`] cannot
/// tell a question or two that settle next round from ones that walk the catalog a product
/// per round, and prices a round as a model build only; but each round asks its questions
/// whole again. On the instance family with capabilities at 5,000, two questions named one
/// more unread product in every round from the fourth to the sixteenth, about 0.35 s a
/// round, nearly all of it their own searches and fix checks (models cost 0.05 s).
const STALLED: usize = 2;

/// [`why`] for each question under `policy`, on a model that knows every release of every
/// product the explanations name. A catalog read in part (from a database, each product from
/// its installed version up) lacks older releases, which are part of a reason ("left out
/// without --allow-downgrade"), not absent: the products the explanations name are read
/// whole and the questions that name them asked again, until the explanations name no
/// product that was read in part (a fixpoint), or everything the explanations could touch
/// is read whole (every installed product): after [`ROUNDS`] rounds, or sooner when the
/// questions settle so slowly that the rounds left would cost more ([`slow_to_settle`]), or
/// when a question to ask again had a large search ([`COSTLY_AT`]), or when rounds settle no
/// question ([`STALLED`]).
///
/// Each round reads only the products newly named and asks only the questions that name
/// them, so late rounds are small, but each builds a model over every product. Reading
/// everything costs a read of every product not read yet and a larger model: on the hard
/// family at 5,000 products (whose questions settle in five rounds) it would cost more than
/// all the rounds; with capabilities (fifteen rounds, the last ten for 20 questions or
/// fewer) it saves about a quarter of the run.
///
/// Each round's model takes over what the one before it worked out over products whose
/// releases did not grow ([`Model::inherit`]), the first round's from `inherited` (a model
/// over the same catalog and policy that the caller is done with), if given.
///
/// `answered`, if given, is told after each round how many more questions have their final
/// answer (a progress count: the rounds make up most of `upgrades`' time where latest
/// releases are out of reach).
#[must_use]
pub fn explain_all(
    context: &Context<'_>,
    policy: Policy,
    questions: &[Asked],
    mut inherited: Option<Inheritance>,
    answered: Option<&dyn Fn(usize)>,
) -> Vec<Option<Explanation>> {
    use rayon::prelude::*;
    let extra: Vec<ProductId> = questions
        .iter()
        .flat_map(|q| q.iter().map(|(p, _)| p.clone()))
        .collect();
    let mut out: Vec<Option<Explanation>> = vec![None; questions.len()];
    let mut pending: Vec<usize> = (0..questions.len()).collect();
    let mut whole: BTreeSet<ProductId> = BTreeSet::new();
    let mut wider: Option<Catalog> = None;
    let providers = Providers::default();
    // Answers whose fixes were not looked for (see `settled` below).
    let mut sketches: BTreeSet<usize> = BTreeSet::new();
    // what reading more of the catalog cannot change, from one round's model to the next
    let carried = Arc::new(crate::solve::facets::Carried::default());
    // rounds in a row that settled no question (see `STALLED`)
    let mut stalled = 0;
    for round in 0..=ROUNDS {
        if crate::solve::passed(context.deadline) {
            // every search would stop at once, so the model is not worth building: the
            // questions still open have no answer, as a search cut at once would leave them
            for &i in pending.iter().chain(&sketches) {
                out[i] = None;
            }
            return out;
        }
        let catalog: &Catalog = wider.as_ref().unwrap_or(context.catalog);
        let model = round_model(context, catalog, policy, &extra, inherited.take(), &carried);
        // built here, on every thread, before the questions need it (the first one to ask
        // would build it on its own thread while the others wait)
        if let Some(index) = model.facets() {
            index.prepare_rules(&model);
        }
        // A conflict naming a product read in part is asked again next round, with that
        // product read whole: its fixes would be thrown away, so only the conflict is found
        // (fix checks were about half of all `upgrades` time on the hard family with
        // capabilities, and every question there is asked at least twice).
        let deepens = context.reload.filter(|_| round < ROUNDS);
        let settled = |model: &Model<'_>, conflict: &super::conflict::Conflict| {
            deepens.is_none_or(|reload| {
                unread(&chain(model, conflict), model, &whole, &providers, reload).is_empty()
            })
        };
        let answers: Vec<Option<Answer>> = pending
            .par_iter()
            .map(|&i| explain_in(context, &model, &questions[i], 2, &settled))
            .collect();
        let mut costly: BTreeSet<usize> = BTreeSet::new();
        for (&i, answer) in pending.iter().zip(answers) {
            sketches.remove(&i);
            out[i] = answer.map(|answer| {
                if answer.sketch {
                    sketches.insert(i);
                }
                if answer.encoded >= COSTLY_AT {
                    costly.insert(i);
                }
                answer.explanation
            });
        }
        // what the next round reads, and which questions it asks again (none: the last round)
        let next = 'next: {
            let Some(reload) = deepens else {
                break 'next None;
            };
            let (mut fresh, again) =
                asked_again(&pending, &out, &model, &whole, &providers, reload);
            if again.is_empty() {
                break 'next None;
            }
            let read = whole.union(&fresh).count();
            stalled = if round > 0 && again.len() == pending.len() {
                stalled + 1
            } else {
                0
            };
            if round + 1 == ROUNDS
                || stalled >= STALLED
                || (round > 0 && slow_to_settle(pending.len(), again.len(), read, model.vars.len()))
                || again.iter().any(|i| costly.contains(i))
            {
                // still deepening: read whole every product a question could touch, once
                fresh = model.vars.iter().map(|v| v.product.clone()).collect();
            }
            let list: Vec<ProductId> = fresh.difference(&whole).cloned().collect();
            reload.whole(&list).map(|more| (list, more, again))
        };
        if let Some(tell) = answered {
            let again: &[usize] = next.as_ref().map_or(&[], |(_, _, again)| again);
            tell(final_now(&pending, again, &sketches));
        }
        // kept for the next model over this catalog, or over more of it
        inherited = Some(model.bequeath());
        let Some((list, more, again)) = next else {
            break;
        };
        wider = Some(catalog.overlaid(&more));
        whole.extend(list);
        pending = again;
    }
    // A sketch is asked again until it settles; one the rounds ended on (nothing more could
    // be read) is asked once more, whole, on the catalog as read.
    // Past the time limit it has no answer: no model is built for searches that would stop
    // at once.
    if crate::solve::passed(context.deadline) {
        for &i in &sketches {
            out[i] = None;
        }
    } else if !sketches.is_empty() {
        let catalog: &Catalog = wider.as_ref().unwrap_or(context.catalog);
        let model = round_model(context, catalog, policy, &extra, inherited.take(), &carried);
        let asked = sketches.len();
        ask_whole(context, &model, questions, sketches, &mut out);
        if let Some(tell) = answered {
            tell(asked);
        }
    }
    // What the rounds read and worked out is freed beside whatever the caller does next
    // (printing the report): on the hard family at 5,000, about 60 ms on one thread.
    rayon::spawn(move || drop((wider, inherited)));
    out
}

/// How many of a round's `pending` questions have their final answer: neither asked `again`
/// (sorted) nor a sketch left to ask whole.
fn final_now(pending: &[usize], again: &[usize], sketches: &BTreeSet<usize>) -> usize {
    pending
        .iter()
        .filter(|i| again.binary_search(i).is_err() && !sketches.contains(i))
        .count()
}

/// The model of one explanation round over `catalog`, taking over what the model before it
/// worked out (`inherited`) and sharing what reading more cannot change (`carried`).
fn round_model<'a>(
    context: &Context<'a>,
    catalog: &'a Catalog,
    policy: Policy,
    extra: &[ProductId],
    inherited: Option<Inheritance>,
    carried: &Arc<crate::solve::facets::Carried>,
) -> Model<'a> {
    let model = Model::build(context.env, catalog, policy, extra);
    if let Some(inherited) = inherited {
        model.inherit(inherited);
    }
    model.carry(Arc::clone(carried));
    model
}

/// The questions of `pending` whose explanations in `out` name products not read whole yet,
/// with those products.
fn asked_again(
    pending: &[usize],
    out: &[Option<Explanation>],
    model: &Model<'_>,
    whole: &BTreeSet<ProductId>,
    providers: &Providers,
    reload: &Reload,
) -> (BTreeSet<ProductId>, Vec<usize>) {
    let mut fresh: BTreeSet<ProductId> = BTreeSet::new();
    let mut again: Vec<usize> = Vec::new();
    for &i in pending {
        let unread = out[i]
            .as_ref()
            .map(|e| unread(e, model, whole, providers, reload))
            .unwrap_or_default();
        if !unread.is_empty() {
            again.push(i);
            fresh.extend(unread);
        }
    }
    (fresh, again)
}

/// The questions of `list` asked whole (fixes checked whatever the conflicts name), their
/// answers written into `out`.
fn ask_whole(
    context: &Context<'_>,
    model: &Model<'_>,
    questions: &[Asked],
    list: BTreeSet<usize>,
    out: &mut [Option<Explanation>],
) {
    use rayon::prelude::*;
    let list: Vec<usize> = list.into_iter().collect();
    let answers: Vec<Option<Explanation>> = list
        .par_iter()
        .map(|&i| why(context, model, &questions[i]))
        .collect();
    for (i, answer) in list.into_iter().zip(answers) {
        out[i] = answer;
    }
}

/// Whether the rounds of [`explain_all`] look set to go on long enough that reading every
/// product whole now costs less, by a cost model in model builds: a round builds a model over
/// all `products` (each round, however few questions are left), while reading everything
/// costs reading the products not read whole yet, at about 7 builds' worth per product (a
/// database read, measured on the hard family with capabilities at 5,000: 1.2 s for 3,500
/// products against 0.25 s per build of 5,000), and one model about twice as costly. The
/// rounds still needed are estimated from how fast the questions settle: `again` of the
/// round's `pending` questions go on, about that share of them each round until one is left.
/// `read`: the products read whole once this round's are.
///
/// There, the questions settled by rounds of 796, 796, 292, 94, 42, 20, 16, 8, 6, 4, 3, 2,
/// 2, 1 and 1 questions (the last ten rounds, for 42 questions, took about 40% of the run's
/// explaining, mostly in model builds of 0.2-0.3 s); this reads everything after the round of
/// 796 (about 6.7 rounds left against 6.5 builds' worth; failing that, it would after the
/// round of 20), and the other families measured settle too fast to read more than the
/// products named (`tests` below).
#[allow(clippy::cast_precision_loss)] // counts of questions and products, far below 2^52
fn slow_to_settle(pending: usize, again: usize, read: usize, products: usize) -> bool {
    const READ: f64 = 7.0; // reading a product whole, in builds of a product
    const WHOLE_BUILD: f64 = 2.0; // the model over everything, in builds of today's
    if again == 0 || pending == 0 || products == 0 {
        return false;
    }
    // one more settled and one more asked again than seen (a rule of succession), so a
    // round or two of one question proves little either way
    let share = (again + 1) as f64 / (pending + 2) as f64;
    let left = 1.0 + (again as f64).ln() / (1.0 / share).ln();
    let unread = products.saturating_sub(read) as f64 / products as f64;
    left > READ * unread + WHOLE_BUILD
}

/// The providers of each capability an explanation named so far, as the catalog's index
/// gives them (asked once per capability).
type Providers = std::sync::Mutex<std::collections::BTreeMap<String, Vec<ProductId>>>;

/// The products `e` names that are not read whole yet: a product the chain names, a
/// capability's providers (one not installed may be a fix, and only a database's index knows
/// them; an installed one's older releases may provide it in range, which a fix such as
/// `--allow-downgrade` reaches), and every product of `model` when an item has a rule atom
/// (it reads every visible entity's release). An explanation naming one is asked again once
/// it is read.
fn unread(
    e: &Explanation,
    model: &Model<'_>,
    whole: &BTreeSet<ProductId>,
    providers: &Providers,
    reload: &Reload,
) -> BTreeSet<ProductId> {
    let mut named = BTreeSet::new();
    e.named(&mut named);
    if e.rules() {
        // (asked of every conflict a round settles: only the products still unread are
        // copied, none once everything is read)
        let unread = model.vars.iter().map(|v| &v.product);
        named.extend(unread.filter(|p| !whole.contains(*p)).cloned());
    }
    let mut capabilities = BTreeSet::new();
    e.capabilities(&mut capabilities);
    if !capabilities.is_empty() {
        let mut known = providers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for name in capabilities {
            named.extend(
                known
                    .entry(name)
                    .or_insert_with_key(|name| reload.providers(name).unwrap_or_default())
                    .iter()
                    .cloned(),
            );
        }
    }
    named.retain(|p| !whole.contains(p));
    named
}

/// [`why`], following at most `depth` more conflicts behind flags that do not suffice; with
/// only the chain (and `true`) when `settled` says the conflict is not the final word.
fn explain_in(
    context: &Context<'_>,
    model: &Model<'_>,
    asked: &Asked,
    depth: usize,
    settled: super::conflict::Settled<'_>,
) -> Option<Answer> {
    let baseline = model.current();
    let mut query = Query {
        baseline: &baseline,
        restrict: restrict(model, asked),
        frozen: 0,
        objective: None,
        deadline: context.deadline,
        forbid: Vec::new(),
    };
    // A question refused only by data cycles has a conflict only with them: they are learnt
    // first (an answer that closes none means there is nothing to explain), and each is a
    // part the conflict may need.
    let learnt = Learnt::judging_today(model);
    if learnt.active() {
        let outcome = learnt.solve(context.engine, model, &baseline, query.clone());
        if matches!(outcome, super::Outcome::Found(_)) {
            return None;
        }
        query.forbid = learnt.forbid();
    }
    let explained = context.engine.explain(model, &query, settled)?;
    let encoded = explained.encoded;
    if explained.sketch {
        return Some(Answer {
            explanation: sketch(model, &explained),
            sketch: true,
            encoded,
        });
    }
    // where no cycle was learnt, the question's conflict has none, and fixes are checked as
    // they always were
    let cycles = !query.forbid.is_empty();
    Some(Answer {
        explanation: render(context, model, asked, &explained, &[], depth, cycles),
        sketch: false,
        encoded,
    })
}

/// What [`explain_in`] answers.
struct Answer {
    explanation: Explanation,
    /// Only the chains down to a conflict that was not settled were looked for ([`sketch`]).
    sketch: bool,
    /// [`Explained::encoded`](crate::solve::conflict::Explained::encoded).
    encoded: usize,
}

/// The chain of `explained`, its fixes (the engine's, and the flags it left unchecked checked
/// here on a model built for them), and what lies beyond flags that do not suffice. `on`:
/// the flags already lifted inside the engine for this conflict. `cycles`: the question
/// learnt data cycles (`solve::cycles`): a fix is checked by an answer that closes none, and
/// the engine's own checks, which know only the cycles learnt so far, are checked again so.
fn render(
    context: &Context<'_>,
    model: &Model<'_>,
    asked: &Asked,
    explained: &Explained,
    on: &[&'static str],
    depth: usize,
    cycles: bool,
) -> Explanation {
    let mut explanation = chain(model, &explained.conflict);
    let answers = |flags: &[&'static str]| {
        let all: Vec<&'static str> = on.iter().chain(flags).copied().collect();
        relaxed(context, model.policy, &all, asked, |model, query| {
            let outcome = Learnt::judging_today(model).solve(
                context.engine,
                model,
                query.baseline,
                query.clone(),
            );
            matches!(outcome, super::Outcome::Found(_))
        })
    };
    let mut fixes: Vec<Vec<&'static str>> = explained.fixes.clone();
    if cycles {
        fixes.retain(|flags| answers(flags));
    }
    fixes.extend(
        explained
            .unchecked
            .iter()
            .filter(|&&flag| answers(&[flag]))
            .map(|&flag| vec![flag]),
    );
    let every = explained.conflict.flags();
    if fixes.is_empty() && !explained.unchecked.is_empty() && every.len() > 1 && answers(&every) {
        fixes.push(every.clone());
    }
    explanation.fixes = fixes.into_iter().map(fix).collect();
    // a check cut by the deadline reads as "no fix": say the explanation is not whole
    if crate::solve::passed(context.deadline) {
        explanation.minimal = false;
    }
    if !explanation.fixes.is_empty() {
        return explanation;
    }
    if let Some((flags, next)) = &explained.beyond
        && explained.unchecked.is_empty()
    {
        let all: Vec<&'static str> = on.iter().chain(flags).copied().collect();
        let next = render(
            context,
            model,
            asked,
            next,
            &all,
            depth.saturating_sub(1),
            cycles,
        );
        explanation.beyond = Some((flags.clone(), Box::new(next)));
    } else if !every.is_empty() && depth > 0 {
        // a flag the engine could not lift alone (--allow-install): build the model for all
        let all: Vec<&'static str> = on.iter().chain(&every).copied().collect();
        let next = relaxed(context, model.policy, &all, asked, |model, _| {
            explain_in(context, model, asked, depth - 1, &|_, _| true).map(|a| a.explanation)
        });
        explanation.beyond = next.map(|next| (every, Box::new(next)));
    }
    explanation
}

/// The chains of a sketch, down to the conflict that was not settled: what the question
/// names, for the caller to read before asking it again.
fn sketch(model: &Model<'_>, explained: &Explained) -> Explanation {
    let mut explanation = chain(model, &explained.conflict);
    if let Some((flags, next)) = explained.beyond.as_ref().filter(|(_, next)| next.sketch) {
        explanation.beyond = Some((flags.clone(), Box::new(sketch(model, next))));
    }
    explanation
}

fn fix(flags: Vec<&'static str>) -> Fix {
    Fix::sized(flags, None)
}

/// `asked` in `model`'s terms (a product the model lacks is left out; a release it lacks
/// cannot be chosen).
fn restrict(model: &Model<'_>, asked: &Asked) -> Vec<(usize, Vec<Value>)> {
    asked
        .iter()
        .filter_map(|(product, picks)| {
            let p = *model.index.get(product)?;
            Some((p, picks.iter().filter_map(|k| k.value(model, p)).collect()))
        })
        .collect()
}

/// Calls `then` with the model and the question under `policy` with `flags` turned on.
fn relaxed<R>(
    context: &Context<'_>,
    policy: Policy,
    flags: &[&'static str],
    asked: &Asked,
    then: impl FnOnce(&Model<'_>, &Query<'_>) -> R,
) -> R {
    let policy = flags.iter().fold(policy, |p, flag| p.lifting(flag));
    let extra: Vec<ProductId> = asked.iter().map(|(p, _)| p.clone()).collect();
    let wider = context.reload.and_then(|r| r.load(policy));
    let catalog: &dyn Releases = match &wider {
        Some(c) => &**c,
        None => context.catalog,
    };
    let model = Model::build(context.env, catalog, policy, &extra);
    let baseline = model.current();
    let query = Query {
        baseline: &baseline,
        restrict: restrict(&model, asked),
        frozen: 0,
        objective: None,
        deadline: context.deadline,
        forbid: Vec::new(),
    };
    then(&model, &query)
}

#[cfg(test)]
mod tests {
    use super::slow_to_settle;

    /// The rounds measured on the generated families (questions pending and asked again,
    /// products read whole once the round's are, products in the model): only the hard
    /// family with capabilities at 5,000 reads everything, after its second round.
    #[test]
    fn only_questions_slow_to_settle_read_everything() {
        let cases = [
            // hard + capabilities, 5,000: 796 -> 292 with 1,784 of 5,000 read
            ((796, 292, 1784, 5000), true),
            // hard, 5,000: 633 -> 196 -> 48 -> 2
            ((633, 196, 1383, 5000), false),
            ((196, 48, 1437, 5000), false),
            ((48, 2, 1439, 5000), false),
            // hard + capabilities, 1,000: 141 -> 50 -> 21 -> 9 -> 3 -> 1
            ((141, 50, 338, 1000), false),
            ((50, 21, 364, 1000), false),
            ((21, 9, 376, 1000), false),
            ((9, 3, 386, 1000), false),
            // capability family, 5,000: 149 -> 10 -> 2 -> 1
            ((149, 10, 376, 5000), false),
            ((2, 1, 381, 5000), false),
            // nothing settles: the rounds would go on and on
            ((50, 50, 1000, 5000), true),
            // but one or two questions asked again say little
            ((2, 2, 1000, 5000), false),
            ((1, 1, 1000, 5000), false),
            // everything settled, or nothing asked
            ((20, 0, 100, 5000), false),
            ((0, 0, 0, 5000), false),
            // nearly everything read already: only the larger model is left to pay for
            ((16, 8, 4990, 5000), true),
            ((16, 2, 4990, 5000), false),
        ];
        for ((pending, again, read, products), expected) in cases {
            assert_eq!(
                slow_to_settle(pending, again, read, products),
                expected,
                "{pending} pending, {again} again, {read} of {products} read"
            );
        }
    }
}
