package python

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/live"
)

// DRFRequires names what the drf-throttling target needs installed.
const DRFRequires = "the Debian package python3-djangorestframework, which brings python3-django (apt-get install -y python3-djangorestframework), for /usr/bin/python3"

// drfVariants are examples of the target's variants, its model's
// parameters: the cache keeping every key (MAX_ENTRIES beyond any trace's
// keys), or LocMemCache's MAX_ENTRIES, 300 or N (max-entries=N), whose
// culls the model follows. Its checks are "" and max-entries=2, which
// culls on the check's three keys and lets a third key in first (a cull
// of 2 // 3 = 0 keys); on the check's trace max-entries decides as "".
var drfVariants = []string{"", "max-entries", "max-entries=2"}

func init() {
	live.Register(live.Target{
		Name:     "drf-throttling",
		About:    "Django REST Framework's AnonRateThrottle (Debian python3-djangorestframework) on Django's local-memory cache, in a Python driver whose time.time() is the trace's",
		Requires: DRFRequires,
		Driven:   true,
		Variants: drfVariants,
		Checks:   []string{"", "max-entries=2"},
		Version:  drfVersion,
		Model: func(r algorithms.Rule, o live.Options) (string, error) {
			m, err := drfModel(r, o)
			if err != nil {
				return "", err
			}
			return m.Name(), nil
		},
		Start: func(ctx context.Context, r algorithms.Rule, _ *live.Trace, o live.Options) (live.Session, error) {
			return StartDRF(ctx, r, o)
		},
	})
}

// drfModel is the model of the variant o names: drf-throttling with the
// variant's parameters, none of its deviations off.
func drfModel(r algorithms.Rule, o live.Options) (*products.DRFThrottling, error) {
	spec := "drf-throttling"
	if v := strings.TrimSpace(o.Variant); v != "" {
		spec += ":" + v
	}
	l, err := algorithms.New(spec, r)
	if err != nil {
		return nil, fmt.Errorf("live drf-throttling: %w", err)
	}
	m := l.(*products.DRFThrottling)
	if strings.Contains(m.Name(), ":without=") {
		return nil, fmt.Errorf("live drf-throttling: the variant %q turns a deviation off, which the real software cannot", o.Variant)
	}
	return m, nil
}

// drfVersion asks the interpreter for DRF's and Django's versions.
func drfVersion(ctx context.Context, o live.Options) (string, error) {
	f, err := probe(ctx, "drf-throttling", "import rest_framework, django, platform; print(rest_framework.__version__, django.get_version(), platform.python_version())", 3, o, DRFRequires)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Django REST Framework %s, Django %s (Python %s)", f[0], f[1], f[2]), nil
}

// StartDRF starts the driver for rule r: the rate "L/second" (minute,
// hour, day) and the cache's MAX_ENTRIES, the variant's or, without
// max-entries, the largest int64, beyond any trace's keys.
func StartDRF(ctx context.Context, r algorithms.Rule, o live.Options) (_ *Session, err error) {
	m, err := drfModel(r, o)
	if err != nil {
		return nil, err
	}
	rate := products.DRFRate(r)
	entries := m.MaxEntries()
	if entries == 0 {
		entries = math.MaxInt64
	}
	s := &Session{target: "drf-throttling"}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	v, err := s.run(ctx, o, "drf_throttling.py", []string{rate, strconv.FormatInt(entries, 10)}, DRFRequires)
	if err != nil {
		return nil, err
	}
	o.Logf("drf-throttling: Django REST Framework and Django %s, %q, MAX_ENTRIES %d", v, rate, entries)
	return s, nil
}
