//! The replay script's interpreter: one parsed operation at a time, one output line each.
//! Uses: parser, report, dramalloc-core (banked); used by: mod.rs.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use dramalloc_core::banked::{
    BankedError, BufferType, CbId, CircularBuffers, Device, FreeList, Layout, Policy, Statistics,
};

use super::parser::{Op, Target};
use super::{REPLAY_BLOCKS, REPLAY_CBS};
use crate::atomic_write::same_file;
use crate::report::banked::{write_reports, MemoryView, REPORT_NAMES};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Named {
    Block(u64),
    Buffer(BufferType, u64),
    Cb(CbId),
}

pub(super) struct Machine {
    allocator: Option<Box<FreeList<REPLAY_BLOCKS>>>,
    device: Option<Box<Device<REPLAY_BLOCKS>>>,
    cbs: CircularBuffers<REPLAY_CBS>,
    cb_names: Vec<String>,
    names: HashMap<String, Named>,
    /// Names whose block or buffer is still allocated: binding one again is an error line
    /// (the first allocation could no longer be freed by name).
    live: HashSet<String>,
    base_dir: Option<PathBuf>,
    /// The script's own file, which no report may replace.
    script: Option<PathBuf>,
}

fn stats_text(s: &Statistics) -> String {
    format!("total={} allocated={} free={} largest={}", s.total, s.allocated, s.free, s.largest_free)
}

/// The core grid of a device with `banks` L1 banks (one per core), `(columns, rows)`: the
/// squarest grid that holds them, `ceil(sqrt(banks))` columns (Wormhole's 64: 8x8); a core
/// is on the device when it is inside it and its row-major index is below `banks`.
fn core_grid(banks: u32) -> (u32, u32) {
    let w = (1..=banks.max(1)).find(|&w| u64::from(w) * u64::from(w) >= u64::from(banks)).unwrap_or(1);
    (w, banks.div_ceil(w).max(1))
}

fn type_name(t: BufferType) -> &'static str {
    match t {
        BufferType::Dram => "dram",
        BufferType::L1 => "l1",
    }
}

impl Machine {
    pub(super) fn new(base_dir: Option<PathBuf>, script: Option<PathBuf>) -> Self {
        Self {
            allocator: None,
            device: None,
            cbs: CircularBuffers::new(),
            cb_names: Vec::new(),
            names: HashMap::new(),
            live: HashSet::new(),
            base_dir,
            script,
        }
    }

    /// An error when `name` still holds a live allocation.
    fn not_live(&self, name: &str) -> Result<(), String> {
        if self.live.contains(name) {
            return Err(format!("name `{name}` still holds a live allocation; free it first"));
        }
        Ok(())
    }

