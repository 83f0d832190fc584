"""san - Stochastic Automata Networks from Python, over libsan.

    import san
    m = san.load("models/mm1k.san", defines={"lambda": 4})
    sol = m.solve()
    sol.results["empty"], sol.marginals["queue"]["s[0]"], sol.pi
    q = m.generator()                       # scipy.sparse, rows sum to 0
    df = san.sweep("ms", mode="async", slaves=range(2, 5), buffer=[5, 10])

Everything goes through libsan's public API (include/san/*.h) with
ctypes: the one analysis pipeline of the `san` command (san_analyze),
its checks and its accuracy contract (san(1), ACCURACY).  States are
numbered as `san export` numbers them: by mixed-radix index, ascending,
so sol.pi[k], row k of generator() and row k of states() are one state.
"""
import ctypes
import itertools
import json
import os
import types
import warnings
from concurrent.futures import ThreadPoolExecutor
from ctypes import POINTER, byref, c_char_p, c_int, c_void_p

import numpy as np

from . import _interrupt, _lib
from ._lib import lib

__all__ = ["SanError", "Model", "Solution", "Transient", "Passage", "load", "gen", "sweep",
           "size_buffer", "grain", "version"]


def version():
    """libsan's version string."""
    return lib.san_version().decode()


class SanError(Exception):
    """A failure of libsan: status (its san_status name) and the
    diagnostics ("file:line:col: error: ...") that explain it."""

    def __init__(self, status, diagnostics=(), message=None):
        self.status = status
        self.diagnostics = list(diagnostics)
        super().__init__(message or "; ".join(self.diagnostics) or status)


def _status_name(st):
    return lib.san_status_name(st).decode()


def _messages(d):
    sev = {0: "note", 1: "warning", 2: "error"}
    out = []
    file = lib.san_diag_file(d)
    for k in range(lib.san_diag_count(d)):
        s, line, col = c_int(), c_int(), c_int()
        msg = lib.san_diag_message(d, k, byref(s), byref(line), byref(col))
        where = f"{file.decode() if file else ''}"
        if line.value:
            where += f":{line.value}:{col.value}"
        out.append(f"{where}: {sev.get(s.value, '?')}: {msg.decode()}")
    return out


class _DiagScope:
    """A san_diag for one call (san_diag_new), freed on exit."""

    def __init__(self, name, text=None):
        self.name = name.encode()
        self.text = text        # san_diag_new keeps pointers to both
        self.d = lib.san_diag_new(self.name, text, len(text) if text else 0)
        if not self.d:
            raise MemoryError("san_diag_new")

    def __enter__(self):
        return self.d

    def __exit__(self, *exc):
        lib.san_diag_free(self.d)


class _Opts:
    """A libsan options object of one kind ("analysis", "props", "audit",
    "load", "solve_report", "time_report"): made by san_KIND_opts_new,
    set by name (san_KIND_opts_set), freed on exit.  Values go as text:
    a float by repr (it reads back to the same double), an int as is, a
    word as it is written."""

    def __init__(self, kind):
        self.kind = kind
        self.p = getattr(lib, f"san_{kind}_opts_new")()
        if not self.p:
            raise MemoryError(f"san_{kind}_opts_new")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        getattr(lib, f"san_{self.kind}_opts_free")(self.p)

    def set(self, key, value):
        if isinstance(value, float):
            text = repr(value)
        elif isinstance(value, (bool, int)):
            text = str(int(value))
        else:
            text = str(value)
        err = ctypes.create_string_buffer(512)
        if getattr(lib, f"san_{self.kind}_opts_set")(self.p, key.encode(), text.encode(), err,
                                                     len(err)) != _lib.SAN_OK:
            raise _usage(err.value.decode())


def _usage(message):
    return SanError("usage", message=message)


def _number(name, v, lo, hi, what, zero_ok=False):
    """v as a float in [lo, hi] (0 too when zero_ok: "no limit"), as the
    command's option parser takes it; else SanError("usage").  bool is
    no number (True would be 1)."""
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise _usage(f"{name}: expected {what}, not {v!r}")
    x = float(v)
    if zero_ok and x == 0:
        return 0.0
    if not (lo <= x <= hi):     # NaN fails both
        why = "not a number" if x != x else "infinite" if x in (float("inf"), float("-inf")) \
            else "too small" if x < lo else "too large"
        raise _usage(f"{name}: expected {what}, not {v!r} ({why})")
    return x


def _integer(name, v, lo, hi, what, zero_ok=False):
    x = _number(name, v, lo, hi, what, zero_ok)
    if x != int(x):
        raise _usage(f"{name}: expected {what}, not {v!r} (not a whole number)")
    return int(x)


def _max_memory(v):
    """--max-memory's value: bytes, or a size as the command reads it
    ("4G", "512M")."""
    if isinstance(v, str):
        b = ctypes.c_double()
        if lib.san_parse_bytes(v.encode(), byref(b)) != 0:
            raise _usage(f"max_memory: not a size: {v!r}")
        return b.value
    return _number("max_memory", v, 1, 1e30, "a size in bytes (>= 1)")


def _max_states(v):
    """--max-states' value (0: no limit)."""
    return _integer("max_states", v, 1, 9e18, "a positive integer (0: no limit)", zero_ok=True)


def _defines(defines, kw):
    """{name: value} of defines and keywords: every value a finite number,
    as -D takes it (SanError, not ValueError, for anything else)."""
    try:
        d = dict(defines or {})
    except (TypeError, ValueError):
        raise _usage(f"defines: expected a mapping of names to numbers, not {defines!r}") from None
    d.update(kw)
    out = {}
    for k, v in d.items():
        if isinstance(v, str):
            try:
                v = float(v)
            except ValueError:
                raise _usage(f"defines: {k}: {v!r} is not a number") from None
        out[str(k)] = _number(f"defines: {k}", v, -1.7976931348623157e308,
                              1.7976931348623157e308, "a finite number")
    return out


