//! SLS product versions: grammar, classification and order (SPEC section 1).
//!
//! The rules that surprise people, all enforced here:
//! - Numbers are ASCII decimal with leading zeros allowed and read as numbers: `00.00.01` is
//!   `0.0.1`, and `9.9.01 == 9.9.1`. Every number is at most 2147483647.
//! - `1.10.0` is a version whose minor is ten; nothing here ever goes through a float.
//! - With the same `X.Y.Z`, every release candidate (and rc snapshot) sorts before the release,
//!   and every release snapshot after it: `1.0.0-rc1 < 1.0.0-rc1-5-ga < 1.0.0-rc2 < 1.0.0 <
//!   1.0.0-0-ga < 1.0.0-10-ga`.
//! - The commit hash of a snapshot never matters: `1.0.0-2-gaaa == 1.0.0-2-gbbb`.
//! - A string that fits only the loose `-[a-z0-9-]+` / `.dirty` suffix form is a valid but
//!   *non-orderable* version (`1.0.0-1-gxyz`, `1.0.0-rc-1`, `1.2.3.dirty`). It has no order
//!   with anything and equals only the identical string. So [`Version`] is `PartialOrd`, not
//!   `Ord`; [`Version::display_cmp`] gives a total order for listings.
//! - An rc number or commit count over the 32-bit limit does not fit an orderable form, but the
//!   text still fits the non-orderable form, so `1.0.0-rc99999999999` is non-orderable (a
//!   major, minor or patch over the limit is not a version at all).
//!
//! Invariant: `a == b` exactly when `a.partial_cmp(&b) == Some(Equal)`, and `Hash` agrees with
//! `==`. The original text is kept for display and is what `Display` prints.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{char, digit1};
use nom::combinator::{all_consuming, map, map_res, opt};
use nom::sequence::{preceded, terminated};
use nom::{IResult, Parser};

/// The largest number any version or matcher field may hold.
pub const MAX_NUMBER: u32 = 2_147_483_647;

/// Which of the five SLS version forms a version has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `X.Y.Z`
    Release,
    /// `X.Y.Z-rcN`
    ReleaseCandidate { rc: u32 },
    /// `X.Y.Z-N-gHASH`
    ReleaseSnapshot { commits: u32 },
    /// `X.Y.Z-rcN-M-gHASH`
    ReleaseCandidateSnapshot { rc: u32, commits: u32 },
    /// `X.Y.Z` with a free-form `-suffix` and/or `.dirty`
    NonOrderable,
}

impl Kind {
    /// The name SPEC section 8 uses for this form (`release-candidate`, ...).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Kind::Release => "release",
            Kind::ReleaseCandidate { .. } => "release-candidate",
            Kind::ReleaseSnapshot { .. } => "release-snapshot",
            Kind::ReleaseCandidateSnapshot { .. } => "release-candidate-snapshot",
            Kind::NonOrderable => "non-orderable",
        }
    }
}

/// A parsed SLS version; see the module documentation for its rules.
#[derive(Clone, Debug)]
pub struct Version {
    text: Box<str>,
    major: u32,
    minor: u32,
    patch: u32,
    kind: Kind,
}

/// The sort key of SPEC section 1, packed into two integers so that comparing two orderable
/// versions is two integer comparisons. `(M, m, p, tier, a, b)` becomes
/// `hi = M<<66 | m<<34 | p<<2 | tier` and `lo = a<<32 | (b + 1)`; every number is below 2^31,
/// so no field overlaps the next, and `b + 1` turns the rc form's `-1` into 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OrderKey(u128, u64);

impl OrderKey {
    fn new(core: (u32, u32, u32), tier: u8, a: u32, b_plus_one: u64) -> Self {
        let (major, minor, patch) = core;
        OrderKey(
            (u128::from(major) << 66)
                | (u128::from(minor) << 34)
                | (u128::from(patch) << 2)
                | u128::from(tier),
            (u64::from(a) << 32) | b_plus_one,
        )
    }

