//! A value in a `static` taken once as `&'static mut`.
//! Uses: static_cell; used by: firmware.
//!
//! A value in a `static` that one caller takes as `&'static mut`, once.

use static_cell::ConstStaticCell;

/// A `static` value handed out once as `&'static mut T`: the safe way for firmware to own a
/// large planner workspace without a `static mut`, a hand-written `RefCell` wrapper or
/// `unsafe impl Sync`. The value is built at compile time (it lands in `.bss`/`.data`, never
/// on the stack); the take is an atomic swap (`static_cell::ConstStaticCell`), so an
/// interrupt or a second core asking again gets `None`.
///
/// ```
/// use dramalloc_core::static_storage::TakeOnce;
/// use dramalloc_core::StaticWorkspace;
/// static STORAGE: TakeOnce<StaticWorkspace<4, 8, 4>> = TakeOnce::new(StaticWorkspace::new());
/// let storage = STORAGE.take().expect("first take");
/// assert_eq!(storage.workspace().info_capacity(), 4);
/// assert!(STORAGE.take().is_none()); // taken already
/// ```
pub struct TakeOnce<T>(ConstStaticCell<T>);

impl<T> core::fmt::Debug for TakeOnce<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("TakeOnce")
    }
}

impl<T> TakeOnce<T> {
    /// Holds `value` until it is taken; `const`, so it initialises a `static`.
    pub const fn new(value: T) -> Self {
        TakeOnce(ConstStaticCell::new(value))
    }

    /// The value, the first time; `None` every later time. O(1), lock-free.
    pub fn take(&'static self) -> Option<&'static mut T> {
        self.0.try_take()
    }
}
