"""Interpreter state put back after every run of a long-lived interpreter (Pyodide).

``Sandbox`` takes a snapshot before a run and restores it after, so that one
run cannot leak into the next: modules imported during the run are dropped;
module dictionaries, the attributes of classes defined in Python, the
module-level dicts, lists and sets of every module, the attributes of ``sys``,
built-ins, ``sys.path``, ``sys.meta_path``, ``sys.argv``, the environment, the
interpreter's codec cache and the attributes of the codec objects it holds, the
recursion limit, the random state, the standard streams and the working
directory are put back; new entries in the watched folders are removed.

What it does not reach (objects nested deeper than one level in a module's
containers, changes to files outside the watched folders, state held by the
JavaScript side) is watched by the host, which replaces the interpreter after a
run that touched it.
"""

import _abc
import abc
import builtins
import gc
import os
import random
import shutil
import sys
from functools import _lru_cache_wrapper as _LRU
from types import MappingProxyType

from operator import is_ as _is

from recode_guard import dict_changed, dicts_same, is_heap_class

_MISSING = object()
_CONTAINERS = (dict, list, set)
# sys attributes the restore must not touch (the interpreter's own machinery;
# the streams, path and meta_path are restored by identity and content below).
_SYS_KEEP = {"modules", "stdout", "stderr", "stdin", "path", "meta_path", "argv", "path_importer_cache", "last_exc"}


_P = MappingProxyType

_SLOTS = (
    "workdir", "cwd", "modules", "module_names", "module_objects", "module_types", "module_views", "module_saved",
    "classes", "class_views", "class_saved", "objects", "object_types", "object_views", "object_saved",
    "dict_live", "dict_saved", "container_items", "sys_containers", "cells", "lru", "sys_dict", "builtins",
    "path", "meta_path", "importer_cache", "argv", "environ", "environ_data", "recursion", "int_digits",
    "random_state", "gc_threshold", "gc_enabled", "asyncgen_hooks", "coroutine_depth", "switch_interval",
    "umask", "abc_token", "abcs", "codec_cache", "codec_views", "codec_saved", "stdout", "stderr", "stdin",
    "watch_dirs", "watch",
)  # fmt: skip


def _frozen(v):
    """A read-only copy of a dict, list or set (the snapshot's copies cannot be edited by code under test)."""
    return _P(dict(v)) if type(v) is dict else tuple(v) if type(v) is list else frozenset(v)


