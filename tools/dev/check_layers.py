#!/usr/bin/env python3
"""The layer check: no include runs upward, no include cycle, no stale include, no import cycle.

    python3 tools/dev/check_layers.py [REPO_ROOT]      (default: the repository holding this file)

Reads every .h/.cc/.cu/.cuh/.inc file of the tree (not build*/, not unittests/, not hidden
folders), takes its quoted includes, and reports, one line each, `file:line: #include "x"` with the
rule it breaks:
- upward: the included file's layer is not one the including file's layer may use (LAYERS, ALLOWED);
- stale: a project path (it starts with one of PROJECT_ROOTS) that does not exist;
- no layer: a project file that no prefix of LAYERS covers (add it to the table);
- cycle: a circle of includes among project headers.
Angle-bracket includes and quoted names that are not project paths ("cute/...", "gtest/...") are
third-party and not checked. A quoted name is first taken relative to the including file's folder,
then relative to the repository root. Generated headers (GENERATED, e.g. "paddle_ops_gen/api.h")
are not in the tree; they count as the layer "gen".
It also reads the Python package (PY_PACKAGE) for import cycles among its modules (an import inside
a function body counts too).
Exits 1 when anything is reported, 0 otherwise.
"""
import ast
import os
import re
import sys

# Layers, lowest first: a path prefix (relative to the repository root) and its layer. The longest
# matching prefix wins, so kernels/funcs/ is the engine and the rest of kernels/ the ops.
LAYERS = [
    ("paddle_ops/common/", "common"),
    ("paddle_ops/core/", "core"),        # with core/gpu/
    ("kernels/util/", "util"),           # general kernel helpers (broadcast, cast, eigen, launch)
    ("kernels/funcs/", "engine"),        # the scan engine only
    ("infermeta/", "infermeta"),
    ("kernels/", "kernels"),             # *_kernel.h, impl/, cpu/, gpu/, gla/
    ("paddle_ops/api/", "front"),
    ("paddle_ops/autograd/", "front"),
    ("paddle_ops/runtime/", "runtime"),  # the integrations' runtime library (plain-C interface)
    ("paddle_ops/python/", "python"),
    ("tools/", "tools"),                 # dev tools with C++/CUDA sources (tools/dev/harness/)
    ("paddle_ops_gen/", "gen"),          # generated into the build folder
]
_BELOW_FRONT = {"common", "core", "util", "engine", "infermeta", "kernels"}
# What each layer may include.
ALLOWED = {
    "common": {"common"},
    "core": {"common", "core"},
    "util": {"common", "core", "util"},
    "engine": {"common", "core", "util", "engine"},
    "infermeta": {"common", "core", "infermeta"},
    "kernels": {"common", "core", "util", "engine", "kernels"},
    "front": _BELOW_FRONT | {"front", "gen"},
    "runtime": _BELOW_FRONT | {"gen", "runtime"},
    "python": _BELOW_FRONT | {"front", "gen", "runtime", "python"},
    "tools": _BELOW_FRONT | {"front", "gen", "runtime", "python", "tools"},
    "gen": _BELOW_FRONT | {"front", "gen"},
}
PROJECT_ROOTS = ("paddle_ops/", "kernels/", "infermeta/")
GENERATED = ("paddle_ops_gen/",)
SOURCE_SUFFIXES = (".h", ".cc", ".cu", ".cuh", ".inc")
HEADER_SUFFIXES = (".h", ".cuh", ".inc")
SKIP_TOP = ("unittests",)
PY_PACKAGE = "paddle_ops/python/paddle_ops"

_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def layer_of(path):
    best = None
    for prefix, layer in LAYERS:
        if path.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, layer)
    return best[1] if best else None


def source_files(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames
                           if not d.startswith(("build", ".")) and d not in SKIP_TOP]
        else:
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(SOURCE_SUFFIXES):
                out.append(os.path.normpath(os.path.join(rel_dir, name)).replace(os.sep, "/"))
    return sorted(out)


def resolve(root, including, name):
    """(project path or None, is_project): where a quoted include points in the tree."""
    local = os.path.normpath(os.path.join(os.path.dirname(including), name)).replace(os.sep, "/")
    if not local.startswith("..") and os.path.isfile(os.path.join(root, local)):
        return local, True
    if name.startswith(PROJECT_ROOTS) or name.startswith(GENERATED):
        return os.path.normpath(name).replace(os.sep, "/"), True
    return None, False


