//! What travels to and from Redis: stream ids packed into ordered integers, and values as
//! Redis stores them.

use redis::Value;

use crate::engine::ValueKind;

/// Stream ids (`ms-seq`) as one ordered integer. A sequence number past what fits (a Redis whose
/// clock went back keeps counting in its last millisecond) is stored as the largest: such ids
/// keep their order against all others but not among themselves (`is_exact`).
pub(super) const SEQ_BITS: u32 = 16;

const SEQ_MAX: u64 = (1 << SEQ_BITS) - 1;

/// Whether a packed id stands for one stream entry only (its sequence number was not cut to
/// `SEQ_MAX`). The others are handled conservatively: fills at them lose to a claim of them,
/// and writes at them leave no note.
pub(super) fn is_exact(id: u64) -> bool {
    id & SEQ_MAX != SEQ_MAX
}

pub(super) fn parse_id(s: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(s).ok()?;
    let (ms, seq) = s.split_once('-')?;
    let (ms, seq): (u64, u64) = (ms.parse().ok()?, seq.parse().ok()?);
    Some((ms << SEQ_BITS) | seq.min(SEQ_MAX))
}

pub(super) fn format_id(id: u64) -> String {
    format!("{}-{}", id >> SEQ_BITS, id & ((1 << SEQ_BITS) - 1))
}

pub(super) fn stream_id(v: &Value) -> Option<u64> {
    parse_id(&bulk(v)?)
}

pub(super) fn bulk(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b.clone()),
        Value::SimpleString(s) => Some(s.as_bytes().to_vec()),
        Value::Int(n) => Some(n.to_string().into_bytes()),
        _ => None,
    }
}

/// In Redis an integer is its decimal text (so INCRBY works on it); anything else is its
/// kind byte (below b'-') followed by the engine's bytes.
pub(super) fn encode_value(kind: ValueKind, value: &[u8]) -> Vec<u8> {
    if kind == ValueKind::INT {
        if let Ok(bytes) = <[u8; 8]>::try_from(value) {
            return i64::from_le_bytes(bytes).to_string().into_bytes();
        }
    }
    let mut out = Vec::with_capacity(1 + value.len());
    out.push(kind.0);
    out.extend_from_slice(value);
    out
}

pub(super) fn decode_value(stored: &[u8]) -> Option<(ValueKind, Vec<u8>)> {
    match stored.first() {
        Some(&k) if k < b'-' => Some((ValueKind(k), stored[1..].to_vec())),
        Some(_) => {
            let n: i64 = std::str::from_utf8(stored).ok()?.parse().ok()?;
            Some((ValueKind::INT, n.to_le_bytes().to_vec()))
        }
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_ids_keep_their_order_as_integers() {
        let ids = ["0-0", "0-1", "1-0", "1700000000000-0", "1700000000000-5", "1700000000001-0"];
        let packed: Vec<u64> = ids.iter().map(|s| parse_id(s.as_bytes()).unwrap()).collect();
        assert!(packed.windows(2).all(|w| w[0] < w[1]), "{packed:?}");
        assert_eq!(format_id(parse_id(b"1700000000000-5").unwrap()), "1700000000000-5");
    }

    #[test]
    fn integers_are_decimal_in_redis_and_other_kinds_keep_their_kind_byte() {
        assert_eq!(encode_value(ValueKind::INT, &(-42i64).to_le_bytes()), b"-42");
        let (kind, bytes) = decode_value(b"-42").unwrap();
        assert_eq!((kind, i64::from_le_bytes(bytes.try_into().unwrap())), (ValueKind::INT, -42));
        assert_eq!(encode_value(ValueKind(6), b"12"), b"\x0612");
        assert_eq!(decode_value(b"\x0612"), Some((ValueKind(6), b"12".to_vec())));
    }
}
