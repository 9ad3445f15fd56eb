//! Arrays of ours kept across a call into user code that may end the request with a fatal
//! error (an error handler run for one of our warnings): such an error longjmps past our
//! frames, so a `ZBox` they hold is never dropped. Held here instead, an array the frame did
//! not take back is released at RSHUTDOWN, while the request's memory still exists (as
//! `codec::release_abandoned` does for strings).

use std::cell::RefCell;

use ext_php_rs::boxed::ZBox;
use ext_php_rs::types::ZendHashTable;

thread_local! {
    static HELD: RefCell<Vec<*mut ZendHashTable>> = const { RefCell::new(Vec::new()) };
}

/// An array taken out of its box until `release` gives it back.
pub struct Held(*mut ZendHashTable);

/// Holds `array` until `Held::release` (or, if that never comes, RSHUTDOWN).
pub fn hold(array: ZBox<ZendHashTable>) -> Held {
    let raw = array.into_raw() as *mut ZendHashTable;
    HELD.with_borrow_mut(|held| held.push(raw));
    Held(raw)
}

impl Held {
    pub fn get(&self) -> &ZendHashTable {
        // SAFETY: the array taken out of its box by `hold`, alive until `release` (which
        // consumes self) or RSHUTDOWN (after every call of the request has ended).
        unsafe { &*self.0 }
    }

    /// The array back in its box, no longer released at RSHUTDOWN.
    pub fn release(self) -> ZBox<ZendHashTable> {
        HELD.with_borrow_mut(|held| {
            if let Some(at) = held.iter().rposition(|&p| p == self.0) {
                held.swap_remove(at);
            }
        });
        // SAFETY: the pointer came from ZBox::into_raw in `hold` and was just removed from
        // HELD, so nothing else releases it.
        unsafe { ZBox::from_raw(self.0) }
    }
}

/// RSHUTDOWN: releases the arrays whose holders a fatal error abandoned.
pub fn release_abandoned() {
    for array in HELD.with_borrow_mut(std::mem::take) {
        // SAFETY: each pointer is an array taken out of its box by `hold` whose frame was
        // skipped by a bailout before `release`; still request memory (see the module doc).
        drop(unsafe { ZBox::from_raw(array) });
    }
}
