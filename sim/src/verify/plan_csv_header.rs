//! The header of `run`'s plan.csv: its columns and how a file is told to be one.
//! Uses: nothing else in the crate; used by: run_plan (the reader), cli (verify).

/// The columns of `run`'s plan.csv, in the order it writes them.
pub const PLAN_CSV_COLUMNS: [&str; 8] =
    ["tensor", "core", "address", "bytes", "aligned_bytes", "def", "last_use", "shared"];

/// Whether `head` (a file's first bytes) starts with a plan.csv header: its first line, a
/// byte-order mark skipped, names `tensor`, `core` and `address` among its columns, in any order
/// (a minimalloc CSV names none of them).
pub fn looks_like_plan_csv(head: &[u8]) -> bool {
    let head = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
    let line = head.split(|&b| b == b'\n').next().unwrap_or(head);
    let names: Vec<&[u8]> = line.split(|&b| b == b',').map(<[u8]>::trim_ascii).collect();
    ["tensor", "core", "address"].iter().all(|n| names.contains(&n.as_bytes()))
}
