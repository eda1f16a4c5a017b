//! Every `#[napi]` item. Thin: it moves bytes between the shared blocks and [`Replay`]; all
//! encoding lives in [`crate::replay`].
//!
//! Protocol with `index.js`, per finished message, with no argument converted:
//! 1. JS writes the region's first and end word into the control block (`CTL_START`, `CTL_END`);
//! 2. JS calls `finish()` (the current tape) or `finishTape(buffer)` (any other tape);
//! 3. Rust replays the region into the result slab (a JS `ArrayBuffer` it allocated) at a
//!    cursor only Rust moves, so it can never write over a result it already returned, stores
//!    the byte offset in `CTL_OFFSET` and the slab's generation in `CTL_SLAB`, and returns the
//!    length; a result too large for a slab comes back as a new `Buffer` instead;
//! 4. JS wraps the bytes in a `Buffer` view, fetching the slab with `slab()` when the
//!    generation changed.
//!
//! Results live in memory V8 allocated (slabs and `Buffer`s made through N-API), never in
//! external buffers: V8 frees those with their last reference, while Node frees external memory
//! only on a later event-loop turn, so a synchronous loop of encodes would hold all of it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::CStr;
use std::ptr;
use std::rc::Rc;

use napi::bindgen_prelude::{Env, FromNapiValue, Object, ToNapiValue};
use napi::{sys, JsValue};
use napi_derive::napi;

use crate::error::Error;
use crate::memory::Block;
use crate::opcode::{Op, WORD_BYTES};
use crate::replay::{forward_bound, Replay, MAX_OUTPUT, WRITE_SLACK};

/// Control block word: first word of the region to replay (written by JS).
const CTL_START: usize = 0;
/// Control block word: one past the last word of the region (written by JS).
const CTL_END: usize = 1;
/// Control block word: byte offset of the result in the slab (written by Rust).
const CTL_OFFSET: usize = 2;
/// Control block word: generation of the slab holding the result (written by Rust).
const CTL_SLAB: usize = 3;
/// Control block word: the number of referenced arrays of the region (written by JS; `BYTES_REF`
/// records name them), then the number of holes the replay left (written by Rust).
const CTL_REFS: usize = 4;
/// Control block words: `(reference, offset)` of each hole the replay left (written by Rust).
const CTL_HOLES: usize = 5;
/// Most referenced arrays one region may have (JS copies further `bytes` values).
const MAX_REFS: usize = 32;
/// Words in the control block.
const CTL_WORDS: usize = CTL_HOLES + 2 * MAX_REFS;

/// Bytes of one result slab. Results are carved from it like Node's own `Buffer` pool carves
/// `allocUnsafe` results from its 8 KiB pool; a bigger slab makes creating one (an N-API call
/// and fresh pages) rare (about once per 600 results of 100 bytes).
const SLAB_BYTES: usize = 64 * 1024;
/// Largest result carved from a slab; larger ones get a `Buffer` of their own, so one long-lived
/// small result pins at most one slab and a big one never wastes a slab's tail.
const POOLED_MAX: usize = SLAB_BYTES / 4;
/// Largest one-pass bound replayed into the scratch buffer; larger tapes are measured first and
/// written straight into the result, so the scratch never needs more than this.
const SCRATCH_MAX: usize = 64 * 1024 * 1024;
/// Scratch capacity kept between large results; a larger one is given back after use.
const SCRATCH_KEEP: usize = 8 * 1024 * 1024;
/// Result offsets in a slab are multiples of this, as in Node's pool, so callers can lay typed
/// arrays over them.
const RESULT_ALIGN: usize = 8;

/// JS error code for a size limit (rethrown by `index.js` as a `RangeError`).
const CODE_RANGE: &CStr = c"ERR_OUT_OF_RANGE";
/// JS error code for everything else (malformed tapes, misuse of the binding).
const CODE_TAPE: &CStr = c"ERR_PROTOBUF_RUSTWRITER";

