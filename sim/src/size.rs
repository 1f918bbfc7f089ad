//! Byte sizes with suffixes: the one rule of every size flag and of replay scripts.
//! Uses: nothing else in the crate; used by: cli, replay.
//!
//! A size is a decimal byte count, optionally followed by `K`, `M`, `G` or `T`, each with
//! an optional `i` and an optional `B` (any case): **every suffix is a power of 1024**, so
//! `64K`, `64Ki`, `64KiB` and `64KB` are all 65,536 bytes. This is how memory sizes are
//! written for accelerators (a "16 GB" HBM stack holds 16 GiB), and how the replay scripts
//! of tt-metal style write them; a plain `B` suffix means bytes. Terms may be joined with `+`
//! and `-` (`1G-1K`). Nothing is negative: `-1` is not a size.

/// What a size flag accepts, for error messages and `--help`.
pub const SIZE_RULE: &str =
    "a byte count, optionally with a suffix K, M, G or T (powers of 1024: K = Ki = KiB = KB = 1024), e.g. 4096, 64K, 16GiB";

/// One term: digits and an optional suffix.
fn parse_term(t: &str) -> Option<u64> {
    let digits_end = t.bytes().position(|b| !b.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(digits_end);
    if digits.is_empty() {
        return None;
    }
    let suffix = suffix.to_ascii_lowercase();
    let unit = suffix.strip_suffix('b').unwrap_or(&suffix);
    let unit = unit.strip_suffix('i').filter(|u| !u.is_empty()).unwrap_or(unit);
    let shift = match unit {
        "" if suffix.len() <= 1 => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    digits.parse::<u64>().ok()?.checked_mul(1u64 << shift)
}

/// Parses a size (see the module docs); `None` when it is not one or overflows `u64`.
///
/// ```
/// use dramalloc_sim::size::parse_size;
/// assert_eq!(parse_size("16GiB"), Some(16 << 30));
/// assert_eq!(parse_size("64KB"), Some(65536));
/// assert_eq!(parse_size("1G-1K"), Some((1 << 30) - 1024));
/// assert_eq!(parse_size("512B"), Some(512));
/// assert_eq!((parse_size("-1"), parse_size("4X"), parse_size("iB")), (None, None, None));
/// ```
pub fn parse_size(s: &str) -> Option<u64> {
    let mut total: u64 = 0;
    let mut plus = true;
    let mut start = 0;
    let bytes = s.as_bytes();
    if s.is_empty() {
        return None;
    }
    for i in 0..=bytes.len() {
        if i == bytes.len() || bytes[i] == b'+' || bytes[i] == b'-' {
            let v = parse_term(&s[start..i])?;
            total = if plus { total.checked_add(v)? } else { total.checked_sub(v)? };
            if i < bytes.len() {
                plus = bytes[i] == b'+';
            }
            start = i + 1;
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_suffix_form_is_binary() {
        for s in ["2K", "2k", "2Ki", "2KiB", "2kib", "2KB", "2kb"] {
            assert_eq!(parse_size(s), Some(2048), "{s}");
        }
        assert_eq!(parse_size("3T"), Some(3 << 40));
        assert_eq!(parse_size("7"), Some(7));
        assert_eq!(parse_size("7b"), Some(7));
    }

    #[test]
    fn malformed_and_overflowing_sizes_are_rejected() {
        for s in ["", "K", "1KK", "1Bi", "1iB", "1 K", "1.5G", "16777216T", "0-1", "1+"] {
            assert_eq!(parse_size(s), None, "{s}");
        }
    }
}
