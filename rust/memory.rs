//! The blocks Rust allocates and shares with JS: the control, value and output blocks of
//! [`crate::binding::Engine`]. (Results are never made here: JS allocates them.)
//!
//! Each block is handed to JS as an external `Buffer` whose finalizer holds one [`Rc`] of the
//! [`Block`]; the engine holds another while the block is current. So the memory lives as long as
//! either side uses it, and nothing JS does (dropping a view, detaching its `ArrayBuffer`) can
//! leave Rust with a dangling pointer. JS only ever gets one `Buffer` per block (V8 must not see
//! two backing stores over the same bytes, nodejs/node#32463). Node frees external memory only on
//! a later event-loop turn, which is fine for blocks that are replaced a few times per process.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;
use std::rc::Rc;

use napi::bindgen_prelude::{BufferSlice, Env};
use napi::{sys, JsValue};

use crate::error::{Error, Result};

/// Alignment of every block: JS views the value block as 64-bit words too (`BigUint64Array`).
const ALIGN: usize = 8;

/// A zero-initialised, 8-byte-aligned allocation.
#[derive(Debug)]
pub struct Block {
    ptr: NonNull<u8>,
    len: usize,
}

impl Block {
    /// Allocates `len` zeroed bytes (at least 1). Allocation failure is an error, not an abort.
    pub fn zeroed(len: usize) -> Result<Rc<Block>> {
        let layout = Layout::from_size_align(len.max(1), ALIGN)
            .map_err(|_| Error::OutOfMemory { bytes: len })?;
        // Safety: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).ok_or(Error::OutOfMemory { bytes: len })?;
        Ok(Rc::new(Block { ptr, len }))
    }

    /// The block as native-endian `u32` words (a trailing partial word left out).
    ///
    /// # Safety
    /// No `&mut` to the same block may be alive, and JS must not run while the slice is (JS may
    /// write the block through its views). The binding only forms slices inside one native call.
    pub unsafe fn words(&self) -> &[u32] {
        // Safety: `ptr` is valid for `len` bytes while `self` lives and aligned for u32 (to
        // ALIGN); every bit pattern is a u32; aliasing is the caller's.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().cast(), self.len / 4) }
    }

    /// [`Block::words`], mutably.
    ///
    /// # Safety
    /// As for [`Block::words`], and no other slice of the block may be alive.
    #[allow(
        clippy::mut_from_ref,
        reason = "the block is shared with JS; the caller upholds exclusivity"
    )]
    pub unsafe fn words_mut(&self) -> &mut [u32] {
        // Safety: as in `words`; exclusivity is the caller's.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().cast(), self.len / 4) }
    }

    /// The block's bytes, mutably.
    ///
    /// # Safety
    /// As for [`Block::words_mut`].
    #[allow(
        clippy::mut_from_ref,
        reason = "the block is shared with JS; the caller upholds exclusivity"
    )]
    pub unsafe fn bytes_mut(&self) -> &mut [u8] {
        // Safety: as above; exclusivity is the caller's.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// Hands the block to JS as a `Buffer` over the same bytes. Call at most once per block.
    pub fn to_buffer(block: &Rc<Block>, env: sys::napi_env) -> Result<sys::napi_value> {
        let env = Env::from_raw(env);
        let keep = Rc::clone(block);
        // Safety: the finalizer owns `keep`, so the bytes stay valid for as long as the Buffer
        // does; they are freed only when both the Buffer and the engine have dropped the block.
        let buffer = unsafe {
            BufferSlice::from_external(&env, block.ptr.as_ptr(), block.len, keep, |_, keep| {
                drop(keep)
            })
        }
        .map_err(|_| Error::Binding("could not share memory with JS"))?;
        // A runtime without external buffers (napi_no_external_buffers_allowed) silently copies;
        // a copy would break the sharing the whole design rests on.
        if buffer.as_ref().as_ptr() != block.ptr.as_ptr().cast_const() {
            return Err(Error::Binding(
                "this runtime does not allow external buffers, which protobufjs-rustwriter needs",
            ));
        }
        Ok(buffer.raw())
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // Safety: allocated in `zeroed` with this exact layout.
        unsafe {
            dealloc(
                self.ptr.as_ptr(),
                Layout::from_size_align_unchecked(self.len.max(1), ALIGN),
            )
        }
    }
}
