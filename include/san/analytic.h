/*
 * san/analytic.h - closed-form performance models of the programs the
 * SAN templates model stochastically (analytic/): quick deterministic
 * answers to put beside the SAN's.  doc/analytic.md derives every
 * formula and says where the source text was garbled.
 *
 *   mw       master/worker iteration time (seed 000, ch. III)
 *   cluster  steady bound of a master/worker run on a cluster and its
 *            Internet links (seed 001, ch. 3 and 5)
 *   map      pipeline mapping, Dynamic Pipeline Mapping (seed 002), with
 *            seed 000's communication-manager term
 *   finite   the time of a finite job of n items through a mapped pipeline
 *   workrate master/slave work rate on a tree of hosts and networks, the
 *            best master by maximum flow (seed 003)
 *
 * Each model is also a template of san sweep and san compare: a line
 * "mw --workers 8 --tc 1600" is evaluated here instead of being solved
 * (san_analytic_eval), so that its indices line up with a SAN's.
 */
#ifndef SAN_PUBLIC_ANALYTIC_H
#define SAN_PUBLIC_ANALYTIC_H

#include <stddef.h>
#include "san/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Master/worker (seed 000, ch. III, eqs. 3-17)                         */
/* ------------------------------------------------------------------ */

/* How the master sends the tasks: synchronous (each send ends when the
 * worker has the data) or asynchronous (sends overlap). */
typedef enum { SAN_MW_SYNC, SAN_MW_ASYNC } san_mw_protocol;

/* The model's inputs, all times in one unit (the seed uses ms). */
typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_mw_default: every entry
                               taking it refuses inputs of another layout
                               (SAN_E_USAGE, -1 from san_mw_ms_line) */
    san_mw_protocol protocol;
    double mo;              /* message overhead, per message */
    double lambda;          /* transfer time per byte */
    double volume;          /* V: bytes of one iteration (tasks + results) */
    int per_worker;         /* V grows with the workers: V(n) = n * volume
                               (the seed's V' = (n'/n) V, from one worker);
                               0: V is the same for every n */
    double alpha;           /* fraction of V the master sends (the rest
                               comes back as results) */
    double tc;              /* Tc: computing time of one iteration, all
                               workers together */
    double mu_m;            /* the master's own time per iteration */
} san_mw_params;

/* The seed's examples: mo 1, lambda 0.001 (ms per byte), V 4096,
 * alpha 0.9, Tc 1600, mu_m 0, asynchronous (Fig. 23); and struct_size. */
SAN_API void san_mw_default(san_mw_params *p);
/* Set one input by its flag: --protocol, --mo, --lambda, --volume,
 * --volume-per-worker, --alpha, --tc, --mu-m (numbers through
 * base/parse.c).  Returns SAN_OK, or SAN_E_USAGE with err naming the
 * flag (an unknown flag too), or saying p is not filled by
 * san_mw_default (its struct_size). */
SAN_API san_status san_mw_set(san_mw_params *p, const char *flag, const char *val, char *err,
                              size_t n);
/* SAN_OK, or SAN_E_USAGE with err when the inputs cannot describe a
 * program (no positive time, alpha outside [0, 1], ...) or p is of
 * another layout (struct_size).  The entries below compute from inputs
 * it accepts; each returns SAN_E_USAGE, computing nothing, for p of
 * another layout (san_mw_check says why). */
SAN_API san_status san_mw_check(const san_mw_params *p, char *err, size_t n);

/* One number of workers. */
typedef struct {
    double n;               /* workers (real: the formulas take any n > 0) */
    int eq;                 /* the seed's expression that applies: 7 (async,
                               sends paced by mo), 8 (async, paced by the
                               transfers) or 9 (sync) */
    double tt;              /* Tt(n): time of one iteration */
    double speedup;         /* Tc / Tt(n) (Tc stands for the sequential time) */
    double efficiency;      /* E(n) = Tc / (n Tt(n)) */
    double pi;              /* Pi(n) = n Tt(n)^2 / Tc (eq. 17) */
    int over_mcmc;          /* n beyond the master's chunk managing
                               capability: the formulas underestimate */
} san_mw_point;

SAN_API san_status san_mw_eval(const san_mw_params *p, double n, san_mw_point *out);

/* What does not depend on one n. */
typedef struct {
    double n_opt;           /* real minimum of Tt (eqs. 13-16 and their
                               analogues), or the regime switch of eq. 8 */
    int n_opt_eq;           /* 13, 14, 15, 16; 0 for a minimum at the
                               switch from eq. 8 to eq. 7; -1 when Tt only
                               decreases (eq. 8 with constant V) */
    double mcmc;            /* the master's chunk managing capability: the
                               real n where distributing the tasks takes as
                               long as the first worker's round trip
                               (eqs. 10-12); more workers exceed it */
    int mcmc_eq;            /* 10, 11 or 12 */
    double pi_opt;          /* real minimum of Pi(n) */
} san_mw_bounds;

