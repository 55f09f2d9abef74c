"""Flask-Limiter's decisions, made by the limits library (Debian's
python3-limits), one hit per line of stdin, on the trace's clock
(trace_driver's protocol; "clear KEY" clears the key's limit).

Usage: python3 flask_limiter.py STRATEGY LIMIT STORAGE_URI
  STRATEGY     fixed-window or moving-window (limits.strategies.STRATEGIES)
  LIMIT        a limit string, e.g. "5 per 1 second"
  STORAGE_URI  memory:// or redis://127.0.0.1:PORT

limits' storages read the clock as time.time() (limits/storage/memory.py,
limits/storage/redis.py): the module-level name time of each is given
TraceClock. The memory storage's background sweep, a threading.Timer that
drops moving-window entries W old 10 ms of wall time after a hit, is not
started: run from another thread it would race with the hits; the hit's
own check decides.
"""
import sys
import types

import limits
import limits.storage.memory as memory
import limits.storage.redis as redis_storage
from limits import strategies
from limits.storage import storage_from_string

from trace_driver import TraceClock, serve


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
    serve(limits.__version__, lambda key, cost: limiter.hit(item, key, cost=cost), lambda key: limiter.clear(item, key))


if __name__ == "__main__":
    main()
