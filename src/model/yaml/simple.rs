//! A reader for the plain shape almost every manifest has (block mappings and sequences,
//! one scalar per line, plain or simply quoted; or one JSON object without escapes or nulls),
//! several times faster than the full YAML parser. It answers only when it is sure: anything outside that shape (flow collections,
//! anchors, tags, escapes, multi-line or null scalars, tabs, non-ASCII text, duplicate keys,
//! an input near a limit) gives `None`, and the caller reads the text with the full parser.
//!
//! Contract: whenever [`documents`] returns `Some`, the full parser reads the same text into
//! the same values at the same locations. [`super::cross_check`] tests this; the fuzzers and
//! property tests call it (for manifests and environments) on every input they make.

use crate::diagnostic::{Location, Spanned};

/// A YAML node of the simple shape; scalars are never null (null-like text is refused).
#[derive(Debug)]
pub enum Node<'t> {
    Scalar(&'t str),
    Map(Vec<(Spanned<&'t str>, Spanned<Node<'t>>)>),
    Seq(Vec<Spanned<Node<'t>>>),
}

/// The documents of `text`, each located where its top-level mapping's first key is, or
/// `None` when the text is not of the simple shape.
pub fn documents(text: &str) -> Option<Vec<Spanned<Node<'_>>>> {
    // printable ASCII and line feeds only: columns are byte offsets, no tab or CR rules apply
    if !text
        .bytes()
        .all(|b| b == b'\n' || (b' '..=b'~').contains(&b))
    {
        return None;
    }
    let limits = crate::limits::get();
    if text.trim_start_matches([' ', '\n']).starts_with('{') {
        return json::document(text, &limits).map(|doc| vec![doc]);
    }
    let mut reader = Reader {
        lines: Vec::new(),
        pos: 0,
        events: 0,
        depth: 0,
        max_depth: limits.depth.min(MAX_DEPTH).saturating_sub(2),
    };
    let mut documents = Vec::new();
    let mut started = false; // a document has content or was opened by `---`
    for (number, line) in text.split('\n').enumerate() {
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = line.len() - content.len();
        if indent == 0 && (line.starts_with("---") || line.starts_with("...")) {
            if line != "---" || (started && reader.lines.is_empty()) {
                return None; // markers with content, document ends, empty documents
            }
            // (a `---` that ends the text opens an empty document, which is skipped)
            if started {
                documents.push(reader.document()?);
            }
            started = true;
            continue;
        }
        if indent == 0 && line.starts_with('%') {
            return None; // directives
        }
        started = true;
        reader.lines.push(Line {
            number: u32::try_from(number + 1).ok()?,
            indent,
            content,
        });
    }
    if !reader.lines.is_empty() {
        documents.push(reader.document()?);
    } else if documents.is_empty() {
        return None; // no document: the full parser decides what that means
    }
    // stay well inside the limits the full parser enforces, so it would accept this too
    if documents.len() >= limits.documents || reader.events.saturating_mul(2) >= limits.nodes {
        return None;
    }
    Some(documents)
}

/// JSON documents (one object per file, as tools write manifests): objects, arrays, strings
/// without escapes, numbers, `true` and `false`. `null`, escapes, and anything after the
/// object give `None`.
mod json {
    use super::{Location, MAX_DEPTH, Node, Spanned, fresh_key};
    use crate::limits::Limits;

