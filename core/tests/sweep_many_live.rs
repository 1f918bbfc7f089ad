//! The time sweep with more buffers live at once than its live list takes
//! (`place::sweep::LIST_MAX_LIVE`): the live set is the treap of `place::live_set`. Every
//! buffer is placed, no two buffers live together share a byte, and the peak is pinned.

use dramalloc_core::place::sweep::LIST_MAX_LIVE;
use dramalloc_core::{plan_buffers, Buffer, CcSize, PlanConfig, StaticWorkspace, Strategy};

#[test]
fn a_sweep_past_the_live_list_places_every_buffer_apart() {
    // 400 buffers defined over instructions 0–4, each live to 10–16: all live at 4–10
    let bufs: Vec<Buffer> =
        (0..400u32).map(|i| Buffer::new(i % 5, 10 + i % 7, 256 * (1 + u64::from(i % 9)))).collect();
    assert!(bufs.len() > LIST_MAX_LIVE);
    let mut st: Box<StaticWorkspace<400, 400, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let cfg = PlanConfig { window: 1 << 30, cc: CcSize::Mib(0), strategy: Strategy::Sweep };
    let plan = plan_buffers(&bufs, 256, &cfg, &mut ws).unwrap();
    let infos = &ws.infos[..bufs.len()];
    assert!(infos.iter().all(|i| i.is_allocated()));
    for (a, (ia, ba)) in infos.iter().zip(&bufs).enumerate() {
        for (ib, bb) in infos.iter().zip(&bufs).skip(a + 1) {
            let live_together = ba.def <= bb.last_use && bb.def <= ba.last_use;
            assert!(!live_together || ia.end() <= ib.address || ib.end() <= ia.address, "{a} overlaps");
        }
    }
    // every buffer is live at instruction 10, so the peak is at least the sum of all sizes
    let total: u64 = bufs.iter().map(|b| b.bytes).sum();
    assert_eq!((plan.metrics.hwm, plan.metrics.lower_bound), (total, total));
    // the sweep's own addresses (def order, larger first within an instruction), not the
    // size order's of greedy-size (the sweep's fallback where it does not apply)
    let first: Vec<u64> = infos[..6].iter().map(|i| i.address).collect();
    assert_eq!(first, [100_096, 198_144, 294_144, 388_096, 481_280, 64_512]);
}

/// The sweep declines (`Ok(false)`, nothing placed) where it does not apply: a slice one
/// entry short (placed, occupied, heap, order, each in turn; `pinned` with a pinned buffer),
/// a buffer with two intervals; with full storage it places the three buffers by first fit
/// in def order, and around a pinned one.
#[test]
fn the_sweep_declines_short_storage_and_pinned_or_split_buffers() {
    use dramalloc_core::liveness::info::Info;
    use dramalloc_core::liveness::interference::Graph;
    use dramalloc_core::liveness::interval_tree::Node;
    use dramalloc_core::place::clock::Clock;
    use dramalloc_core::place::seed::search::{Fit, Span};
    use dramalloc_core::place::seed::select::Regions;
    use dramalloc_core::place::sweep::sweep;
    use dramalloc_core::workspace::{Placed, Section};
    // A [0, 9] 8 bytes, B [0, 4] 16, C [5, 9] 16
    let iv = [(0u32, 9u32, 8u64), (0, 4, 16), (5, 9, 16)];
    let mut nodes: [Node; 3] = core::array::from_fn(|k| Node::new(iv[k].0, iv[k].1, k as u32));
    let mut infos: [Info; 3] = core::array::from_fn(|k| Info {
        aligned: iv[k].2,
        interval_count: 1,
        location: k as u32,
        ..Info::default()
    });
    let mut ids = [0u32; 3];
    let graph = Graph::build(&mut nodes, &mut ids, &mut infos);
    let regions = Regions { start: 0, general_ceiling: 1 << 20, window: 1 << 20, align: 1 };
    let run = |infos: &mut [Info], short: usize| {
        let len = |k: usize| if k == short { 2 } else { 3 };
        let (mut order, mut heap) = ([0u32; 3], [0u32; 3]);
        let (mut placed, mut occupied, mut sections) =
            ([Placed::default(); 3], [Span::default(); 3], [Section::default(); 3]);
        let mut pinned = [0u32; 1];
        sweep(
            &graph,
            infos,
            &mut order[..len(3)],
            &mut heap[..len(2)],
            &mut placed[..len(0)],
            &mut occupied[..len(1)],
            &mut sections,
            &mut pinned[..len(4) - 2],
            &mut [],
            regions,
            Fit::First,
            &mut Clock::none(),
        )
        .unwrap()
    };
    for short in 0..4 {
        let mut v = infos;
        assert!(!run(&mut v, short), "slice {short} short");
        assert!(v.iter().all(|i| i.allocated == 0 && i.address == 0));
    }
    let mut v = infos;
    v[1] = Info { pinned: 1, allocated: 1, address: 4, ..v[1] };
    assert!(!run(&mut v, 4));
    assert!(v[0].allocated == 0 && v[2].allocated == 0);
    // B pinned at [4, 20): A (defined with it) goes above it, C (after B ends) at 0
    assert!(run(&mut v, 9));
    assert_eq!([v[0].address, v[1].address, v[2].address], [20, 4, 0]);
    let mut v = infos;
    v[2].interval_count = 2;
    assert!(!run(&mut v, 9));
    let mut v = infos;
    assert!(run(&mut v, 9));
    // def order, larger first at one instruction: B at 0, A above it, C at 0 after B ends
    assert_eq!([v[0].address, v[1].address, v[2].address], [16, 0, 0]);
}

