//! Runs of packed varints → bytes: the whole of the native side's work.
//!
//! [`encode_runs`] reads the run records of a control block (layout in [`crate::control`]),
//! encodes each run's elements from the value block with the kernels of [`crate::simd`] into
//! consecutive ranges of the output block, and records each payload's length. Everything comes
//! from JS and is checked before use: a bad count, kind, element range or a full output block is
//! an [`Error`], never a panic or an access outside the slices.

use crate::control::{
    Run, CTL_CALLS, CTL_RECORDS, CTL_RUNS, CTL_TOTAL, CTL_WORDS, MAX_OUTPUT, MAX_RUNS, RUN_COUNT,
    RUN_FIRST, RUN_KIND, RUN_LEN, RUN_WORDS,
};
use crate::error::{Error, Result};
use crate::simd::{kernel_for, Packed32, Words64};

/// Encodes the runs described in `ctl` from `values` into `out`, one after the other from
/// `out[0]`, stores each payload's length in its record's `RUN_LEN` word and the total in
/// `CTL_TOTAL`, and returns the total. Every call given a whole control block counts in
/// `CTL_CALLS`, failed ones too.
///
/// On error nothing is promised about `out` or the `RUN_LEN` words, and `CTL_TOTAL` is 0.
pub fn encode_runs(ctl: &mut [u32], values: &[u32], out: &mut [u8]) -> Result<usize> {
    let words = ctl.len();
    let ctl = ctl
        .get_mut(..CTL_WORDS)
        .ok_or(Error::BadControl { words })?;
    ctl[CTL_TOTAL] = 0;
    ctl[CTL_CALLS] = ctl[CTL_CALLS].wrapping_add(1);
    let runs = ctl[CTL_RUNS] as usize;
    if runs > MAX_RUNS {
        return Err(Error::TooManyRuns { runs });
    }
    let mut total = 0usize;
    for run in 0..runs {
        let record = CTL_RECORDS + run * RUN_WORDS;
        let kind = Run::from_word(ctl[record + RUN_KIND]).ok_or(Error::UnknownRun {
            run,
            word: ctl[record + RUN_KIND],
        })?;
        let count = ctl[record + RUN_COUNT] as usize;
        let first = ctl[record + RUN_FIRST] as usize;
        let elements = element_words(values, kind, first, count).ok_or(Error::OutsideValues {
            run,
            first,
            count,
            words: values.len(),
        })?;
        let rest = &mut out[total..];
        let len = match kind {
            Run::Uint32 => encode32(elements, Packed32::Uint32, rest),
            Run::Int32 => encode32(elements, Packed32::Int32, rest),
            Run::Sint32 => encode32(elements, Packed32::Sint32, rest),
            Run::Uint64 => encode64(elements.as_chunks().0, false, rest),
            Run::Sint64 => encode64(elements.as_chunks().0, true, rest),
        }
        .map_err(|needed| Error::OutputFull {
            run,
            needed: total.saturating_add(needed),
            available: out.len(),
        })?;
        total += len;
        if total > MAX_OUTPUT {
            return Err(Error::TooLarge { size: total as u64 });
        }
        // `len <= total <= MAX_OUTPUT < 2^32`.
        ctl[record + RUN_LEN] = len as u32;
    }
    ctl[CTL_TOTAL] = total as u32;
    Ok(total)
}

/// The words of `count` elements of `kind` from word `first`, or `None` if they are not all in
/// `values` (or a 64-bit run does not start on an even word).
fn element_words(values: &[u32], kind: Run, first: usize, count: usize) -> Option<&[u32]> {
    if kind.words() == 2 && !first.is_multiple_of(2) {
        return None;
    }
    let end = first.checked_add(count.checked_mul(kind.words())?)?;
    values.get(first..end)
}

/// Encodes 32-bit elements at the start of `out`; `Err(needed)` if `out` is shorter.
#[inline]
fn encode32(elements: &[u32], kind: Packed32, out: &mut [u8]) -> std::result::Result<usize, usize> {
    let kernel = kernel_for(elements.len());
    let len = kernel.encoded_len_packed32(elements, kind);
    let dest = out.get_mut(..len).ok_or(len)?;
    kernel.encode_packed32(elements, kind, dest).ok_or(len)
}

