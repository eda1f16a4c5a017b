//! Native half of `protobufjs-rustwriter`.
//!
//! The JS `RustWriter` records protobuf.js writer calls into a tape (see [`opcode`]);
//! [`replay`] turns a tape into protobuf wire bytes. Both are plain Rust over slices and
//! build without Node (`cargo test --no-default-features`); only [`binding`] touches N-API.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

#[cfg(not(target_endian = "little"))]
compile_error!("the tape format assumes a little-endian target (every Node.js platform is)");

pub mod error;
pub mod opcode;
pub mod replay;
pub mod simd;
pub mod varint;

#[cfg(feature = "node")]
mod binding;
#[cfg(feature = "node")]
mod memory;