/// The first-fit time sweep written plainly: in (def, size descending) order, each unpinned
/// buffer at the lowest address where it overlaps no buffer placed before it, nor any pinned
/// buffer, live together with it. Returns every address and the most buffers live at once.
fn plain_sweep(bufs: &[Buffer]) -> (Vec<u64>, usize) {
    let mut order: Vec<usize> = (0..bufs.len()).collect();
    order.sort_by_key(|&i| (bufs[i].def, std::cmp::Reverse(bufs[i].bytes), i));
    let mut at: Vec<Option<u64>> = bufs.iter().map(|b| b.address).collect();
    let together = |i: usize, j: usize| bufs[i].def <= bufs[j].last_use && bufs[j].def <= bufs[i].last_use;
    let mut most = 0usize;
    for (k, &i) in order.iter().enumerate() {
        most =
            most.max(order[..=k].iter().filter(|&&j| together(i, j) && bufs[j].def <= bufs[i].def).count());
        if at[i].is_some() {
            continue;
        }
        let mut spans: Vec<(u64, u64)> = (0..bufs.len())
            .filter(|&j| j != i && together(i, j))
            .filter_map(|j| at[j].map(|a| (a, a + bufs[j].bytes)))
            .collect();
        spans.sort();
        let mut a = 0u64;
        for (lo, hi) in spans {
            if lo >= a + bufs[i].bytes {
                break;
            }
            a = a.max(hi);
        }
        at[i] = Some(a);
    }
    (at.into_iter().map(Option::unwrap).collect(), most)
}

/// `n` page-multiple buffers, four defined per instruction (distinct sizes), each live for
/// `life`–`life + spread - 1` instructions; with `pinned`, every 50th is fixed at one of 40
/// slots 256 KiB apart from address 0 up (two fixed buffers live together never share a slot:
/// the same slot comes back 2,000 buffers, 500 instructions, later).
fn staggered(n: u32, life: u32, spread: u32, pinned: bool) -> Vec<Buffer> {
    (0..n)
        .map(|i| {
            let def = i / 4;
            let pages = 1 + u64::from(i % 4) + 4 * u64::from((i * 37) % 5);
            let last = def + life + (i * 13) % spread;
            match i % 50 {
                0 if pinned => Buffer::pinned(def, last, 4096 * pages, (1 << 18) * u64::from(i / 50 % 40)),
                _ => Buffer::new(def, last, 4096 * pages),
            }
        })
        .collect()
}

