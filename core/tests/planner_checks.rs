//! What `plan_buffers` checks and reports around the strategies (`planner::plan_built_with`):
//! pinned buffers past the window or overlapping each other, every field of the metrics on
//! a small problem with pins and a collective region, and the same plan with the stored
//! adjacency as with tree queries. Exact values; core API only.

use dramalloc_core::{plan_buffers, Buffer, CcSize, Plan, PlanConfig, PlanError, StaticWorkspace, Strategy};

type Ws = StaticWorkspace<64, 64, 0>;

fn cfg(window: u64, cc_mib: u64, strategy: Strategy) -> PlanConfig {
    PlanConfig { window, cc: CcSize::Mib(cc_mib), strategy }
}

/// Plans `bufs` at 4 KiB alignment; with `adjacency` entries of stored neighbour lists.
fn plan(bufs: &[Buffer], cfg: PlanConfig, adjacency: usize) -> Result<(Plan, Vec<u64>), PlanError> {
    plan_lent(bufs, cfg, adjacency, 0)
}

/// As [`plan`], also lending `tree_index` words for the interval tree's block index.
fn plan_lent(
    bufs: &[Buffer],
    cfg: PlanConfig,
    adjacency: usize,
    tree_index: usize,
) -> Result<(Plan, Vec<u64>), PlanError> {
    plan_with(bufs, cfg, adjacency, tree_index, true)
}

/// As [`plan_lent`]; without `sections` the workspace lends no sections, so the pinned
/// clash check cannot sweep and asks every pinned buffer's neighbours instead.
fn plan_with(
    bufs: &[Buffer],
    cfg: PlanConfig,
    adjacency: usize,
    tree_index: usize,
    sections: bool,
) -> Result<(Plan, Vec<u64>), PlanError> {
    let mut st: Box<Ws> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    if !sections {
        ws.sections = &mut [];
    }
    let mut adj = vec![0u32; adjacency];
    ws.adjacency = &mut adj;
    let mut index = vec![0u32; tree_index];
    ws.tree_index = &mut index;
    let p = plan_buffers(bufs, 4096, &cfg, &mut ws)?;
    Ok((p, ws.infos[..bufs.len()].iter().map(|i| i.address).collect()))
}

#[test]
fn a_pinned_buffer_past_the_window_is_named() {
    let bufs = [Buffer::new(0, 3, 4096), Buffer::pinned(1, 2, 8192, 1 << 20)];
    let err = plan(&bufs, cfg((1 << 20) + 4096, 0, Strategy::Seed), 0).map(|_| ());
    assert_eq!(
        err,
        Err(PlanError::OutsideWindow { location: 1, end: (1 << 20) + 8192, window: (1 << 20) + 4096 })
    );
    // ending exactly at the window is inside
    assert!(plan(&bufs, cfg((1 << 20) + 8192, 0, Strategy::Seed), 0).is_ok());
}

