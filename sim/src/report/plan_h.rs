//! `plan.h`: the C header of a plan file.
//! Uses: dramalloc-core (plan_file); used by: cli, tests.
//!
//! `plan.h`: a C header for a `plan.bin`. It declares the file's structs with the layout of
//! [`dramalloc_core::plan_file`] (checked by `_Static_assert`), a structural reader
//! (`dramalloc_plan_open`, CRC-32 included) and, per tensor, a named constant address for
//! each core, so C firmware can either read the blob or compile the addresses in.

use std::collections::HashMap;
use std::fmt::Write;

use dramalloc_core::plan_file::PlanFile;

/// The C layout and reader, the same for every plan.
const PRELUDE: &str = r#"#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "plan.bin is little-endian and these structs read it in place"
#endif

#define DRAMALLOC_PLAN_VERSION 1u
#define DRAMALLOC_PLAN_CHECKSUM_OFFSET 24u
#define DRAMALLOC_NO_ACCESS 0xFFFFFFFFu
#define DRAMALLOC_FLAG_SHARED 1u
#define DRAMALLOC_FLAG_PINNED 2u
#define DRAMALLOC_FLAG_CC 4u
#define DRAMALLOC_FLAG_PREPLACED 8u /* occupies its bytes the whole program, whatever def/last_use say */

/* The file header, at offset 0 (88 bytes). */
typedef struct dramalloc_plan_header {
    uint8_t magic[8]; /* "DRAMPLAN" */
    uint32_t version;
    uint32_t header_bytes;
    uint64_t file_bytes;
    uint32_t checksum; /* CRC-32 of the file with these 4 bytes read as zero */
    uint32_t flags;    /* bit 0: tensor-parallel split; bit 1: per-core slabs; bit 2: a problem's solution */
    uint32_t core_count;
    uint32_t record_count;
    uint32_t name_count;
    uint32_t string_bytes;
    uint16_t core_bytes;
    uint16_t record_bytes;
    uint16_t name_bytes;
    uint16_t reserved;
    uint64_t window;
    uint64_t shared_base;
    uint64_t shared_bytes;
    uint64_t align;
} dramalloc_plan_header;

/* One core (56 bytes); its records are records[first_record .. first_record + record_count). */
typedef struct dramalloc_plan_core {
    uint64_t hwm;
    uint64_t floor;
    uint64_t cc_base;
    uint64_t cc_bytes;
    uint64_t cc_used;
    uint32_t first_record;
    uint32_t record_count;
    uint32_t instructions;
    uint32_t reserved;
} dramalloc_plan_core;

/* One tensor on one core (40 bytes); sorted by tensor within a core. It occupies
   [address, address + aligned) over instructions [def, last_use] (closed; a shared record:
   the hull of every core's accesses; DRAMALLOC_NO_ACCESS in both: never accessed, occupies
   nothing in time), except a record flagged DRAMALLOC_FLAG_PREPLACED: def and last_use are
   its first and last access (DRAMALLOC_NO_ACCESS in both when never accessed), and it
   occupies its bytes over the whole program whatever they say. */
typedef struct dramalloc_plan_record {
    uint32_t tensor; /* index into the name table */
    uint16_t core;
    uint16_t flags; /* DRAMALLOC_FLAG_* */
    uint64_t address;
    uint64_t bytes;
    uint64_t aligned;
    uint32_t def;      /* first access, or DRAMALLOC_NO_ACCESS (pre-placed: not its lifetime) */
    uint32_t last_use; /* last access, or DRAMALLOC_NO_ACCESS (pre-placed: not its lifetime) */
} dramalloc_plan_record;

/* One name: strings[offset .. offset + len), UTF-8, not NUL-terminated (8 bytes). */
typedef struct dramalloc_plan_name {
    uint32_t offset;
    uint32_t len;
} dramalloc_plan_name;

_Static_assert(sizeof(dramalloc_plan_header) == 88, "header layout");
_Static_assert(offsetof(dramalloc_plan_header, checksum) == 24, "checksum offset");
_Static_assert(offsetof(dramalloc_plan_header, window) == 56, "window offset");
_Static_assert(sizeof(dramalloc_plan_core) == 56, "core layout");
_Static_assert(sizeof(dramalloc_plan_record) == 40, "record layout");
_Static_assert(offsetof(dramalloc_plan_record, address) == 8, "record address offset");
_Static_assert(offsetof(dramalloc_plan_record, def) == 32, "record def offset");
_Static_assert(sizeof(dramalloc_plan_name) == 8, "name layout");

/* A plan file read in place. */
typedef struct dramalloc_plan {
    const dramalloc_plan_header *header;
    const dramalloc_plan_core *cores;
    const dramalloc_plan_record *records;
    const dramalloc_plan_name *names;
    const char *strings;
} dramalloc_plan;