/// Plans `bufs` by the sweep with 4 KiB pages; returns every address and the HWM.
fn by_the_sweep<const N: usize>(bufs: &[Buffer]) -> (Vec<u64>, u64) {
    let mut st: Box<StaticWorkspace<N, N, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let cfg = PlanConfig { window: 1 << 40, cc: CcSize::Mib(0), strategy: Strategy::Sweep };
    let plan = plan_buffers(bufs, 4096, &cfg, &mut ws).unwrap();
    (ws.infos[..bufs.len()].iter().map(|i| i.address).collect(), plan.metrics.hwm)
}

/// Past the live list, with buffers expiring all along: 2,000 buffers of [`staggered`]
/// live for 100–299 instructions (about 300 live at once, more than `LIST_MAX_LIVE`). The
/// treap's plan is [`plain_sweep`]'s.
#[test]
fn the_treap_sweep_with_expiries_is_the_plain_first_fit_sweep() {
    let bufs = staggered(2000, 100, 200, false);
    let (at, most) = plain_sweep(&bufs);
    assert!(most > LIST_MAX_LIVE, "{most} live at most");
    let (got, hwm) = by_the_sweep::<2000>(&bufs);
    assert_eq!(got, at);
    assert_eq!(hwm, bufs.iter().zip(&at).map(|(b, a)| a + b.bytes).max().unwrap());
}

/// Fixed buffers are obstacles to the sweep on both of its paths, including the ones defined
/// after a buffer but while it is still live: with every 50th of [`staggered`] fixed, the
/// sweep's plan is [`plain_sweep`]'s, past the live list (2,000 buffers, about 300 live) and
/// within it (600 buffers live for 10–29 instructions, at most 120 live), and the fixed
/// buffers stay where they are. Before, the sweep declined any input with a fixed buffer and
/// `greedy-size` placed it (other addresses).
#[test]
fn the_sweep_places_around_fixed_buffers_on_both_paths() {
    let wide = staggered(2000, 100, 200, true);
    let (at, most) = plain_sweep(&wide);
    assert!(most > LIST_MAX_LIVE, "{most} live at most");
    let (got, hwm) = by_the_sweep::<2000>(&wide);
    assert_eq!(got, at);
    assert_eq!(hwm, wide.iter().zip(&at).map(|(b, a)| a + b.bytes).max().unwrap());
    assert_eq!(got[1950], (1 << 18) * 39);
    let narrow = staggered(600, 10, 20, true);
    let (at, most) = plain_sweep(&narrow);
    assert!(most <= LIST_MAX_LIVE, "{most} live at most");
    let (got, _) = by_the_sweep::<600>(&narrow);
    assert_eq!(got, at);
    // without the fixed buffers the plans differ: they are obstacles, not ignored
    let (free, _) = plain_sweep(&staggered(600, 10, 20, false));
    assert_ne!(got, free);
}

/// Random problems with some buffers pinned at the addresses the plain sweep gave them (so
/// no two pinned ones collide), long-lived enough that up to hundreds of pinned ones are
/// defined during a free one's life, past `sweep::LOOKAHEAD_PER_BUFFER`: the sweep's plan is
/// [`plain_sweep`]'s on the list path (600 buffers, at most about 200 live, 40 % pinned) and
/// on the treap path (2,000 buffers, over a thousand live, 10 % pinned). Before the index of
/// the pinned buffers, a free buffer with more than the bound ahead went above them all.
#[test]
fn any_number_of_pinned_ones_ahead_gives_the_plain_sweeps_plan() {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    for round in 0..6 {
        let (n, per_step, life, share) =
            if round % 2 == 0 { (600u32, 1, 200, 40) } else { (2000, 4, 600, 10) };
        // sizes differ within an instruction (the sweep breaks ties of def and size by its
        // own node order, the plain sweep by buffer index)
        let free: Vec<Buffer> = (0..n)
            .map(|i| {
                let def = i / per_step;
                let pages = 1 + u64::from(i % per_step) + u64::from(per_step) * next(8);
                Buffer::new(def, def + next(life) as u32, 4096 * pages)
            })
            .collect();
        let (at, _) = plain_sweep(&free);
        let bufs: Vec<Buffer> = free
            .iter()
            .zip(&at)
            .map(|(b, &a)| if next(100) < share { Buffer::pinned(b.def, b.last_use, b.bytes, a) } else { *b })
            .collect();
        let (want, most) = plain_sweep(&bufs);
        assert_eq!(most > LIST_MAX_LIVE, round % 2 == 1, "{most} live at most");
        let got = if round % 2 == 0 { by_the_sweep::<600>(&bufs).0 } else { by_the_sweep::<2000>(&bufs).0 };
        assert_eq!(got, want, "round {round}");
    }
}

