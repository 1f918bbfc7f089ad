//! The sweep around a first set (`core/src/place/sweep_long.rs`, `sweep_first`) with more
//! buffers live at once than the time sweep's live list takes (`LIST_MAX_LIVE`): with storage
//! lent for it (`Lent`), its step 2 runs on the sweep's treap, with the first set standing as
//! pinned buffers and every look-ahead exact; the plan is the list path's, buffer for buffer,
//! the pinned flags are as they were, and an error is the list path's error.

use dramalloc_core::error::PlanError;
use dramalloc_core::liveness::info::Info;
use dramalloc_core::liveness::interference::Graph;
use dramalloc_core::liveness::interval_tree::Node;
use dramalloc_core::place::clock::Clock;
use dramalloc_core::place::seed::search::Span;
use dramalloc_core::place::seed::select::Regions;
use dramalloc_core::place::sweep::LIST_MAX_LIVE;
use dramalloc_core::place::sweep_long::{sweep_first, First, Lent};
use dramalloc_core::workspace::{Placed, Section};

#[path = "support/xorshift.rs"]
mod rng;
use rng::xorshift;

/// `n` buffers defined over instructions 0–299: one in four long-lived (100–1,099
/// instructions), the rest 1–40; sizes 1–4,096 bytes; one in `pinned_every` fixed at an address
/// of its own above 2^30 (none for 0). Returns `(lo, hi, size, fixed address)`.
fn buffers(seed: u64, n: usize, pinned_every: u64) -> Vec<(u32, u32, u64, Option<u64>)> {
    let mut below = xorshift(seed);
    (0..n)
        .map(|k| {
            let lo = below(300) as u32;
            let life = if below(4) == 0 { 100 + below(1000) } else { 1 + below(40) };
            let size = 1 + below(4096);
            let fixed = (pinned_every > 0 && below(pinned_every) == 0).then(|| (1 << 30) + k as u64 * 4096);
            (lo, lo + life as u32, size, fixed)
        })
        .collect()
}

/// The most buffers live at one instruction.
fn max_live(iv: &[(u32, u32, u64, Option<u64>)]) -> usize {
    let end = iv.iter().map(|b| b.1).max().unwrap_or(0);
    (0..=end).map(|t| iv.iter().filter(|b| b.0 <= t && t <= b.1).count()).max().unwrap_or(0)
}

/// `sweep_first` around the long-lived of class `k` on `iv` in `regions`, with storage lent
/// for the treap path or not; the addresses and pinned flags, or the error.
fn run(
    iv: &[(u32, u32, u64, Option<u64>)],
    k: usize,
    regions: Regions,
    lend: bool,
) -> Result<(Vec<u64>, Vec<u8>), PlanError> {
    run_lent(iv, k, regions, lend.then_some(iv.len()))
}

/// [`run`] with `lent` entries of `pinned` lent for the treap path (none: `None`).
fn run_lent(
    iv: &[(u32, u32, u64, Option<u64>)],
    k: usize,
    regions: Regions,
    lent: Option<usize>,
) -> Result<(Vec<u64>, Vec<u8>), PlanError> {
    let n = iv.len();
    let mut nodes: Vec<Node> = iv.iter().enumerate().map(|(v, b)| Node::new(b.0, b.1, v as u32)).collect();
    let mut infos: Vec<Info> = iv
        .iter()
        .enumerate()
        .map(|(v, b)| Info {
            aligned: b.2,
            interval_count: 1,
            location: v as u32,
            address: b.3.unwrap_or(0),
            pinned: u8::from(b.3.is_some()),
            allocated: u8::from(b.3.is_some()),
            ..Info::default()
        })
        .collect();
    let mut ids = vec![0u32; n];
    let graph = Graph::build(&mut nodes, &mut ids, &mut infos);
    let (mut order, mut heap) = (vec![0u32; n], vec![0u32; n]);
    let (mut placed, mut occupied) = (vec![Placed::default(); n], vec![Span::default(); n]);
    let mut sections = vec![Section::default(); n];
    let (mut pinned, mut lookahead) = (vec![0u32; lent.unwrap_or(0)], vec![0u64; 0]);
    let lent = lent.map(|_| Lent { pinned: &mut pinned, lookahead: &mut lookahead });
    let done = sweep_first(
        &graph,
        &mut infos,
        First::Long(k),
        &mut order,
        &mut heap,
        &mut placed,
        &mut occupied,
        &mut sections,
        lent,
        regions,
        &mut Clock::none(),
    )?;
    assert!(done);
    Ok((infos.iter().map(|i| i.address).collect(), infos.iter().map(|i| i.pinned).collect()))
}

