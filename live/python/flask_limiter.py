"""Flask-Limiter's decisions, made by the limits library (Debian's
python3-limits), one hit per line of stdin, on the trace's clock.

Usage: python3 flask_limiter.py STRATEGY LIMIT STORAGE_URI
  STRATEGY     fixed-window or moving-window (limits.strategies.STRATEGIES)
  LIMIT        a limit string, e.g. "5 per 1 second"
  STORAGE_URI  memory:// or redis://127.0.0.1:PORT

Each line of stdin is "KEY T" (T the trace's time in ns since the epoch)
or "KEY T COST"; each answer a line "1" (admitted) or "0" (refused), or
"E message" on an error. A line "clear KEY" clears the key's limit (as
Redis does when a key expires on its own clock) and is answered "1". The
first line written is "ready LIMITS_VERSION".

limits' storages read the clock as time.time() (limits/storage/memory.py,
limits/storage/redis.py): the module-level name time of each is given a
clock that returns T as CPython's time.time() would at T ns (whole seconds
converted exactly, else T/1e9 in float64; Python/pytime.c). The memory
storage's background sweep, a threading.Timer that drops moving-window
entries W old 10 ms of wall time after a hit, is not started: run from
another thread it would race with the hits; the hit's own check decides.
"""
import sys
import types

import limits
import limits.storage.memory as memory
import limits.storage.redis as redis_storage
from limits import strategies
from limits.storage import storage_from_string


class TraceClock:
    now = 0.0

    @staticmethod
    def time():
        return TraceClock.now


def pytime(ns):
    if ns % 1_000_000_000 == 0:
        return float(ns // 1_000_000_000)
    return float(ns) / 1e9


class NoTimer:
    def __init__(self, *args, **kwargs):
        pass

    def start(self):
        pass

    def is_alive(self):
        return True

    def cancel(self):
        pass


memory.time = TraceClock
redis_storage.time = TraceClock
memory.threading = types.SimpleNamespace(_RLock=memory.threading._RLock, Timer=NoTimer)


def main():
    strategy, limit_string, uri = sys.argv[1:4]
    storage = storage_from_string(uri)
    storage.reset()
    limiter = strategies.STRATEGIES[strategy](storage)
    item = limits.parse(limit_string)
    out = sys.stdout
    out.write("ready %s\n" % limits.__version__)
    out.flush()
    for line in sys.stdin:
        fields = line.split()
        if not fields:
            continue
        try:
            if fields[0] == "clear":
                limiter.clear(item, fields[1])
                out.write("1\n")
                out.flush()
                continue
            key, t = fields[0], int(fields[1])
            cost = int(fields[2]) if len(fields) > 2 else 1
            TraceClock.now = pytime(t)
            ok = limiter.hit(item, key, cost=cost)
            out.write("1\n" if ok else "0\n")
        except Exception as e:  # answered, not fatal: the harness reports it
            out.write("E %s: %s\n" % (type(e).__name__, str(e).replace("\n", " ")))
        out.flush()


if __name__ == "__main__":
    main()