/// Two pinned buffers clash only when they overlap in time and in bytes; the error names the
/// earlier one first, whichever order they are checked in, with or without stored lists, by
/// the sweep over the pinned buffers or (no sections lent) by neighbour queries.
#[test]
fn pinned_buffers_clash_only_when_they_overlap_in_time_and_bytes() {
    for (adjacency, sections) in [(0usize, true), (256, true), (0, false), (256, false)] {
        let plan = |bufs: &[Buffer], c, adjacency| plan_with(bufs, c, adjacency, 0, sections);
        let c = cfg(1 << 30, 0, Strategy::GreedySize);
        // a free buffer defined first: the clash's later buffer meets it before its partner
        let free_first =
            [Buffer::new(0, 9, 4096), Buffer::pinned(1, 4, 8192, 0), Buffer::pinned(4, 8, 4096, 4096)];
        assert_eq!(plan(&free_first, c, adjacency).map(|_| ()), Err(PlanError::PinnedOverlap { a: 1, b: 2 }));
        let clash =
            [Buffer::new(0, 9, 4096), Buffer::pinned(0, 4, 8192, 0), Buffer::pinned(4, 8, 4096, 4096)];
        assert_eq!(plan(&clash, c, adjacency).map(|_| ()), Err(PlanError::PinnedOverlap { a: 1, b: 2 }));
        // the earlier one above the later: overlapping bytes clash, touching ones do not
        let above =
            [Buffer::new(0, 9, 4096), Buffer::pinned(0, 4, 8192, 4096), Buffer::pinned(4, 8, 8192, 0)];
        assert_eq!(plan(&above, c, adjacency).map(|_| ()), Err(PlanError::PinnedOverlap { a: 1, b: 2 }));
        let on_top =
            [Buffer::new(0, 9, 4096), Buffer::pinned(0, 4, 8192, 4096), Buffer::pinned(4, 8, 4096, 0)];
        let (_, addr) = plan(&on_top, c, adjacency).unwrap();
        assert_eq!(addr, vec![12288, 4096, 0]);
        // touching bytes ([0, 8192) and [8192, 12288)) do not clash
        let touching =
            [Buffer::new(0, 9, 4096), Buffer::pinned(0, 4, 8192, 0), Buffer::pinned(4, 8, 4096, 8192)];
        let (p, addr) = plan(&touching, c, adjacency).unwrap();
        assert_eq!((addr, p.metrics.pinned, p.metrics.hwm), (vec![12288, 0, 8192], 2, 16384));
        // disjoint in time (instructions 0–3 and 4–8) do not clash
        let apart =
            [Buffer::new(0, 9, 4096), Buffer::pinned(0, 3, 8192, 0), Buffer::pinned(4, 8, 4096, 4096)];
        let (_, addr) = plan(&apart, c, adjacency).unwrap();
        assert_eq!(addr, vec![8192, 0, 4096]);
    }
}

/// Every metric of one plan: 6 buffers, one pinned, a 1 MiB collective region in a 3 MiB
/// window. Size order places the 1.5 MiB buffer at 0; the 1 MiB one, live with it at
/// instruction 4, would end at 2.5 MiB, above the general region's 2 MiB ceiling, so it goes
/// to the collective region at 2 MiB; the load peaks at instruction 4 (1 MiB + 1.5 MiB +
/// 4 KiB).
#[test]
fn every_metric_of_a_plan_with_pins_and_a_collective_region() {
    let bufs = [
        Buffer::new(0, 4, 1 << 20),
        Buffer::new(1, 5, 4096),
        Buffer::pinned(2, 3, 4096, 8192),
        Buffer::new(4, 7, 3 << 19),
        Buffer::new(6, 9, 4096),
        Buffer::new(8, 9, 100),
    ];
    let (p, addr) = plan(&bufs, cfg(3 << 20, 1, Strategy::GreedySize), 0).unwrap();
    assert_eq!(addr, vec![2 << 20, 3 << 19, 8192, 0, 3 << 19, 0]);
    let m = p.metrics;
    assert_eq!((m.candidates, m.intervals, m.pinned, m.reserved_space), (6, 6, 1, 0));
    // every non-pinned buffer is a spill: 1 MiB + 1.5 MiB + 2 x 4 KiB + 100 bytes (4 KiB aligned)
    let spills = (1 << 20) + (3 << 19) + 2 * 4096;
    assert_eq!((m.preplaced_bytes, m.spill_bytes, m.aligned_spill_bytes), (0, spills + 100, spills + 4096));
    assert_eq!((m.cc_limit, m.cc_base, m.window), (1 << 20, 2 << 20, 3 << 20));
    assert_eq!((m.hwm, m.lower_bound), (3 << 20, (1 << 20) + (3 << 19) + 4096));
    assert_eq!((m.allreduce_hwm, m.real_cc_bytes), (3 << 20, 1 << 20));
    let greedy_size = Strategy::ALL.iter().position(|&s| s == Strategy::GreedySize).unwrap() as u64;
    assert_eq!(m.strategy, greedy_size);
    // without a collective region nothing is above the ceiling and the CC figures are 0
    let (p, _) = plan(&bufs, cfg(3 << 20, 0, Strategy::GreedySize), 0).unwrap();
    assert_eq!(
        (p.metrics.cc_limit, p.metrics.cc_base, p.metrics.allreduce_hwm, p.metrics.real_cc_bytes),
        (0, 3 << 20, 0, 0)
    );
}

/// A xorshift64 stream from `seed`: each call draws a value below `m`.
fn xorshift(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut x = seed;
    move |m| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    }
}

