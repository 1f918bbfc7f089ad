//! `dramalloc replay SCRIPT`: parse and execute an allocator script (issue 5).
//!
//! One operation a line; `#` starts a comment; sizes and addresses are bytes, optionally with
//! a `K`/`M`/`G` suffix (1024-based) and joined with `+`/`-` (e.g. `1G-1K`).
//!
//! Single free list (`allocator SIZE [offset=N] [min=N] [align=N] [policy=first|best]`, defaults
//! offset 0, min 1, align 1, first):
//!
//! | line | output |
//! |---|---|
//! | `alloc NAME SIZE [down]` | `NAME ADDR` or `NAME none` (out of memory) |
//! | `at NAME ADDR SIZE` | `NAME ADDR`, `NAME none` (outside the range), or an error line (over a live block) |
//! | `free NAME` or `free ADDR` | `free NAME`, or an error line (unknown / double free) |
//! | `shrink SIZE`, `reset`, `clear` | the operation's name and argument, or an error line |
//! | `stats` | `stats total=T allocated=A free=F largest=L` |
//! | `available SIZE` | `available S-E S-E ...` in address order |
//! | `lowest` | `lowest ADDR` or `lowest none` |
//!
//! Banked device (`device wormhole|blackhole [l1_base=N]` or `device dram_banks=N
//! dram_bank_size=B dram_align=A dram_reserved=R l1_banks=N l1_size=S l1_base=B l1_align=A`;
//! the default `l1_base` is 111360, the notes' example):
//!
//! | line | output |
//! |---|---|
//! | `buffer NAME dram\|l1 SIZE PAGE [sharded=K]` | `NAME ADDR per_bank=N`, or an error line (out of memory with the full report) |
//! | `free NAME` | `free NAME` or an error line |
//! | `cb NAME CORES SIZE [page=P]` | `NAME ADDR` (CORES is `x,y` or `x0,y0-x1,y1` with x0 <= x1 and y0 <= y1, else the script is malformed; page defaults to SIZE) |
//! | `cbsize NAME SIZE` | `cbs NAME=ADDR ...` after re-packing, or an error line |
//! | `validate` | `ok` or the clash error line |
//! | `stats dram\|l1` | `stats dram total=T allocated=A free=F largest=L` |
//! | `lowest dram\|l1` | `lowest ADDR` or `lowest none` |
//! | `clear` | `clear` (frees every buffer) |
//! | `report DIR [prefix=P]` | `report DIR` after writing the three CSVs whole, or an error line |
//!
//! A run-time failure prints `error <the line> : <reason>` and the replay goes on. A malformed
//! line (unknown operation, bad number, an operation without its `allocator`/`device`) is a
//! [`ReplayError::Parse`] naming the line number: the whole script is parsed before anything
//! runs, so nothing is executed, printed or written then (exit code 2).

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use dramalloc_core::banked::{
    BankedError, BufferType, CbId, CircularBuffers, CoreRange, Device, DeviceDescriptor, FreeList,
    FreeListConfig, Layout, Policy, Statistics,
};

use crate::report::banked::{write_reports, MemoryView};

/// Block-table capacity (free plus allocated blocks) of every allocator a replay creates.
pub const REPLAY_BLOCKS: usize = 8192;
/// Stack of the thread a replay runs on (bytes). The allocators live in `Box`es, but an
/// unoptimised build assembles a `Device<REPLAY_BLOCKS>` (about 1 MiB) on the stack and copies
/// it through several frames before boxing it, which overflows a 2 MiB test thread. Stack pages
/// are committed only when touched.
const REPLAY_STACK: usize = 16 * std::mem::size_of::<Device<REPLAY_BLOCKS>>() + (8 << 20);
/// Capacity of the CB table of a replay.
pub const REPLAY_CBS: usize = 256;
/// Default L1 unreserved base when a named device gives none (the notes' Blackhole example).
pub const DEFAULT_L1_BASE: u64 = 111_360;

/// Why a replay could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The script could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The script path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A malformed line; nothing was executed.
    #[error("line {line}: {message}: `{text}`")]
    Parse {
        /// 1-based line number.
        line: usize,
        /// The line's text.
        text: String,
        /// What is wrong.
        message: String,
    },
    /// Writing the output failed.
    #[error("writing replay output: {0}")]
    Output(#[from] std::io::Error),
}

