/*
 * The peak by class kept between runs (peak_cache.h). The file is lines of
 * "key value":
 *
 *   cumemlab-peak-cache 1
 *   search 1
 *   uuid GPU-5b5c...
 *   name NVIDIA H200
 *   driver 13000
 *   runtime 13000
 *   sm_clock_khz 1980000
 *   mem_clock_khz 2619000
 *   measured 2026-11-27 14:30 UTC
 *   read 4528.7 sum one-shot v16 u4 cs
 *   write 4703.8 fill one-shot v16
 *   ...
 *
 * (a class line: the class, GB/s, the variant that set it).
 */
#define _POSIX_C_SOURCE 200809L /* mkdir, rename, getpid */

#include "lab/peak_cache.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The peak search's version: bump it when the kernels or the shapes that
 * set the references change, so that older entries are measured again. */
#define PEAK_SEARCH_VERSION 1
#define FORMAT_LINE "cumemlab-peak-cache 1"

/* The cache folder into dir; 0 when none is known. */
static int cache_dir(char *dir, size_t len)
{
    const char *own = getenv("CUMEMLAB_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (own && *own)
        n = snprintf(dir, len, "%s", own);
    else if (xdg && *xdg == '/')
        n = snprintf(dir, len, "%s/cumemlab", xdg);
    else if (home && *home == '/')
        n = snprintf(dir, len, "%s/.cache/cumemlab", home);
    else
        return 0;
    return n > 0 && (size_t)n < len;
}

/* A UUID is safe in a file name: letters, digits and '-' only. */
static int uuid_ok(const char *u)
{
    if (!u[0])
        return 0;
    for (; *u; u++)
        if (!((*u >= '0' && *u <= '9') || (*u >= 'a' && *u <= 'z') || (*u >= 'A' && *u <= 'Z') ||
              *u == '-'))
            return 0;
    return 1;
}

cml_status cml_peak_cache_path(const cml_device_facts *d, char *path, size_t len, char *why,
                               size_t whylen)
{
    char dir[1024];
    if (!uuid_ok(d->uuid)) {
        snprintf(why, whylen, "the GPU reported no UUID");
        return CML_EUNSUPPORTED;
    }
    if (!cache_dir(dir, sizeof dir)) {
        snprintf(why, whylen, "no cache folder (neither CUMEMLAB_CACHE_DIR, XDG_CACHE_HOME nor "
                              "HOME is set)");
        return CML_EUNSUPPORTED;
    }
    int n = snprintf(path, len, "%s/peak-%s.txt", dir, d->uuid);
    if (n < 0 || (size_t)n >= len) {
        snprintf(why, whylen, "the cache path is too long");
        return CML_EUNSUPPORTED;
    }
    return CML_OK;
}

/* The key lines of d, in the file's order. */
static void key_lines(const cml_device_facts *d, char *buf, size_t len)
{
    snprintf(buf, len,
             FORMAT_LINE "\nsearch %d\nuuid %s\nname %s\ndriver %d\nruntime %d\n"
                         "sm_clock_khz %d\nmem_clock_khz %d\n",
             PEAK_SEARCH_VERSION, d->uuid, d->name, d->driver_version, d->runtime_version,
             d->sm_clock_khz, d->mem_clock_khz);
}

/* Which part of the key differs first, for the reason shown. */
static const char *first_difference(const char *want, const char *have)
{
    static const char *const names[] = {"the file format", "the peak search",  "the UUID",
                                        "the GPU's name",  "the driver",       "the runtime",
                                        "the SM clock",    "the memory clock"};
    size_t line = 0;
    while (*want && *want == *have) {
        line += *want == '\n';
        want++;
        have++;
    }
    return line < sizeof names / sizeof names[0] ? names[line] : "the key";
}

cml_status cml_peak_cache_load(const cml_device_facts *d, cml_peak_refs *refs, char *when,
                               size_t whenlen, char *why, size_t whylen)
{
    char path[1200];
    cml_status st = cml_peak_cache_path(d, path, sizeof path, why, whylen);
    if (st != CML_OK)
        return st;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, whylen, errno == ENOENT ? "no entry yet" : "%s: %s", path, strerror(errno));
        return CML_EINVAL;
    }
    /* The key: the first lines must be exactly this GPU's. */
    char want[1024], have[1024] = "", line[512];
    key_lines(d, want, sizeof want);
    size_t used = 0, nkey = 0;
    for (const char *p = want; *p; p++)
        nkey += *p == '\n';
    for (size_t k = 0; k < nkey && fgets(line, sizeof line, f); k++) {
        size_t n = strlen(line);
        if (used + n >= sizeof have)
            break;
        memcpy(have + used, line, n + 1);
        used += n;
    }
    if (strcmp(want, have) != 0) {
        snprintf(why, whylen, "%s changed since the entry was kept",
                 first_difference(want, have));
        fclose(f);
        return CML_EINVAL;
    }
    cml_peak_refs got;
    memset(&got, 0, sizeof got);
    char measured[64] = "";
    size_t lineno = nkey, classes = 0;
    st = CML_OK;
    while (st == CML_OK && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (!strncmp(line, "measured ", 9)) {
            snprintf(measured, sizeof measured, "%.63s", line + 9);
            continue;
        }
        char name[16] = "";
        double gbs = 0;
        int at = 0;
        int cls = -1;
        if (sscanf(line, "%15s %lf %n", name, &gbs, &at) == 2)
            cls = cml_peak_class_parse(name);
        if (cls < 0 || cls >= CML_PEAK_CLASS_COUNT || !isfinite(gbs) || !(gbs > 0) ||
            gbs > 1e6 || got.gbs[cls] > 0) {
            snprintf(why, whylen, "%s, line %zu: not a class line of this file", path, lineno);
            st = CML_EINVAL;
            break;
        }
        got.gbs[cls] = gbs;
        snprintf(got.source[cls], sizeof got.source[cls], "%s", line + at);
        classes++;
    }
    fclose(f);
    if (st != CML_OK)
        return st;
    if (classes != CML_PEAK_CLASS_COUNT) {
        snprintf(why, whylen, "%s: %zu of the %d classes", path, classes, CML_PEAK_CLASS_COUNT);
        return CML_EINVAL;
    }
    *refs = got;
    snprintf(when, whenlen, "%s", measured[0] ? measured : "at an unknown time");
    return CML_OK;
}

