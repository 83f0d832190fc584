"""_lib.py - libsan's public API (include/san/*.h) in ctypes.

Functions only: every object (a model, a diagnostics list, an analysis,
an options struct) is a handle (c_void_p) that libsan makes, fills,
reads and frees through its accessors and keyed setters (issue 30 item
4), so no structure of the headers is mirrored here and a header change
cannot make Python read or write the wrong bytes (one did, once).
tests/test_api.py checks that no ctypes.Structure comes back and that
every function bound here is one include/ declares and libsan exports.

The library is found by SAN_LIBRARY (a path), then beside this package
in a build tree (../../.libs/libsan.so), then where the system keeps
libraries (ctypes.util.find_library, after `make install`).
"""
import ctypes
import ctypes.util
import os
from ctypes import (POINTER, c_char_p, c_double, c_int, c_int32,
                    c_int64, c_long, c_size_t, c_uint, c_void_p)

# ---- base.h ----

SAN_OK, SAN_E_MODEL, SAN_E_USAGE, SAN_E_NOMEM, SAN_E_LIMIT, SAN_E_NOTCONV, \
    SAN_E_INTERRUPTED, SAN_E_NUMERIC, SAN_E_IO, SAN_E_INPUT = range(10)


# the words of the options libsan's setters take (san_analysis_opts_set ...)
STORAGE = ("auto", "sparse", "kron")
EXPLORE = ("auto", "always", "never")
LUMP = ("auto", "off")


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
        "san_diag_free": (None, [c_void_p]),
        "san_diag_count": (c_int, [c_void_p]),
        "san_diag_file": (c_char_p, [c_void_p]),
        "san_diag_message": (c_char_p, [c_void_p, c_int, POINTER(c_int), POINTER(c_int),
                                        POINTER(c_int)]),
        "san_model_compile": (c_int, [c_char_p, c_size_t, c_void_p,
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
        "san_props_parse": (c_int, [c_char_p, c_size_t, c_void_p, c_int,
                                    POINTER(c_void_p), c_void_p]),
        "san_props_free": (None, [c_void_p]),
        "san_props_count": (c_int, [c_void_p]),
        "san_props_source": (c_char_p, [c_void_p, c_int, POINTER(c_size_t),
                                        POINTER(c_char_p)]),
        "san_checker_new": (c_int, [c_void_p, c_void_p, POINTER(c_void_p),
                                    c_void_p]),
        "san_checker_free": (None, [c_void_p]),
        "san_checker_validate": (c_int, [c_void_p, c_void_p, c_int, c_void_p]),
        "san_checker_eval": (c_int, [c_void_p, c_void_p, c_int, c_void_p,
                                     c_void_p]),
        "san_report_props": (c_int, [c_void_p, c_int, c_void_p, c_void_p, c_void_p,
                                     c_void_p]),
        "san_import_prism_flags": (c_int, [c_char_p, c_char_p, c_size_t, c_void_p, c_int,
                                           c_char_p, c_uint, POINTER(c_void_p), c_void_p]),
        "san_method_parse": (c_int, [c_char_p, POINTER(c_int)]),
        "san_method_name": (c_char_p, [c_int]),
        "san_solve_reached_estimate": (c_double, [c_void_p]),
        "san_analyze": (c_int, [c_void_p, c_void_p, c_void_p,
                                c_void_p]),
        "san_analysis_opts_new": (c_void_p, []),
        "san_analysis_opts_free": (None, [c_void_p]),
        "san_analysis_opts_set": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_size_t]),
        "san_analysis_opts_set_interrupt": (None, [c_void_p, POINTER(c_int)]),
        "san_analysis_opts_set_times": (c_int, [c_void_p, POINTER(c_double), c_int]),
        "san_analysis_opts_set_levels": (c_int, [c_void_p, POINTER(c_double), c_int]),
        "san_analysis_opts_set_states": (None, [c_void_p, c_void_p, c_void_p]),
        "san_audit_opts_new": (c_void_p, []),
        "san_audit_opts_free": (None, [c_void_p]),
        "san_audit_opts_set": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_size_t]),
        "san_audit_new": (c_void_p, []),
        "san_audit_free": (None, [c_void_p]),
        "san_audit_explored": (c_int, [c_void_p]),
        "san_audit_complete": (c_int, [c_void_p]),
        "san_audit_states": (c_int64, [c_void_p]),
        "san_audit_why": (c_char_p, [c_void_p]),
        "san_props_opts_new": (c_void_p, []),
        "san_props_opts_free": (None, [c_void_p]),
        "san_props_opts_set": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_size_t]),
        "san_props_opts_set_interrupt": (None, [c_void_p, POINTER(c_int)]),
        "san_prop_answers_new": (c_void_p, [c_int]),
        "san_prop_answers_free": (None, [c_void_p]),
        "san_prop_answers_at": (c_void_p, [c_void_p, c_int]),
        "san_solve_report_opts_new": (c_void_p, []),
        "san_solve_report_opts_free": (None, [c_void_p]),
        "san_solve_report_opts_set": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_size_t]),
        "san_solve_report_opts_set_source": (c_int, [c_void_p, c_char_p]),
        "san_time_report_opts_new": (c_void_p, []),
        "san_time_report_opts_free": (None, [c_void_p]),
        "san_time_report_opts_set": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_size_t]),
        "san_time_report_opts_set_source": (c_int, [c_void_p, c_char_p]),
        "san_time_report_opts_set_levels": (c_int, [c_void_p, POINTER(c_double), c_int]),
        "san_load_opts_new": (c_void_p, []),
        "san_load_opts_free": (None, [c_void_p]),
        "san_load_opts_set": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_size_t]),
        "san_load_opts_define": (c_int, [c_void_p, c_char_p, c_double]),
        "san_load_opts_define_used": (c_int, [c_void_p, c_int]),
        "san_load_opts_defines": (c_void_p, [c_void_p, POINTER(c_int)]),
        "san_text_positions_new": (c_void_p, [c_int]),
        "san_text_positions_free": (None, [c_void_p]),
        "san_text_position": (None, [c_void_p, c_int, POINTER(c_int), POINTER(c_int)]),
        "san_analysis_new": (c_void_p, []),
        "san_analysis_free": (None, [c_void_p]),
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
        "san_report_solve": (c_int, [c_void_p, c_int, c_void_p, c_void_p,
                                     c_void_p]),
        "san_report_transient": (c_int, [c_void_p, c_int, c_void_p, c_void_p,
                                         c_void_p]),
        "san_parse_bytes": (c_int, [c_char_p, POINTER(c_double)]),
        "san_read_input": (c_int, [c_char_p, c_double, POINTER(c_void_p), POINTER(c_size_t),
                                   c_char_p, c_size_t]),
        "san_model_lump": (c_int, [c_void_p, POINTER(c_void_p), c_void_p]),
        "san_lumping_summary": (c_char_p, [c_void_p]),
        "san_lumping_free": (None, [c_void_p]),
        "san_audit_model": (c_int, [c_void_p, c_void_p, c_void_p,
                                    c_void_p]),
        "san_text_with_results": (c_int, [c_char_p, c_size_t, c_void_p,
                                          POINTER(c_char_p), POINTER(c_char_p), c_int,
                                          POINTER(c_void_p), POINTER(c_size_t),
                                          c_void_p]),
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
        "san_sweep_opts_free": (None, [c_void_p]),
        "san_sweep_opts_set": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_size_t]),
        "san_sweep_opts_interrupt": (c_int, [c_void_p, POINTER(c_int)]),
        "san_sweep_new": (c_void_p, []),
        "san_sweep_free": (None, [c_void_p]),
        "san_sweep_init": (c_int, [c_void_p, c_int, POINTER(c_char_p), c_void_p, c_char_p,
                                   c_size_t]),
        "san_sweep_run": (c_int, [c_void_p, c_void_p, c_char_p, c_size_t]),
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
