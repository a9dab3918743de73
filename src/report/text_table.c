/* Text-table layout: measure, fit to a width, print aligned. */
#include "report/text_table.h"

#include <stdarg.h>
#include <string.h>

#include "report/report_util.h"

/* Copy with truncation; always NUL-terminates (len > 0). */
static void copy_label(char *dst, size_t len, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= len)
        n = len - 1;
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

void cml_tt_init(cml_tt *t, size_t indent)
{
    memset(t, 0, sizeof *t);
    t->indent = indent;
}

int cml_tt_add(cml_tt *t, const char *group0, const char *group1, const char *head,
               cml_tt_align align, int priority)
{
    if (t->ncol >= CML_TT_MAX_COLS)
        return -1;
    cml_tt_col *c = &t->col[t->ncol];
    memset(c, 0, sizeof *c);
    copy_label(c->group[0], sizeof c->group[0], group0);
    copy_label(c->group[1], sizeof c->group[1], group1);
    copy_label(c->head, sizeof c->head, head);
    c->align = align;
    c->priority = priority;
    c->width = cml_tt_display_len(c->head);
    return (int)t->ncol++;
}

/* Truncation may cut a UTF-8 sequence short; drop the partial tail so the
 * cell stays valid UTF-8. */
static void trim_partial_utf8(char *s, size_t n)
{
    size_t i = n;
    while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
        i--;
    if (i == 0)
        return;
    unsigned lead = (unsigned char)s[i - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (need > 1 && n - (i - 1) < need)
        s[i - 1] = '\0';
}

void cml_tt_set(cml_tt_row row, int col, const char *fmt, ...)
{
    if (col < 0 || col >= CML_TT_MAX_COLS)
        return;
    char *cell = row[col];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cell, CML_TT_CELL, fmt, ap);
    va_end(ap);
    if (n < 0)
        cell[0] = '\0';
    else if (n >= CML_TT_CELL)
        trim_partial_utf8(cell, CML_TT_CELL - 1);
}

void cml_tt_clear(cml_tt_row row, size_t ncol)
{
    for (size_t i = 0; i < ncol && i < CML_TT_MAX_COLS; i++)
        row[i][0] = '\0';
}

size_t cml_tt_display_len(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t n = 0;
    while (*s) {
        size_t k = cml_rep_utf8_len(s);
        s += k ? k : 1; /* an invalid byte is shown as one '?' */
        n++;
    }
    return n;
}

void cml_tt_measure(cml_tt *t, cml_tt_row row, size_t span_from)
{
    for (size_t i = 0; i < t->ncol && i < span_from; i++) {
        size_t w = cml_tt_display_len(row[i]);
        if (w > t->col[i].width)
            t->col[i].width = w;
    }
}

#define ALL_PANELS ((size_t)-1)

/* Is column i printed in this panel (ALL_PANELS: in any)? */
static int shown(const cml_tt *t, size_t i, size_t panel)
{
    const cml_tt_col *c = &t->col[i];
    if (c->hidden)
        return 0;
    return panel == ALL_PANELS || c->priority >= CML_TT_KEEP || c->panel == panel;
}

/* Next column at or after i shown in panel (t->ncol when none). */
static size_t next_shown(const cml_tt *t, size_t i, size_t panel)
{
    while (i < t->ncol && !shown(t, i, panel))
        i++;
    return i;
}

/* The run of shown columns sharing group label `level` that begins at shown
 * column i: returns the next column after the run, its width and last column. */
static size_t group_run(const cml_tt *t, int level, size_t i, size_t panel, size_t *width,
                        size_t *last)
{
    const char *label = t->col[i].group[level];
    size_t w = t->col[i].width;
    size_t end = i;
    size_t j = next_shown(t, i + 1, panel);
    /* An inner label only spans columns that also share the outer label. */
    while (j < t->ncol && strcmp(t->col[j].group[level], label) == 0 &&
           (level == 0 || strcmp(t->col[j].group[0], t->col[i].group[0]) == 0)) {
        w += CML_TT_GAP + t->col[j].width;
        end = j;
        j = next_shown(t, j + 1, panel);
    }
    *width = w;
    *last = end;
    return j;
}

/* A group label needs room for itself and a dash and a space on each side.
 * Panels hold whole groups, so widening over all panels holds in each. */
