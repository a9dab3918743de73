/*
 * The command line's one option table: every global option once, with its
 * value's kind and range, the commands it applies to and its help line.
 * The table drives the parsing, the checking (an option a command does not
 * use is a usage error naming both) and the Options section of --help.
 * Anything else of the form --name value (or --name=value, or name=value)
 * is kept for the experiment, whose own option table checks it; an
 * experiment's own option wins over a global one of the same name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/book.h"
#include "cli/cli.h"

/* Commands, as bits of an option's `commands`. */
enum {
    C_TOUR = 1u << 0, C_SUITE = 1u << 1, C_LIST = 1u << 2, C_MODEL = 1u << 3,
    C_RUN = 1u << 4, C_DEVICE = 1u << 5, C_REPORT = 1u << 6, C_VALIDATE = 1u << 7,
    C_TEXTBOOK = 1u << 8, C_HELP = 1u << 9,
    C_BOOK_LIST = 1u << 10, /* `textbook`: the book's programs listed */
    C_TRACE = 1u << 11,     /* `trace`: a program's kernels traced, or a saved trace */
    C_ALL = (1u << 12) - 1,
    /* commands that measure on a GPU */
    C_GPU = C_TOUR | C_SUITE | C_RUN | C_VALIDATE | C_TEXTBOOK,
    /* commands that write results */
    C_OUT = C_TOUR | C_SUITE | C_MODEL | C_RUN | C_DEVICE | C_REPORT | C_VALIDATE | C_TEXTBOOK,
    /* commands that run experiments and so take their options */
    C_EXPERIMENTS = C_TOUR | C_SUITE | C_MODEL | C_RUN | C_TEXTBOOK,
};

typedef enum opt_id {
    O_HELP, O_VERSION, O_QUIET, O_QUICK, O_MODEL, O_JSON, O_CSV, O_HTML, O_EXPR, O_DEVICE,
    O_WHERE, O_SIZE, O_PEAK, O_REPS, O_WARMUP, O_COUNTERS, O_SRC, O_SHOW_KERNEL, O_FROM,
    O_RECORDS, O_ALL, O_THRESHOLD, O_KERNEL, O_LAUNCH, O_BUDGET, O_OUT, O_RULES
} opt_id;

typedef enum opt_kind { K_FLAG, K_FILE, K_TEXT, K_INT, K_CHOICE } opt_kind;

typedef struct cli_option {
    opt_id id;
    const char *name;
    char short_name;            /* -h, -q; 0: none */
    opt_kind kind;
    int64_t min, max;           /* K_INT */
    const char *const *choices; /* K_CHOICE */
    unsigned commands;
    const char *metavar, *help; /* help may run on over lines of its own */
} cli_option;

static const char *const where_choices[] = {"dram", "l2", "l1", NULL};
static const char *const counters_choices[] = {"off", "on", "auto", NULL};