/// The one conversion from the core's errors to JS exceptions: size limits become `RangeError`s,
/// everything else an `Error`; both carry a `code`.
fn throw(env: sys::napi_env, error: &Error) {
    let message = error.to_string().replace('\0', " ");
    let message = std::ffi::CString::new(message).unwrap_or_default();
    // Safety: `env` is the live env of the current call; both strings are NUL-terminated.
    unsafe {
        match error {
            Error::TooLarge { .. } | Error::OutOfMemory { .. } => {
                sys::napi_throw_range_error(env, CODE_RANGE.as_ptr(), message.as_ptr())
            }
            _ => sys::napi_throw_error(env, CODE_TAPE.as_ptr(), message.as_ptr()),
        };
    }
}

fn napi_error(what: &'static str) -> impl Fn(napi::Error) -> Error {
    move |_| Error::Binding(what)
}

/// Numbers `index.js` shares with the replay: every opcode by name, and the control block layout.
#[napi]
pub fn protocol() -> HashMap<&'static str, u32> {
    let mut map: HashMap<&'static str, u32> = Op::ALL
        .iter()
        .map(|&(name, op)| (name, op as u32))
        .collect();
    for (name, value) in [
        ("CTL_START", CTL_START),
        ("CTL_END", CTL_END),
        ("CTL_OFFSET", CTL_OFFSET),
        ("CTL_SLAB", CTL_SLAB),
        ("CTL_REFS", CTL_REFS),
        ("CTL_HOLES", CTL_HOLES),
        ("MAX_REFS", MAX_REFS),
        ("CTL_WORDS", CTL_WORDS),
        ("MAX_OUTPUT", MAX_OUTPUT),
    ] {
        map.insert(name, value as u32);
    }
    map
}

/// Creates the native state of one `index.js` instance and returns its control block and
/// functions bound to it:
/// `{ control, tape(bytes, current), finish(), finishTape(tape), measure(), measureTape(tape),
/// slab(), retireSlab(), writeInto(buffer, tape) }`.
///
/// One engine per JS module instance (so per worker thread, and per copy of the module a test
/// runner loads): nothing is shared between them. The functions are plain functions whose
/// N-API data is the engine, because a `#[napi]` class method costs ~450 ns a call against
/// ~45 ns for a plain function (napi-rs 3.16, Node 20, measured while designing this; the
/// per-finish cost is in `bench/native-call.js`).
#[napi]
pub fn create_engine(env: &Env) -> napi::Result<Object<'_>> {
    let engine = Rc::new(RefCell::new(Engine::new()?));
    let exports = Object::new(env)?;
    let control = Block::to_buffer(&engine.borrow().control, env.raw())
        .map_err(|e| napi::Error::from_reason(e.to_string()))?;
    set(env, &exports, c"control", control)?;
    let methods: [(&CStr, Method); 8] = [
        (c"tape", Engine::tape),
        (c"finish", Engine::finish),
        (c"finishTape", Engine::finish_tape),
        (c"measure", Engine::measure),
        (c"measureTape", Engine::measure_tape),
        (c"slab", Engine::slab),
        (c"retireSlab", Engine::retire_slab),
        (c"writeInto", Engine::write_into),
    ];
    for (name, method) in methods {
        let function = bind(env, name, Rc::clone(&engine), method)?;
        set(env, &exports, name, function)?;
    }
    Ok(exports)
}

fn set(env: &Env, object: &Object, name: &CStr, value: sys::napi_value) -> napi::Result<()> {
    // Safety: `object` and `value` are live values of this env; `name` is NUL-terminated.
    let status =
        unsafe { sys::napi_set_named_property(env.raw(), object.raw(), name.as_ptr(), value) };
    napi::check_status!(status, "could not set {name:?}")
}

/// A function bound to an engine: its argument (JS passes at most two) and what it returns.
type Method =
    fn(&mut Engine, sys::napi_env, [sys::napi_value; 2]) -> Result<sys::napi_value, Error>;

/// The N-API data of a bound function, freed by the function's finalizer.
struct Bound {
    engine: Rc<RefCell<Engine>>,
    method: Method,
}

