//! The one error type of the native core.

use std::fmt;

/// Why the runs of a control block could not be encoded, or the binding refused a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The control block is shorter than [`crate::control::CTL_WORDS`].
    BadControl {
        /// words it has
        words: usize,
    },
    /// The run count exceeds [`crate::control::MAX_RUNS`].
    TooManyRuns {
        /// the count found
        runs: usize,
    },
    /// A run record's kind word is not a [`crate::control::Run`].
    UnknownRun {
        /// index of the run
        run: usize,
        /// the word found there
        word: u32,
    },
    /// A run's elements do not lie within the value block (or a 64-bit run starts on an odd word).
    OutsideValues {
        /// index of the run
        run: usize,
        /// its first word
        first: usize,
        /// its element count
        count: usize,
        /// words in the value block
        words: usize,
    },
    /// The output block is too small for the runs.
    OutputFull {
        /// index of the run that did not fit
        run: usize,
        /// bytes needed up to the end of that run
        needed: usize,
        /// bytes in the output block
        available: usize,
    },
    /// The encoded runs would exceed [`crate::control::MAX_OUTPUT`] bytes.
    TooLarge {
        /// the size they would have had (saturating)
        size: u64,
    },
    /// Memory for a block could not be allocated.
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
            Error::BadControl { words } => write!(f, "invalid control block of {words} words"),
            Error::TooManyRuns { runs } => write!(
                f,
                "invalid control block: {runs} runs, at most {}",
                crate::control::MAX_RUNS
            ),
            Error::UnknownRun { run, word } => {
                write!(
                    f,
                    "invalid control block: run {run} has unknown kind {word}"
                )
            }
            Error::OutsideValues {
                run,
                first,
                count,
                words,
            } => write!(
                f,
                "invalid control block: run {run} ({count} elements from word {first}) lies \
                 outside the value block of {words} words"
            ),
            Error::OutputFull {
                run,
                needed,
                available,
            } => write!(
                f,
                "output block too small: run {run} needs {needed} bytes, it has {available}"
            ),
            Error::TooLarge { size } => write!(
                f,
                "message too large: {size} bytes exceeds the limit of {} bytes",
                crate::control::MAX_OUTPUT
            ),
            Error::OutOfMemory { bytes } => write!(f, "could not allocate {bytes} bytes"),
            Error::Binding(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

/// Result of the native core.
pub type Result<T> = std::result::Result<T, Error>;