/// With room lent for the neighbour lists the planner reads them instead of querying the
/// tree: the same addresses and peak for every strategy on a generated problem.
#[test]
fn stored_neighbour_lists_give_the_same_plans() {
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    let bufs: Vec<Buffer> = (0..60)
        .map(|_| {
            let def = next(40) as u32;
            Buffer::new(def, def + next(10) as u32, 1 + next(20_000))
        })
        .collect();
    for s in Strategy::ALL {
        let c = cfg(1 << 30, 0, s);
        let (a, addr_a) = plan(&bufs, c, 0).unwrap();
        let (b, addr_b) = plan(&bufs, c, 4096).unwrap();
        assert_eq!(
            (addr_a, a.metrics.hwm, a.metrics.lower_bound),
            (addr_b, b.metrics.hwm, b.metrics.lower_bound),
            "{s:?}"
        );
    }
}

/// With room lent for the interval tree's block index every tree query goes through it (the
/// long buffers stretch the windows past four blocks, so both of its paths run): the same
/// addresses and peak for every strategy as without it, and room one word short is not used.
#[test]
fn a_lent_tree_index_gives_the_same_plans() {
    let mut next = xorshift(0x2545_F491_4F6C_DD1D);
    let bufs: Vec<Buffer> = (0..60)
        .map(|k| {
            let def = next(40) as u32;
            let len = if k % 9 == 0 { 30 + next(10) } else { next(6) };
            Buffer::new(def, def + len as u32, 1 + next(20_000))
        })
        .collect();
    let words = dramalloc_core::liveness::block_index::index_words(bufs.len());
    for s in Strategy::ALL {
        let c = cfg(1 << 30, 0, s);
        let (a, addr_a) = plan(&bufs, c, 0).unwrap();
        for lent in [words, words - 1] {
            let (b, addr_b) = plan_lent(&bufs, c, 0, lent).unwrap();
            assert_eq!(
                (&addr_a, a.metrics.hwm, a.metrics.lower_bound),
                (&addr_b, b.metrics.hwm, b.metrics.lower_bound),
                "{s:?}, {lent} words"
            );
        }
    }
}

use dramalloc_core::liveness::program::{Function, Instruction, Location, Operand, UsageClass};
use dramalloc_core::{plan_function, DEFAULT_HBM_WINDOW};

/// Plans a program of one pre-placed 4 KiB weight at `weight_at` read by instruction 1 and
/// two 4 KiB spills defined at 0 and 1 and read at 2.
fn plan_program(weight_at: u64, cfg: PlanConfig) -> Result<(Plan, Vec<u64>), PlanError> {
    let locs = [
        Location::preplaced(4096, UsageClass::Weight, weight_at),
        Location::spill(4096),
        Location::spill(4096),
    ];
    let ops = [Operand::def(1), Operand::def(2), Operand::use_(0), Operand::use_(1), Operand::use_(2)];
    let instrs = [
        Instruction { first: 0, count: 1, collective: false },
        Instruction { first: 1, count: 2, collective: false },
        Instruction { first: 3, count: 2, collective: false },
    ];
    let f = Function { locations: &locs, instructions: &instrs, operands: &ops };
    let mut st: Box<StaticWorkspace<8, 8, 8>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let p = plan_function(&f, &cfg, &mut ws)?;
    Ok((p, ws.infos[..2].iter().map(|i| i.address).collect()))
}

