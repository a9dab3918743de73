/*
 * gzip-compressed text decompressed as it is read (results_file.c reads a
 * results file through it when the file starts with gzip's magic bytes).
 * Built on zlib when the build found it (CML_HAVE_ZLIB); without it,
 * cml_gzin_open says so and nothing is read.
 */
#ifndef CML_GZIP_INPUT_H
#define CML_GZIP_INPUT_H

#include <stddef.h>
#include <stdio.h>

#include "cumemlab/status.h"

/* The first two bytes of every gzip member (RFC 1952). */
#define CML_GZIP_MAGIC0 0x1f
#define CML_GZIP_MAGIC1 0x8b

typedef struct cml_gzin cml_gzin;

/* 1 when this build decompresses gzip (zlib was found). */
int cml_gzin_supported(void);

/*
 * Decompress what f holds, the first nhead bytes of which were already read
 * into head (to see the magic bytes). CML_OK with *g set; CML_ENOMEM; or,
 * in a build without zlib, CML_EUNSUPPORTED with err saying so and how to
 * read the file anyway.
 */
cml_status cml_gzin_open(cml_gzin **g, FILE *f, const unsigned char *head, size_t nhead, char *err,
                         size_t errlen);

/*
 * Up to cap decompressed bytes into buf; *got = 0 at the end of the data.
 * Concatenated gzip members (`cat a.gz b.gz`) are read one after another.
 * CML_EIO when f cannot be read; CML_EINVAL for data that is not gzip, is
 * corrupt (a bad checksum included) or ends inside a member: err says which
 * and at which compressed byte.
 */
cml_status cml_gzin_read(cml_gzin *g, char *buf, size_t cap, size_t *got, char *err,
                         size_t errlen);

void cml_gzin_close(cml_gzin *g);

#endif
