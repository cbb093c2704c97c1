# ProfileManager: regions of a Python program recorded by libscopeprof
# (through ctypes), one timeline with the C code the program calls; at
# finalize() the scope-profiler file and/or results, gathered over MPI.
import atexit
import ctypes
import ctypes.util
import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

import numpy as np

from . import _inputs
from ._columns import STATS_DTYPE, Columns
from .results import ProfilingResults, read_h5

# setup() options of scope-profiler that ScopeProf has no equivalent for:
# accepted (scripts written for it keep running) with one warning each.
_IGNORED = ("use_likwid", "perf_events", "use_line_profiler", "use_memray",
            "memory_profile_path", "memray_native_traces",
            "memray_trace_python_allocators", "memray_follow_fork", "use_nvtx",
            "use_gpu_timing", "gpu_timing_backend", "gpu_sync_on_exit",
            "recursive_profile", "aggregation_mode", "profile_mpi_calls",
            "track_threads", "track_async", "metadata_detail", "buffer_limit",
            "output_mode", "hdf5_compression", "hdf5_compression_level",
            "hdf5_chunk_size", "time_trace", "flush_to_disk")
_CHUNK = 64 << 20  # bytes per MPI message when a rank's file goes to rank 0
_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE",
              "PMIX_SIZE", "SLURM_NTASKS")


class ScopeProfLibraryError(RuntimeError):
    """libscopeprof (or sp-import) could not be found or used."""


# -- finding libscopeprof and sp-import ----------------------------------------
def _loaded_library():
    """Path of a libscopeprof already mapped into this process (a C
    extension linked with it): that copy must be the one used, or Python and
    C would record into two runtimes."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rstrip("\n").split(None, 5)[-1]
                if os.path.basename(path).startswith("libscopeprof.so"):
                    return path
    except OSError:
        pass
    return None


def library_candidates():
    """Where libscopeprof is looked for, in order (docs/python.md)."""
    out = []
    env = os.environ.get("SP_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    # Installed: <prefix>/lib/python3/dist-packages/scopeprof beside
    # <prefix>/lib[/<multiarch>]/libscopeprof.so.0.
    prefix = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    for sub in ("lib", os.path.join("lib", multiarch), "lib64"):
        out.append(os.path.join(prefix, sub, "libscopeprof.so.0"))
    # The source tree: python/scopeprof and a build directory named build.
    out.append(os.path.normpath(os.path.join(here, "..", "..", "build", "runtime",
                                             "libscopeprof.so")))
    found = ctypes.util.find_library("scopeprof")
    if found:
        out.append(found)
    return out


def find_library():
    """The libscopeprof to load: one already in the process, else
    $SP_LIBRARY, else beside the package, the source tree's build/, the
    linker's search path."""
    loaded = _loaded_library()
    if loaded:
        return loaded
    cands = library_candidates()
    for c in cands:
        if os.path.isabs(c) and os.path.exists(c):
            return c
        if not os.path.isabs(c) and not os.environ.get("SP_LIBRARY"):
            return c  # a name for dlopen's own search (find_library's)
    raise ScopeProfLibraryError(
        "libscopeprof not found (looked for %s); set SP_LIBRARY to its path"
        % ", ".join(cands))


def find_import(library):
    """sp-import, the merger that writes the profile: beside the library
    (<prefix>/bin of <prefix>/lib[/<multiarch>], or the build tree's
    import/), else on PATH."""
    d = os.path.dirname(os.path.realpath(library)) if os.path.isabs(library) else ""
    cands = []
    if d:
        cands += [os.path.join(d, "..", "bin", "sp-import"),
                  os.path.join(d, "..", "..", "bin", "sp-import"),
                  os.path.join(d, "..", "import", "sp-import")]
    for c in cands:
        if os.access(c, os.X_OK):
            return os.path.normpath(c)
    w = shutil.which("sp-import")
    if w:
        return w
    raise ScopeProfLibraryError("sp-import not found beside %s nor on PATH; "
                                "it writes the profile" % library)


def _h5_module_exists(library):
    if os.environ.get("SP_H5_MODULE"):
        return os.path.exists(os.environ["SP_H5_MODULE"])
    d = os.path.dirname(os.path.realpath(library)) if os.path.isabs(library) else ""
    return bool(d) and os.path.exists(os.path.join(d, "scopeprof", "libscopeprof_h5.so"))


