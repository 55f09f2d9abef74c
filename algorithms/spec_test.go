package algorithms_test

import (
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
)

// A parameter given twice is refused, naming it, whatever the algorithm:
// one of the two values would otherwise go unused without a word.
func TestSpecParameterGivenTwice(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	for spec, param := range map[string]string{
		"envoy-local:max=5:max=6":                             "max",
		"envoy-local:fill=1:interval=6s:fill=2":               "fill",
		"juju:capacity=3:capacity=4":                          "capacity",
		"juju:rate:rate":                                      "rate",
		"nginx:burst=1:burst=2":                               "burst",
		"nginx:rate=10r/m:rate=20r/m":                         "rate",
		"nginx:zone:zone":                                     "zone",
		"upstash-token:max=1:max=2":                           "max",
		"token:B=2:B=3":                                       "B",
		"redis_rate:burst=2:burst=3":                          "burst",
		"throttled:burst=2:burst=3":                           "burst",
		"redis-cell:burst=2:burst=3":                          "burst",
		"fixed:block=1s:block=2s":                             "block",
		"counter:block:block=1s":                              "block",
		"nginx:without=burst-rounding:without=burst-rounding": "without=burst-rounding",
	} {
		_, err := algorithms.New(spec, r)
		if want := "parameter " + param + " given twice"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", spec, err, want)
		}
	}
}

// without= may repeat, each naming another deviation, and a spec with
// every parameter once is still accepted.
func TestSpecDistinctParametersAccepted(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	l, err := algorithms.New("nginx", r)
	if err != nil {
		t.Fatal(err)
	}
	devs := l.(algorithms.Product).Deviations()
	if len(devs) < 2 {
		t.Fatalf("nginx has %d deviations, want at least 2", len(devs))
	}
	specs := []string{
		"nginx:without=" + devs[0].Name + ":without=" + devs[1].Name,
		"envoy-local:max=5:fill=1:interval=6s",
		"juju:capacity=3:quantum=1:interval=6s",
		"nginx:rate=10r/m:burst=2:zone",
		"upstash-token:max=1:refill=1:interval=6s",
		"fixed:block=1s",
	}
	for _, spec := range specs {
		if _, err := algorithms.New(spec, r); err != nil {
			t.Errorf("%s: %v", spec, err)
		}
	}
}
