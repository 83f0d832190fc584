"""_lib.py - libsan's public API (include/san/*.h) in ctypes.

The structures mirror the headers field by field: libsan's structures
are plain data that callers read directly (san.h).  A layout test
(tests/test_layout.py) compiles a C program that prints every field's
offset as the compiler sees it and compares it with ctypes', so a header
change cannot go unnoticed.

The library is found by SAN_LIBRARY (a path), then beside this package
in a build tree (../../.libs/libsan.so), then where the system keeps
libraries (ctypes.util.find_library, after `make install`).
"""
import ctypes
import ctypes.util
import os
from ctypes import (POINTER, Structure, c_char_p, c_double, c_int, c_int32,
                    c_int64, c_long, c_size_t, c_uint, c_void_p)

# ---- base.h ----

SAN_OK, SAN_E_MODEL, SAN_E_USAGE, SAN_E_NOMEM, SAN_E_LIMIT, SAN_E_NOTCONV, \
    SAN_E_INTERRUPTED, SAN_E_NUMERIC, SAN_E_IO, SAN_E_INPUT = range(10)


# ---- model.h ----

class Define(Structure):
    _fields_ = [("name", c_char_p), ("value", c_double), ("used", c_int)]


class LoadOpts(Structure):
    _fields_ = [("defs", POINTER(Define)), ("ndefs", c_int), ("peps_warnings", c_int),
                ("progress", c_int)]


# ---- solve.h ----

class SolveOpts(Structure):
    _fields_ = [("method", c_int), ("tol", c_double), ("max_iter", c_long),
                ("omega", c_double), ("restart", c_int), ("precond", c_int),
                ("time_limit", c_double), ("progress", c_int), ("interrupt", c_void_p),
                ("warm", c_void_p), ("max_memory", c_double),
                ("fork_lu", c_int)]


# ---- space.h ----

class SpaceOpts(Structure):
    _fields_ = [("max_memory", c_double), ("max_states", c_int64), ("time_limit", c_double),
                ("progress", c_int), ("interrupt", c_void_p), ("states_only", c_int),
                ("no_arcs", c_int), ("several_closed", c_int), ("several_steady", c_int)]


# ---- analyze.h ----

STORAGE = {"auto": 0, "sparse": 1, "kron": 2}
ANALYSIS = {"steady": 0, "transient": 1, "passage": 2}


class TransientOpts(Structure):
    _fields_ = [("times", POINTER(c_double)), ("ntimes", c_int),
                ("init_index", POINTER(c_int64)), ("init_p", POINTER(c_double)),
                ("init_n", c_int64), ("initial", c_void_p), ("until", c_void_p),
                ("eps", c_double), ("ss_tol", c_double), ("max_steps", c_double),
                ("rewards", c_int), ("levels", POINTER(c_double)), ("nlevels", c_int),
                ("mean_tol", c_double)]


class AnalysisOpts(Structure):
    _fields_ = [("space", SpaceOpts), ("solve", SolveOpts), ("storage", c_int),
                ("ntop", c_int), ("time_limit", c_double), ("space_only", c_int),
                ("kind", c_int), ("tr", TransientOpts),
                ("engine", c_int), ("engine_options", c_char_p),
                ("engine_matrix", c_int), ("engine_keep_vector", c_int),
                ("lump", c_int)]


class SolveReportOpts(Structure):
    """san_solve_report_opts: what san_report_solve says beyond the analysis."""
    _fields_ = [("source", c_char_p), ("tol", c_double), ("auto_picked", c_int),
                ("t_total", c_double), ("vector", c_int), ("no_marginals", c_int),
                ("no_throughputs", c_int), ("all_replicas", c_int), ("preamble", c_void_p),
                ("ctx", c_void_p)]


class TimeReportOpts(Structure):
    """san_time_report_opts: what san_report_transient says beyond the analysis."""
    _fields_ = [("source", c_char_p), ("passage", c_int), ("eps", c_double),
                ("t_total", c_double), ("initial", c_char_p),
                ("rewards", c_int), ("all_replicas", c_int), ("complete", c_int),
                ("ntimes_asked", c_int), ("levels", POINTER(c_double)), ("nlevels", c_int),
                ("preamble", c_void_p), ("ctx", c_void_p)]


# ---- props.h ----