const WIDE: Regions = Regions { start: 0, general_ceiling: 1 << 40, window: 1 << 40, align: 1 };

/// Every two buffers live together are apart.
fn apart(iv: &[(u32, u32, u64, Option<u64>)], at: &[u64]) {
    for a in 0..iv.len() {
        for b in a + 1..iv.len() {
            let (x, y) = (iv[a], iv[b]);
            if x.0 <= y.1 && y.0 <= x.1 {
                assert!(
                    at[a] + x.2 <= at[b] || at[b] + y.2 <= at[a],
                    "{a} {x:?} at {} and {b} {y:?} at {}",
                    at[a],
                    at[b]
                );
            }
        }
    }
}

#[test]
fn the_treap_path_makes_the_list_paths_plan() {
    let mut peaks = 0u64;
    for (case, &(seed, pinned_every, k)) in
        [(1u64, 0u64, 7usize), (2, 0, 9), (3, 50, 7), (4, 10, 8), (5, 3, 7), (6, 50, 11)].iter().enumerate()
    {
        let iv = buffers(seed, 1200, pinned_every);
        assert!(max_live(&iv) > LIST_MAX_LIVE, "case {case}: the list path would be taken");
        let (list, flags_list) = run(&iv, k, WIDE, false).unwrap();
        let (treap, flags_treap) = run(&iv, k, WIDE, true).unwrap();
        let differs = (0..iv.len()).find(|&v| list[v] != treap[v]);
        assert_eq!(differs, None, "case {case}: buffer placed differently, list path then treap path");
        let was: Vec<u8> = iv.iter().map(|b| u8::from(b.3.is_some())).collect();
        assert_eq!((&flags_list, &flags_treap), (&was, &was), "case {case}: pinned flags changed");
        apart(&iv, &treap);
        peaks += iv.iter().zip(&treap).filter(|(b, _)| b.3.is_none()).map(|(b, a)| a + b.2).max().unwrap();
    }
    // the plans themselves, pinned: the sum of the six plans' peaks below the fixed buffers
    assert_eq!(peaks, 4_114_963);
}

#[test]
fn a_buffer_that_fits_nowhere_is_the_same_error_on_either_path() {
    let iv = buffers(7, 1200, 0);
    let (fits, _) = run(&iv, 7, WIDE, false).unwrap();
    let peak = iv.iter().zip(&fits).map(|(b, a)| a + b.2).max().unwrap();
    let tight = Regions { start: 0, general_ceiling: peak / 2, window: peak / 2, align: 1 };
    let list = run(&iv, 7, tight, false).unwrap_err();
    let treap = run(&iv, 7, tight, true).unwrap_err();
    assert_eq!(list, treap);
    assert!(matches!(list, PlanError::DoesNotFit { .. }), "{list:?}");
}

/// Lent storage with fewer `pinned` entries than the first set and the fixed buffers (the
/// sweep would decline on it) is not used: the list path plans, the same plan. With one entry
/// per first-set and fixed buffer it is enough.
#[test]
fn storage_short_of_the_first_set_leaves_the_list_path() {
    for (case, pinned_every) in [0u64, 5].into_iter().enumerate() {
        let iv = buffers(8 + case as u64, 1200, pinned_every);
        let (list, _) = run(&iv, 7, WIDE, false).unwrap();
        let fixed = iv.iter().filter(|b| b.3.is_some()).count();
        let first = iv.iter().filter(|b| b.3.is_none() && 32 - (b.1 - b.0).leading_zeros() >= 7).count();
        assert!(first > 0 && (fixed > 0) == (pinned_every > 0), "case {case}");
        assert!(max_live(&iv) > LIST_MAX_LIVE, "case {case}: the list path would be taken");
        for lent in [0, first + fixed - 1, first + fixed] {
            let (got, _) = run_lent(&iv, 7, WIDE, Some(lent)).unwrap();
            assert_eq!(got, list, "case {case}, {lent} entries lent");
        }
    }
}