static const cli_option options[] = {
    {O_JSON, "json", 0, K_FILE, 0, 0, NULL, C_OUT | C_LIST | C_TRACE, "FILE",
     "write the results as JSON (list: every experiment's row;\n"
     "schema: docs/json-schema.md); - is standard output (the\n"
     "table then goes to standard error)"},
    {O_CSV, "csv", 0, K_FILE, 0, 0, NULL, C_OUT | C_TRACE, "FILE",
     "write one CSV row per variant (trace: per instruction)"},
    {O_HTML, "html", 0, K_FILE, 0, 0, NULL, C_OUT | C_TRACE, "FILE",
     "write a self-contained HTML report with charts (no network)"},
    {O_FROM, "from", 0, K_FILE, 0, 0, NULL, C_VALIDATE | C_TRACE, "FILE",
     "validate: judge the records of a saved results file (.json\n"
     "or .json.gz; - is standard input) instead of measuring;\n"
     "trace: report a saved trace (FILE.trace), running nothing"},
    {O_KERNEL, "kernel", 0, K_TEXT, 0, 0, NULL, C_TRACE, "NAME|REGEX",
     "trace: the kernels to record, by name or extended regular\n"
     "expression (mangled or demangled; default: every kernel)"},
    {O_LAUNCH, "launch", 0, K_INT, 1, 2147483647, NULL, C_TRACE, "N",
     "trace: record the N-th launch of each kernel chosen\n"
     "(1..2147483647; default 1)"},
    {O_BUDGET, "budget", 0, K_INT, (int64_t)1 << 20, (int64_t)1 << 36, NULL, C_TRACE, "BYTES",
     "trace: device memory a launch's records may use (1M..64G;\n"
     "default 256M); beyond it warps are sampled, and the report\n"
     "says so"},
    {O_OUT, "out", 0, K_FILE, 0, 0, NULL, C_TRACE, "FILE",
     "trace: keep the trace in FILE (and the kernels' cubins in\n"
     "FILE.cubins/); default: a temporary file, removed"},
    {O_RECORDS, "records", 0, K_FILE, 0, 0, NULL, C_VALIDATE, "FILE",
     "validate: also write the records it judged as results JSON\n"
     "(what --from reads back)"},
    {O_RULES, "rules", 0, K_FLAG, 0, 0, NULL, C_VALIDATE, NULL,
     "validate: list every explanation of every experiment (its\n"
     "mechanism, direction, bound and control) instead of judging;\n"
     "with --json FILE as JSON; no GPU needed"},
    {O_THRESHOLD, "threshold", 0, K_TEXT, 0, 0, NULL, C_REPORT, "PCT",
     "report over a fleet: flag a GPU's bandwidth off the group's\n"
     "median by more than PCT percent (0.1..100; default 3;\n"
     "docs/fleet.md)"},
    {O_ALL, "all", 0, K_FLAG, 0, 0, NULL, C_DEVICE, NULL,
     "device: every GPU of the host, each one's measured peak by\n"
     "class, and what joins each pair (NVLinks or the PCIe path,\n"
     "peer access), as nvidia-smi topo -m shows it"},
    {O_DEVICE, "device", 0, K_INT, 0, 63, NULL, C_GPU | C_DEVICE, "N",
     "the GPU to use (default 0)"},
    {O_WHERE, "where", 0, K_CHOICE, 0, 0, where_choices, C_GPU | C_MODEL, "dram|l2|l1",
     "size streaming arrays to live in DRAM (default), L2 or L1"},
    {O_SIZE, "size", 0, K_INT, 4096, (int64_t)1 << 40, NULL, C_GPU | C_MODEL, "BYTES",
     "array size instead (4096 .. 1T; k/M/G/T suffixes, 2^k)"},
    {O_PEAK, "peak", 0, K_INT, 1, 1000000, NULL, C_GPU & ~C_VALIDATE, "GBS|measure",
     "the reference for shares of peak (GB/s) instead of measuring it;\n"
     "measure: measure it again even if kept for this GPU (the\n"
     "peak by class is kept per GPU UUID, driver and clocks)"},
    {O_REPS, "reps", 0, K_INT, 1, 100000, NULL, C_GPU, "N",
     "timed samples (1..100000; default: at least 5, more until\nthe median is within 0.5% at 95% confidence, at most 80)"},
    {O_WARMUP, "warmup", 0, K_INT, 0, 1000, NULL, C_GPU, "N", "warm-up launches (0..1000)"},
    {O_MODEL, "model", 0, K_FLAG, 0, 0, NULL, C_TOUR | C_TEXTBOOK, NULL,
     "never use the GPU: model only"},
    {O_COUNTERS, "counters", 0, K_CHOICE, 0, 0, counters_choices,
     (C_GPU & ~C_VALIDATE) | C_TRACE, "on|off|auto",
     "read hardware counters (CUPTI) beside the model (default\n"
     "auto: when the profiler can run here; on: fail if it cannot;\n"
     "trace: a second run of the program, kernel replay)"},
    {O_QUICK, "quick", 0, K_FLAG, 0, 0, NULL, C_TOUR | C_SUITE, NULL,
     "fewer variants and repetitions (suite: the tour's variants)"},
    {O_QUIET, "quiet", 'q', K_FLAG, 0, 0, NULL, C_OUT | C_TRACE, NULL,
     "no table on standard output"},
    {O_EXPR, "expr", 0, K_TEXT, 0, 0, NULL, C_MODEL | C_RUN, "EXPR",
     "an index expression over the thread index: model --expr\n"
     "predicts it, run --expr compiles, runs and checks it (up to\n"
     "16 of them, side by side)"},
    {O_SRC, "src", 0, K_TEXT, 0, 0, NULL, C_MODEL | C_RUN, "EXPR",
     "with --op copy: the element each thread reads (default i)"},
    {O_SHOW_KERNEL, "show-kernel", 0, K_FLAG, 0, 0, NULL, C_MODEL, NULL,
     "model --expr: print the generated CUDA C kernel instead"},
    {O_HELP, "help", 'h', K_FLAG, 0, 0, NULL, C_ALL, NULL, "this text, or a command's"},
    {O_VERSION, "version", 'V', K_FLAG, 0, 0, NULL, 0, NULL,
     "the version (alone: cumemlab --version)"},
};