/// A pre-placed tensor raises the floor to its end: the spills go above it, the bound
/// counts the floor, the pre-placed bytes are reported; a floor past the window or into the
/// collective region is an error naming it.
#[test]
fn pre_placed_tensors_set_the_floor() {
    let (p, addr) = plan_program(8192, cfg(1 << 20, 0, Strategy::GreedySize)).unwrap();
    // the weight at [8192, 12288): floor 12288, both spills (live together at 1–2) above it
    assert_eq!((p.metrics.reserved_space, p.metrics.preplaced_bytes), (12_288, 4096));
    assert_eq!(addr, vec![12_288, 16_384]);
    assert_eq!((p.metrics.hwm, p.metrics.lower_bound), (20_480, 12_288 + 8192));
    // the floor exactly at the window's end is inside (no spill fits), one byte more is not
    let full = plan_program(8192, cfg(12_288, 0, Strategy::GreedySize)).map(|_| ());
    assert!(matches!(full, Err(PlanError::DoesNotFit { .. })), "{full:?}");
    let over = plan_program(8192, cfg(12_287, 0, Strategy::GreedySize)).map(|_| ());
    assert_eq!(over, Err(PlanError::OutsideWindow { location: 0, end: 12_288, window: 12_287 }));
    // a 1 MiB collective region whose base (8192) is below the floor
    let window = (1 << 20) + 8192;
    let cc = plan_program(8192, cfg(window, 1, Strategy::GreedySize)).map(|_| ());
    assert_eq!(cc, Err(PlanError::CcRegionOverlapsPreplaced { cc_bytes: 1 << 20, floor: 12_288, window }));
    // the region's base exactly 8 KiB above the floor: the two spills fill the space between
    let (p, addr) = plan_program(8192, cfg((1 << 20) + 12_288 + 8192, 1, Strategy::GreedySize)).unwrap();
    assert_eq!((p.metrics.cc_base, p.metrics.real_cc_bytes, addr), (20_480, 0, vec![12_288, 16_384]));
    // the region's base exactly at the floor: no general space, both spills in the region
    let (p, addr) = plan_program(8192, cfg((1 << 20) + 12_288, 1, Strategy::GreedySize)).unwrap();
    assert_eq!((p.metrics.cc_base, p.metrics.real_cc_bytes, addr), (12_288, 8192, vec![12_288, 16_384]));
}

/// With every candidate pinned there is nothing to place: the metrics still name the
/// strategy asked for; the default window is 24 GiB.
#[test]
fn nothing_to_place_keeps_the_strategy_asked_for() {
    let bufs = [Buffer::pinned(0, 3, 4096, 0), Buffer::pinned(2, 5, 4096, 4096)];
    let (p, _) = plan(&bufs, cfg(1 << 20, 0, Strategy::BestFit), 0).unwrap();
    let best_fit = Strategy::ALL.iter().position(|&s| s == Strategy::BestFit).unwrap() as u64;
    assert_eq!((p.metrics.strategy, p.metrics.hwm, p.metrics.lower_bound), (best_fit, 8192, 8192));
    assert_ne!(best_fit, 0);
    assert_eq!(DEFAULT_HBM_WINDOW, 24 * 1024 * 1024 * 1024);
}

/// A program whose only tensor is pre-placed has nothing to place, but its HWM is the floor
/// and so is its lower bound (it was 0 when no candidate was free: a ratio of HWM to bound
/// with nothing to divide by).
#[test]
fn a_floor_with_nothing_above_it_is_the_bound() {
    let locs = [Location::preplaced(4096, UsageClass::Weight, 8192)];
    let ops = [Operand::use_(0)];
    let instrs = [Instruction { first: 0, count: 1, collective: false }];
    let f = Function { locations: &locs, instructions: &instrs, operands: &ops };
    let mut st: Box<StaticWorkspace<8, 8, 8>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let p = plan_function(&f, &cfg(1 << 20, 0, Strategy::Auto), &mut ws).unwrap();
    let m = p.metrics;
    assert_eq!((m.candidates, m.reserved_space, m.hwm, m.lower_bound), (0, 12_288, 12_288, 12_288));
}

/// The default node budget of `exact`: 2,000,000 nodes up to 50 buffers, then
/// 100,000,000 / n (51 buffers get 1,960,784; 2,048 get 48,828), no buffers as one.
#[test]
fn the_default_node_budget_shrinks_with_the_buffers() {
    use dramalloc_core::planner::exact_default_nodes;
    let got = [0, 1, 50, 51, 64, 2_048].map(exact_default_nodes);
    assert_eq!(got, [2_000_000, 2_000_000, 2_000_000, 1_960_784, 1_562_500, 48_828]);
}

/// A pinned buffer high in the window holds the HWM up: the bound is at least its end,
/// though the load (its 4 KiB and a free 4 KiB beside it) is only 8 KiB. Every strategy's
/// plan meets the bound there, so the ratio a user sees is 1, not 10.
#[test]
fn a_pinned_buffer_end_is_a_bound() {
    let bufs = [Buffer::pinned(0, 3, 4096, 40_960), Buffer::new(1, 2, 4096)];
    for s in [Strategy::Auto, Strategy::Sweep, Strategy::GreedySize] {
        let (p, addrs) = plan(&bufs, cfg(1 << 20, 0, s), 0).unwrap();
        let m = p.metrics;
        assert_eq!((m.hwm, m.lower_bound, addrs[0]), (45_056, 45_056, 40_960), "{s:?}");
    }
}