impl ReplayError {
    /// The process exit code for this error: 2 for an unreadable or malformed script, 1 when
    /// the output cannot be written.
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::Parse { .. } | Self::Read { .. } => 2,
            Self::Output(_) => 1,
        }
    }
}

/// What a completed replay did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayOutcome {
    /// The output lines (without newlines), one per operation.
    pub lines: Vec<String>,
    /// How many of them are `error …` lines.
    pub errors: usize,
}

/// Where an operation applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    None,
    Allocator,
    Device,
}

/// A target of `free`.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    Name(String),
    Address(u64),
}

/// One parsed operation.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Op {
    Allocator(FreeListConfig),
    Alloc { name: String, size: u64, down: bool },
    At { name: String, addr: u64, size: u64 },
    Free(Target),
    Shrink(u64),
    Reset,
    Clear,
    Stats(Option<BufferType>),
    Available(u64),
    Lowest(Option<BufferType>),
    Device(DeviceDescriptor),
    Buffer { name: String, ty: BufferType, size: u64, page: u64, sharded: Option<u32> },
    Cb { name: String, cores: CoreRange, size: u64, page: u64 },
    CbSize { name: String, size: u64 },
    Validate,
    Report { dir: String, prefix: String },
}

#[derive(Clone, Debug)]
struct Line {
    number: usize,
    text: String,
    op: Op,
}

fn parse_term(t: &str) -> Option<u64> {
    let (digits, mult) = match t.as_bytes().last()? {
        b'K' | b'k' => (&t[..t.len() - 1], 1u64 << 10),
        b'M' | b'm' => (&t[..t.len() - 1], 1u64 << 20),
        b'G' | b'g' => (&t[..t.len() - 1], 1u64 << 30),
        _ => (t, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

/// Parses `N`, `NK`, `NM`, `NG` and sums/differences of them (`1G-1K`).
///
/// ```
/// use dramalloc_sim::replay::parse_size;
/// assert_eq!(parse_size("1G-1K"), Some((1 << 30) - 1024));
/// assert_eq!(parse_size("12345K"), Some(12345 * 1024));
/// assert_eq!(parse_size("x"), None);
/// ```
pub fn parse_size(s: &str) -> Option<u64> {
    let mut total: u64 = 0;
    let mut sign_plus = true;
    let mut start = 0;
    let bytes = s.as_bytes();
    if s.is_empty() {
        return None;
    }
    for i in 0..=bytes.len() {
        if i == bytes.len() || bytes[i] == b'+' || bytes[i] == b'-' {
            let v = parse_term(&s[start..i])?;
            total = if sign_plus { total.checked_add(v)? } else { total.checked_sub(v)? };
            if i < bytes.len() {
                sign_plus = bytes[i] == b'+';
            }
            start = i + 1;
        }
    }
    Some(total)
}

fn parse_cores(s: &str) -> Option<CoreRange> {
    let coord = |c: &str| -> Option<(u32, u32)> {
        let (x, y) = c.split_once(',')?;
        Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
    };
    match s.split_once('-') {
        Some((a, b)) => {
            let (x0, y0) = coord(a)?;
            let (x1, y1) = coord(b)?;
            // tt-metal's CoreRange wants start <= end in both coordinates; a reversed range
            // is a typo, not a request to normalise
            (x0 <= x1 && y0 <= y1).then(|| CoreRange::new(x0, y0, x1, y1))
        }
        None => {
            let (x, y) = coord(s)?;
            Some(CoreRange::core(x, y))
        }
    }
}

fn valid_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.')
}

struct LineParser<'a> {
    words: Vec<&'a str>,
}

impl<'a> LineParser<'a> {
    fn positional(&self) -> Vec<&'a str> {
        self.words.iter().copied().filter(|w| !w.contains('=')).collect()
    }
    fn options(&self) -> Vec<(&'a str, &'a str)> {
        self.words.iter().filter_map(|w| w.split_once('=')).collect()
    }
}

