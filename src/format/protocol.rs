//! Kafka message-protocol field encodings used inside records: fixed-width ints, int16-length
//! strings, and the "flexible" encodings (compact strings and arrays with N+1 lengths, tagged
//! fields) of KRaft control records and newer coordinator records.

use base64::Engine;

use super::reader::{DecodeError, DecodeResult, Reader};

impl<'a> Reader<'a> {
    /// int16 length + UTF-8 (length -1 = null).
    pub fn nullable_string(&mut self, what: &str) -> DecodeResult<Option<&'a str>> {
        let at = self.position();
        match self.i16(what)? {
            -1 => Ok(None),
            n if n < 0 => Err(DecodeError::length(
                at,
                format!("{what}: invalid string length {n}"),
            )),
            n => self.utf8(n as usize, what).map(Some),
        }
    }

    pub fn string(&mut self, what: &str) -> DecodeResult<&'a str> {
        let at = self.position();
        self.nullable_string(what)?.ok_or_else(|| {
            DecodeError::invalid(at, format!("{what}: null string where one is required"))
        })
    }

    /// Unsigned varint N+1 length + UTF-8 (0 = null).
    pub fn compact_nullable_string(&mut self, what: &str) -> DecodeResult<Option<&'a str>> {
        match self.uvarint(what)? {
            0 => Ok(None),
            n => self.utf8((n - 1) as usize, what).map(Some),
        }
    }

    pub fn compact_string(&mut self, what: &str) -> DecodeResult<&'a str> {
        let at = self.position();
        self.compact_nullable_string(what)?.ok_or_else(|| {
            DecodeError::invalid(at, format!("{what}: null string where one is required"))
        })
    }

    /// int32 length + bytes (-1 = null).
    pub fn nullable_bytes32(&mut self, what: &str) -> DecodeResult<Option<&'a [u8]>> {
        let at = self.position();
        match self.i32(what)? {
            -1 => Ok(None),
            n if n < 0 => Err(DecodeError::length(
                at,
                format!("{what}: invalid length {n}"),
            )),
            n => self.bytes(n as usize, what).map(Some),
        }
    }

    pub fn compact_nullable_bytes(&mut self, what: &str) -> DecodeResult<Option<&'a [u8]>> {
        match self.uvarint(what)? {
            0 => Ok(None),
            n => self.bytes((n - 1) as usize, what).map(Some),
        }
    }

    /// int32 element count (-1 = null). The count is checked against the bytes left, assuming
    /// each element takes at least `min_element_size` bytes, so it can size nothing hostile.
    pub fn array_len(
        &mut self,
        what: &str,
        min_element_size: usize,
    ) -> DecodeResult<Option<usize>> {
        let at = self.position();
        match self.i32(what)? {
            -1 => Ok(None),
            n if n < 0 => Err(DecodeError::length(
                at,
                format!("{what}: invalid array length {n}"),
            )),
            n => self
                .check_count(at, n as usize, min_element_size, what)
                .map(Some),
        }
    }

    pub fn compact_array_len(
        &mut self,
        what: &str,
        min_element_size: usize,
    ) -> DecodeResult<Option<usize>> {
        let at = self.position();
        match self.uvarint(what)? {
            0 => Ok(None),
            n => self
                .check_count(at, (n - 1) as usize, min_element_size, what)
                .map(Some),
        }
    }

    fn check_count(&self, at: usize, n: usize, min: usize, what: &str) -> DecodeResult<usize> {
        if n.saturating_mul(min.max(1)) > self.remaining() {
            return Err(DecodeError::length(
                at,
                format!(
                    "{what}: {n} elements cannot fit in {} bytes",
                    self.remaining()
                ),
            ));
        }
        Ok(n)
    }

    /// Skips a tagged-field section, returning the number of fields it held.
    pub fn skip_tagged_fields(&mut self) -> DecodeResult<u32> {
        let count = self.uvarint("tagged field count")?;
        for _ in 0..count {
            self.uvarint("tag")?;
            let size = self.uvarint("tagged field size")?;
            self.skip(size as usize, "tagged field")?;
        }
        Ok(count)
    }

    fn utf8(&mut self, len: usize, what: &str) -> DecodeResult<&'a str> {
        let at = self.position();
        let b = self.bytes(len, what)?;
        std::str::from_utf8(b)
            .map_err(|_| DecodeError::invalid(at, format!("{what}: invalid UTF-8")))
    }
}

/// Kafka's `Uuid.toString()`: URL-safe Base64 of the 16 bytes, without padding.
pub fn uuid_string(uuid: &[u8; 16]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(uuid)
}

/// Parses Kafka's Uuid string form.
pub fn parse_uuid(s: &str) -> Option<[u8; 16]> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(s.trim())
        .ok()?;
    bytes.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_topic_id() {
        let mut u = [0u8; 16];
        u[15] = 1;
        assert_eq!(uuid_string(&u), "AAAAAAAAAAAAAAAAAAAAAQ");
        assert_eq!(parse_uuid("AAAAAAAAAAAAAAAAAAAAAQ"), Some(u));
    }

    #[test]
    fn hostile_array_lengths_are_refused() {
        let data = [0x7f, 0xff, 0xff, 0xff, 0, 0];
        assert!(Reader::new(&data).array_len("a", 4).is_err());
        let compact = [0xff, 0xff, 0xff, 0xff, 0x07];
        assert!(Reader::new(&compact).compact_array_len("a", 1).is_err());
    }
}
