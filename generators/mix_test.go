package generators

import (
	"bytes"
	"testing"
)

// A mix shares keys by weight (largest remainder), names each key after its
// scenario, and passes NAME.PARAM to that scenario only.
func TestMixSharesAndParams(t *testing.T) {
	g, err := New("mix:poisson=0.7,boundary=0.3,boundary.burst=3", Params{Keys: 10, Requests: 3000, Rate: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.parts) != 2 || g.parts[0].sc.Name != "boundary" || g.parts[0].keys != 3 || g.parts[1].keys != 7 {
		t.Fatalf("parts: %+v", g.parts)
	}
	if g.parts[0].v["burst"] != 3 || g.parts[0].v["spread"] != 0.05 {
		t.Errorf("boundary params %v", g.parts[0].v)
	}
	perKey := map[string]int{}
	for g.Scan() {
		k := string(g.Request().Key)
		perKey[k]++
		if want := bytes.HasPrefix(g.Request().Key, []byte("boundary-")); want != (g.KeyIndex() < 3) {
			t.Fatalf("key %s has index %d", k, g.KeyIndex())
		}
	}
	if len(perKey) != 10 || perKey["boundary-0"] == 0 || perKey["poisson-9"] == 0 {
		t.Errorf("keys %v", perKey)
	}
	for _, bad := range []string{"mix", "mix:", "mix:nope=1", "mix:poisson=0", "mix:poisson=x", "mix:mix=1",
		"mix:poisson=1,boundary.burst=3", "mix:poisson=1,poisson.nope=2"} {
		if _, err := New(bad, Params{}); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
}
