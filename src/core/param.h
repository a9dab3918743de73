/*
 * Experiment parameters: declared once per experiment with their allowed
 * range, parsed from the command line into value lists ("0:32,128",
 * "ca,cg,nc", "4M"), validated with a one-line message naming the option.
 */
#ifndef CML_PARAM_H
#define CML_PARAM_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/model.h"

#define CML_MAX_PARAMS 12
#define CML_MAX_VALUES 512

typedef struct cml_param_def {
    const char *name;           /* option name without dashes: "offset" */
    const char *help;           /* one line */
    int64_t min, max;           /* allowed range (choices: index range, set automatically) */
    const char *def;            /* default list, in the same syntax the user types */
    const char *const *choices; /* NULL, or NULL-terminated names ("ca","cg","nc",NULL) */
    unsigned flags;             /* CML_PARAM_* */
    size_t field;               /* CML_FIELD(settings struct, int64_t member) */
    const char *applies;        /* NULL: always; "pattern=stride,stride-write": only at
                                   those values of an option declared after this one;
                                   elsewhere it is 0, swept once and left out of the
                                   record */
} cml_param_def;

/* Values must be powers of two (0 too, when the range includes it). */
#define CML_PARAM_POW2 1u
/* Not part of the variant name (sizes chosen from the device, say). */
#define CML_PARAM_NOVARIANT 2u
/* 0 is allowed besides min..max (min > 0): "0: chosen for you" beside a
 * range whose smaller values cannot run. */
#define CML_PARAM_OR_ZERO 4u

/* Where an option's value goes in the experiment's settings struct: one
 * past the member's offset, so that 0 means "no field" in a row that
 * forgot it (the registry test refuses such a row). */
#define CML_FIELD(type, member) (offsetof(type, member) + 1)

typedef struct cml_param_list {
    size_t count;
    int64_t v[CML_MAX_VALUES];
    int given;                  /* set by the user (not the default) */
} cml_param_list;

typedef struct cml_param_values {
    const cml_param_def *defs;
    size_t ndefs;
    cml_param_list list[CML_MAX_PARAMS];
} cml_param_values;

/*
 * Parse a list for `def`: comma-separated items, each a value or a range
 * "a:b" (inclusive) or "a:b:step"; integers take an optional k/M/G/T suffix
 * (powers of 1024) or the form 2^k; enumerated parameters take choice names
 * (or "all"). On error writes a one-line message naming --NAME and the
 * allowed range into err and returns CML_EINVAL.
 */
cml_status cml_param_parse(const cml_param_def *def, const char *text, cml_param_list *out,
                           char *err, size_t errlen);

/* Fill every list with its default. CML_EINVAL if a default is malformed. */
cml_status cml_param_defaults(const cml_param_def *defs, size_t ndefs, cml_param_values *out,
                              char *err, size_t errlen);

/* Index of the parameter called `name`, or -1. */
int cml_param_index(const cml_param_values *pv, const char *name);

/* Set parameter `name` from text. CML_EINVAL with a message for an unknown
 * name or a bad value. */
cml_status cml_param_set(cml_param_values *pv, const char *name, const char *text, char *err,
                         size_t errlen);


/* Choice name of value v of an enumerated parameter, or NULL. */
const char *cml_param_choice(const cml_param_def *def, int64_t v);

/* Text describing the allowed values: "0..4096" or "ca|cg|nc". */
void cml_param_describe_range(const cml_param_def *def, char *buf, size_t len);

#endif
