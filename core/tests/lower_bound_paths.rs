//! The max-load lower bound (`place::lower_bound::max_load`) on both its paths, the sweep
//! over `lo`-sorted one-interval candidates and the point queries (several intervals, or a
//! key slice too short), at the core level (issue 18: mutation testing left both alive). Exact
//! values, and both paths against a brute force.

use dramalloc_core::liveness::info::Info;
use dramalloc_core::liveness::interference::Graph;
use dramalloc_core::liveness::interval_tree::Node;
use dramalloc_core::place::lower_bound::max_load;
use dramalloc_core::workspace::Scratch;

#[path = "support/xorshift.rs"]
mod xorshift;

/// A candidate: its closed intervals, its aligned size (bytes), whether it is pinned.
type Cand<'a> = (&'a [(u32, u32)], u64, bool);

/// The loads of `(intervals, aligned, pinned)` candidates with no keys (the point queries)
/// and with one key per interval (the sweep where every candidate has one interval; the
/// point queries again where one has several: the sweep would count it twice). A key slice
/// one short of one per interval takes the point queries too, with the same loads.
fn loads(cands: &[Cand<'_>]) -> ((u64, u64), (u64, u64)) {
    let mut nodes = Vec::new();
    let mut infos = Vec::new();
    for (k, &(ivs, aligned, pinned)) in cands.iter().enumerate() {
        for &(lo, hi) in ivs {
            nodes.push(Node::new(lo, hi, k as u32));
        }
        infos.push(Info {
            aligned,
            pinned: pinned as u8,
            interval_count: ivs.len() as u32,
            ..Info::default()
        });
    }
    let mut ids = vec![0u32; nodes.len()];
    let mut heap = vec![0u64; nodes.len()];
    let mut graph = Graph::build(&mut nodes, &mut ids, &mut infos);
    let mut scratch = vec![Scratch::default(); infos.len()];
    let points = max_load(&mut graph, &infos, &mut scratch, &mut []).unwrap();
    let swept = max_load(&mut graph, &infos, &mut scratch, &mut heap).unwrap();
    if !heap.is_empty() {
        let short = max_load(&mut graph, &infos, &mut scratch, &mut heap[1..]).unwrap();
        assert_eq!(short, points, "a key slice too short for the sweep");
    }
    (points, swept)
}

/// A [0, 4] 8, B [4, 6] 16 (closed intervals: A and B meet at 4), C [5, 9] 32 pinned,
/// D [7, 7] 4: all candidates peak at 48 (B + C at 5 and 6), the unpinned at 24 (A + B
/// at 4). Both paths agree, including where keys.len() < nodes makes it take the queries.
#[test]
fn both_paths_give_the_peak_of_all_and_of_the_unpinned() {
    let c: [Cand<'_>; 4] =
        [(&[(0, 4)], 8, false), (&[(4, 6)], 16, false), (&[(5, 9)], 32, true), (&[(7, 7)], 4, false)];
    assert_eq!(loads(&c), ((48, 24), (48, 24)));
    // a candidate with two intervals is counted once where both are live at one point
    // query's instruction, and the sweep is not used
    let c: [Cand<'_>; 3] = [(&[(0, 2), (2, 5)], 8, false), (&[(2, 3)], 16, false), (&[(6, 6)], 64, true)];
    assert_eq!(loads(&c), ((64, 24), (64, 24)));
    // every candidate with two intervals (so no sweep even with a long heap): X's two
    // intervals meet at 2, where X counts once: the peak is X + Y at 1 or 3
    let c: [Cand<'_>; 2] = [(&[(0, 2), (2, 5)], 32, false), (&[(1, 1), (3, 3)], 4, false)];
    assert_eq!(loads(&c), ((36, 36), (36, 36)));
    assert_eq!(loads(&[]), ((0, 0), (0, 0)));
}

/// Random one-interval sets: both paths equal the brute force over every instruction.
#[test]
fn both_paths_match_the_brute_force() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..200 {
        let n = 1 + (next() % 12) as usize;
        let ivs: Vec<[(u32, u32); 1]> = (0..n)
            .map(|_| {
                let lo = (next() % 16) as u32;
                [(lo, lo + (next() % 6) as u32)]
            })
            .collect();
        let cands: Vec<Cand<'_>> =
            ivs.iter().map(|iv| (&iv[..], 1 + next() % 100, next() % 3 == 0)).collect();
        let mut want = (0u64, 0u64);
        for t in 0..24 {
            let live = cands.iter().filter(|c| c.0[0].0 <= t && t <= c.0[0].1);
            let all: u64 = live.clone().map(|c| c.1).sum();
            let free: u64 = live.filter(|c| !c.2).map(|c| c.1).sum();
            want = (want.0.max(all), want.1.max(free));
        }
        assert_eq!(loads(&cands), (want, want), "{cands:?}");
    }
}

/// More buffers live at once than the heap sweep keeps (`min_heap::SORT_ABOVE`): the sweep
/// starts again over the sorted ends, with the same loads and the same interfering-pair count
/// as a brute force (difference arrays over every instruction; the pairs counted by binary
/// search over the sorted starts). 40,000 random candidates, about 25,000 live at the peak,
/// every third pinned.
#[test]
fn past_the_heap_the_sorted_ends_give_the_same_load_and_pairs() {
    use dramalloc_core::place::min_heap::SORT_ABOVE;
    let mut next = xorshift::xorshift(0x2545_F491_4F6C_DD1D);
    let n = 40_000usize;
    let cands: Vec<(u32, u32, u64, bool)> = (0..n)
        .map(|k| {
            let lo = next(1000) as u32;
            (lo, lo + next(2000) as u32, 1 + next(1000), k % 3 == 0)
        })
        .collect();
    let (mut all, mut free) = (vec![0i64; 3002], vec![0i64; 3002]);
    for &(lo, hi, size, pinned) in &cands {
        all[lo as usize] += size as i64;
        all[hi as usize + 1] -= size as i64;
        if !pinned {
            free[lo as usize] += size as i64;
            free[hi as usize + 1] -= size as i64;
        }
    }
    let peak = |d: &[i64]| {
        let mut load = 0i64;
        d.iter()
            .map(|v| {
                load += v;
                load
            })
            .max()
            .unwrap()
    };
    let want = (peak(&all) as u64, peak(&free) as u64);
    let mut starts: Vec<u32> = cands.iter().map(|c| c.0).collect();
    starts.sort_unstable();
    let mut pairs: u64 = cands
        .iter()
        .map(|c| (starts.partition_point(|&s| s <= c.1) - starts.partition_point(|&s| s < c.0) - 1) as u64)
        .sum();
    for g in starts.chunk_by(|a, b| a == b) {
        pairs -= (g.len() * (g.len() - 1) / 2) as u64;
    }
    let mut nodes: Vec<Node> = cands.iter().enumerate().map(|(k, c)| Node::new(c.0, c.1, k as u32)).collect();
    let mut infos: Vec<Info> = cands
        .iter()
        .map(|c| Info { aligned: c.2, pinned: c.3 as u8, interval_count: 1, ..Info::default() })
        .collect();
    let mut ids = vec![0u32; n];
    let mut keys = vec![0u64; n];
    let mut graph = Graph::build(&mut nodes, &mut ids, &mut infos);
    let mut scratch = vec![Scratch::default(); n];
    let got = max_load(&mut graph, &infos, &mut scratch, &mut keys).unwrap();
    assert_eq!((got, graph.swept_pairs()), (want, Some(pairs)));
    // more live at once than the heap keeps: the sorted path ran
    let most = (0..3000u32).map(|t| cands.iter().filter(|c| c.0 <= t && t <= c.1).count()).max().unwrap();
    assert!(most > SORT_ABOVE, "{most} live at most");
}