fn bind(
    env: &Env,
    name: &CStr,
    engine: Rc<RefCell<Engine>>,
    method: Method,
) -> napi::Result<sys::napi_value> {
    let data = Box::into_raw(Box::new(Bound { engine, method }));
    let mut function = ptr::null_mut();
    // Safety: `call_bound` reads `data` as a `Bound` for as long as the function lives, and
    // `drop_bound` frees it exactly once, when the function is collected.
    unsafe {
        let status = sys::napi_create_function(
            env.raw(),
            name.as_ptr(),
            name.count_bytes() as isize,
            Some(call_bound),
            data.cast(),
            &mut function,
        );
        if status != sys::Status::napi_ok {
            drop(Box::from_raw(data));
            return Err(napi::Error::new(
                napi::Status::from(status),
                "could not create a function",
            ));
        }
        let status = sys::napi_add_finalizer(
            env.raw(),
            function,
            data.cast(),
            Some(drop_bound),
            ptr::null_mut(),
            ptr::null_mut(),
        );
        if status != sys::Status::napi_ok {
            drop(Box::from_raw(data));
            return Err(napi::Error::new(
                napi::Status::from(status),
                "could not attach a finalizer",
            ));
        }
    }
    Ok(function)
}

unsafe extern "C" fn drop_bound(
    _env: sys::napi_env,
    data: *mut std::ffi::c_void,
    _hint: *mut std::ffi::c_void,
) {
    // Safety: `data` is the `Box<Bound>` leaked in `bind`; the finalizer runs once.
    drop(unsafe { Box::from_raw(data.cast::<Bound>()) });
}

/// The trampoline of every bound function: two arguments at most (missing ones are
/// `undefined`), no allocation, errors thrown through [`throw`].
unsafe extern "C" fn call_bound(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    let mut argc = 2usize;
    let mut argv = [ptr::null_mut(); 2];
    let mut data = ptr::null_mut();
    // Safety: `info` is this call's; `argv` has room for `argc` values.
    let status = unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            &mut data,
        )
    };
    if status != sys::Status::napi_ok || data.is_null() {
        throw(env, &Error::Binding("could not read the call"));
        return ptr::null_mut();
    }
    // Safety: `data` is the `Bound` this function was created with, alive while it is.
    let bound = unsafe { &*data.cast::<Bound>() };
    let result = match bound.engine.try_borrow_mut() {
        Ok(mut engine) => (bound.method)(&mut engine, env, argv),
        Err(_) => Err(Error::Binding("the engine is already in use")),
    };
    result.unwrap_or_else(|error| {
        throw(env, &error);
        ptr::null_mut()
    })
}

fn to_value<T: ToNapiValue>(env: sys::napi_env, value: T) -> Result<sys::napi_value, Error> {
    // Safety: `env` is the live env of the current call.
    unsafe { T::to_napi_value(env, value) }.map_err(napi_error("could not return a value"))
}

fn is_undefined(env: sys::napi_env, value: sys::napi_value) -> bool {
    let mut kind = 0;
    // Safety: `env` and `value` belong to the current call.
    let status = unsafe { sys::napi_typeof(env, value, &mut kind) };
    status == sys::Status::napi_ok && kind == sys::ValueType::napi_undefined
}

fn from_value<T: FromNapiValue>(env: sys::napi_env, value: sys::napi_value) -> Result<T, Error> {
    // Safety: `env` and `value` belong to the current call.
    unsafe { T::from_napi_value(env, value) }.map_err(napi_error("invalid argument"))
}

/// The native state of one JS module instance.
pub struct Engine {
    control: Rc<Block>,
    /// The tape `finish()` and `measure()` replay (an `ArrayBuffer` this engine made), and its
    /// length.
    tape: Option<(sys::napi_ref, usize)>,
    /// Where small results go.
    slab: Option<Slab>,
    /// A large result replayed in one pass, until `writeInto` copies it out.
    scratch: Vec<u8>,
    /// What `writeInto` is to write.
    pending: Pending,
    slab_generation: i32,
    replay: Replay,
}

