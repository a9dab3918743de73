/*
 * A cubin's line table (trace_lines.h): the ELF64 little-endian container,
 * its sections, the symbols and the relocations of .debug_line, then
 * DWARF's line-number program (versions 2 to 4, 32-bit DWARF), run as the
 * DWARF standard's state machine, each sequence credited to the function
 * its first DW_LNE_set_address is relocated against.
 */
#include "trace/trace_lines.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most a cubin may hold of each (they bound the work a hostile file
 * can cause). */
#define MAX_ROWS (1u << 24)
#define MAX_NAMES (1u << 20)

typedef struct elf {
    const uint8_t *b;
    size_t n;
    char *err;
    size_t errlen;
    int failed;
} elf;

static int fail(elf *e, const char *fmt, ...)
{
    if (!e->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->err, e->errlen, fmt, ap);
        va_end(ap);
    }
    e->failed = 1;
    return -1;
}

static uint64_t rd(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* A section's bytes, checked to lie in the file. */
typedef struct section {
    const uint8_t *p;
    uint64_t size;
    uint32_t type, link, info;
    uint64_t entsize;
    const char *name;
} section;

/* A bounded reader over one section. */
typedef struct cur {
    const uint8_t *p;
    size_t pos, end;
    int bad;
} cur;

static uint64_t c_fixed(cur *c, unsigned bytes)
{
    if (c->bad || bytes > c->end - c->pos) {
        c->bad = 1;
        return 0;
    }
    uint64_t v = rd(c->p + c->pos, bytes);
    c->pos += bytes;
    return v;
}

static uint64_t c_uleb(cur *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0; !c->bad; shift += 7) {
        if (c->pos >= c->end || shift > 63) {
            c->bad = 1;
            return 0;
        }
        const uint8_t b = c->p[c->pos++];
        v |= (uint64_t)(b & 0x7Fu) << shift;
        if (!(b & 0x80u))
            return v;
    }
    return 0;
}

static int64_t c_sleb(cur *c)
{
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b = 0x80;
    while (!c->bad && (b & 0x80u)) {
        if (c->pos >= c->end || shift > 63) {
            c->bad = 1;
            return 0;
        }
        b = c->p[c->pos++];
        v |= (uint64_t)(b & 0x7Fu) << shift;
        shift += 7;
    }
    if (shift < 64 && (b & 0x40u))
        v |= ~(uint64_t)0 << shift;
    return (int64_t)v;
}

/* A NUL-terminated string inside the reader's bounds (NULL: none). */
static const char *c_str(cur *c)
{
    if (c->bad)
        return NULL;
    const uint8_t *s = c->p + c->pos;
    const uint8_t *z = memchr(s, 0, c->end - c->pos);
    if (!z) {
        c->bad = 1;
        return NULL;
    }
    c->pos += (size_t)(z - s) + 1u;
    return (const char *)s;
}

/* ---- growing the output ---------------------------------------------------- */

static int grow(void **arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2u : 64u;
    void *a = realloc(*arr, c * size);
    if (!a)
        return -1;
    *arr = a;
    *cap = c;
    return 0;
}

/* The index of name in *names, added when new; -1 out of memory or past
 * MAX_NAMES. (Few names: a linear search.) */
static long intern(char ***names, size_t *n, size_t *cap, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*names)[i], name))
            return (long)i;
    if (*n >= MAX_NAMES || grow((void **)names, *n, cap, sizeof **names) != 0)
        return -1;
    char *copy = malloc(strlen(name) + 1u);
    if (!copy)
        return -1;
    strcpy(copy, name);
    (*names)[(*n)++] = copy;
    return (long)(*n - 1u);
}

/* ---- the ELF ------------------------------------------------------------------ */

typedef struct tables {
    section *sh;
    size_t nsh;
    const section *symtab, *strtab;
} tables;