    pub(super) fn document<'t>(text: &'t str, limits: &Limits) -> Option<Spanned<Node<'t>>> {
        let mut reader = Json {
            text,
            pos: 0,
            line: 1,
            line_start: 0,
            depth: 0,
            max_depth: limits.depth.min(MAX_DEPTH).saturating_sub(2),
            events: 4,
        };
        reader.space();
        let node = reader.object()?;
        reader.space();
        let fits = reader.events.saturating_mul(2) < limits.nodes && limits.documents > 1;
        (reader.pos == text.len() && fits).then_some(node)
    }

    struct Json<'t> {
        text: &'t str,
        pos: usize,
        line: u32,
        line_start: usize,
        depth: usize,
        max_depth: usize,
        events: usize,
    }

    impl<'t> Json<'t> {
        fn peek(&self) -> Option<u8> {
            self.text.as_bytes().get(self.pos).copied()
        }

        fn location(&self) -> Option<Location> {
            Some(Location::new(
                self.line,
                u32::try_from(self.pos - self.line_start + 1).ok()?,
            ))
        }

        /// Spaces and line feeds (the text has no tabs or CRs; comments are not JSON).
        fn space(&mut self) {
            while let Some(b) = self.peek() {
                match b {
                    b' ' => self.pos += 1,
                    b'\n' => {
                        self.pos += 1;
                        self.line += 1;
                        self.line_start = self.pos;
                    }
                    _ => break,
                }
            }
        }

        fn eat(&mut self, byte: u8) -> Option<()> {
            self.space();
            (self.peek()? == byte).then(|| self.pos += 1)
        }

        fn value(&mut self) -> Option<Spanned<Node<'t>>> {
            self.space();
            match self.peek()? {
                b'{' => self.object(),
                b'[' => self.array(),
                b'"' => {
                    let location = self.location()?;
                    let text = self.string()?;
                    Some(self.scalar(text, location))
                }
                b'-' | b'0'..=b'9' | b't' | b'f' => {
                    let location = self.location()?;
                    let start = self.pos;
                    while self.peek().is_some_and(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+')
                    }) {
                        self.pos += 1;
                    }
                    let text = &self.text[start..self.pos];
                    let number = text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                        && text.starts_with(|c: char| c.is_ascii_digit());
                    (number || matches!(text, "true" | "false"))
                        .then(|| self.scalar(text, location))
                }
                _ => None, // null, and anything that is not JSON
            }
        }

        fn scalar(&mut self, text: &'t str, location: Location) -> Spanned<Node<'t>> {
            self.events += 1;
            Spanned {
                value: Node::Scalar(text),
                location,
            }
        }

        /// A string without escapes; the position is at its opening quote.
        fn string(&mut self) -> Option<&'t str> {
            let body = &self.text[self.pos + 1..];
            let end = body.find(['"', '\\', '\n'])?;
            if body.as_bytes()[end] != b'"' {
                return None;
            }
            self.pos += end + 2;
            Some(&body[..end])
        }

        fn enter(&mut self) -> Option<Location> {
            self.depth += 1;
            self.events += 2;
            let location = self.location()?;
            self.pos += 1;
            (self.depth <= self.max_depth).then_some(location)
        }

        fn object(&mut self) -> Option<Spanned<Node<'t>>> {
            let location = self.enter()?;
            let mut entries: Vec<(Spanned<&'t str>, Spanned<Node<'t>>)> = Vec::new();
            self.items(b'}', |json| {
                json.space();
                if json.peek()? != b'"' {
                    return None;
                }
                let at = json.location()?;
                let key = json.string()?;
                if !fresh_key(&entries, key) {
                    return None;
                }
                json.events += 1;
                json.eat(b':')?;
                let value = json.value()?;
                let key = Spanned {
                    value: key,
                    location: at,
                };
                entries.push((key, value));
                Some(())
            })?;
            self.depth -= 1;
            Some(Spanned {
                value: Node::Map(entries),
                location,
            })
        }

        fn array(&mut self) -> Option<Spanned<Node<'t>>> {
            let location = self.enter()?;
            let mut items = Vec::new();
            self.items(b']', |json| {
                items.push(json.value()?);
                Some(())
            })?;
            self.depth -= 1;
            Some(Spanned {
                value: Node::Seq(items),
                location,
            })
        }

        /// Items separated by commas up to `close` (no trailing comma), each read by `item`.
        fn items(
            &mut self,
            close: u8,
            mut item: impl FnMut(&mut Self) -> Option<()>,
        ) -> Option<()> {
            self.space();
            if self.peek()? == close {
                self.pos += 1;
                return Some(());
            }
            loop {
                item(self)?;
                self.space();
                match self.peek()? {
                    b',' => self.pos += 1,
                    b if b == close => {
                        self.pos += 1;
                        return Some(());
                    }
                    _ => return None,
                }
            }
        }
    }
}

/// Deeper nesting than this goes to the full parser (which has its own, configurable limit);
/// it also bounds this reader's recursion.
const MAX_DEPTH: usize = 32;

/// Mappings with more keys go to the full parser: duplicate detection here is quadratic.
const MAX_KEYS: usize = 256;

#[derive(Clone, Copy)]
struct Line<'t> {
    number: u32,
    /// Column of the content, 0-based.
    indent: usize,
    content: &'t str,
}

struct Reader<'t> {
    /// The content lines of the document being read.
    lines: Vec<Line<'t>>,
    pos: usize,
    /// Parser events so far (scalars, collection starts and ends, documents), for the limits.
    events: usize,
    depth: usize,
    max_depth: usize,
}

