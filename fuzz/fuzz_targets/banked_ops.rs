//! The banked free list on arbitrary operation sequences (talc's `Action` style). After
//! every action: `check_invariants()`, statistics that add up, and agreement with a simple
//! reference model (a map of live blocks, first/best fit over its gaps). A failed action
//! must leave the allocator unchanged. A panic is a bug.
#![no_main]

use std::collections::BTreeMap;

use arbitrary::Arbitrary;
use dramalloc_core::banked::{BankedError, BlockInfo, FreeList, FreeListConfig, Policy, Statistics};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Bytes {
    /// A small count (most requests).
    Small(u16),
    /// `k` alignment units.
    Units(u8),
    /// Anything, including values near `u64::MAX`.
    Raw(u64),
}

#[derive(Arbitrary, Debug)]
enum Action {
    Alloc { size: Bytes, bottom_up: bool },
    AllocAt { addr: Bytes, size: Bytes },
    Free { index: u16 },
    FreeAddress { addr: Bytes },
    Shrink { bytes: Bytes },
    Reset,
    Clear,
    Stats,
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// Range size: `Small` and `Units` are scaled by 64 bytes.
    size: Bytes,
    offset: Bytes,
    min_allocation: u16,
    alignment: u8,
    best: bool,
    /// Block table of 8 slots (exhaustion) or 128.
    small_table: bool,
    actions: Vec<Action>,
}

fuzz_target!(|input: Input| {
    if input.small_table {
        run::<8>(&input);
    } else {
        run::<128>(&input);
    }
});

fn bytes(b: Bytes, unit: u64) -> u64 {
    match b {
        Bytes::Small(v) => u64::from(v),
        Bytes::Units(k) => u64::from(k) * unit,
        Bytes::Raw(v) => v,
    }
}

/// The reference model: live blocks (relative to nothing: absolute addresses) and the range.
struct Model {
    live: BTreeMap<u64, u64>,
    start: u64,
    end: u64,
    offset: u64,
}

impl Model {
    /// Free gaps of the current range, absolute `(start, end)` in address order.
    fn gaps(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut at = self.start;
        for (&a, &s) in &self.live {
            if a > at {
                out.push((at, a));
            }
            at = a + s;
        }
        if self.end > at {
            out.push((at, self.end));
        }
        out
    }

    /// Where a request of rounded size `s` must go, or `None` when nothing fits.
    fn place(&self, s: u64, bottom_up: bool, policy: Policy) -> Option<u64> {
        let fits: Vec<(u64, u64)> = self.gaps().into_iter().filter(|&(a, e)| e - a >= s).collect();
        let (a, e) = match policy {
            Policy::First if bottom_up => *fits.first()?,
            Policy::First => *fits.last()?,
            Policy::Best => {
                let best = fits.iter().map(|&(a, e)| e - a).min()?;
                let mut same = fits.iter().filter(|&&(a, e)| e - a == best);
                if bottom_up {
                    *same.next()?
                } else {
                    *same.last()?
                }
            }
        };
        Some(if bottom_up { a } else { e - s })
    }
}

type Snapshot = (Vec<BlockInfo>, Statistics, u64, u64);

fn snapshot<const B: usize>(fl: &FreeList<B>) -> Snapshot {
    (fl.blocks().collect(), fl.statistics(), fl.start(), fl.end())
}

