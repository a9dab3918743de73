/*
 * Output files (--json, --csv, --html): the checks the command line makes on
 * every output path before anything runs, and the writer that puts a report
 * in place.
 *
 * What a path leads to decides how it is written (docs/json-schema.md, "How
 * files are written"):
 *   "-", or a path to the program's own standard output or error
 *       (/dev/stdout, /proc/self/fd/1, a symlink to one): written through
 *       that stream, in place;
 *   a character device, FIFO or socket (or a symlink to one): opened and
 *       written in place, never replaced (/dev/null, a terminal, a pipe);
 *   a regular file, or a symlink to one: the file the links lead to is
 *       replaced atomically: a temporary file with an unpredictable name is
 *       created next to it (O_EXCL|O_NOFOLLOW), given the replaced file's
 *       permission bits (and owner, where allowed), written, synced and
 *       renamed over it. The symlink stays a symlink;
 *   a name that does not exist yet (or a dangling symlink, followed to the
 *       name it points at): created the same way, mode 0666 & ~umask;
 *   a directory or a block device: refused.
 * A failed or interrupted write leaves the target as it was and no
 * temporary file: SIGINT, SIGTERM and SIGHUP during the write remove the
 * temporary file, then take their previous action (by default, end the
 * program). SIGKILL cannot be caught: it may leave a temporary file, never
 * a partial target.
 *
 * Not thread-safe: one write at a time (the signal handler's registry holds
 * one temporary path).
 */
#ifndef CML_OUTPUT_FILE_H
#define CML_OUTPUT_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "cumemlab/model.h" /* cml_status */

/*
 * Can `path` be written? Checked before a run, so that a bad path costs
 * nothing: returns 0 when it can be (as far as can be known without
 * writing), else -1 with err = "PATH: reason" (one line), e.g.
 *   "out/x.csv: cannot create: folder 'out' does not exist"
 *   "results: is a directory, not a file"
 *   "ro/x.json: cannot create: folder 'ro' is not writable: Permission denied"
 * "-", character devices, FIFOs and sockets are fine. Writes nothing.
 */
int cml_output_check(const char *path, char *err, size_t errlen);

/*
 * Do a and b lead to the same file? 1 when they have the same device and
 * inode (links, "-" and /dev/stdout, one FIFO twice), or, for names not
 * created yet, the same path once the folder is resolved ("x.json" and
 * "./d/../x.json"); 0 otherwise, and 0 for a character device other than
 * the program's own output streams (/dev/null twice: each output is
 * written there in place, neither replaces the other). Paths that cannot
 * be resolved compare by their text.
 */
int cml_output_same(const char *a, const char *b);

/* Writes the document to out; returns CML_OK or an error (CML_EIO when the
 * stream failed). ctx is passed through. */
typedef cml_status (*cml_output_fn)(FILE *out, const void *ctx);

/*
 * Write with fn to path as described above. On CML_OK the target holds
 * exactly what fn wrote. On failure the target is as it was (for a file)
 * and err holds one line naming the path: CML_EINVAL for an empty name,
 * CML_EIO for a path that cannot or must not be written (no folder, a
 * directory, a block device) or a file that cannot be created, written or
 * renamed, else fn's own status.
 */
cml_status cml_output_write(const char *path, cml_output_fn fn, const void *ctx, char *err,
                            size_t errlen);

#endif
