//! The one definition of what JS and Rust share: the control block of the native `finish()` call
//! and the kinds of run it encodes.
//!
//! JS writes every byte of a message itself except the payloads of long packed varint fields,
//! which it hands over as *runs*. At `finish()` it copies each run's elements into the value
//! block, describes the runs in the control block and makes one native call without arguments
//! (`lib/writer/native.js`); Rust ([`crate::runs`]) encodes each run into the output block and stores
//! its byte length beside it. JS then splices the payloads into the message.
//!
//! All three blocks are memory this crate allocates and registers once ([`crate::runs`] works on
//! plain slices of them); the control block is an array of native-endian `u32` words:
//!
//! | words | written by | meaning |
//! |---|---|---|
//! | `CTL_RUNS` | JS | number of runs, at most [`MAX_RUNS`] |
//! | `CTL_TOTAL` | Rust | bytes written to the output block |
//! | `CTL_RECORDS + RUN_WORDS * i ..` | JS, then Rust | run `i`: `[kind, count, first, len]` |
//! | `CTL_CALLS` (the last word) | Rust | calls made so far, wrapping (`measure` and the benchmark read it) |
//!
//! A run record: `kind` a [`Run`] number, `count` its elements, `first` the index of its first
//! element in the value block in 32-bit words (even for 64-bit runs), and `len`, written by
//! Rust, the bytes of its payload, which start where the previous run's ended.
//!
//! Run kind 0 is never valid, so zeroed memory is rejected rather than encoded.

/// Bytes in one control or value word.
pub const WORD_BYTES: usize = 4;
/// Control word: the number of runs.
pub const CTL_RUNS: usize = 0;
/// Control word: the bytes Rust wrote to the output block.
pub const CTL_TOTAL: usize = 1;
/// Control word: the first run record.
pub const CTL_RECORDS: usize = 2;
/// Words in one run record.
pub const RUN_WORDS: usize = 4;
/// Most runs one call encodes: JS writes further long packed fields itself.
pub const MAX_RUNS: usize = 256;
/// Control word: the calls made so far (wrapping at 2^32), after the last run record.
pub const CTL_CALLS: usize = CTL_RECORDS + RUN_WORDS * MAX_RUNS;
/// Words in the control block.
pub const CTL_WORDS: usize = CTL_CALLS + 1;
/// Largest message, in bytes, either side produces: JS keeps offsets as int32 (`2^31 - 1`).
pub const MAX_OUTPUT: usize = i32::MAX as usize;
/// Run record word: the kind.
pub const RUN_KIND: usize = 0;
/// Run record word: the element count.
pub const RUN_COUNT: usize = 1;
/// Run record word: the first element's word index in the value block.
pub const RUN_FIRST: usize = 2;
/// Run record word: the payload's byte length (written by Rust).
pub const RUN_LEN: usize = 3;

macro_rules! runs {
    ($($(#[$doc:meta])* $name:ident = $value:literal => $js:literal,)*) => {
        /// How a run's elements become varints. The discriminant is its `kind` word.
        #[repr(u32)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Run {
            $($(#[$doc])* $name = $value,)*
        }

        impl Run {
            /// Every kind with the name JS knows it by (`protocol.json`, and the binding's
            /// `protocol()`, which the tests compare).
            pub const ALL: &'static [(&'static str, Run)] = &[$(($js, Run::$name),)*];

            /// Decodes a kind word; `None` for a number that is not a kind.
            #[inline]
            pub const fn from_word(word: u32) -> Option<Run> {
                match word {
                    $($value => Some(Run::$name),)*
                    _ => None,
                }
            }
        }
    };
}

runs! {
    /// `uint32s`: each element (one word) as an unsigned varint, 1 to 5 bytes.
    Uint32 = 1 => "RUN_UINT32",
    /// `int32s`: each element (one word) as a signed varint; negative ones take 10 bytes.
    Int32 = 2 => "RUN_INT32",
    /// `sint32s`: each element (one word) zig-zag encoded.
    Sint32 = 3 => "RUN_SINT32",
    /// `uint64s`/`int64s`: each element (two words, low first) as a varint, 1 to 10 bytes.
    Uint64 = 4 => "RUN_UINT64",
    /// `sint64s`: each element (two words, low first) zig-zag encoded.
    Sint64 = 5 => "RUN_SINT64",
}

impl Run {
    /// Value words per element.
    #[inline]
    pub const fn words(self) -> usize {
        match self {
            Run::Uint32 | Run::Int32 | Run::Sint32 => 1,
            Run::Uint64 | Run::Sint64 => 2,
        }
    }

    /// The most bytes one element can take.
    #[inline]
    pub const fn max_element_bytes(self) -> usize {
        match self {
            Run::Uint32 | Run::Sint32 => 5,
            Run::Int32 | Run::Uint64 | Run::Sint64 => 10,
        }
    }
}

/// The layout numbers by the names `protocol.json` gives them, for the binding's `protocol()`.
pub const LAYOUT: &[(&str, usize)] = &[
    ("CTL_RUNS", CTL_RUNS),
    ("CTL_TOTAL", CTL_TOTAL),
    ("CTL_RECORDS", CTL_RECORDS),
    ("RUN_WORDS", RUN_WORDS),
    ("MAX_RUNS", MAX_RUNS),
    ("CTL_WORDS", CTL_WORDS),
    ("RUN_KIND", RUN_KIND),
    ("RUN_COUNT", RUN_COUNT),
    ("RUN_FIRST", RUN_FIRST),
    ("RUN_LEN", RUN_LEN),
    ("CTL_CALLS", CTL_CALLS),
    ("MAX_OUTPUT", MAX_OUTPUT),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_through_its_word_and_has_a_unique_name() {
        for (i, (name, run)) in Run::ALL.iter().enumerate() {
            assert_eq!(Run::from_word(*run as u32), Some(*run), "{name}");
            for (other, _) in &Run::ALL[i + 1..] {
                assert_ne!(name, other);
            }
        }
        assert_eq!(Run::from_word(0), None);
        let max = Run::ALL.iter().map(|(_, run)| *run as u32).max().unwrap();
        assert_eq!(Run::from_word(max + 1), None);
        assert_eq!(Run::ALL.len() as u32, max, "kinds are numbered 1..=N");
    }

    #[test]
    fn protocol_json_has_every_number_of_this_file() {
        // `protocol.json` gives the JS-only path the numbers without the addon; the mocha tests
        // compare it with the binding as a whole, this with this file even without Node.
        let json = include_str!("../protocol.json");
        let entries = Run::ALL
            .iter()
            .map(|&(name, run)| (name, run as usize))
            .chain(LAYOUT.iter().copied());
        for (name, value) in entries {
            let entry = format!("\"{name}\": {value}");
            let found = [",", "\n"]
                .iter()
                .any(|end| json.contains(&format!("{entry}{end}")));
            assert!(found, "protocol.json lacks {entry}");
        }
        let count = json.matches("\":").count();
        assert_eq!(
            count,
            Run::ALL.len() + LAYOUT.len(),
            "protocol.json has extra entries"
        );
    }

    #[test]
    fn the_most_bytes_of_an_element_bound_its_encoding() {
        assert_eq!(
            Run::Int32.max_element_bytes(),
            crate::varint::encoded_len_varint(u64::MAX)
        );
        assert_eq!(
            Run::Uint32.max_element_bytes(),
            crate::varint::encoded_len_varint(u32::MAX.into())
        );
    }
}