static int read_sections(elf *e, tables *t)
{
    if (e->n < 64 || memcmp(e->b, "\x7f" "ELF", 4) != 0)
        return fail(e, "offset 0: not an ELF file (a cubin is one)");
    if (e->b[4] != 2 || e->b[5] != 1)
        return fail(e, "offset 4: not a 64-bit little-endian ELF file");
    const uint64_t shoff = rd(e->b + 0x28, 8);
    const uint64_t shentsize = rd(e->b + 0x3A, 2), shnum = rd(e->b + 0x3C, 2);
    const uint64_t shstrndx = rd(e->b + 0x3E, 2);
    if (shentsize != 64 || shoff > e->n || shnum > (e->n - shoff) / 64 || shstrndx >= shnum)
        return fail(e, "offset 40: the section table (%llu entries at %llu) is not in the file",
                    (unsigned long long)shnum, (unsigned long long)shoff);
    t->sh = calloc(shnum ? shnum : 1u, sizeof *t->sh);
    if (!t->sh)
        return fail(e, "out of memory");
    t->nsh = (size_t)shnum;
    for (size_t i = 0; i < t->nsh; i++) {
        const uint8_t *h = e->b + shoff + 64u * i;
        section *s = &t->sh[i];
        s->type = (uint32_t)rd(h + 4, 4);
        const uint64_t off = rd(h + 24, 8), size = rd(h + 32, 8);
        s->link = (uint32_t)rd(h + 40, 4);
        s->info = (uint32_t)rd(h + 44, 4);
        s->entsize = rd(h + 56, 8);
        s->size = s->type == 8 /* NOBITS */ ? 0 : size;
        if (s->type != 8 && (off > e->n || size > e->n - off))
            return fail(e, "section %zu: %llu bytes at %llu, beyond the file's %zu", i,
                        (unsigned long long)size, (unsigned long long)off, e->n);
        s->p = s->type == 8 ? NULL : e->b + off;
    }
    const section *names = &t->sh[shstrndx];
    for (size_t i = 0; i < t->nsh; i++) {
        const uint32_t at = (uint32_t)rd(e->b + shoff + 64u * i, 4);
        if (!names->p || at >= names->size || !memchr(names->p + at, 0, names->size - at))
            return fail(e, "section %zu: its name is not in the section-name table", i);
        t->sh[i].name = (const char *)names->p + at;
        if (t->sh[i].type == 2 /* SYMTAB */) {
            t->symtab = &t->sh[i];
            if (t->sh[i].link >= t->nsh)
                return fail(e, "section %zu (.symtab): string table %u does not exist", i,
                            t->sh[i].link);
            t->strtab = &t->sh[t->sh[i].link];
        }
    }
    return 0;
}

/* The function a relocation's symbol names, and the offset it adds from
 * that function's start. -1 when it names no function. */
static long reloc_function(const tables *t, uint64_t sym, int64_t addend, cml_tf_lines *out,
                           size_t *cap, uint32_t *pc)
{
    if (!t->symtab || !t->strtab || sym >= t->symtab->size / 24u)
        return -1;
    const uint8_t *s = t->symtab->p + 24u * sym;
    unsigned type = s[4] & 0xFu;
    uint64_t shndx = rd(s + 6, 2), value = rd(s + 8, 8);
    uint64_t name = rd(s, 4);
    if (type == 3 /* SECTION */) {
        /* the function symbol at the start of that section */
        for (uint64_t i = 0; i < t->symtab->size / 24u; i++) {
            const uint8_t *f = t->symtab->p + 24u * i;
            if ((f[4] & 0xFu) == 2 && rd(f + 6, 2) == shndx) {
                /* addend - the function's value, refused where a hostile
                 * file's numbers would overflow it */
                const uint64_t fv = rd(f + 8, 8);
                if (fv > (uint64_t)INT64_MAX || addend < INT64_MIN + (int64_t)fv)
                    return -1;
                name = rd(f, 4);
                addend -= (int64_t)fv;
                type = 2;
                break;
            }
        }
        value = 0;
    }
    if (type != 2 /* FUNC */ || name >= t->strtab->size ||
        !memchr(t->strtab->p + name, 0, t->strtab->size - name))
        return -1;
    /* S + A is the function's start (S) plus A: the offset from its start
     * is the addend (made relative to the function above for a section
     * symbol) */
    (void)value;
    if (addend < 0 || addend > (int64_t)UINT32_MAX)
        return -1;
    *pc = (uint32_t)addend;
    return intern(&out->funcs, &out->nfuncs, cap, (const char *)t->strtab->p + name);
}

