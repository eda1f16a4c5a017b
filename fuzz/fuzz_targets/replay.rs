//! libFuzzer target over the tape replay: `cargo +nightly fuzz run replay` from the repository
//! root (see README "Guarantees").
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../check.rs"]
mod check;

fuzz_target!(|data: &[u8]| check::check_replay(data));
