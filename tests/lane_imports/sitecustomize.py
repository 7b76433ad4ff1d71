"""Put on ``PYTHONPATH`` by ``pytest --fast`` (tests/conftest.py): every Python process the fast
lane's tests start (the ``colbench`` command, ``python -m ...``, servers) writes, as it exits, the
library modules it imported into ``$COLBENCH_LANE_IMPORTS/<pid>.txt``, so that the fast lane's
import check counts what its tests ran in other processes too."""
import atexit
import os
import sys

_OUT = os.environ.get("COLBENCH_LANE_IMPORTS")


def _record() -> None:
    names = [m for m in list(sys.modules) if m.split(".")[0] in ("colbench", "colbench_env")]
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)  # python -m colbench.X runs X as __main__
    if spec is not None and spec.name.split(".")[0] in ("colbench", "colbench_env"):
        names.append(spec.name)
    try:
        with open(os.path.join(_OUT, f"{os.getpid()}.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(names))
    except OSError:
        pass


if _OUT:
    atexit.register(_record)
