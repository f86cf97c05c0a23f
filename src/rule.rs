//! CEL rules (SPEC section 9.1 `rule:` atoms and 9.2 policy `rule:` exclusions): compiling an
//! expression once per run and judging it against one release.
//!
//! The language is the Common Expression Language through the `cel` crate (cel-rust), never an
//! expression language of our own. A rule sees four variables: `properties` (a map of the
//! release's properties), `product` (`group:name`), `version` (the version text) and `entity`
//! (the entity's name; empty when a release is judged without one, as policy rules are).
//!
//! Invariants:
//! - a rule is compiled once per run: [`Rule::compile`] keeps every rule it compiled in a
//!   cache keyed by the rule's text, shared by all threads;
//! - a hostile rule is a clear error, not a hang or a crash: the text is at most
//!   [`MAX_RULE_BYTES`], the parser's own recursion limit bounds nesting, the compiled tree is
//!   at most [`MAX_DEPTH`] deep and [`MAX_NODES`] large, no comprehension (`all`, `exists`,
//!   `map`, `filter`, ...) sits inside another one or in the list another one walks (a chain
//!   `l.map(x, x + x).map(x, x + x)...` doubles its data at every link), and `+` makes no value
//!   of more than [`MAX_JOINED`] of the values the rule reads (a literal, a variable, one
//!   element of a list). So no value a rule builds is more than [`MAX_JOINED`] times the
//!   largest value it reads, a comprehension's list holds one such value per element of its
//!   input, and one evaluation takes at most [`MAX_NODES`] steps per element of the lists it
//!   walks (a literal of the rule itself, or the release's properties): bounded by the rule's
//!   size times the size of what it reads, never exponential in either;
//! - evaluation never fails: an error or a value that is not a boolean is "false" for that
//!   release (SPEC 9.1).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use cel::common::ast::{EntryExpr, Expr, IdedEntryExpr, operators};
use cel::{Context, Env, IdedExpr, Program, Value};

/// The longest rule text accepted, in bytes.
pub const MAX_RULE_BYTES: usize = 4096;
/// The deepest compiled expression tree accepted.
pub const MAX_DEPTH: usize = 48;
/// The largest compiled expression tree accepted, in nodes.
pub const MAX_NODES: usize = 2048;
/// The most values one value of a rule may be made of by `+` (see [`joined`]).
pub const MAX_JOINED: usize = 16;

/// A compiled CEL rule. Two rules are equal when their texts are.
#[derive(Clone)]
pub struct Rule {
    text: Arc<str>,
    program: Arc<Program>,
    /// What the rule gave for the subjects it was judged against in this run.
    verdicts: Arc<Verdicts>,
}

/// A compiled rule's verdicts, by subject: a rule is judged against every other installed
/// entity for each release that declares it, so one run asks the same question many times,
/// and building a CEL context costs far more than looking the answer up. Only the variables
/// the rule reads are part of the key ([`Reads`]): a rule over `properties` alone, the common
/// case, has one verdict per distinct property map, however many releases and entities share
/// it. Found by a hash of what it reads (one flat map, nothing allocated to look up), then
/// every field it reads compared whole, so a verdict is only reused for a subject the rule
/// cannot tell apart.
#[derive(Default)]
struct Verdicts {
    reads: Reads,
    memo: Mutex<Memo>,
}

/// Which of the four variables a rule may read. Judged from its text, conservatively: a rule
/// whose text never spells a variable's name cannot read it (CEL has no way to name a
/// variable other than writing it), and one that spells it anywhere, even inside a string or
/// a longer name, is taken to read it.
#[derive(Clone, Copy, Debug, Default)]
struct Reads([bool; 4]);

/// The variables a rule sees, in the order [`Reads`] holds them.
const VARIABLES: [&str; 4] = ["properties", "product", "version", "entity"];

impl Reads {
    fn of(text: &str) -> Reads {
        Reads(VARIABLES.map(|name| text.contains(name)))
    }

    fn product(self) -> bool {
        let [_, product, _, _] = self.0;
        product
    }

    fn version(self) -> bool {
        let [_, _, version, _] = self.0;
        version
    }