class Model:
    """A compiled model (san_model).  Read-only; solve it as often as
    needed, from several threads at once."""

    def __init__(self, ptr, source, warnings_=(), text=None, defines=None):
        self._m = ptr
        self.source = source
        self.warnings = list(warnings_)
        # what it was compiled from: transient() and passage() compile
        # their state selections in the model's scope (as the command does)
        self._text = text
        self._defines = dict(defines or {})
        self._prism = None          # (source, name, constants) of a PRISM model

    def __del__(self):
        m, self._m = getattr(self, "_m", None), None
        if m and lib is not None:      # lib is gone at interpreter exit
            lib.san_model_free(m)

    # ---- what the model is ----

    @property
    def _c(self):
        """The C text of the product size (bytes) as product_str, read by
        san_model_product_text (a test compares it with the exact size)."""
        return types.SimpleNamespace(product_str=lib.san_model_product_text(self._m))

    @property
    def name(self):
        return lib.san_model_name(self._m).decode()

    @property
    def automata(self):
        """{automaton: [local state names]}, in the model's order."""
        m = self._m
        return {n: _local_states(m, a) for a, n in enumerate(_automaton_names(m))}

    @property
    def events(self):
        """[{name, sync, automata}] in the model's order."""
        m = self._m
        auts = _automaton_names(m)
        out = []
        for e, name in enumerate(_event_names(m)):
            n = c_int()
            parts = lib.san_model_event_parts(m, e, byref(n))
            out.append({"name": name, "sync": bool(lib.san_model_event_sync(m, e)),
                        "automata": [auts[parts[k]] for k in range(n.value)]})
        return out

    @property
    def result_names(self):
        return _result_names(self._m)

    @property
    def product_states(self):
        """The size of the product space, exact (a Python int).  The C
        text is exact up to 40 digits only (scientific beyond): larger
        sizes are multiplied here, halves first (a balanced product:
        10^6 automata in milliseconds, where one factor after another
        would be quadratic)."""
        m = self._m
        text = lib.san_model_product_text(m).decode()
        if text.isdigit():
            return int(text)
        sizes = [lib.san_model_automaton_states(m, a) for a in range(lib.san_model_automata(m))]

        def prod(lo, hi):
            if hi - lo <= 16:
                r = 1
                for v in sizes[lo:hi]:
                    r *= v
                return r
            mid = (lo + hi) // 2
            return prod(lo, mid) * prod(mid, hi)
        return prod(0, len(sizes))

    def check(self, explore="auto", max_states=0, max_memory=None):
        """What `san check` finds, as a dict: the model's summary, its
        warnings, and the solve's checks on the reachable states (rates,
        routing sums, exit rates; absorbing local states, events that never
        fire), run as `san check --explore auto|always|never` runs them.
        "errors" lists what the solve would refuse (empty: the model is
        fine); "audit" says how many states were checked, and why not all
        when "complete" is False."""
        if explore not in _lib.EXPLORE:
            raise SanError("usage", message=f"explore: auto, always or never, not '{explore}'")
        r = lib.san_audit_new()
        if not r:
            raise MemoryError("san_audit_new")
        try:
            with _Opts("audit") as o:
                o.set("explore", explore)
                o.set("max_states", int(max_states))
                o.set("max_memory", float(max_memory or 0))
                with _DiagScope(self.source) as d:
                    st = lib.san_audit_model(self._m, o.p, r, d)
                    msgs = _messages(d)
            audit = {"explored": bool(lib.san_audit_explored(r)),
                     "complete": bool(lib.san_audit_complete(r)),
                     "states": lib.san_audit_states(r), "why": lib.san_audit_why(r).decode()}
        finally:
            lib.san_audit_free(r)
        if st != _lib.SAN_OK:
            raise SanError(_status_name(st), msgs)
        errors = [x for x in msgs if ": error: " in x]
        return {"model": self.name, "automata": self.automata,
                "events": self.events, "results": self.result_names,
                "product_states": self.product_states,
                "warnings": self.warnings + [x for x in msgs if ": error: " not in x],
                "errors": errors, "ok": not errors,
                "audit": audit}

    # ---- analyses ----

    def _analyze(self, space_only=False, method="auto", tol=None, storage="auto",
                 max_memory=None, max_states=0, time_limit=0, ntop=0, lump="auto",
                 setup=None):
        # every option checked as the command's parser checks it (the
        # same ranges: san(1)), before anything is built: tol=inf once
        # gave converged=True with an error of 9, max_memory=nan no limit
        with _Opts("analysis") as o:
            if not isinstance(lump, str) or lump not in _lib.LUMP:
                raise _usage(f"lump: auto or off, not {lump!r}")
            o.set("lump", lump)
            meth = c_int()
            if not isinstance(method, str) or \
                    lib.san_method_parse(method.encode(), byref(meth)) != 0:
                raise _usage(f"unknown method {method!r}")
            o.set("method", method)
            if tol is not None:
                o.set("tol", _number("tol", tol, 1e-300, 1, "a number in (0, 1]"))
            if not isinstance(storage, str) or storage not in _lib.STORAGE:
                raise _usage(f"storage: auto, sparse or kron, not {storage!r}")
            o.set("storage", storage)
            if max_memory is not None:
                o.set("max_memory", _max_memory(max_memory))
            o.set("max_states", _max_states(max_states))
            o.set("time_limit", _number("time_limit", time_limit, 1e-6, 1e9,
                                        "seconds > 0 (0: no limit)", zero_ok=True))
            o.set("ntop", _integer("ntop", ntop, 0, 2**31 - 1, "a whole number >= 0"))
            o.set("space_only", int(space_only))
            if setup:
                setup(o)        # what one kind of analysis adds (transient, passage)
            a = lib.san_analysis_new()
            if not a:
                raise MemoryError("san_analysis_new")
            # Ctrl-C stops the call within a step (_interrupt.call)
            stop = c_int(0)
            lib.san_analysis_opts_set_interrupt(o.p, byref(stop))

            def work():
                with _DiagScope(self.source) as d:
                    st = lib.san_analyze(self._m, o.p, a, d)
                    return st, _messages(d)
            try:
                st, msgs = _interrupt.call(work, stop)
            except BaseException:
                lib.san_analysis_free(a)
                raise
        return st, a, msgs

    def props(self, properties, constants=None, tol=None, eps=None, max_steps=None,
              max_memory=None, max_states=0):
        """Check CSL properties as `san props` does (PRISM's property
        language, CTMC fragment: doc/props.md).  properties: one text or
        a list of them, each a property ('S=? [ "premium" ]') or a
        property file's text ("name": before a property, const
        declarations, several properties); constants={"T": 10} sets the
        properties' constants (a PRISM model's own are load's).  Returns
        a Properties: the list `san props -f json` prints under
        "properties" (name, property, value, kind, method, error_bound,
        ...), values by name, and json(), the whole document."""
        texts = [properties] if isinstance(properties, (str, bytes)) else list(properties)
        if not texts or not all(isinstance(t, (str, bytes)) for t in texts):
            raise _usage("props: properties: a text or a list of texts")
        with _Opts("props") as o:
            if tol is not None:
                o.set("tol", _number("tol", tol, 1e-300, 1, "a number in (0, 1]"))
            if eps is not None:
                o.set("eps", _number("eps", eps, 1e-300, 0.5, "a number in (0, 0.5]"))
            if max_steps is not None:
                o.set("max_steps", _number("max_steps", max_steps, 1, 1e18, "a number >= 1"))
            if max_memory is not None:
                o.set("max_memory", _max_memory(max_memory))
            o.set("max_states", _max_states(max_states))
            return self._props(texts, constants, o)

    def _props(self, texts, constants, o):
        """props() with its options o (an _Opts("props"))."""
        consts = _defines(constants, {})
        # a PRISM model again, with what properties read beside its
        # results (each constant's value, the state rewards)
        m = self
        if self._prism:
            src, name, defs = self._prism
            m = _compile(_import_prism(src, name, defs, _IMPORT_PROPS), name + " (imported)", {})
        P, C = c_void_p(), c_void_p()
        lo = _load_opts(consts)
        defs, ndefs = _defines_of(lo)
        ans = None
        try:
            for k, t in enumerate(texts):
                data = t.encode() if isinstance(t, str) else t
                label = "property" if len(texts) == 1 else f"property {k + 1}"
                with _DiagScope(label, data) as d:
                    st = lib.san_props_parse(data, len(data), defs, ndefs, byref(P), d)
                    msgs = _messages(d)
                if st != _lib.SAN_OK:
                    raise SanError(_status_name(st), msgs)
            np_ = lib.san_props_count(P)
            ans = lib.san_prop_answers_new(max(1, np_))
            if not ans:
                raise MemoryError("san_prop_answers_new")
            stop = c_int(0)
            lib.san_props_opts_set_interrupt(o.p, byref(stop))

            def diag_of(i):
                size, file = ctypes.c_size_t(), c_char_p()
                src = lib.san_props_source(P, i, byref(size), byref(file))
                return _DiagScope(file.value.decode(), ctypes.string_at(src, size.value))

            def work():
                with _DiagScope(m.source) as d:
                    st = lib.san_checker_new(m._m, o.p, byref(C), d)
                    if st != _lib.SAN_OK:
                        return st, _messages(d)
                for i in range(np_):            # every name first, as the command
                    with diag_of(i) as d:
                        st = lib.san_checker_validate(C, P, i, d)
                        if st != _lib.SAN_OK:
                            return st, _messages(d)
                for i in range(np_):
                    with diag_of(i) as d:
                        st = lib.san_checker_eval(C, P, i, lib.san_prop_answers_at(ans, i), d)
                        if st != _lib.SAN_OK:
                            return st, _messages(d)
                return _lib.SAN_OK, []
            st, msgs = _interrupt.call(work, stop)
            if st != _lib.SAN_OK:
                raise SanError(_status_name(st), msgs)
            doc = json.loads(_report_text(                  # SAN_REPORT_JSON
                lambda f: lib.san_report_props(f, 1, P, C, ans, None)))
        finally:
            if C.value:
                lib.san_checker_free(C)
            if P.value:
                lib.san_props_free(P)
            lib.san_prop_answers_free(ans)
            lo.__exit__()
        return Properties(doc)

    def lumping(self):
        """What a solve lumps (issue 28): the classes of interchangeable
        replicas, "Slave[1..4] (4 replicas of 3 states)", or None when
        nothing lumps.  No state space is built."""
        L = c_void_p()
        with _DiagScope(self.source) as d:
            st = lib.san_model_lump(self._m, byref(L), d)
            msgs = _messages(d)
        if st != _lib.SAN_OK:
            raise SanError(_status_name(st), msgs)
        if not L.value:
            return None
        try:
            return lib.san_lumping_summary(L).decode()
        finally:
            lib.san_lumping_free(L)

    def _space_arrays(self, a):
        index = _state_index(a)
        order = np.argsort(index, kind="stable")
        return index, order

    def solve(self, method="auto", tol=None, storage="auto", max_memory=None,
              max_states=0, time_limit=0, lump="auto", top=10):
        """The steady state (san_analyze): a Solution.  Not converged: a
        warning, and the best answer with converged False.  lump="auto"
        (as san solve): interchangeable replicas solved as counts (issue
        28), the same results, marginals and throughputs as lump="off";
        pi and distribution() are then over the lumped chain's states
        (occupancy vectors, see states()) and sol.lumped says what was
        lumped.  top: the most probable states of sol.json() (--top)."""
        st, a, msgs = self._analyze(False, method, tol, storage, max_memory, max_states,
                                    time_limit, lump=lump, ntop=top)
        try:
            if not lib.san_analysis_has_indices(a):
                info = lib.san_solve_info_message(lib.san_analysis_info(a)).decode() \
                    if lib.san_analysis_has_solution(a) else ""
                raise SanError(_status_name(st), msgs + ([info] if info else []))
            sol = Solution(self, a)
            sol._json = _solve_report(self, a, tol, method == "auto")
        finally:
            lib.san_analysis_free(a)
        if st != _lib.SAN_OK:
            warnings.warn(f"{self.source}: {_status_name(st)}: {sol.message}")
        return sol

    def _space(self, storage, max_memory, max_states, lump):
        st, a, msgs = self._analyze(True, storage=storage, max_memory=max_memory,
                                    max_states=max_states, lump=lump)
        if st != _lib.SAN_OK:
            lib.san_analysis_free(a)
            raise SanError(_status_name(st), msgs)
        return a

    def states(self, max_memory=None, max_states=0, lump="auto"):
        """The reachable states as a DataFrame: state (the export
        number), index (mixed-radix), one column per automaton with its
        local state's name; `san export --format states`.  Lumped (the
        default when replicas are interchangeable, as solve()): the
        lumped chain's states, each class of replicas one column named
        after them ("Slave[1..4]") whose values are occupancy vectors,
        "(I:2 Pr:1 Tx:1)": two replicas in I, one in Pr, one in Tx; the
        frame's attrs["lumped"] says what was lumped (None: nothing)."""
        a = self._space("auto", max_memory, max_states, lump)
        try:
            index, order = self._space_arrays(a)
            auts = _automata(lib.san_analysis_space_model(a))
            lumped = _lumped(a)
        finally:
            lib.san_analysis_free(a)
        df = _states_frame(auts, index[order])
        df.attrs["lumped"] = lumped
        return df

    def generator(self, max_memory=None, max_states=0, lump="auto"):
        """Q as a scipy.sparse.csr_matrix (rows sum to zero), rows and
        columns in export order; `san export --format mtx`.  Lumped as
        states() (lumping() says what is)."""
        import scipy.sparse
        a = self._space("sparse", max_memory, max_states, lump)
        try:
            n = lib.san_analysis_states(a)
            rp, cp, vp = POINTER(ctypes.c_int64)(), POINTER(ctypes.c_int32)(), \
                POINTER(ctypes.c_double)()
            nnz = lib.san_analysis_generator(a, byref(rp), byref(cp), byref(vp))
            rowptr = np.ctypeslib.as_array(rp, shape=(n + 1,)).copy() if rp \
                else np.zeros(n + 1, np.int64)
            col = np.ctypeslib.as_array(cp, shape=(nnz,)).copy() if nnz else np.zeros(0, np.int32)
            val = np.ctypeslib.as_array(vp, shape=(nnz,)).copy() if nnz else np.zeros(0)
            index, order = self._space_arrays(a)
        finally:
            lib.san_analysis_free(a)
        m = scipy.sparse.csr_matrix((val, col, rowptr), shape=(n, n))
        return m[order][:, order].tocsr()


    # ---- time-dependent analyses (san transient, san passage) ----

    def _with_selections(self, sel):
        """This model recompiled with the state selections sel
        {option: expression text} as hidden results (san_text_with_results,
        what the command does for --initial and --until): (model, {option:
        result number}).  A mistake in an expression raises
        SanError("usage") naming the option, line and column within it."""
        if self._text is None:
            raise _usage("this model has no text to compile a state selection in")
        names, exprs = [], []
        for opt, e in sel.items():
            if not isinstance(e, str) or not e.strip():
                raise _usage(f"{opt}: expected an expression over the state, not {e!r}")
            names.append(f"__san_{opt}".encode())
            exprs.append(e.encode())
        with _load_opts(self._defines) as opts:
            st, text, at = _text_with_results(self._text, opts, names, exprs)
            if st != _lib.SAN_OK:
                raise SanError(_status_name(st),
                               message=f"{self.source}: cannot add {', '.join(sel)}")
            return self._compile_selections(sel, exprs, opts, text, at)

    def _compile_selections(self, sel, exprs, opts, text, at):
        """_with_selections once san_text_with_results has made the text,
        at[i] where expression i starts in it."""
        ptr = c_void_p()
        with _DiagScope(self.source, text) as d:
            st = lib.san_model_compile(text, len(text), opts.p, byref(ptr), d)
            errs = []
            for k in range(lib.san_diag_count(d)):
                sev, ln, cl = c_int(), c_int(), c_int()
                text_k = lib.san_diag_message(d, k, byref(sev), byref(ln), byref(cl))
                if sev.value != 2:
                    continue
                where = self.source
                line = ln.value
                for i, opt in enumerate(sel):
                    lines = exprs[i].count(b"\n") + 1
                    if at[i].line <= ln.value < at[i].line + lines:
                        rel = ln.value - at[i].line + 1
                        col = cl.value - at[i].col + 1 if rel == 1 else cl.value
                        where, line = opt, rel
                        it_col = max(col, 1)
                        break
                else:
                    it_col = cl.value
                errs.append(f"{where}:{line}:{it_col}: error: {text_k.decode()}")
        if st != _lib.SAN_OK:
            raise SanError("usage", errs)
        m = Model(ptr.value, self.source, (), text, self._defines)
        names = _result_names(m._m)
        idx = {}
        for opt in sel:
            k = names.index(f"__san_{opt}")
            if lib.san_model_result_derived(m._m, k):
                raise _usage(f"{opt} {sel[opt]!r}: names a result or thr(), values of the "
                             "solution; a state selection reads the state only")
            idx[opt] = k
        return m, idx

    def _time_opts(self, o, times, eps, max_steps, m, idx):
        """The time-dependent options common to transient and passage."""
        try:
            ts = [float(t) for t in (times if np.iterable(times) else [times])]
        except (TypeError, ValueError):
            raise _usage(f"times: expected numbers >= 0, not {times!r}") from None
        if any(not (0 <= t < float("inf")) for t in ts):
            raise _usage(f"times: expected finite numbers >= 0, not {times!r}")
        ts = sorted(set(ts))
        arr = (ctypes.c_double * max(1, len(ts)))(*ts)
        if lib.san_analysis_opts_set_times(o.p, arr, len(ts)) != _lib.SAN_OK:
            raise MemoryError("san_analysis_opts_set_times")
        o.set("eps", _number("eps", eps, 1e-300, 0.5, "a truncation mass in (0, 0.5]"))
        o.set("max_steps", _number("max_steps", max_steps, 1, 1e18, "a product count >= 1"))
        lib.san_analysis_opts_set_states(
            o.p, lib.san_model_result_expr(m._m, idx["initial"]) if "initial" in idx else None,
            lib.san_model_result_expr(m._m, idx["until"]) if "until" in idx else None)

    def _run_time(self, kind, times, initial, until, eps, max_steps, fill, **kw):
        sel = {k: v for k, v in (("initial", initial), ("until", until)) if v is not None}
        m, idx = self._with_selections(sel) if sel else (self, {})

        def setup(o):
            o.set("kind", kind)
            m._time_opts(o, times, eps, max_steps, m, idx)
            fill(o)
        st, a, msgs = m._analyze(setup=setup, **kw)
        try:
            if not lib.san_analysis_has_transient(a):
                raise SanError(_status_name(st), msgs)
            return m, a, st, msgs
        except BaseException:
            lib.san_analysis_free(a)
            raise

    def transient(self, times, initial=None, rewards=False, storage="auto", lump="auto",
                  eps=1e-13, max_steps=1e8, max_memory=None, max_states=0, time_limit=0):
        """pi(t) at the given times, by uniformization (san transient
        --time T1,T2,... [--initial EXPR] [--rewards]): a Transient whose
        results, marginals and throughputs at each time are those of
        `san transient -f json`.  initial: an expression over the state
        selecting where the chain starts, uniformly (default: the states
        the model's reachability function accepts); rewards=True: also
        the integrals over [0, t] (accumulated)."""
        def fill(o):
            o.set("rewards", int(bool(rewards)))
        m, a, st, msgs = self._run_time("transient", times, initial, None, eps,
                                        max_steps, fill, storage=storage, lump=lump,
                                        max_memory=max_memory, max_states=max_states,
                                        time_limit=time_limit)
        try:
            out = Transient(m, a, st, msgs, eps)
            out._json = _time_report(m, self.source, a, st, False, eps, len(out.times), ())
        finally:
            lib.san_analysis_free(a)
        if st != _lib.SAN_OK:
            warnings.warn(f"{self.source}: {_status_name(st)}: " + "; ".join(msgs))
        return out

    def passage(self, until, initial=None, times=(), percentiles=(), storage="auto",
                lump="auto", tol=None, eps=1e-13, max_steps=1e8, max_memory=None,
                max_states=0, time_limit=0):
        """The time until the chain first enters the states where `until`
        holds (san passage --until EXPR [--time ...] [--percentiles ...]):
        a Passage with P(reach), the mean, P(T <= t) at the given times
        and the percentiles asked (in percent, as the command takes
        them), the numbers of `san passage -f json`."""
        try:
            levels = sorted(set(float(p) for p in percentiles))
        except (TypeError, ValueError):
            raise _usage(f"percentiles: expected percents in (0, 100), not {percentiles!r}") \
                from None
        if any(not (0 < p < 100) for p in levels):
            raise _usage(f"percentiles: expected percents in (0, 100), not {percentiles!r}")

        def fill(o):
            lv = (ctypes.c_double * max(1, len(levels)))(*[p / 100 for p in levels])
            if lib.san_analysis_opts_set_levels(o.p, lv, len(levels)) != _lib.SAN_OK:
                raise MemoryError("san_analysis_opts_set_levels")
            if tol is not None:
                o.set("mean_tol", _number("tol", tol, 1e-300, 1, "a number in (0, 1]"))
        m, a, st, msgs = self._run_time("passage", times, initial, until, eps,
                                        max_steps, fill, storage=storage, lump=lump, tol=tol,
                                        max_memory=max_memory, max_states=max_states,
                                        time_limit=time_limit)
        try:
            out = Passage(m, a, st, msgs, eps, levels)
            out._json = _time_report(m, self.source, a, st, True, eps,
                                     lib.san_analysis_times(a, byref(POINTER(ctypes.c_double)())),
                                     levels)
        finally:
            lib.san_analysis_free(a)
        if st != _lib.SAN_OK:
            warnings.warn(f"{self.source}: {_status_name(st)}: " + "; ".join(msgs))
        return out

    # ---- exports (san export) ----

    def export(self, path, format, lump="auto", max_memory=None, max_states=0):
        """Write the chain as `san export --format FORMAT -o PATH` writes
        it: "mtx" (Matrix Market, the generator), "states" (CSV), "dot"
        (the automata, Graphviz) or "prism" (PATH is the base:
        PATH.tra, .sta, .lab, PATH1.srew ... per reward structure and
        PATH.map.csv).  Each file is written whole or not at all (a
        temporary file renamed).  Returns the list of files written."""
        formats = ("mtx", "states", "prism", "dot")
        if format not in formats:
            raise _usage(f"format: expected one of {', '.join(formats)}, not {format!r}")
        base = os.fspath(path)
        if format == "dot":
            return self._export_dot(base, lump)
        a = self._space("auto" if format == "states" else "sparse", max_memory, max_states, lump)
        try:
            sp = lib.san_analysis_space(a)
            note = _lump_note(lib.san_analysis_lumping(a), self._m, lib.san_analysis_states(a))
            err = ctypes.create_string_buffer(1024)
            if format == "mtx":
                jobs = [(base, lambda f: lib.san_export_mtx_note(sp, note, f, err, len(err)))]
            elif format == "states":
                jobs = [(base, lambda f: lib.san_export_states(sp, f))]
            else:
                sm = lib.san_analysis_space_model(a)
                nrew = lib.san_export_prism_nrewards(sm)
                jobs = [(base + ".tra", lambda f: lib.san_export_prism_tra(sp, f, err, len(err))),
                        (base + ".sta", lambda f: lib.san_export_prism_sta(sp, f)),
                        (base + ".lab", lambda f: lib.san_export_prism_lab(sp, f))]
                jobs += [(f"{base}{k + 1}.srew",
                          lambda f, k=k: lib.san_export_prism_srew(sp, k, f, err, len(err)))
                         for k in range(nrew)]
                jobs.append((base + ".map.csv", lambda f: lib.san_export_prism_map(sm, f)))
            for file, write in jobs:
                _write_atomic(file, write, err)
        finally:
            lib.san_analysis_free(a)
        return [file for file, _ in jobs]

    def _export_dot(self, path, lump):
        if lump not in _lib.LUMP:
            raise _usage(f"lump: auto or off, not {lump!r}")
        L = c_void_p()
        if lump == "auto":
            with _DiagScope(self.source) as d:
                st = lib.san_model_lump(self._m, byref(L), d)
                msgs = _messages(d)
            if st != _lib.SAN_OK:
                raise SanError(_status_name(st), msgs)
        try:
            m = lib.san_lumping_model(L) if L.value else self._m
            note = _lump_note(L, self._m, -1)

            def write(f):
                # the note as DOT's // comment lines, as the command writes it
                for line in (note or b"").decode().splitlines():
                    _lib.libc.fputs(f"// {line}\n".encode(), f)
                return lib.san_export_dot_automata(m, f)
            _write_atomic(path, write, None)
        finally:
            if L.value:
                lib.san_lumping_free(L)
        return [path]


