//! The kinds of value the extension stores, as the tags the engine keeps with each entry. Free
//! of PHP: the codec (zval to bytes and back) and the read sink both need them, and neither
//! needs the other for it.

use crate::engine::ValueKind;

pub const NULL: ValueKind = ValueKind(2);
pub const FALSE: ValueKind = ValueKind(3);
pub const TRUE: ValueKind = ValueKind(4);
pub const DOUBLE: ValueKind = ValueKind(5);
pub const STRING: ValueKind = ValueKind(6);
pub const ARRAY: ValueKind = ValueKind(7);
pub const SERIALIZED: ValueKind = ValueKind(8);
/// A plain stdClass: its property table in the native encoding.
pub const OBJECT: ValueKind = ValueKind(9);