/// A free buffer avoids every pinned buffer defined during its life. Free buffers live over
/// [0, 3000]; pinned 4 KiB ones, one a step over [k, k] in the 4 KiB slots 0–7 but slot 3 (so
/// the pinned top is 32 KiB and slot 3 is free throughout). The look-ahead goes through the
/// index of the pinned buffers (in the sections on the list path, in `placed` past the pinned
/// ones on the treap path) wherever the index answers in `sweep::LOOKAHEAD_PER_BUFFER` runs:
/// with 65 or 1,000 pinned ones the first free one takes slot 3 (12 KiB) and the rest stack
/// from 32 KiB, the plain sweep's plan. Where the index has too few levels for that (3,000
/// pinned in a workspace of 3,200: two levels, runs of at most 2), a free buffer with more
/// than the bound ahead of it goes above every pinned one, where it fits there: 200 free ones
/// stack from 32 KiB; with 64 (exactly the bound) it looks ahead by sorting them. A window too
/// small for the 200th above the pinned sends it to slot 3 after all; the same with 300 free
/// ones (the treap path); pinned buffers defined before a free one are not counted.
#[test]
fn with_too_much_to_look_ahead_a_free_buffer_goes_above_the_pinned() {
    use dramalloc_core::place::sweep::LOOKAHEAD_PER_BUFFER;
    const SLOTS: [u64; 7] = [0, 1, 2, 4, 5, 6, 7];
    let problem_of = |free: u32, pinned: u32| -> Vec<Buffer> {
        (0..free)
            .map(|_| Buffer::new(0, 3000, 4096))
            .chain((0..pinned).map(|k| Buffer::pinned(k + 1, k + 1, 4096, 4096 * SLOTS[k as usize % 7])))
            .collect()
    };
    let pinned_at = |count: usize| (0..count).map(|k| 4096 * SLOTS[k % 7]);
    const { assert!(LOOKAHEAD_PER_BUFFER == 64) };
    let heavy = problem_of(200, 3000);
    let (got, hwm) = by_the_sweep::<3200>(&heavy);
    let want: Vec<u64> = (0..200u64).map(|k| 32768 + 4096 * k).chain(pinned_at(3000)).collect();
    assert_eq!((got, hwm), (want, 32768 + 4096 * 200));
    for (pinned, room) in [(64u32, false), (65, true), (1000, true)] {
        let light = problem_of(50, pinned);
        let (got, hwm) = by_the_sweep::<3200>(&light);
        let want: Vec<u64> = [12288]
            .into_iter()
            .chain((0..49u64).map(|k| 32768 + 4096 * k))
            .chain(pinned_at(pinned as usize))
            .collect();
        assert_eq!((&got, hwm), (&want, 32768 + 4096 * 49), "{pinned} pinned (index: {room})");
        assert_eq!(got, plain_sweep(&light).0);
    }
    // the 200th free buffer does not fit above the pinned in this window: it looks ahead
    let window = 32768 + 4096 * 199;
    let mut st: Box<StaticWorkspace<3200, 3200, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let cfg = PlanConfig { window, cc: CcSize::Mib(0), strategy: Strategy::Sweep };
    let plan = plan_buffers(&heavy, 4096, &cfg, &mut ws).unwrap();
    assert_eq!((ws.infos[0].address, ws.infos[199].address, plan.metrics.hwm), (32768, 12288, window));
    // past the live list (300 free buffers live at once: the treap) the same: slot 3 with 65
    // and with 400 pinned where the index has room, above the pinned with 3,000 in a
    // workspace of 3,300 (room past the pinned for no level), the 300th to slot 3 in a window
    // one buffer short
    let (at65, _) = by_the_sweep::<3300>(&problem_of(300, 65));
    let (at400, _) = by_the_sweep::<3300>(&problem_of(300, 400));
    assert_eq!((&at65[..2], &at400[..2]), (&[12288, 32768][..], &[12288, 32768][..]));
    let wide = problem_of(300, 3000);
    let (got, _) = by_the_sweep::<3300>(&wide);
    assert_eq!(got[..300], (0..300u64).map(|k| 32768 + 4096 * k).collect::<Vec<u64>>()[..]);
    let window = 32768 + 4096 * 299;
    let mut st: Box<StaticWorkspace<3300, 3300, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let cfg = PlanConfig { window, cc: CcSize::Mib(0), strategy: Strategy::Sweep };
    let plan = plan_buffers(&wide, 4096, &cfg, &mut ws).unwrap();
    assert_eq!((ws.infos[0].address, ws.infos[299].address, plan.metrics.hwm), (32768, 12288, window));
    // pinned buffers defined before a free one are not looked ahead of: 3,000 pinned over
    // [1, 3000], then 200 free over [3001, 6000] start at 0
    let before: Vec<Buffer> = pinned_at(3000)
        .enumerate()
        .map(|(k, at)| Buffer::pinned(k as u32 + 1, k as u32 + 1, 4096, at))
        .chain((0..200).map(|_| Buffer::new(3001, 6000, 4096)))
        .collect();
    let (got, _) = by_the_sweep::<3200>(&before);
    assert_eq!(got[3000..3002], [0, 4096]);
}

