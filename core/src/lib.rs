//! dramalloc-core: a heap-free DRAM planner and banked device allocator.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod banked;
