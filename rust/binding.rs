//! Every `#[napi]` item. Thin: it moves bytes between the shared blocks and [`Replay`]; all
//! encoding lives in [`crate::replay`].
//!
//! Protocol with `index.js`, per finished message, with no argument converted:
//! 1. JS writes the region's first and end word into the control block (`CTL_START`, `CTL_END`);
//! 2. JS calls `finish()` (the current tape) or `finishTape(buffer)` (any other tape);
//! 3. Rust replays the region into the result slab at a cursor only Rust moves, so it can never
//!    write over a result it already returned, stores the byte offset in `CTL_OFFSET` (-1 when
//!    the result was too large for the slab and waits in `takeOutput()`) and the slab's
//!    generation in `CTL_SLAB`, and returns the length;
//! 4. JS wraps the bytes in a `Buffer` view, fetching the slab with `slab()` when the
//!    generation changed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::CStr;
use std::ptr;
use std::rc::Rc;

use napi::bindgen_prelude::{Env, FromNapiValue, Object, ToNapiValue};
use napi::{sys, JsValue};
use napi_derive::napi;

use crate::error::Error;
use crate::memory::{Block, Pool};
use crate::opcode::{Op, WORD_BYTES};
use crate::replay::{forward_bound, Replay, MAX_OUTPUT, WRITE_SLACK};

/// Control block word: first word of the region to replay (written by JS).
const CTL_START: usize = 0;
/// Control block word: one past the last word of the region (written by JS).
const CTL_END: usize = 1;
/// Control block word: byte offset of the result in the slab, or -1 (written by Rust).
const CTL_OFFSET: usize = 2;
/// Control block word: generation of the slab holding the result (written by Rust).
const CTL_SLAB: usize = 3;
/// Words in the control block.
const CTL_WORDS: usize = 4;

/// Bytes of one result slab. Results are carved from it like Node's own `Buffer` pool carves
/// `allocUnsafe` results from its 8 KiB pool; a bigger slab makes the ~3 µs of creating an
/// external `Buffer` rare (about once per 600 results of 100 bytes).
const SLAB_BYTES: usize = 64 * 1024;
/// Largest result carved from a slab; larger ones get a `Buffer` of their own, so one long-lived
/// small result pins at most one slab and a big one never wastes a slab's tail.
const POOLED_MAX: usize = SLAB_BYTES / 4;
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
/// slab(), retireSlab(), takeOutput() }`.
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
        (c"takeOutput", Engine::take_output),
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

fn from_value<T: FromNapiValue>(env: sys::napi_env, value: sys::napi_value) -> Result<T, Error> {
    // Safety: `env` and `value` belong to the current call.
    unsafe { T::from_napi_value(env, value) }.map_err(napi_error("invalid argument"))
}

/// The native state of one JS module instance.
pub struct Engine {
    control: Rc<Block>,
    /// The tape `finish()` and `measure()` replay.
    tape: Option<Rc<Block>>,
    slab: Option<Rc<Block>>,
    slab_used: usize,
    slab_generation: i32,
    slab_shared: bool,
    /// A result too large for the slab and its length, waiting for `takeOutput()`.
    output: Option<(Rc<Block>, usize)>,
    /// Memory of dropped slabs, tapes and results, for reuse.
    pool: Rc<Pool>,
    replay: Replay,
}

impl Engine {
    fn new() -> napi::Result<Self> {
        Ok(Engine {
            control: Block::zeroed(CTL_WORDS * WORD_BYTES)
                .map_err(|e| napi::Error::from_reason(e.to_string()))?,
            tape: None,
            slab: None,
            slab_used: 0,
            slab_generation: 0,
            slab_shared: false,
            output: None,
            pool: Pool::new(),
            replay: Replay::new(),
        })
    }

    /// `tape(bytes, current)`: a new zeroed tape of `bytes` bytes (rounded up to 8). With
    /// `current`, `finish()` and `measure()` replay it from then on.
    fn tape(
        &mut self,
        env: sys::napi_env,
        [bytes, current]: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        let bytes: u32 = from_value(env, bytes)?;
        let current: bool = from_value(env, current)?;
        let block = Block::new(
            (bytes as usize).div_ceil(8) * 8,
            &Rc::downgrade(&self.pool),
            true,
        )?;
        let buffer = Block::to_buffer(&block, env)?;
        if current {
            self.tape = Some(block);
        }
        Ok(buffer)
    }

    /// `finish()`: replays the control block's region of the current tape into a result and
    /// returns its length.
    fn finish(
        &mut self,
        env: sys::napi_env,
        _: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        let tape = self.current_tape()?;
        // Safety: the tape block is neither the control nor the slab block, and no JS runs
        // during the call.
        let size = self.finish_region(unsafe { tape.bytes() })?;
        to_value(env, size)
    }

