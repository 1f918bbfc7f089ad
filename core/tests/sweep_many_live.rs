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
/// entry short (placed, occupied, heap, order, each in turn), a pinned buffer, a buffer with
/// two intervals; with full storage it places the three buffers by first fit in def order.
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
        sweep(
            &graph,
            infos,
            &mut order[..len(3)],
            &mut heap[..len(2)],
            &mut placed[..len(0)],
            &mut occupied[..len(1)],
            &mut sections,
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
    v[1].pinned = 1;
    assert!(!run(&mut v, 9));
    let mut v = infos;
    v[2].interval_count = 2;
    assert!(!run(&mut v, 9));
    let mut v = infos;
    assert!(run(&mut v, 9));
    // def order, larger first at one instruction: B at 0, A above it, C at 0 after B ends
    assert_eq!([v[0].address, v[1].address, v[2].address], [16, 0, 0]);
}

/// Past the live list, with buffers expiring all along: 2,000 page-multiple buffers, four
/// defined per instruction (distinct sizes), each live for 100–299 instructions (about 300
/// live at once, more than `LIST_MAX_LIVE`). The treap's plan is the first-fit time sweep
/// written plainly: in (def, size descending) order, each buffer at the lowest address where
/// it overlaps no buffer still live.
#[test]
fn the_treap_sweep_with_expiries_is_the_plain_first_fit_sweep() {
    let bufs: Vec<Buffer> = (0..2000u32)
        .map(|i| {
            let def = i / 4;
            let pages = 1 + u64::from(i % 4) + 4 * u64::from((i * 37) % 5);
            Buffer::new(def, def + 100 + (i * 13) % 200, 4096 * pages)
        })
        .collect();
    // the plain sweep
    let mut order: Vec<usize> = (0..bufs.len()).collect();
    order.sort_by_key(|&i| (bufs[i].def, std::cmp::Reverse(bufs[i].bytes), i));
    let mut at = vec![0u64; bufs.len()];
    let mut live: Vec<usize> = Vec::new();
    let mut most = 0usize;
    for &i in &order {
        live.retain(|&j| bufs[j].last_use >= bufs[i].def);
        let mut spans: Vec<(u64, u64)> = live.iter().map(|&j| (at[j], at[j] + bufs[j].bytes)).collect();
        spans.sort();
        let mut a = 0u64;
        for (lo, hi) in spans {
            if lo >= a + bufs[i].bytes {
                break;
            }
            a = a.max(hi);
        }
        at[i] = a;
        live.push(i);
        most = most.max(live.len());
    }
    assert!(most > LIST_MAX_LIVE, "{most} live at most");
    let mut st: Box<StaticWorkspace<2000, 2000, 0>> = Box::new(StaticWorkspace::new());
    let mut ws = st.workspace();
    let cfg = PlanConfig { window: 1 << 40, cc: CcSize::Mib(0), strategy: Strategy::Sweep };
    let plan = plan_buffers(&bufs, 4096, &cfg, &mut ws).unwrap();
    let got: Vec<u64> = ws.infos[..bufs.len()].iter().map(|i| i.address).collect();
    assert_eq!(got, at);
    let hwm = bufs.iter().zip(&at).map(|(b, a)| a + b.bytes).max().unwrap();
    assert_eq!(plan.metrics.hwm, hwm);
}
