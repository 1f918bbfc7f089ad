//! The planner on arbitrary interval sets: up to 2,000 buffers (def u16, length u16, size
//! u32, optionally pinned), a random window, alignment and CC region, through every
//! strategy but `exact` (too slow per input; `auto` runs a budgeted branch and bound). An
//! `Ok` plan is checked by an independent O(n²) verifier; an `Err` must be a typed input
//! error, never an internal-assertion variant. A panic is a bug.
#![no_main]

use arbitrary::Arbitrary;
use dramalloc_core::{plan_buffers, Buffer, CcSize, PlanConfig, PlanError, Strategy};
use dramalloc_sim::host_storage::HostWorkspace;
use libfuzzer_sys::fuzz_target;

const MAX_BUFFERS: usize = 2_000;

#[derive(Arbitrary, Debug)]
enum Window {
    /// 1 TiB: everything fits.
    Large,
    /// `n` pages of the alignment (tight windows, DoesNotFit).
    Pages(u16),
    /// Any byte count, including 0 and `u64::MAX`.
    Raw(u64),
}

#[derive(Arbitrary, Debug)]
enum Align {
    Byte,
    Page,
    /// Any value, including 0 and non-powers of two (the API accepts `align >= 1`).
    Raw(u16),
}

#[derive(Arbitrary, Debug)]
enum Cc {
    Off,
    Mib(u8),
    Auto,
}

#[derive(Arbitrary, Debug)]
enum Pin {
    /// At `k` alignment units.
    Unit(u16),
    /// Any byte address (misaligned, near `u64::MAX`).
    Raw(u64),
}

#[derive(Arbitrary, Debug)]
struct Spec {
    def: u16,
    len: u16,
    size: u32,
    pin: Option<Pin>,
}

#[derive(Arbitrary, Debug)]
struct Input {
    window: Window,
    align: Align,
    cc: Cc,
    /// Allow `last_use < def` (a BadInterval input) for this buffer index, if any.
    reversed: Option<u16>,
    specs: Vec<Spec>,
}

fuzz_target!(|input: Input| {
    let align = match input.align {
        Align::Byte => 1,
        Align::Page => 4096,
        Align::Raw(a) => u64::from(a),
    };
    let unit = align.max(1);
    let window = match input.window {
        Window::Large => 1 << 40,
        Window::Pages(p) => u64::from(p) * unit,
        Window::Raw(w) => w,
    };
    let cc = match input.cc {
        Cc::Off => CcSize::Mib(0),
        Cc::Mib(m) => CcSize::Mib(u64::from(m % 8)),
        Cc::Auto => CcSize::Auto,
    };
    let bufs: Vec<Buffer> = input
        .specs
        .iter()
        .take(MAX_BUFFERS)
        .enumerate()
        .map(|(k, s)| {
            let def = u32::from(s.def);
            let mut last_use = def + u32::from(s.len);
            if input.reversed.map(usize::from) == Some(k) && s.len > 0 {
                last_use = def.saturating_sub(u32::from(s.len));
            }
            let address = s.pin.as_ref().map(|p| match *p {
                Pin::Unit(u) => u64::from(u) * unit,
                Pin::Raw(a) => a,
            });
            Buffer { def, last_use, bytes: u64::from(s.size), address, align: 0 }
        })
        .collect();
    let n = bufs.len();
    let mut host = HostWorkspace::new(n.max(1), n.max(1), 1);
    // `exact` (a 2,000,000-node branch and bound by default) is skipped: seconds per input;
    // `auto` runs its budgeted branch and bound.
    for strategy in Strategy::ALL.into_iter().filter(|s| s.name() != "exact") {
        let cfg = PlanConfig { window, cc, strategy };
        match plan_buffers(&bufs, align, &cfg, &mut host.workspace()) {
            Ok(plan) => verify(
                &bufs,
                align,
                window,
                host.infos(),
                plan.metrics.hwm,
                plan.metrics.lower_bound,
                strategy,
            ),
            Err(e) => check_error(&bufs, e, strategy),
        }
    }
});

