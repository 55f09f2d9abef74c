package python

import (
	"context"
	"testing"

	"ratebench/algorithms"
	"ratebench/live"
	"ratebench/summary"
)

// target returns the live target name, failing the test, with the error
// that names what to install, when its software is missing.
func target(t *testing.T, name string) live.Target {
	t.Helper()
	tg, ok := live.Lookup(name)
	if !ok {
		t.Fatalf("%s is not registered", name)
	}
	v, err := tg.Version(context.Background(), live.Options{})
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Logf("%s", v)
	return tg
}

// agreesOnBursty3Keys is the acceptance check: the real library, driven by
// the trace's clock, decides every request of the bursty 3-key trace under
// 5/1s as the model, for each of variants, and the trace crosses the
// limit. It returns each variant's result.
func agreesOnBursty3Keys(t *testing.T, tg live.Target, variants []string) map[string]*summary.Live {
	t.Helper()
	r, err := algorithms.ParseRule(live.CheckRule)
	if err != nil {
		t.Fatal(err)
	}
	tr := live.Bursty3Keys()
	n := int64(len(tr.T))
	out := map[string]*summary.Live{}
	for _, v := range variants {
		res, err := live.Run(context.Background(), tg, r, tr, live.Options{Variant: v})
		if err != nil {
			t.Fatalf("variant %q: %v", v, err)
		}
		t.Logf("variant %q: %d admitted, %d refused; the model %s agrees on %d of %d, the log on %d", v, res.Admitted, res.Refused, res.ModelSpec, res.Model.Agree, n, res.Log.Agree)
		if res.Model.Agree != n || len(res.Differences) != 0 {
			t.Errorf("variant %q: the model agrees on %d of %d requests: %+v", v, res.Model.Agree, n, res.Differences)
		}
		if res.Refused == 0 || res.Admitted == 0 {
			t.Errorf("variant %q: %d admitted, %d refused: the trace does not cross the limit", v, res.Admitted, res.Refused)
		}
		out[v] = res
	}
	return out
}
