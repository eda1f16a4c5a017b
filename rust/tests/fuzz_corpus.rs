//! The fuzz target's property on stable Rust, as part of `cargo test`: every file of the
//! committed corpus (fuzz/corpus/runs), then seeded mutations of each (bytes flipped, words
//! overwritten with run kinds and edge values, cut and spliced): a deterministic check that runs in
//! every `cargo test`, with no fuzzing toolchain. The coverage-guided run is `npm run fuzz`
//! (libFuzzer, scripts/fuzz.js). `FUZZ_MUTATIONS` sets the mutations per file.

#[path = "../../fuzz/check.rs"]
mod check;

use std::fs;
use std::path::Path;

use protobufjs_rustwriter::testing::Rng;

/// Mutations per corpus file by default.
const MUTATIONS: usize = 10000;

fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(5) {
            0 if !data.is_empty() => {
                let at = rng.below(data.len());
                data[at] ^= 1 << rng.below(8);
            }
            1 if data.len() >= 4 => {
                let at = rng.below(data.len() / 4) * 4;
                // Run kinds, counts and edges of every field of a run record.
                let words = [
                    0u32,
                    1,
                    2,
                    3,
                    4,
                    5,
                    6,
                    8,
                    255,
                    256,
                    257,
                    0x7fff_ffff,
                    u32::MAX,
                    0xffff_fff0,
                ];
                data[at..at + 4].copy_from_slice(&words[rng.below(words.len())].to_le_bytes());
            }
            2 => data.truncate(rng.below(data.len() + 1)),
            3 => {
                let at = rng.below(other.len() + 1);
                data.extend_from_slice(&other[at..]);
            }
            _ => data.extend((0..4 * rng.below(8)).map(|_| rng.next_u64() as u8)),
        }
    }
    data
}

#[test]
fn the_run_encoder_holds_its_property_on_the_corpus_and_its_mutations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/runs");
    let mut corpus: Vec<Vec<u8>> = fs::read_dir(&dir)
        .expect("the corpus directory exists")
        .map(|entry| fs::read(entry.expect("a corpus entry").path()).expect("a corpus file"))
        .collect();
    corpus.sort();
    assert!(corpus.len() >= 14, "the corpus has its seeds");
    let mutations = std::env::var("FUZZ_MUTATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(MUTATIONS);
    let mut rng = Rng(0x5eed_f022);
    for (i, seed) in corpus.iter().enumerate() {
        check::check_runs(seed);
        let other = &corpus[(i + 1) % corpus.len()];
        for _ in 0..mutations {
            check::check_runs(&mutate(&mut rng, seed, other));
        }
    }
}
