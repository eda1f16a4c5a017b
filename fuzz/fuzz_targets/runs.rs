//! libFuzzer target over the native run encoder: `npm run fuzz` from the repository root runs it
//! through cargo-fuzz (see scripts/fuzz.js and README "Guarantees").
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../check.rs"]
mod check;

fuzz_target!(|data: &[u8]| check::check_runs(data));
