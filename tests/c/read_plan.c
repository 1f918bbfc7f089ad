/* Reads a plan.bin through plan.h and prints one line per record:
 * name,core,address,bytes,aligned,shared. Exit 0; 2 unreadable file; 3 plan.h rejected the
 * file (the code is printed). Built and run by tests/plan_header_c.rs. */
#include <stdio.h>
#include <stdlib.h>

#include "plan.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: read_plan PLAN.bin\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    if (fseek(f, 0, SEEK_END) != 0) return 2;
    long len = ftell(f);
    if (len < 0 || fseek(f, 0, SEEK_SET) != 0) return 2;
    /* malloc returns memory aligned for any type: the structs are read in place */
    void *buf = malloc((size_t)len + 1);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) return 2;
    fclose(f);
    dramalloc_plan plan;
    int rc = dramalloc_plan_open(buf, (size_t)len, &plan);
    if (rc != 0) {
        printf("rejected %d\n", rc);
        return 3;
    }
    for (uint32_t k = 0; k < plan.header->core_count; k++) {
        const dramalloc_plan_core *c = &plan.cores[k];
        for (uint32_t i = c->first_record; i < c->first_record + c->record_count; i++) {
            const dramalloc_plan_record *r = &plan.records[i];
            const dramalloc_plan_name *n = &plan.names[r->tensor];
            printf("%.*s,%u,%llu,%llu,%llu,%s\n", (int)n->len, plan.strings + n->offset, (unsigned)r->core,
                   (unsigned long long)r->address, (unsigned long long)r->bytes,
                   (unsigned long long)r->aligned, (r->flags & DRAMALLOC_FLAG_SHARED) ? "true" : "false");
        }
    }
    free(buf);
    return 0;
}