/// Independent check of a plan: every buffer placed, interfering buffers (closed intervals
/// overlap) disjoint, aligned addresses, ends within the window and the HWM, pins kept.
fn verify(
    bufs: &[Buffer],
    align: u64,
    window: u64,
    infos: &[dramalloc_core::Info],
    hwm: u64,
    lb: u64,
    s: Strategy,
) {
    let n = bufs.len();
    let mut addr = vec![None::<(u64, u64)>; n];
    for info in &infos[..n] {
        let k = info.location as usize;
        assert!(k < n, "{s:?}: Info names buffer {k} of {n}");
        assert!(info.is_allocated(), "{s:?}: buffer {k} left unallocated");
        assert!(addr[k].is_none(), "{s:?}: buffer {k} planned twice");
        addr[k] = Some((info.address, info.aligned));
    }
    for (k, b) in bufs.iter().enumerate() {
        let (a, aligned) = addr[k].unwrap_or_else(|| panic!("{s:?}: buffer {k} has no Info"));
        let unit = align.max(1);
        let expect = b.bytes.div_ceil(unit) * unit;
        assert_eq!(aligned, expect, "{s:?}: buffer {k}: aligned size");
        let end = a.checked_add(aligned).unwrap_or_else(|| panic!("{s:?}: buffer {k}: end overflows"));
        assert!(end <= window, "{s:?}: buffer {k} [{a}, {end}) outside window {window}");
        assert!(end <= hwm, "{s:?}: buffer {k} ends at {end} above hwm {hwm}");
        if let Some(p) = b.address {
            assert_eq!(a, p, "{s:?}: pinned buffer {k} moved");
        }
        assert_eq!(a % unit, 0, "{s:?}: buffer {k} at {a} not aligned to {align}");
    }
    assert!(hwm <= window, "{s:?}: hwm {hwm} > window {window}");
    assert!(lb <= hwm, "{s:?}: lower bound {lb} > hwm {hwm}");
    for i in 0..n {
        let (ai, si) = addr[i].unwrap();
        for j in i + 1..n {
            let (bi, bj) = (&bufs[i], &bufs[j]);
            if bi.def > bj.last_use || bj.def > bi.last_use {
                continue;
            }
            let (aj, sj) = addr[j].unwrap();
            assert!(
                ai + si <= aj || aj + sj <= ai,
                "{s:?}: interfering buffers {i} [{ai}, {}) and {j} [{aj}, {}) overlap",
                ai + si,
                aj + sj
            );
        }
    }
}

/// An error must be an input error that names a real culprit.
fn check_error(bufs: &[Buffer], e: PlanError, s: Strategy) {
    let _ = e.to_string();
    let n = bufs.len() as u32;
    match e {
        PlanError::NodeIndex { .. } | PlanError::Unallocated { .. } => {
            panic!("{s:?}: internal assertion error from valid-typed input: {e:?}")
        }
        PlanError::ZeroSize { location } => assert_eq!(bufs[location as usize].bytes, 0, "{e:?}"),
        PlanError::BadInterval { location, .. } => {
            let b = bufs[location as usize];
            assert!(b.last_use < b.def, "{e:?}");
        }
        PlanError::MisalignedFixed { location, address, align } => {
            assert_eq!(bufs[location as usize].address, Some(address), "{e:?}");
            assert!(align == 0 || address % align != 0, "{e:?}");
        }
        PlanError::PinnedOverlap { a, b } => {
            assert!(a < n && b < n && a != b, "{e:?}");
            let (x, y) = (bufs[a as usize], bufs[b as usize]);
            assert!(x.address.is_some() && y.address.is_some(), "{e:?}: not both pinned");
            assert!(x.def <= y.last_use && y.def <= x.last_use, "{e:?}: lifetimes disjoint");
        }
        PlanError::DoesNotFit { location, .. }
        | PlanError::OutsideWindow { location, .. }
        | PlanError::SizeOverflow { location, .. } => assert!(location < n, "{e:?}"),
        _ => {}
    }
}
