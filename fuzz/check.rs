// The property every fuzz input must satisfy, shared by the libFuzzer target
// (fuzz/fuzz_targets/runs.rs) and the stable corpus test (rust/tests/fuzz_corpus.rs).
//
// An input is read as: one little-endian u32 giving the output block's size (mod 64 KiB), then
// the control block's words as far as its run count reaches (the rest zero), then the value
// block's words. Whatever the bytes, `encode_runs` returns (never panics, loops or touches
// memory outside its slices); on success every run's payload equals a one-varint-at-a-time
// reference encoding, and the lengths add up; on failure the total word is 0.

use protobufjs_rustwriter::control::{
    Run, CTL_RECORDS, CTL_RUNS, CTL_TOTAL, CTL_WORDS, MAX_RUNS, RUN_COUNT, RUN_FIRST, RUN_KIND,
    RUN_LEN, RUN_WORDS,
};
use protobufjs_rustwriter::runs::encode_runs;
use protobufjs_rustwriter::varint::{encode_varint, int32_to_varint, zigzag32, zigzag64};

/// Largest output block an input can ask for.
const OUTPUT_MAX: usize = 1 << 16;

/// Runs `encode_runs` over `data` and panics if the property fails.
pub fn check_runs(data: &[u8]) {
    let mut words = data
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    let Some(out_len) = words.next() else {
        return;
    };
    let mut ctl = vec![0u32; CTL_WORDS];
    ctl[CTL_RUNS] = words.next().unwrap_or(0);
    let used = CTL_RECORDS + RUN_WORDS * (ctl[CTL_RUNS] as usize).min(MAX_RUNS);
    for (slot, word) in ctl[CTL_RECORDS..used].iter_mut().zip(&mut words) {
        *slot = word;
    }
    let values: Vec<u32> = words.collect();
    let mut out = vec![0u8; out_len as usize % OUTPUT_MAX];
    match encode_runs(&mut ctl, &values, &mut out) {
        Err(_) => assert_eq!(ctl[CTL_TOTAL], 0, "a failed call reports no output"),
        Ok(total) => {
            assert_eq!(ctl[CTL_TOTAL] as usize, total);
            assert!(total <= out.len());
            let mut at = 0;
            for run in 0..ctl[CTL_RUNS] as usize {
                let record = CTL_RECORDS + run * RUN_WORDS;
                let expected = reference(
                    Run::from_word(ctl[record + RUN_KIND]).expect("a valid kind"),
                    &values,
                    ctl[record + RUN_FIRST] as usize,
                    ctl[record + RUN_COUNT] as usize,
                );
                let len = ctl[record + RUN_LEN] as usize;
                assert_eq!(&out[at..at + len], &expected[..], "run {run}");
                at += len;
            }
            assert_eq!(at, total, "the run lengths add up to the total");
        }
    }
}

/// One varint at a time, straight from the protobuf encoding rules.
fn reference(kind: Run, values: &[u32], first: usize, count: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 10];
    for i in 0..count {
        let value = match kind {
            Run::Uint32 => u64::from(values[first + i]),
            Run::Int32 => int32_to_varint(values[first + i] as i32),
            Run::Sint32 => u64::from(zigzag32(values[first + i] as i32)),
            Run::Uint64 | Run::Sint64 => {
                let v =
                    u64::from(values[first + 2 * i]) | u64::from(values[first + 2 * i + 1]) << 32;
                if kind == Run::Sint64 {
                    zigzag64(v as i64)
                } else {
                    v
                }
            }
        };
        let n = encode_varint(value, &mut buf).expect("10 bytes hold any varint");
        out.extend_from_slice(&buf[..n]);
    }
    out
}
