// The property every fuzz input must satisfy, shared by the libFuzzer target
// (fuzz/fuzz_targets/replay.rs) and the stable corpus test (rust/tests/fuzz_corpus.rs).
//
// Whatever the bytes, the replay returns (never panics, loops or touches memory outside its
// slices); a tape it measures is written to exactly that size; the one-pass replay, where it
// accepts the tape and does not give up on its shifts, gives the same bytes within its bound.

use protobufjs_rustwriter::replay::{forward_bound, Replay, WRITE_SLACK};

/// Largest measured output the check also writes (bigger claims are only measured).
const WRITE_MAX: usize = 1 << 22;

/// Runs the replay over `data` and panics if the property fails.
pub fn check_replay(data: &[u8]) {
    let mut replay = Replay::new();
    let Ok(size) = replay.measure(data) else {
        return;
    };
    if size > WRITE_MAX {
        return;
    }
    let mut out = vec![0u8; size + WRITE_SLACK];
    let written = replay
        .write(data, &mut out)
        .expect("a measured tape is written");
    assert_eq!(written, size, "written size equals the measured size");
    let bound = forward_bound(data.len());
    if bound <= WRITE_MAX {
        let mut forward = vec![0u8; bound];
        if let Ok(Some(n)) = replay.write_forward(data, &mut forward) {
            assert_eq!(&forward[..n], &out[..size], "one pass equals two");
        }
    }
}