static const cli_option *find_option(const char *name)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (!strcmp(options[i].name, name))
            return &options[i];
    return NULL;
}

static const cli_option *find_short(char c)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (options[i].short_name == c)
            return &options[i];
    return NULL;
}

/* The command bit of cli->command (a textbook name when none else). */
static unsigned command_bit(const cml_cli *cli)
{
    static const struct { const char *name; unsigned bit; } cmds[] = {
        {"tour", C_TOUR},     {"suite", C_SUITE},   {"list", C_LIST},
        {"model", C_MODEL},   {"run", C_RUN},       {"device", C_DEVICE},
        {"report", C_REPORT}, {"validate", C_VALIDATE}, {"help", C_HELP},
        {"textbook", C_BOOK_LIST}, {"trace", C_TRACE},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(cli->command, cmds[i].name))
            return cmds[i].bit;
    return C_TEXTBOOK;
}

void cml_cli_print_options(FILE *out)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        const cli_option *o = &options[i];
        char head[64];
        snprintf(head, sizeof head, "--%s%s%s%s%c", o->name, o->metavar ? " " : "",
                 o->metavar ? o->metavar : "", o->short_name ? ", -" : "",
                 o->short_name ? o->short_name : ' ');
        fprintf(out, "  %-24s", head);
        for (const char *p = o->help; *p;) {
            size_t len = strcspn(p, "\n");
            fprintf(out, "%s%.*s\n", p == o->help ? "" : "                          ", (int)len,
                    p);
            p += len;
            if (*p)
                p++;
        }
    }
    fputs("  --NAME VALUES           an experiment's own option, e.g. --offset 0:32,128\n"
          "                          (it wins over a global option of the same name)\n",
          out);
}

/* Parse one integer with the parameter machinery, so ranges and messages
 * look the same as the experiments' options. */
static int parse_number(const cli_option *o, const char *text, int64_t *out)
{
    cml_param_def def = {o->name, "", o->min, o->max, "0", NULL, 0, 0, NULL};
    cml_param_list list;
    char err[256];
    if (cml_param_parse(&def, text, &list, err, sizeof err) != CML_OK) {
        if (o->id == O_PEAK) /* the one number option that takes a word too */
            fprintf(stderr, "cumemlab: --peak: '%s' is not a bandwidth in GB/s (allowed: "
                            "%lld..%lld, or measure)\n",
                    text, (long long)o->min, (long long)o->max);
        else
            fprintf(stderr, "cumemlab: %s\n", err);
        return 0;
    }
    if (list.count != 1) {
        fprintf(stderr, "cumemlab: --%s: one value expected, got '%s'\n", o->name, text);
        return 0;
    }
    *out = list.v[0];
    return 1;
}

/* --threshold PCT: a percentage in 0.1..100 ("2.5", "5%"); 0 (with the
 * one line naming the option and its range) otherwise. */