    /// The key of the release `major.minor.patch`.
    #[must_use]
    pub fn release(major: u32, minor: u32, patch: u32) -> Self {
        OrderKey::new((major, minor, patch), 1, 0, 1)
    }
}

/// Why a string is not a version (or not a matcher); rendered as a one-line message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VersionError {
    #[error("expected a version like `1.2.3`, found an empty string")]
    Empty,
    #[error("expected a version like `1.2.3`, found `{0}` (surrounding whitespace is not allowed)")]
    Whitespace(String),
    #[error("version number `{number}` in `{text}` is larger than {MAX_NUMBER}")]
    TooLarge { text: String, number: String },
    #[error("expected a version like `1.2.3`, `1.2.3-rc1` or `1.2.3-4-gabc12`, found `{0}`")]
    Invalid(String),
}

impl Version {
    /// Parses an SLS version; the text is kept as given.
    ///
    /// # Errors
    /// When `text` is not a version in any of the five forms.
    pub fn parse(text: &str) -> Result<Version, VersionError> {
        match parse_parts(text) {
            Some((major, minor, patch, kind)) => Ok(Version {
                text: text.into(),
                major,
                minor,
                patch,
                kind,
            }),
            None => Err(explain_invalid(text)),
        }
    }

    /// The text exactly as it was given.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    #[must_use]
    pub fn major(&self) -> u32 {
        self.major
    }

    #[must_use]
    pub fn minor(&self) -> u32 {
        self.minor
    }

    #[must_use]
    pub fn patch(&self) -> u32 {
        self.patch
    }

    #[must_use]
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// True for the four orderable forms.
    #[must_use]
    pub fn is_orderable(&self) -> bool {
        self.kind != Kind::NonOrderable
    }

    /// True for a plain `X.Y.Z` release.
    #[must_use]
    pub fn is_release(&self) -> bool {
        self.kind == Kind::Release
    }

    /// The sort key of SPEC section 1, or `None` for a non-orderable version.
    #[must_use]
    pub fn order_key(&self) -> Option<OrderKey> {
        let core = (self.major, self.minor, self.patch);
        match self.kind {
            Kind::ReleaseCandidate { rc } => Some(OrderKey::new(core, 0, rc, 0)),
            Kind::ReleaseCandidateSnapshot { rc, commits } => {
                Some(OrderKey::new(core, 0, rc, u64::from(commits) + 1))
            }
            Kind::Release => Some(OrderKey::new(core, 1, 0, 1)),
            Kind::ReleaseSnapshot { commits } => Some(OrderKey::new(core, 2, commits, 1)),
            Kind::NonOrderable => None,
        }
    }

    /// A text whose byte order is the version order (orderable versions first, by their
    /// sort key; then non-orderable ones by text) and whose equality is version equality:
    /// the key a database indexes releases by.
    #[must_use]
    pub fn storage_key(&self) -> String {
        // By hand rather than `format!`: an import computes one per release.
        if let Some(OrderKey(hi, lo)) = self.order_key() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let digits = (0..32)
                .rev()
                .map(|i| (hi >> (4 * i)) & 0xf)
                .chain((0..16).rev().map(|i| u128::from((lo >> (4 * i)) & 0xf)));
            digits
                .map(|d| char::from(HEX[usize::try_from(d).unwrap_or(0)]))
                .collect()
        } else {
            let mut key = String::with_capacity(self.text.len() + 1);
            key.push('~');
            key.push_str(&self.text);
            key
        }
    }

    /// A total order for listings: orderable versions ascending, equal ones by text, then the
    /// non-orderable ones by text. Consistent with `partial_cmp` wherever that is defined.
    #[must_use]
    pub fn display_cmp(&self, other: &Version) -> Ordering {
        match (self.order_key(), other.order_key()) {
            (Some(a), Some(b)) => a.cmp(&b).then_with(|| self.text.cmp(&other.text)),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => self.text.cmp(&other.text),
        }
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        match (self.order_key(), other.order_key()) {
            (Some(a), Some(b)) => a == b,
            (None, None) => self.text == other.text,
            _ => false,
        }
    }
}