impl<'t> Reader<'t> {
    /// Reads the collected lines as one document whose top level is a mapping at column 1.
    fn document(&mut self) -> Option<Spanned<Node<'t>>> {
        self.events += 2;
        let first = self.lines.first()?;
        if first.indent != 0 || is_item(first.content) {
            return None;
        }
        let node = self.map(0)?;
        if self.pos != self.lines.len() {
            return None;
        }
        self.lines.clear();
        self.pos = 0;
        Some(node)
    }

    fn peek(&self) -> Option<&Line<'t>> {
        self.lines.get(self.pos)
    }

    fn location(line: &Line<'_>, column: usize) -> Option<Location> {
        Some(Location::new(line.number, u32::try_from(column + 1).ok()?))
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        self.events += 2;
        (self.depth <= self.max_depth).then_some(())
    }

    /// A block mapping whose keys stand at `indent`, starting at the current line.
    fn map(&mut self, indent: usize) -> Option<Spanned<Node<'t>>> {
        self.enter()?;
        let start = Self::location(self.peek()?, indent)?;
        let mut entries: Vec<(Spanned<&'t str>, Spanned<Node<'t>>)> = Vec::new();
        while let Some(&line) = self.peek() {
            if line.indent < indent {
                break;
            }
            if line.indent > indent || is_item(line.content) {
                return None;
            }
            let (key, rest) = split_key(line.content)?;
            if !fresh_key(&entries, key) {
                return None;
            }
            let key = Spanned {
                value: key,
                location: Self::location(&line, indent)?,
            };
            self.events += 1;
            let value_column = indent + line.content.len() - rest.len();
            let value = if rest.is_empty() || rest.starts_with('#') {
                self.pos += 1;
                self.block_value(indent)?
            } else {
                let node = self.inline(rest, value_column)?;
                self.pos += 1;
                node
            };
            entries.push((key, value));
        }
        self.depth -= 1;
        Some(Spanned {
            value: Node::Map(entries),
            location: start,
        })
    }

    /// The value of a key at `indent` whose line ends after the colon: a nested mapping or
    /// sequence, or a sequence at the key's own indentation.
    fn block_value(&mut self, indent: usize) -> Option<Spanned<Node<'t>>> {
        let next = self.peek()?;
        let item = is_item(next.content);
        if next.indent > indent {
            if item {
                self.seq(next.indent)
            } else {
                self.map(next.indent)
            }
        } else if next.indent == indent && item {
            self.seq(indent)
        } else {
            None // an empty value is null
        }
    }

    /// A block sequence whose dashes stand at `indent`, starting at the current line.
    fn seq(&mut self, indent: usize) -> Option<Spanned<Node<'t>>> {
        self.enter()?;
        let start = Self::location(self.peek()?, indent)?;
        let mut items = Vec::new();
        while let Some(&line) = self.peek() {
            if line.indent < indent || (line.indent == indent && !is_item(line.content)) {
                break;
            }
            if line.indent > indent {
                return None;
            }
            let after = line.content.strip_prefix("- ")?;
            let rest = after.trim_start_matches(' ');
            let column = indent + line.content.len() - rest.len();
            if rest.is_empty() || rest.starts_with('#') || is_item(rest) {
                return None;
            }
            if split_key(rest).is_some() {
                // the item is a mapping whose first key shares the dash's line
                self.lines[self.pos] = Line {
                    number: line.number,
                    indent: column,
                    content: rest,
                };
                items.push(self.map(column)?);
            } else {
                items.push(self.inline(rest, column)?);
                self.pos += 1;
            }
        }
        self.depth -= 1;
        Some(Spanned {
            value: Node::Seq(items),
            location: start,
        })
    }

    /// A value that fills the rest of the current line from `column` (a comment may follow):
    /// a simple scalar, `[]`, or a flow mapping of words on one line (`{}`, `{team: a}`).
    fn inline(&mut self, text: &'t str, column: usize) -> Option<Spanned<Node<'t>>> {
        let line = *self.peek()?;
        // parser events: a collection's start and end, each scalar
        let (value, events) = match text.get(..2) {
            Some("[]") if only_comment_after(&text[2..]) => (Node::Seq(Vec::new()), 2),
            _ if text.starts_with('{') => {
                let entries = Self::flow_map(&line, text, column)?;
                let events = 2 + 2 * entries.len();
                (Node::Map(entries), events)
            }
            _ => (Node::Scalar(scalar(text)?), 1),
        };
        self.events += events;
        Some(Spanned {
            value,
            location: Self::location(&line, column)?,
        })
    }

    /// The entries of a flow mapping that fills `text` (at `column` of `line`; a comment may
    /// follow): `{key: word, key: word}`, each key as a block key, each value a plain word
    /// ([`flow_word`]), spaces around them as the full parser allows. Anything else
    /// (nesting, quotes, a key without a value, a trailing comma) gives `None`.
    fn flow_map(
        line: &Line<'t>,
        text: &'t str,
        column: usize,
    ) -> Option<Vec<(Spanned<&'t str>, Spanned<Node<'t>>)>> {
        let close = text.find('}')?;
        if !only_comment_after(&text[close + 1..]) {
            return None;
        }
        let body = &text[1..close];
        let mut entries: Vec<(Spanned<&'t str>, Spanned<Node<'t>>)> = Vec::new();
        if body.trim_matches(' ').is_empty() {
            return Some(entries);
        }
        let mut at = column + 1; // the column of `body`'s first byte
        for item in body.split(',') {
            let key_text = item.trim_start_matches(' ');
            let key_column = at + item.len() - key_text.len();
            let (key, rest) = split_key(key_text)?;
            let value = flow_word(rest.trim_end_matches(' '))?;
            let value_column = key_column + key_text.len() - rest.len();
            if !fresh_key(&entries, key) {
                return None;
            }
            entries.push((
                Spanned {
                    value: key,
                    location: Self::location(line, key_column)?,
                },
                Spanned {
                    value: Node::Scalar(value),
                    location: Self::location(line, value_column)?,
                },
            ));
            at += item.len() + 1;
        }
        Some(entries)
    }
}