fn run<const B: usize>(input: &Input) {
    let size = match input.size {
        Bytes::Small(v) => u64::from(v) * 64,
        Bytes::Units(k) => u64::from(k) * 64,
        Bytes::Raw(v) => v,
    };
    let offset = bytes(input.offset, 4096);
    let policy = if input.best { Policy::Best } else { Policy::First };
    let align = u64::from(input.alignment);
    let cfg = FreeListConfig::new(size, offset, u64::from(input.min_allocation), align, policy);
    let mut fl = match FreeList::<B>::new(cfg) {
        Ok(fl) => fl,
        Err(BankedError::MisalignedConfig { what, value, alignment }) => {
            assert_eq!(alignment, align);
            assert!(
                (what == "offset" && value == offset && offset % align != 0)
                    || (what == "size" && value == size && offset % align == 0 && size % align != 0),
                "{cfg:?}: misaligned {what} = {value}"
            );
            return;
        }
        Err(e) => {
            assert!(
                matches!(e, BankedError::InvalidConfig { .. } | BankedError::RangeTooLarge { .. }),
                "new: {e:?}"
            );
            assert!(
                size == 0 || align == 0 || offset.checked_add(size).is_none_or(|e| e > 1 << 57),
                "{cfg:?}: {e:?}"
            );
            return;
        }
    };
    let mut model = Model { live: BTreeMap::new(), start: offset, end: offset + size, offset };
    check(&fl, &model);
    for action in &input.actions {
        let before = snapshot(&fl);
        let result: Result<(), BankedError> = match *action {
            Action::Alloc { size, bottom_up } => {
                let req = bytes(size, align);
                let rounded = fl.alloc_size(req);
                let want = rounded.ok().filter(|_| req > 0).and_then(|s| model.place(s, bottom_up, policy));
                match fl.allocate(req, bottom_up) {
                    Ok(a) => {
                        let s = rounded.expect("allocate succeeded but alloc_size overflowed");
                        assert_eq!(Some(a), want, "allocate({req}, {bottom_up}) under {policy:?}");
                        model.live.insert(a, s);
                        Ok(())
                    }
                    Err(e) => {
                        match e {
                            BankedError::OutOfMemory(_) => {
                                assert_eq!(want, None, "OOM but the model fits {req}")
                            }
                            BankedError::Overflow { .. } => assert!(rounded.is_err()),
                            BankedError::ZeroSize { buffer_type: None } => assert_eq!(req, 0),
                            BankedError::CapacityExhausted { .. } => {}
                            _ => panic!("allocate: unexpected {e:?}"),
                        }
                        Err(e)
                    }
                }
            }
            Action::AllocAt { addr, size } => {
                let address = offset.wrapping_add(bytes(addr, align.max(1)));
                let req = bytes(size, align);
                let rounded = fl.alloc_size(req);
                match fl.allocate_at(address, req) {
                    Ok(a) => {
                        assert_eq!(a, address);
                        let s = rounded.expect("allocate_at succeeded but alloc_size overflowed");
                        let end = address.checked_add(s).expect("allocated range overflows");
                        assert!(address >= model.start && end <= model.end, "allocate_at outside the range");
                        assert!(
                            model.live.iter().all(|(&b, &bs)| b + bs <= address || end <= b),
                            "allocate_at over a live block"
                        );
                        model.live.insert(address, s);
                        Ok(())
                    }
                    Err(e) => {
                        match e {
                            BankedError::Overlap { conflict_address, .. } => {
                                let s = rounded.unwrap();
                                let cs = model
                                    .live
                                    .get(&conflict_address)
                                    .copied()
                                    .expect("Overlap names no live block");
                                assert!(
                                    conflict_address < address + s && address < conflict_address + cs,
                                    "{e:?} does not overlap"
                                );
                            }
                            BankedError::OutOfRange { .. } => {
                                let s = rounded.unwrap();
                                let inside = address >= model.start
                                    && address.checked_add(s).is_some_and(|e| e <= model.end);
                                assert!(
                                    !inside,
                                    "{e:?} but [{address}, +{s}) is inside [{}, {})",
                                    model.start, model.end
                                );
                            }
                            BankedError::Overflow { .. } => assert!(rounded.is_err()),
                            BankedError::ZeroSize { buffer_type: None } => assert_eq!(req, 0),
                            BankedError::CapacityExhausted { .. } => {}
                            _ => panic!("allocate_at: unexpected {e:?}"),
                        }
                        Err(e)
                    }
                }
            }
            Action::Free { index } => {
                let target = if model.live.is_empty() {
                    offset
                } else {
                    *model.live.keys().nth(usize::from(index) % model.live.len()).unwrap()
                };
                free(&mut fl, &mut model, target)
            }
            Action::FreeAddress { addr } => {
                let target = offset.wrapping_add(bytes(addr, align.max(1)));
                free(&mut fl, &mut model, target)
            }
            Action::Shrink { bytes: b } => {
                let b = bytes(b, align.max(1));
                let r = fl.shrink(b);
                let total = model.end - model.start;
                let expect_ok =
                    b == 0 || (b < total && model.live.keys().next().is_none_or(|&a| a >= model.start + b));
                assert_eq!(r.is_ok(), expect_ok, "shrink({b}) of {total}: {r:?}");
                if r.is_ok() {
                    model.start += b;
                }
                r
            }
            Action::Reset => {
                let r = fl.reset();
                match r {
                    Ok(()) => model.start = model.offset,
                    Err(BankedError::CapacityExhausted { .. }) => {}
                    Err(e) => panic!("reset: unexpected {e:?}"),
                }
                r
            }
            Action::Clear => {
                fl.clear();
                model.live.clear();
                model.start = model.offset;
                Ok(())
            }
            Action::Stats => {
                let _ = fl.lowest_occupied_address();
                let _ = fl.available_addresses(1).count();
                Ok(())
            }
        };
        if result.is_err() {
            assert_eq!(before, snapshot(&fl), "failed {action:?} changed the allocator");
        }
        check(&fl, &model);
    }
}