    /// Executes one operation: `Ok(line)` or `Err(reason)` for an error line.
    pub(super) fn exec(&mut self, op: &Op) -> Result<String, String> {
        let e = |e: BankedError| e.to_string();
        match op {
            Op::Allocator(cfg) => {
                self.allocator = Some(Box::new(FreeList::new(*cfg).map_err(e)?));
                self.device = None;
                self.names.clear();
                self.live.clear();
                Ok(format!(
                    "allocator {} offset={} min={} align={} policy={}",
                    cfg.size,
                    cfg.offset,
                    cfg.min_allocation,
                    cfg.alignment,
                    if cfg.policy == Policy::First { "first" } else { "best" }
                ))
            }
            Op::Device(d) => {
                self.device = Some(Box::new(Device::new(*d).map_err(e)?));
                self.allocator = None;
                self.names.clear();
                self.live.clear();
                self.cbs = CircularBuffers::new();
                self.cb_names.clear();
                Ok(format!(
                    "device dram_banks={} dram_bank_size={} l1_banks={} l1_size={} l1_base={}",
                    d.dram_banks, d.dram_bank_size, d.l1_banks, d.l1_size, d.l1_unreserved_base
                ))
            }
            Op::Alloc { name, size, down } => {
                self.not_live(name)?;
                let fl = self.fl()?;
                match fl.allocate(*size, !down) {
                    Ok(a) => {
                        self.names.insert(name.clone(), Named::Block(a));
                        self.live.insert(name.clone());
                        Ok(format!("{name} {a}"))
                    }
                    Err(BankedError::OutOfMemory(_)) => Ok(format!("{name} none")),
                    Err(x @ BankedError::ZeroSize { .. }) => Err(format!("allocation `{name}`: {x}")),
                    Err(x) => Err(e(x)),
                }
            }
            Op::At { name, addr, size } => {
                self.not_live(name)?;
                let fl = self.fl()?;
                let (offset, align) = (fl.config().offset, fl.config().alignment);
                if addr.checked_sub(offset).is_some_and(|rel| rel % align != 0) {
                    return Err(format!(
                        "address {addr} is not on the allocator's alignment grid (offset {offset} plus a multiple of {align})"
                    ));
                }
                match fl.allocate_at(*addr, *size) {
                    Ok(a) => {
                        self.names.insert(name.clone(), Named::Block(a));
                        self.live.insert(name.clone());
                        Ok(format!("{name} {a}"))
                    }
                    Err(BankedError::OutOfRange { .. }) => Ok(format!("{name} none")),
                    Err(x @ BankedError::ZeroSize { .. }) => Err(format!("allocation `{name}`: {x}")),
                    Err(x) => Err(e(x)),
                }
            }
            Op::Free(target) => {
                let (label, named) = match target {
                    Target::Address(a) => (a.to_string(), Named::Block(*a)),
                    Target::Name(n) => {
                        (n.clone(), *self.names.get(n).ok_or_else(|| format!("unknown name `{n}`"))?)
                    }
                };
                // a name freed (or cleared) before whose address another name holds now: its
                // free would free that one (a fresh-user trial: `alloc a`, `free a`, `alloc b`,
                // `free a` freed `b`, and `stats` said 0 bytes allocated)
                if let Target::Name(n) = target {
                    let holder = self.live.iter().find(|m| self.names.get(*m) == Some(&named));
                    if let (false, Some(holder)) = (self.live.contains(n), holder) {
                        return Err(format!("double free: `{n}` was freed or cleared before (its address now holds `{holder}`)"));
                    }
                }
                match named {
                    Named::Block(a) => {
                        self.fl()?.free(a).map_err(e)?;
                        let freed: Vec<String> = self
                            .live
                            .iter()
                            .filter(|n| matches!(self.names.get(*n), Some(Named::Block(b)) if *b == a))
                            .cloned()
                            .collect();
                        freed.iter().for_each(|n| {
                            self.live.remove(n);
                        });
                    }
                    Named::Buffer(t, a) => {
                        self.dev()?.deallocate(t, a).map_err(e)?;
                        if let Target::Name(n) = target {
                            self.live.remove(n);
                        }
                    }
                    Named::Cb(_) => return Err(format!("`{label}` is a circular buffer")),
                }
                Ok(format!("free {label}"))
            }
            Op::Shrink(n) => {
                self.fl()?.shrink(*n).map_err(e)?;
                Ok(format!("shrink {n}"))
            }
            Op::Reset => {
                self.fl()?.reset().map_err(e)?;
                Ok("reset".into())
            }
            Op::Clear => {
                if let Some(fl) = self.allocator.as_mut() {
                    fl.clear();
                }
                if let Some(d) = self.device.as_mut() {
                    d.clear();
                }
                self.live.clear();
                Ok("clear".into())
            }
            Op::Stats(None) => Ok(format!("stats {}", stats_text(&self.fl()?.statistics()))),
            Op::Stats(Some(t)) => {
                let s = self.dev()?.bank(*t).statistics();
                Ok(format!("stats {} {}", type_name(*t), stats_text(&s)))
            }
            Op::Available(size) => {
                let mut s = String::from("available");
                for (a, b) in self.fl()?.available_addresses(*size) {
                    s.push_str(&format!(" {a}-{b}"));
                }
                Ok(s)
            }
            Op::Lowest(t) => {
                let l = match t {
                    None => self.fl()?.lowest_occupied_address(),
                    Some(t) => self.dev()?.bank(*t).lowest_occupied_address(),
                };
                Ok(match l {
                    Some(a) => format!("lowest {a}"),
                    None => "lowest none".into(),
                })
            }
            Op::Buffer { name, ty, size, page, sharded } => {
                self.not_live(name)?;
                let layout = match sharded {
                    Some(k) => Layout::Sharded { cores: *k },
                    None => Layout::Interleaved,
                };
                let b = self.dev()?.allocate(*ty, *size, *page, layout).map_err(|x| match x {
                    BankedError::ZeroSize { .. } => format!("buffer `{name}`: {x}"),
                    _ => e(x),
                })?;
                self.names.insert(name.clone(), Named::Buffer(*ty, b.address));
                self.live.insert(name.clone());
                Ok(format!("{name} {} per_bank={}", b.address, b.size_per_bank))
            }
            Op::Cb { name, cores, size, page } => {
                let (base, align, banks) = {
                    let d = self.dev()?.descriptor();
                    (d.l1_unreserved_base, d.dram_alignment, d.l1_banks)
                };
                if self.names.contains_key(name) {
                    return Err(format!("name `{name}` already used"));
                }
                if *size == 0 {
                    return Err(format!("cb `{name}`: size 0: a circular buffer holds at least one byte"));
                }
                let (w, h) = core_grid(banks);
                if cores.end.x >= w || cores.end.y >= h || cores.end.y * w + cores.end.x >= banks {
                    let (x, y) = (cores.end.x, cores.end.y);
                    return Err(format!(
                        "cb `{name}`: core ({x},{y}) is outside the device's {w}x{h} grid of {banks} L1 banks"
                    ));
                }
                // a failed add or placement leaves the circular buffers and names as they were
                let before = self.cbs.clone();
                let placed = self.cbs.add(*cores, *size, *page).and_then(|id| {
                    self.cbs.allocate(base, align)?;
                    Ok((id, self.cbs.address(id)?))
                });
                match placed {
                    Ok((id, Some(a))) => {
                        self.cb_names.push(name.clone());
                        self.names.insert(name.clone(), Named::Cb(id));
                        Ok(format!("{name} {a}"))
                    }
                    Ok((_, None)) => {
                        self.cbs = before;
                        Err("circular buffer not placed".into())
                    }
                    Err(x) => {
                        self.cbs = before;
                        Err(e(x))
                    }
                }
            }
            Op::CbSize { name, size } => {
                let (base, align) = {
                    let d = self.dev()?.descriptor();
                    (d.l1_unreserved_base, d.dram_alignment)
                };
                let Some(Named::Cb(id)) = self.names.get(name).copied() else {
                    return Err(format!("`{name}` is not a circular buffer"));
                };
                if *size == 0 {
                    return Err(format!(
                        "cbsize `{name}`: size 0: a circular buffer holds at least one byte"
                    ));
                }
                let before = self.cbs.clone();
                if let Err(x) =
                    self.cbs.set_total_size(id, *size).and_then(|()| self.cbs.allocate(base, align))
                {
                    self.cbs = before;
                    return Err(e(x));
                }
                let mut s = String::from("cbs");
                for (n, cb) in self.cb_names.iter().zip(self.cbs.iter()) {
                    match cb.address {
                        Some(a) => s.push_str(&format!(" {n}={a}")),
                        None => s.push_str(&format!(" {n}=none")),
                    }
                }
                Ok(s)
            }
            Op::Validate => {
                let (l1_size, lowest) = {
                    let d = self.dev()?;
                    (d.descriptor().l1_size, d.lowest_l1_address())
                };
                if !self.cbs.is_empty() && self.cbs.iter().any(|c| c.address.is_none()) {
                    let d = self.dev()?.descriptor();
                    let (base, align) = (d.l1_unreserved_base, d.dram_alignment);
                    let before = self.cbs.clone();
                    if let Err(x) = self.cbs.allocate(base, align) {
                        self.cbs = before;
                        return Err(e(x));
                    }
                }
                self.cbs.validate(l1_size, lowest).map_err(e)?;
                Ok("ok".into())
            }
            Op::Report { dir, prefix } => {
                let d = self.dev()?;
                let dram = MemoryView::of(d.bank(BufferType::Dram));
                let l1 = MemoryView::of(d.bank(BufferType::L1));
                let path = match &self.base_dir {
                    Some(b) if Path::new(dir).is_relative() => b.join(dir),
                    _ => PathBuf::from(dir),
                };
                if path.exists() && !path.is_dir() {
                    let p = path.display();
                    return Err(format!("writing memory report {p}: it exists and is not a directory"));
                }
                // a report file that is the script itself would destroy it (a trial's script
                // saved as its own `run1_memory_usage_summary.csv` was replaced, exit 0)
                if let Some(script) = &self.script {
                    let target = REPORT_NAMES.iter().map(|n| path.join(format!("{prefix}{n}")));
                    if let Some(t) = target.into_iter().find(|t| same_file(t, script)) {
                        let (t, s) = (t.display(), script.display());
                        return Err(format!("writing memory report {t}: the same file as the script {s}, which writing it would destroy"));
                    }
                }
                write_reports(&path, prefix, &dram, &l1).map_err(|x| x.to_string())?;
                Ok(format!("report {dir}"))
            }
        }
    }

    fn fl(&mut self) -> Result<&mut FreeList<REPLAY_BLOCKS>, String> {
        self.allocator.as_deref_mut().ok_or_else(|| "no allocator".to_string())
    }

    fn dev(&mut self) -> Result<&mut Device<REPLAY_BLOCKS>, String> {
        self.device.as_deref_mut().ok_or_else(|| "no device".to_string())
    }
}
