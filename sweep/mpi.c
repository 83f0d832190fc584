/*
 * mpi.c - a sweep spread over MPI ranks (built with --with-mpi, run with
 * mpirun -n P san sweep ...).
 *
 * Every rank parses the same command line, so every rank knows the same
 * variants and the same chains of them (chains.c); only chain numbers
 * travel.  Rank 0 hands the chains out largest first to whichever rank
 * asks (dynamic assignment: a rank that drew a large chain simply asks
 * less often), and solves chains itself on a second thread while its
 * main thread answers.  A rank asks for work by sending the rows of its
 * previous chain, so results need no message of their own.  Rows travel
 * as text with 17-digit numbers (row.c), separated by ROW_SEP, and each
 * chain is solved as it is on one machine: the table rank 0 prints is
 * the serial one.
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "sweep/sweep_int.h"

int san_sweep_mpi(void)
{
#ifdef SAN_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

#ifndef SAN_HAVE_MPI

int sweep_run_mpi(san_sweep *s, const san_sweep_opts *o, const sweep_chains *ch)
{
    (void)s;
    (void)o;
    (void)ch;
    return 2;
}

#else

#include <mpi.h>
#include <pthread.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

enum { TAG_ASK = 1, TAG_JOB = 2, TAG_STOP = 3 };

/* Between the rows of one message: the ASCII record separator, which a
 * packed row never holds (its text fields come from names and messages,
 * their line breaks replaced). */
#define ROW_SEP '\x1e'

/* mpirun (Open MPI, MPICH, PMIx launchers) leaves these behind; a plain
 * `san sweep` does not start MPI at all. */
static int under_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

/* The queue of rank 0, shared by its main thread and its solver thread. */
typedef struct {
    pthread_mutex_t lock;
    san_sweep *s;
    const san_sweep_opts *o;
    const sweep_chains *ch;
    int next;
} queue;

static int take(queue *q)
{
    pthread_mutex_lock(&q->lock);
    int c = q->next < q->ch->n ? q->ch->order[q->next++] : -1;
    pthread_mutex_unlock(&q->lock);
    return c;
}

static void *local_solver(void *arg)
{
    queue *q = arg;
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    for (int c; (c = take(q)) >= 0;)
        sweep_run_chain(q->s, q->o, q->ch, c);
    return NULL;
}

static void keep_row(san_sweep *s, const char *text)
{
    san_sweep_row r;
    if (!*text || sweep_row_unpack(text, s->spec.naxes, &r) != 0)
        return;
    if (r.variant >= 0 && r.variant < s->nvariants) {
        san_sweep_row_free(&s->rows[r.variant]);
        s->rows[r.variant] = r;
    } else {
        san_sweep_row_free(&r);
    }
}

/* The rows sent by a rank with its request for more; none on the first. */
static int receive_rows(san_sweep *s, MPI_Status *st)
{
    int len;
    MPI_Get_count(st, MPI_CHAR, &len);
    char *buf = malloc(len + 1);
    if (!buf)
        return -1;
    MPI_Recv(buf, len, MPI_CHAR, st->MPI_SOURCE, TAG_ASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    buf[len] = '\0';
    for (char *p = buf, *q; p; p = q) {
        q = strchr(p, ROW_SEP);
        if (q)
            *q++ = '\0';
        keep_row(s, p);
    }
    free(buf);
    return 0;
}

/* A row that never arrived (or did not read back) still gets its line. */
static void mark_lost(san_sweep *s)
{
    for (int v = 0; v < s->nvariants; v++) {
        san_sweep_row *r = &s->rows[v];
        if (r->pick)
            continue;
        r->variant = v;
        r->pick = malloc((s->spec.naxes + 1) * sizeof *r->pick);
        if (r->pick)
            memcpy(r->pick, s->pick[v], s->spec.naxes * sizeof *r->pick);
        r->error = strdup("lost in the MPI transfer");
    }
}

/* Each rank sends its last row before it is told to stop: once every
 * rank has been stopped, every row is in. */
static int coordinate(san_sweep *s, const san_sweep_opts *o, const sweep_chains *ch, int size)
{
    queue q = { PTHREAD_MUTEX_INITIALIZER, s, o, ch, 0 };
    pthread_t t;
    int threaded = pthread_create(&t, NULL, local_solver, &q) == 0;
    for (int stopped = 0; stopped < size - 1;) {
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_ASK, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            /* Sleeping, not spinning: the solver thread needs this core. */
            struct timespec ts = { 0, 1000000 };
            nanosleep(&ts, NULL);
            continue;
        }
        receive_rows(s, &st);
        int v = take(&q);
        MPI_Send(&v, 1, MPI_INT, st.MPI_SOURCE, v >= 0 ? TAG_JOB : TAG_STOP, MPI_COMM_WORLD);
        stopped += v < 0;
    }
    if (threaded)
        pthread_join(t, NULL);
    else
        local_solver(&q);
    mark_lost(s);
    return 0;
}

/* The rows of chain c as one text, each row freed once packed; a row
 * that cannot be packed is replaced by one that says so. */
static char *pack_chain(san_sweep *s, const sweep_chains *ch, int c)
{
    char *all = NULL;
    size_t len = 0;
    for (int i = ch->start[c]; i < ch->start[c + 1]; i++) {
        int v = ch->var[i];
        char *row = sweep_row_pack(&s->rows[v], s->spec.naxes);
        san_sweep_row_free(&s->rows[v]);
        if (!row) {
            san_sweep_row r = { 0 };
            r.variant = v;
            r.pick = s->pick[v];
            r.error = "out of memory sending the row";
            row = sweep_row_pack(&r, s->spec.naxes);
        }
        size_t rl = row ? strlen(row) : 0;
        char *t = realloc(all, len + rl + 2);
        if (t) {
            all = t;
            memcpy(all + len, row ? row : "", rl);
            len += rl;
            all[len++] = ROW_SEP;
            all[len] = '\0';
        }
        free(row);
    }
    return all;
}

static int work(san_sweep *s, const san_sweep_opts *o, const sweep_chains *ch)
{
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    char *rows = NULL;
    for (;;) {
        MPI_Send(rows ? rows : "", rows ? (int)strlen(rows) : 0, MPI_CHAR, 0, TAG_ASK,
                 MPI_COMM_WORLD);
        free(rows);
        rows = NULL;
        int c;
        MPI_Status st;
        MPI_Recv(&c, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            break;
        sweep_run_chain(s, o, ch, c);
        rows = pack_chain(s, ch, c);
    }
    return 1;
}

int sweep_run_mpi(san_sweep *s, const san_sweep_opts *o, const sweep_chains *ch)
{
    if (!under_mpirun())
        return 2;
    int inited = 0, provided, rank, size;
    MPI_Initialized(&inited);
    if (!inited)
        MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rc = 2;
    if (size > 1)
        rc = rank == 0 ? coordinate(s, o, ch, size) : work(s, o, ch);
    MPI_Finalize();
    return rc;
}

#endif