/* mkdir -p of the folder that holds `path` (its last component left out). */
static int make_parents(const char *path)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 1;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(dir, 0755) != 0 && errno != EEXIST)
                return 0;
            *p = '/';
        }
    return mkdir(dir, 0755) == 0 || errno == EEXIST;
}

cml_status cml_peak_cache_store(const cml_device_facts *d, const cml_peak_refs *refs, char *why,
                                size_t whylen)
{
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++)
        if (!(refs->gbs[c] > 0) || !isfinite(refs->gbs[c]) || refs->given) {
            snprintf(why, whylen, "not every class was measured");
            return CML_EINVAL;
        }
    char path[1200], tmp[1300];
    cml_status st = cml_peak_cache_path(d, path, sizeof path, why, whylen);
    if (st != CML_OK)
        return st;
    if (!make_parents(path)) {
        snprintf(why, whylen, "%s: cannot make its folder: %s", path, strerror(errno));
        return CML_EIO;
    }
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(why, whylen, "%s: %s", tmp, strerror(errno));
        return CML_EIO;
    }
    char key[1024], stamp[64] = "";
    key_lines(d, key, sizeof key);
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", &tm);
    fputs(key, f);
    fprintf(f, "measured %s\n", stamp);
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++) {
        /* one line each: a source with a newline would break the file */
        char source[sizeof refs->source[c]];
        snprintf(source, sizeof source, "%s", refs->source[c]);
        source[strcspn(source, "\r\n")] = '\0';
        fprintf(f, "%s %.17g %s\n", cml_peak_class_name(c), refs->gbs[c], source);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        unlink(tmp);
        return CML_EIO;
    }
    return CML_OK;
}