class PropsOpts(Structure):
    _fields_ = [("space", SpaceOpts), ("solve", SolveOpts), ("eps", c_double),
                ("max_steps", c_double)]


class PropAnswer(Structure):
    _fields_ = [("value", c_double), ("kind", c_char_p), ("method", c_char_p),
                ("error_bound", c_double), ("target", c_int64), ("steps", c_long),
                ("classes", c_int64)]


class TextPos(Structure):
    _fields_ = [("line", c_int), ("col", c_int)]


class AuditOpts(Structure):
    _fields_ = [("explore", c_int), ("max_states", c_int64), ("max_memory", c_double),
                ("progress", c_int), ("interrupt", c_void_p)]


class Audit(Structure):
    _fields_ = [("explored", c_int), ("complete", c_int), ("states", c_int64),
                ("why", ctypes.c_char * 256)]


EXPLORE = {"auto": 0, "always": 1, "never": 2}
LUMP = {"auto": 0, "off": 1}

# the C structures of the layout test: (C name, ctypes class)
STRUCTS = [("san_define", Define),
           ("san_load_opts", LoadOpts), ("san_solve_opts", SolveOpts),
           ("san_space_opts", SpaceOpts), ("san_transient_opts", TransientOpts),
           ("san_analysis_opts", AnalysisOpts), ("san_audit_opts", AuditOpts), ("san_audit", Audit),
           ("san_text_pos", TextPos), ("san_solve_report_opts", SolveReportOpts),
           ("san_time_report_opts", TimeReportOpts), ("san_props_opts", PropsOpts),
           ("san_prop_answer", PropAnswer)]


def _find():
    path = os.environ.get("SAN_LIBRARY")
    if path:
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", ".libs", "libsan.so")
    if os.path.exists(built):
        return built
    found = ctypes.util.find_library("san")
    if found:
        return found
    raise OSError("libsan not found: set SAN_LIBRARY to libsan.so, or make install")