    /// `subject` with what the rule does not read left out.
    fn key<'a>(self, subject: &Subject<'a>) -> Key<'a> {
        let [properties, product, version, entity] = self.0;
        let pick = |read: bool, text: &'a str| if read { text } else { "" };
        Key {
            entity: pick(entity, subject.entity),
            product: pick(product, subject.product),
            version: pick(version, subject.version),
            properties: properties.then_some(subject.properties),
        }
    }
}

/// What a verdict depends on: the fields of a subject the rule reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Key<'a> {
    entity: &'a str,
    product: &'a str,
    version: &'a str,
    properties: Option<&'a BTreeMap<String, Property>>,
}

#[derive(Default)]
struct Memo {
    /// How many verdicts `by_hash` holds.
    count: usize,
    by_hash: BTreeMap<u64, Vec<Remembered>>,
}

/// One remembered verdict: the fields of the subject it was given for that the rule reads,
/// and what the rule gave.
struct Remembered {
    entity: String,
    product: String,
    version: String,
    properties: Option<BTreeMap<String, Property>>,
    holds: bool,
}

impl Remembered {
    fn judges(&self, key: &Key<'_>) -> bool {
        self.entity == key.entity
            && self.product == key.product
            && self.version == key.version
            && self.properties.as_ref() == key.properties
    }
}

/// The memo's key hashed: FxHash, the same in every run (a collision only costs a comparison
/// with the remembered subject, which is always made).
fn key_hash(key: &Key<'_>) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(key)
}

impl Memo {
    fn get(&self, hash: u64, key: &Key<'_>) -> Option<bool> {
        self.by_hash
            .get(&hash)?
            .iter()
            .find(|r| r.judges(key))
            .map(|r| r.holds)
    }

    fn insert(&mut self, hash: u64, key: &Key<'_>, holds: bool) {
        if self.count >= MAX_VERDICTS {
            *self = Memo::default();
        }
        self.by_hash.entry(hash).or_default().push(Remembered {
            entity: key.entity.to_owned(),
            product: key.product.to_owned(),
            version: key.version.to_owned(),
            properties: key.properties.cloned(),
            holds,
        });
        self.count += 1;
    }
}

/// Past this many verdicts a rule forgets them all (a bound on memory, not a limit).
const MAX_VERDICTS: usize = 1 << 16;

impl PartialEq for Rule {
    fn eq(&self, other: &Rule) -> bool {
        self.text == other.text
    }
}

impl Eq for Rule {}

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Rule({:?})", self.text)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A value of a release's `properties` (SPEC 9.1: strings, numbers, booleans).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Property {
    Str(String),
    /// A number as written (`3`, `2.5`); an integer reads as a CEL `int`, else a `double`.
    Number(String),
    Bool(bool),
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Property::Str(s) | Property::Number(s) => f.write_str(s),
            Property::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// What a rule is judged against: one release, as one entity runs it.
#[derive(Clone, Copy, Debug)]
pub struct Subject<'a> {
    pub properties: &'a BTreeMap<String, Property>,
    /// `group:name`.
    pub product: &'a str,
    pub version: &'a str,
    /// The entity's name; empty when there is none.
    pub entity: &'a str,
}

type Compiled = Result<(Arc<Program>, Arc<Verdicts>), String>;

fn cache() -> &'static Mutex<BTreeMap<Arc<str>, Compiled>> {
    static CACHE: OnceLock<Mutex<BTreeMap<Arc<str>, Compiled>>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

fn env() -> Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    Arc::clone(ENV.get_or_init(|| Arc::new(Env::stdlib())))
}

