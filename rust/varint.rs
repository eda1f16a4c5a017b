//! Varint and zig-zag encoding, shaped like prost's `encoding/varint.rs`.

/// Bytes `value` takes as a varint (1..=10).
#[inline]
pub const fn encoded_len_varint(value: u64) -> usize {
    // Bits needed, rounded up to whole 7-bit groups: ((63 - lzcnt) * 9 + 73) / 64 is
    // ceil(bits / 7) for bits in 1..=64 without a division (prost uses the same formula).
    ((((value | 1).leading_zeros() ^ 63) * 9 + 73) / 64) as usize
}

/// Writes `value` as a varint at the start of `buf` and returns the bytes written, or `None`
/// (writing nothing) if `buf` is shorter than [`encoded_len_varint`]`(value)`.
#[inline]
pub fn encode_varint(mut value: u64, buf: &mut [u8]) -> Option<usize> {
    let len = encoded_len_varint(value);
    let dst = buf.get_mut(..len)?;
    let (last, body) = dst.split_last_mut()?;
    for byte in body {
        *byte = (value as u8 & 0x7f) | 0x80;
        value >>= 7;
    }
    *last = value as u8;
    Some(len)
}

/// The varint value protobuf writes for an `int32`: negative values are sign-extended to 64 bits.
#[inline]
pub const fn int32_to_varint(value: i32) -> u64 {
    value as i64 as u64
}

/// Zig-zag encodes a signed 32-bit value (`sint32`).
#[inline]
pub const fn zigzag32(value: i32) -> u32 {
    ((value << 1) ^ (value >> 31)) as u32
}

/// Zig-zag encodes a signed 64-bit value (`sint64`).
#[inline]
pub const fn zigzag64(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_len_matches_the_bytes_written_at_every_length_boundary() {
        let mut values = vec![0u64, u64::MAX];
        for k in 1..=9u32 {
            values.push((1u64 << (7 * k)) - 1);
            values.push(1u64 << (7 * k));
        }
        for value in values {
            let mut buf = [0u8; 10];
            let len = encode_varint(value, &mut buf).unwrap();
            assert_eq!(len, encoded_len_varint(value), "{value}");
            let mut expected = Vec::new();
            prost::encoding::encode_varint(value, &mut expected);
            assert_eq!(&buf[..len], &expected[..], "{value}");
        }
        assert_eq!(encoded_len_varint(0), 1);
        assert_eq!(encoded_len_varint(127), 1);
        assert_eq!(encoded_len_varint(128), 2);
        assert_eq!(encoded_len_varint(u64::MAX), 10);
    }

    #[test]
    fn encode_varint_refuses_a_short_buffer_without_writing() {
        let mut buf = [0xaau8; 1];
        assert_eq!(encode_varint(300, &mut buf), None);
        assert_eq!(buf, [0xaa]);
        assert_eq!(encode_varint(5, &mut []), None);
    }

    #[test]
    fn int32_and_zigzag_follow_protobuf() {
        assert_eq!(encoded_len_varint(int32_to_varint(-1)), 10);
        assert_eq!(int32_to_varint(5), 5);
        assert_eq!(zigzag32(0), 0);
        assert_eq!(zigzag32(-1), 1);
        assert_eq!(zigzag32(1), 2);
        assert_eq!(zigzag32(i32::MIN), u32::MAX);
        assert_eq!(zigzag32(i32::MAX), u32::MAX - 1);
        assert_eq!(zigzag64(-1), 1);
        assert_eq!(zigzag64(i64::MIN), u64::MAX);
        assert_eq!(zigzag64(i64::MAX), u64::MAX - 1);
    }
}
