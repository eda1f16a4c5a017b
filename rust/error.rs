//! The one error type of the native core.

use std::fmt;

/// Why a tape could not be replayed. Every variant names where in the tape it happened, in words
/// from the start of the replayed region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// A record, operand or payload runs past the end of the tape.
    Truncated {
        /// word index of the record's opcode
        at: usize,
    },
    /// A record starts with a word that is not an opcode.
    UnknownOpcode {
        /// word index of the record
        at: usize,
        /// the word found there
        word: u32,
    },
    /// The encoded message would exceed [`crate::replay::MAX_OUTPUT`] bytes.
    TooLarge {
        /// the size it would have had (saturating)
        size: u64,
    },
    /// The region handed to the native side does not lie within its tape.
    BadRegion {
        /// first word
        start: u32,
        /// one past the last word
        end: u32,
        /// words in the tape
        words: usize,
    },
    /// [`crate::replay::Replay::write`] was not given the tape and output size that
    /// [`crate::replay::Replay::measure`] saw.
    Inconsistent,
    /// Memory for the output or a tape could not be allocated.
    OutOfMemory {
        /// bytes requested
        bytes: usize,
    },
    /// An N-API call failed or the binding was used out of order.
    Binding(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated { at } => write!(f, "invalid tape: record at word {at} is truncated"),
            Error::UnknownOpcode { at, word } => {
                write!(f, "invalid tape: unknown opcode {word} at word {at}")
            }
            Error::TooLarge { size } => write!(
                f,
                "message too large: {size} bytes exceeds the limit of {} bytes",
                crate::replay::MAX_OUTPUT
            ),
            Error::BadRegion { start, end, words } => write!(
                f,
                "invalid tape region {start}..{end} for a tape of {words} words"
            ),
            Error::Inconsistent => {
                f.write_str("replay was given a different tape than it measured")
            }
            Error::OutOfMemory { bytes } => write!(f, "could not allocate {bytes} bytes"),
            Error::Binding(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

/// Result of the native core.
pub type Result<T> = std::result::Result<T, Error>;