fn parse_line(text: &str, mode: &mut Mode) -> Result<Option<Op>, String> {
    let body = text.split('#').next().unwrap_or("").trim();
    if body.is_empty() {
        return Ok(None);
    }
    let mut words = body.split_whitespace();
    let cmd = words.next().unwrap_or("");
    let lp = LineParser { words: words.collect() };
    let pos = lp.positional();
    let opts = lp.options();
    let size = |s: &str| parse_size(s).ok_or_else(|| format!("bad size `{s}`"));
    let name = |s: &str| {
        if valid_name(s) {
            Ok(s.to_string())
        } else {
            Err(format!("bad name `{s}` (names start with a letter)"))
        }
    };
    let want = |n: usize| {
        if pos.len() == n {
            Ok(())
        } else {
            Err(format!("`{cmd}` takes {n} argument(s), got {}", pos.len()))
        }
    };
    let no_opts = || {
        if opts.is_empty() {
            Ok(())
        } else {
            Err(format!("`{cmd}` takes no key=value options"))
        }
    };
    let need = |m: Mode| {
        if *mode == m {
            Ok(())
        } else {
            Err(format!(
                "`{cmd}` needs {} first",
                if m == Mode::Allocator { "an `allocator` line" } else { "a `device` line" }
            ))
        }
    };
    let buffer_type = |s: &str| match s {
        "dram" => Ok(BufferType::Dram),
        "l1" => Ok(BufferType::L1),
        _ => Err(format!("bad buffer type `{s}` (dram or l1)")),
    };
    let op = match cmd {
        "allocator" => {
            want(1)?;
            let mut cfg = FreeListConfig::new(size(pos[0])?, 0, 1, 1, Policy::First);
            for (k, v) in opts {
                match k {
                    "offset" => cfg.offset = size(v)?,
                    "min" => cfg.min_allocation = size(v)?,
                    "align" => cfg.alignment = size(v)?,
                    "policy" => {
                        cfg.policy = match v {
                            "first" => Policy::First,
                            "best" => Policy::Best,
                            _ => return Err(format!("bad policy `{v}` (first or best)")),
                        }
                    }
                    _ => return Err(format!("unknown option `{k}`")),
                }
            }
            *mode = Mode::Allocator;
            Op::Allocator(cfg)
        }
        "alloc" => {
            need(Mode::Allocator)?;
            no_opts()?;
            let down = match pos.len() {
                2 => false,
                3 if pos[2] == "down" => true,
                3 if pos[2] == "up" => false,
                _ => return Err("usage: alloc NAME SIZE [down]".into()),
            };
            Op::Alloc { name: name(pos[0])?, size: size(pos[1])?, down }
        }
        "at" => {
            need(Mode::Allocator)?;
            no_opts()?;
            want(3)?;
            Op::At { name: name(pos[0])?, addr: size(pos[1])?, size: size(pos[2])? }
        }
        "free" => {
            if *mode == Mode::None {
                return Err("`free` needs an `allocator` or `device` line first".into());
            }
            no_opts()?;
            want(1)?;
            match parse_size(pos[0]) {
                Some(a) if *mode == Mode::Allocator => Op::Free(Target::Address(a)),
                _ => Op::Free(Target::Name(name(pos[0])?)),
            }
        }
        "shrink" => {
            need(Mode::Allocator)?;
            no_opts()?;
            want(1)?;
            Op::Shrink(size(pos[0])?)
        }
        "reset" => {
            need(Mode::Allocator)?;
            want(0)?;
            Op::Reset
        }
        "clear" => {
            if *mode == Mode::None {
                return Err("`clear` needs an `allocator` or `device` line first".into());
            }
            want(0)?;
            Op::Clear
        }
        "stats" | "lowest" => {
            no_opts()?;
            let ty = match *mode {
                Mode::Allocator => {
                    want(0)?;
                    None
                }
                Mode::Device => {
                    want(1)?;
                    Some(buffer_type(pos[0])?)
                }
                Mode::None => return Err(format!("`{cmd}` needs an `allocator` or `device` line first")),
            };
            if cmd == "stats" {
                Op::Stats(ty)
            } else {
                Op::Lowest(ty)
            }
        }
        "available" => {
            need(Mode::Allocator)?;
            no_opts()?;
            want(1)?;
            Op::Available(size(pos[0])?)
        }
        "device" => {
            let mut d = match pos.as_slice() {
                ["wormhole"] => DeviceDescriptor::wormhole(DEFAULT_L1_BASE),
                ["blackhole"] => DeviceDescriptor::blackhole(DEFAULT_L1_BASE),
                [] => DeviceDescriptor::custom(0, 0, 32, 0, 0, 0, 0, 16),
                _ => return Err("usage: device wormhole|blackhole or device key=value ...".into()),
            };
            let custom = pos.is_empty();
            let mut seen = Vec::new();
            for (k, v) in opts {
                let n = size(v)?;
                let n32 = || u32::try_from(n).map_err(|_| format!("`{k}` too large"));
                match k {
                    "dram_banks" if custom => d.dram_banks = n32()?,
                    "dram_bank_size" if custom => d.dram_bank_size = n,
                    "dram_align" if custom => d.dram_alignment = n,
                    "dram_reserved" if custom => d.dram_reserved = n,
                    "l1_banks" if custom => d.l1_banks = n32()?,
                    "l1_size" if custom => d.l1_size = n,
                    "l1_base" => d.l1_unreserved_base = n,
                    "l1_align" if custom => d.l1_alignment = n,
                    _ => return Err(format!("unknown device option `{k}`")),
                }
                seen.push(k);
            }
            if custom {
                for k in [
                    "dram_banks",
                    "dram_bank_size",
                    "dram_align",
                    "dram_reserved",
                    "l1_banks",
                    "l1_size",
                    "l1_base",
                    "l1_align",
                ] {
                    if !seen.contains(&k) {
                        return Err(format!("custom device needs `{k}=`"));
                    }
                }
            }
            if d.dram_alignment == 0 {
                return Err("dram_align must be positive".into());
            }
            d.l1_unreserved_base = d.l1_unreserved_base.div_ceil(d.dram_alignment) * d.dram_alignment;
            *mode = Mode::Device;
            Op::Device(d)
        }
        "buffer" => {
            need(Mode::Device)?;
            want(4)?;
            let mut sharded = None;
            for (k, v) in opts {
                match k {
                    "sharded" => {
                        sharded = Some(u32::try_from(size(v)?).map_err(|_| "sharded too large".to_string())?)
                    }
                    _ => return Err(format!("unknown option `{k}`")),
                }
            }
            Op::Buffer {
                name: name(pos[0])?,
                ty: buffer_type(pos[1])?,
                size: size(pos[2])?,
                page: size(pos[3])?,
                sharded,
            }
        }
        "cb" => {
            need(Mode::Device)?;
            want(3)?;
            let sz = size(pos[2])?;
            let mut page = sz;
            for (k, v) in opts {
                match k {
                    "page" => page = size(v)?,
                    _ => return Err(format!("unknown option `{k}`")),
                }
            }
            Op::Cb {
                name: name(pos[0])?,
                cores: parse_cores(pos[1]).ok_or_else(|| {
                    format!("bad core range `{}` (x,y or x0,y0-x1,y1 with x0 <= x1, y0 <= y1)", pos[1])
                })?,
                size: sz,
                page,
            }
        }
        "cbsize" => {
            need(Mode::Device)?;
            no_opts()?;
            want(2)?;
            Op::CbSize { name: name(pos[0])?, size: size(pos[1])? }
        }
        "validate" => {
            need(Mode::Device)?;
            want(0)?;
            Op::Validate
        }
        "report" => {
            need(Mode::Device)?;
            want(1)?;
            let mut prefix = String::new();
            for (k, v) in opts {
                match k {
                    "prefix" if v.contains(['/', '\\']) || v.contains("..") => {
                        return Err(format!("bad prefix `{v}` (a file-name prefix: no `/`, `\\` or `..`)"))
                    }
                    "prefix" => prefix = v.to_string(),
                    _ => return Err(format!("unknown option `{k}`")),
                }
            }
            Op::Report { dir: pos[0].to_string(), prefix }
        }
        _ => return Err(format!("unknown operation `{cmd}`")),
    };
    Ok(Some(op))
}