/* CRC-32/ISO-HDLC of a plan file with its checksum field read as zero. */
static inline uint32_t dramalloc_plan_crc32(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= (i >= DRAMALLOC_PLAN_CHECKSUM_OFFSET && i < DRAMALLOC_PLAN_CHECKSUM_OFFSET + 4u) ? 0u : p[i];
        for (int k = 0; k < 8; k++) {
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
        }
    }
    return ~c;
}

/* Reads the plan file buf[0 .. len) in place; buf must be 8-byte aligned. Checks magic,
 * version, entry sizes, length, CRC-32 and the indices a reader follows: the cores' record
 * ranges (each after the last, all records covered), every record's tensor index and every
 * name's string range (the structure only: the plan itself is checked by `dramalloc
 * check-plan` or the Rust reader). Returns 0, or -1 too short, -2 magic, -3 version, -4 entry
 * sizes, -5 length, -6 checksum, -7 an index out of its table. */
static inline int dramalloc_plan_open(const void *buf, size_t len, dramalloc_plan *out) {
    const uint8_t *p = (const uint8_t *)buf;
    const dramalloc_plan_header *h = (const dramalloc_plan_header *)buf;
    if (len < sizeof(dramalloc_plan_header)) return -1;
    if (memcmp(h->magic, "DRAMPLAN", 8) != 0) return -2;
    if (h->version != DRAMALLOC_PLAN_VERSION) return -3;
    if (h->header_bytes != sizeof(dramalloc_plan_header) || h->core_bytes != sizeof(dramalloc_plan_core) ||
        h->record_bytes != sizeof(dramalloc_plan_record) || h->name_bytes != sizeof(dramalloc_plan_name))
        return -4;
    uint64_t cores = sizeof(dramalloc_plan_header);
    uint64_t records = cores + (uint64_t)h->core_count * sizeof(dramalloc_plan_core);
    uint64_t names = records + (uint64_t)h->record_count * sizeof(dramalloc_plan_record);
    uint64_t strings = names + (uint64_t)h->name_count * sizeof(dramalloc_plan_name);
    if (strings + h->string_bytes != h->file_bytes || h->file_bytes != len) return -5;
    if (dramalloc_plan_crc32(p, len) != h->checksum) return -6;
    const dramalloc_plan_core *cs = (const dramalloc_plan_core *)(p + cores);
    const dramalloc_plan_record *rs = (const dramalloc_plan_record *)(p + records);
    const dramalloc_plan_name *ns = (const dramalloc_plan_name *)(p + names);
    uint64_t next = 0;
    for (uint32_t k = 0; k < h->core_count; k++) {
        if (cs[k].first_record != next) return -7;
        next += cs[k].record_count;
        if (next > h->record_count) return -7;
    }
    if (next != h->record_count) return -7;
    for (uint32_t i = 0; i < h->record_count; i++) {
        if (rs[i].tensor >= h->name_count) return -7;
    }
    for (uint32_t i = 0; i < h->name_count; i++) {
        if ((uint64_t)ns[i].offset + ns[i].len > h->string_bytes) return -7;
    }
    out->header = h;
    out->cores = (const dramalloc_plan_core *)(p + cores);
    out->records = (const dramalloc_plan_record *)(p + records);
    out->names = (const dramalloc_plan_name *)(p + names);
    out->strings = (const char *)(p + strings);
    return 0;
}
"#;

/// The macro stem of every tensor of `file` (index = tensor): its name upper-cased with every
/// character outside `[A-Z0-9]` as `_` (its *natural* stem) where no other name gives the same
/// stem; where two or more do, none of them keeps it: each gets `_t<index>` appended (a
/// lower-case `t`, which no natural stem has). So no suffixed stem is ever another tensor's
/// natural one, nor two suffixed stems one stem, and a loader that spells a macro from a name
/// by this rule either reads that tensor's address or fails to compile. Before 2026-12-06 the
/// suffix was `_<index>`, and a suffixed stem could be a third tensor's natural one (a trial:
/// `a.b`, `a_b` and `a_b_1` as tensors 1–3: the rule spelled `a.b` as `A_B_1`, which compiled
/// and was `a_b_1`'s address; the generator had given `a.b` `A_B_1_1`).
///
/// ```
/// use dramalloc_sim::report::plan_h::stems;
/// assert_eq!(stems(["r0", "T/cc_slice0", "t/cc_slice0"]), ["R0", "T_CC_SLICE0_t1", "T_CC_SLICE0_t2"]);
/// // `a_b_1` keeps its own stem; `a.b` and `a_b` clash
/// assert_eq!(stems(["x", "a.b", "a_b", "a_b_1"]), ["X", "A_B_t1", "A_B_t2", "A_B_1"]);
/// ```
pub fn stems<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let natural: Vec<String> = names
        .into_iter()
        .map(|n| {
            n.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect()
        })
        .collect();
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for s in &natural {
        *uses.entry(s.as_str()).or_insert(0) += 1;
    }
    natural
        .iter()
        .enumerate()
        .map(|(i, s)| if uses[s.as_str()] == 1 { s.clone() } else { format!("{s}_t{i}") })
        .collect()
}

