"""The line protocol of ratebench's Python drivers, on the trace's clock.

A driver (flask_limiter.py, drf_throttling.py) sets up its library, gives
it TraceClock for its clock, and calls serve. Each line of stdin is
"KEY T" (T the trace's time in ns since the epoch) or "KEY T COST"; each
answer a line "1" (admitted) or "0" (refused), or "E message" on an error.
A line "clear KEY" clears the key's limit, where the driver can (as Redis
does when a key expires on its own clock), and is answered "1". The first
line written is "ready VERSION".

Before each hit TraceClock.now is T as CPython's time.time() would return
it at T ns: whole seconds converted exactly, else T/1e9 in float64
(Python/pytime.c, _PyTime_AsSecondsDouble).
"""
import sys


class TraceClock:
    """Stands for the time module where a library calls time.time()."""

    now = 0.0

    @staticmethod
    def time():
        return TraceClock.now


def pytime(ns):
    if ns % 1_000_000_000 == 0:
        return float(ns // 1_000_000_000)
    return float(ns) / 1e9


def serve(version, hit, clear=None):
    """Answers the lines of stdin: hit(key, cost) decides one, at
    TraceClock.now; clear(key), when given, clears a key."""
    out = sys.stdout
    out.write("ready %s\n" % version)
    out.flush()
    for line in sys.stdin:
        fields = line.split()
        if not fields:
            continue
        try:
            if fields[0] == "clear":
                if clear is None:
                    raise ValueError("this driver clears no key")
                clear(fields[1])
                out.write("1\n")
                out.flush()
                continue
            key, t = fields[0], int(fields[1])
            cost = int(fields[2]) if len(fields) > 2 else 1
            TraceClock.now = pytime(t)
            out.write("1\n" if hit(key, cost) else "0\n")
        except Exception as e:  # answered, not fatal: the harness reports it
            out.write("E %s: %s\n" % (type(e).__name__, str(e).replace("\n", " ")))
        out.flush()
