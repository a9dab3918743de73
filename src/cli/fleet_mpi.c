/*
 * Fleet runs through MPI (fleet_mpi.h, docs/fleet-mpi.md). Each rank:
 *   1. MPI_Init, its rank, and its rank among the ranks of its node (the
 *      ranks sharing memory with it: MPI_Comm_split_type), which picks its
 *      GPU;
 *   2. NVML's view of the node's GPUs (clocks, temperature) before;
 *   3. the command, in a child process (fleet_mpi_child.c says why, and why
 *      forking an MPI process is safe here), on GPU local rank modulo the
 *      GPUs it sees unless --device said which;
 *   4. NVML again after, and its item of the fleet file made from what the
 *      child left (fleet_mpi_rank.c);
 *   5. every rank's row and item gathered to rank 0, which writes the file
 *      where --json said, prints the table and exits with the worst status.
 * A rank whose command fails or dies still reaches step 5: the others never
 * wait for a rank that is gone.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/fleet_mpi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "report/fleet.h"
#include "cli/fleet_mpi_launch.h"

#if CUMEMLAB_HAVE_MPI
#include <mpi.h>

#include "cli/fleet_mpi_child.h"
#include "cli/fleet_mpi_rank.h"
#include "cli/fleet_mpi_write.h"
#include "report/output_file.h"
#endif

#if CUMEMLAB_HAVE_MPI

/* Items travel in pieces of at most this many bytes: MPI counts are ints,
 * and a suite's results may one day pass 2 GiB. */
#define CHUNK (1 << 30)
#define TAG_ITEM 7301

static void send_item(const char *text, uint64_t len)
{
    for (uint64_t off = 0; off < len; off += CHUNK) {
        int n = (int)(len - off < CHUNK ? len - off : CHUNK);
        MPI_Send(text + off, n, MPI_CHAR, 0, TAG_ITEM, MPI_COMM_WORLD);
    }
}

/* Rank r's item into a new buffer; NULL when rank 0 cannot hold it (the
 * pieces are still received, into scratch, so rank r is not left waiting). */
