package live

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"testing"

	"ratebench/algorithms"
)

// modelSession answers with a limiter of its own: software whose
// arithmetic is its model's, perhaps with one answer flipped.
type modelSession struct {
	Plain
	l      algorithms.Limiter
	ids    map[string]int32
	flip   int // 1-based request whose answer is flipped; 0 none
	n      int
	closed *int
	fail   int // 1-based request that fails; 0 none
}

func (s *modelSession) Decide(_ context.Context, q Request) (Decision, error) {
	s.n++
	if s.n == s.fail {
		return Decision{}, errors.New("the software went away")
	}
	key, t := q.Key, q.T
	id, ok := s.ids[key]
	if !ok {
		id = int32(len(s.ids))
		s.ids[key] = id
		s.l.Grow(len(s.ids))
	}
	a := s.l.Decide(id, t, 1)
	if a {
		s.l.Record(id, t, 1)
	}
	return Decision{Admit: a != (s.n == s.flip), At: t}, nil
}

func (s *modelSession) Close() error { *s.closed++; return nil }

func fakeTarget(spec string, flip, fail int, closed *int) Target {
	return Target{Name: "fake", Driven: true,
		Version: func(context.Context, Options) (string, error) { return "fake 1.0", nil },
		Model:   func(algorithms.Rule, Options) (string, error) { return spec, nil },
		Start: func(_ context.Context, r algorithms.Rule, _ *Trace, _ Options) (Session, error) {
			l, err := algorithms.New(spec, r)
			return &modelSession{l: l, ids: map[string]int32{}, flip: flip, fail: fail, closed: closed}, err
		}}
}

