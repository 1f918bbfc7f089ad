//! The happens-before check run before every execution: the plan's edges must be runnable.
//! Uses: model, dramalloc-core (multicore); used by: executor, campaign.
//!
//! The executor runs each core's ops in program order and makes op `(to_core, to_instruction)`
//! wait until `(from_core, from_instruction)` has completed, for every cross-core [`Edge`].
//! Program order and the edges together form the happens-before graph over `(core,
//! instruction)` nodes. A cycle in it means a real runtime deadlocks (every op of the cycle
//! waits for the next), and so would the executor's threads; an edge naming a core or an
//! instruction the model does not have cannot be waited on at all. [`check_edge_order`] finds
//! both before anything runs, in O(V + E) (Kahn's algorithm), and names the culprit: for a
//! cycle, the one edge of it that runs against the flat order `(instruction, core)` (the
//! planner's edges all run with it, and so does program order, so every cycle has one).

use std::fmt;

use dramalloc_core::multicore::Edge;

use crate::model::SimModel;

/// Why a plan's edges cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EdgeOrderError {
    /// An edge names a core or an instruction the model does not have.
    #[error(
        "edge core {} op {} -> core {} op {} names an op the model does not have",
        .edge.from_core,
        .edge.from_instruction,
        .edge.to_core,
        .edge.to_instruction
    )]
    OutOfRange {
        /// The edge.
        edge: Edge,
    },
    /// Program order and the edges form a cycle: a runtime would deadlock.
    #[error("{0}")]
    Cycle(EdgeCycle),
}

/// A cycle of the happens-before graph, named by one of its edges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeCycle {
    /// The edge of the cycle that runs against the flat order `(instruction, core)`: its
    /// `to` op waits for its `from` op, which waits (through [`EdgeCycle::through`]) for `to`.
    pub edge: Edge,
    /// The cycle's other edges, in order from `edge`'s `to` op back to its `from` op (the
    /// program-order steps between them are not listed).
    pub through: Vec<Edge>,
}

impl fmt::Display for EdgeCycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.edge;
        write!(
            f,
            "the edges form a cycle (a runtime would deadlock): core {} op {} waits for core {} op {}, which waits (through ",
            e.to_core, e.to_instruction, e.from_core, e.from_instruction
        )?;
        const SHOWN: usize = 3;
        if self.through.is_empty() {
            write!(f, "program order")?;
        } else {
            for (i, t) in self.through.iter().take(SHOWN).enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                write!(
                    f,
                    "{sep}core {} op {} -> core {} op {}",
                    t.from_core, t.from_instruction, t.to_core, t.to_instruction
                )?;
            }
            if self.through.len() > SHOWN {
                write!(f, " and {} more edge(s)", self.through.len() - SHOWN)?;
            }
        }
        write!(f, ") for core {} op {}", e.to_core, e.to_instruction)
    }
}

/// How a node was reached in the backward walk: by program order or by edge `i`.
#[derive(Clone, Copy)]
enum Step {
    Program,
    Edge(usize),
}

/// Checks that every edge names ops of `model` and that program order and `edges` together
/// form no cycle. O(V + E) for V instructions over all cores and E edges.
///
/// # Errors
/// [`EdgeOrderError::OutOfRange`] for the first edge naming an op the model does not have;
/// else [`EdgeOrderError::Cycle`] naming one cycle.
pub fn check_edge_order(model: &SimModel, edges: &[Edge]) -> Result<(), EdgeOrderError> {
    let lens: Vec<usize> = model.cores.iter().map(|c| c.instructions.len()).collect();
    let mut base = Vec::with_capacity(lens.len() + 1);
    base.push(0usize);
    for &l in &lens {
        base.push(base[base.len() - 1] + l);
    }
    let v = base[lens.len()];
    let node = |core: u32, i: u32| -> Option<usize> {
        let k = core as usize;
        (k < lens.len() && (i as usize) < lens[k]).then(|| base[k] + i as usize)
    };
    let mut ends = Vec::with_capacity(edges.len());
    for e in edges {
        match (node(e.from_core, e.from_instruction), node(e.to_core, e.to_instruction)) {
            (Some(a), Some(b)) => ends.push((a, b)),
            _ => return Err(EdgeOrderError::OutOfRange { edge: *e }),
        }
    }
    // is `x` the last instruction of its core (no program-order successor)?
    let last = {
        let mut is_last = vec![false; v];
        for k in 0..lens.len() {
            if lens[k] > 0 {
                is_last[base[k + 1] - 1] = true;
            }
        }
        is_last
    };
    let first = {
        let mut is_first = vec![false; v];
        for k in 0..lens.len() {
            if lens[k] > 0 {
                is_first[base[k]] = true;
            }
        }
        is_first
    };
    // out-edges and in-edges by node (CSR)
    let csr = |key: fn(&(usize, usize)) -> usize| {
        let mut start = vec![0usize; v + 1];
        for x in &ends {
            start[key(x) + 1] += 1;
        }
        for i in 0..v {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![0usize; ends.len()];
        for (j, x) in ends.iter().enumerate() {
            list[fill[key(x)]] = j;
            fill[key(x)] += 1;
        }
        (start, list)
    };
    let (out_start, out_list) = csr(|x| x.0);
    let (in_start, in_list) = csr(|x| x.1);
    let mut indeg: Vec<u32> =
        (0..v).map(|x| u32::from(!first[x]) + (in_start[x + 1] - in_start[x]) as u32).collect();
    let mut ready: Vec<usize> = (0..v).filter(|&x| indeg[x] == 0).collect();
    let mut done = 0usize;
    while let Some(x) = ready.pop() {
        done += 1;
        let program_next = (!last[x]).then_some(x + 1);
        let succ = out_list[out_start[x]..out_start[x + 1]].iter().map(|&j| ends[j].1);
        for y in program_next.into_iter().chain(succ) {
            indeg[y] -= 1;
            if indeg[y] == 0 {
                ready.push(y);
            }
        }
    }
    if done == v {
        return Ok(());
    }
    // every node left has a predecessor left: walk backwards until a node repeats
    let left = |x: usize| indeg[x] > 0;
    let mut seen = vec![usize::MAX; v];
    let mut walk: Vec<Step> = Vec::new();
    let Some(mut x) = (0..v).find(|&x| left(x)) else { return Ok(()) };
    while seen[x] == usize::MAX {
        seen[x] = walk.len();
        let step = if !first[x] && left(x - 1) {
            (x - 1, Step::Program)
        } else {
            let j = in_list[in_start[x]..in_start[x + 1]]
                .iter()
                .copied()
                .find(|&j| left(ends[j].0))
                .expect("a node left by Kahn's algorithm has a predecessor left");
            (ends[j].0, Step::Edge(j))
        };
        walk.push(step.1);
        x = step.0;
    }
    // the cycle's edges, walked backwards from `x`; forwards:
    let mut cycle: Vec<usize> = walk[seen[x]..]
        .iter()
        .rev()
        .filter_map(|s| match s {
            Step::Edge(j) => Some(*j),
            Step::Program => None,
        })
        .collect();
    let key = |core: u32, i: u32| (i, core);
    let against = cycle
        .iter()
        .position(|&j| {
            let e = &edges[j];
            key(e.to_core, e.to_instruction) <= key(e.from_core, e.from_instruction)
        })
        .expect("program order and forward edges cannot close a cycle");
    cycle.rotate_left(against);
    Err(EdgeOrderError::Cycle(EdgeCycle {
        edge: edges[cycle[0]],
        through: cycle[1..].iter().map(|&j| edges[j]).collect(),
    }))
}
