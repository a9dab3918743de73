/*
 * Text-table layout for the terminal: columns with a header, up to two levels
 * of spanning group labels above them ("---- measured ----"), right- or
 * left-aligned cells, and a width budget. The budget is met first by leaving
 * out optional columns (priority below CML_TT_OPTIONAL), lowest priority
 * first; if that is not enough, the table is split into panels printed one
 * below the other, each repeating the key columns (priority CML_TT_KEEP) and
 * holding whole groups. No allocation: the caller measures every row once
 * (cml_tt_measure), fits (cml_tt_fit), then prints the rows again per panel.
 *
 * Widths count UTF-8 code points, so a non-ASCII name does not break the
 * alignment (wide CJK glyphs are not accounted for). Control characters in
 * cells are shown as spaces. Lines carry no trailing spaces.
 */
#ifndef CML_TEXT_TABLE_H
#define CML_TEXT_TABLE_H

#include <stddef.h>
#include <stdio.h>

#define CML_TT_MAX_COLS 96
#define CML_TT_CELL 128
#define CML_TT_LABEL 40
#define CML_TT_GAP 2          /* spaces between columns */
#define CML_TT_KEEP 100       /* key columns: never left out, repeated in every panel */
#define CML_TT_OPTIONAL 50    /* columns below this priority may be left out */
#define CML_TT_NO_SPAN ((size_t)-1)

typedef enum cml_tt_align { CML_TT_LEFT = 0, CML_TT_RIGHT } cml_tt_align;

typedef struct cml_tt_col {
    char group[2][CML_TT_LABEL]; /* spanning labels: [0] outer, [1] inner; "" none */
    char head[CML_TT_LABEL];
    cml_tt_align align;
    int priority;                /* higher survives longer when the table must shrink */
    size_t width;                /* display width, grown by cml_tt_measure */
    int hidden;                  /* left out by cml_tt_fit */
    size_t panel;                /* panel it is printed in (key columns: all) */
} cml_tt_col;

typedef struct cml_tt {
    cml_tt_col col[CML_TT_MAX_COLS];
    size_t ncol;
    size_t indent;               /* spaces before every line */
    size_t npanels;              /* set by cml_tt_fit */
} cml_tt;

/* One row's cells, indexed by column. */
typedef char cml_tt_row[CML_TT_MAX_COLS][CML_TT_CELL];

void cml_tt_init(cml_tt *t, size_t indent);

/* Add a column; returns its index, or -1 when the table is full. NULL
 * labels mean none. */
int cml_tt_add(cml_tt *t, const char *group0, const char *group1, const char *head,
               cml_tt_align align, int priority);

/* printf into one cell, truncating at CML_TT_CELL - 1 bytes. */
void cml_tt_set(cml_tt_row row, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Clear every cell of a row. */
void cml_tt_clear(cml_tt_row row, size_t ncol);

/* Grow column widths to hold this row's cells (those before span_from only;
 * CML_TT_NO_SPAN: all). */
void cml_tt_measure(cml_tt *t, cml_tt_row row, size_t span_from);

/* Widen for headers and group labels; leave out optional columns of lowest
 * priority (the rightmost first among equals) until the table is at most
 * max_width wide; if it still is not, assign the other columns to panels,
 * whole groups at a time, so that each panel fits (a group wider than the
 * budget gets a panel of its own). Returns the number of panels (>= 1). */
size_t cml_tt_fit(cml_tt *t, size_t max_width);

/* Group label rows (when any), the column heads, and a rule of dashes, for
 * the columns of one panel. */
void cml_tt_print_header(const cml_tt *t, FILE *out, size_t panel);

/*
 * One row of one panel. When span_from is a column index (ncol included),
 * the cells from there on are replaced by span_text, which runs across them
 * and wraps, at word boundaries, to stay within max_width.
 */
void cml_tt_print_row(const cml_tt *t, FILE *out, cml_tt_row row, size_t span_from,
                      const char *span_text, size_t max_width, size_t panel);

/* Comma-separated heads of the columns cml_tt_fit left out ("" if none). */
void cml_tt_hidden_list(const cml_tt *t, char *buf, size_t len);

/* Display width of a UTF-8 string (code points; control characters count 1). */
size_t cml_tt_display_len(const char *s);

/*
 * Print `prefix` then `text`, word-wrapped so that no line is wider than
 * `width` (a single longer word overflows); continuation lines begin with
 * `cont_indent` spaces. Whitespace and control characters separate words.
 * Ends with a newline.
 */
void cml_tt_wrap(FILE *out, const char *prefix, const char *text, size_t width,
                 size_t cont_indent);

#endif
