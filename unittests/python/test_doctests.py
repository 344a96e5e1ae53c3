"""Every example in the package's docstrings runs as a doctest.

Each docstring with examples is one test, run with empty globals: an example must import what
it uses (numpy, paddle_ops, ...). test_every_example_is_collected checks, against the source
files read with ast, that the finder saw every docstring that has examples (an example in a
lambda's or a nested function's docstring would otherwise never run).
"""
import ast
import doctest
import importlib
import os
import pkgutil

import pytest

import paddle_ops

PACKAGE_DIR = os.path.dirname(paddle_ops.__file__)
# Modules that need a framework the test machine may lack (the torch and Paddle integrations):
# their doctests run where the framework is installed and skip, saying so, elsewhere.
_OPTIONAL_IMPORTS = ("torch", "paddle", "jax", "cupy")


def _module_names():
    """Every module of the package, found on disk (pkgutil.walk_packages would import each
    subpackage to look inside it, and importing the Paddle integration loads real Paddle)."""
    names = ["paddle_ops"]

    def walk(path, prefix):
        for info in pkgutil.iter_modules([path], prefix=prefix):
            if info.name.rsplit(".", 1)[-1] == "__main__":
                continue  # `python -m paddle_ops`: its checks are in test_package.py
            names.append(info.name)
            if info.ispkg:
                walk(os.path.join(path, info.name.rsplit(".", 1)[-1]), info.name + ".")

    walk(PACKAGE_DIR, "paddle_ops.")
    return sorted(names)


def _missing_optional(e):
    """The optional framework whose absence raised `e` (directly, or as the cause of the clear
    ImportError an integration raises in its place), else None."""
    while e is not None:
        if isinstance(e, ImportError) and e.name and e.name.split(".")[0] in _OPTIONAL_IMPORTS:
            return e.name
        e = e.__cause__ or e.__context__
    return None


def _import(name):
    """(module, None) or (None, the reason it cannot be imported here)."""
    if name.startswith("paddle_ops.integrations.paddle") and "asan" in os.environ.get("LD_PRELOAD", ""):
        # Importing it loads real Paddle, whose libpaddle.so trips ASan at exit
        # (integrations/paddle_setup.py says more); the plain suite runs these.
        return None, f"{name} loads real Paddle, which cannot run under ASan; the plain suite runs it"
    try:
        return importlib.import_module(name), None
    except ImportError as e:
        missing = _missing_optional(e)
        if missing:
            return None, f"{name} needs {missing}, which is not installed here"
        raise


def _collect():
    """[(test id, doctest or None, skip reason)]: one per docstring with examples."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    out = []
    for name in _module_names():
        module, reason = _import(name)
        if module is None:
            out.append((name, None, reason))
            continue
        for test in finder.find(module, name, globs={}):
            if test.examples:
                out.append((test.name, test, None))
    return out


_TESTS = _collect()


@pytest.mark.parametrize("name,test,reason", _TESTS, ids=[t[0] for t in _TESTS])
def test_docstring_examples(name, test, reason):
    if test is None:
        pytest.skip(reason)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    failures = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)


def _docstrings_with_examples(path):
    """The dotted names (relative to the module) of the docstrings in `path` that hold '>>>'."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(child, clean=False) or ""
                qual = prefix + child.name
                if ">>>" in doc:
                    found.append(qual)
                visit(child, qual + ".")
            elif isinstance(child, ast.Lambda):
                pass  # a lambda has no docstring
            else:
                visit(child, prefix)

    if ">>>" in (ast.get_docstring(tree, clean=False) or ""):
        found.append("")
    visit(tree, "")
    return found


def test_every_example_is_collected():
    collected = {t[0] for t in _TESTS}
    skipped_modules = [t[0] for t in _TESTS if t[1] is None]
    missing = []
    total = 0
    for name in _module_names():
        rel = name.split(".")[1:]
        path = os.path.join(PACKAGE_DIR, *rel)
        path = os.path.join(path, "__init__.py") if os.path.isdir(path) else path + ".py"
        if not os.path.exists(path) or any(name == m or name.startswith(m + ".") for m in skipped_modules):
            continue
        for qual in _docstrings_with_examples(path):
            total += 1
            full = name + ("." + qual if qual else "")
            if full not in collected:
                missing.append(full)
    assert not missing, f"docstrings with examples that doctest does not reach: {missing}"
    # The package has examples at all (a finder that silently found none would pass above).
    assert total == len([t for t in _TESTS if t[1] is not None]) and total >= 20, total
