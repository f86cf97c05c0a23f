//! PostgreSQL's binary `COPY` format, the import's rows as the bytes the server reads: a
//! header, then per row its field count and each field as a length and its bytes (`-1` for
//! NULL), then a trailer. Written here rather than through the client's `BinaryCopyInWriter`,
//! which encodes through `ToSql` and hands the connection one row at a time (about a fifth
//! of compat's instructions in an import went there); this encodes whole chunks of rows on
//! any thread, and the connection gets them in large pieces.
//!
//! Only the types the catalog's tables use: `text` (its UTF-8 bytes), `bigint`, `integer`,
//! `boolean` (big-endian, as the format wants).

/// What starts a binary `COPY`: the signature, no flags, no header extension.
pub const HEADER: &[u8] = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0";

/// What ends it: a field count of -1.
pub const TRAILER: &[u8] = &[0xff, 0xff];

/// Rows of one table, encoded; at most 2 GiB per text, which a row that is too long marks.
#[derive(Debug, Default)]
pub struct Rows {
    bytes: Vec<u8>,
    too_long: bool,
}

impl Rows {
    /// Starts a row of `fields` fields (the caller writes exactly that many).
    pub fn row(&mut self, fields: i16) {
        self.bytes.extend_from_slice(&fields.to_be_bytes());
    }

    pub fn text(&mut self, text: &str) {
        if let Ok(len) = i32::try_from(text.len()) {
            self.bytes.extend_from_slice(&len.to_be_bytes());
            self.bytes.extend_from_slice(text.as_bytes());
        } else {
            self.too_long = true;
            self.null();
        }
    }

    pub fn optional_text(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.text(text),
            None => self.null(),
        }
    }

    pub fn bigint(&mut self, value: i64) {
        self.bytes.extend_from_slice(&8i32.to_be_bytes());
        self.bytes.extend_from_slice(&value.to_be_bytes());
    }

    pub fn integer(&mut self, value: i32) {
        self.bytes.extend_from_slice(&4i32.to_be_bytes());
        self.bytes.extend_from_slice(&value.to_be_bytes());
    }

    pub fn boolean(&mut self, value: bool) {
        self.bytes.extend_from_slice(&1i32.to_be_bytes());
        self.bytes.push(u8::from(value));
    }

    fn null(&mut self) {
        self.bytes.extend_from_slice(&(-1i32).to_be_bytes());
    }

    /// The encoded rows; `None` when a text did not fit the format.
    #[must_use]
    pub fn bytes(&self) -> Option<&[u8]> {
        (!self.too_long).then_some(&self.bytes[..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_encoded_as_the_server_reads_them() {
        let mut rows = Rows::default();
        rows.row(6);
        rows.bigint(-2);
        rows.integer(7);
        rows.text("é");
        rows.optional_text(None);
        rows.optional_text(Some(""));
        rows.boolean(true);
        let expected: Vec<u8> = [
            &[0, 6][..],
            &[0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe],
            &[0, 0, 0, 4, 0, 0, 0, 7],
            &[0, 0, 0, 2, 0xc3, 0xa9],
            &[0xff, 0xff, 0xff, 0xff],
            &[0, 0, 0, 0],
            &[0, 0, 0, 1, 1],
        ]
        .concat();
        assert_eq!(rows.bytes(), Some(&expected[..]));
        assert_eq!(HEADER.len(), 19);
    }
}