def check_includes(root):
    problems = []
    graph = {}
    for path in source_files(root):
        src_layer = layer_of(path)
        if src_layer is None:
            problems.append(f"{path}:1: no layer: add its folder to LAYERS in tools/dev/check_layers.py")
            continue
        edges = graph.setdefault(path, [])
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = _INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(1)
                target, is_project = resolve(root, path, name)
                if not is_project:
                    continue
                where = f'{path}:{lineno}: #include "{name}"'
                generated = target.startswith(GENERATED)
                if not generated and not os.path.isfile(os.path.join(root, target)):
                    problems.append(f"{where}: stale: {target} does not exist")
                    continue
                dst_layer = layer_of(target)
                if dst_layer is None:
                    problems.append(f"{where}: no layer for {target}: add its folder to LAYERS")
                elif dst_layer not in ALLOWED[src_layer]:
                    allowed = ", ".join(sorted(ALLOWED[src_layer]))
                    problems.append(f"{where}: upward: {src_layer} ({path}) may include only "
                                    f"{allowed}, not {dst_layer}")
                if not generated:
                    edges.append(target)
    for cycle in find_cycles({p: e for p, e in graph.items() if p.endswith(HEADER_SUFFIXES)}):
        problems.append(f"{cycle[0]}:1: cycle: include circle " + " -> ".join(cycle + [cycle[0]]))
    return problems


def find_cycles(graph):
    """One cycle per strongly connected component of more than one node (or a self-loop)."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = [0]

    def visit(v):  # iterative Tarjan: headers can nest deeper than Python's recursion allows
        work = [(v, iter(graph.get(v, ())))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(graph.get(w, ()))))
                    advanced = True
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1 or node in graph.get(node, ()):
                    comps.append(set(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_one_cycle(graph, comp) for comp in comps]


def _one_cycle(graph, comp):
    start = min(comp)
    # Breadth-first from start's successors back to start, inside the component.
    prev = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for w in graph.get(node, ()):
            if w == start:
                path = [node]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path))
            if w in comp and w not in prev:
                prev[w] = node
                queue.append(w)
    return sorted(comp)


def _imports(tree):
    """Every import node of the module, those inside function bodies included: an import made
    late, in a function, that closes a circle is a circle still (issue 31: framework.py and
    device/ imported each other that way)."""
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def check_python_imports(root):
    pkg_dir = os.path.join(root, PY_PACKAGE)
    if not os.path.isdir(pkg_dir):
        return []
    top = os.path.basename(PY_PACKAGE)
    modules = {}  # dotted name -> (relative path, is package)
    for dirpath, _, filenames in os.walk(pkg_dir):
        for name in filenames:
            if not name.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), pkg_dir)
            parts = [top] + rel[:-3].split(os.sep)
            is_pkg = parts[-1] == "__init__"
            if is_pkg:
                parts.pop()
            modules[".".join(parts)] = (os.path.join(PY_PACKAGE, rel).replace(os.sep, "/"), is_pkg)
    trees = {}
    for mod, (path, _) in modules.items():
        with open(os.path.join(root, path), encoding="utf-8") as f:
            trees[mod] = ast.parse(f.read(), path)
    # `from . import X` in a package's __init__ names a submodule X; where X has no .py file it is
    # an extension module (paddle_ops._C): importing it does not run the package's __init__.
    extensions = set()
    for mod, (_, is_pkg) in modules.items():
        if is_pkg:
            for node in _imports(trees[mod]):
                if isinstance(node, ast.ImportFrom) and node.level == 1 and not node.module:
                    extensions |= {f"{mod}.{a.name}" for a in node.names} - set(modules)
    graph = {}
    for mod, (path, is_pkg) in modules.items():
        package = mod if is_pkg else mod.rpartition(".")[0]
        targets = []
        for node in _imports(trees[mod]):
            if isinstance(node, ast.Import):
                targets += [a.name for a in node.names]
                continue
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                base = ".".join(base + ([node.module] if node.module else []))
            else:
                base = node.module
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub not in extensions:
                    targets.append(sub if sub in modules else base)
        graph[mod] = sorted({t for t in targets if t in modules and t != mod})
    problems = []
    for cycle in find_cycles(graph):
        files = [modules[m][0] for m in cycle]
        problems.append(f"{files[0]}:1: import cycle: " + " -> ".join(cycle + [cycle[0]]))
    return problems


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    problems = check_includes(root) + check_python_imports(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} problem(s)")
        return 1
    print("check_layers: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
