//! The runtime banked device allocator (tt-metal style). See `../shared/seeds/004_*`.