impl Rule {
    /// Compiles `text`, or takes it from the cache of rules already compiled in this run.
    ///
    /// # Errors
    /// A message (lowercase, no location) when the text is too long, does not parse, or is
    /// too deep or large to evaluate safely.
    pub fn compile(text: &str) -> Result<Rule, String> {
        if text.len() > MAX_RULE_BYTES {
            return Err(format!(
                "a rule may be at most {MAX_RULE_BYTES} bytes long, found {} bytes",
                text.len()
            ));
        }
        let key: Arc<str> = Arc::from(text);
        if let Some(done) = cache()
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return done.clone().map(|(program, verdicts)| Rule {
                text: key,
                program,
                verdicts,
            });
        }
        // compiled outside the lock: two threads may compile one text at once, and the first
        // to finish is kept
        let compiled = compile_uncached(text);
        let mut cache = cache().lock().unwrap_or_else(PoisonError::into_inner);
        let done = cache.entry(Arc::clone(&key)).or_insert(compiled).clone();
        done.map(|(program, verdicts)| Rule {
            text: key,
            program,
            verdicts,
        })
    }

    /// The rule as written.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the rule may read a subject's `version`: where it cannot, releases of one
    /// product with equal properties get the same verdict for the same entities.
    #[must_use]
    pub fn reads_version(&self) -> bool {
        self.verdicts.reads.version()
    }

    /// Whether the rule may read a subject's `product` (a subject may leave it empty when
    /// not: the rule cannot tell).
    #[must_use]
    pub fn reads_product(&self) -> bool {
        self.verdicts.reads.product()
    }

    /// Whether the rule is true for `subject`; an evaluation error or a value that is not a
    /// boolean is false.
    #[must_use]
    pub fn holds_for(&self, subject: &Subject<'_>) -> bool {
        let lock = || {
            self.verdicts
                .memo
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
        };
        let key = self.verdicts.reads.key(subject);
        let hash = key_hash(&key);
        let known = lock().get(hash, &key);
        if let Some(holds) = known {
            return holds;
        }
        let holds = self.evaluate(subject);
        lock().insert(hash, &key, holds);
        holds
    }

    /// Evaluates the rule for `subject` (what [`Rule::holds_for`] remembers).
    fn evaluate(&self, subject: &Subject<'_>) -> bool {
        let mut context = Context::with_env(env());
        context.add_variable_from_value("properties", properties_value(subject.properties));
        context.add_variable_from_value("product", subject.product);
        context.add_variable_from_value("version", subject.version);
        context.add_variable_from_value("entity", subject.entity);
        matches!(self.program.execute(&context), Ok(Value::Bool(true)))
    }
}

/// The stack the CEL parser runs on: its generated parser recurses several frames per
/// nesting level before its own recursion limit (96) stops it, more than a worker thread's
/// 2 MiB holds in a debug build.
const PARSER_STACK: usize = 64 << 20;

fn compile_uncached(text: &str) -> Compiled {
    let owned = text.to_owned();
    let parsed = std::thread::Builder::new()
        .name("cel-parse".to_owned())
        .stack_size(PARSER_STACK)
        .spawn(move || Program::compile(&owned).map_err(|e| e.errors))
        .map_err(|e| format!("cannot start the rule parser: {e}"))?
        .join()
        .map_err(|_| "the rule parser failed on this rule".to_owned())?;
    let program = parsed.map_err(|errors| {
        let first = errors
            .first()
            .map_or_else(|| "syntax error".to_owned(), |e| e.msg.clone());
        if first.contains("Recursion limit") {
            // the parser's own limit, reported in its debug form
            return "the rule nests deeper than the CEL parser allows (96 levels)".to_owned();
        }
        format!("the rule does not parse as CEL: {first}")
    })?;
    let shape = Shape::of(program.expression());
    if shape.depth > MAX_DEPTH {
        return Err(format!(
            "the rule nests {} levels deep, at most {MAX_DEPTH} are allowed",
            shape.depth
        ));
    }
    if shape.nodes > MAX_NODES {
        return Err(format!(
            "the rule has {} expression nodes, at most {MAX_NODES} are allowed",
            shape.nodes
        ));
    }
    if shape.nested_comprehension {
        return Err(
            "a comprehension (`all`, `exists`, `exists_one`, `map`, `filter`) may not sit \
             inside another one"
                .to_owned(),
        );
    }
    if shape.chained_comprehension {
        return Err(
            "a comprehension (`all`, `exists`, `exists_one`, `map`, `filter`) may not walk \
             the result of another one"
                .to_owned(),
        );
    }
    let mut worst = 0;
    joined(program.expression(), &mut Vec::new(), &mut worst);
    if worst > MAX_JOINED {
        return Err(format!(
            "the rule adds up {worst} values into one with `+`, at most {MAX_JOINED} are \
             allowed"
        ));
    }
    let verdicts = Verdicts {
        reads: Reads::of(text),
        memo: Mutex::default(),
    };
    Ok((Arc::new(program), Arc::new(verdicts)))
}

