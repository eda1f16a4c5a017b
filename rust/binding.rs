//! Every `#[napi]` item. Thin: it hands the registered blocks to [`encode_runs`] as slices; all
//! encoding lives in [`crate::runs`].
//!
//! Protocol with `lib/writer/native.js`, per `finish()` that has long packed runs:
//! 1. JS copies each run's elements into the value block and describes the runs in the control
//!    block (layout in [`crate::control`]), after making sure, through `growValues(bytes)` and
//!    `growOutput(bytes)`, that the value and output blocks are large enough;
//! 2. JS calls `finish()`, which converts no argument and returns nothing: Rust encodes the runs
//!    into the output block and stores their lengths in the control block, or throws;
//! 3. JS copies the payloads from the output block into the message it assembles.
//!
//! The three blocks are memory this crate allocates ([`Block`]); each is handed to JS once, as an
//! external `Buffer` whose finalizer holds a reference to it, so nothing JS does (dropping the
//! `Buffer`, detaching its `ArrayBuffer`, calling the functions in any order with any argument)
//! can leave Rust with a dangling pointer. `finish()` looks nothing up: it costs the bare N-API
//! call and the encoding.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::CStr;
use std::ptr;
use std::rc::Rc;

use napi::bindgen_prelude::{Env, FromNapiValue, Object};
use napi::{sys, JsValue};
use napi_derive::napi;

use crate::control::{Run, CTL_WORDS, LAYOUT, MAX_OUTPUT, WORD_BYTES};
use crate::error::Error;
use crate::memory::Block;
use crate::runs::encode_runs;

/// Bytes of the value and output blocks an engine starts with; they grow on demand (a few times
/// per process: JS asks for at least double).
const INITIAL_BLOCK_BYTES: usize = 64 * 1024;
/// Largest value or output block JS may ask for: the elements of a message of `MAX_OUTPUT` bytes
/// (at least 1 byte each, at most 8 bytes of value words each) fit in it. In `u64`: on a 32-bit
/// target (armv7, ia32) it is more than the address space.
const MAX_BLOCK_BYTES: u64 = 8 * MAX_OUTPUT as u64;

/// JS error code for a size limit (rethrown by `lib/writer/native.js` as a `RangeError`).
const CODE_RANGE: &CStr = c"ERR_OUT_OF_RANGE";
/// JS error code for everything else (malformed control blocks, misuse of the binding).
const CODE_BINDING: &CStr = c"ERR_PROTOBUF_RUSTWRITER";

/// How the raw callbacks (`finish`, `growValues`, `growOutput`) turn the core's errors into JS
/// exceptions: size limits become `RangeError`s, everything else an `Error`; both carry a `code`.
/// ([`create_engine`], a `#[napi]` function, returns its errors through [`to_napi`].)
fn throw(env: sys::napi_env, error: &Error) {
    let message = error.to_string().replace('\0', " ");
    let message = std::ffi::CString::new(message).unwrap_or_default();
    // Safety: `env` is the live env of the current call; both strings are NUL-terminated.
    unsafe {
        match error {
            Error::TooLarge { .. } | Error::OutOfMemory { .. } => {
                sys::napi_throw_range_error(env, CODE_RANGE.as_ptr(), message.as_ptr())
            }
            _ => sys::napi_throw_error(env, CODE_BINDING.as_ptr(), message.as_ptr()),
        };
    }
}

/// The numbers JS shares with the native side: every run kind and the control block layout by
/// name. `lib/writer/native.js` compares them with `protocol.json` when it loads the addon, and refuses
/// an addon that differs.
#[napi]
pub fn protocol() -> HashMap<&'static str, u32> {
    Run::ALL
        .iter()
        .map(|&(name, run)| (name, run as u32))
        .chain(LAYOUT.iter().map(|&(name, value)| (name, value as u32)))
        .collect()
}