class Sandbox:
    """Snapshot of interpreter state; ``restore()`` puts it back.

    Code under test can reach this object (nothing in Python is out of reach
    of frames), so it holds nothing that can be edited: slots, not a
    dictionary (no attribute can shadow ``restore``), and read-only copies
    (mapping proxies, tuples, frozensets). Its slots are watched by the guard
    during a run (``Guard.watch_classes``), so that replacing one is seen."""

    __slots__ = _SLOTS

    def __init__(self, workdir, watch_dirs):
        self.workdir = os.path.abspath(workdir)
        self.cwd = os.getcwd()
        self.modules = frozenset(sys.modules)
        module_dicts = {}
        containers = []
        # Objects held at module level (json's default encoder, unittest's default loader, ...) and their attributes.
        objects = []
        for name, mod in list(sys.modules.items()):
            d = getattr(mod, "__dict__", None)
            if name in ("sys", "builtins") or not isinstance(d, dict):
                continue
            module_dicts[name] = _P(dict(d))
            for v in d.values():
                if type(v) in _CONTAINERS:
                    containers.append((v, _frozen(v)))
                elif not isinstance(v, (type, type(sys))) and not callable(v):
                    attrs = getattr(v, "__dict__", None)
                    if type(attrs) is dict:
                        objects.append((v, _P(dict(attrs))))
        self.classes = tuple(
            (v, _P(dict(vars(v))))
            for name, d in module_dicts.items()
            for v in d.values()
            if is_heap_class(v) and getattr(v, "__module__", None) == name
        )
        # The contents of every list, dict and set sys holds (path_hooks, warnoptions, _xoptions, ...).
        self.sys_containers = tuple((v, _frozen(v)) for k, v in vars(sys).items() if type(v) in _CONTAINERS and k != "modules")
        # The import system's objects (meta_path finders, path_importer_cache finders): their attributes
        # and the lists, dicts and sets they hold (a FileFinder's loaders), one level deep.
        importers = {id(v): v for v in (*sys.meta_path, *sys.path_importer_cache.values()) if type(getattr(v, "__dict__", None)) is dict}
        for v in importers.values():
            objects.append((v, _P(dict(v.__dict__))))
            containers.extend((c, _frozen(c)) for c in v.__dict__.values() if type(c) in _CONTAINERS)
        self.objects = tuple(objects)
        # The closure cells of functions held at module level, in classes and in sys's lists (os.fsencode
        # keeps its encoding in one; the FileFinder path hook keeps the class it makes finders of in another).
        self.cells = tuple(
            _cells(
                [
                    *(d.values() for d in module_dicts.values()),
                    *(saved.values() for _, saved in self.classes),
                    *(copy for _, copy in self.sys_containers if type(copy) is tuple),
                ]
            )
        )
        # Caches of functions (functools.lru_cache) held in modules and classes, with their miss counts: one
        # filled during a run (perhaps while something it calls was replaced) is emptied after it.
        self.lru = tuple(
            (f, f.cache_info().misses)
            for values in (*(d.values() for d in module_dicts.values()), *(saved.values() for _, saved in self.classes))
            for f in values
            if type(f) is _LRU
        )
        # Side by side, for a restore whose common case (nothing to put back) is a few comparisons in C.
        self.module_names = tuple(module_dicts)
        self.module_objects = tuple(sys.modules[name] for name in self.module_names)
        self.module_types = tuple(map(type, self.module_objects))
        self.module_views = tuple(m.__dict__ for m in self.module_objects)
        self.module_saved = tuple(module_dicts.values())
        self.class_views = tuple(vars(cls) for cls, _ in self.classes)
        self.class_saved = tuple(saved for _, saved in self.classes)
        self.object_types = tuple(type(obj) for obj, _ in self.objects)
        self.object_views = tuple(obj.__dict__ for obj, _ in self.objects)
        self.object_saved = tuple(saved for _, saved in self.objects)
        self.dict_live = tuple(obj for obj, _ in containers if type(obj) is dict)
        self.dict_saved = tuple(saved for obj, saved in containers if type(obj) is dict)
        self.container_items = tuple((obj, saved) for obj, saved in containers if type(obj) is not dict)
        self.sys_dict = _P({k: v for k, v in vars(sys).items() if k not in _SYS_KEEP})
        self.builtins = _P(dict(builtins.__dict__))
        self.path = (sys.path, tuple(sys.path))
        self.meta_path = (sys.meta_path, tuple(sys.meta_path))
        self.importer_cache = (sys.path_importer_cache, _P(dict(sys.path_importer_cache)))
        self.argv = tuple(sys.argv)
        self.environ = _P(dict(os.environ))
        self.environ_data = _P(dict(os.environ._data))
        self.recursion = sys.getrecursionlimit()
        self.int_digits = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else None
        self.random_state = random.getstate()
        # Interpreter-wide settings outside any dictionary.
        self.gc_threshold = gc.get_threshold()
        self.gc_enabled = gc.isenabled()
        self.asyncgen_hooks = tuple(sys.get_asyncgen_hooks())
        self.coroutine_depth = sys.get_coroutine_origin_tracking_depth()
        self.switch_interval = sys.getswitchinterval()
        self.umask = os.umask(0)
        os.umask(self.umask)
        # Registrations with abstract base classes (``Sequence.register(dict)``): each ABC's registry, by identity.
        self.abc_token = abc.get_cache_token()
        self.abcs = tuple((cls, tuple(_abc_registry(cls))) for cls, _ in self.classes if isinstance(cls, abc.ABCMeta))
        # The interpreter's codec cache (codecs.lookup hands out the same CodecInfo every time) and the
        # attributes of the codec objects it holds: a decoder planted on one would run in a later run.
        cache = codec_cache()
        self.codec_cache = ((cache,), (_P(dict(cache)),)) if cache is not None else ((), ())
        infos = {id(v): v for v in (*(cache or {}).values(), *_encodings_cache().values()) if type(getattr(v, "__dict__", None)) is dict}
        self.codec_views = tuple(v.__dict__ for v in infos.values())
        self.codec_saved = tuple(_P(dict(d)) for d in self.codec_views)
        self.stdout, self.stderr, self.stdin = sys.stdout, sys.stderr, sys.stdin
        self.watch_dirs = tuple(watch_dirs)
        self.rescan_files()

    def kind_changes(self):
        """Modules and module-level objects whose class is not the one noted
        (the guard's audit hook refuses such a change; this sees one that got
        past it). Labels, empty when none; restoring cannot undo these."""
        out = []
        if not all(map(_is, map(type, self.module_objects), self.module_types)):
            out += [f"the class of module {n}" for n, m, t in zip(self.module_names, self.module_objects, self.module_types) if type(m) is not t]
        if not all(map(_is, (type(o) for o, _ in self.objects), self.object_types)):
            out += [f"the class of a {t.__name__} object" for (o, _), t in zip(self.objects, self.object_types) if type(o) is not t]
        return out

    def rescan_files(self):
        """Note what the watched folders hold now (their new entries are removed at restore)."""
        self.watch = _P({d: frozenset(os.listdir(d)) for d in self.watch_dirs if os.path.isdir(d)})

    def restore(self):
        """Put everything back. Each step is guarded so that one failure
        (e.g. a candidate's ``__del__`` raising) does not skip the others."""
        for step in (
            self._restore_hooks,
            self._restore_globals,
            self._restore_sys,
            self._restore_modules,
            self._restore_containers,
            self._restore_objects,
            self._restore_cells,
            self._restore_caches,
            self._restore_codecs,
            self._restore_files,
        ):
            try:
                step()
            except Exception:  # noqa: BLE001 - best effort; the remaining steps still run
                pass

    def _restore_sys(self):
        d = vars(sys)
        sys.stdout, sys.stderr, sys.stdin = self.stdout, self.stderr, self.stdin
        for obj, items in (self.path, self.meta_path):
            items_now = obj
            items_now[:] = items
        sys.path = self.path[0]
        sys.meta_path = self.meta_path[0]
        cache, saved = self.importer_cache
        cache.clear()
        cache.update(saved)
        sys.path_importer_cache = cache
        sys.argv = list(self.argv)
        for k in [k for k in d if k not in self.sys_dict and k not in _SYS_KEEP]:
            try:
                delattr(sys, k)
            except (AttributeError, TypeError):
                pass
        for k, v in self.sys_dict.items():
            if d.get(k, _MISSING) is not v:
                try:
                    setattr(sys, k, v)
                except (AttributeError, TypeError):
                    pass
        for obj, copy in self.sys_containers:
            if type(obj) is list:
                obj[:] = copy
            else:
                obj.clear()
                obj.update(copy)
        try:
            os.chdir(self.cwd)
        except OSError:
            os.chdir("/")

    def _restore_modules(self):
        modules = sys.modules
        if modules.keys() != self.modules:
            for name in list(modules):
                if name not in self.modules:
                    del modules[name]
        if not all(map(_is, map(modules.get, self.module_names), self.module_objects)):
            # A module replaced or removed: the snapshot's own module goes back.
            for name, mod in zip(self.module_names, self.module_objects):
                if modules.get(name) is not mod:
                    modules[name] = mod
        # Dictionaries are put back whole, changed or not: copying from the snapshot is a few C-level
        # operations, cheaper than finding what changed, and the result is the snapshot's objects by construction.
        _reset(self.module_views, self.module_saved)
        # A class's dictionary can only be changed through setattr (which keeps the type caches right), so
        # classes are compared (by identity) and only the changed ones are put back.
        for i in _changed(self.class_views, self.class_saved):
            cls, saved = self.classes[i]
            if not dict_changed(vars(cls), saved):
                continue
            for k in [k for k in vars(cls) if k not in saved]:
                try:
                    delattr(cls, k)
                except (AttributeError, TypeError):
                    pass
            for k, v in saved.items():
                if vars(cls).get(k, _MISSING) is not v:
                    try:
                        setattr(cls, k, v)
                    except (AttributeError, TypeError):
                        pass

    def _restore_cells(self):
        for cell, saved in self.cells:
            try:
                now = cell.cell_contents
            except ValueError:
                now = _MISSING
            if now is not saved:
                if saved is _MISSING:
                    del cell.cell_contents
                else:
                    cell.cell_contents = saved

    def _restore_caches(self):
        for f, misses in self.lru:
            if f.cache_info().misses != misses:
                f.cache_clear()

    def _restore_objects(self):
        _reset(self.object_views, self.object_saved)

    def _restore_codecs(self):
        # (A codec first looked up during the run leaves the cache; encodings' own cache is a module-level dict.)
        _reset(*self.codec_cache)
        _reset(self.codec_views, self.codec_saved)

    def _restore_containers(self):
        _reset(self.dict_live, self.dict_saved)
        for obj, copy in self.container_items:
            if type(obj) is list:
                obj[:] = copy
            else:
                obj.clear()
                obj.update(copy)

    def _restore_hooks(self):
        """Interpreter-wide hooks a run may have set: tracing, profiling, sys.monitoring, SIGINT."""
        import signal

        sys.settrace(None)
        sys.setprofile(None)
        mon = getattr(sys, "monitoring", None)
        if mon is not None:
            for tool in range(6):
                try:
                    if mon.get_tool(tool) is not None:
                        mon.set_events(tool, 0)
                        mon.free_tool_id(tool)
                except Exception:  # noqa: BLE001 - a tool that cannot be freed
                    pass
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        except (AttributeError, ValueError):
            pass
        if self.int_digits is not None:
            sys.set_int_max_str_digits(self.int_digits)

    def _restore_globals(self):
        _bd_clear()
        _bd_update(self.builtins)
        if dict_changed(os.environ._data, self.environ_data):
            # (Rebuilding the environment when nothing changed would make its dict look changed to the restore of containers.)
            os.environ.clear()
            os.environ.update(self.environ)
        sys.setrecursionlimit(self.recursion)
        random.setstate(self.random_state)
        gc.set_threshold(*self.gc_threshold)
        (gc.enable if self.gc_enabled else gc.disable)()
        sys.set_asyncgen_hooks(*self.asyncgen_hooks)
        sys.set_coroutine_origin_tracking_depth(self.coroutine_depth)
        sys.setswitchinterval(self.switch_interval)
        os.umask(self.umask)
        if abc.get_cache_token() != self.abc_token:
            self._restore_abcs()
        # The run folder's import caches go with sys.path_importer_cache (restored in _restore_sys);
        # importlib.invalidate_caches() would also re-read the standard library's zip (tens of ms).

    def _restore_abcs(self):
        """Put back every ABC's registry as it was (a class registered during the run is dropped)."""
        for cls, saved in self.abcs:
            try:
                if list(map(id, _abc_registry(cls))) != list(map(id, saved)):
                    _abc._reset_registry(cls)
                    for sub in saved:
                        _abc._abc_register(cls, sub)
                _abc._reset_caches(cls)
            except Exception:  # noqa: BLE001 - a class whose registry cannot be read
                pass

    def _restore_files(self):
        for d, names in self.watch.items():
            if not os.path.isdir(d):
                continue
            for name in set(os.listdir(d)) - names:
                p = os.path.join(d, name)
                if os.path.isdir(p) and not os.path.islink(p):
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    try:
                        os.remove(p)
                    except OSError:
                        pass
        shutil.rmtree(self.workdir, ignore_errors=True)


