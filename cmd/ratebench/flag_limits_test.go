package main

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// The parameters that multiply a run's memory are bounded: each beyond
// its bound is refused before anything is read, naming the flag and the
// limit.
func TestUnboundedParametersAreRefused(t *testing.T) {
	var limits, algs []string
	for i := range 2000 {
		limits = append(limits, strconv.Itoa(i+1))
	}
	for range 65 {
		algs = append(algs, "counter")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "testdata/small.csv", "-workers", "100000"}, "-workers 100000: at most " + strconv.Itoa(maxWorkers) + " goroutines"},
		{[]string{"cloudflare", "-workers", "100000"}, "-workers 100000: at most " + strconv.Itoa(maxWorkers) + " goroutines"},
		{[]string{"compare", "testdata/small.csv", "-sweep", "L=" + strings.Join(limits, ","), "-report=false"}, "-rule and -sweep give 2000 rules, more than the 100 of one compare"},
		{[]string{"compare", "testdata/small.csv", "-alg", strings.Join(algs, ",")}, "-alg names 65 algorithms, more than the 64 of one compare"},
		{[]string{"compare", "testdata/small.csv", "-sweep", "L=" + strings.Join(limits[:50], ",") + ";W=1s,1m", "-alg", strings.Join(algs[:20], ","), "-count", "accepted,all"},
			"100 rules (-rule, -sweep) × 20 algorithms (-alg) × 2 modes (-mode) × 2 count policies (-count) are 8000 runs, more than the 2000 of one compare"},
	} {
		dir := t.TempDir()
		_, stderr, err := ratebench(t, append(c.args, "-o", dir)...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60q: %v, want %q", c.args, err, c.want)
		}
		if strings.Contains(stderr, "replaying") {
			t.Errorf("%.60q: refused only after the replay began", c.args)
		}
	}
	if _, _, err := ratebench(t, "compare", "testdata/small.csv", "-workers", "256", "-alg", "log,counter", "-report=false", "-o", t.TempDir()); err != nil {
		t.Errorf("at the bound: %v", err)
	}
}