/// How [`create_engine`] returns the core's errors (it can only fail to allocate its blocks): as
/// napi-rs errors, which it throws as an `Error` with the same message.
fn to_napi(error: Error) -> napi::Error {
    napi::Error::from_reason(error.to_string())
}

/// Creates the native state of one JS module instance and returns its blocks and the functions
/// bound to it: `{ control, values, output, finish(), growValues(bytes), growOutput(bytes) }`.
///
/// One engine per JS module instance (so per worker thread, and per copy of the module a test
/// runner loads): nothing is shared between them. The functions are plain functions whose
/// N-API data is the engine: a `#[napi]` class method costs ~450 ns a call against ~45 ns for a
/// plain function (napi-rs 3, Node 20, measured while designing this).
#[napi]
pub fn create_engine(env: &Env) -> napi::Result<Object<'_>> {
    let engine = Rc::new(RefCell::new(Engine::new().map_err(to_napi)?));
    let exports = Object::new(env)?;
    {
        let engine = engine.borrow();
        for (name, block) in [
            (c"control", &engine.control),
            (c"values", &engine.values),
            (c"output", &engine.output),
        ] {
            let buffer = Block::to_buffer(block, env.raw()).map_err(to_napi)?;
            set(env, &exports, name, buffer)?;
        }
    }
    let finish = create_function(env, c"finish", Rc::clone(&engine), None, call_finish)?;
    set(env, &exports, c"finish", finish)?;
    let methods: [(&CStr, Method); 2] = [
        (c"growValues", Engine::grow_values),
        (c"growOutput", Engine::grow_output),
    ];
    for (name, method) in methods {
        let function = create_function(env, name, Rc::clone(&engine), Some(method), call_bound)?;
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

/// A function bound to an engine that takes one argument and returns a value.
type Method = fn(&mut Engine, sys::napi_env, sys::napi_value) -> Result<sys::napi_value, Error>;

/// The N-API data of a bound function, freed by the function's finalizer.
struct Bound {
    engine: Rc<RefCell<Engine>>,
    method: Option<Method>,
}

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

fn create_function(
    env: &Env,
    name: &CStr,
    engine: Rc<RefCell<Engine>>,
    method: Option<Method>,
    callback: Callback,
) -> napi::Result<sys::napi_value> {
    let data = Box::into_raw(Box::new(Bound { engine, method }));
    let mut function = ptr::null_mut();
    // Safety: the callbacks read `data` as a `Bound` for as long as the function lives, and
    // `drop_bound` frees it exactly once, when the function is collected.
    unsafe {
        let status = sys::napi_create_function(
            env.raw(),
            name.as_ptr(),
            name.count_bytes() as isize,
            Some(callback),
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
    // Safety: `data` is the `Box<Bound>` leaked in `create_function`; the finalizer runs once.
    drop(unsafe { Box::from_raw(data.cast::<Bound>()) });
}

/// The `Bound` of the current call, read with `argc` arguments into `argv`.
///
/// # Safety
/// `info` must be the current call's, and the function must have been made by
/// `create_function` (whose data is a live `Bound`).
unsafe fn bound_of<'a>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    argv: &mut [sys::napi_value],
) -> Option<&'a Bound> {
    let mut argc = argv.len();
    let mut data = ptr::null_mut();
    // Safety: `info` is this call's; `argv` has room for `argc` values (none if empty).
    let status = unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            if argv.is_empty() {
                ptr::null_mut()
            } else {
                argv.as_mut_ptr()
            },
            ptr::null_mut(),
            &mut data,
        )
    };
    if status != sys::Status::napi_ok || data.is_null() {
        return None;
    }
    // Safety: `data` is the `Bound` this function was created with, alive while it is.
    Some(unsafe { &*data.cast::<Bound>() })
}

/// `finish()`: reads no argument and returns `undefined` (a null return); the results are in the
/// control block.
unsafe extern "C" fn call_finish(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // Safety: this is `finish`'s own callback info.
    let result = match unsafe { bound_of(env, info, &mut []) } {
        None => Err(Error::Binding("could not read the call")),
        Some(bound) => match bound.engine.try_borrow_mut() {
            Ok(mut engine) => engine.finish(),
            Err(_) => Err(Error::Binding("the engine is already in use")),
        },
    };
    if let Err(error) = result {
        throw(env, &error);
    }
    ptr::null_mut()
}

