//! Packed varints: prost's one-value-at-a-time `encode_varint` against this crate's kernels.
//!
//! `cargo bench --no-default-features --bench varint`. Seeded arrays of 10,000 elements in size
//! classes (the shape of prost's `benches/varint.rs`); every variant's bytes are checked against
//! prost's before anything is timed. Criterion reports time per 10,000 elements and elements/s.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use protobufjs_rustwriter::simd::{self, Kernel, Packed32, Words64};
use protobufjs_rustwriter::testing::{words_of, Rng};

/// Elements per array.
const ELEMENTS: usize = 10_000;

fn classes32() -> Vec<(&'static str, Vec<u32>)> {
    let mut rng = Rng(32);
    let mut array = |value: &mut dyn FnMut(&mut Rng) -> u64| {
        (0..ELEMENTS)
            .map(|_| value(&mut rng) as u32)
            .collect::<Vec<_>>()
    };
    vec![
        ("1-byte", array(&mut |rng| rng.of_len(1))),
        ("5-byte", array(&mut |rng| rng.of_len(5))),
        ("mixed", array(&mut |rng| rng.mixed(5))),
    ]
}

fn classes64() -> Vec<(&'static str, Vec<u64>)> {
    let mut rng = Rng(64);
    let mut array = |value: &mut dyn FnMut(&mut Rng) -> u64| {
        (0..ELEMENTS).map(|_| value(&mut rng)).collect::<Vec<_>>()
    };
    vec![
        ("1-byte", array(&mut |rng| rng.of_len(1))),
        ("5-byte", array(&mut |rng| rng.of_len(5))),
        ("10-byte", array(&mut |rng| rng.of_len(10))),
        ("mixed", array(&mut |rng| rng.mixed(10))),
    ]
}

fn prost_bytes(values: impl Iterator<Item = u64>) -> Vec<u8> {
    let mut bytes = Vec::new();
    for value in values {
        prost::encoding::encode_varint(value, &mut bytes);
    }
    bytes
}

/// Every kernel this CPU runs, then the one the dispatch picks for the arrays, with their labels.
fn kernels() -> impl Iterator<Item = (String, &'static Kernel)> {
    let dispatched = simd::kernel_for(ELEMENTS);
    let labelled = simd::available()
        .into_iter()
        .map(|k| (k.name.to_owned(), k));
    labelled.chain([(format!("dispatched ({})", dispatched.name), dispatched)])
}

/// A group timing prost's one-varint-at-a-time `encode_varint` over `values`, then `encode` of
/// every kernel over the same values as `elements`, once its bytes equal prost's.
fn encode_group<V: Copy + Into<u64>, E>(
    c: &mut Criterion,
    name: String,
    values: &[V],
    elements: &[E],
    encode: impl Fn(&Kernel, &[E], &mut [u8]) -> Option<usize>,
) {
    let expected = prost_bytes(values.iter().map(|&v| v.into()));
    let len = expected.len();
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(ELEMENTS as u64));
    group.bench_function("prost", |b| {
        let mut buf = Vec::with_capacity(len);
        b.iter(|| {
            buf.clear();
            for &value in black_box(values) {
                prost::encoding::encode_varint(value.into(), &mut buf);
            }
            black_box(&buf);
        })
    });
    for (label, kernel) in kernels() {
        let mut out = vec![0; len];
        let written = encode(kernel, elements, &mut out);
        assert_eq!((written, &out), (Some(len), &expected), "{label}");
        group.bench_function(label, |b| {
            b.iter(|| encode(kernel, black_box(elements), &mut out))
        });
    }
    group.finish();
}

/// The same for length sums: prost's `encoded_len_varint` summed, against `len` of every kernel.
fn len_group<V: Copy + Into<u64>, E>(
    c: &mut Criterion,
    name: &str,
    values: &[V],
    elements: &[E],
    len: impl Fn(&Kernel, &[E]) -> usize,
) {
    let prost_len = |values: &[V]| {
        values
            .iter()
            .map(|&v| prost::encoding::encoded_len_varint(v.into()))
            .sum::<usize>()
    };
    let expected = prost_len(values);
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(ELEMENTS as u64));
    group.bench_function("prost", |b| b.iter(|| prost_len(black_box(values))));
    for kernel in simd::available() {
        assert_eq!(len(kernel, elements), expected, "{}", kernel.name);
        group.bench_function(kernel.name, |b| b.iter(|| len(kernel, black_box(elements))));
    }
    group.finish();
}

fn encode_u32(c: &mut Criterion) {
    for (class, values) in classes32() {
        let name = format!("encode_u32/{class}");
        encode_group(c, name, &values, &values, |kernel, elements, out| {
            kernel.encode_packed32(elements, Packed32::Uint32, out)
        });
    }
}

fn encode_u64(c: &mut Criterion) {
    for (class, values) in classes64() {
        let pairs: Vec<Words64> = values.iter().map(|&v| words_of(v)).collect();
        let name = format!("encode_u64/{class}");
        encode_group(c, name, &values, &pairs, |kernel, elements, out| {
            kernel.encode_packed64(elements, false, out)
        });
    }
}

/// Length sums of the mixed arrays.
fn encoded_len(c: &mut Criterion) {
    let (_, mixed32) = classes32().pop().expect("the mixed u32 class comes last");
    len_group(
        c,
        "encoded_len_u32/mixed",
        &mixed32,
        &mixed32,
        |kernel, e| kernel.encoded_len_packed32(e, Packed32::Uint32),
    );
    let (_, mixed64) = classes64().pop().expect("the mixed u64 class comes last");
    let pairs: Vec<Words64> = mixed64.iter().map(|&v| words_of(v)).collect();
    len_group(c, "encoded_len_u64/mixed", &mixed64, &pairs, |kernel, e| {
        kernel.encoded_len_packed64(e, false)
    });
}

/// Short runs: 2 s per variant, 43 variants on a machine with AVX2, under 90 s in all.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = encode_u32, encode_u64, encoded_len
}
criterion_main!(benches);
