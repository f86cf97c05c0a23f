//! Product identity: `group:name`, the way products are written everywhere.

use std::fmt;
use std::sync::Arc;

/// A product, ordered by group then name. Cheap to clone.
#[derive(Clone, Debug, Eq, PartialOrd, Ord)]
pub struct ProductId {
    group: Arc<str>,
    name: Arc<str>,
}

impl PartialEq for ProductId {
    /// Equal parts, the name compared first (it tells most products apart) and each part
    /// equal at once when both share it (ids a catalog read interns): the engine compares
    /// a declaration's product with a neighbour's for every value it judges.
    fn eq(&self, other: &Self) -> bool {
        let same = |a: &Arc<str>, b: &Arc<str>| Arc::ptr_eq(a, b) || a == b;
        same(&self.name, &other.name) && same(&self.group, &other.group)
    }
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
    fn orders_by_group_then_name() {
        let a = ProductId::parse("a.b:z").unwrap();
        let b = ProductId::parse("a.c:a").unwrap();
        assert!(a < b);
    }
}
