//! Memory shared with JS.
//!
//! Every buffer JS and Rust share is allocated here and handed to JS as an external `Buffer`
//! whose finalizer holds one [`Rc`] of the [`Block`]; the [`crate::binding::Engine`] holds
//! another while it uses the block. So the memory lives as long as either side uses it, and
//! nothing JS does (dropping a view, detaching its `ArrayBuffer`) can leave Rust with a dangling
//! pointer. JS only ever gets one `Buffer` per block (V8 must not see two backing stores over
//! the same bytes, nodejs/node#32463).

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::cell::RefCell;
use std::ptr::NonNull;
use std::rc::{Rc, Weak};

use napi::bindgen_prelude::{BufferSlice, Env};
use napi::{sys, JsValue};

use crate::error::{Error, Result};

/// Alignment of every block: tapes hold `f64`s at even words.
const ALIGN: usize = 8;

/// Most bytes a [`Pool`] keeps for reuse.
const POOL_MAX_BYTES: usize = 32 * 1024 * 1024;
/// Most blocks a [`Pool`] keeps for reuse (it is searched linearly).
const POOL_MAX_BLOCKS: usize = 16;
/// A pooled block is reused for a request of at least `1 / REUSE_SLACK` of its size, so a small
/// result never holds on to a much larger block.
const REUSE_SLACK: usize = 2;

/// An 8-byte-aligned allocation, zero-initialised when it is first allocated.
#[derive(Debug)]
pub struct Block {
    ptr: NonNull<u8>,
    len: usize,
    /// Where the memory goes back when the block is dropped.
    pool: Weak<Pool>,
}

/// Memory of dropped blocks, kept for the next blocks of about the same size. Fresh memory costs
/// a page fault per 4 KiB on first touch (~0.5-1.7 µs each on the machines measured, more than
/// encoding a small message); results and slabs die at the pace of the garbage collector, so
/// without reuse every large result would be fresh memory.
#[derive(Debug, Default)]
pub struct Pool {
    free: RefCell<Vec<(NonNull<u8>, usize)>>,
}

impl Pool {
    /// A new, empty pool.
    pub fn new() -> Rc<Pool> {
        Rc::new(Pool::default())
    }

    /// Takes a free block of at least `len` bytes and at most `REUSE_SLACK` times that.
    fn take(&self, len: usize) -> Option<(NonNull<u8>, usize)> {
        let mut free = self.free.borrow_mut();
        let (index, _) = free
            .iter()
            .enumerate()
            .filter(|(_, &(_, size))| size >= len && size / REUSE_SLACK <= len)
            .min_by_key(|(_, &(_, size))| size)?;
        Some(free.swap_remove(index))
    }

    /// Keeps `ptr` (a block of `len` bytes) for reuse, or returns it when the pool is full.
    fn put(&self, ptr: NonNull<u8>, len: usize) -> Option<NonNull<u8>> {
        let mut free = self.free.borrow_mut();
        let held: usize = free.iter().map(|&(_, size)| size).sum();
        if free.len() >= POOL_MAX_BLOCKS || held + len > POOL_MAX_BYTES {
            return Some(ptr);
        }
        free.push((ptr, len));
        None
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        for (ptr, len) in self.free.get_mut().drain(..) {
            // Safety: every pooled pointer was allocated by `Block::new` with this layout and
            // is owned by the pool alone.
            unsafe { dealloc(ptr.as_ptr(), layout(len)) }
        }
    }
}

/// The layout of every block of `len` bytes (`len` > 0; checked when the block was made).
fn layout(len: usize) -> Layout {
    // Safety (of the unchecked call): `Block::new` created a layout with these arguments.
    unsafe { Layout::from_size_align_unchecked(len, ALIGN) }
}

impl Block {
    /// Allocates `len` zeroed bytes (at least 1). Allocation failure is an error, not an abort.
    pub fn zeroed(len: usize) -> Result<Rc<Block>> {
        Block::new(len, &Weak::new(), true)
    }

    /// A block of at least `len` bytes (at least 1) from `pool` when it has one, else newly
    /// allocated (and zeroed if `zero`). A block from the pool holds what its last user wrote
    /// unless `zero`; either way every byte is initialized. The block returns to `pool` when
    /// dropped. Allocation failure is an error, not an abort.
    pub fn new(len: usize, pool: &Weak<Pool>, zero: bool) -> Result<Rc<Block>> {
        let len = len.max(1);
        if let Some((ptr, size)) = pool.upgrade().and_then(|pool| pool.take(len)) {
            if zero {
                // Safety: the pooled block is `size` bytes, owned by nobody else.
                unsafe { ptr.as_ptr().write_bytes(0, size) };
            }
            let pool = pool.clone();
            return Ok(Rc::new(Block {
                ptr,
                len: size,
                pool,
            }));
        }
        let layout =
            Layout::from_size_align(len, ALIGN).map_err(|_| Error::OutOfMemory { bytes: len })?;
        // Safety: the layout has a non-zero size. New memory is zeroed either way (by
        // `alloc_zeroed`, which takes fresh pages from the kernel as they are), so every byte
        // of a block is initialized; only reused blocks skip zeroing.
        let ptr = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).ok_or(Error::OutOfMemory { bytes: len })?;
        Ok(Rc::new(Block {
            ptr,
            len,
            pool: pool.clone(),
        }))
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether `bytes` overlaps this block.
    pub fn overlaps(&self, bytes: &[u8]) -> bool {
        let (start, end) = (
            self.ptr.as_ptr() as usize,
            self.ptr.as_ptr() as usize + self.len,
        );
        let (other, other_end) = (
            bytes.as_ptr() as usize,
            bytes.as_ptr() as usize + bytes.len(),
        );
        other < end && start < other_end
    }

    /// The block's bytes.
    ///
    /// # Safety
    /// No `&mut` to the same block may be alive, and JS must not run while the slice is (JS may
    /// write the block through its views). The binding only forms slices inside one native call.
    pub unsafe fn bytes(&self) -> &[u8] {
        // Safety: `ptr` is valid for `len` bytes while `self` lives; aliasing is the caller's.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The block's bytes, mutably.
    ///
    /// # Safety
    /// As for [`Block::bytes`], and no other slice of the block may be alive.
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
        Block::to_buffer_of(block, block.len, env)
    }

    /// Hands the first `len` bytes of the block to JS as a `Buffer`. Call at most once per
    /// block.
    pub fn to_buffer_of(
        block: &Rc<Block>,
        len: usize,
        env: sys::napi_env,
    ) -> Result<sys::napi_value> {
        let env = Env::from_raw(env);
        let keep = Rc::clone(block);
        let len = len.min(block.len);
        // Safety: the finalizer owns `keep`, so the bytes stay valid for as long as the Buffer
        // does; they are freed (or pooled) only when both the Buffer and the engine have
        // dropped the block.
        let buffer = unsafe {
            BufferSlice::from_external(&env, block.ptr.as_ptr(), len, keep, |_, keep| drop(keep))
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
        let ptr = match self.pool.upgrade() {
            Some(pool) => pool.put(self.ptr, self.len),
            None => Some(self.ptr),
        };
        if let Some(ptr) = ptr {
            // Safety: allocated in `Block::new` with this exact layout, and not pooled.
            unsafe { dealloc(ptr.as_ptr(), layout(self.len)) }
        }
    }
}