/// Words lent for the index of the pinned buffers (`Workspace::lookahead`,
/// `place::sweep::pinned_index_words`) give it every level where the storage the sweep leaves
/// unused has room for none: 200 (the list) or 300 (the treap) free buffers with 3,000 pinned
/// ones ahead in workspaces of 3,200 and 3,300, which above sent every free buffer above the
/// pinned, now plan as [`plain_sweep`]: the first free buffer in slot 3 (12 KiB), the rest
/// above. Fewer words than all levels (the 6 of 13 that 36,000 words give: runs of 32 pinned,
/// 94 to cover 3,000) leave them above.
#[test]
fn words_lent_for_the_index_look_ahead_of_thousands_of_pinned() {
    use dramalloc_core::place::sweep::pinned_index_words;
    const SLOTS: [u64; 7] = [0, 1, 2, 4, 5, 6, 7];
    let problem_of = |free: u32| -> Vec<Buffer> {
        (0..free)
            .map(|_| Buffer::new(0, 3000, 4096))
            .chain((0..3000).map(|k| Buffer::pinned(k + 1, k + 1, 4096, 4096 * SLOTS[k as usize % 7])))
            .collect()
    };
    assert_eq!(pinned_index_words(3000), 2 * 3000 * 13);
    fn lent<const N: usize>(bufs: &[Buffer], words: usize) -> Vec<u64> {
        let mut lookahead = vec![0u64; words];
        let mut st: Box<StaticWorkspace<N, N, 0>> = Box::new(StaticWorkspace::new());
        let mut ws = st.workspace();
        ws.lookahead = &mut lookahead;
        let cfg = PlanConfig { window: 1 << 40, cc: CcSize::Mib(0), strategy: Strategy::Sweep };
        plan_buffers(bufs, 4096, &cfg, &mut ws).unwrap();
        ws.infos[..bufs.len()].iter().map(|i| i.address).collect()
    }
    for (free, list) in [(200u32, true), (300, false)] {
        let bufs = problem_of(free);
        assert_eq!(list, free as usize <= LIST_MAX_LIVE);
        let plain = plain_sweep(&bufs).0;
        let got =
            if list { lent::<3200>(&bufs, pinned_index_words(3000)) } else { lent::<3300>(&bufs, 78_000) };
        assert_eq!(got, plain, "{free} free");
        assert_eq!(got[..2], [12288, 32768]);
        let short = if list { lent::<3200>(&bufs, 36_000) } else { lent::<3300>(&bufs, 36_000) };
        assert_eq!(short[..2], [32768, 36864], "{free} free");
    }
}