fn free<const B: usize>(fl: &mut FreeList<B>, model: &mut Model, address: u64) -> Result<(), BankedError> {
    let r = fl.free(address);
    match (model.live.remove(&address), r) {
        (Some(s), Ok(freed)) => {
            assert_eq!(s, freed, "free({address}) returned a different size");
            Ok(())
        }
        (Some(_), Err(e)) => panic!("free of live block {address}: {e:?}"),
        (None, Ok(_)) => panic!("free({address}) succeeded on no live block"),
        (None, Err(e)) => {
            let inside_live = model.live.iter().any(|(&a, &s)| a < address && address < a + s);
            let in_range = address >= model.start && address < model.end;
            match e {
                BankedError::DoubleFree { .. } => assert!(in_range && !inside_live, "{e:?}"),
                BankedError::UnknownFree { .. } => assert!(!in_range || inside_live, "{e:?}"),
                _ => panic!("free: unexpected {e:?}"),
            }
            Err(e)
        }
    }
}

fn check<const B: usize>(fl: &FreeList<B>, model: &Model) {
    if let Err(why) = fl.check_invariants() {
        panic!("invariant violated: {why}");
    }
    let st = fl.statistics();
    assert_eq!(st.allocated + st.free, st.total, "{st:?}");
    assert!(st.largest_free <= st.free, "{st:?}");
    assert_eq!(st.total, model.end - model.start, "{st:?}");
    assert_eq!(st.allocated, model.live.values().sum::<u64>(), "{st:?}");
    assert_eq!(st.allocated_blocks as usize, model.live.len(), "{st:?}");
    assert_eq!((fl.start(), fl.end()), (model.start, model.end));
    let live: Vec<(u64, u64)> = fl.allocated_addresses().collect();
    let want: Vec<(u64, u64)> = model.live.iter().map(|(&a, &s)| (a, a + s)).collect();
    assert_eq!(live, want, "allocated blocks differ from the model");
    let gaps = model.gaps();
    assert_eq!(st.largest_free, gaps.iter().map(|&(a, e)| e - a).max().unwrap_or(0), "{st:?}");
    assert_eq!(st.free_blocks as usize, gaps.len(), "{st:?}");
    assert_eq!(fl.lowest_occupied_address(), model.live.keys().next().copied());
}