SAN_API san_status san_mw_bounds_of(const san_mw_params *p, san_mw_bounds *out);

/* Over the whole numbers lo..hi: the n of the lowest Tt and of the
 * lowest Pi (the first one on ties). */
SAN_API san_status san_mw_best(const san_mw_params *p, int lo, int hi, int *best_tt,
                               int *best_pi);

/* The change from y to x workers (seed 000, section 3.3): the relative
 * gain (Tt(y) - Tt(x)) / Tt(y), and the index relating it to the added
 * resources, (Tt(y) - Tt(x)) x / ((x - y) Tt(y)). */
SAN_API san_status san_mw_step(const san_mw_params *p, double y, double x, double *gain,
                               double *index);

/* The `san gen ms` line of the same program for n workers (one slice per
 * worker, one pack per slice, `--work slices`): its execution_time and
 * efficiency are the SAN's answer to Tt(n) and E(n).  doc/analytic.md
 * gives the mapping.  Returns the length written (snprintf's), or -1
 * for p of another layout. */
SAN_API int san_mw_ms_line(const san_mw_params *p, int n, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Multi-cluster steady bound (seed 001, eqs. 2, 3, 10-12, 15, 18, 22-32, */
/* 37-39, 44, 63-67, 70-71)                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_cluster_default: every
                               entry taking it refuses inputs of another
                               layout (SAN_E_USAGE) */
    double oper;            /* basic operations of one task */
    double perf;            /* CPerfAvail: operations per second of the
                               cluster's workers together (eq. 3) */
    double worst_perf;      /* the slowest worker's; 0: perf / workers */
    double s_task, s_result;/* bytes of a task and of its result */
    double lan;             /* TPut of the cluster's LAN, bytes per second */
    double inet_in, inet_out;/* an external cluster's Internet throughputs
                               from and to the master; 0: a local cluster */
    double workers;         /* W */
    double tasks;           /* tasks of the run; 0: no times */
} san_cluster_params;

/* The links a steady run can be bound by. */
typedef enum {
    SAN_BOUND_COMPUTE, SAN_BOUND_LAN, SAN_BOUND_INET_IN, SAN_BOUND_INET_OUT, SAN_NBOUNDS
} san_cluster_bound;

typedef struct {
    double bound[SAN_NBOUNDS];  /* operations per second each allows: perf,
                                   oper lan / (s_task + s_result), oper
                                   inet_in / s_task, oper inet_out / s_result
                                   (inf when the link is absent) */
    san_cluster_bound by;   /* the smallest: PerfSte (eqs. 26, 32) */
    double perf_ste;
    double t_steady;        /* tasks oper / perf_ste (eqs. 25, 31) */
    double t_startup;       /* eq. 12 (local) or 18 (external) */
    double t_end_best;      /* eq. 37 */
    double t_end_worst;     /* eq. 39 when compute-bound, 44 otherwise */
    double t_best, t_worst; /* startup + steady + end */
    double efficiency;      /* perf_ste / perf: the steady share of the
                               workers' capacity in use */
} san_cluster_result;

/* Every input 0 but one worker, and struct_size. */
SAN_API void san_cluster_default(san_cluster_params *p);
/* --oper, --perf, --worst-perf, --task-size, --result-size, --lan,
 * --inet-in, --inet-out, --workers, --tasks; sizes and throughputs
 * accept k, M, G suffixes (powers of 1024, base/parse.c).  SAN_OK, or
 * SAN_E_USAGE with err naming the flag, or saying p is not filled by
 * san_cluster_default (its struct_size). */
SAN_API san_status san_cluster_set(san_cluster_params *p, const char *flag, const char *val,
                                   char *err, size_t n);
/* SAN_OK, or SAN_E_USAGE with err for a required input missing or p of
 * another layout.  The entries below return SAN_E_USAGE, computing
 * nothing, for p of another layout (san_cluster_check says why). */
SAN_API san_status san_cluster_check(const san_cluster_params *p, char *err, size_t n);
SAN_API san_status san_cluster_eval(const san_cluster_params *p, san_cluster_result *out);
/* "computation", "LAN", "Internet in", "Internet out" */
SAN_API const char *san_cluster_bound_name(san_cluster_bound b);

/* The seed's matrix multiplication in G x G blocks of elem-byte numbers
 * (eqs. 63, 65-67): 2 G^3 - G^2 operations, a task of 2 elem G^2 bytes, a
 * result of elem G^2. */
SAN_API san_status san_cluster_mm(san_cluster_params *p, double g, double elem);
/* The smallest block G whose link bound reaches perf (eq. 71: the
 * Internet link into an external cluster, G >= elem perf / inet_in + 1/2;
 * on the LAN, G >= 3 elem perf / (2 lan) + 1/2) into *g: NAN without
 * that link. */
SAN_API san_status san_cluster_mm_min_grain(const san_cluster_params *p, double elem, int inet,
                                            double *g);

/* ------------------------------------------------------------------ */
/* The analytic models as templates (san sweep, san compare)            */
/* ------------------------------------------------------------------ */

/* 1 when name is an analytic model ("mw", "cluster"). */
SAN_API int san_analytic_is_model(const char *name);

/* Results of one evaluation, named as a SAN's results are. */
typedef struct {
    int n;
    char **name;
    double *value;
} san_analytic_results;

/* Evaluate argv[0] ("mw", "cluster") with its flags (argv[1..], flag and
 * value pairs, as san gen takes them).  mw needs --workers N (one
 * number).  Returns SAN_OK with *out filled (free it with
 * san_analytic_results_free), SAN_E_USAGE with err, or SAN_E_NOMEM. */
SAN_API san_status san_analytic_eval(int argc, char **argv, san_analytic_results *out,
                                     char *err, size_t n);
SAN_API void san_analytic_results_free(san_analytic_results *r);

/* ------------------------------------------------------------------ */
/* Pipeline mapping (seed 002, Dynamic Pipeline Mapping; analytic/map.c) */
/* ------------------------------------------------------------------ */

enum { SAN_MAP_MAX_STAGES = 64 };

typedef enum {
    SAN_MAP_DPM,            /* the paper's two steps: gather fast stages,
                               replicate slow ones (doc/analytic.md) */
    SAN_MAP_OPTIMAL         /* the smallest bottleneck over every mapping of
                               contiguous groups and replicated single stages */
} san_map_method;

typedef struct {
    size_t struct_size;             /* sizeof the struct, set by
                                       san_map_input_default: every entry
                                       taking it refuses inputs of another
                                       layout (SAN_E_USAGE; NAN, -1 from
                                       the two without a status) */
    int nstages;
    double tr[SAN_MAP_MAX_STAGES];  /* independent production time Tr_i, > 0 */
    int processors;                 /* P >= 1 */
    san_map_method method;
    /* Seed 000 (ch. IV, 2.2): a replicated stage is fed by a communication
     * manager (CM) that needs tg per item, so the stage's production time
     * is max(tg, Tr/r) (tg + the wait for a free replica); 0: no CM term.
     * With cm_own_processor the CM takes a processor of its own (the
     * case the thesis validated). */
    double cm_time;
    int cm_own_processor;
} san_map_input;

/* No stages, one processor, SAN_MAP_DPM, no CM term; and struct_size. */
SAN_API void san_map_input_default(san_map_input *in);

/* A mapping: the stages, in order, cut into units; a unit is a group of
 * consecutive stages on one processor, or one stage on r replicas. */
typedef struct {
    int nunits;
    int first[SAN_MAP_MAX_STAGES];  /* first and last stage of each unit */
    int last[SAN_MAP_MAX_STAGES];   /*   (0-based, inclusive) */
    int replicas[SAN_MAP_MAX_STAGES];
    double period[SAN_MAP_MAX_STAGES];  /* production time Tp of the unit */
    int processors;                 /* processors used (CMs included) */
    double bottleneck;              /* the largest period */
    int bottleneck_unit;
} san_map_mapping;

typedef struct {
    double tp_ideal;                /* sum(Tr) / P: seed 002, eq. 6 */
    san_map_mapping before;         /* MPI-like: one stage per processor
                                       (contiguous blocks when N > P) */
    san_map_mapping after;          /* the proposal */
    double gain;                    /* before.bottleneck / after.bottleneck */
} san_map_result;

/* Map in->tr on in->processors.  SAN_OK, or SAN_E_USAGE with err (a bad
 * input, or in of another layout: fill it with san_map_input_default). */
SAN_API san_status san_map(const san_map_input *in, san_map_result *out, char *err,
                           size_t n);
/* The production time of one unit of m (its period), as san_map rates it;
 * NAN for in of another layout. */
SAN_API double san_map_unit_period(const san_map_input *in, int first, int last, int replicas);
/* The generator line that models mapping m stochastically:
 * "pipeline --mode MODE --stages ... [--replicas ...] [--group ...]
 * [--phases K]" (no "san gen" in front); the CM term as --cm-time.
 * Returns the length written (as snprintf), or -1 (in of another
 * layout too). */
SAN_API int san_map_gen_line(const san_map_input *in, const san_map_mapping *m,
                             const char *mode, int phases, char *buf, size_t n);
/* A comma list of positive numbers ("2,2,11,6,4") into v[max]: the count,
 * or -1 (through san_parse_double). */
SAN_API int san_map_parse_list(const char *s, double *v, int max);

/* ------------------------------------------------------------------ */
/* Finite jobs (analytic/finite.c)                                      */
/* ------------------------------------------------------------------ */

typedef struct {
    double fill;            /* the first item's time through the line:
                               the sum of the units' item times */
    double closed_form;     /* fill + (n - 1) * bottleneck */
    double exact;           /* the deterministic line run item by item
                               (unbounded buffers, each unit takes the
                               items in order, each to its replica free
                               first); NAN past 10^7 items */
    double bottleneck;
} san_finite_time;

/* The time of n >= 1 items through mapping m of in (deterministic).
 * SAN_OK; SAN_E_USAGE for n < 1, an empty m or in of another layout;
 * SAN_E_NOMEM. */
SAN_API san_status san_finite_pipeline(const san_map_input *in, const san_map_mapping *m,
                                       long n_items, san_finite_time *out);

/* One pipeline of `san map` (analytic/map_case.c): mapped, its finite
 * job timed, the proposal's generator line written. */
typedef struct {
    san_map_input in;
    san_map_result res;
    long items;                     /* the finite job's items; 0: none */
    san_finite_time fin_before, fin_after;  /* with items */
    char line[4096];                /* san_map_gen_line of the proposal */
} san_map_case;

/* The comma list stages mapped as base says (its other fields), the job
 * of items (0: none) timed through both mappings, and the line of mode
 * (NULL: async) and phases written.  SAN_OK, or SAN_E_USAGE (a bad list
 * or input, base of another layout) or SAN_E_NOMEM with err. */
SAN_API san_status san_map_case_run(const san_map_input *base, const char *stages, long items,
                                    const char *mode, int phases, san_map_case *c, char *err,
                                    size_t n);

/* ------------------------------------------------------------------ */
/* Work-rate model (seed 003; analytic/workrate.c, analytic/topology.c) */
/* ------------------------------------------------------------------ */

/* Seed 003 (Shao, Berman, Wolski, HCW 2000): hosts on a tree of
 * networks; a task flows between the master and a slave through every
 * network on the path between them.  All rates in tasks per time unit. */
enum { SAN_WR_MAX = 128, SAN_WR_NAME = 64 };

typedef struct {
    char name[SAN_WR_NAME];
    double slave_rate;      /* WSlaveCPU (eq. 6); 0: not a slave */
    double master_rate;     /* WMasterCPU (eq. 7); < 0: not a master candidate */
    int network;            /* the local network it sits on */
} san_wr_host;

typedef struct {
    char name[SAN_WR_NAME];
    double rate;            /* WNet (eq. 8); INFINITY: no limit */
    int parent;             /* the network it links to; -1: a root */
} san_wr_net;

typedef struct {
    int nhosts, nnets;
    san_wr_host host[SAN_WR_MAX];
    san_wr_net net[SAN_WR_MAX];
} san_topology;

/* Read the JSON topology of doc/analytic.md ("Work-rate (seed 003)").
 * SAN_OK, or SAN_E_USAGE with err ("line 4: ..."). */
SAN_API san_status san_topology_read(const char *text, size_t len, san_topology *t,
                                     char *err, size_t n);

typedef struct {
    int master;                     /* host index */
    double app_rate;                /* AppRate(m, S), eq. 1: the maximum flow */
    double slave_rate[SAN_WR_MAX];  /* SlaveRate(m, s) per host of one maximum
                                       flow (slaves on the master's network
                                       first, as the paper's algorithm) */
    int master_bound;               /* the master's own rate binds */
    int net_bound[SAN_WR_MAX];      /* per network: full in this flow and
                                       part of what limits it */
} san_workrate;

/* The work rate with the master on host m (eqs. 3-5 as a maximum flow on
 * the tree).  SAN_E_USAGE when m is not a master candidate. */
SAN_API san_status san_workrate_eval(const san_topology *t, int m, san_workrate *out);
/* Every candidate; the best master (largest AppRate, the first on ties)
 * into *best.  Returns its index, -1 when there is no candidate. */
SAN_API int san_workrate_best(const san_topology *t, san_workrate *best);

#ifdef __cplusplus
}
#endif
#endif