/* ---- DWARF's line program ------------------------------------------------------------ */

typedef struct program {
    elf *e;
    const tables *t;
    const section *rela;       /* .rela.debug_line or .rel.debug_line, or NULL */
    cml_tf_lines *out;
    size_t cap_rows, cap_funcs, cap_files;
} program;

/* The relocation at byte `at` of .debug_line, if any: its symbol and
 * addend. RELA entries (24 bytes) carry the addend; REL entries (16 bytes:
 * older architectures' cubins) leave it in the relocated bytes, `stored`. */
static int reloc_at(const program *g, uint64_t at, uint64_t stored, uint64_t *sym,
                    int64_t *addend)
{
    if (!g->rela)
        return 0;
    const unsigned size = g->rela->type == 4 ? 24u : 16u;
    for (uint64_t i = 0; i < g->rela->size / size; i++) {
        const uint8_t *r = g->rela->p + size * i;
        if (rd(r, 8) == at) {
            *sym = rd(r + 8, 8) >> 32;
            *addend = size == 24u ? (int64_t)rd(r + 16, 8) : (int64_t)stored;
            return 1;
        }
    }
    return 0;
}

static int add_row(program *g, long func, uint64_t pc, uint32_t file, uint64_t line)
{
    cml_tf_lines *o = g->out;
    if (func < 0 || pc > UINT32_MAX)
        return 0; /* a row of no function we know: left out */
    if (o->nrows >= MAX_ROWS)
        return fail(g->e, ".debug_line: more than %u rows", MAX_ROWS);
    if (grow((void **)&o->rows, o->nrows, &g->cap_rows, sizeof *o->rows) != 0)
        return fail(g->e, "out of memory");
    cml_tf_line *r = &o->rows[o->nrows++];
    r->func = (uint32_t)func;
    r->pc = (uint32_t)pc;
    r->file = file;
    r->line = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
    r->order = (uint32_t)(o->nrows - 1u);
    return 0;
}

