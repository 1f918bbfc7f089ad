//! Executes a planned model on N simulated cores and proves it.
//! Uses: arena, edge_order, fingerprint, jitter, shared_ranges, model, planning, dramalloc-core (liveness); used by: faults, run.
//!
//! Every core is a thread with its own private arena; one shared arena backs the shared
//! region `[shared_base, shared_base + shared bytes)` and the CC region's collective buffers
//! ([`SharedRanges`]), mapped into every core's view at the same addresses (an address
//! decides the arena, not the tensor). Before anything runs, the plan's edges are checked
//! ([`check_edge_order`]): an edge naming an op the model does not have, or edges that close
//! a cycle with program order (a runtime would deadlock, and so would the cores' waits
//! below), fail the execution with [`Collision::EdgeOrder`]. The loader writes every input
//! and weight at its pre-placed address on every core. Each core then runs its ops in
//! order: before op `i` it waits for every cross-core edge into `(core, i)` (cores run in
//! parallel as far as those edges allow); it READS each input tensor and checks every byte
//! against the fingerprint its defining op wrote ([`crate::exec::fingerprint`]); it checks that
//! the op's distinct operands occupy disjoint bytes (an in-flight overlap); then it WRITES each
//! output with its fingerprint. After its last op, each core reads back every private
//! pre-placed tensor an op wrote (a graph output: what the program's caller reads, so its
//! final value) against its last writer's fingerprint ([`Collision::FinalBytes`], in
//! `collision.rs`). Fingerprints are written and checked in place, a run of arena
//! pages at a time ([`SparseArena::fill_with`], [`SparseArena::find_in`]): no buffer as large as
//! a tensor is ever allocated, whatever its size. A tensor's
//! bytes are its whole aligned footprint `[address, address + aligned)` (4 KiB pages for
//! DRAM): the planner reserves the padding for it, and filling it means even a 1-byte tensor
//! carries its writer's id, so a stale or foreign page is always caught. A shared tensor
//! written on one core and read on another goes through the shared arena: that proves the
//! alias. The first failure stops every core and is reported with core, op, tensors and
//! address.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, RwLock};
use std::time::{Duration, Instant};

use dramalloc_core::liveness::program::Access;

use crate::exec::arena::SparseArena;
pub use crate::exec::collision::Collision;
use crate::exec::edge_order::check_edge_order;
use crate::exec::fingerprint::{fill_at, mismatch_at, writer_of, TensorId, LOADER_DEF};
use crate::exec::shared_ranges::SharedRanges;
use crate::model::SimModel;
use crate::planning::PlannedModel;

/// What an execution did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExecReport {
    /// Instructions executed over all cores.
    pub instructions: u64,
    /// Bytes written by the loader and by ops.
    pub bytes_written: u64,
    /// Bytes read back and checked against their fingerprint.
    pub bytes_verified: u64,
    /// Arena bytes committed (pages touched × 4096), all arenas.
    pub committed_bytes: u64,
    /// Wall time.
    pub sim_time: Duration,
}

/// One core's outcome: its report and committed bytes, or its collision with the figures up
/// to it.
type CoreResult = Result<(ExecReport, u64), Box<(Collision, (ExecReport, u64))>>;

/// A failed execution: the first collision and what had been done up to it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{collision}")]
pub struct ExecFailure {
    /// The first collision any core detected, or the edge check's finding.
    pub collision: Collision,
    /// Instructions, bytes written and verified, committed bytes and time up to the failure.
    pub partial: ExecReport,
}

/// Options for [`execute`].
#[derive(Debug, Clone, Default)]
pub struct ExecOptions {
    /// Advanced by one after each instruction (progress display).
    pub progress: Option<indicatif::ProgressBar>,
    /// Fault injection: flip one byte after an instruction.
    pub corrupt: Option<Corruption>,
}

/// A byte flipped (xor 0xFF) in `core`'s view at `address` right after instruction
/// `after_instruction` of that core completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Corruption {
    /// Core.
    pub core: usize,
    /// Flat index of the instruction after which the byte flips.
    pub after_instruction: u32,
    /// Byte address in the core's view.
    pub address: u64,
}

