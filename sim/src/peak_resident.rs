//! The process's peak resident memory, as the kernel counts it.
//! Uses: std only; used by: cli (plan's `--json`, scale).
//!
//! [`peak_resident_bytes`] reads `VmHWM` ("high water mark" of the resident set) from Linux's
//! `/proc/self/status`: every page the process had in memory at once, its binary, stacks,
//! heap and mapped files included, up to the moment of the call. Elsewhere, or where the file
//! cannot be read, it is `None`: no figure rather than a wrong one.

/// The peak resident set of this process so far, bytes (Linux `VmHWM`), or `None` where the
/// kernel does not say.
///
/// ```
/// let peak = dramalloc_sim::peak_resident::peak_resident_bytes();
/// if cfg!(target_os = "linux") {
///     assert!(peak.is_some_and(|b| b > 0 && b % 1024 == 0));
/// }
/// ```
pub fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_hwm(&status)
}

/// The `VmHWM:` line of a `/proc/PID/status` text, in bytes (the kernel writes kB, 1,024
/// bytes each); `None` without one, or with a value that is not a number of kB.
///
/// ```
/// use dramalloc_sim::peak_resident::parse_vm_hwm;
/// assert_eq!(parse_vm_hwm("Name:\tx\nVmHWM:\t  204800 kB\nVmRSS:\t1 kB\n"), Some(209_715_200));
/// assert_eq!(parse_vm_hwm("Name:\tx\n"), None);
/// assert_eq!(parse_vm_hwm("VmHWM:\t12 MB\n"), None);
/// ```
pub fn parse_vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let mut words = line.split_whitespace();
    let kib: u64 = words.next()?.parse().ok()?;
    (words.next() == Some("kB") && words.next().is_none()).then_some(kib)?.checked_mul(1024)
}
