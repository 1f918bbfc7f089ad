//! The plan-file reader on arbitrary bytes. The first byte picks the mode: raw bytes (CRC as
//! given: almost always rejected), raw bytes with the CRC fixed (reaches the table checks),
//! or a valid blob (a tiny 2-core tensor-parallel plan) with the rest of the input applied as
//! `(offset, xor)` patches and the CRC fixed (reaches every plan check). Never panics;
//! `parse` fails only with `ErrorKind::Corrupt` and `validate` only with
//! `ErrorKind::InvalidPlan`; the O(n log n) and the O(n²) collision checks agree; an
//! accepted file's records lie in the window and are found by `find`.
#![no_main]

use std::sync::OnceLock;

use dramalloc_core::plan_file::{file_checksum, ErrorKind, PlanFile, CHECKSUM_OFFSET};
use dramalloc_core::{CcSize, Strategy};
use dramalloc_sim::input::parse_program;
use dramalloc_sim::planning::{plan_model, PlanOptions};
use dramalloc_sim::report::plan_bin::PlanBlob;
use dramalloc_sim::run::{build_model, Split};
use libfuzzer_sys::fuzz_target;

/// Shared with the tests: input x, weight w, intermediates a and b, output y; a Conv.
const TINY: &str = include_str!("../../tests/support/tiny_tp.json");

fn template() -> &'static [u8] {
    static BLOB: OnceLock<Vec<u8>> = OnceLock::new();
    BLOB.get_or_init(|| {
        let program = parse_program(TINY, "tiny", 100).unwrap();
        let model = build_model(&program, 2, Split::TensorParallel).unwrap();
        let opts = PlanOptions { window: 1 << 30, cc: CcSize::Mib(4), strategy: Strategy::Auto, ..PlanOptions::default() };
        let plan = plan_model(&model, &opts).unwrap();
        PlanBlob::from_run(&model, &plan, &opts, true).unwrap().encode().unwrap()
    })
}

fn fix_checksum(bytes: &mut [u8]) {
    if bytes.len() >= CHECKSUM_OFFSET + 4 {
        let crc = file_checksum(bytes);
        bytes[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&crc.to_le_bytes());
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let mut bytes = match mode % 3 {
        0 => rest.to_vec(),
        1 => {
            let mut b = rest.to_vec();
            fix_checksum(&mut b);
            b
        }
        _ => {
            let mut b = template().to_vec();
            for p in rest.chunks_exact(3) {
                let at = usize::from(u16::from_le_bytes([p[0], p[1]])) % b.len();
                b[at] ^= p[2];
            }
            fix_checksum(&mut b);
            b
        }
    };
    // also from an odd address: the reader takes any alignment
    bytes.insert(0, 0);
    let bytes = &bytes[1..];
    let file = match PlanFile::parse(bytes) {
        Ok(f) => f,
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::Corrupt, "{e}");
            return;
        }
    };
    let mut scratch = vec![0u32; file.scratch_len()];
    let sorted = file.validate(&mut scratch);
    let pairwise = file.validate(&mut []);
    assert_eq!(sorted.is_ok(), pairwise.is_ok(), "{sorted:?} vs {pairwise:?}");
    match sorted {
        Err(e) => assert_eq!(e.kind(), ErrorKind::InvalidPlan, "{e}"),
        Ok(()) => {
            let window = file.header().window.get();
            for (i, r) in file.records().iter().enumerate() {
                assert!(r.end().is_some_and(|e| e <= window));
                let (j, found) = file.find(u32::from(r.core.get()), r.tensor.get()).unwrap();
                assert_eq!((j as usize, found), (i, r));
                assert!(file.name(r.tensor.get()).is_some());
            }
        }
    }
});
