//! Product identity: `group:name`, the way products are written everywhere.

use std::fmt;
use std::sync::Arc;

/// A product, ordered by group then name. Cheap to clone.
#[derive(Clone, Debug, Eq)]
pub struct ProductId {
    group: Arc<str>,
    name: Arc<str>,
    /// A hash of both parts, made once: ids that differ in it differ.
    print: u64,
}

impl PartialEq for ProductId {
    /// Equal parts: different products are told apart by their prints, without reading
    /// the text (the engine compares a declaration's product with a neighbour's for every
    /// value it judges, and most such pairs differ, often only a few bytes into names of
    /// one length), and each part is equal at once when both share it (ids a catalog read
    /// interns).
    fn eq(&self, other: &Self) -> bool {
        let same = |a: &Arc<str>, b: &Arc<str>| Arc::ptr_eq(a, b) || a == b;
        self.print == other.print
            && same(&self.name, &other.name)
            && same(&self.group, &other.group)
    }
}

impl Ord for ProductId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.group
            .cmp(&other.group)
            .then_with(|| self.name.cmp(&other.name))
    }
}

impl PartialOrd for ProductId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// FNV-1a over the group, a separator no part holds, and the name.
fn print(group: &str, name: &str) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let bytes = group.bytes().chain([b':']).chain(name.bytes());
    bytes.fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(PRIME)
    })
}

impl std::hash::Hash for ProductId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.group.hash(state);
        self.name.hash(state);
    }
}

impl ProductId {
    /// A product from its two parts.
    ///
    /// # Errors
    /// When a part is empty or holds whitespace or a `:`.
    pub fn new(group: &str, name: &str) -> Result<ProductId, String> {
        for (what, part) in [("product-group", group), ("product-name", name)] {
            if part.is_empty() {
                return Err(format!("expected a non-empty {what}"));
            }
            if part.contains(|c: char| c == ':' || c.is_whitespace()) {
                return Err(format!(
                    "expected a {what} without `:` or whitespace, found `{part}`"
                ));
            }
        }
        Ok(ProductId {
            group: group.into(),
            name: name.into(),
            print: print(group, name),
        })
    }

    /// Parses `group:name`.
    ///
    /// # Errors
    /// When the text is not two non-empty parts joined by one `:`.
    pub fn parse(text: &str) -> Result<ProductId, String> {
        let Some((group, name)) = text.split_once(':') else {
            return Err(format!(
                "expected a product as `group:name`, found `{text}`"
            ));
        };
        ProductId::new(group, name)
            .map_err(|_| format!("expected a product as `group:name`, found `{text}`"))
    }

    /// Whether `other` is a clone of this id (stored in the same place): a cheap test that
    /// finds most equal ids where one catalog read made them (it shares one id among the
    /// releases that name the same product), never a substitute for `==`.
    #[must_use]
    pub fn same(&self, other: &ProductId) -> bool {
        Arc::ptr_eq(&self.name, &other.name) && Arc::ptr_eq(&self.group, &other.group)
    }

    #[must_use]
    pub fn group(&self) -> &str {
        &self.group
    }

    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for ProductId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.group, self.name)
    }
}

impl serde::Serialize for ProductId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_group_and_name() {
        let p = ProductId::parse("org.postgresql:postgresql").unwrap();
        assert_eq!((p.group(), p.name()), ("org.postgresql", "postgresql"));
        assert_eq!(p.to_string(), "org.postgresql:postgresql");
        for bad in ["postgresql", ":x", "x:", "a:b:c", "a b:c", ""] {
            assert_eq!(
                ProductId::parse(bad).unwrap_err(),
                format!("expected a product as `group:name`, found `{bad}`")
            );
        }
    }

    #[test]
    fn equal_exactly_when_both_parts_are() {
        let ids = ["a:b", "a:c", "b:a", "ab:c", "a:bc", "a.b:c", "a:b.c"];
        for x in ids {
            for y in ids {
                let (p, q) = (ProductId::parse(x).unwrap(), ProductId::parse(y).unwrap());
                assert_eq!(p == q, x == y, "{x} {y}");
                assert_eq!(p.cmp(&q), (p.group(), p.name()).cmp(&(q.group(), q.name())));
            }
        }
    }

    #[test]
    fn orders_by_group_then_name() {
        let a = ProductId::parse("a.b:z").unwrap();
        let b = ProductId::parse("a.c:a").unwrap();
        assert!(a < b);
    }
}