/// The large result a `finish` left for `writeInto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pending {
    Nothing,
    /// The first bytes of `Engine::scratch`.
    Scratch(usize),
    /// Measured by `Engine::replay`, to be written (the tape has references).
    Measured,
}

/// A result slab: a plain JS `ArrayBuffer` the engine allocated through N-API, so V8 frees it
/// with its last result like any `ArrayBuffer`. (Memory handed to JS as an external buffer is
/// only freed by a finalizer Node runs on a later event-loop turn: a synchronous loop of
/// encodes would hold every result's memory until it ends.) The engine holds a reference while
/// it carves results from it, and looks its memory up again on every use, so a detached slab
/// is an error, never a write into freed memory.
struct Slab {
    reference: sys::napi_ref,
    len: usize,
    /// Bytes already given to results; only this engine moves it, and only forward.
    used: usize,
    /// Whether JS has the `ArrayBuffer` (from `slab()`).
    shared: bool,
}

impl Engine {
    fn new() -> napi::Result<Self> {
        Ok(Engine {
            control: Block::zeroed(CTL_WORDS * WORD_BYTES)
                .map_err(|e| napi::Error::from_reason(e.to_string()))?,
            tape: None,
            slab: None,
            scratch: Vec::new(),
            pending: Pending::Nothing,
            slab_generation: 0,
            replay: Replay::new(),
        })
    }

    /// `tape(bytes, current)`: a new zeroed tape of `bytes` bytes (rounded up to 8), as an
    /// `ArrayBuffer` (V8 frees it with its last reference, like the slabs). With `current`,
    /// `finish()` and `measure()` replay it from then on.
    fn tape(
        &mut self,
        env: sys::napi_env,
        [bytes, current]: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        let bytes: u32 = from_value(env, bytes)?;
        let current: bool = from_value(env, current)?;
        let len = (bytes as usize).div_ceil(8) * 8;
        let (value, reference) = new_arraybuffer(env, len, current)?;
        if let Some(reference) = reference {
            if let Some((old, _)) = self.tape.replace((reference, len)) {
                // Safety: `old` is a live reference of this env, deleted once.
                unsafe { sys::napi_delete_reference(env, old) };
            }
        }
        Ok(value)
    }

    /// `finish()`: replays the control block's region of the current tape into a result and
    /// returns its length.
    fn finish(
        &mut self,
        env: sys::napi_env,
        _: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        let tape = self.current_tape(env)?;
        self.finish_region(env, tape)
    }

    /// `finishTape(tape)`: as `finish()`, for the region of another tape.
    fn finish_tape(
        &mut self,
        env: sys::napi_env,
        [tape, _]: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        let tape: &[u8] = from_value(env, tape)?;
        self.check_foreign(tape)?;
        self.finish_region(env, tape)
    }

    /// `measure()`: the length `finish()` would return, without writing anything.
    fn measure(
        &mut self,
        env: sys::napi_env,
        _: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        let tape = self.current_tape(env)?;
        let size = self.measure_region(tape)?;
        to_value(env, size)
    }

    /// `measureTape(tape)`: as `measure()`, for the region of another tape.
    fn measure_tape(
        &mut self,
        env: sys::napi_env,
        [tape, _]: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        let tape: &[u8] = from_value(env, tape)?;
        self.check_foreign(tape)?;
        let size = self.measure_region(tape)?;
        to_value(env, size)
    }

    /// `slab()`: the current result slab's `ArrayBuffer`; once per slab generation.
    fn slab(
        &mut self,
        env: sys::napi_env,
        _: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        match &mut self.slab {
            Some(slab) if !slab.shared => {
                slab.shared = true;
                let mut value = ptr::null_mut();
                // Safety: `reference` is a live reference of this env.
                let status =
                    unsafe { sys::napi_get_reference_value(env, slab.reference, &mut value) };
                if status != sys::Status::napi_ok || value.is_null() {
                    return Err(Error::Binding("the result slab is gone"));
                }
                Ok(value)
            }
            _ => Err(Error::Binding("no slab to take")),
        }
    }