    /// `finishTape(tape)`: as `finish()`, for the region of another tape.
    fn finish_tape(
        &mut self,
        env: sys::napi_env,
        [tape, _]: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        let tape: &[u8] = from_value(env, tape)?;
        self.check_foreign(tape)?;
        let size = self.finish_region(tape)?;
        to_value(env, size)
    }

    /// `measure()`: the length `finish()` would return, without writing anything.
    fn measure(
        &mut self,
        env: sys::napi_env,
        _: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        let tape = self.current_tape()?;
        // Safety: as in `finish`.
        let size = self.measure_region(unsafe { tape.bytes() })?;
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

    /// `slab()`: the current result slab as a `Buffer`; once per slab generation.
    fn slab(
        &mut self,
        env: sys::napi_env,
        _: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        match &self.slab {
            Some(slab) if !std::mem::replace(&mut self.slab_shared, true) => {
                Block::to_buffer(slab, env)
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
        self.slab = None;
        to_value(env, ())
    }

    /// `takeOutput()`: the result of the last `finish` that was too large for the slab, as a
    /// `Buffer` of its own.
    fn take_output(
        &mut self,
        env: sys::napi_env,
        _: [sys::napi_value; 2],
    ) -> Result<sys::napi_value, Error> {
        let (output, size) = self
            .output
            .take()
            .ok_or(Error::Binding("no output to take"))?;
        Block::to_buffer_of(&output, size, env)
    }

    fn current_tape(&self) -> Result<Rc<Block>, Error> {
        self.tape.clone().ok_or(Error::Binding("no current tape"))
    }

    /// Refuses a tape from JS that overlaps memory the replay writes.
    fn check_foreign(&self, tape: &[u8]) -> Result<(), Error> {
        let slab_overlaps = self.slab.as_ref().is_some_and(|slab| slab.overlaps(tape));
        if slab_overlaps || self.control.overlaps(tape) {
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

    fn finish_region(&mut self, tape: &[u8]) -> Result<u32, Error> {
        let region = self.region(tape)?;
        let room = self.slab_room();
        let size = if forward_bound(region.len()) <= room {
            // Small: one pass straight into the slab.
            let (slab, offset) = self.slab_cursor()?;
            // Safety: `slab` is neither the tape (a different block, or refused by
            // `check_foreign`) nor the control block, no other slice of it is alive, and no JS
            // runs during the call. Bytes below `offset` (results already returned) are not
            // part of the slice.
            let bytes = unsafe { slab.bytes_mut() };
            let size = self.replay.write_forward(region, &mut bytes[offset..])?;
            self.commit(offset, size);
            size
        } else {
            let size = self.replay.measure(region)?;
            if size > POOLED_MAX {
                let output = Block::new(size + WRITE_SLACK, &Rc::downgrade(&self.pool), false)?;
                // Safety: a new block, which nothing else references yet; no JS runs during
                // the call. The replay overwrites all `size` bytes JS will see.
                self.replay.write(region, unsafe { output.bytes_mut() })?;
                self.output = Some((output, size));
                self.set_control_word(CTL_OFFSET, -1);
                return Ok(size as u32);
            }
            if size + WRITE_SLACK > room {
                self.new_slab()?;
            }
            let (slab, offset) = self.slab_cursor()?;
            // Safety: as above.
            let bytes = unsafe { slab.bytes_mut() };
            self.replay.write(region, &mut bytes[offset..])?;
            self.commit(offset, size);
            size
        };
        Ok(size as u32)
    }

    /// Bytes free at the slab cursor (0 without a slab).
    fn slab_room(&self) -> usize {
        self.slab
            .as_ref()
            .map_or(0, |slab| slab.len() - self.slab_used)
    }

    /// The slab and the cursor where the next result goes.
    fn slab_cursor(&mut self) -> Result<(Rc<Block>, usize), Error> {
        match &self.slab {
            Some(slab) => Ok((Rc::clone(slab), self.slab_used)),
            None => self.new_slab().map(|slab| (slab, 0)),
        }
    }

    /// Starts a new slab: later results go there.
    fn new_slab(&mut self) -> Result<Rc<Block>, Error> {
        let slab = Block::new(SLAB_BYTES, &Rc::downgrade(&self.pool), true)?;
        self.slab = Some(Rc::clone(&slab));
        self.slab_generation = self.slab_generation.wrapping_add(1);
        self.slab_shared = false;
        self.slab_used = 0;
        Ok(slab)
    }

    /// Records a result of `size` bytes at `offset` of the slab: JS reads its place from the
    /// control block, and the cursor moves past it, so it is never written again. Bytes the
    /// replay wrote past `size` (its slack) stay above the cursor and are never part of a result.
    fn commit(&mut self, offset: usize, size: usize) {
        let len = self.slab.as_ref().map_or(0, |slab| slab.len());
        self.slab_used = (offset + size).next_multiple_of(RESULT_ALIGN).min(len);
        self.set_control_word(CTL_OFFSET, offset as i32);
        self.set_control_word(CTL_SLAB, self.slab_generation);
    }
}
