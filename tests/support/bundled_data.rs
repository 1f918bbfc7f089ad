//! The data bundled in the repository (`sim/data/`, see its README) as files, for the test
//! binaries that read files. Include it with `#[path = "support/bundled_data.rs"] mod
//! bundled_data;`. Tests never read `../shared`: a clone runs every test on the same data.

use std::path::{Path, PathBuf};

/// `sim/data/` of the workspace. Panics when it is missing: a test that needs the data must
/// fail, never pass with nothing to check.
pub fn data_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/data");
    assert!(dir.is_dir(), "bundled data missing: {}", dir.display());
    dir
}

/// Files under `dir` (recursively) whose name ends with `ext`, sorted; `models_index.csv` (the
/// models' table of contents) is left out.
pub fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(ext)
                && path.file_name().is_some_and(|n| n != "models_index.csv")
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