    /// `retireSlab()`: later results go to a new slab (for when JS finds the slab detached).
    fn retire_slab(
        &mut self,
        env: sys::napi_env,
        _: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        self.drop_slab(env);
        to_value(env, ())
    }

    /// The current tape's bytes, valid until JS runs again.
    fn current_tape<'a>(&self, env: sys::napi_env) -> Result<&'a [u8], Error> {
        let (reference, len) = self.tape.ok_or(Error::Binding("no current tape"))?;
        arraybuffer_bytes(env, reference, len)
            .map(|bytes| &*bytes)
            .ok_or(Error::Binding("the current tape was detached"))
    }

    /// Refuses a tape from JS that overlaps the control block. (Results are written into
    /// memory JS never gets as a tape: a new slab or a new `Buffer`; a tape overlapping the
    /// current slab is refused by `finish_region`.)
    fn check_foreign(&self, tape: &[u8]) -> Result<(), Error> {
        if self.control.overlaps(tape) {
            return Err(Error::Binding("the tape overlaps the engine's own memory"));
        }
        Ok(())
    }

    fn control_word(&self, index: usize) -> u32 {
        // Safety: the control block is only sliced here and in `set_control_word`, one at a
        // time, and never handed to the replay.
        let bytes = unsafe { self.control.bytes() };
        let mut word = [0; WORD_BYTES];
        word.copy_from_slice(&bytes[index * WORD_BYTES..(index + 1) * WORD_BYTES]);
        u32::from_le_bytes(word)
    }

    fn set_control_word(&self, index: usize, value: i32) {
        // Safety: as in `control_word`.
        let bytes = unsafe { self.control.bytes_mut() };
        bytes[index * WORD_BYTES..(index + 1) * WORD_BYTES].copy_from_slice(&value.to_le_bytes());
    }