static void widen_for_groups(cml_tt *t)
{
    for (int level = 0; level < 2; level++) {
        size_t i = next_shown(t, 0, ALL_PANELS);
        while (i < t->ncol) {
            size_t w, last;
            size_t j = group_run(t, level, i, ALL_PANELS, &w, &last);
            size_t need = cml_tt_display_len(t->col[i].group[level]);
            if (need) {
                need += 4;
                if (w < need)
                    t->col[last].width += need - w;
            }
            i = j;
        }
    }
}

static size_t total_width(const cml_tt *t)
{
    size_t w = 0, n = 0;
    for (size_t i = 0; i < t->ncol; i++)
        if (!t->col[i].hidden) {
            w += t->col[i].width;
            n++;
        }
    return w + (n ? (n - 1) * CML_TT_GAP : 0) + t->indent;
}

/*
 * Split the shown columns into panels: key columns go in every panel; the
 * others, a whole outer group at a time (an unlabelled column is a group of
 * its own), fill a panel until the next group would overflow it.
 */
static size_t split_panels(cml_tt *t, size_t max_width)
{
    size_t keep_w = t->indent, nkeep = 0;
    for (size_t i = 0; i < t->ncol; i++)
        if (!t->col[i].hidden && t->col[i].priority >= CML_TT_KEEP) {
            keep_w += (nkeep ? CML_TT_GAP : 0) + t->col[i].width;
            nkeep++;
        }
    size_t panel = 0, cur = keep_w, in_panel = 0;
    size_t i = 0;
    while (i < t->ncol) {
        if (t->col[i].hidden || t->col[i].priority >= CML_TT_KEEP) {
            i++;
            continue;
        }
        /* The block: i and the following columns with its outer label. */
        size_t j = i + 1, bw = t->col[i].width;
        while (j < t->ncol && t->col[i].group[0][0] &&
               (t->col[j].hidden || (t->col[j].priority < CML_TT_KEEP &&
                                     strcmp(t->col[j].group[0], t->col[i].group[0]) == 0))) {
            if (!t->col[j].hidden)
                bw += CML_TT_GAP + t->col[j].width;
            j++;
        }
        size_t add = (nkeep || in_panel ? CML_TT_GAP : 0) + bw;
        if (in_panel && cur + add > max_width) {
            panel++;
            cur = keep_w;
            in_panel = 0;
            add = (nkeep ? CML_TT_GAP : 0) + bw;
        }
        cur += add;
        in_panel++;
        for (size_t k = i; k < j; k++)
            t->col[k].panel = panel;
        i = j;
    }
    return panel + 1;
}

/* Widths from the data and heads (base), widened for the group labels of
 * the columns now shown. */
static void relayout(cml_tt *t, const size_t *base)
{
    for (size_t i = 0; i < t->ncol; i++)
        t->col[i].width = base[i];
    widen_for_groups(t);
}

static size_t panel_width(const cml_tt *t, size_t panel)
{
    size_t w = t->indent, n = 0;
    for (size_t i = 0; i < t->ncol; i++)
        if (shown(t, i, panel)) {
            w += (n ? CML_TT_GAP : 0) + t->col[i].width;
            n++;
        }
    return w;
}

/* The panel a hidden column would join: that of a shown column of its
 * group, else that of the nearest shown column before it. */
static size_t home_panel(const cml_tt *t, size_t c)
{
    const cml_tt_col *col = &t->col[c];
    size_t home = 0;
    for (size_t i = 0; i < t->ncol; i++) {
        const cml_tt_col *o = &t->col[i];
        if (o->hidden || o->priority >= CML_TT_KEEP)
            continue;
        if (col->group[0][0] && strcmp(o->group[0], col->group[0]) == 0)
            return o->panel;
        if (i < c)
            home = o->panel;
    }
    return home;
}

/*
 * Once the table is split anyway, the panels may have room for columns that
 * were left out: bring them back, most important first, where every panel
 * still fits.
 */