_CODEC_CACHE = []


def codec_cache():
    """The interpreter's codec search cache: the dict, normalized name ->
    ``codecs.CodecInfo``, that ``codecs.lookup`` consults before any search
    function. It is not reachable by name; it is found once, as the one dict
    besides ``encodings._cache`` and module namespaces that holds the UTF-8
    codec, and kept. Call it first before ``gc.get_referrers`` is refused
    (``harness.seal``). Returns None when it cannot be found."""
    if not _CODEC_CACHE:
        import codecs

        info = codecs.lookup("utf-8")
        namespaces = {id(getattr(m, "__dict__", None)) for m in list(sys.modules.values())}
        found = [
            r
            for r in gc.get_referrers(info)
            if type(r) is dict and r is not _encodings_cache() and id(r) not in namespaces and any(v is info for v in r.values())
        ]
        _CODEC_CACHE.append(found[0] if len(found) == 1 else None)
    return _CODEC_CACHE[0]


def _encodings_cache():
    cache = getattr(sys.modules.get("encodings"), "_cache", None)
    return cache if type(cache) is dict else {}


def _abc_registry(cls):
    """The classes registered with an ABC (``abc.ABCMeta.register``), in a stable order (by id)."""
    registry = _abc._get_dump(cls)[0]
    return sorted((c for c in (ref() for ref in registry) if c is not None), key=id)


