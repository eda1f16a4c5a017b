//! The run encoder against prost: for every run kind, the payload `encode_runs` writes equals the
//! payload of prost's own packed encoding of the same values (`prost::encoding::*::encode_packed`,
//! key and length stripped), on boundary values, on seeded random values of every varint length
//! class and run length, and with many runs in one call.

use prost::bytes::Buf;
use prost::encoding::{decode_varint, int32, sint32, sint64, uint32, uint64};
use protobufjs_rustwriter::control::{
    Run, CTL_RECORDS, CTL_RUNS, CTL_TOTAL, CTL_WORDS, MAX_RUNS, RUN_COUNT, RUN_FIRST, RUN_KIND,
    RUN_LEN, RUN_WORDS,
};
use protobufjs_rustwriter::runs::encode_runs;
use protobufjs_rustwriter::testing::Rng;

/// A value of a random bit length (uniform over 0..=64), so every varint length class occurs.
fn varied(rng: &mut Rng) -> u64 {
    let bits = rng.next_u64() % 65;
    if bits == 0 {
        0
    } else {
        rng.next_u64() >> (64 - bits)
    }
}

/// One run to encode: its kind and elements (32-bit ones in the low half).
struct Case {
    kind: Run,
    elements: Vec<u64>,
}

/// prost's packed payload of `case`.
fn prost_payload(case: &Case) -> Vec<u8> {
    let mut field = Vec::new();
    let e = &case.elements;
    match case.kind {
        Run::Uint32 => uint32::encode_packed(
            1,
            &e.iter().map(|&v| v as u32).collect::<Vec<_>>(),
            &mut field,
        ),
        Run::Int32 => int32::encode_packed(
            1,
            &e.iter().map(|&v| v as i32).collect::<Vec<_>>(),
            &mut field,
        ),
        Run::Sint32 => sint32::encode_packed(
            1,
            &e.iter().map(|&v| v as i32).collect::<Vec<_>>(),
            &mut field,
        ),
        Run::Uint64 => uint64::encode_packed(1, e, &mut field),
        Run::Sint64 => sint64::encode_packed(
            1,
            &e.iter().map(|&v| v as i64).collect::<Vec<_>>(),
            &mut field,
        ),
    }
    if field.is_empty() {
        return field; // prost writes nothing at all for an empty packed field
    }
    let mut rest = &field[1..]; // the key of field 1, wire type 2: one byte
    let len = decode_varint(&mut rest).unwrap() as usize;
    assert_eq!(rest.remaining(), len);
    rest.to_vec()
}

/// Encodes `cases` in one call and checks each payload against prost.
fn check(cases: &[Case]) {
    let mut ctl = vec![0u32; CTL_WORDS];
    let mut values = Vec::new();
    ctl[CTL_RUNS] = cases.len() as u32;
    for (i, case) in cases.iter().enumerate() {
        let record = CTL_RECORDS + i * RUN_WORDS;
        if case.kind.words() == 2 && values.len() % 2 == 1 {
            values.push(0);
        }
        ctl[record + RUN_KIND] = case.kind as u32;
        ctl[record + RUN_COUNT] = case.elements.len() as u32;
        ctl[record + RUN_FIRST] = values.len() as u32;
        for &v in &case.elements {
            values.push(v as u32);
            if case.kind.words() == 2 {
                values.push((v >> 32) as u32);
            }
        }
    }
    // The output block JS gives: room for the most bytes each element can take.
    let bound = cases
        .iter()
        .map(|case| case.elements.len() * case.kind.max_element_bytes())
        .sum();
    let mut out = vec![0u8; bound];
    let total = encode_runs(&mut ctl, &values, &mut out).unwrap();
    assert_eq!(ctl[CTL_TOTAL] as usize, total);
    let mut at = 0;
    for (i, case) in cases.iter().enumerate() {
        let len = ctl[CTL_RECORDS + i * RUN_WORDS + RUN_LEN] as usize;
        assert_eq!(
            &out[at..at + len],
            &prost_payload(case)[..],
            "run {i} ({:?})",
            case.kind
        );
        at += len;
    }
    assert_eq!(at, total);
}

const KINDS: [Run; 5] = [
    Run::Uint32,
    Run::Int32,
    Run::Sint32,
    Run::Uint64,
    Run::Sint64,
];

#[test]
fn boundary_values_of_every_kind_equal_prost() {
    let mut edges: Vec<u64> = vec![0, u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) - 1];
    for k in 1..10 {
        edges.extend([(1u64 << (7 * k)) - 1, 1u64 << (7 * k)]);
    }
    edges.extend([
        u32::MAX.into(),
        0x8000_0000,
        0x7fff_ffff,
        (-1i64) as u64,
        (-2i64) as u64,
    ]);
    let cases: Vec<Case> = KINDS
        .iter()
        .map(|&kind| Case {
            kind,
            elements: edges.clone(),
        })
        .collect();
    check(&cases);
}

#[test]
fn random_runs_of_every_length_and_length_class_equal_prost() {
    let mut rng = Rng(0x5eed_0001);
    for len in (0..80).chain([127, 128, 255, 256, 1000, 4099]) {
        for &kind in &KINDS {
            let elements = (0..len).map(|_| varied(&mut rng)).collect();
            check(&[Case { kind, elements }]);
        }
    }
}

#[test]
fn the_most_runs_one_call_allows_equal_prost() {
    let mut rng = Rng(0x5eed_0002);
    let cases: Vec<Case> = (0..MAX_RUNS)
        .map(|i| Case {
            kind: KINDS[i % KINDS.len()],
            elements: (0..(rng.next_u64() % 40) as usize)
                .map(|_| varied(&mut rng))
                .collect(),
        })
        .collect();
    check(&cases);
}
