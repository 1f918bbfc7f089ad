//! The crate's one logging macro, [`milestone!`]: the seed allocator's milestone events.
//! Uses: defmt (feature `defmt`), log (feature `log`); used by: planner, multicore.
//!
//! The seed's allocator logs its milestones ("Already used DRAM hwm", "Num intervals N Num
//! locations M", "CC buffer size limit N", "Real CC buffer size", "DRAM allocation
//! successful", "Assigned memloc … based on its remote local target"); the core logs the
//! same events through this one private macro. With the `defmt` feature it is `defmt::info!`
//! (firmware; shown when `DEFMT_LOG` enables `info`), with the `log` feature
//! `log::info!(target: "dramalloc", …)` (the command line shows it with `-v`), with both
//! both, and with neither nothing: the arguments are only borrowed, so no code or string is
//! left in the binary. The format strings use only `{}`, which both back ends read alike.

/// Logs one milestone event (see the module docs). Not exported.
macro_rules! milestone {
    ($fmt:literal $(, $arg:expr)* $(,)?) => {{
        #[cfg(feature = "defmt")]
        ::defmt::info!($fmt $(, $arg)*);
        #[cfg(feature = "log")]
        ::log::info!(target: "dramalloc", $fmt $(, $arg)*);
        #[cfg(not(any(feature = "defmt", feature = "log")))]
        {
            $(let _ = &$arg;)*
        }
    }};
}
