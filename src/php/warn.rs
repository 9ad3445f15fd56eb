//! Raising a PHP warning from Rust, one way: the message is copied into a NUL-terminated buffer
//! on the stack, and nothing that needs dropping is alive while PHP runs the error handler.
//! That handler is user code: it can throw, or end the request with a fatal error, which
//! longjmps past our frames without running their destructors, so a message held in a
//! `String` or `CString` across that point would leak on every such call.

use std::ffi::{c_char, c_int};
use std::fmt::{self, Write};

use super::ffi::php_error_docref;

const E_WARNING: c_int = 2;
const E_CORE_WARNING: c_int = 32;

/// A warning's text, NUL-terminated on the stack. A longer message is cut (ours are far
/// shorter); a NUL in it becomes a space (it would end the text early).
struct StackMessage {
    bytes: [u8; 4096],
    len: usize,
}

impl Write for StackMessage {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.bytes.len() - 1 - self.len;
        let n = s.len().min(room);
        for (to, &from) in self.bytes[self.len..self.len + n].iter_mut().zip(s.as_bytes()) {
            *to = if from == 0 { b' ' } else { from };
        }
        self.len += n;
        Ok(())
    }
}

/// Copies `message` to the stack, drops it, then raises it at `level`.
fn raise(level: c_int, message: impl fmt::Display) {
    let mut text = StackMessage { bytes: [0; 4096], len: 0 };
    let _ = write!(text, "{message}");
    drop(message);
    text.bytes[text.len] = 0;
    // SAFETY: the format is a literal "%s" and its one argument a NUL-terminated buffer that
    // outlives the call (php_error_docref is printf-like); callable from any function PHP is
    // running, and during MINIT.
    unsafe {
        php_error_docref(
            std::ptr::null(),
            level,
            c"%s".as_ptr(),
            text.bytes.as_ptr().cast::<c_char>(),
        )
    };
}

/// An E_WARNING from the function being called ("apcu_store(): ..."). The message is taken by
/// value (a `String`, an engine `Error`, `format_args!`) and dropped before PHP runs the error
/// handler; a caller passing a borrowed `&str` holds nothing that needs dropping.
pub(super) fn warning(message: impl fmt::Display) {
    raise(E_WARNING, message);
}

/// An E_CORE_WARNING: why startup failed (PHP then prints "Unable to start shmcache module").
pub(super) fn core_warning(message: impl fmt::Display) {
    raise(E_CORE_WARNING, message);
}