/// Where a node sits relative to the comprehensions around it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Within {
    /// In no comprehension.
    Nothing,
    /// In the list a comprehension walks (its input).
    Input,
    /// In a comprehension's per-element part (its condition, step or result).
    Body,
}

/// The size of a compiled expression, measured without recursion (so a deep tree cannot
/// overflow the stack while it is being measured).
#[derive(Default)]
struct Shape {
    depth: usize,
    nodes: usize,
    /// A comprehension sits in another one's per-element part.
    nested_comprehension: bool,
    /// A comprehension sits in the list another one walks (`l.map(..).map(..)`): each may
    /// double what the previous one built, so a chain of them is exponential in its length.
    chained_comprehension: bool,
}

impl Shape {
    fn of(root: &IdedExpr) -> Shape {
        let mut shape = Shape::default();
        let mut stack: Vec<(&IdedExpr, usize, Within)> = vec![(root, 1, Within::Nothing)];
        while let Some((node, depth, within)) = stack.pop() {
            shape.nodes += 1;
            shape.depth = shape.depth.max(depth);
            if shape.nodes > MAX_NODES || shape.depth > MAX_DEPTH {
                break;
            }
            let d = depth + 1;
            match &node.expr {
                Expr::Call(call) => {
                    stack.extend(call.target.iter().map(|t| (&**t, d, within)));
                    stack.extend(call.args.iter().map(|a| (a, d, within)));
                }
                Expr::Comprehension(c) => {
                    match within {
                        Within::Nothing => {}
                        Within::Input => shape.chained_comprehension = true,
                        Within::Body => shape.nested_comprehension = true,
                    }
                    // a comprehension inside the input of one that is itself in a body is
                    // nested all the same
                    let input = if within == Within::Nothing {
                        Within::Input
                    } else {
                        within
                    };
                    stack.push((&c.iter_range, d, input));
                    stack.push((&c.accu_init, d, Within::Body));
                    stack.push((&c.loop_cond, d, Within::Body));
                    stack.push((&c.loop_step, d, Within::Body));
                    stack.push((&c.result, d, Within::Body));
                }
                Expr::List(list) => stack.extend(list.elements.iter().map(|e| (e, d, within))),
                Expr::Map(map) => {
                    for entry in &map.entries {
                        match &entry.expr {
                            EntryExpr::MapEntry(e) => {
                                stack.push((&e.key, d, within));
                                stack.push((&e.value, d, within));
                            }
                            EntryExpr::StructField(f) => stack.push((&f.value, d, within)),
                        }
                    }
                }
                Expr::Struct(s) => {
                    for entry in &s.entries {
                        match &entry.expr {
                            EntryExpr::MapEntry(e) => {
                                stack.push((&e.key, d, within));
                                stack.push((&e.value, d, within));
                            }
                            EntryExpr::StructField(f) => stack.push((&f.value, d, within)),
                        }
                    }
                }
                Expr::Select(select) => stack.push((&select.operand, d, within)),
                Expr::Unspecified | Expr::Ident(_) | Expr::Literal(_) => {}
            }
        }
        shape
    }
}