impl Eq for Version {}

impl Hash for Version {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self.order_key() {
            Some(key) => key.hash(state),
            None => self.text.hash(state),
        }
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        match (self.order_key(), other.order_key()) {
            (Some(a), Some(b)) => Some(a.cmp(&b)),
            (None, None) if self.text == other.text => Some(Ordering::Equal),
            _ => None,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for Version {
    type Err = VersionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Version::parse(s)
    }
}

/// Reads a decimal number of at most [`MAX_NUMBER`]; leading zeros allowed.
pub(crate) fn number(input: &str) -> IResult<&str, u32> {
    map_res(digit1, |digits: &str| {
        let mut value: u64 = 0;
        for byte in digits.bytes() {
            value = value * 10 + u64::from(byte - b'0');
            if value > u64::from(MAX_NUMBER) {
                return Err(());
            }
        }
        u32::try_from(value).map_err(|_| ())
    })
    .parse(input)
}

fn core(input: &str) -> IResult<&str, (u32, u32, u32)> {
    (
        number,
        preceded(char('.'), number),
        preceded(char('.'), number),
    )
        .parse(input)
}

fn is_hex(c: char) -> bool {
    c.is_ascii_digit() || ('a'..='f').contains(&c)
}

/// `-N-gHASH`: a snapshot's commit count.
fn snapshot(input: &str) -> IResult<&str, u32> {
    preceded(
        char('-'),
        terminated(number, (tag("-g"), take_while1(is_hex))),
    )
    .parse(input)
}

/// Everything after `X.Y.Z` in the four orderable forms.
fn orderable_suffix(input: &str) -> IResult<&str, Kind> {
    alt((
        map(
            (preceded(tag("-rc"), number), opt(snapshot)),
            |(rc, commits)| match commits {
                Some(commits) => Kind::ReleaseCandidateSnapshot { rc, commits },
                None => Kind::ReleaseCandidate { rc },
            },
        ),
        map(snapshot, |commits| Kind::ReleaseSnapshot { commits }),
    ))
    .parse(input)
}

fn is_loose(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'
}

/// The non-orderable suffix: `-[a-z0-9-]+` and/or a final `.dirty`, not both absent.
fn loose_suffix(input: &str) -> IResult<&str, ()> {
    map(
        (
            opt(preceded(char('-'), take_while1(is_loose))),
            opt(tag(".dirty")),
        ),
        |_| (),
    )
    .parse(input)
}

fn parse_parts(text: &str) -> Option<(u32, u32, u32, Kind)> {
    let (rest, (major, minor, patch)) = core(text).ok()?;
    if rest.is_empty() {
        return Some((major, minor, patch, Kind::Release));
    }
    if let Ok((_, kind)) = all_consuming(orderable_suffix).parse(rest) {
        return Some((major, minor, patch, kind));
    }
    all_consuming(loose_suffix).parse(rest).ok()?;
    Some((major, minor, patch, Kind::NonOrderable))
}

/// Picks the most helpful message for a string that is not a version.
fn explain_invalid(text: &str) -> VersionError {
    if text.is_empty() {
        return VersionError::Empty;
    }
    if text.trim() != text {
        return VersionError::Whitespace(text.to_owned());
    }
    if let Some(number) = oversized_number(text.split(['-', '.']).take(3)) {
        return VersionError::TooLarge {
            text: text.to_owned(),
            number,
        };
    }
    VersionError::Invalid(text.to_owned())
}

/// The first all-digit field that exceeds [`MAX_NUMBER`], if any.
pub(crate) fn oversized_number<'a>(fields: impl Iterator<Item = &'a str>) -> Option<String> {
    fields
        .filter(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
        .find(|f| number(f).is_err())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn kind(text: &str, expected: &str) {
        let version = Version::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(version.kind().name(), expected, "{text}");
        assert_eq!(version.to_string(), text);
    }

    #[track_caller]
    fn invalid(text: &str, message: &str) {
        match Version::parse(text) {
            Ok(v) => panic!("{text:?} parsed as {:?}", v.kind()),
            Err(e) => assert_eq!(e.to_string(), message),
        }
    }

    #[track_caller]
    fn lt(a: &str, b: &str) {
        let (a, b) = (Version::parse(a).unwrap(), Version::parse(b).unwrap());
        assert_eq!(a.partial_cmp(&b), Some(Ordering::Less), "{a} < {b}");
        assert_eq!(b.partial_cmp(&a), Some(Ordering::Greater), "{b} > {a}");
        assert_ne!(a, b);
    }

    #[track_caller]
    fn eq(a: &str, b: &str) {
        let (a, b) = (Version::parse(a).unwrap(), Version::parse(b).unwrap());
        assert_eq!(a.partial_cmp(&b), Some(Ordering::Equal), "{a} = {b}");
        assert_eq!(a, b);
    }

    #[track_caller]
    fn unordered(a: &str, b: &str) {
        let (a, b) = (Version::parse(a).unwrap(), Version::parse(b).unwrap());
        assert_eq!(a.partial_cmp(&b), None, "{a} ? {b}");
        assert_ne!(a, b);
    }

    #[test]
    fn classifies_the_five_forms() {
        kind("1.2.3", "release");
        kind("0.0.0", "release");
        kind("00.00.01", "release");
        kind("2147483647.2147483647.2147483647", "release");
        kind("1.2.3-rc1", "release-candidate");
        kind("1.2.3-rc0", "release-candidate");
        kind("1.2.3-4-gabc12", "release-snapshot");
        kind("1.2.3-0-g0", "release-snapshot");
        kind("1.2.3-rc1-4-gabc12", "release-candidate-snapshot");
        kind("1.2.3-my-branch", "non-orderable");
        kind("1.2.3.dirty", "non-orderable");
        kind("1.2.3-4-gabc12.dirty", "non-orderable");
        kind("1.0.0-1-gxyz", "non-orderable");
        kind("1.0.0-rc-1", "non-orderable");
        kind("1.0.0-rc1-4-g", "non-orderable");
        kind("1.0.0-rc99999999999", "non-orderable");
        kind("1.0.0--", "non-orderable");
    }

    #[test]
    fn reads_fields() {
        let v = Version::parse("01.10.007-rc12-3-gdeadbeef").unwrap();
        assert_eq!((v.major(), v.minor(), v.patch()), (1, 10, 7));
        assert_eq!(
            v.kind(),
            Kind::ReleaseCandidateSnapshot { rc: 12, commits: 3 }
        );
        let v = Version::parse("4.5.6-some-branch").unwrap();
        assert_eq!((v.major(), v.minor(), v.patch()), (4, 5, 6));
    }

    #[test]
    fn rejects_non_versions() {
        let generic = |t: &str| {
            format!("expected a version like `1.2.3`, `1.2.3-rc1` or `1.2.3-4-gabc12`, found `{t}`")
        };
        for text in [
            "1.0",
            "v1.0.0",
            "1.0.0-FOO",
            "2.0.0-rc.1",
            "1.2.x",
            "1.2.3-",
            "1.2.3.",
            "1.2.3.4",
            "1.2.3-rc1.DIRTY",
            "1.2.3-4-gABC",
            "1..3",
            "-1.2.3",
            "1.2.3+build",
            "１.2.3",
            "1.2.3.dirty.dirty",
        ] {
            invalid(text, &generic(text));
        }
        invalid("", "expected a version like `1.2.3`, found an empty string");
        invalid(
            " 1.0.0",
            "expected a version like `1.2.3`, found ` 1.0.0` (surrounding whitespace is not allowed)",
        );
        invalid(
            "1.0.0\n",
            "expected a version like `1.2.3`, found `1.0.0\n` (surrounding whitespace is not allowed)",
        );
        invalid(
            "2147483648.0.0",
            "version number `2147483648` in `2147483648.0.0` is larger than 2147483647",
        );
        invalid(
            "1.99999999999999999999999.0",
            "version number `99999999999999999999999` in `1.99999999999999999999999.0` is larger than 2147483647",
        );
    }

    #[test]
    fn orders_as_spec_section_1() {
        let chain = [
            "1.0.0-rc1",
            "1.0.0-rc1-5-ga",
            "1.0.0-rc2",
            "1.0.0-rc10",
            "1.0.0",
            "1.0.0-0-ga",
            "1.0.0-10-ga",
            "1.0.1-rc1",
            "1.0.1",
            "1.1.0",
            "1.10.0",
            "2.0.0-rc0",
        ];
        for (i, a) in chain.iter().enumerate() {
            for b in &chain[i + 1..] {
                lt(a, b);
            }
        }
        lt("1.0.0-rc1-5-ga", "1.0.0-rc1-6-ga");
        lt("1.0.0-rc1-99-ga", "1.0.0-rc2");
        lt("0.0.9", "0.1.0");
        lt("1.2.3-rc4", "1.2.3");
        lt("1.2.3", "1.2.3-4-gabc");
    }

    #[test]
    fn equality_ignores_hash_and_leading_zeros() {
        eq("1.0.0-2-gaaa", "1.0.0-2-gbbb");
        eq("9.9.01", "9.9.1");
        eq("00.00.01", "0.0.1");
        eq("1.0.0-rc01", "1.0.0-rc1");
        eq("1.0.0-rc1-02-gab", "1.0.0-rc1-2-gcd");
        eq("1.2.3-branch", "1.2.3-branch");
    }

    #[test]
    fn non_orderable_versions_have_no_order() {
        unordered("1.2.3-branch", "1.2.3");
        unordered("1.2.3-branch", "1.2.3-other");
        unordered("1.2.3.dirty", "1.2.3");
        unordered("01.2.3-branch", "1.2.3-branch");
    }

    #[test]
    fn storage_keys_sort_like_versions_and_equal_like_versions() {
        let chain = [
            "0.0.1",
            "1.0.0-rc1",
            "1.0.0-rc1-5-ga",
            "1.0.0",
            "1.0.0-3-gab",
            "1.10.0",
            "1.0.0-a",
        ];
        let keys: Vec<String> = chain
            .iter()
            .map(|v| Version::parse(v).unwrap().storage_key())
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        let key = |v: &str| Version::parse(v).unwrap().storage_key();
        assert_eq!(key("01.0.0-2-gaaa"), key("1.0.0-2-gbbb"));
        assert_ne!(key("1.0.0-a"), key("1.0.0-b"));
        // stored catalogs hold these keys: their spelling must never change
        assert_eq!(key("1.0.0-a"), "~1.0.0-a");
        for v in ["0.0.1", "1.0.0-rc1-5-ga", "999999.7.65535-3-gab", "1.10.0"] {
            let OrderKey(hi, lo) = Version::parse(v).unwrap().order_key().unwrap();
            assert_eq!(key(v), format!("{hi:032x}{lo:016x}"), "{v}");
        }
    }

    #[test]
    fn display_order_is_total() {
        let mut list: Vec<Version> = ["1.2.3-b", "1.0.0", "1.2.3-a", "01.0.0", "0.9.0-rc1"]
            .iter()
            .map(|t| Version::parse(t).unwrap())
            .collect();
        list.sort_by(Version::display_cmp);
        let texts: Vec<&str> = list.iter().map(Version::as_str).collect();
        assert_eq!(
            texts,
            ["0.9.0-rc1", "01.0.0", "1.0.0", "1.2.3-a", "1.2.3-b"]
        );
    }
}
