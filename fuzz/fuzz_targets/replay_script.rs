//! Replay scripts on arbitrary UTF-8 through `replay_str`. A script with a `report` line is
//! skipped: it would write CSV files (possibly to an absolute path). Never panics.
#![no_main]

use dramalloc_sim::replay::replay_str;
use libfuzzer_sys::fuzz_target;

/// True when a line's operation is `report` (the same tokenising as the replay parser).
fn writes_files(script: &str) -> bool {
    script.lines().any(|raw| {
        let body = raw.split('#').next().unwrap_or("").trim();
        body.split_whitespace().next() == Some("report")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if writes_files(text) {
        return;
    }
    if let Ok(outcome) = replay_str(text, None) {
        // Every counted error printed an `error …` line (a block named `error` prints
        // `error ADDR` too, so this is an upper bound).
        let error_lines = outcome.lines.iter().filter(|l| l.starts_with("error ")).count();
        assert!(outcome.errors <= error_lines, "{} errors but {error_lines} error lines", outcome.errors);
    }
});
