//! The tape format: the one definition shared by the JS recorder (`index.js`) and [`crate::replay`].
//!
//! A tape is a sequence of records made of 32-bit native-endian words, written by JS through
//! `Int32Array`/`Float32Array`/`Float64Array`/`Uint8Array` views of one buffer. Every record is an
//! even number of words (a multiple of 8 bytes) and starts on an even word, so a 64-bit operand at
//! word 2 of a record is 8-byte aligned for the `Float64Array` view.
//!
//! | record | words | operands |
//! |---|---|---|
//! | `UINT32`, `INT32`, `SINT32`, `FIXED32` | 2 | `[op, value]` (`FIXED32` also carries `float` bits) |
//! | `UINT64`, `SINT64`, `FIXED64` | 4 | `[op, 0, lo, hi]` (`FIXED64` also carries `double` bits) |
//! | `FORK` | 2 | `[op, link]`: `link` is JS's pointer to the enclosing open fork; replay ignores it |
//! | `LDELIM` | 2 | `[op, 0]`: closes the innermost open fork, or with none open prefixes everything before it |
//! | `BYTES`, `RAW` | 2 + payload | `[op, len]` then `len` bytes, zero-padded to a multiple of 8 |
//! | `BYTES_REF` | 4 | `[op, len, ref, 0]`: a length prefix and a hole of `len` bytes that JS fills with its `ref`-th referenced `Uint8Array` after the replay |
//! | `PACKED_UINT32` … `PACKED_FIXED32` | 2 + count, rounded up to even | `[op, count]` then `count` words |
//! | `PACKED_UINT64` … `PACKED_FIXED64` | 2 + 2·count | `[op, count]` then `count` (lo, hi) pairs or `f64`s |
//!
//! Opcode 0 is never valid, so zeroed memory is rejected rather than replayed.

/// Bytes in one tape word.
pub const WORD_BYTES: usize = 4;

macro_rules! opcodes {
    ($($(#[$doc:meta])* $name:ident = $value:literal => $js:literal,)*) => {
        /// One tape record kind. The discriminant is the number stored in the record's first word.
        #[repr(u32)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Op {
            $($(#[$doc])* $name = $value,)*
        }

        impl Op {
            /// Every opcode with the name JS knows it by (`index.js` reads them from the binding).
            pub const ALL: &'static [(&'static str, Op)] = &[$(($js, Op::$name),)*];

            /// Decodes an opcode word; `None` for a number that is not an opcode.
            #[inline]
            pub const fn from_word(word: u32) -> Option<Op> {
                match word {
                    $($value => Some(Op::$name),)*
                    _ => None,
                }
            }
        }
    };
}

opcodes! {
    /// varint of the word as an unsigned 32-bit value (also `bool`, stored as 0 or 1).
    Uint32 = 1 => "UINT32",
    /// varint of the word as a signed 32-bit value: negative values take 10 bytes.
    Int32 = 2 => "INT32",
    /// zig-zag varint of the word as a signed 32-bit value.
    Sint32 = 3 => "SINT32",
    /// the word as 4 little-endian bytes (`fixed32`, `sfixed32`, `float`).
    Fixed32 = 4 => "FIXED32",
    /// varint of the 64-bit operand.
    Uint64 = 5 => "UINT64",
    /// zig-zag varint of the 64-bit operand read as signed.
    Sint64 = 6 => "SINT64",
    /// the 64-bit operand as 8 little-endian bytes (`fixed64`, `sfixed64`, `double`).
    Fixed64 = 7 => "FIXED64",
    /// opens a length-delimited section.
    Fork = 8 => "FORK",
    /// closes the innermost open section (or wraps everything before it when none is open).
    Ldelim = 9 => "LDELIM",
    /// varint length followed by the payload (`bytes`, `string`).
    Bytes = 10 => "BYTES",
    /// the payload without a length prefix (`raw`).
    Raw = 11 => "RAW",
    /// length-prefixed run of `Uint32` values (`uint32s`, `bools`).
    PackedUint32 = 12 => "PACKED_UINT32",
    /// length-prefixed run of `Int32` values.
    PackedInt32 = 13 => "PACKED_INT32",
    /// length-prefixed run of `Sint32` values.
    PackedSint32 = 14 => "PACKED_SINT32",
    /// length-prefixed run of `Fixed32` values (`fixed32s`, `sfixed32s`, `floats`).
    PackedFixed32 = 15 => "PACKED_FIXED32",
    /// length-prefixed run of `Uint64` values.
    PackedUint64 = 16 => "PACKED_UINT64",
    /// length-prefixed run of `Sint64` values.
    PackedSint64 = 17 => "PACKED_SINT64",
    /// length-prefixed run of `Fixed64` values (`fixed64s`, `sfixed64s`, `doubles`).
    PackedFixed64 = 18 => "PACKED_FIXED64",
    /// varint length, then a hole for bytes JS copies in itself (large `bytes` values).
    BytesRef = 19 => "BYTES_REF",
}

/// Words taken by a payload of `len` bytes, padded so the next record starts on an even word.
#[inline]
pub const fn payload_words(len: usize) -> usize {
    len.div_ceil(8) * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opcode_round_trips_through_its_word_and_has_a_unique_name() {
        for (i, (name, op)) in Op::ALL.iter().enumerate() {
            assert_eq!(Op::from_word(*op as u32), Some(*op), "{name}");
            for (other, _) in &Op::ALL[i + 1..] {
                assert_ne!(name, other);
            }
        }
        assert_eq!(Op::from_word(0), None);
        let max = Op::ALL.iter().map(|(_, op)| *op as u32).max().unwrap();
        assert_eq!(Op::from_word(max + 1), None);
        assert_eq!(
            Op::ALL.len() as u32,
            max,
            "opcodes are numbered 1..=N without gaps"
        );
    }

    #[test]
    fn protocol_json_has_every_opcode_with_its_number() {
        // `protocol.json` gives the JS-only path the numbers without the addon; the mocha tests
        // compare it with the binding as a whole, this with the opcodes even without Node.
        let json = include_str!("../protocol.json");
        for (name, op) in Op::ALL {
            let entry = format!("\"{name}\": {}", *op as u32);
            let found = [",", "\n"]
                .iter()
                .any(|end| json.contains(&format!("{entry}{end}")));
            assert!(found, "protocol.json lacks {entry}");
        }
    }

    #[test]
    fn padding_keeps_records_on_even_words() {
        assert_eq!(payload_words(0), 0);
        assert_eq!(payload_words(1), 2);
        assert_eq!(payload_words(8), 2);
        assert_eq!(payload_words(9), 4);
    }
}