static char *receive_item(int r, uint64_t len)
{
    char *buf = len < SIZE_MAX ? malloc((size_t)len + 1) : NULL;
    char *scratch = buf ? NULL : malloc(CHUNK);
    for (uint64_t off = 0; off < len; off += CHUNK) {
        int n = (int)(len - off < CHUNK ? len - off : CHUNK);
        char *to = buf ? buf + off : scratch;
        if (!to) { /* not even scratch: a fleet this short of memory cannot go on */
            fprintf(stderr, "cumemlab: rank 0 is out of memory receiving rank %d's results\n", r);
            MPI_Abort(MPI_COMM_WORLD, CML_EXIT_FAIL);
        }
        MPI_Recv(to, n, MPI_CHAR, r, TAG_ITEM, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    free(scratch);
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* An item made of the row alone (gpu and results null) with diagnostic
 * why: what rank 0 writes for a rank whose own item it could not hold. */
static char *bare_item(cml_fleet_rank_row *row, const char *why, size_t *len)
{
    static cml_fleet_nvml none; /* ok 0: no GPU facts */
    cml_fleet_child c;
    memset(&c, 0, sizeof c);
    c.exit_status = row->exit_status ? row->exit_status : CML_EXIT_FAIL;
    c.seconds = row->seconds;
    snprintf(c.diagnostic, sizeof c.diagnostic, "%s", why);
    return cml_fleet_rank_item(row, &c, &none, len);
}

/* Rank 0: the rows and items of every rank, the table, the file. Returns
 * the fleet's status: the worst of the ranks'. */
static int finish_root(const cml_fleet_launch *l, int size, const cml_fleet_rank_row *mine, char *item,
                       size_t item_len, const cml_fleet_child *c, int argc, char **argv)
{
    cml_fleet_rank_row *rows = calloc((size_t)size, sizeof *rows);
    uint64_t *lens = calloc((size_t)size, sizeof *lens);
    char **items = calloc((size_t)size, sizeof *items);
    size_t *item_lens = calloc((size_t)size, sizeof *item_lens);
    if (!rows || !lens || !items || !item_lens) {
        fprintf(stderr, "cumemlab: rank 0 is out of memory for a fleet of %d ranks\n", size);
        MPI_Abort(MPI_COMM_WORLD, CML_EXIT_FAIL);
    }
    uint64_t my_len = item_len;
    MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, rows, (int)sizeof *rows, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    MPI_Gather(&my_len, 1, MPI_UINT64_T, lens, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    items[0] = item;
    item_lens[0] = item_len;
    for (int r = 1; r < size; r++) {
        items[r] = receive_item(r, lens[r]);
        item_lens[r] = (size_t)lens[r];
        if (!items[r]) {
            char why[128];
            snprintf(why, sizeof why, "rank 0 is out of memory for its results (%llu bytes)",
                     (unsigned long long)lens[r]);
            items[r] = bare_item(&rows[r], why, &item_lens[r]);
        }
        if (!items[r]) {
            fprintf(stderr, "cumemlab: rank 0 is out of memory for rank %d's item\n", r);
            MPI_Abort(MPI_COMM_WORLD, CML_EXIT_FAIL);
        }
    }

    char command_line[1024];
    cml_cli_join_args(command_line, sizeof command_line, argc, argv);
    cml_fleet_doc d = {command_line, cml_fleet_launcher_name(l->launcher), size, rows, items,
                       item_lens};
    int worst = 0;
    for (int r = 0; r < size; r++)
        if (rows[r].exit_status > worst)
            worst = rows[r].exit_status;
    /* The table goes where a person reads it: not into a fleet file
     * written to standard output. */
    const int file_on_stdout = c->json_path && cml_output_same(c->json_path, "-");
    FILE *human = file_on_stdout ? stderr : stdout;
    cml_fleet_print_table(human, &d);
    if (c->ignored[0])
        fprintf(stderr, "cumemlab: a fleet run writes one file, --json: %s not written "
                        "(cumemlab report reads the fleet file)\n", c->ignored);
    if (!c->parsed) {
        fprintf(stderr, "cumemlab: no fleet file written: rank 0's options were refused, so "
                        "where it goes is not known\n");
    } else if (c->json_path) {
        char err[640];
        if (cml_fleet_write(c->json_path, &d, err, sizeof err) != CML_OK) {
            fprintf(stderr, "cumemlab: --json: %s\n", err);
            if (worst < CML_EXIT_FAIL)
                worst = CML_EXIT_FAIL;
        } else if (!file_on_stdout) {
            /* The fleet compared, as `report FLEET.json` shows it: read back
             * from the file just written (a fleet on standard output cannot
             * be read back; report it from where it was saved). */
            fputc('\n', human);
            if (cml_fleet_report_file(c->json_path, human, 0.0, err, sizeof err) != CML_OK)
                fprintf(stderr, "cumemlab: the fleet's comparison: %s\n", err);
        }
    }
    for (int r = 1; r < size; r++)
        free(items[r]);
    free(items);
    free(item_lens);
    free(lens);
    free(rows);
    return worst;
}

static int run_fleet(const cml_fleet_launch *l, int argc, char **argv)
{
    /* MPI's own arguments, if any, were taken by the launcher: argv is the
     * command's, so MPI_Init does not get it. */
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "cumemlab: MPI_Init failed under %s: no fleet run\n",
                cml_fleet_launcher_name(l->launcher));
        return CML_EXIT_FAIL;
    }
    int rank = 0, size = 1, local = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
    } else {
        local = l->local_rank;
    }

    static cml_fleet_rank_row row;
    row.rank = rank;
    row.local_rank = local;
    if (gethostname(row.host, sizeof row.host - 1) != 0)
        snprintf(row.host, sizeof row.host, "unknown");
    char prefix[300];
    snprintf(prefix, sizeof prefix, "[rank %d %s] ", rank, row.host);

    static cml_fleet_nvml nv;
    nv.ok = cml_nvml_read(&nv.start, nv.why, sizeof nv.why);
    cml_fleet_child c;
    memset(&c, 0, sizeof c);
    c.local_rank = local;
    c.prefix = prefix;
    cml_fleet_child_run(&c, argc, argv);
    char why_end[160];
    if (nv.ok && !cml_nvml_read(&nv.end, why_end, sizeof why_end))
        nv.end.count = 0; /* gone since: the "end" figures are null */

    size_t len = 0;
    char *item = cml_fleet_rank_item(&row, &c, &nv, &len);
    if (!item)
        item = bare_item(&row, "out of memory making this rank's item of the fleet file", &len);
    if (!item) {
        fprintf(stderr, "cumemlab: rank %d is out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, CML_EXIT_FAIL);
    }
    int rc = row.exit_status;
    if (rank == 0) {
        rc = finish_root(l, size, &row, item, len, &c, argc, argv);
    } else {
        uint64_t my_len = len;
        MPI_Gather(&row, (int)sizeof row, MPI_BYTE, NULL, 0, MPI_BYTE, 0, MPI_COMM_WORLD);
        MPI_Gather(&my_len, 1, MPI_UINT64_T, NULL, 0, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        send_item(item, my_len);
    }
    free(item);
    cml_fleet_child_free(&c);
    /* No rank leaves before rank 0 has written the file: mpirun ends the
     * whole job once a rank exits with an error status. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}

#else /* built without MPI */

typedef struct alone_ctx {
    int rank;
} alone_ctx;

/* Every rank would write the same output files: only rank 0 does. */
static int alone_after_parse(cml_cli *cli, int status, void *ctx)
{
    const alone_ctx *a = ctx;
    if (status || a->rank == 0)
        return status;
    if (cli->json_path || cli->csv_path || cli->html_path || cli->records_path)
        fprintf(stderr, "cumemlab: rank %d writes no output file: only rank 0 does (built "
                        "without MPI)\n", a->rank);
    cli->json_path = cli->csv_path = cli->html_path = cli->records_path = NULL;
    return 0;
}

#endif

int cml_fleet_mpi_main(int argc, char **argv, int *rc)
{
    cml_fleet_launch l;
    if (!cml_fleet_launch_from_env(&l))
        return 0;
#if CUMEMLAB_HAVE_MPI
    *rc = run_fleet(&l, argc, argv);
#else
    if (l.rank == 0)
        fprintf(stderr, "cumemlab was built without MPI (-DCUMEMLAB_MPI=OFF or no MPI "
                        "found): each rank runs alone and no fleet file is written\n");
    alone_ctx a = {l.rank};
    *rc = cml_cli_main(argc, argv, alone_after_parse, &a);
#endif
    return 1;
}