def _json_report(write, m, a, o):
    """write(FILE, SAN_REPORT_JSON, m, a, o) into memory, as text: the
    document the command prints, without the provenance block."""
    return _report_text(lambda f: write(f, 1, m, a, o.p))   # SAN_REPORT_JSON


def _report_text(write):
    """write(FILE) into memory, as text (its status checked)."""
    buf, size = c_void_p(), ctypes.c_size_t()
    f = _lib.libc.open_memstream(byref(buf), byref(size))
    if not f:
        raise MemoryError("open_memstream")
    st = write(f)
    _lib.libc.fclose(f)
    try:
        text = ctypes.string_at(buf.value, size.value).decode()
    finally:
        _lib.libc.free(buf)
    if st != _lib.SAN_OK:
        raise SanError(_status_name(st), message="the report")
    return text


def _solve_report(model, a, tol, auto):
    """What `san solve -f json` prints (san_report_solve), as text."""
    with _Opts("solve_report") as o:
        if lib.san_solve_report_opts_set_source(o.p, model.source.encode()) != _lib.SAN_OK:
            raise MemoryError("san_solve_report_opts_set_source")
        if tol is not None:
            o.set("tol", float(tol))
        o.set("auto_picked", int(auto))
        return _json_report(lib.san_report_solve, model._m, a, o)


