//! TFLite importer on arbitrary bytes: checked flatbuffer reading (planus), operator codes,
//! buffers, the traces' conventions and the program JSON round trip. Never panics; on success
//! the program is the one its JSON text reads back as.
#![no_main]

use dramalloc_sim::input::import::{import_bytes, ImportOptions, ModelFormat};
use dramalloc_sim::input::parse_program;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let options = ImportOptions { max_tensors: 100_000, ..ImportOptions::default() };
    let Ok(imported) = import_bytes(data, "fuzz.tflite", "fuzz", ModelFormat::Tflite, &options) else { return };
    assert_eq!(parse_program(&imported.json, "fuzz", 100_000).ok().as_ref(), Some(&imported.program));
});