/* One unit's header and program, from c->pos; c->end is the unit's end. */
static int run_unit(program *g, cur *c)
{
    const unsigned version = (unsigned)c_fixed(c, 2);
    if (!c->bad && (version < 2 || version > 4))
        return fail(g->e, ".debug_line offset %zu: DWARF version %u (read: 2 to 4)", c->pos - 2,
                    version);
    const uint64_t header_length = c_fixed(c, 4);
    if (c->bad || header_length > c->end - c->pos)
        return fail(g->e, ".debug_line offset %zu: a header longer than its unit", c->pos);
    const size_t program_start = c->pos + (size_t)header_length;
    const unsigned min_len = (unsigned)c_fixed(c, 1);
    if (version >= 4)
        c_fixed(c, 1); /* maximum operations per instruction: 1 on GPUs */
    const int default_stmt = (int)c_fixed(c, 1);
    (void)default_stmt;
    const int line_base = (int8_t)c_fixed(c, 1);
    const unsigned line_range = (unsigned)c_fixed(c, 1);
    const unsigned opcode_base = (unsigned)c_fixed(c, 1);
    uint8_t lengths[256] = {0};
    for (unsigned i = 1; i < opcode_base && !c->bad; i++)
        lengths[i] = (uint8_t)c_fixed(c, 1);
    if (c->bad || line_range == 0 || opcode_base == 0)
        return fail(g->e, ".debug_line offset %zu: a malformed header (line range %u, opcode "
                          "base %u)", c->pos, line_range, opcode_base);
    /* directories, then files: this unit's file numbers (from 1) map to
     * names in out->files */
    const char *dirs[256];
    unsigned ndirs = 0;
    for (const char *d = c_str(c); d && *d; d = c_str(c))
        if (ndirs < 256)
            dirs[ndirs++] = d;
    uint32_t files[4096];
    unsigned nfiles = 0;
    for (const char *f = c_str(c); f && *f && !c->bad; f = c_str(c)) {
        const uint64_t dir = c_uleb(c);
        c_uleb(c);
        c_uleb(c);
        char path[1024];
        if (dir >= 1 && dir <= ndirs && f[0] != '/')
            snprintf(path, sizeof path, "%s/%s", dirs[dir - 1], f);
        else
            snprintf(path, sizeof path, "%s", f);
        long id = intern(&g->out->files, &g->out->nfiles, &g->cap_files, path);
        if (id < 0)
            return fail(g->e, "out of memory");
        if (nfiles < 4096)
            files[nfiles++] = (uint32_t)id;
    }
    if (c->bad)
        return fail(g->e, ".debug_line offset %zu: the header ends inside its file table",
                    c->pos);
    c->pos = program_start;

    uint64_t addr = 0, line = 1, file = 1;
    long func = -1;
    while (c->pos < c->end && !c->bad && !g->e->failed) {
        const unsigned op = (unsigned)c_fixed(c, 1);
        uint32_t fid = file >= 1 && file <= nfiles ? files[file - 1] : UINT32_MAX;
        if (op >= opcode_base) {
            const unsigned adj = op - opcode_base;
            addr += (uint64_t)(adj / line_range) * min_len;
            line += (uint64_t)(int64_t)(line_base + (int)(adj % line_range));
            if (fid != UINT32_MAX)
                add_row(g, func, addr, fid, line);
            continue;
        }
        switch (op) {
        case 0: { /* extended */
            const uint64_t len = c_uleb(c);
            if (c->bad || len == 0 || len > c->end - c->pos) {
                c->bad = 1;
                break;
            }
            const size_t next = c->pos + (size_t)len;
            const unsigned sub = (unsigned)c_fixed(c, 1);
            if (sub == 1) { /* end_sequence */
                if (fid != UINT32_MAX)
                    add_row(g, func, addr, fid, 0);
                addr = 0;
                line = 1;
                file = 1;
                func = -1;
            } else if (sub == 2 && len == 9) { /* set_address, relocated */
                const size_t at = c->pos;
                addr = c_fixed(c, 8);
                uint64_t sym;
                int64_t addend;
                uint32_t pc = 0;
                func = -1;
                if (reloc_at(g, at, addr, &sym, &addend)) {
                    func = reloc_function(g->t, sym, addend, g->out, &g->cap_funcs, &pc);
                    addr = pc;
                }
            }
            c->pos = next; /* define_file and vendor extensions: skipped */
            break;
        }
        case 1: /* copy */
            if (fid != UINT32_MAX)
                add_row(g, func, addr, fid, line);
            break;
        case 2: addr += c_uleb(c) * min_len; break;
        case 3: line += (uint64_t)c_sleb(c); break;
        case 4: file = c_uleb(c); break;
        case 8: addr += (uint64_t)((255u - opcode_base) / line_range) * min_len; break;
        case 9: addr += c_fixed(c, 2); break;
        default: /* column, stmt, basic block, prologue, epilogue, isa, unknown: operands */
            for (unsigned k = 0; k < lengths[op]; k++)
                c_uleb(c);
            break;
        }
    }
    if (c->bad)
        return fail(g->e, ".debug_line offset %zu: the program runs past its unit", c->pos);
    return g->e->failed ? -1 : 0;
}