fn parse_script(script: &str) -> Result<Vec<Line>, ReplayError> {
    let mut mode = Mode::None;
    let mut out = Vec::new();
    for (i, raw) in script.lines().enumerate() {
        match parse_line(raw, &mut mode) {
            Ok(Some(op)) => out.push(Line {
                number: i + 1,
                text: raw.split('#').next().unwrap_or("").trim().to_string(),
                op,
            }),
            Ok(None) => {}
            Err(message) => {
                return Err(ReplayError::Parse { line: i + 1, text: raw.trim().to_string(), message })
            }
        }
    }
    Ok(out)
}

#[derive(Clone, Copy, Debug)]
enum Named {
    Block(u64),
    Buffer(BufferType, u64),
    Cb(CbId),
}

struct Machine {
    allocator: Option<Box<FreeList<REPLAY_BLOCKS>>>,
    device: Option<Box<Device<REPLAY_BLOCKS>>>,
    cbs: CircularBuffers<REPLAY_CBS>,
    cb_names: Vec<String>,
    names: HashMap<String, Named>,
    /// Names whose block or buffer is still allocated: binding one again is an error line
    /// (the first allocation could no longer be freed by name).
    live: HashSet<String>,
    base_dir: Option<PathBuf>,
}

fn stats_text(s: &Statistics) -> String {
    format!("total={} allocated={} free={} largest={}", s.total, s.allocated, s.free, s.largest_free)
}