struct Shared<'m> {
    model: &'m SimModel,
    plan: &'m PlannedModel,
    region: SharedRanges,
    /// Cores read shared tensors at the same time; a write takes it alone.
    arena: RwLock<SparseArena>,
    progress: Mutex<Vec<u64>>,
    advanced: Condvar,
    abort: AtomicBool,
    shared_of: Vec<Vec<Option<u32>>>,
    shared_defs: Vec<Vec<(u32, u32)>>,
}

impl Shared<'_> {
    fn write(&self, private: &mut SparseArena, addr: u64, data: &[u8]) {
        self.chunks(addr, data.len() as u64, |a, off, len, shared| {
            let d = &data[off as usize..(off + len) as usize];
            if shared {
                self.arena.write().unwrap_or_else(|e| e.into_inner()).write(a, d);
            } else {
                private.write(a, d);
            }
            None::<()>
        });
    }

    fn read(&self, private: &SparseArena, addr: u64, out: &mut [u8]) {
        let len = out.len() as u64;
        self.chunks(addr, len, |a, off, n, shared| {
            let o = &mut out[off as usize..(off + n) as usize];
            if shared {
                self.arena.read().unwrap_or_else(|e| e.into_inner()).read(a, o);
            } else {
                private.read(a, o);
            }
            None::<()>
        });
    }

    /// Writes the fingerprint of `len` bytes of `id` defined by `def` at `addr`, straight
    /// into the arenas' pages (no buffer: a tensor of any size costs no host memory beyond
    /// its pages).
    fn write_fingerprint(&self, private: &mut SparseArena, addr: u64, len: u64, id: TensorId, def: u32) {
        self.chunks(addr, len, |a, off, n, shared| {
            let fill = |bytes: &mut [u8], done: u64| fill_at(bytes, off + done, id, def);
            if shared {
                self.arena.write().unwrap_or_else(|e| e.into_inner()).fill_with(a, n, fill);
            } else {
                private.fill_with(a, n, fill);
            }
            None::<()>
        });
    }

    /// Offset of the first byte of `[addr, addr + len)` that differs from the fingerprint of
    /// `id` defined by `def`, checked page by page in place (wide compares, no buffer).
    fn find_mismatch(
        &self,
        private: &SparseArena,
        addr: u64,
        len: u64,
        id: TensorId,
        def: u32,
    ) -> Option<u64> {
        self.chunks(addr, len, |a, off, n, shared| {
            let check = |bytes: &[u8], done: u64| mismatch_at(bytes, off + done, id, def);
            let found = if shared {
                self.arena.read().unwrap_or_else(|e| e.into_inner()).find_in(a, n, check)
            } else {
                private.find_in(a, n, check)
            };
            found.map(|i| off + i)
        })
    }

    /// Splits `[addr, addr + len)` at the shared ranges' boundaries and calls
    /// `f(address, offset, len, shared)` for each piece in order, until one returns an answer.
    fn chunks<R>(
        &self,
        addr: u64,
        len: u64,
        mut f: impl FnMut(u64, u64, u64, bool) -> Option<R>,
    ) -> Option<R> {
        let mut done = 0u64;
        while done < len {
            let a = addr.saturating_add(done);
            let shared = self.region.contains(a);
            let limit = self.region.run_end(a);
            let n = (limit - a).min(len - done).max(1);
            if let Some(r) = f(a, done, n, shared) {
                return Some(r);
            }
            done += n;
        }
        None
    }

    fn id(&self, core: usize, loc: u32) -> TensorId {
        match self.shared_of[core][loc as usize] {
            Some(e) => TensorId::Shared(e),
            None => TensorId::Private { core: core as u32, location: loc },
        }
    }

    /// Names whose bytes `found` (one 8-byte word at word index `w`) are, for a read of
    /// `expected` defined by `def`.
    fn describe(&self, core: usize, found: u64, expected: TensorId, def: u32, w: u64) -> String {
        let Some(id) = writer_of(found) else { return "never-written memory".to_string() };
        let name = match id {
            TensorId::Private { core: c, location } => {
                self.model.cores.get(c as usize).and_then(|p| p.names.get(location as usize)).map(|n| {
                    if c as usize == core {
                        format!("tensor `{n}`")
                    } else {
                        format!("tensor `{n}` of core {c}")
                    }
                })
            }
            TensorId::Shared(e) => self
                .plan
                .shared
                .get(e as usize)
                .and_then(|s| self.model.cores[0].names.get(s.location as usize))
                .map(|n| format!("shared tensor `{n}`")),
        };
        let fdef = ((found >> 16) & 0xFFFF) as u32;
        match name {
            Some(n) if id == expected => {
                format!("bytes of {n} that differ from what op {def} wrote at word {w} (found {found:#018x})")
            }
            Some(n) => {
                let by = if fdef == LOADER_DEF { "loader".to_string() } else { format!("op {fdef}") };
                format!("bytes of {n} (written by {by})")
            }
            None => format!("corrupted bytes (word {found:#018x})"),
        }
    }

    /// Checks `[addr, addr + len)` against the fingerprint of `id` defined by `def` on core
    /// `core`: `None` when it matches, else the first wrong byte's address and what is there.
    fn check(
        &self,
        private: &SparseArena,
        core: usize,
        addr: u64,
        len: u64,
        id: TensorId,
        def: u32,
    ) -> Option<(u64, String)> {
        let bad = self.find_mismatch(private, addr, len, id, def)?;
        let w = bad / 8 * 8;
        let mut word = [0u8; 8];
        let n = (len - w).min(8) as usize;
        self.read(private, addr + w, &mut word[..n]);
        Some((addr + bad, self.describe(core, u64::from_le_bytes(word), id, def, bad / 8)))
    }

    fn fail(&self) {
        self.abort.store(true, Ordering::SeqCst);
        let mut p = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        p.iter_mut().for_each(|x| *x = u64::MAX);
        self.advanced.notify_all();
    }
}