    /// The bytes of the region the control block names, checked against `tape`.
    fn region<'t>(&self, tape: &'t [u8]) -> Result<&'t [u8], Error> {
        let (start, end) = (self.control_word(CTL_START), self.control_word(CTL_END));
        let words = tape.len() / WORD_BYTES;
        if start > end || end as usize > words {
            return Err(Error::BadRegion { start, end, words });
        }
        Ok(&tape[start as usize * WORD_BYTES..end as usize * WORD_BYTES])
    }

    fn measure_region(&mut self, tape: &[u8]) -> Result<u32, Error> {
        let region = self.region(tape)?;
        Ok(self.replay.measure(region)? as u32)
    }

    /// Replays the control block's region of `tape` into a result: a slice of the slab (its
    /// length is returned, its offset is in the control block) or, when larger than
    /// `POOLED_MAX`, a new `Buffer` (returned).
    fn finish_region(&mut self, env: sys::napi_env, tape: &[u8]) -> Result<sys::napi_value, Error> {
        let region = self.region(tape)?;
        let bound = forward_bound(region.len());
        let refs = self.control_word(CTL_REFS) != 0;
        if !refs && bound <= POOLED_MAX {
            // Small: one pass straight into the slab.
            let (out, offset) = self.slab_room(env, bound)?;
            check_disjoint(region, out)?;
            if let Some(size) = self.replay.write_forward(region, out)? {
                self.commit(offset, size);
                return to_value(env, size as u32);
            }
        } else if !refs && bound <= SCRATCH_MAX {
            // Large: one pass into the scratch buffer; JS allocates the result (uninitialized,
            // unlike memory from N-API) and `writeInto` copies it there.
            if self.scratch.len() < bound {
                // Grown (and zeroed) once; later results overwrite what they use.
                self.scratch
                    .try_reserve_exact(bound - self.scratch.len())
                    .map_err(|_| Error::OutOfMemory { bytes: bound })?;
                self.scratch.resize(bound, 0);
            }
            if let Some(size) = self.replay.write_forward(region, &mut self.scratch)? {
                if size > POOLED_MAX {
                    self.pending = Pending::Scratch(size);
                    self.set_control_word(CTL_OFFSET, -1);
                } else {
                    let (out, offset) = self.slab_room(env, size)?;
                    out[..size].copy_from_slice(&self.scratch[..size]);
                    self.commit(offset, size);
                }
                return to_value(env, size as u32);
            }
        }
        // Two passes: tapes with references, the largest tapes, and nesting so deep that the
        // one pass gave up on its shifts.
        let size = self.replay.measure(region)?;
        if size > POOLED_MAX {
            // Large: measured now, written by `writeInto` into the result JS allocates.
            self.pending = Pending::Measured;
            self.set_control_word(CTL_OFFSET, -1);
            return to_value(env, size as u32);
        }
        let (out, offset) = self.slab_room(env, size + WRITE_SLACK)?;
        check_disjoint(region, out)?;
        self.replay.write(region, out)?;
        self.publish_holes()?;
        self.commit(offset, size);
        to_value(env, size as u32)
    }

    /// `writeInto(buffer, tape)`: after a `finish()` or `finishTape()` that asked for it (offset
    /// -1), writes the measured result into `buffer`, which must be exactly that long, for the
    /// control block's region of `tape` (the current tape when `tape` is undefined). Fails if
    /// the buffer has another length or the region changed since it was measured (the buffer
    /// may then hold part of a result; it is never written past its end).
    fn write_into(
        &mut self,
        env: sys::napi_env,
        [buffer, tape]: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        let out: &mut [u8] = from_value(env, buffer)?;
        let tape: &[u8] = if is_undefined(env, tape) {
            self.current_tape(env)?
        } else {
            let tape: &[u8] = from_value(env, tape)?;
            self.check_foreign(tape)?;
            tape
        };
        match std::mem::replace(&mut self.pending, Pending::Nothing) {
            Pending::Scratch(size) if out.len() == size => {
                out.copy_from_slice(&self.scratch[..size]);
                self.set_control_word(CTL_REFS, 0);
            }
            Pending::Measured if out.len() == self.replay.measured() => {
                let region = self.region(tape)?;
                check_disjoint(region, out)?;
                self.replay.write(region, out)?;
                self.publish_holes()?;
            }
            _ => return Err(Error::Inconsistent),
        }
        if self.scratch.capacity() > SCRATCH_KEEP {
            self.scratch = Vec::new();
        }
        to_value(env, ())
    }

    /// Tells JS where the last write left holes for its referenced arrays.
    fn publish_holes(&self) -> Result<(), Error> {
        let holes = self.replay.holes();
        if holes.len() > MAX_REFS {
            return Err(Error::Binding(
                "more references than the control block holds",
            ));
        }
        let count = holes.len();
        for (i, &(reference, offset)) in holes.to_vec().iter().enumerate() {
            self.set_control_word(CTL_HOLES + 2 * i, reference as i32);
            self.set_control_word(CTL_HOLES + 2 * i + 1, offset as i32);
        }
        self.set_control_word(CTL_REFS, count as i32);
        Ok(())
    }

    /// At least `room` free bytes at the slab cursor (from a new slab if the current one has
    /// fewer), and their offset in the slab.
    ///
    /// The slice is valid until JS runs again: V8 keeps the memory of a referenced, attached
    /// `ArrayBuffer` in place, and nothing else writes it during a native call.
    fn slab_room<'a>(
        &mut self,
        env: sys::napi_env,
        room: usize,
    ) -> Result<(&'a mut [u8], usize), Error> {
        let fits = self
            .slab
            .as_ref()
            .is_some_and(|slab| slab.len - slab.used >= room);
        if !fits {
            self.new_slab(env)?;
        }
        let slab = self.slab.as_ref().ok_or(Error::Binding("no slab"))?;
        // Detached (or collected, which the held reference rules out): never write there.
        let bytes = arraybuffer_bytes(env, slab.reference, slab.len)
            .ok_or(Error::Binding("the result slab was detached"))?;
        Ok((&mut bytes[slab.used..], slab.used))
    }

    /// Starts a new slab: later results go there.
    fn new_slab(&mut self, env: sys::napi_env) -> Result<(), Error> {
        self.drop_slab(env);
        let (_, reference) = new_arraybuffer(env, SLAB_BYTES, true)?;
        let reference = reference.ok_or(Error::OutOfMemory { bytes: SLAB_BYTES })?;
        self.slab = Some(Slab {
            reference,
            len: SLAB_BYTES,
            used: 0,
            shared: false,
        });
        self.slab_generation = self.slab_generation.wrapping_add(1);
        Ok(())
    }

    /// Lets go of the current slab; V8 frees it with its last result.
    fn drop_slab(&mut self, env: sys::napi_env) {
        if let Some(slab) = self.slab.take() {
            // Safety: `reference` is a live reference of this env, deleted once.
            unsafe { sys::napi_delete_reference(env, slab.reference) };
        }
    }

    /// Records a result of `size` bytes at `offset` of the slab: JS reads its place from the
    /// control block, and the cursor moves past it, so it is never written again. Bytes the
    /// replay wrote past `size` (its slack) stay above the cursor and are never part of a result.
    fn commit(&mut self, offset: usize, size: usize) {
        if let Some(slab) = &mut self.slab {
            slab.used = (offset + size).next_multiple_of(RESULT_ALIGN).min(slab.len);
        }
        self.set_control_word(CTL_OFFSET, offset as i32);
        self.set_control_word(CTL_SLAB, self.slab_generation);
    }
}