/// `free` 8 KiB buffers live over `[0, 2 pairs]`, then pinned 4 KiB ones, one a step, at the
/// even 4 KiB slots below `2 pairs` but ten holes of 12 KiB just under the top (slots
/// `2 pairs - 43 + 4 j`, j < 10, free, with the odd slots around them).
fn comb(free: usize, pairs: u64) -> Vec<Buffer> {
    let holes: Vec<u64> = (0..10).map(|j| 2 * pairs - 42 + 4 * j).collect();
    (0..free)
        .map(|_| Buffer::new(0, 2 * pairs as u32, 8192))
        .chain(
            (0..pairs)
                .map(|k| 2 * k)
                .filter(|s| !holes.contains(s))
                .enumerate()
                .map(|(k, s)| Buffer::pinned(k as u32 + 1, k as u32 + 1, 4096, 4096 * s)),
        )
        .collect()
}

/// The free buffers' addresses of `got` (the first `free`), in 4 KiB slots, sorted.
fn slots_of(got: &[u64], free: usize) -> Vec<u64> {
    let mut slots: Vec<u64> = got[..free].iter().map(|a| a / 4096).collect();
    slots.sort_unstable();
    slots
}

/// The index's visits are a budget of the sweep (`sweep::LOOKAHEAD_BUDGET_PER_BUFFER`, 64,
/// a buffer, spent where needed): 20 free 8 KiB buffers live throughout, each with all of 990 pinned
/// 4 KiB ones ahead of it (one a step, at the even 4 KiB slots 0–1998 but ten holes of 12 KiB
/// near the top, at 1957, 1961, …, 1993), in a workspace whose index has six levels. A free
/// buffer walks about 980 pieces of 4 KiB, two probes each of about 39 runs, to reach the
/// lowest hole: about 76,000 visits, more than the whole budget (64 × 1,010). So the first
/// free buffer takes the lowest hole and the other 19 go above the pinned ones (slot 1999 on);
/// the plain sweep would fill all ten holes.
#[test]
fn the_index_is_asked_while_the_sweep_s_budget_of_visits_lasts() {
    use dramalloc_core::place::sweep::LOOKAHEAD_BUDGET_PER_BUFFER;
    const { assert!(LOOKAHEAD_BUDGET_PER_BUFFER == 64) };
    let bufs = comb(20, 1000);
    let (got, hwm) = by_the_sweep::<3000>(&bufs);
    let above: Vec<u64> = (0..19).map(|k| 1999 + 2 * k).collect();
    let free = slots_of(&got, 20);
    assert_eq!((free[0], &free[1..]), (1957, &above[..]));
    assert_eq!(hwm, 4096 * (1999 + 2 * 19));
    let plain = slots_of(&plain_sweep(&bufs).0, 20);
    assert_eq!(&plain[..10], &(0..10).map(|j| 1957 + 4 * j).collect::<Vec<u64>>()[..]);
    // the treap path (300 free buffers, 490 pinned over slots 0–998 but holes at 957, 961,
    // …, 993, eight levels in `placed` past the pinned ones, about 10,000 visits a buffer
    // against 64 × 790): the first eight fill holes, the rest go above (slot 999 on)
    let (got, _) = by_the_sweep::<3300>(&comb(300, 500));
    let want: Vec<u64> = (0..8).map(|j| 957 + 4 * j).chain((0..292).map(|k| 999 + 2 * k)).collect();
    assert_eq!(slots_of(&got, 300), want);
}