def _cells(groups):
    """(cell, contents) for every closure cell of the functions in these groups
    of values (an empty cell's contents are ``_MISSING``)."""
    out = []
    seen = set()
    for values in groups:
        for v in values:
            closure = getattr(v, "__closure__", None) if type(v) is _FUNCTION else None
            if not closure or v in seen:
                continue
            seen.add(v)
            for cell in closure:
                try:
                    out.append((cell, cell.cell_contents))
                except ValueError:
                    out.append((cell, _MISSING))
    return out


_FUNCTION = type(_cells)


def _reset(live, saved):
    """Put every dict of ``live`` back to its copy in ``saved``."""
    for cur, copy in zip(live, saved):
        cur.clear()
        cur.update(copy)


def _changed(live, saved, lo=0, hi=None):
    """Indices of the dicts in ``live`` that differ from their copies in
    ``saved``, by identity. Halves the list until the differing dicts are
    found, so that each step is a comparison in C."""
    if hi is None:
        hi = len(live)
    if hi <= lo or dicts_same(live[lo:hi], saved[lo:hi]):
        return []
    if hi - lo == 1:
        return [lo]
    mid = (lo + hi) // 2
    return _changed(live, saved, lo, mid) + _changed(live, saved, mid, hi)


_bd_clear = builtins.__dict__.clear
_bd_update = builtins.__dict__.update