def _load(path, prefix):
    """The runtime through ctypes. PyDLL keeps the GIL across the call: the
    calls are far shorter than releasing and taking it back would be."""
    # The runtime reads SP_* once, when loaded: .h5 per-rank files carry the
    # run's metadata (start time, host, ...), so ask for them when the HDF5
    # module is there and the user chose no format; the environment is put
    # back at once, so child processes see the user's. SP_OUTPUT too: the
    # stream of a long run then lives in the private directory as well.
    saved = {k: os.environ.get(k) for k in ("SP_FORMAT", "SP_OUTPUT")}
    if saved["SP_FORMAT"] is None and _h5_module_exists(path):
        os.environ["SP_FORMAT"] = "h5"
    os.environ["SP_OUTPUT"] = prefix
    try:
        lib = ctypes.PyDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as e:
        raise ScopeProfLibraryError("%s: %s" % (path, e)) from None
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    for name, args, res in (("sp_init", [ctypes.c_char_p], ctypes.c_int),
                            ("sp_region_at", [ctypes.c_char_p, ctypes.c_char_p,
                                              ctypes.c_int], ctypes.c_int),
                            ("sp_finalize", [], ctypes.c_int),
                            ("sp_strerror", [ctypes.c_int], ctypes.c_char_p)):
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    # sp_begin/sp_end without argtypes: ctypes passes a Python int as a C
    # int either way, and skipping the conversion objects is a third
    # cheaper (docs/performance.md).
    lib.sp_begin.restype = lib.sp_end.restype = None
    return lib


# -- MPI -----------------------------------------------------------------------
def _launcher_size():
    for v in _SIZE_VARS:
        try:
            n = int(os.environ.get(v, ""))
        except ValueError:
            continue
        if n > 1:
            return n
    return 1


def _mpi_comm():
    """COMM_WORLD when the program runs on several MPI ranks (mpi4py
    imported by the program, or a launcher's size variable above 1)."""
    size = _launcher_size()
    if "mpi4py.MPI" not in sys.modules and size <= 1:
        return None
    try:
        from mpi4py import MPI
    except ImportError:
        if size > 1:
            raise RuntimeError("ProfileManager: %d MPI ranks but mpi4py cannot be "
                               "imported (apt-get install python3-mpi4py)" % size)
        return None
    comm = MPI.COMM_WORLD
    return comm if comm.Get_size() > 1 else None


# -- the state of the one run of this process ----------------------------------
class _State:
    on = False  # regions record (read on every region entry)
    lib = None
    begin = end = None


_S = _State()


def _empty_results(metadata, is_root):
    e = np.empty(0, np.int64)
    c = Columns([], [], [], [], e, e, [], [], np.zeros(0, STATS_DTYPE), e, e,
                dict(metadata), [])
    c.stats_known = True
    return ProfilingResults(c, is_root=is_root)


class _Region:
    """A named region: a context manager (and, through profile(), a
    decorator). Registered with the runtime at its first call after setup()."""

    __slots__ = ("name", "file", "line", "_id")

    def __init__(self, name, file, line):
        self.name, self.file, self.line, self._id = name, file, line, -1

    def _register(self):
        rid = _S.lib.sp_region_at(self.name.encode(), self.file.encode(),
                                  self.line)
        self._id = rid if rid >= 0 else -2
        return self._id

    def __enter__(self):
        if _S.on:
            rid = self._id
            if rid == -1:
                rid = self._register()
            _S.begin(rid)
        return self

    def __exit__(self, *exc):
        if _S.on:
            _S.end(self._id)
        return False

    def __repr__(self):
        return "<region %r at %s:%d>" % (self.name, self.file, self.line)


def _abs(path):
    return path if path.startswith("<") else os.path.abspath(path)


