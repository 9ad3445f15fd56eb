//! The value kinds under the short names the codec and the read sink use. The registry, with
//! each tag's number, is `ValueKind` in engine/cache.rs; these are only its names here.

use crate::engine::ValueKind;

pub const NULL: ValueKind = ValueKind::NULL;
pub const FALSE: ValueKind = ValueKind::FALSE;
pub const TRUE: ValueKind = ValueKind::TRUE;
pub const DOUBLE: ValueKind = ValueKind::DOUBLE;
pub const STRING: ValueKind = ValueKind::STRING;
pub const ARRAY: ValueKind = ValueKind::ARRAY;
pub const SERIALIZED: ValueKind = ValueKind::SERIALIZED;
pub const OBJECT: ValueKind = ValueKind::OBJECT;