def _time_report(model, name, a, st, passage, eps, ntimes, levels):
    """What `san transient -f json` or `san passage -f json` prints
    (san_report_transient) for the analysis a of model (with the
    selections it compiled), name the model's file, as text."""
    with _Opts("time_report") as o:
        if lib.san_time_report_opts_set_source(o.p, name.encode()) != _lib.SAN_OK:
            raise MemoryError("san_time_report_opts_set_source")
        o.set("passage", int(passage))
        o.set("eps", float(eps))
        o.set("complete", int(st == _lib.SAN_OK and not lib.san_analysis_incomplete(a)))
        o.set("ntimes_asked", ntimes)
        lv = (ctypes.c_double * max(1, len(levels)))(*[p / 100 for p in levels])
        if lib.san_time_report_opts_set_levels(o.p, lv, len(levels)) != _lib.SAN_OK:
            raise MemoryError("san_time_report_opts_set_levels")
        return _json_report(lib.san_report_transient, model._m, a, o)


def _lump_note(L, m, states):
    """san_export_lump_note's text (bytes), or None when not lumped."""
    if not L:
        return None
    p = lib.san_export_lump_note(L, m, states)
    if not p:
        raise MemoryError("san_export_lump_note")
    try:
        return ctypes.string_at(p)
    finally:
        _lib.libc.free(p)