/// The pinned buffers' clash check is one sweep over them: 3,000 pinned buffers (every
/// other of 6,000, each at its own offset in a stacked plan, so none clash) plan; then one
/// pair live together, the higher-indexed one defined first, is moved onto the same bytes,
/// and the error names the pair lower index first, as the neighbour queries did; and two
/// pinned buffers whose lifetimes only meet at one instruction clash too.
#[test]
fn the_pinned_clash_sweep_finds_a_clash_among_thousands() {
    let mut bufs: Vec<Buffer> = (0..6000u32)
        .map(|i| {
            let def = (i * 7) % 3000;
            let last = def + [0, 3, 40, 900][(i / 2 % 4) as usize];
            Buffer::new(def, last, 4096 * (1 + u64::from(i % 3)))
        })
        .collect();
    let mut top = 0u64;
    for b in bufs.iter_mut().step_by(2) {
        *b = Buffer::pinned(b.def, b.last_use, b.bytes, top);
        top += b.bytes;
    }
    let run = |bufs: &[Buffer]| {
        let mut st: Box<StaticWorkspace<6000, 6000, 0>> = Box::new(StaticWorkspace::new());
        let mut ws = st.workspace();
        plan_buffers(bufs, 4096, &cfg(1 << 40, 0, Strategy::Sweep), &mut ws).map(|p| p.metrics.pinned)
    };
    assert_eq!(run(&bufs), Ok(3000));
    let together = |x: usize, y: usize| bufs[x].def <= bufs[y].last_use && bufs[y].def <= bufs[x].last_use;
    let (x, y) = (1000..6000)
        .step_by(2)
        .flat_map(|x| (x + 2..6000).step_by(2).map(move |y| (x, y)))
        .find(|&(x, y)| together(x, y) && bufs[y].def < bufs[x].def)
        .unwrap();
    let mut clash = bufs.clone();
    clash[x].address = bufs[y].address;
    assert_eq!(run(&clash), Err(PlanError::PinnedOverlap { a: x as u32, b: y as u32 }));
    // lifetimes meeting at one instruction: [5, 9] and [9, 12] at the same offset
    let meet = [Buffer::pinned(5, 9, 4096, 0), Buffer::pinned(9, 12, 4096, 0), Buffer::new(0, 20, 4096)];
    let mut st: Box<Ws> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let err = plan_buffers(&meet, 4096, &cfg(1 << 30, 0, Strategy::Sweep), &mut ws).map(|_| ());
    assert_eq!(err, Err(PlanError::PinnedOverlap { a: 0, b: 1 }));
}

/// An alignment of 0 bytes is refused with a typed error naming it, as the CLI's `--align 0`
/// is ("an alignment is at least 1 byte"), not reported as a size overflow; through every
/// entry point that takes one, before any buffer is looked at (also with no buffers). 1 is
/// the "none" alignment and plans at byte granularity.
#[test]
fn an_alignment_of_zero_is_a_typed_error() {
    use dramalloc_core::liveness::buffers::build_from_buffers;
    use dramalloc_core::place::exact::Budget;
    use dramalloc_core::planner::{plan_buffer_iter, plan_buffers_with};
    let bufs = [Buffer::new(0, 3, 100), Buffer::new(1, 2, 100)];
    let c = cfg(1 << 20, 0, Strategy::Auto);
    let want = PlanError::BadAlignment { align: 0 };
    let mut st: Box<Ws> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let e = plan_buffers(&bufs, 0, &c, &mut ws).unwrap_err();
    assert_eq!(e, want);
    assert_eq!(e.to_string(), "alignment 0 bytes: an alignment is at least 1 byte (1 for none)");
    assert_eq!(plan_buffers(&[], 0, &c, &mut ws).unwrap_err(), want);
    // checked before the buffers: a zero-size buffer is not what is reported
    assert_eq!(plan_buffers(&[Buffer::new(0, 1, 0)], 0, &c, &mut ws).unwrap_err(), want);
    assert_eq!(plan_buffer_iter(bufs.iter().copied(), 0, &c, &mut ws).unwrap_err(), want);
    let mut go = || true;
    let mut budget = Budget::new(1000, 1_000_000, &mut go);
    assert_eq!(plan_buffers_with(&bufs, 0, &c, &mut ws, &mut budget).unwrap_err(), want);
    assert_eq!(build_from_buffers(&bufs, 0, &mut ws).unwrap_err(), want);
    // 1 plans the two at byte granularity, one above the other
    let plan = plan_buffers(&bufs, 1, &c, &mut ws).unwrap();
    assert_eq!(plan.metrics.hwm, 200);
}

