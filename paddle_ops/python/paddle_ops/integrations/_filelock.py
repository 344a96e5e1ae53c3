"""The lock the integrations' first-import builds (integrations/paddle/_build.py,
integrations/jax/_build.py) take on their cache folder, so concurrent imports do not build twice."""
import contextlib
import fcntl


@contextlib.contextmanager
def file_lock(path):
    """Holds an exclusive flock on `path` (created if missing) for the with-block."""
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
