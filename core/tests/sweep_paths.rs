//! The time sweep's paths past the live list (`place::sweep::LIST_MAX_LIVE`), called
//! directly: which of the list and the treap a fit takes, the clock counted once per buffer,
//! a sweep whose live set empties, and the CC region retry, each pinned by exact addresses.

use dramalloc_core::error::PlanError;
use dramalloc_core::liveness::info::Info;
use dramalloc_core::liveness::interference::Graph;
use dramalloc_core::liveness::interval_tree::Node;
use dramalloc_core::place::clock::Clock;
use dramalloc_core::place::seed::search::{Fit, Span};
use dramalloc_core::place::seed::select::Regions;
use dramalloc_core::place::sweep::{sweep, LIST_MAX_LIVE};
use dramalloc_core::workspace::{Placed, Section};

#[path = "support/xorshift.rs"]
mod xorshift;

/// Sweeps the candidates `iv` = (def, last use, aligned size), candidate k at location k;
/// returns the sweep's answer and the Infos (addresses) it left.
fn run(
    iv: &[(u32, u32, u64)],
    regions: Regions,
    fit: Fit,
    clock: &mut Clock<'_>,
) -> (Result<bool, PlanError>, Vec<Info>) {
    run_with(iv, regions, fit, clock, iv.len())
}

/// [`run`] with `sections` entries of sections (fewer than the candidates: no treap, so the
/// live-list loop however many are live).
fn run_with(
    iv: &[(u32, u32, u64)],
    regions: Regions,
    fit: Fit,
    clock: &mut Clock<'_>,
    sections: usize,
) -> (Result<bool, PlanError>, Vec<Info>) {
    let n = iv.len();
    let mut nodes: Vec<Node> =
        iv.iter().enumerate().map(|(k, &(lo, hi, _))| Node::new(lo, hi, k as u32)).collect();
    let mut infos: Vec<Info> = iv
        .iter()
        .enumerate()
        .map(|(k, &(_, _, aligned))| Info {
            aligned,
            interval_count: 1,
            location: k as u32,
            ..Info::default()
        })
        .collect();
    let mut ids = vec![0u32; n];
    let graph = Graph::build(&mut nodes, &mut ids, &mut infos);
    let (mut order, mut heap) = (vec![0u32; n], vec![0u32; n]);
    let mut placed = vec![Placed::default(); n];
    let (mut occupied, mut sections) = (vec![Span::default(); n], vec![Section::default(); sections]);
    let got = sweep(
        &graph,
        &mut infos,
        &mut order,
        &mut heap,
        &mut placed,
        &mut occupied,
        &mut sections,
        &mut [],
        &mut [],
        regions,
        fit,
        clock,
    );
    (got, infos)
}

const WIDE: Regions = Regions { start: 0, general_ceiling: 1 << 20, window: 1 << 20, align: 1 };

/// The treap is first fit only: best fit keeps the list loop however many buffers are live.
/// 300 buffers of 16 bytes, buffer k defined at k (at 16 k), all live at 299; buffers 0, 1
/// and 10 end there, leaving gaps of 32 and 16 bytes; a 16-byte buffer defined at 300 goes
/// to the lowest gap by first fit (0) and to the exact one by best fit (160).
#[test]
fn best_fit_past_the_live_list_takes_the_smallest_gap() {
    let mut iv: Vec<(u32, u32, u64)> =
        (0..300).map(|k| (k, if [0, 1, 10].contains(&k) { 299 } else { 1000 }, 16)).collect();
    iv.push((300, 300, 16));
    assert!(iv.len() - 1 > LIST_MAX_LIVE);
    for (fit, want) in [(Fit::First, 0), (Fit::Best, 160)] {
        let (got, infos) = run(&iv, WIDE, fit, &mut Clock::none());
        assert_eq!(got, Ok(true));
        assert_eq!(infos[299].address, 299 * 16, "{fit:?}");
        assert_eq!(infos[300].address, want, "{fit:?}");
    }
}