static int parse_threshold(cml_cli *cli, const char *value)
{
    char *end = NULL;
    double v = strtod(value, &end);
    if (end && *end == '%')
        end++;
    int digits = (value[0] >= '0' && value[0] <= '9') || value[0] == '.'; /* no " 5", "0x" */
    if (!digits || !end || *end || strchr(value, 'x') || strchr(value, 'X') ||
        !(v >= 0.1 && v <= 100)) {
        fprintf(stderr, "cumemlab: --threshold: '%s' is not a percentage in 0.1..100\n", value);
        return 0;
    }
    cli->threshold = v;
    return 1;
}

/* Store one global option's value; 0 (with a message) when it is bad. */
static int set_option(cml_cli *cli, const cli_option *o, const char *value)
{
    int64_t v = 0;
    if (o->id == O_PEAK && !strcmp(value, "measure")) {
        cli->peak_measure = 1;
        return 1;
    }
    if (o->kind == K_INT && !parse_number(o, value, &v))
        return 0;
    if (o->kind == K_CHOICE) {
        size_t k = 0;
        while (o->choices[k] && strcmp(o->choices[k], value))
            k++;
        if (!o->choices[k]) {
            fprintf(stderr, "cumemlab: --%s: unknown value '%s' (allowed: %s)\n", o->name, value,
                    o->metavar);
            return 0;
        }
        v = (int64_t)k;
    }
    if (o->id == O_THRESHOLD)
        return parse_threshold(cli, value);
    if ((o->kind == K_FILE || o->kind == K_TEXT) && !*value) {
        fprintf(stderr, "cumemlab: --%s: %s is needed\n", o->name,
                o->kind == K_FILE ? "a file name" : "a value");
        return 0;
    }
    switch (o->id) {
    case O_HELP: cli->help = 1; break;
    case O_VERSION: break; /* main answers it; elsewhere it "does not apply" */
    case O_QUIET: cli->quiet = 1; break;
    case O_QUICK: cli->quick = 1; break;
    case O_MODEL: cli->model_only = 1; break;
    case O_JSON: cli->json_path = value; break;
    case O_CSV: cli->csv_path = value; break;
    case O_HTML: cli->html_path = value; break;
    case O_FROM: cli->from_path = value; break;
    case O_RECORDS: cli->records_path = value; break;
    case O_RULES: cli->rules = 1; break;
    case O_ALL: cli->all_gpus = 1; break;
    case O_THRESHOLD: break; /* parse_threshold */
    case O_KERNEL: cli->trace_kernel = value; break;
    case O_LAUNCH: cli->trace_launch = (uint64_t)v; break;
    case O_BUDGET: cli->trace_budget = (uint64_t)v; break;
    case O_OUT: cli->trace_out = value; break;
    case O_EXPR:
        if (cli->nexprs >= CML_CLI_MAX_EXPRS) {
            fprintf(stderr, "cumemlab: --expr: at most %d expressions\n", CML_CLI_MAX_EXPRS);
            return 0;
        }
        cli->exprs[cli->nexprs++] = value;
        if (!cli->expr)
            cli->expr = value;
        break;
    case O_SRC: cli->src = value; break;
    case O_SHOW_KERNEL: cli->show_kernel = 1; break;
    case O_DEVICE:
        cli->device = (int)v;
        cli->device_given = 1;
        break;
    case O_WHERE: cli->where = (cml_where)v; break;
    case O_SIZE: cli->size_bytes = (uint64_t)v; break;
    case O_PEAK: cli->peak_gbs = (unsigned)v; break;
    case O_REPS: cli->reps = (unsigned)v; break;
    case O_WARMUP: cli->warmup = (unsigned)v; break;
    case O_COUNTERS:
        cli->counters = v == 0 ? CML_COUNTERS_OFF : v == 1 ? CML_COUNTERS_ON : CML_COUNTERS_AUTO;
        break;
    }
    return 1;
}

