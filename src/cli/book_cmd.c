/*
 * The book's programs on the command line: `cumemlab readSegment 11 512`
 * runs the book's program with its positional arguments (src/book/book.h),
 * prints the program's own lines, then the lab's record of every launch;
 * `cumemlab textbook` lists the programs with their source files.
 */
#include <stdio.h>
#include <string.h>

#include "book/book.h"
#include "cli/cli.h"
#include "cli/session.h"
#include "lab/lab.h"

static int print_book_help(const cml_book_program *p)
{
    printf("cumemlab %s %s\n  the book's %s, run as the book runs it: %s\n\nArguments "
           "(read as the book's main() reads argv):\n",
           p->name, p->args_usage, p->file, p->summary);
    int k = 0;
    for (const cml_param_def *d; (d = cml_book_arg_def(p, k)) != NULL; k++)
        printf("  argv[%d]  %-8s %s\n           allowed %lld..%lld; the book's default %s\n",
               k + 1, d->name, d->help, (long long)d->min, (long long)d->max, d->def);
    if (k == 0)
        printf("  none\n");
    const cml_param_def *launch = &p->row->options[0];
    char range[512];
    cml_param_describe_range(launch, range, sizeof range);
    printf("\nLaunches (one record each; --launch NAME,... runs some of them):\n  %s\n", range);
    if (p->alias)
        printf("\nAlso answers to: cumemlab %s\n", p->alias);
    printf("\nThe book's figures beside the model and the H100: docs/textbook.md\n");
    return CML_EXIT_OK;
}

int cml_cmd_textbook_list(const cml_cli *cli)
{
    if (cli->npos || cli->nsettings) {
        fprintf(stderr, "cumemlab: textbook takes no arguments (cumemlab PROGRAM runs one)\n");
        return CML_EXIT_USAGE;
    }
    printf("The book's programs (Professional CUDA C Programming, chapters 4 and 5), run as\n"
           "the book runs them: cumemlab PROGRAM [its arguments]\n\n");
    for (size_t i = 0; i < cml_book_count(); i++) {
        const cml_book_program *p = cml_book_at(i);
        printf("  %s%s%s%s%s%s\n      %s: %s\n", p->name, p->args_usage[0] ? " " : "",
               p->args_usage, p->alias ? "   (also: " : "", p->alias ? p->alias : "",
               p->alias ? ")" : "", p->file, p->summary);
    }
    printf("\nOther textbook names run the lab's experiment on the book's topic:\n");
    for (size_t i = 0; i < cml_experiment_count(); i++) {
        const cml_experiment *e = cml_experiment_at(i);
        for (size_t k = 0; k < e->naliases; k++)
            printf("  cumemlab %-29s -> experiment %s (%s)\n", e->aliases[k].usage, e->key,
                   e->aliases[k].fixed);
    }
    printf("\ndocs/textbook.md: each program's figures in the book, the model and the H100.\n");
    return CML_EXIT_OK;
}

int cml_cmd_book(const cml_cli *cli, const cml_book_program *p)
{
    if (cli->help)
        return print_book_help(p);
    if (cli->size_bytes || cli->where != CML_WHERE_DRAM) {
        fprintf(stderr,
                "cumemlab: %s: --%s: the book's programs run the book's sizes (see cumemlab help "
                "%s)\n",
                p->name, cli->size_bytes ? "size" : "where", p->name);
        return CML_EXIT_USAGE;
    }
    /* The program's arguments are positional, as in the book; the one
     * option of its own is --launch (which of main()'s launches to run). */
    for (int i = 0; i < cli->nsettings; i++) {
        char name[64];
        size_t n = cli->settings[i].value ? strlen(cli->settings[i].name)
                                          : strcspn(cli->settings[i].name, "=");
        snprintf(name, sizeof name, "%.*s", (int)n, cli->settings[i].name);
        if (strcmp(name, "launch") != 0) {
            fprintf(stderr,
                    "cumemlab: %s: --%s: the program takes its arguments by position, as the "
                    "book's main() does (usage: %s %s); its only option is --launch\n",
                    p->name, name, p->name, p->args_usage);
            return CML_EXIT_USAGE;
        }
    }
    int64_t args[CML_BOOK_MAX_ARGS] = {0};
    char settings[512], err[512];
    if (cml_book_parse_args(p, cli->pos, cli->npos, args, settings, sizeof settings, err,
                            sizeof err) != CML_OK) {
        fprintf(stderr, "cumemlab: %s\n", err);
        return CML_EXIT_USAGE;
    }
    /* Bad settings (--launch) are refused before anything is opened. */
    cml_param_values pv;
    if (cml_cli_experiment_options(cli, p->row, settings, &pv))
        return CML_EXIT_USAGE;
    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_lab_settings ls = cml_cli_lab_settings(cli);
    ls.textbook = 1;
    cml_lab lab;
    if (cml_lab_open(&lab, &ls, &r) == CML_LAB_FAILED) {
        fprintf(stderr, "cumemlab: %s: %s\n", p->name, lab.why);
        cml_lab_close(&lab);
        cml_results_free(&r);
        return CML_EXIT_FAIL;
    }
    const size_t first = r.count;
    cml_status st = cml_lab_run(&lab, p->row, &pv, &r);
    cml_lab_close(&lab);
    /* The program's own lines first, as it printed them; on standard error
     * when standard output carries the JSON (or CSV, HTML). */
    FILE *out = cml_cli_human_out(cli);
    cml_book_output o = {p, &r, first, r.count - first, args, r.has_device ? &r.device : NULL};
    p->print(out, &o);
    if (out == stdout)
        fputc('\n', out);
    fflush(out);
    int erc = cml_cli_emit_run(cli, &r);
    cml_results_free(&r);
    int rc = st == CML_OK ? CML_EXIT_OK : CML_EXIT_FAIL;
    return rc ? rc : erc;
}