/// The trampoline of the one-argument functions (a missing argument is `undefined`).
unsafe extern "C" fn call_bound(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    let mut argv = [ptr::null_mut(); 1];
    // Safety: this is the function's own callback info.
    let result = match unsafe { bound_of(env, info, &mut argv) } {
        None => Err(Error::Binding("could not read the call")),
        Some(Bound { method: None, .. }) => Err(Error::Binding("not a bound method")),
        Some(Bound {
            engine,
            method: Some(method),
        }) => match engine.try_borrow_mut() {
            Ok(mut engine) => method(&mut engine, env, argv[0]),
            Err(_) => Err(Error::Binding("the engine is already in use")),
        },
    };
    result.unwrap_or_else(|error| {
        throw(env, &error);
        ptr::null_mut()
    })
}

/// A byte count argument: a number in `0..=MAX_BLOCK_BYTES`.
fn byte_count(env: sys::napi_env, value: sys::napi_value) -> Result<usize, Error> {
    // Safety: `env` and `value` belong to the current call.
    let bytes = unsafe { f64::from_napi_value(env, value) }
        .map_err(|_| Error::Binding("the byte count must be a number"))?;
    if !(0.0..=MAX_BLOCK_BYTES as f64).contains(&bytes) {
        return Err(Error::Binding("the byte count is out of range"));
    }
    // In range but beyond what this target can allocate (a 32-bit one: at most `isize::MAX`
    // bytes, less the rounding up to 8 of the value block): the allocation's error.
    let bytes = bytes as u64;
    match usize::try_from(bytes) {
        Ok(bytes) if bytes <= isize::MAX as usize - 7 => Ok(bytes),
        _ => Err(Error::OutOfMemory {
            bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
        }),
    }
}

/// The native state of one JS module instance: the three blocks it shares with JS.
pub struct Engine {
    control: Rc<Block>,
    values: Rc<Block>,
    output: Rc<Block>,
}

impl Engine {
    fn new() -> Result<Self, Error> {
        Ok(Engine {
            control: Block::zeroed(CTL_WORDS * WORD_BYTES)?,
            values: Block::zeroed(INITIAL_BLOCK_BYTES)?,
            output: Block::zeroed(INITIAL_BLOCK_BYTES)?,
        })
    }

    /// Encodes the runs the control block describes.
    fn finish(&mut self) -> Result<(), Error> {
        // Safety: the three blocks are distinct allocations; JS does not run during this call,
        // and no other slice of them is alive.
        let (control, values, output) = unsafe {
            (
                self.control.words_mut(),
                self.values.words(),
                self.output.bytes_mut(),
            )
        };
        encode_runs(control, values, output).map(|_| ())
    }

    /// `growValues(bytes)`: replaces the value block by a zeroed one of `bytes` bytes (rounded up
    /// to 8) and returns it as a `Buffer`. The old block lives on while JS holds its `Buffer`.
    fn grow_values(
        &mut self,
        env: sys::napi_env,
        bytes: sys::napi_value,
    ) -> Result<sys::napi_value, Error> {
        let block = Block::zeroed(byte_count(env, bytes)?.next_multiple_of(8))?;
        let buffer = Block::to_buffer(&block, env)?;
        self.values = block;
        Ok(buffer)
    }

    /// `growOutput(bytes)`: the same for the output block.
    fn grow_output(
        &mut self,
        env: sys::napi_env,
        bytes: sys::napi_value,
    ) -> Result<sys::napi_value, Error> {
        let block = Block::zeroed(byte_count(env, bytes)?)?;
        let buffer = Block::to_buffer(&block, env)?;
        self.output = block;
        Ok(buffer)
    }
}