/// How many values the value of `node` may be made of: a literal, a variable and one element
/// of the list a comprehension walks count once, `+` adds up its operands' counts, a list or
/// map literal its entries'; any other call gives no more than its largest operand (the
/// standard library without extensions has no function that repeats or joins strings or
/// lists). The most any `+` of the tree makes is kept in `worst`. Recursive: called only on
/// trees [`Shape::of`] found at most [`MAX_DEPTH`] deep and without a comprehension inside
/// another, so the recursion is bounded and every node is visited once.
fn joined<'a>(node: &'a IdedExpr, bound: &mut Vec<(&'a str, usize)>, worst: &mut usize) -> usize {
    match &node.expr {
        Expr::Unspecified | Expr::Literal(_) => 1,
        Expr::Ident(name) => bound
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map_or(1, |&(_, j)| j),
        Expr::Select(select) => joined(&select.operand, bound, worst),
        Expr::Call(call) => {
            let mut sum = 0usize;
            let mut max = 0usize;
            for part in call.target.iter().map(|t| &**t).chain(&call.args) {
                let j = joined(part, bound, worst);
                sum = sum.saturating_add(j);
                max = max.max(j);
            }
            if call.func_name == operators::ADD {
                *worst = (*worst).max(sum);
                sum
            } else {
                max
            }
        }
        Expr::List(list) => list
            .elements
            .iter()
            .fold(0, |sum, e| sum.saturating_add(joined(e, bound, worst))),
        Expr::Map(map) => entries_joined(&map.entries, bound, worst),
        Expr::Struct(s) => entries_joined(&s.entries, bound, worst),
        Expr::Comprehension(c) => {
            // the input, and what one element of it is made of
            let (input, element) = if let Expr::List(list) = &c.iter_range.expr {
                list.elements.iter().fold((0usize, 0), |(sum, max), e| {
                    let j = joined(e, bound, worst);
                    (sum.saturating_add(j), max.max(j))
                })
            } else {
                let j = joined(&c.iter_range, bound, worst);
                (j, j)
            };
            let scope = bound.len();
            bound.push((&c.iter_var, element));
            if let Some(second) = &c.iter_var2 {
                bound.push((second, element));
            }
            // the accumulator only gathers what the step makes: counting it again would count
            // every element twice
            bound.push((&c.accu_var, 0));
            let mut made = input;
            for part in [&c.accu_init, &c.loop_cond, &c.loop_step, &c.result] {
                made = made.max(joined(part, bound, worst));
            }
            bound.truncate(scope);
            made
        }
    }
}

/// What a map or struct literal is made of: its keys and values.
fn entries_joined<'a>(
    entries: &'a [IdedEntryExpr],
    bound: &mut Vec<(&'a str, usize)>,
    worst: &mut usize,
) -> usize {
    let mut sum = 0usize;
    for entry in entries {
        let parts: Vec<&IdedExpr> = match &entry.expr {
            EntryExpr::MapEntry(e) => vec![&e.key, &e.value],
            EntryExpr::StructField(f) => vec![&f.value],
        };
        for part in parts {
            sum = sum.saturating_add(joined(part, bound, worst));
        }
    }
    sum
}

