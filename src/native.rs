//! The native encoding: how arrays and plain `stdClass` objects of scalars, strings, arrays and
//! such objects are stored without PHP's serializer. It lives outside `php` so that the decoder, which reads bytes copied out of
//! the shared region, can be unit-tested and fuzzed without PHP; `php::codec` encodes zvals
//! into it and decodes through [`decode`] with a sink that builds the PHP array.
//!
//! Layout, every integer little-endian:
//!
//! ```text
//! array   = count:u32 element{count}
//! element = key value
//! key     = K_INT i64 | K_STRING len:u32 byte{len}
//! value   = T_NULL | T_FALSE | T_TRUE | T_INT i64 | T_DOUBLE f64
//!         | T_STRING len:u32 byte{len} | T_ARRAY array | T_OBJECT array
//! ```
//!
//! The `array` after T_OBJECT is a stdClass's property table: its keys are all K_STRING (PHP
//! keeps even "0" as a string there). A stored value is one `array` and nothing after it, read
//! as an [`Table::Array`] or, for a stdClass value, as a [`Table::Object`]; tables nest at most
//! [`MAX_DEPTH`] levels below the outer one. The entry checksum makes damaged bytes very unlikely to get
//! here, not impossible (a forged or colliding checksum, a writer bug), so the decoder trusts
//! nothing: every read is bounds-checked and any malformed input is refused as a whole.

/// Deepest nesting stored natively (the outer array is depth 0); deeper arrays go through
/// serialize(), which has its own limits.
pub const MAX_DEPTH: u32 = 64;

// Value tags.
pub const T_NULL: u8 = 0;
pub const T_FALSE: u8 = 1;
pub const T_TRUE: u8 = 2;
pub const T_INT: u8 = 3;
pub const T_DOUBLE: u8 = 4;
pub const T_STRING: u8 = 5;
pub const T_ARRAY: u8 = 6;
pub const T_OBJECT: u8 = 7;
// Key tags.
pub const K_INT: u8 = 0;
pub const K_STRING: u8 = 1;

/// The smallest element: a K_STRING key of length 0 and a tag-only value.
const MIN_ELEMENT_LEN: usize = 6;

/// What a stored table becomes: a PHP array, or the property table of a stdClass object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Array,
    Object,
}

/// An array key as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key<'a> {
    Int(i64),
    Bytes(&'a [u8]),
}

/// An element's value as decoded; `A` is the sink's array type.
#[derive(Debug)]
pub enum Item<'a, A> {
    Null,
    Bool(bool),
    Int(i64),
    Double(f64),
    String(&'a [u8]),
    Array(A),
    /// A stdClass: its property table, built like an array.
    Object(A),
}

/// Receives a decoded array. Elements arrive in stored order; a nested array arrives as one
/// [`Item::Array`] once all of its own elements have arrived. When the input turns out to be
/// malformed, [`decode`] drops whatever the sink built so far.
pub trait Sink<'a> {
    type Array;
    /// A new array about to receive `count` elements. `count` fits in a u32, and the counts of
    /// one input add up to at most its length / 6 (the least an element takes), so reserving
    /// room for them up front is safe; the input may still end malformed before they come.
    fn begin_array(&mut self, count: usize) -> Self::Array;
    fn element(&mut self, array: &mut Self::Array, key: Key<'a>, item: Item<'a, Self::Array>);
}

/// Decodes one stored array into `sink`; None when `bytes` is not exactly one well-formed array
/// (bad tag, truncated, a count the bytes cannot hold, deeper than [`MAX_DEPTH`], trailing
/// bytes).
#[inline]
pub fn decode<'a, S: Sink<'a>>(bytes: &'a [u8], sink: &mut S) -> Option<S::Array> {
    decode_table(bytes, Table::Array, sink)
}

/// [`decode`], for a value stored as `table`: a [`Table::Object`] (a stdClass's properties)
/// must also have only string keys.
#[inline]
pub fn decode_table<'a, S: Sink<'a>>(
    bytes: &'a [u8],
    table: Table,
    sink: &mut S,
) -> Option<S::Array> {
    let mut reader = Reader { bytes, at: 0, unannounced: bytes.len() / MIN_ELEMENT_LEN, sink };
    let array = reader.array(0, table)?;
    (reader.at == bytes.len()).then_some(array)
}

