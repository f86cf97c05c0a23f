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
//!   at most [`MAX_DEPTH`] deep and [`MAX_NODES`] large, and no comprehension (`all`, `exists`,
//!   `map`, `filter`, ...) sits inside another one, so the cost of one evaluation is bounded by
//!   the rule's size times the size of the largest list it walks (a release's properties or a
//!   literal of the rule itself);
//! - evaluation never fails: an error or a value that is not a boolean is "false" for that
//!   release (SPEC 9.1).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use cel::common::ast::{EntryExpr, Expr};
use cel::{Context, Env, IdedExpr, Program, Value};

/// The longest rule text accepted, in bytes.
pub const MAX_RULE_BYTES: usize = 4096;
/// The deepest compiled expression tree accepted.
pub const MAX_DEPTH: usize = 48;
/// The largest compiled expression tree accepted, in nodes.
pub const MAX_NODES: usize = 2048;

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
/// and building a CEL context costs far more than looking the answer up. Found by a hash of
/// `entity`, `product` and `version` (one flat map, nothing allocated to look up), then every
/// field compared whole, properties too, so a verdict is only reused for an identical subject.
#[derive(Default)]
struct Verdicts(Mutex<Memo>);

#[derive(Default)]
struct Memo {
    /// How many verdicts `by_hash` holds.
    count: usize,
    by_hash: BTreeMap<u64, Vec<Remembered>>,
}

/// One remembered verdict: the subject it was given for, and what the rule gave.
struct Remembered {
    entity: String,
    product: String,
    version: String,
    properties: BTreeMap<String, Property>,
    holds: bool,
}

impl Remembered {
    fn judges(&self, subject: &Subject<'_>) -> bool {
        self.entity == subject.entity
            && self.product == subject.product
            && self.version == subject.version
            && self.properties == *subject.properties
    }
}

/// The memo's key: SipHash with fixed keys, the same in every run.
fn subject_hash(subject: &Subject<'_>) -> u64 {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    (subject.entity, subject.product, subject.version).hash(&mut hasher);
    hasher.finish()
}

impl Memo {
    fn get(&self, hash: u64, subject: &Subject<'_>) -> Option<bool> {
        self.by_hash
            .get(&hash)?
            .iter()
            .find(|r| r.judges(subject))
            .map(|r| r.holds)
    }

    fn insert(&mut self, hash: u64, subject: &Subject<'_>, holds: bool) {
        if self.count >= MAX_VERDICTS {
            *self = Memo::default();
        }
        self.by_hash.entry(hash).or_default().push(Remembered {
            entity: subject.entity.to_owned(),
            product: subject.product.to_owned(),
            version: subject.version.to_owned(),
            properties: subject.properties.clone(),
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
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
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

    /// Whether the rule is true for `subject`; an evaluation error or a value that is not a
    /// boolean is false.
    #[must_use]
    pub fn holds_for(&self, subject: &Subject<'_>) -> bool {
        let lock = || {
            self.verdicts
                .0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
        };
        let hash = subject_hash(subject);
        let known = lock().get(hash, subject);
        if let Some(holds) = known {
            return holds;
        }
        let holds = self.evaluate(subject);
        lock().insert(hash, subject, holds);
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
    Ok((Arc::new(program), Arc::default()))
}

/// The size of a compiled expression, measured without recursion (so a deep tree cannot
/// overflow the stack while it is being measured).
#[derive(Default)]
struct Shape {
    depth: usize,
    nodes: usize,
    nested_comprehension: bool,
}

impl Shape {
    fn of(root: &IdedExpr) -> Shape {
        let mut shape = Shape::default();
        // (node, depth, inside a comprehension)
        let mut stack: Vec<(&IdedExpr, usize, bool)> = vec![(root, 1, false)];
        while let Some((node, depth, inside)) = stack.pop() {
            shape.nodes += 1;
            shape.depth = shape.depth.max(depth);
            if shape.nodes > MAX_NODES || shape.depth > MAX_DEPTH {
                break;
            }
            let d = depth + 1;
            match &node.expr {
                Expr::Call(call) => {
                    stack.extend(call.target.iter().map(|t| (&**t, d, inside)));
                    stack.extend(call.args.iter().map(|a| (a, d, inside)));
                }
                Expr::Comprehension(c) => {
                    if inside {
                        shape.nested_comprehension = true;
                    }
                    stack.push((&c.iter_range, d, inside));
                    stack.push((&c.accu_init, d, inside));
                    stack.push((&c.loop_cond, d, true));
                    stack.push((&c.loop_step, d, true));
                    stack.push((&c.result, d, true));
                }
                Expr::List(list) => stack.extend(list.elements.iter().map(|e| (e, d, inside))),
                Expr::Map(map) => {
                    for entry in &map.entries {
                        match &entry.expr {
                            EntryExpr::MapEntry(e) => {
                                stack.push((&e.key, d, inside));
                                stack.push((&e.value, d, inside));
                            }
                            EntryExpr::StructField(f) => stack.push((&f.value, d, inside)),
                        }
                    }
                }
                Expr::Struct(s) => {
                    for entry in &s.entries {
                        match &entry.expr {
                            EntryExpr::MapEntry(e) => {
                                stack.push((&e.key, d, inside));
                                stack.push((&e.value, d, inside));
                            }
                            EntryExpr::StructField(f) => stack.push((&f.value, d, inside)),
                        }
                    }
                }
                Expr::Select(select) => stack.push((&select.operand, d, inside)),
                Expr::Unspecified | Expr::Ident(_) | Expr::Literal(_) => {}
            }
        }
        shape
    }
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
