//! Input formats: program JSON and minimalloc CSV.