/// A plain scalar inside a flow collection, if it is one word of safe characters that the
/// full parser reads as the same text: a letter, digit, `.`, `_`, `/` or `+` first, then
/// those and `-`; never null.
fn flow_word(text: &str) -> Option<&str> {
    let mut bytes = text.bytes();
    let first_ok = bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'+'));
    let rest_ok =
        bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'/' | b'+'));
    (first_ok && rest_ok && !is_null(text)).then_some(text)
}

/// Whether `key` may join `entries`: not there yet (duplicate keys go to the full parser,
/// which reports them), and fewer than [`MAX_KEYS`] (the check is quadratic).
fn fresh_key(entries: &[(Spanned<&str>, Spanned<Node<'_>>)], key: &str) -> bool {
    entries.len() < MAX_KEYS && !entries.iter().any(|(k, _)| k.value == key)
}

/// A sequence entry line: `- ...` or a lone `-`.
fn is_item(content: &str) -> bool {
    content == "-" || content.starts_with("- ")
}

/// `key: rest` or `key:` with a simple key; the rest has its leading spaces removed. A
/// colon followed by anything but a space is part of the key, as in YAML's plain scalars
/// (`g:web: db`, a binding by product).
fn split_key(content: &str) -> Option<(&str, &str)> {
    let end = content
        .find(": ")
        .or_else(|| content.ends_with(':').then(|| content.len() - 1))?;
    let (key, after) = (&content[..end], &content[end + 1..]);
    let mut bytes = key.bytes();
    let first_ok = bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
    let rest_ok =
        bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'));
    if !first_ok || !rest_ok || key.ends_with(':') || is_null(key) {
        return None;
    }
    Some((key, after.trim_start_matches(' ')))
}

/// The value of a scalar that fills `text` (a comment may follow), if it is simple: plain
/// text of safe characters that is not null, or quoted text without escapes.
fn scalar(text: &str) -> Option<&str> {
    let (value, tail) = match text.as_bytes()[0] {
        quote @ (b'"' | b'\'') => {
            let body = &text[1..];
            let end = body.find(char::from(quote))?;
            let (value, tail) = (&body[..end], &body[end + 1..]);
            if value.contains('\\') || tail.starts_with(char::from(quote)) {
                return None; // escapes
            }
            (value, tail)
        }
        first if first.is_ascii_alphanumeric() || matches!(first, b'.' | b'_' | b'/' | b'+') => {
            let end = text.find(" #").unwrap_or(text.len());
            let (value, tail) = (text[..end].trim_end_matches(' '), &text[end..]);
            let safe = |b: u8| {
                b.is_ascii_alphanumeric() || matches!(b, b' ' | b'.' | b'_' | b'-' | b'+' | b'/')
            };
            // a colon only inside a word (`image:1.0`); `: ` would start a mapping
            let colons_inside = value
                .match_indices(':')
                .all(|(i, _)| value.as_bytes().get(i + 1).is_some_and(|b| *b != b' '));
            if !value.bytes().all(|b| safe(b) || b == b':') || !colons_inside || is_null(value) {
                return None;
            }
            (value, tail)
        }
        _ => return None,
    };
    only_comment_after(tail).then_some(value)
}

/// Whether `tail` (what follows a value) is only spaces and maybe a comment, which needs a
/// space before its `#`.
fn only_comment_after(tail: &str) -> bool {
    let rest = tail.trim_start_matches(' ');
    rest.is_empty() || (rest.starts_with('#') && rest.len() < tail.len())
}

fn is_null(text: &str) -> bool {
    matches!(text, "null" | "Null" | "NULL" | "~")
}

/// Whether the full parser surely reads scalar `text` as a string, whichever YAML it
/// follows: it starts with a letter and is no boolean or null of YAML 1.1 or 1.2 (`yes`,
/// `On`, `null`...; compared without case, which refuses a few words that are strings, and
/// without allocating: an environment's labels are read this way).
pub(super) fn surely_string(text: &str) -> bool {
    const TYPED: [&str; 9] = ["y", "n", "yes", "no", "on", "off", "true", "false", "null"];
    text.starts_with(|c: char| c.is_ascii_alphabetic())
        && !TYPED.iter().any(|w| text.eq_ignore_ascii_case(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn takes(text: &str) -> bool {
        documents(text).is_some()
    }

    #[test]
    fn reads_the_plain_shape_with_locations() {
        let text = "# c\n---\na: 1.10\nb:\n  - k: 'v'   # note\n    j: \"w\"\n  - x:1\nc: []\n";
        let docs = documents(text).unwrap();
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0].location, Location::new(3, 1));
        let Node::Map(top) = &docs[0].value else {
            panic!("a mapping")
        };
        let keys: Vec<_> = top.iter().map(|(k, _)| (k.value, k.location)).collect();
        assert_eq!(
            keys,
            [
                ("a", Location::new(3, 1)),
                ("b", Location::new(4, 1)),
                ("c", Location::new(8, 1))
            ]
        );
        assert!(matches!(top[0].1.value, Node::Scalar("1.10")));
        assert_eq!(top[0].1.location, Location::new(3, 4));
        let Node::Seq(items) = &top[1].1.value else {
            panic!("a sequence")
        };
        assert_eq!(items[0].location, Location::new(5, 5));
        let Node::Map(item) = &items[0].value else {
            panic!("a mapping")
        };
        assert!(matches!(item[0].1.value, Node::Scalar("v")));
        assert_eq!(item[0].1.location, Location::new(5, 8));
        assert_eq!(item[1].0.location, Location::new(6, 5));
        assert!(matches!(items[1].value, Node::Scalar("x:1")));
        assert!(matches!(&top[2].1.value, Node::Seq(s) if s.is_empty()));
    }

    #[test]
    fn sequences_may_stand_at_their_keys_indentation() {
        let docs = documents("a:\n- k: v\n  j: w\nb: x\n").unwrap();
        let Node::Map(top) = &docs[0].value else {
            panic!("a mapping")
        };
        assert!(matches!(&top[0].1.value, Node::Seq(s) if s.len() == 1));
        assert_eq!(top[1].0.location, Location::new(4, 1));
    }

    #[test]
    fn documents_split_on_markers_and_a_final_marker_adds_none() {
        assert_eq!(
            documents("a: x\n---\na: y\n---\n").map(|d| d.len()),
            Some(2)
        );
        assert_eq!(documents("---\na: x\n").map(|d| d.len()), Some(1));
    }

    #[test]
    fn anything_outside_the_shape_goes_to_the_full_parser() {
        for text in [
            "",
            "# only a comment\n",
            "---\n",
            "a: x\n---\n---\na: y\n", // empty document between
            "a:\n",                   // null
            "a: ~\n",
            "a: null\n",
            "a: x\n  y\n", // multi-line plain scalar
            "a: [x]\n",
            "a: {b: 'c'}\n", // flow mappings hold plain words only
            "a: {b: c d}\n",
            "a: {b: {c: d}}\n",
            "a: {b: c,}\n",
            "a: {b: c} x\n",
            "a: {b: c, b: d}\n",
            "a: {b:c}\n",
            "a: {b: ~}\n",
            "a: {b: -c}\n",
            "a: &x y\n",
            "a: *x\n",
            "a: !!str 1\n",
            "a: |\n  x\n",
            "a: >\n  x\n",
            "a: 'it''s'\n",
            "a: \"x\\ty\"\n",
            "a: x\r\n",
            "a:\tx\n",
            "a: é\n",
            "\u{feff}a: x\n",
            "a: x #y\n",    // allowed: comment; see below
            "a: x#y\n",     // `#` inside plain text
            "a: b: c\n",    // mapping in a value
            "a: x:\n",      // colon at the end
            "\"a\": x\n",   // quoted key
            "? a\n: x\n",   // complex key
            "a: x\na: y\n", // duplicate key
            "- a\n",        // top-level sequence
            "a: x\n b: y\n",
            "%YAML 1.2\n---\na: x\n",
            "a: x\n...\n",
            "--- a: x\n",
        ] {
            let expected = text == "a: x #y\n";
            assert_eq!(takes(text), expected, "{text:?}");
        }
    }

    #[test]
    fn flow_mappings_of_words_are_read_with_locations() {
        let docs = documents("a: {b: c,  d:   e.1 }  # x\nf: { }\n").unwrap();
        let Node::Map(top) = &docs[0].value else {
            panic!("a mapping")
        };
        assert_eq!(top[0].1.location, Location::new(1, 4));
        let Node::Map(flow) = &top[0].1.value else {
            panic!("a mapping")
        };
        let read: Vec<_> = flow
            .iter()
            .map(|(k, v)| (k.value, k.location, v.location))
            .collect();
        assert_eq!(
            read,
            [
                ("b", Location::new(1, 5), Location::new(1, 8)),
                ("d", Location::new(1, 12), Location::new(1, 17))
            ]
        );
        assert!(matches!(flow[1].1.value, Node::Scalar("e.1")));
        assert!(matches!(&top[1].1.value, Node::Map(m) if m.is_empty()));
    }

    #[test]
    fn json_objects_are_read_with_locations() {
        let docs = documents("{\n  \"a\": \"x\",\n  \"b\": [1.5, true, {}]\n}\n").unwrap();
        assert_eq!(docs[0].location, Location::new(1, 1));
        let Node::Map(top) = &docs[0].value else {
            panic!("a mapping")
        };
        assert_eq!(top[0].0.location, Location::new(2, 3));
        assert_eq!(top[0].1.location, Location::new(2, 8));
        assert!(matches!(top[0].1.value, Node::Scalar("x")));
        let Node::Seq(items) = &top[1].1.value else {
            panic!("a sequence")
        };
        assert!(matches!(items[0].value, Node::Scalar("1.5")));
        assert!(matches!(items[1].value, Node::Scalar("true")));
        assert_eq!(items[2].location, Location::new(3, 20));
        for text in [
            "{\"a\": null}",
            "{\"a\": \"x\\ny\"}",
            "{\"a\": -1}",
            "{\"a\": 1e5}",
            "{\"a\": \"x\",}",
            "{\"a\": \"x\"} x",
            "{\"a\": \"x\", \"a\": \"y\"}",
            "{\"a\": \"x\"",
            "{a: x}",
        ] {
            assert!(!takes(text), "{text:?}");
        }
    }

    #[test]
    fn deep_or_large_inputs_go_to_the_full_parser() {
        let lines = |n: usize, line: &dyn Fn(usize) -> String| -> String {
            (0..n).map(line).collect::<Vec<_>>().concat()
        };
        let deep = lines(MAX_DEPTH + 1, &|level| {
            format!("{}k{level}:\n", " ".repeat(level))
        });
        assert!(!takes(&(deep + &" ".repeat(MAX_DEPTH + 1) + "v: x\n")));
        let shallow = lines(4, &|level| format!("{}k{level}:\n", " ".repeat(level)));
        assert!(takes(&(shallow + "    v: x\n")));
        assert!(!takes(&lines(MAX_KEYS + 1, &|i| format!("k{i}: x\n"))));
        assert!(takes(&lines(MAX_KEYS / 2, &|i| format!("k{i}: x\n"))));
    }
}
