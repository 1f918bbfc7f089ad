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

/// One term: digits and an optional suffix, in bytes, saturated at `u128::MAX` (a term
/// too large for a `u64` is still a well-formed term); `None` when it is not one.
fn parse_term(t: &str) -> Option<u128> {
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
    let n = digits.parse::<u128>().unwrap_or(u128::MAX);
    Some(n.saturating_mul(1u128 << shift))
}

/// Why a string is not a size ([`check_size`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeProblem {
    /// Not of the size form at all (see the module docs).
    Malformed,
    /// Of the form, but below zero (`-1`, `1K-2K`).
    Negative,
    /// Of the form, but more than `u64::MAX` bytes (16 EiB less one byte).
    TooLarge,
}

/// The exact value of a sum of terms, in a wider type (saturated at `i128::MAX`, possibly
/// below zero or past `u64`), or `None` when it is not of the size form.
fn parse_wide(s: &str) -> Option<i128> {
    let (mut total, mut plus, mut start) = (0i128, true, 0usize);
    let bytes = s.as_bytes();
    for i in 0..=bytes.len() {
        if i == bytes.len() || bytes[i] == b'+' || bytes[i] == b'-' {
            let v = i128::try_from(parse_term(&s[start..i])?).unwrap_or(i128::MAX);
            total = if plus { total.saturating_add(v) } else { total.saturating_sub(v) };
            if i < bytes.len() {
                plus = bytes[i] == b'+';
            }
            start = i + 1;
        }
    }
    Some(total)
}

/// Parses a size (see the module docs), or says why `s` is not one: not of the form, below
/// zero (a leading `-`, even `-0`, or a difference), or past `u64`. A sum whose partial total
/// leaves `u64` but whose end is inside it is a size (`20T-19T`).
///
/// ```
/// use dramalloc_sim::size::{check_size, SizeProblem};
/// assert_eq!(check_size("16GiB"), Ok(16 << 30));
/// assert_eq!(check_size("99999999999T"), Err(SizeProblem::TooLarge));
/// assert_eq!(check_size("-1"), Err(SizeProblem::Negative));
/// assert_eq!(check_size("1K-2K"), Err(SizeProblem::Negative));
/// assert_eq!(check_size("4X"), Err(SizeProblem::Malformed));
/// ```
pub fn check_size(s: &str) -> Result<u64, SizeProblem> {
    if let Some(rest) = s.strip_prefix('-') {
        return Err(if parse_wide(rest).is_some() { SizeProblem::Negative } else { SizeProblem::Malformed });
    }
    match parse_wide(s).ok_or(SizeProblem::Malformed)? {
        v if v < 0 => Err(SizeProblem::Negative),
        v => u64::try_from(v).map_err(|_| SizeProblem::TooLarge),
    }
}

/// Parses a size (see the module docs); `None` when it is not one or overflows `u64`
/// ([`check_size`] says which).
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
    check_size(s).ok()
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

    /// Each rejected size says why: not of the form, below zero (a leading `-` or a
    /// difference), or past `u64` (digits past even `u128` too); a sum whose partial total
    /// leaves `u64` but whose end is inside it is a size.
    #[test]
    fn every_rejected_size_has_its_problem() {
        use SizeProblem::*;
        let cases: [(&str, Option<SizeProblem>); 12] = [
            ("", Some(Malformed)),
            ("-", Some(Malformed)),
            ("--1", Some(Malformed)),
            ("1+", Some(Malformed)),
            ("K", Some(Malformed)),
            ("-1", Some(Negative)),
            ("-0", Some(Negative)),
            ("1K-2K", Some(Negative)),
            ("16777216T", Some(TooLarge)),
            ("1000000000000000000000000000000000000000000", Some(TooLarge)),
            ("18446744073709551615", None),
            ("16777216T-1", None),
        ];
        for (s, want) in cases {
            assert_eq!(check_size(s).err(), want, "{s}");
            assert_eq!(parse_size(s).is_some(), want.is_none(), "{s}");
        }
        assert_eq!(parse_size("16777216T-1"), Some(u64::MAX));
    }

    #[test]
    fn malformed_and_overflowing_sizes_are_rejected() {
        for s in ["", "K", "1KK", "1Bi", "1iB", "1 K", "1.5G", "16777216T", "0-1", "1+"] {
            assert_eq!(parse_size(s), None, "{s}");
        }
    }
}