fn type_name(t: BufferType) -> &'static str {
    match t {
        BufferType::Dram => "dram",
        BufferType::L1 => "l1",
    }
}

impl Machine {
    fn new(base_dir: Option<PathBuf>) -> Self {
        Self {
            allocator: None,
            device: None,
            cbs: CircularBuffers::new(),
            cb_names: Vec::new(),
            names: HashMap::new(),
            live: HashSet::new(),
            base_dir,
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
    fn exec(&mut self, op: &Op) -> Result<String, String> {
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
                    Err(x) => Err(e(x)),
                }
            }
            Op::At { name, addr, size } => {
                self.not_live(name)?;
                let fl = self.fl()?;
                match fl.allocate_at(*addr, *size) {
                    Ok(a) => {
                        self.names.insert(name.clone(), Named::Block(a));
                        self.live.insert(name.clone());
                        Ok(format!("{name} {a}"))
                    }
                    Err(BankedError::OutOfRange { .. }) => Ok(format!("{name} none")),
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
                let b = self.dev()?.allocate(*ty, *size, *page, layout).map_err(e)?;
                self.names.insert(name.clone(), Named::Buffer(*ty, b.address));
                self.live.insert(name.clone());
                Ok(format!("{name} {} per_bank={}", b.address, b.size_per_bank))
            }
            Op::Cb { name, cores, size, page } => {
                let (base, align) = {
                    let d = self.dev()?.descriptor();
                    (d.l1_unreserved_base, d.dram_alignment)
                };
                if self.names.contains_key(name) {
                    return Err(format!("name `{name}` already used"));
                }
                let id = self.cbs.add(*cores, *size, *page).map_err(e)?;
                self.cb_names.push(name.clone());
                self.names.insert(name.clone(), Named::Cb(id));
                self.cbs.allocate(base, align).map_err(e)?;
                match self.cbs.address(id).map_err(e)? {
                    Some(a) => Ok(format!("{name} {a}")),
                    None => Err("circular buffer not placed".into()),
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
                self.cbs.set_total_size(id, *size).map_err(e)?;
                self.cbs.allocate(base, align).map_err(e)?;
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
                    self.cbs.allocate(base, align).map_err(e)?;
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

/// Parses and executes a script given as text. Relative `report` directories are resolved
/// against `base_dir` when given (else the working directory).
///
/// # Errors
/// [`ReplayError::Parse`] for a malformed line; nothing has run then.
///
/// ```
/// let out = dramalloc_sim::replay::replay_str("allocator 1G min=1K align=1K\nalloc a 1K\nfree a\nfree a\n", None)?;
/// assert_eq!(out.lines[1], "a 0");
/// assert_eq!(out.lines[3], "error free a : double free: address 0 is not allocated (it lies in free memory)");
/// assert_eq!(out.errors, 1);
/// # Ok::<(), dramalloc_sim::replay::ReplayError>(())
/// ```
pub fn replay_str(script: &str, base_dir: Option<&Path>) -> Result<ReplayOutcome, ReplayError> {
    let lines = parse_script(script)?;
    let base = base_dir.map(Path::to_path_buf);
    // Run on a thread with a known, large stack (see REPLAY_STACK), whatever the caller's is.
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("dramalloc-replay".into())
            .stack_size(REPLAY_STACK)
            .spawn_scoped(s, || execute(&lines, base.clone()));
        match worker {
            Ok(handle) => Ok(handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))),
            // No thread to be had: run here and hope the caller's stack suffices.
            Err(_) => Ok(execute(&lines, base.clone())),
        }
    })
}

/// Executes parsed lines on a fresh machine.
fn execute(lines: &[Line], base_dir: Option<PathBuf>) -> ReplayOutcome {
    let mut m = Machine::new(base_dir);
    let mut outcome = ReplayOutcome::default();
    for l in lines {
        let _ = l.number;
        match m.exec(&l.op) {
            Ok(s) => outcome.lines.push(s),
            Err(reason) => {
                outcome.errors += 1;
                outcome.lines.push(format!("error {} : {reason}", l.text));
            }
        }
    }
    outcome
}

/// The `dramalloc replay SCRIPT` entry point: reads the script, runs it, and writes the output
/// lines to `out` (all at once, after the run). Relative `report` directories are resolved
/// against the script's directory.
///
/// Exit codes for the caller: `Ok` → 0 (run-time `error` lines do not change it);
/// `Err(e)` → `e.exit_code()`: 2 for an unreadable script or a malformed line (nothing
/// printed or written), 1 for failed output.
///
/// # Errors
/// [`ReplayError::Read`], [`ReplayError::Parse`], [`ReplayError::Output`].
pub fn run_replay(script_path: &Path, out: &mut dyn Write) -> Result<ReplayOutcome, ReplayError> {
    let text = std::fs::read_to_string(script_path)
        .map_err(|source| ReplayError::Read { path: script_path.to_path_buf(), source })?;
    let base = script_path.parent().filter(|p| !p.as_os_str().is_empty());
    let outcome = replay_str(&text, base)?;
    let mut buf = String::new();
    for l in &outcome.lines {
        buf.push_str(l);
        buf.push('\n');
    }
    out.write_all(buf.as_bytes())?;
    out.flush()?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_name_cannot_be_bound_again() {
        let out =
            replay_str("allocator 1M min=1K align=1K\nalloc a 1K\nalloc a 1K\nfree a\nalloc a 1K\n", None)
                .unwrap();
        assert_eq!(out.lines[1], "a 0");
        assert!(
            out.lines[2].starts_with("error alloc a 1K : name `a` still holds a live allocation"),
            "{}",
            out.lines[2]
        );
        assert_eq!(&out.lines[3..], &["free a".to_string(), "a 0".to_string()]);
        assert_eq!(out.errors, 1);
    }

    #[test]
    fn malformed_line_names_its_number_and_runs_nothing() {
        let r = replay_str("allocator 1M\nalloc a 1K\nalloc b 1Q\n", None);
        match r {
            Err(ReplayError::Parse { line, .. }) => assert_eq!(line, 3),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn reversed_core_range_is_malformed() {
        let script = "device wormhole l1_base=111360\ncb good 0,0-0,2 2K\ncb bad 0,2-0,0 2K\n";
        match replay_str(script, None) {
            Err(ReplayError::Parse { line, text, .. }) => {
                assert_eq!((line, text.as_str()), (3, "cb bad 0,2-0,0 2K"))
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
        let ok = "device wormhole l1_base=111360\ncb wide 0,0-1,2 2K\n";
        assert!(replay_str(ok, None).is_ok());
    }

    #[test]
    fn op_before_allocator_is_malformed() {
        assert!(matches!(replay_str("alloc a 1K\n", None), Err(ReplayError::Parse { line: 1, .. })));
    }
}