/// `properties` as a CEL map. cel's map type is a `HashMap`; it never reaches a user's eyes
/// in iteration order here (a rule's answer is a boolean).
#[allow(clippy::disallowed_types)]
fn properties_value(properties: &BTreeMap<String, Property>) -> Value {
    let map: std::collections::HashMap<String, Value> = properties
        .iter()
        .map(|(key, value)| {
            let value = match value {
                Property::Str(s) => Value::from(s.as_str()),
                Property::Bool(b) => Value::Bool(*b),
                Property::Number(n) => n.parse::<i64>().map_or_else(
                    |_| n.parse::<f64>().map_or(Value::Null, Value::Float),
                    Value::Int,
                ),
            };
            (key.clone(), value)
        })
        .collect();
    Value::from(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(properties: &BTreeMap<String, Property>) -> Subject<'_> {
        Subject {
            properties,
            product: "com.example:db",
            version: "5.7.0",
            entity: "db1",
        }
    }

    /// A remembered verdict is reused only for the same subject: same product, version and
    /// entity with other properties, or another entity, is judged again.
    #[test]
    fn verdicts_are_remembered_per_subject() {
        let rule = Rule::compile("properties.tier == 'gold' && entity == 'db1'").unwrap();
        let gold: BTreeMap<String, Property> =
            [("tier".to_owned(), Property::Str("gold".to_owned()))].into();
        let lead: BTreeMap<String, Property> =
            [("tier".to_owned(), Property::Str("lead".to_owned()))].into();
        for _ in 0..2 {
            assert!(rule.holds_for(&subject(&gold)));
            assert!(!rule.holds_for(&subject(&lead)));
            let other = Subject {
                entity: "db2",
                ..subject(&gold)
            };
            assert!(!rule.holds_for(&other));
            // entity empty (a policy rule judging a candidate): by product and version
            let candidate = Subject {
                entity: "",
                version: "5.7.1",
                ..subject(&gold)
            };
            assert!(!rule.holds_for(&candidate));
        }
        let any = Rule::compile("version == '5.7.1'").unwrap();
        for version in ["5.7.0", "5.7.1", "5.7.2", "5.7.1"] {
            let candidate = Subject {
                entity: "",
                version,
                ..subject(&gold)
            };
            assert_eq!(any.holds_for(&candidate), version == "5.7.1", "{version}");
        }
    }

    /// A rule keyed by what it reads: one over `properties` alone has one verdict per
    /// property map, whatever the entity, product or version; one that spells a variable
    /// (even only inside a string) is keyed by it too.
    #[test]
    fn verdicts_are_keyed_by_what_the_rule_reads() {
        let gold: BTreeMap<String, Property> =
            [("tier".to_owned(), Property::Str("gold".to_owned()))].into();
        let lead: BTreeMap<String, Property> =
            [("tier".to_owned(), Property::Str("lead".to_owned()))].into();
        let rule = Rule::compile("properties.tier == 'gold'").unwrap();
        let reads = rule.verdicts.reads;
        assert_eq!(reads.0, [true, false, false, false], "{VARIABLES:?}");
        let elsewhere = |properties| Subject {
            entity: "db9",
            product: "com.example:other",
            version: "1.0.0",
            properties,
        };
        assert_eq!(
            reads.key(&subject(&gold)),
            reads.key(&elsewhere(&gold)),
            "same properties, same key"
        );
        assert_ne!(reads.key(&subject(&gold)), reads.key(&subject(&lead)));
        assert!(rule.holds_for(&subject(&gold)) && rule.holds_for(&elsewhere(&gold)));
        assert!(!rule.holds_for(&subject(&lead)) && !rule.holds_for(&elsewhere(&lead)));
        let named = Rule::compile("entity == 'db1'").unwrap();
        let reads = named.verdicts.reads;
        assert_eq!(reads.0, [false, false, false, true], "{VARIABLES:?}");
        assert_ne!(reads.key(&subject(&gold)), reads.key(&elsewhere(&gold)));
        assert!(named.holds_for(&subject(&gold)) && !named.holds_for(&elsewhere(&gold)));
        // spelt inside a string: taken as read (conservative), never shared wrongly
        let spelt = Rule::compile("'version' == 'version'").unwrap();
        assert_eq!(spelt.verdicts.reads.0, [false, false, true, false]);
    }

    #[track_caller]
    fn check(text: &str, expected: Result<bool, &str>) {
        let properties: BTreeMap<String, Property> = [
            ("tier".to_owned(), Property::Str("gold".to_owned())),
            ("cores".to_owned(), Property::Number("8".to_owned())),
            ("ratio".to_owned(), Property::Number("0.5".to_owned())),
            ("certified".to_owned(), Property::Bool(true)),
        ]
        .into_iter()
        .collect();
        let got = Rule::compile(text).map(|r| r.holds_for(&subject(&properties)));
        assert_eq!(
            got.as_ref().map(|b| *b).map_err(String::as_str),
            expected,
            "{text}"
        );
    }

    #[test]
    fn rules_see_the_release() {
        check(r#"properties.tier == "gold""#, Ok(true));
        check("properties.cores >= 8 && properties.ratio < 1.0", Ok(true));
        check("properties.certified", Ok(true));
        check(
            r#"product == "com.example:db" && version == "5.7.0""#,
            Ok(true),
        );
        check(r#"entity.startsWith("db")"#, Ok(true));
        check("has(properties.missing)", Ok(false));
        check(r#"properties.exists(k, k == "tier")"#, Ok(true));
    }

    #[test]
    fn errors_and_non_booleans_are_false() {
        check("properties.missing == 1", Ok(false));
        check("1 + 1", Ok(false));
        check("1 / 0 == 1", Ok(false));
    }

    #[test]
    fn hostile_rules_are_refused() {
        let long = format!("{}true", "true && ".repeat(600));
        assert_eq!(
            Rule::compile(&long).unwrap_err(),
            "a rule may be at most 4096 bytes long, found 4804 bytes"
        );
        let deep = format!("{}true{}", "(".repeat(200), ")".repeat(200));
        check(
            &deep,
            Err("the rule nests deeper than the CEL parser allows (96 levels)"),
        );
        let sums = format!("{}1 > 0", "1 + ".repeat(500));
        check(
            &sums,
            Err("the rule nests 49 levels deep, at most 48 are allowed"),
        );
        let nested = "[1, 2].all(x, [1, 2].all(y, x + y > 0))";
        check(
            nested,
            Err(
                "a comprehension (`all`, `exists`, `exists_one`, `map`, `filter`) may not sit inside another one",
            ),
        );
        // each `.map` doubles what the one before built: 26 links were 1 GiB (issue 15)
        let doubling = format!(
            "['aaaaaaaaaaaaaaaa']{}.size() > 0",
            ".map(x, x + x)".repeat(26)
        );
        let chained = Err(
            "a comprehension (`all`, `exists`, `exists_one`, `map`, `filter`) may not walk the result of another one",
        );
        check(&doubling, chained);
        check("['a'].map(x, x + x).map(x, x + x).size() > 0", chained);
        check("properties.filter(k, k != 'tier').all(k, k != '')", chained);
        check("(['a'].map(x, x + x) + ['b']).exists(x, x == 'b')", chained);
        // an input that is itself inside a body is nested all the same
        check(
            "[1].all(x, [2].map(y, y).size() > 0)",
            Err(
                "a comprehension (`all`, `exists`, `exists_one`, `map`, `filter`) may not sit inside another one",
            ),
        );
        // `+` makes no value of more than 16 read values, inside a comprehension or not
        let sum = |term: &str, n: usize| vec![term; n].join(" + ");
        check(
            &format!("['ab'].exists(x, {} == '')", sum("x", 17)),
            Err("the rule adds up 17 values into one with `+`, at most 16 are allowed"),
        );
        check(
            &format!("({}).size() > 0", sum("properties.tier", 17)),
            Err("the rule adds up 17 values into one with `+`, at most 16 are allowed"),
        );
        // balanced, so the tree stays shallow: (x + x) + (x + x) ...
        let mut balanced = "x".to_owned();
        for _ in 0..5 {
            balanced = format!("({balanced} + {balanced})");
        }
        check(
            &format!("['ab'].exists(x, {balanced} == '')"),
            Err("the rule adds up 32 values into one with `+`, at most 16 are allowed"),
        );
        // an element counts once, a whole computed input as much as it is made of
        check(
            &format!("['ab', 'cd', 'ef'].map(x, {}).size() == 3", sum("x", 16)),
            Ok(true),
        );
        check(
            &format!("(['ab'] + ['cd']).map(x, {}).size() == 2", sum("x", 9)),
            Err("the rule adds up 18 values into one with `+`, at most 16 are allowed"),
        );
        // what is left evaluates at once: the biggest value a rule can build is small
        let wide = format!("['{}']", "a".repeat(3000));
        check(
            &format!("{wide}.exists(x, ({}).size() == 48000)", sum("x", 16)),
            Ok(true),
        );
        // long chains the parser balances or folds stay shallow, and evaluate
        check(&format!("{}true", "!".repeat(1000)), Ok(true));
        check(&format!("{}false", "false || ".repeat(400)), Ok(false));
        assert!(
            Rule::compile("properties.tier ==")
                .unwrap_err()
                .starts_with("the rule does not parse as CEL: ")
        );
    }

    #[test]
    fn rules_are_compiled_once() {
        let a = Rule::compile("properties.tier == 'x'").unwrap();
        let b = Rule::compile("properties.tier == 'x'").unwrap();
        assert!(Arc::ptr_eq(&a.program, &b.program));
    }
}