/* Keep "--name value" for the experiment; 0 (with a message) when full. */
static int add_setting(cml_cli *cli, const char *name, const char *value)
{
    if (cli->nsettings >= CML_CLI_MAX_SETTINGS) {
        fprintf(stderr, "cumemlab: too many settings (at most %d)\n", CML_CLI_MAX_SETTINGS);
        return 0;
    }
    /* name may point into the caller's buffer: keep a copy in cli */
    char *copy = cli->setting_names[cli->nsettings];
    snprintf(copy, sizeof cli->setting_names[0], "%s", name);
    cli->settings[cli->nsettings].name = copy;
    cli->settings[cli->nsettings++].value = value;
    return 1;
}

/*
 * The experiment a command runs, found before the options are read, so
 * that its own options win over the global ones of the same name
 * (`run transfers --size 64M,512M` is transfers' --size list, not the
 * global array size): the textbook program named by the command, or the
 * first positional argument of model, run and help. Options are skipped
 * with the parser's own rule: a --name without '=' that is not a flag
 * takes the next argument.
 */
static const cml_experiment *command_experiment(const char *command, int argc, char **argv,
                                                int first)
{
    const cml_experiment *exp = NULL;
    const cml_book_program *program = cml_book_find(command);
    if (program)
        return program->row;
    if (cml_textbook_find(command, &exp))
        return exp;
    if (strcmp(command, "model") && strcmp(command, "run") && strcmp(command, "help"))
        return NULL;
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] == '-' && arg[1] != '\0') {
            const cli_option *o = arg[1] == '-' ? find_option(arg + 2) : NULL;
            if (arg[1] == '-' && !strchr(arg, '=') && !(o && o->kind == K_FLAG))
                i++;
            continue;
        }
        return strchr(arg, '=') ? NULL : cml_experiment_find(arg);
    }
    return NULL;
}

static int experiment_has(const cml_experiment *exp, const char *name)
{
    for (size_t i = 0; exp && i < exp->noptions; i++)
        if (!strcmp(exp->options[i].name, name))
            return 1;
    return 0;
}

/* Whether --name can be an experiment's option here: the command's own
 * experiment's, or (none named yet) any experiment's. */
static int setting_known(const cml_experiment *own, const char *name)
{
    /* expr_cmd.c takes --op (the option access) and --block (bdx, bdy) */
    if (own && !strcmp(own->key, "expr") && (!strcmp(name, "op") || !strcmp(name, "block")))
        return 1;
    if (own)
        return experiment_has(own, name);
    for (size_t e = 0; e < cml_experiment_count(); e++)
        if (experiment_has(cml_experiment_at(e), name))
            return 1;
    return 0;
}

void cml_cli_join_args(char *buf, size_t len, int argc, char **argv)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* A value taken from the next argument must not be an option: `--json
 * --quiet` is a forgotten file name, not a file called "--quiet". */
static int value_is_option(const char *v)
{
    return v[0] == '-' && v[1] != '\0';
}

