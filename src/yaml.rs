//! The one place that knows the YAML library (serde-saphyr): reading documents into serde
//! types, locating values, and turning parser errors into located messages.
//!
//! serde-saphyr was chosen over the archived `serde_yaml` because it reports a correct line and
//! column for every error (missing fields and duplicate keys included), keeps scalars as their
//! original text when a `String` is asked for (`1.10` stays `1.10`), and has no unsafe code.
//! Keeping it behind this module means a major-version bump touches only this file.
//!
//! Invariant: nothing outside this module names `serde_saphyr`.

use serde::de::{Deserialize, DeserializeOwned, Deserializer};

use crate::diagnostic::{Location, Spanned};

/// A YAML text that could not be read as the requested type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub location: Location,
    pub message: String,
}

/// Reads every document of a YAML (or JSON) stream; a stream with no documents gives none.
///
/// # Errors
/// The first syntax or type error, with its location.
pub fn documents<T: DeserializeOwned>(text: &str) -> Result<Vec<T>, YamlError> {
    let options = serde_saphyr::options! { with_snippet: false };
    serde_saphyr::from_multiple_with_options(text, options).map_err(|error| {
        let location = error
            .location()
            .map(|l| Location::new(to_u32(l.line()), to_u32(l.column())))
            .unwrap_or_default();
        YamlError {
            message: bare_message(&error.without_snippet().to_string(), location),
            location,
        }
    })
}

fn to_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The parser appends ` at line L, column C`; the location is rendered separately.
fn bare_message(message: &str, location: Location) -> String {
    let suffix = format!(" at line {}, column {}", location.line, location.column);
    message.strip_suffix(&suffix).unwrap_or(message).to_owned()
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Spanned<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = serde_saphyr::Spanned::<T>::deserialize(deserializer)?;
        Ok(Spanned {
            value: spanned.value,
            location: Location::new(
                to_u32(spanned.referenced.line()),
                to_u32(spanned.referenced.column()),
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Doc {
        name: Spanned<String>,
    }

    #[test]
    fn values_keep_their_text_and_location() {
        let docs: Vec<Doc> = documents("name: 1.10\n---\nname: \"x\"\n").unwrap();
        assert_eq!(docs[0].name.value, "1.10");
        assert_eq!(docs[0].name.location, Location::new(1, 7));
        assert_eq!(docs[1].name.location, Location::new(3, 7));
    }

    #[test]
    fn errors_are_located_without_a_repeated_suffix() {
        let error = documents::<Doc>("other: 1\n").unwrap_err();
        assert_eq!(error.message, "missing field `name`");
        assert_eq!(error.location, Location::new(1, 1));
        let error = documents::<Doc>("name: [1]\n").unwrap_err();
        assert_eq!(error.message, "expected string scalar");
        assert_eq!(error.location, Location::new(1, 7));
    }
}