static int by_func_pc(const void *pa, const void *pb)
{
    const cml_tf_line *a = pa, *b = pb;
    if (a->func != b->func)
        return a->func < b->func ? -1 : 1;
    if (a->pc != b->pc)
        return a->pc < b->pc ? -1 : 1;
    /* rows at one pc in program order: the last one holds (DWARF) */
    return a->order < b->order ? -1 : a->order > b->order;
}

int cml_tf_lines_parse(const uint8_t *b, size_t n, cml_tf_lines *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    elf e = {b, n, err, errlen, 0};
    tables t;
    memset(&t, 0, sizeof t);
    program g;
    memset(&g, 0, sizeof g);
    g.e = &e;
    g.t = &t;
    g.out = out;
    if (read_sections(&e, &t) == 0) {
        const section *dl = NULL;
        for (size_t i = 0; i < t.nsh; i++) {
            if (!strcmp(t.sh[i].name, ".debug_line"))
                dl = &t.sh[i];
            if ((!strcmp(t.sh[i].name, ".rela.debug_line") && t.sh[i].type == 4) ||
                (!strcmp(t.sh[i].name, ".rel.debug_line") && t.sh[i].type == 9))
                g.rela = &t.sh[i];
        }
        size_t pos = 0;
        while (dl && dl->p && pos < dl->size && !e.failed) {
            cur c = {dl->p, pos, (size_t)dl->size, 0};
            const uint64_t len = c_fixed(&c, 4);
            if (c.bad || len == 0xFFFFFFFFu || len > dl->size - c.pos) {
                fail(&e, ".debug_line offset %zu: a unit of %llu bytes, %llu left%s", pos,
                     (unsigned long long)len, (unsigned long long)(dl->size - c.pos),
                     len == 0xFFFFFFFFu ? " (64-bit DWARF is not read)" : "");
                break;
            }
            c.end = c.pos + (size_t)len;
            pos = c.end;
            run_unit(&g, &c);
        }
    }
    free(t.sh);
    if (e.failed) {
        cml_tf_lines_free(out);
        return -1;
    }
    if (out->nrows)
        qsort(out->rows, out->nrows, sizeof *out->rows, by_func_pc);
    return 0;
}

int cml_tf_lines_read(const char *path, cml_tf_lines *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1u << 16, n = 0;
    uint8_t *b = malloc(cap);
    while (b) {
        n += fread(b + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *nb = cap <= SIZE_MAX / 2 ? realloc(b, cap * 2u) : NULL;
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2u;
    }
    const int bad = ferror(f);
    fclose(f);
    if (!b || bad) {
        snprintf(err, errlen, "%s: %s", path, b ? "read error" : "out of memory");
        free(b);
        return -1;
    }
    char why[300];
    int rc = cml_tf_lines_parse(b, n, out, why, sizeof why);
    free(b);
    if (rc != 0)
        snprintf(err, errlen, "%s: %s", path, why);
    return rc;
}

void cml_tf_lines_free(cml_tf_lines *l)
{
    for (size_t i = 0; i < l->nfuncs; i++)
        free(l->funcs[i]);
    for (size_t i = 0; i < l->nfiles; i++)
        free(l->files[i]);
    free(l->funcs);
    free(l->files);
    free(l->rows);
    memset(l, 0, sizeof *l);
}

const cml_tf_line *cml_tf_lines_find(const cml_tf_lines *l, const char *func, uint32_t pc)
{
    size_t f = 0;
    while (f < l->nfuncs && strcmp(l->funcs[f], func))
        f++;
    if (f == l->nfuncs)
        return NULL;
    /* the last row of f at or before pc (rows are sorted) */
    const cml_tf_line *best = NULL;
    size_t lo = 0, hi = l->nrows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2u;
        const cml_tf_line *r = &l->rows[mid];
        if (r->func < f || (r->func == f && r->pc <= pc)) {
            if (r->func == f)
                best = r;
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return best && best->line ? best : NULL;
}