/// Runs `model` with the addresses of `plan`. See the module docs.
///
/// # Errors
/// [`ExecFailure`] (boxed): the first [`Collision`] any core detects, with the figures up to it.
pub fn execute(
    model: &SimModel,
    plan: &PlannedModel,
    opts: &ExecOptions,
) -> Result<ExecReport, Box<ExecFailure>> {
    execute_jittered(model, plan, opts, crate::exec::jitter::seed_from_env())
}

/// As [`execute`], with the cores' start order and yield points randomized by `jitter`
/// ([`crate::exec::jitter`]; `None`: none). The result must not depend on the seed.
///
/// # Errors
/// As [`execute`].
pub fn execute_jittered(
    model: &SimModel,
    plan: &PlannedModel,
    opts: &ExecOptions,
    jitter: Option<u64>,
) -> Result<ExecReport, Box<ExecFailure>> {
    let start = Instant::now();
    if let Err(e) = check_edge_order(model, &plan.edges) {
        let partial = ExecReport { sim_time: start.elapsed(), ..ExecReport::default() };
        return Err(Box::new(ExecFailure { collision: e.into(), partial }));
    }
    let n = model.cores.len();
    let region = SharedRanges::of(plan);
    // shared entry of each (core, location), by name through core 0's twin
    let mut by_name0 = std::collections::HashMap::new();
    for (k, e) in plan.shared.iter().enumerate() {
        by_name0.insert(model.cores[0].names[e.location as usize].as_str(), k as u32);
    }
    let shared_of: Vec<Vec<Option<u32>>> = model
        .cores
        .iter()
        .enumerate()
        .map(|(k, c)| {
            (0..c.names.len())
                .map(|l| {
                    if plan.placements[k][l].shared {
                        by_name0.get(c.names[l].as_str()).copied()
                    } else {
                        None
                    }
                })
                .collect()
        })
        .collect();
    let mut shared_defs = vec![Vec::new(); plan.shared.len()];
    for (k, c) in model.cores.iter().enumerate() {
        for i in 0..c.instructions.len() {
            for o in c.operands_of(i) {
                if let (Access::Def, Some(e)) = (o.access, shared_of[k][o.location as usize]) {
                    shared_defs[e as usize].push((i as u32, k as u32));
                }
            }
        }
    }
    shared_defs.iter_mut().for_each(|d| d.sort_unstable());
    let mut incoming: Vec<Vec<Vec<(u32, u32)>>> =
        model.cores.iter().map(|c| vec![Vec::new(); c.instructions.len()]).collect();
    for e in &plan.edges {
        if let Some(slot) =
            incoming.get_mut(e.to_core as usize).and_then(|v| v.get_mut(e.to_instruction as usize))
        {
            slot.push((e.from_core, e.from_instruction));
        }
    }
    let sh = Shared {
        model,
        plan,
        region,
        arena: RwLock::new(SparseArena::new()),
        progress: Mutex::new(vec![0; n]),
        advanced: Condvar::new(),
        abort: AtomicBool::new(false),
        shared_of,
        shared_defs,
    };
    let results: Vec<CoreResult> = std::thread::scope(|s| {
        let mut handles: Vec<_> = crate::exec::jitter::start_order(jitter, n)
            .into_iter()
            .map(|k| {
                let (sh, inc, opts) = (&sh, &incoming[k], &opts);
                let jit = crate::exec::jitter::Jitter::new(jitter, k);
                (k, s.spawn(move || run_core(sh, k, inc, opts, jit)))
            })
            .collect();
        handles.sort_unstable_by_key(|&(k, _)| k);
        handles.into_iter().map(|(_, h)| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    let mut total = ExecReport::default();
    let mut first_err = None;
    for r in results {
        let (rep, committed) = match r {
            Ok(x) => x,
            Err(b) => {
                let (e, x) = *b;
                first_err.get_or_insert(e);
                x
            }
        };
        total.instructions += rep.instructions;
        total.bytes_written += rep.bytes_written;
        total.bytes_verified += rep.bytes_verified;
        total.committed_bytes += committed;
    }
    total.committed_bytes += sh.arena.read().unwrap_or_else(|e| e.into_inner()).committed_bytes();
    total.sim_time = start.elapsed();
    match first_err {
        Some(collision) => Err(Box::new(ExecFailure { collision, partial: total })),
        None => Ok(total),
    }
}

fn run_core(
    sh: &Shared<'_>,
    k: usize,
    incoming: &[Vec<(u32, u32)>],
    opts: &ExecOptions,
    mut jit: crate::exec::jitter::Jitter,
) -> CoreResult {
    let mut partial = (ExecReport::default(), 0);
    jit.start();
    let r = run_core_inner(sh, k, incoming, opts, &mut partial, &mut jit);
    match r {
        Err(e) => {
            sh.fail();
            Err(Box::new((e, partial)))
        }
        Ok(x) => {
            let mut p = sh.progress.lock().unwrap_or_else(|e| e.into_inner());
            p[k] = u64::MAX;
            sh.advanced.notify_all();
            Ok(x)
        }
    }
}

fn run_core_inner(
    sh: &Shared<'_>,
    k: usize,
    incoming: &[Vec<(u32, u32)>],
    opts: &ExecOptions,
    partial: &mut (ExecReport, u64),
    jit: &mut crate::exec::jitter::Jitter,
) -> Result<(ExecReport, u64), Collision> {
    let c = &sh.model.cores[k];
    let pl = &sh.plan.placements[k];
    let mut arena = SparseArena::new();
    let mut rep = ExecReport::default();
    let op_name = |i: usize| c.op_names.get(i).cloned().unwrap_or_default();
    let addr_of = |l: u32, i: usize| {
        pl[l as usize].address.ok_or_else(|| Collision::Unaddressed {
            core: k as u32,
            instruction: i as u32,
            op: op_name(i),
            tensor: c.names[l as usize].clone(),
        })
    };
    // the loader
    for (l, kind) in c.kinds.iter().enumerate() {
        if kind.is_loaded() {
            if let Some(a) = pl[l].address {
                sh.write_fingerprint(&mut arena, a, pl[l].aligned, sh.id(k, l as u32), LOADER_DEF);
                rep.bytes_written += pl[l].aligned;
            }
        }
    }
    let mut last_def: Vec<u32> =
        c.kinds.iter().map(|kd| if kd.is_loaded() { LOADER_DEF } else { u32::MAX }).collect();
    for (i, waits) in incoming.iter().enumerate().take(c.instructions.len()) {
        *partial = (rep, arena.committed_bytes());
        jit.point();
        if sh.abort.load(Ordering::SeqCst) {
            return Ok((rep, arena.committed_bytes()));
        }
        if !waits.is_empty() {
            let mut p = sh.progress.lock().unwrap_or_else(|e| e.into_inner());
            while waits.iter().any(|&(fc, fi)| p[fc as usize] <= fi as u64) {
                p = sh.advanced.wait(p).unwrap_or_else(|e| e.into_inner());
            }
            if sh.abort.load(Ordering::SeqCst) {
                return Ok((rep, arena.committed_bytes()));
            }
        }
        let ops = c.operands_of(i);
        // in-flight: distinct operands must not overlap
        for (x, a) in ops.iter().enumerate() {
            for b in &ops[x + 1..] {
                if a.location == b.location {
                    continue;
                }
                let (aa, ab) = (addr_of(a.location, i)?, addr_of(b.location, i)?);
                let (ea, eb) = (aa + pl[a.location as usize].aligned, ab + pl[b.location as usize].aligned);
                if aa < eb && ab < ea {
                    return Err(Collision::InFlight {
                        core: k as u32,
                        instruction: i as u32,
                        op: op_name(i),
                        a: c.names[a.location as usize].clone(),
                        b: c.names[b.location as usize].clone(),
                        address: aa.max(ab),
                    });
                }
            }
        }
        for o in ops.iter().filter(|o| o.access == Access::Use) {
            let l = o.location;
            let a = addr_of(l, i)?;
            let bytes = pl[l as usize].aligned;
            let id = sh.id(k, l);
            let def = match id {
                TensorId::Shared(e) => sh.shared_defs[e as usize]
                    .iter()
                    .rev()
                    .find(|&&(di, dc)| (di, dc) < (i as u32, k as u32))
                    .map_or(u32::MAX, |&(di, _)| di),
                TensorId::Private { .. } => last_def[l as usize],
            };
            if let Some((address, found)) = sh.check(&arena, k, a, bytes, id, def) {
                let tensor = c.names[l as usize].clone();
                return Err(Collision::WrongBytes {
                    core: k as u32,
                    instruction: i as u32,
                    op: op_name(i),
                    tensor,
                    found,
                    address,
                });
            }
            rep.bytes_verified += bytes;
        }
        for o in ops.iter().filter(|o| o.access == Access::Def) {
            let l = o.location;
            let a = addr_of(l, i)?;
            let bytes = pl[l as usize].aligned;
            sh.write_fingerprint(&mut arena, a, bytes, sh.id(k, l), i as u32);
            rep.bytes_written += bytes;
            last_def[l as usize] = i as u32;
        }
        if let Some(x) = opts.corrupt.filter(|x| x.core == k && x.after_instruction as usize == i) {
            let mut b = [0u8; 1];
            sh.read(&arena, x.address, &mut b);
            b[0] ^= 0xFF;
            sh.write(&mut arena, x.address, &b);
        }
        rep.instructions += 1;
        {
            let mut p = sh.progress.lock().unwrap_or_else(|e| e.into_inner());
            if p[k] != u64::MAX {
                p[k] = i as u64 + 1;
            }
            sh.advanced.notify_all();
        }
        if let Some(pb) = &opts.progress {
            pb.inc(1);
        }
    }
    // the caller's read: every private pre-placed tensor an op wrote must still hold what its
    // last writer wrote (a graph output's final value)
    for (l, kind) in c.kinds.iter().enumerate() {
        let (def, id) = (last_def[l], sh.id(k, l as u32));
        if !kind.is_preplaced() || def == LOADER_DEF || def == u32::MAX || matches!(id, TensorId::Shared(_)) {
            continue;
        }
        let Some(a) = pl[l].address else { continue };
        if let Some((address, found)) = sh.check(&arena, k, a, pl[l].aligned, id, def) {
            return Err(Collision::FinalBytes { core: k as u32, tensor: c.names[l].clone(), found, address });
        }
        rep.bytes_verified += pl[l].aligned;
    }
    Ok((rep, arena.committed_bytes()))
}