def _load():
    lib = ctypes.CDLL(_find())
    sig = {
        "san_version": (c_char_p, []),
        "san_status_name": (c_char_p, [c_int]),
        "san_diag_new": (c_void_p, [c_char_p, c_char_p, c_size_t]),
        "san_diag_delete": (None, [c_void_p]),
        "san_diag_count": (c_int, [c_void_p]),
        "san_diag_file": (c_char_p, [c_void_p]),
        "san_diag_message": (c_char_p, [c_void_p, c_int, POINTER(c_int), POINTER(c_int),
                                        POINTER(c_int)]),
        "san_model_compile": (c_int, [c_char_p, c_size_t, POINTER(LoadOpts),
                                      POINTER(c_void_p), c_void_p]),
        "san_model_free": (None, [c_void_p]),
        "san_model_name": (c_char_p, [c_void_p]),
        "san_model_product_text": (c_char_p, [c_void_p]),
        "san_model_automata": (c_int, [c_void_p]),
        "san_model_automaton_name": (c_char_p, [c_void_p, c_int]),
        "san_model_automaton_states": (c_int, [c_void_p, c_int]),
        "san_model_local_state": (c_char_p, [c_void_p, c_int, c_int]),
        "san_model_stride": (c_int64, [c_void_p, c_int]),
        "san_model_events": (c_int, [c_void_p]),
        "san_model_event_name": (c_char_p, [c_void_p, c_int]),
        "san_model_event_sync": (c_int, [c_void_p, c_int]),
        "san_model_event_parts": (POINTER(c_int), [c_void_p, c_int, POINTER(c_int)]),
        "san_model_results": (c_int, [c_void_p]),
        "san_model_result_name": (c_char_p, [c_void_p, c_int]),
        "san_model_result_derived": (c_int, [c_void_p, c_int]),
        "san_model_result_expr": (c_void_p, [c_void_p, c_int]),
        "san_model_define_why": (None, [c_void_p, c_char_p, c_double, c_char_p, c_size_t]),
        "san_gen": (c_int, [c_int, POINTER(c_char_p), POINTER(c_void_p), POINTER(c_void_p),
                            c_char_p, c_size_t]),
        "san_is_prism_path": (c_int, [c_char_p]),
        "san_props_parse": (c_int, [c_char_p, c_size_t, POINTER(Define), c_int,
                                    POINTER(c_void_p), c_void_p]),
        "san_props_free": (None, [c_void_p]),
        "san_props_count": (c_int, [c_void_p]),
        "san_props_source": (c_char_p, [c_void_p, c_int, POINTER(c_size_t),
                                        POINTER(c_char_p)]),
        "san_props_opts_default": (None, [POINTER(PropsOpts)]),
        "san_checker_new": (c_int, [c_void_p, POINTER(PropsOpts), POINTER(c_void_p),
                                    c_void_p]),
        "san_checker_free": (None, [c_void_p]),
        "san_checker_validate": (c_int, [c_void_p, c_void_p, c_int, c_void_p]),
        "san_checker_eval": (c_int, [c_void_p, c_void_p, c_int, POINTER(PropAnswer),
                                     c_void_p]),
        "san_report_props": (c_int, [c_void_p, c_int, c_void_p, c_void_p, POINTER(PropAnswer),
                                     c_void_p]),
        "san_import_prism_flags": (c_int, [c_char_p, c_char_p, c_size_t, POINTER(Define), c_int,
                                           c_char_p, c_uint, POINTER(c_void_p), c_void_p]),
        "san_method_parse": (c_int, [c_char_p, POINTER(c_int)]),
        "san_method_name": (c_char_p, [c_int]),
        "san_solve_reached_estimate": (c_double, [c_void_p]),
        "san_analysis_opts_default": (None, [POINTER(AnalysisOpts)]),
        "san_analyze": (c_int, [c_void_p, POINTER(AnalysisOpts), c_void_p,
                                c_void_p]),
        "san_analysis_new": (c_void_p, []),
        "san_analysis_delete": (None, [c_void_p]),
        "san_analysis_has_solution": (c_int, [c_void_p]),
        "san_analysis_has_indices": (c_int, [c_void_p]),
        "san_analysis_has_transient": (c_int, [c_void_p]),
        "san_analysis_space": (c_void_p, [c_void_p]),
        "san_analysis_space_model": (c_void_p, [c_void_p]),
        "san_analysis_lumping": (c_void_p, [c_void_p]),
        "san_analysis_kron": (c_int, [c_void_p]),
        "san_analysis_states": (c_int64, [c_void_p]),
        "san_analysis_index": (POINTER(c_int64), [c_void_p]),
        "san_analysis_generator": (c_int64, [c_void_p, POINTER(POINTER(c_int64)),
                                             POINTER(POINTER(c_int32)),
                                             POINTER(POINTER(c_double))]),
        "san_analysis_pi": (POINTER(c_double), [c_void_p]),
        "san_analysis_steady": (c_void_p, [c_void_p]),
        "san_analysis_info": (c_void_p, [c_void_p]),
        "san_analysis_classes": (c_int64, [c_void_p]),
        "san_analysis_class": (c_int64, [c_void_p, c_int64, POINTER(c_double),
                                         POINTER(c_double), POINTER(c_double)]),
        "san_analysis_times": (c_int, [c_void_p, POINTER(POINTER(c_double))]),
        "san_analysis_at": (c_void_p, [c_void_p, c_int]),
        "san_analysis_accumulated": (c_void_p, [c_void_p, c_int]),
        "san_analysis_initial_states": (c_int64, [c_void_p]),
        "san_analysis_uniformization": (c_double, [c_void_p, POINTER(c_long), POINTER(c_double),
                                                   POINTER(c_double), POINTER(c_double)]),
        "san_analysis_incomplete": (c_int, [c_void_p]),
        "san_analysis_target_states": (c_int64, [c_void_p]),
        "san_analysis_reach": (c_double, [c_void_p, POINTER(c_int), POINTER(c_double)]),
        "san_analysis_mean": (c_double, [c_void_p, POINTER(c_int), POINTER(c_double)]),
        "san_analysis_cdf": (POINTER(c_double), [c_void_p]),
        "san_analysis_percentiles": (POINTER(c_double), [c_void_p]),
        "san_solution_results": (POINTER(c_double), [c_void_p]),
        "san_solution_marginal": (POINTER(c_double), [c_void_p, c_int]),
        "san_solution_throughputs": (POINTER(c_double), [c_void_p]),
        "san_solve_info_converged": (c_int, [c_void_p]),
        "san_solve_info_residual": (c_double, [c_void_p]),
        "san_solve_info_method": (c_int, [c_void_p]),
        "san_solve_info_iterations": (c_long, [c_void_p]),
        "san_solve_info_message": (c_char_p, [c_void_p]),
        "san_solve_report_opts_default": (None, [POINTER(SolveReportOpts)]),
        "san_report_solve": (c_int, [c_void_p, c_int, c_void_p, c_void_p,
                                     POINTER(SolveReportOpts)]),
        "san_time_report_opts_default": (None, [POINTER(TimeReportOpts)]),
        "san_report_transient": (c_int, [c_void_p, c_int, c_void_p, c_void_p,
                                         POINTER(TimeReportOpts)]),
        "san_parse_bytes": (c_int, [c_char_p, POINTER(c_double)]),
        "san_read_input": (c_int, [c_char_p, c_double, POINTER(c_void_p), POINTER(c_size_t),
                                   c_char_p, c_size_t]),
        "san_model_lump": (c_int, [c_void_p, POINTER(c_void_p), c_void_p]),
        "san_lumping_summary": (c_char_p, [c_void_p]),
        "san_lumping_free": (None, [c_void_p]),
        "san_audit_model": (c_int, [c_void_p, POINTER(AuditOpts), POINTER(Audit),
                                    c_void_p]),
        "san_text_with_results": (c_int, [c_char_p, c_size_t, POINTER(LoadOpts),
                                          POINTER(c_char_p), POINTER(c_char_p), c_int,
                                          POINTER(c_void_p), POINTER(c_size_t),
                                          POINTER(TextPos)]),
        "san_export_mtx_note": (c_int, [c_void_p, c_char_p, c_void_p, c_char_p, c_size_t]),
        "san_export_states": (c_int, [c_void_p, c_void_p]),
        "san_export_prism_tra": (c_int, [c_void_p, c_void_p, c_char_p, c_size_t]),
        "san_export_prism_sta": (c_int, [c_void_p, c_void_p]),
        "san_export_prism_lab": (c_int, [c_void_p, c_void_p]),
        "san_export_prism_nrewards": (c_int, [c_void_p]),
        "san_export_prism_srew": (c_int, [c_void_p, c_int, c_void_p, c_char_p, c_size_t]),
        "san_export_prism_map": (c_int, [c_void_p, c_void_p]),
        "san_export_dot_automata": (c_int, [c_void_p, c_void_p]),
        "san_lumping_model": (c_void_p, [c_void_p]),
        "san_export_lump_note": (c_void_p, [c_void_p, c_void_p, c_int64]),
        "san_sweep_opts_new": (c_void_p, []),
        "san_sweep_opts_delete": (None, [c_void_p]),
        "san_sweep_opts_set": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_size_t]),
        "san_sweep_opts_interrupt": (None, [c_void_p, POINTER(c_int)]),
        "san_sweep_new": (c_void_p, []),
        "san_sweep_delete": (None, [c_void_p]),
        "san_sweep_init": (c_int, [c_void_p, c_int, POINTER(c_char_p), c_void_p, c_char_p,
                                   c_size_t]),
        "san_sweep_run": (c_int, [c_void_p, c_void_p]),
        "san_sweep_write": (None, [c_void_p, c_int, c_void_p, c_int, c_int, c_void_p]),
        "san_size_buffer_json": (c_int, [c_int, POINTER(c_char_p), c_char_p, c_double, c_long,
                                         c_void_p, POINTER(c_void_p), c_char_p, c_size_t]),
        "san_grain_json": (c_int, [c_int, POINTER(c_char_p), c_char_p, c_double, c_void_p,
                                   POINTER(c_void_p), c_char_p, c_size_t]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    return lib


lib = _load()
# the C library's free(), for the text san_gen allocates
libc = ctypes.CDLL(None)
libc.free.argtypes = [c_void_p]
libc.free.restype = None
libc.fopen.argtypes = [c_char_p, c_char_p]
libc.fopen.restype = c_void_p
libc.fclose.argtypes = [c_void_p]
libc.fclose.restype = c_int
libc.fflush.argtypes = [c_void_p]
libc.fflush.restype = c_int
libc.open_memstream.argtypes = [POINTER(c_void_p), POINTER(c_size_t)]
libc.open_memstream.restype = c_void_p
libc.fputs.argtypes = [c_char_p, c_void_p]
libc.fputs.restype = c_int