/// The treap sweep counts the clock once per buffer (no fallback to the list loop, which
/// would count the buffers again) and keeps placing after every buffer has expired: 510
/// buffers of 16 bytes, buffer i live over [i, i + 299] (300 live at once, each in the slot
/// its predecessor by 300 left: 16 (i mod 300)), then one at 2000 alone (at 0). 511 steps
/// ask the callback once (at step 256).
#[test]
fn the_treap_sweep_ticks_once_per_buffer_and_outlives_an_empty_set() {
    let mut iv: Vec<(u32, u32, u64)> = (0..510).map(|i| (i, i + 299, 16)).collect();
    iv.push((2000, 2000, 16));
    let mut asks = 0u32;
    let mut keep_going = || {
        asks += 1;
        true
    };
    let (got, infos, stopped) = {
        let mut clock = Clock::new(&mut keep_going);
        let (got, infos) = run(&iv, WIDE, Fit::First, &mut clock);
        (got, infos, clock.stopped())
    };
    assert_eq!((got, stopped, asks), (Ok(true), false, 1));
    assert!(infos.iter().all(|i| i.allocated == 1));
    let at: Vec<u64> = infos.iter().map(|i| i.address).collect();
    let want: Vec<u64> = (0..510u64).map(|i| 16 * (i % 300)).chain([0]).collect();
    assert_eq!(at, want);
}

/// On the treap path a buffer that fits nowhere below the general ceiling goes to the CC
/// region above it: 301 buffers of 16 bytes live together (buffer k defined at k, at 16 k),
/// the general region holding 300 (4,800 bytes): the last one lands at 4,800 with a CC region, and with none it is
/// `DoesNotFit` (needing 4,816 bytes, no gap below the ceiling).
#[test]
fn the_treap_sweep_retries_in_the_cc_region() {
    let iv: Vec<(u32, u32, u64)> = (0..301).map(|k| (k, 1000, 16)).collect();
    let cc = Regions { start: 0, general_ceiling: 4800, window: 8192, align: 1 };
    let (got, infos) = run(&iv, cc, Fit::First, &mut Clock::none());
    assert_eq!(got, Ok(true));
    assert_eq!((infos[299].address, infos[300].address), (4784, 4800));
    let (got, _) = run(&iv, Regions { window: 4800, ..cc }, Fit::First, &mut Clock::none());
    let want =
        PlanError::DoesNotFit { location: 300, size: 16, needed: 4816, available: 4800, largest_gap: 0 };
    assert_eq!(got, Err(want));
}

/// Past `min_heap::SORT_ABOVE` waiting ends the treap sweep sorts every end once instead of
/// keeping a heap: the same plan as the live-list loop (sections withheld, so no treap),
/// address by address. 24,000 page-multiple buffers, 16 defined per instruction over 1,500
/// instructions, each live for 300–2,299 (about 18,000 live at most: the switch comes near
/// instruction 1,250, after the first buffers expired, so later ends are read from the middle
/// of the sorted ones), and the clock asked once per buffer either way (a failed removal
/// would send the sweep to its list loop, which asks again).
#[test]
fn past_the_heap_the_treap_sweep_reads_the_sorted_ends() {
    use dramalloc_core::place::min_heap::SORT_ABOVE;
    let mut next = xorshift::xorshift(0x9E37_79B9_7F4A_7C15);
    let iv: Vec<(u32, u32, u64)> = (0..24_000u32)
        .map(|i| {
            let def = i / 16;
            (def, def + 300 + next(2000) as u32, 4096 * (1 + next(8)))
        })
        .collect();
    let most = (0..4500u32).map(|t| iv.iter().filter(|b| b.0 <= t && t <= b.1).count()).max().unwrap();
    assert!(most > SORT_ABOVE + 1000, "{most} live at most");
    let mut asks = [0u32; 2];
    let mut plans = Vec::new();
    for (k, sections) in [iv.len(), 0].into_iter().enumerate() {
        let mut count = || {
            asks[k] += 1;
            true
        };
        let (got, infos) = run_with(&iv, WIDE_40, Fit::First, &mut Clock::new(&mut count), sections);
        assert_eq!(got, Ok(true));
        assert!(infos.iter().all(|i| i.allocated == 1));
        plans.push(infos.iter().map(|i| i.address).collect::<Vec<u64>>());
    }
    assert_eq!(plans[0], plans[1]);
    assert_eq!(asks[0], asks[1]);
}

const WIDE_40: Regions = Regions { start: 0, general_ceiling: 1 << 40, window: 1 << 40, align: 4096 };
