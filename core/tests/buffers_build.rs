//! The buffer-list builder (`liveness::buffers::build_from_buffers`) and the per-buffer
//! alignment padding, with exact records and errors (issue 18, liveness builders).

use dramalloc_core::liveness::buffers::build_from_buffers;
use dramalloc_core::liveness::interval_tree::Node;
use dramalloc_core::{plan_buffers, Buffer, CcSize, PlanConfig, PlanError, StaticWorkspace, Store, Strategy};

#[test]
fn records_and_intervals_per_buffer() {
    let bufs = [Buffer::new(0, 3, 100), Buffer::pinned(2, 2, 10, 4096), Buffer::new(1, 5, 5000)];
    let mut st: StaticWorkspace<4, 4, 0> = StaticWorkspace::new();
    let mut ws = st.workspace();
    let b = build_from_buffers(&bufs, 4096, &mut ws).unwrap();
    assert_eq!((b.infos, b.intervals, b.spill_bytes, b.aligned_spill_bytes), (3, 3, 5100, 4096 + 8192));
    assert_eq!(&ws.nodes[..3], &[Node::new(0, 3, 0), Node::new(2, 2, 1), Node::new(1, 5, 2)]);
    let i = &ws.infos[..3];
    assert_eq!(
        i.iter().map(|x| (x.location, x.aligned, x.bytes)).collect::<Vec<_>>(),
        [(0, 4096, 100), (1, 4096, 10), (2, 8192, 5000)]
    );
    assert_eq!(
        i.iter().map(|x| (x.pinned, x.address, x.interval_count)).collect::<Vec<_>>(),
        [(0, 0, 1), (1, 4096, 1), (0, 0, 1)]
    );
}

#[test]
fn errors_name_the_buffer() {
    let mut st: StaticWorkspace<4, 4, 0> = StaticWorkspace::new();
    let mut b = |bufs: &[Buffer], align| build_from_buffers(bufs, align, &mut st.workspace());
    assert_eq!(b(&[Buffer::new(0, 1, 1), Buffer::new(0, 1, 0)], 1), Err(PlanError::ZeroSize { location: 1 }));
    assert_eq!(
        b(&[Buffer::new(5, 4, 1)], 1),
        Err(PlanError::BadInterval { location: 0, def: 5, last_use: 4 })
    );
    assert_eq!(b(&[Buffer::new(5, 5, 1)], 1).map(|x| x.intervals), Ok(1), "def == last_use is fine");
    assert_eq!(
        b(&[Buffer::new(0, 0, u64::MAX)], 4096),
        Err(PlanError::SizeOverflow { location: 0, bytes: u64::MAX })
    );
    assert_eq!(
        b(&[Buffer::new(0, 0, 8).aligned_to(3)], 1 << 63),
        Err(PlanError::SizeOverflow { location: 0, bytes: 8 })
    );
    // Padded footprint overflow: u64::MAX - 2 rounds to u64::MAX - 1; the padding of an
    // alignment of 2^62 (2^62 - 2 bytes) does not fit on top.
    assert_eq!(
        b(&[Buffer::new(0, 0, u64::MAX - 2).aligned_to(1 << 62)], 2),
        Err(PlanError::SizeOverflow { location: 0, bytes: u64::MAX - 2 })
    );
    assert_eq!(
        b(&[Buffer::pinned(0, 0, 8, 96).aligned_to(64)], 1),
        Err(PlanError::MisalignedFixed { location: 0, address: 96, align: 64 })
    );
    assert_eq!(
        b(&[Buffer::pinned(0, 0, 8, 96).aligned_to(6)], 16),
        Ok(dramalloc_core::liveness::intervals::Built { infos: 1, intervals: 1, ..Default::default() }),
        "96 is a multiple of lcm(16, 6) = 48"
    );
    let mut small: StaticWorkspace<1, 1, 0> = StaticWorkspace::new();
    assert!(matches!(
        build_from_buffers(&[Buffer::new(0, 0, 1), Buffer::new(0, 0, 1)], 1, &mut small.workspace()),
        Err(PlanError::Capacity { store: Store::Infos | Store::Nodes, needed: 2, capacity: 1 })
    ));
}

#[test]
fn own_alignment_pads_free_buffers_only() {
    let bufs = [Buffer::new(0, 1, 100).aligned_to(64), Buffer::pinned(0, 1, 100, 128).aligned_to(64)];
    let mut st: StaticWorkspace<2, 2, 0> = StaticWorkspace::new();
    let mut ws = st.workspace();
    build_from_buffers(&bufs, 8, &mut ws).unwrap();
    // Free: align_up(100, 8) = 104 plus 64 - 8 of padding; pinned: no padding.
    assert_eq!((ws.infos[0].aligned, ws.infos[1].aligned), (104 + 56, 104));
    // An alignment not above the plan's is no padding.
    let bufs = [Buffer::new(0, 1, 100).aligned_to(8), Buffer::new(0, 1, 100).aligned_to(1)];
    build_from_buffers(&bufs, 8, &mut ws).unwrap();
    assert_eq!((ws.infos[0].aligned, ws.infos[1].aligned), (104, 104));
}

#[test]
fn planned_padded_buffers_land_on_their_alignment_with_their_real_size() {
    // Three live together at plan alignment 8; the middle one wants 64.
    let bufs = [Buffer::new(0, 2, 40), Buffer::new(0, 2, 8).aligned_to(64), Buffer::new(0, 2, 16)];
    let mut st: StaticWorkspace<3, 3, 0> = StaticWorkspace::new();
    // Seed places in order: [0,40), the padded footprint [40,104) moved to 64, then 104.
    // Size order puts the padded one (64 bytes) first at 0, then 40 bytes at 64, 16 at 104.
    for (s, want) in
        [(Strategy::Seed, [0, 64, 104]), (Strategy::GreedySize, [64, 0, 104]), (Strategy::Auto, [64, 0, 104])]
    {
        let mut ws = st.workspace();
        let cfg = PlanConfig { window: 1 << 20, cc: CcSize::Mib(0), strategy: s };
        let plan = plan_buffers(&bufs, 8, &cfg, &mut ws).unwrap();
        let i = ws.infos[..3].iter().find(|i| i.location == 1).unwrap();
        assert_eq!((i.address % 64, i.aligned), (0, 8), "{s:?}");
        assert_eq!(plan.metrics.lower_bound, 64, "{s:?}");
        let mut at = [0; 3];
        ws.infos[..3].iter().for_each(|i| at[i.location as usize] = i.address);
        assert_eq!((plan.metrics.hwm, at), (120, want), "{s:?}");
    }
}