/// The sink rides along in here rather than as an argument of every recursive call: one
/// register fewer in the per-element loop, which is on the path of every array read.
struct Reader<'a, 's, S> {
    bytes: &'a [u8],
    at: usize,
    /// How many more elements the counts still to come may announce, at every depth.
    unannounced: usize,
    sink: &'s mut S,
}

impl<'a, S: Sink<'a>> Reader<'a, '_, S> {
    #[inline]
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(s)
    }

    #[inline]
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    #[inline]
    fn u32(&mut self) -> Option<usize> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize)
    }

    #[inline]
    fn le8(&mut self) -> Option<[u8; 8]> {
        self.take(8)?.try_into().ok()
    }

    fn array(&mut self, depth: u32, table: Table) -> Option<S::Array> {
        if depth > MAX_DEPTH {
            return None;
        }
        let count = self.u32()?;
        // Every element owns at least MIN_ELEMENT_LEN bytes that no other element shares (its
        // key and its value tag), and its own elements come after the count: check both before
        // the sink reserves room, so that corrupt counts, even one at every depth, never cost
        // more than the input's length / MIN_ELEMENT_LEN reserved elements in all. Checked per
        // array, not per element, to keep the element loop as it was.
        if count > (self.bytes.len() - self.at) / MIN_ELEMENT_LEN {
            return None;
        }
        self.unannounced = self.unannounced.checked_sub(count)?;
        let mut array = self.sink.begin_array(count);
        for _ in 0..count {
            let key = match self.u8()? {
                K_INT if table == Table::Array => Key::Int(i64::from_le_bytes(self.le8()?)),
                K_STRING => {
                    let n = self.u32()?;
                    Key::Bytes(self.take(n)?)
                }
                _ => return None,
            };
            let item = match self.u8()? {
                T_NULL => Item::Null,
                T_FALSE => Item::Bool(false),
                T_TRUE => Item::Bool(true),
                T_INT => Item::Int(i64::from_le_bytes(self.le8()?)),
                T_DOUBLE => Item::Double(f64::from_le_bytes(self.le8()?)),
                T_STRING => {
                    let n = self.u32()?;
                    Item::String(self.take(n)?)
                }
                T_ARRAY => Item::Array(self.array(depth + 1, Table::Array)?),
                T_OBJECT => Item::Object(self.array(depth + 1, Table::Object)?),
                _ => return None,
            };
            self.sink.element(&mut array, key, item);
        }
        Some(array)
    }
}

/// An owned array key, for building values in Rust (tests, fuzzing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnedKey {
    Int(i64),
    Bytes(Vec<u8>),
}

/// An owned value tree, for building values in Rust (tests, fuzzing). Doubles compare by their
/// bits, so a round trip must give back exactly the same NaN.
#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Double(f64),
    String(Vec<u8>),
    Array(Vec<(OwnedKey, Value)>),
    /// A stdClass's properties (byte keys, or it does not decode).
    Object(Vec<(OwnedKey, Value)>),
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Double(a), Value::Double(b)) => a.to_bits() == b.to_bits(),
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => a == b,
            (Value::Object(a), Value::Object(b)) => a == b,
            _ => false,
        }
    }
}

/// The elements of the array `bytes` encodes, or None when it is malformed.
pub fn decode_tree(bytes: &[u8]) -> Option<Vec<(OwnedKey, Value)>> {
    decode(bytes, &mut TreeSink)
}

/// [`decode_tree`] for a value stored as `table`.
pub fn decode_tree_as(bytes: &[u8], table: Table) -> Option<Vec<(OwnedKey, Value)>> {
    decode_table(bytes, table, &mut TreeSink)
}

/// Builds owned [`Value`]s.
pub struct TreeSink;

impl<'a> Sink<'a> for TreeSink {
    type Array = Vec<(OwnedKey, Value)>;

    fn begin_array(&mut self, count: usize) -> Self::Array {
        Vec::with_capacity(count)
    }