/// The stored adjacency is built only for a strategy that asks for neighbours: the sweep
/// leaves the lent entries untouched (it cost 0.3 s and 100 MB on 5,000 nested buffers), the
/// seed and `auto` fill them (`n + 1` offsets first, so the first is `n + 1`), and every
/// plan is the same with or without them.
#[test]
fn the_sweep_leaves_the_lent_adjacency_unbuilt() {
    // five nested buffers: every pair interferes, 5 + 1 + 2 · 10 = 26 entries
    let bufs: Vec<Buffer> = (0..5u32).map(|i| Buffer::new(i, 9 - i, 4096 * (1 + u64::from(i)))).collect();
    for strategy in [Strategy::Sweep, Strategy::Seed, Strategy::Auto] {
        let mut st: Box<Ws> = Box::new(StaticWorkspace::new());
        let mut ws = st.workspace();
        let mut adj = vec![u32::MAX; 26];
        ws.adjacency = &mut adj;
        let p = plan_buffers(&bufs, 4096, &cfg(1 << 30, 0, strategy), &mut ws).unwrap();
        let lent: Vec<u64> = ws.infos[..5].iter().map(|i| i.address).collect();
        let built = if strategy == Strategy::Sweep { u32::MAX } else { 6 };
        assert_eq!((strategy, adj[0], adj[5]), (strategy, built, if built == 6 { 26 } else { u32::MAX }));
        let (q, tree) = plan(&bufs, cfg(1 << 30, 0, strategy), 0).unwrap();
        assert_eq!((p.metrics.hwm, lent), (q.metrics.hwm, tree));
        assert_eq!(p.metrics.hwm, 61_440);
    }
}

/// An iterator whose `len()` is not what it yields: `say` buffers said, the slice's yielded.
struct Lying<'a> {
    inner: core::slice::Iter<'a, Buffer>,
    say: usize,
}

impl Iterator for Lying<'_> {
    type Item = Buffer;
    fn next(&mut self) -> Option<Buffer> {
        self.inner.next().copied()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.say, Some(self.say))
    }
}

impl ExactSizeIterator for Lying<'_> {}

/// `plan_buffer_iter` sizes the workspace by `len()` and checks the iterator kept its word:
/// a short `len()` planned only that many buffers and returned `Ok` (a fresh-user trial), a
/// long one left stale entries. Both are now `IteratorLength`, naming the counts; a true
/// `len()` plans all three.
#[test]
fn an_iterator_that_lies_about_its_length_plans_nothing() {
    use dramalloc_core::planner::plan_buffer_iter;
    let bufs = [Buffer::new(0, 3, 100), Buffer::new(1, 2, 100), Buffer::new(2, 5, 50)];
    let c = cfg(1 << 20, 0, Strategy::Auto);
    let mut st: Box<Ws> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let mut run =
        |say| plan_buffer_iter(Lying { inner: bufs.iter(), say }, 1, &c, &mut ws).map(|p| p.metrics.hwm);
    let e = run(2).unwrap_err();
    assert_eq!(e, PlanError::IteratorLength { reported: 2, yielded: 3 });
    assert_eq!(
        e.to_string(),
        "the buffer iterator's len() said 2 buffers but it yielded more; nothing was planned"
    );
    let e = run(5).unwrap_err();
    assert_eq!(e, PlanError::IteratorLength { reported: 5, yielded: 3 });
    assert_eq!(
        e.to_string(),
        "the buffer iterator's len() said 5 buffers but it yielded 3; nothing was planned"
    );
    assert_eq!(run(0), Err(PlanError::IteratorLength { reported: 0, yielded: 1 }));
    assert_eq!(run(3), Ok(250));
}
