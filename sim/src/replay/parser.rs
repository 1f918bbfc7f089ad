//! The replay script's parser: every line becomes an operation, or the script is malformed.
//! Uses: dramalloc-core (banked); used by: mod.rs, interpreter.

use dramalloc_core::banked::{BufferType, CoreRange, DeviceDescriptor, FreeListConfig, Policy};

use super::{ReplayError, DEFAULT_L1_BASE};
use crate::size::parse_size;

/// Where an operation applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    None,
    Allocator,
    Device,
}

/// A target of `free`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Target {
    Name(String),
    Address(u64),
}

/// One parsed operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Op {
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
pub(super) struct Line {
    pub(super) number: usize,
    pub(super) text: String,
    pub(super) op: Op,
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
                _ => return Err("usage: alloc NAME SIZE [up|down]".into()),
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
            if d.l1_alignment == 0 {
                return Err("l1_align must be positive".into());
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

pub(super) fn parse_script(script: &str, file: &str) -> Result<Vec<Line>, ReplayError> {
    let mut mode = Mode::None;
    let mut out = Vec::new();
    // a byte-order mark (as some editors write) is not part of the first operation
    let script = script.strip_prefix('\u{feff}').unwrap_or(script);
    for (i, raw) in script.lines().enumerate() {
        match parse_line(raw, &mut mode) {
            Ok(Some(op)) => out.push(Line {
                number: i + 1,
                text: raw.split('#').next().unwrap_or("").trim().to_string(),
                op,
            }),
            Ok(None) => {}
            Err(message) => {
                return Err(ReplayError::Parse {
                    file: file.to_owned(),
                    line: i + 1,
                    text: raw.trim().to_string(),
                    message,
                })
            }
        }
    }
    Ok(out)
}