    fn element(&mut self, array: &mut Self::Array, key: Key<'a>, item: Item<'a, Self::Array>) {
        let key = match key {
            Key::Int(i) => OwnedKey::Int(i),
            Key::Bytes(b) => OwnedKey::Bytes(b.to_vec()),
        };
        let value = match item {
            Item::Null => Value::Null,
            Item::Bool(b) => Value::Bool(b),
            Item::Int(i) => Value::Int(i),
            Item::Double(d) => Value::Double(d),
            Item::String(s) => Value::String(s.to_vec()),
            Item::Array(a) => Value::Array(a),
            Item::Object(o) => Value::Object(o),
        };
        array.push((key, value));
    }
}

/// Encodes an array (or the properties of a stdClass value) exactly as `php::codec` encodes a
/// PHP value with the same keys and values
/// (no depth limit here: an array nested deeper than [`MAX_DEPTH`] encodes, and fails to
/// decode, which is what tests want to see).
pub fn encode(array: &[(OwnedKey, Value)], out: &mut Vec<u8>) {
    put_len(out, array.len());
    for (key, value) in array {
        match key {
            OwnedKey::Int(i) => {
                out.push(K_INT);
                out.extend_from_slice(&i.to_le_bytes());
            }
            OwnedKey::Bytes(b) => {
                out.push(K_STRING);
                put_len(out, b.len());
                out.extend_from_slice(b);
            }
        }
        match value {
            Value::Null => out.push(T_NULL),
            Value::Bool(false) => out.push(T_FALSE),
            Value::Bool(true) => out.push(T_TRUE),
            Value::Int(i) => {
                out.push(T_INT);
                out.extend_from_slice(&i.to_le_bytes());
            }
            Value::Double(d) => {
                out.push(T_DOUBLE);
                out.extend_from_slice(&d.to_le_bytes());
            }
            Value::String(s) => {
                out.push(T_STRING);
                put_len(out, s.len());
                out.extend_from_slice(s);
            }
            Value::Array(inner) => {
                out.push(T_ARRAY);
                encode(inner, out);
            }
            Value::Object(properties) => {
                out.push(T_OBJECT);
                encode(properties, out);
            }
        }
    }
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    let n = u32::try_from(n).expect("the native encoding holds lengths up to u32::MAX");
    out.extend_from_slice(&n.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_key(s: &str) -> OwnedKey {
        OwnedKey::Bytes(s.as_bytes().to_vec())
    }

    fn enc(array: &[(OwnedKey, Value)]) -> Vec<u8> {
        let mut out = Vec::new();
        encode(array, &mut out);
        out
    }

    fn sample() -> Vec<(OwnedKey, Value)> {
        vec![
            (OwnedKey::Int(0), Value::Null),
            (OwnedKey::Int(-1), Value::Bool(false)),
            (OwnedKey::Int(i64::MAX), Value::Bool(true)),
            (bytes_key("int"), Value::Int(i64::MIN)),
            (bytes_key("double"), Value::Double(-0.0)),
            (bytes_key("nan"), Value::Double(f64::from_bits(0x7ff8_0000_dead_beef))),
            (OwnedKey::Bytes(vec![0, 0xff, b'\n']), Value::String(vec![0, 1, 2, 0xfe])),
            (bytes_key(""), Value::String(Vec::new())),
            (bytes_key("empty"), Value::Array(Vec::new())),
            (
                bytes_key("nested"),
                Value::Array(vec![(
                    OwnedKey::Int(7),
                    Value::Array(vec![(bytes_key("x"), Value::Int(1))]),
                )]),
            ),
        ]
    }

    /// `depth` arrays nested inside the outer one.
    fn nested(depth: u32) -> Vec<(OwnedKey, Value)> {
        let mut v = Vec::new();
        for _ in 0..depth {
            v = vec![(OwnedKey::Int(0), Value::Array(v))];
        }
        v
    }

    #[test]
    fn layout_is_pinned() {
        // ["a" => 1, 5 => "xy", 6 => [null]] as PHP's side of the codec writes it.
        let v = vec![
            (bytes_key("a"), Value::Int(1)),
            (OwnedKey::Int(5), Value::String(b"xy".to_vec())),
            (OwnedKey::Int(6), Value::Array(vec![(OwnedKey::Int(0), Value::Null)])),
        ];
        #[rustfmt::skip]
        let expected: Vec<u8> = [
            &[3, 0, 0, 0][..],
            &[K_STRING, 1, 0, 0, 0, b'a', T_INT, 1, 0, 0, 0, 0, 0, 0, 0],
            &[K_INT, 5, 0, 0, 0, 0, 0, 0, 0, T_STRING, 2, 0, 0, 0, b'x', b'y'],
            &[K_INT, 6, 0, 0, 0, 0, 0, 0, 0, T_ARRAY, 1, 0, 0, 0],
            &[K_INT, 0, 0, 0, 0, 0, 0, 0, 0, T_NULL],
        ]
        .concat();
        assert_eq!(enc(&v), expected);
        assert_eq!(decode_tree(&expected), Some(v));
    }

    /// A stdClass as the codec stores it: string keys, any values, objects nested in arrays.
    fn object_sample() -> Vec<(OwnedKey, Value)> {
        vec![
            (bytes_key("ID"), Value::Int(42)),
            (bytes_key("0"), Value::String(b"a numeric property name stays a string".to_vec())),
            (bytes_key(""), Value::Null),
            (
                bytes_key("meta"),
                Value::Array(vec![(
                    OwnedKey::Int(3),
                    Value::Object(vec![(bytes_key("k"), Value::Bool(true))]),
                )]),
            ),
            (bytes_key("empty"), Value::Object(Vec::new())),
        ]
    }

    #[test]
    fn objects_round_trip_and_are_pinned() {
        let v = object_sample();
        assert_eq!(decode_tree_as(&enc(&v), Table::Object), Some(v.clone()));
        // The same bytes are also a well-formed array (string keys are fine there).
        assert_eq!(decode_tree_as(&enc(&v), Table::Array), Some(v));
        let nested = vec![(OwnedKey::Int(1), Value::Object(vec![(bytes_key("x"), Value::Null)]))];
        #[rustfmt::skip]
        let expected: Vec<u8> = [
            &[1, 0, 0, 0][..],
            &[K_INT, 1, 0, 0, 0, 0, 0, 0, 0, T_OBJECT, 1, 0, 0, 0],
            &[K_STRING, 1, 0, 0, 0, b'x', T_NULL],
        ]
        .concat();
        assert_eq!(enc(&nested), expected);
        assert_eq!(decode_tree(&expected), Some(nested));
    }

    #[test]
    fn an_object_with_an_integer_key_is_refused() {
        let int_key = vec![(OwnedKey::Int(0), Value::Null)];
        assert_eq!(decode_tree_as(&enc(&int_key), Table::Object), None);
        assert_eq!(decode_tree_as(&enc(&int_key), Table::Array), Some(int_key.clone()));
        let inner = vec![(bytes_key("o"), Value::Object(int_key))];
        assert_eq!(decode_tree(&enc(&inner)), None);
    }

    #[test]
    fn objects_count_towards_the_depth_limit() {
        let objects = |depth| {
            let mut v = Vec::new();
            for _ in 0..depth {
                v = vec![(bytes_key("o"), Value::Object(v))];
            }
            v
        };
        assert_eq!(
            decode_tree_as(&enc(&objects(MAX_DEPTH)), Table::Object),
            Some(objects(MAX_DEPTH))
        );
        assert_eq!(decode_tree_as(&enc(&objects(MAX_DEPTH + 1)), Table::Object), None);
    }

    #[test]
    fn round_trip() {
        let v = sample();
        assert_eq!(decode_tree(&enc(&v)), Some(v));
        assert_eq!(decode_tree(&enc(&[])), Some(Vec::new()));
    }

    #[test]
    fn depth_limit() {
        assert_eq!(decode_tree(&enc(&nested(MAX_DEPTH))), Some(nested(MAX_DEPTH)));
        assert_eq!(decode_tree(&enc(&nested(MAX_DEPTH + 1))), None);
    }

    #[test]
    fn every_truncation_is_refused() {
        let bytes = enc(&sample());
        for n in 0..bytes.len() {
            assert_eq!(decode_tree(&bytes[..n]), None, "accepted the first {n} bytes");
        }
    }

    #[test]
    fn trailing_bytes_are_refused() {
        let mut bytes = enc(&sample());
        bytes.push(0);
        assert_eq!(decode_tree(&bytes), None);
    }

    #[test]
    fn bad_tags_are_refused() {
        let mut bad_value = enc(&[(OwnedKey::Int(1), Value::Null)]);
        *bad_value.last_mut().unwrap() = T_OBJECT + 1;
        assert_eq!(decode_tree(&bad_value), None);
        let mut bad_key = enc(&[(OwnedKey::Int(1), Value::Null)]);
        bad_key[4] = K_STRING + 1;
        assert_eq!(decode_tree(&bad_key), None);
    }

    #[test]
    fn lengths_past_the_end_are_refused() {
        for len in [3u32, 1 << 20, u32::MAX] {
            let mut b = vec![1, 0, 0, 0, K_INT, 0, 0, 0, 0, 0, 0, 0, 0, T_STRING];
            b.extend_from_slice(&len.to_le_bytes());
            b.extend_from_slice(b"ab");
            assert_eq!(decode_tree(&b), None, "string length {len}");
            let mut b = vec![1, 0, 0, 0, K_STRING];
            b.extend_from_slice(&len.to_le_bytes());
            b.extend_from_slice(&[b'k', T_NULL]);
            assert_eq!(decode_tree(&b), None, "key length {len}");
        }
    }

    /// Counts what the decoder asks the sink to reserve.
    struct Reserved(usize);

    impl<'a> Sink<'a> for Reserved {
        type Array = ();
        fn begin_array(&mut self, count: usize) {
            self.0 += count;
        }
        fn element(&mut self, _: &mut (), _: Key<'a>, _: Item<'a, ()>) {}
    }

    #[test]
    fn counts_the_bytes_cannot_hold_are_refused_before_reserving() {
        // One element announced, none there; then as many as fit exactly.
        assert_eq!(decode_tree(&[1, 0, 0, 0]), None);
        let mut b = vec![u32::MAX as u8; 4];
        b.extend_from_slice(&[0; 64]);
        let mut sink = Reserved(0);
        assert!(decode(&b, &mut sink).is_none());
        assert_eq!(sink.0, 0);
        let two: Vec<u8> =
            [&[2, 0, 0, 0][..], &[K_STRING, 0, 0, 0, 0, T_NULL], &[K_STRING, 0, 0, 0, 0, T_TRUE]]
                .concat();
        assert_eq!(decode_tree(&two).map(|v| v.len()), Some(2));

        // A chain of nested arrays, each announcing as many elements as the bytes after it
        // could hold on their own: all counts together must fit the input, so what the sink
        // reserves stays within the input's length.
        let mut b = Vec::new();
        for _ in 0..=MAX_DEPTH {
            b.extend_from_slice(&1000u32.to_le_bytes());
            b.extend_from_slice(&[K_STRING, 0, 0, 0, 0, T_ARRAY]);
        }
        b.resize(b.len() + 6000, 0);
        let mut sink = Reserved(0);
        assert!(decode(&b, &mut sink).is_none());
        assert!(
            sink.0 <= b.len() / MIN_ELEMENT_LEN,
            "reserved {} elements for {} bytes",
            sink.0,
            b.len()
        );
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_what_decodes_re_encodes_to_the_same_bytes() {
        // A small deterministic generator: mutations of valid encodings and pure noise.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let seeds = [enc(&sample()), enc(&nested(3)), enc(&[])];
        let mut accepted = 0;
        for round in 0..20_000 {
            let mut b = seeds[round % seeds.len()].clone();
            for _ in 0..1 + next() % 4 {
                let r = next();
                match r % 4 {
                    0 if !b.is_empty() => {
                        let i = (r >> 8) as usize % b.len();
                        b[i] = (r >> 32) as u8;
                    }
                    1 if !b.is_empty() => {
                        let i = (r >> 8) as usize % b.len();
                        b.truncate(i);
                    }
                    2 => b.push((r >> 8) as u8),
                    _ => b = (0..r % 40).map(|_| next() as u8).collect(),
                }
            }
            if let Some(v) = decode_tree(&b) {
                accepted += 1;
                assert_eq!(enc(&v), b);
            }
        }
        assert!(accepted > 100, "only {accepted} mutated inputs decoded");
    }
}
