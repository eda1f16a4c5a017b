//! Packed varints: prost's one-value-at-a-time `encode_varint` against this crate's kernels.
//!
//! `cargo bench --no-default-features --bench varint`. Seeded arrays of 10,000 elements in size
//! classes (the shape of prost's `benches/varint.rs`); every variant's bytes are checked against
//! prost's before anything is timed. Criterion reports time per 10,000 elements and elements/s.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use protobufjs_rustwriter::simd::{self, Packed32};
use protobufjs_rustwriter::testing::Rng;

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

/// The dispatched functions' label, naming the kernel they use here.
fn dispatched_name() -> String {
    format!("dispatched ({:?})", simd::kernel())
}

fn encode_u32(c: &mut Criterion) {
    for (class, values) in classes32() {
        let expected = prost_bytes(values.iter().map(|&v| u64::from(v)));
        let len = expected.len();
        let mut group = c.benchmark_group(format!("encode_u32/{class}"));
        group.throughput(Throughput::Elements(ELEMENTS as u64));
        group.bench_function("prost", |b| {
            let mut buf = Vec::with_capacity(len);
            b.iter(|| {
                buf.clear();
                for &value in black_box(&values) {
                    prost::encoding::encode_varint(u64::from(value), &mut buf);
                }
                black_box(&buf);
            })
        });
        for kernel in simd::available_kernels() {
            let mut out = vec![0; len];
            let written = simd::encode_packed32_with(kernel, &values, Packed32::Uint32, &mut out);
            assert_eq!(
                (written, &out),
                (Some(len), &expected),
                "{kernel:?} {class}"
            );
            group.bench_function(format!("{kernel:?}"), |b| {
                b.iter(|| {
                    simd::encode_packed32_with(
                        kernel,
                        black_box(&values),
                        Packed32::Uint32,
                        &mut out,
                    )
                })
            });
        }
        let mut out = vec![0; len];
        assert_eq!(
            simd::encode_packed32(&values, Packed32::Uint32, &mut out),
            Some(len)
        );
        assert_eq!(out, expected, "dispatched {class}");
        group.bench_function(dispatched_name(), |b| {
            b.iter(|| simd::encode_packed32(black_box(&values), Packed32::Uint32, &mut out))
        });
        group.finish();
    }
}

fn encode_u64(c: &mut Criterion) {
    for (class, values) in classes64() {
        let expected = prost_bytes(values.iter().copied());
        let len = expected.len();
        let mut group = c.benchmark_group(format!("encode_u64/{class}"));
        group.throughput(Throughput::Elements(ELEMENTS as u64));
        group.bench_function("prost", |b| {
            let mut buf = Vec::with_capacity(len);
            b.iter(|| {
                buf.clear();
                for &value in black_box(&values) {
                    prost::encoding::encode_varint(value, &mut buf);
                }
                black_box(&buf);
            })
        });
        for kernel in simd::available_kernels() {
            let mut out = vec![0; len];
            let written = simd::encode_packed64_with(kernel, &values, false, &mut out);
            assert_eq!(
                (written, &out),
                (Some(len), &expected),
                "{kernel:?} {class}"
            );
            group.bench_function(format!("{kernel:?}"), |b| {
                b.iter(|| simd::encode_packed64_with(kernel, black_box(&values), false, &mut out))
            });
        }
        let mut out = vec![0; len];
        assert_eq!(simd::encode_packed64(&values, false, &mut out), Some(len));
        assert_eq!(out, expected, "dispatched {class}");
        group.bench_function(dispatched_name(), |b| {
            b.iter(|| simd::encode_packed64(black_box(&values), false, &mut out))
        });
        group.finish();
    }
}

/// Length sums of the mixed arrays: prost's `encoded_len_varint` summed, against the kernels.
fn encoded_len(c: &mut Criterion) {
    let (_, mixed32) = classes32().pop().expect("the mixed u32 class comes last");
    let (_, mixed64) = classes64().pop().expect("the mixed u64 class comes last");
    let expected32: usize = mixed32
        .iter()
        .map(|&v| prost::encoding::encoded_len_varint(v.into()))
        .sum();
    let expected64: usize = mixed64
        .iter()
        .map(|&v| prost::encoding::encoded_len_varint(v))
        .sum();

    let mut group = c.benchmark_group("encoded_len_u32/mixed");
    group.throughput(Throughput::Elements(ELEMENTS as u64));
    group.bench_function("prost", |b| {
        b.iter(|| {
            black_box(&mixed32)
                .iter()
                .map(|&v| prost::encoding::encoded_len_varint(v.into()))
                .sum::<usize>()
        })
    });
    for kernel in simd::available_kernels() {
        let len = simd::encoded_len_packed32_with(kernel, &mixed32, Packed32::Uint32);
        assert_eq!(len, Some(expected32), "{kernel:?}");
        group.bench_function(format!("{kernel:?}"), |b| {
            b.iter(|| {
                simd::encoded_len_packed32_with(kernel, black_box(&mixed32), Packed32::Uint32)
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("encoded_len_u64/mixed");
    group.throughput(Throughput::Elements(ELEMENTS as u64));
    group.bench_function("prost", |b| {
        b.iter(|| {
            black_box(&mixed64)
                .iter()
                .map(|&v| prost::encoding::encoded_len_varint(v))
                .sum::<usize>()
        })
    });
    for kernel in simd::available_kernels() {
        let len = simd::encoded_len_packed64_with(kernel, &mixed64, false);
        assert_eq!(len, Some(expected64), "{kernel:?}");
        group.bench_function(format!("{kernel:?}"), |b| {
            b.iter(|| simd::encoded_len_packed64_with(kernel, black_box(&mixed64), false))
        });
    }
    group.finish();
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