int cml_cli_parse(cml_cli *cli, int argc, char **argv, int first)
{
    cml_cli_join_args(cli->command_line, sizeof cli->command_line, argc, argv);
    cli->device = 0;
    cli->counters = CML_COUNTERS_AUTO;
    const unsigned cmd = command_bit(cli);
    const cml_experiment *own = command_experiment(cli->command, argc, argv, first);
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0') {
            /* positional, or a bare name=value setting */
            const char *eq = strchr(arg, '=');
            if (eq && eq != arg) {
                if (cli->nsettings >= CML_CLI_MAX_SETTINGS) {
                    fprintf(stderr, "cumemlab: too many settings (at most %d)\n",
                            CML_CLI_MAX_SETTINGS);
                    return CML_EXIT_USAGE;
                }
                /* kept as "name=value": split when applied */
                cli->settings[cli->nsettings].name = arg;
                cli->settings[cli->nsettings++].value = NULL;
                continue;
            }
            if (cli->npos >= (int)(sizeof cli->pos / sizeof cli->pos[0])) {
                fprintf(stderr, "cumemlab: too many arguments: '%s'\n", arg);
                return CML_EXIT_USAGE;
            }
            cli->pos[cli->npos++] = arg;
            continue;
        }
        if (!strcmp(arg, "--") && (cmd & C_TRACE)) {
            /* trace: what follows is the program to run, as it is */
            cli->program = argv + i + 1;
            cli->nprogram = argc - i - 1;
            break;
        }
        if (!strcmp(arg, "--")) {
            fprintf(stderr, "cumemlab: '--' is not used by cumemlab%s\n",
                    strcmp(cli->command, "tour") ? "" : " (cumemlab trace -- PROGRAM runs one)");
            return CML_EXIT_USAGE;
        }
        const cli_option *o = NULL;
        const char *name;
        char namebuf[64];
        const char *value = NULL;
        if (arg[1] != '-') {
            /* short options stand alone: -h, -q */
            o = arg[2] == '\0' ? find_short(arg[1]) : NULL;
            if (!o) {
                fprintf(stderr, "cumemlab: unknown option '%s' (cumemlab --help lists them; "
                                "long options take two dashes)\n",
                        arg);
                return CML_EXIT_USAGE;
            }
            name = o->name;
        } else {
            name = arg + 2;
            const char *eq = strchr(name, '=');
            if (eq) {
                size_t len = (size_t)(eq - name);
                if (len == 0 || len >= sizeof namebuf) {
                    fprintf(stderr, "cumemlab: unknown option '%s'\n", arg);
                    return CML_EXIT_USAGE;
                }
                memcpy(namebuf, name, len);
                namebuf[len] = '\0';
                name = namebuf;
                value = eq + 1;
            }
            /* --expr and --src are always the expressions' text: the expr
             * experiment's options of those names (indices into them) are
             * set by the bare form, expr=0:3 */
            o = find_option(name);
            if (o && o->id != O_EXPR && o->id != O_SRC && experiment_has(own, name))
                o = NULL;
        }
        if (o && !(o->commands & cmd)) {
            fprintf(stderr, "cumemlab: --%s does not apply to %s%s\n", o->name, cli->command,
                    o->id == O_VERSION ? " (cumemlab --version alone prints the version)"
                    : o->id == O_MODEL ? " (cumemlab model NAME shows the model alone)"
                                       : "");
            return CML_EXIT_USAGE;
        }
        if (o && o->kind == K_FLAG) {
            if (value) {
                fprintf(stderr, "cumemlab: --%s takes no value\n", o->name);
                return CML_EXIT_USAGE;
            }
            set_option(cli, o, "");
            continue;
        }
        if (!value) {
            const int no_value = i + 1 >= argc || value_is_option(argv[i + 1]);
            if (no_value && !o && !setting_known(own, name)) {
                /* Neither global nor an experiment's: say so, not that it
                 * "needs a value" it could never take (with a value, the
                 * experiment's option table names its options). */
                if (own)
                    fprintf(stderr, "cumemlab: unknown option '--%s' (cumemlab help %s lists "
                                    "its options)\n",
                            name, own->key);
                else
                    fprintf(stderr, "cumemlab: unknown option '--%s' (cumemlab --help lists "
                                    "the options)\n",
                            name);
                return CML_EXIT_USAGE;
            }
            if (no_value) {
                fprintf(stderr,
                        "cumemlab: --%s needs a value%s\n", name,
                        i + 1 < argc ? " (one that starts with '-' is written --NAME=-x)" : "");
                return CML_EXIT_USAGE;
            }
            value = argv[++i];
        }
        if (o ? !set_option(cli, o, value) : !add_setting(cli, name, value))
            return CML_EXIT_USAGE;
    }
    /* Experiment options on a command that runs no experiment. */
    if (cli->nsettings && !(cmd & C_EXPERIMENTS)) {
        const cml_setting *s = &cli->settings[0];
        fprintf(stderr, "cumemlab: %s%.*s does not apply to %s (it runs no experiment)\n",
                s->value ? "--" : "", (int)(s->value ? strlen(s->name) : strcspn(s->name, "=")),
                s->name, cli->command);
        return CML_EXIT_USAGE;
    }
    return CML_EXIT_OK;
}