/// `s` as the text of a C comment: no `*/` (it would end the comment), no `/*` (`-Wcomment`,
/// an error under `-Werror`), no `??` (a trigraph: `??/` before a line end continues the line
/// under `-std=c11`) and no line end; a trial's tensor `x/*y` broke the README's `cc` command.
/// The other control characters (NUL, ESC, DEL, the C1 range) and the bidirectional
/// formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069: gcc's
/// `-Wbidi-chars`, on by default, fails an unpaired one under `-Werror`, a later trial's
/// tensor `t` + U+202E) are written as the text of their Rust escape, `\u{202e}`.
///
/// ```
/// use dramalloc_sim::report::plan_h::comment_text;
/// assert_eq!(comment_text("a*/b/*c???/\nd"), "a* /b/ *c? ? ?/ d");
/// assert_eq!(comment_text("t\u{202e}\u{0}\u{1b}[1m\té"), "t\\u{202e}\\u{0}\\u{1b}[1m\\u{9}é");
/// ```
pub fn comment_text(s: &str) -> String {
    let visible = |c: char| {
        !(c.is_control() && c != '\n' && c != '\r'
            || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
    };
    let mut t = String::with_capacity(s.len());
    for c in s.chars() {
        if visible(c) {
            t.push(c);
        } else {
            t.extend(c.escape_unicode());
        }
    }
    let mut t = t.replace("*/", "* /").replace("/*", "/ *").replace(['\n', '\r'], " ");
    while t.contains("??") {
        t = t.replace("??", "? ?");
    }
    // (no replacement above can make a `*/`: a `*` or `/` is never inserted next to one)
    t
}

/// The address macro of tensor stem `stem` on `core`: `DRAMALLOC_ADDR_<stem>_CORE<core>`.
pub fn address_macro(stem: &str, core: u32) -> String {
    format!("DRAMALLOC_ADDR_{stem}_CORE{core}")
}

/// `plan.h` for the plan file `file` (read by [`PlanFile::parse`]); `source` names the plan
/// in the header's first comment.
pub fn render(file: &PlanFile<'_>, source: &str) -> String {
    let h = file.header();
    let mut o = String::new();
    let comment = comment_text;
    let _ = writeln!(
        o,
        "/* plan.h: generated by dramalloc for {} (plan.bin {} bytes, CRC-32 {:#010x}). Do not edit. */",
        comment(source),
        h.file_bytes.get(),
        h.checksum.get()
    );
    o.push_str("#ifndef DRAMALLOC_PLAN_H\n#define DRAMALLOC_PLAN_H\n\n");
    o.push_str(PRELUDE);
    let _ = writeln!(o, "\n/* This plan. */");
    let _ = writeln!(o, "#define DRAMALLOC_PLAN_FILE_BYTES {}u", h.file_bytes.get());
    let _ = writeln!(o, "#define DRAMALLOC_PLAN_FILE_CHECKSUM {:#010x}u", h.checksum.get());
    let _ = writeln!(o, "#define DRAMALLOC_PLAN_CORES {}u", h.core_count.get());
    let _ = writeln!(o, "#define DRAMALLOC_PLAN_RECORDS {}u", h.record_count.get());
    let _ = writeln!(o, "#define DRAMALLOC_PLAN_WINDOW {}ULL", h.window.get());
    for (k, c) in file.cores().iter().enumerate() {
        let _ = writeln!(o, "#define DRAMALLOC_PLAN_HWM_CORE{k} {}ULL", c.hwm.get());
    }
    let stems = stems((0..h.name_count.get()).map(|t| file.name(t).unwrap_or("")));
    for (t, stem) in stems.iter().enumerate() {
        let t = t as u32;
        let _ = writeln!(o, "\n/* tensor {t}: `{}` */", comment(file.name(t).unwrap_or("")));
        let _ = writeln!(o, "#define DRAMALLOC_TENSOR_{stem} {t}u");
        for k in 0..h.core_count.get() {
            if let Some((_, r)) = file.find(k, t) {
                let _ = writeln!(o, "#define {} {:#x}ULL", address_macro(stem, k), r.address.get());
            }
        }
    }
    o.push_str("\n#endif /* DRAMALLOC_PLAN_H */\n");
    o
}