func checkRule(t *testing.T) algorithms.Rule {
	r, err := algorithms.ParseRule(CheckRule)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunAgreesWithItsOwnModel(t *testing.T) {
	var closed int
	tr := Bursty3Keys()
	res, err := Run(context.Background(), fakeTarget("fixed", 0, 0, &closed), checkRule(t), tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if closed != 1 {
		t.Errorf("Close called %d times, want 1", closed)
	}
	if res.Model.Agree != int64(len(tr.T)) || res.Model.Disagree() != 0 || len(res.Differences) != 0 {
		t.Errorf("model agreement %+v, want all %d", res.Model, len(tr.T))
	}
	if res.Admitted+res.Refused != int64(len(tr.T)) || res.Refused == 0 {
		t.Errorf("admitted %d refused %d: the check's trace must cross the limit", res.Admitted, res.Refused)
	}
	// The fixed window lets bursts through at its edges: it disagrees
	// with the log, and every disagreement is its algorithm's.
	if res.Log.Disagree() == 0 || len(res.Log.Classes) != 1 || res.Log.Classes[0].Name != "the product's algorithm" {
		t.Errorf("log agreement %+v: want disagreements, all the algorithm's", res.Log)
	}
	if res.Intended != nil || res.Clock != "driven" || res.Target != "fake" || res.Clients != 1 {
		t.Errorf("a driven clock has no intended times: %+v, clock %q", res.Intended, res.Clock)
	}
}

func TestRunReportsADifference(t *testing.T) {
	var closed int
	tr := Bursty3Keys()
	res, err := Run(context.Background(), fakeTarget("token", 7, 0, &closed), checkRule(t), tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model.Disagree() < 1 || len(res.Differences) < 1 || res.Differences[0].Request != 7 {
		t.Fatalf("flipped request 7: agreement %+v, differences %+v", res.Model, res.Differences)
	}
	if c := res.Model.Classes[0]; c.First != 7 {
		t.Errorf("first class %+v, want its first request 7", c)
	}
}

// The models read the trace's costs, the software never sees them: the
// fake software, the fixed window asked with cost 1, agrees on the check's
// trace with costs with rack-attack, which counts one hit per request, and
// not with rack-attack charging the costs; the exact log charges them.
func TestRunGivesTheCostsToTheModelsOnly(t *testing.T) {
	tr := Bursty3KeysWithCosts()
	n := int64(len(tr.T))
	var logs []int64
	for _, c := range []struct {
		model string
		agree bool
	}{{"rack-attack", true}, {"rack-attack:without=one-hit", false}} {
		tg := fakeTarget("fixed", 0, 0, new(int))
		tg.Model = func(algorithms.Rule, Options) (string, error) { return c.model, nil }
		res, err := Run(context.Background(), tg, checkRule(t), tr, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if (res.Model.Agree == n) != c.agree {
			t.Errorf("%s agrees on %d of %d requests: want all %v", c.model, res.Model.Agree, n, c.agree)
		}
		logs = append(logs, res.Log.Agree)
	}
	plain, err := Run(context.Background(), fakeTarget("fixed", 0, 0, new(int)), checkRule(t), Bursty3Keys(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if logs[0] == plain.Log.Agree {
		t.Errorf("the log agrees on %d requests with costs and without: it does not read them", plain.Log.Agree)
	}
}

// On the check's trace with costs, the model of each live target whose
// product takes no cost (counting one per request, its deviation one-hit)
// decides some requests otherwise when it charges the costs: the targets'
// agreement with their models on that trace, which their tests require,
// tells the deviation.
func TestBursty3KeysWithCostsTellsOneHit(t *testing.T) {
	r := checkRule(t)
	tr := Bursty3KeysWithCosts()
	for _, spec := range []string{"express-rate-limit", "express-rate-limit:store=redis", "rack-attack", "haproxy", "varnish", "tyk"} {
		one, err := Decide(spec, r, tr, tr.T)
		if err != nil {
			t.Fatal(err)
		}
		charged, err := Decide(spec+":without=one-hit", r, tr, tr.T)
		if err != nil {
			t.Fatal(err)
		}
		differ := 0
		for i := range one {
			if one[i] != charged[i] {
				differ++
			}
		}
		if differ == 0 {
			t.Errorf("%s decides the check's trace with costs alike charging them or not", spec)
		}
		t.Logf("%s: charging the costs decides %d of %d requests otherwise", spec, differ, len(one))
	}
}

func TestRunStopsTheSoftwareOnError(t *testing.T) {
	var closed int
	_, err := Run(context.Background(), fakeTarget("token", 0, 5, &closed), checkRule(t), Bursty3Keys(), Options{})
	if err == nil || closed != 1 {
		t.Fatalf("err %v, closed %d: want the error and one Close", err, closed)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	closed = 0
	if _, err := Run(ctx, fakeTarget("token", 0, 0, &closed), checkRule(t), Bursty3Keys(), Options{}); !errors.Is(err, context.Canceled) || closed != 1 {
		t.Fatalf("cancelled: err %v, closed %d", err, closed)
	}
}

func TestRunMissingSoftware(t *testing.T) {
	tg := fakeTarget("token", 0, 0, new(int))
	tg.Version = func(context.Context, Options) (string, error) {
		return "", errors.New("fake is not installed: apt-get install fake")
	}
	if _, err := Run(context.Background(), tg, checkRule(t), Bursty3Keys(), Options{}); err == nil {
		t.Fatal("want the missing software's error")
	}
}

func TestBursty3Keys(t *testing.T) {
	a, b := Bursty3Keys(), Bursty3Keys()
	if !slices.Equal(a.T, b.T) || !slices.Equal(a.Key, b.Key) {
		t.Fatal("the check's trace differs between calls")
	}
	if a.Keys != 3 || len(a.T) < 100 || !slices.IsSorted(a.T) {
		t.Fatalf("%d keys, %d requests, sorted %v", a.Keys, len(a.T), slices.IsSorted(a.T))
	}
	last := make([]int64, 3)
	long := make([]bool, 3)
	for i, k := range a.Key {
		if a.T[i]%1e6 != 0 {
			t.Fatalf("request %d at %d ns: not a whole millisecond", i+1, a.T[i])
		}
		if i > 0 && a.T[i]-last[k] > 3e9 {
			long[k] = true
		}
		last[k] = a.T[i]
	}
	if !slices.Equal(long, []bool{true, true, true}) {
		t.Errorf("idle gaps over 3 s per key: %v", long)
	}
	if a.Cost != nil || a.CostOf(0) != 1 {
		t.Errorf("the check's trace has costs %v", a.Cost)
	}
	// With costs: the same requests, each costing 1 to 3, some more than 1.
	c := Bursty3KeysWithCosts()
	if !slices.Equal(c.T, a.T) || !slices.Equal(c.Key, a.Key) || c.Keys != a.Keys || !slices.Equal(c.Cost, Bursty3KeysWithCosts().Cost) {
		t.Fatal("the check's trace with costs is not the check's requests, the same on every call")
	}
	costly := 0
	for i, q := range c.Cost {
		if q < 1 || q > 3 || c.CostOf(i) != q {
			t.Fatalf("request %d costs %d (CostOf %d)", i+1, q, c.CostOf(i))
		}
		if q > 1 {
			costly++
		}
	}
	if costly < len(c.T)/5 || costly > len(c.T)/2 {
		t.Errorf("%d of %d requests cost more than 1", costly, len(c.T))
	}
}

func TestScaleRuleAndPacer(t *testing.T) {
	r := checkRule(t)
	if got, err := ScaleRule(r, big.NewRat(1, 4)); err != nil || got.W != 4e9 || got.L != 5 {
		t.Errorf("5/1s at 1/4: %v %v", got, err)
	}
	if _, err := ScaleRule(algorithms.Rule{L: 1, W: 1}, big.NewRat(3, 1)); err == nil {
		t.Error("1 ns at speed 3: want an error")
	}
	p := NewPacer(big.NewRat(2, 1))
	p.first = 10
	if d := p.Due(10 + 7); d != 3 {
		t.Errorf("7 ns at speed 2 due at %d, want 3 (floor)", d)
	}
}