def _write_atomic(path, write, err):
    """write(FILE *) into a temporary file beside path, renamed over it
    when whole (the command's atomic output)."""
    d = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(d, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    f = _lib.libc.fopen(tmp.encode(), b"w")
    if not f:
        raise SanError("io", message=f"{tmp}: cannot write: {os.strerror(ctypes.get_errno())}")
    try:
        st = write(f)
        ok = _lib.libc.fclose(f) == 0
        f = None
        if st != _lib.SAN_OK or not ok:
            why = err.value.decode() if err is not None and err.value else _status_name(st)
            raise SanError(_status_name(st) if st != _lib.SAN_OK else "io",
                           message=f"{path}: {why if st != _lib.SAN_OK else 'write failed'}")
        os.replace(tmp, path)
    finally:
        if f:
            _lib.libc.fclose(f)
        if os.path.exists(tmp):
            os.unlink(tmp)


def _automata(m):
    """[(name, [local state names], stride)] of a C model (the space's:
    the lumped model's when lumped), copied out before it is freed."""
    return [(name, _local_states(m, a), lib.san_model_stride(m, a))
            for a, name in enumerate(_automaton_names(m))]


def _automaton_names(m):
    return [lib.san_model_automaton_name(m, a).decode() for a in range(lib.san_model_automata(m))]


def _local_states(m, a):
    """The names of automaton a's local states."""
    return [lib.san_model_local_state(m, a, s).decode()
            for s in range(lib.san_model_automaton_states(m, a))]


def _event_names(m):
    return [lib.san_model_event_name(m, e).decode() for e in range(lib.san_model_events(m))]


def _result_names(m):
    return [lib.san_model_result_name(m, r).decode() for r in range(lib.san_model_results(m))]


def _names_of(m):
    """(results, {automaton: local states}, events) of model m, the keys of
    its indices."""
    auts = _automaton_names(m)
    return _result_names(m), [(n, _local_states(m, a)) for a, n in enumerate(auts)], \
        _event_names(m)


def _lumped(a):
    """An analysis's lumping summary, or None."""
    L = lib.san_analysis_lumping(a)
    return lib.san_lumping_summary(L).decode() if L else None


def _state_index(a):
    """The analysis's states' mixed-radix indices, copied."""
    n = lib.san_analysis_states(a)
    if not n:
        return np.zeros(0, np.int64)
    return np.ctypeslib.as_array(lib.san_analysis_index(a), shape=(n,)).copy()


def _states_frame(auts, index):
    import pandas as pd
    cols = {"state": np.arange(len(index)), "index": index}
    for name, states, stride in auts:
        names = np.array(states, dtype=object)
        local = (index // stride) % len(states)
        cols[name] = names[local]
    return pd.DataFrame(cols)


class Properties(list):
    """The properties checked by Model.props: each a dict as `san props
    -f json` prints it (name, property, value, kind, method,
    error_bound, ...)."""

    def __init__(self, doc):
        super().__init__(doc.get("properties", []))
        self._doc = doc

    @property
    def values(self):
        """{name (or the property's text when unnamed): value}."""
        return {p["name"] or p["property"]: p["value"] for p in self}

    def json(self):
        """The document `san props -f json` prints, without its schema
        and meta blocks."""
        return dict(self._doc)

    def __repr__(self):
        return "Properties(%s)" % ", ".join("%s=%.12g" % (k, v) if isinstance(v, float)
                                            else "%s=%r" % (k, v)
                                            for k, v in self.values.items())


class Solution:
    """A steady state and its indices, copied out of libsan:
        results      {result: value}
        marginals    {automaton: {local state: probability}}
        throughputs  {event: rate}
        pi           numpy array, in export order (states())
        lumped       None, or what was lumped: "W[1..4] (4 replicas of 3
                     states)"; pi is then over the lumped chain (the
                     states of Model.states(lump="auto"))
        converged, residual, error_estimate, method, iterations, message
        classes      None (one closed class), or, for a chain of several
                     closed classes (answered from the initial
                     distribution, as san solve), one dict per class:
                     states, reach (the probability of ending in it),
                     reach_error, error_estimate (its own solve's)
    """

    def __init__(self, model, a):
        m = model._m
        info = lib.san_analysis_info(a)
        sol = lib.san_analysis_steady(a)
        self.model = model
        self.converged = bool(lib.san_solve_info_converged(info))
        self.residual = lib.san_solve_info_residual(info)
        # not converged: the estimate the checks reached, NaN when none ran
        self.error_estimate = lib.san_solve_reached_estimate(info)
        self.method = lib.san_method_name(lib.san_solve_info_method(info)).decode()
        self.iterations = lib.san_solve_info_iterations(info)
        self.message = lib.san_solve_info_message(info).decode() or ("converged" if self.converged else "not converged")
        res, auts, evs = _names_of(m)
        results = lib.san_solution_results(sol)
        self.results = {r: results[i] for i, r in enumerate(res)}
        self.marginals = {name: _marginal(sol, k, states) for k, (name, states) in enumerate(auts)}
        throughputs = lib.san_solution_throughputs(sol)
        self.throughputs = {e: throughputs[i] for i, e in enumerate(evs)}
        n = lib.san_analysis_states(a)
        index = np.ctypeslib.as_array(lib.san_analysis_index(a), shape=(n,)).copy()
        pi = np.ctypeslib.as_array(lib.san_analysis_pi(a), shape=(n,)).copy()
        order = np.argsort(index, kind="stable")
        self._index = index[order]
        self.pi = pi[order]
        self._auts = _automata(lib.san_analysis_space_model(a) or m)
        self.lumped = _lumped(a)
        nc = lib.san_analysis_classes(a)
        self.classes = [_class(a, k) for k in range(nc)] if nc > 1 else None

    def json(self):
        """The document `san solve -f json` prints, as a dict: the same
        members and numbers (doc/output.md: "model", "file", "solver",
        "results", "marginals", "throughputs", "top_states", "classes",
        ...), written by the same library call (san_report_solve), without
        the provenance block ("schema", "meta"), which names a command
        line."""
        import json
        return json.loads(self._json)

    def marginals_frame(self):
        """The marginals as a DataFrame: automaton, state, probability."""
        import pandas as pd
        return pd.DataFrame([(a, s, p) for a, d in self.marginals.items() for s, p in d.items()],
                            columns=["automaton", "state", "probability"])

    def distribution(self):
        """states() with a probability column: over the lumped chain's
        occupancy states when lumped (attrs["lumped"] says so)."""
        df = _states_frame(self._auts, self._index)
        df["probability"] = self.pi
        df.attrs["lumped"] = self.lumped
        return df

    def __repr__(self):
        return (f"<san.Solution {self.model.name}: {len(self.pi)} states, {self.method}, "
                f"{'converged' if self.converged else 'NOT converged'}>")


def _indices(names, S):
    """results, marginals, throughputs of one san_solution, keyed by
    names (_names_of the model) as the command's JSON names them (hidden
    selections left out)."""
    res, auts, evs = names
    results, throughputs = lib.san_solution_results(S), lib.san_solution_throughputs(S)
    return {"results": {r: results[i] for i, r in enumerate(res) if not r.startswith("__san_")},
            "marginals": {name: _marginal(S, k, states) for k, (name, states) in enumerate(auts)},
            "throughputs": {e: throughputs[i] for i, e in enumerate(evs)}}


def _marginal(S, k, states):
    """{local state: probability} of automaton k in solution S."""
    p = lib.san_solution_marginal(S, k)
    return {s: p[j] for j, s in enumerate(states)}


def _class(a, k):
    """Closed class k of a steady state of several (Solution.classes)."""
    reach, err, est = ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
    states = lib.san_analysis_class(a, k, byref(reach), byref(err), byref(est))
    return {"states": states, "reach": reach.value, "reach_error": err.value,
            "error_estimate": est.value}


def _times(a):
    """The times of a time-dependent analysis."""
    t = POINTER(ctypes.c_double)()
    n = lib.san_analysis_times(a, byref(t))
    return [t[k] for k in range(n)]


def _uniformization(a, eps):
    steps, planned, trunc, ss_at = ctypes.c_long(), ctypes.c_double(), ctypes.c_double(), \
        ctypes.c_double()
    rate = lib.san_analysis_uniformization(a, byref(steps), byref(planned), byref(trunc),
                                           byref(ss_at))
    return {"rate": rate, "products": steps.value, "products_planned": planned.value,
            "eps": eps, "truncated_mass": trunc.value,
            "steady_state_at": ss_at.value if ss_at.value >= 0 else None}


class Transient:
    """pi(t) at the times asked (Model.transient), copied out of libsan:
        times          [t, ...] (ascending, each once)
        at             [{"t", "results", "marginals", "throughputs"
                         [, "accumulated": {...}]}, ...]: the "times" of
                       `san transient -f json`, member for member
        results        DataFrame: one row per time (index t), a column
                       per result; throughputs likewise
        marginals      {automaton: DataFrame, a row per time, a column
                       per local state}
        accumulated    the same three over [0, t] when rewards=True
        states, initial_states, storage, lumped, complete, uniformization
    """

    def __init__(self, m, a, st, msgs, eps):
        c = _names_of(m._m)
        self.model = m
        self.states = lib.san_analysis_states(a)
        self.initial_states = lib.san_analysis_initial_states(a)
        self.storage = "kron" if lib.san_analysis_kron(a) else "sparse"
        self.lumped = _lumped(a)
        self.complete = st == _lib.SAN_OK
        self.messages = list(msgs)
        self.uniformization = _uniformization(a, eps)
        self.times = _times(a)
        self.at = []
        acc = False
        for k, t in enumerate(self.times):
            row = {"t": t, **_indices(c, lib.san_analysis_at(a, k))}
            S = lib.san_analysis_accumulated(a, k)
            if S:
                acc = True
                row["accumulated"] = _indices(c, S)
            self.at.append(row)
        self.results, self.throughputs, self.marginals = self._frames(None)
        self.accumulated = None
        if acc:
            r, th, mg = self._frames("accumulated")
            self.accumulated = {"results": r, "throughputs": th, "marginals": mg}

    def _frames(self, key):
        import pandas as pd
        rows = [r[key] if key else r for r in self.at]
        idx = pd.Index(self.times, name="t")
        res = pd.DataFrame([r["results"] for r in rows], index=idx)
        thr = pd.DataFrame([r["throughputs"] for r in rows], index=idx)
        auts = rows[0]["marginals"] if rows else {}
        mar = {a: pd.DataFrame([r["marginals"][a] for r in rows], index=idx) for a in auts}
        return res, thr, mar

    def json(self):
        """The document `san transient -f json` prints, as a dict (the same
        library call, san_report_transient), without the provenance block
        ("schema", "meta")."""
        import json
        return json.loads(self._json)

    def __repr__(self):
        return (f"<san.Transient {self.model.name}: {self.states} states, "
                f"{len(self.times)} times, {self.uniformization['products']} products>")


class Passage:
    """The first passage time into a set of states (Model.passage), the
    members of `san passage -f json`'s "passage" and "times":
        reach, p_initial, mean, reach_method ("graph", "solve", "series"),
        mean_method ("solve", "series"), mean_error_estimate (None: not
        verified), target_states, percentiles {percent: time} (inf: never
        attained), cdf (DataFrame: t, cdf)
    """

    def __init__(self, m, a, st, msgs, eps, levels):
        import pandas as pd
        self.model = m
        self.states = lib.san_analysis_states(a)
        self.initial_states = lib.san_analysis_initial_states(a)
        self.storage = "kron" if lib.san_analysis_kron(a) else "sparse"
        self.lumped = _lumped(a)
        self.complete = st == _lib.SAN_OK
        self.messages = list(msgs)
        self.uniformization = _uniformization(a, eps)
        self.target_states = lib.san_analysis_target_states(a)
        how, p_init = c_int(), ctypes.c_double()
        self.reach = lib.san_analysis_reach(a, byref(how), byref(p_init))
        self.p_initial = p_init.value
        solved, est = c_int(), ctypes.c_double()
        self.mean = lib.san_analysis_mean(a, byref(solved), byref(est))
        self.reach_method = {0: "series", 1: "graph", 2: "solve"}[how.value]
        self.mean_method = "solve" if solved.value else "series"
        self.mean_error_estimate = None if est.value != est.value else est.value
        pct = lib.san_analysis_percentiles(a)
        self.percentiles = {p: pct[k] for k, p in enumerate(levels)}
        times = _times(a)
        cdf = lib.san_analysis_cdf(a)
        self.cdf = pd.DataFrame({"t": times, "cdf": [cdf[k] for k in range(len(times))]})

    def json(self):
        """The document `san passage -f json` prints, as a dict (the same
        library call, san_report_transient), without the provenance block
        ("schema", "meta")."""
        import json
        return json.loads(self._json)

    def __repr__(self):
        return (f"<san.Passage {self.model.name}: P(reach) {self.reach:.6g}, "
                f"mean {self.mean:.6g}>")


# ---- loading ----

def _text_with_results(text, opts, names, exprs):
    """san_text_with_results: its status, the text (bytes; None unless
    SAN_OK) and where each expression starts in it (.line, .col)."""
    n = len(names)
    at_ = lib.san_text_positions_new(n)
    if not at_:
        raise MemoryError("san_text_positions_new")
    try:
        out, size = c_void_p(), ctypes.c_size_t()
        st = lib.san_text_with_results(text, len(text), opts.p, (c_char_p * n)(*names),
                                       (c_char_p * n)(*exprs), n, byref(out), byref(size), at_)
        at = []
        for i in range(n):
            line, col = c_int(), c_int()
            lib.san_text_position(at_, i, byref(line), byref(col))
            at.append(types.SimpleNamespace(line=line.value, col=col.value))
    finally:
        lib.san_text_positions_free(at_)
    if st != _lib.SAN_OK:
        return st, None, at
    try:
        return st, ctypes.string_at(out.value, size.value), at
    finally:
        _lib.libc.free(out)


def _load_opts(defines, peps_warnings=False):
    """An _Opts("load") with the definitions {name: value} (-D)."""
    o = _Opts("load")
    try:
        o.set("peps_warnings", int(peps_warnings))
        for n, v in defines.items():
            if lib.san_load_opts_define(o.p, n.encode(), v) != _lib.SAN_OK:
                raise MemoryError("san_load_opts_define")
    except BaseException:
        o.__exit__()
        raise
    return o


def _defines_of(o):
    """The definitions of an _Opts("load"): (san_define array, count)."""
    n = c_int()
    return lib.san_load_opts_defines(o.p, byref(n)), n.value


# SAN_IMPORT_PROPS (san/gen.h): the hidden results properties read
_IMPORT_PROPS = 1


def _import_prism(data, name, defines, flags=0):
    """The .san text of a PRISM model (its constants set by defines), as
    `san import prism` writes it."""
    out = c_void_p()
    with _load_opts(defines) as o, _DiagScope(name, data) as d:
        defs, ndefs = _defines_of(o)
        st = lib.san_import_prism_flags(name.encode(), data, len(data), defs, ndefs,
                                        None, flags, byref(out), d)
        msgs = _messages(d)
    if st != _lib.SAN_OK or not out.value:
        raise SanError(_status_name(st) if st != _lib.SAN_OK else "nomem", msgs)
    try:
        return ctypes.string_at(out.value)
    finally:
        _lib.libc.free(out)


def _compile(text, name, defines, prism=None):
    data = text.encode() if isinstance(text, str) else text
    ptr = c_void_p()
    with _load_opts(defines, peps_warnings=True) as opts:
        with _DiagScope(name, data) as d:
            st = lib.san_model_compile(data, len(data), opts.p, byref(ptr), d)
            msgs = _messages(d)
        if st != _lib.SAN_OK:
            raise SanError(_status_name(st), msgs)
        unused = [(n, v) for k, (n, v) in enumerate(defines.items())
                  if not lib.san_load_opts_define_used(opts.p, k)]
    if unused:
        # what the name is instead (a domain, an automaton; the closest
        # constant), as san -D says it
        why = []
        for n, v in unused:
            buf = ctypes.create_string_buffer(1024)
            lib.san_model_define_why(ptr, n.encode(), v, buf, len(buf))
            why.append(f"{n}: {buf.value.decode()}")
        lib.san_model_free(ptr)
        raise SanError("usage", message=f"{name}: " + "; ".join(why))
    model = Model(ptr.value, name, msgs, data, defines)
    model._prism = prism
    return model


def load(path=None, text=None, defines=None, **kw):
    """A model from a .san file (or its text), constants overridden by
    defines={"lambda": 4} or keywords (mu=3), as `san solve -D`.  A
    PRISM model (.prism, .sm, .pm) is imported as `san solve
    cluster.prism -D N=16` does: load("cluster.prism", N=16); its
    diagnostics name "PATH (imported)" at the lines of the .san text
    `san import prism` prints."""
    if (path is None) == (text is None):
        raise TypeError("load: give path or text")
    if path is not None:
        # read by libsan's one reader (san_read_input), as the command
        # reads: "/: is a directory" is SanError("input"), not an OSError
        try:
            name = os.fspath(path)
        except TypeError:
            raise _usage(f"load: path: expected a file name, not {path!r}") from None
        name = name.decode() if isinstance(name, bytes) else name
        buf, size = c_void_p(), ctypes.c_size_t()
        msg = ctypes.create_string_buffer(1024)
        st = lib.san_read_input(name.encode(), 0.0, byref(buf), byref(size), msg, len(msg))
        if st != _lib.SAN_OK:
            raise SanError(_status_name(st), message=msg.value.decode(errors="replace"))
        try:
            text = ctypes.string_at(buf.value, size.value) if size.value else b""
        finally:
            _lib.libc.free(buf)
    else:
        name = "<text>"
        if not isinstance(text, (str, bytes)):
            raise _usage(f"load: text: expected str or bytes, not {type(text).__name__}")
    defs = _defines(defines, kw)
    if path is not None and lib.san_is_prism_path(name.encode()):
        # the -D are the PRISM constants, the importer's
        return _compile(_import_prism(text, name, defs), name + " (imported)", {},
                        prism=(text, name, defs))
    return _compile(text, name, defs)


def gen(line, defines=None, **kw):
    """A generated model: gen("ms --mode async --slaves 3 --buffer 10"),
    as `san gen` or `san solve --gen`."""
    words = line.split() if isinstance(line, str) else list(line)
    argv = (c_char_p * (len(words) + 1))(*[w.encode() for w in words], None)
    text = c_void_p()
    err = ctypes.create_string_buffer(512)
    st = lib.san_gen(len(words), argv, byref(text), None, err, len(err))
    if st != _lib.SAN_OK or not text.value:
        raise SanError(_status_name(st), message=f"gen {line}: {err.value.decode()}")
    try:
        src = ctypes.string_at(text.value)
    finally:
        _lib.libc.free(text)
    return _compile(src, "<gen>", _defines(defines, kw))


# ---- sweeps ----

def _axes(kw):
    """{name: [values]}: a str or a number is one value, anything else
    iterable a list of them."""
    out = {}
    for k, v in kw.items():
        out[k] = [v] if isinstance(v, (str, bytes, int, float)) else list(v)
    return out


_MODEL_SUFFIXES = (".san", ".prism", ".sm", ".pm")


def _axis_text(name, values):
    """One axis's values as the command takes them: "1,5,10"; ';' between
    values whose own text holds a comma (list-valued flags)."""
    words = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (str, bytes, int, float, np.integer,
                                                     np.floating)):
            raise _usage(f"{name}: expected numbers or words, not {v!r}")
        words.append(v.decode() if isinstance(v, bytes) else str(v))
    if not words:
        raise _usage(f"{name}: no values")
    return (";" if any("," in w for w in words) else ",").join(words)


def _variants_argv(model, axes):
    """argv of san_sweep_init for a template and its flags, or a model
    file and its -D constants (the keywords of sweep, size_buffer and
    grain)."""
    if not isinstance(model, str) or not model:
        raise _usage(f"model: expected a template name or a model file, not {model!r}")
    is_file = model.endswith(_MODEL_SUFFIXES) or os.path.sep in model or os.path.exists(model)
    argv = [model]
    for name, v in _axes(axes).items():
        text = _axis_text(name, v)
        if is_file:
            argv += ["-D", f"{name}={text}"]
        else:
            argv += [f"--{name.replace('_', '-')}", text]
    return argv


def _run_options(jobs, method, tol, storage, lump, max_memory, max_states, time_limit):
    """The run options as (flag, text) pairs for san_sweep_opts_set, which
    checks them as the command does."""
    run = [("--method", method), ("--storage", storage), ("--lump", lump)]
    if jobs is not None:
        run.append(("--jobs", str(_integer("jobs", jobs, 1, 4096, "a positive integer"))))
    if tol is not None:
        run.append(("--tol", repr(_number("tol", tol, 1e-300, 1, "a number in (0, 1]"))))
    if max_memory is not None:
        run.append(("--max-memory", str(max_memory)))
    if max_states:
        run.append(("--max-states", str(_integer("max_states", max_states, 1, 9e18,
                                                 "a positive integer"))))
    if time_limit:
        run.append(("--time-limit", repr(_number("time_limit", time_limit, 1e-6, 1e9,
                                                  "seconds > 0"))))
    return run


class _SweepOpts:
    """A san_sweep_opts on the heap, set from (flag, text) pairs, with the
    interrupt flag Ctrl-C raises; freed on exit."""

    def __init__(self, run):
        self.run = run
        self.stop = c_int(0)

    def __enter__(self):
        self.o = lib.san_sweep_opts_new()
        if not self.o:
            raise MemoryError("san_sweep_opts_new")
        err = ctypes.create_string_buffer(1024)
        for flag, val in self.run:
            if not isinstance(val, str) or lib.san_sweep_opts_set(
                    self.o, flag.encode(), val.encode(), err, len(err)) != 0:
                lib.san_sweep_opts_free(self.o)
                raise _usage(err.value.decode() or f"{flag[2:]}: {val!r}")
        lib.san_sweep_opts_interrupt(self.o, byref(self.stop))
        return self

    def __exit__(self, *exc):
        lib.san_sweep_opts_free(self.o)

    def call(self, fn, *args):
        """fn(*args) in a thread of its own while this one waits where
        Python sees Ctrl-C, which raises the library's interrupt flag."""
        return _interrupt.call(lambda: fn(*args), self.stop)


def _command(kind, argv, run):
    """The equivalent command line, quoted for a shell."""
    return f"san {kind} " + " ".join(
        w if w and not set(w) & set(" '\";&|<>()*?$") else "'" + w + "'"
        for w in argv + [x for fv in run for x in fv])


def _report_json(kind, fn, argv, run, *args):
    """One of san_size_buffer_json, san_grain_json: the report as a dict."""
    import json
    words = (c_char_p * (len(argv) + 1))(*[w.encode() for w in argv], None)
    err = ctypes.create_string_buffer(1024)
    out = c_void_p()
    with _SweepOpts(run) as so:
        st = so.call(fn, len(argv), words, *args, so.o, byref(out), err, len(err))
    if st != _lib.SAN_OK:
        raise SanError(_status_name(st), message=f"{kind}: {err.value.decode()}")
    try:
        return json.loads(ctypes.string_at(out.value).decode())
    finally:
        _lib.libc.free(out)


def size_buffer(model="ms", index=None, within=0.01, max_buffer=1024, jobs=None,
                method="auto", tol=None, storage="auto", lump="auto", max_memory=None,
                max_states=0, time_limit=0, **flags):
    """The smallest buffer that suffices (san size-buffer MODEL --flags
    ... [--index I] [--within X]): the JSON document `san size-buffer -f
    json` prints, as a dict, its provenance block replaced by "command"
    (the equivalent command line): "index", "throughput", "within",
    "configurations" (one per combination of the flags' values: its
    "buffer", "value", "limit", "command", "at_buffer", "at_next",
    "at_limit", "curve", "accuracy" (how each point of the curve was
    solved: method, error_estimate, error_bound, storage, lumped, ...),
    "error").  model is "ms" or "pipeline"; the keywords are
    its flags (slaves=range(2, 8)), several values allowed."""
    if index is not None and not isinstance(index, str):
        raise _usage(f"index: expected an index name, not {index!r}")
    w = _number("within", within, 1e-12, 10, "a relative tolerance in [1e-12, 10]")
    k = _integer("max_buffer", max_buffer, 2, 1e6, "a size in [2, 1000000]")
    argv = _variants_argv(model, flags)
    run = _run_options(jobs, method, tol, storage, lump, max_memory, max_states, time_limit)
    doc = _report_json("size-buffer", lib.san_size_buffer_json, argv, run,
                       index.encode() if index else None, w, k)
    asked = [("--index", index)] if index else []
    doc["command"] = _command("size-buffer", argv, run + asked + [("--within", repr(w))])
    return doc


def grain(model="ms", by=None, busy=0.01, jobs=None, method="auto", tol=None,
          storage="auto", lump="auto", max_memory=None, max_states=0, time_limit=0, **flags):
    """The grain to use (san grain MODEL --flags ... [--by B] [--busy X]):
    the JSON document `san grain -f json` prints, as a dict, its
    provenance block replaced by "command": "grain" (the axis), "by",
    "rule", "busy", "configurations" (each with "recommended",
    "fastest", "paper_rule" and its "grains" table, each grain with its
    "command" and the "solver" accuracy of its solve)."""
    if by is not None and not isinstance(by, str):
        raise _usage(f"by: expected an objective (execution_time, paper, ...), not {by!r}")
    b = _number("busy", busy, 0, 1 - 2 ** -53, "a fraction in [0, 1)", zero_ok=True)
    argv = _variants_argv(model, flags)
    run = _run_options(jobs, method, tol, storage, lump, max_memory, max_states, time_limit)
    doc = _report_json("grain", lib.san_grain_json, argv, run, by.encode() if by else None, b)
    asked = [("--by", by)] if by else []
    doc["command"] = _command("grain", argv, run + asked + [("--busy", repr(b))])
    return doc


def sweep(model, jobs=None, method="auto", tol=None, storage="auto", lump="auto",
          max_memory=None, max_states=0, time_limit=0, **axes):
    """Solve every variant of `san sweep` into a DataFrame: the same rows
    and the same columns as `san sweep ... -f csv` (variant, the axes by
    their flag names, product_states, reachable_states, method,
    iterations, residual, error_estimate, converged, error_bound,
    storage, lumped, time_s, the results, error), by libsan's own sweep (san_sweep_run): a sync
    variant of ms has no buffer (its cell is empty), a template's own
    rules drop what does not apply, failed variants are rows with their
    error.  model is a template ("ms", "pipeline"; each keyword is a flag:
    slices_per_node for --slices-per-node) or a model file (.san, .prism;
    each keyword a -D constant).  A keyword's value is one value or an
    iterable of values.  Variants run on `jobs` threads (default: the
    cores).  df.attrs["command"] is the equivalent command line."""
    import io
    import pandas as pd
    argv = _variants_argv(model, axes)
    run = _run_options(jobs, method, tol, storage, lump, max_memory, max_states, time_limit)
    s = lib.san_sweep_new()
    if not s:
        raise MemoryError("san_sweep_new")
    try:
        with _SweepOpts(run) as so:
            err = ctypes.create_string_buffer(1024)
            words = (c_char_p * (len(argv) + 1))(*[w.encode() for w in argv], None)
            rc = lib.san_sweep_init(s, len(argv), words, so.o, err, len(err))
            if rc != 0:
                raise SanError({-2: "usage", -3: "input"}.get(rc, "nomem"),
                               message=err.value.decode())
            rc = so.call(lib.san_sweep_run, s, so.o, err, len(err))
            if rc != 0:
                raise SanError({-2: "usage"}.get(rc, "nomem"), message=err.value.decode())
        buf, size = c_void_p(), ctypes.c_size_t()
        f = _lib.libc.open_memstream(byref(buf), byref(size))
        if not f:
            raise MemoryError("open_memstream")
        lib.san_sweep_write(s, 1, None, 0, 1, f)       # SAN_SWEEP_CSV
        _lib.libc.fclose(f)
        try:
            text = ctypes.string_at(buf.value, size.value).decode()
        finally:
            _lib.libc.free(buf)
    finally:
        lib.san_sweep_free(s)
    df = pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])
    for flag in ("converged", "error_bound", "lumped"):     # 0 or 1 in the CSV
        if flag in df:
            df[flag] = df[flag].fillna(0).astype(bool)
    if "error" in df:
        df["error"] = df["error"].fillna("").astype(str)
    df.attrs["command"] = _command("sweep", argv, run)
    return df
