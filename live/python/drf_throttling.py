"""Django REST Framework's throttling decisions (Debian's
python3-djangorestframework on python3-django), one request per line of
stdin, on the trace's clock (trace_driver's protocol; a request's cost is
read and not used: a throttle takes none).

Usage: python3 drf_throttling.py RATE MAX_ENTRIES
  RATE         a DRF rate, e.g. "5/second"
  MAX_ENTRIES  the local-memory cache's MAX_ENTRIES (Django's default 300)

Django is configured with its local-memory cache (LocMemCache, the default
cache) holding MAX_ENTRIES keys, and REST_FRAMEWORK's
DEFAULT_THROTTLE_RATES giving the scope anon the rate. Each request is a
new AnonRateThrottle (as a view makes its throttles per request) asked
allow_request for an anonymous request whose REMOTE_ADDR is the key: its
cache key is throttle_anon_KEY.

The clock: SimpleRateThrottle.timer (time.time, bound when the class was
made) is TraceClock.time, and the cache's modules, which call
time.time() for each entry's expiry (django/core/cache/backends/base.py)
and its test (locmem.py), are given TraceClock for their time.
"""
import sys

from trace_driver import TraceClock, serve


def main():
    rate, max_entries = sys.argv[1], int(sys.argv[2])
    from django.conf import settings

    settings.configure(
        CACHES={"default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "ratebench",
            "OPTIONS": {"MAX_ENTRIES": max_entries},
        }},
        REST_FRAMEWORK={"DEFAULT_THROTTLE_RATES": {"anon": rate}},
    )
    import django

    django.setup()
    import django.core.cache.backends.base as cache_base
    import django.core.cache.backends.locmem as locmem
    import rest_framework
    from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle

    cache_base.time = TraceClock
    locmem.time = TraceClock
    SimpleRateThrottle.timer = staticmethod(TraceClock.time)

    class Anonymous:
        is_authenticated = False

    class Request:
        user = Anonymous()

        def __init__(self, key):
            self.META = {"REMOTE_ADDR": key}

    def hit(key, cost):
        return AnonRateThrottle().allow_request(Request(key), None)

    serve("%s %s" % (rest_framework.__version__, django.get_version()), hit)


if __name__ == "__main__":
    main()
