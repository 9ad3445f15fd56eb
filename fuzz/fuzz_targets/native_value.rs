//! The native array decoder (`shmcache::native`), which `php::codec` runs on every array value
//! read from the shared region. Byte 0 picks the half:
//!
//! * even, raw bytes: the rest is decoded as a stored value, an array or (bit 1 set) a
//!   stdClass's properties. Must never panic or read out of bounds (ASan), never have the sink
//!   reserve more elements than the input could hold (input length / 6), never give an object
//!   an integer key, and whatever decodes must re-encode to exactly the input: the decoder
//!   accepts only what the encoder writes, so damaged bytes can't decode into some other value.
//! * odd, structured: the rest is a small program that builds a value tree (every tag, NaN
//!   payloads, binary keys, objects, nesting past the depth limit), which must encode and
//!   decode back to itself, or be refused when nested deeper than `MAX_DEPTH`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shmcache::native::{self, Item, Key, OwnedKey, Sink, Table, TreeSink, Value, MAX_DEPTH};

/// TreeSink that also counts the elements it was asked to reserve.
struct Counting {
    tree: TreeSink,
    reserved: usize,
}

impl<'a> Sink<'a> for Counting {
    type Array = Vec<(OwnedKey, Value)>;

    fn begin_array(&mut self, count: usize) -> Self::Array {
        self.reserved += count;
        self.tree.begin_array(count)
    }

    fn element(&mut self, array: &mut Self::Array, key: Key<'a>, item: Item<'a, Self::Array>) {
        self.tree.element(array, key, item)
    }
}

/// Reads the builder program; an exhausted input reads as zeros, so every program ends.
struct Program<'a>(&'a [u8]);

impl Program<'_> {
    fn byte(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        b
    }

    fn word(&mut self) -> [u8; 8] {
        let mut w = [0u8; 8];
        for b in &mut w {
            *b = self.byte();
        }
        w
    }

    fn bytes(&mut self) -> Vec<u8> {
        let n = (self.byte() % 40) as usize;
        (0..n).map(|_| self.byte()).collect()
    }

    /// A table of up to 7 elements (byte keys only for an object's properties); returns it and
    /// how deep its nesting goes (0: none).
    fn table(&mut self, table: Table, budget: &mut usize) -> (Vec<(OwnedKey, Value)>, u32) {
        let mut deepest = 0;
        let mut out = Vec::new();
        if self.0.is_empty() {
            return (out, 0);
        }
        for _ in 0..self.byte() % 8 {
            if *budget == 0 {
                break;
            }
            *budget -= 1;
            let op = self.byte();
            let key = if op & 0x80 == 0 && table == Table::Array {
                OwnedKey::Int(i64::from_le_bytes(self.word()))
            } else {
                OwnedKey::Bytes(self.bytes())
            };
            let value = match op & 0x7f {
                0 => Value::Null,
                1 => Value::Bool(false),
                2 => Value::Bool(true),
                3..=20 => Value::Int(i64::from_le_bytes(self.word())),
                21..=40 => Value::Double(f64::from_le_bytes(self.word())),
                41..=80 => Value::String(self.bytes()),
                81..=104 => {
                    let (inner, depth) = self.table(Table::Array, budget);
                    deepest = deepest.max(depth + 1);
                    Value::Array(inner)
                }
                _ => {
                    let (properties, depth) = self.table(Table::Object, budget);
                    deepest = deepest.max(depth + 1);
                    Value::Object(properties)
                }
            };
            out.push((key, value));
        }
        (out, deepest)
    }
}

fuzz_target!(|data: &[u8]| {
    let (&mode, rest) = data.split_first().unwrap_or((&0, &[]));
    let table = if mode & 2 == 0 { Table::Array } else { Table::Object };
    if mode & 1 == 0 {
        let mut sink = Counting { tree: TreeSink, reserved: 0 };
        let decoded = native::decode_table(rest, table, &mut sink);
        assert!(
            sink.reserved <= rest.len() / 6,
            "reserved {} elements for {} bytes",
            sink.reserved,
            rest.len()
        );
        if let Some(tree) = decoded {
            assert!(objects_have_byte_keys(&tree, table), "an object decoded with an integer key");
            let mut again = Vec::new();
            native::encode(&tree, &mut again);
            assert!(again == rest, "decoded bytes re-encode differently");
        }
    } else {
        // The element budget keeps a run's cost near the input's size.
        let (tree, depth) = Program(rest).table(table, &mut 4096);
        let mut bytes = Vec::new();
        native::encode(&tree, &mut bytes);
        let back = native::decode_tree_as(&bytes, table);
        if depth <= MAX_DEPTH {
            assert!(back.as_ref() == Some(&tree), "round trip changed the value");
        } else {
            assert!(back.is_none(), "decoded an array nested {depth} levels deep");
        }
    }
});

/// Whether `table`, and every table nested in it, that is an object's has byte keys only.
fn objects_have_byte_keys(elements: &[(OwnedKey, Value)], table: Table) -> bool {
    elements.iter().all(|(key, value)| {
        (table == Table::Array || matches!(key, OwnedKey::Bytes(_)))
            && match value {
                Value::Object(properties) => objects_have_byte_keys(properties, Table::Object),
                Value::Array(inner) => objects_have_byte_keys(inner, Table::Array),
                _ => true,
            }
    })
}