class ProfileManager:
    """One profiling run per process, as scope-profiler's class API:
    setup(), profile_region(), profile(), finalize(), read_results()."""

    _regions = {}
    _config = None  # the setup() options of the run, and its private state

    # -- configuration ---------------------------------------------------------
    @classmethod
    def setup(cls, file_path="profiling_data.h5", label=None,
              deactivate_profiling=False, deactivate_file_output=False,
              capture_region_source=False, **other):
        """Starts the run: loads libscopeprof, points its output at a
        private temporary directory. Options of scope-profiler that ScopeProf
        does not implement warn once and are ignored; unknown ones raise."""
        import warnings
        bad = [k for k in other if k not in _IGNORED]
        if bad:
            raise TypeError("ProfileManager.setup(): unknown option(s) %s" % ", ".join(bad))
        for k in other:
            warnings.warn("ProfileManager.setup(%s=...): not supported by ScopeProf, "
                          "ignored" % k, stacklevel=2)
        c = cls._config
        if c is not None and not c["finalized"]:
            raise RuntimeError("ProfileManager.setup(): a run is already set up "
                               "(call finalize() first)")
        if c is not None and c["finalized"] and c["recorded"]:
            raise RuntimeError("ProfileManager.setup(): libscopeprof records one run "
                               "per process, and this process's run is finalized")
        cfg = {"file_path": os.fspath(file_path), "label": label,
               "deactivate_profiling": bool(deactivate_profiling),
               "deactivate_file_output": bool(deactivate_file_output),
               "capture_region_source": bool(capture_region_source),
               "finalized": False, "recorded": False, "pid": os.getpid(),
               "dir": None, "comm": _mpi_comm(), "library": None}
        cls._config = cfg
        if cfg["deactivate_profiling"]:
            return cls
        lib_path = find_library()
        cfg["dir"] = tempfile.mkdtemp(prefix="scopeprof-")
        prefix = os.path.join(cfg["dir"], "run")
        try:
            lib = _load(lib_path, prefix)
        except Exception:
            shutil.rmtree(cfg["dir"], ignore_errors=True)
            cls._config = None
            raise
        cfg["library"] = lib_path
        rc = lib.sp_init(prefix.encode())
        if rc == -5:
            shutil.rmtree(cfg["dir"], ignore_errors=True)
            cls._config = None
            raise RuntimeError("ProfileManager.setup(): libscopeprof already "
                               "finalized in this process (sp_finalize)")
        cfg["recorded"] = True
        _S.lib, _S.begin, _S.end = lib, lib.sp_begin, lib.sp_end
        _S.on = rc == 0  # SP_ENABLE=0: the runtime records nothing
        if not cls._atexit:
            atexit.register(cls._at_exit)
            cls._atexit = True
        return cls

    _atexit = False

    @classmethod
    def get_config(cls):
        """The options of the current run (a copy), or None before setup()."""
        c = cls._config
        return None if c is None else {k: v for k, v in c.items() if k != "comm"}

    @classmethod
    def is_active(cls):
        return _S.on

    # -- regions ---------------------------------------------------------------
    @classmethod
    def profile_region(cls, region_name):
        """The region called region_name, as a context manager. Its source
        location is the first call site that names it."""
        r = cls._regions.get(region_name)
        if r is None:
            f = sys._getframe(1)
            r = _Region(region_name, _abs(f.f_code.co_filename), f.f_lineno)
            cls._regions[region_name] = r
        return r

    @classmethod
    def profile(cls, region_name=None):
        """Decorator: each call of the function is a call of the region
        (named after the function unless region_name is given); usable as
        @ProfileManager.profile and @ProfileManager.profile("name")."""
        def wrap(func, name):
            code = getattr(func, "__code__", None)
            file = _abs(code.co_filename) if code else "<unknown>"
            line = code.co_firstlineno if code else -1
            r = cls._regions.get(name)
            if r is None:
                r = cls._regions[name] = _Region(name, file, line)

            @functools.wraps(func)
            def inner(*args, **kwargs):
                with r:
                    return func(*args, **kwargs)
            return inner
        if callable(region_name):
            return wrap(region_name, region_name.__name__)
        return lambda func: wrap(func, region_name or func.__name__)

    @classmethod
    def get_all_regions(cls):
        return dict(cls._regions)

    # -- the end -----------------------------------------------------------------
    @classmethod
    def finalize(cls, verbose=False, return_results=False, native_traces=None):
        """Stops recording. Rank 0 (the only process when not under MPI)
        writes file_path unless deactivate_file_output; with
        return_results=True every rank gets a ProfilingResults (rank 0 the
        whole run, the others an empty one with is_root False). Collective
        under MPI: every rank must call it."""
        if native_traces is not None:
            raise TypeError("finalize(native_traces=...): native regions are "
                            "recorded by the same runtime, no traces to merge")
        c = cls._config
        if c is None:
            raise RuntimeError("ProfileManager.finalize(): setup() was not called")
        if c["finalized"]:
            raise RuntimeError("ProfileManager.finalize(): already finalized")
        c["finalized"] = True
        _S.on = False
        if c["pid"] != os.getpid():  # a forked child: the parent's run
            return _empty_results({}, False) if return_results else None
        want = return_results or verbose
        comm = c["comm"]
        root = comm is None or comm.Get_rank() == 0
        keep = False
        try:
            err, files = None, []
            if c["dir"] is not None:
                rc = _S.lib.sp_finalize()
                if rc != 0:
                    # What the runtime could not write stays for sp-import.
                    keep = True
                    err = "sp_finalize: %s (what was recorded is kept in %s)" % (
                        _S.lib.sp_strerror(rc).decode(), c["dir"])
                files = sorted(os.path.join(c["dir"], n) for n in os.listdir(c["dir"]))
            if comm is not None:
                err = cls._gather(comm, c, files, err)
            results = None
            if root and err is None:
                results = cls._publish(c, want)
            if comm is not None:
                err = comm.bcast(err, root=0)
                comm.Barrier()
            if err is not None:
                raise RuntimeError("ProfileManager.finalize(): " + err)
            if results is None and want:
                results = _empty_results({"label": cls._label(c)}, root)
            if verbose and results is not None:
                results.print_summary()
            return results if return_results else None
        finally:
            if c["dir"] is not None and not keep:
                shutil.rmtree(c["dir"], ignore_errors=True)

    @staticmethod
    def _label(c):
        return c["label"] or os.path.splitext(os.path.basename(c["file_path"]))[0]

    @classmethod
    def _gather(cls, comm, c, files, err):
        """Every rank's files to rank 0's private directory, one rank after
        another, in pieces (a rank's file may pass 2 GiB). Returns the first
        error of any rank (on rank 0)."""
        comm = comm.Dup()
        try:
            me, tag = comm.Get_rank(), 0x5C09
            if me != 0:
                sizes = [(os.path.basename(f), os.path.getsize(f)) for f in files]
                comm.send((err, sizes), dest=0, tag=tag)
                for f, (_, n) in zip(files, sizes):
                    with open(f, "rb") as fh:
                        while n > 0:
                            b = fh.read(min(_CHUNK, n))
                            comm.send(b, dest=0, tag=tag)
                            n -= len(b)
                return err
            for src in range(1, comm.Get_size()):
                e, sizes = comm.recv(source=src, tag=tag)
                err = err or (e and "rank %d: %s" % (src, e))
                for name, n in sizes:
                    # Named by the sender's MPI rank too, so two ranks that
                    # claim one runtime rank clash in sp-import, not here.
                    dst = os.path.join(c["dir"], "mpi%05d_%s" % (src, name))
                    fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    with os.fdopen(fd, "wb") as fh:
                        while n > 0:
                            b = comm.recv(source=src, tag=tag)
                            fh.write(b)
                            n -= len(b)
            return err
        finally:
            comm.Free()

    @classmethod
    def _publish(cls, c, want):
        """On rank 0: the results from the ranks' files, and file_path
        written from them by sp-import."""
        d = c["dir"]
        label = cls._label(c)
        have = d is not None and any(True for _ in _inputs_of(d))
        results = None
        if want:
            if have:
                cols = _inputs.load(d, events=True)
                cols.metadata = dict(cols.metadata, label=label)
                cols.paths = [c["file_path"]] if not c["deactivate_file_output"] else []
                results = ProfilingResults(cols)
            else:
                results = _empty_results({"label": label}, True)
        if have and not c["deactivate_file_output"]:
            imp = find_import(c["library"])
            out = c["file_path"]
            if os.path.dirname(out):
                os.makedirs(os.path.dirname(out), exist_ok=True)
            p = subprocess.run([imp, "-o", out, "--label", label, d],
                               capture_output=True, text=True)
            if p.returncode != 0:
                msg = (p.stderr.strip().splitlines() or ["exit status %d" % p.returncode])
                raise RuntimeError("writing %s: %s" % (out, msg[-1]))
        return results

    @classmethod
    def read_results(cls):
        """read_h5 of the file the current run wrote."""
        c = cls._config
        if c is None:
            raise RuntimeError("ProfileManager.read_results(): setup() was not called")
        return read_h5(c["file_path"])

    @classmethod
    def _at_exit(cls):
        """A run never finalized: finalized now when it is one process (its
        file written as finalize() would); under MPI its calls are dropped
        (finalize() is collective: ranks may be gone)."""
        c = cls._config
        if c is None or c["finalized"] or c["pid"] != os.getpid():
            return
        if c["comm"] is None:
            try:
                cls.finalize()
                return
            except Exception as e:  # exit goes on; say why nothing was written
                sys.stderr.write("scopeprof: %s\n" % e)
                return
        c["finalized"] = True
        _S.on = False
        if c["dir"]:
            _S.lib.sp_finalize()
            shutil.rmtree(c["dir"], ignore_errors=True)


def _inputs_of(d):
    for n in os.listdir(d):
        if n.endswith(".spt") or _inputs._RANK_H5.search(n):
            yield n