static void restore_columns(cml_tt *t, const size_t *base, size_t max_width)
{
    int tried[CML_TT_MAX_COLS] = { 0 };
    for (;;) {
        size_t best = t->ncol;
        for (size_t i = 0; i < t->ncol; i++)
            if (t->col[i].hidden && !tried[i] &&
                (best == t->ncol || t->col[i].priority > t->col[best].priority))
                best = i;
        if (best == t->ncol)
            return;
        tried[best] = 1;
        t->col[best].panel = home_panel(t, best);
        t->col[best].hidden = 0;
        relayout(t, base);
        int fits = 1;
        for (size_t p = 0; p < t->npanels; p++)
            fits &= panel_width(t, p) <= max_width;
        if (!fits) {
            t->col[best].hidden = 1;
            relayout(t, base);
        }
    }
}

size_t cml_tt_fit(cml_tt *t, size_t max_width)
{
    /* Widths from data and heads are final; group widening is recomputed
     * from them after each removal, since a removal can shrink a group. */
    size_t base[CML_TT_MAX_COLS];
    for (size_t i = 0; i < t->ncol; i++) {
        size_t h = cml_tt_display_len(t->col[i].head);
        if (t->col[i].width < h)
            t->col[i].width = h;
        base[i] = t->col[i].width;
        t->col[i].hidden = 0;
    }
    for (;;) {
        relayout(t, base);
        for (size_t i = 0; i < t->ncol; i++)
            t->col[i].panel = 0;
        t->npanels = 1;
        if (total_width(t) <= max_width)
            return t->npanels;
        size_t victim = t->ncol;
        for (size_t i = 0; i < t->ncol; i++) {
            if (t->col[i].hidden || t->col[i].priority >= CML_TT_OPTIONAL)
                continue;
            if (victim == t->ncol || t->col[i].priority <= t->col[victim].priority)
                victim = i;
        }
        if (victim == t->ncol)
            break;
        t->col[victim].hidden = 1;
    }
    t->npanels = split_panels(t, max_width);
    restore_columns(t, base, max_width);
    return t->npanels;
}

/*
 * Output with lazy spaces: padding is only written once something visible
 * follows it, so no line ends in spaces.
 */
typedef struct line_out {
    FILE *out;
    size_t pending; /* spaces owed */
    size_t col;     /* display column reached, pending spaces included */
} line_out;

static void lo_space(line_out *lo, size_t n)
{
    lo->pending += n;
    lo->col += n;
}

/* Write text: control characters shown as spaces, bytes that are not
 * UTF-8 as '?', so the terminal always gets valid UTF-8. */
static void lo_text(line_out *lo, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        if (*s < 0x20 || *s == 0x7F) {
            lo_space(lo, 1);
            s++;
            continue;
        }
        while (lo->pending) {
            fputc(' ', lo->out);
            lo->pending--;
        }
        size_t k = cml_rep_utf8_len(s);
        if (k == 0) {
            fputc('?', lo->out);
            s++;
        } else {
            fwrite(s, 1, k, lo->out);
            s += k;
        }
        lo->col++;
    }
}

static void lo_end(line_out *lo)
{
    fputc('\n', lo->out);
    lo->pending = 0;
    lo->col = 0;
}

static void lo_cell(line_out *lo, const char *s, size_t width, cml_tt_align align)
{
    size_t n = cml_tt_display_len(s);
    size_t pad = n < width ? width - n : 0;
    if (align == CML_TT_RIGHT)
        lo_space(lo, pad);
    lo_text(lo, s);
    if (align == CML_TT_LEFT)
        lo_space(lo, pad);
}

static void lo_repeat(line_out *lo, char c, size_t n)
{
    char s[2] = { c, '\0' };
    while (n--)
        lo_text(lo, s);
}

/* A label centred in `width` between dashes: "---- measured ----". */
static void lo_group_label(line_out *lo, const char *label, size_t width)
{
    size_t n = cml_tt_display_len(label);
    if (n == 0) {
        lo_space(lo, width);
        return;
    }
    if (width < n + 4) { /* cannot happen after cml_tt_fit */
        lo_cell(lo, label, width, CML_TT_LEFT);
        return;
    }
    size_t dashes = width - n - 2;
    size_t left = dashes / 2;
    lo_repeat(lo, '-', left);
    lo_space(lo, 1);
    lo_text(lo, label);
    lo_space(lo, 1);
    lo_repeat(lo, '-', dashes - left);
}

static int level_used(const cml_tt *t, int level, size_t panel)
{
    for (size_t i = 0; i < t->ncol; i++)
        if (shown(t, i, panel) && t->col[i].group[level][0])
            return 1;
    return 0;
}