/// Refuses to replay a tape that overlaps the memory the result goes to (possible only with a
/// foreign tape from `finishTape`).
fn check_disjoint(tape: &[u8], out: &[u8]) -> Result<(), Error> {
    let (a, b) = (tape.as_ptr() as usize, out.as_ptr() as usize);
    if a < b + out.len() && b < a + tape.len() {
        return Err(Error::Binding("the tape overlaps the result memory"));
    }
    Ok(())
}

/// A new zeroed `ArrayBuffer` of `len` bytes, and a strong reference to it if `keep`.
fn new_arraybuffer(
    env: sys::napi_env,
    len: usize,
    keep: bool,
) -> Result<(sys::napi_value, Option<sys::napi_ref>), Error> {
    let mut data = ptr::null_mut();
    let mut value = ptr::null_mut();
    // Safety: plain N-API calls with valid out-pointers.
    let created = unsafe { sys::napi_create_arraybuffer(env, len, &mut data, &mut value) }
        == sys::Status::napi_ok;
    if !created || value.is_null() {
        return Err(Error::OutOfMemory { bytes: len });
    }
    if !keep {
        return Ok((value, None));
    }
    let mut reference = ptr::null_mut();
    // Safety: `value` is a live value of this call.
    let status = unsafe { sys::napi_create_reference(env, value, 1, &mut reference) };
    if status != sys::Status::napi_ok {
        return Err(Error::Binding("could not reference a new ArrayBuffer"));
    }
    Ok((value, Some(reference)))
}

/// The bytes of the `ArrayBuffer` behind `reference`, if it is still `len` bytes long (not
/// detached). They stay valid until JS runs again: V8 keeps the memory of a referenced,
/// attached `ArrayBuffer` in place, and nothing else uses it during a native call.
fn arraybuffer_bytes<'a>(
    env: sys::napi_env,
    reference: sys::napi_ref,
    len: usize,
) -> Option<&'a mut [u8]> {
    let mut value = ptr::null_mut();
    let mut data = ptr::null_mut();
    let mut actual = 0usize;
    // Safety: `reference` is a live reference of this env; the out-pointers are valid.
    let ok = unsafe {
        sys::napi_get_reference_value(env, reference, &mut value) == sys::Status::napi_ok
            && !value.is_null()
            && sys::napi_get_arraybuffer_info(env, value, &mut data, &mut actual)
                == sys::Status::napi_ok
    };
    if !ok || data.is_null() || actual != len {
        return None;
    }
    // Safety: `data` is valid for `len` bytes until JS runs again (see above).
    Some(unsafe { std::slice::from_raw_parts_mut(data.cast::<u8>(), len) })
}
