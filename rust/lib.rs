//! Native half of `protobufjs-rustwriter`.
//!
//! The JS `RustWriter` writes protobuf wire bytes itself and hands long packed varint fields
//! to [`runs`], which encodes them with the kernels of [`simd`]; [`control`] is the layout of
//! the control block through which JS describes them. All of it is plain Rust over slices that
//! builds without Node (`cargo test --no-default-features`); only `binding` (with `memory`)
//! touches N-API.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

#[cfg(not(target_endian = "little"))]
compile_error!("the value block format assumes a little-endian target (every Node.js platform is)");

pub mod control;
pub mod error;
pub mod runs;
pub mod simd;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod varint;

#[cfg(feature = "node")]
mod binding;
#[cfg(feature = "node")]
mod memory;