/// Encodes 64-bit elements (word pairs, low first) at the start of `out`; `Err(needed)` if
/// `out` is shorter.
#[inline]
fn encode64(
    elements: &[Words64],
    zigzag: bool,
    out: &mut [u8],
) -> std::result::Result<usize, usize> {
    let kernel = kernel_for(elements.len());
    let len = kernel.encoded_len_packed64(elements, zigzag);
    let dest = out.get_mut(..len).ok_or(len)?;
    kernel.encode_packed64(elements, zigzag, dest).ok_or(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(runs: &[(Run, u32, u32)]) -> Vec<u32> {
        let mut ctl = vec![0u32; CTL_WORDS];
        ctl[CTL_RUNS] = runs.len() as u32;
        for (i, &(kind, count, first)) in runs.iter().enumerate() {
            let record = CTL_RECORDS + i * RUN_WORDS;
            ctl[record + RUN_KIND] = kind as u32;
            ctl[record + RUN_COUNT] = count;
            ctl[record + RUN_FIRST] = first;
        }
        ctl
    }

    #[test]
    fn runs_are_encoded_one_after_the_other_with_their_lengths() {
        let values = [1, 300, u32::MAX, (-2i32) as u32, 0, 7, 0, 0];
        let mut ctl = control(&[
            (Run::Uint32, 3, 0),
            (Run::Int32, 1, 3),
            (Run::Sint32, 1, 3),
            (Run::Uint64, 1, 4),
        ]);
        let mut out = vec![0u8; 64];
        let total = encode_runs(&mut ctl, &values, &mut out).unwrap();
        let expected: &[u8] = &[
            0x01, 0xac, 0x02, 0xff, 0xff, 0xff, 0xff, 0x0f, // uint32s [1, 300, 2^32 - 1]
            0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, // int32s [-2]
            0x03, // sint32s [-2]
        ];
        // The 64-bit element is the word pair (low 0, high 7): 7 << 32.
        let mut sixty_four = [0u8; 10];
        let n = crate::varint::encode_varint(7 << 32, &mut sixty_four).unwrap();
        assert_eq!(total, 19 + n);
        assert_eq!(&out[..19], &expected[..19]);
        assert_eq!(&out[19..total], &sixty_four[..n]);
        let lens: Vec<u32> = (0..4)
            .map(|i| ctl[CTL_RECORDS + i * RUN_WORDS + RUN_LEN])
            .collect();
        assert_eq!(lens, [8, 10, 1, n as u32]);
        assert_eq!(ctl[CTL_TOTAL] as usize, total);
    }

    #[test]
    fn every_call_counts_in_the_calls_word_wrapping() {
        let mut ctl = control(&[(Run::Uint32, 1, 0)]);
        let mut out = [0u8; 8];
        ctl[CTL_CALLS] = u32::MAX - 1;
        encode_runs(&mut ctl, &[5], &mut out).unwrap();
        assert_eq!(ctl[CTL_CALLS], u32::MAX);
        ctl[CTL_RUNS] = MAX_RUNS as u32 + 1;
        assert!(encode_runs(&mut ctl, &[5], &mut out).is_err());
        assert_eq!(
            ctl[CTL_CALLS], 0,
            "a failed call counts too, and the count wraps"
        );
    }

    #[test]
    fn malformed_controls_are_errors() {
        let values = [0u32; 8];
        let mut out = [0u8; 64];
        let mut short = vec![0u32; CTL_WORDS - 1];
        assert!(matches!(
            encode_runs(&mut short, &values, &mut out),
            Err(Error::BadControl { .. })
        ));
        let mut ctl = control(&[]);
        ctl[CTL_RUNS] = MAX_RUNS as u32 + 1;
        assert!(matches!(
            encode_runs(&mut ctl, &values, &mut out),
            Err(Error::TooManyRuns { .. })
        ));
        let mut ctl = control(&[(Run::Uint32, 1, 0)]);
        ctl[CTL_RECORDS] = 0;
        assert!(matches!(
            encode_runs(&mut ctl, &values, &mut out),
            Err(Error::UnknownRun { run: 0, word: 0 })
        ));
        for (kind, count, first) in [
            (Run::Uint32, 9, 0),
            (Run::Uint32, 1, 8),
            (Run::Uint32, u32::MAX, u32::MAX),
            (Run::Uint64, 1, 1),
            (Run::Sint64, 5, 0),
        ] {
            let mut ctl = control(&[(kind, count, first)]);
            assert!(
                matches!(
                    encode_runs(&mut ctl, &values, &mut out),
                    Err(Error::OutsideValues { .. })
                ),
                "{kind:?} {count} {first}"
            );
        }
        let mut ctl = control(&[(Run::Int32, 8, 0), (Run::Int32, 8, 0)]);
        let full = [u32::MAX; 8];
        let mut small = [0u8; 100];
        assert_eq!(
            encode_runs(&mut ctl, &full, &mut small),
            Err(Error::OutputFull {
                run: 1,
                needed: 160,
                available: 100
            })
        );
        assert_eq!(ctl[CTL_TOTAL], 0);
    }

    #[test]
    fn the_most_bytes_of_each_element_bound_a_worst_case_call() {
        let values = [u32::MAX; 16];
        let runs = [(Run::Int32, 8, 0), (Run::Uint64, 4, 8), (Run::Sint32, 8, 0)];
        let bound: usize = runs
            .iter()
            .map(|&(kind, count, _)| count as usize * kind.max_element_bytes())
            .sum();
        assert_eq!(bound, 80 + 40 + 40);
        let mut out = vec![0u8; bound];
        let mut ctl = control(&runs);
        assert_eq!(encode_runs(&mut ctl, &values, &mut out), Ok(80 + 40 + 8));
    }

    #[test]
    fn unaligned_64_bit_elements_give_the_same_bytes() {
        let words: Vec<u32> = vec![9, 5, 1, 300, 0, 0];
        // A Vec<u32> is 4-byte aligned: one of these two starts is not 8-byte aligned.
        let start = (0..2)
            .find(|&s| !words[s..].as_ptr().cast::<u64>().is_aligned())
            .unwrap();
        let values = &words[start..start + 4];
        let mut expected = Vec::new();
        for pair in values.chunks(2) {
            let mut bytes = [0u8; 10];
            let value = u64::from(pair[0]) | u64::from(pair[1]) << 32;
            let n = crate::varint::encode_varint(value, &mut bytes).unwrap();
            expected.extend_from_slice(&bytes[..n]);
        }
        let mut ctl = control(&[(Run::Uint64, 2, 0)]);
        let mut out = [0u8; 20];
        let n = encode_runs(&mut ctl, values, &mut out).unwrap();
        assert_eq!(&out[..n], &expected[..]);
    }
}