void cml_tt_print_header(const cml_tt *t, FILE *out, size_t panel)
{
    line_out lo = { out, 0, 0 };
    for (int level = 0; level < 2; level++) {
        if (!level_used(t, level, panel))
            continue;
        lo_space(&lo, t->indent);
        size_t i = next_shown(t, 0, panel);
        int first = 1;
        while (i < t->ncol) {
            size_t w, last;
            size_t j = group_run(t, level, i, panel, &w, &last);
            if (!first)
                lo_space(&lo, CML_TT_GAP);
            lo_group_label(&lo, t->col[i].group[level], w);
            first = 0;
            i = j;
        }
        lo_end(&lo);
    }
    for (int rule = 0; rule < 2; rule++) {
        lo_space(&lo, t->indent);
        int first = 1;
        for (size_t i = 0; i < t->ncol; i++) {
            const cml_tt_col *c = &t->col[i];
            if (!shown(t, i, panel))
                continue;
            if (!first)
                lo_space(&lo, CML_TT_GAP);
            first = 0;
            if (rule)
                lo_repeat(&lo, '-', c->width);
            else
                lo_cell(&lo, c->head, c->width, c->align);
        }
        lo_end(&lo);
    }
}

/* Print text word-wrapped from the current column of lo, continuation lines
 * starting at column `at`; no line wider than width unless a word is. */
static void lo_wrap(line_out *lo, const char *text, size_t at, size_t width)
{
    const char *p = text;
    int line_has_word = 0;
    char word[CML_TT_CELL * 4];
    for (;;) {
        while (*p && ((unsigned char)*p <= 0x20 || (unsigned char)*p == 0x7F))
            p++;
        if (!*p)
            break;
        size_t n = 0;
        while (p[n] && (unsigned char)p[n] > 0x20 && (unsigned char)p[n] != 0x7F)
            n++;
        size_t take = n < sizeof word - 1 ? n : sizeof word - 1;
        memcpy(word, p, take);
        word[take] = '\0';
        p += n;
        size_t wl = cml_tt_display_len(word);
        if (line_has_word && lo->col + 1 + wl > width) {
            lo_end(lo);
            lo_space(lo, at);
            line_has_word = 0;
        }
        if (line_has_word)
            lo_space(lo, 1);
        lo_text(lo, word);
        line_has_word = 1;
    }
    lo_end(lo);
}

void cml_tt_print_row(const cml_tt *t, FILE *out, cml_tt_row row, size_t span_from,
                      const char *span_text, size_t max_width, size_t panel)
{
    line_out lo = { out, 0, 0 };
    lo_space(&lo, t->indent);
    int first = 1;
    for (size_t i = 0; i < t->ncol; i++) {
        const cml_tt_col *c = &t->col[i];
        if (i == span_from)
            break;
        if (!shown(t, i, panel))
            continue;
        if (!first)
            lo_space(&lo, CML_TT_GAP);
        first = 0;
        lo_cell(&lo, row[i], c->width, c->align);
    }
    if (span_from == CML_TT_NO_SPAN || !span_text) {
        lo_end(&lo);
        return;
    }
    if (!first)
        lo_space(&lo, CML_TT_GAP);
    size_t at = lo.col;
    /* Keep at least 40 columns for the text, even past max_width. */
    size_t width = max_width > at + 40 ? max_width : at + 40;
    lo_wrap(&lo, span_text, at, width);
}

void cml_tt_hidden_list(const cml_tt *t, char *buf, size_t len)
{
    size_t n = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < t->ncol; i++) {
        const cml_tt_col *c = &t->col[i];
        if (!c->hidden)
            continue;
        char name[3 * CML_TT_LABEL + 8];
        snprintf(name, sizeof name, "%s%s%s%s%s", c->group[0], c->group[0][0] ? " " : "",
                 c->group[1], c->group[1][0] ? " " : "", c->head);
        int w = snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
        if (w < 0 || (size_t)w >= len - n)
            break;
        n += (size_t)w;
    }
}

void cml_tt_wrap(FILE *out, const char *prefix, const char *text, size_t width,
                 size_t cont_indent)
{
    line_out lo = { out, 0, 0 };
    lo_text(&lo, prefix);
    lo_wrap(&lo, text, cont_indent, width);
}
