//! Sizes, alignments and intervals at the edges of `u64` and `u32`, through every strategy
//! (a fresh-user trial found panics here in builds with overflow checks, and different
//! errors from different strategies in release builds). `.ci/run` runs this file in the dev
//! profile too, where overflow checks are on.

use dramalloc_core::{plan_buffers, Buffer, CcSize, PlanConfig, PlanError, StaticWorkspace, Strategy};

const GIB: u64 = 1 << 30;

/// A strategy's answer: (HWM, every buffer's address) or its error.
type Answer = Result<(u64, Vec<u64>), PlanError>;

/// Plans `bufs` (base alignment `align`) with every strategy in `window` bytes (no CC region,
/// adjacency lent); each strategy's answer as (HWM, addresses) or the error.
fn every_strategy(bufs: &[Buffer], align: u64, window: u64) -> Vec<(Strategy, Answer)> {
    Strategy::ALL
        .iter()
        .map(|&strategy| {
            let mut st: Box<StaticWorkspace<8, 8, 64>> = Box::new(StaticWorkspace::new());
            let mut ws = st.workspace();
            let cfg = PlanConfig { window, cc: CcSize::Mib(0), strategy };
            let got = plan_buffers(bufs, align, &cfg, &mut ws)
                .map(|p| (p.metrics.hwm, ws.infos[..bufs.len()].iter().map(|i| i.address).collect()));
            (strategy, got)
        })
        .collect()
}

/// Every strategy gives `want`.
fn all_give(bufs: &[Buffer], align: u64, window: u64, want: &Answer) {
    for (strategy, got) in every_strategy(bufs, align, window) {
        assert_eq!(&got, want, "{strategy:?}, window {window}");
    }
}

/// The end overflowing `u64` is reported as `needed: u64::MAX`.
fn no_fit(location: u32, size: u64, needed: u64, available: u64, largest_gap: u64) -> Answer {
    Err(PlanError::DoesNotFit { location, size, needed, available, largest_gap })
}

/// A buffer live over every instruction, `[0, u32::MAX]` (2^32 instructions: its width no
/// longer fits the u32 it is ranked by), and a short one inside it: stacked, HWM 16.
#[test]
fn a_buffer_live_over_every_instruction_is_planned() {
    let bufs = [Buffer::new(0, u32::MAX, 8), Buffer::new(5, 9, 8)];
    for window in [u64::MAX, GIB] {
        let got = every_strategy(&bufs, 1, window);
        for (strategy, got) in got {
            let (hwm, mut at) = got.unwrap_or_else(|e| panic!("{strategy:?}: {e}"));
            at.sort_unstable();
            assert_eq!((hwm, at), (16, vec![0, 8]), "{strategy:?}");
        }
    }
}

/// Two 2^63-byte buffers live together: 2^64 bytes live, more than any window. Every
/// strategy names the second (its end would pass u64) in the whole address space, and the
/// first (its end 2^63 past 1 GiB) in 1 GiB.
#[test]
fn a_live_load_past_u64_does_not_fit_with_any_strategy() {
    let half = 1u64 << 63;
    let bufs = [Buffer::new(0, 3, half), Buffer::new(2, 5, half)];
    all_give(&bufs, 1, u64::MAX, &no_fit(1, half, u64::MAX, u64::MAX, half - 1));
    all_give(&bufs, 1, GIB, &no_fit(0, half, half, GIB, GIB));
    // four 2^62-byte buffers live at instructions 2 and 3: the fourth does not fit
    let quarter = 1u64 << 62;
    let bufs = [0, 2, 1, 1].map(|def| Buffer::new(def, 5, quarter));
    all_give(&bufs, 1, u64::MAX, &no_fit(3, quarter, u64::MAX, u64::MAX, quarter - 1));
    // two 8-byte buffers at an alignment of 2^63 take 2^63 bytes each
    let bufs = [Buffer::new(0, 3, 8), Buffer::new(2, 5, 8)];
    all_give(&bufs, half, u64::MAX, &no_fit(1, half, u64::MAX, u64::MAX, half - 1));
}

/// Two 2^63-byte buffers live one after the other and a 2^62-byte one with the second:
/// the largest load (1.5 × 2^63) fits in u64, though the section sums passed it when a
/// section's starts were added before its ends were taken away.
#[test]
fn loads_one_after_the_other_near_u64_are_planned() {
    let half = 1u64 << 63;
    let bufs = [Buffer::new(0, 0, half), Buffer::new(1, 1, half), Buffer::new(1, 1, half / 2)];
    for (strategy, got) in every_strategy(&bufs, 1, u64::MAX) {
        let (hwm, at) = got.unwrap_or_else(|e| panic!("{strategy:?}: {e}"));
        assert_eq!(hwm, half + half / 2, "{strategy:?}");
        assert_eq!(at[0], 0, "{strategy:?}");
        assert!(at[1..] == [0, half] || at[1..] == [half / 2, 0], "{strategy:?}: {at:?}");
    }
    // in 1 GiB a 2^63-byte buffer does not fit (which one first fit tries first depends on
    // the strategy's order)
    for (strategy, got) in every_strategy(&bufs, 1, GIB) {
        match got {
            Err(PlanError::DoesNotFit {
                location: 0 | 1,
                size,
                needed,
                available: GIB,
                largest_gap: GIB,
            }) => {
                assert_eq!((size, needed), (half, half), "{strategy:?}")
            }
            other => panic!("{strategy:?}: {other:?}"),
        }
    }
}
