//! Source locations and the typed errors for input that cannot be read (exit code 3).
//!
//! Every input error carries the file and, where the input was text, a 1-based line and column
//! computed by the parser. Errors are rendered once, at the edge (`cli`), as
//! `file:line:column: message`; messages are lowercase, say what was expected and what was
//! found, and put literals in backticks.

use std::fmt;
use std::sync::Arc;

/// How input read from standard input (an environment given as `-`) is named in locations.
pub const STDIN: &str = "<stdin>";

/// A 1-based line and column in a text file; `0:0` when unknown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    pub line: u32,
    pub column: u32,
}

impl Location {
    #[must_use]
    pub fn new(line: u32, column: u32) -> Location {
        Location { line, column }
    }

    /// The location of byte `offset` in `text` (columns count characters).
    #[must_use]
    pub fn of_offset(text: &[u8], offset: usize) -> Location {
        let before = &text[..offset.min(text.len())];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        Location::new(saturate(line), saturate(column))
    }

    #[must_use]
    pub fn is_known(self) -> bool {
        self.line > 0
    }
}

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A value read from a file, with the location it was read at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub location: Location,
}

/// A location in a named file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileLocation {
    pub file: Arc<str>,
    pub location: Location,
}

impl fmt::Display for FileLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.location.is_known() {
            write!(
                f,
                "{}:{}:{}",
                self.file, self.location.line, self.location.column
            )
        } else {
            f.write_str(&self.file)
        }
    }
}

/// Input that cannot be read as what it should be: missing or unreadable files, bad YAML,
/// wrong types, versions that are not versions, duplicate releases, name clashes.
#[derive(Clone, Debug, thiserror::Error)]
pub enum InputError {
    /// The file or directory could not be read at all.
    #[error("{path}: cannot read: {reason}")]
    Io { path: String, reason: String },
    /// A file could not be written (a full disk, a write error); nothing was changed.
    #[error("{path}: cannot write: {reason}")]
    Write { path: String, reason: String },
    /// The text was read but is not valid input; `at` says where.
    #[error("{at}: {message}")]
    Malformed { at: FileLocation, message: String },
    /// A command-line argument is not what it must be (`argument V`, `--max`).
    #[error("{argument}: {message}")]
    Argument { argument: String, message: String },
    /// Two different manifests describe the same release.
    #[error(
        "{second}: release `{release}` is also described, differently, at {first}; a release must have one manifest"
    )]
    DuplicateRelease {
        release: String,
        first: FileLocation,
        second: FileLocation,
    },
    /// Two layered catalogs (`--catalog` given more than once) describe the same release
    /// differently.
    #[error(
        "{second}: release `{release}` of catalog `{second_catalog}` is also described, differently, at {first} of catalog `{first_catalog}`; a release must have one manifest in all the catalogs given"
    )]
    LayerConflict {
        release: String,
        first: FileLocation,
        first_catalog: String,
        second: FileLocation,
        second_catalog: String,
    },
}

impl InputError {
    #[must_use]
    pub fn malformed(file: &Arc<str>, location: Location, message: impl Into<String>) -> Self {
        InputError::Malformed {
            at: FileLocation {
                file: Arc::clone(file),
                location,
            },
            message: message.into(),
        }
    }

    #[must_use]
    pub fn io(path: impl fmt::Display, error: &std::io::Error) -> Self {
        InputError::Io {
            path: path.to_string(),
            reason: io_reason(error),
        }
    }

    /// A file that could not be written.
    #[must_use]
    pub fn write(path: impl fmt::Display, error: &std::io::Error) -> Self {
        InputError::Write {
            path: path.to_string(),
            reason: io_reason(error),
        }
    }
}

impl InputError {
    /// Where the error is, as far as it is known: the file (and the line and column when the
    /// text was read); `None` for a command-line argument.
    #[must_use]
    pub fn file_location(&self) -> Option<FileLocation> {
        match self {
            InputError::Io { path, .. } | InputError::Write { path, .. } => Some(FileLocation {
                file: Arc::from(path.as_str()),
                location: Location::default(),
            }),
            InputError::Malformed { at, .. } => Some(at.clone()),
            InputError::DuplicateRelease { second, .. }
            | InputError::LayerConflict { second, .. } => Some(second.clone()),
            InputError::Argument { .. } => None,
        }
    }

    /// The message without its location prefix.
    #[must_use]
    pub fn reason(&self) -> String {
        match self {
            InputError::Io { reason, .. } => format!("cannot read: {reason}"),
            InputError::Write { reason, .. } => format!("cannot write: {reason}"),
            InputError::Malformed { message, .. } | InputError::Argument { message, .. } => {
                message.clone()
            }
            InputError::DuplicateRelease { release, first, .. } => format!(
                "release `{release}` is also described, differently, at {first}; a release must \
                 have one manifest"
            ),
            InputError::LayerConflict {
                release,
                first,
                first_catalog,
                second_catalog,
                ..
            } => format!(
                "release `{release}` of catalog `{second_catalog}` is also described, \
                 differently, at {first} of catalog `{first_catalog}`; a release must have one \
                 manifest in all the catalogs given"
            ),
        }
    }
}

fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        std::io::ErrorKind::IsADirectory => "is a directory, expected a file".to_owned(),
        _ => error.to_string().to_lowercase(),
    }
}

/// Every input error found in one load, so a user can fix all files in one round.
#[derive(Debug, thiserror::Error)]
#[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct InputErrors(pub Vec<InputError>);

impl From<InputError> for InputErrors {
    fn from(error: InputError) -> Self {
        InputErrors(vec![error])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_lines_and_character_columns() {
        let text = "ab\ncdé f\n".as_bytes();
        assert_eq!(Location::of_offset(text, 0), Location::new(1, 1));
        assert_eq!(Location::of_offset(text, 3), Location::new(2, 1));
        // `é` is two bytes but one column
        assert_eq!(Location::of_offset(text, 7), Location::new(2, 4));
        assert_eq!(Location::of_offset(text, 999), Location::new(3, 1));
    }

    #[test]
    fn file_locations_render_compiler_style() {
        let at = FileLocation {
            file: "a.yml".into(),
            location: Location::new(3, 7),
        };
        assert_eq!(at.to_string(), "a.yml:3:7");
        let unknown = FileLocation {
            file: "a.yml".into(),
            location: Location::default(),
        };
        assert_eq!(unknown.to_string(), "a.yml");
    }
}
